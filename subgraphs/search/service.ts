/**
 * Opportunity-search use cases: hunt (general assessment, replacement, suitability) and cash hunt over a
 * caller's book (portfolio). REST handlers and GraphQL resolvers call these methods and nothing else;
 * every rule lives here or in the engine (engine/).
 *
 * A request, step by step:
 *   1. parameters, as either origin gives them (the REST query, the GraphQL arguments), are checked
 *      together against the tables of params.ts (the rules are there), every violation listed (400
 *      VALIDATION_FAILED);
 *   2. the portfolio: the caller's own book as it stands now, its holdings (`portfolio_holdings`), cash
 *      (`portfolios.cash`) and effective settings, whatever made it (optimize, holdings, import, trades);
 *      an unknown id, and another caller's, are the same 400 (spec "Opportunity-search service");
 *   3. the market: the newest analysis snapshots as candidates (the universe allocation builds books
 *      from, allocation/universe.ts), each holding's latest snapshot, and daily returns of the eligible
 *      names and the holdings on one calendar, built once per universe;
 *   4. the engine answers; the ranked list is cut to the page (only the page's ideas are written out).
 *
 * A book changes only by a request that raises its version (a trade, an applied rebalance), and an
 * answer depends only on the book at a version, the universe (the store's version of the newest
 * snapshots) and the parameters. Every call learns the book's owner and current version: on PostgreSQL
 * by one primary-key query (other processes and replicas write books too); on the embedded store, which
 * this process alone writes, from the registry of book versions (allocation/book-versions.ts: the book
 * service notes each version once its transaction has committed), asking the store only for a book the
 * registry does not know. The book's holdings are read again only when the version moved (or the
 * universe did: the kept view carries each holding's latest close), in one statement with the version
 * they are at, and kept under it; answers are kept under the version too: a
 * sale shows in the next answer, and a repeated question costs a lookup (and, on PostgreSQL, that query)
 * (bounded maps). A new analysis run changes the universe key, and with it every answer (within
 * ALLOCATION_UNIVERSE_TTL_MS).
 *
 * Who owns a portfolio: the partner whose access token optimized or created it (`sub`); hunt reads it for an OIDC
 * ID token with the same `sub`. With OIDC_ENFORCE=false (never in production) callers are not
 * identified and any portfolio id is readable.
 */
import { AppError, type ErrorDetail } from '../platform/errors.js';
import type { Principal } from '../platform/principal.js';
import type { Db } from '../platform/db.js';
import { latestSnapshots } from '../analysis/store.js';
import { candidatesFrom } from '../allocation/engine/candidates.js';
import { attachCandidateOdds } from '../allocation/kelly-odds-store.js';
import { storedBookSettings } from '../allocation/engine/optimizer.js';
import type { Candidate } from '../allocation/engine/types.js';
import { bookVersionsOf, type BookVersions } from '../allocation/book-versions.js';
import { findPortfolioHoldings, portfolioVersion, type PortfolioHoldings } from '../allocation/store.js';
import { UniverseCache, type Universe } from '../allocation/universe.js';
import { BoundedCache } from '../platform/bounded-cache.js';
import { generalAssessment } from './engine/assessment.js';
import { cashHunt as runCashHunt } from './engine/cash-hunt.js';
import { HUNT_MODES, PAGINATION, pageFields, pageWindow, paginate, type HuntMode } from './engine/pagination.js';
import { HUNT_FIELD_NAMES, checkCashHuntParams, checkHuntParams, type CashHuntRequest, type HuntRequest, type SearchParams } from './params.js';
import type { FieldNaming } from '../platform/param-table.js';
import { replacementsFor } from './engine/replacement.js';
import { ReturnsIndex, buildCalendar } from './engine/returns.js';
import { suitabilityOf } from './engine/suitability.js';
import type { CashHuntResult, GeneralAssessment, MarketView, PortfolioView, ReplacementAnalysis, SuitabilityAnalysis } from './engine/types.js';

export type { CashHuntRequest, HuntRequest };

