/**
 * Search subgraph output types. `Portfolio @key(fields: "id")` is the allocation subgraph's entity; this
 * subgraph contributes its `hunt` and `cashHunt` fields. Every idea and recommendation references
 * `Security` (the analysis subgraph's entity) so one gateway query can fetch each name's analysis.
 * Fields are camelCase; the REST responses keep snake_case (docs/SEARCH.md documents both).
 */
import { SafeIntResolver } from 'graphql-scalars';
import { Directive, Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DateScalar, SecurityReference } from '../../platform/graphql-types.js';
import { SignalEnum, StageEnum } from '../../analysis/graphql/enums.js';
import type { Assert, Same } from '../../platform/type-checks.js';
import type { Signal, StageLabel } from '../../analysis/engine/document.js';
import type { HuntMode } from '../engine/pagination.js';
import type { ConcernType as ConcernKind, RecommendationType } from '../engine/types.js';

// Closed vocabularies of the hunt: the TS enum values are the REST values, GraphQL shows the keys.

export enum HuntModeEnum {
  GENERAL = 'general',
  REPLACE = 'replace',
  INTEREST = 'interest',
}
registerEnumType(HuntModeEnum, { name: 'HuntMode', description: "Which answer a hunt gives (REST hunt_mode: 'general', 'replace', 'interest')" });

export enum RecommendationTypeEnum {
  EXIT = 'EXIT',
  REPLACE = 'REPLACE',
  TRIM = 'TRIM',
  ADD = 'ADD',
  HOLD = 'HOLD',
}
registerEnumType(RecommendationTypeEnum, { name: 'RecommendationType', description: 'What to do with a holding' });

export enum ConcernTypeEnum {
  SECTOR_CONCENTRATION = 'SECTOR_CONCENTRATION',
  CORRELATED_PAIR = 'CORRELATED_PAIR',
  HIGH_VOLATILITY = 'HIGH_VOLATILITY',
  STALE_ANALYSIS = 'STALE_ANALYSIS',
  BROKEN_SUPPORT = 'BROKEN_SUPPORT',
  CASH_DRAG = 'CASH_DRAG',
}
registerEnumType(ConcernTypeEnum, { name: 'ConcernType', description: 'A kind of portfolio-level risk' });

export type SearchEnumsMatchDomain = [
  Assert<Same<`${HuntModeEnum}`, HuntMode>>,
  Assert<Same<`${RecommendationTypeEnum}`, RecommendationType>>,
  Assert<Same<`${ConcernTypeEnum}`, ConcernKind>>,
];

@ObjectType('SearchIdea', { description: 'A new position for the portfolio: a replacement, a cash-hunt idea or a suitability alternative' })
export class IdeaType {
  @Field(() => String)
  symbol!: string;

  @Field(() => SecurityReference, { description: 'The security, with its analysis (resolved by the analysis subgraph)' })
  security!: SecurityReference;

  @Field(() => String)
  sector!: string;

  @Field(() => Float, { description: 'Signal quality minus correlation, sector-overweight and added-volatility penalties' })
  fitScore!: number;

  @Field(() => Float, { description: 'The allocation HYBRID_WEIGHTED blend, 0..1' })
  signalQuality!: number;

  @Field(() => StageEnum, { nullable: true })
  stage!: StageLabel | null;

  @Field(() => SignalEnum, { nullable: true })
  signal!: Signal | null;

  @Field(() => SafeIntResolver)
  shares!: number;

  @Field(() => Float)
  entryPrice!: number;

  @Field(() => Float)
  stopLoss!: number;

  @Field(() => Float, { nullable: true })
  targetPrice!: number | null;

  @Field(() => Float)
  positionValue!: number;

  @Field(() => Float)
  riskAmount!: number;

  @Field(() => Float)
  riskRewardRatio!: number;

  @Field(() => Float)
  percentOfPortfolio!: number;

  @Field(() => Float, { nullable: true })
  correlationToPortfolio!: number | null;

  @Field(() => Float)
  sectorWeightAfter!: number;

  @Field(() => Float)
  addedVolatility!: number;

  @Field(() => [String])
  reasons!: string[];
}

