/**
 * max_positions is a hard limit also in a rebalance: POST /api/v1/portfolios/optimize with a partner
 * token, a prior book (spec "PortfolioRequest": prior_book_weights), a turnover cap (spec
 * "ConstraintPackV1": max_portfolio_turnover_annual) and risk_settings.max_positions (spec "RiskSettings":
 * maximum number of positions). The response (spec "Allocation service" rule 3, "PortfolioResponse") never
 * has more rows than max_positions, and its binding notes (spec "OptimizerDiagnosticsV1") say which prior
 * names max_positions forces out and by how much that exceeds the turnover cap.
 *
 * Real HTTP on port 0, real signed partner tokens, the real pipeline's snapshots of the small demo market
 * plus made-up tickers (copies of ACME's documents, see test/helpers/analysis.ts), so that a prior book of
 * 30 names exists. Every response is checked against the origin's /openapi.json. Runs on PGlite, and on
 * PostgreSQL when TEST_DATABASE_URL is set.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { storeEdgeOdds } from '../helpers/kelly-odds.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';
import { request, type JsonResponse } from '../helpers/http.js';
import { checkResponse, fetchOpenApi, type OpenApiDocument } from '../helpers/openapi.js';

type Json = Record<string, unknown>;
type Row = Record<string, unknown>;

const OPTIMIZE = '/api/v1/portfolios/optimize';
const STRATEGIES = ['EQUAL_WEIGHT', 'STAGE_WEIGHTED', 'CONFIDENCE_WEIGHTED', 'KELLY_CRITERION', 'HYBRID_WEIGHTED'];
/** Made-up tickers added to the demo market's equities. */
const EXTRA_SYMBOLS = Array.from({ length: 24 }, (_, i) => `MPX${String(i).padStart(2, '0')}`);
/** Whole shares move a weight by at most one share: generous slack on turnover computed from the rows. */
const ROUNDING = 0.01;

const cents = (x: number): number => Math.round(x * 100);
const rows = (res: JsonResponse<Json>): Row[] => res.body.allocations as Row[];
const notes = (res: JsonResponse<Json>): string[] => (res.body.optimizer_diagnostics as Json).binding_notes as string[];

/** One-way turnover of the response's book against a prior book: half the sum of |w_new - w_prior|. */
function turnoverOf(res: JsonResponse<Json>, prior: Record<string, number>): number {
  const after = Object.fromEntries(rows(res).map((r) => [r.symbol as string, (r.position_value as number) / (res.body.total_capital as number)]));
  const symbols = new Set([...Object.keys(after), ...Object.keys(prior)]);
  let sum = 0;
  for (const symbol of symbols) sum += Math.abs((after[symbol] ?? 0) - (prior[symbol] ?? 0));
  return sum / 2;
}

/** Whole positive shares, figures exact in cents, cash never negative (spec "PortfolioResponse"). */
function expectConsistentBook(body: Json): void {
  const list = body.allocations as Row[];
  expect(body.position_count).toBe(list.length);
  let allocated = 0;
  for (const r of list) {
    expect(Number.isInteger(r.shares) && (r.shares as number) > 0).toBe(true);
    expect(cents(r.position_value as number)).toBe((r.shares as number) * cents(r.entry_price as number));
    allocated += cents(r.position_value as number);
  }
  expect(cents(body.allocated_capital as number)).toBe(allocated);
  expect(body.remaining_capital as number).toBeGreaterThanOrEqual(0);
  expect(cents(body.remaining_capital as number)).toBe(cents(body.total_capital as number) - allocated);
}

