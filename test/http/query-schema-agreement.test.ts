/**
 * The published query schemas agree with the servers: for every REST read with parameters (hunt and
 * cash hunt on the search origin; the analysis read, the evidence table and the demo route on the
 * analysis origin) a corpus of query strings is sent to the real origin (port 0, real tokens, a real
 * portfolio) and validated against the route's parameters in that origin's own /openapi.json with Ajv
 * (plus the product's x- keyword implementations, param-table.ts QUERY_KEYWORDS). Any query one side
 * accepts and the other refuses, or refuses naming other fields, is a disagreement and fails the test.
 *
 * How a query string becomes the instance the published schema validates (OpenAPI form/explode): each
 * parameter once is its text, repeated an array of its texts; a text is read as an integer when the
 * parameter's schema is an integer and the text matches its x-query-pattern (without one: the JSON
 * integer grammar); the parameters form one object whose `required` are the required parameters and
 * whose other properties are refused when the operation says x-unknown-query-parameters: refused.
 *
 * Server verdicts: 200 is accepted; 400 VALIDATION_FAILED is refused (its details name the fields),
 * unless every detail is a data check on a well-formed value (another caller's or an unknown
 * portfolio, a symbol not held, a symbol without analysis): the parameters passed. 404 (no snapshot or
 * evidence table for a well-formed date) also means the parameters passed.
 *
 * Corpus: every invalid-query case of search-contract.test.ts and analysis-contract.test.ts (and
 * analysis-evidence.test.ts), boundary values, and fast-check near-valid query strings: a few hundred
 * round trips. A last check mutates the published schemas and expects the disagreements to be found.
 *
 * Every round trip is made once, before the tests (the second beforeAll), and recorded with its group;
 * each test reads its own group's disagreements (or, for the mutation check, every recorded verdict),
 * so any one of them runs alone (-t) as it runs with the others.
 */
import fc from 'fast-check';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { QUERY_KEYWORDS } from '../../subgraphs/platform/param-table.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import type { Config } from '../../subgraphs/platform/config.js';
import { seedAnalysis, type SeedResult } from '../helpers/analysis.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request } from '../helpers/http.js';
import { startTestIssuer, TEST_OIDC_AUDIENCE, type TestIssuer } from '../helpers/oidc.js';
import { fetchOpenApi, type OpenApiDocument } from '../helpers/openapi.js';
import { scaled } from '../helpers/time.js';

type Pair = readonly [string, string];
type Schema = Record<string, unknown>;
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: Schema;
}
type Operation = Record<string, unknown> & { parameters?: Parameter[] };

/** A verdict: accepted, or refused naming these fields (sorted, distinct). */
type Verdict = { accepted: true } | { accepted: false; fields: string[] };

const HUNT = '/api/v1/portfolios/hunt';
const CASH_HUNT = '/api/v1/portfolios/cash-hunt';
const RESULT = '/api/v1/results/analysis/{symbol}';
const DEMO = '/api/v1/demo/results/analysis/{symbol}';
const EVIDENCE = '/api/v1/analysis/evidence';

const enc = encodeURIComponent;
const queryString = (pairs: readonly Pair[]) => pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
const distinct = (xs: Iterable<string>) => [...new Set(xs)].sort();
const same = (a: Verdict, b: Verdict) => a.accepted === b.accepted && (a.accepted || JSON.stringify(a.fields) === JSON.stringify((b as { fields: string[] }).fields));

// ---------------------------------------------------------------------------------------------------------
// The published side: an operation's query parameters as one JSON Schema, compiled with Ajv
// ---------------------------------------------------------------------------------------------------------

const JSON_INTEGER = /^-?(0|[1-9][0-9]*)$/;

/** A query parameter's text read as its schema's type (x-query-pattern, else the JSON integer grammar). */
function readText(schema: Schema, text: string): unknown {
  if (schema.type !== 'integer' && schema.type !== 'number') return text;
  const pattern = typeof schema['x-query-pattern'] === 'string' ? new RegExp(schema['x-query-pattern'] as string, 'u') : JSON_INTEGER;
  return pattern.test(text) ? Number(text) : text;
}

class PublishedQuery {
  private readonly validate: ValidateFunction;
  private readonly params: Parameter[];

