/**
 * The stored analysis snapshot: one JSON document per symbol per date in `analysis_snapshots.doc`.
 *
 * Keys are the spec's snake_case names (AnalysisLatestResult, PatternEntry); everything the spec does not
 * name is an extra key, which the REST read passes through to authenticated callers only. Every number is
 * derived from the symbol's daily bars (and the universe index); a field is null only where the bars cannot
 * support it (too little history).
 */
import type { Assert, Same } from '../../platform/type-checks.js';

/** Bumped whenever a stored document's meaning changes; stored beside each document. */
export const PIPELINE_VERSION = '1.1.0';

export type StageNumber = 1 | 2 | 3 | 4;
/** `STAGE 1` .. `STAGE 4`. */
export type StageLabel = `STAGE ${StageNumber}`;
/** Every stage label, in stage order (index = stage number - 1). */
export const STAGE_LABELS = ['STAGE 1', 'STAGE 2', 'STAGE 3', 'STAGE 4'] as const satisfies readonly StageLabel[];
/** Fails `tsc` when STAGE_LABELS misses a label. */
export type StageLabelsComplete = Assert<Same<(typeof STAGE_LABELS)[number], StageLabel>>;
export const STAGE_STRENGTHS = ['VERY_STRONG', 'STRONG', 'MODERATE', 'WEAK'] as const;
export type StageStrength = (typeof STAGE_STRENGTHS)[number];

export const SIGNALS = ['BUY', 'SELL', 'HOLD'] as const;
export type Signal = (typeof SIGNALS)[number];

export const MARKET_REGIMES = ['bull', 'bear', 'sideways'] as const;
export type MarketRegime = (typeof MARKET_REGIMES)[number];

export const PATTERN_TYPES = [
  'DOUBLE_TOP',
  'DOUBLE_BOTTOM',
  'HEAD_AND_SHOULDERS',
  'INVERSE_HEAD_AND_SHOULDERS',
  'ASCENDING_TRIANGLE',
  'DESCENDING_TRIANGLE',
  'SYMMETRICAL_TRIANGLE',
  'BULL_FLAG',
  'BEAR_FLAG',
  'CUP_AND_HANDLE',
  'RANGE_BREAKOUT',
] as const;
export type PatternType = (typeof PATTERN_TYPES)[number];

/** Lifecycle: forming (not yet confirmed), active (confirmed, target not reached), completed (target reached), failed (invalidated). */
export const PATTERN_STATUSES = ['forming', 'active', 'completed', 'failed'] as const;
export type PatternStatus = (typeof PATTERN_STATUSES)[number];

export type PatternDirection = 'bullish' | 'bearish';

/** A named point of a pattern's geometry (e.g. `left_shoulder`, `head`, `neckline_left`, `breakout`). */
export interface PatternPoint {
  label: string;
  date: string;
  price: number;
}

/** The spec's PatternEntry plus extra keys (allowed by the spec). */
export interface PatternEntry {
  type: PatternType;
  status: PatternStatus;
  start_date: string;
  end_date: string;
  /** 0..1, from geometric fit, volume confirmation and trend context (see `confidence_parts`). */
  confidence: number;
  /** Measured-move target. */
  price_target: number | null;
  direction: PatternDirection;
  /** Price whose crossing confirms the pattern (neckline, triangle side, flag channel, range edge). */
  breakout_level: number | null;
  /** Price whose crossing invalidates the pattern. */
  invalidation_level: number | null;
  key_points: PatternPoint[];
  confidence_parts: { geometry: number; volume: number; trend: number };
}

/** The spec's PatternSignalModel. Confidences in 0..1; net = bullish - bearish (in -1..1). */
export interface PatternSignal {
  direction: 'BULLISH' | 'BEARISH' | 'NEUTRAL';
  net_confidence: number;
  bullish_confidence: number;
  bearish_confidence: number;
  pattern_count: number;
}

/** A clustered support or resistance level. */
export interface PriceLevel {
  price: number;
  /** 0..1 rank score from touches and recency (the strongest level of the symbol is not necessarily 1). */
  strength: number;
  touches: number;
  first_touch_date: string;
  last_touch_date: string;
}

export interface PriceTarget {
  source: 'pattern' | 'resistance' | 'support' | 'atr';
  /** Pattern type or level kind that produced the target. */
  basis: string;
  direction: PatternDirection;
  price: number;
  /** Percent move from `price` of the snapshot (positive = above). */
  distance_percent: number;
  confidence: number;
}

