/**
 * ASCENDING / DESCENDING / SYMMETRICAL_TRIANGLE: 4 to 6 consecutive pivots spanning >= 15 bars; the
 * least-squares lines through their highs and through their lows (exact for two points) miss no pivot by
 * more than 0.75 ATR, the gap between the lines is positive at the last pivot and at most 0.8 of the gap at
 * the first pivot (converging), and the gap at the first pivot (the height) is >= 2 ATR. Ascending: upper
 * line flat (change <= 0.75 ATR) and lower line rising by >= 1.5 ATR (bullish, breakout above the upper
 * line, invalidation the last pivot low). Descending: the mirror (bearish, invalidation the last pivot
 * high). Symmetrical: upper falling and lower rising by >= 1.5 ATR each (two-sided; after an upside break
 * the invalidation is the last pivot low, after a downside break the last pivot high). Target: breakout
 * level +/- height. Geometry: mean of fit (1 - worst miss / 0.75 ATR), touches clamp((pivots - 3) / 3)
 * and contraction (1 - last gap / first gap). Volume: second half of the pattern against the first half.
 *
 * Registered as `triangleDetector` (patterns/registry.ts).
 */
import type { PatternType } from '../document.js';
import { atrAt, type Pivot } from '../pivots.js';
import { lineLifecycle } from './lifecycle.js';
import { MIN_HEIGHT_ATR, pushCandidate, type KeyPoint, type Scan, type SequenceDetector } from './scan.js';
import { clamp01 } from './numbers.js';
import { contractionScore, meanVolume, priorMove, trendScore, volumePart } from './scoring.js';

const { abs, floor, max, min } = Math;

const TRI_MIN_PIVOTS = 4;
const TRI_MAX_PIVOTS = 6;
const TRI_MIN_BARS = 15;
const TRI_FIT_TOL_ATR = 0.75;
const TRI_FLAT_ATR = 0.75;
const TRI_SLOPE_ATR = 1.5;
const TRI_MAX_CONTRACTION = 0.8;
const TRI_MIN_WAIT = 5;

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
      pushCandidate(scan, {
        type,
        keys,
        life,
        parts: { geometry, volume: volumePart(scan, pre, life.breakIdx), trend: trendScore(scan, x0, a, life.sign) },
      });
    }
  }
}

export const triangleDetector: SequenceDetector = { kind: 'sequence', name: 'triangles', scan: scanTriangles };
