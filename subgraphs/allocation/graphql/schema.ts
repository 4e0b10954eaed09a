/**
 * The allocation subgraph: strategies and limits, `Mutation.optimizePortfolio`, and the caller's own
 * portfolios (`Query.portfolio`, `Query.portfolios`, `Portfolio @key(fields: "id")`). Resolvers are thin:
 * AllocationService applies every rule (demo body, validation, idempotency, ownership).
 */
import { Arg, Ctx, Field, Float, ID, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../platform/context.js';
import { buildSubgraph, type Subgraph } from '../../platform/graphql.js';
import type { Assert, Same } from '../../platform/type-checks.js';
import { PortfolioRequestInput, snakeToCamel } from '../dto.js';
import type { PolicyExplanation } from '../engine/risk-profile.js';
import type { RiskSettings } from '../engine/risk-settings.js';
import type { ConstraintPack, PortfolioAllocation } from '../engine/types.js';
import type { StageNumber } from '../../analysis/engine/document.js';
import type { VolatilityStopLossLevelsType } from '../../analysis/graphql/shared-types.js';
import type { AllocationService, PortfolioResponse } from '../service.js';
import { AllocationStrategyEnum } from './enums.js';
import {
  ConstraintPackType,
  PolicyExplanationType,
  PortfolioAllocationType,
  PortfolioConnection,
  PortfolioType,
  RiskSettingsType,
  type StageWeightsType,
} from './types.js';

export { AllocationStrategyEnum };

@ObjectType({ description: 'An allocation strategy the optimizer offers' })
export class AllocationStrategyInfo {
  @Field(() => AllocationStrategyEnum)
  name!: AllocationStrategyEnum;

  @Field(() => String)
  description!: string;

  @Field(() => [String], { description: 'risk_settings fields this strategy reads beyond the common ones' })
  parameters!: string[];
}

@ObjectType({ description: 'Limits of the optimize operation' })
export class AllocationLimits {
  @Field(() => Float)
  minTotalCapital!: number;

  @Field(() => RiskSettingsType)
  defaultRiskSettings!: RiskSettingsType;
}

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
/** A domain object's shape with its top-level keys in camelCase (values, maps included, as they are). */
type CamelShape<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] };

/** A domain object (snake_case) as its output type: each key in camelCase, undefined as null. */
const asOutputType = <T extends object>(value: T): CamelShape<T> =>
  Object.fromEntries(Object.entries(value).map(([key, v]) => [snakeToCamel(key), v ?? null])) as CamelShape<T>;

// The output types against the engine's domain types: exactly the same fields and value types, so a
// field added on one side only fails `tsc`.
// stage_weights, a map keyed by `STAGE n`, is an object with a field per stage.
export type OutputTypesMatchDomain = [
  Assert<Same<Omit<CamelShape<RiskSettings>, 'stageWeights'>, Omit<{ [K in keyof RiskSettingsType]: RiskSettingsType[K] }, 'stageWeights'>>>,
  Assert<Same<keyof StageWeightsType, `stage${StageNumber}`>>,
  Assert<Same<CamelShape<ConstraintPack>, { [K in keyof ConstraintPackType]: ConstraintPackType[K] }>>,
  Assert<Same<CamelShape<PolicyExplanation>, { [K in keyof PolicyExplanationType]: PolicyExplanationType[K] }>>,
];

const toStageWeightsType = (w: Record<string, number>): StageWeightsType => ({
  stage1: w['STAGE 1'] ?? null,
  stage2: w['STAGE 2'] ?? null,
  stage3: w['STAGE 3'] ?? null,
  stage4: w['STAGE 4'] ?? null,
});

const toRiskSettingsType = (s: RiskSettings): RiskSettingsType => ({ ...asOutputType(s), stageWeights: s.stage_weights && toStageWeightsType(s.stage_weights) });

/**
 * The engine's stop-level map (a copy of the snapshot's risk_parameters.volatility_stop_loss_levels) as
 * its object type; null if a stored map lacks an ATR level.
 */
function toStopLevelsType(l: Record<string, number | null>): VolatilityStopLossLevelsType | null {
  const { atr_1x: atr1x, atr_2x: atr2x, atr_3x: atr3x, hv_1sd_20d: hv1sd20d } = l;
  return typeof atr1x === 'number' && typeof atr2x === 'number' && typeof atr3x === 'number' ? { atr1x, atr2x, atr3x, hv1sd20d: hv1sd20d ?? null } : null;
}

const toAllocationType = (a: PortfolioAllocation): PortfolioAllocationType => ({
  symbol: a.symbol,
  security: { symbol: a.symbol },
  shares: a.shares,
  positionType: a.position_type,
  entryPrice: a.entry_price,
  positionValue: a.position_value,
  riskAmount: a.risk_amount,
  percentOfAccount: a.percent_of_account,
  stopLoss: a.stop_loss,
  targetPrice: a.target_price,
  riskRewardRatio: a.risk_reward_ratio,
  confidence: a.confidence,
  stage: a.stage,
  entryDate: a.entry_date,
  signal: a.signal,
  stageStrength: a.stage_strength,
  signalConfidence: a.signal_confidence,
  signalReason: a.signal_reason,
  bbWidth: a.bb_width,
  atr: a.atr,
  atrPercent: a.atr_percent,
  volatilityTrend: a.volatility_trend,
  isHighVolatility: a.is_high_volatility,
  volatilityStopLossLevels: a.volatility_stop_loss_levels && toStopLevelsType(a.volatility_stop_loss_levels),
  historicalVolatility: a.historical_volatility,
  supportLevels: a.support_levels,
  resistanceLevels: a.resistance_levels,
});

