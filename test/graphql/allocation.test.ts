/**
 * The allocation subgraph (DESIGN section 6; issue "Allocation service" item 10): optimizePortfolio,
 * portfolio(id), portfolios (paginated), `Portfolio @key(fields: "id")`, positions referencing
 * `Security`. The rules are the REST route's, because both call AllocationService: same demo body,
 * same validation (details in camelCase here), a portfolio visible only to its partner (NOT_FOUND
 * otherwise). Through the real gateway, a position joins its latest analysis.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { DEFAULT_CURRENCY } from '../../subgraphs/allocation/dto.js';
import { DEFAULT_HALF_KELLY, DEFAULT_REWARD_MULTIPLIER, DEFAULT_SOFTMAX_TEMPERATURE, DEFAULT_STAGE_WEIGHTS } from '../../subgraphs/allocation/engine/strategies.js';
import { CONSTRAINT_PACK_SCHEMA_VERSION } from '../../subgraphs/allocation/engine/types.js';
import { DEMO_OPTIMIZE_BODY } from '../../subgraphs/allocation/service.js';
import { latestSnapshot } from '../../subgraphs/analysis/store.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { storeEdgeOdds } from '../helpers/kelly-odds.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { graphql, request, type JsonResponse } from '../helpers/http.js';

type Json = Record<string, unknown>;
type PortfolioPage = { totalCount: number; nodes: Json[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };

let store: TestDb;
let platform: RunningPlatform;
let token: string;
let otherToken: string;
/** Valid at both origins a gateway query touches (allocation for the book, analysis for its snapshots). */
let bothToken: string;
const config = testConfig({ ANALYZE_ON_START: 'false' });

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
  const equities = await store.db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' ORDER BY symbol");
  await seedAnalysis(store.db, { symbols: equities.map((r) => r.symbol), days: 1 });
  await storeEdgeOdds(store.db); // Kelly sizes only from measured odds (test/helpers/kelly-odds.ts)
  const mint = (subject: string, audience: string | string[]) => mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience, subject });
  token = await mint('partner-1', config.auth.audiences.allocation);
  otherToken = await mint('partner-2', config.auth.audiences.allocation);
  bothToken = await mint('partner-1', [config.auth.audiences.allocation, config.auth.audiences.analysis]);
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
});

const subgraph = () => `${platform.urls.allocation}/graphql`;
const gateway = () => `${platform.urls.gateway}/graphql`;
const auth = (t: string) => ({ authorization: `Bearer ${t}` });

const OPTIMIZE = `mutation($input: PortfolioRequestInput!, $key: String) {
  optimizePortfolio(input: $input, idempotencyKey: $key) {
    id name totalCapital allocatedCapital remainingCapital positionCount currency createdAt traceId analysisDate
    riskSettings { maxRiskPerTrade maxPortfolioRisk maxPositionSize maxPositions allocationStrategy softmaxTemperature }
    allocations { symbol shares entryPrice positionValue riskAmount percentOfAccount stopLoss stage signal supportLevels { price strength } security { symbol } }
    optimizerDiagnostics { schemaVersion maxPositionSizeEffective bindingNotes softmaxTemperatureBase softmaxTemperatureEffective }
    policyExplanation { schemaVersion mapperVersion presetKey bullets }
  }
}`;

const demoInput = {
  name: DEMO_OPTIMIZE_BODY.name,
  totalCapital: DEMO_OPTIMIZE_BODY.total_capital,
  riskSettings: {
    maxRiskPerTrade: DEMO_OPTIMIZE_BODY.risk_settings.max_risk_per_trade,
    maxPortfolioRisk: DEMO_OPTIMIZE_BODY.risk_settings.max_portfolio_risk,
    maxPositionSize: DEMO_OPTIMIZE_BODY.risk_settings.max_position_size,
    maxPositions: DEMO_OPTIMIZE_BODY.risk_settings.max_positions,
    allocationStrategy: DEMO_OPTIMIZE_BODY.risk_settings.allocation_strategy,
  },
};

const portfolioCount = async () => (await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolios'))[0].n;

/** A JSON value with every object key in camelCase (`total_capital` -> `totalCapital`), null fields left out. */
function camelJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelJson);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), camelJson(v)]),
  );
}

