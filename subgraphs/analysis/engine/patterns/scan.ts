/**
 * What every pattern detector shares: the per-call scan state, the candidate record a detector pushes (bar
 * indices instead of dates; patterns.ts turns kept candidates into PatternEntry rows), the detector shapes the
 * registry lists, and `pushCandidate`, which rounds the confidence parts and weighs them into the confidence
 * (0.5 x geometry + 0.25 x volume + 0.25 x trend).
 */
import type { PatternStatus, PatternType } from '../document.js';
import type { Pivot, PriceInput } from '../pivots.js';
import { clamp01, round4 } from './numbers.js';

// Confidence weights.
const W_GEOMETRY = 0.5;
const W_VOLUME = 0.25;
const W_TREND = 0.25;
// Common to several detectors.
/** Least pattern height, in ATRs. */
export const MIN_HEIGHT_ATR = 2;
/** Least waiting period (bars) of an unconfirmed pattern before it is dropped as stale. */
export const MIN_WAIT = 10;

export interface KeyPoint {
  label: string;
  index: number;
  price: number;
}

/** A detection before conversion to a PatternEntry (bar indices instead of dates). */
export interface Candidate {
  type: PatternType;
  /** +1 bullish, -1 bearish. */
  sign: number;
  status: PatternStatus;
  first: number;
  /** Bar of end_date: the confirming bar, else the last key point. */
  last: number;
  keys: KeyPoint[];
  breakout: number;
  invalidation: number;
  target: number;
  geometry: number;
  volume: number;
  trend: number;
  confidence: number;
}

/** Per-call state shared by the scanners. */
export interface Scan {
  input: PriceInput;
  /** First bar of the window. */
  start: number;
  end: number;
  out: Candidate[];
}

/** A detector over the whole zig-zag: reads the confirmed pivots pivots[0 .. confirmed - 1]. */
export interface SequenceDetector {
  readonly kind: 'sequence';
  readonly name: string;
  scan(scan: Scan, pivots: Pivot[], confirmed: number): void;
}

/** A detector started from one confirmed pivot, scanning bar by bar after it. */
export interface PivotDetector {
  readonly kind: 'pivot';
  readonly name: string;
  scan(scan: Scan, pivot: Pivot): void;
}

export type PatternDetector = SequenceDetector | PivotDetector;

/**
 * Records a candidate: end bar = the confirming bar (`breakIdx`, added as the `breakout` key point) or else the
 * latest key point; the three confidence parts are clamped to 0..1 and rounded to 4 decimals.
 */
export function pushCandidate(
  scan: Scan,
  type: PatternType,
  sign: number,
  status: PatternStatus,
  keys: KeyPoint[],
  breakIdx: number,
  breakout: number,
  invalidation: number,
  target: number,
  geometry: number,
  volume: number,
  trend: number,
): void {
  let last = keys[0].index;
  for (let i = 1; i < keys.length; i++) if (keys[i].index > last) last = keys[i].index;
  if (breakIdx >= 0) {
    keys.push({ label: 'breakout', index: breakIdx, price: scan.input.close[breakIdx] });
    last = breakIdx;
  }
  const g = round4(clamp01(geometry));
  const v = round4(clamp01(volume));
  const t = round4(clamp01(trend));
  scan.out.push({
    type,
    sign,
    status,
    first: keys[0].index,
    last,
    keys,
    breakout,
    invalidation,
    target,
    geometry: g,
    volume: v,
    trend: t,
    confidence: round4(W_GEOMETRY * g + W_VOLUME * v + W_TREND * t),
  });
}
