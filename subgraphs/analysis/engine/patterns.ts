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
 * - geometry: how well the pivots fit the pattern (rules per pattern below);
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
 * and the first pivot's for ranges.
 * - DOUBLE_TOP / DOUBLE_BOTTOM: three consecutive pivots peak, trough, peak (or trough, peak, trough); the two
 *   extremes within 1 ATR of each other, at least 10 bars apart, height (mean extreme to the middle pivot)
 *   >= 2 ATR. Breakout level: the middle pivot (neckline); invalidation: the more extreme of the two peaks
 *   (troughs); target: neckline -/+ height. Geometry: 0.6 x (1 - difference / 1 ATR) + 0.4 x
 *   clamp(height / 6 ATR). Volume before confirmation: volume around the second extreme (+-2 bars) against
 *   the first.
 * - HEAD_AND_SHOULDERS / INVERSE_HEAD_AND_SHOULDERS: five consecutive pivots shoulder, neck, head, neck,
 *   shoulder; the head beyond both shoulders by >= 0.5 ATR, shoulders within 1.5 ATR of each other, the two
 *   neck pivots differing by at most half the height, the time from each shoulder to the head in a ratio of
 *   at most 3, width >= 15 bars, height (head to the neckline at the head's bar) >= 2 ATR. The neckline is the
 *   line through the two neck pivots; breakout level: the neckline at the confirming bar (at `end` while
 *   forming); invalidation: the head; target: breakout level -/+ height. Geometry: mean of shoulder equality
 *   (1 - difference / 1.5 ATR), head prominence clamp(excess / 2 ATR), neckline flatness (1 - neck difference
 *   / half the height) and time symmetry (shorter / longer shoulder-to-head time). Volume: right shoulder
 *   against left shoulder.
 * - ASCENDING / DESCENDING / SYMMETRICAL_TRIANGLE: 4 to 6 consecutive pivots spanning >= 15 bars; the
 *   least-squares lines through their highs and through their lows (exact for two points) miss no pivot by
 *   more than 0.75 ATR, the gap between the lines is positive at the last pivot and at most 0.8 of the gap at
 *   the first pivot (converging), and the gap at the first pivot (the height) is >= 2 ATR. Ascending: upper
 *   line flat (change <= 0.75 ATR) and lower line rising by >= 1.5 ATR (bullish, breakout above the upper
 *   line, invalidation the last pivot low). Descending: the mirror (bearish, invalidation the last pivot
 *   high). Symmetrical: upper falling and lower rising by >= 1.5 ATR each (two-sided; after an upside break
 *   the invalidation is the last pivot low, after a downside break the last pivot high). Target: breakout
 *   level +/- height. Geometry: mean of fit (1 - worst miss / 0.75 ATR), touches clamp((pivots - 3) / 3)
 *   and contraction (1 - last gap / first gap). Volume: second half of the pattern against the first half.
 * - BULL_FLAG / BEAR_FLAG: scanned bar by bar from each confirmed pivot low (high): the pole top is the
 *   running highest high (lowest low); the bars after it without a new extreme are the flag. The pole starts
 *   at the lowest low (highest high) of the 25 bars before the pole top (not before the starting pivot; of
 *   bars within 0.5 ATR of that extreme, the latest), must be >= 4 ATR long and move >= 0.25 ATR per bar.
 *   The flag is recognised at its first bar (>= 3 bars in) where its retracement, measured by closes like
 *   every status rule, is >= 1 ATR, <= 50% of the pole and a drift rather than a reversal (retracement <= 0.5
 *   x pole / pole bars x flag bars + 0.5 ATR of noise allowance: at most half the pole's speed). Until then
 *   a new extreme just extends the pole; once recognised, a bar that pokes beyond the pole top without
 *   closing beyond it stays in the flag. Breakout: a close beyond the pole top (the breakout level);
 *   invalidation: the pole's midpoint (a 50% retracement); target: pole top +/- pole length. A recognised
 *   flag that reaches 21 bars without a breakout or failure is dropped. Geometry: 0.4 x clamp(pole / 8 ATR)
 *   + 0.4 x (1 - retracement / half the pole) + 0.2 x brevity (1 at 3 flag bars, 0 at 20). Volume: flag
 *   against pole.
 * - CUP_AND_HANDLE (bullish): scanned bar by bar from each confirmed pivot high (the left rim): the cup
 *   bottom is the lowest low until price comes back within 1.5 ATR of the left rim, at least 20 and at most
 *   200 bars after it, with depth >= 3 ATR and <= 50% of the rim price (never exceeding the rim by more than
 *   1.5 ATR). The right rim is the running highest high from then on; the handle is the >= 3 (<= 25) bars
 *   after it without a new high, retracing (by closes) >= 0.5 ATR and <= 50% of the cup depth. The cup
 *   must be round: >= 40% of its bars close in the lower third of its depth (a straight V has 33%).
 *   Breakout: a close above the right rim (an intrabar poke above it without such a close stays part of a
 *   valid handle); invalidation: the cup's midpoint (right rim - half the depth); target: right rim + depth
 *   (right rim minus bottom). Geometry: mean of rim equality (1 - difference / 1.5 ATR), roundness
 *   clamp((fraction - 0.3) / 0.3) and handle shallowness (1 - handle depth / half the cup depth). Volume:
 *   handle against the right half of the cup.
 * - RANGE_BREAKOUT: >= 4 consecutive pivots spanning >= 20 bars whose highs lie within 1 ATR of each other
 *   and whose lows lie within 1 ATR of each other (the longest such run from each starting pivot), height
 *   (highest high - lowest low) >= 2 ATR. Two-sided: a close above the top is bullish, below the bottom
 *   bearish; after the break a close back through the range's midpoint fails it. Target: broken edge +/-
 *   height. Geometry: mean of touches clamp((pivots - 3) / 3), flatness (1 - mean edge spread / 1 ATR) and
 *   duration clamp(bars / 60). Volume: second half against the first half.
 *
 * Flood control: for each type, overlapping detections (their [start, end] bar spans intersect) keep only
 * the best one (by status: active, forming, completed, failed; then by confidence); the result is sorted by
 * end_date descending, then confidence descending, and cut to 12 entries. A price target at or below zero is
 * reported as null.
 */
import type { PatternEntry, PatternSignal, PatternStatus, PatternType } from './document.js';
import { atrAt, zigZag, type Pivot, type PriceInput } from './pivots.js';

const { abs, floor, max, min, round } = Math;

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

// Confidence weights.
const W_GEOMETRY = 0.5;
const W_VOLUME = 0.25;
const W_TREND = 0.25;
// Trend context.
const TREND_BARS = 40;
const TREND_MIN_BARS = 5;
const TREND_FULL_ATR = 5;
// Volume.
const VOLUME_AVG_BARS = 20;
const VOLUME_MIN_BARS = 5;
const PEAK_VOLUME_HALF_WIDTH = 2;
// Common.
const MIN_HEIGHT_ATR = 2;
const MIN_WAIT = 10;
// Double top / bottom.
const DOUBLE_TOL_ATR = 1;
const DOUBLE_MIN_BARS = 10;
const DOUBLE_FULL_HEIGHT_ATR = 6;
// Head and shoulders.
const HS_HEAD_MIN_ATR = 0.5;
const HS_HEAD_FULL_ATR = 2;
const HS_SHOULDER_TOL_ATR = 1.5;
const HS_NECK_MAX_FRACTION = 0.5;
const HS_MAX_TIME_RATIO = 3;
const HS_MIN_BARS = 15;
// Triangles.
const TRI_MIN_PIVOTS = 4;
const TRI_MAX_PIVOTS = 6;
const TRI_MIN_BARS = 15;
const TRI_FIT_TOL_ATR = 0.75;
const TRI_FLAT_ATR = 0.75;
const TRI_SLOPE_ATR = 1.5;
const TRI_MAX_CONTRACTION = 0.8;
const TRI_MIN_WAIT = 5;
// Flags.
const POLE_MIN_ATR = 4;
const POLE_FULL_ATR = 8;
const POLE_MAX_BARS = 25;
const POLE_MIN_SLOPE_ATR = 0.25;
const POLE_BASE_TOL_ATR = 0.5;
const FLAG_MIN_BARS = 3;
const FLAG_MAX_BARS = 20;
const FLAG_MIN_RETRACE_ATR = 1;
const FLAG_MAX_RETRACE = 0.5;
const FLAG_MAX_DRIFT = 0.5;
const FLAG_DRIFT_ALLOWANCE_ATR = 0.5;
// Cup and handle.
const CUP_MIN_BARS = 20;
const CUP_MAX_BARS = 200;
const CUP_MIN_DEPTH_ATR = 3;
const CUP_MAX_DEPTH_FRACTION = 0.5;
const CUP_RIM_TOL_ATR = 1.5;
const CUP_MIN_ROUNDNESS = 0.4;
const CUP_ROUNDNESS_FLOOR = 0.3;
const HANDLE_MIN_BARS = 3;
const HANDLE_MAX_BARS = 25;
const HANDLE_MIN_RETRACE_ATR = 0.5;
const HANDLE_MAX_RETRACE = 0.5;
// Range.
const RANGE_MIN_PIVOTS = 4;
const RANGE_MIN_BARS = 20;
const RANGE_FULL_BARS = 60;
const RANGE_TOL_ATR = 1;

interface KeyPoint {
  label: string;
  index: number;
  price: number;
}

/** A detection before conversion to a PatternEntry (bar indices instead of dates). */
interface Candidate {
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
interface Scan {
  input: PriceInput;
  /** First bar of the window. */
  start: number;
  end: number;
  out: Candidate[];
}

function clamp01(x: number): number {
  return x > 1 ? 1 : x > 0 ? x : 0;
}

function round4(x: number): number {
  return round(x * 10000) / 10000;
}

/** Mean volume over bars [from, to] (NaN when empty). */
function meanVolume(volume: Float64Array, from: number, to: number): number {
  if (to < from) return NaN;
  let sum = 0;
  for (let i = from; i <= to; i++) sum += volume[i];
  return sum / (to - from + 1);
}

/** clamp(1.5 - later / earlier): lighter volume later scores high; 0.5 when undefined. */
function contractionScore(earlier: number, later: number): number {
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
function priorMove(scan: Scan, first: number): number {
  const k = min(TREND_BARS, first - scan.start);
  if (k < TREND_MIN_BARS) return NaN;
  return scan.input.close[first] - scan.input.close[first - k];
}

/** Trend score: 0.5 + 0.5 x expected-sign x prior move / (5 ATR), clamped; 0.5 without history. */
function trendScore(scan: Scan, first: number, a: number, expectedSign: number): number {
  const move = priorMove(scan, first);
  if (move !== move) return 0.5;
  return clamp01(0.5 + (0.5 * expectedSign * move) / (TREND_FULL_ATR * a));
}

/** A failed pattern is reported for this many bars after the close that failed it, then dropped. */
const FAILED_KEEP_BARS = 20;

/**
 * Status after a confirmation at bar `from`: completed / failed at the first close through target /
 * invalidation; null for a failure more than FAILED_KEEP_BARS bars before `end`.
 */
function afterBreakout(
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

/** Outcome of a line-confirmed pattern (doubles, head and shoulders, triangles, ranges). */
interface Life {
  status: PatternStatus;
  sign: number;
  breakIdx: number;
  level: number;
  target: number;
  invalidation: number;
}

/**
 * Lifecycle against breakout lines upper(j) = upBase + upSlope (j - anchor), lower(j) likewise. mode +1: only
 * a close above the upper line confirms (a close below invUp first fails the pattern); -1: the mirror; 0:
 * either side confirms and fixes the direction (forming patterns lean to `preferSign`). Null when stale
 * (unconfirmed more than `maxWait` bars after the last key point).
 */
function lineLifecycle(
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
      const level = sign > 0 ? up : lo;
      const target = level + sign * height;
      const invalidation = sign > 0 ? invUp : invDown;
      const status = afterBreakout(close, j, end, sign, target, invalidation);
      return status === null ? null : { status, sign, breakIdx: j, level, target, invalidation };
    }
    // One-sided patterns fail on a close beyond the invalidation level before any breakout.
    const failSign = mode > 0 && c < invUp ? 1 : mode < 0 && c > invDown ? -1 : 0;
    if (failSign !== 0) {
      if (end - j > FAILED_KEEP_BARS) return null;
      const level = failSign > 0 ? up : lo;
      const invalidation = failSign > 0 ? invUp : invDown;
      return { status: 'failed', sign: failSign, breakIdx: -1, level, target: level + failSign * height, invalidation };
    }
  }
  const sign = mode !== 0 ? mode : preferSign >= 0 ? 1 : -1;
  const up = upBase + upSlope * (end - anchor);
  const lo = loBase + loSlope * (end - anchor);
  const level = sign > 0 ? up : lo;
  const invalidation = mode === 0 ? (sign > 0 ? lo : up) : sign > 0 ? invUp : invDown;
  return { status: 'forming', sign, breakIdx: -1, level, target: level + sign * height, invalidation };
}

function push(
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

/** Mean volume over +-2 bars around `i`, inside the window. */
function volumeAround(scan: Scan, i: number): number {
  const from = max(scan.start, i - PEAK_VOLUME_HALF_WIDTH);
  return meanVolume(scan.input.volume, from, min(scan.end, i + PEAK_VOLUME_HALF_WIDTH));
}

function volumePart(scan: Scan, pre: number, breakIdx: number): number {
  return breakIdx >= 0 ? 0.5 * pre + 0.5 * breakoutVolumeScore(scan, breakIdx) : pre;
}

// ---------------------------------------------------------------------------------------------- doubles

function scanDoubles(scan: Scan, pivots: Pivot[], confirmed: number): void {
  const { input, end } = scan;
  for (let k = 0; k + 2 < confirmed; k++) {
    const p1 = pivots[k];
    const mid = pivots[k + 1];
    const p2 = pivots[k + 2];
    const span = p2.index - p1.index;
    if (span < DOUBLE_MIN_BARS) continue;
    const a = 0.5 * (atrAt(input, p1.index) + atrAt(input, p2.index));
    const diff = abs(p1.price - p2.price);
    if (diff > DOUBLE_TOL_ATR * a) continue;
    const top = p1.kind === 'high';
    const sign = top ? -1 : 1;
    const height = top ? 0.5 * (p1.price + p2.price) - mid.price : mid.price - 0.5 * (p1.price + p2.price);
    if (height < MIN_HEIGHT_ATR * a) continue;
    const extreme = top ? max(p1.price, p2.price) : min(p1.price, p2.price);
    const life = lineLifecycle(
      input.close,
      p2.index,
      end,
      max(MIN_WAIT, span),
      p2.index,
      mid.price,
      0,
      mid.price,
      0,
      sign,
      sign,
      height,
      extreme,
      extreme,
    );
    if (life === null) continue;
    const geometry = 0.6 * (1 - diff / (DOUBLE_TOL_ATR * a)) + 0.4 * clamp01(height / (DOUBLE_FULL_HEIGHT_ATR * a));
    const pre = contractionScore(volumeAround(scan, p1.index), volumeAround(scan, p2.index));
    const keys: KeyPoint[] = [
      { label: top ? 'first_peak' : 'first_trough', index: p1.index, price: p1.price },
      { label: 'neckline', index: mid.index, price: mid.price },
      { label: top ? 'second_peak' : 'second_trough', index: p2.index, price: p2.price },
    ];
    push(
      scan,
      top ? 'DOUBLE_TOP' : 'DOUBLE_BOTTOM',
      sign,
      life.status,
      keys,
      life.breakIdx,
      life.level,
      life.invalidation,
      life.target,
      geometry,
      volumePart(scan, pre, life.breakIdx),
      trendScore(scan, p1.index, a, -sign),
    );
  }
}

// ------------------------------------------------------------------------------------ head and shoulders

function scanHeadAndShoulders(scan: Scan, pivots: Pivot[], confirmed: number): void {
  const { input, end } = scan;
  for (let k = 0; k + 4 < confirmed; k++) {
    const ls = pivots[k];
    const n1 = pivots[k + 1];
    const head = pivots[k + 2];
    const n2 = pivots[k + 3];
    const rs = pivots[k + 4];
    const span = rs.index - ls.index;
    if (span < HS_MIN_BARS) continue;
    const top = head.kind === 'high';
    const sign = top ? -1 : 1;
    const a = atrAt(input, head.index);
    // Excess of the head over the nearer shoulder, in the pattern's sense.
    const excess = top ? head.price - max(ls.price, rs.price) : min(ls.price, rs.price) - head.price;
    if (excess < HS_HEAD_MIN_ATR * a) continue;
    const shoulderDiff = abs(ls.price - rs.price);
    if (shoulderDiff > HS_SHOULDER_TOL_ATR * a) continue;
    const d1 = head.index - ls.index;
    const d2 = rs.index - head.index;
    if (d1 > HS_MAX_TIME_RATIO * d2 || d2 > HS_MAX_TIME_RATIO * d1) continue;
    const slope = (n2.price - n1.price) / (n2.index - n1.index);
    const neckAtHead = n1.price + slope * (head.index - n1.index);
    const height = top ? head.price - neckAtHead : neckAtHead - head.price;
    if (height < MIN_HEIGHT_ATR * a) continue;
    const neckDiff = abs(n2.price - n1.price);
    if (neckDiff > HS_NECK_MAX_FRACTION * height) continue;
    const life = lineLifecycle(
      input.close,
      rs.index,
      end,
      max(MIN_WAIT, span),
      n1.index,
      n1.price,
      slope,
      n1.price,
      slope,
      sign,
      sign,
      height,
      head.price,
      head.price,
    );
    if (life === null) continue;
    const geometry =
      (clamp01(1 - shoulderDiff / (HS_SHOULDER_TOL_ATR * a)) +
        clamp01(excess / (HS_HEAD_FULL_ATR * a)) +
        clamp01(1 - neckDiff / (HS_NECK_MAX_FRACTION * height)) +
        min(d1, d2) / max(d1, d2)) /
      4;
    const pre = contractionScore(volumeAround(scan, ls.index), volumeAround(scan, rs.index));
    const keys: KeyPoint[] = [
      { label: 'left_shoulder', index: ls.index, price: ls.price },
      { label: 'neckline_left', index: n1.index, price: n1.price },
      { label: 'head', index: head.index, price: head.price },
      { label: 'neckline_right', index: n2.index, price: n2.price },
      { label: 'right_shoulder', index: rs.index, price: rs.price },
    ];
    push(
      scan,
      top ? 'HEAD_AND_SHOULDERS' : 'INVERSE_HEAD_AND_SHOULDERS',
      sign,
      life.status,
      keys,
      life.breakIdx,
      life.level,
      life.invalidation,
      life.target,
      geometry,
      volumePart(scan, pre, life.breakIdx),
      trendScore(scan, ls.index, a, -sign),
    );
  }
}

// ------------------------------------------------------------------------------------------- triangles

/** Least-squares line through the pivots of one kind among pivots[k .. k + m - 1], x relative to x0. */
function fitLine(pivots: Pivot[], k: number, m: number, kind: 'high' | 'low', x0: number, line: Float64Array): void {
  let n = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (let i = k; i < k + m; i++) {
    const p = pivots[i];
    if (p.kind !== kind) continue;
    const x = p.index - x0;
    n++;
    sx += x;
    sy += p.price;
    sxx += x * x;
    sxy += x * p.price;
  }
  const den = n * sxx - sx * sx;
  const slope = den > 0 ? (n * sxy - sx * sy) / den : 0;
  line[0] = (sy - slope * sx) / n;
  line[1] = slope;
}

/** Scratch for the two fitted lines (intercept at x0, slope): module-level to avoid per-call allocation. */
const upperLine = new Float64Array(2);
const lowerLine = new Float64Array(2);

function scanTriangles(scan: Scan, pivots: Pivot[], confirmed: number): void {
  const { input, end } = scan;
  for (let k = 0; k + TRI_MIN_PIVOTS <= confirmed; k++) {
    for (let m = TRI_MIN_PIVOTS; m <= TRI_MAX_PIVOTS && k + m <= confirmed; m++) {
      const firstP = pivots[k];
      const lastP = pivots[k + m - 1];
      const x0 = firstP.index;
      const span = lastP.index - x0;
      if (span < TRI_MIN_BARS) continue;
      const a = 0.5 * (atrAt(input, firstP.index) + atrAt(input, lastP.index));
      fitLine(pivots, k, m, 'high', x0, upperLine);
      fitLine(pivots, k, m, 'low', x0, lowerLine);
      const u0 = upperLine[0];
      const us = upperLine[1];
      const l0 = lowerLine[0];
      const ls = lowerLine[1];
      const widthStart = u0 - l0;
      const widthEnd = widthStart + (us - ls) * span;
      if (widthStart < MIN_HEIGHT_ATR * a || widthEnd <= 0 || widthEnd > TRI_MAX_CONTRACTION * widthStart) continue;
      const uChange = us * span;
      const lChange = ls * span;
      const flatTol = TRI_FLAT_ATR * a;
      const slopeMin = TRI_SLOPE_ATR * a;
      let type: PatternType;
      let mode: number;
      if (abs(uChange) <= flatTol && lChange >= slopeMin) {
        type = 'ASCENDING_TRIANGLE';
        mode = 1;
      } else if (abs(lChange) <= flatTol && uChange <= -slopeMin) {
        type = 'DESCENDING_TRIANGLE';
        mode = -1;
      } else if (uChange <= -slopeMin && lChange >= slopeMin) {
        type = 'SYMMETRICAL_TRIANGLE';
        mode = 0;
      } else continue;
      let worst = 0;
      let lastHigh = NaN;
      let lastLow = NaN;
      for (let i = k; i < k + m; i++) {
        const p = pivots[i];
        const x = p.index - x0;
        const miss = p.kind === 'high' ? abs(p.price - (u0 + us * x)) : abs(p.price - (l0 + ls * x));
        if (miss > worst) worst = miss;
        if (p.kind === 'high') lastHigh = p.price;
        else lastLow = p.price;
      }
      if (worst > TRI_FIT_TOL_ATR * a) continue;
      // Bars from the last pivot to the apex, where the lines meet.
      const toApex = floor(x0 + widthStart / (ls - us)) - lastP.index;
      const maxWait = max(TRI_MIN_WAIT, min(span, toApex));
      const lean = priorMove(scan, x0) < 0 ? -1 : 1;
      const life = lineLifecycle(
        input.close,
        lastP.index,
        end,
        maxWait,
        x0,
        u0,
        us,
        l0,
        ls,
        mode,
        lean,
        widthStart,
        lastLow,
        lastHigh,
      );
      if (life === null) continue;
      const fitScore = clamp01(1 - worst / (TRI_FIT_TOL_ATR * a));
      const geometry = (fitScore + clamp01((m - 3) / 3) + clamp01(1 - widthEnd / widthStart)) / 3;
      const midBar = (x0 + lastP.index) >> 1;
      const earlier = meanVolume(input.volume, x0, midBar);
      const pre = contractionScore(earlier, meanVolume(input.volume, midBar + 1, lastP.index));
      const keys: KeyPoint[] = [];
      let nh = 0;
      let nl = 0;
      for (let i = k; i < k + m; i++) {
        const p = pivots[i];
        const label = p.kind === 'high' ? `upper_${++nh}` : `lower_${++nl}`;
        keys.push({ label, index: p.index, price: p.price });
      }
      push(
        scan,
        type,
        life.sign,
        life.status,
        keys,
        life.breakIdx,
        life.level,
        life.invalidation,
        life.target,
        geometry,
        volumePart(scan, pre, life.breakIdx),
        trendScore(scan, x0, a, life.sign),
      );
    }
  }
}

// ----------------------------------------------------------------------------------------------- flags

/**
 * Start of the pole ending at bar b: the most extreme bar (lowest low for sign +1) among the 25 bars before b
 * (not before `from`); of bars within 0.5 ATR of that extreme, the latest (where the advance left its base).
 */
function poleStartBar(opp: Float64Array, sign: number, from: number, b: number, a: number): number {
  const lo = max(from, b - POLE_MAX_BARS);
  let best = lo;
  for (let i = lo + 1; i < b; i++) if (sign * (opp[i] - opp[best]) < 0) best = i;
  const baseTol = POLE_BASE_TOL_ATR * a;
  for (let i = b - 1; i > best; i--) if (sign * (opp[i] - opp[best]) <= baseTol) return i;
  return best;
}

function emitFlag(
  scan: Scan,
  sign: number,
  status: PatternStatus,
  poleStart: number,
  b: number,
  top: number,
  fx: number,
  retrace: number,
  flagEnd: number,
  breakIdx: number,
): void {
  const { input, end } = scan;
  const opp = sign > 0 ? input.low : input.high;
  const a = atrAt(input, b);
  const pole = sign * (top - opp[poleStart]);
  const target = top + sign * pole;
  const invalidation = top - sign * FLAG_MAX_RETRACE * pole;
  const finalStatus = breakIdx >= 0 ? afterBreakout(input.close, breakIdx, end, sign, target, invalidation) : status;
  if (finalStatus === null) return;
  const len = flagEnd - b;
  const geometry =
    0.4 * clamp01(pole / (POLE_FULL_ATR * a)) +
    0.4 * clamp01(1 - retrace / (FLAG_MAX_RETRACE * pole)) +
    0.2 * clamp01(1 - (len - FLAG_MIN_BARS) / (FLAG_MAX_BARS - FLAG_MIN_BARS));
  const pre = contractionScore(meanVolume(input.volume, poleStart + 1, b), meanVolume(input.volume, b + 1, flagEnd));
  const keys: KeyPoint[] = [
    { label: 'pole_start', index: poleStart, price: opp[poleStart] },
    { label: 'pole_top', index: b, price: top },
    { label: sign > 0 ? 'flag_low' : 'flag_high', index: fx, price: opp[fx] },
  ];
  push(
    scan,
    sign > 0 ? 'BULL_FLAG' : 'BEAR_FLAG',
    sign,
    finalStatus,
    keys,
    breakIdx,
    top,
    invalidation,
    target,
    geometry,
    volumePart(scan, pre, breakIdx),
    trendScore(scan, poleStart, a, sign),
  );
}

/**
 * Scans a flag in direction `sign` (+1 bull, -1 bear) from the confirmed pivot at bar `from` (a low for
 * bull flags, a high for bear flags); pushes at most one candidate. Written for a bull flag (mirrored by
 * `sign`): the running highest high is the pole top; bars after it without a new high form the flag. The
 * flag is recognised at the first bar where it meets the flag rules; from then on a close above the pole
 * top is its breakout, a close below the pole's midpoint its failure, and 20 flag bars without either make
 * it stale. Until recognised, any new high simply extends the pole.
 */
function scanFlag(scan: Scan, from: number, sign: number): void {
  const { input, end } = scan;
  const { close } = input;
  const ext = sign > 0 ? input.high : input.low;
  const opp = sign > 0 ? input.low : input.high;
  let b = from;
  let top = ext[from];
  // Pole of the current top (computed when the first flag bar arrives).
  let poleFor = -1;
  let poleStart = from;
  let pole = 0;
  let poleOk = false;
  let a = 0;
  // Current flag (bars b+1 .. the previous bar): bar of its extreme low, its deepest close, recognised yet.
  let fx = -1;
  let deepest = 0;
  let recognized = false;
  for (let i = from + 1; i <= end; i++) {
    const c = close[i];
    if (recognized && sign * (c - top) > 0) {
      emitFlag(scan, sign, 'active', poleStart, b, top, fx, sign * (top - deepest), i - 1, i);
      return;
    }
    if (!recognized && sign * (ext[i] - top) > 0) {
      top = ext[i];
      b = i;
      fx = -1;
      continue;
    }
    if (poleFor !== b) {
      poleFor = b;
      a = atrAt(input, b);
      poleStart = poleStartBar(opp, sign, from, b, a);
      pole = sign * (top - opp[poleStart]);
      poleOk = b > from && pole >= POLE_MIN_ATR * a && pole >= POLE_MIN_SLOPE_ATR * a * (b - poleStart);
    }
    if (poleOk) {
      if (sign * (c - (top - sign * FLAG_MAX_RETRACE * pole)) < 0) {
        if (recognized && end - i <= FAILED_KEEP_BARS) {
          emitFlag(scan, sign, 'failed', poleStart, b, top, fx, sign * (top - deepest), i - 1, -1);
        }
        return;
      }
    } else if (sign * (opp[i] - opp[from]) < 0) return;
    if (fx < 0) {
      fx = i;
      deepest = c;
    } else {
      if (sign * (opp[i] - opp[fx]) < 0) fx = i;
      if (sign * (c - deepest) < 0) deepest = c;
    }
    const len = i - b;
    if (len > FLAG_MAX_BARS) return;
    if (!recognized && poleOk && len >= FLAG_MIN_BARS) {
      // Depth (by closes) in [1 ATR, half the pole], and a drift: at most half the pole's speed per bar.
      const retrace = sign * (top - deepest);
      recognized =
        retrace >= FLAG_MIN_RETRACE_ATR * a &&
        retrace <= FLAG_MAX_RETRACE * pole &&
        retrace <= (FLAG_MAX_DRIFT * pole * len) / (b - poleStart) + FLAG_DRIFT_ALLOWANCE_ATR * a;
    }
  }
  if (recognized) emitFlag(scan, sign, 'forming', poleStart, b, top, fx, sign * (top - deepest), end, -1);
}

// -------------------------------------------------------------------------------------- cup and handle

function scanCup(scan: Scan, l: number): void {
  const { input, end } = scan;
  const { high, low, close, volume } = input;
  const rim = high[l];
  const a = atrAt(input, l);
  const tol = CUP_RIM_TOL_ATR * a;
  let bottom = Infinity;
  let bIdx = -1;
  let r = -1;
  let rr = 0;
  // Handle over bars r+1 .. handleEnd: the bar of the handle low, or -1 when the cup or handle does not qualify.
  // Depth (by closes) of the last handle examined by handleLow.
  let handleDepth = 0;
  const handleLow = (handleEnd: number): number => {
    const len = handleEnd - r;
    if (len < HANDLE_MIN_BARS || len > HANDLE_MAX_BARS) return -1;
    let hx = r + 1;
    let cx = r + 1;
    for (let i = r + 2; i <= handleEnd; i++) {
      if (low[i] < low[hx]) hx = i;
      if (close[i] < close[cx]) cx = i;
    }
    const depth = rr - bottom;
    handleDepth = rr - close[cx];
    if (handleDepth < HANDLE_MIN_RETRACE_ATR * a || handleDepth > HANDLE_MAX_RETRACE * depth) return -1;
    if (roundness() < CUP_MIN_ROUNDNESS) return -1;
    return hx;
  };
  const roundness = (): number => {
    const third = bottom + (min(rim, rr) - bottom) / 3;
    let count = 0;
    for (let i = l; i <= r; i++) if (close[i] < third) count++;
    return count / (r - l + 1);
  };
  const emit = (status: PatternStatus, handleEnd: number, hx: number, breakIdx: number): void => {
    const depth = rr - bottom;
    const target = rr + depth;
    const invalidation = rr - HANDLE_MAX_RETRACE * depth;
    const finalStatus = breakIdx >= 0 ? afterBreakout(close, breakIdx, end, 1, target, invalidation) : status;
    if (finalStatus === null) return;
    const geometry =
      (clamp01(1 - abs(rr - rim) / tol) +
        clamp01((roundness() - CUP_ROUNDNESS_FLOOR) / CUP_ROUNDNESS_FLOOR) +
        clamp01(1 - handleDepth / (HANDLE_MAX_RETRACE * depth))) /
      3;
    const pre = contractionScore(meanVolume(volume, bIdx, r), meanVolume(volume, r + 1, handleEnd));
    const keys: KeyPoint[] = [
      { label: 'left_rim', index: l, price: rim },
      { label: 'cup_bottom', index: bIdx, price: bottom },
      { label: 'right_rim', index: r, price: rr },
      { label: 'handle_low', index: hx, price: low[hx] },
    ];
    const volumeScore = volumePart(scan, pre, breakIdx);
    const trend = trendScore(scan, l, a, 1);
    push(scan, 'CUP_AND_HANDLE', 1, finalStatus, keys, breakIdx, rr, invalidation, target, geometry, volumeScore, trend);
  };
  for (let i = l + 1; i <= end; i++) {
    if (r < 0) {
      if (high[i] > rim + tol || i - l > CUP_MAX_BARS) return;
      if (low[i] < bottom) {
        bottom = low[i];
        bIdx = i;
      }
      if (rim - bottom > CUP_MAX_DEPTH_FRACTION * rim) return;
      if (high[i] >= rim - tol && i - l >= CUP_MIN_BARS && rim - bottom >= CUP_MIN_DEPTH_ATR * a) {
        r = i;
        rr = high[i];
      }
      continue;
    }
    if (close[i] > rr && i - r - 1 >= HANDLE_MIN_BARS) {
      const hx = handleLow(i - 1);
      if (hx >= 0) {
        emit('active', i - 1, hx, i);
        return;
      }
    }
    if (high[i] > rr) {
      // A new high extends the right rim, unless it is only an intrabar poke out of a valid handle.
      const poke = close[i] <= rr && i - r - 1 >= HANDLE_MIN_BARS && handleLow(i - 1) >= 0;
      if (!poke) {
        if (high[i] > rim + tol) return;
        rr = high[i];
        r = i;
        continue;
      }
    }
    if (i - r > HANDLE_MAX_BARS) return;
    if (close[i] < rr - HANDLE_MAX_RETRACE * (rr - bottom)) {
      const hx = handleLow(i - 1);
      if (hx >= 0 && end - i <= FAILED_KEEP_BARS) emit('failed', i - 1, hx, -1);
      return;
    }
  }
  if (r >= 0) {
    const hx = handleLow(end);
    if (hx >= 0) emit('forming', end, hx, -1);
  }
}

// ---------------------------------------------------------------------------------------------- ranges

function scanRanges(scan: Scan, pivots: Pivot[], confirmed: number): void {
  const { input, end } = scan;
  let prevRunEnd = -1;
  for (let k = 0; k + RANGE_MIN_PIVOTS <= confirmed; k++) {
    const a = atrAt(input, pivots[k].index);
    const band = RANGE_TOL_ATR * a;
    let hiMax = -Infinity;
    let hiMin = Infinity;
    let loMax = -Infinity;
    let loMin = Infinity;
    let j = k;
    for (; j < confirmed; j++) {
      const p = pivots[j];
      if (p.kind === 'high') {
        const nMax = max(hiMax, p.price);
        const nMin = min(hiMin, p.price);
        if (nMax - nMin > band) break;
        hiMax = nMax;
        hiMin = nMin;
      } else {
        const nMax = max(loMax, p.price);
        const nMin = min(loMin, p.price);
        if (nMax - nMin > band) break;
        loMax = nMax;
        loMin = nMin;
      }
    }
    const runEnd = j - 1;
    // A run that ends where the previous one ended is a tail of it: skip.
    if (runEnd === prevRunEnd) continue;
    prevRunEnd = runEnd;
    const count = runEnd - k + 1;
    if (count < RANGE_MIN_PIVOTS) continue;
    const first = pivots[k].index;
    const lastKey = pivots[runEnd].index;
    const span = lastKey - first;
    const height = hiMax - loMin;
    if (span < RANGE_MIN_BARS || height < MIN_HEIGHT_ATR * a) continue;
    const mid = 0.5 * (hiMax + loMin);
    const lean = priorMove(scan, first) < 0 ? -1 : 1;
    const maxWait = max(MIN_WAIT, span);
    const life = lineLifecycle(input.close, lastKey, end, maxWait, first, hiMax, 0, loMin, 0, 0, lean, height, mid, mid);
    if (life === null) continue;
    const flatness = clamp01(1 - (hiMax - hiMin + loMax - loMin) / (2 * band));
    const geometry = (clamp01((count - 3) / 3) + flatness + clamp01(span / RANGE_FULL_BARS)) / 3;
    const midBar = (first + lastKey) >> 1;
    const earlier = meanVolume(input.volume, first, midBar);
    const pre = contractionScore(earlier, meanVolume(input.volume, midBar + 1, lastKey));
    const keys: KeyPoint[] = [];
    let nh = 0;
    let nl = 0;
    for (let i = k; i <= runEnd; i++) {
      const p = pivots[i];
      const label = p.kind === 'high' ? `range_high_${++nh}` : `range_low_${++nl}`;
      keys.push({ label, index: p.index, price: p.price });
    }
    push(
      scan,
      'RANGE_BREAKOUT',
      life.sign,
      life.status,
      keys,
      life.breakIdx,
      life.level,
      life.invalidation,
      life.target,
      geometry,
      volumePart(scan, pre, life.breakIdx),
      trendScore(scan, first, a, life.sign),
    );
  }
}

// ------------------------------------------------------------------------------------------ public API

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
    confidence_parts: { geometry: c.geometry, volume: c.volume, trend: c.trend },
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
  scanDoubles(scan, pivots, confirmed);
  scanHeadAndShoulders(scan, pivots, confirmed);
  scanTriangles(scan, pivots, confirmed);
  scanRanges(scan, pivots, confirmed);
  for (let k = 0; k < confirmed; k++) {
    const p = pivots[k];
    if (p.kind === 'low') scanFlag(scan, p.index, 1);
    else {
      scanFlag(scan, p.index, -1);
      scanCup(scan, p.index);
    }
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
