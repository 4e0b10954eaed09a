/**
 * Information coefficient: per-date Spearman rank correlation between a score and the forward outcome, and
 * the Newey-West t-statistic of its mean over dates. Pure: no I/O, no clock, no randomness.
 *
 * Ranks. Average ranks: the values sorted ascending get ranks 1..m, and a run of equal values shares the mean
 * of the ranks it spans (a tie of the 2nd and 3rd values ranks 2.5 for both). -0 and +0 are equal.
 *
 * Spearman's rho (Spearman 1904) with ties is the Pearson correlation of the average ranks,
 *     rho = sum (rx_i - mean rx)(ry_i - mean ry) / sqrt(sum (rx_i - mean rx)^2 * sum (ry_i - mean ry)^2),
 * over the pairs where both values are finite; it is undefined (NaN) with fewer than 2 pairs or when either
 * side is constant. (The shortcut 1 - 6 sum d^2 / (m(m^2 - 1)) is only exact without ties and is not used.)
 *
 * Partial rank correlation ("IC after controlling for the baselines"): on the same pairs, with every control
 * finite too, the ranks of the score and of the outcome are each residualised on an intercept and the
 * ranks of the controls by least squares, and the residuals are correlated (Pearson). Least squares is done
 * by projecting out an orthonormal basis of the centred control ranks (modified Gram-Schmidt); a control
 * that is constant, or a linear combination of the earlier ones, adds no direction and is skipped. With one
 * control this equals (r_xy - r_xz r_yz) / sqrt((1 - r_xz^2)(1 - r_yz^2)) on the ranks.
 *
 * Per-date IC. Rows are grouped by date (by-date.ts); a date contributes an IC when it has at least
 * `minCrossSection` usable pairs (default 5) and the IC is defined. The series of ICs is in date order.
 *
 * Newey-West t-statistic (Newey & West 1987) of the mean of a series x_1..x_T (e.g. the daily ICs):
 *     gamma_l = (1/T) sum_{t=l+1..T} (x_t - mean)(x_{t-l} - mean),           l = 0..L
 *     S = gamma_0 + 2 sum_{l=1..L} (1 - l/(L+1)) gamma_l                         (Bartlett kernel)
 *     se = sqrt(S / T),   t = mean / se.
 * No small-sample degrees-of-freedom correction (dividing by T, as the original). The Bartlett weights
 * keep S >= 0. Lag rule: L = floor(4 (T/100)^(2/9)) (the Newey & West 1994 rule of thumb for the Bartlett
 * kernel), raised to `minLag` when given, and at most T - 1. Per-date ICs of forward returns that overlap k
 * dates are autocorrelated up to lag k - 1 by construction, so callers pass minLag = k - 1 (a 60-day horizon
 * sampled weekly: k = 12, minLag = 11). With L = 0 this is the ordinary standard error of the mean with
 * divisor T. The t-statistic is null when T < 2 or se is 0.
 */
import { assertSameLength, groupByDate, isFiniteNumber } from './by-date.js';

const { floor, max, min, pow, sqrt } = Math;

// ---------------------------------------------------------------------------------------------------------
// Ranks and correlations
// ---------------------------------------------------------------------------------------------------------

/** Average ranks (1-based, ties share the mean rank) of finite values; throws RangeError on a non-finite one. */
export function averageRanks(values: ArrayLike<number>): Float64Array {
  const m = values.length;
  const order = new Int32Array(m);
  for (let i = 0; i < m; i++) {
    if (!isFiniteNumber(values[i])) throw new RangeError(`value ${i} is not finite`);
    order[i] = i;
  }
  order.sort((a, b) => values[a] - values[b]);
  const ranks = new Float64Array(m);
  for (let start = 0; start < m; ) {
    let end = start + 1;
    while (end < m && values[order[end]] === values[order[start]]) end++;
    const rank = (start + 1 + end) / 2; // mean of start+1 .. end
    for (let k = start; k < end; k++) ranks[order[k]] = rank;
    start = end;
  }
  return ranks;
}

/** Pearson correlation of two equal-length arrays; NaN when fewer than 2 values or either is constant. */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const m = x.length;
  if (y.length !== m) throw new RangeError(`${m} x values but ${y.length} y values`);
  if (m < 2) return NaN;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < m; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= m;
  my /= m;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < m; i++) {
    const dx = x[i] - mx;
    const dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (!(sxx > 0 && syy > 0)) return NaN;
  const r = sxy / sqrt(sxx * syy);
  return r > 1 ? 1 : r < -1 ? -1 : r;
}

