/**
 * Groups observations by their date, the unit every evidence statistic resamples and aggregates over.
 * Pure: no I/O, no clock, no randomness.
 *
 * Observations are parallel arrays (a date per row plus the row's numbers). Dates are compared as strings, so
 * ISO dates (YYYY-MM-DD) come out in calendar order; any other string keys come out in code-unit order. Rows
 * keep their input order inside a date. A row is kept only when `keep(row)` says so (callers drop rows whose
 * values are not finite), so a date whose rows are all dropped does not appear.
 */
import { median } from './bootstrap.js';

/** Rows grouped by date: `dates` ascending, `rows[k]` the kept row indices of `dates[k]`, in input order. */
export interface DateGroups {
  dates: string[];
  rows: Int32Array[];
  /** Kept rows in total. */
  n: number;
}

/** Throws RangeError unless every array has `dates.length` entries. */
export function assertSameLength(dates: readonly string[], ...columns: Array<{ length: number }>): void {
  for (const column of columns) {
    if (column.length !== dates.length) {
      throw new RangeError(`${dates.length} dates but a column of ${column.length} values`);
    }
  }
}

/** Groups the rows for which `keep` is true by date (see the file comment). */
export function groupByDate(dates: readonly string[], keep: (row: number) => boolean = () => true): DateGroups {
  const byDate = new Map<string, number[]>();
  let n = 0;
  for (let i = 0; i < dates.length; i++) {
    if (!keep(i)) continue;
    const date = dates[i];
    if (typeof date !== 'string') throw new TypeError(`date of row ${i} must be a string`);
    let list = byDate.get(date);
    if (list === undefined) {
      list = [];
      byDate.set(date, list);
    }
    list.push(i);
    n++;
  }
  const sorted = [...byDate.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { dates: sorted, rows: sorted.map((d) => Int32Array.from(byDate.get(d) as number[])), n };
}

/** True for a finite number (not NaN, not +-Infinity). */
export function isFiniteNumber(value: number): boolean {
  return value - value === 0;
}

/**
 * The HOLD event of the calibrators (state-evidence.ts) and the evaluation's reliability tables: 1 when a
 * row's |excess| is below the median |excess| of its date's rows with a finite excess, 0 when it is not, NaN
 * when its own excess is not finite.
 */
export function quietHalf(dates: readonly string[], excess: ArrayLike<number>): Float64Array {
  assertSameLength(dates, excess);
  const quiet = new Float64Array(dates.length).fill(NaN);
  for (const rows of groupByDate(dates, (i) => isFiniteNumber(excess[i])).rows) {
    const mid = median(Array.from(rows, (i) => Math.abs(excess[i])));
    for (const i of rows) quiet[i] = Math.abs(excess[i]) < mid ? 1 : 0;
  }
  return quiet;
}
