/**
 * Summary of one group of outcomes (e.g. the 60-day forward excess returns of every snapshot in stage 2):
 * how many, over how many dates, mean, median, hit rate, and 95% intervals that account for dependence
 * between rows of one date and between nearby dates. Pure and deterministic (seeded bootstrap).
 *
 * Rows are (date, value) pairs; rows whose value is not finite are left out everywhere.
 * - n: rows; dates: distinct dates.
 * - mean: the pooled mean over rows, sum v_i / n (each observation weighs the same, so a date with more
 *   rows weighs more). median: the middle row value (mean of the two middle ones for even n).
 * - hitRate: the share of rows with v > 0 (a value of exactly 0 is not a hit).
 * - ci / hitRateCi: percentile intervals by block bootstrap over dates (bootstrap.ts: stationary scheme,
 *   block length round(D^(1/3)) by default, `minBlockLength` for forward windows that overlap several
 *   dates). A replicate draws D dates; a date drawn k times counts each of its rows k times; the replicate's
 *   mean is sum over drawn dates of the date's sum / sum of its counts, and likewise for hits. Both intervals
 *   come from the same resamples. Null with fewer than `minDates` dates (default 10): a handful of dates
 *   says nothing about the next one, and the summary then carries n with null intervals, never invented ones.
 * Without rows every statistic is null.
 *
 * Excess returns. `excessOverDateMean` subtracts from each row the equal-weight mean of its date's rows
 * (the equal-weight universe return when the rows are the whole universe), the benchmark the evidence
 * tables measure against. Group the rows after computing the excess on the whole universe.
 *
 * Differences. `meanDifference` compares two groups (e.g. BUY minus SELL): pooled mean of A minus pooled
 * mean of B, with the interval from resampling the union of their dates jointly (a drawn date brings its
 * rows of both groups), so the correlation between groups on the same dates is kept. Null interval when
 * fewer than `minDates` dates have rows in both, or a replicate lacks one group too often.
 */
import { assertSameLength, groupByDate, isFiniteNumber } from './by-date.js';
import { forEachResample, median, percentileInterval, resolveBootstrapOptions, type BlockScheme, type BootstrapOptions } from './bootstrap.js';

export interface SummaryOptions extends BootstrapOptions {
  /** Fewest distinct dates for an interval; integer >= 2, default 10. */
  minDates?: number;
  /** Whether the median is computed (a sort of every value); default true, null when false. */
  median?: boolean;
}

/** How an interval was obtained; without an interval, replicates is 0 and blockLength null. */
export interface IntervalMethod {
  level: number;
  replicates: number;
  blockLength: number | null;
  scheme: BlockScheme;
}

export interface GroupSummary {
  n: number;
  dates: number;
  mean: number | null;
  median: number | null;
  hitRate: number | null;
  /** [low, high] of the mean; null when too few dates. */
  ci: [number, number] | null;
  /** [low, high] of the hit rate; null when too few dates. */
  hitRateCi: [number, number] | null;
  interval: IntervalMethod;
}

export const DEFAULT_SUMMARY_MIN_DATES = 10;

/** Per date (in date order): sum of values, row count, hits. */
interface DateTotals {
  dates: string[];
  sum: Float64Array;
  count: Float64Array;
  hits: Float64Array;
}

function totalsByDate(dates: readonly string[], values: ArrayLike<number>): DateTotals & { values: number[] } {
  assertSameLength(dates, values);
  const groups = groupByDate(dates, (i) => isFiniteNumber(values[i]));
  const d = groups.dates.length;
  const totals = { dates: groups.dates, sum: new Float64Array(d), count: new Float64Array(d), hits: new Float64Array(d), values: [] as number[] };
  groups.rows.forEach((rows, k) => {
    for (const row of rows) {
      const v = values[row];
      totals.sum[k] += v;
      totals.count[k]++;
      if (v > 0) totals.hits[k]++;
      totals.values.push(v);
    }
  });
  return totals;
}

function minDatesOf(options: SummaryOptions): number {
  const minDates = options.minDates ?? DEFAULT_SUMMARY_MIN_DATES;
  if (!Number.isSafeInteger(minDates) || minDates < 2) throw new RangeError(`minDates must be an integer >= 2, got ${minDates}`);
  return minDates;
}

function method(dates: number, options: SummaryOptions, withInterval: boolean): IntervalMethod {
  const resolved = resolveBootstrapOptions(dates, options);
  return {
    level: resolved.level,
    replicates: withInterval ? resolved.replicates : 0,
    blockLength: withInterval ? resolved.blockLength : null,
    scheme: resolved.scheme,
  };
}

