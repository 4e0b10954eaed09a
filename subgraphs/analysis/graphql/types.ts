/**
 * Analysis subgraph types (camelCase fields; the REST layer keeps the spec's snake_case).
 *
 * An analysis snapshot has a typed field for every part of the stored document (engine/document.ts:
 * stage, indicators, patterns, signals, risk parameters, transition probabilities, evidence), enums for
 * its closed vocabularies, the one date scalar for dates, and JSON only for `document`, the result
 * exactly as the REST read returns it to the same caller. A field whose key the caller may not see (auth-only and
 * extra keys, for unauthenticated callers) is null.
 */
import 'reflect-metadata';
import { JSONResolver } from 'graphql-scalars';
import { Directive, Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DateScalar, PageInfo } from '../../platform/graphql-types.js';
import { SignalEnum, StageEnum, StageStrengthEnum } from './enums.js';
import { VolatilityStopLossLevelsType } from './shared-types.js';
import type { PatternStatus, PatternType, Signal, StageLabel, StageNumber, StageStrength } from '../engine/document.js';
import type { CalibrationMethod } from '../engine/evidence/calibration.js';

export enum AssetTypeEnum {
  EQUITY = 'EQUITY',
  INDEX = 'INDEX',
}
registerEnumType(AssetTypeEnum, { name: 'AssetType', description: 'What kind of instrument a security is' });

export enum DataSourceEnum {
  SYNTHETIC = 'synthetic',
  IMPORTED = 'imported',
}
registerEnumType(DataSourceEnum, {
  name: 'DataSource',
  description: 'Where the bars came from; SYNTHETIC marks the generated demo market',
});

@ObjectType({ description: 'One daily bar (prices split- and dividend-adjusted when imported that way)' })
export class BarType {
  @Field(() => DateScalar)
  date!: string;

  @Field(() => Float)
  open!: number;

  @Field(() => Float)
  high!: number;

  @Field(() => Float)
  low!: number;

  @Field(() => Float)
  close!: number;

  @Field(() => Float, { description: 'Shares traded (Float: daily volumes can exceed 32-bit integers)' })
  volume!: number;
}


@ObjectType({ description: 'A page of daily bars, oldest first' })
export class BarConnection {
  @Field(() => [BarType])
  nodes!: BarType[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  @Field(() => Int, { description: 'Bars in the requested date range' })
  totalCount!: number;
}

@Directive('@key(fields: "symbol")')
@ObjectType('Security', { description: 'A listed security or index; owned by the analysis subgraph' })
export class SecurityType {
  @Field(() => String)
  symbol!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true, description: 'GICS sector' })
  sector!: string | null;

  @Field(() => String, { nullable: true, description: 'GICS sub-industry' })
  subIndustry!: string | null;

  @Field(() => AssetTypeEnum)
  assetType!: AssetTypeEnum;

  @Field(() => DataSourceEnum)
  dataSource!: DataSourceEnum;
}

@ObjectType({ description: 'A page of securities in symbol order' })
export class SecurityConnection {
  @Field(() => [SecurityType])
  nodes!: SecurityType[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  @Field(() => Int)
  totalCount!: number;
}

@ObjectType('PatternPoint', { description: 'A named point of a pattern (e.g. left_shoulder, head, breakout)' })
export class PatternPointType {
  @Field(() => String)
  label!: string;

  @Field(() => DateScalar, { nullable: true })
  date!: string | null;

  @Field(() => Float, { nullable: true })
  price!: number | null;
}

@ObjectType('PatternConfidenceParts', { description: "What the detector's raw confidence is made of, each a score in [0, 1], not a probability" })
export class PatternConfidencePartsType {
  @Field(() => Float, { nullable: true })
  geometry!: number | null;

  @Field(() => Float, { nullable: true })
  volume!: number | null;

  @Field(() => Float, { nullable: true })
  trend!: number | null;
}

@ObjectType('Pattern', { description: "A detected chart pattern (the spec's PatternEntry)" })
export class PatternEntryType {
  @Field(() => PatternTypeEnum, { description: 'Pattern classifier' })
  type!: PatternType;

  @Field(() => PatternStatusEnum, { nullable: true })
  status!: PatternStatus | null;

  @Field(() => DateScalar, { nullable: true })
  startDate!: string | null;

  @Field(() => DateScalar, { nullable: true })
  endDate!: string | null;

  @Field(() => Float, {
    nullable: true,
    description:
      "Calibrated chance, 0..1, that the pattern reaches its target before its invalidation level (the snapshot's as-of pattern_target calibrator applied to the detector's confidence); null when not measured",
  })
  confidence!: number | null;

  @Field(() => Float, { nullable: true, description: "The detector's own confidence as stored (before calibration): a score in [0, 1], not a probability; see calibration for probabilities" })
  rawConfidence!: number | null;

  @Field(() => Float, { nullable: true, description: 'Measured-move target price' })
  priceTarget!: number | null;

  @Field(() => String, { nullable: true, description: 'bullish or bearish' })
  direction!: string | null;

  @Field(() => Float, { nullable: true, description: 'Price whose crossing confirms the pattern' })
  breakoutLevel!: number | null;

  @Field(() => Float, { nullable: true, description: 'Price whose crossing invalidates the pattern' })
  invalidationLevel!: number | null;

  @Field(() => [PatternPointType], { nullable: true })
  keyPoints!: PatternPointType[] | null;

