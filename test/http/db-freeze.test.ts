/**
 * A frozen PostgreSQL (the process stopped with its connections open: `kill -STOP`), modelled by a real
 * TCP proxy between the origins and the server at TEST_DATABASE_URL that holds every connection open
 * and forwards nothing. The origins open the store themselves from their configuration (DATABASE_URL
 * pointing at the proxy, DB_QUERY_TIMEOUT_MS), as `npm start` does.
 *
 * While frozen, data routes (the dated analysis read, optimize) and the readiness probes answer 503
 * SERVICE_UNAVAILABLE in the error shape within the deadline plus slack, also with more requests in
 * flight than the pool has connections (spec "Common to all three services": /health of analysis and
 * allocation 503 unavailable; spec "Allocation service": optimize 503 service unavailable). After the
 * thaw everything serves again without a restart, at the pool's full width, and nothing was half written.
 */
import pg from 'pg';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { ALL_MIGRATIONS } from '../../app/migrations.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { openPostgres } from '../../subgraphs/platform/db.js';
import { migrate } from '../../subgraphs/platform/migrations.js';
import { loadSyntheticMarket } from '../../subgraphs/analysis/market-data.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { createPostgresDatabase } from '../helpers/db.js';
import { expectErrorShape, request, type JsonResponse } from '../helpers/http.js';
import { proxyPostgres, type TcpProxy } from '../helpers/tcp-proxy.js';
import { eventually, scaled } from '../helpers/time.js';

/** DB_QUERY_TIMEOUT_MS of this suite (the default is 5000; smaller keeps the suite short). */
const DEADLINE_MS = 1500;
const HEALTH_TIMEOUT_MS = 1000;
/** More concurrent reads than the pool's 10 connections. */
const CONCURRENT_READS = 14;

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

