/**
 * Rank IC and the Newey-West t-statistic (subgraphs/analysis/engine/evidence/ic.ts): hand-computed cases,
 * independent reference implementations (test/reference/statistics.ts) and a size check of the t-test on
 * autocorrelated noise.
 */
import {
  averageRanks,
  dailyIc,
  icSummary,
  neweyWest,
  neweyWestLag,
  partialSpearman,
  spearman,
} from '../../../../subgraphs/analysis/engine/evidence/ic.js';
import { createPrng } from '../../../../subgraphs/analysis/engine/prng.js';
import { averageRanksByCounting, neweyWestReference, pearson, spearmanReference } from '../../../reference/statistics.js';

describe('averageRanks', () => {
  it('gives tied values the mean of the ranks they span', () => {
    expect(Array.from(averageRanks([10, 20, 20, 30, 20]))).toEqual([1, 3, 3, 5, 3]);
    expect(Array.from(averageRanks([5, 5, 5, 5]))).toEqual([2.5, 2.5, 2.5, 2.5]);
    expect(Array.from(averageRanks([-0, 0, -1]))).toEqual([2.5, 2.5, 1]);
    expect(Array.from(averageRanks([]))).toEqual([]);
  });

  it('agrees with ranks by counting on random data with many ties', () => {
    const rng = createPrng(11);
    for (let trial = 0; trial < 20; trial++) {
      const values = Array.from({ length: 1 + rng.int(60) }, () => rng.int(8) - 3);
      expect(Array.from(averageRanks(values))).toEqual(averageRanksByCounting(values));
    }
  });

  it('refuses a non-finite value', () => {
    expect(() => averageRanks([1, NaN])).toThrow(RangeError);
    expect(() => averageRanks([1, Infinity])).toThrow(RangeError);
  });
});

describe('spearman', () => {
  it('matches a hand-computed case with ties in both variables (29/38)', () => {
    // x ranks [1, 2.5, 2.5, 4, 5], y ranks [2, 1, 3.5, 3.5, 5]; deviations from 3 give
    // sum dx dy = 7.25, sum dx^2 = sum dy^2 = 9.5, so rho = 7.25 / 9.5 = 29/38.
    expect(spearman([1, 2, 2, 3, 4], [2, 1, 3, 3, 5])).toBeCloseTo(29 / 38, 14);
  });

  it('is 1 or -1 for monotone relations and ignores non-finite pairs', () => {
    expect(spearman([1, 2, 3, 4], [1, 8, 27, 64])).toBeCloseTo(1, 14);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 14);
    expect(spearman([1, NaN, 2, 3, 4, 9], [1, 5, 8, 27, 64, Infinity])).toBeCloseTo(1, 14);
  });

  it('is NaN when undefined (fewer than 2 pairs, or a constant side)', () => {
    expect(spearman([1], [2])).toBeNaN();
    expect(spearman([1, 2, 3], [4, 4, 4])).toBeNaN();
    expect(spearman([NaN, 1], [1, 2])).toBeNaN();
    expect(() => spearman([1, 2], [1])).toThrow(RangeError);
  });

  it('agrees with the reference on random data with ties', () => {
    const rng = createPrng(12);
    for (let trial = 0; trial < 30; trial++) {
      const n = 3 + rng.int(80);
      const x = Array.from({ length: n }, () => rng.int(6));
      const y = x.map((v) => Math.round(v * rng.uniform(-1, 2) + 3 * rng.normal()));
      const expected = spearmanReference(x, y);
      if (Number.isNaN(expected)) expect(spearman(x, y)).toBeNaN();
      else expect(spearman(x, y)).toBeCloseTo(expected, 12);
    }
  });
});