  constructor(readonly operation: Operation) {
    this.params = (operation.parameters ?? []).filter((p) => p.in === 'query');
    const ajv = new Ajv2020.default({ allErrors: true, strict: false, validateFormats: false });
    for (const keyword of QUERY_KEYWORDS) ajv.addKeyword(keyword);
    this.validate = ajv.compile({
      type: 'object',
      properties: Object.fromEntries(this.params.map((p) => [p.name, p.schema ?? {}])),
      required: this.params.filter((p) => p.required).map((p) => p.name),
      additionalProperties: operation['x-unknown-query-parameters'] !== 'refused',
    });
  }

  verdict(pairs: readonly Pair[]): Verdict {
    const grouped = new Map<string, string[]>();
    for (const [k, v] of new URLSearchParams(queryString(pairs))) grouped.set(k, [...(grouped.get(k) ?? []), v]);
    const instance: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [name, texts] of grouped) {
      const schema = this.params.find((p) => p.name === name)?.schema ?? {};
      Object.defineProperty(instance, name, { value: texts.length === 1 ? readText(schema, texts[0]) : texts, enumerable: true });
    }
    if (this.validate(instance)) return { accepted: true };
    return { accepted: false, fields: distinct((this.validate.errors ?? []).map(fieldOf)) };
  }
}

function fieldOf(e: ErrorObject): string {
  if (e.keyword === 'required') return (e.params as { missingProperty: string }).missingProperty;
  if (e.keyword === 'additionalProperties') return (e.params as { additionalProperty: string }).additionalProperty;
  return e.instancePath.slice(1).split('/')[0].replace(/~1/g, '/').replace(/~0/g, '~');
}

// ---------------------------------------------------------------------------------------------------------
// The server side
// ---------------------------------------------------------------------------------------------------------

/** 400 details that check data against the store (the parameter itself was well formed). */
const DATA_CHECK = /among yours|is not held in portfolio|no analysis is stored for/;

function serverVerdict(status: number, body: { code?: string; details?: Array<{ field?: string; message: string }> } | undefined): Verdict {
  if (status === 200 || status === 404) return { accepted: true };
  if (status === 400 && body?.code === 'VALIDATION_FAILED') {
    const details = body.details ?? [];
    if (details.length > 0 && details.every((d) => DATA_CHECK.test(d.message))) return { accepted: true };
    return { accepted: false, fields: distinct(details.map((d) => d.field ?? '')) };
  }
  throw new Error(`unexpected answer ${status} ${JSON.stringify(body)}`);
}

