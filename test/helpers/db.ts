/**
 * A fresh store per test file. PGlite (in memory) always; PostgreSQL too when TEST_DATABASE_URL names
 * a server (.ci/run sets it): each file then gets its own new database, dropped afterwards.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ALL_MIGRATIONS } from '../../app/migrations.js';
import { openPglite, openPostgres, pgliteVersion, type Db, type Queryable } from '../../subgraphs/platform/db.js';
import { migrate } from '../../subgraphs/platform/migrations.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';

export type Backend = 'pglite' | 'postgres';

const PGLITE_VERSION = pgliteVersion();

/**
 * The stores a suite runs on: PGlite, and PostgreSQL when TEST_DATABASE_URL is set. TEST_BACKENDS=postgres
 * runs only the PostgreSQL half (CI's server pass, after npm test ran the PGlite half on the same clone).
 */
export const BACKENDS: Backend[] = !process.env.TEST_DATABASE_URL ? ['pglite'] : process.env.TEST_BACKENDS === 'postgres' ? ['postgres'] : ['pglite', 'postgres'];

export interface TestDb {
  db: Db;
  /** Connection URL of the PostgreSQL database (postgres backend only). */
  url?: string;
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `tg_test_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(process.env.TEST_DATABASE_URL as string);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined) };
}

/**
 * A new in-memory store's files (migrated or not), dumped once per machine into the temporary directory
 * and restored by every test store after: a store restored takes about 0.4 s where creating one takes
 * 1.3 s and migrating it more. Keyed by the engine's version, the migrations (version, name, SQL) and the
 * migration runner's source (its bookkeeping table), so any change to them makes a new dump. Test files
 * running side by side that both miss it both write it, each whole and then renamed into place; a dump
 * that cannot be restored is made again.
 */
async function pgliteTemplate(migrated: boolean): Promise<string> {
  const runner = fs.readFileSync(path.join(PROJECT_ROOT, 'subgraphs', 'platform', 'migrations.ts'), 'utf8');
  const key = createHash('sha256')
    .update(JSON.stringify([PGLITE_VERSION, migrated ? [runner, ALL_MIGRATIONS.map((m) => [m.version, m.name, m.sql])] : null]))
    .digest('hex')
    .slice(0, 16);
  const file = path.join(os.tmpdir(), `tradegraph-test-store-${key}.tar`);
  if (fs.existsSync(file)) return file;
  const db = await openPglite(undefined);
  const part = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    if (migrated) await migrate(db, ALL_MIGRATIONS);
    const dump = await (db.dumpDataDir as () => Promise<Blob>)();
    fs.writeFileSync(part, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(part, file);
  } finally {
    fs.rmSync(part, { force: true });
    await db.close();
  }
  return file;
}

/** An in-memory store restored from the template dump (made again, once, when it cannot be restored). */
async function restoredPglite(migrated: boolean): Promise<Db> {
  const file = await pgliteTemplate(migrated);
  try {
    return await openPglite(undefined, { restoreFrom: new Blob([fs.readFileSync(file)]) });
  } catch {
    fs.rmSync(file, { force: true });
    return openPglite(undefined, { restoreFrom: new Blob([fs.readFileSync(await pgliteTemplate(migrated))]) });
  }
}

export async function openTestDb(backend: Backend, options: { migrate?: boolean } = {}): Promise<TestDb> {
  let testDb: TestDb;
  if (backend === 'pglite') {
    const db = await restoredPglite(options.migrate !== false);
    testDb = { db, drop: () => db.close() };
  } else {
    const database = await createPostgresDatabase();
    const db = await openPostgres(database.url);
    testDb = {
      db,
      url: database.url,
      drop: async () => {
        await db.close();
        await database.drop();
      },
    };
  }
  if (options.migrate !== false) await migrate(testDb.db, ALL_MIGRATIONS);
  return testDb;
}

/** A store that records the statements (outside transactions) whose parameters name the watched id. */
export interface RecordingDb {
  db: Db;
  /** Starts recording the statements that name `id`, forgetting what was recorded. */
  watch(id: string): void;
  /** The statements recorded since the last watch or take, normalised to single spaces. */
  take(): string[];
}

/** Wraps a store so a test can see which statements a call sent for one id (how many, which kind). */
export function recordingDb(db: Db): RecordingDb {
  let watched: string | null = null;
  let seen: string[] = [];
  const wrapped: Db = {
    kind: db.kind,
    query: <T>(sql: string, params?: readonly unknown[]) => {
      if (watched !== null && params?.includes(watched)) seen.push(sql.replace(/\s+/g, ' ').trim());
      return db.query<T>(sql, params);
    },
    exec: (sql: string) => db.exec(sql),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction(fn),
    ping: (timeoutMs: number) => db.ping(timeoutMs),
    close: () => db.close(),
  };
  return {
    db: wrapped,
    watch: (id) => {
      watched = id;
      seen = [];
    },
    take: () => {
      const taken = seen;
      seen = [];
      return taken;
    },
  };
}
