/** Input rules shared by every service (REST and GraphQL reach them through the services). */
import { AppError } from './errors.js';

const ISO_DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date written YYYY-MM-DD, or a 400 naming the field. */
export function parseIsoDate(value: string, field: string): string {
  const m = ISO_DATE_RE.exec(value);
  if (m) {
    const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
    if (d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3])) return value;
  }
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
