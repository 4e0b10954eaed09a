/**
 * Weekly bars from daily bars, grouped by ISO week.
 *
 * Definitions:
 * - An ISO week runs Monday to Sunday. Its key is `YYYY-Www`, where YYYY is the ISO week-numbering year
 *   (the calendar year of the week's Thursday) and ww is 01..53. So 2021-01-01 (a Friday) belongs to
 *   `2020-W53`, and 2024-12-30 (a Monday) to `2025-W01`. Dates are handled as plain day numbers (days since
 *   1970-01-01 computed arithmetically), never through `Date`, so time zones cannot shift a day.
 * - A weekly bar gathers the daily bars of one ISO week that lie in [0..end]: open = the first day's open,
 *   high = the highest high, low = the lowest low, close = the last day's close, volume = the sum of the
 *   volumes. `dates[w]` is the week's last trading day present in the data and `lastIndex[w]` its daily index.
 *   Holidays simply leave a week with fewer days; a week with no trading day does not appear at all.
 * - The last week may be partial: it ends at `end` whatever the weekday. Callers that must tell a complete
 *   week from a partial one use {@link isWeekComplete} with the next trading date of the market calendar.
 * - `benchmark[w]` is the benchmark (the universe index) close on the week's last day, taken from the daily
 *   benchmark aligned to `dates`; NaN when the benchmark has no value on exactly that day or is not given.
 *
 * Daily dates must be valid YYYY-MM-DD strings in strictly increasing order (RangeError otherwise).
 */

export interface WeeklyBars {
  /** Date of the last trading day of each week (YYYY-MM-DD). */
  dates: string[];
  /** ISO week key of each week, e.g. '2024-W23'. */
  weekKeys: string[];
  /** Daily index of each week's last bar. */
  lastIndex: Int32Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
  /** Benchmark (index) close on the week's last day, NaN if unknown. */
  benchmark: Float64Array;
}

const { floor } = Math;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = floor(y / 400);
  const yoe = y - era * 400;
  const doy = floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Day number of a valid YYYY-MM-DD string; throws RangeError otherwise. */
function dayNumber(date: string): number {
  if (typeof date !== 'string' || date.length !== 10 || date.charCodeAt(4) !== 45 || date.charCodeAt(7) !== 45) {
    throw new RangeError(`expected a YYYY-MM-DD date, got '${String(date)}'`);
  }
  const y0 = date.charCodeAt(0) - 48;
  const y1 = date.charCodeAt(1) - 48;
  const y2 = date.charCodeAt(2) - 48;
  const y3 = date.charCodeAt(3) - 48;
  const m0 = date.charCodeAt(5) - 48;
  const m1 = date.charCodeAt(6) - 48;
  const d0 = date.charCodeAt(8) - 48;
  const d1 = date.charCodeAt(9) - 48;
  // A non-digit gives a value outside 0..9 (`>>> 0` turns a negative one into a huge one).
  if (
    y0 >>> 0 > 9 ||
    y1 >>> 0 > 9 ||
    y2 >>> 0 > 9 ||
    y3 >>> 0 > 9 ||
    m0 >>> 0 > 9 ||
    m1 >>> 0 > 9 ||
    d0 >>> 0 > 9 ||
    d1 >>> 0 > 9
  ) {
    throw new RangeError(`expected a YYYY-MM-DD date, got '${date}'`);
  }
  const year = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  const month = m0 * 10 + m1;
  const day = d0 * 10 + d1;
  if (month < 1 || month > 12 || day < 1) throw new RangeError(`invalid date '${date}'`);
  const monthDays = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (day > monthDays) throw new RangeError(`invalid date '${date}'`);
  return daysFromCivil(year, month, day);
}

/** ISO weekday 0 = Monday .. 6 = Sunday (day 0, 1970-01-01, was a Thursday). */
function isoWeekday(dn: number): number {
  return (((dn + 3) % 7) + 7) % 7;
}

/** Monday-based week number since the epoch: equal for two days exactly when they share an ISO week. */
function weekOrdinal(dn: number): number {
  return floor((dn + 3) / 7);
}

/** ISO week key of day number `dn`. */
function isoKeyOfDayNumber(dn: number): string {
  const thursday = dn - isoWeekday(dn) + 3;
  // The ISO year is the calendar year of the week's Thursday: estimate it, then correct by one if needed.
  let isoYear = 1970 + floor(thursday / 365.2425);
  while (thursday < daysFromCivil(isoYear, 1, 1)) isoYear--;
  while (thursday >= daysFromCivil(isoYear + 1, 1, 1)) isoYear++;
  const week = floor((thursday - daysFromCivil(isoYear, 1, 1)) / 7) + 1;
  return `${isoYear}-W${week < 10 ? '0' : ''}${week}`;
}

