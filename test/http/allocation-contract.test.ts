/**
 * POST /api/v1/portfolios/optimize (and the demo body and the stored result's read) against the HTTP contract:
 * spec "Allocation service" (rules 1-4), "PortfolioRequest", "RiskSettings", "ConstraintPackV1",
 * "PortfolioResponse", "OptimizerDiagnosticsV1", "Errors", "Limits"; DESIGN section 5 (demo body route,
 * Idempotency-Key, error shape). Real HTTP on port 0, real signed partner tokens, the real pipeline's
 * snapshots of the small demo market. Every response is checked against the origin's /openapi.json.
 * Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { AllocationService, DEMO_OPTIMIZE_BODY } from '../../subgraphs/allocation/service.js';
import { latestSnapshot, upsertSnapshots } from '../../subgraphs/analysis/store.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { seedAnalysis, type SeedResult } from '../helpers/analysis.js';
import { storeEdgeOdds } from '../helpers/kelly-odds.js';
import { checkResponse, fetchOpenApi, templateFor, type OpenApiDocument } from '../helpers/openapi.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';
import { expectErrorShape, request, type JsonResponse } from '../helpers/http.js';

type Json = Record<string, unknown>;
type Row = Record<string, unknown>;
interface Detail {
  field?: string;
  message: string;
}

const OPTIMIZE = '/api/v1/portfolios/optimize';

/** spec "PortfolioResponse" and "PortfolioAllocation" and "OptimizerDiagnosticsV1": every key. */
const RESPONSE_KEYS = [
  'portfolio_id', 'name', 'description', 'total_capital', 'allocated_capital', 'remaining_capital', 'position_count',
  'allocations', 'created_at', 'currency', 'risk_settings', 'trace_id', 'optimizer_diagnostics',
];
const ALLOCATION_KEYS = [
  'symbol', 'shares', 'position_type', 'entry_price', 'position_value', 'risk_amount', 'percent_of_account', 'stop_loss',
  'target_price', 'risk_reward_ratio', 'confidence', 'stage', 'entry_date', 'signal', 'stage_strength', 'signal_confidence',
  'signal_reason', 'bb_width', 'atr', 'atr_percent', 'volatility_trend', 'is_high_volatility', 'volatility_stop_loss_levels',
  'historical_volatility', 'support_levels', 'resistance_levels',
];
const DIAGNOSTIC_KEYS = [
  'schema_version', 'max_position_size_effective', 'max_position_size_from_risk_settings', 'constraint_pack_default_sector_cap',
  'vol_target_annual', 'max_portfolio_turnover_annual', 'softmax_temperature_base', 'softmax_temperature_effective', 'binding_notes',
];
const RISK_SETTING_KEYS = [
  'max_risk_per_trade', 'max_portfolio_risk', 'max_position_size', 'max_positions', 'allocation_strategy',
  'softmax_temperature', 'reward_multiplier', 'stage_weights', 'half_kelly',
];

const cents = (x: number) => Math.round(x * 100);

/** Book arithmetic every response must satisfy, to the cent (issue: whole shares, consistent figures). */
function expectConsistentBook(body: Json): void {
  const rows = body.allocations as Row[];
  expect(body.position_count).toBe(rows.length);
  const total = cents(body.total_capital as number);
  let allocated = 0;
  for (const r of rows) {
    expect(Number.isInteger(r.shares)).toBe(true);
    expect(r.shares as number).toBeGreaterThan(0);
    expect(cents(r.position_value as number)).toBe(Math.round((r.shares as number) * cents(r.entry_price as number)));
    expect(cents(r.risk_amount as number)).toBe(Math.round((r.shares as number) * (cents(r.entry_price as number) - cents(r.stop_loss as number))));
    expect(r.stop_loss as number).toBeLessThan(r.entry_price as number);
    expect(r.percent_of_account as number).toBeGreaterThan(0);
    expect(r.percent_of_account as number).toBeLessThanOrEqual(1);
    expect(r.percent_of_account as number).toBeCloseTo((r.position_value as number) / (body.total_capital as number), 5);
    allocated += cents(r.position_value as number);
  }
  expect(cents(body.allocated_capital as number)).toBe(allocated);
  expect(cents(body.remaining_capital as number)).toBe(total - allocated);
}