/** spec "HuntResponse" (analysis_date: the newest analysis date the answer used). */
export interface HuntResponse {
  portfolio_id: string;
  portfolio_name: string;
  hunt_mode: HuntMode;
  general_assessment: GeneralAssessment | null;
  /** The page of candidates (the ranking's length is total_recommendations). */
  replacement_analysis: Omit<ReplacementAnalysis, 'total_candidates'> | null;
  /** The page of alternatives (their number is total_recommendations). */
  suitability_analysis: Omit<SuitabilityAnalysis, 'total_alternatives'> | null;
  page: number;
  page_size: number;
  total_recommendations: number;
  has_more: boolean;
  analysis_date: string | null;
}

/** spec "CashHuntResponse", plus the cash the recommendations leave, notes and the analysis date. */
export interface CashHuntResponse {
  portfolio_id: string;
  portfolio_name: string;
  available_cash: number;
  total_capital: number;
  recommendations: CashHuntResult['recommendations'];
  page: number;
  page_size: number;
  total_recommendations: number;
  has_more: boolean;
  cash_after: number;
  notes: string[];
  analysis_date: string | null;
}

export interface SearchServiceOptions {
  /** How long the candidate universe is used before the store is asked whether it changed (default 1 s). */
  universeTtlMs?: number;
  /** The candidate universe to use, shared with other services of the process (default: one of its own). */
  universes?: UniverseCache;
  /** Books kept in memory, each at the version last read (default 10,000). */
  maxPortfolios?: number;
  /** Answers kept in memory (default 2,000; 0: every call computes its answer). */
  maxAnswers?: number;
}

/** What search derives from one universe: its eligible names, other symbols' latest candidates, returns. */
interface SearchMarket {
  eligible: Candidate[];
  /** Latest candidates of symbols outside the newest date (null: no snapshot at all). */
  extra: Map<string, Candidate | null>;
  returns: Promise<ReturnsIndex>;
}

export class SearchService {
  private readonly universes: UniverseCache;
  private readonly markets = new WeakMap<Universe, SearchMarket>();
  /** Each book as last read: the view, and the universe its holdings' latest closes were read under. */
  private readonly portfolios: BoundedCache<string, { view: PortfolioView; universe: string }>;
  private readonly answers: BoundedCache<string, Promise<HuntResponse | CashHuntResponse>> | null;
  /** Books' versions known without asking the store (embedded store only; null on PostgreSQL). */
  private readonly versions: BookVersions | null;

  constructor(
    private readonly db: Db,
    options: SearchServiceOptions = {},
  ) {
    this.universes = options.universes ?? new UniverseCache(db, options.universeTtlMs ?? 1000);
    this.portfolios = new BoundedCache(options.maxPortfolios ?? 10_000);
    const maxAnswers = options.maxAnswers ?? 2_000;
    this.answers = maxAnswers > 0 ? new BoundedCache(maxAnswers) : null;
    this.versions = bookVersionsOf(db);
  }

  huntModes() {
    return HUNT_MODES;
  }

  pagination() {
    return PAGINATION;
  }

  /** GET /api/v1/portfolios/hunt: the mode follows the symbol parameter given (none: general). */
  async hunt(principal: Principal, given: HuntRequest): Promise<HuntResponse> {
    const p = checkHuntParams(given);
    const universe = await this.universes.get();
    const portfolio = await this.portfolioOf(principal, p.portfolioId, given.naming, universe);
    const key = `hunt|${given.naming}|${portfolio.id}|${portfolio.version}|${universe.key}|${p.mode}|${p.symbol ?? ''}|${p.page}|${p.pageSize}`;
    const compute = () => this.computeHunt(portfolio, universe, p, given.naming);
    return (this.answers ? this.answers.memo(key, compute) : compute()) as Promise<HuntResponse>;
  }

