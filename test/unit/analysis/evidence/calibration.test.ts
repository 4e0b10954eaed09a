/**
 * Calibration (subgraphs/analysis/engine/evidence/calibration.ts): pool-adjacent-violators against the
 * min-max formula, recovery of known probability curves (ECE measured on an independent sample), shrinkage
 * toward the base rate with little data, and the metrics on hand-computed cases.
 */
import {
  brierScore,
  calibrate,
  calibrateAll,
  calibrationMetrics,
  expectedCalibrationError,
  fitCalibrator,
  fitIsotonic,
  fitPlatt,
  reliabilityTable,
  wilsonInterval,
  type Calibrator,
  type IsotonicCalibrator,
} from '../../../../subgraphs/analysis/engine/evidence/calibration.js';
import { createPrng, type Prng } from '../../../../subgraphs/analysis/engine/prng.js';
import { isotonicByMinMax } from '../../../reference/statistics.js';

/** n (score, outcome) pairs: score drawn by `draw`, outcome 1 with probability truth(score). */
function sample(seed: number, n: number, truth: (s: number) => number, draw: (rng: Prng) => number): { s: Float64Array; y: Uint8Array } {
  const rng = createPrng(seed, 5);
  const s = new Float64Array(n);
  const y = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    s[i] = draw(rng);
    y[i] = rng.next() < truth(s[i]) ? 1 : 0;
  }
  return { s, y };
}

const sigmoid = (f: number): number => 1 / (1 + Math.exp(-f));

/** Mean absolute distance between the calibrated curve and the truth on a grid of scores. */
function curveError(calibrator: Calibrator, truth: (s: number) => number, grid: number[]): number {
  return grid.reduce((sum, s) => sum + Math.abs(calibrate(calibrator, s) - truth(s)), 0) / grid.length;
}

describe('isotonic regression (pool-adjacent-violators)', () => {
  it('equals the min-max formula on random data (no shrinkage)', () => {
    const rng = createPrng(21);
    for (let trial = 0; trial < 25; trial++) {
      const n = 1 + rng.int(40);
      const scores = Array.from({ length: n }, (_, i) => i * 1.5 + rng.next()); // distinct, increasing
      const labels = scores.map(() => (rng.next() < 0.4 ? 1 : 0));
      const calibrator = fitIsotonic(scores, labels, { priorStrength: 0 }) as IsotonicCalibrator;
      const expected = isotonicByMinMax(labels);
      scores.forEach((s, i) => expect(calibrate(calibrator, s)).toBeCloseTo(expected[i], 12));
    }
  });

  it('pools tied scores first, keeps the training mean, and interpolates between blocks', () => {
    // Scores 1, 1 (labels 1, 0) must map to one value; then 2 -> 0 violates and pools with them.
    const calibrator = fitIsotonic([1, 1, 2, 3, 4], [1, 0, 0, 1, 1], { priorStrength: 0 }) as IsotonicCalibrator;
    expect(calibrator.blocks).toEqual([
      { low: 1, high: 2, n: 3, positives: 1, value: 1 / 3 },
      { low: 3, high: 4, n: 2, positives: 2, value: 1 },
    ]);
    expect(calibrate(calibrator, 0)).toBeCloseTo(1 / 3, 14);
    expect(calibrate(calibrator, 2.5)).toBeCloseTo(2 / 3, 14);
    expect(calibrate(calibrator, 9)).toBe(1);
    expect(calibrate(calibrator, NaN)).toBeNaN();
    const fitted = [1, 1, 2, 3, 4].map((s) => calibrate(calibrator, s));
    expect(fitted.reduce((a, b) => a + b, 0) / 5).toBeCloseTo(3 / 5, 14);
  });

  it('ignores non-finite scores, returns null without any, and refuses labels other than 0 and 1', () => {
    expect(fitIsotonic([NaN, 1, Infinity], [1, 0, 1])?.n).toBe(1);
    expect(fitIsotonic([NaN], [1])).toBeNull();
    expect(fitIsotonic([], [])).toBeNull();
    expect(() => fitIsotonic([1, 2], [0, 2])).toThrow(RangeError);
    expect(() => fitIsotonic([1, 2], [0])).toThrow(RangeError);
    expect(() => fitIsotonic([1, 2], [0, 1], { priorStrength: -1 })).toThrow(RangeError);
    expect(() => fitIsotonic([1, 2], [0, 1], { baseRate: 1.5 })).toThrow(RangeError);
    expect(() => fitCalibrator([1, 2], [0, 1], { method: 'beta' as 'platt' })).toThrow(RangeError);
  });
});