describe.each(BACKENDS)('allocation REST contract on %s', (backend) => {
  const config = testConfig({ ANALYZE_ON_START: 'false' });
  let store: TestDb;
  let platform: RunningPlatform;
  let seed: SeedResult;
  let openapi: OpenApiDocument;
  let token: string;
  let otherToken: string;

  const mint = (over: Partial<Parameters<typeof mintPartnerToken>[0]> = {}) =>
    mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'partner-1', ...over });

  const call = async (method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<JsonResponse<Json>> => {
    const res = await request<Json>(`${platform.urls.allocation}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    // Issue "Production hardening" item 6: every response fits the origin's own OpenAPI document.
    if (templateFor(openapi, path) && res.headers.get('content-type')?.includes('json')) checkResponse(openapi, method, path, res.status, res.body);
    return res;
  };
  const optimize = (body: unknown, headers: Record<string, string> = {}) => call('POST', OPTIMIZE, body, headers);
  const asPartner = (body: unknown, headers: Record<string, string> = {}) => optimize(body, { authorization: `Bearer ${token}`, ...headers });
  const portfolioCount = async () => (await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolios'))[0].n;
  const fields = (res: JsonResponse<Json>) => (res.body.details as Detail[]).map((d) => d.field);

  const body = (over: Json = {}): Json => ({ name: 'Growth book', total_capital: 250000, ...over });

  beforeAll(async () => {
    store = await openTestDb(backend);
    platform = await startPlatform(config, ['analysis', 'allocation'], { db: store.db });
    openapi = await fetchOpenApi(platform.urls.allocation as string);
    const equities = await store.db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' ORDER BY symbol");
    seed = await seedAnalysis(store.db, { symbols: equities.map((r) => r.symbol), days: 1 });
    await storeEdgeOdds(store.db); // Kelly sizes only from measured odds (test/helpers/kelly-odds.ts)
    token = await mint();
    otherToken = await mint({ subject: 'partner-2' });
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
  });

  describe('demo mode (spec "Allocation service" rules 1 and 2; DESIGN section 5)', () => {
    it('serves the demo body, and that body without a token gives at most two rows, nothing stored', async () => {
      const demoBody = await call('GET', '/api/v1/demo/optimize-body');
      expect(demoBody.status).toBe(200);
      expect(demoBody.body).toEqual(DEMO_OPTIMIZE_BODY);
      expect((demoBody.body.risk_settings as Json).allocation_strategy).toBe('KELLY_CRITERION');

      const before = await portfolioCount();
      const res = await optimize(demoBody.body);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(expect.arrayContaining(RESPONSE_KEYS));
      const rows = res.body.allocations as Row[];
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.length).toBeLessThanOrEqual(2); // spec "Limits": allocations rows in demo mode, at most 2
      expectConsistentBook(res.body); // counts and capital reflect only those rows
      expect((res.body.risk_settings as Json).allocation_strategy).toBe('KELLY_CRITERION');
      expect(res.body.portfolio_id).toMatch(/^demo-/);
      expect(res.body.trace_id).toBe(res.headers.get('x-trace-id'));
      expect(await portfolioCount()).toBe(before);

      // The notes speak of the rows shown: none names a position of the full book that is not shown.
      const full = await asPartner(demoBody.body);
      const hidden = (full.body.allocations as Row[]).slice(2).map((r) => r.symbol as string);
      const notes = (res.body.optimizer_diagnostics as Json).binding_notes as string[];
      for (const symbol of hidden) for (const note of notes) expect(note).not.toMatch(new RegExp(`\\b${symbol}\\b`));
      expect(hidden.length).toBeGreaterThan(0); // the demo market's book is bigger than the demo shows
      expect(notes.some((n) => n.startsWith('demo:'))).toBe(true);
    });

    it('any other body without credentials is 400 naming each mismatch, and stores nothing', async () => {
      const before = await portfolioCount();
      const changed = await optimize({ ...DEMO_OPTIMIZE_BODY, total_capital: 100001 });
      expect(changed.status).toBe(400);
      expectErrorShape(changed.body, 'DEMO_BODY_MISMATCH');
      expect(fields(changed)).toEqual(['total_capital']);

      const extra = await optimize({ ...DEMO_OPTIMIZE_BODY, currency: 'USD', risk_settings: { ...DEMO_OPTIMIZE_BODY.risk_settings, max_positions: 5 } });
      expect(extra.status).toBe(400);
      expect(fields(extra).sort()).toEqual(['currency', 'risk_settings.max_positions']);

      const full = await optimize(body());
      expect(full.status).toBe(400);
      expectErrorShape(full.body, 'DEMO_BODY_MISMATCH');
      expect(await portfolioCount()).toBe(before);
    });
  });

  describe('authentication (spec "Authentication", "Errors": 401 for optimize)', () => {
    it.each([
      ['a malformed token', 'Bearer not-a-jwt'],
      ['an unknown scheme', 'Basic dXNlcjpwYXNz'],
    ])('%s is 401 with a challenge, even with the demo body', async (_name, authorization) => {
      const res = await optimize(DEMO_OPTIMIZE_BODY, { authorization });
      expect(res.status).toBe(401);
      expectErrorShape(res.body, 'UNAUTHENTICATED');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    });

    it('a token for another service (audience) or an expired one is 401', async () => {
      const analysisToken = await mint({ audience: config.auth.audiences.analysis });
      expect((await optimize(body(), { authorization: `Bearer ${analysisToken}` })).status).toBe(401);
      const expired = await mint({ expiresIn: -60 } as never);
      expect((await optimize(body(), { authorization: `Bearer ${expired}` })).status).toBe(401);
    });
  });

  describe('the full book for partners (spec rules 3 and 4; "PortfolioResponse")', () => {
    it('applies the RiskSettings defaults, returns every spec field and persists the result in one row set', async () => {
      const res = await asPartner(body());
      expect(res.status).toBe(200);
      const b = res.body;
      expect(Object.keys(b)).toEqual(expect.arrayContaining(RESPONSE_KEYS));
      expect(b.name).toBe('Growth book');
      expect(b.description).toBeNull();
      expect(b.total_capital).toBe(250000);
      expect(b.currency).toBe('USD');
      expect(b.trace_id).toBe(res.headers.get('x-trace-id'));
      expect(Date.parse(b.created_at as string)).not.toBeNaN();
      // spec "RiskSettings" defaults; the strategy default is the product's (README "Allocation").
      const rs = b.risk_settings as Json;
      expect(Object.keys(rs).sort()).toEqual([...RISK_SETTING_KEYS].sort());
      expect(rs).toMatchObject({ max_risk_per_trade: 0.01, max_portfolio_risk: 0.05, max_position_size: 0.2, max_positions: 30, allocation_strategy: 'HYBRID_WEIGHTED' });
      expect(typeof rs.softmax_temperature).toBe('number');

      const rows = b.allocations as Row[];
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        expect(Object.keys(r).sort()).toEqual([...ALLOCATION_KEYS].sort());
        expect(r.position_type).toBe('LONG');
        for (const level of [...((r.support_levels as Row[] | null) ?? []), ...((r.resistance_levels as Row[] | null) ?? [])]) {
          expect(typeof level.price).toBe('number');
        }
      }
      expectConsistentBook(b);
      const d = b.optimizer_diagnostics as Json;
      expect(Object.keys(d).sort()).toEqual([...DIAGNOSTIC_KEYS].sort());
      expect(d.max_position_size_from_risk_settings).toBe(0.2);
      expect(d.max_position_size_effective).toBe(0.2);
      expect(d.constraint_pack_default_sector_cap).toBeNull();
      expect((d.binding_notes as string[]).some((n) => /^constraint_pack: none supplied/.test(n))).toBe(true);
      const policy = b.policy_explanation as Json;
      expect(policy).toMatchObject({ schema_version: expect.any(String), mapper_version: expect.any(String) });
      expect((policy.bullets as string[]).length).toBeGreaterThan(0);

      const [stored] = await store.db.query<{ partner_id: string; trace_id: string; response: string; request: Json; effective_settings: Json; positions: number }>(
        `SELECT partner_id, trace_id, response::text AS response, request, effective_settings,
                (SELECT count(*)::int FROM portfolio_holdings h WHERE h.portfolio_id = portfolios.id) AS positions
           FROM portfolios WHERE id = $1::uuid`,
        [b.portfolio_id],
      );
      expect(stored.partner_id).toBe('partner-1');
      expect(stored.trace_id).toBe(b.trace_id);
      expect(JSON.parse(stored.response)).toEqual(b);
      expect(stored.request).toMatchObject({ name: 'Growth book', total_capital: 250000 });
      expect((stored.effective_settings as { risk_settings: Json }).risk_settings).toEqual(rs);
      expect(stored.positions).toBe(rows.length);
    });

    it('echoes the request\'s own settings and overwrites a client policy_explanation', async () => {
      const res = await asPartner(
        body({
          description: 'core',
          currency: 'EUR',
          risk_settings: { allocation_strategy: 'EQUAL_WEIGHT', max_positions: 4, max_position_size: 0.3 },
          policy_explanation: { schema_version: '1', mapper_version: 'client', preset_key: 'mine', bullets: ['trust me'] },
        }),
      );
      expect(res.status).toBe(200);
      expect(res.body.description).toBe('core');
      expect(res.body.currency).toBe('EUR');
      expect(res.body.risk_settings).toMatchObject({ allocation_strategy: 'EQUAL_WEIGHT', max_positions: 4, max_position_size: 0.3, max_risk_per_trade: 0.01 });
      expect((res.body.allocations as Row[]).length).toBeLessThanOrEqual(4);
      const policy = res.body.policy_explanation as Json;
      expect(policy.mapper_version).not.toBe('client');
      expect(policy.bullets).not.toContain('trust me');
    });

    it('maps risk-quiz answers to a preset when there are no risk settings', async () => {
      const res = await asPartner(
        body({ risk_quiz_answers: { goal: 'preservation', horizon: 'under_1y', drawdown: '5', volatility: 'very_low', concentration: 'very_diversified', preference: 'safety' } }),
      );
      expect(res.status).toBe(200);
      expect((res.body.policy_explanation as Json).preset_key).toBe('conservative');
      expect((res.body.risk_settings as Json).max_risk_per_trade as number).toBeLessThan(0.01);
      expect(res.body.constraint_pack).not.toBeNull();
    });

    it('returns 200 with an empty book and notes that say why when nothing is investable (issue item 7)', async () => {
      const sectors = await store.db.query<{ sector: string }>("SELECT DISTINCT sector FROM securities WHERE sector IS NOT NULL");
      const caps = Object.fromEntries(sectors.map((s) => [s.sector, 0]));
      const res = await asPartner(body({ constraint_pack: { schema_version: '1', sector_caps: caps } }));
      expect(res.status).toBe(200);
      expect(res.body.allocations).toEqual([]);
      expect(res.body.allocated_capital).toBe(0);
      expect(res.body.remaining_capital).toBe(250000);
      expect(((res.body.optimizer_diagnostics as Json).binding_notes as string[]).some((n) => n.startsWith('sector_caps'))).toBe(true);

      const tiny = await asPartner(body({ total_capital: 1000, risk_settings: { max_position_size: 0.001 } }));
      expect(tiny.status).toBe(200);
      expect(tiny.body.allocations).toEqual([]);
      expect(((tiny.body.optimizer_diagnostics as Json).binding_notes as string[]).length).toBeGreaterThan(0);
    });
  });

  describe('strategies and the constraint pack through the route (issue items 2, 3 and 6)', () => {
    const notes = (res: JsonResponse<Json>) => (res.body.optimizer_diagnostics as Json).binding_notes as string[];
    const weights = (res: JsonResponse<Json>) => Object.fromEntries((res.body.allocations as Row[]).map((r) => [r.symbol as string, r.percent_of_account as number]));

    it('each of the five strategies builds a book, echoed in the effective settings, and they differ', async () => {
      const books: string[] = [];
      for (const strategy of ['EQUAL_WEIGHT', 'STAGE_WEIGHTED', 'CONFIDENCE_WEIGHTED', 'KELLY_CRITERION', 'HYBRID_WEIGHTED']) {
        const res = await asPartner(body({ risk_settings: { allocation_strategy: strategy, max_positions: 8 } }));
        expect(res.status).toBe(200);
        expect((res.body.risk_settings as Json).allocation_strategy).toBe(strategy);
        expect((res.body.allocations as Row[]).length).toBeGreaterThan(0);
        expectConsistentBook(res.body);
        const temperature = (res.body.optimizer_diagnostics as Json).softmax_temperature_base;
        if (strategy === 'CONFIDENCE_WEIGHTED' || strategy === 'HYBRID_WEIGHTED') expect(typeof temperature).toBe('number');
        else expect(temperature).toBeNull();
        books.push(JSON.stringify(weights(res)));
      }
      expect(new Set(books).size).toBeGreaterThanOrEqual(4);
    });

    it('a DEFAULT sector cap tightens every name and is reported in the diagnostics', async () => {
      const res = await asPartner(body({ constraint_pack: { schema_version: '1', sector_caps: { DEFAULT: 0.05 }, vol_target_annual: null } }));
      expect(res.status).toBe(200);
      const d = res.body.optimizer_diagnostics as Json;
      expect(d).toMatchObject({ max_position_size_effective: 0.05, max_position_size_from_risk_settings: 0.2, constraint_pack_default_sector_cap: 0.05 });
      for (const w of Object.values(weights(res))) expect(w).toBeLessThanOrEqual(0.05 + 1e-9);
      expect(notes(res).some((n) => n.startsWith('constraint_pack'))).toBe(false);
    });

    it('a tight volatility target binds and is reported with both temperatures', async () => {
      // (Which of raising the temperature and scaling exposure does the work depends on the market;
      // the optimizer's unit tests pin each path.)
      const res = await asPartner(body({ constraint_pack: { schema_version: '1', vol_target_annual: 0.02 } }));
      expect(res.status).toBe(200);
      const d = res.body.optimizer_diagnostics as Json;
      expect(d.vol_target_annual).toBe(0.02);
      expect(d.softmax_temperature_base).toBe((res.body.risk_settings as Json).softmax_temperature);
      expect(d.softmax_temperature_effective as number).toBeGreaterThanOrEqual(d.softmax_temperature_base as number);
      expect(notes(res).some((n) => n.startsWith('vol_target_annual'))).toBe(true);
      const loose = await asPartner(body());
      expect(res.body.allocated_capital as number).toBeLessThan(loose.body.allocated_capital as number);
    });

    it('a turnover cap blends toward the prior book; without a prior book it is only a note', async () => {
      const free = await asPartner(body({ risk_settings: { max_positions: 5 } }));
      const target = weights(free);
      const [first] = Object.keys(target);
      // A prior book of cash plus a name the target does not hold as much of.
      const prior = { [first]: 0.01 };
      const capped = await asPartner(body({ risk_settings: { max_positions: 5 }, prior_book_weights: prior, constraint_pack: { schema_version: '1', max_portfolio_turnover_annual: 0.1 } }));
      expect(capped.status).toBe(200);
      expect(notes(capped).some((n) => n.startsWith('max_portfolio_turnover_annual'))).toBe(true);
      const after = weights(capped);
      const symbols = new Set([...Object.keys(after), ...Object.keys(prior)]);
      const turnover = [...symbols].reduce((sum, sym) => sum + Math.abs((after[sym] ?? 0) - (prior[sym] ?? 0)), 0) / 2;
      expect(turnover).toBeLessThanOrEqual(0.1 + 0.01); // whole shares may overshoot by less than a share per name
      expect(capped.body.allocated_capital as number).toBeLessThan(free.body.allocated_capital as number);

      const first_ = await asPartner(body({ constraint_pack: { schema_version: '1', max_portfolio_turnover_annual: 0.1 } }));
      expect(notes(first_).some((n) => n.startsWith('max_portfolio_turnover_annual') && /prior/.test(n))).toBe(true);
    });
  });

  describe('invalid bodies are 400 with every violation listed, and change nothing (spec "Errors", "Limits")', () => {
    it.each<[string, unknown, string[]]>([
      ['total_capital below 1000', { name: 'x', total_capital: 999.99 }, ['total_capital']],
      ['total_capital as a string', { name: 'x', total_capital: '5000' }, ['total_capital']],
      ['total_capital with fractions of a cent', { name: 'x', total_capital: 5000.001 }, ['total_capital']],
      ['total_capital in exponent form, tiny', { name: 'x', total_capital: -3e-323 }, ['total_capital']],
      ['no name', { total_capital: 5000 }, ['name']],
      ['fractions outside 0-1', body({ risk_settings: { max_risk_per_trade: 1.5, max_portfolio_risk: -0.1, max_position_size: 2 } }), ['risk_settings.max_risk_per_trade', 'risk_settings.max_portfolio_risk', 'risk_settings.max_position_size']],
      ['an unknown strategy', body({ risk_settings: { allocation_strategy: 'MOMENTUM' } }), ['risk_settings.allocation_strategy']],
      ['max_positions not an integer', body({ risk_settings: { max_positions: 2.5 } }), ['risk_settings.max_positions']],
      ['wrong types', body({ risk_settings: { half_kelly: 'yes' }, description: 7 }), ['risk_settings.half_kelly', 'description']],
      ['unknown fields, top level and nested', body({ leverage: 2, risk_settings: { max_leverage: 3 } }), ['leverage', 'risk_settings.max_leverage']],
      ['a camelCase key on REST', body({ totalCapital: 5000 }), ['totalCapital']],
      ['sector caps outside 0-1', body({ constraint_pack: { schema_version: '1', sector_caps: { Energy: 1.2 } } }), ['constraint_pack.sector_caps']],
      ['a constraint pack without schema_version', body({ constraint_pack: { vol_target_annual: 0.1 } }), ['constraint_pack.schema_version']],
      ['prior weights summing above 1', body({ prior_book_weights: { AAA: 0.7, BBB: 0.6 } }), ['prior_book_weights']],
      ['stage weights with a bad stage', body({ risk_settings: { stage_weights: { 'STAGE 9': 1 } } }), ['risk_settings.stage_weights']],
      ['an unknown currency', body({ currency: 'XYZ' }), ['currency']],
      ['an array body', [body()], ['body']],
      ['a null body', null, ['body']],
      ['a NUL character in a string', body({ name: 'a\u0000b' }), ['name']],
      ['a NUL character in a map key', body({ prior_book_weights: { 'A\u0000': 0.1 } }), ['prior_book_weights.A\u0000']],
      ['a "constructor" key', body({ constructor: null, risk_settings: { constructor: {} } }), ['constructor', 'risk_settings.constructor']],
      ['a lower-case currency', body({ currency: 'eur' }), ['currency']],
      ['one symbol twice in the prior book (case differs)', body({ prior_book_weights: { aapl: 0.3, AAPL: 0.4 } }), ['prior_book_weights']],
      ['a missing schema_version and a bad recorded_at', body({ investor_profile: { recorded_at: 'yesterday' } }), ['investor_profile.schema_version', 'investor_profile.recorded_at']],
      ['bullets that are not a list', body({ policy_explanation: { bullets: 'abc' } }), ['policy_explanation.bullets']],
    ])('%s', async (_name, payload, expected) => {
      const before = await portfolioCount();
      const res = await asPartner(payload);
      expect(res.status).toBe(400);
      expectErrorShape(res.body, 'VALIDATION_FAILED');
      // One violation per field: its first failed rule (a wrong type is not also reported as out of range).
      expect(fields(res).sort()).toEqual([...expected].sort());
      expect(await portfolioCount()).toBe(before);
    });

    it('a lone surrogate in the raw JSON is refused, not stored', async () => {
      const res = await asPartner('{"name":"a\\ud800b","total_capital":5000}');
      expect(res.status).toBe(400);
      expect(fields(res)).toEqual(['name']);
    });

    it('an invalid Idempotency-Key is reported with the body\'s violations', async () => {
      const res = await asPartner({ name: 'x', total_capital: 10 }, { 'idempotency-key': 'with space' });
      expect(res.status).toBe(400);
      expect(fields(res).sort()).toEqual(['Idempotency-Key', 'total_capital']);
      const headers = new Headers({ 'content-type': 'application/json', authorization: `Bearer ${token}` });
      headers.append('idempotency-key', 'k1');
      headers.append('idempotency-key', 'k2');
      const twice = await request<Json>(`${platform.urls.allocation}${OPTIMIZE}`, { method: 'POST', headers, body: JSON.stringify(body()) });
      expect(twice.status).toBe(400);
      expect((twice.body.details as Detail[])[0].message).toMatch(/once/);
    });

    it('a bad token is 401 before the body is looked at', async () => {
      const res = await optimize('{"name": ', { authorization: 'Bearer nope' });
      expect(res.status).toBe(401);
    });

    it('the top of the capital range builds and stores a book of very many shares', async () => {
      const res = await asPartner(body({ total_capital: 1e12, risk_settings: { max_positions: 1, max_position_size: 1, max_risk_per_trade: 1, max_portfolio_risk: 1 } }));
      expect(res.status).toBe(200);
      expectConsistentBook(res.body);
      const [row] = await store.db.query<{ shares: number }>('SELECT shares FROM portfolio_holdings WHERE portfolio_id = $1::uuid', [res.body.portfolio_id]);
      expect(row.shares).toBe((res.body.allocations as Row[])[0].shares);
      expect(row.shares).toBeGreaterThan(2 ** 31);
    });

    it('bad quiz answers and unknown presets are 400 naming them', async () => {
      const quiz = await asPartner(body({ risk_quiz_answers: { goal: 'lottery', horizon: 'forever' } }));
      expect(quiz.status).toBe(400);
      expect(fields(quiz).sort()).toEqual(['risk_quiz_answers.goal', 'risk_quiz_answers.horizon']);
      const preset = await asPartner(body({ suggested_preset: { key: 'yolo' } }));
      expect(preset.status).toBe(400);
      expect(fields(preset)).toEqual(['suggested_preset.key']);
    });

    it('malformed JSON and a non-JSON content type are 4xx in the error shape', async () => {
      const res = await asPartner('{"name": ');
      expect(res.status).toBe(400);
      expectErrorShape(res.body, 'MALFORMED_JSON');
      const text = await request<Json>(`${platform.urls.allocation}${OPTIMIZE}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: 'hi' });
      expect(text.status).toBe(415);
      expectErrorShape(text.body, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('Idempotency-Key (DESIGN section 5: a retry returns the first result, never a second portfolio)', () => {
    it('replays the stored response for the same key and body', async () => {
      const before = await portfolioCount();
      const first = await asPartner(body({ name: 'retry me' }), { 'idempotency-key': 'order-1' });
      const again = await asPartner(body({ name: 'retry me' }), { 'idempotency-key': 'order-1' });
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(await portfolioCount()).toBe(before + 1);
    });

    it('concurrent retries create one portfolio', async () => {
      const before = await portfolioCount();
      const all = await Promise.all(Array.from({ length: 5 }, () => asPartner(body({ name: 'burst' }), { 'idempotency-key': 'burst-1' })));
      expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(all.map((r) => r.body.portfolio_id)).size).toBe(1);
      expect(all.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(4);
      expect(await portfolioCount()).toBe(before + 1);
    });

    it('a different request under a used key is 400; another partner has its own keys', async () => {
      await asPartner(body({ name: 'keyed' }), { 'idempotency-key': 'order-2' });
      const reused = await asPartner(body({ name: 'keyed', total_capital: 300000 }), { 'idempotency-key': 'order-2' });
      expect(reused.status).toBe(400);
      expectErrorShape(reused.body, 'IDEMPOTENCY_KEY_REUSED');
      const other = await optimize(body({ name: 'keyed' }), { authorization: `Bearer ${otherToken}`, 'idempotency-key': 'order-2' });
      expect(other.status).toBe(200);
      expect(other.headers.get('idempotent-replayed')).toBeNull();
      const bad = await asPartner(body(), { 'idempotency-key': 'x'.repeat(256) });
      expect(bad.status).toBe(400);
      expectErrorShape(bad.body, 'VALIDATION_FAILED');
    });
  });

  // DESIGN section 8 "portfolios": an optimize result is a book like any other; GET /{id} reads the book
  // now (test/http/portfolios-contract.test.ts), the stored result itself is at /{id}/optimization.
  describe('reading a stored portfolio (the caller\'s own only)', () => {
    it('returns the stored response to its partner at /optimization, 404 to anyone else, 401 without a token', async () => {
      const made = await asPartner(body({ name: 'mine' }));
      const id = made.body.portfolio_id as string;
      const own = await call('GET', `/api/v1/portfolios/${id}/optimization`, undefined, { authorization: `Bearer ${token}` });
      expect(own.status).toBe(200);
      expect(own.text).toBe(made.text);
      // The book the result became: its positions as holdings, its remaining capital as cash, version 1.
      const book = await call('GET', `/api/v1/portfolios/${id}`, undefined, { authorization: `Bearer ${token}` });
      expect(book.status).toBe(200);
      expect(book.body).toMatchObject({ portfolio_id: id, name: 'mine', source: 'optimize', version: 1, cash: made.body.remaining_capital });
      expect(book.headers.get('etag')).toBe('"1"');
      const holdings = book.body.holdings as Row[];
      expect(Object.fromEntries(holdings.map((h) => [h.symbol, h.shares]))).toEqual(Object.fromEntries((made.body.allocations as Row[]).map((a) => [a.symbol, a.shares])));
      for (const path of [`/api/v1/portfolios/${id}/optimization`, `/api/v1/portfolios/${id}`]) {
        const res = await call('GET', path, undefined, { authorization: `Bearer ${otherToken}` });
        expect(res.status).toBe(404);
        expectErrorShape(res.body, 'PORTFOLIO_NOT_FOUND');
      }
      const theirs = await call('GET', `/api/v1/portfolios/${id}/optimization`, undefined, { authorization: `Bearer ${otherToken}` });
      expect(theirs.status).toBe(404);
      expectErrorShape(theirs.body, 'PORTFOLIO_NOT_FOUND');
      const unknown = await call('GET', '/api/v1/portfolios/not-a-uuid/optimization', undefined, { authorization: `Bearer ${token}` });
      expect(unknown.status).toBe(404);
      expectErrorShape(unknown.body, 'PORTFOLIO_NOT_FOUND');
      // An id that exists for someone else reads exactly like one that exists for nobody.
      const nobody = await call('GET', '/api/v1/portfolios/00000000-0000-4000-8000-000000000000/optimization', undefined, { authorization: `Bearer ${otherToken}` });
      expect(nobody.status).toBe(404);
      expect(theirs.body.error).toBe(String(nobody.body.error).replace('00000000-0000-4000-8000-000000000000', id));
      expect((await call('GET', `/api/v1/portfolios/${id}/optimization`)).status).toBe(401);
      expect((await call('GET', `/api/v1/portfolios/${id}`)).status).toBe(401);
    });
  });

  // DESIGN section 4: candidates come from the latest snapshots; a newer analysis must change the book.
  describe('the candidate universe follows the stored snapshots', () => {
    const partner = { kind: 'partner' as const, partnerId: 'partner-universe', claims: {} };
    const request = () => ({ name: 'fresh', total_capital: 100000, risk_settings: { max_positions: 3 } });
    const options = { traceId: 'universe-test', naming: 'rest' as const };

    it('rebuilds when the newest snapshots are rewritten, and not before its TTL says to look', async () => {
      const eager = new AllocationService(store.db, { universeTtlMs: 0 });
      const lazy = new AllocationService(store.db, { universeTtlMs: 3_600_000 });
      const first = (await eager.optimizeBody(partner, request(), options)).response;
      expect((await lazy.optimizeBody(partner, request(), options)).response.allocations.map((a) => a.symbol)).toEqual(first.allocations.map((a) => a.symbol));
      const top = first.allocations[0].symbol;

      // The pipeline rewrites the top name's newest snapshot: it is now in stage 4 (not a long).
      const row = (await latestSnapshot(store.db, top))!;
      const doc = { ...(JSON.parse(row.docText) as Json), stage: 'STAGE 4' };
      await upsertSnapshots(store.db, [{ symbol: top, analysisDate: row.analysisDate, doc: JSON.stringify(doc), producedAt: new Date(Date.now() + 1000).toISOString(), pipelineVersion: row.pipelineVersion }]);
      try {
        const after = (await eager.optimizeBody(partner, request(), options)).response;
        expect(after.allocations.map((a) => a.symbol)).not.toContain(top);
        // Within its TTL the other service still builds from the universe it has.
        expect((await lazy.optimizeBody(partner, request(), options)).response.allocations.map((a) => a.symbol)).toContain(top);
      } finally {
        await upsertSnapshots(store.db, [{ symbol: top, analysisDate: row.analysisDate, doc: row.docText, producedAt: new Date(Date.now() + 2000).toISOString(), pipelineVersion: row.pipelineVersion }]);
      }
    });
  });

  it('seeded every equity of the demo market on one date', () => {
    expect(seed.symbols.length).toBeGreaterThan(5);
  });
});