  private async computeHunt(portfolio: PortfolioView, universe: Universe, p: SearchParams, naming: FieldNaming): Promise<HuntResponse> {
    const market = await this.marketFor(universe, portfolio, p.symbol && p.mode === 'interest' ? [p.symbol] : []);
    const names = HUNT_FIELD_NAMES[naming];
    const window = pageWindow(p.page, p.pageSize);
    const respond = (
      mode: HuntMode,
      analyses: Pick<HuntResponse, 'general_assessment' | 'replacement_analysis' | 'suitability_analysis'>,
      total: number,
    ): HuntResponse => ({
      portfolio_id: portfolio.id,
      portfolio_name: portfolio.name,
      hunt_mode: mode,
      ...analyses,
      ...pageFields(p.page, p.pageSize, total),
      analysis_date: market.analysis_date,
    });

    if (p.mode === 'replace') {
      const symbol = p.symbol as string;
      if (!portfolio.holdings.some((h) => h.symbol === symbol)) {
        throw invalid([{ field: names.symbolReplace, message: `${symbol} is not held in portfolio ${portfolio.id}` }]);
      }
      const { total_candidates: total, ...analysis } = replacementsFor(portfolio, market, symbol, window);
      return respond('replace', { general_assessment: null, replacement_analysis: analysis, suitability_analysis: null }, total);
    }
    if (p.mode === 'interest') {
      const symbol = p.symbol as string;
      const candidate = market.candidate(symbol);
      if (!candidate) throw invalid([{ field: names.symbolInterest, message: `no analysis is stored for ${symbol}` }]);
      const { total_alternatives: total, ...analysis } = suitabilityOf(portfolio, market, candidate, window);
      return respond('interest', { general_assessment: null, replacement_analysis: null, suitability_analysis: analysis }, total);
    }
    const assessment = generalAssessment(portfolio, market);
    const slice = paginate(assessment.recommendations, p.page, p.pageSize);
    return respond('general', { general_assessment: { ...assessment, recommendations: slice.items }, replacement_analysis: null, suitability_analysis: null }, slice.total);
  }

  /** GET /api/v1/portfolios/cash-hunt: new positions for the book's cash. */
  async cashHunt(principal: Principal, given: CashHuntRequest): Promise<CashHuntResponse> {
    const p = checkCashHuntParams(given);
    const universe = await this.universes.get();
    const portfolio = await this.portfolioOf(principal, p.portfolioId, given.naming, universe);
    const key = `cash|${portfolio.id}|${portfolio.version}|${universe.key}|${p.page}|${p.pageSize}`;
    const compute = async (): Promise<CashHuntResponse> => {
      const market = await this.marketFor(universe, portfolio, []);
      const result = runCashHunt(portfolio, market);
      const slice = paginate(result.recommendations, p.page, p.pageSize);
      return {
        portfolio_id: portfolio.id,
        portfolio_name: portfolio.name,
        available_cash: result.available_cash,
        total_capital: result.portfolio_value,
        recommendations: slice.items,
        ...pageFields(p.page, p.pageSize, slice.total),
        cash_after: result.cash_after,
        notes: result.notes,
        analysis_date: market.analysis_date,
      };
    };
    return (this.answers ? this.answers.memo(key, compute) : compute()) as Promise<CashHuntResponse>;
  }

  /**
   * The caller's book as the engine reads it, at its current version; 400 for an unknown id and for
   * another caller's (the same answer). The owner and version: on the embedded store from the registry
   * of book versions once it knows the book (every write is this process's), else read from the store
   * every call (PostgreSQL: other processes write too); the holdings only when the version is not the
   * one kept, or the universe is not the one they were read under: the view carries each holding's
   * latest close (what a holding without a snapshot is priced at), which is market data, and new bars
   * come with a new analysis run, so with a new universe key. The universe is the caller's (read once
   * for the whole answer), else the current one.
   */
  private async portfolioOf(principal: Principal, id: string, naming: FieldNaming, given?: Universe): Promise<PortfolioView> {
    const universe = given ?? (await this.universes.get());
    const owner = ownerOf(principal);
    const key = id.toLowerCase();
    const unknown = () => invalid([{ field: HUNT_FIELD_NAMES[naming].portfolioId, message: `no portfolio ${id} among yours` }]);
    const versions = this.versions;
    let head = versions?.get(key);
    if (!head) {
      const mark = versions?.mark();
      const read = await portfolioVersion(this.db, key);
      if (read) {
        head = { owner: read.partnerId, version: read.version };
        versions?.note(key, head.owner, head.version, mark);
      }
    }
    if (!head || (owner !== null && head.owner !== owner)) throw unknown();
    const kept = this.portfolios.get(key);
    if (kept && kept.view.version >= head.version && kept.universe === universe.key) return kept.view;
    const mark = versions?.mark();
    // One statement: the holdings and cash come with the version they are at, and are kept under it.
    const stored = await findPortfolioHoldings(this.db, key);
    // Gone, or handed to someone else, between the two reads: the same answer as an unknown id.
    if (!stored || (owner !== null && stored.partnerId !== owner)) throw unknown();
    versions?.note(key, stored.partnerId, stored.version, mark);
    const view = toView(stored);
    this.portfolios.set(key, { view, universe: universe.key });
    return view;
  }

