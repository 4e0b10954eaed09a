/**
 * Pattern targets (subgraphs/analysis/engine/evidence/targets.ts): hand-made paths for target first, stop
 * first, a bar touching both, bearish trades, highs and lows against closes, timeouts and incomplete windows;
 * placebo days and their seeded draws.
 */
import { placeboDays, placeboOutcomes, targetOutcome, validDistances, type PathSeries } from '../../../../subgraphs/analysis/engine/evidence/targets.js';
import { createPrng } from '../../../../subgraphs/analysis/engine/prng.js';

function path(close: number[], high?: number[], low?: number[]): PathSeries {
  return { symbol: 'X', dates: close.map((_, t) => `T${String(t).padStart(3, '0')}`), close, high, low };
}

describe('targetOutcome', () => {
  it('decides by the first bar touching a level, on closes when there are no highs and lows', () => {
    // Entry 100, target +10% (110), stop -5% (95).
    expect(targetOutcome(path([100, 104, 109, 111, 90]), 0, 0.1, -0.05, 4)).toBe('target');
    expect(targetOutcome(path([100, 98, 95, 111, 112]), 0, 0.1, -0.05, 4)).toBe('stop');
    expect(targetOutcome(path([100, 101, 102, 103, 104]), 0, 0.1, -0.05, 4)).toBe('timeout');
    // The target is exactly reached (>=), and the window ends where it says.
    expect(targetOutcome(path([100, 100, 110.00000000000001, 100]), 0, 0.1, -0.05, 2)).toBe('target');
    expect(targetOutcome(path([100, 100, 100, 120]), 0, 0.1, -0.05, 2)).toBe('timeout');
  });

  it('uses highs for levels above and lows for levels below, and counts a bar touching both as the stop', () => {
    const closes = [100, 101, 102, 103];
    expect(targetOutcome(path(closes, [100, 110.5, 103, 104], [100, 99, 100, 101]), 0, 0.1, -0.05, 3)).toBe('target');
    expect(targetOutcome(path(closes, [100, 102, 103, 104], [100, 94, 100, 101]), 0, 0.1, -0.05, 3)).toBe('stop');
    expect(targetOutcome(path(closes, [100, 111, 103, 104], [100, 94, 100, 101]), 0, 0.1, -0.05, 3)).toBe('stop');
  });

  it('handles bearish trades (target below, stop above)', () => {
    expect(targetOutcome(path([50, 48, 46, 44.9]), 0, -0.1, 0.04, 3)).toBe('target'); // 45 reached on the 3rd bar
    expect(targetOutcome(path([50, 51, 52.1, 40]), 0, -0.1, 0.04, 3)).toBe('stop'); // 52 first
    expect(targetOutcome(path([50, 49, 50, 51], [50, 52, 50, 51], [50, 44, 50, 51]), 0, -0.1, 0.04, 3)).toBe('stop');
  });

  it('starts at any bar and gives no outcome without a full window, a usable entry or opposite distances', () => {
    const p = path([100, 100, 200, 210, 230, 100]);
    expect(targetOutcome(p, 2, 0.1, -0.1, 2)).toBe('target'); // entry 200: 220 reached on bar 4
    expect(targetOutcome(p, 2, 0.1, -0.1, 3)).toBe('target');
    expect(targetOutcome(p, 3, 0.1, -0.1, 3)).toBeNull(); // bars 4..6 needed, 5 is the last
    expect(targetOutcome(path([0, 1, 2]), 0, 0.1, -0.1, 2)).toBeNull();
    expect(targetOutcome(p, 0, 0.1, 0.05, 2)).toBeNull();
    expect(targetOutcome(p, -1, 0.1, -0.05, 2)).toBeNull();
    expect(validDistances(0.1, -0.05)).toBe(true);
    expect(validDistances(-0.1, 0.05)).toBe(true);
    expect(validDistances(0, -0.05)).toBe(false);
    expect(validDistances(0.1, -1)).toBe(false);
    expect(validDistances(NaN, -0.05)).toBe(false);
  });

  it('ignores bars whose values are not finite', () => {
    expect(targetOutcome(path([100, NaN, 111]), 0, 0.1, -0.05, 2)).toBe('target');
  });
});

describe('placebo', () => {
  const p = path(Array.from({ length: 30 }, (_, t) => (t === 4 ? NaN : 100 + Math.sin(t) * 8)));

  it('draws only days with a usable close and a full window after them', () => {
    const days = Array.from(placeboDays(p, 10));
    expect(days).toEqual([0, 1, 2, 3, ...Array.from({ length: 15 }, (_, k) => 5 + k)]);
    expect(placeboDays(p, 30).length).toBe(0);
  });

  it('is reproducible for a seed and gives no outcome without eligible days', () => {
    const days = placeboDays(p, 10);
    const a = placeboOutcomes(p, days, 0.05, -0.05, 10, 50, createPrng(4, 1));
    const b = placeboOutcomes(p, days, 0.05, -0.05, 10, 50, createPrng(4, 1));
    expect(a).toEqual(b);
    expect(a).toHaveLength(50);
    expect(new Set(a).size).toBeGreaterThan(1);
    expect(placeboOutcomes(p, new Int32Array(0), 0.05, -0.05, 10, 50, createPrng(4, 1))).toEqual([]);
  });
});
