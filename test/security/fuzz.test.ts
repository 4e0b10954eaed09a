/**
 * Property-based hostile input (fast-check) against the analysis REST routes, the optimize route, the
 * hunt and cash-hunt routes and the GraphQL endpoints (every subgraph, gateway): wrong types, huge numbers,
 * NaN/Infinity strings, long strings,
 * unicode, path traversal and SQL meta-characters in symbols, duplicate query parameters, deep JSON.
 * Every response must be a documented 4xx or a valid 2xx in the documented shape, never a 5xx or a
 * stack trace, and the store must be unchanged (an optimize that answers 200 to a partner stores
 * exactly one portfolio; anything else stores none). (Issue "Production hardening" item 5.)
 */
import fc from 'fast-check';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { ERROR_CODES } from '../../subgraphs/platform/errors.js';
import { MAX_URL_BYTES } from '../../subgraphs/platform/http-limits.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request } from '../helpers/http.js';
import { startTestIssuer, TEST_OIDC_AUDIENCE, type TestIssuer } from '../helpers/oidc.js';
import type { Config } from '../../subgraphs/platform/config.js';

let store: TestDb;
let platform: RunningPlatform;
let token: string;
let before: string;
let issuer: TestIssuer;
let config: Config;
const RUNS = 200;

const counts = async () =>
  JSON.stringify(
    await store.db.query(
      'SELECT (SELECT count(*)::int FROM securities) AS s, (SELECT count(*)::int FROM bars) AS b, (SELECT count(*)::int FROM analysis_snapshots) AS a, (SELECT count(*)::int FROM analysis_runs) AS r',
    ),
  );

beforeAll(async () => {
  issuer = await startTestIssuer();
  config = testConfig({ DEMO_SYMBOL_COUNT: '12', ANALYZE_ON_START: 'false', OIDC_ISSUER: issuer.url, OIDC_AUDIENCES: TEST_OIDC_AUDIENCE });
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
  await seedAnalysis(store.db, { days: 3 });
  token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'fuzzer' });
  before = await counts();
});
afterAll(async () => {
  expect(await counts()).toBe(before); // rejected (and accepted read-only) requests changed nothing
  await platform?.close();
  await store?.drop();
  await issuer?.close();
});

/** Strings a hostile client sends where a symbol or a date belongs. */
const hostile = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    'ACME', ' acme ', 'acme%00', '../../etc/passwd', '..%2F..%2Fetc', "ACME' OR '1'='1", 'ACME;DROP TABLE bars;--', '%', '_', '\\',
    'NaN', 'Infinity', '-Infinity', '1e309', '9'.repeat(400), 'A'.repeat(5000), '🚀', 'Ａ', '\u202e', '<script>', '{}', '[]', 'null',
    '2026-02-30', '2026-13-01', '0000-00-00', '9999-12-31', '2026-10-30T00:00:00Z', '-1', '',
  ),
);

function expectDocumentedResponse(status: number, text: string, contentType: string | null): void {
  expect(status).toBeLessThan(500);
  expect(text).not.toMatch(/\bat .+\.(ts|js):\d+|node_modules|stack/i);
  if (status >= 400 && contentType?.includes('json')) {
    const body = JSON.parse(text) as { code?: string; errors?: Array<{ extensions?: { code?: string } }> };
    const code = body.code ?? body.errors?.[0]?.extensions?.code ?? '';
    expect(code in ERROR_CODES).toBe(true);
    expect(ERROR_CODES[code as keyof typeof ERROR_CODES]).toBe(status);
  }
}

async function get(path: string, headers: Record<string, string> = {}): Promise<void> {
  const res = await fetch(`${platform.urls.analysis}${path}`, { headers });
  expectDocumentedResponse(res.status, await res.text(), res.headers.get('content-type'));
}

const enc = encodeURIComponent;

it('the analysis read, with or without a token, answers every symbol and date with a documented status', async () => {
  await fc.assert(
    fc.asyncProperty(hostile, fc.option(hostile), fc.boolean(), async (symbol, date, withToken) => {
      const query = date === null ? '' : `?date=${enc(date)}`;
      await get(`/api/v1/results/analysis/${enc(symbol)}${query}`, withToken ? { authorization: `Bearer ${token}` } : {});
    }),
    { numRuns: RUNS },
  );
});

