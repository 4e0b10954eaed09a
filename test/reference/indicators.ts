/**
 * Naive reference implementations of the indicator kernels (engine/indicators.ts): every output index
 * recomputed from its definition, independently of the kernels' rolling algorithms. The unit tests
 * compare the kernels with them to 1e-9 relative; bench/indicators.ts times the kernels against them.
 *
 * The smoothed averages (EMA, Wilder) are written in closed form, a sum over every earlier input:
 * exact but O(n^2). `minWeight` drops the terms whose weight has fallen below it (the bench passes
 * 1e-16 to stay O(n) on a million bars; the tests keep every term).
 */
import { TA_EPSILON } from '../../subgraphs/analysis/engine/indicators.js';

const { abs, ceil, log, max, sqrt } = Math;

export function refSma(x: Float64Array, p: number): Float64Array {
  const out = new Float64Array(x.length).fill(NaN);
  for (let i = p - 1; i < x.length; i++) {
    let sum = 0;
    for (let j = i - p + 1; j <= i; j++) sum += x[j];
    out[i] = sum / p;
  }
  return out;
}

/**
 * Exponential smoothing in closed form: a[t] = mean(v[t-p+1 .. t]), then
 * a[i] = decay^(i-t) * a[t] + sum over j in (t, i] of (1 - decay) * decay^(i-j) * v[j].
 */
export function refSmoothed(v: ArrayLike<number>, p: number, t: number, decay: number, minWeight = 0): Float64Array {
  const n = v.length;
  const out = new Float64Array(n).fill(NaN);
  if (t >= n) return out;
  let seed = 0;
  for (let j = t - p + 1; j <= t; j++) seed += v[j];
  seed /= p;
  const terms = minWeight > 0 ? ceil(log(minWeight) / log(decay)) : Infinity;
  const gain = 1 - decay;
  for (let i = t; i < n; i++) {
    const from = max(t + 1, i - terms + 1);
    let acc = 0;
    let w = 1;
    for (let j = i; j >= from; j--) {
      acc += gain * w * v[j];
      w *= decay;
    }
    out[i] = from === t + 1 ? acc + w * seed : acc;
  }
  return out;
}

/** EMA seeded with the SMA of x[start .. start+p-1], k = 2 / (p + 1). */
export const refEma = (x: ArrayLike<number>, p: number, start = 0, minWeight = 0): Float64Array =>
  refSmoothed(x, p, start + p - 1, 1 - 2 / (p + 1), minWeight);

/** Wilder's average seeded at index t. */
export const refWilder = (v: ArrayLike<number>, p: number, t: number, minWeight = 0): Float64Array => refSmoothed(v, p, t, (p - 1) / p, minWeight);

/** RSI as 100 - 100 / (1 + RS), RS = avgGain / avgLoss; TA-Lib's 0 when both averages are (near) zero. */
export function refRsi(x: Float64Array, p: number, minWeight = 0): Float64Array {
  const n = x.length;
  const gains = new Float64Array(n);
  const losses = new Float64Array(n);
  for (let i = 1; i < n; i++) {
    gains[i] = max(x[i] - x[i - 1], 0);
    losses[i] = max(x[i - 1] - x[i], 0);
  }
  const g = refWilder(gains, p, p, minWeight);
  const l = refWilder(losses, p, p, minWeight);
  const out = new Float64Array(n).fill(NaN);
  for (let i = p; i < n; i++) {
    if (g[i] + l[i] < TA_EPSILON) out[i] = 0;
    else if (l[i] === 0) out[i] = 100;
    else out[i] = 100 - 100 / (1 + g[i] / l[i]);
  }
  return out;
}

export function refTrueRange(h: Float64Array, l: Float64Array, c: Float64Array): Float64Array {
  const out = new Float64Array(c.length).fill(NaN);
  for (let i = 1; i < c.length; i++) out[i] = max(h[i] - l[i], abs(h[i] - c[i - 1]), abs(l[i] - c[i - 1]));
  return out;
}

export const refAtr = (h: Float64Array, l: Float64Array, c: Float64Array, p: number, minWeight = 0): Float64Array =>
  refWilder(refTrueRange(h, l, c), p, p, minWeight);

/** Population standard deviation by two passes over each window, times d; TA-Lib's 0 below TA_EPSILON. */
export function refStddev(x: Float64Array, p: number, d = 1): Float64Array {
  const out = new Float64Array(x.length).fill(NaN);
  for (let i = p - 1; i < x.length; i++) {
    let mean = 0;
    for (let j = i - p + 1; j <= i; j++) mean += x[j];
    mean /= p;
    let ss = 0;
    for (let j = i - p + 1; j <= i; j++) ss += (x[j] - mean) ** 2;
    const variance = ss / p;
    out[i] = variance < TA_EPSILON ? 0 : sqrt(variance) * d;
  }
  return out;
}

export function refBollinger(x: Float64Array, p: number, d: number) {
  const middle = refSma(x, p);
  const sd = refStddev(x, p, 1);
  const upper = middle.map((m, i) => m + d * sd[i]);
  const lower = middle.map((m, i) => m - d * sd[i]);
  const bandwidth = middle.map((m, i) => (upper[i] - lower[i]) / m);
  return { upper, middle, lower, bandwidth };
}

/** MACD by its definition, including TA-Lib's seeding of the fast EMA at the slow EMA's first index. */
export function refMacd(x: Float64Array, fast: number, slow: number, signal: number, minWeight = 0) {
  if (slow < fast) [fast, slow] = [slow, fast];
  const n = x.length;
  const slowEma = refEma(x, slow, 0, minWeight);
  const fastEma = refEma(x, fast, slow - fast, minWeight);
  const line = slowEma.map((s, i) => fastEma[i] - s);
  const first = slow - 1 + signal - 1;
  const macdLine = new Float64Array(n).fill(NaN);
  const signalLine = new Float64Array(n).fill(NaN);
  const histogram = new Float64Array(n).fill(NaN);
  if (first >= n) return { macd: macdLine, signal: signalLine, histogram };
  const sig = refEma(line.subarray(slow - 1), signal, 0, minWeight);
  for (let i = first; i < n; i++) {
    macdLine[i] = line[i];
    signalLine[i] = sig[i - (slow - 1)];
    histogram[i] = line[i] - signalLine[i];
  }
  return { macd: macdLine, signal: signalLine, histogram };
}

/** Sample (n-1) standard deviation of the last p log returns, re-derived from the closes per window. */
export function refHv(c: Float64Array, p: number, perYear: number): Float64Array {
  const out = new Float64Array(c.length).fill(NaN);
  for (let i = p; i < c.length; i++) {
    let mean = 0;
    for (let j = i - p + 1; j <= i; j++) mean += log(c[j] / c[j - 1]);
    mean /= p;
    let ss = 0;
    for (let j = i - p + 1; j <= i; j++) ss += (log(c[j] / c[j - 1]) - mean) ** 2;
    out[i] = sqrt(ss / (p - 1)) * sqrt(perYear);
  }
  return out;
}
