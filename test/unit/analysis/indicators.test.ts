/**
 * Indicator kernels checked two independent ways:
 *
 * 1. Against TA-Lib itself: test/fixtures/talib/indicators.json holds TA-Lib's outputs (computed by its C
 *    library; provenance in that folder's README.md) for a 600-bar OHLCV random walk with a flat stretch
 *    and a gap, and for a 40-bar flat series. Every valid value is compared, and the warm-up NaNs must end
 *    exactly at TA-Lib's begIndex.
 * 2. Against deliberately naive reference implementations written below: every output recomputed from
 *    scratch, per index, from its textbook definition (window sums, two-pass variance, and the closed
 *    forms of EMA and Wilder smoothing as weighted sums of all past inputs), on seeded random series with
 *    flat runs, gaps, and tiny (1e-3) and huge (1e7) prices.
 *
 * Agreement criterion, both ways: |actual - expected| <= 1e-9 * max(|expected|, floor), i.e. 1e-9
 * relative with an absolute floor that is 1e-9 of the quantity's natural scale: the series' price level
 * for price-valued outputs (SMA, EMA, TR, ATR, STDDEV, bands, MACD), 1 for RSI and bandwidth, 1e-3 for
 * annualised volatility. NaN must be matched by NaN.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  atr,
  bollinger,
  ema,
  emaSeededAt,
  historicalVolatility,
  macd,
  rsi,
  sma,
  stddev,
  trueRange,
} from '../../../subgraphs/analysis/engine/indicators.js';
import { createPrng } from '../../../subgraphs/analysis/engine/prng.js';
import { PROJECT_ROOT } from '../../../subgraphs/platform/project.js';
import { refAtr, refBollinger, refEma, refHv, refMacd, refRsi, refSma, refStddev, refTrueRange } from '../../reference/indicators.js';

const { abs, max, sqrt } = Math;
const REL = 1e-9;

// ---------------------------------------------------------------------------------------------------
// Comparison helpers

interface Mismatch {
  index: number;
  actual: number;
  expected: number;
}

/** First index where the two series disagree beyond the criterion (NaN must meet NaN), or null. */
function firstMismatch(actual: ArrayLike<number>, expected: ArrayLike<number>, floor: number): Mismatch | null {
  if (actual.length !== expected.length) return { index: -1, actual: actual.length, expected: expected.length };
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    if (Number.isNaN(e) || Number.isNaN(a)) {
      if (Number.isNaN(e) !== Number.isNaN(a)) return { index: i, actual: a, expected: e };
      continue;
    }
    if (!(abs(a - e) <= REL * max(abs(e), floor))) return { index: i, actual: a, expected: e };
  }
  return null;
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>, floor: number, label: string): void {
  const mismatch = firstMismatch(actual, expected, floor);
  if (mismatch) throw new Error(`${label}: mismatch ${JSON.stringify(mismatch)}`);
}

function nanPrefix(values: ArrayLike<number>): number {
  let i = 0;
  while (i < values.length && Number.isNaN(values[i])) i++;
  return i;
}

