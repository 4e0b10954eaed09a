/**
 * Analysis subgraph types (camelCase fields; the REST layer keeps the spec's snake_case).
 *
 * An analysis snapshot has typed fields for what the spec names (stage, price, patterns, signals,
 * levels) and a JSON scalar for the free-form parts (indicators, the structured stage payload, ML and
 * blended signals, risk parameters, transition probabilities) and for `document`, the result exactly as
 * the REST read returns it to the same caller. A field whose key the caller may not see (auth-only and
 * extra keys, for unauthenticated callers) is null.
 */
import 'reflect-metadata';
import { JSONResolver, LocalDateResolver } from 'graphql-scalars';
import { Directive, Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { PageInfo } from '../../platform/graphql-types.js';

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
  @Field(() => LocalDateResolver)
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

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD' })
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
  @Field(() => String, { description: 'Pattern classifier name, e.g. DOUBLE_BOTTOM' })
  type!: string;

  @Field(() => String, { nullable: true, description: 'forming, active, completed or failed' })
  status!: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD' })
  startDate!: string | null;

  @Field(() => String, { nullable: true, description: 'YYYY-MM-DD' })
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

  @Field(() => String, { description: 'Date of the first snapshot measured, YYYY-MM-DD' })
  firstDate!: string;

  @Field(() => String, { description: 'The as-of date, YYYY-MM-DD (no later bar or snapshot counts)' })
  lastDate!: string;

  @Field(() => String, { description: "Benchmark of the excess returns: 'equal-weight'" })
  benchmark!: string;
}

@ObjectType('SnapshotEvidence', {
  description:
    "The snapshot's own states with their measured out-of-sample record, from the as-of table with the greatest as-of <= the analysis date (no look-ahead)",
})
export class SnapshotEvidenceType {
  @Field(() => String, { nullable: true, description: 'As-of date (YYYY-MM-DD) of the table used; null without one' })
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
  @Field(() => String, { nullable: true, description: 'As-of date of the calibrators; null without a table' })
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

  @Field(() => String, {
    nullable: true,
    description: 'confidence: the rules signal (BUY, SELL, HOLD) the calibrator is for; enhanced_confidence: the enhanced signal; null for the others',
  })
  signal!: string | null;

  @Field(() => String, { description: 'What the probability is the chance of' })
  event!: string;

  @Field(() => Int, { description: 'Outcomes known by as-of the calibrator was fitted on' })
  n!: number;

  @Field(() => Float, { nullable: true, description: 'Share of those outcomes that happened' })
  baseRate!: number | null;

  @Field(() => String, { nullable: true, description: 'isotonic or platt; null without a calibrator' })
  method!: string | null;

  @Field(() => JSONResolver, { nullable: true, description: 'The fitted map (isotonic blocks or Platt a, b); null below 200 outcomes' })
  calibrator!: unknown;

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
  @Field(() => String, { description: 'YYYY-MM-DD' })
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

  @Field(() => LocalDateResolver, { description: 'Calendar date of the analysis' })
  analysisDate!: string;

  @Field(() => String, { nullable: true, description: 'When the analysis was produced (from the document)' })
  analysisTimestamp!: string | null;

  @Field(() => String, { description: 'When the pipeline stored this snapshot (ISO 8601)' })
  producedAt!: string;

  @Field(() => String, { description: 'Version of the pipeline that produced the snapshot' })
  pipelineVersion!: string;

  @Field(() => String, { nullable: true, description: 'synthetic or imported: where the bars behind the analysis came from' })
  dataSource!: string | null;

  @Field(() => String, { nullable: true, description: 'Weinstein stage label, e.g. STAGE 2' })
  stage!: string | null;

  @Field(() => String, { nullable: true, description: 'VERY_STRONG, STRONG, MODERATE or WEAK' })
  stageStrength!: string | null;

  @Field(() => JSONResolver, { nullable: true, description: 'Structured stage payload (sub-stage, weeks in stage, 30-week MA, SATA attributes); partners only' })
  stageDetail!: unknown;

  @Field(() => Float, { nullable: true, description: 'Reference price (close of the analysis day)' })
  price!: number | null;

  @Field(() => Float, { nullable: true, description: 'Volume of the analysis day (Float: can exceed 32-bit integers)' })
  volume!: number | null;

  @Field(() => JSONResolver, { nullable: true, description: 'Indicator values at the analysis date (free-form)' })
  indicators!: unknown;

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

  @Field(() => String, { nullable: true, description: 'Composite rules-based signal: BUY, SELL or HOLD' })
  signal!: string | null;

  @Field(() => [String], { nullable: true, description: 'Why the composite signal is what it is; partners only' })
  signalReasons!: string[] | null;

  @Field(() => Float, {
    nullable: true,
    description: "Calibrated chance, 0..1, that the rules signal is right (the as-of calibrator of the snapshot's signal); null when not measured. The stored value is calibration.confidence.raw",
  })
  confidence!: number | null;

  @Field(() => JSONResolver, {
    nullable: true,
    description: 'Model-based signal with its model summary (out-of-sample metrics); probability_up calibrated (null when not measured), confidence = |2 probability_up - 1|, stored confidence in raw_confidence',
  })
  mlSignal!: unknown;

  @Field(() => JSONResolver, {
    nullable: true,
    description:
      "Blend of the rules and model signals; confidence is the calibrated chance, 0..1, that the enhanced signal is right (null when not measured, see calibration.enhancedConfidence.reason), the stored confidence in raw_confidence; score is a score in [-1, 1], not a probability",
  })
  enhancedSignal!: unknown;

  @Field(() => JSONResolver, { nullable: true, description: 'Stops and sizing hints; partners only (null without a partner token)' })
  riskParameters!: unknown;

  @Field(() => JSONResolver, { nullable: true, description: 'Stage transition model output; partners only (null without a partner token)' })
  transitionProbabilities!: unknown;

  @Field(() => SnapshotEvidenceType, { nullable: true, description: "The snapshot's states with their measured out-of-sample record (as-of table of its date)" })
  evidence!: SnapshotEvidenceType | null;

  @Field(() => SnapshotCalibrationType, { nullable: true, description: "The snapshot's probabilities, raw and calibrated, with the calibrators' out-of-sample metrics" })
  calibration!: SnapshotCalibrationType | null;

  @Field(() => JSONResolver, { description: "The result exactly as the REST read returns it to this caller (the spec's snake_case keys)" })
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

  @Field(() => LocalDateResolver)
  fromDate!: string;

  @Field(() => LocalDateResolver)
  toDate!: string;

  @Field(() => Int)
  symbols!: number;

  @Field(() => Int)
  snapshots!: number;

  @Field(() => AnalysisModelType, { nullable: true, description: 'Null when the history was too short for an out-of-sample model' })
  model!: AnalysisModelType | null;
}
