/**
 * Indicator kernel throughput: each kernel of subgraphs/analysis/engine/indicators.ts against a plain
 * reference loop that recomputes every output from scratch by its textbook definition, on the same
 * 1,000,000-bar seeded random walk, measured side by side in the same run; and, when a built TA-Lib C is
 * at hand, against TA-Lib itself on that same series.
 *
 *   npm run bench:indicators
 *   BENCH_BARS=200000 npm run bench:indicators
 *   sh bench/talib/build.sh && TALIB_DIR=.talib npm run bench:indicators     # with TA-Lib C
 *   BENCH_ONLY=talib TALIB_DIR=.talib npm run bench:indicators                 # the TA-Lib part alone
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
 *
 * TA-Lib C (TALIB_DIR = a directory with lib/ holding libta_lib or libta-lib, static or shared, and
 * include/ or include/ta-lib/ holding ta_libc.h; bench/talib/build.sh makes one): bench/talib/harness.c
 * is compiled with `cc -O2` into a temporary directory and run as a child process on the same series
 * (written to a temporary binary file). In each of BENCH_ROUNDS rounds (default 5) every function is
 * timed best of 5 calls by the harness and best of 5 calls here, the two alternating which goes first;
 * the printed ratio is the median over rounds of (our time / TA-Lib's time). TA-Lib writes into output
 * buffers its caller allocated and touched beforehand; our kernels allocate their outputs in the call,
 * and that is included in our time. "Six together" is the median over rounds of the ratio of the summed
 * times of SMA(20), EMA(20), RSI(14), ATR(14), BBANDS(20,2) and MACD(12,26,9); targets: at most 1.2x
 * together, 1.5x each. Values are compared on the whole series: identical count, max abs difference and
 * max difference relative to max(|TA-Lib's value|, floor) with the floors above.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
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

// ---------------------------------------------------------------------------------------------------
// TA-Lib C, through bench/talib/harness.c

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const RUNS = 5;
/** How long one harness command may take (a best of RUNS calls on a million bars takes well under 1 s). */
const HARNESS_REPLY_MS = 120_000;
const loads = (): string => os.loadavg().map((l) => l.toFixed(2)).join(' / ');

interface TalibCase {
  /** The harness's case name. */
  name: string;
  label: string;
  floor: number;
  /** One of the six the targets are about. */
  six: boolean;
  /** Our outputs under TA-Lib's output names (the harness dumps <name>.<output>.bin). */
  ours: (d: Ohlc) => Record<string, Float64Array>;
  /**
   * Where ours are not TA-Lib's arithmetic (STDDEV, BBANDS): the two-pass reference outputs, to show
   * which side a difference comes from.
   */
  exact?: (d: Ohlc) => Record<string, Float64Array>;
}

const TALIB_CASES: TalibCase[] = [
  { name: 'sma20', label: 'SMA(20)', floor: LEVEL, six: true, ours: (d) => ({ outReal: sma(d.close, 20) }) },
  { name: 'sma200', label: 'SMA(200)', floor: LEVEL, six: false, ours: (d) => ({ outReal: sma(d.close, 200) }) },
  { name: 'ema20', label: 'EMA(20)', floor: LEVEL, six: true, ours: (d) => ({ outReal: ema(d.close, 20) }) },
  { name: 'ema50', label: 'EMA(50)', floor: LEVEL, six: false, ours: (d) => ({ outReal: ema(d.close, 50) }) },
  { name: 'rsi14', label: 'RSI(14)', floor: 1, six: true, ours: (d) => ({ outReal: rsi(d.close, 14) }) },
  { name: 'trange', label: 'TRANGE', floor: LEVEL, six: false, ours: (d) => ({ outReal: trueRange(d.high, d.low, d.close) }) },
  { name: 'atr14', label: 'ATR(14)', floor: LEVEL, six: true, ours: (d) => ({ outReal: atr(d.high, d.low, d.close, 14) }) },
  {
    name: 'stddev20',
    label: 'STDDEV(20)',
    floor: LEVEL,
    six: false,
    ours: (d) => ({ outReal: stddev(d.close, 20) }),
    exact: (d) => ({ outReal: refStddev(d.close, 20) }),
  },
  {
    name: 'bbands20',
    label: 'BBANDS(20,2)',
    floor: LEVEL,
    six: true,
    ours: (d) => {
      const b = bollinger(d.close, 20, 2);
      return { outRealUpperBand: b.upper, outRealMiddleBand: b.middle, outRealLowerBand: b.lower };
    },
    exact: (d) => {
      const b = refBollinger(d.close, 20, 2);
      return { outRealUpperBand: b.upper, outRealMiddleBand: b.middle, outRealLowerBand: b.lower };
    },
  },
  {
    name: 'macd',
    label: 'MACD(12,26,9)',
    floor: LEVEL,
    six: true,
    ours: (d) => {
      const m = macd(d.close, 12, 26, 9);
      return { outMACD: m.macd, outMACDSignal: m.signal, outMACDHist: m.histogram };
    },
  },
];

