import type { PriceLevel } from '../../../subgraphs/analysis/engine/document.js';
import { supportResistance } from '../../../subgraphs/analysis/engine/levels.js';
import type { PriceInput } from '../../../subgraphs/analysis/engine/pivots.js';
import { pathFromWaypoints, randomWalk, truncate } from './price-paths.js';

/** Exact path: no noise and no wicks, so pivot prices are the waypoint prices. */
function exactPath(points: [number, number][]): PriceInput {
  return pathFromWaypoints(
    points.map(([bar, price]) => ({ bar, price })),
    { noise: 0, wick: 0 },
  );
}

/**
 * Three highs at 100, 100.2 and 99.9 (bars 10, 28, 47); lows 90 (bar 0), 92 (18), 91 (37), 93.5 (53);
 * last close 97. ATR ~0.9, so the default 0.5-ATR tolerance is ~0.45.
 */
const THREE_TOUCHES: [number, number][] = [
  [0, 90],
  [10, 100],
  [18, 92],
  [28, 100.2],
  [37, 91],
  [47, 99.9],
  [53, 93.5],
  [57, 97],
];

const prices = (levels: PriceLevel[]): number[] => levels.map((l) => l.price);

describe('supportResistance', () => {
  const input = exactPath(THREE_TOUCHES);
  const end = input.close.length - 1;

  it('clusters touches within the ATR tolerance into one level and counts them', () => {
    expect(input.atr[end]).toBeGreaterThan(0.7);
    expect(input.atr[end]).toBeLessThan(1.1);
    const { support, resistance } = supportResistance(input, end);
    expect(resistance).toHaveLength(1);
    const r = resistance[0];
    expect(r.touches).toBe(3);
    expect(r.price).toBeCloseTo((100 + 100.2 + 99.9) / 3, 9);
    expect(r.first_touch_date).toBe(input.dates[10]);
    expect(r.last_touch_date).toBe(input.dates[47]);
    // Lows one ATR or more apart stay separate, one touch each, nearest first.
    expect(prices(support)).toEqual([93.5, 92, 91, 90]);
    expect(support.every((l) => l.touches === 1)).toBe(true);
  });

  it('the tolerance sets the cluster width: tolerance x ATR from the lowest touch of the cluster', () => {
    const atr = input.atr[end];
    // 99.9, 100, 100.2: a width of 0.28 keeps 100.2 out, 0.32 takes it in.
    const narrow = supportResistance(input, end, { tolerance: 0.28 / atr });
    expect(narrow.resistance.map((l) => [l.touches, l.price])).toEqual([
      [2, (99.9 + 100) / 2],
      [1, 100.2],
    ]);
    const just = supportResistance(input, end, { tolerance: 0.32 / atr });
    expect(just.resistance.map((l) => l.touches)).toEqual([3]);
  });

  it('a very narrow or very wide tolerance splits or merges levels', () => {
    const tight = supportResistance(input, end, { tolerance: 0.1 });
    expect(tight.resistance.length).toBeGreaterThanOrEqual(2);
    expect(tight.resistance.every((l) => l.touches < 3)).toBe(true);
    const wide = supportResistance(input, end, { tolerance: 5 });
    expect(wide.support).toHaveLength(1);
    expect(wide.support[0].touches).toBe(4);
    expect(wide.support[0].price).toBeCloseTo((90 + 92 + 91 + 93.5) / 4, 9);
    expect(wide.support[0].first_touch_date).toBe(input.dates[0]);
    expect(wide.support[0].last_touch_date).toBe(input.dates[53]);
  });

  it('ranks by touches and recency: strength = (1 - 0.5^touches) x (0.5 + 0.5 x recency)', () => {
    const { support, resistance } = supportResistance(input, end);
    const strength = (touches: number, lastBar: number): number =>
      (1 - 0.5 ** touches) * (0.5 + 0.5 * (1 - (end - lastBar) / (end + 1)));
    expect(resistance[0].strength).toBeCloseTo(strength(3, 47), 5);
    const byPrice = new Map(support.map((l) => [l.price, l.strength]));
    expect(byPrice.get(93.5)).toBeCloseTo(strength(1, 53), 5);
    // More touches beat fewer; among single touches the more recent is stronger.
    for (const l of support) expect(resistance[0].strength).toBeGreaterThan(l.strength);
    expect(byPrice.get(93.5)!).toBeGreaterThan(byPrice.get(91)!);
    expect(byPrice.get(91)!).toBeGreaterThan(byPrice.get(92)!);
    expect(byPrice.get(92)!).toBeGreaterThan(byPrice.get(90)!);
    for (const l of [...support, ...resistance]) {
      expect(l.strength).toBeGreaterThan(0);
      expect(l.strength).toBeLessThanOrEqual(1);
    }
  });

  it('keeps the maxLevels strongest per side, still sorted nearest first', () => {
    const { support, resistance } = supportResistance(input, end, { maxLevels: 2 });
    // The two most recent single-touch lows (53 and 37) outrank the older ones.
    expect(prices(support)).toEqual([93.5, 91]);
    expect(resistance).toHaveLength(1);
    expect(supportResistance(input, end, { maxLevels: 0 })).toEqual({ support: [], resistance: [] });
  });

  it('assigns sides by the last close: a broken resistance becomes support', () => {
    const broken = exactPath([
      [0, 90],
      [10, 100],
      [20, 92],
      [30, 100.2],
      [40, 93],
      [55, 110],
      [62, 104],
      [66, 107],
    ]);
    const last = broken.close.length - 1;
    const { support, resistance } = supportResistance(broken, last);
    const hundred = support.find((l) => Math.abs(l.price - 100.1) < 0.2);
    expect(hundred?.touches).toBe(2);
    expect(prices(resistance)).toEqual([110]);
    expect(support.every((l) => l.price <= broken.close[last])).toBe(true);
  });

  it('on random walks: sides, order, at most 5 per side by default, strongest kept', () => {
    for (const seed of [3, 4, 5]) {
      const walk = randomWalk(400, seed);
      for (const e of [260, 330, 399]) {
        const close = walk.close[e];
        const { support, resistance } = supportResistance(walk, e);
        expect(support.length).toBeLessThanOrEqual(5);
        expect(resistance.length).toBeLessThanOrEqual(5);
        expect(support.length + resistance.length).toBeGreaterThan(0);
        for (const l of support) expect(l.price).toBeLessThanOrEqual(close);
        for (const l of resistance) expect(l.price).toBeGreaterThan(close);
        for (let i = 1; i < support.length; i++) expect(support[i].price).toBeLessThan(support[i - 1].price);
        for (let i = 1; i < resistance.length; i++) expect(resistance[i].price).toBeGreaterThan(resistance[i - 1].price);
        for (const l of [...support, ...resistance]) {
          expect(l.first_touch_date <= l.last_touch_date).toBe(true);
          expect(walk.dates.slice(e - 249, e + 1)).toContain(l.first_touch_date);
        }
        // The kept levels are the strongest of the full list.
        const all = supportResistance(walk, e, { maxLevels: 1000 });
        const weakestKept = Math.min(...support.map((l) => l.strength));
        const dropped = all.support.filter((l) => !support.some((k) => k.price === l.price));
        for (const l of dropped) expect(l.strength).toBeLessThanOrEqual(weakestKept);
      }
    }
  });

  it('uses no bar after `end`', () => {
    const walk = randomWalk(400, 9);
    for (const e of [300, 350]) {
      const expected = supportResistance(walk, e);
      expect(supportResistance(truncate(walk, e + 1), e)).toEqual(expected);
      const future = (a: Float64Array, f: number): Float64Array => a.map((x, i) => (i > e ? x * f : x));
      const altered: PriceInput = {
        ...walk,
        high: future(walk.high, 1.5),
        low: future(walk.low, 0.5),
        close: future(walk.close, 0.8),
        atr: future(walk.atr, 4),
      };
      expect(supportResistance(altered, e)).toEqual(expected);
    }
  });
});
