/**
 * Swing pivots by a zig-zag with an ATR threshold: the backbone of chart patterns and support/resistance.
 *
 * Definitions:
 *
 * - A pivot high is a bar whose high is the highest high of an up-swing; a pivot low is a bar whose low is
 *   the lowest low of a down-swing. Pivots alternate high, low, high, ... (never two of a kind in a row).
 * - The zig-zag walks the bars once, oldest first, keeping a "running extreme": while the swing is up it is
 *   the highest high since the last pivot low, while the swing is down the lowest low since the last pivot
 *   high. A new extreme simply replaces the running one.
 * - A reversal is confirmed when price moves against the running extreme by at least the threshold
 *   `atrMultiple x ATR`, where ATR is the ATR(14) of the running extreme's bar (the candidate pivot). Up-swing:
 *   confirmed when a later bar's low <= running high - threshold; down-swing: when a later bar's high >=
 *   running low + threshold. The running extreme then becomes a pivot and the confirming bar starts the
 *   new running extreme of the opposite kind. A bar that makes a new extreme is never a reversal bar.
 * - ATR fallback: where the ATR is NaN (warm-up) or not positive, the ATR is taken as
 *   {@link FALLBACK_ATR_FRACTION} (2%) of the candidate bar's close.
 * - Start: before the first reversal the direction is unknown; the highest high and the lowest low seen so
 *   far are both tracked, and the first pivot is whichever of them is followed (later in time) by a move of
 *   at least the threshold in the other direction. Ties between equal highs (or lows) keep the earlier bar.
 * - End: the last pivot returned is the running extreme at `end` (provisional: it may still extend or never
 *   be confirmed). Every earlier pivot is confirmed. No pivot is returned until a first reversal is
 *   confirmed (a window whose total range is below the threshold has no pivots).
 *
 * Only bars in [start, end] are read (no look-ahead): the pivots at bar `end` are exactly those a trader
 * could have drawn on that day.
 */
import type { BarSeries } from './market-types.js';

/** The bars of one symbol as the pattern and level engines read them (oldest first), with their ATR. */
export interface PriceInput extends Omit<BarSeries, 'symbol'> {
  /** ATR(14) aligned to the bars, NaN in warm-up. */
  atr: Float64Array;
}

/** A confirmed (or, for the last one, provisional) swing point. */
export interface Pivot {
  index: number;
  price: number;
  kind: 'high' | 'low';
}

/** ATR assumed, as a fraction of the close, where the ATR(14) is not available yet. */
export const FALLBACK_ATR_FRACTION = 0.02;

/** ATR(14) at bar `i`, or {@link FALLBACK_ATR_FRACTION} x close where the ATR is NaN or not positive. */
export function atrAt(input: PriceInput, i: number): number {
  const a = input.atr[i];
  return a > 0 ? a : FALLBACK_ATR_FRACTION * input.close[i];
}

/**
 * Zig-zag over bars [start, end] (inclusive) using only those bars: a reversal is confirmed when price moves
 * atrMultiple x ATR (ATR at the candidate bar; 2% of its close if NaN) against the running extreme. The last
 * pivot is the running extreme (provisional). Uses highs for peaks, lows for troughs; pivots alternate.
 */
export function zigZag(input: PriceInput, start: number, end: number, atrMultiple: number): Pivot[] {
  const { high, low } = input;
  const pivots: Pivot[] = [];
  const first = start < 0 ? 0 : start;
  const last = end >= high.length ? high.length - 1 : end;
  if (last <= first) return pivots;

  // dir 0: unknown yet; +1: up-swing (last pivot a low, `ext` is the running high); -1: down-swing.
  let dir = 0;
  let ext = first;
  let hiIdx = first;
  let loIdx = first;
  for (let i = first + 1; i <= last; i++) {
    if (dir === 0) {
      if (high[i] > high[hiIdx]) hiIdx = i;
      if (low[i] < low[loIdx]) loIdx = i;
      const range = high[hiIdx] - low[loIdx];
      if (loIdx > hiIdx && range >= atrMultiple * atrAt(input, hiIdx)) {
        pivots.push({ index: hiIdx, price: high[hiIdx], kind: 'high' });
        dir = -1;
        ext = loIdx;
      } else if (hiIdx > loIdx && range >= atrMultiple * atrAt(input, loIdx)) {
        pivots.push({ index: loIdx, price: low[loIdx], kind: 'low' });
        dir = 1;
        ext = hiIdx;
      }
    } else if (dir > 0) {
      if (high[i] > high[ext]) {
        ext = i;
      } else if (high[ext] - low[i] >= atrMultiple * atrAt(input, ext)) {
        pivots.push({ index: ext, price: high[ext], kind: 'high' });
        dir = -1;
        ext = i;
      }
    } else if (low[i] < low[ext]) {
      ext = i;
    } else if (high[i] - low[ext] >= atrMultiple * atrAt(input, ext)) {
      pivots.push({ index: ext, price: low[ext], kind: 'low' });
      dir = 1;
      ext = i;
    }
  }
  if (dir > 0) pivots.push({ index: ext, price: high[ext], kind: 'high' });
  else if (dir < 0) pivots.push({ index: ext, price: low[ext], kind: 'low' });
  return pivots;
}
