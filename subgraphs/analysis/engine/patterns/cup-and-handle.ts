/**
 * CUP_AND_HANDLE (bullish): scanned bar by bar from each confirmed pivot high (the left rim): the cup
 * bottom is the lowest low until price comes back within 1.5 ATR of the left rim, at least 20 and at most
 * 200 bars after it, with depth >= 3 ATR and <= 50% of the rim price (never exceeding the rim by more than
 * 1.5 ATR). The right rim is the running highest high from then on; the handle is the >= 3 (<= 25) bars
 * after it without a new high, retracing (by closes) >= 0.5 ATR and <= 50% of the cup depth. The cup
 * must be round: >= 40% of its bars close in the lower third of its depth (a straight V has 33%).
 * Breakout: a close above the right rim (an intrabar poke above it without such a close stays part of a
 * valid handle); invalidation: the cup's midpoint (right rim - half the depth); target: right rim + depth
 * (right rim minus bottom). Geometry: mean of rim equality (1 - difference / 1.5 ATR), roundness
 * clamp((fraction - 0.3) / 0.3) and handle shallowness (1 - handle depth / half the cup depth). Volume:
 * handle against the right half of the cup.
 *
 * Registered as `cupAndHandleDetector` (patterns/registry.ts): scanned from each confirmed pivot high.
 */
import type { PatternStatus } from '../document.js';
import { atrAt, type Pivot } from '../pivots.js';
import { afterBreakout, FAILED_KEEP_BARS } from './lifecycle.js';
import { pushCandidate, type KeyPoint, type PivotDetector, type Scan } from './scan.js';
import { clamp01 } from './numbers.js';
import { contractionScore, meanVolume, trendScore, volumePart } from './scoring.js';

const { abs, min } = Math;

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

/** Scans a cup and handle from the confirmed pivot high at bar `l` (the left rim); pushes at most one candidate. */
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
    pushCandidate(scan, {
      type: 'CUP_AND_HANDLE',
      keys,
      life: { status: finalStatus, sign: 1, breakIdx, breakout: rr, target, invalidation },
      parts: { geometry, volume: volumePart(scan, pre, breakIdx), trend: trendScore(scan, l, a, 1) },
    });
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

export const cupAndHandleDetector: PivotDetector = {
  kind: 'pivot',
  name: 'cup-and-handle',
  scan: (scan: Scan, pivot: Pivot): void => {
    if (pivot.kind === 'high') scanCup(scan, pivot.index);
  },
};
