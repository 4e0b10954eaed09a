import {
  fitLogistic,
  modelAt,
  modelFromJson,
  modelToJson,
  predictProbability,
  fitWalkForward,
  planWalkForward,
  rocAuc,
  walkForward,
  walkForwardFitCounts,
  walkForwardFolds,
  type Dataset,
  type LogisticModel,
  type LogisticModelJson,
  type WalkForwardOptions,
  type WalkForwardResult,
} from '../../../subgraphs/analysis/engine/logistic.js';
import { createPrng } from '../../../subgraphs/analysis/engine/prng.js';

const { abs, exp, log, max, sqrt } = Math;

function sigmoid(t: number): number {
  return 1 / (1 + exp(-t));
}

interface Simulation {
  seed: number;
  n: number;
  /** Raw-scale coefficients of the true model. */
  coefficients: number[];
  intercept: number;
  /** Feature j is drawn as featureMeans[j] + featureScales[j] * N(0, 1). */
  featureMeans?: number[];
  featureScales?: number[];
  /** Times 0 .. times - 1, assigned at random (so sample order is not time order). */
  times?: number;
  /** Labels ignore the features (pure noise with P(y = 1) = 0.5). */
  noise?: boolean;
}

/** Samples drawn from a known logistic model with a seeded generator. */
function simulate(sim: Simulation): Dataset {
  const d = sim.coefficients.length;
  const rng = createPrng(sim.seed, 3);
  const x = new Float64Array(sim.n * d);
  const y = new Uint8Array(sim.n);
  const time = new Int32Array(sim.n);
  for (let i = 0; i < sim.n; i++) {
    let eta = sim.intercept;
    for (let j = 0; j < d; j++) {
      const v = (sim.featureMeans?.[j] ?? 0) + (sim.featureScales?.[j] ?? 1) * rng.normal();
      x[i * d + j] = v;
      eta += sim.coefficients[j] * v;
    }
    y[i] = rng.next() < (sim.noise ? 0.5 : sigmoid(eta)) ? 1 : 0;
    time[i] = sim.times === undefined ? 0 : rng.int(sim.times);
  }
  return { n: sim.n, d, x, y, time };
}

/** The dataset restricted to `rows`, in that order. */
function subset(data: Dataset, rows: ArrayLike<number>): Dataset {
  const { d } = data;
  const n = rows.length;
  const x = new Float64Array(n * d);
  const y = new Uint8Array(n);
  const time = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const i = rows[r];
    x.set(data.x.subarray(i * d, i * d + d), r * d);
    y[r] = data.y[i];
    time[r] = data.time[i];
  }
  return { n, d, x, y, time };
}

/** Raw-scale coefficients of a model (undoing the standardisation). */
function rawCoefficients(model: LogisticModel): { intercept: number; weights: number[] } {
  const weights = model.weights.map((w, j) => w / model.scales[j]);
  const intercept = model.intercept - weights.reduce((s, w, j) => s + w * model.means[j], 0);
  return { intercept, weights };
}

/** Sample indices with time <= t, sorted by (time, index). */
function rowsThrough(data: Dataset, t: number): Int32Array {
  const rows: number[] = [];
  for (let i = 0; i < data.n; i++) if (data.time[i] <= t) rows.push(i);
  rows.sort((a, b) => data.time[a] - data.time[b] || a - b);
  return Int32Array.from(rows);
}

function expectModelsClose(actual: LogisticModel, expected: LogisticModel, tolerance: number): void {
  expect(actual.weights).toHaveLength(expected.weights.length);
  expect(abs(actual.intercept - expected.intercept)).toBeLessThan(tolerance);
  actual.weights.forEach((w, j) => expect(abs(w - expected.weights[j])).toBeLessThan(tolerance));
  actual.means.forEach((v, j) => expect(abs(v - expected.means[j])).toBeLessThan(tolerance));
  actual.scales.forEach((v, j) => expect(abs(v - expected.scales[j])).toBeLessThan(tolerance));
}

