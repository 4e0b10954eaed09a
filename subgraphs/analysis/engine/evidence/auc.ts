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

/** Fewest rows sorted by radix (below, comparisons cost less than its passes over 2^16 buckets). */
const RADIX_MIN_ROWS = 1 << 15;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Sorts `rows` (row indices, none of a NaN score) in place by score and returns it, stably (rows of equal
 * scores keep their order); -0 and +0 compare equal, as in rocAuc, and infinite scores sort too. Long
 * lists by least-significant-digit radix over each score's bits made unsigned-orderable (four passes of 16
 * bits, a pass skipped when every row has the same digit): the order a stable comparison sort gives,
 * element for element, in linear time.
 */
export function sortRowsByScore(scores: ArrayLike<number>, rows: Int32Array): Int32Array {
  const n = rows.length;
  if (n < RADIX_MIN_ROWS) return rows.sort((a, b) => (scores[a] < scores[b] ? -1 : scores[a] > scores[b] ? 1 : 0));
  const bits = new Float64Array(1);
  const words = new Uint32Array(bits.buffer);
  const high = LITTLE_ENDIAN ? 1 : 0;
  let hi = new Uint32Array(n);
  let lo = new Uint32Array(n);
  let row = Int32Array.from(rows);
  for (let i = 0; i < n; i++) {
    bits[0] = scores[row[i]] + 0; // -0 to +0
    const h = words[high];
    const l = words[1 - high];
    // Negative: every bit flipped (a larger magnitude sorts lower); otherwise the sign bit set.
    if (h >>> 31 === 1) {
      hi[i] = ~h >>> 0;
      lo[i] = ~l >>> 0;
    } else {
      hi[i] = (h | 0x80000000) >>> 0;
      lo[i] = l;
    }
  }
  let hiTo = new Uint32Array(n);
  let loTo = new Uint32Array(n);
  let rowTo = new Int32Array(n);
  const count = new Int32Array(1 << 16);
  for (let pass = 0; pass < 4; pass++) {
    const word = pass < 2 ? lo : hi;
    const shift = pass % 2 === 0 ? 0 : 16;
    count.fill(0);
    for (let i = 0; i < n; i++) count[(word[i] >>> shift) & 0xffff]++;
    if (count[(word[0] >>> shift) & 0xffff] === n) continue;
    for (let d = 0, at = 0; d < count.length; d++) {
      const c = count[d];
      count[d] = at;
      at += c;
    }
    for (let i = 0; i < n; i++) {
      const at = count[(word[i] >>> shift) & 0xffff]++;
      hiTo[at] = hi[i];
      loTo[at] = lo[i];
      rowTo[at] = row[i];
    }
    [hi, hiTo] = [hiTo, hi];
    [lo, loTo] = [loTo, lo];
    [row, rowTo] = [rowTo, row];
  }
  rows.set(row);
  return rows;
}

