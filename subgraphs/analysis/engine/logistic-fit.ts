/**
 * Fitting the L2-regularised logistic regression of logistic-model.ts: standardisation on the training rows,
 * then Newton-Raphson (IRLS) on the penalised likelihood with a Cholesky solve. Pure, exact and deterministic:
 * the same input gives the same output bit for bit.
 *
 * Standardisation (training rows only). A feature value that is not finite (NaN, +-Infinity) counts as missing
 * and is replaced by the mean of the feature's finite training values; mean_j is that mean and scale_j is the
 * population standard deviation (divide by the number of rows) of the feature after the replacement. A feature
 * that is constant on the training rows (or has no finite value) gets scale 1, so its z is always 0 and its
 * weight stays 0. Prediction applies the same rule: a missing value becomes the training mean, i.e. z = 0.
 *
 * Fit. The intercept b and weights w minimise the penalised negative log-likelihood
 *
 *     L(b, w) = sum_i [ log(1 + e^eta_i) - y_i * eta_i ]  +  (l2 / 2) * sum_j w_j^2,   eta_i = b + sum_j w_j z_ij
 *
 * (a sum over samples, not a mean; the intercept is not penalised). L is strictly convex when both classes are
 * present and l2 > 0, so it has one minimum, found by Newton-Raphson (the same as iteratively reweighted least
 * squares): with p_i = sigmoid(eta_i), the gradient is X'(p - y) + l2 * w and the Hessian is X'WX + l2 * I (no
 * penalty on the intercept row), W = diag(p_i (1 - p_i)), X = [1 | Z]. The Hessian is accumulated in one pass over
 * the samples and the Newton system is solved by Cholesky. Each step is halved until L does not increase (a
 * safeguard for nearly separable data), and iteration stops when the largest component of the full Newton step
 * is below `tolerance`, or after `maxIterations` steps (then `converged` is false). Without the penalty,
 * perfectly separable data has no finite minimum; with it, the weights stay finite.
 *
 * Degenerate training sets. With no training rows the model is "untrained": intercept 0, weights 0, means 0,
 * scales 1 (it predicts 0.5). With a single class the maximum-likelihood intercept would be infinite, so the
 * model keeps weights 0 and uses the smoothed base rate, intercept = log((k + 0.5) / (m - k + 0.5)) for k
 * positives among m rows. Both report `iterations` 0 and `converged` false.
 */
import { allRows, isFiniteValue, untrainedModel, validateDataset, type Dataset, type LogisticModel } from './logistic-model.js';

/** Math functions bound once: inside a vm context (e.g. jest) each global `Math` lookup in a hot loop is slow. */
const { abs, exp, log, log1p, sqrt } = Math;

export interface FitOptions {
  /** Penalty strength l2 >= 0 in (l2 / 2) * sum of squared weights of standardised features; default 1. The intercept is not penalised. */
  l2?: number;
  /** Most Newton steps; default 25. */
  maxIterations?: number;
  /** Convergence when the largest component (intercept included) of the full Newton step is below this; default 1e-8. */
  tolerance?: number;
}

const DEFAULT_L2 = 1;
const DEFAULT_MAX_ITERATIONS = 25;
const DEFAULT_TOLERANCE = 1e-8;
/** Most step halvings per Newton step before giving up. */
const MAX_HALVINGS = 50;
/** Relative slack when comparing objectives, so rounding noise near the minimum does not reject a step. */
const OBJECTIVE_SLACK = 1e-12;

/**
 * Standardises features on the training rows (rows = subset of sample indices; all when omitted), then
 * Newton-Raphson / IRLS with the L2 penalty; non-finite feature values are replaced by the training mean.
 * Rows may repeat (a repeated row counts twice). Throws RangeError on malformed input.
 */