@ObjectType('HuntRecommendation', { description: 'What to do with one holding' })
export class HuntRecommendationType {
  @Field(() => RecommendationTypeEnum)
  type!: RecommendationType;

  @Field(() => String)
  symbol!: string;

  @Field(() => SecurityReference)
  security!: SecurityReference;

  @Field(() => String)
  sector!: string;

  @Field(() => Float, { description: 'How strongly the evidence points to this action, 0..1' })
  score!: number;

  @Field(() => String, { description: 'STRONG, WEAK or NEUTRAL' })
  rating!: string;

  @Field(() => SafeIntResolver)
  shares!: number;

  @Field(() => Float, { nullable: true })
  currentPrice!: number | null;

  @Field(() => Float)
  entryPrice!: number;

  @Field(() => Float)
  stopLoss!: number;

  @Field(() => Float, { nullable: true })
  unrealizedReturn!: number | null;

  @Field(() => Float)
  currentWeight!: number;

  @Field(() => StageEnum, { nullable: true })
  stage!: StageLabel | null;

  @Field(() => SignalEnum, { nullable: true })
  signal!: Signal | null;

  @Field(() => SafeIntResolver, { description: 'Shares to buy (positive) or sell (negative)' })
  suggestedShareChange!: number;

  @Field(() => [IdeaType], { description: 'REPLACE: the best replacements (at most 3)' })
  replacementCandidates!: IdeaType[];

  @Field(() => [String])
  reasons!: string[];
}

@ObjectType('HuntConcern', { description: 'A portfolio-level risk worth attention' })
export class ConcernType {
  @Field(() => ConcernTypeEnum)
  type!: ConcernKind;

  @Field(() => [String], { description: 'Holdings concerned ([] for the whole portfolio)' })
  symbols!: string[];

  @Field(() => Float, { description: 'Severity, 0..1' })
  score!: number;

  @Field(() => Float)
  value!: number;

  @Field(() => Float)
  threshold!: number;

  @Field(() => [String])
  reasons!: string[];
}

@ObjectType('GeneralAssessment')
export class GeneralAssessmentType {
  @Field(() => Int)
  totalPositions!: number;

  @Field(() => Int)
  strongPositions!: number;

  @Field(() => Int)
  weakPositions!: number;

  @Field(() => Float)
  portfolioValue!: number;

  @Field(() => Float)
  availableCash!: number;

  @Field(() => Float, { nullable: true })
  portfolioVolatility!: number | null;

  @Field(() => [HuntRecommendationType], { description: 'One per holding; this page' })
  recommendations!: HuntRecommendationType[];

  @Field(() => [ConcernType], { description: 'Every concern, most severe first' })
  concerns!: ConcernType[];
}

@ObjectType('ReplacementAnalysis')
export class ReplacementAnalysisType {
  @Field(() => String, { description: 'The holding to replace' })
  symbol!: string;

  @Field(() => SecurityReference)
  security!: SecurityReference;

  @Field(() => String)
  sector!: string;

  @Field(() => SafeIntResolver)
  shares!: number;

  @Field(() => Float, { nullable: true })
  currentPrice!: number | null;

  @Field(() => Float)
  freedCapital!: number;

  @Field(() => String)
  rating!: string;

  @Field(() => [String])
  reasons!: string[];

  @Field(() => [IdeaType], { description: 'Ranked by fit; this page' })
  candidates!: IdeaType[];

  @Field(() => [String])
  notes!: string[];
}

@ObjectType('SectorEffect')
export class SectorEffectType {
  @Field(() => String)
  sector!: string;

  @Field(() => Float)
  weightBefore!: number;

  @Field(() => Float)
  weightAfter!: number;

  @Field(() => Float, { nullable: true })
  cap!: number | null;
}

@ObjectType('CorrelatedHolding')
export class CorrelatedHoldingType {
  @Field(() => String)
  symbol!: string;

  @Field(() => SecurityReference)
  security!: SecurityReference;

  @Field(() => Float)
  correlation!: number;
}

@ObjectType('SuitabilityAnalysis')
export class SuitabilityAnalysisType {
  @Field(() => String)
  symbol!: string;