function expectWarmUp(values: Float64Array, lookback: number, label: string): void {
  expect({ label, firstValue: nanPrefix(values) }).toEqual({ label, firstValue: Math.min(lookback, values.length) });
  for (let i = lookback; i < values.length; i++) {
    if (Number.isNaN(values[i])) throw new Error(`${label}: NaN after warm-up at ${i}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// Seeded random OHLC series

interface Ohlc {
  name: string;
  level: number;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
}

interface SeriesSpec {
  name: string;
  seed: number;
  bars: number;
  level: number;
  /** Daily volatility of the close. */
  vol: number;
  /** Probability that a bar starts a flat run (open = high = low = close = previous close). */
  flatRuns: number;
  /** Probability of an overnight gap of 10-30% either way. */
  gaps: number;
}

const SPECS: SeriesSpec[] = [
  { name: 'ordinary', seed: 1, bars: 600, level: 100, vol: 0.02, flatRuns: 0, gaps: 0 },
  { name: 'flat runs', seed: 2, bars: 600, level: 40, vol: 0.015, flatRuns: 0.03, gaps: 0 },
  { name: 'gaps', seed: 3, bars: 600, level: 250, vol: 0.02, flatRuns: 0.005, gaps: 0.02 },
  { name: 'tiny prices', seed: 4, bars: 600, level: 1e-3, vol: 0.03, flatRuns: 0.01, gaps: 0.01 },
  { name: 'huge prices', seed: 5, bars: 600, level: 1e7, vol: 0.01, flatRuns: 0.01, gaps: 0.01 },
  { name: 'volatile', seed: 6, bars: 400, level: 5, vol: 0.08, flatRuns: 0.01, gaps: 0.03 },
];

function makeSeries(spec: SeriesSpec): Ohlc {
  const rng = createPrng(spec.seed, 1);
  const { bars } = spec;
  const high = new Float64Array(bars);
  const low = new Float64Array(bars);
  const close = new Float64Array(bars);
  let prev = spec.level;
  let flatLeft = 0;
  for (let i = 0; i < bars; i++) {
    if (flatLeft === 0 && rng.next() < spec.flatRuns) flatLeft = rng.intBetween(3, 40);
    if (flatLeft > 0) {
      flatLeft--;
      high[i] = prev;
      low[i] = prev;
      close[i] = prev;
      continue;
    }
    const gap = rng.next() < spec.gaps ? 1 + rng.pick([-1, 1]) * rng.uniform(0.1, 0.3) : 1;
    const open = prev * gap * (1 + 0.2 * spec.vol * rng.normal());
    const c = open * (1 + spec.vol * rng.normal());
    high[i] = max(open, c) * (1 + 0.3 * spec.vol * abs(rng.normal()));
    low[i] = Math.min(open, c) * (1 - 0.3 * spec.vol * abs(rng.normal()));
    close[i] = c;
    prev = c;
  }
  return { name: spec.name, level: spec.level, high, low, close };
}

const SERIES = SPECS.map(makeSeries);

// ---------------------------------------------------------------------------------------------------
// 1. TA-Lib fixture

interface FixtureOutput {
  function: string;
  input?: 'volume';
  options: Record<string, number>;
  begIndex: number;
  nbElement: number;
  [output: string]: unknown;
}

interface FixtureCase {
  name: string;
  bars: number;
  input: { open: number[]; high: number[]; low: number[]; close: number[]; volume: number[] };
  outputs: Record<string, FixtureOutput>;
}

const FIXTURE = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/talib/indicators.json'), 'utf8')) as {
  provenance: { talibNpmVersion: string; taLibCVersion: string };
  cases: FixtureCase[];
};

/** Our output(s) for a fixture entry, keyed by TA-Lib's output names. */
function ours(c: FixtureCase, o: FixtureOutput): Record<string, Float64Array> {
  const close = Float64Array.from(c.input.close);
  const high = Float64Array.from(c.input.high);
  const low = Float64Array.from(c.input.low);
  const real = o.input === 'volume' ? Float64Array.from(c.input.volume) : close;
  const opt = o.options;
  switch (o.function) {
    case 'SMA':
      return { outReal: sma(real, opt.optInTimePeriod) };
    case 'EMA':
      return { outReal: ema(real, opt.optInTimePeriod) };
    case 'RSI':
      return { outReal: rsi(real, opt.optInTimePeriod) };
    case 'TRANGE':
      return { outReal: trueRange(high, low, close) };
    case 'ATR':
      return { outReal: atr(high, low, close, opt.optInTimePeriod) };
    case 'STDDEV':
      return { outReal: stddev(real, opt.optInTimePeriod, opt.optInNbDev) };
    case 'BBANDS': {
      expect(opt.optInNbDevUp).toBe(opt.optInNbDevDn);
      const b = bollinger(real, opt.optInTimePeriod, opt.optInNbDevUp);
      return { outRealUpperBand: b.upper, outRealMiddleBand: b.middle, outRealLowerBand: b.lower };
    }
    case 'MACD': {
      const m = macd(real, opt.optInFastPeriod, opt.optInSlowPeriod, opt.optInSignalPeriod);
      return { outMACD: m.macd, outMACDSignal: m.signal, outMACDHist: m.histogram };
    }
    default:
      throw new Error(`no kernel for ${o.function}`);
  }
}

/**
 * TA-Lib's STDDEV computes the variance as E[x^2] - E[x]^2, whose rounding leaves an absolute error of
 * order 1e-16 * price^2: for a window of equal closes it reports a small positive deviation (6.6e-6 for
 * five closes of 136.18) where the exact value, and ours, is 0. Where TA-Lib's variance is below
 * 1e-13 * level^2 (within its own rounding of zero) ours must be too; those entries are then taken as
 * agreeing (set equal in `expected`) and counted.
 */
function excuseTaLibCancellation(actual: Float64Array, expected: Float64Array, deviations: number, level: number): number {
  let excused = 0;
  for (let i = 0; i < expected.length; i++) {
    if (Number.isNaN(expected[i])) continue;
    const theirs = expected[i] / deviations;
    if (theirs * theirs < 1e-13 * level * level) {
      const mine = actual[i] / deviations;
      expect({ i, variance: mine * mine < 1e-13 * level * level }).toEqual({ i, variance: true });
      if (expected[i] !== actual[i]) excused++;
      expected[i] = actual[i];
    }
  }
  return excused;
}

/** A fixture output's values on the bar axis: NaN before begIndex (everywhere if TA-Lib gave none). */
function onBars(c: FixtureCase, o: FixtureOutput, name: string): Float64Array {
  const theirs = o[name] as number[];
  const out = new Float64Array(c.bars).fill(NaN);
  if (o.nbElement > 0) out.set(theirs, o.begIndex);
  return out;
}

const priceLevel = (c: FixtureCase) => c.input.close.reduce((s, x) => s + abs(x), 0) / c.bars;

describe('TA-Lib fixture', () => {
  it('was produced by TA-Lib and covers every kernel it has', () => {
    expect(FIXTURE.provenance.talibNpmVersion).toBe('2.0.5');
    expect(FIXTURE.provenance.taLibCVersion).toMatch(/^0\.6\./);
    const functions = new Set(FIXTURE.cases.flatMap((c) => Object.values(c.outputs).map((o) => o.function)));
    expect([...functions].sort()).toEqual(['ATR', 'BBANDS', 'EMA', 'MACD', 'RSI', 'SMA', 'STDDEV', 'TRANGE']);
  });

  for (const c of FIXTURE.cases) {
    describe(c.name, () => {
      const level = priceLevel(c);
      for (const [key, o] of Object.entries(c.outputs)) {
        it(`${key} matches TA-Lib (values and warm-up)`, () => {
          const mine = ours(c, o);
          const names = Object.keys(o).filter((k) => k.startsWith('out'));
          expect(Object.keys(mine).sort()).toEqual(names.sort());
          for (const name of names) {
            const theirs = o[name] as number[];
            expect(theirs).toHaveLength(o.nbElement);
            const actual = mine[name];
            expect(actual).toHaveLength(c.bars);
            // TA-Lib returns no values when the input is too short (begIndex 0, nbElement 0).
            const begIndex = o.nbElement === 0 ? c.bars : o.begIndex;
            expect(nanPrefix(actual)).toBe(begIndex);
            const expected = onBars(c, o, name);
            const floor = o.function === 'RSI' ? 1 : o.input === 'volume' ? 1e6 : level;
            if (o.function === 'STDDEV') excuseTaLibCancellation(actual, expected, o.options.optInNbDev, level);
            expectClose(actual, expected, floor, `${c.name} ${key} ${name}`);
          }
        });
      }
    });
  }

  it("differs from TA-Lib's STDDEV only on windows of equal closes", () => {
    // The windows of five equal closes inside the fixture's flat stretch (bars 303..311), where
    // TA-Lib reports 6.6e-6 and the exact value is 0; the 'flat' case's TA-Lib zeros are matched exactly.
    let excused = 0;
    for (const c of FIXTURE.cases) {
      for (const o of Object.values(c.outputs)) {
        if (o.function !== 'STDDEV') continue;
        excused += excuseTaLibCancellation(ours(c, o).outReal, onBars(c, o, 'outReal'), o.options.optInNbDev, priceLevel(c));
      }
    }
    expect(excused).toBe(9);
  });

  it('agrees bit for bit where the arithmetic follows TA-Lib (SMA, EMA, RSI, TRANGE, ATR, MACD)', () => {
    const c = FIXTURE.cases.find((x) => x.name === 'random-walk')!;
    let compared = 0;
    let identical = 0;
    for (const o of Object.values(c.outputs)) {
      if (o.function === 'STDDEV' || o.function === 'BBANDS') continue;
      const mine = ours(c, o);
      for (const name of Object.keys(mine)) {
        const theirs = o[name] as number[];
        theirs.forEach((v, k) => {
          compared++;
          if (mine[name][o.begIndex + k] === v) identical++;
        });
      }
    }
    expect(compared).toBeGreaterThan(10_000);
    expect(identical).toBe(compared);
  });
});

// ---------------------------------------------------------------------------------------------------
// 2. Property test against the naive references

describe.each(SERIES)('against naive references: $name series', (s) => {
  const { high, low, close, level } = s;

  it('SMA and EMA', () => {
    for (const p of [1, 2, 10, 20, 50, 200]) {
      expectClose(sma(close, p), refSma(close, p), level, `sma ${p}`);
      expectClose(ema(close, p), refEma(close, p), level, `ema ${p}`);
    }
  });

  it('RSI', () => {
    for (const p of [1, 2, 14, 30]) expectClose(rsi(close, p), refRsi(close, p), 1, `rsi ${p}`);
  });

  it('true range and ATR', () => {
    expectClose(trueRange(high, low, close), refTrueRange(high, low, close), level, 'trange');
    for (const p of [1, 2, 14, 50]) expectClose(atr(high, low, close, p), refAtr(high, low, close, p), level, `atr ${p}`);
  });

  it('STDDEV and Bollinger Bands', () => {
    for (const [p, d] of [[1, 1], [2, 1], [5, 2.5], [20, 1], [60, 1]]) {
      expectClose(stddev(close, p, d), refStddev(close, p, d), level, `stddev ${p} ${d}`);
    }
    for (const [p, d] of [[20, 2], [5, 1.5], [50, 3]]) {
      const actual = bollinger(close, p, d);
      const expected = refBollinger(close, p, d);
      for (const band of ['upper', 'middle', 'lower'] as const) expectClose(actual[band], expected[band], level, `bollinger ${p} ${band}`);
      expectClose(actual.bandwidth, expected.bandwidth, 1, `bollinger ${p} bandwidth`);
    }
  });

  it('MACD', () => {
    for (const [f, sl, sg] of [[12, 26, 9], [5, 13, 4], [3, 3, 1], [2, 40, 15], [26, 12, 9]]) {
      const actual = macd(close, f, sl, sg);
      const expected = refMacd(close, f, sl, sg);
      for (const line of ['macd', 'signal', 'histogram'] as const) expectClose(actual[line], expected[line], level, `macd ${f}/${sl}/${sg} ${line}`);
    }
  });

  it('historical volatility', () => {
    for (const [p, year] of [[2, 252], [10, 52], [20, 252], [60, 252]]) {
      expectClose(historicalVolatility(close, p, year), refHv(close, p, year), 1e-3, `hv ${p}`);
    }
  });

  it('uses no future bar: outputs on a prefix equal the full run, bit for bit', () => {
    const cut = Math.floor(close.length * 0.6);
    const h = high.slice(0, cut);
    const l = low.slice(0, cut);
    const c = close.slice(0, cut);
    const pairs: Array<[Float64Array, Float64Array]> = [
      [sma(c, 20), sma(close, 20)],
      [ema(c, 20), ema(close, 20)],
      [rsi(c), rsi(close)],
      [trueRange(h, l, c), trueRange(high, low, close)],
      [atr(h, l, c), atr(high, low, close)],
      [stddev(c, 20), stddev(close, 20)],
      [bollinger(c).upper, bollinger(close).upper],
      [bollinger(c).bandwidth, bollinger(close).bandwidth],
      [macd(c).macd, macd(close).macd],
      [macd(c).signal, macd(close).signal],
      [historicalVolatility(c, 20), historicalVolatility(close, 20)],
    ];
    for (const [prefix, full] of pairs) expect(Array.from(prefix)).toEqual(Array.from(full.subarray(0, cut)));
  });
});

// ---------------------------------------------------------------------------------------------------
// Edge cases

describe('warm-up matches TA-Lib lookbacks', () => {
  const { high, low, close } = SERIES[0];
  it.each([
    ['sma 20', () => sma(close, 20), 19],
    ['ema 50', () => ema(close, 50), 49],
    ['rsi 14', () => rsi(close, 14), 14],
    ['trange', () => trueRange(high, low, close), 1],
    ['atr 14', () => atr(high, low, close, 14), 14],
    ['stddev 20', () => stddev(close, 20), 19],
    ['bollinger 20 upper', () => bollinger(close, 20).upper, 19],
    ['bollinger 20 bandwidth', () => bollinger(close, 20).bandwidth, 19],
    ['macd line', () => macd(close).macd, 33],
    ['macd signal', () => macd(close).signal, 33],
    ['macd histogram', () => macd(close).histogram, 33],
    ['macd 5/13/4', () => macd(close, 5, 13, 4).macd, 15],
    ['hv 20', () => historicalVolatility(close, 20), 20],
  ] as const)('%s', (label, run, lookback) => expectWarmUp(run(), lookback, label));
});

describe('input shorter than the period', () => {
  const { high, low, close } = SERIES[0];
  const all = (n: number) => {
    const h = high.subarray(0, n);
    const l = low.subarray(0, n);
    const c = close.subarray(0, n);
    const b = bollinger(c, 20);
    const m = macd(c);
    return { sma: sma(c, 20), ema: ema(c, 20), rsi: rsi(c, 14), atr: atr(h, l, c, 14), stddev: stddev(c, 20), upper: b.upper, middle: b.middle, bandwidth: b.bandwidth, macd: m.macd, signal: m.signal, hv: historicalVolatility(c, 20) };
  };

  it('gives all-NaN outputs of the input length', () => {
    for (const n of [0, 1, 5, 13]) {
      for (const [name, out] of Object.entries(all(n))) {
        expect({ name, n, length: out.length }).toEqual({ name, n, length: n });
        expect({ name, n, values: nanPrefix(out) }).toEqual({ name, n, values: n });
      }
    }
    expect(trueRange(high.subarray(0, 1), low.subarray(0, 1), close.subarray(0, 1))[0]).toBeNaN();
  });

  it('gives exactly one value once the input reaches the lookback + 1', () => {
    expect(nanPrefix(sma(close.subarray(0, 20), 20))).toBe(19);
    expect(nanPrefix(ema(close.subarray(0, 20), 20))).toBe(19);
    expect(nanPrefix(rsi(close.subarray(0, 15), 14))).toBe(14);
    expect(nanPrefix(atr(high.subarray(0, 15), low.subarray(0, 15), close.subarray(0, 15), 14))).toBe(14);
    expect(nanPrefix(stddev(close.subarray(0, 20), 20))).toBe(19);
    expect(nanPrefix(historicalVolatility(close.subarray(0, 21), 20))).toBe(20);
    const m = macd(close.subarray(0, 34));
    expect([nanPrefix(m.macd), nanPrefix(m.signal), nanPrefix(m.histogram)]).toEqual([33, 33, 33]);
    expect(nanPrefix(macd(close.subarray(0, 33)).macd)).toBe(33);
  });
});

describe('period 1', () => {
  const { high, low, close } = SERIES[1];
  it('SMA and EMA return the input, STDDEV is 0, bands collapse onto the close', () => {
    expect(Array.from(sma(close, 1))).toEqual(Array.from(close));
    expect(Array.from(ema(close, 1))).toEqual(Array.from(close));
    expect(Array.from(stddev(close, 1))).toEqual(new Array(close.length).fill(0));
    const b = bollinger(close, 1, 2);
    expect(Array.from(b.upper)).toEqual(Array.from(close));
    expect(Array.from(b.lower)).toEqual(Array.from(close));
    expect(Array.from(b.bandwidth)).toEqual(new Array(close.length).fill(0));
  });
  it('RSI is 100 after a rise and 0 after a fall or no change', () => {
    const r = rsi(close, 1);
    expect(r[0]).toBeNaN();
    for (let i = 1; i < close.length; i++) expect(r[i]).toBe(close[i] > close[i - 1] ? 100 : 0);
  });
  it('ATR is the true range (as in TA-Lib)', () => {
    expect(Array.from(atr(high, low, close, 1))).toEqual(Array.from(trueRange(high, low, close)));
  });
  it('historical volatility needs two returns', () => {
    expect(nanPrefix(historicalVolatility(close, 1))).toBe(close.length);
  });
});

describe('all-equal prices', () => {
  const n = 80;
  const price = 123.45;
  const flat = new Float64Array(n).fill(price);
  it('RSI is 0 (TA-Lib: no gain and no loss)', () => {
    const r = rsi(flat, 14);
    for (let i = 14; i < n; i++) expect(r[i]).toBe(0);
  });
  it('STDDEV is exactly 0, bands equal the price, bandwidth 0', () => {
    const sd = stddev(flat, 20, 2);
    for (let i = 19; i < n; i++) expect(sd[i]).toBe(0);
    const b = bollinger(flat, 20, 2);
    for (let i = 19; i < n; i++) {
      expect(b.upper[i]).toBe(b.middle[i]);
      expect(b.lower[i]).toBe(b.middle[i]);
      expect(b.middle[i]).toBeCloseTo(price, 10);
      expect(b.bandwidth[i]).toBe(0);
    }
  });
  it('true range, ATR and volatility are 0, MACD 0 up to the rounding of its seeds', () => {
    const tr = trueRange(flat, flat, flat);
    const a = atr(flat, flat, flat, 14);
    const m = macd(flat);
    const hv = historicalVolatility(flat, 20);
    for (let i = 33; i < n; i++) {
      expect([tr[i], a[i], hv[i]]).toEqual([0, 0, 0]);
      // Both EMAs are seeded with a mean of equal prices, which may round differently by an ulp.
      for (const v of [m.macd[i], m.signal[i], m.histogram[i]]) expect(abs(v)).toBeLessThan(1e-15 * price);
    }
  });
  it('a flat run after volatile bars gives exactly 0 deviation once the window is inside it', () => {
    const x = new Float64Array(200);
    const rng = createPrng(9);
    for (let i = 0; i < 100; i++) x[i] = 1e6 * (1 + 0.2 * rng.normal());
    x.fill(1e6 + 0.1, 100);
    const sd = stddev(x, 20);
    const hv = historicalVolatility(x, 20);
    for (let i = 119; i < 200; i++) expect(sd[i]).toBe(0);
    for (let i = 120; i < 200; i++) expect(hv[i]).toBe(0);
    expect(sd[118]).toBeGreaterThan(0);
  });
});

describe('specific behaviour', () => {
  const { close } = SERIES[0];

  it("MACD seeds the fast EMA at the slow EMA's first index (TA-Lib), which changes the values", () => {
    const m = macd(close, 12, 26, 9);
    const quirk = emaSeededAt(close, 12, 14)[33] - ema(close, 26)[33];
    const plain = ema(close, 12)[33] - ema(close, 26)[33];
    expect(m.macd[33]).toBe(quirk);
    expect(abs(quirk - plain)).toBeGreaterThan(1e-6);
  });

  it('MACD swaps fast and slow when given in the wrong order (TA-Lib)', () => {
    const a = macd(close, 12, 26, 9);
    const b = macd(close, 26, 12, 9);
    expect(Array.from(b.macd)).toEqual(Array.from(a.macd));
    expect(Array.from(b.signal)).toEqual(Array.from(a.signal));
  });

  it('bandwidth is (upper - lower) / middle, NaN for a zero middle band', () => {
    const b = bollinger(close, 20, 2);
    for (const i of [19, 100, 599]) expect(b.bandwidth[i]).toBe((b.upper[i] - b.lower[i]) / b.middle[i]);
    expect(Array.from(bollinger(new Float64Array(30), 20).bandwidth.subarray(19))).toEqual(new Array(11).fill(NaN));
  });

  it('historical volatility is annualised: scales with sqrt(periodsPerYear)', () => {
    const daily = historicalVolatility(close, 20, 1);
    const yearly = historicalVolatility(close, 20, 252);
    expect(yearly[300] / daily[300]).toBeCloseTo(sqrt(252), 12);
    // a 2% daily-vol walk: roughly 0.32 annualised
    expect(yearly[300]).toBeGreaterThan(0.15);
    expect(yearly[300]).toBeLessThan(0.6);
  });

  it('RSI reports 0 when both averages fall under TA_EPSILON, a ratio otherwise', () => {
    const x = Float64Array.from([1, 1 + 1e-15, 1 + 2e-15, 1 + 3e-15, 1 + 4e-15]);
    expect(rsi(x, 2)[2]).toBe(0);
    const y = Float64Array.from([1, 1.5, 1.25, 1.75]);
    // changes +0.5, -0.25: avg gain 0.25, avg loss 0.125 -> 66.67; then ((0.25+0.5)/2, 0.125/2)
    expect(rsi(y, 2)[2]).toBeCloseTo(100 * (0.25 / 0.375), 12);
    expect(rsi(y, 2)[3]).toBeCloseTo(100 * (0.375 / (0.375 + 0.0625)), 12);
  });

  it('RSI keeps its value through a long flat run until the decayed averages pass under TA_EPSILON (TA-Lib)', () => {
    const x = new Float64Array(700).fill(100);
    for (let i = 1; i <= 20; i++) x[i] = x[i - 1] + (i % 3 === 0 ? -1 : 1);
    x.fill(x[20], 21);
    const r = rsi(x, 14);
    const held = r[21];
    expect(held).toBeGreaterThan(50);
    const drop = r.indexOf(0);
    for (let i = 21; i < drop; i++) expect(r[i]).toBeCloseTo(held, 9);
    for (let i = drop; i < x.length; i++) expect(r[i]).toBe(0);
    // TA-Lib (talib 2.0.5, same input) also turns to 0 at bar 455.
    expect(drop).toBe(455);
    expectClose(r, refRsi(x, 14), 1, 'rsi long flat run');
  });

  it('rejects periods that are not positive integers with all-NaN outputs', () => {
    for (const p of [0, -3, 2.5, NaN]) {
      expect(nanPrefix(sma(close, p))).toBe(close.length);
      expect(nanPrefix(ema(close, p))).toBe(close.length);
      expect(nanPrefix(rsi(close, p))).toBe(close.length);
      expect(nanPrefix(stddev(close, p))).toBe(close.length);
      expect(nanPrefix(historicalVolatility(close, p))).toBe(close.length);
      expect(nanPrefix(macd(close, p, 26, 9).macd)).toBe(close.length);
    }
  });

  it('rejects high/low/close of different lengths', () => {
    expect(() => trueRange(close, close.subarray(1), close)).toThrow(RangeError);
    expect(() => atr(close, close, close.subarray(1))).toThrow(RangeError);
  });
});

describe('single-pass kernels keep the arithmetic they replace', () => {
  /** TA-Lib's RSI loop as written in its C source (ta_RSI.c): the gain or the loss grows, by a branch. */
  function rsiWithBranches(x: Float64Array, p: number): Float64Array {
    const out = new Float64Array(x.length).fill(NaN);
    if (x.length <= p) return out;
    let gain = 0;
    let loss = 0;
    for (let i = 1; i <= p; i++) {
      const change = x[i] - x[i - 1];
      if (change < 0) loss -= change;
      else gain += change;
    }
    gain /= p;
    loss /= p;
    const value = () => (gain + loss > -1e-14 && gain + loss < 1e-14 ? 0 : 100 * (gain / (gain + loss)));
    out[p] = value();
    for (let i = p + 1; i < x.length; i++) {
      const change = x[i] - x[i - 1];
      gain *= p - 1;
      loss *= p - 1;
      if (change < 0) loss -= change;
      else gain += change;
      gain /= p;
      loss /= p;
      out[i] = value();
    }
    return out;
  }

  const sameBits = (a: Float64Array, b: Float64Array, label: string) => {
    expect({ label, length: a.length }).toEqual({ label, length: b.length });
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) throw new Error(`${label}: differs at ${i}: ${a[i]} vs ${b[i]}`);
  };

  it("RSI's branch-free averages are TA-Lib's branches bit for bit (rises, falls, no change, a NaN)", () => {
    const withNaN = SERIES[1].close.slice();
    withNaN[250] = NaN;
    for (const [name, x] of [...SERIES.map((s) => [s.name, s.close] as const), ['NaN at 250', withNaN] as const]) {
      for (const p of [2, 14, 30]) sameBits(rsi(x, p), rsiWithBranches(x, p), `${name} rsi ${p}`);
    }
    const r = rsi(withNaN, 14);
    expect(Number.isNaN(r[249])).toBe(false);
    for (let i = 250; i < r.length; i++) expect(r[i]).toBeNaN();
  });

  it("Bollinger's one pass gives the SMA as middle band and middle +/- STDDEV as bands, bit for bit", () => {
    for (const s of SERIES) {
      for (const [p, d] of [[1, 2], [2, 2], [5, 1.5], [20, 2], [50, 3]]) {
        const b = bollinger(s.close, p, d);
        const m = sma(s.close, p);
        const sd = stddev(s.close, p, d);
        sameBits(b.middle, m, `${s.name} ${p} middle`);
        sameBits(b.upper, m.map((v, i) => v + sd[i]), `${s.name} ${p} upper`);
        sameBits(b.lower, m.map((v, i) => v - sd[i]), `${s.name} ${p} lower`);
      }
    }
  });

  it('Bollinger bandwidth is computed when first read, then kept, and is an ordinary enumerable field', () => {
    const b = bollinger(SERIES[0].close, 20, 2);
    expect(Object.getOwnPropertyDescriptor(b, 'bandwidth')?.get).toBeDefined();
    const first = b.bandwidth;
    expect(b.bandwidth).toBe(first);
    expect(Object.keys(b).sort()).toEqual(['bandwidth', 'lower', 'middle', 'upper']);
    expect({ ...b }.bandwidth).toBe(first);
  });

  it('the deviation is right across its re-summation blocks, whatever the series length', () => {
    const { close, level } = SERIES[2];
    for (const p of [2, 3, 20]) {
      for (let n = p - 1; n <= 4 * (p + 1) + p; n++) {
        const c = close.subarray(0, n);
        expectClose(stddev(c, p), refStddev(c, p), level, `stddev ${p} on ${n} bars`);
        expectClose(bollinger(c, p, 2).upper, refBollinger(c, p, 2).upper, level, `bollinger ${p} on ${n} bars`);
      }
    }
  });
});
