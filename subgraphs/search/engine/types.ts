/**
 * The search engine's contract: a partner's book as it stands now (holdings, cash, settings) and the
 * market as the newest analysis snapshots see it go in; the hunt (general assessment, replacement, suitability) and cash-hunt answers come out.
 * Plain data; the engine functions are pure and deterministic (no clock, no randomness, no I/O). Field
 * names are the REST names (snake_case); docs/SEARCH.md documents every field.
 */
import type { RiskSettings } from '../../allocation/engine/risk-settings.js';
import type { Candidate, ConstraintPack } from '../../allocation/engine/types.js';
import type { Signal, StageLabel } from '../../analysis/engine/document.js';
import type { ReturnsIndex } from './returns.js';

/** One holding of a book (allocation's `portfolio_holdings` row). */
export interface Holding {
  symbol: string;
  /** Sector stored with the holding (null for holdings stored without one). */
  sector: string | null;
  shares: number;
  /** Average price paid per share (the cost basis; an optimize book's entry price). */
  entry_price: number;
  /** The symbol's latest close in the store (null without one): its price when it has no snapshot. */
  last_close: number | null;
  /** The holding's own stop (null when it has none: book.ts takes its latest snapshot's stop, else 0). */
  stop_loss: number | null;
  target_price: number | null;
  /** The highest support level below the entry when the book was built, null when there was none. */
  support_at_entry: number | null;
}

/** A book as search reads it: what it holds and its cash now, at one version. */
export interface PortfolioView {
  id: string;
  name: string;
  /** The book's version (1, then +1 per recorded trade or applied rebalance). */
  version: number;
  /** The book's cash: what is available to deploy. */
  available_cash: number;
  /** Analysis date an optimize book was built from (null for books created from holdings or imported). */
  analysis_date: string | null;
  /** The book's effective settings (every default filled). */
  risk_settings: RiskSettings;
  constraint_pack: ConstraintPack | null;
  /** In the book's order (optimize rank, input order, then positions opened later). */
  holdings: Holding[];
}

/** The market: the newest candidates, each holding's latest candidate, and daily returns. */
export interface MarketView {
  /** The newest analysis date (null when nothing has been analysed). */
  analysis_date: string | null;
  /** The latest candidate of a symbol (its newest snapshot, which may be older than analysis_date). */
  candidate(symbol: string): Candidate | undefined;
  /** Eligible candidates (long rule) of the newest date, in symbol order. */
  eligible: readonly Candidate[];
  /** Returns of (at least) the holdings and the eligible candidates. */
  returns: ReturnsIndex;
}

export type HoldingRating = 'STRONG' | 'WEAK' | 'NEUTRAL';
export type RecommendationType = 'EXIT' | 'REPLACE' | 'TRIM' | 'ADD' | 'HOLD';
export type ConcernType = 'SECTOR_CONCENTRATION' | 'CORRELATED_PAIR' | 'HIGH_VOLATILITY' | 'STALE_ANALYSIS' | 'BROKEN_SUPPORT' | 'CASH_DRAG';
export type Verdict = 'SUITABLE' | 'CAUTION' | 'UNSUITABLE';

/** A new position for the portfolio: a replacement, a cash-hunt idea or a suitability alternative. */
export interface Idea {
  symbol: string;
  sector: string;
  /** fit.ts: signal quality and stage minus correlation, sector overweight and added risk. */
  fit_score: number;
  /** The quality part alone (the allocation engine's HYBRID_WEIGHTED blend), 0..1. */
  signal_quality: number;
  stage: StageLabel | null;
  signal: Signal | null;
  shares: number;
  entry_price: number;
  stop_loss: number;
  target_price: number | null;
  position_value: number;
  /** shares x (entry - stop). */
  risk_amount: number;
  risk_reward_ratio: number;
  /** position_value / portfolio value. */
  percent_of_portfolio: number;
  /** Correlation of the symbol's daily returns with the portfolio's (null when unmeasurable). */
  correlation_to_portfolio: number | null;
  /** Sector weight (fraction of portfolio value) with this position. */
  sector_weight_after: number;
  /** Annualised portfolio volatility with this position minus without it. */
  added_volatility: number;
  reasons: string[];
}

