/**
 * GraphQL: each origin serves its subgraph at /graphql and the gateway federates all three from the
 * committed supergraph, forwarding the caller's token. Auth rules live in the service, so the
 * subgraph and the gateway answer alike.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { graphql } from '../helpers/http.js';

let store: TestDb;
let platform: RunningPlatform;
let token: string;
const config = testConfig();

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
  token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'partner-7' });
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
});

const gateway = () => `${platform.urls.gateway}/graphql`;
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

interface SecurityData {
  security: {
    symbol: string;
    name: string;
    sector: string;
    dataSource: string;
    bars: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string }; nodes: Array<{ date: string; open: number; high: number; low: number; close: number; volume: number }> };
  } | null;
}

const SECURITY_WITH_BARS = `query ($symbol: String!, $after: String) {
  security(symbol: $symbol) {
    symbol name sector dataSource
    bars(first: 100, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { date open high low close volume } }
  }
}`;

it('one gateway query reaches all three subgraphs', async () => {
  const res = await graphql<{ security: { symbol: string; name: string }; allocationStrategies: Array<{ name: string }>; huntModes: Array<{ mode: string }>; searchPagination: { defaultPageSize: number; maxPageSize: number } }>(
    gateway(),
    '{ security(symbol: "ACME") { symbol name } allocationStrategies { name } huntModes { mode } searchPagination { defaultPageSize maxPageSize } }',
  );
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data?.security).toEqual({ symbol: 'ACME', name: 'Acme Synthetic Corp' });
  expect(res.body.data?.allocationStrategies.map((s) => s.name)).toEqual(['EQUAL_WEIGHT', 'STAGE_WEIGHTED', 'CONFIDENCE_WEIGHTED', 'KELLY_CRITERION', 'HYBRID_WEIGHTED']);
  expect(res.body.data?.huntModes.map((m) => m.mode)).toEqual(['GENERAL', 'REPLACE', 'INTEREST']);
  expect(res.body.data?.searchPagination).toEqual({ defaultPageSize: 6, maxPageSize: 50 });
});

it('forwards the partner token: bars are served through the gateway, paginated by date', async () => {
  const first = await graphql<SecurityData>(gateway(), SECURITY_WITH_BARS, { symbol: 'acme' }, bearer(token));
  expect(first.body.errors).toBeUndefined();
  const sec = first.body.data!.security!;
  expect(sec).toEqual(expect.objectContaining({ symbol: 'ACME', sector: 'Information Technology', dataSource: 'SYNTHETIC' }));
  expect(sec.bars.totalCount).toBe(252);
  expect(sec.bars.nodes).toHaveLength(100);
  expect(sec.bars.pageInfo).toEqual({ hasNextPage: true, endCursor: sec.bars.nodes[99].date });
  for (const b of sec.bars.nodes) expect(b.low).toBeLessThanOrEqual(Math.min(b.open, b.close));

  const dates: string[] = sec.bars.nodes.map((b) => b.date);
  let cursor: string | null = sec.bars.pageInfo.endCursor;
  while (cursor) {
    const next: Awaited<ReturnType<typeof graphql<SecurityData>>> = await graphql<SecurityData>(gateway(), SECURITY_WITH_BARS, { symbol: 'ACME', after: cursor }, bearer(token));
    const bars: NonNullable<SecurityData['security']>['bars'] = next.body.data!.security!.bars;
    dates.push(...bars.nodes.map((b) => b.date));
    cursor = bars.pageInfo.hasNextPage ? bars.pageInfo.endCursor : null;
  }
  expect(dates).toHaveLength(252);
  expect([...dates].sort()).toEqual(dates);
  expect(new Set(dates).size).toBe(252);
});

it('the subgraph and the gateway give the same bars', async () => {
  const direct = await graphql<SecurityData>(`${platform.urls.analysis}/graphql`, SECURITY_WITH_BARS, { symbol: 'ACME' }, bearer(token));
  const viaGateway = await graphql<SecurityData>(gateway(), SECURITY_WITH_BARS, { symbol: 'ACME' }, bearer(token));
  expect(viaGateway.body.data).toEqual(direct.body.data);
});

it('anonymous callers see only the demo symbol and no bars', async () => {
  const other = await graphql(gateway(), '{ security(symbol: "TGMI") { symbol } }');
  expect(other.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  const bars = await graphql(gateway(), '{ security(symbol: "ACME") { bars { totalCount } } }');
  expect(bars.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  const list = await graphql(gateway(), '{ securities { totalCount } }');
  expect(list.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
});

it('partners list securities by sector with cursor pagination', async () => {
  type List = { securities: { totalCount: number; nodes: Array<{ symbol: string; sector: string; assetType: string }>; pageInfo: { hasNextPage: boolean; endCursor: string } } };
  const all = await graphql<List>(gateway(), '{ securities(first: 500) { totalCount nodes { symbol sector assetType } pageInfo { hasNextPage endCursor } } }', {}, bearer(token));
  expect(all.body.data?.securities.totalCount).toBe(23);
  expect(all.body.data?.securities.nodes.filter((s) => s.assetType === 'INDEX').map((s) => s.symbol)).toEqual(['TGMI']);
  expect(new Set(all.body.data?.securities.nodes.filter((s) => s.sector).map((s) => s.sector)).size).toBe(11);
  const it = await graphql<List>(gateway(), '{ securities(sector: "Information Technology", first: 1) { totalCount nodes { symbol } pageInfo { hasNextPage endCursor } } }', {}, bearer(token));
  expect(it.body.data?.securities.totalCount).toBe(2);
  expect(it.body.data?.securities.pageInfo.hasNextPage).toBe(true);
});

it.each([
  ['a token for another audience', async () => mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'p' })],
  ['an expired token', async () => mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'p', expiresIn: -3600 })],
  ['a token signed with another secret', async () => mintPartnerToken({ secret: 'x'.repeat(40), issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'p' })],
])('%s is refused as UNAUTHENTICATED through the gateway', async (_, mint) => {
  const res = await graphql(gateway(), SECURITY_WITH_BARS, { symbol: 'ACME' }, bearer(await mint()));
  expect(res.status).toBe(200);
  expect(res.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  expect(JSON.stringify(res.body)).not.toMatch(/stack|\.ts:\d+|JWS|JWT/);
});

it('invalid arguments are VALIDATION_FAILED with details, not internal errors', async () => {
  const res = await graphql(gateway(), '{ security(symbol: "ACME") { bars(first: 0) { totalCount } } }', {}, bearer(token));
  expect(res.body.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
  const bad = await graphql(gateway(), '{ security(symbol: "../etc/passwd") { symbol } }', {}, bearer(token));
  expect(bad.body.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
  const date = await graphql(gateway(), '{ security(symbol: "ACME") { bars(from: "2024-02-30") { totalCount } } }', {}, bearer(token));
  expect(date.body.errors?.[0].extensions?.code).toMatch(/GRAPHQL_VALIDATION_FAILED|BAD_USER_INPUT/);
});

it('an unknown symbol is null, not an error', async () => {
  const res = await graphql(gateway(), '{ security(symbol: "ZZZZ") { symbol } }', {}, bearer(token));
  expect(res.body).toEqual({ data: { security: null } });
});

it('CSRF prevention: a simple GET without a preflight header is refused', async () => {
  const res = await fetch(`${gateway()}?query=${encodeURIComponent('{ huntModes { mode } }')}`);
  expect(res.status).toBe(400);
  const ok = await fetch(`${gateway()}?query=${encodeURIComponent('{ huntModes { mode } }')}`, { headers: { 'apollo-require-preflight': 'true' } });
  expect(ok.status).toBe(200);
});
