/**
 * A book at the newest prices, how much of a name it may still take, and how well a new
 * name fits it. Everything opportunity search recommends is sized and scored here, so the three hunt
 * modes and cash hunt agree.
 *
 * Book state (`bookState`), read from the book as it stands now (any book: optimized, created from
 * holdings, imported, traded):
 * - A holding's current price is its latest snapshot's close (the candidate's entry price); without a
 *   snapshot, its latest close in the store; without either, its cost basis per share. Value = shares x price; the portfolio value V = the holdings'
 *   value plus the book's cash. Money runs in integer cents.
 * - A holding's sector: the one stored with the holding, else its snapshot's, else `Unclassified`.
 * - A holding's stop (`stopOf`): its own stop_loss; a holding without one takes its latest snapshot's
 *   suggested stop (the candidate's stop_loss); without a snapshot either, 0: the whole value is at risk.
 * - Open risk of a holding = shares x max(0, price - stop). Holdings already above a cap (a weight over
 *   max_position_size, a sector over its cap, open risk over a budget) leave no room under that cap:
 *   sizing gives 0 shares there, never a negative number.
 * - The book's daily return series is the value-weighted sum of its holdings' returns (returns.ts).
 * - `exclude` removes one holding as if it were sold for cash: V is unchanged (a replacement is sized
 *   in the same portfolio), its value, risk, sector weight and returns leave the book.
 *
 * Sizing (`sizeIdea`), under the portfolio's effective risk settings and constraint pack as the allocation
 * engine reads them (allocation/engine/constraints.ts, `BookState.caps`); shares =
 * floor(min(limits) / entry) with the limits, in cents of position value:
 * - cash: the budget given (the freed capital of a replacement, the cash left in a cash hunt; none for
 *   a suitability size);
 * - max_position_size: min(max_position_size, sector_caps.DEFAULT) x V, less what is already held of it;
 * - sector cap: sector_caps[sector] x V less the sector's current value (no limit without a cap);
 * - max_risk_per_trade: (max_risk_per_trade x V - the name's open risk) / (entry - stop) shares;
 * - max_portfolio_risk: (max_portfolio_risk x V - the book's open risk) / (entry - stop) shares.
 * The limit that gives the fewest shares is reported as `bound`.
 *
 * Fit (`scoreIdea`; `ideaFrom` writes the idea out with its reasons, `ideaFor` does both), in score
 * points; the quality is the allocation engine's HYBRID_WEIGHTED blend
 * (hybridBlend: 0.35 stage x strength, 0.35 conviction, 0.20 Kelly edge, 0.10 relative strength, 0..1):
 *   fit_score = quality
 *             - 0.25 x max(0, correlation with the book's returns)      (unknown: counted as 0.5)
 *             - 2 x max(0, sector weight after - sector limit)          (limit: the cap, else 0.35)
 *             - 2 x max(0, added annualised volatility of the book)
 * With an empty book the correlation part is 0. Rounded to 4 decimals; ties break by symbol. The fit
 * is never above the quality, which lets `topRanked` find the first k of a ranking without scoring
 * every name.
 */
import { hybridBlend } from '../../allocation/engine/strategies.js';
import type { Candidate } from '../../allocation/engine/types.js';
import { capsOf, sectorCapFor, type Caps } from '../../allocation/engine/constraints.js';
import { fromCents, toCents } from '../../allocation/engine/money.js';
import { UNCLASSIFIED_SECTOR } from '../../allocation/engine/candidates.js';
import { MIN_OVERLAP, annualVolatility, correlation, moments, volatilityWith, weightedSeries, type Moments } from './returns.js';
import type { Window } from './pagination.js';
import type { Holding, Idea, MarketView, PortfolioView } from './types.js';
import { bySymbol, pct, round4, round6 } from './numbers.js';

export const FIT_WEIGHTS = Object.freeze({ correlation: 0.25, sectorOverweight: 2, addedVolatility: 2 });
/** Correlation assumed for a name whose returns cannot be measured (fewer than MIN_OVERLAP common days). */
export const UNKNOWN_CORRELATION = 0.5;
/** Sector weight above which a sector without a cap counts as concentrated. */
export const SECTOR_CONCENTRATION_LIMIT = 0.35;

export type SizeBound = 'cash' | 'max_position_size' | 'sector_cap' | 'max_risk_per_trade' | 'max_portfolio_risk';

export interface Position {
  holding: Holding;
  candidate: Candidate | undefined;
  sector: string;
  priceCents: number;
  valueCents: number;
  /** The stop its risk is measured at (`stopOf`), and where it came from. */
  stop: HoldingStop;
  riskCents: number;
}