/** Indicator values at the analysis date (null during warm-up). Daily unless the key says `w` (weekly). */
export interface IndicatorsBlock {
  sma_10: number | null;
  sma_20: number | null;
  sma_50: number | null;
  sma_150: number | null;
  sma_200: number | null;
  ema_10: number | null;
  ema_20: number | null;
  ema_50: number | null;
  ema_150: number | null;
  ema_200: number | null;
  sma_10w: number | null;
  sma_30w: number | null;
  ema_10w: number | null;
  ema_30w: number | null;
  rsi_14: number | null;
  atr_14: number | null;
  /** ATR as percent of the close (e.g. 2.4 means 2.4%). */
  atr_percent: number | null;
  bollinger: { upper: number; middle: number; lower: number; bandwidth: number } | null;
  macd: { macd: number; signal: number; histogram: number } | null;
  volume_sma_20: number | null;
  volume_sma_50: number | null;
  /** Volume of the day / its 50-day average. */
  relative_volume: number | null;
  /** Annualised, as fractions (0.25 = 25%). */
  historical_volatility_20: number | null;
  historical_volatility_60: number | null;
  volatility_trend: 'rising' | 'falling' | 'stable' | null;
  is_high_volatility: boolean | null;
  /** Mansfield relative strength on weekly bars (see stage_detail). */
  mansfield_rs: number | null;
  /** 0-10 tally of stage attributes (see stage_detail.sata). */
  sata_score: number | null;
}

export interface SataAttribute {
  name: string;
  met: boolean;
  detail: string;
}

/** Structured Weinstein stage payload, beside the `stage` label. */
export interface StagePayload {
  stage: StageNumber;
  label: StageLabel;
  /** e.g. `2A` (early), `2B` (mid), `2C` (late); see the stage engine for the rules. */
  sub_stage: string;
  weeks_in_stage: number;
  strength: StageStrength;
  week_ending: string;
  ma_30w: number;
  /** Percent change of the 30-week MA over the last 4 weeks. */
  ma_30w_slope_percent: number;
  ma_10w: number | null;
  price_vs_ma_30w_percent: number;
  mansfield_rs: number | null;
  mansfield_rs_trend: 'rising' | 'falling' | 'flat' | null;
  /** Volume of the last week / its 4-week average. */
  breakout_volume_ratio: number | null;
  sata_score: number;
  sata: SataAttribute[];
  reasons: string[];
}

export interface RegimeDetail {
  regime: MarketRegime;
  index_symbol: string;
  index_close: number;
  index_sma_200: number | null;
  index_sma_200_slope_percent: number | null;
  index_stage: StageLabel | null;
  reasons: string[];
}

export interface TransitionProbabilities {
  /** Stage the row is conditioned on (the snapshot's current stage). */
  current_stage: StageLabel;
  /** Probability of each stage one week later, given the current stage. */
  next_week: Record<StageLabel, number>;
  /** Week-to-week transitions observed from the current stage (the row's sample size). */
  sample_size: number;
  /** Full row-normalised matrix with its counts, estimated from all symbols' weekly stage history. */
  matrix: Record<StageLabel, Record<StageLabel, number>>;
  counts: Record<StageLabel, Record<StageLabel, number>>;
  total_transitions: number;
  /** Only weeks ending on or before this date were counted (no look-ahead). */
  estimated_through: string;
  symbols: number;
}

export interface MlModelSummary {
  model: 'logistic_regression';
  version: string;
  features: string[];
  /** Label: sign of the forward 20-trading-day return in excess of the universe index. */
  horizon_days: number;
  trained_through: string;
  train_samples: number;
  /**
   * The model's out-of-sample record: every walk-forward prediction of earlier models whose outcome was
   * known when this model was trained (the label's last bar on or before the first day of its window).
   */
  oos_accuracy: number | null;
  oos_auc: number | null;
  oos_samples: number;
  // The next three are always present since pipeline 1.1.0 (optional: earlier stored documents lack them).
  /** Distinct sample dates of that record. */
  oos_dates?: number;
  /** Latest sample date of that record; null without one. */
  oos_through?: string | null;
  /** Interval of `oos_auc` by block bootstrap over dates; null with fewer than 10 dates or no AUC. */
  oos_auc_ci?: AucInterval | null;
}

/** A percentile interval by stationary block bootstrap over dates (blocks span the label horizon's overlap). */
export interface AucInterval {
  low: number;
  high: number;
  /** Coverage, e.g. 0.95. */
  level: number;
  /** Mean block length in dates. */
  block_length: number;
}

