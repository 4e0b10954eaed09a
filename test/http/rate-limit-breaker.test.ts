/**
 * The shared rate-limit store (Redis) behind its circuit breaker (platform/rate-limit): a Redis frozen
 * with SIGSTOP (connection open, no answers) costs a request at most the command timeout, only the
 * request that trips the breaker; meanwhile each process counts in its own memory, so budgets still
 * apply and the RateLimit headers describe that counter; after SIGCONT the budgets are shared again.
 * README "Rate limits"; DESIGN section 5 ("rate limits").
 *
 * The Redis frozen here is a redis-server of its own on a free port (never the machine's shared one),
 * started detached and killed by process group afterwards. Runs where Redis is available
 * (TEST_REDIS_URL, as in CI, and redis-server on the PATH).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { openCounters, REDIS_BREAKER_COOLDOWN_MS, REDIS_COMMAND_TIMEOUT_MS, type Counters } from '../../subgraphs/platform/rate-limit.js';
import type { Config } from '../../subgraphs/platform/config.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request, type JsonResponse } from '../helpers/http.js';
import { scaled } from '../helpers/time.js';

const run = randomBytes(4).toString('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A redis-server of this suite's own: started detached (its own process group), frozen and thawed by signal. */
class OwnRedis {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(): Promise<OwnRedis> {
    const port = await freePort();
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { detached: true, stdio: 'ignore' });
    const redis = new OwnRedis(child, `redis://127.0.0.1:${port}`);
    for (let i = 0; ; i++) {
      const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      try {
        await client.connect();
        await client.ping();
        return redis;
      } catch (err) {
        if (i > 100) {
          redis.kill();
          throw err;
        }
        await sleep(100);
      } finally {
        client.disconnect();
      }
    }
  }

  freeze(): void {
    process.kill(-(this.child.pid as number), 'SIGSTOP');
  }

  thaw(): void {
    process.kill(-(this.child.pid as number), 'SIGCONT');
  }

  kill(): void {
    try {
      process.kill(-(this.child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** Collects what the breaker logs. */
function collectingLog() {
  const lines: Array<{ level: 'warn' | 'info'; msg: string }> = [];
  return {
    lines,
    warn: (_obj: object, msg: string) => lines.push({ level: 'warn', msg }),
    info: (_obj: object, msg: string) => lines.push({ level: 'info', msg }),
  };
}

/** Waits (counting, which starts the half-open probe) until the breaker has closed again. */
async function untilShared(counters: Counters, key: string): Promise<void> {
  const deadline = Date.now() + scaled(REDIS_BREAKER_COOLDOWN_MS + 15_000);
  while (!counters.shared()) {
    if (Date.now() > deadline) throw new Error('the breaker did not close after Redis came back');
    await counters.count(key, 60_000);
    await sleep(100);
  }
}

(process.env.TEST_REDIS_URL ? describe : describe.skip)('a frozen Redis (SIGSTOP) behind the rate limiter [needs TEST_REDIS_URL and redis-server]', () => {
  let redis: OwnRedis;
  let store: TestDb;
  beforeAll(async () => {
    redis = await OwnRedis.start();
    store = await openTestDb('pglite');
  });
  afterAll(async () => {
    redis?.kill();
    await store?.drop();
  });

  it('the breaker: one timeout trips it (logged once), counts go to memory at once, a probe after the cool-down closes it (logged once)', async () => {
    const log = collectingLog();
    const counters = await openCounters(redis.url, log);
    try {
      const key = `unit-${run}`;
      expect(await counters.count(key, 60_000)).toMatchObject({ current: 1, store: 'redis' });
      expect(await counters.count(key, 60_000)).toMatchObject({ current: 2, store: 'redis' });
      redis.freeze();
      try {
        let t0 = performance.now();
        const tripping = await counters.count(key, 60_000);
        const trippingMs = performance.now() - t0;
        // It continues from the last count Redis gave this process.
        expect(tripping).toMatchObject({ current: 3, store: 'memory' });
        expect(trippingMs).toBeGreaterThanOrEqual(REDIS_COMMAND_TIMEOUT_MS - 5);
        t0 = performance.now();
        for (let i = 0; i < 20; i++) expect((await counters.count(key, 60_000)).store).toBe('memory');
        const restMs = performance.now() - t0;
        expect(await counters.count(key, 60_000)).toMatchObject({ current: 24, store: 'memory' });
        console.log(`breaker: the tripping count waited ${trippingMs.toFixed(1)} ms; the next 20 counts took ${restMs.toFixed(1)} ms together`);
        expect(restMs).toBeLessThan(20 * REDIS_COMMAND_TIMEOUT_MS); // none of them waited for the timeout
        // Still frozen after the cool-down: the probe fails, the breaker stays open, nothing more is logged.
        await sleep(REDIS_BREAKER_COOLDOWN_MS + 200);
        await counters.count(key, 60_000);
        await sleep(REDIS_COMMAND_TIMEOUT_MS * 4);
        expect(counters.shared()).toBe(false);
        expect(log.lines.map((l) => l.level)).toEqual(['warn']);
      } finally {
        redis.thaw();
      }
      await untilShared(counters, `unit-probe-${run}`);
      expect(log.lines.map((l) => l.level)).toEqual(['warn', 'info']);
      expect(log.lines[0].msg).toMatch(/unhealthy/);
      expect(log.lines[1].msg).toMatch(/recovered/);
      // Back on Redis: its count (the first two, and the one that timed out, which Redis ran once thawed).
      expect(await counters.count(key, 60_000)).toMatchObject({ current: 4, store: 'redis' });
    } finally {
      counters.close();
    }
  });

  describe('two analysis origins and a gateway sharing that Redis', () => {
    const MAX = 8;
    let config: Config;
    let a: RunningPlatform;
    let b: RunningPlatform;
    let shared: Redis;
    beforeAll(async () => {
      // Partners tight-* and shared-* get small budgets; everyone else a budget this test never reaches.
      config = testConfig({ DEMO_DATA: 'false', ANALYZE_ON_START: 'false', RATE_LIMIT_MAX: '100000', RATE_LIMIT_PARTNERS: `tight-${run}=${MAX},shared-${run}=${MAX}`, REDIS_URL: redis.url });
      a = await startPlatform(config, ['analysis', 'gateway'], { db: store.db });
      b = await startPlatform(config, ['analysis'], { db: store.db });
      shared = new Redis(redis.url);
    });
    afterAll(async () => {
      redis.thaw();
      shared?.disconnect();
      await a?.close();
      await b?.close();
    });
    const token = (sub: string) => mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: sub });
    const call = (url: string, auth?: string, query = '{ securities(first: 1) { totalCount } }'): Promise<JsonResponse> =>
      request(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
        body: JSON.stringify({ query }),
      });
    const timed = async (n: number, fn: () => Promise<JsonResponse>): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        expect((await fn()).status).toBe(200);
        out.push(performance.now() - t0);
      }
      return out;
    };

    it('frozen: a request costs at most the command timeout more (median under 150 ms), headers describe the in-memory counter, budgets apply; thawed: shared again', async () => {
      const gateway = a.urls.gateway as string;
      const analysisA = a.urls.analysis as string;
      const analysisB = b.urls.analysis as string;
      // Healthy: both instances count one partner together in Redis.
      const sharedToken = await token(`shared-${run}`);
      expect([(await call(analysisA, sharedToken)).headers.get('ratelimit-remaining'), (await call(analysisB, sharedToken)).headers.get('ratelimit-remaining')]).toEqual([`${MAX - 1}`, `${MAX - 2}`]);

      const baseline = { gateway: median(await timed(15, () => call(gateway))), analysis: median(await timed(15, () => call(analysisA))) };
      redis.freeze();
      try {
        const frozen = { gateway: median(await timed(15, () => call(gateway))), analysis: median(await timed(15, () => call(analysisA))) };
        const added = { gateway: frozen.gateway - baseline.gateway, analysis: frozen.analysis - baseline.analysis };
        console.log(
          `frozen Redis: median gateway query ${baseline.gateway.toFixed(1)} -> ${frozen.gateway.toFixed(1)} ms (added ${added.gateway.toFixed(1)} ms); ` +
            `median subgraph query ${baseline.analysis.toFixed(1)} -> ${frozen.analysis.toFixed(1)} ms (added ${added.analysis.toFixed(1)} ms)`,
        );
        // The machine is shared and loaded: a generous bound (only the request that trips a breaker waits ~50 ms).
        expect(added.gateway).toBeLessThan(150);
        expect(added.analysis).toBeLessThan(150);

        // Each instance now counts for itself: a partner's budget applies per instance (429 after MAX),
        // and each instance's headers count down its own counter.
        const tightA = await token(`tight-${run}`);
        const seenA: JsonResponse[] = [];
        for (let i = 0; i <= MAX; i++) seenA.push(await call(analysisA, tightA));
        expect(seenA.map((r) => r.status)).toEqual([...Array(MAX).fill(200), 429]);
        expect(seenA.map((r) => r.headers.get('ratelimit-remaining'))).toEqual([...Array.from({ length: MAX }, (_, i) => `${MAX - 1 - i}`), '0']);
        expect(seenA[MAX].headers.get('ratelimit-limit')).toBe(`${MAX}`);
        expect(Number(seenA[MAX].headers.get('retry-after'))).toBeGreaterThan(0);
        // Instance B has not seen those requests: its own counter starts afresh.
        const onB = await call(analysisB, tightA);
        expect(onB.status).toBe(200);
        expect(onB.headers.get('ratelimit-remaining')).toBe(`${MAX - 1}`);
        // The partner counted in Redis before the freeze continues from the count each instance last saw.
        // (A last saw count 1 from Redis; B's request, count 2, it never learnt of.)
        expect((await call(analysisA, sharedToken)).headers.get('ratelimit-remaining')).toBe(`${MAX - 2}`);
      } finally {
        redis.thaw();
      }

      // Thawed: after the cool-down a probe closes each breaker and the budget is shared again: a new
      // partner's requests on A then B count down one counter, which is in Redis.
      const deadline = Date.now() + scaled(REDIS_BREAKER_COOLDOWN_MS + 20_000);
      await sleep(REDIS_BREAKER_COOLDOWN_MS);
      for (let attempt = 0; ; attempt++) {
        // Any request on an instance whose breaker is open starts its probe after the cool-down.
        await call(analysisA);
        await call(analysisB);
        await sleep(200);
        const sub = `recovered-${run}-${attempt}`;
        const fresh = await token(sub);
        const seen = [(await call(analysisA, fresh)).headers.get('ratelimit-remaining'), (await call(analysisB, fresh)).headers.get('ratelimit-remaining')];
        if (seen[0] === '99999' && seen[1] === '99998') {
          expect(await shared.get(`tradegraph:analysis:partner:${sub}`)).toBe('2');
          break;
        }
        if (Date.now() > deadline) throw new Error(`the budgets were not shared again after Redis was thawed (last headers ${seen.join(', ')})`);
      }
    });
  });
});