describe('published query schemas and the servers agree', () => {
  let issuer: TestIssuer;
  let config: Config;
  let store: TestDb;
  let platform: RunningPlatform;
  let seed: SeedResult;
  let docs: { search: OpenApiDocument; analysis: OpenApiDocument };
  let portfolioId: string;
  let held: string[];
  let other: string;
  const headers: Record<string, Record<string, string>> = {};
  /** Every (route, query) sent, with the server's verdict: the mutation check re-reads them. */
  const record: Array<{ route: string; pairs: readonly Pair[]; server: Verdict }> = [];
  /** The disagreements found, by group (a test's name); every group sent at least one query. */
  const disagreements = new Map<string, string[]>();
  const disagreementsOf = (group: string): string[] => {
    const found = disagreements.get(group);
    if (!found) throw new Error(`no query was sent for ${group}`);
    return found;
  };

  const published = (route: string, doc: OpenApiDocument = route === HUNT || route === CASH_HUNT ? docs.search : docs.analysis) =>
    new PublishedQuery(doc.paths[route].get as unknown as Operation);

  /** Sends the query to the route and compares the verdicts; a disagreement is recorded under the group, not thrown. */
  async function compare(group: string, route: string, pairs: readonly Pair[]): Promise<void> {
    const origin = route === HUNT || route === CASH_HUNT ? platform.urls.search : platform.urls.analysis;
    const path = route.replace('{symbol}', route === DEMO ? config.demo.symbol : other);
    const qs = queryString(pairs);
    const res = await request<{ code?: string; details?: Array<{ field?: string; message: string }> }>(`${origin}${path}${qs ? `?${qs}` : ''}`, {
      headers: headers[route],
    });
    const server = serverVerdict(res.status, res.body);
    const schema = published(route).verdict(pairs);
    record.push({ route, pairs, server });
    const found = disagreements.get(group) ?? [];
    disagreements.set(group, found);
    if (!same(server, schema)) found.push(`${route}?${qs}: server ${JSON.stringify(server)}, published ${JSON.stringify(schema)}`);
  }

  beforeAll(async () => {
    issuer = await startTestIssuer();
    config = testConfig({ ANALYZE_ON_START: 'false', OIDC_ISSUER: issuer.url, OIDC_AUDIENCES: TEST_OIDC_AUDIENCE });
    store = await openTestDb('pglite');
    platform = await startPlatform(config, ['analysis', 'allocation', 'search'], { db: store.db });
    docs = { search: await fetchOpenApi(platform.urls.search as string), analysis: await fetchOpenApi(platform.urls.analysis as string) };
    seed = await seedAnalysis(store.db, { days: 2 });
    other = seed.symbols.find((s) => s !== config.demo.symbol) as string;
    const partnerToken = (audience: string) => mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience, subject: 'partner-1' });
    const optimized = await request<{ portfolio_id: string; allocations: Array<{ symbol: string }> }>(`${platform.urls.allocation}/api/v1/portfolios/optimize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await partnerToken(config.auth.audiences.allocation)}` },
      body: JSON.stringify({ name: 'Agreement book', total_capital: 100000 }),
    });
    expect(optimized.status).toBe(200);
    portfolioId = optimized.body.portfolio_id;
    held = optimized.body.allocations.map((a) => a.symbol);
    expect(held.length).toBeGreaterThan(0);
    const oidc = { authorization: `Bearer ${await issuer.idToken({ subject: 'partner-1' })}` };
    const partner = { authorization: `Bearer ${await partnerToken(config.auth.audiences.analysis)}` };
    Object.assign(headers, { [HUNT]: oidc, [CASH_HUNT]: oidc, [RESULT]: partner, [EVIDENCE]: partner, [DEMO]: {} });
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
    await issuer?.close();
  });

  // -------------------------------------------------------------------------------------------------------
  // Search: hunt and cash hunt
  // -------------------------------------------------------------------------------------------------------

  const UNKNOWN_ID = '3f2b8a4e-9c1d-4e5f-8a7b-6c5d4e3f2a1b';

  /** [route, query pairs]: the search-contract cases, then boundaries. */
  function searchCorpus(): Array<[string, Pair[]]> {
    const id = (): Pair => ['portfolio_id', portfolioId];
    const h = held[0];
    const out: Array<[string, Pair[]]> = [];
    for (const route of [HUNT, CASH_HUNT]) {
      const cases: Pair[][] = [
        [],
        [['portfolio_id', '']],
        [['portfolio_id', 'not-a-uuid']],
        [['portfolio_id', UNKNOWN_ID]],
        [['portfolio_id', '1; DROP TABLE portfolios']],
        [id()],
        [['portfolio_id', portfolioId.toUpperCase()]],
        [['portfolio_id', ` ${portfolioId}`]],
        [id(), id()],
        [['portfolio_id', portfolioId], ['portfolio_id', UNKNOWN_ID]],
        [id(), ['page', '1'], ['page', '1']],
        [id(), ['page', '1'], ['page', '2']],
        [id(), ['page_size', '6'], ['page_size', '6']],
        [id(), ['symbol_replce', h]],
        [id(), ['pageSize', '10']],
        [id(), ['limit', '5']],
        [id(), ['symbol_replace', h]],
        [['portfolio_id', 'x'], ['page', '0'], ['page_size', '99'], ['symbol_interest', '$$'], ['foo', '1']],
        [['portfolio_id', 'x'], ['page', '0'], ['page_size', '99'], ['foo', 'bar']],
      ];
      for (const [name, values] of [
        ['page', ['0', '1', '2', '1000', '1000001', '2147483647', '2147483648', '9999999999', '99999999999', '-1', '1.5', '1.0', 'abc', '', '1e2', '+1', ' 1', '007', '0x10', 'Infinity']],
        ['page_size', ['0', '1', '6', '49', '50', '51', '1.5', 'abc', '', '050', '-0']],
      ] as const) {
        for (const value of values) cases.push([id(), [name, value]]);
      }
      cases.push([id(), ['page', '0'], ['page_size', '51']]);
      if (route === HUNT) {
        cases.push(
          [id(), ['symbol_replace', h], ['symbol_interest', held[1] ?? h]],
          [id(), ['symbol_replace', 'ZZZZZ']],
          [id(), ['symbol_interest', 'ZZZZZ']],
          [id(), ['symbol_interest', h]],
          [id(), ['symbol_interest', ` ${h.toLowerCase()} `]],
          [id(), ['symbol_replace', h.toLowerCase()]],
          [id(), ['symbol_replace', '../etc']],
          [id(), ['symbol_interest', "A'; DROP TABLE portfolios; --"]],
          [id(), ['symbol_interest', "A'"]],
          [id(), ['symbol_interest', 'ÄPPL']],
          [id(), ['symbol_replace', 'acmı']],
          [id(), ['symbol_replace', '']],
          [id(), ['symbol_interest', '']],
          [id(), ['symbol_interest', 'ABCDEFGHIJK']],
          [id(), ['symbol_interest', 'BRK.B']],
          [id(), ['symbol_interest', 'BF-B']],
          [id(), ['symbol_interest', 'A B']],
          [id(), ['symbol_replace', h], ['symbol_replace', h]],
          [id(), ['symbol_replace', ''], ['symbol_interest', h]],
          [id(), ['symbol_replace', h], ['symbol_interest', '$$']],
        );
      }
      for (const c of cases) out.push([route, c]);
    }
    return out;
  }

  const SEARCH_CASES = 'hunt and cash hunt: the search-contract cases and the boundaries';
  it(SEARCH_CASES, () => {
    expect(disagreementsOf(SEARCH_CASES)).toEqual([]);
  });

  /** Near-valid query strings: valid values, nudged; now and then a parameter repeated, dropped or unknown. */
  const nearValidSearch = (route: string) => {
    const symbols = fc.oneof(
      fc.constantFrom(...held, 'ZZZZ', 'BRK.B'),
      fc.constantFrom(...held).map((s) => s.toLowerCase()),
      fc.constantFrom(...held).map((s) => ` ${s}\t`),
      fc.tuple(fc.constantFrom(...held), fc.constantFrom('.', '-', '$', ' ', 'Ä', '1', '..')).map(([s, c]) => `${s}${c}`),
      fc.string({ maxLength: 12 }),
    );
    const numbers = (max: number) =>
      fc.oneof(
        fc.integer({ min: -2, max: max + 2 }).map(String),
        fc.constantFrom('', '00', '1.0', '1e1', ' 3', '3 ', '+3', String(max), String(max + 1), '2147483647', '2147483648'),
        fc.string({ unit: fc.constantFrom('0', '1', '5', '9', '.', '-'), maxLength: 11 }),
      );
    const ids = fc.oneof(
      fc.constant(portfolioId),
      fc.constant(portfolioId.toUpperCase()),
      fc.constant(portfolioId.slice(0, -1)),
      fc.constant(`${portfolioId}0`),
      fc.uuid(),
      fc.constant(''),
    );
    const names = route === HUNT ? ['symbol_replace', 'symbol_interest', 'page', 'page_size'] : ['page', 'page_size'];
    const value = (name: string) => (name.startsWith('symbol') ? symbols : name === 'page' ? numbers(1000) : numbers(50));
    const known = fc.subarray(names).chain((chosen) => fc.tuple(...chosen.map((n) => value(n).map((v): Pair => [n, v]))));
    const extra = fc.array(
      fc.oneof(
        fc.tuple(fc.constantFrom(...names, 'portfolio_id'), fc.constantFrom('1', 'A', portfolioId)),
        fc.tuple(fc.constantFrom('pageSize', 'symbol', 'limit', 'PAGE', 'symbol_replace', 'portfolio'), fc.constantFrom('1', 'ACME')),
      ),
      { maxLength: 1 },
    );
    return fc.tuple(fc.option(ids, { freq: 6 }), known, extra).map(([id, k, e]): Pair[] => [...(id === null ? [] : [['portfolio_id', id] as Pair]), ...k, ...(e as Pair[])]);
  };

  const nearValid = (route: string) => `${route}: near-valid query strings (fast-check)`;
  it.each([HUNT, CASH_HUNT])('%s: near-valid query strings (fast-check)', (route) => {
    expect(disagreementsOf(nearValid(route))).toEqual([]);
  });

  // -------------------------------------------------------------------------------------------------------
  // Analysis: the partner read, the evidence table, the demo route
  // -------------------------------------------------------------------------------------------------------

  const BAD_DATES = ['2026-13-01', '2026-02-30', '20261030', '2026-1-5', 'yesterday', '', '2026-10-30T00:00:00Z', 'nope', 'garbage'];
  const EDGE_DATES = ['2024-02-29', '2023-02-29', '2000-02-29', '1900-02-29', '0000-01-01', '0099-12-31', '9999-12-31', '2026-04-31', '2026-12-31', ' 2026-01-05', '2026-01-05 '];

  const analysisCases = (route: string) => `${route}: the contract cases and the boundaries`;
  /** The analysis-contract cases and boundaries of one route. */
  const analysisCorpus = (): Pair[][] => [
    [],
    ...[...seed.dates, ...BAD_DATES, ...EDGE_DATES].map((d): Pair[] => [['date', d]]),
    [['date', seed.dates[0]], ['date', seed.dates[1]]],
    [['date', seed.dates[0]], ['date', seed.dates[0]]],
    [['date', 'garbage'], ['date', 'x']],
    [['limit', '3'], ['foo', 'bar'], ['Date', '2000-01-01']],
    [['foo', '1']],
    [['foo', '1'], ['foo', '2']],
    [['date', seed.latestDate], ['page', '2']],
    [['DATE', 'nope']],
  ];

  it.each([RESULT, EVIDENCE, DEMO])('%s: the contract cases and the boundaries', (route) => {
    expect(disagreementsOf(analysisCases(route))).toEqual([]);
  });

  const nearValidDates = fc.oneof(
    fc.constantFrom('2024-02-29', '2026-01-05', '2025-12-31'),
    fc.date({ min: new Date(Date.UTC(1000, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
    fc.tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(
      ([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
    ),
    fc.string({ unit: fc.constantFrom('0', '1', '2', '9', '-', 'T', ' '), maxLength: 12 }),
  );

  it.each([RESULT, EVIDENCE])('%s: near-valid query strings (fast-check)', (route) => {
    expect(disagreementsOf(nearValid(route))).toEqual([]);
  });

  // Every round trip, once: the verdicts the tests above and the mutation check below read.
  beforeAll(async () => {
    for (const [route, pairs] of searchCorpus()) await compare(SEARCH_CASES, route, pairs);
    for (const route of [HUNT, CASH_HUNT]) {
      await fc.assert(
        fc.asyncProperty(nearValidSearch(route), async (pairs) => {
          await compare(nearValid(route), route, pairs);
          return true;
        }),
        { numRuns: 60 },
      );
    }
    for (const route of [RESULT, EVIDENCE, DEMO]) for (const pairs of analysisCorpus()) await compare(analysisCases(route), route, pairs);
    for (const route of [RESULT, EVIDENCE]) {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom('date', 'date', 'date', 'Date', 'other'), nearValidDates), { maxLength: 2 }), async (pairs) => {
          await compare(nearValid(route), route, pairs);
          return true;
        }),
        { numRuns: 40 },
      );
    }
  }, scaled(300_000));

  // -------------------------------------------------------------------------------------------------------
  // The comparison finds disagreements (so an empty list above means something)
  // -------------------------------------------------------------------------------------------------------

  it('a published schema mutated in any of its rules disagrees with the recorded server verdicts', () => {
    expect(record.length).toBeGreaterThan(200);
    expect(record.length).toBeLessThan(800);
    const mutate = (route: string, change: (operation: Operation) => void): number => {
      const doc = JSON.parse(JSON.stringify(route === HUNT || route === CASH_HUNT ? docs.search : docs.analysis)) as OpenApiDocument;
      change(doc.paths[route].get as unknown as Operation);
      const check = published(route, doc);
      return record.filter((r) => r.route === route && !same(r.server, check.verdict(r.pairs))).length;
    };
    const param = (operation: Operation, name: string) => (operation.parameters ?? []).find((p) => p.name === name && p.in === 'query') as Parameter;
    const mutations: Array<[string, string, (o: Operation) => void]> = [
      [HUNT, 'page_size maximum 51', (o) => void (param(o, 'page_size').schema!.maximum = 51)],
      [CASH_HUNT, 'page minimum 0', (o) => void (param(o, 'page').schema!.minimum = 0)],
      [HUNT, 'no x-query-pattern on page', (o) => void delete param(o, 'page').schema!['x-query-pattern']],
      [HUNT, 'symbols not exclusive', (o) => void delete param(o, 'symbol_interest').schema!['x-exclusive-with']],
      [HUNT, 'unknown parameters ignored', (o) => void (o['x-unknown-query-parameters'] = 'ignored')],
      [CASH_HUNT, 'portfolio_id optional', (o) => void (param(o, 'portfolio_id').required = false)],
      [HUNT, 'any symbol text', (o) => void delete param(o, 'symbol_replace').schema!.pattern],
      [RESULT, 'no x-calendar-date', (o) => void delete param(o, 'date').schema!['x-calendar-date']],
      [EVIDENCE, 'date repeatable', (o) => void (param(o, 'date').schema = { anyOf: [param(o, 'date').schema, { type: 'array' }] })],
      [DEMO, 'date checked on the demo route', (o) => void (param(o, 'date').schema = { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' })],
    ];
    for (const [route, what, change] of mutations) expect({ what, found: mutate(route, change) > 0 }).toEqual({ what, found: true });
  });
});