/** Summary of the rows (see the file comment). */
export function groupSummary(dates: readonly string[], values: ArrayLike<number>, options: SummaryOptions = {}): GroupSummary {
  const minDates = minDatesOf(options);
  const totals = totalsByDate(dates, values);
  const d = totals.dates.length;
  const n = totals.values.length;
  const withInterval = d >= minDates;
  const summary: GroupSummary = {
    n,
    dates: d,
    mean: null,
    median: null,
    hitRate: null,
    ci: null,
    hitRateCi: null,
    interval: method(d, options, withInterval),
  };
  if (n === 0) return summary;
  summary.mean = totals.values.reduce((a, b) => a + b, 0) / n;
  if (options.median !== false) summary.median = median(totals.values);
  summary.hitRate = totals.values.filter((v) => v > 0).length / n;
  if (!withInterval) return summary;
  const { replicates, level } = resolveBootstrapOptions(d, options);
  const means = new Float64Array(replicates);
  const hitRates = new Float64Array(replicates);
  forEachResample(d, options, (indices, r) => {
    let sum = 0;
    let count = 0;
    let hits = 0;
    for (let t = 0; t < d; t++) {
      const k = indices[t];
      sum += totals.sum[k];
      count += totals.count[k];
      hits += totals.hits[k];
    }
    means[r] = sum / count;
    hitRates[r] = hits / count;
  });
  summary.ci = percentileInterval(means, level);
  summary.hitRateCi = percentileInterval(hitRates, level);
  return summary;
}

/** Each value minus the mean of the finite values on its date; NaN where the value is not finite. */
export function excessOverDateMean(dates: readonly string[], values: ArrayLike<number>): Float64Array {
  assertSameLength(dates, values);
  const out = new Float64Array(values.length).fill(NaN);
  const groups = groupByDate(dates, (i) => isFiniteNumber(values[i]));
  for (const rows of groups.rows) {
    let mean = 0;
    for (const row of rows) mean += values[row];
    mean /= rows.length;
    for (const row of rows) out[row] = values[row] - mean;
  }
  return out;
}

export interface MeanDifference {
  /** Rows of A and B. */
  nA: number;
  nB: number;
  /** Dates with rows in both groups. */
  sharedDates: number;
  /** mean(A) - mean(B); null when either group is empty. */
  difference: number | null;
  ci: [number, number] | null;
  interval: IntervalMethod;
}

/** Pooled mean of A minus pooled mean of B with a joint block-bootstrap interval (see the file comment). */
export function meanDifference(
  a: { dates: readonly string[]; values: ArrayLike<number> },
  b: { dates: readonly string[]; values: ArrayLike<number> },
  options: SummaryOptions = {},
): MeanDifference {
  const minDates = minDatesOf(options);
  const ta = totalsByDate(a.dates, a.values);
  const tb = totalsByDate(b.dates, b.values);
  const union = [...new Set([...ta.dates, ...tb.dates])].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const position = new Map(union.map((date, k) => [date, k]));
  const spread = (t: DateTotals): { sum: Float64Array; count: Float64Array } => {
    const sum = new Float64Array(union.length);
    const count = new Float64Array(union.length);
    t.dates.forEach((date, k) => {
      const u = position.get(date) as number;
      sum[u] = t.sum[k];
      count[u] = t.count[k];
    });
    return { sum, count };
  };
  const sa = spread(ta);
  const sb = spread(tb);
  let sharedDates = 0;
  for (let u = 0; u < union.length; u++) if (sa.count[u] > 0 && sb.count[u] > 0) sharedDates++;
  const nA = ta.values.length;
  const nB = tb.values.length;
  const withInterval = sharedDates >= minDates && nA > 0 && nB > 0;
  const result: MeanDifference = {
    nA,
    nB,
    sharedDates,
    difference: nA > 0 && nB > 0 ? ta.values.reduce((x, y) => x + y, 0) / nA - tb.values.reduce((x, y) => x + y, 0) / nB : null,
    ci: null,
    interval: method(union.length, options, withInterval),
  };
  if (!withInterval) return result;
  const { replicates, level } = resolveBootstrapOptions(union.length, options);
  const differences = new Float64Array(replicates);
  forEachResample(union.length, options, (indices, r) => {
    let sumA = 0;
    let countA = 0;
    let sumB = 0;
    let countB = 0;
    for (let t = 0; t < indices.length; t++) {
      const u = indices[t];
      sumA += sa.sum[u];
      countA += sa.count[u];
      sumB += sb.sum[u];
      countB += sb.count[u];
    }
    differences[r] = sumA / countA - sumB / countB; // NaN when a group is missing from the resample
  });
  result.ci = percentileInterval(differences, level);
  return result;
}