/** Keys already built, by week ordinal (a cache of a pure function: weekly bars of many symbols share weeks). */
const keyCache = new Map<number, string>();
const KEY_CACHE_LIMIT = 100_000;

function cachedIsoKey(dn: number): string {
  const ordinal = weekOrdinal(dn);
  let key = keyCache.get(ordinal);
  if (key === undefined) {
    if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
    key = isoKeyOfDayNumber(dn);
    keyCache.set(ordinal, key);
  }
  return key;
}

/** ISO week key of a YYYY-MM-DD date (pure arithmetic, no Date timezone surprises). */
export function isoWeekKey(date: string): string {
  return isoKeyOfDayNumber(dayNumber(date));
}

/**
 * The Friday of a date's ISO week (YYYY-MM-DD): the week's nominal close. A week counts for anything
 * "through" a date only once that date reaches its Friday, whether or not the Friday is a trading day,
 * so the answer never depends on bars that come later.
 */
export function weekEndDate(date: string): string {
  const friday = dayNumber(date) - isoWeekday(dayNumber(date)) + 4;
  return new Date(friday * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Whether the week whose last known trading day is `lastDate` is complete: true when the market calendar's
 * next trading date `nextTradingDate` lies in a later ISO week. Without a next date (the end of the data),
 * the week counts as complete only when `lastDate` is a Friday or later in its week.
 */
export function isWeekComplete(lastDate: string, nextTradingDate: string | null): boolean {
  const dn = dayNumber(lastDate);
  if (nextTradingDate !== null) return weekOrdinal(dayNumber(nextTradingDate)) > weekOrdinal(dn);
  return isoWeekday(dn) >= 4;
}

/**
 * Weeks are ISO weeks (Monday..Sunday) of the daily dates; bars [0..end] only; the last week may be partial
 * (it ends at `end`). benchmark: daily index closes aligned to `dates` (NaN where missing) or null.
 * An `end` below 0 gives no weeks; `end` beyond the data throws RangeError.
 */
export function toWeekly(
  dates: string[],
  open: Float64Array,
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  volume: Float64Array,
  benchmark: Float64Array | null,
  end: number,
): WeeklyBars {
  if (!Number.isInteger(end)) throw new RangeError(`end must be an integer, got ${String(end)}`);
  const n = end + 1;
  if (n > dates.length || n > open.length || n > high.length || n > low.length || n > close.length || n > volume.length) {
    throw new RangeError(`end ${end} is beyond the ${dates.length} daily bars`);
  }
  if (benchmark !== null && n > benchmark.length) {
    throw new RangeError(`end ${end} is beyond the ${benchmark.length} benchmark values`);
  }

  // Pass 1: where each week ends (and that day's number).
  const ends = new Int32Array(n);
  const endDays = new Int32Array(n);
  let count = 0;
  let prevDay = -Infinity;
  let prevWeek = NaN;
  for (let i = 0; i < n; i++) {
    const dn = dayNumber(dates[i]);
    if (dn <= prevDay) throw new RangeError(`dates must be strictly increasing: '${dates[i]}' after '${dates[i - 1]}'`);
    const week = weekOrdinal(dn);
    if (i > 0 && week !== prevWeek) {
      ends[count] = i - 1;
      endDays[count++] = prevDay;
    }
    prevDay = dn;
    prevWeek = week;
  }
  if (n > 0) {
    ends[count] = n - 1;
    endDays[count++] = prevDay;
  }

  // Pass 2: aggregate.
  const out: WeeklyBars = {
    dates: new Array<string>(count),
    weekKeys: new Array<string>(count),
    lastIndex: new Int32Array(count),
    open: new Float64Array(count),
    high: new Float64Array(count),
    low: new Float64Array(count),
    close: new Float64Array(count),
    volume: new Float64Array(count),
    benchmark: new Float64Array(count).fill(NaN),
  };
  let first = 0;
  for (let w = 0; w < count; w++) {
    const last = ends[w];
    let hi = high[first];
    let lo = low[first];
    let vol = 0;
    for (let i = first; i <= last; i++) {
      if (high[i] > hi) hi = high[i];
      if (low[i] < lo) lo = low[i];
      vol += volume[i];
    }
    out.dates[w] = dates[last];
    out.weekKeys[w] = cachedIsoKey(endDays[w]);
    out.lastIndex[w] = last;
    out.open[w] = open[first];
    out.high[w] = hi;
    out.low[w] = lo;
    out.close[w] = close[last];
    out.volume[w] = vol;
    if (benchmark !== null) out.benchmark[w] = benchmark[last];
    first = last + 1;
  }
  return out;
}
