/** Weekly bars: ISO week keys (year boundaries, week 53), OHLCV aggregation, holidays, partial weeks, benchmark. */
import { isWeekComplete, isoWeekKey, toWeekly, type WeeklyBars } from '../../../subgraphs/analysis/engine/weekly.js';
import { prepareSymbol, weeklyAt, weeklyUpTo } from '../../../subgraphs/analysis/engine/prepared.js';

/** Independent ISO-week reference built on Date (UTC): the Thursday of the date's week decides the year. */
function referenceIsoWeek(date: string): string {
  const t = new Date(`${date}T00:00:00Z`);
  const weekday = (t.getUTCDay() + 6) % 7; // Monday 0
  const thursday = new Date(t.getTime() + (3 - weekday) * 86_400_000);
  const year = thursday.getUTCFullYear();
  const jan1 = Date.UTC(year, 0, 1);
  const week = Math.floor((thursday.getTime() - jan1) / 86_400_000 / 7) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

const f64 = (values: number[]): Float64Array => Float64Array.from(values);

describe('isoWeekKey', () => {
  it.each([
    ['2020-12-31', '2020-W53'], // Thursday of the 53rd week
    ['2021-01-01', '2020-W53'], // Friday: still the previous ISO year
    ['2021-01-03', '2020-W53'], // Sunday ends the week
    ['2021-01-04', '2021-W01'], // Monday starts week 1
    ['2024-12-30', '2025-W01'], // Monday in December belongs to the next ISO year
    ['2019-12-30', '2020-W01'],
    ['2016-01-03', '2015-W53'],
    ['2010-01-03', '2009-W53'],
    ['2008-12-29', '2009-W01'],
    ['2024-06-03', '2024-W23'],
    ['2024-06-09', '2024-W23'],
    ['2024-06-10', '2024-W24'],
    ['2000-02-29', '2000-W09'], // leap day of a 400-year leap year
    ['2026-10-30', '2026-W44'],
  ])('%s -> %s', (date, key) => {
    expect(isoWeekKey(date)).toBe(key);
  });

  it('agrees with a Date-based reference on every day from 1999 to 2030', () => {
    const mismatches: string[] = [];
    for (const date of daysBetween('1999-01-01', '2030-12-31')) {
      if (isoWeekKey(date) !== referenceIsoWeek(date)) mismatches.push(date);
    }
    expect(mismatches).toEqual([]);
  });

  it.each(['2021-02-29', '2021-13-01', '2021-00-10', '2021-04-31', '20210101', '2021-1-01', 'yesterday', '2O21-01-01', '2021-0:-01', '2021-01-/1'])(
    'rejects %s',
    (date) => {
      expect(() => isoWeekKey(date)).toThrow(RangeError);
    },
  );
});

describe('toWeekly', () => {
  // Across the 2020/2021 boundary, with New Year's Day (Friday 2021-01-01) a holiday and a Monday holiday
  // (2021-01-18, Martin Luther King Jr. Day) leaving a 4-day week.
  const dates = [
    '2020-12-28', '2020-12-29', '2020-12-30', '2020-12-31', // 2020-W53 (4 days, Friday holiday)
    '2021-01-04', '2021-01-05', '2021-01-06', '2021-01-07', '2021-01-08', // 2021-W01
    '2021-01-11', '2021-01-12', '2021-01-13', '2021-01-14', '2021-01-15', // 2021-W02
    '2021-01-19', '2021-01-20', '2021-01-21', '2021-01-22', // 2021-W03 (Monday holiday)
    '2021-01-25', '2021-01-26', '2021-01-27', // 2021-W04 (partial if the data ends here)
  ];
  const n = dates.length;
  const open = f64(dates.map((_, i) => 100 + i));
  const close = f64(dates.map((_, i) => 100.5 + i));
  const high = f64(dates.map((_, i) => 102 + i + (i === 6 ? 50 : 0))); // a spike on Wednesday of W01
  const low = f64(dates.map((_, i) => 99 + i - (i === 11 ? 40 : 0))); // a dip on Wednesday of W02
  const volume = f64(dates.map((_, i) => 1000 * (i + 1)));
  const benchmark = f64(dates.map((_, i) => 3000 + i));
  benchmark[13] = NaN; // the index has no bar on Friday 2021-01-15

  const weekly: WeeklyBars = toWeekly(dates, open, high, low, close, volume, benchmark, n - 1);

  it('groups by ISO week across the year boundary and holidays', () => {
    expect(weekly.weekKeys).toEqual(['2020-W53', '2021-W01', '2021-W02', '2021-W03', '2021-W04']);
    expect(weekly.dates).toEqual(['2020-12-31', '2021-01-08', '2021-01-15', '2021-01-22', '2021-01-27']);
    expect(Array.from(weekly.lastIndex)).toEqual([3, 8, 13, 17, 20]);
  });

  it('aggregates open first, high max, low min, close last, volume sum', () => {
    expect(Array.from(weekly.open)).toEqual([100, 104, 109, 114, 118]);
    expect(Array.from(weekly.close)).toEqual([103.5, 108.5, 113.5, 117.5, 120.5]);
    expect(Array.from(weekly.high)).toEqual([105, 158, 115, 119, 122]);
    expect(Array.from(weekly.low)).toEqual([99, 103, 70, 113, 117]);
    const sum = (from: number, to: number): number => {
      let s = 0;
      for (let i = from; i <= to; i++) s += 1000 * (i + 1);
      return s;
    };
    expect(Array.from(weekly.volume)).toEqual([sum(0, 3), sum(4, 8), sum(9, 13), sum(14, 17), sum(18, 20)]);
  });

  it("takes the benchmark on each week's last day, NaN where the index has no bar that day", () => {
    expect(weekly.benchmark[0]).toBe(3003);
    expect(weekly.benchmark[1]).toBe(3008);
    expect(weekly.benchmark[2]).toBeNaN();
    expect(weekly.benchmark[3]).toBe(3017);
    expect(weekly.benchmark[4]).toBe(3020);
    const noIndex = toWeekly(dates, open, high, low, close, volume, null, n - 1);
    expect(Array.from(noIndex.benchmark).every(Number.isNaN)).toBe(true);
  });

  it('uses bars [0..end] only: the last week ends at `end` (partial)', () => {
    const wednesday = toWeekly(dates, open, high, low, close, volume, benchmark, 11); // 2021-01-13
    expect(wednesday.weekKeys).toEqual(['2020-W53', '2021-W01', '2021-W02']);
    expect(wednesday.dates[2]).toBe('2021-01-13');
    expect(wednesday.lastIndex[2]).toBe(11);
    expect(wednesday.open[2]).toBe(109);
    expect(wednesday.close[2]).toBe(111.5);
    expect(wednesday.low[2]).toBe(70);
    expect(wednesday.volume[2]).toBe(10_000 + 11_000 + 12_000);
    expect(wednesday.benchmark[2]).toBe(3011);
    // The complete weeks before it are identical to the full aggregation.
    for (const key of ['open', 'high', 'low', 'close', 'volume', 'benchmark'] as const) {
      expect(Array.from(wednesday[key].slice(0, 2))).toEqual(Array.from(weekly[key].slice(0, 2)));
    }
    const single = toWeekly(dates, open, high, low, close, volume, null, 0);
    expect(single.weekKeys).toEqual(['2020-W53']);
    expect(single.high[0]).toBe(102);
  });

  it('returns no weeks for end < 0 and rejects an end beyond the data', () => {
    const empty = toWeekly(dates, open, high, low, close, volume, benchmark, -1);
    expect(empty.dates).toEqual([]);
    expect(empty.close.length).toBe(0);
    expect(() => toWeekly(dates, open, high, low, close, volume, benchmark, n)).toThrow(RangeError);
    expect(() => toWeekly(dates, open, high, low, close, volume, f64([1, 2]), n - 1)).toThrow(RangeError);
  });

  it('rejects dates out of order or invalid', () => {
    const swapped = [...dates];
    [swapped[4], swapped[5]] = [swapped[5], swapped[4]];
    expect(() => toWeekly(swapped, open, high, low, close, volume, null, n - 1)).toThrow(/increasing/);
    const duplicated = [...dates];
    duplicated[5] = duplicated[4];
    expect(() => toWeekly(duplicated, open, high, low, close, volume, null, n - 1)).toThrow(RangeError);
    const bad = [...dates];
    bad[2] = '2020-12-32';
    expect(() => toWeekly(bad, open, high, low, close, volume, null, n - 1)).toThrow(RangeError);
  });

  it('puts a weekend bar in the week it ends and separates weeks with a gap between them', () => {
    const d = ['2024-06-07', '2024-06-08', '2024-06-10', '2024-06-24'];
    const x = f64([1, 2, 3, 4]);
    const w = toWeekly(d, x, x, x, x, x, null, 3);
    expect(w.weekKeys).toEqual(['2024-W23', '2024-W24', '2024-W26']);
    expect(Array.from(w.volume)).toEqual([3, 3, 4]);
  });
});

describe('isWeekComplete', () => {
  it('is complete when the next trading date is in a later ISO week', () => {
    expect(isWeekComplete('2021-01-07', '2021-01-08')).toBe(false);
    expect(isWeekComplete('2021-01-08', '2021-01-11')).toBe(true);
    expect(isWeekComplete('2020-12-31', '2021-01-04')).toBe(true); // holiday Friday
    expect(isWeekComplete('2024-11-27', '2024-11-29')).toBe(false);
  });

  it('without a next date, only a Friday (or weekend) last day closes the week', () => {
    expect(isWeekComplete('2026-10-30', null)).toBe(true);
    expect(isWeekComplete('2026-10-29', null)).toBe(false);
    expect(isWeekComplete('2026-10-31', null)).toBe(true);
  });
});

describe('weeklyAt', () => {
  it('cuts the weekly bars up to any day from the whole history: the same bars as gathering them up to that day', () => {
    // Weekdays across a year end, with holidays, a whole week closed and fractional volumes (the sums' order matters).
    const dates = daysBetween('2020-11-02', '2021-03-31').filter((d, k) => {
      const weekday = new Date(`${d}T00:00:00Z`).getUTCDay();
      return weekday !== 0 && weekday !== 6 && d !== '2021-01-01' && d !== '2020-11-26' && !(d >= '2021-02-08' && d <= '2021-02-12') && k % 17 !== 5;
    });
    const n = dates.length;
    const wave = (a: number, b: number) => f64(dates.map((_, i) => 100 + a * Math.sin(i * b) + i * 0.013));
    const close = wave(7.3, 0.41);
    const bars = { symbol: 'T', dates, open: wave(6.1, 0.43), high: f64([...close].map((c, i) => c + 1.7 + Math.cos(i))), low: f64([...close].map((c, i) => c - 1.3 - Math.sin(i * 0.7) ** 2)), close, volume: wave(0.1, 1.7) };
    const benchmark = wave(3.3, 0.29);
    benchmark[20] = NaN;
    for (const withIndex of [true, false]) {
      const input = { symbol: 'T', sector: null, dataSource: 'synthetic' as const, bars, benchmark: withIndex ? benchmark : null, time: Int32Array.from(dates, (_, i) => i) };
      const p = prepareSymbol(input);
      for (let i = 0; i < n; i++) expect(weeklyAt(p, i)).toEqual(weeklyUpTo(input, i));
    }
  });
});