it('the demo route, raw path segments and duplicate or odd query parameters never produce a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(hostile, fc.array(fc.tuple(fc.constantFrom('date', 'date', 'symbol', 'page', '__proto__', 'constructor'), hostile), { maxLength: 4 }), async (symbol, params) => {
      const qs = params.map(([k, v]) => `${k}=${enc(v)}`).join('&');
      await get(`/api/v1/demo/results/analysis/${enc(symbol)}?${qs}`);
      await get(`/api/v1/results/analysis/${enc(symbol)}?${qs}`, { authorization: `Bearer ${token}` });
    }),
    { numRuns: RUNS },
  );
});

it('malformed and foreign bearer tokens are a 401, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(hostile, fc.base64String({ maxLength: 300 }), fc.constant(`${token.slice(0, -4)}AAAA`), fc.constant('e30.e30.')), async (junk) => {
      const res = await fetch(`${platform.urls.analysis}/api/v1/results/analysis/ACME`, { headers: { authorization: `Bearer ${junk.replace(/[\r\n]/g, '')}` } }).catch(() => null);
      if (!res) return; // a header value fetch itself refuses to send
      expectDocumentedResponse(res.status, await res.text(), res.headers.get('content-type'));
      expect([200, 401]).toContain(res.status);
    }),
    { numRuns: RUNS },
  );
});

/** JSON values of any shape, deep ones included. */
const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constant(JSON.parse(`${'['.repeat(2000)}${']'.repeat(2000)}`) as unknown),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, 1e308, 'NaN', 'Infinity', 2 ** 31, -(2 ** 31) - 1),
);

it('GraphQL operations with hostile variables, on the subgraph and the gateway, never produce a 5xx', async () => {
  const operations = [
    'query ($s: String!, $d: String) { analysis(symbol: $s, date: $d) { stage price } }',
    'query ($n: Int, $a: String, $sec: String) { securities(first: $n, after: $a, sector: $sec) { totalCount nodes { symbol } } }',
    'query ($s: String!, $n: Int, $f: LocalDate, $t: LocalDate) { security(symbol: $s) { bars(first: $n, from: $f, to: $t) { totalCount } } }',
    'query ($s: String!, $f: LocalDate, $n: Int) { security(symbol: $s) { snapshots(from: $f, first: $n) { totalCount } } }',
  ];
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('analysis', 'gateway'),
      fc.constantFrom(...operations),
      fc.dictionary(fc.constantFrom('s', 'd', 'n', 'a', 'sec', 'f', 't'), fc.oneof(hostile, anyJson)),
      fc.boolean(),
      async (origin, query, variables, withToken) => {
        const res = await request(`${platform.urls[origin as 'analysis' | 'gateway']}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(withToken ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify({ query, variables }),
        });
        expectDocumentedResponse(res.status, res.text, 'application/json');
        for (const error of (res.body as { errors?: Array<{ extensions?: { code?: string } }> }).errors ?? []) {
          expect(error.extensions?.code).not.toBe('INTERNAL_ERROR');
        }
      },
    ),
    { numRuns: RUNS },
  );
});

it('GraphQL bodies of the wrong shape are client errors', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('analysis', 'gateway'), anyJson, async (origin, body) => {
      const res = await request(`${platform.urls[origin as 'analysis' | 'gateway']}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expectDocumentedResponse(res.status, res.text, 'application/json');
    }),
    { numRuns: RUNS },
  );
});

// ---------------------------------------------------------------------------------------------------------
// Allocation: POST /api/v1/portfolios/optimize and Mutation.optimizePortfolio
// ---------------------------------------------------------------------------------------------------------

const portfolioCount = async () => (await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolios'))[0].n;

/** Numbers and near-numbers where a fraction, a count or an amount belongs. */
const hostileNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, 1, -0, 0.5, 1.0000001, -1, 1000, 999.999, 1e12, 1e13, 2 ** 31, Number.MAX_SAFE_INTEGER, 1e-320, 'NaN', '0.1', '1e309', null, true, [], {}),
);
const hostileMap = fc.dictionary(hostile, fc.oneof(hostileNumber, hostile), { maxKeys: 6 });
const STRATEGIES = ['EQUAL_WEIGHT', 'STAGE_WEIGHTED', 'CONFIDENCE_WEIGHTED', 'KELLY_CRITERION', 'HYBRID_WEIGHTED'];