describe('allocationLimits: the defaults a client shows, from the server\'s own constants', () => {
  const LIMITS = `{ allocationLimits {
    defaultCurrency constraintPackSchemaVersion
    strategyParameterDefaults { softmaxTemperature rewardMultiplier halfKelly stageWeights { stage1 stage2 stage3 stage4 } }
    demoRequest { name totalCapital riskSettings { maxRiskPerTrade maxPortfolioRisk maxPositionSize maxPositions allocationStrategy softmaxTemperature rewardMultiplier halfKelly stageWeights { stage1 stage2 stage3 stage4 } } }
  } }`;
  type Limits = { strategyParameterDefaults: Json; defaultCurrency: string; constraintPackSchemaVersion: string; demoRequest: Json };

  it("answers the engine's strategy-parameter defaults, the request contract's currency and the constraint pack's version", async () => {
    const res = await graphql<{ allocationLimits: Limits }>(gateway(), LIMITS);
    expect(res.body.errors).toBeUndefined();
    const limits = res.body.data!.allocationLimits;
    expect(limits.strategyParameterDefaults).toEqual({
      softmaxTemperature: DEFAULT_SOFTMAX_TEMPERATURE,
      rewardMultiplier: DEFAULT_REWARD_MULTIPLIER,
      halfKelly: DEFAULT_HALF_KELLY,
      stageWeights: { stage1: DEFAULT_STAGE_WEIGHTS['STAGE 1'], stage2: DEFAULT_STAGE_WEIGHTS['STAGE 2'], stage3: DEFAULT_STAGE_WEIGHTS['STAGE 3'], stage4: DEFAULT_STAGE_WEIGHTS['STAGE 4'] },
    });
    expect(limits.defaultCurrency).toBe(DEFAULT_CURRENCY);
    expect(limits.constraintPackSchemaVersion).toBe(CONSTRAINT_PACK_SCHEMA_VERSION);
  });

  it('answers the demo request as the REST demo body in GraphQL naming, and the graph accepts it without a token', async () => {
    const rest = await request<Json>(`${platform.urls.allocation}/api/v1/demo/optimize-body`);
    expect(rest.status).toBe(200);
    const res = await graphql<{ allocationLimits: Limits }>(gateway(), LIMITS);
    const demoRequest = camelJson(res.body.data!.allocationLimits.demoRequest);
    expect(demoRequest).toEqual(camelJson(rest.body));
    expect(demoRequest).toEqual(demoInput);

    const optimized = await graphql<{ optimizePortfolio: Json }>(gateway(), 'mutation($input: PortfolioRequestInput!) { optimizePortfolio(input: $input) { id } }', { input: demoRequest });
    expect(optimized.body.errors).toBeUndefined();
    expect(optimized.body.data!.optimizePortfolio.id).toMatch(/^demo-/);
  });
});

