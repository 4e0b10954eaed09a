/**
 * JSON Schemas of the REST routes: they generate each origin's OpenAPI 3.1 document (`GET /openapi.json`,
 * @fastify/swagger), and Fastify validates the analysis routes' requests with them. The optimize request
 * schemas are not written here: they are derived from the request classes, and the validator the optimize
 * route and GraphQL use is compiled from those (subgraphs/allocation/request/). Field names and types follow
 * `../shared/spec/http-interfaces.md`; `schema/spec-fields.json` lists the spec's fields, and a test
 * checks that every one of them is in these schemas.
 */
import type { PortfolioRequest } from '../subgraphs/allocation/dto.js';
import {
  AUTH_ONLY_RESULT_KEYS,
  BLEND_COMPONENTS,
  MARKET_REGIMES,
  PATTERN_STATUSES,
  PATTERN_TYPES,
  PUBLIC_RESULT_KEYS,
  SIGNALS,
  STAGE_LABELS,
  STAGE_STRENGTHS,
  type AnalysisDocument,
  type AucInterval,
  type BlendComponent,
  type BlendWeight,
  type EnhancedSignal,
  type IndicatorsBlock,
  type MlModelSummary,
  type MlSignal,
  type PatternEntry,
  type PatternPoint,
  type PatternSignal,
  type PriceLevel,
  type PriceTarget,
  type RegimeDetail,
  type RiskParameters,
  type SataAttribute,
  type StagePayload,
  type TransitionProbabilities,
} from '../subgraphs/analysis/engine/document.js';
import type { CalibrationBlock } from '../subgraphs/analysis/engine/evidence/calibration.js';
import { PRESENTATION_KEYS } from '../subgraphs/analysis/engine/evidence/present.js';
import type { PolicyExplanation } from '../subgraphs/allocation/engine/risk-profile.js';
import { ALLOCATION_STRATEGIES, type RiskSettings } from '../subgraphs/allocation/engine/risk-settings.js';
import type { ConstraintPack } from '../subgraphs/allocation/engine/types.js';
import {
  BOOK_SOURCES,
  TRADE_SIDES,
  TRADES_PAGE,
  type BookHolding,
  type BookResponse,
  type RebalanceOrder,
  type RebalanceResponse,
  type RebalanceTarget,
  type TradeOrigin,
  type TradePage,
  type TradeRecord,
  type TradeResponse,
} from '../subgraphs/allocation/book-types.js';
import { bookRequestSchemas, requestSchemas } from '../subgraphs/allocation/request/schema.js';

const nullable = (type: string | string[]) => ({ type: [...(Array.isArray(type) ? type : [type]), 'null'] });

// ---------------------------------------------------------------------------------------------------------
// The analysis read's result (spec "AnalysisLatestResult", "PatternEntry"), keyed by the engine's document
// types (subgraphs/analysis/engine/document.ts) as the read presents them (engine/evidence/present.ts:
// calibrated probabilities in place, the stored ones in raw_confidence), so a field added to one of those
// types fails `tsc` until it is documented here. Every field the engine always writes is required. The
// spec allows more than the product sends ("string or object" for stage and the signals): the schemas
// describe what the product sends, which fits the spec.
// ---------------------------------------------------------------------------------------------------------

type Schema = Record<string, unknown>;
const numberOrNullable = nullable('number');
const integerOrNullable = nullable('integer');
const stageLabelOrNull = { type: ['string', 'null'], enum: [...STAGE_LABELS, null] } as const;
/** An object keyed by the four stage labels, each value of `value`'s schema. */
const byStage = (value: Schema, description: string) => ({
  type: 'object',
  description,
  required: [...STAGE_LABELS],
  properties: Object.fromEntries(STAGE_LABELS.map((label) => [label, value])),
});
const strings = { type: 'array', items: { type: 'string' } } as const;
const volatilityTrend = { type: ['string', 'null'], enum: ['rising', 'falling', 'stable', null] } as const;

/** spec "PatternEntry" as presented: its confidence calibrated, the stored one in raw_confidence; additional keys are allowed. */
export const patternEntrySchema = {
  $id: 'PatternEntry',
  type: 'object',
  required: ['type', 'status', 'start_date', 'end_date', 'confidence', 'raw_confidence', 'price_target', 'direction', 'breakout_level', 'invalidation_level', 'key_points', 'confidence_parts'],
  properties: {
    type: { type: 'string', enum: [...PATTERN_TYPES], description: 'pattern classifier name' },
    status: { type: 'string', enum: [...PATTERN_STATUSES], description: 'forming (not yet confirmed), active (confirmed, target not reached), completed (target reached) or failed (invalidated)' },
    start_date: { type: 'string', description: 'ISO date of pattern start' },
    end_date: { type: 'string', description: 'ISO date of pattern end' },
    confidence: {
      ...numberOrNullable,
      description:
        "calibrated chance, 0..1, that the pattern reaches its target before its invalidation level (the pattern_target calibrator of the snapshot's as-of evidence table applied to the detector's confidence); null when not measured (see calibration.pattern_target.reason)",
    },
    raw_confidence: { ...numberOrNullable, description: "the detector's own confidence as stored (before calibration): a score in [0, 1], not a probability; see calibration for probabilities" },
    price_target: { ...numberOrNullable, description: 'pattern-implied price level (measured move)' },
    direction: { type: 'string', enum: ['bullish', 'bearish'] },
    breakout_level: { ...numberOrNullable, description: 'price whose crossing confirms the pattern (neckline, triangle side, flag channel, range edge)' },
    invalidation_level: { ...numberOrNullable, description: 'price whose crossing invalidates the pattern' },
    key_points: {
      type: 'array',
      description: "named points of the pattern's geometry (e.g. left_shoulder, head, breakout)",
      items: { type: 'object', required: ['label', 'date', 'price'], properties: { label: { type: 'string' }, date: { type: 'string' }, price: { type: 'number' } } satisfies Record<keyof PatternPoint, Schema> },
    },
    confidence_parts: {
      type: 'object',
      description: 'the parts of the raw confidence: geometric fit, volume confirmation and trend context, each 0..1',
      required: ['geometry', 'volume', 'trend'],
      properties: { geometry: { type: 'number' }, volume: { type: 'number' }, trend: { type: 'number' } } satisfies Record<keyof PatternEntry['confidence_parts'], Schema>,
    },
  } satisfies Record<keyof PatternEntry | 'raw_confidence', Schema>,
  // The spec allows additional keys on pattern objects (spec "PatternEntry"), so clients must expect them.
  additionalProperties: true,
} as const;

const patternRef = { $ref: 'PatternEntry#' };

/** spec "PatternSignalModel". */
export const patternSignalSchema = {
  $id: 'PatternSignal',
  type: 'object',
  description:
    'Aggregated pattern bias (spec PatternSignalModel). bullish_confidence and bearish_confidence are scores in [0, 1] and net_confidence (bullish - bearish) a score in [-1, 1], not probabilities; see calibration for probabilities',
  required: ['direction', 'net_confidence', 'bullish_confidence', 'bearish_confidence', 'pattern_count'],
  properties: {
    direction: { type: 'string', enum: ['BULLISH', 'BEARISH', 'NEUTRAL'] },
    net_confidence: { type: 'number', minimum: -1, maximum: 1 },
    bullish_confidence: { type: 'number', minimum: 0, maximum: 1 },
    bearish_confidence: { type: 'number', minimum: 0, maximum: 1 },
    pattern_count: { type: 'integer', minimum: 0, description: 'patterns the signal aggregates' },
  } satisfies Record<keyof PatternSignal, Schema>,
} as const;
const patternSignalOrNull = { oneOf: [{ $ref: 'PatternSignal#' }, { type: 'null' }] };

/** One entry of price_targets; its confidence is a probability only for pattern targets. */
export const priceTargetSchema = {
  $id: 'PriceTarget',
  type: 'object',
  required: ['source', 'basis', 'direction', 'price', 'distance_percent', 'confidence'],
  properties: {
    source: { type: 'string', enum: ['pattern', 'resistance', 'support', 'atr'] },
    basis: { type: 'string', description: 'pattern type or level kind that produced the target' },
    direction: { type: 'string', enum: ['bullish', 'bearish'] },
    price: { type: 'number' },
    distance_percent: { type: 'number', description: 'percent move from the snapshot price (positive = above)' },
    confidence: {
      ...numberOrNullable,
      description:
        "pattern targets (source 'pattern'): the calibrated chance of target before invalidation (null when not measured; the stored value in raw_confidence); other sources: the level strength, a score in [0, 1], not a probability; see calibration for probabilities",
    },
    raw_confidence: { ...numberOrNullable, description: "pattern targets only: the detector's stored confidence (a score in [0, 1], not a probability)" },
  } satisfies Record<keyof PriceTarget | 'raw_confidence', Schema>,
} as const;

