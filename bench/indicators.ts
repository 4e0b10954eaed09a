/**
 * Indicator kernel throughput: each kernel of subgraphs/analysis/engine/indicators.ts against a plain
 * reference loop that recomputes every output from scratch by its textbook definition, on the same
 * 1,000,000-bar seeded random walk, measured side by side in the same run.
 *
 *   npm run bench:indicators
 *   BENCH_BARS=200000 npm run bench:indicators
 *
 * References (O(n * window)): SMA sums its window; STDDEV and Bollinger take two passes over the
 * window; historical volatility recomputes the window's log returns; EMA, RSI, ATR and MACD use the
 * closed form of exponential / Wilder smoothing, sum over j of w^(i-j) * x[j], cut where the remaining
 * weight is below 1e-16 (about 18 x period terms) and exact (seed term included) before that.
 *
 * Timing: kernels are the best of 5 runs, references a single run, both after a warm-up on 10,000
 * bars. "max rel diff" is max |kernel - reference| / max(|reference|, floor) with floor = the price
 * level (100) for price-valued outputs, 1 for RSI, 1e-3 for annualised volatility; NaN must meet NaN.
 * If test/fixtures/talib/indicators.json exists, the kernels are also compared with TA-Lib's own
 * outputs stored there. Nothing is asserted: the numbers are printed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { atr, bollinger, ema, historicalVolatility, macd, rsi, sma, stddev, trueRange } from '../subgraphs/analysis/engine/indicators.js';
import { createPrng } from '../subgraphs/analysis/engine/prng.js';
import { PROJECT_ROOT } from '../subgraphs/platform/project.js';
import { refAtr, refBollinger, refEma, refHv, refMacd, refRsi, refSma, refStddev, refTrueRange } from '../test/reference/indicators.js';

const { abs, exp, log, max, min } = Math;
const BARS = Number(process.env.BENCH_BARS ?? 1_000_000);
const LEVEL = 100;

interface Ohlc {
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

/** Mean-reverting log random walk around LEVEL (1.5% daily moves), so prices stay in a realistic band. */
function randomWalk(bars: number, seed: number): Ohlc {
  const rng = createPrng(seed);
  const high = new Float64Array(bars);
  const low = new Float64Array(bars);
  const close = new Float64Array(bars);
  const volume = new Float64Array(bars);
  const mu = log(LEVEL);
  let x = mu;
  for (let i = 0; i < bars; i++) {
    const open = exp(x + 0.003 * rng.normal());
    x += -0.001 * (x - mu) + 0.015 * rng.normal();
    const c = exp(x);
    close[i] = c;
    high[i] = max(open, c) * (1 + 0.005 * abs(rng.normal()));
    low[i] = min(open, c) * (1 - 0.005 * abs(rng.normal()));
    volume[i] = 1e6 * exp(0.4 * rng.normal());
  }
  return { high, low, close, volume };
}

// Reference loops: test/reference/indicators.ts, with smoothed averages cut where weights fall below
// 1e-16 (exact to double precision, and O(n) instead of O(n^2) on a million bars).
const CUT = 1e-16;

// ---------------------------------------------------------------------------------------------------

function maxRelDiff(actual: ArrayLike<number>, expected: ArrayLike<number>, floor: number): number {
  let worst = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    if (Number.isNaN(a) || Number.isNaN(e)) {
      if (Number.isNaN(a) !== Number.isNaN(e)) return Infinity;
      continue;
    }
    const d = abs(a - e) / max(abs(e), floor);
    if (d > worst) worst = d;
  }
  return worst;
}

/** Best wall time of `runs` runs (at least one) and the last output. */
function time(run: () => Float64Array, runs: number): { ms: number; out: Float64Array } {
  let best = Infinity;
  let out: Float64Array = new Float64Array(0);
  for (let r = 0; r < max(1, runs); r++) {
    const t0 = performance.now();
    out = run();
    best = min(best, performance.now() - t0);
  }
  return { ms: best, out };
}

interface Case {
  label: string;
  floor: number;
  kernel: (d: Ohlc) => Float64Array;
  reference: (d: Ohlc) => Float64Array;
}

