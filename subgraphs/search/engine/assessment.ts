/**
 * General assessment (hunt mode `general`): every holding rated from its latest snapshot (rating.ts),
 * one recommendation per holding, and the portfolio's concerns. Pure and deterministic.
 *
 * Recommendation (one per holding; score 0..1 is how strongly the evidence points to the action;
 * quality is the holding's signal quality, book.ts):
 * - EXIT: stop hit, or stage 4. Sell everything. Score 1 - quality.
 * - REPLACE: weak, and the best replacement (replacement.ts, its freed capital) has a fit score above
 *   the holding's quality by at least REPLACE_MARGIN (0.05). Sell everything; the three best
 *   replacements come with it. Score 1 - quality.
 * - TRIM: weak without a better replacement (sell half, rounded down, at least one share), or a weight
 *   above the per-name cap by more than DRIFT_TOLERANCE (10% of the cap; sell back to the cap). Score
 *   1 - quality when weak, else min(1, excess weight / cap).
 * - ADD: strong with a BUY signal and room under every cap: the shares sizeIdea allows. Holdings are
 *   decided in order of quality (then symbol), each against the cash, open risk and sector values the
 *   earlier ADDs leave, so all ADDs together fit the available cash and the risk settings (the sales
 *   of EXIT, REPLACE and TRIM are not counted on). Score = quality.
 * - HOLD: everything else (a holding without analysis is held, drift or not: nothing current says
 *   what to do). Score = quality (0 without analysis).
 * Order: EXIT, REPLACE, TRIM, ADD, HOLD; then score descending; then symbol.
 *
 * Concerns (every one, not paginated; score 0..1 is the severity; order: score descending, type, symbols):
 * - SECTOR_CONCENTRATION: a sector's weight above its cap (or SECTOR_CONCENTRATION_LIMIT, 35%, without
 *   one); score min(1, (weight - limit) / limit).
 * - CORRELATED_PAIR: two holdings whose daily returns correlate at CORRELATED_PAIR_THRESHOLD (0.8) or
 *   more over the last year; score = the correlation.
 * - HIGH_VOLATILITY: a holding the analysis flags as highly volatile or whose historical volatility is
 *   at least HIGH_VOLATILITY_THRESHOLD (60% a year), score min(1, volatility) (the flag alone, without a
 *   figure: score 0.6 and value 0); and the book's volatility
 *   above the pack's vol target, score min(1, volatility / target - 1), symbols [].
 * - STALE_ANALYSIS: a holding whose newest snapshot is older than the newest analysis date (or that has
 *   none), score min(1, days / 30) (1 without a snapshot); and a book built from analysis at least
 *   STALE_BOOK_DAYS (7) days older than the newest, score min(1, days / 90), symbols [].
 * - BROKEN_SUPPORT: a close below the support that was under the entry; score min(1, 10 x the fraction below).
 * - CASH_DRAG: cash above CASH_DRAG_THRESHOLD (10%) of the portfolio value; score = the cash fraction.
 */
import { fromCents, toCents } from '../../allocation/engine/money.js';
import type { Candidate } from '../../allocation/engine/types.js';
import { volTargetOf } from '../../allocation/engine/constraints.js';
import { correlation } from './returns.js';
import { SECTOR_CONCENTRATION_LIMIT, bookState, qualityOf, sectorCap, sizeIdea, type BookState, type Position } from './book.js';
import { replacementsFor } from './replacement.js';
import { rateHolding } from './rating.js';
import type { Concern, GeneralAssessment, HuntRecommendation, MarketView, PortfolioView, RecommendationType } from './types.js';
import { bySymbol, pct, round4, round6 } from './numbers.js';

export const REPLACE_MARGIN = 0.05;
export const DRIFT_TOLERANCE = 0.1;
export const CORRELATED_PAIR_THRESHOLD = 0.8;
export const HIGH_VOLATILITY_THRESHOLD = 0.6;
export const STALE_BOOK_DAYS = 7;
export const CASH_DRAG_THRESHOLD = 0.1;
/** Replacements shown with a REPLACE recommendation. */
export const REPLACEMENTS_SHOWN = 3;