/** PortfolioRequest-shaped bodies whose every field may be hostile (snake_case, as REST takes them). */
const optimizeBody = fc.record(
  {
    name: fc.oneof(hostile, hostileNumber),
    description: fc.oneof(hostile, hostileNumber),
    total_capital: hostileNumber,
    currency: fc.oneof(fc.constantFrom('USD', 'EUR', 'usd', 'XXX'), hostile),
    risk_settings: fc.oneof(
      hostileNumber,
      fc.record(
        {
          max_risk_per_trade: hostileNumber,
          max_portfolio_risk: hostileNumber,
          max_position_size: hostileNumber,
          max_positions: hostileNumber,
          allocation_strategy: fc.oneof(fc.constantFrom(...STRATEGIES), hostile),
          softmax_temperature: hostileNumber,
          reward_multiplier: hostileNumber,
          stage_weights: fc.oneof(hostileMap, fc.constant({ 'STAGE 2': 1, 'stage 1': 0.5 })),
          half_kelly: fc.oneof(fc.boolean(), hostile),
        },
        { requiredKeys: [] },
      ),
    ),
    constraint_pack: fc.oneof(
      hostileNumber,
      fc.record(
        {
          schema_version: fc.oneof(fc.constant('1'), hostile),
          vol_target_annual: hostileNumber,
          max_portfolio_turnover_annual: hostileNumber,
          sector_caps: fc.oneof(hostileMap, fc.constant({ DEFAULT: 0.1, Energy: 0 })),
          covariance_model: hostile,
        },
        { requiredKeys: [] },
      ),
    ),
    prior_book_weights: fc.oneof(hostileMap, fc.constant({ ACME: 0.3, acme: 0.1 })),
    risk_quiz_answers: fc.oneof(hostileMap, fc.constant({ goal: 'growth', horizon: 'over_10y' })),
    suggested_preset: fc.oneof(fc.record({ key: hostile }), hostileNumber),
    investor_profile: fc.oneof(fc.record({ schema_version: hostile, recorded_at: hostile }, { requiredKeys: [] }), hostileNumber),
    policy_explanation: fc.oneof(fc.record({ bullets: fc.oneof(fc.array(hostile, { maxLength: 3 }), hostile) }, { requiredKeys: [] }), hostileNumber),
    junk: anyJson,
  },
  { requiredKeys: [] },
);

it('optimize, with a partner token or without, answers hostile bodies with a documented status and stores only what it answers 200', async () => {
  const allocationToken = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'fuzzer' });
  await fc.assert(
    fc.asyncProperty(fc.oneof(optimizeBody, anyJson), fc.boolean(), fc.option(hostile), async (body, withToken, key) => {
      const before = await portfolioCount();
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(withToken ? { authorization: `Bearer ${allocationToken}` } : {}) };
      // (fetch refuses header values it cannot send; those keys are left out.)
      if (key !== null && /^[\x20-\x7e]*$/.test(key)) headers['idempotency-key'] = key;
      const res = await request(`${platform.urls.allocation}/api/v1/portfolios/optimize`, { method: 'POST', headers, body: JSON.stringify(body) });
      expectDocumentedResponse(res.status, res.text, res.headers.get('content-type'));
      const stored = (await portfolioCount()) - before;
      const fresh = res.status === 200 && withToken && res.headers.get('idempotent-replayed') !== 'true';
      expect(stored).toBe(fresh ? 1 : 0);
    }),
    { numRuns: RUNS },
  );
});