/** Indices where every array holds a finite number. */
function finiteRows(columns: ReadonlyArray<ArrayLike<number>>, m: number): number[] {
  const rows: number[] = [];
  for (let i = 0; i < m; i++) {
    if (columns.every((c) => isFiniteNumber(c[i]))) rows.push(i);
  }
  return rows;
}

function pick(values: ArrayLike<number>, rows: readonly number[]): Float64Array {
  const out = new Float64Array(rows.length);
  for (let k = 0; k < rows.length; k++) out[k] = values[rows[k]];
  return out;
}

/** Spearman's rho with average ranks over the pairs where both are finite; NaN when undefined. */
export function spearman(x: ArrayLike<number>, y: ArrayLike<number>): number {
  if (y.length !== x.length) throw new RangeError(`${x.length} x values but ${y.length} y values`);
  const rows = finiteRows([x, y], x.length);
  if (rows.length < 2) return NaN;
  return pearson(averageRanks(pick(x, rows)), averageRanks(pick(y, rows)));
}

/** Subtracts from `v` (centred) its projection on each unit vector of `basis`. */
function residualise(v: Float64Array, basis: readonly Float64Array[]): void {
  for (const q of basis) {
    let dot = 0;
    for (let i = 0; i < v.length; i++) dot += v[i] * q[i];
    for (let i = 0; i < v.length; i++) v[i] -= dot * q[i];
  }
}

function centre(v: Float64Array): Float64Array {
  let mean = 0;
  for (let i = 0; i < v.length; i++) mean += v[i];
  mean /= v.length || 1;
  for (let i = 0; i < v.length; i++) v[i] -= mean;
  return v;
}

/** Relative size below which a Gram-Schmidt remainder counts as no new direction. */
const COLLINEAR = 1e-9;

/** Orthonormal basis of the centred columns (modified Gram-Schmidt), skipping dependent ones. */
function orthonormalBasis(columns: readonly Float64Array[]): Float64Array[] {
  const basis: Float64Array[] = [];
  for (const column of columns) {
    const v = centre(Float64Array.from(column));
    let before = 0;
    for (let i = 0; i < v.length; i++) before += v[i] * v[i];
    residualise(v, basis);
    let after = 0;
    for (let i = 0; i < v.length; i++) after += v[i] * v[i];
    if (!(before > 0) || after <= COLLINEAR * before) continue;
    const norm = sqrt(after);
    for (let i = 0; i < v.length; i++) v[i] /= norm;
    basis.push(v);
  }
  return basis;
}

/**
 * Partial Spearman correlation of x and y given `controls` (see the file comment), over the rows where x, y
 * and every control are finite; NaN when undefined. With no controls it equals {@link spearman}.
 */
export function partialSpearman(x: ArrayLike<number>, y: ArrayLike<number>, controls: ReadonlyArray<ArrayLike<number>>): number {
  const m = x.length;
  for (const column of [y, ...controls]) {
    if (column.length !== m) throw new RangeError(`${m} x values but a column of ${column.length} values`);
  }
  const rows = finiteRows([x, y, ...controls], m);
  if (rows.length < 2) return NaN;
  const basis = orthonormalBasis(controls.map((c) => averageRanks(pick(c, rows))));
  const rx = centre(averageRanks(pick(x, rows)));
  const ry = centre(averageRanks(pick(y, rows)));
  // A residual that is only rounding noise (x explained by the controls) means the correlation is undefined.
  const scale = (v: Float64Array): number => v.reduce((s, value) => s + value * value, 0);
  const sx = scale(rx);
  const sy = scale(ry);
  residualise(rx, basis);
  residualise(ry, basis);
  if (scale(rx) <= COLLINEAR * sx || scale(ry) <= COLLINEAR * sy) return NaN;
  return pearson(rx, ry);
}

// ---------------------------------------------------------------------------------------------------------
// Per-date IC
// ---------------------------------------------------------------------------------------------------------

export interface DailyIc {
  date: string;
  ic: number;
  /** Pairs the date's IC was computed on. */
  n: number;
}

export interface DailyIcOptions {
  /** Fewest usable pairs for a date to get an IC; integer >= 2, default 5. */
  minCrossSection?: number;
  /** Rank controls (one value per row each): the IC becomes the partial rank correlation given them. */
  controls?: ReadonlyArray<ArrayLike<number>>;
}

export const DEFAULT_MIN_CROSS_SECTION = 5;