  /** The market view for a portfolio (and extra symbols): universe candidates, latest snapshots of the rest, returns. */
  private async marketFor(universe: Universe, portfolio: PortfolioView, extraSymbols: readonly string[]): Promise<MarketView> {
    let state = this.markets.get(universe);
    if (!state) {
      const eligible = universe.candidates.filter((c) => c.eligible);
      // The calendar is the eligible names' (or, with none, every candidate's): a function of the universe alone.
      const calendarFrom = eligible.length ? eligible : universe.candidates;
      const returns = (async () => {
        const closes = await this.universes.closesFor(universe, calendarFrom.map((c) => c.symbol));
        const index = new ReturnsIndex(universe.analysisDate ? buildCalendar(closes.values(), universe.analysisDate) : []);
        for (const c of eligible) index.add(c.symbol, closes.get(c.symbol) as { dates: string[]; closes: number[] });
        return index;
      })();
      state = { eligible, extra: new Map(), returns };
      this.markets.set(universe, state);
      const entry = state;
      returns.catch(() => {
        if (this.markets.get(universe) === entry) this.markets.delete(universe);
      });
    }
    const symbols = [...new Set([...portfolio.holdings.map((h) => h.symbol), ...extraSymbols])];
    const unknown = symbols.filter((s) => !universe.bySymbol.has(s) && !state.extra.has(s));
    if (unknown.length) {
      const snapshots = (await latestSnapshots(this.db, unknown)).map((s) => ({ sector: null, docText: s.docText }));
      // Kelly's odds of each from the table in force on its own snapshot's date (the rating's Kelly part).
      const found = new Map((await attachCandidateOdds(this.db, candidatesFrom(snapshots))).map((c) => [c.symbol, c]));
      for (const s of unknown) state.extra.set(s, found.get(s) ?? null);
    }
    const returns = await state.returns;
    const missing = symbols.filter((s) => !returns.has(s));
    if (missing.length) {
      const closes = await this.universes.closesFor(universe, missing);
      for (const s of missing) if (!returns.has(s)) returns.add(s, closes.get(s) as { dates: string[]; closes: number[] });
    }
    const extra = state.extra;
    return {
      analysis_date: universe.analysisDate,
      candidate: (symbol) => universe.bySymbol.get(symbol) ?? extra.get(symbol) ?? undefined,
      eligible: state.eligible,
      returns,
    };
  }
}

// ---------------------------------------------------------------------------------------------------------

/**
 * A book as the engine reads it: its effective settings with every default applied (the book's own
 * rule, storedBookSettings), entry_price its cost basis as the book states it (4 decimals), last_close
 * the latest close.
 */
function toView(stored: PortfolioHoldings): PortfolioView {
  const settings = storedBookSettings(stored.effectiveSettings);
  return {
    id: stored.id,
    name: stored.name,
    version: stored.version,
    available_cash: stored.cash,
    analysis_date: stored.analysisDate,
    risk_settings: settings.risk_settings,
    constraint_pack: settings.constraint_pack,
    holdings: stored.positions.map((x) => ({
      symbol: x.symbol,
      sector: x.sector,
      shares: x.shares,
      entry_price: x.entryPrice,
      last_close: x.price ?? null,
      stop_loss: x.stopLoss ?? null,
      target_price: x.targetPrice ?? null,
      support_at_entry: x.supportAtEntry ?? null,
    })),
  };
}

function invalid(details: ErrorDetail[]): AppError {
  return new AppError('VALIDATION_FAILED', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
}


/** The owner whose portfolios the caller may read: the OIDC subject; null (any) when callers are not identified. */
function ownerOf(principal: Principal): string | null {
  if (principal.kind === 'oidc') return principal.subject;
  if (principal.kind === 'partner') return principal.partnerId;
  return null;
}