/** `indicators`: the indicator values at the analysis date. */
export const indicatorsSchema = {
  $id: 'Indicators',
  type: 'object',
  description: 'Indicator values at the analysis date, null during warm-up (too little history). Daily unless the key says w (weekly)',
  required: [
    'sma_10', 'sma_20', 'sma_50', 'sma_150', 'sma_200', 'ema_10', 'ema_20', 'ema_50', 'ema_150', 'ema_200', 'sma_10w', 'sma_30w', 'ema_10w', 'ema_30w',
    'rsi_14', 'atr_14', 'atr_percent', 'bollinger', 'macd', 'volume_sma_20', 'volume_sma_50', 'relative_volume', 'historical_volatility_20',
    'historical_volatility_60', 'volatility_trend', 'is_high_volatility', 'mansfield_rs', 'sata_score',
  ],
  properties: {
    sma_10: numberOrNullable,
    sma_20: numberOrNullable,
    sma_50: numberOrNullable,
    sma_150: numberOrNullable,
    sma_200: numberOrNullable,
    ema_10: numberOrNullable,
    ema_20: numberOrNullable,
    ema_50: numberOrNullable,
    ema_150: numberOrNullable,
    ema_200: numberOrNullable,
    sma_10w: numberOrNullable,
    sma_30w: numberOrNullable,
    ema_10w: numberOrNullable,
    ema_30w: numberOrNullable,
    rsi_14: { ...numberOrNullable, description: '14-day RSI, 0..100' },
    atr_14: { ...numberOrNullable, description: '14-day Average True Range' },
    atr_percent: { ...numberOrNullable, description: 'ATR as percent of the close (2.4 = 2.4%)' },
    bollinger: {
      type: ['object', 'null'],
      required: ['upper', 'middle', 'lower', 'bandwidth'],
      properties: { upper: { type: 'number' }, middle: { type: 'number' }, lower: { type: 'number' }, bandwidth: { type: 'number' } },
    },
    macd: { type: ['object', 'null'], required: ['macd', 'signal', 'histogram'], properties: { macd: { type: 'number' }, signal: { type: 'number' }, histogram: { type: 'number' } } },
    volume_sma_20: numberOrNullable,
    volume_sma_50: numberOrNullable,
    relative_volume: { ...numberOrNullable, description: 'volume of the day / its 50-day average' },
    historical_volatility_20: { ...numberOrNullable, description: 'annualised, as a fraction (0.25 = 25%)' },
    historical_volatility_60: { ...numberOrNullable, description: 'annualised, as a fraction (0.25 = 25%)' },
    volatility_trend: volatilityTrend,
    is_high_volatility: nullable('boolean'),
    mansfield_rs: { ...numberOrNullable, description: 'Mansfield relative strength on weekly bars (see stage_detail)' },
    sata_score: { ...integerOrNullable, minimum: 0, maximum: 10, description: '0-10 tally of stage attributes (see stage_detail.sata)' },
  } satisfies Record<keyof IndicatorsBlock, Schema>,
} as const;

/** `ml_signal` as presented: probability_up calibrated, confidence recomputed from it, the stored confidence in raw_confidence. */
export const mlSignalSchema = {
  $id: 'MlSignal',
  type: 'object',
  description:
    'Model signal; probability_up is calibrated (null when not measured; stored value in calibration.ml_probability_up.raw) and confidence is |2 probability_up - 1| of it, the stored confidence kept in raw_confidence',
  required: ['signal', 'probability_up', 'confidence', 'raw_confidence', 'model'],
  properties: {
    signal: { type: 'string', enum: [...SIGNALS] },
    probability_up: { ...numberOrNullable, description: 'calibrated chance that the forward 20-day return beats the equal-weight universe' },
    confidence: numberOrNullable,
    raw_confidence: { ...numberOrNullable, description: "the model's stored confidence" },
    model: {
      type: 'object',
      description: "the model and its out-of-sample record (oos_dates, oos_through and oos_auc_ci since pipeline 1.1.0)",
      required: ['model', 'version', 'features', 'horizon_days', 'trained_through', 'train_samples', 'oos_accuracy', 'oos_auc', 'oos_samples'],
      properties: {
        model: { type: 'string', enum: ['logistic_regression'] },
        version: { type: 'string' },
        features: strings,
        horizon_days: { type: 'integer' },
        trained_through: { type: 'string' },
        train_samples: { type: 'integer', minimum: 0 },
        oos_accuracy: numberOrNullable,
        oos_auc: numberOrNullable,
        oos_samples: { type: 'integer', minimum: 0 },
        oos_dates: { type: 'integer', minimum: 0 },
        oos_through: nullable('string'),
        oos_auc_ci: {
          type: ['object', 'null'],
          description: 'interval of oos_auc by block bootstrap over dates; null with fewer than 10 dates or no AUC',
          required: ['low', 'high', 'level', 'block_length'],
          properties: { low: { type: 'number' }, high: { type: 'number' }, level: { type: 'number' }, block_length: { type: 'number' } } satisfies Record<keyof AucInterval, Schema>,
        },
      } satisfies Record<keyof MlModelSummary, Schema>,
    },
  } satisfies Record<keyof MlSignal | 'raw_confidence', Schema>,
} as const;

const blendWeight = { type: 'object', required: ['weight', 'reason'], properties: { weight: { type: 'number' }, reason: { type: 'string' } } satisfies Record<keyof BlendWeight, Schema> } as const;

/** `enhanced_signal` as presented: confidence calibrated, the stored one in raw_confidence. */
export const enhancedSignalSchema = {
  $id: 'EnhancedSignal',
  type: 'object',
  description:
    "Blend of the rules and model signals; confidence is the calibrated chance, 0..1, that the enhanced signal is right (the as-of table's calibrator for the enhanced signal; null when not measured, see calibration.enhanced_confidence.reason), the stored confidence kept in raw_confidence; score is a score in [-1, 1], not a probability",
  required: ['signal', 'score', 'confidence', 'raw_confidence', 'rules_weight', 'ml_weight', 'reasons'],
  properties: {
    signal: { type: 'string', enum: [...SIGNALS] },
    score: { type: 'number', minimum: -1, maximum: 1, description: 'blended score (positive = bullish)' },
    confidence: numberOrNullable,
    raw_confidence: numberOrNullable,
    rules_weight: { type: 'number' },
    ml_weight: { type: 'number' },
    weights: {
      type: 'object',
      description: "each component's weight with its reason (since pipeline 1.1.0)",
      required: [...BLEND_COMPONENTS],
      properties: { rules: blendWeight, ml: blendWeight } satisfies Record<BlendComponent, Schema>,
    },
    reasons: strings,
  } satisfies Record<keyof EnhancedSignal | 'raw_confidence', Schema>,
} as const;

/** `risk_parameters` (partners only). */
export const riskParametersSchema = {
  $id: 'RiskParameters',
  type: 'object',
  description: 'Stops and sizing hints from the snapshot (authenticated responses only)',
  required: [
    'entry_price', 'atr_stop', 'support_stop', 'suggested_stop', 'stop_method', 'min_stop_distance_percent', 'risk_per_share', 'risk_per_share_percent',
    'suggested_target', 'reward_risk_ratio', 'shares_per_100k_at_1pct_risk', 'position_size_hint', 'volatility_stop_loss_levels', 'atr', 'atr_percent',
    'historical_volatility', 'volatility_trend', 'is_high_volatility',
  ],
  properties: {
    entry_price: { type: 'number' },
    atr_stop: numberOrNullable,
    support_stop: numberOrNullable,
    suggested_stop: { ...numberOrNullable, description: 'the tighter of the ATR and support stops, but at least min_stop_distance_percent below entry' },
    stop_method: { type: ['string', 'null'], enum: ['atr', 'support', 'minimum_distance', null] },
    min_stop_distance_percent: { type: 'number' },
    risk_per_share: numberOrNullable,
    risk_per_share_percent: numberOrNullable,
    suggested_target: { ...numberOrNullable, description: 'nearest resistance or pattern target above entry' },
    reward_risk_ratio: numberOrNullable,
    shares_per_100k_at_1pct_risk: { ...numberOrNullable, description: 'shares per 100,000 of capital when risking 1% per trade (before position caps)' },
    position_size_hint: nullable('string'),
    volatility_stop_loss_levels: {
      type: ['object', 'null'],
      required: ['atr_1x', 'atr_2x', 'atr_3x', 'hv_1sd_20d'],
      properties: { atr_1x: { type: 'number' }, atr_2x: { type: 'number' }, atr_3x: { type: 'number' }, hv_1sd_20d: numberOrNullable },
    },
    atr: numberOrNullable,
    atr_percent: numberOrNullable,
    historical_volatility: numberOrNullable,
    volatility_trend: volatilityTrend,
    is_high_volatility: nullable('boolean'),
  } satisfies Record<keyof RiskParameters, Schema>,
} as const;

const stageCounts = byStage({ type: 'integer', minimum: 0 }, 'transitions counted to each next stage');
const stageProbabilities = byStage({ type: 'number', minimum: 0, maximum: 1 }, 'probability of each stage one week later');

/** `transition_probabilities` (partners only). */
export const transitionProbabilitiesSchema = {
  $id: 'TransitionProbabilities',
  type: 'object',
  description: "Weekly stage transition model, estimated from every symbol's weekly stage history up to estimated_through (authenticated responses only)",
  required: ['current_stage', 'next_week', 'sample_size', 'matrix', 'counts', 'total_transitions', 'estimated_through', 'symbols'],
  properties: {
    current_stage: { type: 'string', enum: [...STAGE_LABELS], description: "the stage the row is conditioned on (the snapshot's)" },
    next_week: stageProbabilities,
    sample_size: { type: 'integer', minimum: 0, description: 'week-to-week transitions observed from the current stage' },
    matrix: byStage(stageProbabilities, 'row-normalised matrix: from stage -> to stage -> probability'),
    counts: byStage(stageCounts, 'from stage -> to stage -> transitions counted'),
    total_transitions: { type: 'integer', minimum: 0 },
    estimated_through: { type: 'string', description: 'YYYY-MM-DD; only weeks ending on or before it were counted' },
    symbols: { type: 'integer', minimum: 0 },
  } satisfies Record<keyof TransitionProbabilities, Schema>,
} as const;

// ---------------------------------------------------------------------------------------------------------
// Evidence and calibration (DESIGN section 8 "evidence", "probabilities"; engine/evidence/present.ts and
// state-evidence.ts). Every figure is measured on the store's own universe with outcomes known by the
// table's as-of date: a snapshot dated D uses the table with the greatest as_of <= D (no look-ahead).
// ---------------------------------------------------------------------------------------------------------

const interval = {
  type: ['array', 'null'],
  items: { type: 'number' },
  minItems: 2,
  maxItems: 2,
  description: '95% interval [low, high] (block bootstrap over dates); null with too few outcomes',
} as const;

const estimate = (what: string) =>
  ({
    type: 'object',
    required: ['value', 'ci'],
    properties: { value: { ...nullable('number'), description: `${what}; null with too few outcomes (n still says how many there were)` }, ci: interval },
  }) as const;