describe('fitLogistic', () => {
  it('recovers the coefficients of a known logistic model for large n', () => {
    const coefficients = [0.8, -0.5, 0, 0.25];
    // intercept + coefficients . featureMeans = 0.2: both classes are common.
    const intercept = -22.3;
    const data = simulate({
      seed: 11,
      n: 100_000,
      coefficients,
      intercept,
      featureMeans: [0, 5, -2, 100],
      featureScales: [1, 2, 0.5, 10],
    });
    const model = fitLogistic(data);
    expect(model.converged).toBe(true);
    expect(model.iterations).toBeGreaterThan(1);
    expect(model.iterations).toBeLessThanOrEqual(25);
    const raw = rawCoefficients(model);
    raw.weights.forEach((w, j) => expect(abs(w - coefficients[j])).toBeLessThan(0.03));
    expect(abs(raw.intercept - intercept)).toBeLessThan(0.3);
    // Standardised weights are raw coefficients times the feature's standard deviation.
    expect(abs(model.weights[3] - 2.5)).toBeLessThan(0.3);
    expect(abs(model.scales[3] - 10)).toBeLessThan(0.1);
    expect(abs(model.means[1] - 5)).toBeLessThan(0.05);
  });

  it('matches a gradient-descent minimisation of the same penalised objective to 1e-6', () => {
    const data = simulate({
      seed: 5,
      n: 80,
      coefficients: [1.2, -0.7, 0.4],
      intercept: 0.5,
      featureMeans: [3, -1, 0],
      featureScales: [2, 1, 0.3],
    });
    for (const l2 of [1, 2.5, 0]) {
      const model = fitLogistic(data, undefined, { l2 });
      expect(model.converged).toBe(true);
      const reference = gradientDescentReference(data, l2);
      model.means.forEach((v, j) => expect(abs(v - reference.means[j])).toBeLessThan(1e-12));
      model.scales.forEach((v, j) => expect(abs(v - reference.scales[j])).toBeLessThan(1e-12));
      expect(abs(model.intercept - reference.beta[0])).toBeLessThan(1e-6);
      model.weights.forEach((w, j) => expect(abs(w - reference.beta[j + 1])).toBeLessThan(1e-6));
    }
    // The penalty matters: a stronger one shrinks the weights.
    const weak = fitLogistic(data, undefined, { l2: 0.1 });
    const strong = fitLogistic(data, undefined, { l2: 50 });
    const norm = (m: LogisticModel): number => m.weights.reduce((s, w) => s + w * w, 0);
    expect(norm(strong)).toBeLessThan(0.5 * norm(weak));
  });

  it('defaults to l2 = 1', () => {
    const data = simulate({ seed: 6, n: 60, coefficients: [1, -1], intercept: 0 });
    expect(fitLogistic(data)).toEqual(fitLogistic(data, undefined, { l2: 1 }));
    expect(fitLogistic(data)).not.toEqual(fitLogistic(data, undefined, { l2: 2 }));
  });

  it('keeps weights finite on perfectly separable data thanks to the penalty', () => {
    const values = [-3, -2, -1.5, -1, -0.5, 0.5, 1, 1.5, 2, 3];
    const data: Dataset = {
      n: values.length,
      d: 1,
      x: Float64Array.from(values),
      y: Uint8Array.from(values.map((v) => (v > 0 ? 1 : 0))),
      time: new Int32Array(values.length),
    };
    const model = fitLogistic(data);
    expect(model.converged).toBe(true);
    expect(Number.isFinite(model.weights[0])).toBe(true);
    expect(model.weights[0]).toBeGreaterThan(1);
    expect(model.weights[0]).toBeLessThan(20);
    values.forEach((v, i) => {
      const p = predictProbability(model, data.x, i);
      expect(p > 0.5).toBe(v > 0);
    });
    // Without the penalty there is no finite optimum: the fit stops at maxIterations, still finite.
    const unpenalised = fitLogistic(data, undefined, { l2: 0 });
    expect(unpenalised.converged).toBe(false);
    expect(unpenalised.iterations).toBe(25);
    expect(Number.isFinite(unpenalised.weights[0])).toBe(true);
    expect(Number.isFinite(unpenalised.intercept)).toBe(true);
    expect(unpenalised.weights[0]).toBeGreaterThan(model.weights[0]);
  });

  it('gives a constant feature scale 1 and weight 0 and leaves the other weights unchanged', () => {
    const base = simulate({ seed: 8, n: 500, coefficients: [0.9, -0.4], intercept: 0.2 });
    const withConstant: Dataset = { ...base, d: 3, x: new Float64Array(base.n * 3) };
    for (let i = 0; i < base.n; i++) {
      withConstant.x[i * 3] = base.x[i * 2];
      withConstant.x[i * 3 + 1] = 0.1; // 0.1 is not exactly representable: a computed mean would drift
      withConstant.x[i * 3 + 2] = base.x[i * 2 + 1];
    }
    for (const l2 of [1, 0]) {
      const model = fitLogistic(withConstant, undefined, { l2 });
      const reference = fitLogistic(base, undefined, { l2 });
      expect(model.converged).toBe(true);
      expect(model.scales[1]).toBe(1);
      expect(model.means[1]).toBe(0.1);
      expect(model.weights[1]).toBe(0);
      expect(abs(model.weights[0] - reference.weights[0])).toBeLessThan(1e-9);
      expect(abs(model.weights[2] - reference.weights[1])).toBeLessThan(1e-9);
      expect(abs(model.intercept - reference.intercept)).toBeLessThan(1e-9);
    }
  });

  it('replaces non-finite feature values by the training mean', () => {
    const data = simulate({ seed: 9, n: 400, coefficients: [0.7, -0.6, 0.3], intercept: 0, featureMeans: [2, 0, -1] });
    const holes = [3, 17, 18, 40, 41, 42, 100, 250, 399];
    const missing = { ...data, x: data.x.slice() };
    holes.forEach((i, k) => {
      missing.x[i * 3 + (k % 3)] = k % 4 === 0 ? Infinity : NaN;
    });
    const model = fitLogistic(missing);
    // Same data with each hole filled by the mean of the feature's finite values.
    const filled = { ...data, x: missing.x.slice() };
    for (let j = 0; j < 3; j++) {
      let sum = 0;
      let count = 0;
      for (let i = 0; i < data.n; i++) {
        const v = missing.x[i * 3 + j];
        if (Number.isFinite(v)) {
          sum += v;
          count++;
        }
      }
      expect(abs(model.means[j] - sum / count)).toBeLessThan(1e-12);
      for (let i = 0; i < data.n; i++) if (!Number.isFinite(missing.x[i * 3 + j])) filled.x[i * 3 + j] = sum / count;
    }
    expectModelsClose(model, fitLogistic(filled), 1e-9);
    expect(model.weights.every(Number.isFinite)).toBe(true);
    // Prediction: a missing value counts as the mean.
    const row = [NaN, 1.5, -Infinity];
    const imputed = [model.means[0], 1.5, model.means[2]];
    expect(predictProbability(model, row)).toBe(predictProbability(model, imputed));
    expect(predictProbability(model, row)).not.toBe(predictProbability(model, [0, 1.5, 0]));
  });

  it('fits on a subset of rows exactly as on a dataset holding only those rows', () => {
    const data = simulate({ seed: 10, n: 300, coefficients: [0.5, 0.5], intercept: 0 });
    const rows = Int32Array.from([5, 9, 9, 120, 7, ...Array.from({ length: 100 }, (_, k) => 150 + k)]);
    expect(fitLogistic(data, rows)).toEqual(fitLogistic(subset(data, rows)));
    expect(fitLogistic(data, rows)).not.toEqual(fitLogistic(data));
  });

  it('stays defined without training rows or with a single class', () => {
    const data = simulate({ seed: 12, n: 50, coefficients: [1], intercept: 0 });
    const empty = fitLogistic(data, new Int32Array(0));
    expect(empty).toEqual({ intercept: 0, weights: [0], means: [0], scales: [1], iterations: 0, converged: false });
    expect(predictProbability(empty, [123])).toBe(0.5);

    const ones = Int32Array.from([...data.y.keys()].filter((i) => data.y[i] === 1));
    const single = fitLogistic(data, ones);
    expect(single.weights).toEqual([0]);
    expect(single.intercept).toBeCloseTo(log((ones.length + 0.5) / 0.5), 12);
    expect(single.converged).toBe(false);
    expect(predictProbability(single, [0])).toBeGreaterThan(0.9);
  });

  it('predicts sigmoid(intercept + w . z) with standardised features', () => {
    const model: LogisticModel = { intercept: -0.5, weights: [2, -1], means: [10, 0], scales: [5, 2], iterations: 3, converged: true };
    const eta = -0.5 + 2 * ((20 - 10) / 5) - 1 * ((1 - 0) / 2);
    expect(predictProbability(model, [20, 1])).toBeCloseTo(sigmoid(eta), 15);
    expect(predictProbability(model, [99, 99, 20, 1], 2)).toBe(predictProbability(model, [20, 1]));
    // Extreme log-odds saturate without overflow.
    const extreme: LogisticModel = { ...model, intercept: 0, weights: [1e6, 0] };
    expect(predictProbability(extreme, [20, 0])).toBe(1);
    expect(predictProbability(extreme, [0, 0])).toBe(0);
    expect(() => predictProbability(model, [1], 0)).toThrow(RangeError);
  });

  it('rejects malformed input', () => {
    const data = simulate({ seed: 13, n: 10, coefficients: [1], intercept: 0 });
    expect(() => fitLogistic({ ...data, y: Uint8Array.from({ length: 10 }, () => 2) })).toThrow(RangeError);
    expect(() => fitLogistic({ ...data, x: new Float64Array(9) })).toThrow(RangeError);
    expect(() => fitLogistic(data, Int32Array.from([10]))).toThrow(RangeError);
    expect(() => fitLogistic(data, undefined, { l2: -1 })).toThrow(RangeError);
    expect(() => fitLogistic(data, undefined, { maxIterations: 1.5 })).toThrow(RangeError);
  });

  it('is deterministic, bit for bit', () => {
    const a = simulate({ seed: 14, n: 2000, coefficients: [0.3, -0.2, 0.1], intercept: 0.1 });
    const b = simulate({ seed: 14, n: 2000, coefficients: [0.3, -0.2, 0.1], intercept: 0.1 });
    expect(JSON.stringify(fitLogistic(a))).toBe(JSON.stringify(fitLogistic(b)));
  });
});