export interface HuntRecommendation {
  type: RecommendationType;
  symbol: string;
  sector: string;
  /** 0..1: how strongly the evidence points to this action (see assessment.ts). */
  score: number;
  rating: HoldingRating;
  shares: number;
  current_price: number | null;
  /** The holding's cost basis per share. */
  entry_price: number;
  /** The stop its risk is measured at: its own, else its latest snapshot's, else 0 (book.ts). */
  stop_loss: number;
  /** current_price / entry_price - 1 (null without a current price, or with a cost basis of 0). */
  unrealized_return: number | null;
  /** Current value / portfolio value. */
  current_weight: number;
  stage: StageLabel | null;
  signal: Signal | null;
  /** Shares to buy (positive) or sell (negative); 0 for HOLD. */
  suggested_share_change: number;
  /** REPLACE only: the best replacements (at most 3); [] otherwise. */
  replacement_candidates: Idea[];
  reasons: string[];
}

export interface Concern {
  type: ConcernType;
  /** The holdings concerned ([] for the whole portfolio). */
  symbols: string[];
  /** 0..1 severity. */
  score: number;
  /** The measured figure (a weight, a correlation, a volatility, a number of days) and the limit it broke. */
  value: number;
  threshold: number;
  reasons: string[];
}

export interface GeneralAssessment {
  total_positions: number;
  strong_positions: number;
  weak_positions: number;
  /** Portfolio value at the newest prices: positions plus cash. */
  portfolio_value: number;
  available_cash: number;
  /** Annualised volatility of the current book (null when unmeasurable). */
  portfolio_volatility: number | null;
  /** One per holding, ordered by action (EXIT, REPLACE, TRIM, ADD, HOLD), then score, then symbol; paginated. */
  recommendations: HuntRecommendation[];
  /** Every concern (not paginated), most severe first. */
  concerns: Concern[];
}

export interface ReplacementAnalysis {
  symbol: string;
  sector: string;
  shares: number;
  current_price: number | null;
  /** shares x current price: what selling the holding frees. */
  freed_capital: number;
  rating: HoldingRating;
  /** Why the holding is rated as it is. */
  reasons: string[];
  /** Ranked by fit_score: the requested window of the ranking (all of it unless a window is given). */
  candidates: Idea[];
  /** Length of the whole ranking. */
  total_candidates: number;
  notes: string[];
}

export interface SectorEffect {
  sector: string;
  weight_before: number;
  weight_after: number;
  /** The portfolio's cap for the sector (null when it has none). */
  cap: number | null;
}

export interface SuitabilityAnalysis {
  symbol: string;
  verdict: Verdict;
  fit_score: number;
  signal_quality: number;
  stage: StageLabel | null;
  signal: Signal | null;
  eligible: boolean;
  already_held: boolean;
  analysis_date: string;
  /** Suggested (additional) shares under the risk settings, cash aside. */
  suggested_shares: number;
  suggested_value: number;
  /** Whether the available cash pays for the suggested shares. */
  fundable_from_cash: boolean;
  entry_price: number;
  stop_loss: number;
  target_price: number | null;
  risk_amount: number;
  sector_effect: SectorEffect;
  correlation_to_portfolio: number | null;
  most_correlated_holding: { symbol: string; correlation: number } | null;
  portfolio_volatility_before: number | null;
  portfolio_volatility_after: number | null;
  vol_target_annual: number | null;
  reasons: string[];
  /** Not-held names of the same sector with a higher fit score: the requested window (all unless given). */
  alternatives: Idea[];
  /** Length of the whole list of alternatives. */
  total_alternatives: number;
}

export interface CashHuntResult {
  available_cash: number;
  /** The portfolio value V the ideas are sized against: holdings at the newest prices plus cash. */
  portfolio_value: number;
  /** Ranked in buying order; paginated. */
  recommendations: Idea[];
  /** Cash left after every recommendation is bought. */
  cash_after: number;
  notes: string[];
}
