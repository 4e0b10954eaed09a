/**
 * returns.ts: the calendar, returns on it (carry-forward, unknown closes), Pearson correlation,
 * weighted portfolio series and the incremental volatility update.
 */
import fc from 'fast-check';
import {
  MAX_CARRY_DAYS,
  MIN_OVERLAP,
  RETURNS_WINDOW,
  ReturnsIndex,
  annualVolatility,
  buildCalendar,
  correlation,
  moments,
  returnsOnCalendar,
  volatilityWith,
  weightedSeries,
} from '../../../subgraphs/search/engine/returns.js';
import { annualVol, noise, pearson, tradingDates } from './fixtures.js';

const DATES = tradingDates(400);

/** The documented calendar: the last window + 1 dates of the union through the date. */
function expectedCalendar(series: ReadonlyArray<{ dates: readonly string[] }>, through: string, window = RETURNS_WINDOW): string[] {
  const union = new Set<string>();
  for (const s of series) for (const d of s.dates) if (d <= through) union.add(d);
  return [...union].sort().slice(-(window + 1));
}

describe('buildCalendar', () => {
  it('is the last 253 dates of the union of the series through the date', () => {
    // Two series on interleaved date sets (evens and odds) plus a short one: the union is every date.
    const a = { dates: DATES.filter((_, i) => i % 2 === 0), closes: [] as number[] };
    const b = { dates: DATES.filter((_, i) => i % 2 === 1), closes: [] as number[] };
    const c = { dates: DATES.slice(10, 20), closes: [] as number[] };
    const calendar = buildCalendar([a, b, c], DATES[399]);
    expect(RETURNS_WINDOW + 1).toBe(253);
    expect(calendar).toHaveLength(253);
    expect(calendar).toEqual(DATES.slice(400 - 253));
    expect(calendar).toEqual(expectedCalendar([a, b, c], DATES[399]));
  });

  it('leaves out dates after the date and sorts oldest first', () => {
    const a = { dates: DATES.slice(0, 100), closes: [] as number[] };
    const b = { dates: DATES.slice(50, 120), closes: [] as number[] };
    const through = DATES[90];
    const calendar = buildCalendar([b, a], through);
    expect(calendar).toEqual(DATES.slice(0, 91));
    expect(calendar.every((d) => d <= through)).toBe(true);
  });

  it('keeps at most window + 1 dates (custom window)', () => {
    const a = { dates: DATES.slice(0, 50), closes: [] as number[] };
    expect(buildCalendar([a], DATES[49], 10)).toEqual(DATES.slice(39, 50));
  });

  it('is empty without series or without dates through the date', () => {
    expect(buildCalendar([], DATES[10])).toEqual([]);
    expect(buildCalendar([{ dates: DATES.slice(20, 30), closes: [] }], DATES[10])).toEqual([]);
  });

  // Regression (returns.ts buildCalendar): each series' last window + 1 dates were once taken before the
  // `through` filter, so a series that ran past the date contributed too few dates (153 instead of 253 here).
  it('is the last 253 union dates through the date even when a series runs past the date', () => {
    const s = { dates: DATES, closes: DATES.map((_, i) => 100 + i) };
    const through = DATES[299];
    expect(buildCalendar([s], through)).toEqual(DATES.slice(300 - 253, 300));
  });
});

