/**
 * Starts any set of origins in this process on one store: opens the database, applies migrations,
 * loads the demo market on first start (and, with the allocation origin, the demo book: cli/demo-book.ts),
 * and listens; the start-up steps themselves are cli/start-up-steps.ts. `npm start` and the HTTP tests
 * both use it. With `startUpInChild` (npm start's default), start-up steps with bulk work to do run in a
 * child process of their own (cli/start-up-child.ts) that opens the store, runs them, closes it and exits
 * before this process opens it.
 */
import type { FastifyInstance } from 'fastify';
import { buildGatewayOrigin } from '../gateway/gateway.js';
import { ORIGIN_BUILDERS } from '../app/origins.js';
import { SUBGRAPHS, type Config, type Origin, type Subgraph } from '../subgraphs/platform/config.js';
import { isStorageFull, openDb, StorageFullError, type Db } from '../subgraphs/platform/db.js';
import { resolvePartnerAuth } from '../subgraphs/platform/dev-secret.js';
import { embeddedStoreIsNew, emptyStartUpReport, startUpStepsInChild, type StartUpFollow, type StartUpReport, type StartUpTiming } from './start-up-fork.js';
import { bulkWorkPending, runStartUpSteps } from './start-up-steps.js';

export interface StartOptions extends StartUpFollow {
  /** Use this store instead of opening the configured one (tests); it is not closed by close(). */
  db?: Db;
  /** Gateway only: a fixed supergraph SDL instead of the file (SUPERGRAPH_PATH or the committed one). */
  supergraphSdl?: string;
  /**
   * Start-up steps with bulk work to do (a store without the demo market, the recent analysis or the
   * sampled history) run in a child process of their own, which exits before the origins open the store:
   * the native memory the batch work leaves (worker threads' allocator arenas, PGlite's WebAssembly
   * memory, which only grows) goes with it. The config must be the environment's (the child loads it
   * again). Progress comes through the StartUpFollow callbacks; `signal` is forwarded. npm start: START_UP_CHILD.
   */
  startUpInChild?: boolean;
  /**
   * The start-up child, already forked by the caller (cli/start.ts forks it before loading this module
   * when the embedded store does not exist yet: start-up-fork.ts) for these origins' subgraphs, with the
   * StartUpFollow callbacks and `signal`: its report is awaited instead of forking one.
   */
  startUpChild?: Promise<StartUpReport>;
}

export interface RunningPlatform extends StartUpReport {
  urls: Partial<Record<Origin, string>>;
  apps: Partial<Record<Origin, FastifyInstance>>;
  db: Db | undefined;
  /** Stops accepting requests, drains in-flight ones, then closes the store (nothing is lost). */
  close(): Promise<void>;
}

