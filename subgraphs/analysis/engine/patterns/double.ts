/**
 * DOUBLE_TOP / DOUBLE_BOTTOM: three consecutive pivots peak, trough, peak (or trough, peak, trough); the two
 * extremes within 1 ATR of each other, at least 10 bars apart, height (mean extreme to the middle pivot)
 * >= 2 ATR. Breakout level: the middle pivot (neckline); invalidation: the more extreme of the two peaks
 * (troughs); target: neckline -/+ height. Geometry: 0.6 x (1 - difference / 1 ATR) + 0.4 x
 * clamp(height / 6 ATR). Volume before confirmation: volume around the second extreme (+-2 bars) against
 * the first.
 *
 * Registered as `doubleDetector` (patterns/registry.ts).
 */
import { atrAt, type Pivot } from '../pivots.js';
import { lineLifecycle } from './lifecycle.js';
import { MIN_HEIGHT_ATR, MIN_WAIT, pushCandidate, type KeyPoint, type Scan, type SequenceDetector } from './scan.js';
import { clamp01 } from './numbers.js';
import { contractionScore, trendScore, volumeAround, volumePart } from './scoring.js';

const { abs, max, min } = Math;

const DOUBLE_TOL_ATR = 1;
const DOUBLE_MIN_BARS = 10;
const DOUBLE_FULL_HEIGHT_ATR = 6;

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
    pushCandidate(scan, {
      type: top ? 'DOUBLE_TOP' : 'DOUBLE_BOTTOM',
      keys,
      life,
      parts: { geometry, volume: volumePart(scan, pre, life.breakIdx), trend: trendScore(scan, p1.index, a, -sign) },
    });
  }
}

export const doubleDetector: SequenceDetector = { kind: 'sequence', name: 'double', scan: scanDoubles };
