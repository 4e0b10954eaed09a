import type { PatternEntry, PatternStatus, PatternType } from '../../../subgraphs/analysis/engine/document.js';
import { PATTERN_STATUSES, PATTERN_TYPES } from '../../../subgraphs/analysis/engine/document.js';
import {
  MAX_PATTERNS,
  PATTERN_SIGNAL_THRESHOLD,
  bestPattern,
  detectPatterns,
  summarizePatterns,
} from '../../../subgraphs/analysis/engine/patterns.js';
import type { PriceInput } from '../../../subgraphs/analysis/engine/pivots.js';
import { pathFromWaypoints, randomWalk, truncate, type Waypoint } from './price-paths.js';

/** [bar, price] or [bar, price, volume of the segment ending here]. */
type Wp = [number, number] | [number, number, number];

function path(points: Wp[]): PriceInput {
  return pathFromWaypoints(points.map(([bar, price, volume]): Waypoint => ({ bar, price, volume })));
}

function ofType(patterns: PatternEntry[], type: PatternType): PatternEntry[] {
  return patterns.filter((p) => p.type === type);
}

/** The single detection of `type` at bar `end` (fails unless exactly one). */
function one(input: PriceInput, end: number, type: PatternType): PatternEntry {
  const found = ofType(detectPatterns(input, end), type);
  expect(found.map((p) => `${p.type}/${p.status}`)).toHaveLength(1);
  checkEntry(found[0], input, end);
  return found[0];
}

/** `type` is never detected at any bar from `from` to the end of the path. */
function neverDetected(input: PriceInput, types: PatternType[], from = 20): void {
  for (let end = from; end < input.close.length; end++) {
    const hits = detectPatterns(input, end).filter((p) => types.includes(p.type));
    expect(hits.map((p) => `${end}: ${p.type}/${p.status}`)).toEqual([]);
  }
}

function point(p: PatternEntry, label: string): { date: string; price: number } {
  const k = p.key_points.find((x) => x.label === label);
  if (!k) throw new Error(`no key point ${label} in ${p.key_points.map((x) => x.label).join(',')}`);
  return k;
}

const FIXED_DIRECTION: Partial<Record<PatternType, 'bullish' | 'bearish'>> = {
  DOUBLE_TOP: 'bearish',
  DOUBLE_BOTTOM: 'bullish',
  HEAD_AND_SHOULDERS: 'bearish',
  INVERSE_HEAD_AND_SHOULDERS: 'bullish',
  ASCENDING_TRIANGLE: 'bullish',
  DESCENDING_TRIANGLE: 'bearish',
  BULL_FLAG: 'bullish',
  BEAR_FLAG: 'bearish',
  CUP_AND_HANDLE: 'bullish',
};

/** Structural invariants every entry must satisfy at bar `end`. */
function checkEntry(p: PatternEntry, input: PriceInput, end: number): void {
  const dates = input.dates.slice(0, end + 1);
  expect(PATTERN_TYPES).toContain(p.type);
  expect(PATTERN_STATUSES).toContain(p.status);
  const fixed = FIXED_DIRECTION[p.type];
  if (fixed) expect(p.direction).toBe(fixed);
  expect(dates).toContain(p.start_date);
  expect(dates).toContain(p.end_date);
  expect(p.start_date <= p.end_date).toBe(true);
  for (const k of p.key_points) {
    expect(dates).toContain(k.date);
    expect(k.date >= p.start_date && k.date <= p.end_date).toBe(true);
    expect(Number.isFinite(k.price)).toBe(true);
  }
  expect(p.key_points[0].date).toBe(p.start_date);
  const hasBreakout = p.key_points.some((k) => k.label === 'breakout');
  if (p.status === 'forming') expect(hasBreakout).toBe(false);
  if (p.status === 'active' || p.status === 'completed') {
    expect(hasBreakout).toBe(true);
    expect(point(p, 'breakout').date).toBe(p.end_date);
  }
  for (const part of [p.confidence, p.confidence_parts.geometry, p.confidence_parts.volume, p.confidence_parts.trend]) {
    expect(part).toBeGreaterThanOrEqual(0);
    expect(part).toBeLessThanOrEqual(1);
  }
  const { geometry, volume, trend } = p.confidence_parts;
  expect(p.confidence).toBeCloseTo(0.5 * geometry + 0.25 * volume + 0.25 * trend, 3);
  expect(Number.isFinite(p.breakout_level)).toBe(true);
  expect(Number.isFinite(p.invalidation_level)).toBe(true);
  expect(p.price_target).not.toBeNull();
  const target = p.price_target as number;
  const breakout = p.breakout_level as number;
  // Target beyond the breakout level in the pattern's direction; invalidation on the other side.
  if (p.direction === 'bullish') {
    expect(target).toBeGreaterThan(breakout);
    expect(p.invalidation_level as number).toBeLessThan(breakout);
  } else {
    expect(target).toBeLessThan(breakout);
    expect(p.invalidation_level as number).toBeGreaterThan(breakout);
  }
}

