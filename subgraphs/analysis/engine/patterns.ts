/**
 * Chart patterns from zig-zag pivots (see pivots.ts), with lifecycle status, measured-move targets and a
 * confidence score; plus the aggregate pattern bias and the primary pattern of a list.
 *
 * Window and look-ahead: `detectPatterns(input, end)` reads bars [end - lookback + 1, end] only, so the
 * result at a date is what was visible on that date. Pivots come from `zigZag(input, start, end,
 * atrMultiple)`; its last pivot is provisional (the running extreme), so every key pivot of a pattern must be
 * a confirmed one (any pivot but the last). "ATR" below is the ATR(14) at the named bar (2% of its close in
 * the warm-up, see `atrAt`), written `a`.
 *
 * Lifecycle (every pattern has a direction, a breakout level and an invalidation level):
 * - forming: the geometry is complete but no close has crossed the breakout level yet;
 * - active: a close crossed the breakout level (the confirming bar), the target has not been reached by a
 *   close and no close has crossed the invalidation level since;
 * - completed: after confirmation a close reached the measured-move target;
 * - failed: a close crossed the invalidation level, before or after confirmation.
 * Closes are examined bar by bar from the bar after the last key point; the first event decides. A failed
 * pattern is reported for 20 bars after the close that failed it, then dropped (stale news). A pattern
 * that stays unconfirmed (and not failed) for longer than its waiting period is dropped as stale: the
 * pattern's own width in bars (at least 10) for doubles, head and shoulders and ranges; the bars left until
 * the apex (5 .. width) for triangles; 20 bars of flag and 25 bars of handle for flags and cups.
 * Two-sided patterns (symmetrical triangle, range) confirm on a close beyond either side, which also fixes
 * their direction; while forming they lean with the prior trend (their breakout level is then the side in
 * that direction and their invalidation level the other side, whose crossing turns them into a breakout the
 * other way rather than a failure).
 *
 * Dates: start_date is the first key point; end_date the confirming (breakout) bar once confirmed, else the
 * last key point. Key points carry labels (e.g. `first_peak`, `neckline`, `head`, `pole_top`, `breakout`).
 *
 * Confidence = 0.5 x geometry + 0.25 x volume + 0.25 x trend (each part in 0..1, rounded to 4 decimals):
 * - geometry: how well the pivots fit the pattern (rules per pattern in its detector file);
 * - volume: before confirmation, a "contraction" score clamp(1.5 - later / earlier) of mean volumes (the
 *   later part of the pattern on lighter volume scores high; equal volume scores 0.5); once confirmed, the
 *   mean of that score and the breakout score clamp(breakout-bar volume / mean volume of the previous 20
 *   bars / 2) (twice the average volume scores 1). Missing or zero volume scores 0.5;
 * - trend: the close change over the 40 bars before the first key point (fewer at the window start; 0.5 if
 *   fewer than 5), as clamp(0.5 + 0.5 x signed move / (5 ATR)), signed so that a move in the pattern's
 *   direction scores high for continuation patterns (triangles, flags, cup and handle, range breakout) and a
 *   move against it scores high for reversals (doubles, head and shoulders).
 *
 * Patterns (height and targets in price; "flat" and "sloped" in ATRs of the line's change over the pattern).
 * The ATR of a pattern is the mean of its two extremes' ATRs for doubles, the head's for head and shoulders,
 * the mean of the first and last pivot's for triangles, the pole top's for flags, the left rim's for cups
 * and the first pivot's for ranges. Each detector lives in its own file under patterns/ with its rules in
 * its header: double.ts (DOUBLE_TOP / DOUBLE_BOTTOM), head-and-shoulders.ts (HEAD_AND_SHOULDERS /
 * INVERSE_HEAD_AND_SHOULDERS), triangles.ts (ASCENDING / DESCENDING / SYMMETRICAL_TRIANGLE), flag.ts
 * (BULL_FLAG / BEAR_FLAG), cup-and-handle.ts (CUP_AND_HANDLE) and range-breakout.ts (RANGE_BREAKOUT);
 * patterns/registry.ts lists the detectors in the order they run. Shared parts: patterns/scan.ts (the
 * candidate record and confidence weights), patterns/scoring.ts (volume and trend scores) and
 * patterns/lifecycle.ts (status rules).
 *
 * Flood control: for each type, overlapping detections (their [start, end] bar spans intersect) keep only
 * the best one (by status: active, forming, completed, failed; then by confidence); the result is sorted by
 * end_date descending, then confidence descending, and cut to 12 entries. A price target at or below zero is
 * reported as null.
 */
