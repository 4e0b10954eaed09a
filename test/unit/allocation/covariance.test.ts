/**
 * Ledoit-Wolf covariance and return alignment.
 *
 * The estimator is checked three ways: an exact hand-computed 3 x 2 case, a 4 x 3 case whose expected
 * values come from scikit-learn's `ledoit_wolf` formula evaluated in float64 (numpy), and properties on
 * random return matrices against a reference written below straight from the paper's definitions
 * (d^2 = ||S - mI||^2, b^2 = min(d^2, (1/T^2) sum_t ||x_t x_t' - S||^2), shrinkage = b^2 / d^2), which is a
 * different computation from the implementation's (it never forms the per-day outer products).
 */
import fc from 'fast-check';
import {
  MIN_ALIGNED_RETURNS,
  VOL_WINDOW_DAYS,
  alignedReturns,
  dailyReturns,
  ledoitWolf,
  quadraticForm,
} from '../../../subgraphs/allocation/engine/covariance.js';
import { closeSeries, tradingDates } from './fixtures.js';

/** A cheap assertion for property bodies (fast-check reports the counterexample with the message). */
function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

function close(a: number, b: number, rel = 1e-12, abs = 1e-18): boolean {
  return Math.abs(a - b) <= Math.max(abs, rel * Math.max(Math.abs(a), Math.abs(b)));
}

/** Ledoit & Wolf (2004) straight from the definitions (per-day outer products). */
function referenceLedoitWolf(rows: number[][]): { cov: number[][]; shrinkage: number } {
  const T = rows.length;
  const N = rows[0].length;
  const mean = Array.from({ length: N }, (_, i) => rows.reduce((s, r) => s + r[i], 0) / T);
  const X = rows.map((r) => r.map((v, i) => v - mean[i]));
  const S = Array.from({ length: N }, (_, i) => Array.from({ length: N }, (_, j) => X.reduce((s, x) => s + x[i] * x[j], 0) / T));
  if (N === 1) return { cov: S, shrinkage: 0 };
  const m = S.reduce((s, r, i) => s + r[i], 0) / N;
  let d2 = 0;
  for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) d2 += (S[i][j] - (i === j ? m : 0)) ** 2;
  d2 /= N;
  let bbar2 = 0;
  for (const x of X) {
    for (let i = 0; i < N; i++) for (let j = 0; j < N; j++) bbar2 += (x[i] * x[j] - S[i][j]) ** 2;
  }
  bbar2 /= N * T * T;
  const b2 = Math.min(bbar2, d2);
  const shrinkage = d2 === 0 ? 0 : b2 / d2;
  const cov = S.map((r, i) => r.map((v, j) => (1 - shrinkage) * v + (i === j ? shrinkage * m : 0)));
  return { cov, shrinkage };
}