/** Least-squares line through (bar index, price) points. */
function fit(points: { x: number; y: number }[]): { at: (x: number) => number } {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  const slope = sxx > 0 ? points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx : 0;
  return { at: (x) => my + slope * (x - mx) };
}

/** Height of a triangle from its key points: gap between the fitted lines at the first key point. */
function triangleHeight(p: PatternEntry, input: PriceInput): number {
  const idx = (d: string): number => input.dates.indexOf(d);
  const upper = p.key_points.filter((k) => k.label.startsWith('upper_')).map((k) => ({ x: idx(k.date), y: k.price }));
  const lower = p.key_points.filter((k) => k.label.startsWith('lower_')).map((k) => ({ x: idx(k.date), y: k.price }));
  const x0 = idx(p.start_date);
  return fit(upper).at(x0) - fit(lower).at(x0);
}

// --------------------------------------------------------------------------------------------------------
// Paths. Prices in the comments are the waypoints; wicks add ~0.2-0.4 to highs and lows, ATR is ~1-1.6.

/** Uptrend 80 -> 100, trough 90, second peak 100, then down through the 90 neckline to 78. */
const DOUBLE_TOP: Wp[] = [[0, 80], [40, 100], [55, 90], [70, 100], [85, 88], [100, 78]];
const DOUBLE_BOTTOM: Wp[] = [[0, 120], [40, 100], [55, 110], [70, 100], [85, 112], [100, 122]];
/** Shoulders 92, head 100, neckline 85; breaks down after bar 86. */
const HEAD_AND_SHOULDERS: Wp[] = [[0, 70], [30, 92], [40, 85], [52, 100], [64, 85], [76, 92], [100, 80]];
/** Shoulders 108, head 100, neckline 115; breaks out after bar 84 and reaches ~134. */
const INVERSE_HS: Wp[] = [[0, 130], [30, 108], [40, 115], [52, 100], [64, 115], [76, 108], [95, 125], [105, 134]];
/** Flat top 100, lows 88, 92, 95; breaks out after bar 88. */
const ASCENDING: Wp[] = [[0, 80], [20, 100], [35, 88], [50, 100], [62, 92], [74, 100], [84, 95], [95, 108]];
const DESCENDING: Wp[] = [[0, 120], [20, 100], [35, 112], [50, 100], [62, 108], [74, 100], [84, 105], [95, 92]];
/** Highs 100, 97, 94; lows 84, 87, 89.5 after an uptrend. */
const SYMMETRICAL_UP: Wp[] = [[0, 80], [20, 100], [35, 84], [50, 97], [63, 87], [75, 94], [86, 89.5], [100, 102]];
const SYMMETRICAL_DOWN: Wp[] = [[0, 80], [20, 100], [35, 84], [50, 97], [63, 87], [75, 94], [86, 89.5], [100, 78]];
/** Base ~61, pole to 80 by bar 35 on heavy volume, flag down to 76 on light volume, breakout, target ~98. */
const BULL_FLAG: Wp[] = [[0, 60], [20, 62], [35, 80, 2_000_000], [45, 76, 600_000], [55, 92, 2_500_000], [65, 102]];
const BULL_FLAG_FAILS: Wp[] = [[0, 60], [20, 62], [35, 80], [45, 76], [55, 68]];
const BEAR_FLAG: Wp[] = [[0, 120], [20, 118], [35, 100, 2_000_000], [45, 104, 600_000], [55, 88, 2_500_000]];
/** Left rim 100, round bottom 82 (bars 45-65), right rim 100 at bar 80, handle to 96, breakout. */
const CUP: Wp[] = [[0, 70], [30, 100], [45, 82], [65, 82], [80, 100], [88, 96], [100, 112]];
/** Range 90-100 (four touches each side) from bar 0 to 70, higher low 94, upside break to 108, then 113. */
const RANGE: Wp[] = [[0, 90], [10, 100], [20, 90], [30, 100], [40, 90], [50, 100], [60, 90], [70, 100]];
const RANGE_UP: Wp[] = [...RANGE, [80, 94], [95, 108], [105, 113]];
const RANGE_DOWN: Wp[] = [...RANGE, [80, 95], [95, 82]];

