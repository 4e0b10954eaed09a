/**
 * Block bootstrap over a date-indexed series: confidence intervals that respect serial dependence between
 * dates. Pure and deterministic: no I/O, no clock, no Math.random; the randomness is the engine's seeded
 * sfc32 generator (../prng.ts), so equal inputs and options give the same interval bit for bit.
 *
 * What is resampled. The unit is a date: index 0 .. n-1 of a series in date order (one value per date, or one
 * group of observations per date, e.g. every stock's forward return on that date). Observations on the same
 * date are cross-sectionally correlated and forward returns over overlapping windows are serially correlated,
 * so resampling rows independently would understate the uncertainty; resampling runs of consecutive dates
 * keeps both dependencies inside a block. A statistic is a function of the resampled date indices (for a
 * pooled mean over observations: sum over resampled dates of the date's sum, divided by the sum of its counts).
 *
 * Schemes, each producing n resampled indices per replicate:
 * - `moving` (moving block bootstrap; Künsch 1989, Liu & Singh 1992): blocks of exactly L consecutive dates
 *   start at a uniform position in 0 .. n-L; blocks are concatenated and the last one cut at n.
 * - `circular` (Politis & Romano 1992): as `moving` but a block may start anywhere in 0 .. n-1 and wraps from
 *   the last date to the first, so every date is equally likely to be drawn.
 * - `stationary` (stationary bootstrap; Politis & Romano 1994): the first index is uniform; each next one is,
 *   with probability 1/L, a new uniform start, otherwise the previous index + 1 (wrapping). Block lengths
 *   are geometric with mean L, and the resampled series is stationary. The default.
 *
 * Block length. Default L = max(1, round(n^(1/3))), the rate that minimises the error of a block bootstrap
 * variance estimate (Hall, Horowitz & Jing 1995; Lahiri 2003, ch. 7). A statistic built from forward returns
 * that overlap k dates (a 60-day horizon sampled weekly overlaps 12 dates) should pass `minBlockLength` >= k
 * so that a block spans the overlap; L never exceeds n.
 *
 * Interval. The percentile interval (Efron & Tibshirani 1993, ch. 13): the (1-level)/2 and (1+level)/2
 * quantiles of the replicate statistics, quantiles by linear interpolation between order statistics
 * (Hyndman & Fan 1996, definition 7). Replicates whose statistic is not finite (e.g. an AUC on a resample
 * with one class) are dropped; when fewer than half the replicates remain, or n < 2, there is no interval.
 */
import { createPrng, type Prng } from '../prng.js';

export type BlockScheme = 'moving' | 'circular' | 'stationary';

export interface BootstrapOptions {
  /** Replicates drawn; integer >= 1, default 1000. */
  replicates?: number;
  /** Block length (mean block length for `stationary`); default {@link defaultBlockLength}(n). Clamped to n. */
  blockLength?: number;
  /** Lower bound applied to the block length (e.g. the overlap of forward windows in dates); default 1. */
  minBlockLength?: number;
  /** Default `stationary`. */
  scheme?: BlockScheme;
  /** Seed of the generator (safe integer); default 0. */
  seed?: number;
  /** Stream of the generator (safe integer), for independent draws under one seed; default 0. */
  stream?: number;
  /** Coverage of the interval, in (0, 1); default 0.95. */
  level?: number;
}

/** A percentile interval with how it was obtained. */
export interface BootstrapInterval {
  low: number;
  high: number;
  level: number;
  /** Replicates with a finite statistic (the ones the quantiles come from). */
  replicates: number;
  blockLength: number;
  scheme: BlockScheme;
}

export const DEFAULT_REPLICATES = 1000;
export const DEFAULT_LEVEL = 0.95;
export const DEFAULT_SCHEME: BlockScheme = 'stationary';

const { floor, max, min, round } = Math;

/** max(1, round(n^(1/3))): see the file comment. */
export function defaultBlockLength(n: number): number {
  return max(1, round(Math.cbrt(max(0, n))));
}

interface Resolved {
  replicates: number;
  blockLength: number;
  scheme: BlockScheme;
  seed: number;
  stream: number;
  level: number;
}

