/**
 * Baseline scores: simple, well-known signals computed from a symbol's own daily closes, against which the
 * product's outputs are measured (a score that does no better than a trend filter should say so). Pure: no
 * I/O, no clock, no randomness.
 *
 * For the bar at position t of a symbol (its snapshot date; positions count the symbol's own bars), reading
 * only closes at positions <= t, so a baseline as of date D never depends on any bar after D:
 * - momentum_12_1: close[t-21] / close[t-252] - 1, the 12-month return skipping the last month
 *   (Jegadeesh & Titman 1993); needs t >= 252.
 * - reversal_1m: -(close[t] / close[t-21] - 1), minus the last month's return (short-term reversal,
 *   Jegadeesh 1990); needs t >= 21.
 * - above_sma_200: 1 when close[t] is above the mean of the 200 closes t-199 .. t, else 0; needs t >= 199.
 * - high_52w_proximity: close[t] / max(close[t-251 .. t]), 52-week-high proximity (George & Hwang 2004),
 *   in (0, 1]; needs t >= 251.
 * A baseline is NaN when its history is too short, when a close it reads is not a finite positive number, or
 * when the symbol has no bar on the date asked for.
 */
import { indexOfSorted } from '../sorted.js';
import type { CloseSeries } from './forward.js';

export const BASELINE_NAMES = ['momentum_12_1', 'reversal_1m', 'above_sma_200', 'high_52w_proximity'] as const;
export type BaselineName = (typeof BASELINE_NAMES)[number];
export type Baselines = Record<BaselineName, number>;

/** Trading days in the look-backs. */
export const BASELINE_LOOKBACK = { year: 252, month: 21, sma: 200, high: 252 } as const;

const { year, month, sma, high } = BASELINE_LOOKBACK;

function usable(value: number): boolean {
  return value > 0 && value < Infinity;
}

/** Every baseline NaN. */
export function missingBaselines(): Baselines {
  return { momentum_12_1: NaN, reversal_1m: NaN, above_sma_200: NaN, high_52w_proximity: NaN };
}

function ratio(close: ArrayLike<number>, later: number, earlier: number): number {
  if (earlier < 0) return NaN;
  const a = close[later];
  const b = close[earlier];
  return usable(a) && usable(b) ? a / b - 1 : NaN;
}

function aboveSma(close: ArrayLike<number>, t: number): number {
  if (t < sma - 1) return NaN;
  let sum = 0;
  for (let k = t - sma + 1; k <= t; k++) {
    if (!usable(close[k])) return NaN;
    sum += close[k];
  }
  return close[t] > sum / sma ? 1 : 0;
}

function highProximity(close: ArrayLike<number>, t: number): number {
  if (t < high - 1) return NaN;
  let peak = 0;
  for (let k = t - high + 1; k <= t; k++) {
    if (!usable(close[k])) return NaN;
    if (close[k] > peak) peak = close[k];
  }
  return close[t] / peak;
}

/** The baselines of the bar at position t of `close` (see the file comment). */
export function baselinesAtIndex(close: ArrayLike<number>, t: number): Baselines {
  if (!Number.isSafeInteger(t) || t < 0 || t >= close.length) return missingBaselines();
  const reversal = ratio(close, t, t - month);
  return {
    momentum_12_1: ratio(close, t - month, t - year),
    reversal_1m: 0 - reversal, // not -reversal: a flat month is 0, not -0
    above_sma_200: aboveSma(close, t),
    high_52w_proximity: highProximity(close, t),
  };
}

/** The baselines of the series on `date`; every one NaN when the series has no bar on that date. */
export function baselinesAt(series: CloseSeries, date: string): Baselines {
  const t = indexOfSorted(series.dates, date);
  return t < 0 ? missingBaselines() : baselinesAtIndex(series.close, t);
}