export interface MlSignal {
  signal: Signal;
  /** Model probability that the forward 20-day excess return is positive. */
  probability_up: number;
  confidence: number;
  model: MlModelSummary;
}

/** The components of the enhanced signal: the rules score is the base, every other component is gated. */
export const BLEND_COMPONENTS = ['rules', 'ml'] as const;
export type BlendComponent = (typeof BLEND_COMPONENTS)[number];

/** A component's weight in the blend and why it got it (always said, in particular when the weight is 0). */
export interface BlendWeight {
  weight: number;
  reason: string;
}

export interface EnhancedSignal {
  signal: Signal;
  /** Blended score in -1..1 (positive = bullish). */
  score: number;
  confidence: number;
  rules_weight: number;
  ml_weight: number;
  /**
   * Each component's weight with its reason (rules_weight and ml_weight repeated, explained). Always
   * present since pipeline 1.1.0; optional because documents stored by earlier versions lack it.
   */
  weights?: Record<BlendComponent, BlendWeight>;
  reasons: string[];
}

export interface RiskParameters {
  entry_price: number;
  atr_stop: number | null;
  support_stop: number | null;
  /** The tighter of the ATR and support stops, but at least `min_stop_distance_percent` below entry. */
  suggested_stop: number | null;
  stop_method: 'atr' | 'support' | 'minimum_distance' | null;
  min_stop_distance_percent: number;
  risk_per_share: number | null;
  risk_per_share_percent: number | null;
  /** Nearest resistance or pattern target above entry. */
  suggested_target: number | null;
  reward_risk_ratio: number | null;
  /** Shares per 100,000 of capital when risking 1% per trade (before position caps). */
  shares_per_100k_at_1pct_risk: number | null;
  /** Max position weight that keeps the 1%-risk trade within a 20% single-name cap. */
  position_size_hint: string | null;
  volatility_stop_loss_levels: { atr_1x: number; atr_2x: number; atr_3x: number; hv_1sd_20d: number | null } | null;
  atr: number | null;
  atr_percent: number | null;
  historical_volatility: number | null;
  volatility_trend: 'rising' | 'falling' | 'stable' | null;
  is_high_volatility: boolean | null;
}

/** The stored document. The first block is the spec's AnalysisLatestResult; the rest are extra keys. */
export interface AnalysisDocument {
  stage: StageLabel | null;
  stage_strength: StageStrength | null;
  price: number | null;
  volume: number | null;
  indicators: IndicatorsBlock | null;
  detected_patterns: PatternEntry[] | null;
  best_pattern: PatternEntry | null;
  pattern_signal: PatternSignal | null;
  price_targets: PriceTarget[] | null;
  support_levels: number[] | null;
  resistance_levels: number[] | null;
  recent_patterns: PatternEntry[] | null;
  best_recent_pattern: PatternEntry | null;
  recent_pattern_signal: PatternSignal | null;
  market_regime: MarketRegime | null;
  sector: string | null;
  signal: Signal | null;
  confidence: number | null;
  ml_signal: MlSignal | null;
  enhanced_signal: EnhancedSignal | null;
  analysis_date: string;
  analysis_timestamp: string;
  timestamp: string;
  /** Auth-only. */
  risk_parameters: RiskParameters | null;
  /** Auth-only. */
  transition_probabilities: TransitionProbabilities | null;

  // Extra keys (authenticated callers only).
  symbol: string;
  data_source: 'synthetic' | 'imported';
  pipeline_version: string;
  bars_used: number;
  stage_detail: StagePayload | null;
  signal_reasons: string[];
  support_resistance: { support: PriceLevel[]; resistance: PriceLevel[] } | null;
  regime_detail: RegimeDetail | null;
}

/** The spec's AnalysisLatestResult keys that unauthenticated (demo) callers receive. */
export const PUBLIC_RESULT_KEYS = [
  'stage',
  'stage_strength',
  'price',
  'volume',
  'indicators',
  'detected_patterns',
  'best_pattern',
  'pattern_signal',
  'price_targets',
  'support_levels',
  'resistance_levels',
  'recent_patterns',
  'best_recent_pattern',
  'recent_pattern_signal',
  'market_regime',
  'sector',
  'signal',
  'confidence',
  'ml_signal',
  'enhanced_signal',
  'analysis_date',
  'analysis_timestamp',
  'timestamp',
] as const;

/** Keys only authenticated callers receive (besides any extra keys of the stored document). */
export const AUTH_ONLY_RESULT_KEYS = ['risk_parameters', 'transition_probabilities'] as const;