describe('recovering a known probability curve', () => {
  const grid = Array.from({ length: 200 }, (_, i) => (i + 0.5) / 200);

  it('isotonic: ECE below 0.02 on 50,000 fresh samples of a non-linear curve (p = 0.05 + 0.9 s^2)', () => {
    const truth = (s: number): number => 0.05 + 0.9 * s * s;
    const train = sample(1, 50_000, truth, (rng) => rng.next());
    const test = sample(2, 50_000, truth, (rng) => rng.next());
    const calibrator = fitCalibrator(train.s, train.y) as IsotonicCalibrator;
    const ece = expectedCalibrationError(calibrateAll(calibrator, test.s), test.y);
    const raw = expectedCalibrationError(test.s, test.y);
    const error = curveError(calibrator, truth, grid);
    process.stdout.write(`isotonic: ECE ${ece.toFixed(4)} (raw score ${raw.toFixed(4)}), mean |p - truth| ${error.toFixed(4)}, ${calibrator.blocks.length} blocks\n`);
    expect(ece).toBeLessThan(0.02);
    expect(raw).toBeGreaterThan(0.1); // the raw score is far from calibrated, so the calibrator did the work
    expect(error).toBeLessThan(0.02);
    for (let k = 1; k < calibrator.blocks.length; k++) expect(calibrator.blocks[k].value).toBeGreaterThan(calibrator.blocks[k - 1].value);
  });

  it('Platt: recovers a and b of a logistic curve (p = sigmoid(2.5 s - 1)) and ECE below 0.02 on 50,000 fresh samples', () => {
    const truth = (s: number): number => sigmoid(2.5 * s - 1);
    const train = sample(3, 50_000, truth, (rng) => rng.normal());
    const test = sample(4, 50_000, truth, (rng) => rng.normal());
    const calibrator = fitPlatt(train.s, train.y);
    if (calibrator === null) throw new Error('no fit');
    const ece = expectedCalibrationError(calibrateAll(calibrator, test.s), test.y);
    process.stdout.write(`Platt: a ${calibrator.a.toFixed(3)}, b ${calibrator.b.toFixed(3)}, ECE ${ece.toFixed(4)}\n`);
    expect(calibrator.a).toBeCloseTo(2.5, 1);
    expect(calibrator.b).toBeCloseTo(-1, 1);
    expect(ece).toBeLessThan(0.02);
  });

  it('Platt is invariant to the score scale (fitted on standardised scores)', () => {
    const truth = (s: number): number => sigmoid(0.002 * (s - 5000));
    const train = sample(5, 5_000, truth, (rng) => 5000 + 1000 * rng.normal());
    const scaled = fitPlatt(train.s, train.y);
    const unit = fitPlatt(
      Float64Array.from(train.s, (s) => (s - 5000) / 1000),
      train.y,
    );
    if (scaled === null || unit === null) throw new Error('no fit');
    for (const s of [3000, 4500, 5000, 6200]) expect(calibrate(scaled, s)).toBeCloseTo(calibrate(unit, (s - 5000) / 1000), 8);
  });
});

describe('shrinkage toward the base rate', () => {
  it('with 4 rows the isotonic values stay within 0.05 of the base rate (m = 20); without shrinkage they are 0 and 1', () => {
    const scores = [1, 2, 3, 4];
    const labels = [0, 0, 1, 1];
    const shrunk = fitIsotonic(scores, labels) as IsotonicCalibrator;
    expect(shrunk.baseRate).toBe(0.5);
    expect(shrunk.priorStrength).toBe(20);
    // Blocks {1,2} and {3,4}: (0 + 10) / 22 and (2 + 10) / 22.
    expect(calibrate(shrunk, 1)).toBeCloseTo(10 / 22, 14);
    expect(calibrate(shrunk, 4)).toBeCloseTo(12 / 22, 14);
    const raw = fitIsotonic(scores, labels, { priorStrength: 0 }) as IsotonicCalibrator;
    expect([calibrate(raw, 1), calibrate(raw, 4)]).toEqual([0, 1]);
  });

  it('with 3 rows every calibrated value is within n / (n + m) of the base rate, for both methods', () => {
    const rng = createPrng(22);
    for (let trial = 0; trial < 30; trial++) {
      const scores = [rng.normal(), rng.normal(), rng.normal()];
      const labels = scores.map(() => (rng.next() < 0.5 ? 1 : 0));
      for (const method of ['isotonic', 'platt'] as const) {
        const calibrator = fitCalibrator(scores, labels, { method }) as Calibrator;
        for (const s of [-3, -1, 0, 1, 3, ...scores]) {
          expect(Math.abs(calibrate(calibrator, s) - calibrator.baseRate)).toBeLessThanOrEqual(3 / 23 + 1e-12);
        }
      }
    }
  });

  it('shrinks toward a given base rate and pools again where shrinking broke monotonicity', () => {
    // 1000 rows at rate 0.4, then 1 row at rate 1. Toward p0 = 0.1 the small block would shrink to
    // (1 + 2) / 21 = 0.143 < 0.4, so the two are pooled and shrunk once: (401 + 2) / (1001 + 20).
    const scores = [...Array.from({ length: 1000 }, () => 0), 1];
    const labels = [...Array.from({ length: 1000 }, (_, i) => (i < 400 ? 1 : 0)), 1];
    const calibrator = fitIsotonic(scores, labels, { baseRate: 0.1 }) as IsotonicCalibrator;
    expect(calibrator.blocks).toHaveLength(1);
    expect(calibrate(calibrator, 1)).toBeCloseTo(403 / 1021, 14);
    expect(calibrate(calibrator, 0)).toBeCloseTo(403 / 1021, 14);
  });

  it('Platt with little data: separable rows stay near the base rate with shrinkage and go to the extremes without', () => {
    const scores = [0, 1, 2, 3, 4, 5];
    const labels = [0, 0, 0, 1, 1, 1];
    const shrunk = fitPlatt(scores, labels);
    const raw = fitPlatt(scores, labels, { priorStrength: 0 });
    if (shrunk === null || raw === null) throw new Error('no fit');
    expect(Math.abs(calibrate(shrunk, 5) - 0.5)).toBeLessThanOrEqual(6 / 26);
    expect(calibrate(raw, 5)).toBeGreaterThan(0.75); // Platt's targets keep it below 1
    expect(calibrate(raw, 5)).toBeLessThan(1);
    expect(Number.isFinite(raw.a) && Number.isFinite(raw.b)).toBe(true);
  });

  it('is plain JSON: a stored calibrator gives the same probabilities', () => {
    const train = sample(6, 2_000, (s) => 0.2 + 0.6 * s, (rng) => rng.next());
    for (const method of ['isotonic', 'platt'] as const) {
      const calibrator = fitCalibrator(train.s, train.y, { method }) as Calibrator;
      const stored = JSON.parse(JSON.stringify(calibrator)) as Calibrator;
      for (const s of [0, 0.13, 0.5, 0.77, 1]) expect(calibrate(stored, s)).toBe(calibrate(calibrator, s));
    }
  });
});