/** Per-date (partial) Spearman IC of `scores` against `outcomes`, one row per date with a defined IC, in date order. */
export function dailyIc(
  dates: readonly string[],
  scores: ArrayLike<number>,
  outcomes: ArrayLike<number>,
  options: DailyIcOptions = {},
): DailyIc[] {
  const controls = options.controls ?? [];
  assertSameLength(dates, scores, outcomes, ...controls);
  const minCrossSection = options.minCrossSection ?? DEFAULT_MIN_CROSS_SECTION;
  if (!Number.isSafeInteger(minCrossSection) || minCrossSection < 2) {
    throw new RangeError(`minCrossSection must be an integer >= 2, got ${minCrossSection}`);
  }
  const columns = [scores, outcomes, ...controls];
  const groups = groupByDate(dates, (i) => columns.every((c) => isFiniteNumber(c[i])));
  const out: DailyIc[] = [];
  groups.dates.forEach((date, k) => {
    const rows = Array.from(groups.rows[k]);
    if (rows.length < minCrossSection) return;
    const x = pick(scores, rows);
    const y = pick(outcomes, rows);
    const ic = controls.length === 0 ? spearman(x, y) : partialSpearman(x, y, controls.map((c) => pick(c, rows)));
    if (Number.isFinite(ic)) out.push({ date, ic, n: rows.length });
  });
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Newey-West
// ---------------------------------------------------------------------------------------------------------

export interface NeweyWestOptions {
  /** Lag L (integer >= 0); default {@link neweyWestLag}(T). Capped at T - 1. */
  lag?: number;
  /** Lower bound for the default lag (integer >= 0), e.g. the overlap of forward windows in dates minus 1. */
  minLag?: number;
}

export interface NeweyWestResult {
  n: number;
  mean: number;
  /** HAC standard error of the mean. */
  se: number;
  /** mean / se; null when se is 0. */
  t: number | null;
  /** Lag used. */
  lag: number;
}

/** floor(4 (T/100)^(2/9)) (Newey & West 1994). */
export function neweyWestLag(n: number): number {
  return n > 0 ? floor(4 * pow(n / 100, 2 / 9)) : 0;
}

function checkLag(label: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
    throw new RangeError(`${label} must be an integer >= 0, got ${value}`);
  }
}

/** Mean, Newey-West standard error and t-statistic of a series (finite values, in time order); null when T < 2. */
export function neweyWest(series: ArrayLike<number>, options: NeweyWestOptions = {}): NeweyWestResult | null {
  checkLag('lag', options.lag);
  checkLag('minLag', options.minLag);
  const n = series.length;
  for (let i = 0; i < n; i++) if (!isFiniteNumber(series[i])) throw new RangeError(`series value ${i} is not finite`);
  if (n < 2) return null;
  const lag = min(options.lag ?? max(neweyWestLag(n), options.minLag ?? 0), n - 1);
  let mean = 0;
  for (let i = 0; i < n; i++) mean += series[i];
  mean /= n;
  const dev = new Float64Array(n);
  for (let i = 0; i < n; i++) dev[i] = series[i] - mean;
  let s = 0;
  for (let l = 0; l <= lag; l++) {
    let gamma = 0;
    for (let t = l; t < n; t++) gamma += dev[t] * dev[t - l];
    gamma /= n;
    s += l === 0 ? gamma : 2 * (1 - l / (lag + 1)) * gamma;
  }
  const se = sqrt(max(0, s) / n);
  return { n, mean, se, t: se > 0 ? mean / se : null, lag };
}

// ---------------------------------------------------------------------------------------------------------
// IC summary
// ---------------------------------------------------------------------------------------------------------

export interface IcSummary {
  /** Dates with an IC. */
  dates: number;
  /** Mean IC over dates; null without dates. */
  mean: number | null;
  /** Newey-West standard error and t-statistic of the mean; null when fewer than 2 dates (t also when se is 0). */
  se: number | null;
  t: number | null;
  lag: number | null;
  /** Share of dates with a positive IC; null without dates. */
  positiveShare: number | null;
}

/** Mean daily IC with its Newey-West t-statistic. */
export function icSummary(daily: readonly DailyIc[], options: NeweyWestOptions = {}): IcSummary {
  const series = daily.map((d) => d.ic);
  const dates = series.length;
  if (dates === 0) return { dates, mean: null, se: null, t: null, lag: null, positiveShare: null };
  const nw = neweyWest(series, options);
  const positiveShare = series.filter((v) => v > 0).length / dates;
  if (nw === null) return { dates, mean: series[0], se: null, t: null, lag: null, positiveShare };
  return { dates, mean: nw.mean, se: nw.se, t: nw.t, lag: nw.lag, positiveShare };
}