  @Field(() => PatternConfidencePartsType, { nullable: true })
  confidenceParts!: PatternConfidencePartsType | null;
}

@ObjectType('PatternSignal', {
  description: 'Aggregated pattern bias. Its confidences are scores, not probabilities (net = bullish - bearish); see calibration for probabilities',
})
export class PatternSignalType {
  @Field(() => String, { nullable: true, description: 'BULLISH, BEARISH or NEUTRAL' })
  direction!: string | null;

  @Field(() => Float, { nullable: true, description: 'Bullish minus bearish: a score in [-1, 1], not a probability; see calibration for probabilities' })
  netConfidence!: number | null;

  @Field(() => Float, { nullable: true, description: 'A score in [0, 1], not a probability; see calibration for probabilities' })
  bullishConfidence!: number | null;

  @Field(() => Float, { nullable: true, description: 'A score in [0, 1], not a probability; see calibration for probabilities' })
  bearishConfidence!: number | null;

  @Field(() => Int, { nullable: true })
  patternCount!: number | null;
}

@ObjectType('PriceTarget', { description: 'A price target from pattern, level or volatility logic' })
export class PriceTargetType {
  @Field(() => String, { nullable: true, description: 'pattern, resistance, support or atr' })
  source!: string | null;

  @Field(() => String, { nullable: true, description: 'Pattern type or level kind that produced the target' })
  basis!: string | null;

  @Field(() => String, { nullable: true, description: 'bullish or bearish' })
  direction!: string | null;

  @Field(() => Float, { nullable: true })
  price!: number | null;

  @Field(() => Float, { nullable: true, description: 'Percent move from the snapshot price (positive = above)' })
  distancePercent!: number | null;

  @Field(() => Float, {
    nullable: true,
    description:
      'Pattern targets: the calibrated chance of target before invalidation (null when not measured); level and volatility targets: the level strength, a score in [0, 1], not a probability; see calibration for probabilities',
  })
  confidence!: number | null;

  @Field(() => Float, { nullable: true, description: "Pattern targets: the detector's stored confidence (before calibration; a score in [0, 1], not a probability); null for other sources" })
  rawConfidence!: number | null;
}

// ---------------------------------------------------------------------------------------------------------
// The typed parts of a snapshot (engine/document.ts): each class has the domain type's fields in
// camelCase (`sma_10` -> `sma10`; a `STAGE n` map key -> `stageN`), and `SnapshotPartsMatchDomain`
// (resolvers.ts) fails `tsc` when a class and its domain type differ.
// ---------------------------------------------------------------------------------------------------------

export enum PatternTypeEnum {
  DOUBLE_TOP = 'DOUBLE_TOP',
  DOUBLE_BOTTOM = 'DOUBLE_BOTTOM',
  HEAD_AND_SHOULDERS = 'HEAD_AND_SHOULDERS',
  INVERSE_HEAD_AND_SHOULDERS = 'INVERSE_HEAD_AND_SHOULDERS',
  ASCENDING_TRIANGLE = 'ASCENDING_TRIANGLE',
  DESCENDING_TRIANGLE = 'DESCENDING_TRIANGLE',
  SYMMETRICAL_TRIANGLE = 'SYMMETRICAL_TRIANGLE',
  BULL_FLAG = 'BULL_FLAG',
  BEAR_FLAG = 'BEAR_FLAG',
  CUP_AND_HANDLE = 'CUP_AND_HANDLE',
  RANGE_BREAKOUT = 'RANGE_BREAKOUT',
}
registerEnumType(PatternTypeEnum, { name: 'PatternType', description: 'Chart pattern classifier' });

export enum PatternStatusEnum {
  FORMING = 'forming',
  ACTIVE = 'active',
  COMPLETED = 'completed',
  FAILED = 'failed',
}
registerEnumType(PatternStatusEnum, {
  name: 'PatternStatus',
  description: 'Pattern lifecycle: FORMING (not yet confirmed), ACTIVE (confirmed, target not reached), COMPLETED (target reached), FAILED (invalidated)',
});

type VolatilityTrend = 'rising' | 'falling' | 'stable';

@ObjectType('BollingerBands', { description: 'Bollinger bands (20 days, 2 standard deviations)' })
export class BollingerBandsType {
  @Field(() => Float)
  upper!: number;

  @Field(() => Float)
  middle!: number;

  @Field(() => Float)
  lower!: number;

  @Field(() => Float, { description: '(upper - lower) / middle' })
  bandwidth!: number;
}

@ObjectType('Macd', { description: 'MACD (12, 26, 9)' })
export class MacdType {
  @Field(() => Float)
  macd!: number;

  @Field(() => Float)
  signal!: number;

