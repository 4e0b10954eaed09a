/**
 * The start-up steps themselves (migrations, the demo market and book, the start-up analysis, the sampled
 * history and its evidence), apart from the origins: the start-up child (cli/start-up-child.ts) loads only
 * this, a few hundred milliseconds, where cli/platform.ts with every origin and the gateway takes about
 * 1.6 s, and that load comes before the child can create the store. cli/platform.ts runs the same steps
 * in its own process (START_UP_CHILD=false, or a store with little to do).
 */
import { ALL_MIGRATIONS } from '../app/migrations.js';
import { ensureDemoMarket, type DemoLoadReport } from '../subgraphs/analysis/market-data.js';
import { missingRecentDates, runAnalysis, type AnalyzeSummary } from '../subgraphs/analysis/pipeline.js';
import { countSecurities, recentTradingDates, snapshotCoverage } from '../subgraphs/analysis/store.js';
import type { Config, Subgraph } from '../subgraphs/platform/config.js';
import { openDb, type Db } from '../subgraphs/platform/db.js';
import { migrate } from '../subgraphs/platform/migrations.js';
import { ensureDemoBook, type DemoBookReport } from './demo-book.js';
import { missingSampleDates, refreshEvidence, type EvidenceRefresh } from './evidence-history.js';
import type { SampledHistory, StartUpFollow, StartUpReport, StartUpTiming } from './start-up-fork.js';

/**
 * Migrations, the demo market on first start, the demo book when it is missing, the start-up analysis (the
 * recent days and the sampled history days still missing, in one run), then the evidence measured on the
 * history (each stops early when aborted), on `db`.
 */
export async function runStartUpSteps(config: Config, subgraphs: readonly Subgraph[], db: Db, options: StartUpFollow): Promise<StartUpReport> {
  let demo: DemoLoadReport | null = null;
  let demoBook: DemoBookReport | null = null;
  let analysis: AnalyzeSummary | null = null;
  let history: SampledHistory | null = null;
  let evidence: EvidenceRefresh | null = null;
  const timings: StartUpTiming[] = [];
  /** Runs a step and notes its time. */
  const timed = async <T>(step: StartUpTiming['step'], run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await run();
    } finally {
      timings.push({ step, ms: Math.round(performance.now() - started) });
    }
  };
  await timed('migrations', () => migrate(db, ALL_MIGRATIONS));
  if (config.demo.loadOnStart && subgraphs.includes('analysis')) {
    demo = await timed('demo market', () =>
      ensureDemoMarket(
        db,
        { seed: config.demo.seed, symbolCount: config.demo.symbolCount, years: config.demo.years, endDate: config.demo.endDate, indexSymbol: config.marketIndexSymbol },
        options.onDemoProgress,
      ),
    );
  }
  const aborted = () => options.signal?.aborted === true;
  if (config.demo.loadOnStart && subgraphs.includes('allocation') && !aborted()) {
    demoBook = await timed('demo book', () => ensureDemoBook(db, { exclude: [config.demo.symbol, config.marketIndexSymbol] }));
  }
  /** A step that aborting may cut short: its rejection then means "stopped", not a failure (null). */
  const unlessAborted = async <T>(step: () => Promise<T>): Promise<T | null> => {
    try {
      return await step();
    } catch (err) {
      if (aborted()) return null;
      throw err;
    }
  };
  const analyses = config.analysis.analyzeOnStart && subgraphs.includes('analysis');
  const run = { workers: config.analysis.workers, signal: options.signal };
  const sampling = analyses && config.analysis.historyEvery > 0;
  if (analyses && !aborted()) {
    // One run: the universe is loaded, prepared and trained once for both sets of days, and a first start
    // writes every snapshot into a table that was empty (store.ts snapshotWriter).
    analysis = await timed('analysis', async () => {
      const recent = await missingRecentDates(db, config.analysis.onStartDays);
      const sampled = sampling ? await missingSampleDates(db, config.analysis.historyEvery) : [];
      if (recent.length + sampled.length === 0) return null;
      const summary = await unlessAborted(() =>
        runAnalysis(db, config.marketIndexSymbol, { ...run, dates: [...recent, ...sampled], onProgress: options.onAnalysisProgress }),
      );
      if (summary && sampled.length > 0) {
        history = { every: config.analysis.historyEvery, dates: sampled.length, fromDate: sampled[0], toDate: sampled[sampled.length - 1] };
      }
      return summary;
    });
  }
  if (sampling && !aborted()) {
    evidence = await timed('evidence', () => refreshEvidence(db, options.signal, { workers: config.analysis.workers }));
  }
  return { demo, demoBook, analysis, history, evidence, timings };
}

/**
 * Whether a start-up step has bulk work to do on this store: no demo market yet, no snapshot of the
 * latest trading day, or sampled history days missing. Cheap reads (a count, one day's coverage, what the
 * start-up analysis reads anyway); the steps themselves decide what exactly to do. A store that cannot answer
 * (its tables not there yet) counts as having work.
 */
export async function bulkWorkPending(config: Config, subgraphs: readonly Subgraph[], db: Db): Promise<boolean> {
  try {
    if (config.demo.loadOnStart && subgraphs.includes('analysis') && (await countSecurities(db)) === 0) return true;
    if (!config.analysis.analyzeOnStart || !subgraphs.includes('analysis')) return false;
    const [latest] = await recentTradingDates(db, 1);
    if (latest !== undefined && ((await snapshotCoverage(db, [latest])).get(latest)?.snapshots ?? 0) === 0) return true;
    return config.analysis.historyEvery > 0 && (await missingSampleDates(db, config.analysis.historyEvery)).length > 0;
  } catch {
    return true;
  }
}

/**
 * The start-up steps on a store of their own, for the start-up child (cli/start-up-child.ts): opens the
 * configured store without the origins' deadline, runs the steps, checkpoints after writes (the disk the
 * write-ahead log took) and closes it.
 */
export async function runStartUpStepsAlone(config: Config, subgraphs: readonly Subgraph[], options: StartUpFollow): Promise<StartUpReport> {
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const steps = await runStartUpSteps(config, subgraphs, db, options);
    if (!options.signal?.aborted && (steps.demo || steps.analysis)) {
      const started = performance.now();
      await db.checkpoint?.();
      steps.timings.push({ step: 'store settled', ms: Math.round(performance.now() - started) });
    }
    return steps;
  } finally {
    await db.close();
  }
}