const universeSchema = {
  ...nullable('object'),
  required: ['symbols', 'first_date', 'last_date', 'benchmark'],
  description: "the universe the evidence was measured on: the store's equities with a snapshot dated on or before as_of, the span of those snapshots, and the benchmark of excess returns",
  properties: {
    symbols: { type: 'integer', minimum: 0, description: 'equities with a snapshot dated on or before as_of' },
    first_date: { type: 'string', description: 'YYYY-MM-DD of the first snapshot measured' },
    last_date: { type: 'string', description: 'YYYY-MM-DD: the as-of date (no later bar or snapshot counts)' },
    benchmark: { type: 'string', enum: ['equal-weight'], description: 'forward returns are in excess of the equal-weight universe' },
  },
} as const;

/** One state's record (state-evidence.ts StateRecord). */
const stateRecordProperties = {
  n: { type: 'integer', minimum: 0, description: 'snapshots in this state whose 20-day outcome was known by as_of' },
  dates: { type: 'integer', minimum: 0, description: 'distinct dates among them' },
  hit_rate: { ...estimate('share with a 20-day return above the equal-weight universe, 0..1'), description: 'share with a positive 20-day excess return' },
  mean_excess_20d: { ...estimate('mean forward 20-trading-day return in excess of the equal-weight universe (0.01 = 1%)'), description: 'mean forward 20-day excess return' },
  mean_excess_60d: { ...estimate('same at 60 trading days (its own count of known outcomes may be smaller)'), description: 'mean forward 60-day excess return' },
  target_first: {
    type: 'object',
    required: ['value', 'ci', 'n', 'placebo'],
    description:
      'best_pattern only: share of trades whose target came before the stop within the pattern window (timeouts count as misses), with n trades, its interval and the placebo share (the same distances from random earlier days of the same symbol)',
    properties: { value: nullable('number'), ci: interval, n: { type: 'integer', minimum: 0 }, placebo: nullable('number') },
  },
} as const;

const stateEntry = (output: string) => ({
  oneOf: [
    {
      type: 'object',
      required: ['state', 'n', 'dates', 'hit_rate', 'mean_excess_20d', 'mean_excess_60d'],
      properties: { state: { type: 'string', description: `the snapshot's ${output} label` }, ...stateRecordProperties },
    },
    { type: 'null' },
  ],
  description: `what followed past snapshots in the same ${output} state (n 0 and null figures when the table has none); null when the snapshot has no ${output}`,
});

/** `evidence` of a presented snapshot. */
export const snapshotEvidenceSchema = {
  $id: 'SnapshotEvidence',
  type: 'object',
  required: ['as_of', 'status', 'reason', 'pipeline_version', 'universe', 'stage', 'signal', 'sata_bucket', 'best_pattern'],
  description:
    "The snapshot's own states with their measured out-of-sample record: for its stage (with strength), rules signal, sata_score bucket and best pattern type, what followed earlier snapshots in the same state. Measured on the store's universe with outcomes known by as_of, the last month-end table on or before the analysis date (no look-ahead: later bars never change it).",
  properties: {
    as_of: { ...nullable('string'), description: 'YYYY-MM-DD of the evidence table used (greatest as-of <= analysis_date); null without one' },
    status: { type: 'string', enum: ['measured', 'not_measured'] },
    reason: { ...nullable('string'), description: 'why nothing is measured; null when measured' },
    pipeline_version: { ...nullable('string'), description: 'pipeline version of the snapshots the table was measured on' },
    universe: universeSchema,
    stage: stateEntry("stage (e.g. 'STAGE 2 STRONG')"),
    signal: stateEntry("rules signal ('BUY', 'SELL', 'HOLD')"),
    sata_bucket: stateEntry("sata_score bucket ('0-3', '4-6', '7-10')"),
    best_pattern: stateEntry('best pattern type'),
  },
} as const;

const presentedProbability = (what: string) => ({
  type: 'object',
  required: ['raw', 'probability', 'event', 'method', 'n', 'brier', 'ece', 'reason'],
  description: what,
  properties: {
    raw: { ...nullable('number'), description: 'the stored (uncalibrated) value' },
    probability: { ...nullable('number'), description: 'the calibrated probability of the event, 0..1; null when not measured' },
    event: { ...nullable('string'), description: 'what the probability is the chance of' },
    method: { type: ['string', 'null'], enum: ['isotonic', 'platt', null], description: 'calibration method (shrunk toward the base rate when n is small)' },
    n: { type: 'integer', minimum: 0, description: 'outcomes known by as_of the calibrator was fitted on' },
    brier: { ...nullable('number'), description: 'out-of-sample Brier score (walk-forward: each month scored by the previous table)' },
    ece: { ...nullable('number'), description: 'out-of-sample expected calibration error, ten equal-width bins' },
    reason: { ...nullable('string'), description: 'why probability is null; null when it is given' },
  },
});

/** `calibration` of a presented snapshot. */
export const snapshotCalibrationSchema = {
  $id: 'SnapshotCalibration',
  type: 'object',
  required: ['as_of', 'confidence', 'enhanced_confidence', 'ml_probability_up', 'pattern_target'],
  description:
    'Each probability the snapshot shows, raw and calibrated walk-forward on outcomes known by as_of (the same table as evidence). The calibrated values replace the stored ones in place (confidence, enhanced_signal.confidence, ml_signal.probability_up, every pattern confidence); the stored ones are kept here in raw and in enhanced_signal\'s and each pattern entry\'s raw_confidence. pattern_signal confidences and non-pattern price target confidences are scores, not probabilities, and are not calibrated.',
  properties: {
    as_of: { ...nullable('string'), description: 'YYYY-MM-DD of the table the calibrators come from; null without one' },
    confidence: presentedProbability("the rules confidence, calibrated by the calibrator of the snapshot's rules signal (BUY: beats the universe over 20 days; SELL: trails it; HOLD: stays in the quieter half)"),
    enhanced_confidence: presentedProbability(
      "enhanced_signal.confidence (the blended signal's confidence), calibrated by the calibrator of the snapshot's enhanced signal (the same events as confidence); null with a reason when not measured, including when the table was stored before this calibrator existed",
    ),
    ml_probability_up: presentedProbability('ml_signal.probability_up: the chance the 20-day return beats the equal-weight universe'),
    pattern_target: presentedProbability("the best pattern's confidence: the chance its target comes before its invalidation level"),
  },
} as const;

const reliabilityRow = {
  type: 'object',
  required: ['low', 'high', 'n', 'meanPredicted', 'observedRate', 'observedLow', 'observedHigh'],
  description: 'one of ten equal-width bins of calibrated probability (0-0.1, ..., 0.9-1): its range, rows, mean predicted and observed rate with the Wilson 95% interval (null when empty)',
  properties: {
    low: nullable('number'),
    high: nullable('number'),
    n: { type: 'integer', minimum: 0 },
    meanPredicted: nullable('number'),
    observedRate: nullable('number'),
    observedLow: nullable('number'),
    observedHigh: nullable('number'),
  },
} as const;

/** The fields every calibrator has (evidence/calibration.ts CalibratorBase). */
const calibratorBase = {
  n: { type: 'integer', minimum: 0, description: 'training rows used' },
  positives: { type: 'integer', minimum: 0 },
  baseRate: { type: 'number', description: 'the base rate the values were shrunk toward' },
  priorStrength: { type: 'number', description: 'strength of that shrinkage, in pseudo-observations' },
} as const;

const probabilityCalibration = {
  type: 'object',
  required: ['event', 'n', 'base_rate', 'method', 'calibrator', 'metrics'],
  properties: {
    event: { type: 'string', description: 'what the probability is the chance of' },
    n: { type: 'integer', minimum: 0, description: 'outcomes known by as_of the calibrator was fitted on' },
    base_rate: { ...nullable('number'), description: 'share of those outcomes that happened' },
    method: { type: ['string', 'null'], enum: ['isotonic', 'platt', null] },
    calibrator: {
      oneOf: [
        {
          type: 'object',
          required: ['method', 'n', 'positives', 'baseRate', 'priorStrength', 'blocks'],
          properties: {
            method: { type: 'string', const: 'isotonic' },
            ...calibratorBase,
            blocks: {
              type: 'array',
              description: 'blocks in increasing score and value order',
              items: {
                type: 'object',
                required: ['low', 'high', 'n', 'positives', 'value'],
                properties: {
                  low: { type: 'number', description: 'smallest training score in the block' },
                  high: { type: 'number', description: 'largest training score in the block' },
                  n: { type: 'integer', minimum: 0 },
                  positives: { type: 'integer', minimum: 0 },
                  value: { type: 'number', description: 'calibrated probability (after shrinkage)' },
                } satisfies Record<keyof CalibrationBlock, Schema>,
              },
            },
          },
        },
        {
          type: 'object',
          required: ['method', 'n', 'positives', 'baseRate', 'priorStrength', 'a', 'b'],
          properties: { method: { type: 'string', const: 'platt' }, ...calibratorBase, a: { type: 'number' }, b: { type: 'number' } },
          description: 'p = 1 / (1 + exp(-(a s + b))), shrunk toward baseRate',
        },
        { type: 'null' },
      ],
      description: 'the fitted map (isotonic blocks or Platt a, b); null below 200 outcomes',
    },
    metrics: {
      ...nullable('object'),
      required: ['n', 'brier', 'ece', 'reliability'],
      description: 'out-of-sample (walk-forward: each month scored by the calibrator of the month before): Brier score, expected calibration error and the reliability table in ten equal-width bins of probability; null without scored rows',
      properties: { n: { type: 'integer', minimum: 0 }, brier: { type: 'number' }, ece: { type: 'number' }, reliability: { type: 'array', items: reliabilityRow } },
    },
  },
} as const;

const stateTable = (output: string) => ({
  type: 'object',
  description: `records by ${output} label`,
  additionalProperties: { type: 'object', required: ['n', 'dates', 'hit_rate', 'mean_excess_20d', 'mean_excess_60d'], properties: stateRecordProperties },
});

