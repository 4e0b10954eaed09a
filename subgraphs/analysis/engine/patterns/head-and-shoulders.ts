/**
 * HEAD_AND_SHOULDERS / INVERSE_HEAD_AND_SHOULDERS: five consecutive pivots shoulder, neck, head, neck,
 * shoulder; the head beyond both shoulders by >= 0.5 ATR, shoulders within 1.5 ATR of each other, the two
 * neck pivots differing by at most half the height, the time from each shoulder to the head in a ratio of
 * at most 3, width >= 15 bars, height (head to the neckline at the head's bar) >= 2 ATR. The neckline is the
 * line through the two neck pivots; breakout level: the neckline at the confirming bar (at `end` while
 * forming); invalidation: the head; target: breakout level -/+ height. Geometry: mean of shoulder equality
 * (1 - difference / 1.5 ATR), head prominence clamp(excess / 2 ATR), neckline flatness (1 - neck difference
 * / half the height) and time symmetry (shorter / longer shoulder-to-head time). Volume: right shoulder
 * against left shoulder.
 *
 * Registered as `headAndShouldersDetector` (patterns/registry.ts).
 */
import { atrAt, type Pivot } from '../pivots.js';
import { lineLifecycle } from './lifecycle.js';
import { MIN_HEIGHT_ATR, MIN_WAIT, pushCandidate, type KeyPoint, type Scan, type SequenceDetector } from './scan.js';
import { clamp01 } from './numbers.js';
import { contractionScore, trendScore, volumeAround, volumePart } from './scoring.js';

const { abs, max, min } = Math;

const HS_HEAD_MIN_ATR = 0.5;
const HS_HEAD_FULL_ATR = 2;
const HS_SHOULDER_TOL_ATR = 1.5;
const HS_NECK_MAX_FRACTION = 0.5;
const HS_MAX_TIME_RATIO = 3;
const HS_MIN_BARS = 15;

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
    pushCandidate(scan, {
      type: top ? 'HEAD_AND_SHOULDERS' : 'INVERSE_HEAD_AND_SHOULDERS',
      keys,
      life,
      parts: { geometry, volume: volumePart(scan, pre, life.breakIdx), trend: trendScore(scan, ls.index, a, -sign) },
    });
  }
}

export const headAndShouldersDetector: SequenceDetector = { kind: 'sequence', name: 'head-and-shoulders', scan: scanHeadAndShoulders };