/** Where a holding's stop comes from: its own, its latest snapshot's suggested stop, or none (0). */
export type StopSource = 'holding' | 'snapshot' | 'none';

export interface HoldingStop {
  price: number;
  source: StopSource;
}

/** A holding's stop for risk (header: Book state): its own, else its snapshot's, else 0. */
export function stopOf(holding: Holding, candidate: Candidate | undefined): HoldingStop {
  if (holding.stop_loss !== null) return { price: holding.stop_loss, source: 'holding' };
  if (candidate) return { price: candidate.stop_loss, source: 'snapshot' };
  return { price: 0, source: 'none' };
}

export interface BookState {
  portfolio: PortfolioView;
  /** Portfolio value V in cents (positions at the newest prices plus cash). */
  valueCents: number;
  cashCents: number;
  /** The positions in the book (without an excluded one), best-ranked first. */
  positions: Position[];
  /** The excluded position (sold for cash), when one was excluded and is held. */
  excluded: Position | undefined;
  sectorCents: Map<string, number>;
  riskCents: number;
  /** The portfolio's caps (risk settings under its constraint pack). */
  caps: Caps;
  /** min(max_position_size, sector_caps.DEFAULT): caps.nameCap. */
  nameCap: number;
  series: Float64Array;
  seriesMoments: Moments;
  /** Annualised volatility of the book (null when there are fewer than MIN_OVERLAP returns). */
  volatility: number | null;
}


export function sectorOf(holding: Holding, candidate: Candidate | undefined): string {
  return holding.sector ?? candidate?.sector ?? UNCLASSIFIED_SECTOR;
}

/** The portfolio's cap for a sector (null when it has none). */
export function sectorCap(portfolio: PortfolioView, sector: string): number | null {
  return sectorCapFor(portfolio.constraint_pack, sector);
}

export function bookState(portfolio: PortfolioView, market: MarketView, exclude?: string): BookState {
  const all: Position[] = portfolio.holdings.map((holding) => {
    const candidate = market.candidate(holding.symbol);
    const priceCents = toCents(candidate?.entry_price ?? holding.last_close ?? holding.entry_price);
    const stop = stopOf(holding, candidate);
    return {
      holding,
      candidate,
      sector: sectorOf(holding, candidate),
      priceCents,
      valueCents: holding.shares * priceCents,
      stop,
      riskCents: holding.shares * Math.max(0, priceCents - toCents(stop.price)),
    };
  });
  const cashCents = toCents(portfolio.available_cash);
  const valueCents = cashCents + all.reduce((sum, p) => sum + p.valueCents, 0);
  const positions = exclude === undefined ? all : all.filter((p) => p.holding.symbol !== exclude);
  const excluded = exclude === undefined ? undefined : all.find((p) => p.holding.symbol === exclude);
  const sectorCents = new Map<string, number>();
  for (const p of positions) sectorCents.set(p.sector, (sectorCents.get(p.sector) ?? 0) + p.valueCents);
  const length = market.returns.length;
  const series = weightedSeries(
    positions.map((p) => ({ weight: valueCents > 0 ? p.valueCents / valueCents : 0, returns: market.returns.returns(p.holding.symbol) })),
    length,
  );
  const caps = capsOf(portfolio.risk_settings, portfolio.constraint_pack);
  return {
    portfolio,
    valueCents,
    cashCents,
    positions,
    excluded,
    sectorCents,
    riskCents: positions.reduce((sum, p) => sum + p.riskCents, 0),
    caps,
    nameCap: caps.nameCap,
    series,
    seriesMoments: moments(series),
    volatility: length >= MIN_OVERLAP ? annualVolatility(series) : null,
  };
}

export interface Size {
  shares: number;
  bound: SizeBound | null;
}

/** Shares of a name already in the book, and their open risk (at the holding's stop, `stopOf`). */
export interface Held {
  shares: number;
  riskCents: number;
}

/**
 * Shares of `c` the book can take (header: Sizing); `budgetCents` null means cash is not a limit.
 * `held` shares of the same name already in the book count against its caps. With `nameLimitsOnly`
 * only the limits of the name itself apply (max_position_size and max_risk_per_trade): the size the
 * settings give the name on its own, whatever room the rest of the book leaves.
 */
