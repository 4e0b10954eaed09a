/**
 * Replacement (hunt mode `replace`): candidates for one holding, ranked by fit with the rest of the
 * book. Pure and deterministic.
 *
 * - The holding is sold at its newest close: freed capital = shares x current price. The book without
 *   it (book.ts, `exclude`) keeps the portfolio value, so caps are measured as before the swap.
 * - Candidates: every eligible candidate of the newest analysis date (the allocation long rule) that the
 *   portfolio does not hold. Each is sized with sizeIdea, the freed capital as its cash budget, under
 *   the portfolio's risk settings; a name that cannot take one share is left out (a note counts them).
 * - Ranking: fit_score (book.ts: quality minus correlation with the remaining holdings, sector
 *   overweight after the swap and the volatility it adds), descending; ties by symbol. Every name is
 *   sized, but only the ranking up to the end of the requested window (a page, or the best three) is
 *   computed (book.ts topRanked, exact) and written out as ideas.
 */
import { fromCents } from '../../allocation/engine/money.js';
import type { Candidate } from '../../allocation/engine/types.js';
import { bookState, heldSymbols, ideasIn, qualityOf, scoreIdea, sizeIdea, topRanked, type Size } from './book.js';
import { WHOLE_LIST, type Window } from './pagination.js';
import { rateHolding } from './rating.js';
import type { MarketView, PortfolioView, ReplacementAnalysis } from './types.js';

export function replacementsFor(portfolio: PortfolioView, market: MarketView, symbol: string, window: Window = WHOLE_LIST): ReplacementAnalysis {
  const rest = bookState(portfolio, market, symbol);
  const position = rest.excluded;
  if (!position) throw new RangeError(`${symbol} is not held`);
  const freedCents = position.valueCents;
  const held = heldSymbols(portfolio);
  const sized: Array<{ candidate: Candidate; size: Size }> = [];
  let unaffordable = 0;
  let considered = 0;
  for (const c of market.eligible) {
    if (held.has(c.symbol)) continue;
    considered++;
    const size = sizeIdea(c, rest, freedCents);
    if (size.shares < 1) unaffordable++;
    else sized.push({ candidate: c, size });
  }
  // Only the ranking up to the window's end is needed (the best three, a page): topRanked is exact.
  const ranked = topRanked(sized, Math.min(sized.length, window.offset + window.limit), (c, shares) => scoreIdea(c, rest, market, shares));

  const rated = rateHolding(position);
  const c = position.candidate;
  const notes = [`${considered} eligible names are not held; ${sized.length} can be bought with the freed capital of ${fromCents(freedCents)}`];
  if (unaffordable) notes.push(`${unaffordable} left out: not one share fits the freed capital and the risk settings`);
  if (c) notes.push(`${symbol} itself has signal quality ${qualityOf(c).toFixed(2)}; a replacement is better when its fit score is higher`);
  return {
    symbol,
    sector: position.sector,
    shares: position.holding.shares,
    current_price: c ? c.entry_price : null,
    freed_capital: fromCents(freedCents),
    rating: rated.rating,
    reasons: rated.reasons,
    candidates: ideasIn(ranked, rest, window),
    total_candidates: sized.length,
    notes,
  };
}
