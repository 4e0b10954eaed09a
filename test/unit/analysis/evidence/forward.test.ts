/**
 * Forward returns of snapshots (subgraphs/analysis/engine/evidence/forward.ts): a hand-computed universe
 * with a missing bar, windows that run past the data, no look-ahead past the window's end, and the sampling
 * step of snapshot dates.
 */
import { ForwardTable, forwardReturn, inferSamplingStep, unionCalendar, type CloseSeries } from '../../../../subgraphs/analysis/engine/evidence/forward.js';
import { createPrng } from '../../../../subgraphs/analysis/engine/prng.js';

const D = ['2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05', '2024-01-08'];

const handUniverse: CloseSeries[] = [
  { symbol: 'A', dates: D, close: [100, 102, 105, 110, 120] },
  { symbol: 'B', dates: D, close: [50, 50, 45, 40, 60] },
  // No bar on 2024-01-04.
  { symbol: 'C', dates: [D[0], D[1], D[3], D[4]], close: [10, 11, 12, 13] },
];

/** `symbols` random walks (daily sd 2%) over `days` consecutive trading days. */
function randomUniverse(seed: number, symbols: number, days: number): CloseSeries[] {
  const dates = Array.from({ length: days }, (_, t) => `T${String(t).padStart(5, '0')}`);
  return Array.from({ length: symbols }, (_, s) => {
    const rng = createPrng(seed, s);
    const close = new Float64Array(days);
    close[0] = 50 + 50 * rng.next();
    for (let t = 1; t < days; t++) close[t] = close[t - 1] * Math.exp(0.02 * rng.normal());
    return { symbol: `S${s}`, dates, close };
  });
}

function truncate(universe: CloseSeries[], last: string): CloseSeries[] {
  return universe.map((s) => {
    const keep = s.dates.filter((d) => d <= last).length;
    return { symbol: s.symbol, dates: s.dates.slice(0, keep), close: Array.from(s.close).slice(0, keep) };
  });
}

