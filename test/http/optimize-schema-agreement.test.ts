/**
 * The published optimize request schema agrees with the server: every body of a corpus is validated
 * against the request body schema of `POST /api/v1/portfolios/optimize` in a real allocation origin's
 * own /openapi.json (Ajv, plus the product's implementations of its `x-` keywords,
 * subgraphs/allocation/request/rules.ts REQUEST_RULES) and sent to that origin with a partner token. A
 * body one side accepts and the other refuses (200 against 400 VALIDATION_FAILED) is a disagreement
 * and fails the test.
 *
 * Corpus: the rule probes (each rule plain JSON Schema cannot state, and the ones it can), a null for
 * every field of the document, every invalid body of allocation-contract.test.ts, and fast-check
 * near-valid bodies (one field of a valid body mutated: null, a wrong type, a boundary number, an odd
 * string, an unknown key, a bad map). A few hundred round trips: the origin runs on an empty market
 * (every accepted body builds an empty book, cheaply) for a partner of its own, so what it stores
 * (every accepted body is a portfolio) touches nobody else.
 *
 * The comparison itself is checked last: the published document mutated in one rule at a time (a bound,
 * a nullability, an `x-` keyword dropped, a required flag, unknown fields allowed) must disagree with
 * the server's recorded verdicts on at least one body of the corpus, so an empty disagreement list
 * above means the corpus exercises each of those rules.
 */
import fc from 'fast-check';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { REQUEST_RULES } from '../../subgraphs/allocation/request/rules.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request } from '../helpers/http.js';
import { fetchOpenApi, type OpenApiDocument } from '../helpers/openapi.js';

type Json = Record<string, unknown>;
type Schema = Record<string, unknown>;
type Path = readonly string[];

const OPTIMIZE = '/api/v1/portfolios/optimize';

/** Every field of the request set to a valid value. */
const FULL: Json = {
  name: 'agreement',
  description: 'every field set',
  total_capital: 1000,
  currency: 'EUR',
  risk_quiz_answers: { goal: 'growth', horizon: '5_10y' },
  suggested_preset: { key: 'moderate', description: 'from the wizard' },
  risk_settings: {
    max_risk_per_trade: 0.01,
    max_portfolio_risk: 0.05,
    max_position_size: 0.2,
    max_positions: 5,
    allocation_strategy: 'HYBRID_WEIGHTED',
    softmax_temperature: 1,
    reward_multiplier: 1,
    stage_weights: { 'STAGE 2': 1, stage_1: 0.3 },
    half_kelly: true,
  },
  investor_profile: { schema_version: '1', recorded_at: '2024-05-01T10:00:00Z', risk_quiz_answers: { goal: 'anything' }, suggested_preset: { key: 'mine', description: null } },
  constraint_pack: { schema_version: '1', max_portfolio_turnover_annual: 1, vol_target_annual: 0.2, sector_caps: { DEFAULT: 0.5, Energy: 0.3 }, covariance_model: 'ledoit_wolf' },
  prior_book_weights: { ACME: 0.4, BETA: 0.3 },
  policy_explanation: { schema_version: '1', mapper_version: '1.0.0', preset_key: 'moderate', bullets: ['a line'] },
};
const MINIMAL: Json = { name: 'agreement', total_capital: 1000 };

const clone = <T>(value: T): T => structuredClone(value);
/** The body with the value at `path` replaced (parents created as needed). */
function withValue(body: Json, path: Path, value: unknown): Json {
  const out = clone(body);
  let at = out;
  for (const step of path.slice(0, -1)) {
    if (typeof at[step] !== 'object' || at[step] === null) at[step] = {};
    at = at[step] as Json;
  }
  at[path[path.length - 1]] = value;
  return out;
}
const minimal = (over: Json): Json => ({ ...MINIMAL, ...over });

// ---------------------------------------------------------------------------------------------------------
// The corpus's fixed part
// ---------------------------------------------------------------------------------------------------------

