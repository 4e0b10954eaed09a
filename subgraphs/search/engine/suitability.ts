/**
 * Suitability (hunt mode `interest`): does a ticker fit the portfolio? Pure and deterministic.
 *
 * - The ticker's latest candidate (its newest snapshot; an older one is named in the reasons).
 * - A ticker the portfolio holds is judged against the rest of the book (its correlation with itself
 *   would say nothing), as if bought again at the size the settings allow.
 * - Size: the shares the settings give the name on its own (max_position_size, max_risk_per_trade);
 *   fit and effects are measured at that size. `suggested_shares`: sizeIdea with every limit but cash
 *   (the room the book leaves under max_portfolio_risk and the sector cap too), less the shares held;
 *   `fundable_from_cash` says whether the available cash pays for them.
 * - Effects: the ticker's sector weight before and after, with its cap; correlation with the book's
 *   returns and the most correlated holding; the book's annualised volatility before and after.
 * - fit_score as in book.ts, at the size the name's own limits give it (above).
 * - Verdict:
 *   UNSUITABLE when the allocation long rule rejects the ticker (stage 3/4, a SELL signal, stage 1
 *   without a BUY, no stop below the entry), when not one share fits its own limits, or when
 *   fit_score < UNSUITABLE_BELOW (0.3);
 *   CAUTION when fit_score < SUITABLE_FROM (0.5), the correlation with the book is at least
 *   HIGH_CORRELATION (0.7), the sector ends at 90% of its cap or more, the book's volatility after
 *   would be above the pack's vol target, or the book has no room for it now (suggested_shares 0:
 *   total risk or the sector cap used up; it fits only by selling or replacing a holding);
 *   SUITABLE otherwise.
 * - Alternatives: eligible names of the same sector that the portfolio does not hold, other than the
 *   ticker, sized and scored as the ticker is (their own limits, against the whole book), with a higher
 *   fit score than the ticker's; ranked by fit. (Sized by the room left instead, they would vanish
 *   whenever the book's total risk is spent, which is exactly when a better alternative matters.)
 */
import { fromCents, toCents } from '../../allocation/engine/money.js';
import type { Candidate } from '../../allocation/engine/types.js';
import { volTargetOf } from '../../allocation/engine/constraints.js';
import { correlation } from './returns.js';
import { bookState, byScore, heldSymbols, ideaFor, ideasIn, scoreIdea, sectorCap, sizeIdea, type Ranked } from './book.js';
import { WHOLE_LIST, type Window } from './pagination.js';
import type { MarketView, PortfolioView, SuitabilityAnalysis, Verdict } from './types.js';
import { pct, round4, round6 } from './numbers.js';

export const UNSUITABLE_BELOW = 0.3;
export const SUITABLE_FROM = 0.5;
export const HIGH_CORRELATION = 0.7;
/** Sector weight after, as a fraction of its cap, from which the verdict is at most CAUTION. */
export const NEAR_CAP = 0.9;