export function fitLogistic(data: Dataset, rows?: Int32Array, options: FitOptions = {}): LogisticModel {
  validateDataset(data);
  const l2 = options.l2 ?? DEFAULT_L2;
  const maxIterations = options.maxIterations ?? DEFAULT_MAX_ITERATIONS;
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE;
  if (!(l2 >= 0) || !Number.isFinite(l2)) throw new RangeError(`l2 must be a finite number >= 0, got ${l2}`);
  if (!Number.isInteger(maxIterations) || maxIterations < 0) {
    throw new RangeError(`maxIterations must be an integer >= 0, got ${maxIterations}`);
  }
  if (!(tolerance >= 0)) throw new RangeError(`tolerance must be >= 0, got ${tolerance}`);

  const { n, d, x, y } = data;
  const rowList = rows ?? allRows(n);
  const m = rowList.length;
  for (let r = 0; r < m; r++) {
    const i = rowList[r];
    if (i < 0 || i >= n) throw new RangeError(`row ${i} is outside 0..${n - 1}`);
  }
  if (m === 0) return untrainedModel(d);

  // The training rows, copied once into one contiguous block (rows strided through a large sample set
  // would otherwise be fetched from memory three times), then standardised in place.
  const z = gather(x, d, rowList);
  const contiguous = allRows(m);
  const { means, scales } = standardisation(z, d, contiguous);
  standardiseInPlace(z, d, means, scales);
  const labels = new Uint8Array(m);
  let positives = 0;
  for (let r = 0; r < m; r++) {
    labels[r] = y[rowList[r]];
    positives += labels[r];
  }
  const meanList = Array.from(means);
  const scaleList = Array.from(scales);
  if (positives === 0 || positives === m) {
    return {
      intercept: log((positives + 0.5) / (m - positives + 0.5)),
      weights: new Array<number>(d).fill(0),
      means: meanList,
      scales: scaleList,
      iterations: 0,
      converged: false,
    };
  }

  const { beta, iterations, converged } = newton(z, labels, m, d, l2, maxIterations, tolerance, positives);
  return {
    intercept: beta[0],
    weights: Array.from(beta.subarray(1)),
    means: meanList,
    scales: scaleList,
    iterations,
    converged,
  };
}

/**
 * Mean of each feature's finite values on the rows, and the population standard deviation after missing values
 * are replaced by that mean (they add no deviation but count in the divisor). Constant or all-missing
 * features get scale 1 (and, when constant, exactly the constant as mean).
 */
function standardisation(x: Float64Array, d: number, rows: Int32Array): { means: Float64Array; scales: Float64Array } {
  const m = rows.length;
  const sum = new Float64Array(d);
  const count = new Float64Array(d);
  const lo = new Float64Array(d).fill(Infinity);
  const hi = new Float64Array(d).fill(-Infinity);
  for (let r = 0; r < m; r++) {
    const base = rows[r] * d;
    for (let j = 0; j < d; j++) {
      const v = x[base + j];
      if (!isFiniteValue(v)) continue;
      sum[j] += v;
      count[j] += 1;
      if (v < lo[j]) lo[j] = v;
      if (v > hi[j]) hi[j] = v;
    }
  }
  const means = new Float64Array(d);
  for (let j = 0; j < d; j++) {
    if (count[j] === 0) means[j] = 0;
    else if (lo[j] === hi[j]) means[j] = lo[j];
    else means[j] = sum[j] / count[j];
  }
  const squares = new Float64Array(d);
  for (let r = 0; r < m; r++) {
    const base = rows[r] * d;
    for (let j = 0; j < d; j++) {
      const v = x[base + j];
      if (!isFiniteValue(v)) continue;
      const dev = v - means[j];
      squares[j] += dev * dev;
    }
  }
  const scales = new Float64Array(d);
  for (let j = 0; j < d; j++) {
    const sd = sqrt(squares[j] / m);
    scales[j] = count[j] === 0 || lo[j] === hi[j] || !(sd > 0) || !isFiniteValue(sd) ? 1 : sd;
  }
  return { means, scales };
}

/** Row-major m x d copy of the rows' features. */
function gather(x: Float64Array, d: number, rows: Int32Array): Float64Array {
  const m = rows.length;
  const out = new Float64Array(m * d);
  for (let r = 0, at = 0; r < m; r++) {
    const base = rows[r] * d;
    for (let j = 0; j < d; j++) out[at++] = x[base + j];
  }
  return out;
}

/** Standardises a row-major matrix of training features in place; missing values become 0 (the mean). */
function standardiseInPlace(z: Float64Array, d: number, means: Float64Array, scales: Float64Array): void {
  for (let out = 0; out < z.length; ) {
    for (let j = 0; j < d; j++, out++) {
      const v = z[out];
      z[out] = isFiniteValue(v) ? (v - means[j]) / scales[j] : 0;
    }
  }
}

/**
 * Newton-Raphson with step halving on the penalised objective; beta = [intercept, w_1 .. w_d].
 * Each candidate point costs one cheap pass (objective, per-sample weights and residuals); only an accepted
 * point pays for the gradient and Hessian pass.
 */