describe('ledoitWolf', () => {
  test('hand-computed 3 x 2 case', () => {
    // Demeaned columns: (-1, 1, 0) and (0, -2, 2). S = [[2/3, -2/3], [-2/3, 8/3]], mu = 5/3.
    // ||S||^2 = 76/9, delta = (76/9 - 2 * 25/9) / 2 = 13/9.
    // Row sums of squares 1, 5, 4 -> sum of squares 42; beta = (42/3 - 76/9) / 6 = 25/27 <= delta.
    // shrinkage = (25/27) / (13/9) = 25/39; cov = 14/39 S + (25/39)(5/3) I.
    const { covariance, shrinkage } = ledoitWolf([
      [1, 2],
      [3, 0],
      [2, 4],
    ]);
    expect(shrinkage).toBeCloseTo(25 / 39, 14);
    const expected = [17 / 13, -28 / 117, -28 / 117, 79 / 39];
    expected.forEach((v, k) => expect(covariance[k]).toBeCloseTo(v, 13));
  });

  test('4 x 3 case agrees with the scikit-learn formula', () => {
    const { covariance, shrinkage } = ledoitWolf([
      [0.01, -0.02, 0.005],
      [0.0, 0.01, -0.01],
      [0.02, 0.0, 0.01],
      [-0.01, 0.01, 0.0],
    ]);
    const expected = [
      0.00011816405092455402, -4.105597700468205e-5, 3.079198275351154e-5, -4.105597700468205e-5, 0.00013184937659278136,
      -2.7370651336454702e-5, 3.079198275351154e-5, -2.7370651336454702e-5, 7.96740724826646e-5,
    ];
    expect(close(shrinkage, 0.45258697327090597, 1e-12)).toBe(true);
    expected.forEach((v, k) => expect(close(covariance[k], v, 1e-11)).toBe(true));
  });

  test('one column: shrinkage 0 and the 1/T variance', () => {
    const { covariance, shrinkage } = ledoitWolf([[1], [2], [6]]);
    expect(shrinkage).toBe(0);
    // mean 3, deviations -2, -1, 3 -> (4 + 1 + 9) / 3
    expect(covariance[0]).toBeCloseTo(14 / 3, 14);
  });

  test('constant returns give a zero matrix and shrinkage 0', () => {
    const { covariance, shrinkage } = ledoitWolf([
      [0.01, 0.02],
      [0.01, 0.02],
      [0.01, 0.02],
    ]);
    expect(shrinkage).toBe(0);
    expect(Array.from(covariance)).toEqual([0, 0, 0, 0]);
  });

  test('rejects empty and ragged input', () => {
    expect(() => ledoitWolf([])).toThrow(RangeError);
    expect(() => ledoitWolf([[1, 2], [3]])).toThrow(RangeError);
    expect(ledoitWolf([[], []]).covariance.length).toBe(0);
  });

  const matrix = fc
    .record({ T: fc.integer({ min: 2, max: 40 }), N: fc.integer({ min: 1, max: 7 }) })
    .chain(({ T, N }) =>
      fc.array(fc.array(fc.integer({ min: -2000, max: 2000 }).map((v) => v / 10_000), { minLength: N, maxLength: N }), {
        minLength: T,
        maxLength: T,
      }),
    );

  test('property: matches the definition-based reference; symmetric, trace-preserving, PSD, shrinkage in [0, 1]', () => {
    fc.assert(
      fc.property(matrix, fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 7, maxLength: 7 }), (rows, x) => {
        const N = rows[0].length;
        const { covariance, shrinkage } = ledoitWolf(rows);
        const ref = referenceLedoitWolf(rows);
        check(shrinkage >= 0 && shrinkage <= 1, `shrinkage ${shrinkage} outside [0, 1]`);
        const scale = Math.max(1e-30, ...ref.cov.map((r, i) => Math.abs(r[i])));
        check(Math.abs(shrinkage - ref.shrinkage) <= 1e-6 + 1e-6 * ref.shrinkage, `shrinkage ${shrinkage} vs reference ${ref.shrinkage}`);
        let traceRef = 0;
        let trace = 0;
        for (let i = 0; i < N; i++) {
          trace += covariance[i * N + i];
          traceRef += ref.cov[i][i];
          check(covariance[i * N + i] >= 0, `negative variance at ${i}`);
          for (let j = 0; j < N; j++) {
            check(covariance[i * N + j] === covariance[j * N + i], `not symmetric at ${i}, ${j}`);
            const err = Math.abs(covariance[i * N + j] - ref.cov[i][j]);
            check(err <= 1e-9 * scale, `entry ${i}, ${j} is ${covariance[i * N + j]}, reference ${ref.cov[i][j]}`);
          }
        }
        check(Math.abs(trace - traceRef) <= 1e-12 * Math.max(1e-30, traceRef) + 1e-300, `trace ${trace} vs reference ${traceRef}`);
        // Positive semi-definite: x'Cx >= 0 (up to rounding) for an arbitrary direction.
        const q = quadraticForm(covariance, x.slice(0, N));
        check(q >= -1e-12 * scale * N, `x'Cx = ${q} < 0`);
      }),
      { numRuns: 300 },
    );
  });

  test('property: scaling returns by c scales the covariance by c^2 and keeps the shrinkage; column order is equivariant', () => {
    fc.assert(
      fc.property(matrix, fc.double({ min: 0.1, max: 10, noNaN: true }), (rows, c) => {
        const N = rows[0].length;
        const base = ledoitWolf(rows);
        const scaled = ledoitWolf(rows.map((r) => r.map((v) => v * c)));
        check(Math.abs(scaled.shrinkage - base.shrinkage) <= 1e-6, `shrinkage ${scaled.shrinkage} vs ${base.shrinkage}`);
        const scale = Math.max(1e-30, ...Array.from({ length: N }, (_, i) => Math.abs(base.covariance[i * N + i])));
        for (let k = 0; k < N * N; k++) {
          const err = Math.abs(scaled.covariance[k] - c * c * base.covariance[k]);
          check(err <= 1e-8 * c * c * scale, `entry ${k} scaled by ${c}: off by ${err}`);
        }
        const reversed = ledoitWolf(rows.map((r) => r.slice().reverse()));
        for (let i = 0; i < N; i++) {
          for (let j = 0; j < N; j++) {
            const a = reversed.covariance[(N - 1 - i) * N + (N - 1 - j)];
            check(Math.abs(a - base.covariance[i * N + j]) <= 1e-12 * scale, `reversed columns differ at ${i}, ${j}`);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  test('uncorrelated equal-variance columns shrink toward a scaled identity and stay well conditioned', () => {
    // More names than days: the sample covariance is singular, the shrunk one is not.
    const N = 30;
    const rows = Array.from({ length: 20 }, (_, t) => Array.from({ length: N }, (_, i) => Math.sin(1.7 * t + 0.9 * i * i) * 0.01));
    const { covariance, shrinkage } = ledoitWolf(rows);
    expect(shrinkage).toBeGreaterThan(0);
    // Cholesky succeeds: positive definite.
    const L = new Float64Array(N * N);
    for (let i = 0; i < N; i++) {
      for (let j = 0; j <= i; j++) {
        let s = covariance[i * N + j];
        for (let k2 = 0; k2 < j; k2++) s -= L[i * N + k2] * L[j * N + k2];
        if (i === j) {
          expect(s).toBeGreaterThan(0);
          L[i * N + i] = Math.sqrt(s);
        } else L[i * N + j] = s / L[j * N + j];
      }
    }
  });
});

describe('dailyReturns and alignedReturns', () => {
  test('simple returns of consecutive closes', () => {
    const r = dailyReturns([100, 110, 99]);
    expect(r).toHaveLength(2);
    expect(r[0]).toBeCloseTo(0.1, 15);
    expect(r[1]).toBeCloseTo(-0.1, 15);
    expect(dailyReturns([5])).toEqual([]);
  });

  test('returns are taken on dates common to all series, spanning gaps', () => {
    const a = { dates: ['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04'], closes: [100, 101, 102, 104] };
    const b = { dates: ['2024-01-01', '2024-01-03', '2024-01-04', '2024-01-05'], closes: [50, 51, 52, 60] };
    const { dates, returns } = alignedReturns([a, b]);
    expect(dates).toEqual(['2024-01-03', '2024-01-04']);
    expect(returns[0][0]).toBeCloseTo(102 / 100 - 1, 15);
    expect(returns[0][1]).toBeCloseTo(51 / 50 - 1, 15);
    expect(returns[1][0]).toBeCloseTo(104 / 102 - 1, 15);
    expect(returns[1][1]).toBeCloseTo(52 / 51 - 1, 15);
  });

  test('unusable closes remove their date; the window keeps the most recent returns', () => {
    const dates = tradingDates(10);
    const a = { dates, closes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] };
    const b = { dates, closes: [1, 2, 3, NaN, 5, 0, 7, 8, 9, 10] };
    const all = alignedReturns([a, b]);
    expect(all.dates).toEqual([dates[1], dates[2], dates[4], dates[6], dates[7], dates[8], dates[9]]);
    expect(all.returns[2][0]).toBeCloseTo(5 / 3 - 1, 15);
    const last3 = alignedReturns([a, b], 3);
    expect(last3.dates).toEqual([dates[7], dates[8], dates[9]]);
    expect(last3.returns[0][1]).toBeCloseTo(8 / 7 - 1, 15);
  });

  test('the default window is 252 returns; nothing in common gives nothing', () => {
    const s1 = closeSeries({ seed: 1, days: 400 });
    const s2 = closeSeries({ seed: 2, days: 400, gaps: [399, 398] });
    const { dates, returns } = alignedReturns([s1, s2]);
    expect(returns).toHaveLength(VOL_WINDOW_DAYS);
    expect(dates[dates.length - 1]).toBe(s2.dates[s2.dates.length - 1]);
    const disjoint = alignedReturns([
      { dates: ['2024-01-01', '2024-01-02'], closes: [1, 2] },
      { dates: ['2024-01-03', '2024-01-04'], closes: [1, 2] },
    ]);
    expect(disjoint.returns).toEqual([]);
    expect(alignedReturns([]).returns).toEqual([]);
    expect(MIN_ALIGNED_RETURNS).toBe(20);
  });

  test('property: aligned returns equal returns computed from the intersection of dates', () => {
    const seriesArb = fc.record({
      seed: fc.integer({ min: 1, max: 10_000 }),
      days: fc.integer({ min: 1, max: 60 }),
      gaps: fc.array(fc.integer({ min: 0, max: 59 }), { maxLength: 10 }),
    });
    fc.assert(
      fc.property(fc.array(seriesArb, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 70 }), (specs, window) => {
        const series = specs.map((s) => closeSeries(s));
        const common = series
          .map((s) => new Set(s.dates))
          .reduce((acc, set) => new Set([...acc].filter((d) => set.has(d))));
        const commonDates = [...common].sort().slice(-(window + 1));
        const { dates, returns } = alignedReturns(series, window);
        const expected = commonDates.slice(1);
        check(dates.length === expected.length && dates.every((d, t) => d === expected[t]), `dates ${dates} vs ${expected}`);
        check(returns.length === dates.length, `${returns.length} rows for ${dates.length} dates`);
        returns.forEach((row, t) => {
          series.forEach((s, i) => {
            const cur = s.closes[s.dates.indexOf(commonDates[t + 1])];
            const prev = s.closes[s.dates.indexOf(commonDates[t])];
            check(row[i] === cur / prev - 1, `return of series ${i} on ${commonDates[t + 1]}: ${row[i]} vs ${cur / prev - 1}`);
          });
        });
      }),
      { numRuns: 200 },
    );
  });
});
