/**
 * The allocation engine's contract: what goes in (candidates built from stored analysis snapshots, the
 * effective risk settings and constraint pack, an optional prior book, daily closes for the covariance)
 * and what comes out (whole-share positions in the spec's PortfolioAllocation shape, and the spec's
 * OptimizerDiagnosticsV1 with a note for every constraint that bound).
 *
 * Everything here is plain data: the engine functions are pure and deterministic (same input, same
 * output, no clock, no randomness, no I/O).
 */
import type { StageLabel, StageNumber, StageStrength, Signal } from '../../analysis/engine/document.js';
import type { RiskSettings } from './risk-settings.js';

/** spec "ConstraintPackV1". Fractions are of total capital; turnover is one-way and annual. */
export interface ConstraintPack {
  schema_version: string;
  max_portfolio_turnover_annual: number | null;
  vol_target_annual: number | null;
  /** Max weight per sector label; the `DEFAULT` key is a per-name cap merged with max_position_size. */
  sector_caps: Record<string, number> | null;
  /** Reserved by the spec; echoed, not used (the covariance is always Ledoit-Wolf). */
  covariance_model: string | null;
}

export const CONSTRAINT_PACK_SCHEMA_VERSION = '1';
export const DIAGNOSTICS_SCHEMA_VERSION = '1';
/** The key of `sector_caps` that is a per-name cap rather than a sector. */
export const DEFAULT_SECTOR_KEY = 'DEFAULT';

/** A support or resistance level as an allocation row carries it (spec: objects with price and strength). */
export interface LevelRef {
  price: number;
  strength: number | null;
}

/**
 * The snapshot fields an allocation row repeats (spec "PortfolioAllocation"), copied from the candidate's
 * latest snapshot; null where the snapshot has no value.
 */
export interface SnapshotRowFields {
  stage: StageLabel | null;
  stage_strength: StageStrength | null;
  entry_date: string | null;
  signal: Signal | null;
  signal_confidence: number | null;
  signal_reason: string | null;
  bb_width: number | null;
  atr: number | null;
  atr_percent: number | null;
  volatility_trend: string | null;
  is_high_volatility: boolean | null;
  volatility_stop_loss_levels: Record<string, number | null> | null;
  historical_volatility: number | null;
  support_levels: LevelRef[] | null;
  resistance_levels: LevelRef[] | null;
}

/** Where a candidate's target price came from (first that exists, in this order). */
export type TargetSource = 'pattern' | 'resistance' | 'atr';

/**
 * One symbol of the universe as the optimizer sees it, built from its latest snapshot
 * (engine/candidates.ts). Prices are rounded to cents; `stop_loss < entry_price` always.
 */
export interface Candidate {
  symbol: string;
  /** GICS sector label of the snapshot; `Unclassified` when the snapshot has none. */
  sector: string;
  /** Date of the snapshot the candidate comes from. */
  analysis_date: string;
  /** Whether the long rule admits it (see candidates.ts); ineligible candidates can only be held via a prior book. */
  eligible: boolean;
  /** Why it is not eligible (null when eligible). */
  exclusion: string | null;
  entry_price: number;
  stop_loss: number;
  target_price: number | null;
  target_source: TargetSource | null;
  /** (target - entry) / (entry - stop); 0 when there is no target above entry. */
  risk_reward_ratio: number;
  /** (entry - stop) / entry: the fraction of a position lost at the stop. */
  stop_distance: number;
  stage_number: StageNumber | null;
  /** Factor of the stage strength: VERY_STRONG 1, STRONG 0.75, MODERATE 0.5, WEAK 0.25 (0.5 when unknown). */
  strength_factor: number;
  /** 0..1, the blended (enhanced) signal's confidence, else the rules signal's. */
  confidence: number;
  /**
   * Kelly's p: the measured chance that the price reaches the target before the stop for past candidates
   * in the same state (engine/kelly-odds.ts); null until odds are attached, or when they are unknown.
   */
  win_probability: number | null;
  /** Where win_probability came from (state, trades, as-of date); absent or null until odds are attached. */
  kelly_odds?: KellyOdds | null;
  /** Mansfield relative strength (percent, about -50..50), null when unknown. */
  relative_strength: number | null;
  /** The snapshot's aggregated pattern signal (direction and net confidence), null when it has none. */
  pattern_signal: { direction: 'BULLISH' | 'BEARISH' | 'NEUTRAL'; net_confidence: number } | null;
  row: SnapshotRowFields;
}