export function sizeIdea(c: Candidate, book: BookState, budgetCents: number | null, held: Held | null = null, nameLimitsOnly = false): Size {
  const heldShares = held?.shares ?? 0;
  const entry = toCents(c.entry_price);
  const risk = entry - toCents(c.stop_loss);
  if (!(entry > 0) || !(risk > 0)) return { shares: 0, bound: null };
  const caps = book.caps;
  const V = book.valueCents;
  const cap = sectorCap(book.portfolio, c.sector);
  // Each limit in (fractional) shares.
  const limits: Array<[SizeBound, number]> = [
    ['max_position_size', (book.nameCap * V - heldShares * entry) / entry],
    ['max_risk_per_trade', (caps.maxRiskPerTrade * V - (held?.riskCents ?? 0)) / risk],
  ];
  if (!nameLimitsOnly) {
    limits.push(['max_portfolio_risk', (caps.maxPortfolioRisk * V - book.riskCents) / risk]);
    if (cap !== null) limits.push(['sector_cap', (cap * V - (book.sectorCents.get(c.sector) ?? 0)) / entry]);
    if (budgetCents !== null) limits.push(['cash', budgetCents / entry]);
  }
  let best: [SizeBound, number] = limits[0];
  for (const l of limits) if (l[1] < best[1]) best = l;
  // Float slack: a limit a hair (1e-9 share) under a whole share still buys it.
  return { shares: Math.max(0, Math.floor(best[1] + 1e-9)), bound: best[0] };
}

/** The book's correlation with a symbol, or null (unmeasurable, or an empty book). */
export function correlationToBook(book: BookState, market: MarketView, symbol: string): number | null {
  if (book.positions.length === 0) return null;
  const x = market.returns.returns(symbol);
  return x ? correlation(x, book.series) : null;
}

/** Annualised volatility of the book with `shares` of `c` added, minus without (0 when unmeasurable). */
export function addedVolatility(book: BookState, market: MarketView, c: Candidate, shares: number): number {
  if (book.volatility === null || book.valueCents <= 0) return 0;
  const w = (shares * toCents(c.entry_price)) / book.valueCents;
  const after = volatilityWith(book.series, book.seriesMoments, market.returns.returns(c.symbol), market.returns.moments(c.symbol), w);
  return after - book.volatility;
}

export function qualityOf(c: Candidate): number {
  return round4(hybridBlend(c));
}

/** The numbers behind an idea's fit score (header: Fit); cheap enough to compute for every candidate. */
export interface IdeaScore {
  quality: number;
  /** Correlation with the book's returns (null: unmeasurable or an empty book). */
  rho: number | null;
  /** Position value in cents. */
  valueCents: number;
  sectorAfter: number;
  /** The sector's cap, else SECTOR_CONCENTRATION_LIMIT. */
  limit: number;
  overweight: number;
  addedVol: number;
  /** Rounded to 4 decimals. */
  fit: number;
}

export function scoreIdea(c: Candidate, book: BookState, market: MarketView, shares: number): IdeaScore {
  const valueCents = shares * toCents(c.entry_price);
  const V = book.valueCents;
  const quality = qualityOf(c);
  const rho = correlationToBook(book, market, c.symbol);
  const rhoCounted = book.positions.length === 0 ? 0 : (rho ?? UNKNOWN_CORRELATION);
  const sectorAfter = V > 0 ? ((book.sectorCents.get(c.sector) ?? 0) + valueCents) / V : 0;
  const limit = sectorCap(book.portfolio, c.sector) ?? SECTOR_CONCENTRATION_LIMIT;
  const overweight = Math.max(0, sectorAfter - limit);
  const addedVol = addedVolatility(book, market, c, shares);
  const fit =
    quality -
    FIT_WEIGHTS.correlation * Math.max(0, rhoCounted) -
    FIT_WEIGHTS.sectorOverweight * overweight -
    FIT_WEIGHTS.addedVolatility * Math.max(0, addedVol);
  return { quality, rho, valueCents, sectorAfter, limit, overweight, addedVol, fit: round4(fit) };
}

