/**
 * Full snapshot computation (indicators, weekly stage, patterns, levels, transitions, ML training and
 * signals) without the database, in one run:
 *
 *   1. the 120 real symbols of ../shared/market-data (skipped when the directory is absent): the latest
 *      date, and a year of daily snapshots (252 dates), each with one worker and with all cores, so the
 *      per-core rate and the parallel speed-up show;
 *   2. the synthetic universe, BENCH_SYMBOLS x BENCH_YEARS (default 5,000 x 10 years = 2,520 bars),
 *      latest date, all cores. Target: under 12 s on an idle 2-core machine. Each phase (prepare: pass 1
 *      in the workers; train: walk-forward fits and records, universe state; documents: pass 2) prints
 *      its wall time, its CPU time over every thread of the process (process.cpuUsage: the workers are
 *      threads) and their ratio, the cores busy; the load average is printed beside, since CPU seconds
 *      hold on a shared machine and wall time does not;
 *   3. the same documents with 1 worker and with all cores must be identical (the model is trained in
 *      parallel shards combined in a fixed order): checked on a smaller synthetic universe with a year
 *      of sampled dates (BENCH_CHECK_SYMBOLS, default 300; 0 skips it).
 *
 *   npm run bench:pipeline
 *   BENCH_SYMBOLS=500 BENCH_YEARS=3 npm run bench:pipeline
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import type { BarSeries } from '../subgraphs/analysis/engine/market-types.js';
import { generateSyntheticMarket } from '../subgraphs/analysis/engine/synthetic-market.js';
import { analyzeUniverse, buildUniverse, defaultWorkers, universeFromCsv, type AnalyzeSummary, type Universe } from '../subgraphs/analysis/pipeline.js';
import { PROJECT_ROOT } from '../subgraphs/platform/project.js';

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 5000);
const YEARS = Number(process.env.BENCH_YEARS ?? 10);
const CHECK_SYMBOLS = Number(process.env.BENCH_CHECK_SYMBOLS ?? 300);
const MARKET_DATA = path.resolve(PROJECT_ROOT, process.env.MARKET_DATA_DIR ?? '../shared/market-data');

function realUniverse(): Universe | null {
  const securitiesFile = path.join(MARKET_DATA, 'securities.csv');
  const barsFile = path.join(MARKET_DATA, 'us-equities-daily.csv.gz');
  if (!fs.existsSync(securitiesFile) || !fs.existsSync(barsFile)) return null;
  return universeFromCsv(fs.readFileSync(securitiesFile, 'utf8'), gunzipSync(fs.readFileSync(barsFile)).toString('utf8'), 'TGMI');
}

function syntheticUniverse(symbols = SYMBOLS, years = YEARS): Universe {
  const market = generateSyntheticMarket({ seed: 20240614, symbolCount: symbols, years, endDate: '2026-10-30', indexSymbol: 'TGMI' });
  const series = new Map<string, BarSeries>();
  for (const s of market.series()) series.set(s.symbol, s);
  return buildUniverse(market.securities, series, 'TGMI');
}

const bars = (u: Universe) => u.equities.reduce((s, e) => s + e.bars.dates.length, 0);

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

async function measure(label: string, u: Universe, workers: number, from?: string): Promise<{ label: string; ms: number; summary: AnalyzeSummary; bars: number }> {
  const t0 = performance.now();
  let docs = 0;
  const summary = await analyzeUniverse(u, { workers, from, producedAt: '2026-11-01T00:00:00.000Z' }, async (rows) => {
    docs += rows.length;
  });
  const ms = performance.now() - t0;
  if (docs !== summary.snapshots) throw new Error(`${label}: ${docs} documents written, ${summary.snapshots} reported`);
  return { label, ms, summary, bars: bars(u) };
}

function print(r: Awaited<ReturnType<typeof measure>>): void {
  const s = r.summary;
  const perSecond = r.bars / (r.ms / 1000);
  const cores = Math.max(1, s.workers);
  console.log(
    `${r.label.padEnd(44)} ${String(s.symbols).padStart(5)} symbols ${String(r.bars).padStart(10)} bars ${(r.ms / 1000).toFixed(1).padStart(6)} s ` +
      `${Math.round(perSecond).toLocaleString('en-US').padStart(11)} bars/s ${Math.round(perSecond / cores).toLocaleString('en-US').padStart(11)} bars/s/core ` +
      `(prepare ${s.timings.prepareMs} ms, train ${s.timings.trainMs} ms, documents ${s.timings.analyzeMs} ms)`,
  );
  const phase = (name: string, wall: number, cpu: number) => `${name} ${(wall / 1000).toFixed(2)} s wall, ${(cpu / 1000).toFixed(2)} s CPU, ${(cpu / Math.max(1, wall)).toFixed(2)} cores busy`;
  console.log(
    `${''.padEnd(44)} ${phase('prepare', s.timings.prepareMs, s.cpu.prepareMs)}; ${phase('train', s.timings.trainMs, s.cpu.trainMs)}; ` +
      `${phase('documents', s.timings.analyzeMs, s.cpu.analyzeMs)} (load average ${load()})`,
  );
  if (s.model) {
    console.log(`${''.padEnd(44)} ML walk-forward: ${s.model.folds} folds, out-of-sample accuracy ${((s.model.oosAccuracy ?? NaN) * 100).toFixed(1)}%, AUC ${s.model.oosAuc?.toFixed(3)}, ${s.model.oosSamples} samples`);
  }
}

async function main(): Promise<void> {
  const cores = defaultWorkers();
  console.log(`analysis pipeline benchmark (${cores} cores)\n`);
  const real = realUniverse();
  if (real) {
    for (const [what, from] of [['latest', undefined], ['252 dates', real.calendar[real.calendar.length - 252]]] as const) {
      const one = await measure(`real 120 symbols, ${what}, 1 worker`, real, 1, from);
      print(one);
      const all = await measure(`real 120 symbols, ${what}, ${cores} workers`, real, cores, from);
      print(all);
      console.log(`${''.padEnd(44)} ${all.summary.snapshots} documents; parallel speed-up ${(one.ms / all.ms).toFixed(2)}x on ${cores} workers\n`);
    }
  } else {
    console.log(`(no real market data at ${MARKET_DATA}; skipped)\n`);
  }
  const tGen = performance.now();
  const synthetic = syntheticUniverse();
  console.log(`generated ${SYMBOLS} x ${synthetic.calendar.length} synthetic bars in ${((performance.now() - tGen) / 1000).toFixed(1)} s (not counted)`);
  const cpu0 = process.cpuUsage();
  const big = await measure(`synthetic ${SYMBOLS} symbols, ${cores} workers`, synthetic, cores);
  const cpu = process.cpuUsage(cpu0);
  print(big);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  console.log(
    `\nfull pipeline ${(big.ms / 1000).toFixed(1)} s (target 12 s on an idle machine), ${cpuSeconds.toFixed(1)} CPU s (${(cpuSeconds / (big.ms / 1000)).toFixed(2)} cores busy) ` +
      `for ${SYMBOLS} x ${synthetic.calendar.length} bars; load average ${load()}`,
  );
  if (CHECK_SYMBOLS > 0) await checkWorkerCounts(cores);
}

/** The documents (sorted, hashed) and the model of a run with `workers` workers. */
async function fingerprint(u: Universe, workers: number, from: string): Promise<{ docs: string; model: string; count: number }> {
  const rows: Array<{ key: string; doc: string }> = [];
  const summary = await analyzeUniverse(u, { workers, from, every: 5, producedAt: '2026-11-01T00:00:00.000Z' }, async (chunk) => {
    for (const r of chunk) rows.push({ key: `${r.symbol} ${r.analysisDate}`, doc: r.doc });
  });
  rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const docs = createHash('sha256');
  for (const r of rows) docs.update(r.key).update(r.doc);
  return { docs: docs.digest('hex'), model: createHash('sha256').update(JSON.stringify(summary.model)).digest('hex'), count: rows.length };
}

async function checkWorkerCounts(cores: number): Promise<void> {
  const u = syntheticUniverse(CHECK_SYMBOLS, 5);
  const from = u.calendar[u.calendar.length - 252];
  const one = await fingerprint(u, 1, from);
  const all = await fingerprint(u, cores, from);
  const same = one.docs === all.docs && one.model === all.model;
  console.log(`\n${CHECK_SYMBOLS} symbols x 5 years, every 5th day of a year: ${one.count} documents with 1 worker and with ${cores}: ${same ? 'identical' : 'DIFFERENT'} (documents ${one.docs.slice(0, 12)}, model ${one.model.slice(0, 12)})`);
  if (!same) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