describe('ForwardTable', () => {
  it('matches a hand-computed case: simple returns, the equal-weight mean of symbols with both ends, excess', () => {
    const table = new ForwardTable(handUniverse, [D[0], D[1], D[3]], { horizons: [2, 1] });
    expect(table.horizons).toEqual([1, 2]);
    expect(table.calendar).toEqual(D);
    // From 2024-01-02 over 2 days (to 2024-01-04): A +5%, B -10%, C has no bar on the end date.
    expect(table.window(D[0], 2)).toEqual({ horizon: 2, start: D[0], end: D[2], universeReturn: expect.any(Number), symbols: 2 });
    expect(table.window(D[0], 2)?.universeReturn).toBeCloseTo(-0.025, 14);
    expect(table.forwardReturn('A', D[0], 2)).toBeCloseTo(0.05, 14);
    expect(table.forwardExcess('A', D[0], 2)).toBeCloseTo(0.075, 14);
    expect(table.forwardExcess('B', D[0], 2)).toBeCloseTo(-0.075, 14);
    expect(table.forwardExcess('C', D[0], 2)).toBeNaN();
    // From 2024-01-03 over 2 days (to 2024-01-05): all three have both ends.
    const mean = (110 / 102 - 1 + (40 / 50 - 1) + (12 / 11 - 1)) / 3;
    expect(table.window(D[1], 2)?.symbols).toBe(3);
    expect(table.window(D[1], 2)?.universeReturn).toBeCloseTo(mean, 14);
    expect(table.forwardExcess('C', D[1], 2)).toBeCloseTo(12 / 11 - 1 - mean, 14);
    // From 2024-01-05: one day is known (to 2024-01-08), two days run past the data.
    expect(table.forwardReturn('B', D[3], 1)).toBeCloseTo(0.5, 14);
    expect(table.window(D[3], 2)).toEqual({ horizon: 2, start: D[3], end: null, universeReturn: NaN, symbols: 0 });
    expect(table.forwardExcess('A', D[3], 2)).toBeNaN();
    expect(table.excessByHorizon('A', D[3])[1]).toBeCloseTo(120 / 110 - 1 - (120 / 110 - 1 + 0.5 + (13 / 12 - 1)) / 3, 14);
    // A date the table was not built for, or outside the calendar.
    expect(table.window(D[2], 1)).toBeUndefined();
    expect(table.forwardExcess('A', D[2], 1)).toBeNaN();
    expect(new ForwardTable(handUniverse, ['2023-12-29'], { horizons: [1] }).window('2023-12-29', 1)?.end).toBeNull();
  });

  it('ignores a non-positive or non-finite close and refuses malformed input', () => {
    expect(forwardReturn({ symbol: 'X', dates: D.slice(0, 3), close: [10, 0, 12] }, D[0], D[1])).toBeNaN();
    expect(forwardReturn({ symbol: 'X', dates: D.slice(0, 3), close: [10, NaN, 12] }, D[1], D[2])).toBeNaN();
    expect(forwardReturn({ symbol: 'X', dates: D.slice(0, 3), close: [10, 11, 12] }, D[0], D[2])).toBeCloseTo(0.2, 14);
    expect(() => new ForwardTable(handUniverse, [D[0]], { horizons: [0] })).toThrow(RangeError);
    expect(() => new ForwardTable(handUniverse, [D[0]], { horizons: [2, 2] })).toThrow(RangeError);
    expect(() => new ForwardTable([{ symbol: 'X', dates: [D[1], D[0]], close: [1, 2] }], [D[0]])).toThrow(RangeError);
    expect(() => new ForwardTable([{ symbol: 'X', dates: [D[0]], close: [1, 2] }], [D[0]])).toThrow(RangeError);
    expect(() => new ForwardTable([handUniverse[0], handUniverse[0]], [D[0]])).toThrow(RangeError);
  });

  it('never looks ahead: values as of D are identical with and without the bars after D + h', () => {
    const universe = randomUniverse(3, 12, 200);
    const calendar = unionCalendar(universe);
    const h = 20;
    for (const at of [40, 100, 150]) {
      const date = calendar[at];
      const full = new ForwardTable(universe, [date], { horizons: [5, h] });
      const cut = new ForwardTable(truncate(universe, calendar[at + h]), [date], { horizons: [5, h] });
      expect(cut.window(date, h)).toEqual(full.window(date, h));
      for (const s of universe) {
        for (const horizon of [5, h]) {
          expect(Object.is(cut.forwardExcess(s.symbol, date, horizon), full.forwardExcess(s.symbol, date, horizon))).toBe(true);
          expect(Number.isFinite(full.forwardExcess(s.symbol, date, horizon))).toBe(true);
        }
      }
      // One bar fewer and the h-day window runs past the data: absent, not guessed.
      const short = new ForwardTable(truncate(universe, calendar[at + h - 1]), [date], { horizons: [h] });
      expect(short.window(date, h)?.end).toBeNull();
      expect(short.forwardExcess('S0', date, h)).toBeNaN();
    }
  });
});

describe('inferSamplingStep', () => {
  it('is the median gap of snapshot dates in the calendar', () => {
    const calendar = Array.from({ length: 100 }, (_, t) => `T${String(t).padStart(3, '0')}`);
    const weekly = calendar.filter((_, t) => t % 5 === 4);
    expect(inferSamplingStep(calendar, weekly)).toBe(5);
    // A holiday week (gap 4) does not change the median; repeated dates count once.
    expect(inferSamplingStep(calendar, [...weekly.slice(0, 10), calendar[53], ...weekly.slice(11), weekly[0]])).toBe(5);
    expect(inferSamplingStep(calendar, [calendar[3]])).toBe(1);
    expect(inferSamplingStep(calendar, calendar)).toBe(1);
  });
});
