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

@ObjectType('PatternConfidenceParts', { description: 'What a pattern confidence is made of, each 0..1' })
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

  @Field(() => Float, { nullable: true, description: 'Detector confidence, 0..1' })
  confidence!: number | null;

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

@ObjectType('PatternSignal', { description: 'Aggregated pattern bias; confidences 0..1, net = bullish - bearish' })
export class PatternSignalType {
  @Field(() => String, { nullable: true, description: 'BULLISH, BEARISH or NEUTRAL' })
  direction!: string | null;

  @Field(() => Float, { nullable: true })
  netConfidence!: number | null;

  @Field(() => Float, { nullable: true })
  bullishConfidence!: number | null;

  @Field(() => Float, { nullable: true })
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

  @Field(() => Float, { nullable: true })
  confidence!: number | null;
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

  @Field(() => Float, { nullable: true, description: 'Overall confidence, 0..1' })
  confidence!: number | null;

  @Field(() => JSONResolver, { nullable: true, description: 'Model-based signal with its model summary (out-of-sample metrics)' })
  mlSignal!: unknown;

  @Field(() => JSONResolver, { nullable: true, description: 'Blend of the rules and model signals' })
  enhancedSignal!: unknown;

  @Field(() => JSONResolver, { nullable: true, description: 'Stops and sizing hints; partners only (null without a partner token)' })
  riskParameters!: unknown;

  @Field(() => JSONResolver, { nullable: true, description: 'Stage transition model output; partners only (null without a partner token)' })
  transitionProbabilities!: unknown;

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