import type { PatternEntry, PatternSignal, PatternStatus } from './document.js';
import { zigZag, type PriceInput } from './pivots.js';
import { PATTERN_DETECTORS } from './patterns/registry.js';
import type { Candidate, PivotDetector, Scan, SequenceDetector } from './patterns/scan.js';
import { clamp01, round4 } from './patterns/numbers.js';

const { floor, max, min } = Math;

/** Options of {@link detectPatterns}. */
export interface PatternOptions {
  /** Bars of history used, ending at `end` (default 250). */
  lookback?: number;
  /** Zig-zag reversal threshold in ATRs (default 2). */
  atrMultiple?: number;
}

export const DEFAULT_PATTERN_LOOKBACK = 250;
export const DEFAULT_PATTERN_ATR_MULTIPLE = 2;
/** At most this many entries are returned. */
export const MAX_PATTERNS = 12;

/** The registry split by how a detector is started (sequence detectors run first, then per pivot). */
const SEQUENCE_DETECTORS = PATTERN_DETECTORS.filter((d): d is SequenceDetector => d.kind === 'sequence');
const PIVOT_DETECTORS = PATTERN_DETECTORS.filter((d): d is PivotDetector => d.kind === 'pivot');

const STATUS_TIER: Readonly<Record<PatternStatus, number>> = { active: 0, forming: 1, completed: 2, failed: 3 };

/** Dedup preference: active, then forming, completed, failed; then higher confidence. */
function byTierThenConfidence(x: Candidate, y: Candidate): number {
  return STATUS_TIER[x.status] - STATUS_TIER[y.status] || y.confidence - x.confidence;
}

function byEndThenConfidence(x: Candidate, y: Candidate): number {
  return y.last - x.last || y.confidence - x.confidence;
}

function toEntry(c: Candidate, dates: string[]): PatternEntry {
  return {
    type: c.type,
    status: c.status,
    start_date: dates[c.first],
    end_date: dates[c.last],
    confidence: c.confidence,
    price_target: c.target > 0 && Number.isFinite(c.target) ? c.target : null,
    direction: c.sign > 0 ? 'bullish' : 'bearish',
    breakout_level: Number.isFinite(c.breakout) ? c.breakout : null,
    invalidation_level: Number.isFinite(c.invalidation) ? c.invalidation : null,
    key_points: c.keys.map((k) => ({ label: k.label, date: dates[k.index], price: k.price })),
    confidence_parts: { ...c.parts },
  };
}

/**
 * Patterns visible at bar `end`, using bars [end - lookback + 1, end] only (no look-ahead). Sorted by end_date
 * desc, then confidence desc. Throws RangeError for an `end` outside the bars or invalid options.
 */
