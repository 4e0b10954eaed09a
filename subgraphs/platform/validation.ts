/** Input rules shared by every service (REST and GraphQL reach them through the services). */
import { AppError } from './errors.js';

const ISO_DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The earliest year a date may have anywhere in the product: no market data, trade or holding is
 * older, and the store (PostgreSQL) has no year 0.
 */
export const MIN_CALENDAR_YEAR = 1900;

/**
 * The platform's one date rule: a day that exists in the Gregorian calendar, written YYYY-MM-DD, from
 * 1900-01-01 ({@link MIN_CALENDAR_YEAR}) to 9999-12-31. Query parameters, book requests and holdings
 * files all use it.
 */
export function isCalendarDate(value: string): boolean {
  const m = ISO_DATE_RE.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < MIN_CALENDAR_YEAR || month < 1 || month > 12 || day < 1) return false;
  const days = month === 2 ? ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return day <= days;
}

/** A date by the platform's rule (isCalendarDate), or a 400 naming the field. */
export function parseIsoDate(value: string, field: string): string {
  if (isCalendarDate(value)) return value;
  throw new AppError('VALIDATION_FAILED', `${field} must be a date YYYY-MM-DD`, [{ field, message: 'expected a calendar date YYYY-MM-DD' }]);
}

/** A page size within [1, max], defaulting when absent. */
export function pageSize(value: number | undefined | null, field: string, fallback: number, max: number): number {
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new AppError('VALIDATION_FAILED', `${field} must be an integer from 1 to ${max}`, [{ field, message: `expected 1..${max}` }]);
  }
  return value;
}

/** One page of a keyset-paginated list: its items, the list's size, and the cursor of its last item. */
export interface Page<T> {
  items: T[];
  total: number;
  hasMore: boolean;
  endCursor: string | null;
}

/** A page from `rows` fetched with limit + 1 (the extra row only says whether there is more). */
export function page<T>(rows: T[], limit: number, total: number, cursor: (row: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  return { items, total, hasMore: rows.length > limit, endCursor: items.length ? cursor(items[items.length - 1]) : null };
}

/** A UUID in its text form (any version, either case): portfolio ids. */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
