/**
 * The store of a kill -9 test (test/e2e/*durability*): a data directory of its own and, on the
 * 'postgres' backend, a PostgreSQL database of its own; the environment the origins of dist/cli/start.js
 * run with there (small demo market, start-up analysis of one day, no worker threads, the test secret,
 * rate limits out of the way); and the cleanup, once every child that uses it has been killed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { originEnv } from './child.js';
import { TEST_SECRET } from './config.js';
import { createPostgresDatabase, type Backend } from './db.js';

export interface DurableStore {
  dataDir: string;
  /** The PostgreSQL database's URL (postgres backend, once open). */
  databaseUrl?: string;
  /** The origins' environment (set by `open`). */
  env: NodeJS.ProcessEnv;
  open(): Promise<void>;
  /** Kill the children first: a database cannot be dropped while they hold it. */
  close(): Promise<void>;
}

export function durableStore(backend: Backend, prefix: string): DurableStore {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  let dropDatabase: (() => Promise<void>) | undefined;
  const store: DurableStore = {
    dataDir,
    env: {},
    async open() {
      if (backend === 'postgres') {
        const database = await createPostgresDatabase();
        store.databaseUrl = database.url;
        dropDatabase = database.drop;
      }
      const databaseUrl = store.databaseUrl;
      store.env = originEnv({
        DATA_DIR: dataDir,
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        ANALYZE_ON_START_DAYS: '1',
        ANALYZE_WORKERS: '0',
        AUTH_HS256_SECRET: TEST_SECRET,
        RATE_LIMIT_MAX: '1000000',
        RATE_LIMIT_EXPENSIVE_MAX: '1000000',
      });
    },
    async close() {
      await dropDatabase?.();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return store;
}