describe('returnsOnCalendar', () => {
  const calendar = DATES.slice(0, 30);

  it('is close_k / close_{k-1} - 1 on a complete series', () => {
    const closes = calendar.map((_, i) => 100 + i * (i % 3 === 0 ? -1 : 2));
    const r = returnsOnCalendar(calendar, { dates: calendar, closes });
    expect(r).toHaveLength(calendar.length - 1);
    for (let k = 1; k < calendar.length; k++) expect(r[k - 1]).toBe(closes[k] / closes[k - 1] - 1);
  });

  it(`carries a missing close forward up to ${MAX_CARRY_DAYS} calendar dates`, () => {
    // Missing at calendar indices 5..9 (5 dates): carried from index 4.
    const keep = calendar.map((_, i) => i < 5 || i > 9);
    const dates = calendar.filter((_, i) => keep[i]);
    const closes = calendar.map((_, i) => 50 + i).filter((_, i) => keep[i]);
    const r = returnsOnCalendar(calendar, { dates, closes });
    for (let k = 5; k <= 9; k++) expect(r[k - 1]).toBe(0); // close_k = close_4
    expect(r[10 - 1]).toBeCloseTo(60 / 54 - 1, 15); // back on the series: against the carried close
    expect(r[11 - 1]).toBe(61 / 60 - 1);
  });

  it('never starts the carry from a close before the calendar: a stale last bar is unknown, not a flat line', () => {
    // The only bar is 100 trading days before the calendar: no close on any calendar date.
    const stale = returnsOnCalendar(DATES.slice(150, 180), { dates: [DATES[50]], closes: [42] });
    expect([...stale].every((x) => Number.isNaN(x))).toBe(true);
    // A bar on a date missing from the calendar (between calendar dates 2 and 3) counts from there.
    const gappy = DATES.slice(0, 12).filter((_, i) => i !== 3);
    const r = returnsOnCalendar(gappy, { dates: [...DATES.slice(0, 3), DATES[3]], closes: [10, 11, 12, 13] });
    expect(r[2]).toBe(13 / 12 - 1); // gappy[3] (DATES[4]) closes at the DATES[3] bar
    for (let k = 3; k <= 6; k++) expect(r[k]).toBe(0); // carried through gappy[7] (5 dates after gappy[2])
    expect(r[7]).toBeNaN(); // gappy[8]: the DATES[3] bar is before gappy[3], more than 5 calendar dates back
  });

  it(`makes a gap of more than ${MAX_CARRY_DAYS} calendar dates unknown (NaN)`, () => {
    // Missing at indices 5..10 (6 dates): indices 5..9 are carried, index 10 is unknown.
    const keep = calendar.map((_, i) => i < 5 || i > 10);
    const r = returnsOnCalendar(calendar, {
      dates: calendar.filter((_, i) => keep[i]),
      closes: calendar.map((_, i) => 50 + i).filter((_, i) => keep[i]),
    });
    for (let k = 5; k <= 9; k++) expect(r[k - 1]).toBe(0);
    expect(r[10 - 1]).toBeNaN(); // close_10 unknown
    expect(r[11 - 1]).toBeNaN(); // close_10 unknown
    expect(r[12 - 1]).toBe(62 / 61 - 1);
  });

  it('is NaN before the first bar and on the first bar (no previous close)', () => {
    const r = returnsOnCalendar(calendar, { dates: calendar.slice(4), closes: calendar.slice(4).map((_, i) => 10 + i) });
    for (let k = 1; k <= 4; k++) expect(r[k - 1]).toBeNaN();
    expect(r[5 - 1]).toBe(11 / 10 - 1);
  });

  it('treats closes that are not positive and finite as unknown', () => {
    const closes = calendar.map((_, i) => 100 + i);
    closes[6] = 0;
    closes[12] = Number.POSITIVE_INFINITY;
    closes[18] = -5;
    const r = returnsOnCalendar(calendar, { dates: calendar, closes });
    for (const bad of [6, 12, 18]) {
      expect(r[bad - 1]).toBeNaN();
      expect(r[bad]).toBeNaN();
    }
    expect(r[8 - 1]).toBe(108 / 107 - 1);
  });

  it('has no returns on a calendar of 0 or 1 dates', () => {
    expect(returnsOnCalendar([], { dates: calendar, closes: calendar.map(() => 1) })).toHaveLength(0);
    expect(returnsOnCalendar(calendar.slice(0, 1), { dates: calendar, closes: calendar.map(() => 1) })).toHaveLength(0);
  });
});

describe('correlation', () => {
  it('is the Pearson correlation over the dates where both are known (hand computation)', () => {
    const x = noise(100, 1);
    const z = noise(100, 2);
    const y = x.map((v, i) => 0.6 * v + 0.4 * z[i] + 0.001);
    const xs = Float64Array.from(x);
    const ys = Float64Array.from(y);
    // Unknown returns on either side drop the date.
    const drop = [3, 17, 40, 41, 77];
    for (const i of drop.slice(0, 3)) xs[i] = NaN;
    for (const i of drop.slice(3)) ys[i] = NaN;
    const keep = x.map((_, i) => !drop.includes(i));
    const expected = pearson(
      x.filter((_, i) => keep[i]),
      y.filter((_, i) => keep[i]),
    );
    const rho = correlation(xs, ys);
    expect(rho).not.toBeNull();
    expect(rho as number).toBeCloseTo(expected, 12);
    expect(rho as number).toBeGreaterThan(0.5);
    // Symmetric, and sign-reversing under negation.
    expect(correlation(ys, xs) as number).toBeCloseTo(expected, 12);
    expect(correlation(xs, ys.map((v) => -v)) as number).toBeCloseTo(-expected, 12);
  });

  it(`is null below ${MIN_OVERLAP} common dates, measured from ${MIN_OVERLAP}`, () => {
    const x = Float64Array.from(noise(80, 3));
    const y = Float64Array.from(noise(80, 4));
    const atLimit = Float64Array.from(y);
    for (let i = MIN_OVERLAP; i < 80; i++) atLimit[i] = NaN;
    expect(correlation(x, atLimit)).not.toBeNull();
    atLimit[0] = NaN;
    expect(correlation(x, atLimit)).toBeNull();
    expect(correlation(x.slice(0, MIN_OVERLAP - 1), y.slice(0, MIN_OVERLAP - 1))).toBeNull();
  });

  it('is null when either series does not vary', () => {
    const x = Float64Array.from(noise(100, 5));
    expect(correlation(x, new Float64Array(100).fill(0.01))).toBeNull();
    expect(correlation(new Float64Array(100), x)).toBeNull();
  });

  it('is 1 for identical series and -1 for opposite ones', () => {
    const x = Float64Array.from(noise(100, 6));
    expect(correlation(x, x)).toBeCloseTo(1, 12);
    expect(correlation(x, x.map((v) => -2 * v))).toBeCloseTo(-1, 12);
  });
});

