/**
 * Durability of stored portfolios, with `npm start`'s built
 * dist/cli/start.js in a child process that is killed with SIGKILL (`kill -9`: no shutdown code runs):
 *
 * - a portfolio whose optimize answered 200 is there, byte for byte, after a kill right after the answer;
 * - a kill in the middle of concurrent optimizes leaves no half-written portfolio: every stored
 *   portfolio has exactly its positions, every answered one is stored, and retrying every request with
 *   its Idempotency-Key afterwards gives one portfolio per key (the committed ones replayed).
 *
 * On the embedded store on disk, and on PostgreSQL when TEST_DATABASE_URL is set (`npm run test:pg`, CI).
 */
import { openDb, type Db } from '../../subgraphs/platform/db.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { startOrigins, type Origins } from '../helpers/child.js';
import { durableStore } from '../helpers/durable.js';
import { BACKENDS } from '../helpers/db.js';
import { TEST_SECRET } from '../helpers/config.js';
import { request } from '../helpers/http.js';

const OPTIMIZE = '/api/v1/portfolios/optimize';
/** Crash rounds tried before giving up on catching requests in flight, and the optimizes each one sends at once. */
const MAX_CRASH_ROUNDS = 5;
const ROUND_REQUESTS = 24;

interface Started {
  child: Origins;
  allocation: string;
}

/** The analysis and allocation origins of dist/cli/start.js (test/helpers/child.ts: own process group, scaled deadlines). */
async function start(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = await startOrigins(['analysis', 'allocation'], env, 90_000);
  const allocation = child.urls.allocation;
  if (!allocation) throw new Error(`no allocation URL in:\n${child.output()}`);
  return { child, allocation };
}

async function kill9(s: Started): Promise<void> {
  await s.child.kill();
}

async function stop(s: Started): Promise<void> {
  s.child.signal('SIGINT');
  expect(await s.child.waitForExit()).toBe(0);
}

describe.each(BACKENDS)('stored portfolios survive kill -9 (%s)', (backend) => {
  const store = durableStore(backend, 'tg-durable-');
  let token: string;
  const running: Started[] = [];

  beforeAll(async () => {
    await store.open();
    token = await mintPartnerToken({ secret: TEST_SECRET, issuer: 'tradegraph-dev', audience: 'tradegraph-allocation', subject: 'durable-partner' });
  });
  afterAll(async () => {
    // The origins' group goes first: the database cannot be dropped while they hold it.
    await Promise.all(running.map((s) => s.child.kill()));
    await store.close();
  });

  const launch = async () => {
    const s = await start(store.env);
    running.push(s);
    return s;
  };
  const optimize = (url: string, name: string, key?: string) =>
    request(`${url}${OPTIMIZE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify({ name, total_capital: 50000, risk_settings: { max_positions: 5 } }),
    });

  /** The store read directly, once no origin holds it. */
  async function withStore<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    const db = await openDb({ databaseUrl: store.databaseUrl, dataDir: store.dataDir });
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }

  it('a portfolio answered 200 is stored, byte for byte, after kill -9 right after the answer', async () => {
    const first = await launch();
    const res = await optimize(first.allocation, 'Survivor');
    expect(res.status).toBe(200);
    await kill9(first);

    const again = await launch();
    const id = res.body.portfolio_id as string;
    const read = await request(`${again.allocation}/api/v1/portfolios/${id}/optimization`, { headers: { authorization: `Bearer ${token}` } });
    expect(read.status).toBe(200);
    expect(read.text).toBe(res.text);
    await stop(again);
    const positions = await withStore((db) => db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolio_holdings WHERE portfolio_id = $1::uuid', [id]));
    expect(positions[0].n).toBe((res.body.allocations as unknown[]).length);
  });

  it('kill -9 during concurrent optimizes leaves no half-written portfolio, and retries write each once', async () => {
    const requests: Array<{ name: string; key: string }> = [];
    const answered: Array<{ key: string; id: string; text: string }> = [];
    // A round fires 24 optimizes and pulls the trigger on the first answer. A fast server can answer all
    // 24 before the signal lands, which tests nothing about an interruption, so another round (with new
    // keys) runs until one had a request cut short (its connection died with the server); the answered
    // books of every round are checked below all the same.
    let interrupted = false;
    for (let round = 0; round < MAX_CRASH_ROUNDS && !interrupted; round++) {
      const batch = Array.from({ length: ROUND_REQUESTS }, (_, i) => ({ name: `Book ${round}-${i}`, key: `crash-${backend}-${round}-${i}` }));
      requests.push(...batch);
      const first = await launch();
      let cutShort = 0;
      let killed = false;
      await Promise.all(
        batch.map(async ({ name, key }) => {
          const res = await optimize(first.allocation, name, key).catch(() => null);
          if (res === null) cutShort++; // the connection died with the server
          else if (res.status === 200) answered.push({ key, id: res.body.portfolio_id as string, text: res.text });
          // The first answer pulls the trigger while the others are in flight.
          if (!killed) {
            killed = true;
            first.child.signal('SIGKILL');
          }
        }),
      );
      await first.child.waitForExit();
      interrupted = cutShort > 0;
    }
    expect(answered.length).toBeGreaterThan(0);
    expect(interrupted).toBe(true); // some round's kill did cut requests short

    const again = await launch();
    // Retrying every request with its key: a committed one is replayed as first answered, the rest are written now
    // (a round's worth at a time, as many as one round sent at once).
    const retried: Awaited<ReturnType<typeof optimize>>[] = [];
    for (let k = 0; k < requests.length; k += ROUND_REQUESTS) {
      retried.push(...(await Promise.all(requests.slice(k, k + ROUND_REQUESTS).map(({ name, key }) => optimize(again.allocation, name, key)))));
    }
    for (const res of retried) expect(res.status).toBe(200);
    for (const a of answered) {
      const retry = retried[requests.findIndex((r) => r.key === a.key)];
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.text).toBe(a.text);
    }
    await stop(again);

    await withStore(async (db) => {
      const books = await db.query<{ id: string; key: string; position_count: number; positions: number }>(
        `SELECT p.id::text AS id, p.idempotency_key AS key, p.position_count,
                (SELECT count(*)::int FROM portfolio_holdings x WHERE x.portfolio_id = p.id) AS positions
           FROM portfolios p WHERE p.idempotency_key LIKE $1`,
        [`crash-${backend}-%`],
      );
      // One portfolio per key, each with exactly its positions: nothing half-written, nothing twice.
      expect(books.map((b) => b.key).sort()).toEqual(requests.map((r) => r.key).sort());
      for (const b of books) expect(b.positions).toBe(b.position_count);
      for (const a of answered) expect(books.find((b) => b.key === a.key)?.id).toBe(a.id);
    });
  });
});
