/**
 * Full snapshot computation (indicators, weekly stage, patterns, levels, transitions, ML training and
 * signals) without the database, in one run:
 *
 *   1. the 120 real symbols of ../shared/market-data (skipped when the directory is absent): the latest
 *      date, and a year of daily snapshots (252 dates), each with one worker and with all cores, so the
 *      per-core rate and the parallel speed-up show;
 *   2. the synthetic universe, BENCH_SYMBOLS x BENCH_YEARS (default 5,000 x 10 years = 2,520 bars),
 *      latest date, all cores. Target: under 60 s.
 *
 *   npm run bench:pipeline
 *   BENCH_SYMBOLS=500 BENCH_YEARS=3 npm run bench:pipeline
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import type { BarSeries } from '../subgraphs/analysis/engine/market-types.js';
import { generateSyntheticMarket } from '../subgraphs/analysis/engine/synthetic-market.js';
import { analyzeUniverse, buildUniverse, defaultWorkers, universeFromCsv, type AnalyzeSummary, type Universe } from '../subgraphs/analysis/pipeline.js';
import { PROJECT_ROOT } from '../subgraphs/platform/project.js';

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 5000);
const YEARS = Number(process.env.BENCH_YEARS ?? 10);
const MARKET_DATA = path.resolve(PROJECT_ROOT, process.env.MARKET_DATA_DIR ?? '../shared/market-data');

function realUniverse(): Universe | null {
  const securitiesFile = path.join(MARKET_DATA, 'securities.csv');
  const barsFile = path.join(MARKET_DATA, 'us-equities-daily.csv.gz');
  if (!fs.existsSync(securitiesFile) || !fs.existsSync(barsFile)) return null;
  return universeFromCsv(fs.readFileSync(securitiesFile, 'utf8'), gunzipSync(fs.readFileSync(barsFile)).toString('utf8'), 'TGMI');
}

function syntheticUniverse(): Universe {
  const market = generateSyntheticMarket({ seed: 20240614, symbolCount: SYMBOLS, years: YEARS, endDate: '2026-10-30', indexSymbol: 'TGMI' });
  const series = new Map<string, BarSeries>();
  for (const s of market.series()) series.set(s.symbol, s);
  return buildUniverse(market.securities, series, 'TGMI');
}

const bars = (u: Universe) => u.equities.reduce((s, e) => s + e.bars.dates.length, 0);

async function measure(label: string, u: Universe, workers: number, from?: string): Promise<{ label: string; ms: number; summary: AnalyzeSummary; bars: number }> {
  const t0 = performance.now();
  let docs = 0;
  const summary = await analyzeUniverse(u, { workers, from }, async (rows) => {
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
  const big = await measure(`synthetic ${SYMBOLS} symbols, ${cores} workers`, synthetic, cores);
  print(big);
  console.log(`\nfull pipeline ${(big.ms / 1000).toFixed(1)} s for ${SYMBOLS} x ${synthetic.calendar.length} bars: ${((big.ms / 60_000) * 100).toFixed(0)}% of the 60 s budget`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