const CASES: Case[] = [
  { label: 'sma(20)', floor: LEVEL, kernel: (d) => sma(d.close, 20), reference: (d) => refSma(d.close, 20) },
  { label: 'sma(200)', floor: LEVEL, kernel: (d) => sma(d.close, 200), reference: (d) => refSma(d.close, 200) },
  { label: 'ema(20)', floor: LEVEL, kernel: (d) => ema(d.close, 20), reference: (d) => refEma(d.close, 20, 0, CUT) },
  { label: 'ema(50)', floor: LEVEL, kernel: (d) => ema(d.close, 50), reference: (d) => refEma(d.close, 50, 0, CUT) },
  { label: 'rsi(14)', floor: 1, kernel: (d) => rsi(d.close, 14), reference: (d) => refRsi(d.close, 14, CUT) },
  { label: 'trueRange', floor: LEVEL, kernel: (d) => trueRange(d.high, d.low, d.close), reference: (d) => refTrueRange(d.high, d.low, d.close) },
  { label: 'atr(14)', floor: LEVEL, kernel: (d) => atr(d.high, d.low, d.close, 14), reference: (d) => refAtr(d.high, d.low, d.close, 14, CUT) },
  { label: 'stddev(20)', floor: LEVEL, kernel: (d) => stddev(d.close, 20), reference: (d) => refStddev(d.close, 20) },
  { label: 'bollinger(20,2).upper', floor: LEVEL, kernel: (d) => bollinger(d.close, 20, 2).upper, reference: (d) => refBollinger(d.close, 20, 2).upper },
  { label: 'macd(12,26,9).signal', floor: LEVEL, kernel: (d) => macd(d.close, 12, 26, 9).signal, reference: (d) => refMacd(d.close, 12, 26, 9, CUT).signal },
  { label: 'historicalVolatility(20)', floor: 1e-3, kernel: (d) => historicalVolatility(d.close, 20), reference: (d) => refHv(d.close, 20, 252) },
];

/** The indicator set a daily snapshot needs, for one symbol. */
function snapshotSet(d: Ohlc): number {
  let checksum = 0;
  const take = (a: Float64Array) => {
    checksum += a[a.length - 1];
  };
  for (const p of [10, 20, 50, 150, 200]) {
    take(sma(d.close, p));
    take(ema(d.close, p));
  }
  take(rsi(d.close, 14));
  take(atr(d.high, d.low, d.close, 14));
  take(bollinger(d.close, 20, 2).bandwidth);
  take(macd(d.close).histogram);
  take(historicalVolatility(d.close, 20));
  take(historicalVolatility(d.close, 60));
  take(sma(d.volume, 20));
  take(sma(d.volume, 50));
  return checksum;
}

interface FixtureOutput {
  function: string;
  input?: 'volume';
  options: Record<string, number>;
  begIndex: number;
  nbElement: number;
  [name: string]: unknown;
}