function toPortfolioType(p: PortfolioResponse): PortfolioType {
  const d = p.optimizer_diagnostics;
  const pack = p.constraint_pack;
  return {
    id: p.portfolio_id,
    name: p.name,
    description: p.description,
    totalCapital: p.total_capital,
    allocatedCapital: p.allocated_capital,
    remainingCapital: p.remaining_capital,
    positionCount: p.position_count,
    allocations: p.allocations.map(toAllocationType),
    createdAt: p.created_at,
    currency: p.currency,
    riskSettings: toRiskSettingsType(p.risk_settings),
    traceId: p.trace_id,
    optimizerDiagnostics: d && {
      schemaVersion: d.schema_version,
      maxPositionSizeEffective: d.max_position_size_effective,
      maxPositionSizeFromRiskSettings: d.max_position_size_from_risk_settings,
      constraintPackDefaultSectorCap: d.constraint_pack_default_sector_cap,
      volTargetAnnual: d.vol_target_annual,
      maxPortfolioTurnoverAnnual: d.max_portfolio_turnover_annual,
      softmaxTemperatureBase: d.softmax_temperature_base,
      softmaxTemperatureEffective: d.softmax_temperature_effective,
      bindingNotes: d.binding_notes,
    },
    policyExplanation: asOutputType(p.policy_explanation) satisfies PolicyExplanationType,
    constraintPack: pack && (asOutputType(pack) satisfies ConstraintPackType),
    analysisDate: p.analysis_date,
  };
}

/** The caller's portfolio by id (Query.portfolio and the entity reference alike). */
async function portfolioFor(allocation: AllocationService, ctx: RequestContext, id: string): Promise<PortfolioType> {
  return toPortfolioType(await allocation.portfolio(await ctx.principal(), id));
}

@Resolver()
export class AllocationInfoResolver {
  constructor(private readonly allocation: AllocationService) {}

  @Query(() => [AllocationStrategyInfo], { description: 'The five allocation strategies' })
  allocationStrategies(): AllocationStrategyInfo[] {
    return this.allocation.strategies().map((s) => ({ ...s, name: s.name as AllocationStrategyEnum }));
  }

  @Query(() => AllocationLimits)
  allocationLimits(): AllocationLimits {
    return { minTotalCapital: this.allocation.minTotalCapital(), defaultRiskSettings: toRiskSettingsType(this.allocation.defaultRiskSettings()) };
  }
}

@Resolver(() => PortfolioType)
export class PortfolioResolver {
  constructor(private readonly allocation: AllocationService) {}

  @Mutation(() => PortfolioType, {
    description:
      'Build a whole-share portfolio (REST POST /api/v1/portfolios/optimize). Partners: stored, and a retry with the same idempotencyKey returns the first result. Without a token only the demo input is accepted (two rows, not stored).',
  })
  async optimizePortfolio(
    @Arg('input', () => PortfolioRequestInput, { validate: false }) input: PortfolioRequestInput,
    @Ctx() ctx: RequestContext,
    @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey?: string,
  ): Promise<PortfolioType> {
    await ctx.limitExpensive();
    const outcome = await this.allocation.optimize(await ctx.principal(), input, { traceId: ctx.traceId, idempotencyKey, naming: 'graphql' });
    return toPortfolioType(outcome.response);
  }

  @Query(() => PortfolioType, { description: 'One of your portfolios (NOT_FOUND for any other id)' })
  async portfolio(@Arg('id', () => ID) id: string, @Ctx() ctx: RequestContext): Promise<PortfolioType> {
    return portfolioFor(this.allocation, ctx, id);
  }

  @Query(() => PortfolioConnection, { description: 'Your portfolios, newest first' })
  async portfolios(
    @Ctx() ctx: RequestContext,
    @Arg('first', () => Int, { nullable: true, description: 'Page size, default 20, at most 100' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: 'endCursor of the previous page' }) after?: string,
  ): Promise<PortfolioConnection> {
    const page = await this.allocation.portfolios(await ctx.principal(), { first, after });
    return { nodes: page.items.map(toPortfolioType), pageInfo: { hasNextPage: page.hasMore, endCursor: page.endCursor }, totalCount: page.total };
  }
}

export function buildAllocationSubgraph(allocation: AllocationService): Promise<Subgraph> {
  return buildSubgraph({
    resolvers: [
      [AllocationInfoResolver, new AllocationInfoResolver(allocation)],
      [PortfolioResolver, new PortfolioResolver(allocation)],
    ],
    referenceResolvers: {
      Portfolio: {
        __resolveReference: (ref: { id: string }, ctx: RequestContext) => portfolioFor(allocation, ctx, ref.id),
      },
    },
  });
}
