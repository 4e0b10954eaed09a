/**
 * ROC AUC with a confidence interval by block bootstrap over dates. Pure and deterministic (seeded).
 *
 * Point estimate. The AUC is the Mann-Whitney statistic (Mann & Whitney 1947; Hanley & McNeil 1982):
 *     AUC = (1 / (P N)) sum_{i positive} sum_{j negative} ( [s_i > s_j] + 1/2 [s_i = s_j] ),
 * the probability that a random positive scores above a random negative, ties counting one half. The engine
 * already computes it in `rocAuc` (../logistic.ts, used by the ML walk-forward); this file reuses that
 * function for the point estimate and does not duplicate it. Label 0 is negative, any other label positive;
 * rows whose score is NaN are ignored (the same rules as `rocAuc`).
 *
 * Weighted form. With a weight w_i per row (a row repeated k times has weight k), the same sum with each pair
 * weighted w_i w_j, over P = sum of positive weights and N = sum of negative weights. It is computed in one
 * pass over the rows sorted by score once: within a run of equal scores, U += W+ (N_below + W-/2), then
 * N_below += W-, where W+ and W- are the run's positive and negative weights. That makes each bootstrap
 * replicate linear in the number of rows.
 *
 * Interval. Rows on one date are not independent (one market move shifts every score's outcome) and outcomes
 * of nearby dates overlap, so the interval resamples dates, not rows: a block bootstrap over the sorted
 * distinct dates (bootstrap.ts; stationary scheme and block length n^(1/3) by default, `minBlockLength` for
 * overlapping horizons), where a date drawn k times gives each of its rows weight k; the percentile interval
 * of the replicate AUCs. A replicate with one class only has no AUC and is dropped. DeLong's variance
 * (DeLong, DeLong & Clarke-Pearson 1988) was not used: it assumes independent rows. No interval with fewer
 * than `minDates` dates (default 10) or when the point estimate is undefined.
 */
import { rocAuc } from '../logistic.js';
import { assertSameLength, groupByDate } from './by-date.js';
import { bootstrapReplicates, intervalOfReplicates, type BootstrapInterval, type BootstrapOptions, type ReplicateRange } from './bootstrap.js';

export { rocAuc };

/** Rows sorted by score once, as runs of equal scores, for repeated weighted AUCs. */
interface SortedRuns {
  /** Row index of each sorted row. */
  rows: Int32Array;
  /** Run boundaries: run k covers sorted rows runStart[k] .. runStart[k+1]-1. */
  runStart: Int32Array;
  positive: Uint8Array;
}

function sortRuns(scores: ArrayLike<number>, labels: ArrayLike<number>, rows: Int32Array): SortedRuns {
  // Comparisons (not subtraction) so that infinite scores sort too; -0 and +0 compare equal, as in rocAuc.
  const sorted = Int32Array.from(rows).sort((a, b) => (scores[a] < scores[b] ? -1 : scores[a] > scores[b] ? 1 : 0));
  const starts: number[] = [];
  for (let k = 0; k < sorted.length; k++) {
    if (k === 0 || scores[sorted[k]] !== scores[sorted[k - 1]]) starts.push(k);
  }
  starts.push(sorted.length);
  const positive = new Uint8Array(scores.length);
  for (let i = 0; i < scores.length; i++) positive[i] = labels[i] !== 0 ? 1 : 0;
  return { rows: sorted, runStart: Int32Array.from(starts), positive };
}

/** The weighted Mann-Whitney AUC of the sorted runs with row weights weight(row); NaN when a class has no weight. */
function runsAuc(runs: SortedRuns, weight: (row: number) => number): number {
  const { rows, runStart, positive } = runs;
  let u = 0;
  let negBelow = 0;
  let posTotal = 0;
  for (let k = 0; k + 1 < runStart.length; k++) {
    let wPos = 0;
    let wNeg = 0;
    for (let r = runStart[k]; r < runStart[k + 1]; r++) {
      const row = rows[r];
      const w = weight(row);
      if (positive[row] === 1) wPos += w;
      else wNeg += w;
    }
    u += wPos * (negBelow + 0.5 * wNeg);
    negBelow += wNeg;
    posTotal += wPos;
  }
  return posTotal > 0 && negBelow > 0 ? u / (posTotal * negBelow) : NaN;
}