function sortRuns(scores: ArrayLike<number>, labels: ArrayLike<number>, rows: Int32Array): SortedRuns {
  const sorted = sortRowsByScore(scores, Int32Array.from(rows));
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
 * O(rows), from a table of date pairs: pairs[a * D + b] counts the (positive of date a, negative of date b)
 * pairs the positive wins (ties one half), so U = sum_a sum_b m_a m_b pairs[a * D + b]. Every term and
 * partial sum is a multiple of 1/2 far below 2^52 (as positives x negatives is), exact in floating point
 * like runsAuc's, so both give the same number bit for bit; and the table is the same whatever order its
 * entries are summed in, so its rows can be filled on several threads (fillDatePairRows, each a range of
 * dates a) in shared memory and make the table a single thread makes.
 */
export interface DatePairTable {
  /** D, the number of dates. */
  dates: number;
  /** D x D; row a holds the pairs of date a's positives (see above). */
  pairs: Float64Array;
  /** Positive and negative rows of each date. */
  positives: Float64Array;
  negatives: Float64Array;
}

/** An empty table of `dates` dates; `allocate` gives zeroed arrays (shared memory, for a table filled on several threads). */
export function newDatePairTable(dates: number, allocate: (length: number) => Float64Array = (length) => new Float64Array(length)): DatePairTable {
  return { dates, pairs: allocate(dates * dates), positives: allocate(dates), negatives: allocate(dates) };
}

/**
 * Fills the rows of dates `from` .. `to` - 1 of `table` (their pairs, positives and negatives) and no other.
 * `sorted` holds every row of the table's input (none of a NaN score) in one or more lists, each sorted by
 * score (sortRowsByScore: one list on a single thread, or each thread's range of rows), merged here as they
 * are scanned: a run of equal scores takes its rows from every list. `dateOf[row]` is the row's date
 * (0 .. D-1); label 0 is negative. Each range scans every row (for the negatives below each score) but adds
 * only its own dates' positives: positives x D additions, the bulk of the work, split between the ranges.
 */
export function fillDatePairRows(
  table: DatePairTable,
  sorted: readonly Int32Array[],
  scores: ArrayLike<number>,
  labels: ArrayLike<number>,
  dateOf: ArrayLike<number>,
  from: number,
  to: number,
): void {
  const { dates, pairs, positives, negatives } = table;
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || to < from || to > dates) throw new RangeError(`dates ${from} to ${to} of ${dates}`);
  pairs.fill(0, from * dates, to * dates);
  positives.fill(0, from, to);
  negatives.fill(0, from, to);
  const negBelow = new Float64Array(dates);
  const runNeg = new Float64Array(dates);
  const touched = new Int32Array(dates);
  const lists = sorted.length;
  const heads = new Int32Array(lists);
  let run = new Int32Array(256);
  for (;;) {
    // The next run: the smallest score at the head of a list, and every row of that score in every list.
    let found = false;
    let score = 0;
    for (let l = 0; l < lists; l++) {
      const list = sorted[l];
      if (heads[l] < list.length) {
        const s = scores[list[heads[l]]];
        if (!found || s < score) score = s;
        found = true;
      }
    }
    if (!found) break;
    let size = 0;
    for (let l = 0; l < lists; l++) {
      const list = sorted[l];
      let h = heads[l];
      for (; h < list.length && scores[list[h]] === score; h++) {
        if (size === run.length) {
          const grown = new Int32Array(2 * size);
          grown.set(run);
          run = grown;
        }
        run[size++] = list[h];
      }
      heads[l] = h;
    }
    let runNegatives = 0;
    let mine = 0;
    for (let r = 0; r < size; r++) {
      const row = run[r];
      if (labels[row] === 0) {
        runNegatives++;
        continue;
      }
      const a = dateOf[row];
      if (a < from || a >= to) continue;
      mine++;
      positives[a]++;
      for (let b = 0, base = a * dates; b < dates; b++) pairs[base + b] += negBelow[b];
    }
    if (runNegatives === 0) continue;
    // Ties within the run count one half: the run's negatives counted by date once, so a long run of
    // tied scores costs its positives times its negatives' dates, not positives times negatives.
    let touchedCount = 0;
    for (let r = 0; r < size; r++) {
      const row = run[r];
      if (labels[row] !== 0) continue;
      const b = dateOf[row];
      if (runNeg[b] === 0) touched[touchedCount++] = b;
      runNeg[b]++;
    }
    if (mine > 0) {
      for (let r = 0; r < size; r++) {
        const row = run[r];
        if (labels[row] === 0) continue;
        const a = dateOf[row];
        if (a < from || a >= to) continue;
        const base = a * dates;
        for (let t = 0; t < touchedCount; t++) pairs[base + touched[t]] += 0.5 * runNeg[touched[t]];
      }
    }
    for (let t = 0; t < touchedCount; t++) {
      const b = touched[t];
      negBelow[b] += runNeg[b];
      if (b >= from && b < to) negatives[b] += runNeg[b];
      runNeg[b] = 0;
    }
  }
}

