/**
 * The store's deadline (DB_QUERY_TIMEOUT_MS; platform/db.ts, module comment), at the Db level:
 *
 * - PGlite (one connection in this process): a call waiting for its turn gives up after the deadline
 *   with 503 SERVICE_UNAVAILABLE and never runs afterwards; a statement already running is not
 *   interrupted.
 * - PostgreSQL (TEST_DATABASE_URL) behind a real TCP proxy that freezes the server (connections open,
 *   nothing answered, as with `kill -STOP`): calls give up within the deadline, a transaction caught by
 *   the freeze is not committed and is rolled back by the server, the timed-out connections are not
 *   reused, and once the server runs again the pool serves at full width without a restart. A slow
 *   statement on a live server is cancelled by the server at the deadline.
 *
 * Bounds are the deadline plus generous slack scaled to the machine's load (test/helpers/time.ts);
 * what is asserted is "gives up at the deadline", never "is fast".
 */
import pg from 'pg';
import { AppError } from '../../subgraphs/platform/errors.js';
import { openPglite, openPostgres, type Db } from '../../subgraphs/platform/db.js';
import { createPostgresDatabase } from '../helpers/db.js';
import { proxyPostgres, type TcpProxy } from '../helpers/tcp-proxy.js';
import { eventually, scaled } from '../helpers/time.js';

/** Resolves with how long `call` took to settle and how (the value or the error). */
async function timed<T>(call: () => Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = Date.now();
  try {
    const value = await call();
    return { ms: Date.now() - started, value };
  } catch (error) {
    return { ms: Date.now() - started, error };
  }
}