const ACTION_ORDER: Record<RecommendationType, number> = { EXIT: 0, REPLACE: 1, TRIM: 2, ADD: 3, HOLD: 4 };

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/**
 * The recommendation for one position. `room` is the cash, open risk and sector values the ADDs
 * decided so far leave (a copy of the book's, updated here when this one adds).
 */
function recommendationFor(p: Position, book: BookState, room: BookState, market: MarketView): HuntRecommendation {
  const c: Candidate | undefined = p.candidate;
  const h = p.holding;
  const rated = rateHolding(p);
  const quality = c ? qualityOf(c) : 0;
  const V = book.valueCents;
  const weight = V > 0 ? p.valueCents / V : 0;
  const reasons = [...rated.reasons, `signal quality ${quality.toFixed(2)}`];
  let type: RecommendationType = 'HOLD';
  let score = quality;
  let change = 0;
  let replacements: HuntRecommendation['replacement_candidates'] = [];

  if (c && (rated.stopHit || c.stage_number === 4)) {
    type = 'EXIT';
    score = 1 - quality;
    change = -h.shares;
    reasons.push(rated.stopHit ? 'the stop was hit: sell the position' : 'stage 4 declines: sell the position');
  } else if (c && rated.rating === 'WEAK') {
    const best = replacementsFor(book.portfolio, market, h.symbol, { offset: 0, limit: REPLACEMENTS_SHOWN }).candidates;
    // Compared in 1e-4 units: both scores are rounded to 4 decimals, their float sum is not.
    if (best.length && Math.round(best[0].fit_score * 1e4) >= Math.round(quality * 1e4) + Math.round(REPLACE_MARGIN * 1e4)) {
      type = 'REPLACE';
      score = 1 - quality;
      change = -h.shares;
      replacements = best;
      reasons.push(`${best[0].symbol} fits the portfolio better (fit ${best[0].fit_score.toFixed(2)} against ${quality.toFixed(2)})`);
    } else {
      type = 'TRIM';
      score = 1 - quality;
      change = -Math.max(1, Math.floor(h.shares / 2));
      reasons.push(best.length ? `no replacement fits by at least ${REPLACE_MARGIN} more: halve the position` : 'no replacement can be bought with the freed capital: halve the position');
    }
  } else if (c && weight > book.nameCap * (1 + DRIFT_TOLERANCE)) {
    type = 'TRIM';
    score = Math.min(1, (weight - book.nameCap) / book.nameCap);
    const excessCents = p.valueCents - book.nameCap * V;
    change = -Math.min(h.shares, Math.ceil(excessCents / p.priceCents - 1e-9));
    reasons.push(`weighs ${pct(weight)}, above the ${pct(book.nameCap)} per-name cap: sell back to the cap`);
  } else if (c && rated.rating === 'STRONG' && c.row.signal === 'BUY') {
    const size = sizeIdea(c, room, room.cashCents, { shares: h.shares, riskCents: p.riskCents });
    if (size.shares > 0) {
      type = 'ADD';
      change = size.shares;
      reasons.push(`room for ${size.shares} more shares (limited by ${size.bound})`);
      const entry = toCents(c.entry_price);
      room.cashCents -= size.shares * entry;
      room.riskCents += size.shares * (entry - toCents(c.stop_loss));
      room.sectorCents.set(p.sector, (room.sectorCents.get(p.sector) ?? 0) + size.shares * entry);
    } else {
      reasons.push(`strong, but no room to add (${size.bound ?? 'no usable stop'}${room.cashCents < book.cashCents || room.riskCents > book.riskCents ? ', after the better-rated additions' : ''})`);
    }
  }
  if (type === 'HOLD' && !c) reasons.push('hold until the symbol is analysed again');
  if (p.stop.source === 'snapshot') reasons.push(`no stop of its own: risk measured at the analysis's suggested stop ${p.stop.price}`);
  else if (p.stop.source === 'none') reasons.push('no stop and no analysis: its whole value counts as open risk');

  return {
    type,
    symbol: h.symbol,
    sector: p.sector,
    score: round4(Math.max(0, Math.min(1, score))),
    rating: rated.rating,
    shares: h.shares,
    current_price: c ? c.entry_price : null,
    entry_price: h.entry_price,
    stop_loss: p.stop.price,
    unrealized_return: c && h.entry_price > 0 ? round6(c.entry_price / h.entry_price - 1) : null,
    current_weight: round6(weight),
    stage: c?.row.stage ?? null,
    signal: c?.row.signal ?? null,
    suggested_share_change: change,
    replacement_candidates: replacements,
    reasons,
  };
}