describe('detectPatterns: each pattern type on a path that contains it', () => {
  it('DOUBLE_TOP: forming after the second peak, active after the neckline break, completed at the target', () => {
    const input = path(DOUBLE_TOP);
    const forming = one(input, 78, 'DOUBLE_TOP');
    expect(forming.status).toBe('forming');
    expect(forming.direction).toBe('bearish');
    const active = one(input, 86, 'DOUBLE_TOP');
    expect(active.status).toBe('active');
    const p1 = point(active, 'first_peak').price;
    const p2 = point(active, 'second_peak').price;
    const neck = point(active, 'neckline').price;
    expect(active.breakout_level).toBeCloseTo(neck, 9);
    // Measured move: neckline minus the height from the mean peak, ~ 90 - (100 - 90) = 80.
    expect(active.price_target).toBeCloseTo(neck - ((p1 + p2) / 2 - neck), 9);
    expect(Math.abs((active.price_target as number) - 80)).toBeLessThan(1.5);
    expect(active.invalidation_level).toBeCloseTo(Math.max(p1, p2), 9);
    // Peaks on the waypoint bar or the next one (its open is the waypoint close).
    expect([input.dates[40], input.dates[41]]).toContain(active.start_date);
    expect([input.dates[70], input.dates[71]]).toContain(point(active, 'second_peak').date);
    // Reversal after a strong uptrend: full trend score.
    expect(active.confidence_parts.trend).toBeGreaterThan(0.9);
    expect(one(input, 100, 'DOUBLE_TOP').status).toBe('completed');
  });

  it('DOUBLE_TOP: failed when a close rises above the peaks', () => {
    const input = path([[0, 80], [40, 100], [55, 90], [70, 100], [80, 95], [90, 106]]);
    expect(one(input, 80, 'DOUBLE_TOP').status).toBe('forming');
    const failed = one(input, 90, 'DOUBLE_TOP');
    expect(failed.status).toBe('failed');
    expect(input.close[90]).toBeGreaterThan(failed.invalidation_level as number);
    // A failure is reported for 20 bars after the failing close, then dropped.
    const longer = path([[0, 80], [40, 100], [55, 90], [70, 100], [80, 95], [90, 106], [130, 112]]);
    const failBar = longer.close.findIndex((c, i) => i > 70 && c > (failed.invalidation_level as number));
    expect(failBar).toBeGreaterThan(80);
    expect(one(longer, failBar + 20, 'DOUBLE_TOP').status).toBe('failed');
    expect(ofType(detectPatterns(longer, failBar + 21), 'DOUBLE_TOP')).toEqual([]);
  });

  it('DOUBLE_BOTTOM: active after the neckline break, target neckline + height', () => {
    const input = path(DOUBLE_BOTTOM);
    expect(one(input, 78, 'DOUBLE_BOTTOM').status).toBe('forming');
    const p = one(input, 90, 'DOUBLE_BOTTOM');
    expect(p.status).toBe('active');
    expect(p.direction).toBe('bullish');
    const t1 = point(p, 'first_trough').price;
    const t2 = point(p, 'second_trough').price;
    const neck = point(p, 'neckline').price;
    expect(p.price_target).toBeCloseTo(neck + (neck - (t1 + t2) / 2), 9);
    expect(Math.abs((p.price_target as number) - 120)).toBeLessThan(1.5);
  });

  it('HEAD_AND_SHOULDERS: forming, then active below the neckline with the measured target', () => {
    const input = path(HEAD_AND_SHOULDERS);
    expect(one(input, 84, 'HEAD_AND_SHOULDERS').status).toBe('forming');
    const p = one(input, 93, 'HEAD_AND_SHOULDERS');
    expect(p.status).toBe('active');
    expect(p.direction).toBe('bearish');
    const labels = ['left_shoulder', 'neckline_left', 'head', 'neckline_right', 'right_shoulder', 'breakout'];
    expect(p.key_points.map((k) => k.label)).toEqual(labels);
    // Neckline through the two neck pivots; target = neckline at the breakout bar - (head - neckline at the head).
    const idx = (d: string): number => input.dates.indexOf(d);
    const n1 = point(p, 'neckline_left');
    const n2 = point(p, 'neckline_right');
    const head = point(p, 'head');
    const slope = (n2.price - n1.price) / (idx(n2.date) - idx(n1.date));
    const neck = (x: number): number => n1.price + slope * (x - idx(n1.date));
    const b = idx(point(p, 'breakout').date);
    expect(p.breakout_level).toBeCloseTo(neck(b), 9);
    expect(p.price_target).toBeCloseTo(neck(b) - (head.price - neck(idx(head.date))), 9);
    expect(Math.abs((p.price_target as number) - 70)).toBeLessThan(1.5);
    expect(p.invalidation_level).toBeCloseTo(head.price, 9);
  });

  it('INVERSE_HEAD_AND_SHOULDERS: forming, active, then completed when the target is reached', () => {
    const input = path(INVERSE_HS);
    expect(one(input, 82, 'INVERSE_HEAD_AND_SHOULDERS').status).toBe('forming');
    const active = one(input, 95, 'INVERSE_HEAD_AND_SHOULDERS');
    expect(active.status).toBe('active');
    expect(active.direction).toBe('bullish');
    // ~ neckline 115 + height 15.
    expect(Math.abs((active.price_target as number) - 130)).toBeLessThan(2);
    const done = one(input, 105, 'INVERSE_HEAD_AND_SHOULDERS');
    expect(done.status).toBe('completed');
    expect(input.close[105]).toBeGreaterThanOrEqual(done.price_target as number);
  });

  it('ASCENDING_TRIANGLE: flat top, rising lows; forming, then active above the top', () => {
    const input = path(ASCENDING);
    expect(one(input, 86, 'ASCENDING_TRIANGLE').status).toBe('forming');
    const p = one(input, 95, 'ASCENDING_TRIANGLE');
    expect(p.status).toBe('active');
    expect(Math.abs((p.breakout_level as number) - 100.3)).toBeLessThan(0.5);
    // Target = breakout level + the triangle's height at its first key point.
    expect(p.price_target).toBeCloseTo((p.breakout_level as number) + triangleHeight(p, input), 6);
    expect(p.price_target as number).toBeGreaterThan(112);
    expect(p.price_target as number).toBeLessThan(118);
  });

  it('DESCENDING_TRIANGLE: flat bottom, falling highs; active below the bottom', () => {
    const input = path(DESCENDING);
    expect(one(input, 86, 'DESCENDING_TRIANGLE').status).toBe('forming');
    const p = one(input, 95, 'DESCENDING_TRIANGLE');
    expect(p.status).toBe('active');
    expect(Math.abs((p.breakout_level as number) - 99.7)).toBeLessThan(0.5);
    expect(p.price_target).toBeCloseTo((p.breakout_level as number) - triangleHeight(p, input), 6);
    expect(p.price_target as number).toBeGreaterThan(82);
    expect(p.price_target as number).toBeLessThan(88);
  });

  it('SYMMETRICAL_TRIANGLE: leans with the prior trend while forming; the break side sets the direction', () => {
    const up = path(SYMMETRICAL_UP);
    const forming = one(up, 86, 'SYMMETRICAL_TRIANGLE');
    expect(forming.status).toBe('forming');
    expect(forming.direction).toBe('bullish');
    const active = one(up, 93, 'SYMMETRICAL_TRIANGLE');
    expect(active.status).toBe('active');
    expect(active.direction).toBe('bullish');
    expect(active.price_target).toBeCloseTo((active.breakout_level as number) + triangleHeight(active, up), 6);
    const down = one(path(SYMMETRICAL_DOWN), 100, 'SYMMETRICAL_TRIANGLE');
    expect(down.status).toBe('active');
    expect(down.direction).toBe('bearish');
    // Breakout on the lower line (~89), target one height (~16) lower.
    expect(down.breakout_level as number).toBeGreaterThan(86);
    expect(down.breakout_level as number).toBeLessThan(91);
    const drop = (down.breakout_level as number) - (down.price_target as number);
    expect(Math.abs(drop - triangleHeight(down, up))).toBeLessThan(1e-6);
  });

  it('BULL_FLAG: forming in the flag, active after the breakout, completed at pole top + pole', () => {
    const input = path(BULL_FLAG);
    const forming = one(input, 42, 'BULL_FLAG');
    expect(forming.status).toBe('forming');
    const active = one(input, 50, 'BULL_FLAG');
    expect(active.status).toBe('active');
    const top = point(active, 'pole_top').price;
    const base = point(active, 'pole_start').price;
    expect(active.breakout_level).toBeCloseTo(top, 9);
    expect(active.price_target).toBeCloseTo(top + (top - base), 9);
    expect(Math.abs((active.price_target as number) - 98)).toBeLessThan(2);
    expect(active.invalidation_level).toBeCloseTo(top - (top - base) / 2, 9);
    // Light volume in the flag and a heavy breakout bar.
    expect(active.confidence_parts.volume).toBeGreaterThan(0.8);
    expect(one(input, 65, 'BULL_FLAG').status).toBe('completed');
  });

  it('BULL_FLAG: volume confirmation raises the volume part', () => {
    const heavyFlag: Wp[] = [[0, 60], [20, 62], [35, 80, 600_000], [45, 76, 2_000_000], [55, 92, 600_000], [65, 102]];
    const good = one(path(BULL_FLAG), 50, 'BULL_FLAG');
    const bad = one(path(heavyFlag), 50, 'BULL_FLAG');
    expect(good.confidence_parts.geometry).toBeCloseTo(bad.confidence_parts.geometry, 2);
    expect(bad.confidence_parts.volume).toBeLessThan(0.3);
    expect(good.confidence).toBeGreaterThan(bad.confidence);
  });

  it('BULL_FLAG: failed when the flag closes below the pole midpoint', () => {
    const input = path(BULL_FLAG_FAILS);
    expect(one(input, 45, 'BULL_FLAG').status).toBe('forming');
    const failed = one(input, 55, 'BULL_FLAG');
    expect(failed.status).toBe('failed');
    expect(input.close[55]).toBeLessThan(failed.invalidation_level as number);
  });

  it('BEAR_FLAG: forming, then active below the pole bottom', () => {
    const input = path(BEAR_FLAG);
    expect(one(input, 42, 'BEAR_FLAG').status).toBe('forming');
    const p = one(input, 50, 'BEAR_FLAG');
    expect(p.status).toBe('active');
    expect(p.direction).toBe('bearish');
    const top = point(p, 'pole_top').price;
    const base = point(p, 'pole_start').price;
    expect(p.price_target).toBeCloseTo(top - (base - top), 9);
    expect(Math.abs((p.price_target as number) - 82)).toBeLessThan(2);
  });

  it('CUP_AND_HANDLE: forming in the handle, active above the right rim', () => {
    const input = path(CUP);
    const forming = one(input, 86, 'CUP_AND_HANDLE');
    expect(forming.status).toBe('forming');
    expect(forming.key_points.map((k) => k.label)).toEqual(['left_rim', 'cup_bottom', 'right_rim', 'handle_low']);
    const p = one(input, 94, 'CUP_AND_HANDLE');
    expect(p.status).toBe('active');
    const rim = point(p, 'right_rim').price;
    const bottom = point(p, 'cup_bottom').price;
    expect(p.breakout_level).toBeCloseTo(rim, 9);
    expect(p.price_target).toBeCloseTo(rim + (rim - bottom), 9);
    expect(Math.abs((p.price_target as number) - 118)).toBeLessThan(2);
    expect([input.dates[30], input.dates[31]]).toContain(point(p, 'left_rim').date);
  });

  it('RANGE_BREAKOUT: bullish on an upside break, completed at top + height', () => {
    const input = path(RANGE_UP);
    expect(one(input, 84, 'RANGE_BREAKOUT').status).toBe('forming');
    const p = one(input, 92, 'RANGE_BREAKOUT');
    expect(p.status).toBe('active');
    expect(p.direction).toBe('bullish');
    const highs = p.key_points.filter((k) => k.label.startsWith('range_high_')).map((k) => k.price);
    const lows = p.key_points.filter((k) => k.label.startsWith('range_low_')).map((k) => k.price);
    expect(highs.length).toBeGreaterThanOrEqual(2);
    expect(lows.length).toBeGreaterThanOrEqual(2);
    const top = Math.max(...highs);
    const bottom = Math.min(...lows);
    expect(p.breakout_level).toBeCloseTo(top, 9);
    expect(p.price_target).toBeCloseTo(top + (top - bottom), 9);
    expect(Math.abs((p.price_target as number) - 110)).toBeLessThan(2);
    expect(one(input, 105, 'RANGE_BREAKOUT').status).toBe('completed');
  });

  it('RANGE_BREAKOUT: bearish on a downside break', () => {
    const input = path(RANGE_DOWN);
    const p = one(input, 95, 'RANGE_BREAKOUT');
    expect(p.status).toBe('active');
    expect(p.direction).toBe('bearish');
    expect(Math.abs((p.breakout_level as number) - 89.6)).toBeLessThan(0.5);
    expect(Math.abs((p.price_target as number) - 79)).toBeLessThan(1.5);
  });

  it('covers every pattern type and every status across the paths above', () => {
    const seen = new Set<PatternType>();
    const statuses = new Set<PatternStatus>();
    const all = [DOUBLE_TOP, DOUBLE_BOTTOM, HEAD_AND_SHOULDERS, INVERSE_HS, ASCENDING, DESCENDING, SYMMETRICAL_UP];
    all.push(BULL_FLAG, BULL_FLAG_FAILS, BEAR_FLAG, CUP, RANGE_UP);
    for (const points of all) {
      const input = path(points);
      for (let end = 30; end < input.close.length; end++) {
        for (const p of detectPatterns(input, end)) {
          seen.add(p.type);
          statuses.add(p.status);
        }
      }
    }
    expect([...seen].sort()).toEqual([...PATTERN_TYPES].sort());
    expect([...statuses].sort()).toEqual([...PATTERN_STATUSES].sort());
  });
});

