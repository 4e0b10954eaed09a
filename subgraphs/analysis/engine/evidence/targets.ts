/**
 * Pattern targets: does the price reach a pattern's target before its stop, and how often would the same
 * distances have been reached from a random day of the same symbol (the placebo)? Pure; the placebo days
 * come from the caller's seeded generator (../prng.ts), so equal inputs give equal outcomes.
 *
 * Outcome of a trade opened at the close of bar `start` with signed relative distances `target` and `stop`
 * (opposite signs; e.g. +8% and -4% for a bullish pattern), followed for at most `window` bars:
 * - The levels are entry x (1 + target) and entry x (1 + stop).
 * - Each following bar touches a level above the entry when its high (its close without highs) reaches it,
 *   and a level below when its low (its close without lows) reaches it.
 * - The first bar touching either level decides: `stop` when it touches the stop (also when it touches both:
 *   the order inside a bar is unknown and the conservative reading is taken), else `target`. No touch within
 *   the window: `timeout`.
 * - No outcome (null) unless all `window` bars after `start` exist: an outcome near the end of the data
 *   would otherwise count only trades that resolved quickly. Bars whose value is not finite touch nothing.
 *
 * Placebo. The same distances applied from days drawn uniformly (with replacement) among the symbol's days
 * that have a usable close and a full window after them. The hit share of the placebo is what the pattern's
 * hit share must beat: a target that is reached no more often than the same distances from any day carries
 * no information about the pattern.
 */
import type { Prng } from '../prng.js';
import type { CloseSeries } from './forward.js';

/** Closes with optional highs and lows (a BarSeries satisfies it). */
export interface PathSeries extends CloseSeries {
  high?: ArrayLike<number>;
  low?: ArrayLike<number>;
}

export type TargetOutcome = 'target' | 'stop' | 'timeout';

export const DEFAULT_PATTERN_WINDOW = 60;

function usable(value: number): boolean {
  return value > 0 && value < Infinity;
}

/** True when `target` and `stop` are finite, non-zero and of opposite signs. */
export function validDistances(target: number, stop: number): boolean {
  return Number.isFinite(target) && Number.isFinite(stop) && target * stop < 0 && target > -1 && stop > -1;
}

/** The outcome of the trade from bar `start` (see the file comment); null without a full window or entry. */
export function targetOutcome(path: PathSeries, start: number, target: number, stop: number, window: number): TargetOutcome | null {
  const close = path.close;
  if (!Number.isSafeInteger(start) || start < 0 || start + window >= close.length) return null;
  const entry = close[start];
  if (!usable(entry) || !validDistances(target, stop)) return null;
  const upper = entry * (1 + Math.max(target, stop));
  const lower = entry * (1 + Math.min(target, stop));
  const high = path.high ?? close;
  const low = path.low ?? close;
  const targetIsUp = target > 0;
  for (let k = start + 1; k <= start + window; k++) {
    const touchesUpper = high[k] >= upper;
    const touchesLower = low[k] <= lower;
    const touchesStop = targetIsUp ? touchesLower : touchesUpper;
    const touchesTarget = targetIsUp ? touchesUpper : touchesLower;
    if (touchesStop) return 'stop';
    if (touchesTarget) return 'target';
  }
  return 'timeout';
}

/** Positions of the days a placebo may start from: a usable close and a full window after. */
export function placeboDays(path: PathSeries, window: number): Int32Array {
  const days: number[] = [];
  for (let t = 0; t + window < path.close.length; t++) if (usable(path.close[t])) days.push(t);
  return Int32Array.from(days);
}

/** Outcomes of `draws` placebo trades with the given distances from uniformly drawn eligible days. */
export function placeboOutcomes(
  path: PathSeries,
  days: Int32Array,
  target: number,
  stop: number,
  window: number,
  draws: number,
  rng: Prng,
): TargetOutcome[] {
  const out: TargetOutcome[] = [];
  if (days.length === 0) return out;
  for (let d = 0; d < draws; d++) {
    const outcome = targetOutcome(path, days[rng.int(days.length)], target, stop, window);
    if (outcome !== null) out.push(outcome);
  }
  return out;
}