function concernsOf(book: BookState, market: MarketView): Concern[] {
  const portfolio = book.portfolio;
  const out: Concern[] = [];
  const V = book.valueCents;
  // Sector concentration.
  const sectors = [...book.sectorCents.keys()].sort(bySymbol);
  for (const sector of sectors) {
    const weight = V > 0 ? (book.sectorCents.get(sector) ?? 0) / V : 0;
    const cap = sectorCap(portfolio, sector);
    const limit = cap ?? SECTOR_CONCENTRATION_LIMIT;
    if (weight > limit + 1e-9) {
      const symbols = book.positions.filter((p) => p.sector === sector).map((p) => p.holding.symbol).sort(bySymbol);
      out.push({
        type: 'SECTOR_CONCENTRATION',
        symbols,
        score: round4(Math.min(1, (weight - limit) / limit)),
        value: round6(weight),
        threshold: limit,
        reasons: [`${sector} is ${pct(weight)} of the portfolio, above ${cap === null ? `the ${pct(limit)} concentration limit` : `its ${pct(cap)} cap`}`],
      });
    }
  }
  // Correlated pairs.
  const withReturns = book.positions.filter((p) => market.returns.has(p.holding.symbol));
  for (let i = 0; i < withReturns.length; i++) {
    for (let j = i + 1; j < withReturns.length; j++) {
      const a = withReturns[i].holding.symbol;
      const b = withReturns[j].holding.symbol;
      const rho = correlation(market.returns.returns(a) as Float64Array, market.returns.returns(b) as Float64Array);
      if (rho !== null && rho >= CORRELATED_PAIR_THRESHOLD) {
        out.push({
          type: 'CORRELATED_PAIR',
          symbols: [a, b].sort(bySymbol),
          score: round4(rho),
          value: round4(rho),
          threshold: CORRELATED_PAIR_THRESHOLD,
          reasons: [`daily returns of ${a} and ${b} correlate at ${rho.toFixed(2)} over the last year: they rise and fall together`],
        });
      }
    }
  }
  // Volatility.
  for (const p of book.positions) {
    const c = p.candidate;
    if (!c) continue;
    const hv = c.row.historical_volatility;
    const flagged = c.row.is_high_volatility === true;
    if (flagged || (hv !== null && hv >= HIGH_VOLATILITY_THRESHOLD)) {
      out.push({
        type: 'HIGH_VOLATILITY',
        symbols: [p.holding.symbol],
        score: round4(Math.min(1, hv ?? HIGH_VOLATILITY_THRESHOLD)),
        value: hv === null ? 0 : round6(hv),
        threshold: HIGH_VOLATILITY_THRESHOLD,
        reasons: [
          hv === null ? 'the analysis flags high volatility' : `historical volatility ${pct(hv)} a year${flagged ? '; the analysis flags high volatility' : ''}`,
        ],
      });
    }
  }
  const target = volTargetOf(portfolio.constraint_pack);
  if (target !== null && target > 0 && book.volatility !== null && book.volatility > target * (1 + 1e-9)) {
    out.push({
      type: 'HIGH_VOLATILITY',
      symbols: [],
      score: round4(Math.min(1, book.volatility / target - 1)),
      value: round6(book.volatility),
      threshold: target,
      reasons: [`the portfolio's volatility is ${pct(book.volatility)} a year at today's prices, above the ${pct(target)} vol target`],
    });
  }
  // Stale analysis.
  const newest = market.analysis_date;
  for (const p of book.positions) {
    const c = p.candidate;
    if (!c) {
      out.push({ type: 'STALE_ANALYSIS', symbols: [p.holding.symbol], score: 1, value: 0, threshold: 0, reasons: [`${p.holding.symbol} has no analysis snapshot`] });
    } else if (newest !== null && c.analysis_date < newest) {
      const days = daysBetween(c.analysis_date, newest);
      out.push({
        type: 'STALE_ANALYSIS',
        symbols: [p.holding.symbol],
        score: round4(Math.min(1, days / 30)),
        value: days,
        threshold: 0,
        reasons: [`the newest snapshot of ${p.holding.symbol} is from ${c.analysis_date}, ${days} days before the newest analysis (${newest})`],
      });
    }
  }
  if (newest !== null && portfolio.analysis_date !== null && daysBetween(portfolio.analysis_date, newest) >= STALE_BOOK_DAYS) {
    const days = daysBetween(portfolio.analysis_date, newest);
    out.push({
      type: 'STALE_ANALYSIS',
      symbols: [],
      score: round4(Math.min(1, days / 90)),
      value: days,
      threshold: STALE_BOOK_DAYS,
      reasons: [`the book was built from the analysis of ${portfolio.analysis_date}, ${days} days before the newest (${newest}); optimizing again would use today's snapshots`],
    });
  }
  // Broken support.
  for (const p of book.positions) {
    const c = p.candidate;
    const support = p.holding.support_at_entry;
    if (c && support !== null && c.entry_price < support) {
      const below = (support - c.entry_price) / support;
      out.push({
        type: 'BROKEN_SUPPORT',
        symbols: [p.holding.symbol],
        score: round4(Math.min(1, 10 * below)),
        value: c.entry_price,
        threshold: support,
        reasons: [`${p.holding.symbol} closed at ${c.entry_price}, ${pct(below)} below the support at ${support} that was under its entry`],
      });
    }
  }
  // Cash drag.
  const cash = V > 0 ? book.cashCents / V : 0;
  if (cash > CASH_DRAG_THRESHOLD) {
    out.push({
      type: 'CASH_DRAG',
      symbols: [],
      score: round4(Math.min(1, cash)),
      value: round6(cash),
      threshold: CASH_DRAG_THRESHOLD,
      reasons: [`${fromCents(book.cashCents)} (${pct(cash)} of the portfolio) is cash earning nothing; cash hunt suggests positions for it`],
    });
  }
  return out.sort(
    (a, b) => b.score - a.score || bySymbol(a.type, b.type) || bySymbol(a.symbols.join(','), b.symbols.join(',')),
  );
}

export function generalAssessment(portfolio: PortfolioView, market: MarketView): GeneralAssessment {
  const book = bookState(portfolio, market);
  // Decided in order of quality (then symbol), so the ADDs share the cash and risk room best-first.
  const room: BookState = { ...book, sectorCents: new Map(book.sectorCents) };
  const quality = (p: Position) => (p.candidate ? qualityOf(p.candidate) : 0);
  const recommendations = [...book.positions]
    .sort((a, b) => quality(b) - quality(a) || bySymbol(a.holding.symbol, b.holding.symbol))
    .map((p) => recommendationFor(p, book, room, market))
    .sort((a, b) => ACTION_ORDER[a.type] - ACTION_ORDER[b.type] || b.score - a.score || bySymbol(a.symbol, b.symbol));
  const ratings = recommendations.map((r) => r.rating);
  return {
    total_positions: recommendations.length,
    strong_positions: ratings.filter((r) => r === 'STRONG').length,
    weak_positions: ratings.filter((r) => r === 'WEAK').length,
    portfolio_value: fromCents(book.valueCents),
    available_cash: fromCents(book.cashCents),
    portfolio_volatility: book.volatility === null ? null : round6(book.volatility),
    recommendations,
    concerns: concernsOf(book, market),
  };
}
