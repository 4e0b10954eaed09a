/**
 * The logistic model and its data: the dataset layout, the fitted model, prediction and the model's plain-JSON
 * form. Pure and deterministic. Fitting is in logistic-fit.ts, walk-forward evaluation and ROC AUC in logistic.ts.
 *
 * Model. For a sample with features x_1..x_d the model says P(y = 1) = sigmoid(b + sum_j w_j * z_j), where
 * sigmoid(t) = 1 / (1 + e^-t) and z_j = (x_j - mean_j) / scale_j is the feature standardised with the mean and
 * standard deviation of the training rows. Standardising puts every feature on the same footing, so a single
 * penalty strength treats them alike and the weights are comparable ("one standard deviation of feature j moves
 * the log-odds by w_j").
 *
 * A feature value that is not finite (NaN, +-Infinity) counts as missing; prediction replaces it by the
 * training mean, i.e. z = 0.
 */

/** Math functions bound once: inside a vm context (e.g. jest) each global `Math` lookup in a hot loop is slow. */
const { abs, exp } = Math;

/** Samples in row-major layout. `time` orders samples for walk-forward (a trading-day index of the sample's date; many samples share a time). */
export interface Dataset {
  n: number;
  d: number;
  /** n * d feature values, sample i at x[i*d .. i*d + d - 1]; non-finite values count as missing. */
  x: Float64Array;
  /** Labels, 0 or 1. */
  y: Uint8Array;
  time: Int32Array;
}

export interface LogisticModel {
  intercept: number;
  /** One weight per feature, on standardised features. */
  weights: number[];
  /** Training means used for standardisation (and to replace missing values). */
  means: number[];
  /** Training standard deviations; 1 for a constant feature. */
  scales: number[];
  /** Newton steps taken. */
  iterations: number;
  converged: boolean;
}

/**
 * Plain-JSON form of a {@link LogisticModel} (numbers, arrays of numbers and one boolean): the same
 * fields, named separately because it is what crosses threads and storage and is validated on the way in.
 */
export type LogisticModelJson = LogisticModel;

/** The row list 0 .. n - 1. */
export function allRows(n: number): Int32Array {
  const rows = new Int32Array(n);
  for (let i = 0; i < n; i++) rows[i] = i;
  return rows;
}

/** The model of an empty training set: intercept 0, weights 0, means 0, scales 1 (it predicts 0.5). */
export function untrainedModel(d: number): LogisticModel {
  return {
    intercept: 0,
    weights: new Array<number>(d).fill(0),
    means: new Array<number>(d).fill(0),
    scales: new Array<number>(d).fill(1),
    iterations: 0,
    converged: false,
  };
}

/** Throws RangeError when the dataset's sizes disagree or a label is not 0 or 1. */
export function validateDataset(data: Dataset): void {
  const { n, d, x, y, time } = data;
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be an integer >= 0, got ${n}`);
  if (!Number.isInteger(d) || d < 0) throw new RangeError(`d must be an integer >= 0, got ${d}`);
  if (x.length !== n * d) throw new RangeError(`x has ${x.length} values, expected n * d = ${n * d}`);
  if (y.length !== n) throw new RangeError(`y has ${y.length} labels, expected ${n}`);
  if (time.length !== n) throw new RangeError(`time has ${time.length} values, expected ${n}`);
  for (let i = 0; i < n; i++) {
    if (y[i] > 1) throw new RangeError(`label ${i} is ${y[i]}; labels must be 0 or 1`);
  }
}

/** `v - v === 0` exactly when v is finite (NaN and +-Infinity give NaN); avoids a global lookup in hot loops. */
export function isFiniteValue(v: number): boolean {
  return v - v === 0;
}

/** P(y = 1) for the feature vector at x[offset .. offset + d - 1]; non-finite values count as the training mean. */
export function predictProbability(model: LogisticModel, x: ArrayLike<number>, offset = 0): number {
  const { weights, means, scales } = model;
  const d = weights.length;
  if (offset < 0 || offset + d > x.length) {
    throw new RangeError(`need ${d} features at offset ${offset}, but x has ${x.length} values`);
  }
  let eta = model.intercept;
  for (let j = 0; j < d; j++) {
    const v = x[offset + j];
    if (isFiniteValue(v)) eta += (weights[j] * (v - means[j])) / scales[j];
  }
  return sigmoid(eta);
}

function sigmoid(eta: number): number {
  const e = exp(-abs(eta));
  return eta >= 0 ? 1 / (1 + e) : e / (1 + e);
}

/** Plain-JSON form (copies the arrays). */
export function modelToJson(m: LogisticModel): LogisticModelJson {
  return {
    intercept: m.intercept,
    weights: m.weights.slice(),
    means: m.means.slice(),
    scales: m.scales.slice(),
    iterations: m.iterations,
    converged: m.converged,
  };
}

/** Rebuilds a model from its JSON form; throws TypeError when the shape or a number is invalid. */
export function modelFromJson(j: LogisticModelJson): LogisticModel {
  const numbers = (value: unknown, label: string): number[] => {
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      throw new TypeError(`model ${label} must be an array of finite numbers`);
    }
    return value.slice() as number[];
  };
  if (typeof j !== 'object' || j === null) throw new TypeError('model must be an object');
  if (typeof j.intercept !== 'number' || !Number.isFinite(j.intercept)) throw new TypeError('model intercept must be a finite number');
  const weights = numbers(j.weights, 'weights');
  const means = numbers(j.means, 'means');
  const scales = numbers(j.scales, 'scales');
  if (means.length !== weights.length || scales.length !== weights.length) {
    throw new TypeError('model weights, means and scales must have the same length');
  }
  if (!scales.every((s) => s > 0)) throw new TypeError('model scales must be positive');
  if (!Number.isInteger(j.iterations) || j.iterations < 0) throw new TypeError('model iterations must be an integer >= 0');
  if (typeof j.converged !== 'boolean') throw new TypeError('model converged must be a boolean');
  return { intercept: j.intercept, weights, means, scales, iterations: j.iterations, converged: j.converged };
}

/** A deep copy of a model. */
export function cloneModel(m: LogisticModel): LogisticModel {
  return modelFromJson(modelToJson(m));
}