/**
 * Reference: standardise (population standard deviation) and minimise
 * sum_i [log(1 + e^eta_i) - y_i eta_i] + (l2 / 2) |w|^2 by plain gradient descent with step 1 / L, where L bounds
 * the largest Hessian eigenvalue, until the gradient vanishes.
 */
function gradientDescentReference(data: Dataset, l2: number): { means: number[]; scales: number[]; beta: number[] } {
  const { n, d, x, y } = data;
  const means: number[] = [];
  const scales: number[] = [];
  for (let j = 0; j < d; j++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += x[i * d + j];
    const mean = sum / n;
    let squares = 0;
    for (let i = 0; i < n; i++) squares += (x[i * d + j] - mean) ** 2;
    means.push(mean);
    scales.push(sqrt(squares / n));
  }
  const rows: number[][] = [];
  for (let i = 0; i < n; i++) rows.push([1, ...Array.from({ length: d }, (_, j) => (x[i * d + j] - means[j]) / scales[j])]);
  const lipschitz = 0.25 * rows.reduce((s, r) => s + r.reduce((t, v) => t + v * v, 0), 0) + l2;
  const beta = new Array<number>(d + 1).fill(0);
  for (let iteration = 0; iteration < 500_000; iteration++) {
    const grad = new Array<number>(d + 1).fill(0);
    for (let i = 0; i < n; i++) {
      const r = sigmoid(rows[i].reduce((s, v, j) => s + v * beta[j], 0)) - y[i];
      for (let j = 0; j <= d; j++) grad[j] += r * rows[i][j];
    }
    for (let j = 1; j <= d; j++) grad[j] += l2 * beta[j];
    if (max(...grad.map(abs)) < 1e-11) break;
    for (let j = 0; j <= d; j++) beta[j] -= grad[j] / lipschitz;
  }
  return { means, scales, beta };
}