  @Field(() => Float)
  histogram!: number;
}

@ObjectType('Indicators', { description: 'Indicator values at the analysis date (null during warm-up). Daily unless the name ends in w (weekly)' })
export class IndicatorsType {
  @Field(() => Float, { nullable: true }) sma10!: number | null;
  @Field(() => Float, { nullable: true }) sma20!: number | null;
  @Field(() => Float, { nullable: true }) sma50!: number | null;
  @Field(() => Float, { nullable: true }) sma150!: number | null;
  @Field(() => Float, { nullable: true }) sma200!: number | null;
  @Field(() => Float, { nullable: true }) ema10!: number | null;
  @Field(() => Float, { nullable: true }) ema20!: number | null;
  @Field(() => Float, { nullable: true }) ema50!: number | null;
  @Field(() => Float, { nullable: true }) ema150!: number | null;
  @Field(() => Float, { nullable: true }) ema200!: number | null;
  @Field(() => Float, { nullable: true }) sma10w!: number | null;
  @Field(() => Float, { nullable: true }) sma30w!: number | null;
  @Field(() => Float, { nullable: true }) ema10w!: number | null;
  @Field(() => Float, { nullable: true }) ema30w!: number | null;
  @Field(() => Float, { nullable: true }) rsi14!: number | null;
  @Field(() => Float, { nullable: true }) atr14!: number | null;

  @Field(() => Float, { nullable: true, description: 'ATR as percent of the close (2.4 means 2.4%)' })
  atrPercent!: number | null;

  @Field(() => BollingerBandsType, { nullable: true })
  bollinger!: BollingerBandsType | null;

  @Field(() => MacdType, { nullable: true })
  macd!: MacdType | null;

  @Field(() => Float, { nullable: true }) volumeSma20!: number | null;
  @Field(() => Float, { nullable: true }) volumeSma50!: number | null;

  @Field(() => Float, { nullable: true, description: 'Volume of the day / its 50-day average' })
  relativeVolume!: number | null;

  @Field(() => Float, { nullable: true, description: 'Annualised 20-day volatility, a fraction (0.25 = 25%)' })
  historicalVolatility20!: number | null;

  @Field(() => Float, { nullable: true, description: 'Annualised 60-day volatility, a fraction' })
  historicalVolatility60!: number | null;

  @Field(() => String, { nullable: true, description: 'rising, falling or stable' })
  volatilityTrend!: VolatilityTrend | null;

  @Field(() => Boolean, { nullable: true })
  isHighVolatility!: boolean | null;

  @Field(() => Float, { nullable: true, description: 'Mansfield relative strength on weekly bars' })
  mansfieldRs!: number | null;

  @Field(() => Int, { nullable: true, description: '0-10 tally of stage attributes (see stageDetail.sata)' })
  sataScore!: number | null;
}

@ObjectType('SataAttribute', { description: 'One stage attribute of the SATA tally' })
export class SataAttributeType {
  @Field(() => String)
  name!: string;

  @Field(() => Boolean)
  met!: boolean;

  @Field(() => String)
  detail!: string;
}

@ObjectType('StageDetail', { description: 'Structured Weinstein stage payload, beside the stage label' })
export class StageDetailType {
  @Field(() => Int, { description: '1 to 4' })
  stage!: StageNumber;

  @Field(() => StageEnum)
  label!: StageLabel;

  @Field(() => String, { description: 'e.g. 2A (early), 2B (mid), 2C (late)' })
  subStage!: string;

  @Field(() => Int)
  weeksInStage!: number;

  @Field(() => StageStrengthEnum)
  strength!: StageStrength;

  @Field(() => DateScalar, { description: 'Last day of the week the stage was read on' })
  weekEnding!: string;

  @Field(() => Float, { description: '30-week moving average' })
  ma30w!: number;

  @Field(() => Float, { description: 'Percent change of the 30-week MA over the last 4 weeks' })
  ma30wSlopePercent!: number;

  @Field(() => Float, { nullable: true })
  ma10w!: number | null;

  @Field(() => Float)
  priceVsMa30wPercent!: number;

  @Field(() => Float, { nullable: true })
  mansfieldRs!: number | null;

  @Field(() => String, { nullable: true, description: 'rising, falling or flat' })
  mansfieldRsTrend!: 'rising' | 'falling' | 'flat' | null;

  @Field(() => Float, { nullable: true, description: 'Volume of the last week / its 4-week average' })
  breakoutVolumeRatio!: number | null;

  @Field(() => Int, { description: '0-10' })
  sataScore!: number;

  @Field(() => [SataAttributeType])
  sata!: SataAttributeType[];

  @Field(() => [String])
  reasons!: string[];
}

@ObjectType('AucInterval', { description: 'A percentile interval by stationary block bootstrap over dates' })
export class AucIntervalType {
  @Field(() => Float)
  low!: number;

  @Field(() => Float)
  high!: number;

  @Field(() => Float, { description: 'Coverage, e.g. 0.95' })
  level!: number;

  @Field(() => Float, { description: 'Mean block length in dates' })
  blockLength!: number;
}

@ObjectType('MlModelSummary', { description: "The ML signal's model and its out-of-sample record" })
export class MlModelSummaryType {
  @Field(() => String, { description: 'logistic_regression' })
  model!: 'logistic_regression';

  @Field(() => String)
  version!: string;

  @Field(() => [String])
  features!: string[];

  @Field(() => Int, { description: 'Label: sign of the forward return over this many trading days in excess of the universe index' })
  horizonDays!: number;

  @Field(() => DateScalar)
  trainedThrough!: string;

  @Field(() => Int)
  trainSamples!: number;

  @Field(() => Float, { nullable: true })
  oosAccuracy!: number | null;

  @Field(() => Float, { nullable: true })
  oosAuc!: number | null;

  @Field(() => Int)
  oosSamples!: number;

  @Field(() => Int, { nullable: true, description: 'Distinct sample dates of the out-of-sample record (null in documents stored before pipeline 1.1.0)' })
  oosDates!: number | null;