/** A whole as-of evidence table (state-evidence.ts EvidenceTable). */
export const evidenceTableSchema = {
  $id: 'EvidenceTable',
  type: 'object',
  required: ['as_of', 'pipeline_version', 'universe', 'states', 'probabilities'],
  description:
    "The evidence measured with outcomes known by as_of (a month's last trading day): per state, what followed past snapshots in it, and per probability its walk-forward calibrator and out-of-sample metrics. Never changes once computed.",
  properties: {
    as_of: { type: 'string', description: 'YYYY-MM-DD' },
    pipeline_version: { type: 'string' },
    universe: { ...universeSchema, type: 'object' },
    states: {
      type: 'object',
      required: ['stage', 'signal', 'sata_bucket', 'best_pattern'],
      properties: { stage: stateTable('stage'), signal: stateTable('rules signal'), sata_bucket: stateTable('sata_score bucket'), best_pattern: stateTable('best pattern type') },
    },
    probabilities: {
      type: 'object',
      required: ['confidence', 'ml_probability_up', 'pattern_target'],
      properties: {
        confidence: {
          type: 'object',
          required: ['BUY', 'SELL', 'HOLD'],
          description: 'one calibrator per rules signal (the event differs by signal)',
          properties: { BUY: probabilityCalibration, SELL: probabilityCalibration, HOLD: probabilityCalibration },
        },
        enhanced_confidence: {
          type: 'object',
          required: ['BUY', 'SELL', 'HOLD'],
          description:
            "one calibrator per enhanced (blended) signal for enhanced_signal.confidence, with the same events as confidence; absent from tables stored before it was measured",
          properties: { BUY: probabilityCalibration, SELL: probabilityCalibration, HOLD: probabilityCalibration },
        },
        ml_probability_up: probabilityCalibration,
        pattern_target: probabilityCalibration,
      },
    },
  },
} as const;

/** The evidence route's envelope: the analysis envelope around a table. */
export const evidenceEnvelopeSchema = {
  $id: 'EvidenceTableResponse',
  type: 'object',
  required: ['success', 'timestamp', 'result', 'error'],
  properties: {
    success: { type: 'boolean' },
    timestamp: { type: 'string', format: 'date-time', description: 'server time when the response was built' },
    result: { $ref: 'EvidenceTable#' },
    error: { type: 'null' },
  },
} as const;

/** spec "AnalysisLatestResult" as presented: the public keys, evidence and calibration, and the auth-only keys (partners only). */
export const analysisLatestResultSchema = {
  $id: 'AnalysisLatestResult',
  type: 'object',
  description:
    "A presented analysis snapshot. Demo reads carry exactly the required keys; partner reads (AnalysisPartnerResult) also risk_parameters, transition_probabilities and the stored document's extra keys",
  required: [...PUBLIC_RESULT_KEYS, ...PRESENTATION_KEYS],
  properties: {
    stage: { ...stageLabelOrNull, description: 'market stage label (null before 34 weeks of history); the structured stage payload is stage_detail (partners)' },
    stage_strength: { type: ['string', 'null'], enum: [...STAGE_STRENGTHS, null], description: 'strength of the stage' },
    price: { ...numberOrNullable, description: 'last close used' },
    volume: { ...integerOrNullable, description: 'volume of the analysis bar' },
    indicators: { oneOf: [{ $ref: 'Indicators#' }, { type: 'null' }], description: 'indicator values (includes rsi_14 and sata_score)' },
    detected_patterns: { type: ['array', 'null'], items: patternRef },
    best_pattern: { oneOf: [patternRef, { type: 'null' }] },
    pattern_signal: patternSignalOrNull,
    price_targets: { type: ['array', 'null'], items: { $ref: 'PriceTarget#' } },
    support_levels: { type: ['array', 'null'], items: { type: 'number' } },
    resistance_levels: { type: ['array', 'null'], items: { type: 'number' } },
    recent_patterns: { type: ['array', 'null'], items: patternRef },
    best_recent_pattern: { oneOf: [patternRef, { type: 'null' }] },
    recent_pattern_signal: patternSignalOrNull,
    market_regime: { type: ['string', 'null'], enum: [...MARKET_REGIMES, null], description: 'high-level regime of the universe index' },
    sector: nullable('string'),
    signal: { type: ['string', 'null'], enum: [...SIGNALS, null], description: 'rules signal' },
    confidence: {
      ...numberOrNullable,
      description:
        "calibrated chance, 0..1, that the rules signal is right (the as-of table's calibrator for the snapshot's signal applied to the rules confidence); null when not measured. The stored value is calibration.confidence.raw",
    },
    ml_signal: { oneOf: [{ $ref: 'MlSignal#' }, { type: 'null' }], description: 'model signal; null without an out-of-sample model for the date' },
    enhanced_signal: { oneOf: [{ $ref: 'EnhancedSignal#' }, { type: 'null' }], description: 'blend of the rules and model signals' },
    analysis_date: { type: 'string', description: 'YYYY-MM-DD' },
    analysis_timestamp: { type: 'string', description: 'ISO 8601 time the snapshot was produced' },
    timestamp: { type: 'string', description: 'ISO 8601 document timestamp (the same as analysis_timestamp)' },
    risk_parameters: { oneOf: [{ $ref: 'RiskParameters#' }, { type: 'null' }], description: 'authenticated responses only' },
    transition_probabilities: { oneOf: [{ $ref: 'TransitionProbabilities#' }, { type: 'null' }], description: 'authenticated responses only' },
    evidence: { $ref: 'SnapshotEvidence#' },
    calibration: { $ref: 'SnapshotCalibration#' },
  } satisfies Record<(typeof PUBLIC_RESULT_KEYS)[number] | (typeof AUTH_ONLY_RESULT_KEYS)[number] | (typeof PRESENTATION_KEYS)[number], Schema>,
} as const;

const priceLevel = {
  type: 'object',
  required: ['price', 'strength', 'touches', 'first_touch_date', 'last_touch_date'],
  properties: {
    price: { type: 'number' },
    strength: { type: 'number', description: '0..1 rank score from touches and recency' },
    touches: { type: 'integer', minimum: 0 },
    first_touch_date: { type: 'string' },
    last_touch_date: { type: 'string' },
  } satisfies Record<keyof PriceLevel, Schema>,
} as const;

/** The stored document's keys beyond the spec's (DESIGN section 3), which only partners read. */
const partnerExtras = {
  symbol: { type: 'string' },
  data_source: { type: 'string', enum: ['synthetic', 'imported'], description: 'where the bars came from' },
  pipeline_version: { type: 'string', description: 'version of the pipeline that stored the document' },
  bars_used: { type: 'integer', minimum: 0 },
  stage_detail: {
    type: ['object', 'null'],
    description: 'structured Weinstein stage payload beside the stage label',
    required: [
      'stage', 'label', 'sub_stage', 'weeks_in_stage', 'strength', 'week_ending', 'ma_30w', 'ma_30w_slope_percent', 'ma_10w', 'price_vs_ma_30w_percent',
      'mansfield_rs', 'mansfield_rs_trend', 'breakout_volume_ratio', 'sata_score', 'sata', 'reasons',
    ],
    properties: {
      stage: { type: 'integer', enum: [1, 2, 3, 4] },
      label: { type: 'string', enum: [...STAGE_LABELS] },
      sub_stage: { type: 'string', description: 'e.g. 2A (early), 2B (mid), 2C (late)' },
      weeks_in_stage: { type: 'integer', minimum: 0 },
      strength: { type: 'string', enum: [...STAGE_STRENGTHS] },
      week_ending: { type: 'string' },
      ma_30w: { type: 'number' },
      ma_30w_slope_percent: { type: 'number', description: 'percent change of the 30-week MA over the last 4 weeks' },
      ma_10w: numberOrNullable,
      price_vs_ma_30w_percent: { type: 'number' },
      mansfield_rs: numberOrNullable,
      mansfield_rs_trend: { type: ['string', 'null'], enum: ['rising', 'falling', 'flat', null] },
      breakout_volume_ratio: { ...numberOrNullable, description: 'volume of the last week / its 4-week average' },
      sata_score: { type: 'integer', minimum: 0, maximum: 10 },
      sata: {
        type: 'array',
        items: { type: 'object', required: ['name', 'met', 'detail'], properties: { name: { type: 'string' }, met: { type: 'boolean' }, detail: { type: 'string' } } satisfies Record<keyof SataAttribute, Schema> },
      },
      reasons: strings,
    } satisfies Record<keyof StagePayload, Schema>,
  },
  signal_reasons: strings,
  support_resistance: {
    type: ['object', 'null'],
    description: 'the clustered support and resistance levels behind support_levels and resistance_levels',
    required: ['support', 'resistance'],
    properties: { support: { type: 'array', items: priceLevel }, resistance: { type: 'array', items: priceLevel } },
  },
  regime_detail: {
    type: ['object', 'null'],
    required: ['regime', 'index_symbol', 'index_close', 'index_sma_200', 'index_sma_200_slope_percent', 'index_stage', 'reasons'],
    properties: {
      regime: { type: 'string', enum: [...MARKET_REGIMES] },
      index_symbol: { type: 'string' },
      index_close: { type: 'number' },
      index_sma_200: numberOrNullable,
      index_sma_200_slope_percent: numberOrNullable,
      index_stage: stageLabelOrNull,
      reasons: strings,
    } satisfies Record<keyof RegimeDetail, Schema>,
  },
} satisfies Record<Exclude<keyof AnalysisDocument, (typeof PUBLIC_RESULT_KEYS)[number] | (typeof AUTH_ONLY_RESULT_KEYS)[number]>, Schema>;

/** A partner's read: the whole presented document (the auth-only keys and the stored extra keys too). */
export const analysisPartnerResultSchema = {
  $id: 'AnalysisPartnerResult',
  description: "A partner's read: every key of AnalysisLatestResult, the auth-only ones and the stored document's extra keys",
  allOf: [
    { $ref: 'AnalysisLatestResult#' },
    { type: 'object', required: [...AUTH_ONLY_RESULT_KEYS, ...Object.keys(partnerExtras)], properties: partnerExtras },
  ],
} as const;

