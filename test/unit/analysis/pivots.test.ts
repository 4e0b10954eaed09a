import { FALLBACK_ATR_FRACTION, atrAt, zigZag, type Pivot, type PriceInput } from '../../../subgraphs/analysis/engine/pivots.js';
import { weekdays } from '../../helpers/dates.js';
import { randomWalk } from './price-paths.js';

/** Bars with the given highs and lows, close at the midpoint, ATR constant (or NaN). */
function bars(highs: number[], lows: number[], atrValue: number): PriceInput {
  const n = highs.length;
  const close = Float64Array.from(highs, (h, i) => (h + lows[i]) / 2);
  return {
    dates: weekdays(n),
    open: close.slice(),
    high: Float64Array.from(highs),
    low: Float64Array.from(lows),
    close,
    volume: new Float64Array(n).fill(1000),
    atr: new Float64Array(n).fill(atrValue),
  };
}

const short = (p: Pivot[]): string[] => p.map((x) => `${x.kind}@${x.index}:${x.price}`);

// Up 99 -> 104 (bar 4), down to 101 (bar 6), up to 104.5 (bar 8). ATR 1.
const HIGHS = [100, 101, 102, 103, 104, 103, 102, 103, 104.5];
const LOWS = [99, 100, 101, 102, 103, 102, 101, 102, 103];

describe('zigZag', () => {
  it('confirms a reversal only once price moves atrMultiple x ATR against the running extreme', () => {
    const input = bars(HIGHS, LOWS, 1);
    // 2 ATR: the 104 -> 101 dip (3) confirms the high at bar 4 (low 102 at bar 5 is 2 below it).
    expect(short(zigZag(input, 0, 8, 2))).toEqual(['low@0:99', 'high@4:104', 'low@6:101', 'high@8:104.5']);
    // 3 ATR: still confirmed (104 - 101 = 3), at bar 6 instead of bar 5.
    expect(short(zigZag(input, 0, 8, 3))).toEqual(['low@0:99', 'high@4:104', 'low@6:101', 'high@8:104.5']);
    // 3.5 ATR: the dip is too small, the swing is one up-move and the new high at bar 8 is the running extreme.
    expect(short(zigZag(input, 0, 8, 3.5))).toEqual(['low@0:99', 'high@8:104.5']);
    // 10 ATR: no reversal at all, so no pivot.
    expect(zigZag(input, 0, 8, 10)).toEqual([]);
  });

  it('returns the running extreme as the provisional last pivot', () => {
    const input = bars(HIGHS, LOWS, 1);
    // Ending at bar 5: the high at bar 4 is confirmed by the low of bar 5; the running low is bar 5 itself.
    expect(short(zigZag(input, 0, 5, 2))).toEqual(['low@0:99', 'high@4:104', 'low@5:102']);
    // Ending at bar 4: no reversal yet past the first one; the running high (bar 4) is provisional.
    expect(short(zigZag(input, 0, 4, 2))).toEqual(['low@0:99', 'high@4:104']);
    // Ending at bar 7: the low at bar 6 is confirmed by bar 7's high (103 - 101 = 2), bar 7 is the running high.
    expect(short(zigZag(input, 0, 7, 2))).toEqual(['low@0:99', 'high@4:104', 'low@6:101', 'high@7:103']);
  });

  it('falls back to 2% of the close where the ATR is NaN', () => {
    const withNaN = bars(HIGHS, LOWS, NaN);
    expect(atrAt(withNaN, 4)).toBeCloseTo(FALLBACK_ATR_FRACTION * withNaN.close[4], 12);
    const explicit = { ...withNaN, atr: withNaN.close.map((c) => FALLBACK_ATR_FRACTION * c) };
    for (const m of [0.5, 0.9, 1, 1.2, 2]) expect(zigZag(withNaN, 0, 8, m)).toEqual(zigZag(explicit, 0, 8, m));
    // 0.9 x 2% x ~103.5 = 1.86 <= the 2-point dip: confirmed; 1.5 x 2% x ~103.5 = 3.1 > 3: not.
    expect(zigZag(withNaN, 0, 8, 0.9).length).toBe(4);
    expect(zigZag(withNaN, 0, 8, 1.5).length).toBe(2);
  });

  it('alternates kinds, marks swing extremes, and every confirmed swing reaches the threshold (random walk)', () => {
    for (const seed of [1, 2, 3]) {
      const input = randomWalk(500, seed);
      const m = 2;
      const start = 40;
      const end = 480;
      const pivots = zigZag(input, start, end, m);
      expect(pivots.length).toBeGreaterThan(6);
      for (let k = 0; k < pivots.length; k++) {
        const p = pivots[k];
        expect(p.index).toBeGreaterThanOrEqual(start);
        expect(p.index).toBeLessThanOrEqual(end);
        expect(p.price).toBe(p.kind === 'high' ? input.high[p.index] : input.low[p.index]);
        if (k > 0) {
          const q = pivots[k - 1];
          expect(p.kind).not.toBe(q.kind);
          expect(p.index).toBeGreaterThan(q.index);
          // The swing from the previous pivot is at least the threshold at the previous pivot's bar.
          expect(Math.abs(p.price - q.price)).toBeGreaterThanOrEqual(m * atrAt(input, q.index) - 1e-9);
          // p is the extreme of the bars after q up to the next pivot (or to `end` for the last one).
          const to = k + 1 < pivots.length ? pivots[k + 1].index - 1 : end;
          for (let i = q.index + 1; i <= to; i++) {
            if (p.kind === 'high') expect(input.high[i]).toBeLessThanOrEqual(p.price);
            else expect(input.low[i]).toBeGreaterThanOrEqual(p.price);
          }
        }
      }
      // The last pivot is the running extreme: no later bar beyond it.
      const last = pivots[pivots.length - 1];
      for (let i = last.index + 1; i <= end; i++) {
        if (last.kind === 'high') expect(input.high[i]).toBeLessThanOrEqual(last.price);
        else expect(input.low[i]).toBeGreaterThanOrEqual(last.price);
      }
    }
  });

  it('reads only the bars in [start, end]', () => {
    const input = randomWalk(400, 5);
    const start = 100;
    const end = 300;
    const expected = zigZag(input, start, end, 2);
    const scramble = (a: Float64Array, f: number): Float64Array => a.map((x, i) => (i < start || i > end ? x * f : x));
    const altered: PriceInput = {
      ...input,
      high: scramble(input.high, 1.7),
      low: scramble(input.low, 0.4),
      close: scramble(input.close, 1.3),
      atr: scramble(input.atr, 5),
    };
    expect(zigZag(altered, start, end, 2)).toEqual(expected);
  });
});