/** `c` as an idea of `size` for the book, from its score: figures and reasons. */
export function ideaFrom(c: Candidate, book: BookState, size: Size, score: IdeaScore): Idea {
  const shares = size.shares;
  const { quality, rho, valueCents, sectorAfter, limit, overweight, addedVol } = score;
  const riskCents = shares * (toCents(c.entry_price) - toCents(c.stop_loss));
  const V = book.valueCents;
  const reasons = [`signal quality ${quality.toFixed(2)}: ${c.row.stage ?? 'no stage'}${c.row.stage_strength ? ` (${c.row.stage_strength})` : ''}, signal ${c.row.signal ?? 'none'}`];
  if (book.positions.length === 0) reasons.push('the portfolio holds nothing else yet, so correlation does not count');
  else if (rho === null) reasons.push(`correlation with the portfolio unmeasurable (fewer than ${MIN_OVERLAP} common days); counted as ${UNKNOWN_CORRELATION}`);
  else reasons.push(`correlation with the portfolio ${rho.toFixed(2)}${rho > 0 ? ` (-${(FIT_WEIGHTS.correlation * rho).toFixed(2)})` : ''}`);
  reasons.push(
    overweight > 0
      ? `${c.sector} would be ${pct(sectorAfter)} of the portfolio, above its ${pct(limit)} limit (-${(FIT_WEIGHTS.sectorOverweight * overweight).toFixed(2)})`
      : `${c.sector} would be ${pct(sectorAfter)} of the portfolio (limit ${pct(limit)})`,
  );
  if (addedVol > 0) reasons.push(`adds ${(addedVol * 100).toFixed(2)} points of annual volatility (-${(FIT_WEIGHTS.addedVolatility * addedVol).toFixed(2)})`);
  else if (addedVol < 0) reasons.push(`lowers the portfolio's annual volatility by ${(-addedVol * 100).toFixed(2)} points`);
  if (c.target_price !== null) reasons.push(`target ${c.target_price} from ${c.target_source}, reward/risk ${c.risk_reward_ratio}`);
  if (size.bound) reasons.push(`${shares} shares, limited by ${size.bound}`);

  return {
    symbol: c.symbol,
    sector: c.sector,
    fit_score: score.fit,
    signal_quality: quality,
    stage: c.row.stage,
    signal: c.row.signal,
    shares,
    entry_price: c.entry_price,
    stop_loss: c.stop_loss,
    target_price: c.target_price,
    position_value: fromCents(valueCents),
    risk_amount: fromCents(riskCents),
    risk_reward_ratio: c.risk_reward_ratio,
    percent_of_portfolio: V > 0 ? round6(valueCents / V) : 0,
    correlation_to_portfolio: rho === null ? null : round4(rho),
    sector_weight_after: round6(sectorAfter),
    added_volatility: round6(addedVol),
    reasons,
  };
}

/** `c` as an idea of `size` for the book: figures, fit score and reasons (header: Fit). */
export function ideaFor(c: Candidate, book: BookState, market: MarketView, size: Size): Idea {
  return ideaFrom(c, book, size, scoreIdea(c, book, market, size.shares));
}

/** A candidate sized and scored for a book, before its idea is written out. */
export interface Ranked {
  candidate: Candidate;
  size: Size;
  score: IdeaScore;
}

/** Ranking order: fit score descending, then symbol (the same order as byFit on the ideas). */
export function byScore(a: Ranked, b: Ranked): number {
  return b.score.fit - a.score.fit || bySymbol(a.candidate.symbol, b.candidate.symbol);
}

/**
 * The first `count` entries of the ranking of `sized` (byScore order), exactly, without scoring every
 * name: a fit score is never above the name's quality (the penalties only subtract), so once `count`
 * names are scored, a name whose quality is below the count-th best fit cannot enter, nor can any name
 * of lower quality. Names are scored in quality order (ties by symbol) until that bound holds.
 */
export function topRanked(sized: ReadonlyArray<{ candidate: Candidate; size: Size }>, count: number, score: (c: Candidate, shares: number) => IdeaScore): Ranked[] {
  if (!(count >= 1)) return [];
  const order = sized
    .map((s) => ({ ...s, quality: qualityOf(s.candidate) }))
    .sort((a, b) => b.quality - a.quality || bySymbol(a.candidate.symbol, b.candidate.symbol));
  const top: Ranked[] = [];
  for (const s of order) {
    if (top.length >= count && s.quality < top[count - 1].score.fit) break;
    const entry: Ranked = { candidate: s.candidate, size: s.size, score: score(s.candidate, s.size.shares) };
    // Insert in ranking order (the list stays short: count entries plus one).
    let at = top.length;
    while (at > 0 && byScore(entry, top[at - 1]) < 0) at--;
    top.splice(at, 0, entry);
    if (top.length > count) top.pop();
  }
  return top;
}

/** The window of a ranked list as ideas (only those are written out, with their reasons). */
export function ideasIn(ranked: readonly Ranked[], book: BookState, window: Window): Idea[] {
  return ranked.slice(window.offset, window.offset + window.limit).map((r) => ideaFrom(r.candidate, book, r.size, r.score));
}

/** Ranking order of ideas: fit score descending, then symbol. */
export function byFit(a: Idea, b: Idea): number {
  return b.fit_score - a.fit_score || bySymbol(a.symbol, b.symbol);
}

/** The symbols a book holds (all holdings, an excluded one included). */
export function heldSymbols(portfolio: PortfolioView): Set<string> {
  return new Set(portfolio.holdings.map((h) => h.symbol));
}
