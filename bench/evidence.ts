/**
 * History and evaluation on real data, end to end, the way an operator runs them:
 *
 *   1. import: `tradegraph import securities` and `import bars` of ../shared/market-data (MARKET_DATA_DIR
 *      to point elsewhere; skipped with a message, exit 0, when the folder is absent);
 *   2. analyze: `tradegraph analyze --every week --from <last bar date - BENCH_YEARS years>` (default 8);
 *   3. evaluate: runEvaluation, what `tradegraph evaluate` calls, with its default horizons and seed;
 *   4. the monthly evidence tables and Kelly odds that reads and KELLY_CRITERION use (refreshEvidence, the
 *      step `tradegraph evaluate` ends with), and their out-of-sample calibration as of the last bar.
 *
 * Everything happens in a scratch DATA_DIR (PGlite) under the OS temp dir, deleted at the end even on
 * failure; DATABASE_URL is ignored, ANALYZE_WORKERS is honoured as by the CLI. Printed: each step's wall
 * time, CPU time and the process's peak RSS so far (worker threads included), the machine's cores and
 * load averages before and after, and the headline sections of the evaluation report (stage table,
 * contrasts, rank IC, ML AUC, the per-symbol and cross-sectional ML formulations side by side with the one
 * kept, pattern targets against the placebo). Nothing is asserted: the figures are printed.
 *
 *   npm run bench:evidence
 *   MARKET_DATA_DIR=/data/market BENCH_YEARS=5 npm run bench:evidence
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { main as cli } from '../cli/tradegraph.js';
import { refreshEvidence } from '../cli/evidence-history.js';
import { candidateOddsFor } from '../subgraphs/allocation/kelly-odds-store.js';
import { runEvaluation, type EvidenceRunResult } from '../subgraphs/analysis/evidence-run.js';
import { evidenceTableFor } from '../subgraphs/analysis/evidence-states.js';
import { recentTradingDates } from '../subgraphs/analysis/store.js';
import { ALL_MIGRATIONS } from '../app/migrations.js';
import { loadConfig, type Config } from '../subgraphs/platform/config.js';
import { openDb, type Db } from '../subgraphs/platform/db.js';
import { migrate } from '../subgraphs/platform/migrations.js';
import { PROJECT_ROOT } from '../subgraphs/platform/project.js';

const MARKET_DATA = path.resolve(PROJECT_ROOT, process.env.MARKET_DATA_DIR ?? '../shared/market-data');
const SECURITIES = path.join(MARKET_DATA, 'securities.csv');
const BARS = path.join(MARKET_DATA, 'us-equities-daily.csv.gz');
const YEARS = Number(process.env.BENCH_YEARS ?? 8);

interface StepTiming {
  step: string;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
}

const mb = (bytes: number): number => Math.round(bytes / (1024 * 1024));
const loads = (): string => os.loadavg().map((l) => l.toFixed(2)).join(' / ');

/** Runs `work`, timing it (wall and CPU of the whole process) and reading the peak RSS after it. */
async function step<T>(name: string, work: () => Promise<T>, timings: StepTiming[]): Promise<T> {
  console.log(`\n== ${name}`);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await work();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  // resourceUsage().maxRSS is in kilobytes.
  timings.push({ step: name, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, peakRssMb: mb(process.resourceUsage().maxRSS * 1024) });
  return result;
}

/** A CLI command, as `tradegraph <argv>` runs it; a non-zero exit code fails the benchmark. */
async function command(argv: string[], config: Config): Promise<void> {
  const code = await cli(argv, config);
  if (code !== 0) throw new Error(`tradegraph ${argv.join(' ')} exited with ${code}`);
}

/** The store, opened and migrated as the CLI's commands open it. */
async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb({ databaseUrl: undefined, dataDir: config.dataDir });
  try {
    await migrate(db, ALL_MIGRATIONS);
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** The calendar date `years` years before `date` (YYYY-MM-DD). */
function yearsBefore(date: string, years: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y - years, m - 1, d)).toISOString().slice(0, 10);
}