/** Compares the kernels with TA-Lib's outputs in the fixture; null when the fixture is absent. */
function fixtureAgreement(): string | null {
  const file = path.join(PROJECT_ROOT, 'test/fixtures/talib/indicators.json');
  if (!fs.existsSync(file)) return null;
  const fixture = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    provenance: { talibNpmVersion: string; taLibCVersion: string };
    cases: Array<{ name: string; input: Record<'high' | 'low' | 'close' | 'volume', number[]>; outputs: Record<string, FixtureOutput> }>;
  };
  let compared = 0;
  let identical = 0;
  let worst = 0;
  let worstAt = '';
  let equalCloseWindows = 0;
  for (const c of fixture.cases) {
    const close = Float64Array.from(c.input.close);
    const high = Float64Array.from(c.input.high);
    const low = Float64Array.from(c.input.low);
    const level = c.input.close.reduce((s, v) => s + abs(v), 0) / close.length;
    for (const [key, o] of Object.entries(c.outputs)) {
      const real = o.input === 'volume' ? Float64Array.from(c.input.volume) : close;
      const p = o.options.optInTimePeriod;
      const mine: Record<string, Float64Array> = {};
      switch (o.function) {
        case 'SMA': mine.outReal = sma(real, p); break;
        case 'EMA': mine.outReal = ema(real, p); break;
        case 'RSI': mine.outReal = rsi(real, p); break;
        case 'TRANGE': mine.outReal = trueRange(high, low, close); break;
        case 'ATR': mine.outReal = atr(high, low, close, p); break;
        case 'STDDEV': mine.outReal = stddev(real, p, o.options.optInNbDev); break;
        case 'BBANDS': {
          const b = bollinger(real, p, o.options.optInNbDevUp);
          Object.assign(mine, { outRealUpperBand: b.upper, outRealMiddleBand: b.middle, outRealLowerBand: b.lower });
          break;
        }
        case 'MACD': {
          const m = macd(real, o.options.optInFastPeriod, o.options.optInSlowPeriod, o.options.optInSignalPeriod);
          Object.assign(mine, { outMACD: m.macd, outMACDSignal: m.signal, outMACDHist: m.histogram });
          break;
        }
        default: continue;
      }
      const floor = o.function === 'RSI' ? 1 : o.input === 'volume' ? 1e6 : level;
      for (const [name, values] of Object.entries(mine)) {
        const theirs = o[name] as number[];
        theirs.forEach((v, k) => {
          const a = values[o.begIndex + k];
          compared++;
          if (a === v) {
            identical++;
            return;
          }
          // TA-Lib's E[x^2] - E[x]^2 leaves rounding noise on windows of equal closes (exact value 0).
          if (o.function === 'STDDEV' && (v / o.options.optInNbDev) ** 2 < 1e-13 * level * level && a === 0) {
            equalCloseWindows++;
            return;
          }
          const d = abs(a - v) / max(abs(v), floor);
          if (!(d <= worst)) {
            worst = d;
            worstAt = `${c.name} ${key} ${name}`;
          }
        });
        for (let i = 0; i < o.begIndex && o.nbElement > 0; i++) if (!Number.isNaN(values[i])) worst = Infinity;
      }
    }
  }
  const { talibNpmVersion, taLibCVersion } = fixture.provenance;
  return (
    `TA-Lib fixture (talib ${talibNpmVersion}, TA-Lib C ${taLibCVersion}): ${compared} values, ${identical} bit-identical, ` +
    `max rel diff of the rest ${worst.toExponential(1)} (${worstAt}), warm-up NaNs as TA-Lib's begIndex` +
    (equalCloseWindows ? `; ${equalCloseWindows} STDDEV windows of equal closes are exactly 0 here where TA-Lib reports rounding noise` : '')
  );
}

function main(): void {
  const data = randomWalk(BARS, 20240611);
  const warm = randomWalk(10_000, 1);
  const rate = (ms: number) => `${(BARS / (ms / 1000) / 1e6).toFixed(1)}M`;
  console.log(`indicator kernels on ${BARS.toLocaleString('en-US')} bars (node ${process.version})`);
  console.log(`  ${'kernel'.padEnd(26)} ${'ms'.padStart(8)} ${'bars/s'.padStart(8)} ${'ref ms'.padStart(9)} ${'speed-up'.padStart(9)} ${'max rel diff'.padStart(13)}`);
  for (const c of CASES) {
    for (let r = 0; r < 3; r++) {
      c.kernel(warm);
      c.reference(warm);
    }
    const k = time(() => c.kernel(data), 5);
    const ref = time(() => c.reference(data), 1);
    const diff = maxRelDiff(k.out, ref.out, c.floor);
    console.log(
      `  ${c.label.padEnd(26)} ${k.ms.toFixed(1).padStart(8)} ${rate(k.ms).padStart(8)} ${ref.ms.toFixed(0).padStart(9)} ${`${(ref.ms / k.ms).toFixed(0)}x`.padStart(9)} ${diff.toExponential(1).padStart(13)}`,
    );
  }

  const symbols = Math.max(1, Math.round(BARS / 2520));
  const series = Array.from({ length: symbols }, (_, s) => randomWalk(2520, 1000 + s));
  for (const d of series.slice(0, 20)) snapshotSet(d);
  const t0 = performance.now();
  let checksum = 0;
  for (const d of series) checksum += snapshotSet(d);
  const ms = performance.now() - t0;
  console.log(
    `  snapshot indicator set (sma/ema x5, rsi, atr, bollinger, macd, hv 20/60, volume sma 20/50) on ${symbols} symbols x 2,520 bars: ` +
      `${ms.toFixed(0)} ms = ${((ms * 1000) / symbols).toFixed(0)} us/symbol (checksum ${checksum.toFixed(3)})`,
  );

  const agreement = fixtureAgreement();
  console.log(agreement ? `  ${agreement}` : '  TA-Lib fixture not found: no TA-Lib comparison');
}

main();