  @Field(() => DateScalar, { nullable: true, description: 'Latest sample date of that record' })
  oosThrough!: string | null;

  @Field(() => AucIntervalType, { nullable: true, description: 'Interval of oosAuc; null with fewer than 10 dates or no AUC' })
  oosAucCi!: AucIntervalType | null;
}

@ObjectType('MlSignal', { description: 'Model-based signal: probabilityUp calibrated (null when not measured), confidence = |2 probabilityUp - 1|, the stored confidence in rawConfidence' })
export class MlSignalType {
  @Field(() => SignalEnum)
  signal!: Signal;

  @Field(() => Float, { nullable: true, description: 'Calibrated probability that the forward 20-day excess return is positive; null when not measured' })
  probabilityUp!: number | null;

  @Field(() => Float, { nullable: true })
  confidence!: number | null;

  @Field(() => Float, { nullable: true, description: 'The stored confidence (before calibration)' })
  rawConfidence!: number | null;

  @Field(() => MlModelSummaryType)
  model!: MlModelSummaryType;
}

@ObjectType('BlendWeight', { description: "A component's weight in the blend and why it got it" })
export class BlendWeightType {
  @Field(() => Float)
  weight!: number;

  @Field(() => String)
  reason!: string;
}

@ObjectType('BlendWeights', { description: 'Each component of the enhanced signal with its weight and reason' })
export class BlendWeightsType {
  @Field(() => BlendWeightType)
  rules!: BlendWeightType;

  @Field(() => BlendWeightType)
  ml!: BlendWeightType;
}

@ObjectType('EnhancedSignal', {
  description:
    'Blend of the rules and model signals; confidence is the calibrated chance, 0..1, that the enhanced signal is right (null when not measured, see calibration.enhancedConfidence.reason), the stored confidence in rawConfidence; score is a score in [-1, 1], not a probability',
})
export class EnhancedSignalType {
  @Field(() => SignalEnum)
  signal!: Signal;

  @Field(() => Float, { description: 'Blended score in [-1, 1] (positive = bullish)' })
  score!: number;

  @Field(() => Float, { nullable: true })
  confidence!: number | null;

  @Field(() => Float, { nullable: true, description: 'The stored confidence (before calibration)' })
  rawConfidence!: number | null;

  @Field(() => Float)
  rulesWeight!: number;

  @Field(() => Float)
  mlWeight!: number;

  @Field(() => BlendWeightsType, { nullable: true, description: 'null in documents stored before pipeline 1.1.0' })
  weights!: BlendWeightsType | null;

  @Field(() => [String])
  reasons!: string[];
}

@ObjectType('RiskParameters', { description: 'Stops and sizing hints' })
export class RiskParametersType {
  @Field(() => Float)
  entryPrice!: number;

  @Field(() => Float, { nullable: true })
  atrStop!: number | null;

  @Field(() => Float, { nullable: true })
  supportStop!: number | null;

  @Field(() => Float, { nullable: true, description: 'The tighter of the ATR and support stops, but at least minStopDistancePercent below entry' })
  suggestedStop!: number | null;

  @Field(() => String, { nullable: true, description: 'atr, support or minimum_distance' })
  stopMethod!: 'atr' | 'support' | 'minimum_distance' | null;

  @Field(() => Float)
  minStopDistancePercent!: number;

  @Field(() => Float, { nullable: true })
  riskPerShare!: number | null;

  @Field(() => Float, { nullable: true })
  riskPerSharePercent!: number | null;

  @Field(() => Float, { nullable: true, description: 'Nearest resistance or pattern target above entry' })
  suggestedTarget!: number | null;

  @Field(() => Float, { nullable: true })
  rewardRiskRatio!: number | null;

  @Field(() => Float, { nullable: true, description: 'Shares per 100,000 of capital when risking 1% per trade (before position caps)' })
  sharesPer100kAt1pctRisk!: number | null;

  @Field(() => String, { nullable: true, description: 'Max position weight that keeps the 1%-risk trade within a 20% single-name cap' })
  positionSizeHint!: string | null;

  @Field(() => VolatilityStopLossLevelsType, { nullable: true })
  volatilityStopLossLevels!: VolatilityStopLossLevelsType | null;

  @Field(() => Float, { nullable: true })
  atr!: number | null;

  @Field(() => Float, { nullable: true })
  atrPercent!: number | null;

  @Field(() => Float, { nullable: true })
  historicalVolatility!: number | null;

  @Field(() => String, { nullable: true, description: 'rising, falling or stable' })
  volatilityTrend!: VolatilityTrend | null;

  @Field(() => Boolean, { nullable: true })
  isHighVolatility!: boolean | null;
}

@ObjectType('StageValues', { description: 'A number per stage (a probability or a count)' })
export class StageValuesType {
  @Field(() => Float) stage1!: number;
  @Field(() => Float) stage2!: number;
  @Field(() => Float) stage3!: number;
  @Field(() => Float) stage4!: number;
}

@ObjectType('StageMatrix', { description: 'A row per stage of the week before: the values per stage of the week after' })
export class StageMatrixType {
  @Field(() => StageValuesType) stage1!: StageValuesType;
  @Field(() => StageValuesType) stage2!: StageValuesType;
  @Field(() => StageValuesType) stage3!: StageValuesType;
  @Field(() => StageValuesType) stage4!: StageValuesType;
}

@ObjectType('TransitionProbabilities', { description: 'Stage transition model output, estimated from every symbol\'s weekly stage history' })
export class TransitionProbabilitiesType {
  @Field(() => StageEnum, { description: "The row's stage (the snapshot's current stage)" })
  currentStage!: StageLabel;