/** Validates the options for a series of n dates and fills in the defaults. Throws RangeError. */
export function resolveBootstrapOptions(n: number, options: BootstrapOptions = {}): Resolved {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`n must be an integer >= 0, got ${n}`);
  const replicates = options.replicates ?? DEFAULT_REPLICATES;
  if (!Number.isSafeInteger(replicates) || replicates < 1) {
    throw new RangeError(`replicates must be an integer >= 1, got ${replicates}`);
  }
  const scheme = options.scheme ?? DEFAULT_SCHEME;
  if (scheme !== 'moving' && scheme !== 'circular' && scheme !== 'stationary') {
    throw new RangeError(`scheme must be moving, circular or stationary, got ${String(scheme)}`);
  }
  const level = options.level ?? DEFAULT_LEVEL;
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  const minBlock = options.minBlockLength ?? 1;
  const requested = options.blockLength ?? defaultBlockLength(n);
  for (const [label, value] of [['blockLength', requested], ['minBlockLength', minBlock]] as const) {
    if (!Number.isFinite(value) || value < 1) throw new RangeError(`${label} must be a number >= 1, got ${value}`);
    if (scheme !== 'stationary' && !Number.isInteger(value)) {
      throw new RangeError(`${label} must be an integer for the ${scheme} scheme, got ${value}`);
    }
  }
  const seed = options.seed ?? 0;
  const stream = options.stream ?? 0;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  if (!Number.isSafeInteger(stream)) throw new RangeError(`stream must be a safe integer, got ${stream}`);
  const blockLength = min(max(requested, minBlock), max(1, n));
  return { replicates, blockLength, scheme, seed, stream, level };
}

/**
 * Fills `out` (length n) with one resample of the indices 0 .. n-1 by `scheme` with block length L
 * (1 <= L <= n; an integer except for `stationary`).
 */
export function resampleIndices(out: Int32Array, blockLength: number, scheme: BlockScheme, rng: Prng): void {
  const n = out.length;
  if (n === 0) return;
  if (scheme === 'stationary') {
    const restart = 1 / blockLength;
    let index = floor(rng.next() * n);
    out[0] = index;
    for (let t = 1; t < n; t++) {
      if (rng.next() < restart) index = floor(rng.next() * n);
      else if (++index === n) index = 0;
      out[t] = index;
    }
    return;
  }
  const starts = scheme === 'moving' ? n - blockLength + 1 : n;
  for (let t = 0; t < n; ) {
    let index = floor(rng.next() * starts);
    for (let k = 0; k < blockLength && t < n; k++, t++) {
      out[t] = index;
      if (++index === n) index = 0;
    }
  }
}

/**
 * Calls `visit` once per replicate with the resampled date indices (a buffer reused between calls: copy it
 * to keep it). Lets a caller compute several statistics from the same resamples.
 */
export function forEachResample(
  n: number,
  options: BootstrapOptions,
  visit: (indices: Int32Array, replicate: number) => void,
): Resolved {
  const resolved = resolveBootstrapOptions(n, options);
  const rng = createPrng(resolved.seed, resolved.stream);
  const indices = new Int32Array(n);
  for (let r = 0; r < resolved.replicates; r++) {
    resampleIndices(indices, resolved.blockLength, resolved.scheme, rng);
    visit(indices, r);
  }
  return resolved;
}

/** A range of replicates, from `from` to `to` - 1. */
export interface ReplicateRange {
  from: number;
  to: number;
}

/**
 * Part `part` of `parts` near-equal consecutive ranges of `replicates` replicates (the parts in order
 * cover every replicate once).
 */
export function replicatePart(replicates: number, part: number, parts: number): ReplicateRange {
  if (!Number.isSafeInteger(parts) || parts < 1 || !Number.isSafeInteger(part) || part < 0 || part >= parts) {
    throw new RangeError(`part ${part} of ${parts}`);
  }
  return { from: floor((replicates * part) / parts), to: floor((replicates * (part + 1)) / parts) };
}

