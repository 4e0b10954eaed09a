/**
 * The security chart's geometry: weekly moving averages from daily bars, stage bands and runs from the
 * snapshot history, pattern lines from key points, levels, and the date picker's snapping.
 */
import {
  dayNumber,
  patternGeometry,
  patternLevels,
  patternLevelSegments,
  snapshotDateFor,
  stageBands,
  stageSegments,
  supportResistance,
  visibleRange,
  weeklyCloses,
  weeklyMovingAverage,
  type StagePoint,
} from '../../../console/src/chart/overlays.js';

/** Weekday dates (Mon-Fri) from `start` (a Monday) for `weeks` weeks, with closes from `close(i)`. */
function weekdays(start: string, weeks: number, close: (i: number) => number) {
  const bars = [];
  let i = 0;
  for (let d = dayNumber(start); bars.length < weeks * 5; d++) {
    const date = new Date(d * 86_400_000).toISOString().slice(0, 10);
    const dow = new Date(d * 86_400_000).getUTCDay();
    if (dow === 0 || dow === 6) continue;
    bars.push({ date, close: close(i++) });
  }
  return bars;
}

describe('weekly closes and moving averages', () => {
  it('groups bars into Monday-to-Sunday weeks, across a year boundary', () => {
    const bars = [
      { date: '2026-11-23', close: 1 }, // a Monday
      { date: '2026-11-29', close: 2 }, // its Sunday
      { date: '2026-11-30', close: 3 }, // the next Monday
      { date: '2026-12-31', close: 4 }, // Thursday of the week that ends in 2027
      { date: '2027-01-01', close: 5 },
      { date: '2027-01-04', close: 6 },
    ];
    expect(weeklyCloses(bars)).toEqual([
      { time: '2026-11-29', value: 2 },
      { time: '2026-11-30', value: 3 },
      { time: '2027-01-01', value: 5 },
      { time: '2027-01-04', value: 6 },
    ]);
  });

  it('leaves out bars with an invalid or out-of-order date instead of failing', () => {
    const bars = [
      { date: '2026-11-23', close: 1 },
      { date: '2026-02-30', close: 9 },
      { date: '2026-11-23', close: 9 },
      { date: '2026-11-20', close: 9 },
      { date: '2026-11-24', close: 2 },
    ];
    expect(weeklyCloses(bars)).toEqual([{ time: '2026-11-24', value: 2 }]);
    expect(weeklyCloses([])).toEqual([]);
  });

  it('takes the last close of each week, dated on that bar (a short week included)', () => {
    const bars = [
      { date: '2026-11-16', close: 1 },
      { date: '2026-11-20', close: 2 },
      { date: '2026-11-23', close: 3 },
      { date: '2026-11-25', close: 4 }, // Thanksgiving week ends on Wednesday here
      { date: '2026-11-30', close: 5 },
    ];
    expect(weeklyCloses(bars)).toEqual([
      { time: '2026-11-20', value: 2 },
      { time: '2026-11-25', value: 4 },
      { time: '2026-11-30', value: 5 },
    ]);
  });

  it('averages the last N weekly closes from the first full window', () => {
    // Week k closes at k + 1 (every day of week k closes at 100*k + day, the Friday at 100*k + 4)
    const bars = weekdays('2026-01-05', 12, (i) => 100 * Math.floor(i / 5) + (i % 5));
    const ma10 = weeklyMovingAverage(bars, 10);
    expect(ma10).toHaveLength(3);
    // weeks 0..9 Friday closes: 4, 104, ..., 904 -> mean 454
    expect(ma10[0]).toEqual({ time: '2026-03-13', value: 454 });
    expect(ma10[2].value).toBeCloseTo(654);
    expect(weeklyMovingAverage(bars, 30)).toEqual([]);
    expect(weeklyMovingAverage(bars, 1).map((p) => p.value)).toEqual(weeklyCloses(bars).map((p) => p.value));
    expect(() => weeklyMovingAverage(bars, 0)).toThrow(RangeError);
  });
});