  @Field(() => StageValuesType, { description: 'Probability of each stage one week later, given the current stage' })
  nextWeek!: StageValuesType;

  @Field(() => Int, { description: 'Week-to-week transitions observed from the current stage' })
  sampleSize!: number;

  @Field(() => StageMatrixType, { description: 'Row-normalised transition matrix' })
  matrix!: StageMatrixType;

  @Field(() => StageMatrixType, { description: 'Transitions counted' })
  counts!: StageMatrixType;

  @Field(() => Int)
  totalTransitions!: number;

  @Field(() => DateScalar, { description: 'Only weeks ending on or before this date were counted (no look-ahead)' })
  estimatedThrough!: string;

  @Field(() => Int)
  symbols!: number;
}

@ObjectType('CalibrationBlock', { description: 'One block of an isotonic calibrator' })
export class CalibrationBlockType {
  @Field(() => Float, { description: 'Smallest training score in the block' })
  low!: number;

  @Field(() => Float, { description: 'Largest training score in the block' })
  high!: number;

  @Field(() => Int)
  n!: number;

  @Field(() => Int)
  positives!: number;

  @Field(() => Float, { description: 'Calibrated probability (after shrinkage)' })
  value!: number;
}

@ObjectType('Calibrator', { description: 'A fitted calibrator: isotonic blocks, or Platt a and b (p = 1 / (1 + exp(-(a s + b))))' })
export class CalibratorType {
  @Field(() => String, { description: 'isotonic or platt' })
  method!: CalibrationMethod;

  @Field(() => Int, { description: 'Training rows used' })
  n!: number;

  @Field(() => Int, { description: 'Training positives' })
  positives!: number;

  @Field(() => Float, { description: 'Base rate the values were shrunk toward' })
  baseRate!: number;

  @Field(() => Float, { description: 'Shrinkage strength, in pseudo-observations' })
  priorStrength!: number;

  @Field(() => [CalibrationBlockType], { nullable: true, description: 'isotonic: blocks in increasing score order; null for platt' })
  blocks!: CalibrationBlockType[] | null;

  @Field(() => Float, { nullable: true, description: 'platt: slope; null for isotonic' })
  a!: number | null;

  @Field(() => Float, { nullable: true, description: 'platt: intercept; null for isotonic' })
  b!: number | null;
}

// ---------------------------------------------------------------------------------------------------------
// Evidence and calibration (DESIGN section 8; engine/evidence/present.ts, state-evidence.ts)
// ---------------------------------------------------------------------------------------------------------

export enum EvidenceStatusEnum {
  MEASURED = 'measured',
  NOT_MEASURED = 'not_measured',
}
registerEnumType(EvidenceStatusEnum, {
  name: 'EvidenceStatus',
  description: 'MEASURED when an as-of evidence table exists on or before the snapshot date, NOT_MEASURED otherwise',
});

@ObjectType('EvidenceEstimate', { description: 'A measured figure with its 95% interval (block bootstrap over dates); value and interval null with too few outcomes' })
export class EvidenceEstimateType {
  @Field(() => Float, { nullable: true, description: 'The figure; null with too few outcomes' })
  value!: number | null;

  @Field(() => [Float], { nullable: true, description: '[low, high] of the 95% interval; null with too few outcomes' })
  ci!: number[] | null;
}

@ObjectType('PatternTargetEvidence', { description: 'Share of past best-pattern trades whose target came before the stop, against a placebo' })
export class PatternTargetEvidenceType {
  @Field(() => Float, { nullable: true, description: 'Share of trades whose target came before the stop within the pattern window (timeouts count as misses)' })
  value!: number | null;

  @Field(() => [Float], { nullable: true, description: '[low, high] of its 95% interval' })
  ci!: number[] | null;

  @Field(() => Int, { description: 'Trades measured' })
  n!: number;

  @Field(() => Float, { nullable: true, description: 'The same share for the same target and stop distances from random earlier days of the same symbol' })
  placebo!: number | null;
}

@ObjectType('StateEvidence', { description: 'What followed past snapshots in one state, measured with outcomes known by the table\'s as-of date' })
export class StateEvidenceType {
  @Field(() => String, { description: "State label, e.g. 'STAGE 2 STRONG', 'BUY', '4-6' (sata_score bucket) or a pattern type" })
  state!: string;

  @Field(() => Int, { description: 'Snapshots in this state whose 20-day outcome was known by as-of' })
  n!: number;

  @Field(() => Int, { description: 'Distinct dates among them' })
  dates!: number;

  @Field(() => EvidenceEstimateType, { description: 'Share with a 20-day return above the equal-weight universe' })
  hitRate!: EvidenceEstimateType;

  @Field(() => EvidenceEstimateType, { description: 'Mean forward 20-trading-day return in excess of the equal-weight universe (0.01 = 1%)' })
  meanExcess20d!: EvidenceEstimateType;

