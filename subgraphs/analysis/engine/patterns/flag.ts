/**
 * BULL_FLAG / BEAR_FLAG: scanned bar by bar from each confirmed pivot low (high): the pole top is the
 * running highest high (lowest low); the bars after it without a new extreme are the flag. The pole starts
 * at the lowest low (highest high) of the 25 bars before the pole top (not before the starting pivot; of
 * bars within 0.5 ATR of that extreme, the latest), must be >= 4 ATR long and move >= 0.25 ATR per bar.
 * The flag is recognised at its first bar (>= 3 bars in) where its retracement, measured by closes like
 * every status rule, is >= 1 ATR, <= 50% of the pole and a drift rather than a reversal (retracement <= 0.5
 * x pole / pole bars x flag bars + 0.5 ATR of noise allowance: at most half the pole's speed). Until then
 * a new extreme just extends the pole; once recognised, a bar that pokes beyond the pole top without
 * closing beyond it stays in the flag. Breakout: a close beyond the pole top (the breakout level);
 * invalidation: the pole's midpoint (a 50% retracement); target: pole top +/- pole length. A recognised
 * flag that reaches 21 bars without a breakout or failure is dropped. Geometry: 0.4 x clamp(pole / 8 ATR)
 * + 0.4 x (1 - retracement / half the pole) + 0.2 x brevity (1 at 3 flag bars, 0 at 20). Volume: flag
 * against pole.
 *
 * Registered as `flagDetector` (patterns/registry.ts): a bull flag from each confirmed pivot low, a bear
 * flag from each confirmed pivot high.
 */
import type { PatternStatus } from '../document.js';
import { atrAt, type Pivot } from '../pivots.js';
import { afterBreakout, FAILED_KEEP_BARS } from './lifecycle.js';
import { pushCandidate, type KeyPoint, type PivotDetector, type Scan } from './scan.js';
import { clamp01 } from './numbers.js';
import { contractionScore, meanVolume, trendScore, volumePart } from './scoring.js';

const { max } = Math;

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
  pushCandidate(scan, {
    type: sign > 0 ? 'BULL_FLAG' : 'BEAR_FLAG',
    keys,
    life: { status: finalStatus, sign, breakIdx, breakout: top, target, invalidation },
    parts: { geometry, volume: volumePart(scan, pre, breakIdx), trend: trendScore(scan, poleStart, a, sign) },
  });
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

export const flagDetector: PivotDetector = {
  kind: 'pivot',
  name: 'flag',
  scan: (scan: Scan, pivot: Pivot): void => scanFlag(scan, pivot.index, pivot.kind === 'low' ? 1 : -1),
};