function expectUnavailable(error: unknown): void {
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('SERVICE_UNAVAILABLE');
  expect((error as AppError).status).toBe(503);
}

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('PGlite deadline: waiting for the single connection', () => {
  const DEADLINE_MS = 400;
  let db: Db;
  beforeAll(async () => {
    db = await openPglite(undefined, { queryTimeoutMs: DEADLINE_MS });
    await db.exec('CREATE TABLE notes (body text PRIMARY KEY)');
  });
  afterAll(async () => db?.close());

  it('a call behind a transaction that holds the connection gives up after the deadline with 503, and never runs later', async () => {
    const hold = gate();
    // Without a deadline the calls below would wait for the holder: it lets go late, not never.
    const safety = setTimeout(hold.open, DEADLINE_MS + scaled(3000));
    const holder = db.transaction(async (tx) => {
      await tx.query("INSERT INTO notes VALUES ('holder')");
      await hold.opened;
    });
    const write = await timed(() => db.query("INSERT INTO notes VALUES ('late write')"));
    const read = await timed(() => db.query('SELECT count(*)::int AS n FROM notes'));
    const tx = await timed(() => db.transaction((t) => t.query("INSERT INTO notes VALUES ('late transaction')")));
    const ping = await timed(() => db.ping(DEADLINE_MS));
    for (const call of [write, read, tx, ping]) {
      expectUnavailable(call.error);
      expect(call.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
      expect(call.ms).toBeLessThan(DEADLINE_MS + scaled(1500));
    }
    clearTimeout(safety);
    hold.open();
    await holder;
    // The calls that gave up never ran once the connection was free.
    expect(await db.query<{ body: string }>('SELECT body FROM notes ORDER BY body')).toEqual([{ body: 'holder' }]);
    await db.ping(DEADLINE_MS);
  });

  it('a statement that has started is not interrupted (it runs in this thread); the call queued behind it gives up', async () => {
    const running = timed(() => db.query<{ done: number }>('SELECT 1 AS done FROM pg_sleep(1)'));
    const queued = timed(() => db.query("INSERT INTO notes VALUES ('behind the sleep')"));
    const [first, second] = await Promise.all([running, queued]);
    expect(first.value).toEqual([{ done: 1 }]);
    expect(first.ms).toBeGreaterThanOrEqual(1000);
    expectUnavailable(second.error);
    expect(await db.query("SELECT 1 FROM notes WHERE body = 'behind the sleep'")).toEqual([]);
  });
});

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;
if (!process.env.TEST_DATABASE_URL) {
  console.info('db-deadline.test.ts: the PostgreSQL freeze tests are skipped: set TEST_DATABASE_URL (npm run test:pg, CI)');
}

onPostgres('PostgreSQL deadline with the server frozen behind a TCP proxy (TEST_DATABASE_URL)', () => {
  const DEADLINE_MS = 1000;
  const POOL_SIZE = 3;
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let proxy: TcpProxy;
  let db: Db;
  /** Straight to the server, not through the proxy. */
  let admin: pg.Client;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    const proxied = await proxyPostgres(database.url);
    proxy = proxied.proxy;
    db = await openPostgres(proxied.url, { queryTimeoutMs: DEADLINE_MS, poolSize: POOL_SIZE, onError: () => undefined });
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query('CREATE TABLE notes (body text PRIMARY KEY)');
  });
  // A freeze ends by itself well after the deadline, so that a store without one fails the test
  // (its calls answer late) instead of hanging it.
  let safety: NodeJS.Timeout | undefined;
  const freeze = () => {
    proxy.freeze();
    safety = setTimeout(() => proxy.thaw(), DEADLINE_MS + scaled(6000));
  };
  const thaw = () => {
    clearTimeout(safety);
    proxy.thaw();
  };
  afterEach(() => proxy && thaw());
  afterAll(async () => {
    await db?.close();
    await admin?.end();
    await proxy?.close();
    await database?.drop();
  });

  /** Backends of the test database other than the admin connection, by state. */
  const backends = async () =>
    (
      await admin.query<{ state: string | null }>('SELECT state FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')
    ).rows.map((r) => r.state);

  it('calls give up within the deadline while the server is frozen, more of them than the pool holds, and the pool serves again after', async () => {
    // Every connection of the pool open and idle before the freeze.
    await Promise.all(Array.from({ length: POOL_SIZE }, () => db.query('SELECT pg_sleep(0.05)')));
    freeze();
    const calls = await Promise.all([
      ...Array.from({ length: POOL_SIZE * 2 }, () => timed(() => db.query('SELECT count(*) FROM notes'))),
      timed(() => db.exec("INSERT INTO notes VALUES ('frozen exec')")),
      timed(() => db.transaction((tx) => tx.query("INSERT INTO notes VALUES ('frozen transaction')"))),
      timed(() => db.ping(DEADLINE_MS)),
    ]);
    for (const call of calls) {
      expectUnavailable(call.error);
      expect(call.ms).toBeLessThan(DEADLINE_MS + scaled(2000));
    }
    // Still frozen: new connections cannot be made either, and the answer still comes at the deadline.
    const again = await timed(() => db.query('SELECT 1'));
    expectUnavailable(again.error);
    expect(again.ms).toBeLessThan(DEADLINE_MS + scaled(2000));

    thaw();
    expect(await eventually(async () => (await timed(() => db.query('SELECT 1'))).error === undefined, 10_000)).toBe(true);
    // The full width of the pool, several times over: no connection is stuck on the freeze.
    const after = await Promise.all(Array.from({ length: POOL_SIZE * 4 }, () => timed(() => db.query<{ n: number }>('SELECT count(*)::int AS n FROM notes'))));
    for (const call of after) expect(call.error).toBeUndefined();
    // The transaction given up on reached the server only after the thaw, on a connection already
    // closed: the server rolled it back.
    const bodies = (await admin.query<{ body: string }>('SELECT body FROM notes')).rows.map((r) => r.body);
    expect(bodies).not.toContain('frozen transaction');
    expect(await eventually(async () => (await backends()).length <= POOL_SIZE, 10_000)).toBe(true);
  });

  it('a transaction caught by the freeze ends at the deadline, commits nothing, and the server rolls it back', async () => {
    const write = await timed(() =>
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO notes VALUES ('first of two')");
        freeze();
        await tx.query("INSERT INTO notes VALUES ('second of two')");
      }),
    );
    expectUnavailable(write.error);
    expect(write.ms).toBeLessThan(DEADLINE_MS + scaled(2000));
    // While frozen, the server still holds the transaction open (it has not seen the client leave).
    thaw();
    expect(await eventually(async () => !(await backends()).includes('idle in transaction'), 10_000)).toBe(true);
    const rows = await admin.query("SELECT body FROM notes WHERE body IN ('first of two', 'second of two')");
    expect(rows.rows).toEqual([]);
    await db.transaction((tx) => tx.query("INSERT INTO notes VALUES ('after the freeze')"));
    expect((await admin.query("SELECT 1 FROM notes WHERE body = 'after the freeze'")).rowCount).toBe(1);
  });

  it('a slow statement on a server that answers is cancelled at the deadline (statement_timeout), 503', async () => {
    const slow = await timed(() => db.query('SELECT pg_sleep(30)'));
    expectUnavailable(slow.error);
    expect(slow.ms).toBeLessThan(DEADLINE_MS + scaled(2000));
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