const envelope = ($id: string, description: string, result: Schema) =>
  ({
    $id,
    type: 'object',
    description,
    required: ['success', 'timestamp', 'result', 'error'],
    properties: {
      success: { type: 'boolean', const: true },
      timestamp: { type: 'string', format: 'date-time', description: 'server time when the response was built' },
      result,
      error: { type: 'null' },
    },
  }) as const;

/** spec "AnalysisResultResponse" (envelope) of the demo read; its errors are AnalysisError. */
export const analysisEnvelopeSchema = envelope('AnalysisResultResponse', 'spec "AnalysisResultResponse": a 200 of an analysis read', { $ref: 'AnalysisLatestResult#' });

/** The envelope of a partner's read. */
export const analysisPartnerEnvelopeSchema = envelope('AnalysisPartnerResultResponse', 'spec "AnalysisResultResponse": a 200 of a partner\'s analysis read', { $ref: 'AnalysisPartnerResult#' });

/** Errors of the analysis read routes: the platform error shape plus the envelope's fields. */
export const analysisErrorSchema = {
  $id: 'AnalysisError',
  allOf: [
    { $ref: 'Error#' },
    {
      type: 'object',
      required: ['timestamp', 'result'],
      properties: { timestamp: { type: 'string', format: 'date-time' }, result: { type: 'null' } },
    },
  ],
} as const;

/** The schemas the analysis origin registers (`$id`s its routes reference); `Error#` is the platform's. */
export const ANALYSIS_SCHEMAS = [
  patternEntrySchema,
  patternSignalSchema,
  priceTargetSchema,
  indicatorsSchema,
  mlSignalSchema,
  enhancedSignalSchema,
  riskParametersSchema,
  transitionProbabilitiesSchema,
  snapshotEvidenceSchema,
  snapshotCalibrationSchema,
  analysisLatestResultSchema,
  analysisPartnerResultSchema,
  analysisEnvelopeSchema,
  analysisPartnerEnvelopeSchema,
  evidenceTableSchema,
  evidenceEnvelopeSchema,
  analysisErrorSchema,
];

// ---------------------------------------------------------------------------------------------------------
// Allocation (spec "Allocation service: PortfolioRequest", "Allocation service: PortfolioResponse")
// ---------------------------------------------------------------------------------------------------------
//
// The request schemas (PortfolioRequest and the components it nests: RiskSettings, ConstraintPackV1,
// InvestorProfileV1, PolicyExplanationV1, SuggestedPreset) are derived from the request classes
// (subgraphs/allocation/request/schema.ts), the same schema the optimize route's validator is compiled
// from. They describe what a client may SEND; what the server sends back has its own components below
// (EffectiveRiskSettings, AppliedConstraintPackV1, StoredInvestorProfileV1, ServerPolicyExplanationV1),
// keyed by the engine's domain types, so a field added to one of those fails `tsc` until it is
// documented here. Response schemas do not forbid additional properties (a later version may add keys). A `$ref` that carries a
// description is wrapped in `allOf` (the OpenAPI generator drops keywords beside a bare `$ref`).

type JsonSchema = Record<string, unknown>;
type StoredInvestorProfile = NonNullable<PortfolioRequest['investor_profile']>;
type StoredSuggestedPreset = NonNullable<StoredInvestorProfile['suggested_preset']>;

/** spec "RiskSettings" in a response: the effective settings the optimizer used, every default applied. */
export const effectiveRiskSettingsSchema = {
  $id: 'EffectiveRiskSettings',
  type: 'object',
  description: 'the effective risk settings: the request\'s fields over the server defaults, or the chosen preset\'s',
  required: ['max_risk_per_trade', 'max_portfolio_risk', 'max_position_size', 'max_positions', 'allocation_strategy'],
  properties: {
    max_risk_per_trade: { type: 'number', description: 'fraction of capital at risk per position (shares x (entry - stop))' },
    max_portfolio_risk: { type: 'number', description: 'fraction of capital at risk across all stops' },
    max_position_size: { type: 'number', description: 'max weight of a single name, as a fraction' },
    max_positions: { type: 'integer', description: 'maximum number of positions' },
    allocation_strategy: { type: 'string', enum: [...ALLOCATION_STRATEGIES], description: 'how capital is weighted across eligible names' },
    softmax_temperature: { ...nullable('number'), description: 'softmax temperature; null when not set' },
    reward_multiplier: { ...nullable('number'), description: 'Kelly reward scale; null when not set' },
    stage_weights: { ...nullable('object'), additionalProperties: { type: 'number' }, description: 'stage (STAGE 1..STAGE 4, as the engine spells it) -> factor; null when not set' },
    half_kelly: { ...nullable('boolean'), description: 'half-Kelly sizing; null when not set' },
  } satisfies Record<keyof RiskSettings, JsonSchema>,
} as const;

/** spec "ConstraintPackV1" in a response: the pack applied, every field present. */
export const appliedConstraintPackSchema = {
  $id: 'AppliedConstraintPackV1',
  type: 'object',
  description: 'the constraint pack applied: the request\'s (every field present, null when not sent) or the chosen preset\'s',
  required: ['schema_version', 'max_portfolio_turnover_annual', 'vol_target_annual', 'sector_caps', 'covariance_model'],
  properties: {
    schema_version: { type: 'string', description: 'version of this object' },
    max_portfolio_turnover_annual: { ...nullable('number'), description: 'one-way annual turnover cap as a fraction; null when none' },
    vol_target_annual: { ...nullable('number'), description: 'annualised volatility target as a fraction; null when none' },
    sector_caps: { ...nullable('object'), additionalProperties: { type: 'number' }, description: 'sector label -> max weight; the DEFAULT key is a per-name cap' },
    covariance_model: { ...nullable('string'), description: 'recorded as sent (the covariance is always Ledoit-Wolf shrunk)' },
  } satisfies Record<keyof ConstraintPack, JsonSchema>,
} as const;

/** spec "InvestorProfileV1" in a response: the request's snapshot as stored, every field present. */
export const storedInvestorProfileSchema = {
  $id: 'StoredInvestorProfileV1',
  type: 'object',
  description: 'the questionnaire snapshot as sent, every field present (null when not sent)',
  required: ['schema_version', 'recorded_at', 'risk_quiz_answers', 'suggested_preset'],
  properties: {
    schema_version: { type: 'string', description: 'version of this object' },
    recorded_at: { ...nullable('string'), description: 'ISO 8601 time the questionnaire was answered' },
    risk_quiz_answers: { ...nullable('object'), additionalProperties: { type: 'string' }, description: 'quiz key -> answer string, as sent' },
    suggested_preset: {
      ...nullable('object'),
      description: 'preset key and description from the risk wizard, as sent',
      required: ['key', 'description'],
      properties: {
        key: { ...nullable('string'), description: 'preset key' },
        description: { ...nullable('string'), description: 'preset description' },
      } satisfies Record<keyof StoredSuggestedPreset, JsonSchema>,
    },
  } satisfies Record<keyof StoredInvestorProfile, JsonSchema>,
} as const;

/** spec "PolicyExplanationV1" in a response: built by the server (engine/risk-profile.ts), whatever the request sent. */
export const serverPolicyExplanationSchema = {
  $id: 'ServerPolicyExplanationV1',
  type: 'object',
  description: 'audit lines the server builds: where the settings came from and what applies (a policy_explanation in the request is not used)',
  required: ['schema_version', 'mapper_version', 'preset_key', 'bullets'],
  properties: {
    schema_version: { type: 'string', description: 'version of this object' },
    mapper_version: { type: 'string', description: 'version of the risk-quiz mapper' },
    preset_key: { ...nullable('string'), description: 'risk preset the settings came from, null when none' },
    bullets: {
      type: 'array',
      items: { type: 'string' },
      description: 'one line per setting and constraint, in a fixed order; a line lists every sector cap, so neither their number nor their length is bounded',
    },
  } satisfies Record<keyof PolicyExplanation, JsonSchema>,
} as const;

const levelList = {
  type: ['array', 'null'],
  items: {
    type: 'object',
    required: ['price'],
    properties: { price: { type: 'number' }, strength: { ...nullable('number'), description: 'level strength when known' } },
  },
} as const;

/** spec "PortfolioAllocation": one whole-share position; every key is present, null where the data is unavailable. */
export const portfolioAllocationSchema = {
  $id: 'PortfolioAllocation',
  type: 'object',
  required: [
    'symbol', 'shares', 'position_type', 'entry_price', 'position_value', 'risk_amount', 'percent_of_account', 'stop_loss',
    'target_price', 'risk_reward_ratio', 'confidence', 'stage', 'entry_date', 'signal', 'stage_strength', 'signal_confidence',
    'signal_reason', 'bb_width', 'atr', 'atr_percent', 'volatility_trend', 'is_high_volatility', 'volatility_stop_loss_levels',
    'historical_volatility', 'support_levels', 'resistance_levels',
  ],
  properties: {
    symbol: { type: 'string', description: 'ticker' },
    shares: { type: 'integer', minimum: 0, description: 'whole shares' },
    position_type: { type: 'string', description: 'LONG (SHORT is reserved)' },
    entry_price: { type: 'number', description: 'suggested entry reference price' },
    position_value: { type: 'number', description: 'shares x entry_price' },
    risk_amount: { type: 'number', description: 'capital at risk: shares x (entry_price - stop_loss)' },
    percent_of_account: { type: 'number', minimum: 0, maximum: 1, description: 'position_value as a fraction of total_capital, 0..1' },
    stop_loss: { type: 'number', description: 'stop price' },
    target_price: { ...nullable('number'), description: 'price target (pattern, resistance or ATR based)' },
    risk_reward_ratio: { type: 'number', description: '(target - entry) / (entry - stop); 0 without a target above entry' },
    confidence: { ...nullable('number'), description: 'signal confidence used for ranking, 0..1' },
    stage: { ...nullable('string'), description: 'market stage label, e.g. STAGE 2 (case varies)' },
    entry_date: { ...nullable('string'), description: 'date (ISO 8601) of the analysis the entry comes from' },
    signal: { type: ['string', 'null'], enum: [...SIGNALS, null], description: 'the signal the ranking used (the snapshot\'s enhanced or rules signal)' },
    stage_strength: { ...nullable('string'), description: 'VERY_STRONG, STRONG, MODERATE or WEAK' },
    signal_confidence: { ...nullable('number'), description: 'confidence of the signal, 0..1' },
    signal_reason: { ...nullable('string'), description: 'why the signal was given' },
    bb_width: { ...nullable('number'), description: 'Bollinger bandwidth' },
    atr: { ...nullable('number'), description: 'Average True Range' },
    atr_percent: { ...nullable('number'), description: 'ATR as percent of price' },
    volatility_trend: { ...nullable('string'), description: 'direction of volatility' },
    is_high_volatility: { ...nullable('boolean'), description: 'whether volatility is high for the name' },
    volatility_stop_loss_levels: { ...nullable('object'), additionalProperties: nullable('number'), description: 'map of volatility-derived stop levels' },
    historical_volatility: { ...nullable('number'), description: 'historical volatility' },
    support_levels: { ...levelList, description: 'support levels: objects with price and optional strength' },
    resistance_levels: { ...levelList, description: 'resistance levels: objects with price and optional strength' },
  },
} as const;

