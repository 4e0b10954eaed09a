/**
 * Daily returns and the Ledoit-Wolf shrunk covariance the allocation engine's volatility target uses.
 *
 * Returns (`alignedReturns`):
 * - The returns of a set of symbols are measured on the dates common to all of them: a date counts only
 *   when every series has a finite, positive close on it (a close that is missing, zero, negative or not
 *   finite removes that date for that series, so it is not common).
 * - Only the most recent `window + 1` common dates are used (`VOL_WINDOW_DAYS` = 252 returns by default),
 *   and the return of common date t is the simple return close_t / close_{t-1} - 1 against the previous
 *   common date. A date gap in one series therefore spans the gap rather than inventing a close.
 * - Series must list their dates oldest first (the `CloseSeries` contract); the walk runs backwards from
 *   the newest close and stops once it has enough common dates, so it costs about
 *   `symbols x window` comparisons however long the stored histories are.
 * - Fewer than `MIN_ALIGNED_RETURNS` (20) aligned returns means volatility is unmeasurable; the caller
 *   decides what to do (the optimizer skips its vol target and says so).
 *
 * Covariance (`ledoitWolf`): Ledoit & Wolf (2004), "A well-conditioned estimator for large-dimensional
 * covariance matrices", computed exactly as scikit-learn's `sklearn.covariance.ledoit_wolf` with
 * `assume_centered=False`:
 * - X (T x N) is demeaned per column; S = X'X / T (1/T normalisation, not 1/(T-1)).
 * - mu = trace(S) / N, the target is mu * I.
 * - delta = ||S - mu I||_F^2 / N (the squared distance of S from the target).
 * - beta = (1 / (N T)) * (sum_t ||x_t||^4 / T - ||S||_F^2), which equals
 *   (1 / N) * (1 / T^2) * sum_t ||x_t x_t' - S||_F^2, the estimation error of S.
 * - shrinkage = min(beta, delta) / delta (0 when beta is 0 or delta is 0), so it lies in [0, 1].
 * - covariance = (1 - shrinkage) * S + shrinkage * mu * I.
 * - One column (N = 1): shrinkage 0 and the covariance is the (1/T) variance, as scikit-learn returns.
 * Shrinking toward mu * I keeps the trace of S and makes the estimate positive definite whenever any
 * column varies and the shrinkage is positive.
 */
import type { CloseSeries } from './types.js';

/** Daily returns in the vol window (252 trading days, one year). */
export const VOL_WINDOW_DAYS = 252;
/** Trading days per year, to annualise a daily variance. */
export const TRADING_DAYS_PER_YEAR = 252;
/** Fewer aligned daily returns than this and volatility is unmeasurable. */
export const MIN_ALIGNED_RETURNS = 20;

/** Simple daily returns close_t / close_{t-1} - 1 of consecutive closes (length closes.length - 1). */
export function dailyReturns(closes: readonly number[]): number[] {
  const out: number[] = [];
  for (let t = 1; t < closes.length; t++) out.push(closes[t] / closes[t - 1] - 1);
  return out;
}

export interface AlignedReturns {
  /** Date of each return (the later date of its pair of common dates), oldest first. */
  dates: string[];
  /** returns[t][i]: return of series i on dates[t]; T x N, rows are days. */
  returns: number[][];
}

function usable(close: number): boolean {
  return Number.isFinite(close) && close > 0;
}

/**
 * Returns of the given series on their last `window + 1` common dates (so at most `window` returns), in
 * the order the series are given. With no series, or fewer than two common dates, the result is empty.
 */
export function alignedReturns(series: readonly CloseSeries[], window: number = VOL_WINDOW_DAYS): AlignedReturns {
  const n = series.length;
  if (n === 0 || window < 1) return { dates: [], returns: [] };
  const wanted = Math.floor(window) + 1;
  // One pointer per series, walking backwards from the newest usable close.
  const ptr = new Array<number>(n);
  for (let i = 0; i < n; i++) ptr[i] = Math.min(series[i].dates.length, series[i].closes.length) - 1;
  const commonDates: string[] = [];
  const commonIdx: number[][] = [];
  outer: while (commonDates.length < wanted) {
    // Skip unusable closes, then find the earliest of the current dates: no later date can be common.
    let candidate: string | null = null;
    for (let i = 0; i < n; i++) {
      const s = series[i];
      while (ptr[i] >= 0 && !usable(s.closes[ptr[i]])) ptr[i]--;
      if (ptr[i] < 0) break outer;
      const d = s.dates[ptr[i]];
      if (candidate === null || d < candidate) candidate = d;
    }
    const date = candidate as string;
    let all = true;
    for (let i = 0; i < n; i++) {
      const s = series[i];
      while (ptr[i] >= 0 && s.dates[ptr[i]] > date) ptr[i]--;
      if (ptr[i] < 0) break outer;
      if (s.dates[ptr[i]] !== date || !usable(s.closes[ptr[i]])) all = false;
    }
    if (all) {
      commonDates.push(date);
      commonIdx.push(ptr.slice());
      for (let i = 0; i < n; i++) ptr[i]--;
    }
  }
  // commonDates is newest first; build returns oldest first.
  const dates: string[] = [];
  const returns: number[][] = [];
  for (let k = commonDates.length - 1; k >= 1; k--) {
    const prev = commonIdx[k];
    const cur = commonIdx[k - 1];
    const row = new Array<number>(n);
    for (let i = 0; i < n; i++) row[i] = series[i].closes[cur[i]] / series[i].closes[prev[i]] - 1;
    dates.push(commonDates[k - 1]);
    returns.push(row);
  }
  return { dates, returns };
}