describe('weightedSeries', () => {
  it('is sum_i w_i x_i with unknown returns counted as 0', () => {
    const a = Float64Array.from([0.01, NaN, 0.03, -0.02]);
    const b = Float64Array.from([NaN, 0.02, 0.01, 0.04]);
    const out = weightedSeries(
      [
        { weight: 0.5, returns: a },
        { weight: 0.25, returns: b },
        { weight: 0.1, returns: undefined },
      ],
      4,
    );
    expect(Array.from(out)).toEqual([0.5 * 0.01, 0.25 * 0.02, 0.5 * 0.03 + 0.25 * 0.01, 0.5 * -0.02 + 0.25 * 0.04]);
    expect(out.some(Number.isNaN)).toBe(false);
  });

  it('is all zeros without parts', () => {
    expect(Array.from(weightedSeries([], 3))).toEqual([0, 0, 0]);
  });
});

describe('volatility', () => {
  it('annualVolatility is sqrt(252 x population variance), unknown returns as 0, 0 when empty', () => {
    const x = Float64Array.from(noise(120, 7));
    x[10] = NaN;
    expect(annualVolatility(x)).toBeCloseTo(annualVol(x), 12);
    expect(annualVolatility(new Float64Array(0))).toBe(0);
    expect(annualVolatility(new Float64Array(20).fill(0.01))).toBeCloseTo(0, 7);
  });

  const ret = fc.oneof(
    { weight: 9, arbitrary: fc.double({ min: -0.1, max: 0.1, noNaN: true }) },
    { weight: 1, arbitrary: fc.constant(Number.NaN) },
  );

  it('volatilityWith(p, x, w) is annualVolatility of the series p + w x (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 120 }).chain((n) =>
          fc.record({
            parts: fc.array(fc.record({ w: fc.double({ min: 0, max: 1, noNaN: true }), r: fc.array(ret, { minLength: n, maxLength: n }) }), {
              maxLength: 3,
            }),
            x: fc.array(ret, { minLength: n, maxLength: n }),
            w: fc.double({ min: -1, max: 2, noNaN: true }),
            n: fc.constant(n),
          }),
        ),
        ({ parts, x, w, n }) => {
          const p = weightedSeries(
            parts.map((part) => ({ weight: part.w, returns: Float64Array.from(part.r) })),
            n,
          );
          const xs = Float64Array.from(x);
          const explicit = p.map((v, k) => v + w * (Number.isNaN(xs[k]) ? 0 : xs[k]));
          const got = volatilityWith(p, moments(p), xs, moments(xs), w);
          const want = annualVolatility(explicit);
          if (!(Math.abs(got - want) <= 1e-12)) throw new Error(`volatilityWith ${got} != ${want}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('volatilityWith without x (or w = 0) is the portfolio volatility', () => {
    const p = Float64Array.from(noise(80, 8));
    const x = Float64Array.from(noise(80, 9));
    expect(volatilityWith(p, moments(p), undefined, undefined, 0.3)).toBe(annualVolatility(p));
    expect(volatilityWith(p, moments(p), x, moments(x), 0)).toBe(annualVolatility(p));
  });
});

describe('ReturnsIndex', () => {
  it('holds each added symbol returns on its calendar, with their moments', () => {
    const calendar = DATES.slice(0, 70);
    const index = new ReturnsIndex(calendar);
    expect(index.length).toBe(69);
    const series = { dates: calendar, closes: calendar.map((_, i) => 100 + Math.sin(i)) };
    index.add('AAA', series);
    expect(index.has('AAA')).toBe(true);
    expect(index.has('BBB')).toBe(false);
    expect(index.returns('BBB')).toBeUndefined();
    expect(Array.from(index.returns('AAA') as Float64Array)).toEqual(Array.from(returnsOnCalendar(calendar, series)));
    expect(index.moments('AAA')).toEqual(moments(index.returns('AAA') as Float64Array));
    expect(new ReturnsIndex([]).length).toBe(0);
  });
});
