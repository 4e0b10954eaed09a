/**
 * Cash hunt: new positions for the book's cash, whatever made the book (optimize, holdings, import,
 * trades). Pure and deterministic. Every pick fits, together with the earlier picks and the holdings:
 * the cash; max_risk_per_trade x V per name; max_portfolio_risk x V over the book's open risk (holdings
 * at their stops, book.ts `stopOf`) plus the picks'; max_position_size (and sector_caps.DEFAULT) x V per
 * name; each sector cap of the pack over the sector's holdings plus picks; and the free slots. V is the
 * portfolio value (holdings at the newest prices plus cash), reported as `portfolio_value`.
 *
 * 1. Slots: max_positions (BookState.caps) minus the positions held. None left: no recommendations (a note says so).
 * 2. Ranking: every eligible candidate of the newest analysis date that the portfolio does not hold,
 *    sized alone with the whole available cash (book.ts sizeIdea) and scored with ideaFor at that size;
 *    names that cannot take one share are left out. Order: fit_score descending, then symbol.
 * 3. Fill, in ranking order: each name is sized again against what the earlier picks left (cash, sector
 *    values, open risk) and bought when it still takes one share, until the slots or the ranking run
 *    out. A recommendation keeps the fit_score it was ranked by; its shares and the figures computed
 *    from them (value, risk, weight, sector weight after, added volatility) are the fill's.
 * The recommendations are the fill, in buying order; `cash_after` is the cash they leave.
 */
import { fromCents, toCents } from '../../allocation/engine/money.js';
import { bookState, byScore, heldSymbols, ideaFor, scoreIdea, sizeIdea, type Ranked } from './book.js';
import type { CashHuntResult, Idea, MarketView, PortfolioView } from './types.js';

export function cashHunt(portfolio: PortfolioView, market: MarketView): CashHuntResult {
  const book = bookState(portfolio, market);
  const held = heldSymbols(portfolio);
  const maxPositions = book.caps.maxPositions;
  const slots = Math.max(0, maxPositions - portfolio.holdings.length);
  const notes: string[] = [];
  const available = fromCents(book.cashCents);
  const value = fromCents(book.valueCents);
  if (slots === 0) {
    notes.push(`max_positions: the portfolio holds ${portfolio.holdings.length} of ${maxPositions} positions, so no new position fits; see hunt for replacements`);
    return { available_cash: available, portfolio_value: value, recommendations: [], cash_after: available, notes };
  }
  if (book.cashCents <= 0) {
    notes.push('no cash is available');
    return { available_cash: available, portfolio_value: value, recommendations: [], cash_after: available, notes };
  }

  const ranked: Ranked[] = [];
  let unaffordable = 0;
  for (const c of market.eligible) {
    if (held.has(c.symbol)) continue;
    const size = sizeIdea(c, book, book.cashCents);
    if (size.shares < 1) {
      unaffordable++;
      continue;
    }
    ranked.push({ candidate: c, size, score: scoreIdea(c, book, market, size.shares) });
  }
  ranked.sort(byScore);

  // The fill: cash, sector values and open risk as the earlier picks leave them.
  const sectorCents = new Map(book.sectorCents);
  let cashCents = book.cashCents;
  let riskCents = book.riskCents;
  const picks: Idea[] = [];
  let skipped = 0;
  for (const { candidate, score } of ranked) {
    if (picks.length >= slots) break;
    const state = { ...book, cashCents, riskCents, sectorCents };
    const size = sizeIdea(candidate, state, cashCents);
    if (size.shares < 1) {
      skipped++;
      continue;
    }
    const filled = ideaFor(candidate, state, market, size);
    picks.push({ ...filled, fit_score: score.fit });
    const entry = toCents(candidate.entry_price);
    cashCents -= size.shares * entry;
    riskCents += size.shares * (entry - toCents(candidate.stop_loss));
    sectorCents.set(candidate.sector, (sectorCents.get(candidate.sector) ?? 0) + size.shares * entry);
  }

  notes.push(`${ranked.length + unaffordable} eligible names are not held; ${picks.length} bought for ${fromCents(book.cashCents - cashCents)} of ${available} cash`);
  if (unaffordable) notes.push(`${unaffordable} left out: not one share fits the cash and the risk settings`);
  const riskBudget = book.caps.maxPortfolioRisk * book.valueCents;
  if (book.riskCents >= riskBudget && book.positions.length) {
    notes.push(`max_portfolio_risk: the holdings' open risk at their stops (${fromCents(book.riskCents)}) already uses the budget of ${fromCents(Math.floor(riskBudget))}`);
  }
  if (skipped) notes.push(`${skipped} ranked names skipped: earlier picks used the cash, sector or risk room they needed`);
  if (picks.length === slots) notes.push(`max_positions: ${slots} free slots filled`);
  return { available_cash: available, portfolio_value: value, recommendations: picks, cash_after: fromCents(cashCents), notes };
}
