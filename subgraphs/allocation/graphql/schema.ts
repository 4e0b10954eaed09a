/**
 * The allocation subgraph: strategies and limits, `Mutation.optimizePortfolio`, and the caller's own
 * portfolios (`Query.portfolio`, `Query.portfolios`, `Portfolio @key(fields: "id")`). Resolvers are thin:
 * AllocationService applies every rule (demo body, validation, idempotency, ownership).
 */
import { Arg, Ctx, Field, Float, ID, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../platform/context.js';
import { buildSubgraph, type Subgraph } from '../../platform/graphql.js';
import { ConstraintPackInput, fieldsOf, PolicyExplanationInput, PortfolioRequestInput, RiskSettingsInput, type DtoClass } from '../dto.js';
import type { RiskSettings } from '../engine/risk-settings.js';
import type { PortfolioAllocation } from '../engine/types.js';
import type { AllocationService, PortfolioResponse } from '../service.js';
import { AllocationStrategyEnum } from './enums.js';
import {
  PortfolioAllocationType,
  PortfolioConnection,
  PortfolioType,
  RiskSettingsType,
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

/** A section of the request (or its effective form) as its output type: each field of the request class under its camelCase name. */
const asOutputType = <T>(cls: DtoClass, value: object): T =>
  Object.fromEntries(fieldsOf(cls).map((f) => [f.prop, (value as Record<string, unknown>)[f.name] ?? null])) as T;
const toRiskSettingsType = (s: RiskSettings): RiskSettingsType => asOutputType(RiskSettingsInput, s);

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
  volatilityStopLossLevels: a.volatility_stop_loss_levels,
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
    policyExplanation: asOutputType(PolicyExplanationInput, p.policy_explanation),
    constraintPack: pack && asOutputType(ConstraintPackInput, pack),
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