/**
 * The same weighted AUC when every row of a date has the date's weight, in O(D^2) for D dates instead of
 * O(rows): pairs[a * D + b] counts the (positive of date a, negative of date b) pairs the positive wins
 * (ties one half), so U = sum_a sum_b m_a m_b pairs[a * D + b]. Every term and partial sum is a multiple
 * of 1/2 far below 2^52, exact in floating point like runsAuc's, so both give the same number bit for bit.
 */
function datePairAuc(runs: SortedRuns, dateOf: Int32Array, dates: number): (multiplicity: Float64Array) => number {
  const { rows, runStart, positive } = runs;
  const pairs = new Float64Array(dates * dates);
  const negBelow = new Float64Array(dates);
  const pos = new Float64Array(dates);
  const neg = new Float64Array(dates);
  const runNeg = new Float64Array(dates);
  const touched: number[] = [];
  for (let k = 0; k + 1 < runStart.length; k++) {
    const from = runStart[k];
    const to = runStart[k + 1];
    let negatives = 0;
    for (let r = from; r < to; r++) {
      const row = rows[r];
      if (positive[row] !== 1) {
        negatives++;
        continue;
      }
      const a = dateOf[row];
      pos[a]++;
      for (let b = 0, base = a * dates; b < dates; b++) pairs[base + b] += negBelow[b];
    }
    if (negatives === 0) continue;
    // Ties within the run count one half: the run's negatives counted by date once, so a long run of
    // tied scores costs its positives times its negatives' dates, not positives times negatives.
    touched.length = 0;
    for (let r = from; r < to; r++) {
      const row = rows[r];
      if (positive[row] === 1) continue;
      const b = dateOf[row];
      if (runNeg[b] === 0) touched.push(b);
      runNeg[b]++;
    }
    if (negatives < to - from) {
      for (let r = from; r < to; r++) {
        const row = rows[r];
        if (positive[row] !== 1) continue;
        const base = dateOf[row] * dates;
        for (let t = 0; t < touched.length; t++) pairs[base + touched[t]] += 0.5 * runNeg[touched[t]];
      }
    }
    for (let t = 0; t < touched.length; t++) {
      const b = touched[t];
      negBelow[b] += runNeg[b];
      neg[b] += runNeg[b];
      runNeg[b] = 0;
    }
  }
  return (m) => {
    let u = 0;
    let posTotal = 0;
    let negTotal = 0;
    for (let a = 0; a < dates; a++) {
      const ma = m[a];
      if (ma === 0) continue;
      posTotal += ma * pos[a];
      negTotal += ma * neg[a];
      let row = 0;
      for (let b = 0, base = a * dates; b < dates; b++) row += m[b] * pairs[base + b];
      u += ma * row;
    }
    return posTotal > 0 && negTotal > 0 ? u / (posTotal * negTotal) : NaN;
  };
}

/**
 * Weighted AUC (see the file comment): weights finite and >= 0; rows with a NaN score are ignored; NaN when
 * either class has zero total weight. With all weights 1 it equals {@link rocAuc}.
 */
export function weightedAuc(scores: ArrayLike<number>, labels: ArrayLike<number>, weights: ArrayLike<number>): number {
  const n = scores.length;
  if (labels.length !== n || weights.length !== n) {
    throw new RangeError(`${n} scores, ${labels.length} labels and ${weights.length} weights`);
  }
  const kept: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!(weights[i] >= 0) || !Number.isFinite(weights[i])) throw new RangeError(`weight ${i} must be finite and >= 0`);
    if (scores[i] === scores[i]) kept.push(i);
  }
  return runsAuc(sortRuns(scores, labels, Int32Array.from(kept)), (row) => weights[row]);
}