/** Where a candidate's Kelly p came from (engine/kelly-odds.ts). */
export interface KellyOdds {
  /** The measured chance of the target first; null when unknown (then Kelly gives no position). */
  p: number | null;
  /** The no-edge reference p0 = (entry - stop) / (target - stop) (null when the candidate is not a trade). */
  p0: number | null;
  /** e.g. 'STAGE 2 STRONG/pattern' (null when the candidate is not a trade). */
  state: string | null;
  /** 'state': the state's own fit; 'pooled': the pooled fit (the state is below its minimum); null: unknown. */
  source: 'state' | 'pooled' | null;
  /** Trades and non-overlapping windows behind the fit used (0 when none). */
  n: number;
  windows: number;
  /** The as-of date of the odds table used (null when none was measured). */
  as_of: string | null;
  /** Why p is unknown, or why the pooled fit was used (null when the state's own fit was). */
  reason: string | null;
}

/** Daily closes of one symbol, oldest first (`dates[i]` is the date of `closes[i]`). */
export interface CloseSeries {
  dates: readonly string[];
  closes: readonly number[];
}

export interface OptimizeInput {
  total_capital: number;
  /** Effective settings: every default already applied. */
  risk_settings: RiskSettings;
  /** The request's pack, or null when none was supplied. */
  constraint_pack: ConstraintPack | null;
  /** symbol -> fraction of total capital held before this optimize; null when there is no prior book. */
  prior_book_weights: Readonly<Record<string, number>> | null;
  /** The universe: every symbol's latest snapshot as a candidate (eligible or not). */
  candidates: readonly Candidate[];
  /**
   * Daily closes of (at least) the symbols `symbolsNeedingCloses` names; missing symbols make the vol
   * target unmeasurable for them (a binding note says so).
   */
  closes: ReadonlyMap<string, CloseSeries>;
}

/** spec "PortfolioAllocation" (every key present; null where the data is unavailable). */
export interface PortfolioAllocation extends SnapshotRowFields {
  symbol: string;
  shares: number;
  position_type: 'LONG';
  entry_price: number;
  position_value: number;
  risk_amount: number;
  percent_of_account: number;
  stop_loss: number;
  target_price: number | null;
  risk_reward_ratio: number;
  confidence: number | null;
}

/** spec "OptimizerDiagnosticsV1". */
export interface OptimizerDiagnostics {
  schema_version: string;
  max_position_size_effective: number;
  max_position_size_from_risk_settings: number;
  constraint_pack_default_sector_cap: number | null;
  vol_target_annual: number | null;
  max_portfolio_turnover_annual: number | null;
  softmax_temperature_base: number | null;
  softmax_temperature_effective: number | null;
  binding_notes: string[];
}

/** Figures of the finished book, for notes, tests and benchmarks. */
export interface BookMetrics {
  /** Candidates the long rule admitted, and how many the book ranked (after max_positions). */
  eligible_count: number;
  ranked_count: number;
  /** Sum of shares x (entry - stop), and that as a fraction of total capital. */
  total_risk_amount: number;
  total_risk_fraction: number;
  /** Annualised volatility of the whole-share book from the shrunk covariance (null without a vol target, or when unmeasurable). */
  expected_volatility_annual: number | null;
  /** Ledoit-Wolf shrinkage intensity used (0 = sample covariance, 1 = scaled identity); null when vol was not measured. */
  covariance_shrinkage: number | null;
  /** One-way turnover against the prior book (half the sum of absolute weight changes); null without one. */
  turnover: number | null;
  /** Gross weight before whole-share rounding. */
  target_gross_weight: number;
}

export interface OptimizeResult {
  /** Best-ranked first. */
  allocations: PortfolioAllocation[];
  allocated_capital: number;
  remaining_capital: number;
  diagnostics: OptimizerDiagnostics;
  metrics: BookMetrics;
}