function newton(
  z: Float64Array,
  y: Uint8Array,
  m: number,
  d: number,
  l2: number,
  maxIterations: number,
  tolerance: number,
  positives: number,
): { beta: Float64Array; iterations: number; converged: boolean } {
  const p = d + 1;
  let beta = new Float64Array(p);
  beta[0] = log(positives / (m - positives));
  let weight = new Float64Array(m);
  let residual = new Float64Array(m);
  let objective = objectiveAt(z, y, m, d, l2, beta, weight, residual);
  const grad = new Float64Array(p);
  const hess = new Float64Array(p * p);
  derivatives(z, m, d, l2, beta, weight, residual, grad, hess);

  let trial = new Float64Array(p);
  let trialWeight = new Float64Array(m);
  let trialResidual = new Float64Array(m);
  const step = new Float64Array(p);
  let iterations = 0;
  let converged = false;

  while (iterations < maxIterations) {
    // Newton direction: H step = -grad.
    for (let j = 0; j < p; j++) step[j] = -grad[j];
    if (!choleskySolve(hess, p, step)) break;
    iterations++;
    let largest = 0;
    for (let j = 0; j < p; j++) if (abs(step[j]) > largest) largest = abs(step[j]);
    if (!(largest === largest)) break; // NaN step: give up, keep the current point
    if (largest < tolerance) {
      for (let j = 0; j < p; j++) beta[j] += step[j];
      converged = true;
      break;
    }
    let t = 1;
    let accepted = false;
    for (let halving = 0; halving <= MAX_HALVINGS; halving++, t *= 0.5) {
      for (let j = 0; j < p; j++) trial[j] = beta[j] + t * step[j];
      const trialObjective = objectiveAt(z, y, m, d, l2, trial, trialWeight, trialResidual);
      if (trialObjective <= objective + OBJECTIVE_SLACK * abs(objective)) {
        [beta, trial] = [trial, beta];
        [weight, trialWeight] = [trialWeight, weight];
        [residual, trialResidual] = [trialResidual, residual];
        objective = trialObjective;
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
    derivatives(z, m, d, l2, beta, weight, residual, grad, hess);
  }
  return { beta, iterations, converged };
}

/**
 * The penalised objective at beta; also stores each sample's IRLS weight p(1 - p) and residual p - y.
 * Numerically careful: with e = exp(-|eta|), log(1 + e^eta) = max(eta, 0) + log1p(e), p(1 - p) = e / (1 + e)^2,
 * and 1 - p is formed without cancellation.
 */
function objectiveAt(
  z: Float64Array,
  y: Uint8Array,
  m: number,
  d: number,
  l2: number,
  beta: Float64Array,
  weight: Float64Array,
  residual: Float64Array,
): number {
  const b0 = beta[0];
  let loss = 0;
  for (let i = 0, base = 0; i < m; i++, base += d) {
    let eta = b0;
    for (let j = 0; j < d; j++) eta += beta[j + 1] * z[base + j];
    const e = exp(-abs(eta));
    const q = 1 / (1 + e);
    // prob = P(y = 1), complement = 1 - prob.
    let prob: number;
    let complement: number;
    if (eta >= 0) {
      prob = q;
      complement = e * q;
      loss += eta + log1p(e);
    } else {
      prob = e * q;
      complement = q;
      loss += log1p(e);
    }
    if (y[i] === 1) {
      loss -= eta;
      residual[i] = -complement;
    } else {
      residual[i] = prob;
    }
    weight[i] = e * q * q;
  }
  let penalty = 0;
  for (let j = 1; j <= d; j++) penalty += beta[j] * beta[j];
  return loss + 0.5 * l2 * penalty;
}

/**
 * Gradient X'r + l2 * w and full symmetric Hessian X'WX + l2 * I (intercept unpenalised), X = [1 | Z], in one
 * pass. Samples are taken four at a time so each Hessian entry is updated once per four samples (the same
 * sums, grouped differently; 2-3 times faster than one at a time). The Hessian's upper triangle is accumulated
 * packed (entry (j, k), j <= k, of the feature block in order), then unpacked and mirrored.
 */
function derivatives(
  z: Float64Array,
  m: number,
  d: number,
  l2: number,
  beta: Float64Array,
  weight: Float64Array,
  residual: Float64Array,
  grad: Float64Array,
  hess: Float64Array,
): void {
  const p = d + 1;
  const gz = new Float64Array(d); // sum of r_i z_ij
  const wz = new Float64Array(d); // sum of w_i z_ij (the intercept row of the Hessian)
  const packed = new Float64Array((d * (d + 1)) / 2); // sum of w_i z_ij z_ik, j <= k
  let g0 = 0;
  let h00 = 0;
  let i = 0;
  let base = 0;
  for (; i + 3 < m; i += 4, base += 4 * d) {
    const w0 = weight[i];
    const w1 = weight[i + 1];
    const w2 = weight[i + 2];
    const w3 = weight[i + 3];
    const r0 = residual[i];
    const r1 = residual[i + 1];
    const r2 = residual[i + 2];
    const r3 = residual[i + 3];
    g0 += r0 + r1 + r2 + r3;
    h00 += w0 + w1 + w2 + w3;
    const b1 = base + d;
    const b2 = b1 + d;
    const b3 = b2 + d;
    let t = 0;
    for (let j = 0; j < d; j++) {
      const z0 = z[base + j];
      const z1 = z[b1 + j];
      const z2 = z[b2 + j];
      const z3 = z[b3 + j];
      gz[j] += r0 * z0 + r1 * z1 + r2 * z2 + r3 * z3;
      const a0 = w0 * z0;
      const a1 = w1 * z1;
      const a2 = w2 * z2;
      const a3 = w3 * z3;
      wz[j] += a0 + a1 + a2 + a3;
      for (let k = j; k < d; k++) packed[t++] += a0 * z[base + k] + a1 * z[b1 + k] + a2 * z[b2 + k] + a3 * z[b3 + k];
    }
  }
  for (; i < m; i++, base += d) {
    const w0 = weight[i];
    const r0 = residual[i];
    g0 += r0;
    h00 += w0;
    let t = 0;
    for (let j = 0; j < d; j++) {
      const z0 = z[base + j];
      gz[j] += r0 * z0;
      const a0 = w0 * z0;
      wz[j] += a0;
      for (let k = j; k < d; k++) packed[t++] += a0 * z[base + k];
    }
  }
  grad[0] = g0;
  hess[0] = h00;
  for (let j = 0, t = 0; j < d; j++) {
    grad[j + 1] = gz[j] + l2 * beta[j + 1];
    hess[j + 1] = wz[j];
    hess[(j + 1) * p] = wz[j];
    for (let k = j; k < d; k++, t++) {
      hess[(j + 1) * p + k + 1] = packed[t];
      hess[(k + 1) * p + j + 1] = packed[t];
    }
    hess[(j + 1) * p + j + 1] += l2;
  }
}

/**
 * Solves A s = b in place (b becomes s) for a symmetric positive (semi-)definite p x p matrix A by Cholesky.
 * A pivot that is not clearly positive (relative to the largest diagonal entry) means A is singular in some
 * direction (e.g. a constant feature without penalty); a small ridge is then added to the diagonal and the
 * factorisation retried. Returns false when that fails too.
 */
function choleskySolve(a: Float64Array, p: number, b: Float64Array): boolean {
  let largestDiagonal = 0;
  for (let j = 0; j < p; j++) if (a[j * p + j] > largestDiagonal) largestDiagonal = a[j * p + j];
  const minPivot = 1e-14 * largestDiagonal;
  const lower = new Float64Array(p * p);
  let ridge = 0;
  for (let attempt = 0; attempt < 12; attempt++) {
    if (factor(a, p, ridge, minPivot, lower)) {
      // Forward substitution L u = b, then back substitution L' s = u.
      for (let i = 0; i < p; i++) {
        let s = b[i];
        for (let k = 0; k < i; k++) s -= lower[i * p + k] * b[k];
        b[i] = s / lower[i * p + i];
      }
      for (let i = p - 1; i >= 0; i--) {
        let s = b[i];
        for (let k = i + 1; k < p; k++) s -= lower[k * p + i] * b[k];
        b[i] = s / lower[i * p + i];
      }
      return true;
    }
    ridge = ridge === 0 ? 1e-12 * (largestDiagonal > 0 ? largestDiagonal : 1) : ridge * 100;
  }
  return false;
}

function factor(a: Float64Array, p: number, ridge: number, minPivot: number, lower: Float64Array): boolean {
  for (let j = 0; j < p; j++) {
    let diagonal = a[j * p + j] + ridge;
    for (let k = 0; k < j; k++) diagonal -= lower[j * p + k] * lower[j * p + k];
    if (!(diagonal > minPivot)) return false;
    const root = sqrt(diagonal);
    lower[j * p + j] = root;
    for (let i = j + 1; i < p; i++) {
      let s = a[i * p + j];
      for (let k = 0; k < j; k++) s -= lower[i * p + k] * lower[j * p + k];
      lower[i * p + j] = s / root;
    }
  }
  return true;
}
