/**
 * Forward returns of snapshots: what happened after a snapshot's date, the outcome every evidence table is
 * measured on. Pure: no I/O, no clock, no randomness.
 *
 * Inputs. Each symbol's adjusted daily closes with their dates (a BarSeries fits), dates strictly ascending.
 * The calendar is the sorted union of every symbol's dates unless one is given; horizons count trading days
 * of that calendar, so every symbol's window from a date ends on the same calendar date.
 *
 * Definitions, for a snapshot date D at calendar position i and a horizon h:
 * - end = calendar[i + h]; none when i + h runs past the last calendar date (never look past the last bar).
 * - A symbol's forward return is the simple return close(end) / close(D) - 1, defined only when the symbol
 *   has a bar on both dates with a finite, positive close (snapshots are taken on bar dates; a symbol without
 *   a bar on the end date, e.g. delisted or suspended, has no forward return rather than a stale one).
 * - The equal-weight universe return is the mean forward return of every symbol with both ends (an
 *   equal-weight buy-and-hold portfolio formed at D's close); the forward excess return is the symbol's
 *   forward return minus it.
 * A date outside the calendar, or a window past the data, gives NaN returns and a window with `end` null.
 *
 * No look-ahead beyond the window: a window ending at calendar position i + h reads closes on D and on its
 * end date only, so bars after D + h never change it (appending them does not move earlier calendar dates).
 *
 * `inferSamplingStep` gives the typical spacing of snapshot dates in trading days (the median gap between
 * consecutive snapshot dates in the calendar), so callers can express a horizon's overlap in dates:
 * ceil(h / step) consecutive snapshot dates share part of a forward window.
 */
import { indexOfSorted } from '../sorted.js';
import { median } from './bootstrap.js';

/** A symbol's daily closes, oldest first (a BarSeries satisfies it). */
export interface CloseSeries {
  symbol: string;
  /** YYYY-MM-DD, strictly ascending. */
  dates: readonly string[];
  close: ArrayLike<number>;
}

export const DEFAULT_HORIZONS: readonly number[] = [20, 60];

export interface ForwardOptions {
  /** Horizons in trading days (distinct integers >= 1); default 20 and 60. */
  horizons?: readonly number[];
  /** Trading calendar (ascending, distinct); default the union of the series' dates. */
  calendar?: readonly string[];
}

/** The universe's forward window from one date. */
export interface ForwardWindow {
  horizon: number;
  start: string;
  /** Calendar date `horizon` trading days after start; null when that runs past the calendar. */
  end: string | null;
  /** Mean forward return of the symbols with both ends; NaN when there are none. */
  universeReturn: number;
  /** Symbols with both ends. */
  symbols: number;
}

/** Throws RangeError unless every horizon is a distinct integer >= 1; returns them sorted. */
export function checkHorizons(horizons: readonly number[]): number[] {
  if (horizons.length === 0) throw new RangeError('at least one horizon is needed');
  for (const h of horizons) {
    if (!Number.isSafeInteger(h) || h < 1) throw new RangeError(`a horizon must be an integer >= 1, got ${h}`);
  }
  if (new Set(horizons).size !== horizons.length) throw new RangeError(`horizons must be distinct, got ${horizons.join(',')}`);
  return [...horizons].sort((a, b) => a - b);
}

/** Throws RangeError unless `dates` is strictly ascending. */
export function checkAscending(dates: readonly string[], label: string): void {
  for (let i = 1; i < dates.length; i++) {
    if (!(dates[i - 1] < dates[i])) throw new RangeError(`${label}: dates must be strictly ascending (${dates[i - 1]} then ${dates[i]})`);
  }
}

/**
 * The last date of every calendar month that `calendar` (ascending YYYY-MM-DD) has moved past, from `from` on:
 * a month still in progress has no month end yet, so appending later dates never moves one.
 */
export function monthEnds(calendar: readonly string[], from?: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < calendar.length; i++) {
    if (calendar[i].slice(0, 7) !== calendar[i + 1].slice(0, 7) && (from === undefined || calendar[i] >= from)) out.push(calendar[i]);
  }
  return out;
}