describe('partialSpearman', () => {
  it('equals the first-order partial correlation formula on ranks for one control', () => {
    const rng = createPrng(13);
    for (let trial = 0; trial < 10; trial++) {
      const n = 20 + rng.int(100);
      const z = Array.from({ length: n }, () => rng.normal());
      const x = z.map((v) => v + rng.normal());
      const y = z.map((v, i) => 0.5 * v + 0.3 * x[i] + rng.normal());
      const [rx, ry, rz] = [x, y, z].map(averageRanksByCounting);
      const rxy = pearson(rx, ry);
      const rxz = pearson(rx, rz);
      const ryz = pearson(ry, rz);
      const expected = (rxy - rxz * ryz) / Math.sqrt((1 - rxz ** 2) * (1 - ryz ** 2));
      expect(partialSpearman(x, y, [z])).toBeCloseTo(expected, 10);
    }
  });

  it('removes a correlation that runs only through the control', () => {
    const rng = createPrng(14);
    const n = 3000;
    const z = Array.from({ length: n }, () => rng.normal());
    const x = z.map((v) => v + 0.5 * rng.normal());
    const y = z.map((v) => v + 0.5 * rng.normal());
    expect(spearman(x, y)).toBeGreaterThan(0.7);
    expect(Math.abs(partialSpearman(x, y, [z]))).toBeLessThan(0.06);
  });

  it('equals spearman without controls, skips redundant controls, and is NaN when a control explains x', () => {
    const x = [3, 1, 4, 1, 5, 9, 2, 6];
    const y = [2, 7, 1, 8, 2, 8, 1, 8];
    const z = [1, 2, 3, 4, 5, 6, 7, 8];
    expect(partialSpearman(x, y, [])).toBeCloseTo(spearman(x, y), 14);
    expect(partialSpearman(x, y, [z, z.map((v) => 2 * v + 1), [0, 0, 0, 0, 0, 0, 0, 0]])).toBeCloseTo(partialSpearman(x, y, [z]), 12);
    expect(partialSpearman(x, y, [x.map((v) => v * 10)])).toBeNaN();
  });
});

describe('dailyIc', () => {
  it('computes one IC per date with enough pairs, in date order', () => {
    const dates = ['2024-01-02', '2024-01-01', '2024-01-02', '2024-01-01', '2024-01-02', '2024-01-01', '2024-01-03', '2024-01-01'];
    const scores = [1, 1, 2, 2, 3, 3, 1, NaN];
    const outcomes = [3, 0.1, 2, 0.2, 1, 0.3, 5, 0.4];
    const daily = dailyIc(dates, scores, outcomes, { minCrossSection: 3 });
    expect(daily).toEqual([
      { date: '2024-01-01', ic: expect.closeTo(1, 14) as unknown as number, n: 3 },
      { date: '2024-01-02', ic: expect.closeTo(-1, 14) as unknown as number, n: 3 },
    ]);
    expect(dailyIc(dates, scores, outcomes, { minCrossSection: 4 })).toEqual([]);
    expect(() => dailyIc(dates, scores, outcomes, { minCrossSection: 1 })).toThrow(RangeError);
    expect(() => dailyIc(dates, scores, [1])).toThrow(RangeError);
  });

  it('uses the partial rank correlation when controls are given', () => {
    const rng = createPrng(15);
    const dates: string[] = [];
    const scores: number[] = [];
    const outcomes: number[] = [];
    const momentum: number[] = [];
    for (let d = 0; d < 40; d++) {
      for (let s = 0; s < 50; s++) {
        const m = rng.normal();
        dates.push(`2020-${String(1 + (d % 12)).padStart(2, '0')}-${String(1 + Math.floor(d / 12)).padStart(2, '0')}`);
        momentum.push(m);
        scores.push(m + 0.3 * rng.normal());
        outcomes.push(0.2 * m + rng.normal());
      }
    }
    const raw = icSummary(dailyIc(dates, scores, outcomes));
    const controlled = icSummary(dailyIc(dates, scores, outcomes, { controls: [momentum] }));
    expect(raw.mean as number).toBeGreaterThan(0.1);
    expect(Math.abs(controlled.mean as number)).toBeLessThan(0.05);
  });
});