describe('optimizePortfolio', () => {
  it('gives partners the full book, stored, equal to the REST read of the same portfolio', async () => {
    const res = await graphql<{ optimizePortfolio: Json }>(subgraph(), OPTIMIZE, { input: { name: 'graph book', totalCapital: 150000 } }, auth(token));
    expect(res.body.errors).toBeUndefined();
    const p = res.body.data!.optimizePortfolio;
    expect(p.name).toBe('graph book');
    expect((p.riskSettings as Json).allocationStrategy).toBe('HYBRID_WEIGHTED');
    const rows = p.allocations as Json[];
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect((r.security as Json).symbol).toBe(r.symbol);
    expect(p.positionCount).toBe(rows.length);

    const rest = await request<Json>(`${platform.urls.allocation}/api/v1/portfolios/${p.id as string}/optimization`, { headers: auth(token) });
    expect(rest.status).toBe(200);
    expect(rest.body.allocated_capital).toBe(p.allocatedCapital);
    expect((rest.body.allocations as Json[]).map((a) => [a.symbol, a.shares])).toEqual(rows.map((a) => [a.symbol, a.shares]));
    expect(rest.body.trace_id).toBe(p.traceId);
  });

  it('without a token accepts the demo input only: two rows at most, nothing stored', async () => {
    const before = await portfolioCount();
    const res = await graphql<{ optimizePortfolio: Json }>(subgraph(), OPTIMIZE, { input: demoInput });
    expect(res.body.errors).toBeUndefined();
    const p = res.body.data!.optimizePortfolio;
    const rows = p.allocations as Json[];
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(p.positionCount).toBe(rows.length);
    const allocatedCents = rows.reduce((sum, r) => sum + Math.round((r.positionValue as number) * 100), 0);
    expect(Math.round((p.allocatedCapital as number) * 100)).toBe(allocatedCents);
    expect(Math.round((p.remainingCapital as number) * 100)).toBe(Math.round((p.totalCapital as number) * 100) - allocatedCents);
    expect(p.id).toMatch(/^demo-/);
    expect(await portfolioCount()).toBe(before);

    const other = await graphql(subgraph(), OPTIMIZE, { input: { ...demoInput, totalCapital: 5000 } });
    expect(other.body.data).toBeNull();
    expect(other.body.errors?.[0].extensions?.code).toBe('DEMO_BODY_MISMATCH');
    expect((other.body.errors?.[0].extensions?.details as Array<{ field: string }>).map((d) => d.field)).toEqual(['totalCapital']);
  });

  it('refuses invalid input with every violation listed in camelCase, storing nothing', async () => {
    const before = await portfolioCount();
    const res = await graphql(
      subgraph(),
      OPTIMIZE,
      { input: { name: 'bad', totalCapital: 500, riskSettings: { maxRiskPerTrade: 3, maxPositions: 0 }, constraintPack: { schemaVersion: '1', sectorCaps: { Energy: 2 } } } },
      auth(token),
    );
    expect(res.body.data).toBeNull();
    const error = res.body.errors![0];
    expect(error.extensions?.code).toBe('VALIDATION_FAILED');
    const fields = (error.extensions?.details as Array<{ field: string }>).map((d) => d.field).sort();
    expect(fields).toEqual(['constraintPack.sectorCaps', 'riskSettings.maxPositions', 'riskSettings.maxRiskPerTrade', 'totalCapital']);
    expect(await portfolioCount()).toBe(before);
    // The same request over REST is refused for the same fields, in snake_case.
    const rest = await request<Json>(`${platform.urls.allocation}/api/v1/portfolios/optimize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth(token) },
      body: JSON.stringify({ name: 'bad', total_capital: 500, risk_settings: { max_risk_per_trade: 3, max_positions: 0 }, constraint_pack: { schema_version: '1', sector_caps: { Energy: 2 } } }),
    });
    expect(rest.status).toBe(400);
    expect((rest.body.details as Array<{ field: string }>).map((d) => d.field).sort()).toEqual([
      'constraint_pack.sector_caps', 'risk_settings.max_positions', 'risk_settings.max_risk_per_trade', 'total_capital',
    ]);
  });

  it('an idempotencyKey retry returns the first portfolio; another input under that key is refused', async () => {
    const vars = { input: { name: 'keyed graph', totalCapital: 20000 }, key: 'graph-key-1' };
    const a = await graphql<{ optimizePortfolio: Json }>(subgraph(), OPTIMIZE, vars, auth(token));
    const b = await graphql<{ optimizePortfolio: Json }>(subgraph(), OPTIMIZE, vars, auth(token));
    expect(b.body.data!.optimizePortfolio.id).toBe(a.body.data!.optimizePortfolio.id);
    expect(b.body.data!.optimizePortfolio.createdAt).toBe(a.body.data!.optimizePortfolio.createdAt);
    const other = await graphql(subgraph(), OPTIMIZE, { ...vars, input: { ...vars.input, totalCapital: 20001 } }, auth(token));
    expect(other.body.errors?.[0].extensions?.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('a bad token is UNAUTHENTICATED, even with the demo input', async () => {
    const res = await graphql(subgraph(), OPTIMIZE, { input: demoInput }, { authorization: 'Bearer not-a-jwt' });
    expect(res.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('portfolio and portfolios: the caller\'s own only', () => {
  it('reads its own portfolio; another partner gets NOT_FOUND, an anonymous caller UNAUTHENTICATED', async () => {
    const made = await graphql<{ optimizePortfolio: Json }>(subgraph(), OPTIMIZE, { input: { name: 'private', totalCapital: 30000 } }, auth(token));
    const id = made.body.data!.optimizePortfolio.id as string;
    const query = 'query($id: ID!) { portfolio(id: $id) { id name positionCount } }';
    const own = await graphql<{ portfolio: Json }>(subgraph(), query, { id }, auth(token));
    expect(own.body.data!.portfolio).toMatchObject({ id, name: 'private' });
    const theirs = await graphql(subgraph(), query, { id }, auth(otherToken));
    expect(theirs.body.errors?.[0].extensions?.code).toBe('PORTFOLIO_NOT_FOUND');
    const anonymous = await graphql(subgraph(), query, { id });
    expect(anonymous.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('pages through the partner\'s portfolios newest first, without another partner\'s', async () => {
    for (let i = 0; i < 3; i++) await graphql(subgraph(), OPTIMIZE, { input: { name: `paged ${i}`, totalCapital: 10000 + i } }, auth(otherToken));
    const query = 'query($first: Int, $after: String) { portfolios(first: $first, after: $after) { totalCount nodes { id name createdAt } pageInfo { hasNextPage endCursor } } }';
    const seen: Json[] = [];
    let after: string | null = null;
    for (;;) {
      const res: JsonResponse<{ data?: { portfolios: PortfolioPage } }> = await graphql<{ portfolios: PortfolioPage }>(subgraph(), query, { first: 2, after }, auth(otherToken));
      const page = res.body.data!.portfolios;
      expect(page.totalCount).toBe(3);
      seen.push(...page.nodes);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(seen.map((n) => n.name)).toEqual(['paged 2', 'paged 1', 'paged 0']);
    const bad = await graphql(subgraph(), query, { first: 101 }, auth(otherToken));
    expect(bad.body.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
    // A forged cursor is a client error, not a masked database error.
    for (const forged of ['1 2|00000000-0000-4000-8000-000000000000', '0|00000000-0000-4000-8000-000000000000', 'garbage']) {
      const res = await graphql(subgraph(), query, { after: Buffer.from(forged).toString('base64url') }, auth(otherToken));
      expect(res.body.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
    }
    const anonymous = await graphql(subgraph(), query, {});
    expect(anonymous.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('through the gateway', () => {
  it('joins each position with its latest analysis (Security is owned by the analysis subgraph)', async () => {
    const res = await graphql<{ optimizePortfolio: { allocations: Array<{ symbol: string; security: { symbol: string; name: string; analysis: { stage: string | null; analysisDate: string; price: number } | null } }> } }>(
      gateway(),
      `mutation($input: PortfolioRequestInput!) { optimizePortfolio(input: $input) { allocations { symbol entryPrice security { symbol name analysis { stage analysisDate price } } } } }`,
      { input: { name: 'joined', totalCapital: 100000 } },
      auth(bothToken),
    );
    expect(res.body.errors).toBeUndefined();
    const rows = res.body.data!.optimizePortfolio.allocations;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.security.symbol).toBe(row.symbol);
      expect(typeof row.security.name).toBe('string');
      const doc = JSON.parse((await latestSnapshot(store.db, row.symbol))!.docText) as Json;
      // The Stage enum shows the stored label 'STAGE 2' as STAGE_2.
      expect(row.security.analysis).toMatchObject({ stage: (doc.stage as string | null)?.replace(' ', '_') ?? null, analysisDate: doc.analysis_date, price: doc.price });
    }
  });

  it('resolves Portfolio by key for its partner only (the entity other subgraphs extend)', async () => {
    const made = await graphql<{ optimizePortfolio: Json }>(subgraph(), OPTIMIZE, { input: { name: 'entity', totalCapital: 40000 } }, auth(token));
    const id = made.body.data!.optimizePortfolio.id as string;
    const entities = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Portfolio { id name } } }';
    const own = await graphql<{ _entities: Json[] }>(subgraph(), entities, { r: [{ __typename: 'Portfolio', id }] }, auth(token));
    expect(own.body.data!._entities).toEqual([{ id, name: 'entity' }]);
    const theirs = await graphql(subgraph(), entities, { r: [{ __typename: 'Portfolio', id }] }, auth(otherToken));
    expect(theirs.body.errors?.[0].extensions?.code).toBe('PORTFOLIO_NOT_FOUND');
  });
});