/** Sorted union of the dates of every series. */
export function unionCalendar(universe: readonly CloseSeries[]): string[] {
  const all = new Set<string>();
  for (const series of universe) for (const date of series.dates) all.add(date);
  return [...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function usableClose(value: number): boolean {
  return value > 0 && value < Infinity;
}

/** close(end) / close(start) - 1 of one series; NaN unless it has a usable close on both dates. */
export function forwardReturn(series: CloseSeries, start: string, end: string): number {
  const i = indexOfSorted(series.dates, start);
  const j = indexOfSorted(series.dates, end);
  if (i < 0 || j < 0) return NaN;
  const c0 = series.close[i];
  const c1 = series.close[j];
  return usableClose(c0) && usableClose(c1) ? c1 / c0 - 1 : NaN;
}

/** One date's windows: per horizon the window and each symbol's forward return. */
interface DateEntry {
  windows: ForwardWindow[];
  returns: Array<Map<string, number>>;
}

/** Forward returns of a universe from a set of snapshot dates (see the file comment). */
export class ForwardTable {
  readonly horizons: readonly number[];
  readonly calendar: readonly string[];
  private readonly byDate = new Map<string, DateEntry>();

  constructor(universe: readonly CloseSeries[], dates: readonly string[], options: ForwardOptions = {}) {
    this.horizons = checkHorizons(options.horizons ?? DEFAULT_HORIZONS);
    const symbols = new Set<string>();
    for (const series of universe) {
      if (symbols.has(series.symbol)) throw new RangeError(`symbol ${series.symbol} appears twice in the universe`);
      symbols.add(series.symbol);
      if (series.close.length !== series.dates.length) {
        throw new RangeError(`${series.symbol}: ${series.dates.length} dates but ${series.close.length} closes`);
      }
      checkAscending(series.dates, series.symbol);
    }
    if (options.calendar !== undefined) checkAscending(options.calendar, 'calendar');
    this.calendar = options.calendar ?? unionCalendar(universe);
    for (const date of new Set(dates)) this.byDate.set(date, this.entry(universe, date));
  }

  private entry(universe: readonly CloseSeries[], start: string): DateEntry {
    const i = indexOfSorted(this.calendar, start);
    const windows: ForwardWindow[] = [];
    const returns: Array<Map<string, number>> = [];
    for (const horizon of this.horizons) {
      const end = i >= 0 && i + horizon < this.calendar.length ? this.calendar[i + horizon] : null;
      const bySymbol = new Map<string, number>();
      let sum = 0;
      if (end !== null) {
        for (const series of universe) {
          const r = forwardReturn(series, start, end);
          if (Number.isNaN(r)) continue;
          bySymbol.set(series.symbol, r);
          sum += r;
        }
      }
      windows.push({ horizon, start, end, universeReturn: bySymbol.size > 0 ? sum / bySymbol.size : NaN, symbols: bySymbol.size });
      returns.push(bySymbol);
    }
    return { windows, returns };
  }

  private slot(date: string, horizon: number): { entry: DateEntry; k: number } | null {
    const entry = this.byDate.get(date);
    const k = this.horizons.indexOf(horizon);
    return entry === undefined || k < 0 ? null : { entry, k };
  }

  /** The universe window from `date` (a date the table was built for); undefined otherwise. */
  window(date: string, horizon: number): ForwardWindow | undefined {
    const slot = this.slot(date, horizon);
    return slot === null ? undefined : slot.entry.windows[slot.k];
  }

  /** The symbol's forward return from `date`; NaN when absent. */
  forwardReturn(symbol: string, date: string, horizon: number): number {
    const slot = this.slot(date, horizon);
    return slot?.entry.returns[slot.k].get(symbol) ?? NaN;
  }

  /** The symbol's forward return minus the universe's; NaN when absent. */
  forwardExcess(symbol: string, date: string, horizon: number): number {
    const slot = this.slot(date, horizon);
    if (slot === null) return NaN;
    const r = slot.entry.returns[slot.k].get(symbol);
    return r === undefined ? NaN : r - slot.entry.windows[slot.k].universeReturn;
  }

  /** Forward excess returns of the symbol from `date`, by horizon (NaN when absent). */
  excessByHorizon(symbol: string, date: string): Record<number, number> {
    const out: Record<number, number> = {};
    for (const h of this.horizons) out[h] = this.forwardExcess(symbol, date, h);
    return out;
  }
}

/** Median gap, in calendar positions, between consecutive distinct snapshot dates found in the calendar; 1 without two such dates. */
export function inferSamplingStep(calendar: readonly string[], dates: readonly string[]): number {
  const positions = [...new Set(dates)]
    .map((d) => indexOfSorted(calendar, d))
    .filter((i) => i >= 0)
    .sort((a, b) => a - b);
  if (positions.length < 2) return 1;
  return Math.max(1, Math.round(median(positions.slice(1).map((p, k) => p - positions[k]))));
}
