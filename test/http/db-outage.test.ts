/**
 * Health follows the database: spec "Common to all three services" (analysis and allocation /health
 * -> 503 unavailable; search /health is a liveness probe). With PostgreSQL behind a real TCP proxy the
 * connection is cut and restored: 503 within a bounded time, then 200 again without a restart.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { ALL_MIGRATIONS } from '../../app/migrations.js';
import { openPglite, openPostgres, type Db } from '../../subgraphs/platform/db.js';
import { migrate } from '../../subgraphs/platform/migrations.js';
import { loadSyntheticMarket } from '../../subgraphs/analysis/market-data.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { DEMO_OPTIMIZE_BODY } from '../../subgraphs/allocation/service.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { createPostgresDatabase } from '../helpers/db.js';
import { expectErrorShape, request, type JsonResponse } from '../helpers/http.js';
import { proxyPostgres, type TcpProxy } from '../helpers/tcp-proxy.js';
import { scaled } from '../helpers/time.js';

// OIDC_ENFORCE=false: hunt and cash hunt answer without an identity provider (the store is what is tested here).
const config = testConfig({ DEMO_DATA: 'false', DB_HEALTH_TIMEOUT_MS: '1000', OIDC_ENFORCE: 'false', LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' });
const health = (platform: RunningPlatform, origin: 'analysis' | 'allocation' | 'search') => request(`${platform.urls[origin]}/health`);

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + scaled(timeoutMs);
  let last = await fn();
  while (!ok(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = await fn();
  }
  return last;
}

function expectUnavailable(res: JsonResponse): void {
  expect(res.status).toBe(503);
  expectErrorShape(res.body, 'SERVICE_UNAVAILABLE');
  expect(res.body.status).toBe('unavailable');
}

describe('health with the embedded store closed', () => {
  let db: Db;
  let platform: RunningPlatform;
  beforeAll(async () => {
    db = await openPglite(undefined);
    await migrate(db, ALL_MIGRATIONS);
    platform = await startPlatform(config, ['analysis', 'allocation', 'search'], { db });
  });
  afterAll(async () => platform?.close());

  it('analysis and allocation answer 503, search stays live', async () => {
    expect((await health(platform, 'analysis')).status).toBe(200);
    await db.close();
    const analysis = await health(platform, 'analysis');
    expectUnavailable(analysis);
    expect(analysis.body.version).toBeDefined();
    expect(analysis.body.timestamp).toBeDefined();
    expectUnavailable(await health(platform, 'allocation'));
    const search = await health(platform, 'search');
    expect(search.status).toBe(200);
    expect(search.body).toEqual({ status: 'degraded' });
    // spec "Allocation service": optimize answers 503 when the service is unavailable.
    const optimize = await request(`${platform.urls.allocation}/api/v1/portfolios/optimize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(DEMO_OPTIMIZE_BODY),
    });
    expect(optimize.status).toBe(503);
    expectErrorShape(optimize.body, 'SERVICE_UNAVAILABLE');
    // Hunt and cash hunt: a store that cannot answer is 503, never a 400 "unknown portfolio".
    for (const route of ['hunt', 'cash-hunt']) {
      const res = await request(`${platform.urls.search}/api/v1/portfolios/${route}?portfolio_id=8d3f3c1e-6f3a-4a55-9a57-0c3c1e2b9d10`);
      expect(res.status).toBe(503);
      expectErrorShape(res.body, 'SERVICE_UNAVAILABLE');
    }
  });
});

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

onPostgres('health through a PostgreSQL outage (TEST_DATABASE_URL)', () => {
  let proxy: TcpProxy;
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let db: Db;
  let platform: RunningPlatform;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    const proxied = await proxyPostgres(database.url);
    proxy = proxied.proxy;
    db = await openPostgres(proxied.url, { connectTimeoutMs: 1000, onError: () => undefined });
    await migrate(db, ALL_MIGRATIONS);
    platform = await startPlatform(config, ['analysis', 'allocation', 'search'], { db });
  });
  afterAll(async () => {
    await platform?.close();
    await db?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('503 while the database is unreachable, 200 again once it is back, without a restart', async () => {
    expect((await health(platform, 'analysis')).status).toBe(200);
    expect((await health(platform, 'allocation')).status).toBe(200);

    await proxy.cut();
    const started = Date.now();
    expectUnavailable(await health(platform, 'analysis'));
    expectUnavailable(await health(platform, 'allocation'));
    expect(Date.now() - started).toBeLessThan(scaled(5000)); // bounded by DB_HEALTH_TIMEOUT_MS, never hanging
    expect((await health(platform, 'search')).body).toEqual({ status: 'degraded' });

    await proxy.restore();
    const back = await eventually(() => health(platform, 'analysis'), (r) => r.status === 200, 5000);
    expect(back.status).toBe(200);
    expect((await health(platform, 'allocation')).status).toBe(200);
    expect((await health(platform, 'search')).body).toEqual({ status: 'ok' });
  });

  // Issue "Production hardening" item 3: data routes, not only /health, fail fast and recover.
  it('data routes answer 503 in the error shape within a bounded time while the database is cut, and serve again after', async () => {
    await loadSyntheticMarket(db, { seed: 7, symbolCount: 12, years: 1, endDate: '2026-10-30', indexSymbol: 'TGMI' });
    const seed = await seedAnalysis(db, { days: 2 });
    const token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'p' });
    const auth = { authorization: `Bearer ${token}` };
    // A dated read is never served from the latest-snapshot cache: it always needs the database.
    const dated = () => request(`${platform.urls.analysis}/api/v1/results/analysis/ACME?date=${seed.latestDate}`, { headers: auth });
    const bars = () =>
      request<{ errors?: Array<{ extensions?: { code?: string } }> }>(`${platform.urls.analysis}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ query: '{ security(symbol: "ACME") { bars(first: 3) { totalCount } } }' }),
      });
    expect((await dated()).status).toBe(200);

    await proxy.cut();
    const started = Date.now();
    const rest = await dated();
    expect(rest.status).toBe(503);
    expectErrorShape(rest.body, 'SERVICE_UNAVAILABLE');
    const graph = await bars();
    expect(graph.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
    expect(graph.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|stack/);
    expect(Date.now() - started).toBeLessThan(scaled(5000));

    await proxy.restore();
    expect((await eventually(dated, (r) => r.status === 200, 5000)).status).toBe(200);
    expect((await bars()).body.errors).toBeUndefined();
  });

  it('optimize answers 503 while the database is cut, writes nothing, and stores the book once it is back', async () => {
    const token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'p' });
    const optimize = () =>
      request<Record<string, unknown>>(`${platform.urls.allocation}/api/v1/portfolios/optimize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'idempotency-key': 'outage-1' },
        body: JSON.stringify({ name: 'through an outage', total_capital: 50000 }),
      });
    const count = async () => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolios'))[0].n;
    const before = await count();

    await proxy.cut();
    const started = Date.now();
    const res = await optimize();
    expect(res.status).toBe(503);
    expectErrorShape(res.body, 'SERVICE_UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(scaled(5000));

    await proxy.restore();
    const back = await eventually(optimize, (r) => r.status === 200, 5000);
    expect(back.status).toBe(200);
    expect(await count()).toBe(before + 1);
    expect((await optimize()).body.portfolio_id).toBe(back.body.portfolio_id);
    expect(await count()).toBe(before + 1);
  });

  it('hunt and cash hunt answer 503 while the database is cut, and serve the portfolio once it is back', async () => {
    const token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'p' });
    const stored = await request<Record<string, unknown>>(`${platform.urls.allocation}/api/v1/portfolios/optimize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'hunted through an outage', total_capital: 50000 }),
    });
    expect(stored.status).toBe(200);
    const hunt = (route: string) => request(`${platform.urls.search}/api/v1/portfolios/${route}?portfolio_id=${stored.body.portfolio_id as string}`);
    // Past the universe's 1 s check interval, so the search origin must ask the store.
    await new Promise((r) => setTimeout(r, 1100));

    await proxy.cut();
    const started = Date.now();
    for (const route of ['hunt', 'cash-hunt']) {
      const res = await hunt(route);
      expect(res.status).toBe(503);
      expectErrorShape(res.body, 'SERVICE_UNAVAILABLE');
      expect(res.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|stack/);
    }
    expect(Date.now() - started).toBeLessThan(scaled(5000));

    await proxy.restore();
    expect((await eventually(() => hunt('hunt'), (r) => r.status === 200, 5000)).status).toBe(200);
    expect((await hunt('cash-hunt')).status).toBe(200);
  });
});
