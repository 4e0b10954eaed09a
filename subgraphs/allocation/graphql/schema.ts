/** The allocation subgraph: strategies and risk-setting defaults (portfolios arrive with optimize). */
import { Field, Float, Int, ObjectType, Query, Resolver, registerEnumType } from 'type-graphql';
import { buildSubgraph, type Subgraph } from '../../platform/graphql.js';
import type { AllocationService } from '../service.js';

export enum AllocationStrategyEnum {
  EQUAL_WEIGHT = 'EQUAL_WEIGHT',
  STAGE_WEIGHTED = 'STAGE_WEIGHTED',
  CONFIDENCE_WEIGHTED = 'CONFIDENCE_WEIGHTED',
  KELLY_CRITERION = 'KELLY_CRITERION',
  HYBRID_WEIGHTED = 'HYBRID_WEIGHTED',
}
registerEnumType(AllocationStrategyEnum, { name: 'AllocationStrategy' });

@ObjectType({ description: 'An allocation strategy the optimizer offers' })
export class AllocationStrategyInfo {
  @Field(() => AllocationStrategyEnum)
  name!: AllocationStrategyEnum;

  @Field(() => String)
  description!: string;

  @Field(() => [String], { description: 'risk_settings fields this strategy reads beyond the common ones' })
  parameters!: string[];
}

@ObjectType({ description: 'Risk settings; the defaults are what the server applies when a request omits them' })
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
  allocationStrategy!: AllocationStrategyEnum;
}

@ObjectType({ description: 'Limits of the optimize operation' })
export class AllocationLimits {
  @Field(() => Float)
  minTotalCapital!: number;

  @Field(() => RiskSettingsType)
  defaultRiskSettings!: RiskSettingsType;
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
    const d = this.allocation.defaultRiskSettings();
    return {
      minTotalCapital: this.allocation.minTotalCapital(),
      defaultRiskSettings: {
        maxRiskPerTrade: d.max_risk_per_trade,
        maxPortfolioRisk: d.max_portfolio_risk,
        maxPositionSize: d.max_position_size,
        maxPositions: d.max_positions,
        allocationStrategy: d.allocation_strategy as AllocationStrategyEnum,
      },
    };
  }
}

export function buildAllocationSubgraph(allocation: AllocationService): Promise<Subgraph> {
  return buildSubgraph({ resolvers: [[AllocationInfoResolver, new AllocationInfoResolver(allocation)]] });
}
