/**
 * RANGE_BREAKOUT: >= 4 consecutive pivots spanning >= 20 bars whose highs lie within 1 ATR of each other
 * and whose lows lie within 1 ATR of each other (the longest such run from each starting pivot), height
 * (highest high - lowest low) >= 2 ATR. Two-sided: a close above the top is bullish, below the bottom
 * bearish; after the break a close back through the range's midpoint fails it. Target: broken edge +/-
 * height. Geometry: mean of touches clamp((pivots - 3) / 3), flatness (1 - mean edge spread / 1 ATR) and
 * duration clamp(bars / 60). Volume: second half against the first half.
 *
 * Registered as `rangeBreakoutDetector` (patterns/registry.ts).
 */
import { atrAt, type Pivot } from '../pivots.js';
import { lineLifecycle } from './lifecycle.js';
import { MIN_HEIGHT_ATR, MIN_WAIT, pushCandidate, type KeyPoint, type Scan, type SequenceDetector } from './scan.js';
import { clamp01 } from './numbers.js';
import { contractionScore, meanVolume, priorMove, trendScore, volumePart } from './scoring.js';

const { max, min } = Math;

const RANGE_MIN_PIVOTS = 4;
const RANGE_MIN_BARS = 20;
const RANGE_FULL_BARS = 60;
const RANGE_TOL_ATR = 1;

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
    pushCandidate(scan, {
      type: 'RANGE_BREAKOUT',
      keys,
      life,
      parts: { geometry, volume: volumePart(scan, pre, life.breakIdx), trend: trendScore(scan, first, a, life.sign) },
    });
  }
}

export const rangeBreakoutDetector: SequenceDetector = { kind: 'sequence', name: 'range-breakout', scan: scanRanges };