export interface AucOptions extends BootstrapOptions {
  /** Fewest distinct dates for an interval; integer >= 2, default 10. */
  minDates?: number;
  /**
   * Compute each replicate from a table of date pairs (O(dates^2)) instead of a pass over the rows
   * (O(rows)); both give the same number bit for bit. Default: the table when dates^2 < rows.
   */
  datePairs?: boolean;
}

export interface AucEstimate {
  /** Pooled AUC over every row; null when a class is missing. */
  auc: number | null;
  /** Rows used (score not NaN), and how many are positive / negative. */
  n: number;
  positives: number;
  negatives: number;
  /** Distinct dates among the rows used. */
  dates: number;
  /** Percentile interval by block bootstrap over dates; null when too few dates or no AUC. */
  ci: BootstrapInterval | null;
}

export const DEFAULT_AUC_MIN_DATES = 10;

/** Pooled AUC of `scores` against `labels` with a block-bootstrap interval over `dates` (see the file comment). */
export function aucWithInterval(
  dates: readonly string[],
  scores: ArrayLike<number>,
  labels: ArrayLike<number>,
  options: AucOptions = {},
): AucEstimate {
  const { estimate, values } = aucReplicates(dates, scores, labels, options);
  return aucInterval(estimate, values, options);
}

/**
 * The estimate without its interval, and the bootstrap replicates' AUCs (of `range` only, when given;
 * null when there is no interval to make): the first step of {@link aucWithInterval}, so that the
 * replicates of one estimate can be computed in ranges on several threads and joined by {@link aucInterval}.
 */
export function aucReplicates(
  dates: readonly string[],
  scores: ArrayLike<number>,
  labels: ArrayLike<number>,
  options: AucOptions = {},
  range?: ReplicateRange,
): { estimate: AucEstimate; values: Float64Array | null } {
  assertSameLength(dates, scores, labels);
  const minDates = options.minDates ?? DEFAULT_AUC_MIN_DATES;
  if (!Number.isSafeInteger(minDates) || minDates < 2) throw new RangeError(`minDates must be an integer >= 2, got ${minDates}`);
  const groups = groupByDate(dates, (i) => scores[i] === scores[i]);
  const dateOf = new Int32Array(scores.length);
  const kept = new Int32Array(groups.n);
  let positives = 0;
  for (let k = 0, r = 0; k < groups.rows.length; k++) {
    for (const row of groups.rows[k]) {
      dateOf[row] = k;
      kept[r++] = row;
      if (labels[row] !== 0) positives++;
    }
  }
  const point = rocAuc(
    Array.from(kept, (row) => scores[row]),
    Array.from(kept, (row) => labels[row]),
  );
  const estimate: AucEstimate = {
    auc: Number.isFinite(point) ? point : null,
    n: groups.n,
    positives,
    negatives: groups.n - positives,
    dates: groups.dates.length,
    ci: null,
  };
  if (estimate.auc === null || estimate.dates < minDates) return { estimate, values: null };
  const runs = sortRuns(scores, labels, kept);
  const multiplicity = new Float64Array(estimate.dates);
  // Many rows on few dates (a universe's predictions): one pass over the date pairs per replicate.
  const byDates = (options.datePairs ?? estimate.dates * estimate.dates < groups.n) ? datePairAuc(runs, dateOf, estimate.dates) : null;
  const values = bootstrapReplicates(
    estimate.dates,
    (indices) => {
      multiplicity.fill(0);
      for (let t = 0; t < indices.length; t++) multiplicity[indices[t]]++;
      return byDates ? byDates(multiplicity) : runsAuc(runs, (row) => multiplicity[dateOf[row]]);
    },
    options,
    range,
  );
  return { estimate, values };
}

/**
 * The estimate with its interval from every replicate's AUC (aucReplicates' values, or its ranges' values
 * concatenated in order); no interval when `values` is null.
 */
export function aucInterval(estimate: AucEstimate, values: ArrayLike<number> | null, options: AucOptions = {}): AucEstimate {
  return { ...estimate, ci: values === null ? null : intervalOfReplicates(estimate.dates, values, options) };
}