/** Rules (probe name, body). */
const RULE_PROBES: Array<[string, unknown]> = [
  ['an unknown currency', minimal({ currency: 'XYZ' })],
  ['a lower-case currency', minimal({ currency: 'eur' })],
  ['recorded_at not a date', minimal({ investor_profile: { schema_version: '1', recorded_at: 'yesterday' } })],
  ['recorded_at on a day that does not exist', minimal({ investor_profile: { schema_version: '1', recorded_at: '2023-02-30T00:00:00Z' } })],
  ['total_capital with fractions of a cent', minimal({ total_capital: 5000.001 })],
  ['total_capital in whole cents', minimal({ total_capital: 5000.07 })],
  ['prior weights summing above 1', minimal({ prior_book_weights: { AAA: 0.7, BBB: 0.6 } })],
  ['prior weights summing to exactly 1', minimal({ prior_book_weights: { AAA: 0.7, BBB: 0.3 } })],
  ['one symbol twice in the prior book', minimal({ prior_book_weights: { aapl: 0.3, ' AAPL ': 0.4 } })],
  ['a blank prior-book key', minimal({ prior_book_weights: { ' ': 0.1 } })],
  ['one stage twice', minimal({ risk_settings: { stage_weights: { 'STAGE 2': 1, stage_2: 0.5 } } })],
  ['a stage that does not exist', minimal({ risk_settings: { stage_weights: { 'STAGE 5': 1 } } })],
  ['a NUL in a string', minimal({ description: 'a\u0000b' })],
  ['an unpaired surrogate in a map key', minimal({ constraint_pack: { schema_version: '1', sector_caps: { '\uD800x': 0.2 } } })],
  ['an unknown quiz answer', minimal({ risk_quiz_answers: { goal: 'lottery' } })],
  ['a quiz answer in capitals', minimal({ risk_quiz_answers: { goal: ' GROWTH ' } })],
  ['an empty quiz', minimal({ risk_quiz_answers: {} })],
  ['an unknown preset the settings would come from', minimal({ suggested_preset: { key: 'yolo' } })],
  ['an unknown preset beside risk settings', minimal({ suggested_preset: { key: 'yolo' }, risk_settings: {} })],
  ['51 bullets', minimal({ policy_explanation: { bullets: Array.from({ length: 51 }, () => 'x') } })],
  // Bounds plain JSON Schema states, each just past its limit and at it.
  ['an empty name', minimal({ name: '' })],
  ['max_positions above the limit', minimal({ risk_settings: { max_positions: 501 } })],
  ['max_positions at the limit', minimal({ risk_settings: { max_positions: 500 } })],
  ['max_risk_per_trade above 1', minimal({ risk_settings: { max_risk_per_trade: 1.5 } })],
  ['max_risk_per_trade of 1', minimal({ risk_settings: { max_risk_per_trade: 1 } })],
];

/** allocation-contract.test.ts "invalid bodies" (their expected fields aside). */
const contractBody = (over: Json = {}): Json => ({ name: 'Growth book', total_capital: 250000, ...over });
const CONTRACT_INVALID: Array<[string, unknown]> = [
  ['total_capital below 1000', { name: 'x', total_capital: 999.99 }],
  ['total_capital as a string', { name: 'x', total_capital: '5000' }],
  ['total_capital with fractions of a cent', { name: 'x', total_capital: 5000.001 }],
  ['total_capital in exponent form, tiny', { name: 'x', total_capital: -3e-323 }],
  ['no name', { total_capital: 5000 }],
  ['fractions outside 0-1', contractBody({ risk_settings: { max_risk_per_trade: 1.5, max_portfolio_risk: -0.1, max_position_size: 2 } })],
  ['an unknown strategy', contractBody({ risk_settings: { allocation_strategy: 'MOMENTUM' } })],
  ['max_positions not an integer', contractBody({ risk_settings: { max_positions: 2.5 } })],
  ['wrong types', contractBody({ risk_settings: { half_kelly: 'yes' }, description: 7 })],
  ['unknown fields, top level and nested', contractBody({ leverage: 2, risk_settings: { max_leverage: 3 } })],
  ['a camelCase key on REST', contractBody({ totalCapital: 5000 })],
  ['sector caps outside 0-1', contractBody({ constraint_pack: { schema_version: '1', sector_caps: { Energy: 1.2 } } })],
  ['a constraint pack without schema_version', contractBody({ constraint_pack: { vol_target_annual: 0.1 } })],
  ['prior weights summing above 1', contractBody({ prior_book_weights: { AAA: 0.7, BBB: 0.6 } })],
  ['stage weights with a bad stage', contractBody({ risk_settings: { stage_weights: { 'STAGE 9': 1 } } })],
  ['an unknown currency', contractBody({ currency: 'XYZ' })],
  ['an array body', [contractBody()]],
  ['a null body', null],
  ['a NUL character in a string', contractBody({ name: 'a\u0000b' })],
  ['a NUL character in a map key', contractBody({ prior_book_weights: { 'A\u0000': 0.1 } })],
  ['a "constructor" key', contractBody({ constructor: null, risk_settings: { constructor: {} } })],
  ['a lower-case currency', contractBody({ currency: 'eur' })],
  ['one symbol twice in the prior book (case differs)', contractBody({ prior_book_weights: { aapl: 0.3, AAPL: 0.4 } })],
  ['a missing schema_version and a bad recorded_at', contractBody({ investor_profile: { recorded_at: 'yesterday' } })],
  ['bullets that are not a list', contractBody({ policy_explanation: { bullets: 'abc' } })],
  ['bad quiz answers', contractBody({ risk_quiz_answers: { goal: 'lottery', horizon: 'forever' } })],
  ['an unknown preset', contractBody({ suggested_preset: { key: 'yolo' } })],
];