/**
 * Range `part` of `parts` of a table's dates for fillDatePairRows: consecutive dates with about as many
 * positives each (a range's work is its positives times the dates). The ranges in order cover every date once.
 */
export function datePairRange(positivesByDate: ArrayLike<number>, part: number, parts: number): { from: number; to: number } {
  if (!Number.isSafeInteger(parts) || parts < 1 || !Number.isSafeInteger(part) || part < 0 || part >= parts) throw new RangeError(`part ${part} of ${parts}`);
  const dates = positivesByDate.length;
  let total = 0;
  for (let a = 0; a < dates; a++) total += positivesByDate[a];
  // Range k starts at the first date whose positives before it reach k / parts of them all.
  const start = (k: number): number => {
    if (k === 0) return 0;
    if (k === parts) return dates;
    const target = (total * k) / parts;
    let before = 0;
    let a = 0;
    while (a < dates && before < target) before += positivesByDate[a++];
    return a;
  };
  return { from: start(part), to: start(part + 1) };
}

/** The weighted AUC of a filled table when each row of date a has weight multiplicity[a]; NaN when a class has no weight. */
export function datePairAuc(table: DatePairTable, multiplicity: ArrayLike<number>): number {
  const { dates, pairs, positives, negatives } = table;
  const m = multiplicity;
  let u = 0;
  let posTotal = 0;
  let negTotal = 0;
  for (let a = 0; a < dates; a++) {
    const ma = m[a];
    if (ma === 0) continue;
    posTotal += ma * positives[a];
    negTotal += ma * negatives[a];
    let row = 0;
    for (let b = 0, base = a * dates; b < dates; b++) row += m[b] * pairs[base + b];
    u += ma * row;
  }
  return posTotal > 0 && negTotal > 0 ? u / (posTotal * negTotal) : NaN;
}

/**
 * The pooled AUC of a filled table (every weight 1): rocAuc of its rows bit for bit (U and positives x
 * negatives exact, then one division) without sorting them again; NaN when a class is missing.
 */
export function datePairPointAuc(table: DatePairTable): number {
  const { dates, pairs, positives, negatives } = table;
  let u = 0;
  for (let k = 0; k < dates * dates; k++) u += pairs[k];
  let pos = 0;
  let neg = 0;
  for (let a = 0; a < dates; a++) {
    pos += positives[a];
    neg += negatives[a];
  }
  return pos > 0 && neg > 0 ? u / (pos * neg) : NaN;
}

/** The bootstrap replicates (of `range` only, when given) of a filled table's AUC, resampling its dates. */
export function datePairReplicates(table: DatePairTable, options: BootstrapOptions = {}, range?: ReplicateRange): Float64Array {
  const multiplicity = new Float64Array(table.dates);
  return bootstrapReplicates(
    table.dates,
    (indices) => {
      multiplicity.fill(0);
      for (let t = 0; t < indices.length; t++) multiplicity[indices[t]]++;
      return datePairAuc(table, multiplicity);
    },
    options,
    range,
  );
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
  // Many rows on few dates (a universe's predictions): one pass over the date pairs per replicate.
  if (options.datePairs ?? estimate.dates * estimate.dates < groups.n) {
    const table = newDatePairTable(estimate.dates);
    fillDatePairRows(table, [sortRowsByScore(scores, Int32Array.from(kept))], scores, labels, dateOf, 0, estimate.dates);
    return { estimate, values: datePairReplicates(table, options, range) };
  }
  const runs = sortRuns(scores, labels, kept);
  const multiplicity = new Float64Array(estimate.dates);
  const values = bootstrapReplicates(
    estimate.dates,
    (indices) => {
      multiplicity.fill(0);
      for (let t = 0; t < indices.length; t++) multiplicity[indices[t]]++;
      return runsAuc(runs, (row) => multiplicity[dateOf[row]]);
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