describe('stage shading from the snapshot history', () => {
  const history: StagePoint[] = [
    { date: '2026-03-06', stage: 'STAGE_2' },
    { date: '2026-01-02', stage: 'STAGE_1' },
    { date: '2026-02-06', stage: 'STAGE_1' },
    { date: '2026-04-03', stage: 'STAGE_2' },
    { date: '2026-05-01', stage: null },
    { date: '2026-05-08', stage: 'STAGE_3' },
  ];

  it('joins consecutive snapshots of one stage into runs, in date order, a stageless snapshot ending a run', () => {
    expect(stageSegments(history)).toEqual([
      { stage: 'STAGE_1', from: '2026-01-02', to: '2026-02-06' },
      { stage: 'STAGE_2', from: '2026-03-06', to: '2026-04-03' },
      { stage: 'STAGE_3', from: '2026-05-08', to: '2026-05-08' },
    ]);
    expect(stageSegments([])).toEqual([]);
  });

  it('colours each bar by the latest snapshot on or before it, and not before the first or long after the last', () => {
    const dates = ['2025-12-31', '2026-01-02', '2026-03-05', '2026-03-06', '2026-04-30', '2026-05-04', '2026-05-08', '2026-05-22', '2026-05-25'];
    expect(stageBands(dates, history)).toEqual([
      { time: '2026-01-02', stage: 'STAGE_1' },
      { time: '2026-03-05', stage: 'STAGE_1' },
      { time: '2026-03-06', stage: 'STAGE_2' },
      { time: '2026-04-30', stage: 'STAGE_2' },
      // 2026-05-04: the snapshot of 05-01 has no stage
      { time: '2026-05-08', stage: 'STAGE_3' },
      { time: '2026-05-22', stage: 'STAGE_3' }, // 14 days after the last snapshot
      // 2026-05-25: 17 days after it, stale
    ]);
    expect(stageBands(dates, [])).toEqual([]);
    expect(stageBands(['2026-05-25'], history, 30)).toEqual([{ time: '2026-05-25', stage: 'STAGE_3' }]);
  });
});

