/**
 * Storage: one interface that speaks SQL to the embedded PGlite store (default, data on disk under
 * DATA_DIR) or to a PostgreSQL server (DATABASE_URL). Same SQL, same migrations, same results: dates
 * come back as 'YYYY-MM-DD' strings, bigint and numeric as numbers, timestamptz as ISO 8601 strings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { AppError } from './errors.js';

export type Row = Record<string, unknown>;

export interface Queryable {
  /** Runs one statement with $1..$n parameters and returns its rows. */
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in a transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Resolves when the database answers within timeoutMs; rejects otherwise. */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082, TIMESTAMPTZ: 1184, TIMESTAMP: 1114 } as const;
/**
 * PostgreSQL's text form of a timestamp ('2024-01-02 08:34:05.678+05:30', '... -03', or no zone
 * for `timestamp`) as an ISO 8601 instant; 'infinity' and other non-instants stay as they are.
 */
export function toIso(text: string): string {
  const zone = /([+-]\d\d)(?::?(\d\d))?(?::?\d\d)?$/.exec(text);
  const local = zone ? text.slice(0, zone.index) : text;
  const offset = zone ? `${zone[1]}:${zone[2] ?? '00'}` : 'Z';
  const date = new Date(`${local.replace(' ', 'T')}${offset}`);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

const textParsers: Record<number, (text: string) => unknown> = {
  [OID.INT8]: (t) => Number(t),
  [OID.NUMERIC]: (t) => Number(t),
  [OID.DATE]: (t) => t,
  [OID.TIMESTAMPTZ]: toIso,
  [OID.TIMESTAMP]: toIso,
};

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Takes the data directory for this process (a lock file holding our pid). PGlite is one process's
 * database: a second process on the same directory would corrupt it, so it is refused with advice.
 */
function lockDataDir(dataDir: string): () => void {
  const lock = path.join(dataDir, 'tradegraph.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(fs.readFileSync(lock, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
        throw new Error(
          `The data directory ${dataDir} is in use by process ${pid}. Start the origins in one process ` +
            '(npm start), or give each its own DATA_DIR, or point them all at PostgreSQL with DATABASE_URL.',
        );
      }
      fs.rmSync(lock, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Cannot lock the data directory ${dataDir}`);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Embedded PostgreSQL (WASM) on disk under dataDir (or in memory when dataDir is undefined). */
export async function openPglite(dataDir: string | undefined): Promise<Db> {
  let unlock = () => {};
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true });
    unlock = lockDataDir(dataDir);
  }
  const parsers = Object.fromEntries(Object.entries(textParsers).map(([oid, fn]) => [Number(oid), fn]));
  let lite: PGlite;
  try {
    lite = await PGlite.create(dataDir ? { dataDir: path.join(dataDir, 'pglite'), parsers } : { parsers });
    // An embedded store keeps little write-ahead log: PostgreSQL's default (up to 1 GB of recycled
    // segments) would more than double the disk a demo store takes after one analysis run.
    if (dataDir) {
      await lite.exec("ALTER SYSTEM SET max_wal_size = '64MB'");
      await lite.exec("ALTER SYSTEM SET min_wal_size = '32MB'");
      await lite.exec('SELECT pg_reload_conf()');
    }
  } catch (err) {
    unlock();
    throw err;
  }
  const wrap = (q: { query: PGlite['query']; exec: PGlite['exec'] }): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const res = await q.query<T>(sql, params as unknown[]);
      return res.rows;
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  });
  const base = wrap(lite);
  let closed = false;
  return {
    kind: 'pglite',
    query: base.query,
    exec: base.exec,
    transaction: (fn) => lite.transaction((tx) => fn(wrap(tx))),
    async ping(timeoutMs) {
      if (closed) throw new Error('database closed');
      await withTimeout(lite.query('SELECT 1'), timeoutMs, 'ping');
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await lite.close();
      } finally {
        unlock();
      }
    },
  };
}

/** A PostgreSQL server through a connection pool; reconnects by itself when the server comes back. */
export async function openPostgres(
  url: string,
  options: { poolSize?: number; connectTimeoutMs?: number; onError?: (err: Error) => void } = {},
): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        textParsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on('error', (err) => options.onError?.(err));
  const queryable = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const res = await client.query(sql, params as unknown[]);
      return res.rows as T[];
    },
    async exec(sql: string) {
      await client.query(sql); // no parameters: the simple protocol runs every statement
    },
  });
  const base = queryable(pool);
  return {
    kind: 'postgres',
    query: base.query,
    async transaction(fn) {
      const client = await pool.connect();
      // The handle refuses work once the transaction has ended: a statement issued late (a forgotten
      // promise) must fail rather than run in autocommit on a client already back in the pool.
      let open = true;
      const inner = queryable(client);
      const ended = () => Promise.reject(new Error('transaction already ended'));
      const tx: Queryable = {
        query: <T>(sql: string, params?: readonly unknown[]) => (open ? inner.query<T>(sql, params) : ended()),
        exec: (sql: string) => (open ? inner.exec(sql) : ended()),
      };
      try {
        await client.query('BEGIN');
        const result = await fn(tx);
        open = false;
        await client.query('COMMIT');
        return result;
      } catch (err) {
        open = false;
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        open = false;
        client.release();
      }
    },
    exec: base.exec,
    async ping(timeoutMs) {
      await withTimeout(pool.query('SELECT 1'), timeoutMs, 'ping');
    },
    async close() {
      await pool.end();
    },
  };
}

/** Opens the configured store: PostgreSQL when databaseUrl is set, otherwise PGlite under dataDir. */
export async function openDb(options: { databaseUrl?: string; dataDir?: string; onError?: (err: Error) => void }): Promise<Db> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, { onError: options.onError });
  return openPglite(options.dataDir);
}

/** Maps a driver failure (server gone, pool timeout) to 503; anything else stays as it is. */
export function isConnectionError(err: unknown): boolean {
  // Duck-typed, not `instanceof Error`: socket errors are created by Node's own realm, which is not
  // always the realm of this module (a VM context, a test runner's sandbox).
  if (typeof err !== 'object' || err === null) return false;
  const { code = '', message = '' } = err as { code?: unknown; message?: unknown };
  return (
    (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08006', '08001', '08003'].includes(code)) ||
    (typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect|database closed|PGlite is closed|Client has encountered a connection error/i.test(message))
  );
}

export function unavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; try again shortly');
}

/** A store that refuses every call: for printing schemas where no database is needed. */
export function offlineDb(): Db {
  const refuse = async (): Promise<never> => {
    throw new Error('offline: no database in this context');
  };
  return { kind: 'postgres', query: refuse, transaction: refuse, exec: refuse, ping: refuse, close: async () => undefined };
}