  @Field(() => SecurityReference)
  security!: SecurityReference;

  @Field(() => String, { description: 'SUITABLE, CAUTION or UNSUITABLE' })
  verdict!: string;

  @Field(() => Float)
  fitScore!: number;

  @Field(() => Float)
  signalQuality!: number;

  @Field(() => StageEnum, { nullable: true })
  stage!: StageLabel | null;

  @Field(() => SignalEnum, { nullable: true })
  signal!: Signal | null;

  @Field(() => Boolean)
  eligible!: boolean;

  @Field(() => Boolean)
  alreadyHeld!: boolean;

  @Field(() => DateScalar)
  analysisDate!: string;

  @Field(() => SafeIntResolver)
  suggestedShares!: number;

  @Field(() => Float)
  suggestedValue!: number;

  @Field(() => Boolean)
  fundableFromCash!: boolean;

  @Field(() => Float)
  entryPrice!: number;

  @Field(() => Float)
  stopLoss!: number;

  @Field(() => Float, { nullable: true })
  targetPrice!: number | null;

  @Field(() => Float)
  riskAmount!: number;

  @Field(() => SectorEffectType)
  sectorEffect!: SectorEffectType;

  @Field(() => Float, { nullable: true })
  correlationToPortfolio!: number | null;

  @Field(() => CorrelatedHoldingType, { nullable: true })
  mostCorrelatedHolding!: CorrelatedHoldingType | null;

  @Field(() => Float, { nullable: true })
  portfolioVolatilityBefore!: number | null;

  @Field(() => Float, { nullable: true })
  portfolioVolatilityAfter!: number | null;

  @Field(() => Float, { nullable: true })
  volTargetAnnual!: number | null;

  @Field(() => [String])
  reasons!: string[];

  @Field(() => [IdeaType], { description: 'Same-sector names with a higher fit score; this page' })
  alternatives!: IdeaType[];
}

@ObjectType('Hunt', { description: 'REST GET /api/v1/portfolios/hunt (HuntResponse)' })
export class HuntType {
  @Field(() => ID)
  portfolioId!: string;

  @Field(() => String)
  portfolioName!: string;

  @Field(() => HuntModeEnum)
  huntMode!: HuntMode;

  @Field(() => GeneralAssessmentType, { nullable: true })
  generalAssessment!: GeneralAssessmentType | null;

  @Field(() => ReplacementAnalysisType, { nullable: true })
  replacementAnalysis!: ReplacementAnalysisType | null;

  @Field(() => SuitabilityAnalysisType, { nullable: true })
  suitabilityAnalysis!: SuitabilityAnalysisType | null;

  @Field(() => Int)
  page!: number;

  @Field(() => Int)
  pageSize!: number;

  @Field(() => Int)
  totalRecommendations!: number;

  @Field(() => Boolean)
  hasMore!: boolean;

  @Field(() => DateScalar, { nullable: true })
  analysisDate!: string | null;
}

@ObjectType('CashHunt', { description: 'REST GET /api/v1/portfolios/cash-hunt (CashHuntResponse)' })
export class CashHuntType {
  @Field(() => ID)
  portfolioId!: string;

  @Field(() => String)
  portfolioName!: string;

  @Field(() => Float)
  availableCash!: number;

  @Field(() => Float)
  totalCapital!: number;

  @Field(() => [IdeaType], { description: 'New positions in buying order; this page' })
  recommendations!: IdeaType[];

  @Field(() => Int)
  page!: number;

  @Field(() => Int)
  pageSize!: number;

  @Field(() => Int)
  totalRecommendations!: number;

  @Field(() => Boolean)
  hasMore!: boolean;

  @Field(() => Float)
  cashAfter!: number;

  @Field(() => [String])
  notes!: string[];

  @Field(() => DateScalar, { nullable: true })
  analysisDate!: string | null;
}

/** The allocation subgraph's portfolio; search adds `hunt` and `cashHunt` (field resolvers in schema.ts). */
@Directive('@key(fields: "id")')
@ObjectType('Portfolio')
export class PortfolioRef {
  @Field(() => ID)
  id!: string;
}