describe('rocAuc', () => {
  it('is exact on small hand-computed cases', () => {
    // Positives 0.35 and 0.8 against negatives 0.1 and 0.4: 3 of 4 pairs ordered correctly.
    expect(rocAuc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])).toBe(0.75);
    expect(rocAuc([1, 2, 3, 4], [0, 0, 1, 1])).toBe(1);
    expect(rocAuc([1, 2, 3, 4], [1, 1, 0, 0])).toBe(0);
    expect(rocAuc(Float64Array.from([0.3, 0.9, 0.1]), Uint8Array.from([1, 1, 0]))).toBe(1);
  });

  it('counts ties as one half (average ranks)', () => {
    // Ranks 1, 2.5, 2.5, 4; positives' rank sum 6.5; U = 6.5 - 3 = 3.5 of 4 pairs.
    expect(rocAuc([0.2, 0.5, 0.5, 0.9], [0, 0, 1, 1])).toBe(0.875);
    expect(rocAuc([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1])).toBe(0.5);
    // Positives 0.3, 0.3, 0.7 against negatives 0.3, 0.1: (0.5 + 1) + (0.5 + 1) + 2 = 5 of 6.
    expect(rocAuc([0.3, 0.3, 0.7, 0.3, 0.1], [1, 1, 1, 0, 0])).toBe(5 / 6);
    // -0 and +0 tie.
    expect(rocAuc([-0, 0], [1, 0])).toBe(0.5);
  });

  it('is NaN when a class is missing', () => {
    expect(rocAuc([0.1, 0.2], [1, 1])).toBeNaN();
    expect(rocAuc([0.1, 0.2], [0, 0])).toBeNaN();
    expect(rocAuc([], [])).toBeNaN();
    expect(() => rocAuc([0.1], [0, 1])).toThrow(RangeError);
  });

  it('ignores NaN scores', () => {
    expect(rocAuc([0.1, NaN, 0.35, 0.8, 0.4], [0, 1, 1, 1, 0])).toBe(0.75);
  });

  it('equals the Mann-Whitney rank-sum statistic on random data with many ties', () => {
    const rng = createPrng(21, 0);
    for (let trial = 0; trial < 5; trial++) {
      const n = 300;
      const scores = Array.from({ length: n }, () => rng.int(20) / 10);
      const labels = scores.map((s) => (rng.next() < 0.3 + 0.02 * s * 10 ? 1 : 0));
      const auc = rocAuc(scores, labels);
      expect(auc).toBe(rankSumAuc(scores, labels));
      // Brute force over all pairs.
      let u = 0;
      let pairs = 0;
      for (let i = 0; i < n; i++) {
        if (labels[i] !== 1) continue;
        for (let k = 0; k < n; k++) {
          if (labels[k] !== 0) continue;
          pairs++;
          u += scores[i] > scores[k] ? 1 : scores[i] === scores[k] ? 0.5 : 0;
        }
      }
      expect(auc).toBe(u / pairs);
      expect(auc).toBeGreaterThan(0.55);
    }
  });
});

