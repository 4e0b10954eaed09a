/**
 * Score helpers of the pattern detectors (each part of a confidence is in 0..1):
 * - volume: before confirmation a "contraction" score clamp(1.5 - later / earlier) of mean volumes (the later
 *   part on lighter volume scores high; equal volume 0.5); once confirmed, the mean of that and the breakout
 *   score clamp(breakout-bar volume / mean volume of the previous 20 bars / 2). Missing or zero volume scores 0.5;
 * - trend: the close change over the 40 bars before the first key point (fewer at the window start; 0.5 if
 *   fewer than 5), as clamp(0.5 + 0.5 x signed move / (5 ATR)).
 */
import { clamp01 } from './numbers.js';
import type { Scan } from './scan.js';

const { max, min } = Math;

// Trend context.
const TREND_BARS = 40;
const TREND_MIN_BARS = 5;
const TREND_FULL_ATR = 5;
// Volume.
const VOLUME_AVG_BARS = 20;
const VOLUME_MIN_BARS = 5;
const PEAK_VOLUME_HALF_WIDTH = 2;

/** Mean volume over bars [from, to] (NaN when empty). */
export function meanVolume(volume: Float64Array, from: number, to: number): number {
  if (to < from) return NaN;
  let sum = 0;
  for (let i = from; i <= to; i++) sum += volume[i];
  return sum / (to - from + 1);
}

/** clamp(1.5 - later / earlier): lighter volume later scores high; 0.5 when undefined. */
export function contractionScore(earlier: number, later: number): number {
  if (!(earlier > 0) || !(later >= 0)) return 0.5;
  return clamp01(1.5 - later / earlier);
}

/** clamp(volume[k] / mean of the previous 20 bars (inside the window) / 2); 0.5 when undefined. */
function breakoutVolumeScore(scan: Scan, k: number): number {
  const from = max(scan.start, k - VOLUME_AVG_BARS);
  if (k - from < VOLUME_MIN_BARS) return 0.5;
  const avg = meanVolume(scan.input.volume, from, k - 1);
  if (!(avg > 0)) return 0.5;
  return clamp01(scan.input.volume[k] / avg / 2);
}

/** Signed close change over the (up to) 40 bars before `first`; NaN if fewer than 5 bars are available. */
export function priorMove(scan: Scan, first: number): number {
  const k = min(TREND_BARS, first - scan.start);
  if (k < TREND_MIN_BARS) return NaN;
  return scan.input.close[first] - scan.input.close[first - k];
}

/** Trend score: 0.5 + 0.5 x expected-sign x prior move / (5 ATR), clamped; 0.5 without history. */
export function trendScore(scan: Scan, first: number, a: number, expectedSign: number): number {
  const move = priorMove(scan, first);
  if (move !== move) return 0.5;
  return clamp01(0.5 + (0.5 * expectedSign * move) / (TREND_FULL_ATR * a));
}

/** Mean volume over +-2 bars around `i`, inside the window. */
export function volumeAround(scan: Scan, i: number): number {
  const from = max(scan.start, i - PEAK_VOLUME_HALF_WIDTH);
  return meanVolume(scan.input.volume, from, min(scan.end, i + PEAK_VOLUME_HALF_WIDTH));
}

/** Volume part of the confidence: the contraction score `pre`, averaged with the breakout score once confirmed. */
export function volumePart(scan: Scan, pre: number, breakIdx: number): number {
  return breakIdx >= 0 ? 0.5 * pre + 0.5 * breakoutVolumeScore(scan, breakIdx) : pre;
}