describe('detectPatterns: no false detections', () => {
  it('finds nothing in a steady trend or in small-amplitude noise', () => {
    neverDetected(path([[0, 50], [300, 150]]), [...PATTERN_TYPES]);
    neverDetected(path([[0, 150], [300, 50]]), [...PATTERN_TYPES]);
    const noise = pathFromWaypoints([{ bar: 0, price: 100 }, { bar: 300, price: 100 }], { noise: 0.002 });
    neverDetected(noise, [...PATTERN_TYPES]);
  });

  it('no DOUBLE_TOP / DOUBLE_BOTTOM when the two extremes differ by several ATRs', () => {
    neverDetected(path([[0, 80], [40, 100], [55, 90], [70, 107], [85, 88], [100, 78]]), ['DOUBLE_TOP']);
    neverDetected(path([[0, 120], [40, 100], [55, 110], [70, 93], [85, 112], [100, 122]]), ['DOUBLE_BOTTOM']);
  });

  it('no HEAD_AND_SHOULDERS when the middle peak is not the highest (and no inverse for the mirror)', () => {
    neverDetected(path([[0, 70], [30, 100], [40, 85], [52, 96], [64, 85], [76, 92], [100, 80]]), ['HEAD_AND_SHOULDERS']);
    // Equal shoulders, but the middle peak is below them.
    neverDetected(path([[0, 70], [30, 96], [40, 85], [52, 95], [64, 85], [76, 96], [100, 80]]), ['HEAD_AND_SHOULDERS']);
    const mirror = path([[0, 130], [30, 100], [40, 115], [52, 104], [64, 115], [76, 108], [100, 120]]);
    neverDetected(mirror, ['INVERSE_HEAD_AND_SHOULDERS']);
  });

  it('no triangle in a broadening formation, nor when the lines barely converge', () => {
    const triangles: PatternType[] = ['ASCENDING_TRIANGLE', 'DESCENDING_TRIANGLE', 'SYMMETRICAL_TRIANGLE'];
    neverDetected(path([[0, 100], [15, 104], [30, 96], [45, 106], [60, 94], [75, 108], [90, 92], [100, 100]]), triangles);
    // Flat top at 100 over lows 80, 81.5, 83: rising by > 1.5 ATR, but the gap shrinks by only 15%.
    neverDetected(path([[0, 90], [15, 100], [35, 80], [55, 100], [75, 81.5], [95, 100], [115, 83], [135, 100]]), triangles);
  });

  it('no flag when the pullback retraces more than half the pole, or reverses as fast as the pole', () => {
    neverDetected(path([[0, 60], [20, 62], [35, 80], [45, 69], [55, 72]]), ['BULL_FLAG']);
    neverDetected(path([[0, 120], [20, 118], [35, 100], [45, 111], [55, 108]]), ['BEAR_FLAG']);
    // A rising channel: every pullback runs at ~80% of the advance's speed.
    const channel = path([[0, 90], [10, 100], [20, 92], [30, 102], [40, 94], [50, 104], [60, 96], [70, 106], [80, 98], [90, 104]]);
    neverDetected(channel, ['BULL_FLAG', 'RANGE_BREAKOUT']);
  });

  it('no CUP_AND_HANDLE for a V-shaped dip', () => {
    neverDetected(path([[0, 70], [30, 100], [45, 82], [60, 100], [68, 96], [80, 112]]), ['CUP_AND_HANDLE']);
  });
});

