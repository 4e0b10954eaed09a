/**
 * What the optimize and hunt benchmarks share: the synthetic universes they run on, the run settings
 * read from the environment, the figures they print, the per-statement timing of a store, and the
 * configuration of an origin under load.
 *
 * A universe is one PGlite store per size (a temporary data directory, every migration applied) holding
 * BENCH_YEARS (default 2) years of synthetic daily bars per symbol, with real pipeline snapshots on the
 * newest date only (runAnalysis, one worker thread per core). Building time is printed; it is not part
 * of any measured figure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadSyntheticMarket } from '../subgraphs/analysis/market-data.js';
import { defaultWorkers, runAnalysis } from '../subgraphs/analysis/pipeline.js';
import { ALL_MIGRATIONS } from '../app/migrations.js';
import { loadConfig, type Config } from '../subgraphs/platform/config.js';
import { openPglite, type Db, type Queryable } from '../subgraphs/platform/db.js';
import { migrate } from '../subgraphs/platform/migrations.js';

export const SIZES = (process.env.BENCH_SIZES ?? '500,5000').split(',').map((s) => Number(s.trim()));
export const YEARS = Number(process.env.BENCH_YEARS ?? 2);
export const CALLS = Number(process.env.BENCH_CALLS ?? 50);
const SEED = 20240614;
const END_DATE = '2026-10-30';
const INDEX_SYMBOL = 'TGMI';

// ---------------------------------------------------------------------------------------------------------
// Figures
// ---------------------------------------------------------------------------------------------------------

export const fmt = (ms: number, digits = 1) => (Number.isFinite(ms) ? ms.toFixed(digits) : 'n/a');
export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export interface Stats {
  p50: number;
  p95: number;
  max: number;
  mean: number;
}
export const stats = (xs: readonly number[]): Stats => ({ p50: percentile(xs, 0.5), p95: percentile(xs, 0.95), max: Math.max(...xs), mean: xs.reduce((s, x) => s + x, 0) / xs.length });
export const statsText = (s: Stats) => `p50 ${fmt(s.p50).padStart(6)}  p95 ${fmt(s.p95).padStart(6)}  max ${fmt(s.max).padStart(6)} ms`;

// ---------------------------------------------------------------------------------------------------------
// Where a call's time goes: the store, wrapped to time each statement by kind
// ---------------------------------------------------------------------------------------------------------

export interface TimedStatements<P extends string> {
  db: Db;
  /** Time per part since the last reset (the services run one call at a time here). */
  split: Record<P, number>;
  reset(): void;
}

export interface StatementParts<P extends string> {
  /** A split with every part at 0. */
  empty(): Record<P, number>;
  /** The part a statement's time goes to (by its text; `params` as given). */
  partOf(sql: string, params?: readonly unknown[]): P;
  /** The part a whole transaction's time goes to. */
  transaction: P;
}

/** The same store; each statement's time is added to its part, a whole transaction to `parts.transaction`. */
export function timeStatements<P extends string>(db: Db, parts: StatementParts<P>): TimedStatements<P> {
  const timed: TimedStatements<P> = {
    split: parts.empty(),
    reset() {
      timed.split = parts.empty();
    },
    db: {
      kind: db.kind,
      async query<T>(sql: string, params?: readonly unknown[]): Promise<T[]> {
        const part = parts.partOf(sql, params);
        const t0 = performance.now();
        try {
          return await db.query<T>(sql, params);
        } finally {
          timed.split[part] += performance.now() - t0;
        }
      },
      exec: (sql: string) => db.exec(sql),
      async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
        const t0 = performance.now();
        try {
          return await db.transaction(fn);
        } finally {
          timed.split[parts.transaction] += performance.now() - t0;
        }
      },
      ping: (timeoutMs: number) => db.ping(timeoutMs),
      close: () => db.close(),
    },
  };
  return timed;
}

// ---------------------------------------------------------------------------------------------------------
// Universes
// ---------------------------------------------------------------------------------------------------------

export interface Store {
  size: number;
  db: Db;
  dataDir: string;
  bars: number;
  analysisDate: string;
  snapshots: number;
  loadMs: number;
  analyzeMs: number;
}

/** One universe of `size` symbols; `bench` names its temporary data directory. */
export async function buildStore(size: number, bench: string): Promise<Store> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `tradegraph-bench-${bench}-${size}-`));
  const db = await openPglite(dataDir);
  await migrate(db, ALL_MIGRATIONS);
  const t0 = performance.now();
  const market = await loadSyntheticMarket(db, { seed: SEED, symbolCount: size, years: YEARS, endDate: END_DATE, indexSymbol: INDEX_SYMBOL });
  const t1 = performance.now();
  const summary = await runAnalysis(db, INDEX_SYMBOL, { workers: defaultWorkers() });
  const t2 = performance.now();
  console.log(
    `  ${int(size).padStart(5)} symbols: ${int(market.bars)} bars (${market.firstDate} .. ${market.lastDate}) generated and stored in ${seconds(t1 - t0)}; ` +
      `${int(summary.snapshots)} snapshots on ${summary.toDate} analysed and stored in ${seconds(t2 - t1)} ` +
      `(${summary.workers} workers: prepare ${seconds(summary.timings.prepareMs)}, train ${seconds(summary.timings.trainMs)}, documents ${seconds(summary.timings.analyzeMs)})`,
  );
  return { size, db, dataDir, bars: market.bars, analysisDate: summary.toDate, snapshots: summary.snapshots, loadMs: t1 - t0, analyzeMs: t2 - t1 };
}

/** How long the universes took to build, for the summary. */
export const buildTimes = (stores: readonly Store[]) =>
  stores.map((s) => `${int(s.size)} symbols ${seconds(s.loadMs + s.analyzeMs)} (bars ${seconds(s.loadMs)}, analysis ${seconds(s.analyzeMs)})`).join('; ');

/** Closes every store and removes its data directory. */
export async function dropStores(stores: readonly Store[]): Promise<void> {
  for (const s of stores) {
    await s.db.close();
    fs.rmSync(s.dataDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// An origin under load
// ---------------------------------------------------------------------------------------------------------

/** The load settings: BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_WARMUP_SECONDS, BENCH_ROUNDS. */
export function loadSettings() {
  return {
    seconds: Number(process.env.BENCH_SECONDS ?? 5),
    connections: Number(process.env.BENCH_CONNECTIONS ?? 16),
    warmupMs: Number(process.env.BENCH_WARMUP_SECONDS ?? 2) * 1000,
    rounds: Number(process.env.BENCH_ROUNDS ?? 2),
  };
}

/**
 * A development configuration for an origin under load, its DATA_DIR a new temporary directory (remove
 * it when done). The rate limiter stays on the measured path, with a budget above what the load sends.
 */
export function benchOriginConfig(bench: string): { config: Config; configDir: string } {
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), `tradegraph-bench-${bench}-config-`));
  const config = loadConfig({
    APP_ENV: 'development',
    DATA_DIR: configDir,
    AUTH_HS256_SECRET: 'bench-secret-0123456789abcdef-0123456789abcdef',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    RATE_LIMIT_MAX: '10000000',
    RATE_LIMIT_EXPENSIVE_MAX: '10000000',
  });
  return { config, configDir };
}