/** spec "OptimizerDiagnosticsV1". */
export const optimizerDiagnosticsSchema = {
  $id: 'OptimizerDiagnosticsV1',
  type: 'object',
  required: [
    'schema_version', 'max_position_size_effective', 'max_position_size_from_risk_settings', 'constraint_pack_default_sector_cap',
    'vol_target_annual', 'max_portfolio_turnover_annual', 'softmax_temperature_base', 'softmax_temperature_effective', 'binding_notes',
  ],
  properties: {
    schema_version: { type: 'string', description: 'version of this object, currently "1"' },
    max_position_size_effective: { type: 'number', description: 'per-name cap after merging sector_caps.DEFAULT and risk settings' },
    max_position_size_from_risk_settings: { type: 'number', description: 'risk_settings.max_position_size, before the merge' },
    constraint_pack_default_sector_cap: { ...nullable('number'), description: 'sector_caps.DEFAULT when a constraint pack was supplied' },
    vol_target_annual: { ...nullable('number'), description: 'echoed from the constraint pack' },
    max_portfolio_turnover_annual: { ...nullable('number'), description: 'echoed from the constraint pack' },
    softmax_temperature_base: { ...nullable('number'), description: 'softmax temperature before the volatility / constraint merge' },
    softmax_temperature_effective: { ...nullable('number'), description: 'softmax temperature after the merge' },
    binding_notes: { type: 'array', items: { type: 'string' }, description: 'lines describing binding constraints and deferred fields' },
  },
} as const;

/** spec "PortfolioResponse", plus the server's policy_explanation, the echoed constraint_pack and investor_profile, and the analysis date used. */
export const portfolioResponseSchema = {
  $id: 'PortfolioResponse',
  type: 'object',
  required: [
    'portfolio_id', 'name', 'description', 'total_capital', 'allocated_capital', 'remaining_capital', 'position_count', 'allocations',
    'created_at', 'currency', 'risk_settings', 'trace_id', 'optimizer_diagnostics', 'policy_explanation', 'constraint_pack',
    'investor_profile', 'analysis_date',
  ],
  properties: {
    portfolio_id: { type: 'string', description: 'unique id of this result (GET /api/v1/portfolios/{id})' },
    name: { type: 'string', description: 'echoed from the request' },
    description: { ...nullable('string'), description: 'echoed from the request' },
    total_capital: { type: 'number', description: 'from the request' },
    allocated_capital: { type: 'number', description: 'sum of position_value across allocations' },
    remaining_capital: { type: 'number', description: 'total_capital minus allocated_capital' },
    position_count: { type: 'integer', minimum: 0, description: 'length of allocations' },
    allocations: { type: 'array', items: { $ref: 'PortfolioAllocation#' }, description: 'positions, best-ranked first (at most two without credentials)' },
    created_at: { type: 'string', format: 'date-time', description: 'when the result was built' },
    currency: { type: 'string', description: 'ISO 4217 currency code' },
    risk_settings: { allOf: [{ $ref: 'EffectiveRiskSettings#' }], description: 'the effective settings used' },
    trace_id: { type: 'string', description: 'correlation id for support and logs (also the x-trace-id header)' },
    optimizer_diagnostics: { oneOf: [{ $ref: 'OptimizerDiagnosticsV1#' }, { type: 'null' }], description: 'effective caps and the constraints that bound' },
    policy_explanation: { allOf: [{ $ref: 'ServerPolicyExplanationV1#' }], description: 'server-built audit lines: where the settings came from and what applies' },
    constraint_pack: { oneOf: [{ $ref: 'AppliedConstraintPackV1#' }, { type: 'null' }], description: 'the constraint pack applied (the request\'s or the chosen preset\'s)' },
    investor_profile: { oneOf: [{ $ref: 'StoredInvestorProfileV1#' }, { type: 'null' }], description: 'echoed from the request' },
    analysis_date: { ...nullable('string'), description: 'YYYY-MM-DD of the analysis snapshots the book was built from (null when none are stored)' },
  },
} as const;

// ---------------------------------------------------------------------------------------------------------
// Books (DESIGN section 8 "portfolios": the spec leaves the portfolio read service unspecified), keyed by
// the REST shapes of subgraphs/allocation/book-types.ts: a field added there fails `tsc` until it is
// documented here. Money is whole cents (numbers with at most two decimals); shares are whole.
// ---------------------------------------------------------------------------------------------------------

