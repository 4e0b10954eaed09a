/**
 * Real optimize responses fit the response schema the allocation origin publishes: a partner's optimize
 * under every strategy, with a constraint pack whose sector-cap label is long (the server writes every
 * label into a policy_explanation bullet, so a bullet can be longer than anything a request may send),
 * and with the settings from the quiz, a preset and the defaults. Each 200 body, and the stored portfolio
 * read back, is validated with Ajv against the 200 schema of its route in the origin's own
 * /openapi.json (the document's components, and the request rules' `x-` keywords as the product
 * implements them, so the compile is strict). Real HTTP on port 0, a real signed token, PGlite with the
 * seeded demo market.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { ALLOCATION_STRATEGIES } from '../../subgraphs/allocation/engine/risk-settings.js';
import { addRequestKeywords } from '../../subgraphs/allocation/request/validator.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request } from '../helpers/http.js';
import { storeEdgeOdds } from '../helpers/kelly-odds.js';
import { fetchOpenApi, type OpenApiDocument } from '../helpers/openapi.js';

type Json = Record<string, unknown>;

const OPTIMIZE = '/api/v1/portfolios/optimize';
/** A sector label longer than any bullet a request may send (500 characters). */
const LONG_LABEL = `Sector ${'L'.repeat(600)}`;

let store: TestDb;
let platform: RunningPlatform;
let openapi: OpenApiDocument;
let token: string;

beforeAll(async () => {
  store = await openTestDb('pglite');
  const config = testConfig({ ANALYZE_ON_START: 'false' });
  platform = await startPlatform(config, ['analysis', 'allocation'], { db: store.db });
  openapi = await fetchOpenApi(platform.urls.allocation as string);
  const equities = await store.db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' ORDER BY symbol");
  await seedAnalysis(store.db, { symbols: equities.map((r) => r.symbol), days: 1 });
  await storeEdgeOdds(store.db);
  token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'response-schema' });
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
});

/** The published 200 schema of a route, compiled strictly (the request rules' keywords registered). */
function published200(method: 'get' | 'post', template: string): ValidateFunction {
  const schema = openapi.paths[template]?.[method]?.responses?.['200']?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`${method} ${template} documents no 200 JSON schema`);
  const ajv = new Ajv2020.default({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: false });
  addRequestKeywords(ajv);
  // The document's components travel with the schema, so its `#/components/schemas/...` refs resolve.
  ajv.addKeyword('components');
  return ajv.compile({ ...schema, components: openapi.components });
}

async function optimize(body: Json): Promise<Json> {
  const res = await request<Json>(`${platform.urls.allocation}${OPTIMIZE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  expect({ status: res.status, body: res.status === 200 ? null : res.body }).toEqual({ status: 200, body: null });
  return res.body;
}

/** The body fits the schema, or the test fails naming every violation. */
function expectFits(validate: ValidateFunction, body: unknown): void {
  const ok = validate(body);
  expect(ok ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`)).toEqual([]);
}

const pack = { schema_version: '1', vol_target_annual: 0.3, max_portfolio_turnover_annual: 2, sector_caps: { DEFAULT: 0.25, [LONG_LABEL]: 0.5, Energy: 0.4 }, covariance_model: 'sample' };

const bodies: Array<[string, Json]> = [
  ...ALLOCATION_STRATEGIES.map((strategy): [string, Json] => [
    strategy,
    {
      name: `response ${strategy}`,
      total_capital: 250000,
      risk_settings: { allocation_strategy: strategy, max_positions: 8, softmax_temperature: 2, reward_multiplier: 1.5, stage_weights: { stage_2: 1, '1': 0.3 }, half_kelly: true },
      constraint_pack: pack,
      investor_profile: { schema_version: '1', recorded_at: '2024-05-01T10:00:00Z', risk_quiz_answers: { goal: 'growth' }, suggested_preset: { key: 'growth' } },
      prior_book_weights: { ZZZZ: 0.1 },
      policy_explanation: { bullets: ['a client line'] },
    },
  ]),
  ['the quiz', { name: 'quiz', total_capital: 50000, risk_quiz_answers: { goal: 'growth', horizon: '5_10y' } }],
  ['a preset', { name: 'preset', total_capital: 50000, suggested_preset: { key: 'conservative' } }],
  ['the defaults', { name: 'defaults', total_capital: 50000 }],
];

it.each(bodies)('a partner optimize (%s) fits the published response schema, and so does the stored portfolio', async (_what, body) => {
  const optimizeSchema = published200('post', OPTIMIZE);
  const readSchema = published200('get', '/api/v1/portfolios/{id}');
  const res = await optimize(body);
  expectFits(optimizeSchema, res);
  const read = await request<Json>(`${platform.urls.allocation}/api/v1/portfolios/${String(res.portfolio_id)}`, { headers: { authorization: `Bearer ${token}` } });
  expect(read.status).toBe(200);
  expectFits(readSchema, read.body);
});

it('the long sector-cap label reaches a bullet longer than a request may send (the case above is real)', async () => {
  const res = await optimize(bodies[0][1]);
  const bullets = (res.policy_explanation as { bullets: string[] }).bullets;
  expect(bullets.some((b) => b.includes(LONG_LABEL) && b.length > 500)).toBe(true);
  expect((res.constraint_pack as Json).sector_caps).toEqual(pack.sector_caps);
});