it('optimizePortfolio with hostile variables never produces a 5xx or an INTERNAL_ERROR', async () => {
  const allocationToken = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'fuzzer' });
  const camel = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(camel) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), camel(v)])) : value;
  await fc.assert(
    fc.asyncProperty(fc.constantFrom('allocation', 'gateway'), optimizeBody, fc.boolean(), async (origin, body, withToken) => {
      const res = await request(`${platform.urls[origin as 'allocation' | 'gateway']}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(withToken ? { authorization: `Bearer ${allocationToken}` } : {}) },
        body: JSON.stringify({ query: 'mutation($i: PortfolioRequestInput!) { optimizePortfolio(input: $i) { id positionCount } }', variables: { i: camel(body) } }),
      });
      expectDocumentedResponse(res.status, res.text, 'application/json');
      for (const error of (res.body as { errors?: Array<{ extensions?: { code?: string } }> }).errors ?? []) {
        expect(error.extensions?.code).not.toBe('INTERNAL_ERROR');
      }
    }),
    { numRuns: RUNS },
  );
});

// ---------------------------------------------------------------------------------------------------------
// Opportunity search: GET /api/v1/portfolios/hunt, /cash-hunt and Query.hunt / Query.cashHunt
// ---------------------------------------------------------------------------------------------------------

describe('opportunity search', () => {
  let portfolioId: string;
  let idToken: string;

  beforeAll(async () => {
    const allocationToken = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'fuzzer' });
    const res = await request(`${platform.urls.allocation}/api/v1/portfolios/optimize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${allocationToken}` },
      body: JSON.stringify({ name: 'Fuzz book', total_capital: 100000, risk_settings: { max_positions: 4 } }),
    });
    expect(res.status).toBe(200);
    portfolioId = res.body.portfolio_id as string;
    idToken = await issuer.idToken({ subject: 'fuzzer' });
  });

  /** A real portfolio id, another case of it, or junk. */
  const portfolioIds = () => fc.oneof(fc.constant(portfolioId), fc.constant(portfolioId.toUpperCase()), fc.uuid(), hostile);
  const pageValues = fc.oneof(fc.integer({ min: -5, max: 60 }).map(String), hostile, fc.constantFrom('1', '50', '51', '0', '1.5', '1e3', '0x10', '999999999999'));
  const paramNames = fc.constantFrom('portfolio_id', 'symbol_replace', 'symbol_interest', 'page', 'page_size', 'portfolio_id', '__proto__', 'constructor', 'symbol');

  it('hunt and cash-hunt answer hostile query strings and tokens with a documented status and write nothing', async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('hunt', 'cash-hunt'),
        portfolioIds(),
        fc.record({ symbol_replace: hostile, symbol_interest: hostile, page: pageValues, page_size: pageValues }, { requiredKeys: [] }),
        fc.array(fc.tuple(paramNames, hostile), { maxLength: 3 }),
        fc.constantFrom('valid', 'none', 'junk', 'forged'),
        async (operation, id, params, extra, auth) => {
          const before = await portfolioCount();
          const pairs: Array<[string, string]> = [['portfolio_id', id], ...Object.entries(params), ...extra];
          const qs = pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
          const authorization =
            auth === 'valid' ? `Bearer ${idToken}` : auth === 'forged' ? `Bearer ${await issuer.forgedToken({ subject: 'fuzzer' })}` : auth === 'junk' ? 'Bearer e30.e30.' : undefined;
          const target = `/api/v1/portfolios/${operation}?${qs}`;
          const res = await request(`${platform.urls.search}${target}`, { headers: authorization ? { authorization } : {} });
          expectDocumentedResponse(res.status, res.text, res.headers.get('content-type'));
          // A request target over the shell's URL limit is refused before anything else looks at it.
          if (Buffer.byteLength(target) > MAX_URL_BYTES) expect(res.status).toBe(414);
          else if (auth !== 'valid') expect(res.status).toBe(401);
          else expect([200, 400]).toContain(res.status);
          expect(await portfolioCount()).toBe(before);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        },
      ),
      // Valid parameters are likely enough that some runs reach the engine with odd but legal input.
      { numRuns: RUNS, examples: [['hunt', portfolioId, {}, [], 'valid'], ['cash-hunt', portfolioId, { page: '2', page_size: '1' }, [], 'valid'], ['hunt', portfolioId, { symbol_interest: ' acme ' }, [], 'valid']] },
    );
    expect(statuses.get(200) ?? 0).toBeGreaterThanOrEqual(3);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
    expect(statuses.get(401) ?? 0).toBeGreaterThan(0);
  });

  it('Query.hunt and Query.cashHunt with hostile variables, on the subgraph and the gateway, never produce a 5xx or an INTERNAL_ERROR', async () => {
    const operations = [
      'query ($p: ID!, $r: String, $i: String, $n: Int, $s: Int) { hunt(portfolioId: $p, symbolReplace: $r, symbolInterest: $i, page: $n, pageSize: $s) { huntMode totalRecommendations } }',
      'query ($p: ID!, $n: Int, $s: Int) { cashHunt(portfolioId: $p, page: $n, pageSize: $s) { availableCash recommendations { symbol shares } } }',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('search', 'gateway'),
        fc.constantFrom(...operations),
        portfolioIds(),
        fc.dictionary(fc.constantFrom('r', 'i', 'n', 's'), fc.oneof(hostile, anyJson, fc.integer())),
        async (origin, query, p, variables) => {
          const res = await request(`${platform.urls[origin as 'search' | 'gateway']}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${idToken}` },
            body: JSON.stringify({ query, variables: { ...variables, p } }),
          });
          expectDocumentedResponse(res.status, res.text, 'application/json');
          for (const error of (res.body as { errors?: Array<{ extensions?: { code?: string } }> }).errors ?? []) {
            expect(error.extensions?.code).not.toBe('INTERNAL_ERROR');
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