// ---------------------------------------------------------------------------------------------------------
// The published side
// ---------------------------------------------------------------------------------------------------------

interface Published {
  validate: ValidateFunction;
  /** Every field of the document (nested ones as paths), in document order. */
  fields: Path[];
  /** The fields whose value is a free-form map. */
  maps: Path[];
}

function published(doc: OpenApiDocument): Published {
  const operation = doc.paths[OPTIMIZE].post as { requestBody?: { content?: Record<string, { schema?: Schema }> } };
  const body = operation.requestBody?.content?.['application/json']?.schema;
  if (!body) throw new Error(`${OPTIMIZE} publishes no JSON request body`);
  const ajv = new Ajv2020.default({ allErrors: true, strict: false, validateFormats: false });
  for (const r of REQUEST_RULES) ajv.addKeyword({ keyword: r.keyword, type: r.type, errors: false, validate: (value: unknown, data: unknown) => r.problem(data, value as never) === null });
  const validate = ajv.compile({ ...body, components: doc.components });

  const components = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  const resolve = (schema: Schema): Schema => {
    const ref = (schema.$ref as string | undefined) ?? ((schema.anyOf ?? schema.oneOf ?? schema.allOf) as Schema[] | undefined)?.find((s) => s.$ref)?.$ref;
    return typeof ref === 'string' ? resolve(components[ref.replace('#/components/schemas/', '')]) : schema;
  };
  const fields: Path[] = [];
  const maps: Path[] = [];
  const walk = (schema: Schema, prefix: Path) => {
    for (const [name, property] of Object.entries((resolve(schema).properties ?? {}) as Record<string, Schema>)) {
      const path = [...prefix, name];
      fields.push(path);
      const target = resolve(property);
      if (target.properties) walk(target, path);
      else if (typeof target.additionalProperties === 'object') maps.push(path);
    }
  };
  walk(body, []);
  return { validate, fields, maps };
}

// ---------------------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------------------

let store: TestDb;
let platform: RunningPlatform;
let schema: Published;
let document: OpenApiDocument;
let token: string;

beforeAll(async () => {
  store = await openTestDb('pglite');
  const config = testConfig({ DEMO_DATA: 'false', ANALYZE_ON_START: 'false' });
  platform = await startPlatform(config, ['allocation'], { db: store.db });
  document = await fetchOpenApi(platform.urls.allocation as string);
  schema = published(document);
  token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'schema-agreement' });
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
});