  @Field(() => EvidenceEstimateType, { description: 'Mean forward 60-trading-day excess return (its own count of known outcomes may be smaller)' })
  meanExcess60d!: EvidenceEstimateType;

  @Field(() => PatternTargetEvidenceType, { nullable: true, description: 'Best-pattern states only: target before stop, with placebo' })
  targetFirst!: PatternTargetEvidenceType | null;
}

@ObjectType('EvidenceUniverse', { description: 'The universe evidence was measured on' })
export class EvidenceUniverseType {
  @Field(() => Int, { description: "Equities of the store's universe with a snapshot dated on or before the as-of date" })
  symbols!: number;

  @Field(() => DateScalar, { description: 'Date of the first snapshot measured' })
  firstDate!: string;

  @Field(() => DateScalar, { description: 'The as-of date (no later bar or snapshot counts)' })
  lastDate!: string;

  @Field(() => String, { description: "Benchmark of the excess returns: 'equal-weight'" })
  benchmark!: string;
}

@ObjectType('SnapshotEvidence', {
  description:
    "The snapshot's own states with their measured out-of-sample record, from the as-of table with the greatest as-of <= the analysis date (no look-ahead)",
})
export class SnapshotEvidenceType {
  @Field(() => DateScalar, { nullable: true, description: 'As-of date of the table used; null without one' })
  asOf!: string | null;

  @Field(() => EvidenceStatusEnum, { description: 'Whether a table was measured on or before the snapshot date' })
  status!: EvidenceStatusEnum;

  @Field(() => String, { nullable: true, description: 'Why nothing is measured; null when measured' })
  reason!: string | null;

  @Field(() => String, { nullable: true, description: 'Pipeline version of the snapshots the table was measured on' })
  pipelineVersion!: string | null;

  @Field(() => EvidenceUniverseType, { nullable: true, description: 'The universe measured on; null without a table' })
  universe!: EvidenceUniverseType | null;

  @Field(() => StateEvidenceType, { nullable: true, description: 'Stage with strength; null when the snapshot has no stage' })
  stage!: StateEvidenceType | null;

  @Field(() => StateEvidenceType, { nullable: true, description: 'Rules signal; null when the snapshot has none' })
  signal!: StateEvidenceType | null;

  @Field(() => StateEvidenceType, { nullable: true, description: 'sata_score bucket (0-3, 4-6, 7-10); null without a sata_score' })
  sataBucket!: StateEvidenceType | null;

  @Field(() => StateEvidenceType, { nullable: true, description: 'Best pattern type; null without a best pattern' })
  bestPattern!: StateEvidenceType | null;
}

@ObjectType('CalibratedProbability', { description: 'A probability the snapshot shows: the stored value and its calibrated chance, with the calibrator\'s out-of-sample record' })
export class CalibratedProbabilityType {
  @Field(() => Float, { nullable: true, description: 'The stored (uncalibrated) value' })
  raw!: number | null;

  @Field(() => Float, { nullable: true, description: 'Calibrated probability of the event, 0..1; null when not measured' })
  probability!: number | null;

  @Field(() => String, { nullable: true, description: 'What the probability is the chance of' })
  event!: string | null;

  @Field(() => String, { nullable: true, description: 'isotonic or platt (shrunk toward the base rate when n is small)' })
  method!: string | null;

  @Field(() => Int, { description: 'Outcomes known by as-of the calibrator was fitted on' })
  n!: number;

  @Field(() => Float, { nullable: true, description: 'Out-of-sample Brier score (walk-forward)' })
  brier!: number | null;

  @Field(() => Float, { nullable: true, description: 'Out-of-sample expected calibration error (ten bins)' })
  ece!: number | null;

  @Field(() => String, { nullable: true, description: 'Why probability is null; null when it is given' })
  reason!: string | null;
}

@ObjectType('SnapshotCalibration', {
  description:
    "The snapshot's probabilities, raw and calibrated; the calibrated values also replace confidence, enhancedSignal.confidence, mlSignal.probability_up and pattern confidences in place. Pattern signal confidences and non-pattern price target confidences are scores, not probabilities, and are not calibrated",
})
export class SnapshotCalibrationType {
  @Field(() => DateScalar, { nullable: true, description: 'As-of date of the calibrators; null without a table' })
  asOf!: string | null;

  @Field(() => CalibratedProbabilityType, { description: "Rules confidence, by the calibrator of the snapshot's signal" })
  confidence!: CalibratedProbabilityType;

  @Field(() => CalibratedProbabilityType, {
    description:
      "The enhanced (blended) signal's confidence, by the calibrator of the snapshot's enhanced signal (the same events as confidence); probability null with a reason when not measured, including when the table predates this calibrator",
  })
  enhancedConfidence!: CalibratedProbabilityType;

  @Field(() => CalibratedProbabilityType, { description: 'ML probability that the 20-day return beats the equal-weight universe' })
  mlProbabilityUp!: CalibratedProbabilityType;

  @Field(() => CalibratedProbabilityType, { description: "Best pattern's chance of target before invalidation" })
  patternTarget!: CalibratedProbabilityType;
}

@ObjectType('ReliabilityBin', { description: 'One bin of a reliability table: calibrated probabilities in a range against the observed rate' })
export class ReliabilityBinType {
  @Field(() => Float, { nullable: true, description: 'Lower edge of the bin' })
  low!: number | null;

  @Field(() => Float, { nullable: true, description: 'Upper edge of the bin' })
  high!: number | null;