export interface LedoitWolfResult {
  /** N x N, row-major. */
  covariance: Float64Array;
  /** Shrinkage intensity in [0, 1]: 0 = sample covariance, 1 = mu * I. */
  shrinkage: number;
}

/**
 * Ledoit-Wolf shrunk covariance of `returns` (T x N, rows are days), as scikit-learn's `ledoit_wolf`
 * (demeaned, 1/T normalisation). Throws when there are no rows or the rows have different lengths.
 */
export function ledoitWolf(returns: readonly (readonly number[])[]): LedoitWolfResult {
  const T = returns.length;
  if (T < 1) throw new RangeError('ledoitWolf needs at least one row of returns');
  const N = returns[0].length;
  for (let t = 1; t < T; t++) {
    if (returns[t].length !== N) throw new RangeError('ledoitWolf: rows of returns have different lengths');
  }
  if (N === 0) return { covariance: new Float64Array(0), shrinkage: 0 };

  // Column means, then the demeaned matrix (row-major T x N).
  const mean = new Float64Array(N);
  for (let t = 0; t < T; t++) {
    const row = returns[t];
    for (let i = 0; i < N; i++) mean[i] += row[i];
  }
  for (let i = 0; i < N; i++) mean[i] /= T;
  const X = new Float64Array(T * N);
  for (let t = 0; t < T; t++) {
    const row = returns[t];
    const base = t * N;
    for (let i = 0; i < N; i++) X[base + i] = row[i] - mean[i];
  }

  // Sample covariance S = X'X / T (upper triangle computed, mirrored).
  const S = new Float64Array(N * N);
  for (let t = 0; t < T; t++) {
    const base = t * N;
    for (let i = 0; i < N; i++) {
      const xi = X[base + i];
      if (xi === 0) continue;
      const rowI = i * N;
      for (let j = i; j < N; j++) S[rowI + j] += xi * X[base + j];
    }
  }
  for (let i = 0; i < N; i++) {
    for (let j = i; j < N; j++) {
      const v = S[i * N + j] / T;
      S[i * N + j] = v;
      S[j * N + i] = v;
    }
  }
  if (N === 1) return { covariance: S, shrinkage: 0 };

  let trace = 0;
  for (let i = 0; i < N; i++) trace += S[i * N + i];
  const mu = trace / N;

  // ||S||_F^2 and sum_t ||x_t||^4.
  let frob = 0;
  for (let k = 0; k < N * N; k++) frob += S[k] * S[k];
  let fourth = 0;
  for (let t = 0; t < T; t++) {
    const base = t * N;
    let sq = 0;
    for (let i = 0; i < N; i++) sq += X[base + i] * X[base + i];
    fourth += sq * sq;
  }
  const betaRaw = (fourth / T - frob) / (N * T);
  const delta = (frob - 2 * mu * trace + N * mu * mu) / N;
  const beta = Math.min(betaRaw, delta);
  let shrinkage = beta === 0 || !(delta > 0) ? 0 : beta / delta;
  if (!(shrinkage > 0)) shrinkage = 0;
  if (shrinkage > 1) shrinkage = 1;

  const covariance = new Float64Array(N * N);
  const keep = 1 - shrinkage;
  for (let k = 0; k < N * N; k++) covariance[k] = keep * S[k];
  for (let i = 0; i < N; i++) covariance[i * N + i] += shrinkage * mu;
  return { covariance, shrinkage };
}

/** w' C w for a row-major N x N matrix. */
export function quadraticForm(cov: Float64Array, w: ArrayLike<number>): number {
  const n = w.length;
  let q = 0;
  for (let i = 0; i < n; i++) {
    const wi = w[i];
    if (wi === 0) continue;
    const row = i * n;
    let s = 0;
    for (let j = 0; j < n; j++) s += cov[row + j] * w[j];
    q += wi * s;
  }
  return q;
}