describe('detectPatterns: windowing, ordering and flood control', () => {
  it('uses no bar after `end`: equal on the truncated path and on a path with a different future', () => {
    const inputs = [randomWalk(420, 11), randomWalk(420, 12), path(DOUBLE_TOP), path(CUP)];
    for (const input of inputs) {
      const n = input.close.length;
      for (const end of [n - 40, n - 25, n - 9]) {
        const expected = detectPatterns(input, end);
        expect(detectPatterns(truncate(input, end + 1), end)).toEqual(expected);
        const future = (a: Float64Array, f: number): Float64Array => a.map((x, i) => (i > end ? x * f : x));
        const altered: PriceInput = {
          ...input,
          open: future(input.open, 1.3),
          high: future(input.high, 1.4),
          low: future(input.low, 0.6),
          close: future(input.close, 0.7),
          volume: future(input.volume, 9),
          atr: future(input.atr, 3),
        };
        expect(detectPatterns(altered, end)).toEqual(expected);
      }
    }
  });

  it('uses no bar before end - lookback + 1', () => {
    const input = randomWalk(500, 21);
    const end = 480;
    const lookback = 200;
    const expected = detectPatterns(input, end, { lookback });
    const first = end - lookback + 1;
    const past = (a: Float64Array, f: number): Float64Array => a.map((x, i) => (i < first ? x * f : x));
    const altered: PriceInput = {
      ...input,
      high: past(input.high, 2),
      low: past(input.low, 0.3),
      close: past(input.close, 1.5),
      volume: past(input.volume, 0.1),
    };
    expect(detectPatterns(altered, end, { lookback })).toEqual(expected);
    for (const p of expected) expect(p.start_date >= input.dates[first]).toBe(true);
    // A window too short to hold the double top misses it.
    expect(ofType(detectPatterns(path(DOUBLE_TOP), 86, { lookback: 30 }), 'DOUBLE_TOP')).toEqual([]);
  });

  it('sorts by end_date desc then confidence desc, caps the list, keeps one per overlapping type', () => {
    let calls = 0;
    let nonEmpty = 0;
    for (const seed of [1, 2, 3]) {
      const input = randomWalk(600, seed);
      for (let end = 249; end < 600; end += 10) {
        const patterns = detectPatterns(input, end);
        calls++;
        if (patterns.length > 0) nonEmpty++;
        expect(patterns.length).toBeLessThanOrEqual(MAX_PATTERNS);
        for (let i = 0; i < patterns.length; i++) {
          checkEntry(patterns[i], input, end);
          if (i > 0) {
            const prev = patterns[i - 1];
            const cur = patterns[i];
            const ordered = prev.end_date > cur.end_date || (prev.end_date === cur.end_date && prev.confidence >= cur.confidence);
            expect(ordered).toBe(true);
          }
          for (let j = 0; j < i; j++) {
            const x = patterns[i];
            const y = patterns[j];
            if (x.type === y.type) expect(x.start_date > y.end_date || y.start_date > x.end_date).toBe(true);
          }
        }
      }
    }
    // Random walks do show chart patterns (loose geometry is common), but not on every date.
    expect(nonEmpty).toBeGreaterThan(calls / 2);
  });

  it('rejects an end outside the bars', () => {
    const input = path(DOUBLE_TOP);
    expect(() => detectPatterns(input, input.close.length)).toThrow(RangeError);
    expect(() => detectPatterns(input, -1)).toThrow(RangeError);
  });
});