describe('pattern geometry', () => {
  it('connects the key points in date order and marks each with its label', () => {
    const g = patternGeometry([
      { label: 'second trough', date: '2026-06-20', price: 95 },
      { label: 'first trough', date: '2026-05-01', price: 94 },
      { label: 'neckline', date: '2026-06-01', price: 110 },
    ]);
    expect(g.points).toEqual([
      { time: '2026-05-01', value: 94 },
      { time: '2026-06-01', value: 110 },
      { time: '2026-06-20', value: 95 },
    ]);
    expect(g.markers.map((m) => m.text)).toEqual(['first trough', 'neckline', 'second trough']);
  });

  it('leaves out key points without a date or price, and never averages key points sharing a date', () => {
    const g = patternGeometry([
      { label: 'A', date: '2026-06-01', price: 100 },
      { label: 'B', date: '2026-06-01', price: 104 },
      { label: 'C', date: null, price: 90 },
      { label: 'D', date: '2026-06-10', price: null },
      { label: 'E', date: 'not a date', price: 90 },
    ]);
    // The line passes through the first of the date; each key point keeps its own marker at its own price.
    expect(g.points).toEqual([{ time: '2026-06-01', value: 100 }]);
    expect(g.markers).toEqual([
      { time: '2026-06-01', price: 100, text: 'A' },
      { time: '2026-06-01', price: 104, text: 'B' },
    ]);
    expect(patternGeometry(null)).toEqual({ points: [], markers: [] });
  });

  it('draws only prices the pattern carried, every key point marked', () => {
    const keyPoints = [
      { label: 'left shoulder', date: '2026-03-02', price: 88.5 },
      { label: 'neckline', date: '2026-03-02', price: 97.25 },
      { label: 'head', date: '2026-04-01', price: 80 },
      { label: 'neckline 2', date: '2026-04-20', price: 98 },
      { label: 'right shoulder', date: '2026-04-20', price: 87 },
      { label: 'breakout', date: '2026-04-20', price: 99.5 },
      { label: 'undated', date: null, price: 70 },
    ];
    const carried = new Set(keyPoints.map((k) => k.price));
    const g = patternGeometry(keyPoints);
    for (const p of g.points) expect(carried.has(p.value)).toBe(true);
    for (const m of g.markers) expect(carried.has(m.price)).toBe(true);
    // Each drawn marker is the key point of that label, date and price.
    for (const m of g.markers) expect(keyPoints).toContainEqual({ label: m.text, date: m.time, price: m.price });
    expect(g.markers).toHaveLength(6);
    // The line holds one value per date, in increasing time.
    expect(g.points.map((p) => p.time)).toEqual(['2026-03-02', '2026-04-01', '2026-04-20']);
  });

  it('draws breakout and invalidation over the pattern up to the snapshot, leaving the target to a price line', () => {
    const g = patternGeometry([
      { label: 'first trough', date: '2026-05-01', price: 94 },
      { label: 'second trough', date: '2026-06-20', price: 95 },
    ]);
    const levels = patternLevels({ priceTarget: 130, breakoutLevel: 110, invalidationLevel: 94 });
    expect(patternLevelSegments(g, levels, '2026-07-01')).toEqual([
      { kind: 'breakout', price: 110, points: [{ time: '2026-05-01', value: 110 }, { time: '2026-07-01', value: 110 }] },
      { kind: 'invalidation', price: 94, points: [{ time: '2026-05-01', value: 94 }, { time: '2026-07-01', value: 94 }] },
    ]);
    expect(patternLevelSegments(g, levels, '2026-05-01')).toEqual([]);
    expect(patternLevelSegments(patternGeometry([]), levels, '2026-07-01')).toEqual([]);
  });

  it('draws only the levels the pattern carries', () => {
    expect(patternLevels({ priceTarget: 130, breakoutLevel: 110, invalidationLevel: 94 })).toEqual([
      { kind: 'target', price: 130 },
      { kind: 'breakout', price: 110 },
      { kind: 'invalidation', price: 94 },
    ]);
    expect(patternLevels({ priceTarget: null, breakoutLevel: 110, invalidationLevel: null })).toEqual([{ kind: 'breakout', price: 110 }]);
  });
});

describe('levels, dates and ranges', () => {
  it('orders support and resistance from the nearest outward, without repeats', () => {
    expect(supportResistance([90, 95, 90], [120, 110])).toEqual([
      { kind: 'support', price: 95 },
      { kind: 'support', price: 90 },
      { kind: 'resistance', price: 110 },
      { kind: 'resistance', price: 120 },
    ]);
    expect(supportResistance(null, undefined)).toEqual([]);
  });

  it('snaps a picked date to the stored snapshot in force on it', () => {
    const dates = ['2026-03-06', '2026-03-13', '2026-03-20'];
    expect(snapshotDateFor(dates, '2026-03-15')).toBe('2026-03-13');
    expect(snapshotDateFor(dates, '2026-03-20')).toBe('2026-03-20');
    expect(snapshotDateFor(dates, '2027-01-01')).toBe('2026-03-20');
    expect(snapshotDateFor(dates, '2020-01-01')).toBe('2026-03-06');
    expect(snapshotDateFor([], '2026-03-15')).toBeNull();
  });

  it('opens the chart on the months before the snapshot, clamped to the bars', () => {
    const dates = ['2024-01-02', '2025-06-02', '2026-11-25'];
    expect(visibleRange(dates, '2025-06-02', 365, 30)).toEqual({ from: '2024-06-02', to: '2025-07-02' });
    expect(visibleRange(dates, '2024-03-01', 365, 30)).toEqual({ from: '2024-01-02', to: '2024-03-31' });
    expect(visibleRange(dates, null)).toEqual({ from: '2026-05-29', to: '2026-11-25' });
    expect(visibleRange(dates, '2030-01-01')).toEqual({ from: '2024-01-02', to: '2026-11-25' });
    expect(visibleRange([], '2025-06-02')).toBeNull();
  });
});