onPostgres('a frozen PostgreSQL server: 503 within the deadline, recovery without a restart (needs TEST_DATABASE_URL)', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let proxy: TcpProxy;
  let platform: RunningPlatform;
  let admin: pg.Client;
  let latestDate: string;
  let analysisAuth: Record<string, string>;
  let allocationAuth: Record<string, string>;
  // A freeze ends by itself long after the deadline: without one, requests answer late (the test
  // fails on their timing) rather than never.
  let safety: NodeJS.Timeout | undefined;
  const freeze = () => {
    proxy.freeze();
    safety = setTimeout(() => proxy.thaw(), DEADLINE_MS + scaled(8000));
  };
  const thaw = () => {
    clearTimeout(safety);
    proxy.thaw();
  };

  beforeAll(async () => {
    database = await createPostgresDatabase();
    const direct = await openPostgres(database.url);
    try {
      await migrate(direct, ALL_MIGRATIONS);
      await loadSyntheticMarket(direct, { seed: 7, symbolCount: 12, years: 1, endDate: '2026-10-30', indexSymbol: 'TGMI' });
      latestDate = (await seedAnalysis(direct, { days: 2 })).latestDate;
    } finally {
      await direct.close();
    }
    const proxied = await proxyPostgres(database.url);
    proxy = proxied.proxy;
    const config = testConfig({
      DATABASE_URL: proxied.url,
      DB_QUERY_TIMEOUT_MS: String(DEADLINE_MS),
      DB_HEALTH_TIMEOUT_MS: String(HEALTH_TIMEOUT_MS),
      DEMO_DATA: 'false',
      ANALYZE_ON_START: 'false',
      LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent',
    });
    platform = await startPlatform(config, ['analysis', 'allocation']);
    const token = (audience: string) => mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience, subject: 'frozen-partner' });
    analysisAuth = { authorization: `Bearer ${await token(config.auth.audiences.analysis)}` };
    allocationAuth = { authorization: `Bearer ${await token(config.auth.audiences.allocation)}` };
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    if (proxy) thaw();
    await platform?.close();
    await admin?.end();
    await proxy?.close();
    await database?.drop();
  });

  // A dated read is never served from the latest-snapshot cache: it always needs the database.
  const datedRead = () => request(`${platform.urls.analysis}/api/v1/results/analysis/ACME?date=${latestDate}`, { headers: analysisAuth });
  const optimize = (key: string) =>
    request(`${platform.urls.allocation}/api/v1/portfolios/optimize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key, ...allocationAuth },
      body: JSON.stringify({ name: `book ${key}`, total_capital: 50000 }),
    });
  const health = (origin: 'analysis' | 'allocation') => request(`${platform.urls[origin]}/health`);

  async function timed(call: () => Promise<JsonResponse>): Promise<JsonResponse & { ms: number }> {
    const started = Date.now();
    const res = await call();
    return { ...res, ms: Date.now() - started };
  }

  it('data routes and /health answer 503 within DB_QUERY_TIMEOUT_MS while the server is frozen, and serve again after the thaw', async () => {
    expect((await datedRead()).status).toBe(200);
    expect((await optimize('before-freeze')).status).toBe(200);
    for (const origin of ['analysis', 'allocation'] as const) expect((await health(origin)).status).toBe(200);

    freeze();
    const answers = await Promise.all([
      ...Array.from({ length: CONCURRENT_READS }, () => timed(datedRead)),
      timed(() => optimize('during-freeze-1')),
      timed(() => optimize('during-freeze-2')),
    ]);
    const probes = await Promise.all([timed(() => health('analysis')), timed(() => health('allocation'))]);
    for (const res of answers) {
      expect(res.status).toBe(503);
      expectErrorShape(res.body, 'SERVICE_UNAVAILABLE');
      expect(res.text).not.toMatch(/127\.0\.0\.1|timeout exceeded|Query read timeout|stack/);
      expect(res.ms).toBeLessThan(DEADLINE_MS + scaled(3000));
    }
    for (const res of probes) {
      expect(res.status).toBe(503);
      expectErrorShape(res.body, 'SERVICE_UNAVAILABLE');
      expect(res.body.status).toBe('unavailable');
      expect(res.ms).toBeLessThan(HEALTH_TIMEOUT_MS + scaled(3000));
    }
    // Still frozen: the pool's connections were given up on; new requests still answer at the deadline.
    const later = await timed(datedRead);
    expect(later.status).toBe(503);
    expect(later.ms).toBeLessThan(DEADLINE_MS + scaled(3000));

    thaw();
    expect(await eventually(async () => (await health('analysis')).status === 200, 15_000, 200)).toBe(true);
    expect((await health('allocation')).status).toBe(200);
    // The pool serves at full width again: no connection is left stuck on the freeze.
    const after = await Promise.all(Array.from({ length: CONCURRENT_READS }, () => datedRead()));
    for (const res of after) expect(res.status).toBe(200);
    const retried = await optimize('during-freeze-1');
    expect(retried.status).toBe(200);
  });

  it('nothing is half written: every stored portfolio has its positions, one per idempotency key, and no transaction stays open', async () => {
    expect(await eventually(async () => (await admin.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'")).rowCount === 0, 15_000, 200)).toBe(true);
    const books = await admin.query<{ key: string | null; position_count: number; positions: number }>(
      `SELECT p.idempotency_key AS key, p.position_count,
              (SELECT count(*)::int FROM portfolio_holdings x WHERE x.portfolio_id = p.id) AS positions
         FROM portfolios p`,
    );
    for (const book of books.rows) expect(book.positions).toBe(book.position_count);
    const keys = books.rows.map((b) => b.key);
    expect(keys.filter((k) => k === 'before-freeze')).toHaveLength(1);
    expect(keys.filter((k) => k === 'during-freeze-1')).toHaveLength(1);
    expect(keys.filter((k) => k === 'during-freeze-2').length).toBeLessThanOrEqual(1);
  });
});