export function suitabilityOf(portfolio: PortfolioView, market: MarketView, c: Candidate, window: Window = WHOLE_LIST): SuitabilityAnalysis {
  const full = bookState(portfolio, market);
  const held = full.positions.find((p) => p.holding.symbol === c.symbol);
  const heldShares = held?.holding.shares ?? 0;
  // A held ticker is judged against the rest of the book, as if bought again at the size the settings allow.
  const book = held ? bookState(portfolio, market, c.symbol) : full;
  // Fit and effects at the size the settings give the name on its own; the suggestion within the room left.
  const standalone = sizeIdea(c, book, null, null, true);
  const idea = ideaFor(c, book, market, standalone);
  const whole = sizeIdea(c, book, null);
  const size = { shares: Math.max(0, whole.shares - heldShares), bound: whole.bound };
  const cap = sectorCap(portfolio, c.sector);
  const V = book.valueCents;
  const before = V > 0 ? (full.sectorCents.get(c.sector) ?? 0) / V : 0;
  const target = volTargetOf(portfolio.constraint_pack);
  const volBefore = full.volatility;
  const volAfter = book.volatility === null ? null : round6(book.volatility + idea.added_volatility);

  let mostCorrelated: SuitabilityAnalysis['most_correlated_holding'] = null;
  const x = market.returns.returns(c.symbol);
  if (x) {
    for (const p of book.positions) {
      if (p.holding.symbol === c.symbol) continue;
      const y = market.returns.returns(p.holding.symbol);
      const rho = y ? correlation(x, y) : null;
      if (rho !== null && (mostCorrelated === null || rho > mostCorrelated.correlation)) mostCorrelated = { symbol: p.holding.symbol, correlation: round4(rho) };
    }
  }

  const reasons: string[] = [];
  if (market.analysis_date !== null && c.analysis_date < market.analysis_date) reasons.push(`the newest snapshot of ${c.symbol} is from ${c.analysis_date}, older than the newest analysis (${market.analysis_date})`);
  if (held) reasons.push(`already held: ${heldShares} shares; the risk settings allow ${whole.shares} in all, so ${size.shares} more (judged against the rest of the portfolio)`);
  let verdict: Verdict = 'SUITABLE';
  const caution: string[] = [];
  if (!c.eligible) {
    verdict = 'UNSUITABLE';
    reasons.push(`not a long candidate: ${c.exclusion}`);
  } else if (standalone.shares < 1) {
    verdict = 'UNSUITABLE';
    reasons.push(`not one share fits its own limits: ${standalone.bound}`);
  } else if (idea.fit_score < UNSUITABLE_BELOW) {
    verdict = 'UNSUITABLE';
    reasons.push(`fit score ${idea.fit_score.toFixed(2)} is below ${UNSUITABLE_BELOW}`);
  } else {
    if (idea.fit_score < SUITABLE_FROM) caution.push(`fit score ${idea.fit_score.toFixed(2)} is below ${SUITABLE_FROM}`);
    if (idea.correlation_to_portfolio !== null && idea.correlation_to_portfolio >= HIGH_CORRELATION) caution.push(`correlation with the portfolio ${idea.correlation_to_portfolio.toFixed(2)} is at least ${HIGH_CORRELATION}`);
    if (cap !== null && cap > 0 && idea.sector_weight_after >= NEAR_CAP * cap) caution.push(`${c.sector} would be ${pct(idea.sector_weight_after)} against its ${pct(cap)} cap`);
    if (target !== null && volAfter !== null && volAfter > target) caution.push(`the portfolio's volatility would be ${pct(volAfter)}, above the ${pct(target)} vol target`);
    if (size.shares < 1) caution.push(`no room now: ${whole.bound} is used up, so it fits only by selling or replacing a holding`);
    if (caution.length) verdict = 'CAUTION';
  }
  reasons.push(...caution, ...idea.reasons);
  if (verdict === 'SUITABLE') reasons.push('eligible, room under every cap, and it fits the portfolio');

  // Alternatives in the same sector, sized and scored as the ticker is (their own limits, against the book).
  const holding = heldSymbols(portfolio);
  const alternatives: Ranked[] = [];
  for (const other of market.eligible) {
    if (other.sector !== c.sector || other.symbol === c.symbol || holding.has(other.symbol)) continue;
    const s = sizeIdea(other, full, null, null, true);
    if (s.shares < 1) continue;
    const score = scoreIdea(other, full, market, s.shares);
    if (score.fit > idea.fit_score) alternatives.push({ candidate: other, size: s, score });
  }
  alternatives.sort(byScore);

  const valueCents = size.shares * toCents(c.entry_price);
  return {
    symbol: c.symbol,
    verdict,
    fit_score: idea.fit_score,
    signal_quality: idea.signal_quality,
    stage: c.row.stage,
    signal: c.row.signal,
    eligible: c.eligible,
    already_held: held !== undefined,
    analysis_date: c.analysis_date,
    suggested_shares: size.shares,
    suggested_value: fromCents(valueCents),
    fundable_from_cash: size.shares > 0 && valueCents <= full.cashCents,
    entry_price: c.entry_price,
    stop_loss: c.stop_loss,
    target_price: c.target_price,
    risk_amount: fromCents(size.shares * (toCents(c.entry_price) - toCents(c.stop_loss))),
    sector_effect: { sector: c.sector, weight_before: round6(before), weight_after: idea.sector_weight_after, cap },
    correlation_to_portfolio: idea.correlation_to_portfolio,
    most_correlated_holding: mostCorrelated,
    portfolio_volatility_before: volBefore === null ? null : round6(volBefore),
    portfolio_volatility_after: volAfter,
    vol_target_annual: target,
    reasons,
    alternatives: ideasIn(alternatives, full, window),
    total_alternatives: alternatives.length,
  };
}