  @Field(() => Int, { description: 'Rows in the bin' })
  n!: number;

  @Field(() => Float, { nullable: true, description: 'Mean predicted probability; null when empty' })
  meanPredicted!: number | null;

  @Field(() => Float, { nullable: true, description: 'Observed share of events; null when empty' })
  observedRate!: number | null;

  @Field(() => Float, { nullable: true, description: 'Wilson 95% interval of the observed share, lower end' })
  observedLow!: number | null;

  @Field(() => Float, { nullable: true, description: 'Wilson 95% interval of the observed share, upper end' })
  observedHigh!: number | null;
}

@ObjectType('CalibrationMetrics', { description: 'Out-of-sample calibration (walk-forward: each month scored by the calibrator of the month before)' })
export class CalibrationMetricsType {
  @Field(() => Int, { description: 'Rows scored' })
  n!: number;

  @Field(() => Float, { nullable: true, description: 'Brier score' })
  brier!: number | null;

  @Field(() => Float, { nullable: true, description: 'Expected calibration error' })
  ece!: number | null;

  @Field(() => [ReliabilityBinType], { description: 'Reliability table: ten equal-width bins of predicted probability (0-0.1, ..., 0.9-1)' })
  reliability!: ReliabilityBinType[];
}

@ObjectType('ProbabilityCalibration', { description: 'The calibrator of one probability in an evidence table' })
export class ProbabilityCalibrationType {
  @Field(() => String, { description: 'confidence, enhanced_confidence, ml_probability_up or pattern_target' })
  name!: string;

  @Field(() => SignalEnum, {
    nullable: true,
    description: 'confidence: the rules signal the calibrator is for; enhanced_confidence: the enhanced signal; null for the others',
  })
  signal!: Signal | null;

  @Field(() => String, { description: 'What the probability is the chance of' })
  event!: string;

  @Field(() => Int, { description: 'Outcomes known by as-of the calibrator was fitted on' })
  n!: number;

  @Field(() => Float, { nullable: true, description: 'Share of those outcomes that happened' })
  baseRate!: number | null;

  @Field(() => String, { nullable: true, description: 'isotonic or platt; null without a calibrator' })
  method!: string | null;

  @Field(() => CalibratorType, { nullable: true, description: 'The fitted map (isotonic blocks or Platt a, b); null below 200 outcomes' })
  calibrator!: CalibratorType | null;

  @Field(() => CalibrationMetricsType, { nullable: true, description: 'Out-of-sample metrics; null without scored rows' })
  metrics!: CalibrationMetricsType | null;
}

@ObjectType('EvidenceTableState', { description: 'One state of one output in an evidence table' })
export class EvidenceTableStateType {
  @Field(() => String, { description: 'stage, signal, sata_bucket or best_pattern' })
  output!: string;

  @Field(() => StateEvidenceType, { description: 'The state and its record' })
  record!: StateEvidenceType;
}

@ObjectType('EvidenceTable', {
  description: "The evidence measured with outcomes known by as-of (a month's last trading day): per-state records and per-probability calibrators. Never changes once computed",
})
export class EvidenceTableType {
  @Field(() => DateScalar)
  asOf!: string;

  @Field(() => String, { description: 'Pipeline version of the snapshots measured' })
  pipelineVersion!: string;

  @Field(() => EvidenceUniverseType, { description: 'The universe measured on' })
  universe!: EvidenceUniverseType;

  @Field(() => [EvidenceTableStateType], { description: 'Every state of every output, outputs in order stage, signal, sata_bucket, best_pattern' })
  states!: EvidenceTableStateType[];

  @Field(() => [ProbabilityCalibrationType], {
    description:
      'Calibrators: confidence per rules signal (BUY, SELL, HOLD), enhanced_confidence per enhanced signal (BUY, SELL, HOLD; absent from tables stored before it was measured), then ml_probability_up and pattern_target',
  })
  probabilities!: ProbabilityCalibrationType[];
}

@ObjectType('AnalysisSnapshot', {
  description:
    'A stored analysis snapshot of one symbol on one date. Without a partner token: the demo symbol only, always its latest snapshot, public fields only (auth-only and extra fields are null)',
})
export class AnalysisSnapshotType {
  @Field(() => String)
  symbol!: string;

  @Field(() => DateScalar, { description: 'Calendar date of the analysis' })
  analysisDate!: string;

  @Field(() => String, { nullable: true, description: 'When the analysis was produced (from the document)' })
  analysisTimestamp!: string | null;

  @Field(() => String, { description: 'When the pipeline stored this snapshot (ISO 8601)' })
  producedAt!: string;

  @Field(() => String, { description: 'Version of the pipeline that produced the snapshot' })
  pipelineVersion!: string;

  @Field(() => String, { nullable: true, description: 'synthetic or imported: where the bars behind the analysis came from' })
  dataSource!: string | null;

  @Field(() => StageEnum, { nullable: true, description: 'Weinstein stage' })
  stage!: StageLabel | null;

  @Field(() => StageStrengthEnum, { nullable: true })
  stageStrength!: StageStrength | null;

  @Field(() => StageDetailType, { nullable: true, description: 'Structured stage payload (sub-stage, weeks in stage, 30-week MA, SATA attributes); partners only' })
  stageDetail!: StageDetailType | null;