function entry(
  direction: 'bullish' | 'bearish',
  status: PatternStatus,
  confidence: number,
  type: PatternType = 'DOUBLE_BOTTOM',
): PatternEntry {
  return {
    type,
    status,
    start_date: '2024-01-02',
    end_date: '2024-02-01',
    confidence,
    price_target: 110,
    direction,
    breakout_level: 100,
    invalidation_level: 95,
    key_points: [],
    confidence_parts: { geometry: confidence, volume: confidence, trend: confidence },
  };
}

describe('summarizePatterns', () => {
  it('combines confidences by probabilistic OR, weighted by status, failed excluded', () => {
    const signal = summarizePatterns([
      entry('bullish', 'active', 0.8),
      entry('bullish', 'forming', 0.5),
      entry('bearish', 'completed', 0.6),
      entry('bearish', 'failed', 0.9),
    ]);
    // bullish = 1 - (1 - 0.8)(1 - 0.6 x 0.5) = 0.86; bearish = 1 - (1 - 0.25 x 0.6) = 0.15.
    expect(signal.bullish_confidence).toBeCloseTo(0.86, 9);
    expect(signal.bearish_confidence).toBeCloseTo(0.15, 9);
    expect(signal.net_confidence).toBeCloseTo(0.71, 9);
    expect(signal.direction).toBe('BULLISH');
    expect(signal.pattern_count).toBe(3);
  });

  it('is BEARISH / NEUTRAL by the net threshold, and neutral with no patterns', () => {
    expect(summarizePatterns([entry('bearish', 'active', 0.7), entry('bullish', 'active', 0.2)]).direction).toBe('BEARISH');
    // 0.3 vs 0.25: net 0.05 < threshold.
    const close = summarizePatterns([entry('bullish', 'active', 0.3), entry('bearish', 'active', 0.25)]);
    expect(close.net_confidence).toBeCloseTo(0.05, 9);
    expect(Math.abs(close.net_confidence)).toBeLessThan(PATTERN_SIGNAL_THRESHOLD);
    expect(close.direction).toBe('NEUTRAL');
    const none = { direction: 'NEUTRAL', net_confidence: 0, bullish_confidence: 0, bearish_confidence: 0, pattern_count: 0 };
    expect(summarizePatterns([])).toEqual(none);
    expect(summarizePatterns([entry('bullish', 'failed', 1)])).toEqual(none);
  });

  it('stays within 0..1 for many confident patterns', () => {
    const many = Array.from({ length: 30 }, (_, i) => entry(i % 3 === 0 ? 'bearish' : 'bullish', 'active', 0.9));
    const s = summarizePatterns(many);
    expect(s.bullish_confidence).toBeLessThanOrEqual(1);
    expect(s.bearish_confidence).toBeLessThanOrEqual(1);
    expect(s.net_confidence).toBeGreaterThanOrEqual(-1);
  });
});

describe('bestPattern', () => {
  it('prefers active over forming over the rest, then the highest confidence', () => {
    const activeLow = entry('bullish', 'active', 0.4, 'BULL_FLAG');
    const activeHigh = entry('bearish', 'active', 0.6, 'DOUBLE_TOP');
    const forming = entry('bullish', 'forming', 0.95, 'CUP_AND_HANDLE');
    const completed = entry('bullish', 'completed', 0.99, 'RANGE_BREAKOUT');
    const failed = entry('bearish', 'failed', 0.7, 'BEAR_FLAG');
    expect(bestPattern([forming, activeLow, completed, activeHigh])).toBe(activeHigh);
    expect(bestPattern([completed, forming, failed])).toBe(forming);
    expect(bestPattern([failed, completed])).toBe(completed);
    expect(bestPattern([failed])).toBe(failed);
    expect(bestPattern([])).toBeNull();
    // Ties keep the first in list order (the most recent).
    const twin = entry('bullish', 'active', 0.6, 'ASCENDING_TRIANGLE');
    expect(bestPattern([twin, activeHigh])).toBe(twin);
  });
});