/** Where TA-Lib's library and headers are under TALIB_DIR, as cc arguments; or why they are not usable. */
function talibLinkArgs(dir: string): string[] | string {
  const include = [path.join(dir, 'include'), path.join(dir, 'include', 'ta-lib')].find((d) => fs.existsSync(path.join(d, 'ta_libc.h')));
  if (!include) return `no ta_libc.h under ${dir}/include or ${dir}/include/ta-lib`;
  const libDirs = [path.join(dir, 'lib'), path.join(dir, 'lib64'), dir];
  for (const libDir of libDirs) {
    for (const name of ['ta_lib', 'ta-lib']) {
      if (fs.existsSync(path.join(libDir, `lib${name}.a`))) return [`-I${include}`, path.join(libDir, `lib${name}.a`), '-lm'];
      if (fs.existsSync(path.join(libDir, `lib${name}.so`))) return [`-I${include}`, `-L${libDir}`, `-Wl,-rpath,${libDir}`, `-l${name}`, '-lm'];
    }
  }
  return `no libta_lib or libta-lib (.a or .so) under ${dir}/lib`;
}

/** The harness as a child process answering one command per line. */
class Harness {
  private readonly lines: string[] = [];
  private waiting: ((line: string) => void) | null = null;
  private readonly child;
  private exited = false;
  private stderr = '';