describe('neweyWest', () => {
  it('matches the worked example 1..5 (lag 1: S = 2 + 2 * 0.5 * 0.8 = 2.8, se = sqrt(2.8 / 5))', () => {
    // mean 3, deviations -2..2: gamma_0 = 10/5 = 2, gamma_1 = (2 + 0 + 0 + 2)/5 = 0.8, Bartlett weight 1/2.
    const result = neweyWest([1, 2, 3, 4, 5], { lag: 1 });
    expect(result).not.toBeNull();
    expect(result?.mean).toBe(3);
    expect(result?.se).toBeCloseTo(Math.sqrt(0.56), 14);
    expect(result?.t).toBeCloseTo(3 / Math.sqrt(0.56), 12);
    expect(result?.lag).toBe(1);
    // Lag 0: the standard error of the mean with divisor T, sqrt(2 / 5).
    expect(neweyWest([1, 2, 3, 4, 5], { lag: 0 })?.se).toBeCloseTo(Math.sqrt(0.4), 14);
  });

  it('agrees with the double-sum reference on random autocorrelated series', () => {
    const rng = createPrng(16);
    for (let trial = 0; trial < 12; trial++) {
      const n = 5 + rng.int(300);
      const x: number[] = [];
      let v = 0;
      for (let t = 0; t < n; t++) x.push((v = 0.6 * v + rng.normal() + 0.1));
      const lag = rng.int(12);
      const expected = neweyWestReference(x, Math.min(lag, n - 1));
      const result = neweyWest(x, { lag });
      expect(result?.mean).toBeCloseTo(expected.mean, 12);
      expect(result?.se).toBeCloseTo(expected.se, 12);
      expect(result?.t).toBeCloseTo(expected.t, 9);
    }
  });

  it('follows the documented lag rule floor(4 (T/100)^(2/9)), raised to minLag and capped at T - 1', () => {
    expect([50, 100, 500, 1000].map(neweyWestLag)).toEqual([3, 4, 5, 6]);
    const x = Array.from({ length: 100 }, (_, t) => Math.sin(t));
    expect(neweyWest(x)?.lag).toBe(4);
    expect(neweyWest(x, { minLag: 11 })?.lag).toBe(11);
    expect(neweyWest(x, { minLag: 2 })?.lag).toBe(4);
    expect(neweyWest([1, 2, 4], { lag: 10 })?.lag).toBe(2);
  });

  it('has no statistic with fewer than 2 values, no t when the series is constant, and refuses bad input', () => {
    expect(neweyWest([1])).toBeNull();
    expect(neweyWest([])).toBeNull();
    expect(neweyWest([2, 2, 2])?.t).toBeNull();
    expect(() => neweyWest([1, NaN])).toThrow(RangeError);
    expect(() => neweyWest([1, 2], { lag: -1 })).toThrow(RangeError);
    expect(() => neweyWest([1, 2], { lag: 1.5 })).toThrow(RangeError);
  });

  it('keeps a 5% test on AR(1) noise near its size (2-10% rejections) where the plain standard error rejects over 15%', () => {
    // 300 series of T = 500 with phi = 0.5 and mean 0: |t| > 1.96 should happen ~5% of the time.
    let rejectNw = 0;
    let rejectPlain = 0;
    const seeds = 300;
    for (let seed = 0; seed < seeds; seed++) {
      const rng = createPrng(seed, 77);
      const x = new Float64Array(500);
      let v = 0;
      for (let t = 0; t < x.length; t++) x[t] = v = 0.5 * v + rng.normal();
      if (Math.abs(neweyWest(x, { minLag: 10 })?.t as number) > 1.96) rejectNw++;
      if (Math.abs(neweyWest(x, { lag: 0 })?.t as number) > 1.96) rejectPlain++;
    }
    process.stdout.write(`Newey-West size on AR(1): ${rejectNw}/${seeds} rejections (plain SE: ${rejectPlain}/${seeds})\n`);
    expect(rejectNw / seeds).toBeGreaterThanOrEqual(0.02);
    expect(rejectNw / seeds).toBeLessThanOrEqual(0.1);
    expect(rejectPlain / seeds).toBeGreaterThan(0.15);
  });
});

describe('icSummary', () => {
  it('reports dates, mean, Newey-West t and the share of positive dates; nulls when empty', () => {
    const daily = [0.1, 0.2, 0.3, 0.4, 0.5].map((ic, k) => ({ date: `2024-01-0${k + 1}`, ic, n: 10 }));
    const summary = icSummary(daily, { lag: 1 });
    expect(summary.dates).toBe(5);
    expect(summary.mean).toBeCloseTo(0.3, 14);
    expect(summary.se).toBeCloseTo(Math.sqrt(0.56) / 10, 14);
    expect(summary.t).toBeCloseTo(3 / Math.sqrt(0.56), 10);
    expect(summary.positiveShare).toBe(1);
    expect(icSummary([])).toEqual({ dates: 0, mean: null, se: null, t: null, lag: null, positiveShare: null });
    expect(icSummary([{ date: '2024-01-01', ic: -0.2, n: 5 }])).toEqual({ dates: 1, mean: -0.2, se: null, t: null, lag: null, positiveShare: 0 });
  });
});