/** Headings whose sections are the evaluation's headline figures. */
const HEADLINES = [/^## \d+-day forward/, /^#### Stage$/, /^### Contrasts/, /^### Rank IC/, /^### ML probability/, /^### ML formulations/, /^## Pattern targets/];

/** The headline sections of the rendered report: each kept heading with its text up to the next heading. */
function headlineSections(report: string): string {
  const kept: string[] = [];
  let keeping = false;
  for (const line of report.split('\n')) {
    if (line.startsWith('#')) keeping = HEADLINES.some((h) => h.test(line));
    if (keeping) kept.push(line);
  }
  return kept.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

function printTimings(timings: readonly StepTiming[]): void {
  console.log('\n== timings');
  console.log(`${'step'.padEnd(10)} ${'wall'.padStart(9)} ${'cpu'.padStart(9)} ${'cpu/wall'.padStart(9)} ${'peak RSS'.padStart(10)}`);
  for (const t of timings) {
    console.log(
      `${t.step.padEnd(10)} ${`${(t.wallMs / 1000).toFixed(1)} s`.padStart(9)} ${`${(t.cpuMs / 1000).toFixed(1)} s`.padStart(9)} ` +
        `${(t.cpuMs / t.wallMs).toFixed(2).padStart(9)} ${`${t.peakRssMb} MB`.padStart(10)}`,
    );
  }
  const total = timings.reduce((s, t) => s + t.wallMs, 0);
  console.log(`${'total'.padEnd(10)} ${`${(total / 1000).toFixed(1)} s`.padStart(9)}`);
}

async function run(): Promise<void> {
  if (!fs.existsSync(SECURITIES) || !fs.existsSync(BARS)) {
    console.log(`bench:evidence skipped: no real market data at ${MARKET_DATA} (needs securities.csv and us-equities-daily.csv.gz; MARKET_DATA_DIR points elsewhere).`);
    return;
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-evidence-'));
  try {
    // Only what the benchmark sets: no DATABASE_URL or other settings from the environment.
    const config = loadConfig({ APP_ENV: 'development', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ANALYZE_WORKERS: process.env.ANALYZE_WORKERS });
    console.log(`history and evaluation benchmark: ${MARKET_DATA}, last ${YEARS} years, weekly snapshots`);
    console.log(`machine: ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${mb(os.totalmem())} MB memory, ${config.analysis.workers} analysis worker(s)`);
    console.log(`load average (1 / 5 / 15 min) before: ${loads()}`);
    const timings: StepTiming[] = [];

    await step('import', async () => {
      await command(['import', 'securities', SECURITIES], config);
      await command(['import', 'bars', BARS], config);
    }, timings);
    const [last] = await withDb(config, (db) => recentTradingDates(db, 1));
    if (last === undefined) throw new Error('the import stored no bars');
    const from = yearsBefore(last, YEARS);
    await step('analyze', () => command(['analyze', '--every', 'week', '--from', from], config), timings);
    const result = await step('evaluate', () => withDb(config, (db) => runEvaluation(db, {})), timings);
    const refreshed = await step('evidence tables + Kelly odds', () => withDb(config, (db) => refreshEvidence(db)), timings);

    printEvaluation(result);
    console.log(`\nEvidence tables: ${refreshed.tables} monthly tables, ${refreshed.odds} Kelly odds tables.`);
    await withDb(config, (db) => printCalibration(db, last));
    printTimings(timings);
    console.log(`load average (1 / 5 / 15 min) after: ${loads()}`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The out-of-sample calibration of the latest as-of tables: every probability the reads show, and Kelly's p. */
async function printCalibration(db: Db, date: string): Promise<void> {
  const table = await evidenceTableFor(db, date);
  const odds = await candidateOddsFor(db, date);
  console.log(`\n## Calibration (walk-forward, as of ${table?.as_of ?? 'none'})\n`);
  console.log('| probability | outcomes | Brier | ECE |\n|---|---|---|---|');
  const fmt = (x: number | undefined) => (x === undefined ? 'n too small' : x.toFixed(4));
  if (table !== null) {
    const p = table.probabilities;
    const rows = [
      ...(['BUY', 'SELL', 'HOLD'] as const).map((signal) => [`confidence (${signal})`, p.confidence[signal]] as const),
      ['ml_signal.probability_up', p.ml_probability_up] as const,
      ['pattern target before stop', p.pattern_target] as const,
    ];
    for (const [name, c] of rows) console.log(`| ${name} | ${c.metrics?.n ?? 0} | ${fmt(c.metrics?.brier)} | ${fmt(c.metrics?.ece)} |`);
  }
  const m = odds?.metrics ?? null;
  if (m !== null) console.log(`| Kelly p (target before stop), no-edge Brier ${m.brier_no_edge.toFixed(4)} | ${m.n} | ${m.brier.toFixed(4)} | ${m.ece.toFixed(4)} |`);
  const pooled = odds?.pooled ?? null;
  if (pooled !== null) {
    console.log(`\nKelly odds as of ${odds?.as_of}: ${pooled.n} trades (${pooled.windows.toFixed(0)} non-overlapping), target before stop ${(100 * pooled.hit_rate).toFixed(1)}% vs ${(100 * pooled.mean_p0).toFixed(1)}% for a driftless price`);
  }
}

function printEvaluation(result: EvidenceRunResult): void {
  const r = result.run;
  console.log(
    `\nStored evaluation ${result.id}: ${r.snapshots} snapshots of ${r.symbols} symbols, ${r.fromDate}..${r.toDate}, ` +
      `horizons ${r.horizons.join(', ')}, seed ${r.seed}, ${result.evaluation.replicates} bootstrap replicates, as of ${r.asOfDate}.`,
  );
  console.log(`\n${headlineSections(result.report)}`);
}

run().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