describe.each(BACKENDS)('max_positions in a rebalance through the REST route on %s', (backend) => {
  const config = testConfig({ ANALYZE_ON_START: 'false' });
  let store: TestDb;
  let platform: RunningPlatform;
  let openapi: OpenApiDocument;
  let token: string;
  let symbols: string[];

  const optimize = async (body: Json): Promise<JsonResponse<Json>> => {
    const res = await request<Json>(`${platform.urls.allocation}${OPTIMIZE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    checkResponse(openapi, 'POST', OPTIMIZE, res.status, res.body);
    return res;
  };
  const body = (over: Json = {}): Json => ({ name: 'Rebalance', total_capital: 250000, ...over });

  beforeAll(async () => {
    store = await openTestDb(backend);
    platform = await startPlatform(config, ['analysis', 'allocation'], { db: store.db });
    openapi = await fetchOpenApi(platform.urls.allocation as string);
    const equities = await store.db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' ORDER BY symbol");
    const seeded = await seedAnalysis(store.db, { symbols: [...equities.map((r) => r.symbol), ...EXTRA_SYMBOLS], days: 1 });
    symbols = seeded.symbols;
    await storeEdgeOdds(store.db); // Kelly sizes only from measured odds (test/helpers/kelly-odds.ts)
    token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'partner-1' });
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
  });

  it('a 30-name prior book with max_positions 8 gives at most 8 rows, and the forced sale is reported against the cap', async () => {
    expect(symbols.length).toBeGreaterThanOrEqual(30);
    const prior = Object.fromEntries(symbols.slice(0, 30).map((s) => [s, 0.03]));
    for (const strategy of STRATEGIES) {
      const res = await optimize(
        body({
          risk_settings: { allocation_strategy: strategy, max_positions: 8 },
          prior_book_weights: prior,
          constraint_pack: { schema_version: '1', max_portfolio_turnover_annual: 0.1 },
        }),
      );
      expect(res.status).toBe(200);
      expect(rows(res).length).toBeLessThanOrEqual(8);
      expect(res.body.position_count).toBe(rows(res).length);
      expectConsistentBook(res.body);
      // The eight positions stay with the strongest prior names: no new name enters.
      for (const r of rows(res)) expect(prior[r.symbol as string]).toBe(0.03);
      // 22 names at 0.03 are sold: 0.33 of one-way turnover, 0.23 above the cap of 0.1.
      expect(notes(res).some((n) => n.startsWith(`max_positions: the prior book holds 30 names that could be kept, above the limit of 8, so the 22 weakest by ${strategy} rank are sold: `))).toBe(true);
      expect(notes(res)).toContainEqual(
        expect.stringMatching(
          /^max_portfolio_turnover_annual: turnover 0\.\d{4} exceeds cap 0\.1000 because .*max_positions forces the sale of 22 prior names \(forced one-way turnover 0\.3300, 0\.2300 above the cap\)$/,
        ),
      );
      const turnover = turnoverOf(res, prior);
      expect(turnover).toBeGreaterThanOrEqual(0.33 - 1e-9);
      if (!notes(res).some((n) => n.includes('the hard caps win'))) expect(turnover).toBeLessThanOrEqual(0.33 + ROUNDING);
    }
  });

  it('a prior book that fits max_positions keeps the turnover within the cap and the rows within the limit', async () => {
    const free = await optimize(body({ risk_settings: { max_positions: 8 } }));
    expect(free.status).toBe(200);
    const held = new Set(rows(free).map((r) => r.symbol as string));
    expect(held.size).toBe(8); // the target alone fills every position
    const prior = Object.fromEntries(symbols.filter((s) => !held.has(s)).slice(0, 5).map((s) => [s, 0.1]));
    const res = await optimize(
      body({ risk_settings: { max_positions: 8 }, prior_book_weights: prior, constraint_pack: { schema_version: '1', max_portfolio_turnover_annual: 0.1 } }),
    );
    expect(res.status).toBe(200);
    expect(rows(res).length).toBeLessThanOrEqual(8);
    expectConsistentBook(res.body);
    expect(notes(res).some((n) => n.includes('max_positions forces') || n.startsWith('max_positions: the prior book holds'))).toBe(false);
    expect(turnoverOf(res, prior)).toBeLessThanOrEqual(0.1 + ROUNDING);
  });
});
