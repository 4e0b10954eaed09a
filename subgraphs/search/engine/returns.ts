/**
 * Daily returns on one trading calendar, and the statistics opportunity search ranks with: the
 * correlation of two symbols, a portfolio's return series, and its annualised volatility.
 *
 * Calendar: the last `RETURNS_WINDOW + 1` dates (253) of the union of the dates of the series it is
 * built from, through the analysis date; so there are at most 252 daily returns (one trading year).
 *
 * A symbol's returns on the calendar: its close on calendar date k is its last close on or before that
 * date, provided that close falls on or after calendar date k - `MAX_CARRY_DAYS` (so a missing day is
 * carried forward at most 5 calendar dates, and a close from before the calendar never starts it);
 * otherwise, before its first bar, and for closes that are not positive and finite, it is unknown. The return of
 * calendar date k is close_k / close_{k-1} - 1 when both closes are known, NaN otherwise.
 *
 * Statistics:
 * - correlation(x, y): Pearson correlation over the dates where both returns are known; null when there
 *   are fewer than `MIN_OVERLAP` (60) such dates or either series does not vary.
 * - A portfolio's series is the weighted sum of its holdings' returns (weights are fractions of the
 *   portfolio's value, cash earns 0); an unknown return counts as 0 there (the holding did not move).
 * - Volatility: sqrt(252 x variance) of such a series (population variance over the calendar).
 *
 * Pure: the index only computes from the closes it is given.
 */
import type { CloseSeries } from '../../allocation/engine/types.js';

export const RETURNS_WINDOW = 252;
export const MAX_CARRY_DAYS = 5;
export const MIN_OVERLAP = 60;
export const TRADING_DAYS_PER_YEAR = 252;

/** The calendar (oldest first, at most window + 1 dates) of the union of the series' dates through `through`. */
export function buildCalendar(series: Iterable<CloseSeries>, through: string, window: number = RETURNS_WINDOW): string[] {
  const dates = new Set<string>();
  for (const s of series) {
    let i = s.dates.length - 1;
    while (i >= 0 && s.dates[i] > through) i--;
    for (const stop = i - window; i >= 0 && i >= stop; i--) dates.add(s.dates[i]);
  }
  return [...dates].sort().slice(-(window + 1));
}

/** The returns of one close series on a calendar (length calendar.length - 1; NaN where unknown). */
export function returnsOnCalendar(calendar: readonly string[], series: CloseSeries): Float64Array {
  const n = calendar.length;
  const closes = new Float64Array(n).fill(NaN);
  let j = 0;
  let last = NaN;
  let lastDate = '';
  for (let k = 0; k < n; k++) {
    const day = calendar[k];
    while (j < series.dates.length && series.dates[j] <= day) {
      const c = series.closes[j];
      last = Number.isFinite(c) && c > 0 ? c : NaN;
      lastDate = series.dates[j];
      j++;
    }
    // Carried at most MAX_CARRY_DAYS calendar dates: the close must fall on or after date k - MAX_CARRY_DAYS.
    if (lastDate !== '' && lastDate >= calendar[Math.max(0, k - MAX_CARRY_DAYS)]) closes[k] = last;
  }
  const out = new Float64Array(Math.max(0, n - 1));
  for (let k = 1; k < n; k++) out[k - 1] = closes[k] / closes[k - 1] - 1;
  return out;
}

/** Pearson correlation over the dates where both are known; null below MIN_OVERLAP dates or without variation. */
export function correlation(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let syy = 0;
  let sxy = 0;
  const len = Math.min(x.length, y.length);
  for (let k = 0; k < len; k++) {
    const a = x[k];
    const b = y[k];
    if (a !== a || b !== b) continue; // NaN
    n++;
    sx += a;
    sy += b;
    sxx += a * a;
    syy += b * b;
    sxy += a * b;
  }
  if (n < MIN_OVERLAP) return null;
  const vx = sxx - (sx * sx) / n;
  const vy = syy - (sy * sy) / n;
  if (!(vx > 0) || !(vy > 0)) return null;
  const r = (sxy - (sx * sy) / n) / Math.sqrt(vx * vy);
  return r > 1 ? 1 : r < -1 ? -1 : r;
}

/** sum_i w_i x_i over the calendar, an unknown return counting as 0. */
export function weightedSeries(parts: ReadonlyArray<{ weight: number; returns: ArrayLike<number> | undefined }>, length: number): Float64Array {
  const out = new Float64Array(length);
  for (const { weight, returns } of parts) {
    if (!returns || weight === 0) continue;
    for (let k = 0; k < length; k++) {
      const r = returns[k];
      if (r === r) out[k] += weight * r;
    }
  }
  return out;
}

/** Moments of a series with unknown returns as 0: what volatility updates need. */
export interface Moments {
  n: number;
  sum: number;
  sumSq: number;
}

export function moments(x: ArrayLike<number>): Moments {
  let sum = 0;
  let sumSq = 0;
  for (let k = 0; k < x.length; k++) {
    const v = x[k];
    if (v === v) {
      sum += v;
      sumSq += v * v;
    }
  }
  return { n: x.length, sum, sumSq };
}

/** Annualised volatility of a series (unknown returns as 0); 0 for an empty series. */
export function annualVolatility(x: ArrayLike<number>): number {
  const m = moments(x);
  return volatilityOf(m.n, m.sum, m.sumSq);
}

function volatilityOf(n: number, sum: number, sumSq: number): number {
  if (n === 0) return 0;
  const variance = sumSq / n - (sum / n) ** 2;
  return Math.sqrt(Math.max(0, variance) * TRADING_DAYS_PER_YEAR);
}

/**
 * Annualised volatility of `portfolio + w x` (unknown returns as 0) without building the new series:
 * var(p + w x) from the sums of p, x, p^2, x^2 and p x.
 */
export function volatilityWith(portfolio: ArrayLike<number>, portfolioMoments: Moments, x: ArrayLike<number> | undefined, xMoments: Moments | undefined, w: number): number {
  if (!x || !xMoments || w === 0) return volatilityOf(portfolioMoments.n, portfolioMoments.sum, portfolioMoments.sumSq);
  let cross = 0;
  const len = Math.min(portfolio.length, x.length);
  for (let k = 0; k < len; k++) {
    const v = x[k];
    if (v === v) cross += portfolio[k] * v;
  }
  const sum = portfolioMoments.sum + w * xMoments.sum;
  const sumSq = portfolioMoments.sumSq + 2 * w * cross + w * w * xMoments.sumSq;
  return volatilityOf(portfolioMoments.n, sum, sumSq);
}

/** The returns of the symbols added so far, on one calendar, with their moments. */
export class ReturnsIndex {
  private readonly bySymbol = new Map<string, { returns: Float64Array; moments: Moments }>();

  constructor(readonly calendar: readonly string[]) {}

  /** Number of returns per series. */
  get length(): number {
    return Math.max(0, this.calendar.length - 1);
  }

  has(symbol: string): boolean {
    return this.bySymbol.has(symbol);
  }

  add(symbol: string, series: CloseSeries): void {
    const returns = returnsOnCalendar(this.calendar, series);
    this.bySymbol.set(symbol, { returns, moments: moments(returns) });
  }

  returns(symbol: string): Float64Array | undefined {
    return this.bySymbol.get(symbol)?.returns;
  }

  moments(symbol: string): Moments | undefined {
    return this.bySymbol.get(symbol)?.moments;
  }
}