describe('metrics', () => {
  it('Brier score: mean squared error of the probabilities (hand case 0.09)', () => {
    expect(brierScore([0.1, 0.9, 0.5], [0, 1, 1])).toBeCloseTo(0.09, 14);
    expect(brierScore([], [])).toBeNaN();
    expect(() => brierScore([1.2], [1])).toThrow(RangeError);
    expect(() => brierScore([NaN], [1])).toThrow(RangeError);
  });

  it('ECE over ten equal-width bins (hand case 0.2)', () => {
    // Bin 0: p 0.05, y 0 -> 0.05; bin 1: p 0.15 twice, y 1 and 0 -> |0.5 - 0.15| = 0.35; bin 9: 0.95 vs 1 -> 0.05.
    expect(expectedCalibrationError([0.05, 0.15, 0.15, 0.95], [0, 1, 0, 1])).toBeCloseTo((0.05 + 2 * 0.35 + 0.05) / 4, 14);
    expect(expectedCalibrationError([0.3, 0.3], [0, 1])).toBeCloseTo(0.2, 14);
    expect(expectedCalibrationError([], [])).toBeNaN();
  });

  it('reliability table: ten decile rows with n, mean prediction, observed rate and its Wilson interval', () => {
    const table = reliabilityTable([0, 0.1, 0.15, 0.99, 1], [0, 0, 1, 1, 1]);
    expect(table).toHaveLength(10);
    expect(table.map((row) => row.n)).toEqual([1, 2, 0, 0, 0, 0, 0, 0, 0, 2]);
    expect(table[1]).toMatchObject({ low: 0.1, high: 0.2, n: 2, observedRate: 0.5 });
    expect(table[1].meanPredicted).toBeCloseTo(0.125, 14);
    expect(table[2]).toEqual({ low: 0.2, high: 0.3, n: 0, meanPredicted: null, observedRate: null, observedLow: null, observedHigh: null });
    const [low, high] = wilsonInterval(5, 10);
    expect(low).toBeCloseTo(0.2366, 4);
    expect(high).toBeCloseTo(0.7634, 4);
    expect(table[1].observedLow).toBeCloseTo(wilsonInterval(1, 2)[0], 14);
  });

  it('quantile bins hold equal numbers of rows', () => {
    const rng = createPrng(23);
    const p = Array.from({ length: 105 }, () => rng.next() ** 3);
    const y = p.map((v) => (rng.next() < v ? 1 : 0));
    const table = reliabilityTable(p, y, { strategy: 'quantile' });
    expect(table.map((row) => row.n)).toEqual([11, 10, 11, 10, 11, 10, 11, 10, 11, 10]);
    for (let k = 1; k < 10; k++) expect(table[k].low as number).toBeGreaterThanOrEqual(table[k - 1].high as number);
    expect(() => reliabilityTable(p, y, { bins: 0 })).toThrow(RangeError);
  });

  it('calibrationMetrics bundles Brier, its base-rate reference, ECE and the table', () => {
    const metrics = calibrationMetrics([0.05, 0.15, 0.15, 0.95], [0, 1, 0, 1]);
    expect(metrics.n).toBe(4);
    expect(metrics.baseRate).toBe(0.5);
    expect(metrics.brierReference).toBe(0.25);
    expect(metrics.ece).toBeCloseTo(0.2, 14);
    expect(metrics.brier).toBeCloseTo(brierScore([0.05, 0.15, 0.15, 0.95], [0, 1, 0, 1]), 14);
    expect(metrics.reliability).toHaveLength(10);
    expect(calibrationMetrics([], [])).toMatchObject({ n: 0, baseRate: null, brier: null, ece: null });
  });
});
