/**
 * A holding's rating from its latest snapshot (first match):
 * - WEAK when any of: no analysis snapshot; stage 3 or stage 4; the signal (blended, else rules) is
 *   SELL; the pattern signal is BEARISH; the close is below the highest support that was under the entry
 *   when the book was built (broken support); the close is at or below the holding's stop (stop hit; the
 *   stop is book.ts `stopOf`: its own, else the snapshot's suggested stop, else 0, which is never hit).
 * - STRONG when stage 2 and the signal is BUY, or HOLD with a non-negative blended score (conviction,
 *   the candidate's `confidence`, at least 0.5): a supportive signal.
 * - NEUTRAL otherwise.
 */
import { toCents } from '../../allocation/engine/money.js';
import type { Position } from './book.js';
import type { HoldingRating } from './types.js';

export interface Rating {
  rating: HoldingRating;
  reasons: string[];
  stopHit: boolean;
  brokenSupport: boolean;
}

/** The rating of one position of the book (see the header). */
export function rateHolding(p: Position): Rating {
  const c = p.candidate;
  const h = p.holding;
  if (!c) return { rating: 'WEAK', reasons: ['no analysis snapshot for this symbol'], stopHit: false, brokenSupport: false };
  const price = c.entry_price;
  const weak: string[] = [];
  const stopHit = toCents(price) <= toCents(p.stop.price);
  const brokenSupport = h.support_at_entry !== null && price < h.support_at_entry;
  if (c.stage_number === 3 || c.stage_number === 4) weak.push(`${c.row.stage}: ${c.stage_number === 3 ? 'topping' : 'declining'}`);
  if (c.row.signal === 'SELL') weak.push('signal SELL');
  if (c.pattern_signal?.direction === 'BEARISH') weak.push(`bearish pattern signal (net ${c.pattern_signal.net_confidence})`);
  if (brokenSupport) weak.push(`closed at ${price}, below the support at ${h.support_at_entry} that was under the entry`);
  if (stopHit) weak.push(`closed at ${price}, at or below the ${p.stop.source === 'holding' ? 'stop' : "analysis's suggested stop"} ${p.stop.price}`);
  if (weak.length) return { rating: 'WEAK', reasons: weak, stopHit, brokenSupport };
  const supportive = c.row.signal === 'BUY' || (c.row.signal === 'HOLD' && c.confidence >= 0.5);
  if (c.stage_number === 2 && supportive) {
    return { rating: 'STRONG', reasons: [`${c.row.stage}${c.row.stage_strength ? ` (${c.row.stage_strength})` : ''} with a supportive ${c.row.signal} signal`], stopHit, brokenSupport };
  }
  return { rating: 'NEUTRAL', reasons: [`${c.row.stage ?? 'no stage'} with signal ${c.row.signal ?? 'none'}: neither strong nor weak`], stopHit, brokenSupport };
}