/** AUC from average ranks: (R_pos - nPos(nPos + 1)/2) / (nPos nNeg). */
function rankSumAuc(scores: number[], labels: number[]): number {
  const order = scores.map((_, i) => i).sort((a, b) => scores[a] - scores[b]);
  const ranks = new Array<number>(scores.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && scores[order[end + 1]] === scores[order[start]]) end++;
    for (let k = start; k <= end; k++) ranks[order[k]] = (start + end) / 2 + 1;
    start = end + 1;
  }
  const nPos = labels.filter((l) => l === 1).length;
  const nNeg = labels.length - nPos;
  const rankSum = ranks.reduce((s, r, i) => s + (labels[i] === 1 ? r : 0), 0);
  return (rankSum - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

describe('walkForward', () => {
  // Samples at times 0..379 (random order); folds keep going through lastTime = 409 although no samples exist there.
  const data = simulate({ seed: 31, n: 380 * 25, coefficients: [1.1, -0.8, 0.3], intercept: 0.1, times: 380 });
  const options: WalkForwardOptions = { firstTestTime: 100, foldLength: 30, embargo: 5, lastTime: 409 };
  const result = walkForward(data, options);

  it('lays consecutive folds from firstTestTime until they cover lastTime', () => {
    const { folds } = result;
    expect(folds).toHaveLength(11);
    expect(folds[0].testStart).toBe(100);
    folds.forEach((fold, k) => {
      expect(fold.testEnd - fold.testStart + 1).toBe(k < folds.length - 1 ? 30 : 10);
      if (k > 0) expect(fold.testStart).toBe(folds[k - 1].testEnd + 1);
    });
    expect(folds[folds.length - 1]).toMatchObject({ testStart: 400, testEnd: 409, testSamples: 0, accuracy: null, auc: null });
    // Cut at lastTime.
    const cut = walkForward(data, { ...options, lastTime: 389 });
    expect(cut.folds.map((f) => [f.testStart, f.testEnd]).slice(-2)).toEqual([
      [340, 369],
      [370, 389],
    ]);
  });

  it('trains each fold on exactly the samples with time <= testStart - embargo', () => {
    for (const fold of result.folds) {
      const rows = rowsThrough(data, fold.testStart - 5);
      expect(fold.trainSamples).toBe(rows.length);
      expectModelsClose(fold.model, fitLogistic(data, rows), 1e-9);
      let inWindow = 0;
      for (let i = 0; i < data.n; i++) if (data.time[i] >= fold.testStart && data.time[i] <= fold.testEnd) inWindow++;
      expect(fold.testSamples).toBe(inWindow);
    }
    const finalRows = rowsThrough(data, 409 - 5);
    expect(result.finalTrainSamples).toBe(finalRows.length);
    expectModelsClose(result.final, fitLogistic(data, finalRows), 1e-9);
  });

  it('has no look-ahead: later samples do not change a fold, the boundary sample does', () => {
    const k = 4;
    const boundary = result.folds[k].testStart - 5;
    const later = { ...data, x: data.x.slice(), y: data.y.slice() };
    const atBoundary = { ...data, y: data.y.slice() };
    for (let i = 0; i < data.n; i++) {
      if (data.time[i] > boundary) {
        later.y[i] = 1 - data.y[i];
        for (let j = 0; j < data.d; j++) later.x[i * data.d + j] = -3 * data.x[i * data.d + j] + 7;
      }
      if (data.time[i] === boundary) atBoundary.y[i] = 1 - data.y[i];
    }
    const changedLater = walkForward(later, options);
    for (let f = 0; f <= k; f++) expect(changedLater.folds[f].model).toEqual(result.folds[f].model);
    expect(changedLater.folds[k + 1].model).not.toEqual(result.folds[k + 1].model);

    const changedBoundary = walkForward(atBoundary, options);
    for (let f = 0; f < k; f++) expect(changedBoundary.folds[f].model).toEqual(result.folds[f].model);
    expect(changedBoundary.folds[k].model).not.toEqual(result.folds[k].model);
  });

  it('pools out-of-sample metrics that equal a recomputation from the fold predictions', () => {
    const scores: number[] = [];
    const labels: number[] = [];
    for (let i = 0; i < data.n; i++) {
      const model = modelAt(result, data.time[i]);
      if (data.time[i] < 100) {
        expect(model).toBeNull();
        continue;
      }
      expect(model).not.toBeNull();
      scores.push(predictProbability(model!, data.x, i * data.d));
      labels.push(data.y[i]);
    }
    const correct = scores.filter((p, k) => (p >= 0.5 ? 1 : 0) === labels[k]).length;
    expect(result.oos.samples).toBe(scores.length);
    expect(result.oos.samples).toBe(result.folds.reduce((s, f) => s + f.testSamples, 0));
    expect(result.oos.accuracy).toBe(correct / scores.length);
    expect(result.oos.auc).toBe(rocAuc(scores, labels));
    // Per fold too.
    const fold = result.folds[2];
    const foldScores: number[] = [];
    const foldLabels: number[] = [];
    for (let i = 0; i < data.n; i++) {
      if (data.time[i] < fold.testStart || data.time[i] > fold.testEnd) continue;
      foldScores.push(predictProbability(fold.model, data.x, i * data.d));
      foldLabels.push(data.y[i]);
    }
    expect(fold.auc).toBe(rocAuc(foldScores, foldLabels));
    expect(fold.accuracy).toBe(foldScores.filter((p, k) => (p >= 0.5 ? 1 : 0) === foldLabels[k]).length / foldScores.length);
  });

  it('returns every out-of-sample prediction in time order, each scored by the model of its own window', () => {
    const { sample, probability } = result.predictions;
    expect(sample).toHaveLength(result.oos.samples);
    expect(probability).toHaveLength(result.oos.samples);
    expect(new Set(sample).size).toBe(sample.length);
    for (let k = 0; k < sample.length; k++) {
      const i = sample[k];
      if (k > 0) expect(data.time[i] > data.time[sample[k - 1]] || (data.time[i] === data.time[sample[k - 1]] && i > sample[k - 1])).toBe(true);
      const model = modelAt(result, data.time[i]);
      expect(model).not.toBeNull();
      expect(probability[k]).toBe(predictProbability(model!, data.x, i * data.d));
    }
    expect(rocAuc(probability, sample.map((i) => data.y[i]))).toBe(result.oos.auc);
  });

  it('modelAt returns the fold whose window contains the time, then the final model', () => {
    expect(modelAt(result, 99)).toBeNull();
    expect(modelAt(result, -5)).toBeNull();
    expect(modelAt(result, NaN)).toBeNull();
    result.folds.forEach((fold) => {
      expect(modelAt(result, fold.testStart)).toBe(fold.model);
      expect(modelAt(result, fold.testEnd)).toBe(fold.model);
    });
    expect(modelAt(result, 115)).toBe(result.folds[0].model);
    expect(modelAt(result, 130)).toBe(result.folds[1].model);
    expect(modelAt(result, 405)).toBe(result.folds[10].model);
    expect(modelAt(result, 410)).toBe(result.final);
    expect(modelAt(result, 10_000)).toBe(result.final);
  });

  it('skips folds without training samples but keeps them for coverage', () => {
    const early = walkForward(data, { firstTestTime: 2, foldLength: 2, embargo: 5, lastTime: 11 });
    expect(early.folds.map((f) => f.trainSamples > 0)).toEqual([false, false, true, true, true]);
    for (const fold of early.folds.slice(0, 2)) {
      expect(fold).toMatchObject({ testSamples: 0, accuracy: null, auc: null });
      expect(fold.model.weights).toEqual([0, 0, 0]);
    }
    expect(modelAt(early, 3)).toBeNull();
    expect(modelAt(early, 5)).toBeNull();
    expect(modelAt(early, 6)).toBe(early.folds[2].model);
    expect(early.oos.samples).toBe(early.folds[2].testSamples + early.folds[3].testSamples + early.folds[4].testSamples);

    const none = walkForward(data, { firstTestTime: 0, foldLength: 10, embargo: 500, lastTime: 20 });
    expect(none.oos).toEqual({ accuracy: null, auc: null, samples: 0 });
    expect(none.finalTrainSamples).toBe(0);
    expect(modelAt(none, 50)).toBeNull();
  });

  it('has no folds when lastTime is before firstTestTime, and then serves the final model', () => {
    const short = walkForward(data, { firstTestTime: 200, foldLength: 10, embargo: 5, lastTime: 150 });
    expect(short.folds).toEqual([]);
    expect(short.oos).toEqual({ accuracy: null, auc: null, samples: 0 });
    expect(short.finalTrainSamples).toBe(rowsThrough(data, 145).length);
    expect(modelAt(short, 199)).toBeNull();
    expect(modelAt(short, 200)).toBe(short.final);
  });

  it('subsamples evenly and deterministically beyond maxTrainSamples', () => {
    const capped = walkForward(data, { ...options, maxTrainSamples: 1000 });
    capped.folds.forEach((fold, k) => {
      expect(fold.trainSamples).toBe(Math.min(1000, result.folds[k].trainSamples));
    });
    expect(capped.finalTrainSamples).toBe(1000);
    const last = capped.folds.length - 1;
    expect(capped.folds[last].model).not.toEqual(result.folds[last].model);
    // Strided over time order: rows floor(j * count / 1000) of the time-sorted eligible rows.
    const eligible = rowsThrough(data, capped.folds[last].testStart - 5);
    const rows = Int32Array.from({ length: 1000 }, (_, j) => eligible[Math.floor((j * eligible.length) / 1000)]);
    expectModelsClose(capped.folds[last].model, fitLogistic(data, rows), 1e-9);
    expect(JSON.stringify(walkForward(data, { ...options, maxTrainSamples: 1000 }))).toBe(JSON.stringify(capped));
  });

  it('scores near 0.5 AUC on pure noise and well above on a learnable signal', () => {
    const noise = simulate({ seed: 41, n: 20_000, coefficients: [1, -1, 0.5], intercept: 0, times: 500, noise: true });
    const signal = simulate({ seed: 42, n: 20_000, coefficients: [1, -1, 0.5], intercept: 0, times: 500 });
    const wf: WalkForwardOptions = { firstTestTime: 100, foldLength: 50, embargo: 10, lastTime: 499 };
    const noiseResult = walkForward(noise, wf);
    const signalResult = walkForward(signal, wf);
    expect(noiseResult.oos.samples).toBeGreaterThan(15_000);
    expect(abs(noiseResult.oos.auc! - 0.5)).toBeLessThan(0.03);
    expect(abs(noiseResult.oos.accuracy! - 0.5)).toBeLessThan(0.03);
    expect(signalResult.oos.auc!).toBeGreaterThan(0.75);
    expect(signalResult.oos.accuracy!).toBeGreaterThan(0.68);
  });

  it('is deterministic, bit for bit', () => {
    const again = walkForward(simulate({ seed: 31, n: 380 * 25, coefficients: [1.1, -0.8, 0.3], intercept: 0.1, times: 380 }), options);
    expect(JSON.stringify(again)).toBe(JSON.stringify(result));
  });

  it('rejects malformed options', () => {
    expect(() => walkForward(data, { ...options, foldLength: 0 })).toThrow(RangeError);
    expect(() => walkForward(data, { ...options, embargo: -1 })).toThrow(RangeError);
    expect(() => walkForward(data, { ...options, firstTestTime: 1.5 })).toThrow(RangeError);
    expect(() => walkForward(data, { ...options, maxTrainSamples: 0 })).toThrow(RangeError);
  });
});

describe('model JSON', () => {
  it('round-trips through JSON text with identical predictions', () => {
    const data = simulate({ seed: 51, n: 500, coefficients: [0.4, -0.9], intercept: 0.2 });
    const model = fitLogistic(data);
    const text = JSON.stringify(modelToJson(model));
    const back = modelFromJson(JSON.parse(text) as LogisticModelJson);
    expect(back).toEqual(model);
    for (let i = 0; i < 20; i++) expect(predictProbability(back, data.x, i * 2)).toBe(predictProbability(model, data.x, i * 2));
    // A copy: changing the JSON does not change the model.
    const json = modelToJson(model);
    json.weights[0] = 99;
    expect(model.weights[0]).not.toBe(99);
  });

  it('rejects malformed JSON models', () => {
    const good = modelToJson({ intercept: 0, weights: [1], means: [0], scales: [1], iterations: 1, converged: true });
    expect(() => modelFromJson({ ...good, weights: [1, 2] })).toThrow(TypeError);
    expect(() => modelFromJson({ ...good, scales: [0] })).toThrow(TypeError);
    expect(() => modelFromJson({ ...good, intercept: NaN })).toThrow(TypeError);
    expect(() => modelFromJson({ ...good, converged: 'yes' } as unknown as LogisticModelJson)).toThrow(TypeError);
  });
});

describe('walk-forward result', () => {
  it('is plain data that survives structured cloning', () => {
    const data = simulate({ seed: 61, n: 2000, coefficients: [0.5], intercept: 0, times: 100 });
    const result: WalkForwardResult = walkForward(data, { firstTestTime: 50, foldLength: 10, embargo: 2, lastTime: 99 });
    expect(structuredClone(result)).toEqual(result);
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });
});

describe('walk-forward plan and fits in any order', () => {
  const data = simulate({ seed: 47, n: 300 * 12, coefficients: [0.9, -0.6, 0.4], intercept: -0.2, times: 300 });
  const options: WalkForwardOptions = { firstTestTime: 80, foldLength: 25, embargo: 4, lastTime: 320, maxTrainSamples: 1500 };

  it('orders samples by time, ties by index, whatever the spread of the times', () => {
    const reference = (time: Int32Array) => Int32Array.from({ length: time.length }, (_, i) => i).sort((a, b) => time[a] - time[b] || a - b);
    expect(planWalkForward(data, options).order).toEqual(reference(data.time));
    // Times far apart (a comparison sort), and negative ones.
    const wide = { ...data, time: Int32Array.from(data.time, (t, i) => (i % 3 === 0 ? t * 1_000_000 : -t)) };
    expect(planWalkForward(wide, options).order).toEqual(reference(wide.time));
  });

  it('gives walkForward\'s folds, bit for bit, when the fits are made in reverse order', () => {
    const plan = planWalkForward(data, options);
    const counts = walkForwardFitCounts(plan, false);
    expect(counts.length).toBeGreaterThan(3);
    const fits = new Map([...counts].reverse().map((count) => [count, fitWalkForward(data, plan, count)] as const));
    const { folds, oos, predictions } = walkForward(data, options);
    expect(JSON.stringify(walkForwardFolds(data, plan, fits))).toBe(JSON.stringify({ folds, oos, predictions }));
  });
});