export async function startPlatform(config: Config, origins: readonly Origin[], options: StartOptions = {}): Promise<RunningPlatform> {
  const subgraphs = SUBGRAPHS.filter((s) => origins.includes(s));
  const apps: RunningPlatform['apps'] = {};
  const urls: RunningPlatform['urls'] = {};
  let db: Db | undefined = options.db;
  const ownsDb = !options.db;
  let steps: StartUpReport = emptyStartUpReport();

  const close = async () => {
    // Gateway first (it calls the subgraphs), then the subgraphs, then the store.
    for (const origin of ['gateway', ...SUBGRAPHS] as const) await apps[origin]?.close();
    if (ownsDb) await db?.close();
  };

  try {
    if (subgraphs.length > 0) {
      const store = { databaseUrl: config.databaseUrl, dataDir: config.dataDir };
      // Requests wait at most DB_QUERY_TIMEOUT_MS for the store (then 503).
      const openOrigins = () => openDb({ ...store, queryTimeoutMs: config.dbQueryTimeoutMs });
      let inChild = ownsDb && options.startUpChild !== undefined;
      if (ownsDb && !inChild && options.startUpInChild && (config.databaseUrl || config.dataDir)) {
        // An embedded store not created yet has everything to do: it is created by the child alone.
        if (!embeddedStoreIsNew(config)) {
          db = await openOrigins();
          inChild = await bulkWorkPending(config, subgraphs, db);
          // Only one process may hold an embedded store: the child opens it once this one has closed it.
          if (inChild) await db.close();
        } else inChild = true;
      }
      if (inChild) {
        db = undefined;
        steps = await (options.startUpChild ?? startUpStepsInChild(config, subgraphs, options));
        if (options.signal?.aborted) return { urls, apps, db, ...steps, close };
        db = await openOrigins();
      } else {
        db ??= await openOrigins();
        const batchDb = ownsDb && config.databaseUrl ? () => openDb(store) : undefined;
        steps = await startUpSteps(config, subgraphs, db, batchDb, options);
        if (options.signal?.aborted) return { urls, apps, db, ...steps, close };
        if (ownsDb && (steps.demo || steps.analysis)) {
          // After the start-up writes, before the origins listen: a checkpoint gives back the disk the
          // write-ahead log took and, after bulk writes, the embedded store is closed and opened afresh.
          // PGlite's WebAssembly memory only grows: after loading the market and storing the analysis it
          // held hundreds of megabytes a running server never needs again. Nothing may keep the closed
          // instance (it would keep that memory): `db` is its only holder. An embedded store in memory (no
          // data directory) cannot be opened afresh: its data would go with it.
          const started = performance.now();
          await db.checkpoint?.();
          if (db.kind === 'pglite' && config.dataDir && wroteMuch(steps)) {
            await db.close();
            db = undefined;
            db = await openOrigins();
          }
          steps.timings.push({ step: 'store settled', ms: Math.round(performance.now() - started) });
        }
      }
      const deps = { config, partnerAuth: resolvePartnerAuth(config), db: db as Db };
      for (const subgraph of subgraphs) {
        const app = await ORIGIN_BUILDERS[subgraph](deps);
        apps[subgraph] = app;
        urls[subgraph] = await app.listen({ host: config.host, port: config.ports[subgraph] });
      }
    }
    if (origins.includes('gateway')) {
      // Subgraphs started in this process are reached where they actually listen (ports may be 0 or
      // differ from the supergraph's URLs); the others where SUBGRAPH_<NAME>_URL or the supergraph says.
      const local = Object.fromEntries(subgraphs.map((s: Subgraph) => [s, `${urls[s]}/graphql`]));
      const gatewayConfig = { ...config, gateway: { ...config.gateway, subgraphUrls: { ...config.gateway.subgraphUrls, ...local } } };
      const app = await buildGatewayOrigin(gatewayConfig, options.supergraphSdl);
      apps.gateway = app;
      urls.gateway = await app.listen({ host: config.host, port: config.ports.gateway });
    }
  } catch (err) {
    await close().catch(() => undefined);
    // A full disk is said in one line naming the store (the CLI exits with code 2).
    throw isStorageFull(err) && !(err instanceof StorageFullError) ? StorageFullError.of({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }) : err;
  }
  return { urls, apps, db, ...steps, close };
}

/** One line for the console: `Start-up steps: migrations 0.1 s, demo market 6.4 s, ...` (bench/store.ts reads it). */
export function formatStartUpTimings(timings: readonly StartUpTiming[]): string {
  return `Start-up steps: ${timings.map((t) => `${t.step} ${(t.ms / 1000).toFixed(1)} s`).join(', ')}`;
}

/**
 * Rows written by the start-up steps above which the embedded store is opened afresh before the origins
 * listen (see startPlatform). The default demo's first start writes about 450,000 (378,756 bars, 63,500
 * snapshots) and left PGlite holding hundreds of megabytes; a small store (the tests' 22 symbols, about
 * 7,000 rows) does not grow it enough to pay for the second of a reopen.
 */
const SETTLE_AFTER_ROWS = 50_000;

/** Whether the start-up steps wrote in bulk (the demo market or analysis runs, counted in rows). */
const wroteMuch = (steps: StartUpReport): boolean =>
  (steps.demo?.bars ?? 0) + (steps.analysis?.snapshots ?? 0) >= SETTLE_AFTER_ROWS;

/**
 * Migrations, the demo market on first start, the demo book when it is missing, the start-up analysis of
 * the recent days and the sampled history, then the evidence measured on it (each stops early when aborted).
 */
async function startUpSteps(
  config: Config,
  subgraphs: readonly Subgraph[],
  origins: Db,
  batchDb: (() => Promise<Db>) | undefined,
  options: StartOptions,
): Promise<StartUpReport> {
  // The start-up steps are batch work: on PostgreSQL they run on a pool of their own without the
  // origins' deadline (a migration or the analysis's load of every bar may take longer). PGlite's deadline
  // only bounds waiting for the connection, and nothing else uses it while the origins start.
  const db = batchDb ? await batchDb() : origins;
  try {
    return await runStartUpSteps(config, subgraphs, db, options);
  } finally {
    if (db !== origins) await db.close();
  }
}
