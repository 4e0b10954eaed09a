/**
 * Baseline scores (subgraphs/analysis/engine/evidence/baselines.ts): hand-computed values on straight-line
 * closes, the history each one needs, unusable closes, and no look-ahead (bars after D never matter).
 */
import { baselinesAt, baselinesAtIndex } from '../../../../subgraphs/analysis/engine/evidence/baselines.js';
import { createPrng } from '../../../../subgraphs/analysis/engine/prng.js';

const rising = Array.from({ length: 301 }, (_, t) => 100 + t);
const falling = Array.from({ length: 301 }, (_, t) => 400 - t);

describe('baselinesAtIndex', () => {
  it('matches hand-computed values on a rising line (close 100 + t) at t = 300', () => {
    const b = baselinesAtIndex(rising, 300);
    expect(b.momentum_12_1).toBeCloseTo(379 / 148 - 1, 14); // close[279] / close[48] - 1
    expect(b.reversal_1m).toBeCloseTo(-(400 / 379 - 1), 14); // minus close[300] / close[279] - 1
    expect(b.above_sma_200).toBe(1); // 400 > mean(201 .. 400) = 300.5
    expect(b.high_52w_proximity).toBe(1); // the close is the 252-day high
  });

  it('matches hand-computed values on a falling line (close 400 - t) at t = 300', () => {
    const b = baselinesAtIndex(falling, 300);
    expect(b.momentum_12_1).toBeCloseTo(121 / 352 - 1, 14);
    expect(b.reversal_1m).toBeCloseTo(21 / 121, 14);
    expect(b.above_sma_200).toBe(0); // 100 < mean(100 .. 299) = 199.5
    expect(b.high_52w_proximity).toBeCloseTo(100 / 351, 14); // max of close[49 .. 300]
  });

  it('is NaN until each look-back is covered', () => {
    expect(Number.isNaN(baselinesAtIndex(rising, 251).momentum_12_1)).toBe(true);
    expect(baselinesAtIndex(rising, 252).momentum_12_1).toBeCloseTo(331 / 100 - 1, 14);
    expect(Number.isNaN(baselinesAtIndex(rising, 250).high_52w_proximity)).toBe(true);
    expect(baselinesAtIndex(rising, 251).high_52w_proximity).toBe(1);
    expect(Number.isNaN(baselinesAtIndex(rising, 198).above_sma_200)).toBe(true);
    expect(baselinesAtIndex(rising, 199).above_sma_200).toBe(1);
    expect(Number.isNaN(baselinesAtIndex(rising, 20).reversal_1m)).toBe(true);
    expect(baselinesAtIndex(rising, 21).reversal_1m).toBeCloseTo(-(121 / 100 - 1), 14);
    expect(baselinesAtIndex([5, 5, 5], 3).reversal_1m).toBeNaN();
    // A flat month is a reversal of exactly 0 (not -0).
    expect(Object.is(baselinesAtIndex(Array(30).fill(7), 29).reversal_1m, 0)).toBe(true);
  });

  it('is NaN where a close it reads is unusable', () => {
    const broken = [...rising];
    broken[80] = 0;
    const b = baselinesAtIndex(broken, 300);
    expect(b.above_sma_200).toBe(1); // reads 101 .. 300 only
    expect(b.high_52w_proximity).toBeNaN(); // reads 49 .. 300
    expect(b.momentum_12_1).toBeCloseTo(379 / 148 - 1, 14);
  });
});

describe('baselinesAt', () => {
  const dates = Array.from({ length: 400 }, (_, t) => `T${String(t).padStart(4, '0')}`);
  const rng = createPrng(9);
  const close = new Float64Array(400);
  close[0] = 80;
  for (let t = 1; t < 400; t++) close[t] = close[t - 1] * Math.exp(0.02 * rng.normal());

  it('reads the bar on the date, all NaN without one', () => {
    expect(baselinesAt({ symbol: 'X', dates, close }, dates[300])).toEqual(baselinesAtIndex(close, 300));
    expect(Object.values(baselinesAt({ symbol: 'X', dates, close }, 'T0300x')).every(Number.isNaN)).toBe(true);
  });

  it('never looks ahead: identical with and without any bar after D', () => {
    for (const at of [100, 260, 333]) {
      const cut = { symbol: 'X', dates: dates.slice(0, at + 1), close: close.slice(0, at + 1) };
      const full = baselinesAt({ symbol: 'X', dates, close }, dates[at]);
      expect(baselinesAt(cut, dates[at])).toEqual(full);
    }
    expect(Object.values(baselinesAt({ symbol: 'X', dates, close }, dates[333])).every(Number.isFinite)).toBe(true);
  });
});