/** What the server says of a body: accepted (200) or refused (400 VALIDATION_FAILED); anything else throws. */
async function serverAccepts(body: unknown): Promise<boolean> {
  const res = await request<Json>(`${platform.urls.allocation}${OPTIMIZE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (res.status === 200) return true;
  if (res.status === 400 && res.body.code === 'VALIDATION_FAILED') return false;
  throw new Error(`unexpected ${res.status} ${JSON.stringify(res.body)} for ${JSON.stringify(body)}`);
}

interface Disagreement {
  name: string;
  body: unknown;
  server: 'accepts' | 'refuses';
  document: 'accepts' | 'refuses';
  errors?: string;
}

/** Bodies the server accepted and refused so far (the corpus must hold both). */
const verdicts = { accepted: 0, refused: 0 };
/** Every body of the corpus with the server's verdict, for the mutation check at the end. */
const record: Array<{ name: string; body: unknown; server: boolean }> = [];

/** Runs the bodies through both sides; the disagreements. */
async function disagreements(cases: ReadonlyArray<readonly [string, unknown]>): Promise<Disagreement[]> {
  const out: Disagreement[] = [];
  for (const [name, body] of cases) {
    const server = await serverAccepts(body);
    verdicts[server ? 'accepted' : 'refused'] += 1;
    record.push({ name, body, server });
    const document = schema.validate(body);
    if (server !== document) {
      out.push({
        name,
        body,
        server: server ? 'accepts' : 'refuses',
        document: document ? 'accepts' : 'refuses',
        ...(document ? {} : { errors: (schema.validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`).join('; ') }),
      });
    }
  }
  return out;
}

it('the valid bodies are accepted by both', async () => {
  expect(await serverAccepts(FULL)).toBe(true);
  expect(schema.validate(FULL)).toBe(true);
  expect(await serverAccepts(MINIMAL)).toBe(true);
  expect(schema.validate(MINIMAL)).toBe(true);
});

it('the rule probes: the document accepts exactly what the server accepts', async () => {
  expect(await disagreements(RULE_PROBES)).toEqual([]);
});

it('null in every field of the document: accepted by both exactly where the server treats it as omitted', async () => {
  expect(schema.fields.length).toBeGreaterThanOrEqual(30);
  const cases = schema.fields.map((path) => [`${path.join('.')}: null`, withValue(FULL, path, null)] as const);
  expect(await disagreements(cases)).toEqual([]);
});

it("allocation-contract.test.ts's invalid bodies are refused by both", async () => {
  const found = await disagreements(CONTRACT_INVALID);
  expect(found).toEqual([]);
  for (const [, body] of CONTRACT_INVALID) expect(schema.validate(body)).toBe(false);
});

it('near-valid bodies (one field of a valid body mutated) get the same verdict from both', async () => {
  const numbers = fc.constantFrom(0, -0, -1, 0.0001, 0.001, 0.5, 1, 1.5, 2, 2.5, 10, 10.5, 100, 100.01, 500, 501, 999.99, 1000, 1000.005, 1e12, 1e12 + 0.5, 1e308, -3e-323);
  const strings = fc.constantFrom('', ' ', 'x', 'x'.repeat(21), 'x'.repeat(51), 'x'.repeat(201), 'USD', 'usd', 'XXX', 'XYZ', '2024-02-30', '2024-05-01', 'STAGE 2', 'growth', 'moderate', 'EQUAL_WEIGHT', 'a\u0000', '\uDC00');
  const mapKeys = fc.constantFrom('', ' ', 'STAGE 5', 'stage 1', '1', 'Stage_4', 'ACME', 'acme', 'DEFAULT', 'goal', 'horizon', 'x', '\u0000');
  const mapValues = fc.oneof(numbers, fc.constantFrom('x', null, true, 'growth', ' Growth ', '5_10y', [] as unknown));
  const field = fc.constantFrom(...schema.fields);
  const mutation: fc.Arbitrary<readonly [string, unknown]> = fc.oneof(
    field.map((path) => [`${path.join('.')} = null`, withValue(FULL, path, null)] as const),
    fc.tuple(field, fc.constantFrom<unknown>('x', true, 7, [], {}, [1], { a: 1 })).map(([path, v]) => [`${path.join('.')} = ${JSON.stringify(v)}`, withValue(FULL, path, v)] as const),
    fc.tuple(field, numbers).map(([path, v]) => [`${path.join('.')} = ${v}`, withValue(FULL, path, v)] as const),
    fc.tuple(field, strings).map(([path, v]) => [`${path.join('.')} = ${JSON.stringify(v)}`, withValue(FULL, path, v)] as const),
    fc.tuple(field, fc.constantFrom('unknown_field', 'constructor', 'totalCapital')).map(([path, key]) => {
      const at = [...path.slice(0, -1), key];
      return [`${at.join('.')} added`, withValue(FULL, at, 1)] as const;
    }),
    fc.tuple(fc.constantFrom(...schema.maps), fc.dictionary(mapKeys, mapValues, { minKeys: 0, maxKeys: 3 })).map(
      ([path, map]) => [`${path.join('.')} = ${JSON.stringify(map)}`, withValue(FULL, path, map)] as const,
    ),
  );
  const cases = fc.sample(mutation, { numRuns: 160, seed: 20240501 });
  const before = { ...verdicts };
  expect(await disagreements(cases)).toEqual([]);
  // Near-valid: a fair share of the mutations is still valid, a fair share is not.
  expect(verdicts.accepted - before.accepted).toBeGreaterThan(20);
  expect(verdicts.refused - before.refused).toBeGreaterThan(20);
});