/**
 * The statistic on every replicate (non-finite values included), or on the replicates of `range` only:
 * every replicate is still drawn in order, so replicate r gets the same resample whichever range it is
 * evaluated in, and the ranges' values concatenated in order are the whole run's, bit for bit (the
 * replicates of a run can be evaluated on several threads).
 */
export function bootstrapReplicates(
  n: number,
  statistic: (indices: Int32Array) => number,
  options: BootstrapOptions = {},
  range?: ReplicateRange,
): Float64Array {
  const total = resolveBootstrapOptions(n, options).replicates;
  const from = range?.from ?? 0;
  const to = range?.to ?? total;
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || to < from || to > total) {
    throw new RangeError(`replicates ${from} to ${to} of ${total}`);
  }
  const values = new Float64Array(to - from);
  if (to === from) return values;
  forEachResample(n, { ...options, replicates: to }, (indices, r) => {
    if (r >= from) values[r - from] = statistic(indices);
  });
  return values;
}

/** Quantile p in [0, 1] of ascending `sorted` (non-empty) by linear interpolation (Hyndman & Fan type 7). */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError('quantile of an empty sample');
  if (!(p >= 0 && p <= 1)) throw new RangeError(`p must be in [0, 1], got ${p}`);
  const h = (n - 1) * p;
  const lo = floor(h);
  const hi = min(lo + 1, n - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/** Median of `values` (non-empty): the middle value, or the mean of the two middle values. */
export function median(values: ArrayLike<number>): number {
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Percentile interval of the finite values among `replicates`; null when fewer than half of them are
 * finite (or there are none).
 */
export function percentileInterval(replicates: ArrayLike<number>, level = DEFAULT_LEVEL): [number, number] | null {
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  const finite: number[] = [];
  for (let i = 0; i < replicates.length; i++) if (Number.isFinite(replicates[i])) finite.push(replicates[i]);
  if (finite.length === 0 || finite.length * 2 < replicates.length) return null;
  const sorted = Float64Array.from(finite).sort();
  return [quantileSorted(sorted, (1 - level) / 2), quantileSorted(sorted, (1 + level) / 2)];
}

/** Percentile interval of `statistic` over block-bootstrap resamples of n dates; null when n < 2 (see the file comment). */
export function bootstrapInterval(
  n: number,
  statistic: (indices: Int32Array) => number,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  resolveBootstrapOptions(n, options);
  if (n < 2) return null;
  return intervalOfReplicates(n, bootstrapReplicates(n, statistic, options), options);
}

/**
 * The percentile interval of a run's replicate values (every replicate, in order: bootstrapReplicates
 * over the whole run, or its ranges concatenated); null when n < 2 or too few values are finite.
 */
export function intervalOfReplicates(n: number, values: ArrayLike<number>, options: BootstrapOptions = {}): BootstrapInterval | null {
  const resolved = resolveBootstrapOptions(n, options);
  if (n < 2) return null;
  if (values.length !== resolved.replicates) throw new RangeError(`${values.length} replicate values, ${resolved.replicates} expected`);
  const interval = percentileInterval(values, resolved.level);
  if (interval === null) return null;
  let valid = 0;
  for (let r = 0; r < values.length; r++) if (Number.isFinite(values[r])) valid++;
  return {
    low: interval[0],
    high: interval[1],
    level: resolved.level,
    replicates: valid,
    blockLength: resolved.blockLength,
    scheme: resolved.scheme,
  };
}

/**
 * Interval for the mean of a series with one value per date, in date order. Non-finite values are not
 * allowed (RangeError): drop those dates first, since removing them changes which dates are adjacent.
 */
export function blockBootstrapMeanInterval(series: ArrayLike<number>, options: BootstrapOptions = {}): BootstrapInterval | null {
  const n = series.length;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(series[i])) throw new RangeError(`series value ${i} is not finite`);
  }
  return bootstrapInterval(
    n,
    (indices) => {
      let sum = 0;
      for (let t = 0; t < n; t++) sum += series[indices[t]];
      return sum / n;
    },
    options,
  );
}
