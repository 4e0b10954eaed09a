/**
 * Support and resistance levels from clustered zig-zag pivot prices.
 *
 * Rules (bars [end - lookback + 1, end] only, so no look-ahead):
 *
 * - Touches: the pivot highs and lows of `zigZag(input, start, end, atrMultiple)` (default threshold 1.5 ATR,
 *   finer than the pattern engine's 2 so that more swings count as touches). The last, provisional pivot
 *   counts only once it is at least 3 bars old (a fresh running extreme is not yet a level).
 * - Clusters: the touch prices are sorted and cut into groups greedily, lowest first: a touch joins the
 *   current group while it lies within `tolerance` x ATR (default 0.5 ATR; ATR = ATR(14) at `end`, 2% of the
 *   close in the warm-up) of the group's lowest price, otherwise it starts a new group. A level's price is
 *   the mean of its touch prices; touches = group size; first/last touch dates = the earliest/latest touch.
 * - Side: a level below or at close[end] is support, above it resistance (a broken resistance becomes
 *   support and vice versa).
 * - Strength (0..1): (1 - 0.5^touches) x (0.5 + 0.5 x recency), recency = 1 - (end - last touch bar) /
 *   window length. One fresh touch scores 0.5, three fresh touches 0.875; age halves a level's score at most.
 * - Selection: per side the `maxLevels` (default 5) strongest levels are kept (ties: the nearer price);
 *   support is returned by price descending and resistance by price ascending, i.e. nearest first.
 */
import type { PriceLevel } from './document.js';
import { atrAt, zigZag, type PriceInput } from './pivots.js';

const { floor, max, min, pow, round } = Math;

/** Options of {@link supportResistance}. */
export interface LevelOptions {
  /** Bars of history used, ending at `end` (default 250). */
  lookback?: number;
  /** Zig-zag reversal threshold in ATRs (default 1.5). */
  atrMultiple?: number;
  /** Cluster width in ATRs (default 0.5). */
  tolerance?: number;
  /** Levels kept per side (default 5). */
  maxLevels?: number;
}

export const DEFAULT_LEVEL_LOOKBACK = 250;
export const DEFAULT_LEVEL_ATR_MULTIPLE = 1.5;
export const DEFAULT_LEVEL_TOLERANCE = 0.5;
export const DEFAULT_MAX_LEVELS = 5;
/** The provisional last pivot counts as a touch once it is this many bars old. */
const PROVISIONAL_MIN_AGE = 3;

interface Cluster {
  price: number;
  touches: number;
  /** Bars of the earliest and latest touch. */
  first: number;
  last: number;
  strength: number;
  /** |price - close[end]|, the tie-breaker of equal strengths (nearer first). */
  distance: number;
}

function round6(x: number): number {
  return round(x * 1e6) / 1e6;
}

function byStrengthThenNearness(x: Cluster, y: Cluster): number {
  return y.strength - x.strength || x.distance - y.distance;
}

function toLevel(c: Cluster, dates: string[]): PriceLevel {
  return {
    price: c.price,
    strength: round6(c.strength),
    touches: c.touches,
    first_touch_date: dates[c.first],
    last_touch_date: dates[c.last],
  };
}

/**
 * Support (at or below close[end]) and resistance (above) from clustered pivot prices within an ATR tolerance,
 * ranked by touches and recency; strength in 0..1. Support sorted by price descending (nearest first),
 * resistance ascending (nearest first).
 */
export function supportResistance(
  input: PriceInput,
  end: number,
  options: LevelOptions = {},
): { support: PriceLevel[]; resistance: PriceLevel[] } {
  const lookback = options.lookback ?? DEFAULT_LEVEL_LOOKBACK;
  const atrMultiple = options.atrMultiple ?? DEFAULT_LEVEL_ATR_MULTIPLE;
  const tolerance = options.tolerance ?? DEFAULT_LEVEL_TOLERANCE;
  const maxLevels = options.maxLevels ?? DEFAULT_MAX_LEVELS;
  if (!Number.isInteger(end) || end < 0 || end >= input.close.length) {
    throw new RangeError(`end must be a bar index, got ${end}`);
  }
  if (!(lookback >= 2) || !(atrMultiple > 0) || !(tolerance >= 0) || !(maxLevels >= 0)) {
    throw new RangeError('lookback must be >= 2, atrMultiple > 0, tolerance >= 0 and maxLevels >= 0');
  }
  const start = max(0, end - floor(lookback) + 1);
  const pivots = zigZag(input, start, end, atrMultiple);
  let n = pivots.length;
  if (n > 0 && end - pivots[n - 1].index < PROVISIONAL_MIN_AGE) n--;
  const support: PriceLevel[] = [];
  const resistance: PriceLevel[] = [];
  if (n === 0) return { support, resistance };

  // Touch order by price (indices into pivots), small: one entry per pivot.
  const order: number[] = new Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((x, y) => pivots[x].price - pivots[y].price || pivots[x].index - pivots[y].index);

  const width = tolerance * atrAt(input, end);
  const windowLength = end - start + 1;
  const close = input.close[end];
  const below: Cluster[] = [];
  const above: Cluster[] = [];
  let g = 0;
  while (g < n) {
    const low = pivots[order[g]].price;
    let sum = 0;
    let first = Infinity;
    let last = -1;
    let h = g;
    for (; h < n && pivots[order[h]].price - low <= width; h++) {
      const p = pivots[order[h]];
      sum += p.price;
      if (p.index < first) first = p.index;
      if (p.index > last) last = p.index;
    }
    const touches = h - g;
    const price = sum / touches;
    const recency = 1 - (end - last) / windowLength;
    const strength = (1 - pow(0.5, touches)) * (0.5 + 0.5 * recency);
    const distance = price <= close ? close - price : price - close;
    (price <= close ? below : above).push({ price, touches, first, last, strength, distance });
    g = h;
  }
  below.sort(byStrengthThenNearness);
  above.sort(byStrengthThenNearness);
  const nb = min(below.length, floor(maxLevels));
  const na = min(above.length, floor(maxLevels));
  below.length = nb;
  above.length = na;
  below.sort((x, y) => y.price - x.price);
  above.sort((x, y) => x.price - y.price);
  for (const c of below) support.push(toLevel(c, input.dates));
  for (const c of above) resistance.push(toLevel(c, input.dates));
  return { support, resistance };
}