// ---------------------------------------------------------------------------------------------------------
// The comparison finds disagreements (so an empty list above means something)
// ---------------------------------------------------------------------------------------------------------

it('a published schema mutated in one of its rules disagrees with the recorded server verdicts', () => {
  expect(record.length).toBeGreaterThan(200);
  /** Bodies of the corpus on which the document, changed by `change`, and the server disagree. */
  const disagreeing = (change: (components: Record<string, Schema>) => void): string[] => {
    const doc = structuredClone(document);
    change((doc.components?.schemas ?? {}) as Record<string, Schema>);
    const check = published(doc);
    return record.filter((r) => check.validate(r.body) !== r.server).map((r) => r.name);
  };
  const property = (components: Record<string, Schema>, component: string, field: string) => (components[component].properties as Record<string, Schema>)[field];
  const withoutNull = (target: Schema) => void (target.type = (target.type as string[]).filter((t) => t !== 'null'));
  const mutations: Array<[string, (c: Record<string, Schema>) => void]> = [
    ['total_capital minimum 999', (c) => void (property(c, 'PortfolioRequest', 'total_capital').minimum = 999)],
    ['max_positions maximum 501', (c) => void (property(c, 'RiskSettings', 'max_positions').maximum = 501)],
    ['max_risk_per_trade maximum 1.5', (c) => void (property(c, 'RiskSettings', 'max_risk_per_trade').maximum = 1.5)],
    ['name minLength 0', (c) => void (property(c, 'PortfolioRequest', 'name').minLength = 0)],
    ['softmax_temperature not nullable', (c) => withoutNull(property(c, 'RiskSettings', 'softmax_temperature'))],
    ['description not nullable', (c) => withoutNull(property(c, 'PortfolioRequest', 'description'))],
    ['name nullable', (c) => void (property(c, 'PortfolioRequest', 'name').type = ['string', 'null'])],
    ['no x-whole-cents on total_capital', (c) => void delete property(c, 'PortfolioRequest', 'total_capital')['x-whole-cents']],
    ['no x-iso4217 on currency', (c) => void delete property(c, 'PortfolioRequest', 'currency')['x-iso4217']],
    ['no x-storable-text on the request', (c) => void delete c.PortfolioRequest['x-storable-text']],
    ['no x-distinct-keys on prior_book_weights', (c) => void delete property(c, 'PortfolioRequest', 'prior_book_weights')['x-distinct-keys']],
    ['no x-risk-quiz on risk_quiz_answers', (c) => void delete property(c, 'PortfolioRequest', 'risk_quiz_answers')['x-risk-quiz']],
    ['no x-known-preset on the request', (c) => void delete c.PortfolioRequest['x-known-preset']],
    ['name not required', (c) => void (c.PortfolioRequest.required = (c.PortfolioRequest.required as string[]).filter((f) => f !== 'name'))],
    ['constraint_pack.schema_version not required', (c) => void delete c.ConstraintPackV1.required],
    ['unknown risk_settings fields allowed', (c) => void (c.RiskSettings.additionalProperties = true)],
  ];
  const undetected = mutations.filter(([, change]) => disagreeing(change).length === 0).map(([what]) => what);
  expect(undetected).toEqual([]);
  // The document as published disagrees on nothing (the mutation is what the check finds).
  expect(disagreeing(() => undefined)).toEqual([]);
});
