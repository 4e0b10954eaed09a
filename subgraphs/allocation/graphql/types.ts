/**
 * Allocation subgraph output types: `Portfolio @key(fields: "id")` (owned here; the search subgraph adds
 * fields to it), its positions, diagnostics and policy explanation. Fields are camelCase; the REST
 * response keeps the spec's snake_case. Each position references `Security` (owned by the analysis
 * subgraph) so a gateway query can join a position with its latest analysis.
 */
import { JSONObjectResolver, SafeIntResolver } from 'graphql-scalars';
import { Directive, Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { DateScalar, PageInfo, SecurityReference } from '../../platform/graphql-types.js';
import { SignalEnum, StageEnum, StageStrengthEnum } from '../../analysis/graphql/enums.js';
import { VolatilityStopLossLevelsType } from '../../analysis/graphql/shared-types.js';
import type { Signal, StageLabel, StageStrength } from '../../analysis/engine/document.js';
import type { AllocationStrategy } from '../engine/risk-settings.js';
import { AllocationStrategyEnum } from './enums.js';

@ObjectType('StageWeights', { description: 'Factor of each stage (the stage and hybrid strategies); null: the strategy default' })
export class StageWeightsType {
  @Field(() => Float, { nullable: true }) stage1!: number | null;
  @Field(() => Float, { nullable: true }) stage2!: number | null;
  @Field(() => Float, { nullable: true }) stage3!: number | null;
  @Field(() => Float, { nullable: true }) stage4!: number | null;
}

@ObjectType({ description: 'Risk settings; in a portfolio, the effective ones the optimizer used' })
export class RiskSettingsType {
  @Field(() => Float)
  maxRiskPerTrade!: number;

  @Field(() => Float)
  maxPortfolioRisk!: number;

  @Field(() => Float)
  maxPositionSize!: number;

  @Field(() => Int)
  maxPositions!: number;

  @Field(() => AllocationStrategyEnum)
  allocationStrategy!: AllocationStrategy;

  @Field(() => Float, { nullable: true })
  softmaxTemperature!: number | null;

  @Field(() => Float, { nullable: true })
  rewardMultiplier!: number | null;

  @Field(() => StageWeightsType, { nullable: true })
  stageWeights!: StageWeightsType | null;

  @Field(() => Boolean, { nullable: true })
  halfKelly!: boolean | null;
}

@ObjectType({ description: 'A support or resistance level' })
export class PriceLevelType {
  @Field(() => Float)
  price!: number;

  @Field(() => Float, { nullable: true, description: '0..1 from touches and recency' })
  strength!: number | null;
}

@ObjectType({ description: 'One whole-share position of a portfolio (spec PortfolioAllocation)' })
export class PortfolioAllocationType {
  @Field(() => String)
  symbol!: string;

  @Field(() => SecurityReference, { description: 'The security, with its analysis (resolved by the analysis subgraph)' })
  security!: SecurityReference;

  @Field(() => SafeIntResolver, { description: 'Whole shares (a big book of a cheap stock can exceed 32 bits)' })
  shares!: number;

  @Field(() => String, { description: 'LONG' })
  positionType!: string;

  @Field(() => Float)
  entryPrice!: number;

  @Field(() => Float)
  positionValue!: number;

  @Field(() => Float, { description: 'shares x (entry - stop)' })
  riskAmount!: number;

  @Field(() => Float, { description: 'Fraction of the account, 0..1' })
  percentOfAccount!: number;

  @Field(() => Float)
  stopLoss!: number;

  @Field(() => Float, { nullable: true })
  targetPrice!: number | null;

  @Field(() => Float)
  riskRewardRatio!: number;

  @Field(() => Float, { nullable: true })
  confidence!: number | null;

  @Field(() => StageEnum, { nullable: true })
  stage!: StageLabel | null;

  @Field(() => DateScalar, { nullable: true })
  entryDate!: string | null;

  @Field(() => SignalEnum, { nullable: true })
  signal!: Signal | null;

  @Field(() => StageStrengthEnum, { nullable: true })
  stageStrength!: StageStrength | null;

  @Field(() => Float, { nullable: true })
  signalConfidence!: number | null;

  @Field(() => String, { nullable: true })
  signalReason!: string | null;

  @Field(() => Float, { nullable: true })
  bbWidth!: number | null;

  @Field(() => Float, { nullable: true })
  atr!: number | null;

  @Field(() => Float, { nullable: true })
  atrPercent!: number | null;

  @Field(() => String, { nullable: true })
  volatilityTrend!: string | null;

  @Field(() => Boolean, { nullable: true })
  isHighVolatility!: boolean | null;

  @Field(() => VolatilityStopLossLevelsType, { nullable: true })
  volatilityStopLossLevels!: VolatilityStopLossLevelsType | null;

  @Field(() => Float, { nullable: true })
  historicalVolatility!: number | null;

  @Field(() => [PriceLevelType], { nullable: true })
  supportLevels!: PriceLevelType[] | null;

  @Field(() => [PriceLevelType], { nullable: true })
  resistanceLevels!: PriceLevelType[] | null;
}

@ObjectType({ description: 'spec OptimizerDiagnosticsV1: what bound, and by how much' })
export class OptimizerDiagnosticsType {
  @Field(() => String)
  schemaVersion!: string;

  @Field(() => Float)
  maxPositionSizeEffective!: number;

  @Field(() => Float)
  maxPositionSizeFromRiskSettings!: number;

  @Field(() => Float, { nullable: true })
  constraintPackDefaultSectorCap!: number | null;

  @Field(() => Float, { nullable: true })
  volTargetAnnual!: number | null;

  @Field(() => Float, { nullable: true })
  maxPortfolioTurnoverAnnual!: number | null;

  @Field(() => Float, { nullable: true })
  softmaxTemperatureBase!: number | null;

  @Field(() => Float, { nullable: true })
  softmaxTemperatureEffective!: number | null;

  @Field(() => [String])
  bindingNotes!: string[];
}

@ObjectType({ description: 'spec PolicyExplanationV1, built by the server' })
export class PolicyExplanationType {
  @Field(() => String)
  schemaVersion!: string;

  @Field(() => String)
  mapperVersion!: string;

  @Field(() => String, { nullable: true })
  presetKey!: string | null;

  @Field(() => [String])
  bullets!: string[];
}

@ObjectType({ description: 'spec ConstraintPackV1, as applied' })
export class ConstraintPackType {
  @Field(() => String)
  schemaVersion!: string;

  @Field(() => Float, { nullable: true })
  maxPortfolioTurnoverAnnual!: number | null;

  @Field(() => Float, { nullable: true })
  volTargetAnnual!: number | null;

  @Field(() => JSONObjectResolver, {
    nullable: true,
    description: 'Sector label -> max weight 0..1 (DEFAULT: a per-name cap). A map: its keys are the sector labels the request chose, not a fixed set of fields',
  })
  sectorCaps!: Record<string, number> | null;

  @Field(() => String, { nullable: true })
  covarianceModel!: string | null;
}

@Directive('@key(fields: "id")')
@ObjectType('Portfolio', { description: 'An optimize result (spec PortfolioResponse); visible only to the partner that created it' })
export class PortfolioType {
  @Field(() => ID, { description: 'portfolio_id (demo results: not stored, prefixed demo-)' })
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => Float, { description: 'Opening figure, not changed by trades: the capital at creation (a created or imported book: holdings at cost + cash). The book now: totalValue' })
  totalCapital!: number;

  @Field(() => Float, { description: 'Opening figure, not changed by trades: the amount invested at creation, at cost. The book now: costTotal, holdingsValue' })
  allocatedCapital!: number;

  @Field(() => Float, { description: 'Opening figure, not changed by trades: the cash at creation. The book now: cash' })
  remainingCapital!: number;

  @Field(() => Int, { description: 'Holdings the book has now (after its trades; a demo result: its allocations)' })
  positionCount!: number;

  @Field(() => [PortfolioAllocationType], {
    description: "Opening figure, not changed by trades: the optimizer's advised positions (empty for a created or imported book). The book now: holdings",
  })
  allocations!: PortfolioAllocationType[];

  @Field(() => String, { description: 'ISO 8601 instant the result was built' })
  createdAt!: string;

  @Field(() => String)
  currency!: string;

  @Field(() => RiskSettingsType, { description: 'Effective settings used' })
  riskSettings!: RiskSettingsType;

  @Field(() => String)
  traceId!: string;

  @Field(() => OptimizerDiagnosticsType, { nullable: true })
  optimizerDiagnostics!: OptimizerDiagnosticsType | null;

  @Field(() => PolicyExplanationType)
  policyExplanation!: PolicyExplanationType;

  @Field(() => ConstraintPackType, { nullable: true, description: 'The constraint pack applied (the request\'s, or the risk preset\'s)' })
  constraintPack!: ConstraintPackType | null;

  @Field(() => DateScalar, { nullable: true, description: 'Date of the analysis snapshots the book was built from' })
  analysisDate!: string | null;
}

@ObjectType({ description: "A page of the caller's portfolios, newest first" })
export class PortfolioConnection {
  @Field(() => [PortfolioType])
  nodes!: PortfolioType[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  @Field(() => Int)
  totalCount!: number;
}