  constructor(exe: string, seriesFile: string, bars: number) {
    this.child = spawn(exe, [seriesFile, String(bars)], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    const ended = (why: string) => {
      this.exited = true;
      this.waiting?.(`error harness ${why}: ${this.stderr.trim()}`);
    };
    this.child.on('error', (err) => {
      this.stderr += String(err);
      ended('failed');
    });
    this.child.on('exit', () => ended('exited'));
    // A write to a harness that has gone is reported by the exit above.
    this.child.stdin.on('error', () => {});
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = null;
        w(line);
      } else this.lines.push(line);
    });
  }

  async ask(command: string): Promise<string> {
    if (this.exited) throw new Error(`TA-Lib harness exited: ${this.stderr.trim()}`);
    this.child.stdin.write(`${command}\n`);
    const line = await new Promise<string>((resolve, reject) => {
      const queued = this.lines.shift();
      if (queued !== undefined) return resolve(queued);
      const timer = setTimeout(() => reject(new Error(`TA-Lib harness: no answer to "${command}" within ${HARNESS_REPLY_MS} ms`)), HARNESS_REPLY_MS);
      this.waiting = (l) => {
        clearTimeout(timer);
        resolve(l);
      };
    });
    if (line.startsWith('error')) throw new Error(`TA-Lib harness: ${line}`);
    return line;
  }

  /** Best of `runs` calls of a case, in milliseconds. */
  async time(name: string, runs: number): Promise<number> {
    const [got, ns] = (await this.ask(`time ${name} ${runs}`)).split(' ');
    if (got !== name) throw new Error(`TA-Lib harness answered ${got} for ${name}`);
    return Number(ns) / 1e6;
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exit = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end('quit\n');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exit;
    clearTimeout(timer);
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

interface Agreement {
  compared: number;
  identical: number;
  maxAbs: number;
  maxRel: number;
}

function compareOutputs(mine: Float64Array, theirs: Float64Array, floor: number): Agreement {
  const r: Agreement = { compared: 0, identical: 0, maxAbs: 0, maxRel: 0 };
  for (let i = 0; i < theirs.length; i++) {
    const a = mine[i];
    const e = theirs[i];
    r.compared++;
    if (Number.isNaN(a) || Number.isNaN(e)) {
      if (Number.isNaN(a) === Number.isNaN(e)) r.identical++;
      else r.maxAbs = r.maxRel = Infinity;
      continue;
    }
    if (a === e) {
      r.identical++;
      continue;
    }
    const d = abs(a - e);
    if (d > r.maxAbs) r.maxAbs = d;
    const rel = d / max(abs(e), floor);
    if (rel > r.maxRel) r.maxRel = rel;
  }
  return r;
}

async function talibComparison(data: Ohlc, warm: Ohlc): Promise<void> {
  const dir = process.env.TALIB_DIR;
  if (!dir) {
    console.log('  TA-Lib C: absent (TALIB_DIR not set). To compare with it, build it for the bench only and run:');
    console.log('    sh bench/talib/build.sh && TALIB_DIR=.talib npm run bench:indicators');
    return;
  }
  const talibDir = path.resolve(dir);
  const link = talibLinkArgs(talibDir);
  if (typeof link === 'string') {
    console.log(`  TA-Lib C: absent (${link}); sh bench/talib/build.sh builds one into .talib/`);
    return;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'talib-bench-'));
  try {
    const exe = path.join(tmp, 'harness');
    const cc = process.env.CC ?? 'cc';
    const compile = spawnSync(cc, ['-O2', '-o', exe, path.join(PROJECT_ROOT, 'bench/talib/harness.c'), ...link], { encoding: 'utf8', timeout: 120_000 });
    if (compile.status !== 0) {
      console.log(`  TA-Lib C: the harness does not compile against ${talibDir}:\n${compile.stderr ?? compile.error}`);
      return;
    }
    const seriesFile = path.join(tmp, 'series.bin');
    const bytes = (a: Float64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    fs.writeFileSync(seriesFile, Buffer.concat([bytes(data.high), bytes(data.low), bytes(data.close)]));
    const harness = new Harness(exe, seriesFile, BARS);
    try {
      const version = await harness.ask('version');
      const info = path.join(talibDir, 'BUILD_INFO');
      const built = fs.existsSync(info) ? `; built ${fs.readFileSync(info, 'utf8').trim().split('\n').join(', ')}` : '';
      console.log(`  TA-Lib C ${version} from ${talibDir}${built}`);
      console.log(`  ${ROUNDS} rounds; per round each function best of ${RUNS} calls on each side; ratio = median over rounds of ours / TA-Lib`);

      for (const c of TALIB_CASES) {
        for (let r = 0; r < 3; r++) c.ours(warm);
        await harness.time(c.name, 1);
      }
      const ms: Record<string, { ours: number[]; talib: number[] }> = {};
      for (const c of TALIB_CASES) ms[c.name] = { ours: [], talib: [] };
      const oursBest = (c: TalibCase): number => {
        let best = Infinity;
        for (let r = 0; r < RUNS; r++) {
          const t0 = performance.now();
          c.ours(data);
          best = min(best, performance.now() - t0);
        }
        return best;
      };
      const loadBefore = loads();
      for (let round = 0; round < ROUNDS; round++) {
        for (const c of TALIB_CASES) {
          if (round % 2 === 0) {
            ms[c.name].talib.push(await harness.time(c.name, RUNS));
            ms[c.name].ours.push(oursBest(c));
          } else {
            ms[c.name].ours.push(oursBest(c));
            ms[c.name].talib.push(await harness.time(c.name, RUNS));
          }
        }
      }
      const loadAfter = loads();

      const dump = path.join(tmp, 'out');
      fs.mkdirSync(dump);
      await harness.ask(`dump ${dump}`);
      console.log(
        `  ${'function'.padEnd(14)} ${'ours ms'.padStart(8)} ${'TA-Lib ms'.padStart(10)} ${'ratio'.padStart(7)} ${'identical'.padStart(16)} ${'max abs diff'.padStart(13)} ${'max rel diff'.padStart(13)}`,
      );
      let worstSix = 0;
      const fromExact: string[] = [];
      for (const c of TALIB_CASES) {
        const ratio = median(ms[c.name].ours.map((o, r) => o / ms[c.name].talib[r]));
        if (c.six && ratio > worstSix) worstSix = ratio;
        const total: Agreement = { compared: 0, identical: 0, maxAbs: 0, maxRel: 0 };
        const exact = c.exact?.(data);
        let oursFromExact = 0;
        let theirsFromExact = 0;
        for (const [output, mine] of Object.entries(c.ours(data))) {
          const file = fs.readFileSync(path.join(dump, `${c.name}.${output}.bin`));
          const theirs = new Float64Array(file.buffer, file.byteOffset, file.byteLength / 8);
          const a = compareOutputs(mine, theirs, c.floor);
          total.compared += a.compared;
          total.identical += a.identical;
          total.maxAbs = max(total.maxAbs, a.maxAbs);
          total.maxRel = max(total.maxRel, a.maxRel);
          if (exact) {
            oursFromExact = max(oursFromExact, compareOutputs(mine, exact[output], c.floor).maxRel);
            theirsFromExact = max(theirsFromExact, compareOutputs(theirs, exact[output], c.floor).maxRel);
          }
        }
        if (exact) {
          fromExact.push(`${c.label} TA-Lib ${theirsFromExact.toExponential(1)}, ours ${oursFromExact.toExponential(1)}`);
        }
        const ident = total.identical === total.compared ? 'all' : `${((100 * total.identical) / total.compared).toFixed(1)}%`;
        console.log(
          `  ${`${c.label}${c.six ? '' : ' *'}`.padEnd(14)} ${median(ms[c.name].ours).toFixed(2).padStart(8)} ${median(ms[c.name].talib).toFixed(2).padStart(10)} ` +
            `${`${ratio.toFixed(2)}x`.padStart(7)} ${ident.padStart(16)} ${total.maxAbs.toExponential(1).padStart(13)} ${total.maxRel.toExponential(1).padStart(13)}`,
        );
      }
      const six = TALIB_CASES.filter((c) => c.six);
      const sum = (side: 'ours' | 'talib', r: number) => six.reduce((s, c) => s + ms[c.name][side][r], 0);
      const together = median(Array.from({ length: ROUNDS }, (_, r) => sum('ours', r) / sum('talib', r)));
      const sumMedian = (side: 'ours' | 'talib') => median(Array.from({ length: ROUNDS }, (_, r) => sum(side, r)));
      console.log('  (* not one of the six the targets are about)');
      if (fromExact.length) {
        console.log(`  max rel diff from the exact two-pass value (test/reference): ${fromExact.join('; ')}`);
      }
      console.log(
        `  six together (SMA, EMA, RSI, ATR, BBANDS, MACD): ours ${sumMedian('ours').toFixed(1)} ms, TA-Lib ${sumMedian('talib').toFixed(1)} ms, ` +
          `${together.toFixed(2)}x (target <= 1.2x: ${together <= 1.2 ? 'met' : 'NOT met'}); slowest of the six ${worstSix.toFixed(2)}x ` +
          `(target <= 1.5x: ${worstSix <= 1.5 ? 'met' : 'NOT met'})`,
      );
      console.log(`  load average (1 / 5 / 15 min) before ${loadBefore}, after ${loadAfter}`);
    } finally {
      await harness.close();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const data = randomWalk(BARS, 20240611);
  const warm = randomWalk(10_000, 1);
  if (process.env.BENCH_ONLY !== 'talib') referenceComparison(data, warm);
  console.log(`TA-Lib C on the same ${BARS.toLocaleString('en-US')} bars`);
  await talibComparison(data, warm);
}

function referenceComparison(data: Ohlc, warm: Ohlc): void {
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

await main();
