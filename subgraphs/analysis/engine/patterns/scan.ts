/**
 * What every pattern detector shares: the per-call scan state, the candidate record a detector pushes (bar
 * indices instead of dates; patterns.ts turns kept candidates into PatternEntry rows), the detector shapes the
 * registry lists, and `pushCandidate`, which takes a detector's Detection (type, key points, lifecycle outcome,
 * confidence parts), rounds the confidence parts and weighs them into the confidence (0.5 x geometry + 0.25 x
 * volume + 0.25 x trend).
 */
import type { PatternStatus, PatternType } from '../document.js';
import type { Pivot, PriceInput } from '../pivots.js';
import type { Life } from './lifecycle.js';
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
  /** Breakout, invalidation and target levels: those of the detection's Life. */
  breakout: number;
  invalidation: number;
  target: number;
  /** Clamped to 0..1 and rounded to 4 decimals. */
  parts: ConfidenceParts;
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

/** The three confidence parts of a pattern (each 0..1); confidence = 0.5 x geometry + 0.25 x volume + 0.25 x trend. */
export interface ConfidenceParts {
  geometry: number;
  volume: number;
  trend: number;
}

/** What a detector reports for one detection. */
export interface Detection {
  type: PatternType;
  /** Key points in pattern order (the first is the pattern's start); `pushCandidate` appends `breakout`. */
  keys: KeyPoint[];
  /** Lifecycle outcome: status, direction, confirming bar, breakout / target / invalidation levels. */
  life: Life;
  /** Raw confidence parts (clamped and rounded by `pushCandidate`). */
  parts: ConfidenceParts;
}

/**
 * Records a candidate: end bar = the confirming bar (`life.breakIdx`, added as the `breakout` key point) or
 * else the latest key point; the three confidence parts are clamped to 0..1 and rounded to 4 decimals.
 */
export function pushCandidate(scan: Scan, detection: Detection): void {
  const { type, keys, life, parts } = detection;
  let last = keys[0].index;
  for (let i = 1; i < keys.length; i++) if (keys[i].index > last) last = keys[i].index;
  if (life.breakIdx >= 0) {
    keys.push({ label: 'breakout', index: life.breakIdx, price: scan.input.close[life.breakIdx] });
    last = life.breakIdx;
  }
  const geometry = round4(clamp01(parts.geometry));
  const volume = round4(clamp01(parts.volume));
  const trend = round4(clamp01(parts.trend));
  scan.out.push({
    type,
    sign: life.sign,
    status: life.status,
    first: keys[0].index,
    last,
    keys,
    breakout: life.breakout,
    invalidation: life.invalidation,
    target: life.target,
    parts: { geometry, volume, trend },
    confidence: round4(W_GEOMETRY * geometry + W_VOLUME * volume + W_TREND * trend),
  });
}
