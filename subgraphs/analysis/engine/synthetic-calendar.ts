/**
 * The trading calendar of the synthetic market: weekdays without the observed New Year's Day, Independence
 * Day, Christmas and US Thanksgiving. Pure (no clock).
 */
const { round } = Math;

const MS_PER_DAY = 86_400_000;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 (UTC) of a valid YYYY-MM-DD string, else null. */
export function parseDayNumber(date: string): number | null {
  if (typeof date !== 'string') return null;
  const match = DATE_PATTERN.exec(date);
  if (!match) return null;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (year < 1900 || month < 1 || month > 12 || day < 1) return null;
  const dayNumber = dayNumberOf(year, month, day);
  const check = new Date(dayNumber * MS_PER_DAY);
  if (check.getUTCMonth() + 1 !== month || check.getUTCDate() !== day) return null;
  return dayNumber;
}

function dayNumberOf(year: number, month: number, day: number): number {
  return round(Date.UTC(year, month - 1, day) / MS_PER_DAY);
}

/** 0 = Sunday ... 6 = Saturday. */
function weekdayOf(dayNumber: number): number {
  return (((dayNumber + 4) % 7) + 7) % 7;
}

function formatDayNumber(dayNumber: number): string {
  return new Date(dayNumber * MS_PER_DAY).toISOString().slice(0, 10);
}

/** A fixed-date holiday moved to Friday when on a Saturday and to Monday when on a Sunday. */
function observed(dayNumber: number): number {
  const weekday = weekdayOf(dayNumber);
  if (weekday === 6) return dayNumber - 1;
  if (weekday === 0) return dayNumber + 1;
  return dayNumber;
}

/**
 * Observed market holidays of `year`'s New Year's Day, Independence Day, Christmas and Thanksgiving
 * (New Year's Day on a Saturday is observed on December 31 of the year before).
 */
function holidaysOfYear(year: number): number[] {
  const novemberFirst = dayNumberOf(year, 11, 1);
  const firstThursday = novemberFirst + ((4 - weekdayOf(novemberFirst) + 7) % 7);
  return [
    observed(dayNumberOf(year, 1, 1)),
    observed(dayNumberOf(year, 7, 4)),
    observed(dayNumberOf(year, 12, 25)),
    firstThursday + 21,
  ];
}

/**
 * The `tradingDays` most recent trading dates on or before `endDate`, oldest first. Trading dates are
 * weekdays other than New Year's Day, Independence Day, Christmas (each observed on the Friday before / the
 * Monday after when it falls on a weekend) and US Thanksgiving (4th Thursday of November).
 * Throws RangeError for an invalid date or a non-positive / non-integer day count.
 */
export function tradingCalendar(endDate: string, tradingDays: number): string[] {
  const end = parseDayNumber(endDate);
  if (end === null) throw new RangeError(`endDate must be a valid YYYY-MM-DD date, got '${String(endDate)}'`);
  if (!Number.isSafeInteger(tradingDays) || tradingDays < 1) {
    throw new RangeError(`tradingDays must be a positive integer, got ${String(tradingDays)}`);
  }
  const holidays = new Set<number>();
  const yearsLoaded = new Set<number>();
  const isHoliday = (dayNumber: number): boolean => {
    const year = new Date(dayNumber * MS_PER_DAY).getUTCFullYear();
    for (const y of [year, year + 1]) {
      if (!yearsLoaded.has(y)) {
        yearsLoaded.add(y);
        for (const h of holidaysOfYear(y)) holidays.add(h);
      }
    }
    return holidays.has(dayNumber);
  };
  const dayNumbers: number[] = [];
  for (let d = end; dayNumbers.length < tradingDays; d--) {
    const weekday = weekdayOf(d);
    if (weekday !== 0 && weekday !== 6 && !isHoliday(d)) dayNumbers.push(d);
  }
  dayNumbers.reverse();
  return dayNumbers.map(formatDayNumber);
}