  @Field(() => Float, { nullable: true, description: 'Reference price (close of the analysis day)' })
  price!: number | null;

  @Field(() => Float, { nullable: true, description: 'Volume of the analysis day (Float: can exceed 32-bit integers)' })
  volume!: number | null;

  @Field(() => IndicatorsType, { nullable: true, description: 'Indicator values at the analysis date' })
  indicators!: IndicatorsType | null;

  @Field(() => [PatternEntryType], { nullable: true })
  detectedPatterns!: PatternEntryType[] | null;

  @Field(() => PatternEntryType, { nullable: true })
  bestPattern!: PatternEntryType | null;

  @Field(() => PatternSignalType, { nullable: true })
  patternSignal!: PatternSignalType | null;

  @Field(() => [PatternEntryType], { nullable: true, description: 'Patterns over a shorter, recent horizon' })
  recentPatterns!: PatternEntryType[] | null;

  @Field(() => PatternEntryType, { nullable: true })
  bestRecentPattern!: PatternEntryType | null;

  @Field(() => PatternSignalType, { nullable: true })
  recentPatternSignal!: PatternSignalType | null;

  @Field(() => [PriceTargetType], { nullable: true })
  priceTargets!: PriceTargetType[] | null;

  @Field(() => [Float], { nullable: true })
  supportLevels!: number[] | null;

  @Field(() => [Float], { nullable: true })
  resistanceLevels!: number[] | null;

  @Field(() => String, { nullable: true, description: 'bull, bear or sideways' })
  marketRegime!: string | null;

  @Field(() => String, { nullable: true, description: 'GICS sector' })
  sector!: string | null;

  @Field(() => SignalEnum, { nullable: true, description: 'Composite rules-based signal' })
  signal!: Signal | null;

  @Field(() => [String], { nullable: true, description: 'Why the composite signal is what it is; partners only' })
  signalReasons!: string[] | null;

  @Field(() => Float, {
    nullable: true,
    description: "Calibrated chance, 0..1, that the rules signal is right (the as-of calibrator of the snapshot's signal); null when not measured. The stored value is calibration.confidence.raw",
  })
  confidence!: number | null;

  @Field(() => MlSignalType, { nullable: true, description: 'Model-based signal with its model summary (out-of-sample metrics)' })
  mlSignal!: MlSignalType | null;

  @Field(() => EnhancedSignalType, { nullable: true, description: 'Blend of the rules and model signals' })
  enhancedSignal!: EnhancedSignalType | null;

  @Field(() => RiskParametersType, { nullable: true, description: 'Stops and sizing hints; partners only (null without a partner token)' })
  riskParameters!: RiskParametersType | null;

  @Field(() => TransitionProbabilitiesType, { nullable: true, description: 'Stage transition model output; partners only (null without a partner token)' })
  transitionProbabilities!: TransitionProbabilitiesType | null;

  @Field(() => SnapshotEvidenceType, { nullable: true, description: "The snapshot's states with their measured out-of-sample record (as-of table of its date)" })
  evidence!: SnapshotEvidenceType | null;

  @Field(() => SnapshotCalibrationType, { nullable: true, description: "The snapshot's probabilities, raw and calibrated, with the calibrators' out-of-sample metrics" })
  calibration!: SnapshotCalibrationType | null;

  @Field(() => JSONResolver, {
    description:
      "The result exactly as the REST read returns it to this caller (the spec's snake_case keys). JSON on purpose: it is the REST document byte for byte, extra keys included, for clients that read the REST shape; every part of it also has a typed field above",
  })
  document!: unknown;
}

@ObjectType('AnalysisSnapshotConnection', { description: 'A page of analysis snapshots, oldest first' })
export class AnalysisSnapshotConnection {
  @Field(() => [AnalysisSnapshotType])
  nodes!: AnalysisSnapshotType[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  @Field(() => Int, { description: 'Snapshots in the requested date range' })
  totalCount!: number;
}

@ObjectType('AnalysisModel', { description: "The ML signal's walk-forward logistic regression, as last estimated" })
export class AnalysisModelType {
  @Field(() => Int, { description: 'Walk-forward windows (quarterly retrains)' })
  folds!: number;

  @Field(() => Float, { nullable: true, description: 'Out-of-sample accuracy (threshold 0.5), pooled over every window' })
  oosAccuracy!: number | null;

  @Field(() => Float, { nullable: true, description: 'Out-of-sample ROC AUC, pooled over every window (0.5 = chance)' })
  oosAuc!: number | null;

  @Field(() => Int, { description: 'Labelled samples predicted out of sample' })
  oosSamples!: number;

  @Field(() => Int, { description: 'Training samples of the latest window' })
  trainSamplesLastFold!: number;
}

@ObjectType('AnalysisRun', { description: 'One run of the analysis pipeline' })
export class AnalysisRunType {
  @Field(() => String)
  startedAt!: string;

  @Field(() => String)
  finishedAt!: string;

  @Field(() => String)
  pipelineVersion!: string;

  @Field(() => DateScalar)
  fromDate!: string;

  @Field(() => DateScalar)
  toDate!: string;

  @Field(() => Int)
  symbols!: number;

  @Field(() => Int)
  snapshots!: number;

  @Field(() => AnalysisModelType, { nullable: true, description: 'Null when the history was too short for an out-of-sample model' })
  model!: AnalysisModelType | null;
}