const dateOnly = { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' } as const;
const dateOrNull = { type: ['string', 'null'], pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' } as const;
const tradeSide = { type: 'string', enum: [...TRADE_SIDES] } as const;
const effectiveSettingsRef = { allOf: [{ $ref: 'EffectiveRiskSettings#' }], description: 'the settings hunt, cash hunt and rebalance apply to this book, every default filled' } as const;
const appliedPackOrNull = { oneOf: [{ $ref: 'AppliedConstraintPackV1#' }, { type: 'null' }], description: 'the constraint pack stored with the book (null: none)' } as const;

/** One holding valued at its latest close. */
export const bookHoldingSchema = {
  $id: 'BookHolding',
  type: 'object',
  required: [
    'symbol', 'sector', 'shares', 'cost_basis', 'cost_total', 'price', 'price_date', 'market_value', 'weight', 'unrealised_pnl', 'unrealised_pnl_pct',
    'entry_date', 'days_held', 'stop_loss', 'target_price',
  ],
  properties: {
    symbol: { type: 'string' },
    sector: { ...nullable('string'), description: 'GICS sector of the security (null when the store has none)' },
    shares: { type: 'integer', minimum: 1, description: 'whole shares held (no short positions)' },
    cost_basis: { type: 'number', minimum: 0, description: 'average price paid per share (up to 4 decimals)' },
    cost_total: { type: 'number', minimum: 0, description: 'what the shares cost in all, whole cents (reduced pro rata by sales: average cost)' },
    price: { ...nullable('number'), description: 'latest close, to the cent (null: no close stored; the holding is valued at cost)' },
    price_date: { ...dateOrNull, description: 'date of that close' },
    market_value: { type: 'number', description: 'shares x price (x cost basis without a price)' },
    weight: { type: 'number', minimum: 0, maximum: 1, description: 'market_value / total_value (0 when the book is worth nothing)' },
    unrealised_pnl: { type: 'number', description: 'market_value - cost_total' },
    unrealised_pnl_pct: { ...nullable('number'), description: 'unrealised_pnl / cost_total (null when the cost is 0)' },
    entry_date: { ...dateOnly, description: 'when the position was opened (given, or the date of the first buy)' },
    days_held: { type: 'integer', minimum: 0, description: 'calendar days from entry_date to price_date (0 when the entry is later)' },
    stop_loss: { ...nullable('number'), description: 'stop price (null: none set; hunt and cash hunt then use the latest analysis stop)' },
    target_price: { ...nullable('number'), description: 'price target (null: none set)' },
  } satisfies Record<keyof BookHolding, JsonSchema>,
} as const;

/** One recorded trade. */
export const tradeRecordSchema = {
  $id: 'TradeRecord',
  type: 'object',
  required: ['trade_id', 'seq', 'symbol', 'side', 'shares', 'price', 'price_source', 'value', 'date', 'realised_pnl', 'cash_after', 'version', 'origin', 'recorded_at', 'trace_id'],
  properties: {
    trade_id: { type: 'string', description: 'unique id of the trade' },
    seq: { type: 'integer', minimum: 1, description: '1, 2, ... within the book, in the order trades were recorded' },
    symbol: { type: 'string' },
    side: tradeSide,
    shares: { type: 'integer', minimum: 1 },
    price: { type: 'number', exclusiveMinimum: 0, description: 'price per share, whole cents' },
    price_source: {
      type: 'string',
      enum: ['given', 'close', 'cost'],
      description: "given: sent with the trade; close: the symbol's close on (or last before) the trade date; cost: a rebalance's order for a holding with no close stored, at its average cost",
    },
    value: { type: 'number', description: 'shares x price' },
    date: { ...dateOnly, description: 'trade date' },
    realised_pnl: { ...nullable('number'), description: 'a sale: proceeds - the average cost of the shares sold; null for a buy' },
    cash_after: { type: 'number', minimum: 0, description: "the book's cash after this trade" },
    version: { type: 'integer', minimum: 1, description: "the book's version after the request that recorded it" },
    origin: { type: 'string', enum: ['trade', 'rebalance'] satisfies TradeOrigin[], description: 'trade: POST .../trades; rebalance: an applied rebalance' },
    recorded_at: { type: 'string', format: 'date-time', description: 'when it was recorded' },
    trace_id: { type: 'string', description: 'trace id of the request that recorded it' },
  } satisfies Record<keyof TradeRecord, JsonSchema>,
} as const;

/** A page of a book's trade log, newest first. */
export const tradePageSchema = {
  $id: 'TradePage',
  type: 'object',
  required: ['items', 'page', 'page_size', 'total', 'has_more'],
  properties: {
    items: { type: 'array', items: { $ref: 'TradeRecord#' }, description: 'trades of this page, newest first' },
    page: { type: 'integer', minimum: 1, description: '1-based page' },
    page_size: { type: 'integer', minimum: 1, maximum: TRADES_PAGE.max },
    total: { type: 'integer', minimum: 0, description: 'trades in the whole log' },
    has_more: { type: 'boolean', description: 'whether a later page has items' },
  } satisfies Record<keyof TradePage, JsonSchema>,
} as const;

/** GET /api/v1/portfolios/{id}: the book now. */
export const bookResponseSchema = {
  $id: 'BookResponse',
  type: 'object',
  required: [
    'portfolio_id', 'name', 'currency', 'source', 'version', 'created_at', 'updated_at', 'cash', 'holdings_value', 'total_value', 'cost_total',
    'unrealised_pnl', 'realised_pnl', 'valuation_date', 'position_count', 'holdings', 'risk_settings', 'constraint_pack', 'trades',
  ],
  properties: {
    portfolio_id: { type: 'string', description: 'id of the book (GET /api/v1/portfolios/{id}); also the portfolio_id of hunt and cash hunt' },
    name: { type: 'string' },
    currency: { type: 'string', description: 'ISO 4217 currency code' },
    source: { type: 'string', enum: [...BOOK_SOURCES], description: 'optimize (POST /optimize), holdings (POST /api/v1/portfolios) or import (CSV upload or CLI)' },
    version: { type: 'integer', minimum: 1, description: 'starts at 1, +1 per trade request or applied rebalance; also the ETag' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time', description: 'when the last trade was recorded (created_at before any)' },
    cash: { type: 'number', minimum: 0, description: 'cash, whole cents (never negative: no margin)' },
    holdings_value: { type: 'number', description: "sum of the holdings' market values" },
    total_value: { type: 'number', description: 'cash + holdings_value' },
    cost_total: { type: 'number', description: "sum of the holdings' total cost" },
    unrealised_pnl: { type: 'number', description: 'holdings_value - cost_total' },
    realised_pnl: { type: 'number', description: 'sum of realised_pnl over the trade log' },
    valuation_date: { ...dateOrNull, description: 'the newest price date among the holdings (null without holdings or prices)' },
    position_count: { type: 'integer', minimum: 0, description: 'length of holdings' },
    holdings: { type: 'array', items: { $ref: 'BookHolding#' }, description: 'largest market value first, then symbol' },
    risk_settings: effectiveSettingsRef,
    constraint_pack: appliedPackOrNull,
    trades: { allOf: [{ $ref: 'TradePage#' }], description: `the newest page of the trade log (page 1, ${TRADES_PAGE.default} items; GET .../trades for more)` },
  } satisfies Record<keyof BookResponse, JsonSchema>,
} as const;

/** POST /api/v1/portfolios/{id}/trades. */
export const tradeResponseSchema = {
  $id: 'TradeResponse',
  type: 'object',
  required: ['trade', 'portfolio'],
  properties: {
    trade: { allOf: [{ $ref: 'TradeRecord#' }], description: 'the trade recorded' },
    portfolio: { allOf: [{ $ref: 'BookResponse#' }], description: 'the book after it' },
  } satisfies Record<keyof TradeResponse, JsonSchema>,
} as const;

/** One order of a rebalance. */
export const rebalanceOrderSchema = {
  $id: 'RebalanceOrder',
  type: 'object',
  required: ['symbol', 'side', 'shares', 'price', 'value', 'price_source'],
  properties: {
    symbol: { type: 'string' },
    side: tradeSide,
    shares: { type: 'integer', minimum: 1, description: 'whole shares' },
    price: { type: 'number', exclusiveMinimum: 0, description: 'the latest close, whole cents (what the book is valued at); a holding with no close: its average cost' },
    value: { type: 'number', description: 'shares x price' },
    price_source: { type: 'string', enum: ['close', 'cost'], description: 'close: the latest close; cost: a holding with no close stored, at its average cost (an applied order\'s trade records the same)' },
  } satisfies Record<keyof RebalanceOrder, JsonSchema>,
} as const;

/** One row of a rebalance's target book. */
export const rebalanceTargetSchema = {
  $id: 'RebalanceTarget',
  type: 'object',
  required: ['symbol', 'shares', 'current_shares', 'price', 'value', 'weight'],
  properties: {
    symbol: { type: 'string' },
    shares: { type: 'integer', minimum: 0, description: 'shares once the orders are filled' },
    current_shares: { type: 'integer', minimum: 0, description: 'shares held now' },
    price: { type: 'number', description: 'the latest close' },
    value: { type: 'number', description: 'shares x price' },
    weight: { type: 'number', minimum: 0, maximum: 1, description: 'value / total_value' },
  } satisfies Record<keyof RebalanceTarget, JsonSchema>,
} as const;

/** POST /api/v1/portfolios/{id}/rebalance. */
export const rebalanceResponseSchema = {
  $id: 'RebalanceResponse',
  type: 'object',
  required: [
    'portfolio_id', 'version', 'applied', 'version_after', 'total_value', 'cash_before', 'cash_after', 'sell_value', 'buy_value', 'turnover', 'orders',
    'target', 'risk_settings', 'constraint_pack', 'optimizer_diagnostics', 'analysis_date', 'notes', 'trades',
  ],
  properties: {
    portfolio_id: { type: 'string' },
    version: { type: 'integer', minimum: 1, description: 'the version the orders were computed on' },
    applied: { type: 'boolean', description: 'true with ?apply=true: the orders were recorded as trades, in one transaction' },
    version_after: { ...nullable('integer'), description: "the book's version after the applied orders (null when not applied)" },
    total_value: { type: 'number', description: 'cash + holdings at the latest close: the capital the optimizer was given' },
    cash_before: { type: 'number', minimum: 0 },
    cash_after: { type: 'number', minimum: 0, description: 'cash once every order is filled at its price (never negative)' },
    sell_value: { type: 'number', minimum: 0 },
    buy_value: { type: 'number', minimum: 0 },
    turnover: { type: 'number', minimum: 0, description: 'one-way turnover: (sell_value + buy_value) / (2 x total_value)' },
    orders: { type: 'array', items: { $ref: 'RebalanceOrder#' }, description: 'sells first, then buys; each in symbol order' },
    target: { type: 'array', items: { $ref: 'RebalanceTarget#' }, description: 'the book the orders end at, largest value first' },
    risk_settings: { allOf: [{ $ref: 'EffectiveRiskSettings#' }], description: 'the effective settings the optimizer used' },
    constraint_pack: { oneOf: [{ $ref: 'AppliedConstraintPackV1#' }, { type: 'null' }], description: 'the constraint pack applied (null: none)' },
    optimizer_diagnostics: { allOf: [{ $ref: 'OptimizerDiagnosticsV1#' }], description: 'effective caps and the constraints that bound' },
    analysis_date: { ...nullable('string'), description: 'YYYY-MM-DD of the analysis snapshots the target was built from' },
    notes: { type: 'array', items: { type: 'string' }, description: 'what shaped the orders (whole shares, caps, cash)' },
    trades: { type: 'array', items: { $ref: 'TradeRecord#' }, description: 'the recorded trades when applied (empty otherwise)' },
  } satisfies Record<keyof RebalanceResponse, JsonSchema>,
} as const;

/**
 * The book requests' components (derived from the request classes like PortfolioRequest: the schema the
 * service's validators are compiled from), by the route whose body each one is.
 */
export const BOOK_REQUEST_IDS = Object.freeze({ create: 'CreatePortfolioRequest', trade: 'TradeRequest', rebalance: 'RebalanceRequest' });

/** The schemas the allocation origin registers (`$id`s its routes reference); `Error#` is the platform's. */
export const ALLOCATION_SCHEMAS = [
  ...requestSchemas(),
  ...bookRequestSchemas(),
  effectiveRiskSettingsSchema,
  appliedConstraintPackSchema,
  storedInvestorProfileSchema,
  serverPolicyExplanationSchema,
  portfolioAllocationSchema,
  optimizerDiagnosticsSchema,
  portfolioResponseSchema,
  bookHoldingSchema,
  tradeRecordSchema,
  tradePageSchema,
  bookResponseSchema,
  tradeResponseSchema,
  rebalanceOrderSchema,
  rebalanceTargetSchema,
  rebalanceResponseSchema,
];

/** Error responses of a route, by status, in the given shape. */
export function errorResponses(ref: 'Error#' | 'AnalysisError#', ...statuses: number[]): Record<number, unknown> {
  return Object.fromEntries(statuses.map((s) => [s, { $ref: ref }]));
}

// ---------------------------------------------------------------------------------------------------------
// Opportunity search (spec "Opportunity-search service responses"; the element fields are the product's,
// docs/SEARCH.md). Every documented field is required, so a response missing one fails the contract tests;
// additional properties are not forbidden.
// ---------------------------------------------------------------------------------------------------------

const numberOrNull = nullable('number');
const stringOrNull = nullable('string');

/** A new position for the portfolio (replacement, cash-hunt idea, suitability alternative). */
export const ideaSchema = {
  $id: 'SearchIdea',
  type: 'object',
  required: [
    'symbol', 'sector', 'fit_score', 'signal_quality', 'stage', 'signal', 'shares', 'entry_price', 'stop_loss', 'target_price', 'position_value',
    'risk_amount', 'risk_reward_ratio', 'percent_of_portfolio', 'correlation_to_portfolio', 'sector_weight_after', 'added_volatility', 'reasons',
  ],
  properties: {
    symbol: { type: 'string' },
    sector: { type: 'string' },
    fit_score: { type: 'number', description: 'signal quality minus correlation, sector-overweight and added-volatility penalties (higher fits better)' },
    signal_quality: { type: 'number', minimum: 0, maximum: 1, description: 'the allocation HYBRID_WEIGHTED blend of stage, conviction, Kelly edge and relative strength' },
    stage: stringOrNull,
    signal: stringOrNull,
    shares: { type: 'integer', minimum: 1, description: 'whole shares suggested under the portfolio risk settings' },
    entry_price: { type: 'number', description: 'latest close' },
    stop_loss: { type: 'number' },
    target_price: numberOrNull,
    position_value: { type: 'number', description: 'shares x entry_price' },
    risk_amount: { type: 'number', description: 'shares x (entry_price - stop_loss)' },
    risk_reward_ratio: { type: 'number' },
    percent_of_portfolio: { type: 'number', description: 'position_value / portfolio value (positions at the latest closes plus cash)' },
    correlation_to_portfolio: { ...numberOrNull, description: 'correlation of daily returns with the portfolio over the last year (null when unmeasurable)' },
    sector_weight_after: { type: 'number', description: 'the sector weight with this position' },
    added_volatility: { type: 'number', description: 'annualised portfolio volatility with the position minus without it' },
    reasons: strings,
  },
} as const;

const ideas = { type: 'array', items: { $ref: 'SearchIdea#' } } as const;

export const huntRecommendationSchema = {
  $id: 'HuntRecommendation',
  type: 'object',
  required: [
    'type', 'symbol', 'sector', 'score', 'rating', 'shares', 'current_price', 'entry_price', 'stop_loss', 'unrealized_return', 'current_weight',
    'stage', 'signal', 'suggested_share_change', 'replacement_candidates', 'reasons',
  ],
  properties: {
    type: { type: 'string', enum: ['EXIT', 'REPLACE', 'TRIM', 'ADD', 'HOLD'] },
    symbol: { type: 'string' },
    sector: { type: 'string' },
    score: { type: 'number', minimum: 0, maximum: 1, description: 'how strongly the evidence points to this action' },
    rating: { type: 'string', enum: ['STRONG', 'WEAK', 'NEUTRAL'] },
    shares: { type: 'integer', description: 'shares held' },
    current_price: { ...numberOrNull, description: 'latest close (null without an analysis snapshot)' },
    entry_price: { type: 'number', description: 'price the position was built at' },
    stop_loss: { type: 'number' },
    unrealized_return: numberOrNull,
    current_weight: { type: 'number' },
    stage: stringOrNull,
    signal: stringOrNull,
    suggested_share_change: { type: 'integer', description: 'shares to buy (positive) or sell (negative)' },
    replacement_candidates: { ...ideas, description: 'REPLACE: the best replacements (at most 3)' },
    reasons: strings,
  },
} as const;

export const concernSchema = {
  $id: 'HuntConcern',
  type: 'object',
  required: ['type', 'symbols', 'score', 'value', 'threshold', 'reasons'],
  properties: {
    type: { type: 'string', enum: ['SECTOR_CONCENTRATION', 'CORRELATED_PAIR', 'HIGH_VOLATILITY', 'STALE_ANALYSIS', 'BROKEN_SUPPORT', 'CASH_DRAG'] },
    symbols: { ...strings, description: 'holdings concerned ([] for the whole portfolio)' },
    score: { type: 'number', minimum: 0, maximum: 1, description: 'severity' },
    value: { type: 'number', description: 'the measured figure' },
    threshold: { type: 'number', description: 'the limit it is measured against' },
    reasons: strings,
  },
} as const;

export const generalAssessmentSchema = {
  $id: 'GeneralAssessment',
  type: 'object',
  required: ['total_positions', 'strong_positions', 'weak_positions', 'portfolio_value', 'available_cash', 'portfolio_volatility', 'recommendations', 'concerns'],
  properties: {
    total_positions: { type: 'integer', minimum: 0 },
    strong_positions: { type: 'integer', minimum: 0 },
    weak_positions: { type: 'integer', minimum: 0 },
    portfolio_value: { type: 'number' },
    available_cash: { type: 'number' },
    portfolio_volatility: numberOrNull,
    recommendations: { type: 'array', items: { $ref: 'HuntRecommendation#' }, description: 'one per holding; this page' },
    concerns: { type: 'array', items: { $ref: 'HuntConcern#' }, description: 'every concern, most severe first (not paginated)' },
  },
} as const;

export const replacementAnalysisSchema = {
  $id: 'ReplacementAnalysis',
  type: 'object',
  required: ['symbol', 'sector', 'shares', 'current_price', 'freed_capital', 'rating', 'reasons', 'candidates', 'notes'],
  properties: {
    symbol: { type: 'string', description: 'the holding to replace' },
    sector: { type: 'string' },
    shares: { type: 'integer' },
    current_price: numberOrNull,
    freed_capital: { type: 'number', description: 'shares x current price' },
    rating: { type: 'string', enum: ['STRONG', 'WEAK', 'NEUTRAL'] },
    reasons: strings,
    candidates: { ...ideas, description: 'ranked by fit_score; this page' },
    notes: strings,
  },
} as const;

export const suitabilityAnalysisSchema = {
  $id: 'SuitabilityAnalysis',
  type: 'object',
  required: [
    'symbol', 'verdict', 'fit_score', 'signal_quality', 'stage', 'signal', 'eligible', 'already_held', 'analysis_date', 'suggested_shares',
    'suggested_value', 'fundable_from_cash', 'entry_price', 'stop_loss', 'target_price', 'risk_amount', 'sector_effect', 'correlation_to_portfolio',
    'most_correlated_holding', 'portfolio_volatility_before', 'portfolio_volatility_after', 'vol_target_annual', 'reasons', 'alternatives',
  ],
  properties: {
    symbol: { type: 'string' },
    verdict: { type: 'string', enum: ['SUITABLE', 'CAUTION', 'UNSUITABLE'] },
    fit_score: { type: 'number' },
    signal_quality: { type: 'number' },
    stage: stringOrNull,
    signal: stringOrNull,
    eligible: { type: 'boolean', description: 'whether the allocation long rule admits it' },
    already_held: { type: 'boolean' },
    analysis_date: { type: 'string' },
    suggested_shares: { type: 'integer', minimum: 0, description: 'under the risk settings, cash aside (additional shares when held)' },
    suggested_value: { type: 'number' },
    fundable_from_cash: { type: 'boolean' },
    entry_price: { type: 'number' },
    stop_loss: { type: 'number' },
    target_price: numberOrNull,
    risk_amount: { type: 'number' },
    sector_effect: {
      type: 'object',
      required: ['sector', 'weight_before', 'weight_after', 'cap'],
      properties: { sector: { type: 'string' }, weight_before: { type: 'number' }, weight_after: { type: 'number' }, cap: numberOrNull },
    },
    correlation_to_portfolio: numberOrNull,
    most_correlated_holding: {
      type: ['object', 'null'],
      required: ['symbol', 'correlation'],
      properties: { symbol: { type: 'string' }, correlation: { type: 'number' } },
    },
    portfolio_volatility_before: numberOrNull,
    portfolio_volatility_after: numberOrNull,
    vol_target_annual: numberOrNull,
    reasons: strings,
    alternatives: { ...ideas, description: 'same-sector names with a higher fit score; this page' },
  },
} as const;

const paginationFields = {
  page: { type: 'integer', minimum: 1, description: '1-based page' },
  page_size: { type: 'integer', minimum: 1, maximum: 50 },
  total_recommendations: { type: 'integer', minimum: 0, description: 'length of the whole ranked list' },
  has_more: { type: 'boolean', description: 'whether a later page has items' },
} as const;

/** spec "HuntResponse". */
export const huntResponseSchema = {
  $id: 'HuntResponse',
  type: 'object',
  required: [
    'portfolio_id', 'portfolio_name', 'hunt_mode', 'general_assessment', 'replacement_analysis', 'suitability_analysis', 'page', 'page_size',
    'total_recommendations', 'has_more', 'analysis_date',
  ],
  properties: {
    portfolio_id: { type: 'string' },
    portfolio_name: { type: 'string' },
    hunt_mode: { type: 'string', enum: ['general', 'replace', 'interest'], description: 'general (no symbol parameter), replace (symbol_replace) or interest (symbol_interest)' },
    general_assessment: { oneOf: [{ $ref: 'GeneralAssessment#' }, { type: 'null' }], description: 'general mode; paginated list: recommendations' },
    replacement_analysis: { oneOf: [{ $ref: 'ReplacementAnalysis#' }, { type: 'null' }], description: 'replace mode; paginated list: candidates' },
    suitability_analysis: { oneOf: [{ $ref: 'SuitabilityAnalysis#' }, { type: 'null' }], description: 'interest mode; paginated list: alternatives' },
    ...paginationFields,
    analysis_date: { ...stringOrNull, description: 'newest analysis date the answer used' },
  },
} as const;

/** spec "CashHuntResponse", plus cash_after, notes and the analysis date. */
export const cashHuntResponseSchema = {
  $id: 'CashHuntResponse',
  type: 'object',
  required: [
    'portfolio_id', 'portfolio_name', 'available_cash', 'total_capital', 'recommendations', 'page', 'page_size', 'total_recommendations', 'has_more',
    'cash_after', 'notes', 'analysis_date',
  ],
  properties: {
    portfolio_id: { type: 'string' },
    portfolio_name: { type: 'string' },
    available_cash: { type: 'number', description: 'the portfolio remaining capital' },
    total_capital: { type: 'number' },
    recommendations: { ...ideas, description: 'new positions in buying order; this page' },
    ...paginationFields,
    cash_after: { type: 'number', description: 'cash left after buying every recommendation (all pages)' },
    notes: strings,
    analysis_date: stringOrNull,
  },
} as const;

/** The schemas the search origin registers. */
export const SEARCH_SCHEMAS = [
  ideaSchema,
  huntRecommendationSchema,
  concernSchema,
  generalAssessmentSchema,
  replacementAnalysisSchema,
  suitabilityAnalysisSchema,
  huntResponseSchema,
  cashHuntResponseSchema,
];
