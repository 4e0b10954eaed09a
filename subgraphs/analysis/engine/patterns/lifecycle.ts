/**
 * Pattern lifecycle (forming, active, completed, failed) from the closes after the last key point; see
 * patterns.ts for the rules. `afterBreakout` follows a confirmed pattern to its target or invalidation;
 * `lineLifecycle` serves the patterns confirmed by crossing a line (doubles, head and shoulders, triangles,
 * ranges).
 */
import type { PatternStatus } from '../document.js';

/** A failed pattern is reported for this many bars after the close that failed it, then dropped. */
export const FAILED_KEEP_BARS = 20;

/**
 * Status after a confirmation at bar `from`: completed / failed at the first close through target /
 * invalidation; null for a failure more than FAILED_KEEP_BARS bars before `end`.
 */
export function afterBreakout(
  close: Float64Array,
  from: number,
  end: number,
  sign: number,
  target: number,
  invalidation: number,
): PatternStatus | null {
  for (let j = from; j <= end; j++) {
    const c = close[j];
    if (sign > 0) {
      if (c >= target) return 'completed';
      if (c < invalidation) return end - j > FAILED_KEEP_BARS ? null : 'failed';
    } else {
      if (c <= target) return 'completed';
      if (c > invalidation) return end - j > FAILED_KEEP_BARS ? null : 'failed';
    }
  }
  return 'active';
}

/**
 * A pattern's lifecycle outcome: its status and direction, the confirming bar, and the three price levels.
 * `lineLifecycle` returns it for the line-confirmed patterns; flags and cups build it from `afterBreakout`.
 */
export interface Life {
  status: PatternStatus;
  /** +1 bullish, -1 bearish. */
  sign: number;
  /** The confirming bar (the first close beyond the breakout level), -1 while unconfirmed or failed before it. */
  breakIdx: number;
  /** Breakout level: the line (price) a close must cross to confirm the pattern. */
  breakout: number;
  target: number;
  invalidation: number;
}

/**
 * Lifecycle against breakout lines upper(j) = upBase + upSlope (j - anchor), lower(j) likewise. mode +1: only
 * a close above the upper line confirms (a close below invUp first fails the pattern); -1: the mirror; 0:
 * either side confirms and fixes the direction (forming patterns lean to `preferSign`). Null when stale
 * (unconfirmed more than `maxWait` bars after the last key point).
 */
export function lineLifecycle(
  close: Float64Array,
  lastKey: number,
  end: number,
  maxWait: number,
  anchor: number,
  upBase: number,
  upSlope: number,
  loBase: number,
  loSlope: number,
  mode: number,
  preferSign: number,
  height: number,
  invUp: number,
  invDown: number,
): Life | null {
  for (let j = lastKey + 1; j <= end; j++) {
    if (j - lastKey > maxWait) return null;
    const c = close[j];
    const up = upBase + upSlope * (j - anchor);
    const lo = loBase + loSlope * (j - anchor);
    let sign = 0;
    if (mode >= 0 && c > up) sign = 1;
    else if (mode <= 0 && c < lo) sign = -1;
    if (sign !== 0) {
      const breakout = sign > 0 ? up : lo;
      const target = breakout + sign * height;
      const invalidation = sign > 0 ? invUp : invDown;
      const status = afterBreakout(close, j, end, sign, target, invalidation);
      return status === null ? null : { status, sign, breakIdx: j, breakout, target, invalidation };
    }
    // One-sided patterns fail on a close beyond the invalidation level before any breakout.
    const failSign = mode > 0 && c < invUp ? 1 : mode < 0 && c > invDown ? -1 : 0;
    if (failSign !== 0) {
      if (end - j > FAILED_KEEP_BARS) return null;
      const breakout = failSign > 0 ? up : lo;
      const invalidation = failSign > 0 ? invUp : invDown;
      const target = breakout + failSign * height;
      return { status: 'failed', sign: failSign, breakIdx: -1, breakout, target, invalidation };
    }
  }
  const sign = mode !== 0 ? mode : preferSign >= 0 ? 1 : -1;
  const up = upBase + upSlope * (end - anchor);
  const lo = loBase + loSlope * (end - anchor);
  const breakout = sign > 0 ? up : lo;
  const invalidation = mode === 0 ? (sign > 0 ? lo : up) : sign > 0 ? invUp : invDown;
  return { status: 'forming', sign, breakIdx: -1, breakout, target: breakout + sign * height, invalidation };
}