export function detectPatterns(input: PriceInput, end: number, options: PatternOptions = {}): PatternEntry[] {
  const lookback = options.lookback ?? DEFAULT_PATTERN_LOOKBACK;
  const atrMultiple = options.atrMultiple ?? DEFAULT_PATTERN_ATR_MULTIPLE;
  if (!Number.isInteger(end) || end < 0 || end >= input.close.length) {
    throw new RangeError(`end must be a bar index, got ${end}`);
  }
  if (!(lookback >= 2) || !(atrMultiple > 0)) throw new RangeError('lookback must be >= 2 and atrMultiple > 0');
  const start = max(0, end - floor(lookback) + 1);
  const pivots = zigZag(input, start, end, atrMultiple);
  const confirmed = pivots.length - 1;
  if (confirmed < 1) return [];
  const scan: Scan = { input, start, end, out: [] };
  for (const detector of SEQUENCE_DETECTORS) detector.scan(scan, pivots, confirmed);
  for (let k = 0; k < confirmed; k++) {
    for (const detector of PIVOT_DETECTORS) detector.scan(scan, pivots[k]);
  }
  const all = scan.out;
  if (all.length === 0) return [];
  all.sort(byTierThenConfidence);
  const kept: Candidate[] = [];
  for (const c of all) {
    let overlaps = false;
    for (const k of kept) {
      if (k.type === c.type && c.first <= k.last && k.first <= c.last) {
        overlaps = true;
        break;
      }
    }
    if (!overlaps) kept.push(c);
  }
  kept.sort(byEndThenConfidence);
  const n = min(kept.length, MAX_PATTERNS);
  const result: PatternEntry[] = new Array(n);
  for (let i = 0; i < n; i++) result[i] = toEntry(kept[i], input.dates);
  return result;
}

/**
 * Weights of each status in the aggregate bias: a confirmed (active) pattern counts fully, a forming one
 * at 0.6, a completed one (its move is already done) at 0.25, a failed one not at all.
 */
export const PATTERN_STATUS_WEIGHTS: Readonly<Record<PatternStatus, number>> = {
  active: 1,
  forming: 0.6,
  completed: 0.25,
  failed: 0,
};
/** |net| at or above this makes the aggregate direction BULLISH / BEARISH, else NEUTRAL. */
export const PATTERN_SIGNAL_THRESHOLD = 0.1;

/**
 * Aggregate bias. For each direction, confidence = 1 - prod(1 - w(status) x confidence) over the non-failed
 * patterns of that direction (a probabilistic OR: independent pieces of evidence that each would justify the
 * bias with their own confidence); net = bullish - bearish; direction BULLISH when net >= 0.1, BEARISH when
 * net <= -0.1, else NEUTRAL. pattern_count = the number of non-failed patterns. Values rounded to 4 decimals.
 */
export function summarizePatterns(patterns: readonly PatternEntry[]): PatternSignal {
  let bullMiss = 1;
  let bearMiss = 1;
  let count = 0;
  for (const p of patterns) {
    const w = PATTERN_STATUS_WEIGHTS[p.status];
    if (!(w > 0)) continue;
    count++;
    const c = w * clamp01(p.confidence);
    if (p.direction === 'bullish') bullMiss *= 1 - c;
    else bearMiss *= 1 - c;
  }
  const bullish = round4(1 - bullMiss);
  const bearish = round4(1 - bearMiss);
  const net = round4(bullish - bearish);
  return {
    direction: net >= PATTERN_SIGNAL_THRESHOLD ? 'BULLISH' : net <= -PATTERN_SIGNAL_THRESHOLD ? 'BEARISH' : 'NEUTRAL',
    net_confidence: net,
    bullish_confidence: bullish,
    bearish_confidence: bearish,
    pattern_count: count,
  };
}

/**
 * The primary pattern: highest confidence among active, then forming, then others (first in list order on
 * ties); null when none.
 */
export function bestPattern(patterns: readonly PatternEntry[]): PatternEntry | null {
  let best: PatternEntry | null = null;
  let bestTier = 3;
  for (const p of patterns) {
    const tier = p.status === 'active' ? 0 : p.status === 'forming' ? 1 : 2;
    if (best === null || tier < bestTier || (tier === bestTier && p.confidence > best.confidence)) {
      best = p;
      bestTier = tier;
    }
  }
  return best;
}
