/**
 * The allocation subgraph: strategies and limits, `Mutation.optimizePortfolio`, the caller's own
 * portfolios (`Query.portfolio`, `Query.portfolios`, `Portfolio @key(fields: "id")`), and the books
 * behind them: `Mutation.createPortfolio` (holdings and cash), `Mutation.recordTrade` (expectedVersion
 * for optimistic concurrency, idempotencyKey for retries) and `Mutation.rebalancePortfolio` (the order
 * list, recorded with apply: true). Resolvers are thin: AllocationService (optimize, the stored
 * results) and PortfolioService (books, trades, rebalances) apply every rule (validation, idempotency,
 * ownership, versions), with the same contracts and error codes as the REST routes.
 *
 * Portfolio's book fields (version, cash, holdings, trades, ...) are resolved lazily: the first one a
 * query selects on a Portfolio object reads the book once (PortfolioService.book) and the others share
 * that read, so a query of the optimize fields only costs nothing more. A demo result (anonymous
 * optimize, id `demo-...`) is not a stored book: its book fields are null, its holdings and trades empty.
 */
import { Arg, Ctx, Field, FieldResolver, Float, ID, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../platform/context.js';
import { buildSubgraph, type Subgraph } from '../../platform/graphql.js';
import { DateScalar } from '../../platform/graphql-types.js';
import type { Assert, Same } from '../../platform/type-checks.js';
import {
  bodyOfCreatePortfolioInput,
  bodyOfRebalanceInput,
  bodyOfTradeInput,
  CreatePortfolioInput,
  PortfolioRequestInput,
  RebalanceInput,
  snakeToCamel,
  TradeInput,
} from '../dto.js';
import { TRADES_PAGE, type BookHolding, type BookResponse, type RebalanceOrder, type RebalanceResponse, type RebalanceTarget, type TradePage, type TradeRecord } from '../book-types.js';
import type { PolicyExplanation } from '../engine/risk-profile.js';
import type { RiskSettings } from '../engine/risk-settings.js';
import { type ConstraintPack, type OptimizerDiagnostics, type PortfolioAllocation } from '../engine/types.js';
import type { StageNumber } from '../../analysis/engine/document.js';
import type { VolatilityStopLossLevelsType } from '../../analysis/graphql/shared-types.js';
import type { PortfolioService } from '../portfolios.js';
import { DEMO_OPTIMIZE_BODY, type AllocationLimitsInfo, type AllocationService, type PortfolioResponse } from '../service.js';
import { HoldingType, RebalanceOrderType, RebalanceTargetType, RebalanceType, TradePageType, TradeResultType, TradeType } from './book-types.js';
import { AllocationStrategyEnum } from './enums.js';
import {
  ConstraintPackType,
  OptimizerDiagnosticsType,
  PolicyExplanationType,
  PortfolioAllocationType,
  PortfolioConnection,
  PortfolioType,
  RiskSettingsType,
  StageWeightsType,
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

@ObjectType({
  description:
    "The value each strategy parameter of riskSettings takes when a request leaves it out, for the strategies that read it (allocationStrategies.parameters); defaultRiskSettings answers null for these because the optimizer fills them per strategy",
})
export class StrategyParameterDefaults {
  @Field(() => Float, { description: 'Softmax temperature of CONFIDENCE_WEIGHTED and HYBRID_WEIGHTED' })
  softmaxTemperature!: number;

  @Field(() => Float, { description: 'KELLY_CRITERION: multiplier on the reward-to-risk ratio' })
  rewardMultiplier!: number;

  @Field(() => StageWeightsType, { description: 'Factor of each stage (STAGE_WEIGHTED, HYBRID_WEIGHTED); a stage a request leaves out takes its factor here' })
  stageWeights!: StageWeightsType;

  @Field(() => Boolean, { description: 'KELLY_CRITERION: whether the Kelly fraction is halved' })
  halfKelly!: boolean;
}

@ObjectType({
  description:
    'The one request a caller without a token may send to optimizePortfolio (REST GET /api/v1/demo/optimize-body), in the field names of PortfolioRequestInput: send it as that input, leaving out the riskSettings fields that are null here',
})
export class DemoPortfolioRequest {
  @Field(() => String)
  name!: string;

  @Field(() => Float)
  totalCapital!: number;

  @Field(() => RiskSettingsType, { description: 'The demo risk settings; null: not part of the demo request' })
  riskSettings!: RiskSettingsType;
}

@ObjectType({ description: 'Limits of the optimize operation, and the defaults a request that leaves a field out gets' })
export class AllocationLimits {
  @Field(() => Float)
  minTotalCapital!: number;

  @Field(() => RiskSettingsType)
  defaultRiskSettings!: RiskSettingsType;

  @Field(() => StrategyParameterDefaults, { description: 'The values of the strategy parameters, which defaultRiskSettings answers null for' })
  strategyParameterDefaults!: StrategyParameterDefaults;

  @Field(() => String, { description: 'ISO 4217 currency of a request that names none' })
  defaultCurrency!: string;

  @Field(() => String, { description: 'The current constraintPack schemaVersion, the one a request should send' })
  constraintPackSchemaVersion!: string;

  @Field(() => DemoPortfolioRequest, { description: 'The demo request (the only one accepted without a token)' })
  demoRequest!: DemoPortfolioRequest;
}

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
/** A domain object's shape with its top-level keys in camelCase (values, maps included, as they are). */
type CamelShape<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] };

/** Each domain key's camelCase name, converted once (the keys are the domain types' fields: a small fixed set). */
const camelKeys = new Map<string, string>();
const camelKey = (key: string): string => {
  let camel = camelKeys.get(key);
  if (camel === undefined) camelKeys.set(key, (camel = snakeToCamel(key)));
  return camel;
};

/** A domain object (snake_case) as its output type: each key in camelCase, undefined as null. */
const asOutputType = <T extends object>(value: T): CamelShape<T> => {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[camelKey(key)] = (value as Record<string, unknown>)[key] ?? null;
  return out as CamelShape<T>;
};

// The output types against the engine's domain types: exactly the same fields and value types, so a
// field added on one side only fails `tsc`.
// stage_weights, a map keyed by `STAGE n`, is an object with a field per stage.
export type OutputTypesMatchDomain = [
  Assert<Same<Omit<CamelShape<RiskSettings>, 'stageWeights'>, Omit<{ [K in keyof RiskSettingsType]: RiskSettingsType[K] }, 'stageWeights'>>>,
  Assert<Same<keyof StageWeightsType, `stage${StageNumber}`>>,
  Assert<Same<CamelShape<ConstraintPack>, { [K in keyof ConstraintPackType]: ConstraintPackType[K] }>>,
  Assert<Same<CamelShape<PolicyExplanation>, { [K in keyof PolicyExplanationType]: PolicyExplanationType[K] }>>,
  Assert<Same<CamelShape<OptimizerDiagnostics>, { [K in keyof OptimizerDiagnosticsType]: OptimizerDiagnosticsType[K] }>>,
  // The book's types against book-types.ts (a holding also references its Security).
  Assert<Same<CamelShape<BookHolding>, Omit<{ [K in keyof HoldingType]: HoldingType[K] }, 'security'>>>,
  Assert<Same<keyof CamelShape<BookHolding> | 'security', keyof HoldingType>>,
  Assert<Same<CamelShape<TradeRecord>, { [K in keyof TradeType]: TradeType[K] }>>,
  Assert<Same<Omit<CamelShape<TradePage>, 'items'>, Omit<{ [K in keyof TradePageType]: TradePageType[K] }, 'items'>>>,
  Assert<Same<CamelShape<RebalanceOrder>, { [K in keyof RebalanceOrderType]: RebalanceOrderType[K] }>>,
  Assert<Same<CamelShape<RebalanceTarget>, { [K in keyof RebalanceTargetType]: RebalanceTargetType[K] }>>,
  Assert<Same<keyof CamelShape<RebalanceResponse>, keyof RebalanceType>>,
  Assert<
    Same<
      Omit<CamelShape<RebalanceResponse>, RebalanceNested>,
      Omit<{ [K in keyof RebalanceType]: RebalanceType[K] }, RebalanceNested>
    >
  >,
  // Every field of the book is a field of Portfolio: the older ones, or the lazily resolved BOOK_FIELDS.
  Assert<Same<keyof CamelShape<BookResponse>, Exclude<keyof PortfolioType, PortfolioOnly> | BookField | 'portfolioId'>>,
];
/** The risk settings a strategy fills when a request leaves them out (null in the settings until then). */
type StrategyParameterKey = { [K in keyof RiskSettings]: null extends RiskSettings[K] ? K : never }[keyof RiskSettings];

// The limits' defaults against the engine: one field per strategy parameter, and the demo request with
// exactly the demo body's fields (risk settings among RiskSettings'), so either side changing alone fails `tsc`.
export type LimitsMatchEngine = [
  Assert<Same<keyof CamelShape<Pick<RiskSettings, StrategyParameterKey>>, keyof StrategyParameterDefaults>>,
  Assert<Same<keyof CamelShape<typeof DEMO_OPTIMIZE_BODY>, keyof DemoPortfolioRequest>>,
  Assert<keyof typeof DEMO_OPTIMIZE_BODY.risk_settings extends keyof RiskSettings ? true : false>,
];

/** Rebalance fields whose types are objects of their own (checked one by one above). */
type RebalanceNested = 'orders' | 'target' | 'trades' | 'riskSettings' | 'constraintPack' | 'optimizerDiagnostics';
/** Fields of Portfolio that are the stored optimize result's, not the book's. */
type PortfolioOnly = 'id' | 'description' | 'totalCapital' | 'allocatedCapital' | 'remainingCapital' | 'allocations' | 'traceId' | 'optimizerDiagnostics' | 'policyExplanation' | 'analysisDate';
/** The book fields Portfolio resolves lazily (PortfolioBookResolver). */
type BookField = 'version' | 'source' | 'cash' | 'holdingsValue' | 'totalValue' | 'costTotal' | 'unrealisedPnl' | 'realisedPnl' | 'valuationDate' | 'updatedAt' | 'holdings' | 'trades';

const toStageWeightsType = (w: Record<string, number>): StageWeightsType => ({
  stage1: w['STAGE 1'] ?? null,
  stage2: w['STAGE 2'] ?? null,
  stage3: w['STAGE 3'] ?? null,
  stage4: w['STAGE 4'] ?? null,
});

const toRiskSettingsType = (s: RiskSettings): RiskSettingsType => ({ ...asOutputType(s), stageWeights: s.stage_weights && toStageWeightsType(s.stage_weights) });

/** The service's limits (domain names) as the graph answers them. */
function toAllocationLimits(l: AllocationLimitsInfo): AllocationLimits {
  const p = l.strategy_parameter_defaults;
  return {
    minTotalCapital: l.min_total_capital,
    defaultRiskSettings: toRiskSettingsType(l.default_risk_settings),
    strategyParameterDefaults: { softmaxTemperature: p.softmax_temperature, rewardMultiplier: p.reward_multiplier, stageWeights: toStageWeightsType(p.stage_weights), halfKelly: p.half_kelly },
    defaultCurrency: l.default_currency,
    constraintPackSchemaVersion: l.constraint_pack_schema_version,
    demoRequest: { name: l.demo_body.name, totalCapital: l.demo_body.total_capital, riskSettings: toRiskSettingsType(l.demo_body.risk_settings) },
  };
}

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

const toDiagnosticsType = (d: OptimizerDiagnostics): OptimizerDiagnosticsType => asOutputType(d);

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
    optimizerDiagnostics: d && toDiagnosticsType(d),
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
    return toAllocationLimits(this.allocation.limits());
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

// ---------------------------------------------------------------------------------------------------------
// Books: mappers, Portfolio's lazily resolved book fields, and the book mutations
// ---------------------------------------------------------------------------------------------------------

const toHoldingType = (h: BookHolding): HoldingType => ({ ...asOutputType(h), security: { symbol: h.symbol } });
const toTradeType = (t: TradeRecord): TradeType => asOutputType(t);
const toTradePageType = (p: TradePage): TradePageType => ({ items: p.items.map(toTradeType), page: p.page, pageSize: p.page_size, total: p.total, hasMore: p.has_more });
const toOrderType = (o: RebalanceOrder): RebalanceOrderType => asOutputType(o);
const toTargetType = (t: RebalanceTarget): RebalanceTargetType => asOutputType(t);

function toRebalanceType(r: RebalanceResponse): RebalanceType {
  return {
    ...asOutputType(r),
    orders: r.orders.map(toOrderType),
    target: r.target.map(toTargetType),
    trades: r.trades.map(toTradeType),
    riskSettings: toRiskSettingsType(r.risk_settings),
    constraintPack: r.constraint_pack && asOutputType(r.constraint_pack),
    optimizerDiagnostics: toDiagnosticsType(r.optimizer_diagnostics),
  };
}

/** An anonymous optimize's demo result: not stored, so not a book. */
const isDemo = (p: PortfolioType): boolean => p.id.startsWith('demo-');

/**
 * The book behind each Portfolio object, read at most once per object (so once per request for each
 * portfolio a response shows), on the first book field a query selects; a mutation that has the book
 * already hands it over with the object.
 */
class BookReads {
  private readonly books = new WeakMap<PortfolioType, Promise<BookResponse | null>>();

  constructor(private readonly portfolios: PortfolioService) {}

  /** The book of a Portfolio object (null for a demo result). */
  of(p: PortfolioType, ctx: RequestContext): Promise<BookResponse | null> {
    let book = this.books.get(p);
    if (!book) {
      book = isDemo(p) ? Promise.resolve(null) : ctx.principal().then((principal) => this.portfolios.book(principal, p.id));
      this.books.set(p, book);
    }
    return book;
  }

  /** A Portfolio object whose book is known. */
  known(p: PortfolioType, book: BookResponse): PortfolioType {
    this.books.set(p, Promise.resolve(book));
    return p;
  }
}

@Resolver(() => PortfolioType)
export class PortfolioBookResolver {
  constructor(
    private readonly reads: BookReads,
    private readonly portfolios: PortfolioService,
  ) {}

  private async field<K extends keyof BookResponse>(p: PortfolioType, ctx: RequestContext, key: K): Promise<BookResponse[K] | null> {
    const book = await this.reads.of(p, ctx);
    return book ? book[key] : null;
  }

  /** The holdings the book has now: a stored book's current count, not its opening document's. */
  @FieldResolver(() => Int)
  async positionCount(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<number> {
    const book = await this.reads.of(p, ctx);
    return book ? book.position_count : p.positionCount;
  }

  @FieldResolver(() => Int, { nullable: true, description: 'The book\'s version: 1 at creation, +1 per trade or applied rebalance (REST ETag "<version>"; null for a demo result)' })
  version(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<number | null> {
    return this.field(p, ctx, 'version');
  }

  @FieldResolver(() => String, { nullable: true, description: 'How the book came to be: optimize, holdings (createPortfolio) or import (CSV)' })
  source(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<string | null> {
    return this.field(p, ctx, 'source');
  }

  @FieldResolver(() => Float, { nullable: true, description: 'Cash held now' })
  cash(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<number | null> {
    return this.field(p, ctx, 'cash');
  }

  @FieldResolver(() => Float, { nullable: true, description: "Sum of the holdings' market values at their latest closes" })
  holdingsValue(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<number | null> {
    return this.field(p, ctx, 'holdings_value');
  }

  @FieldResolver(() => Float, { nullable: true, description: 'cash + holdingsValue' })
  totalValue(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<number | null> {
    return this.field(p, ctx, 'total_value');
  }

  @FieldResolver(() => Float, { nullable: true, description: "Sum of the holdings' total cost" })
  costTotal(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<number | null> {
    return this.field(p, ctx, 'cost_total');
  }

  @FieldResolver(() => Float, { nullable: true, description: 'holdingsValue - costTotal' })
  unrealisedPnl(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<number | null> {
    return this.field(p, ctx, 'unrealised_pnl');
  }

  @FieldResolver(() => Float, { nullable: true, description: 'Sum of the sales\' realised P&L over the trade log' })
  realisedPnl(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<number | null> {
    return this.field(p, ctx, 'realised_pnl');
  }

  @FieldResolver(() => DateScalar, { nullable: true, description: 'The newest price date among the holdings (null without holdings or prices)' })
  valuationDate(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<string | null> {
    return this.field(p, ctx, 'valuation_date');
  }

  @FieldResolver(() => String, { nullable: true, description: 'ISO 8601 instant of the last change (createdAt before any trade)' })
  updatedAt(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<string | null> {
    return this.field(p, ctx, 'updated_at');
  }

  @FieldResolver(() => [HoldingType], { description: 'Holdings now, valued at their latest closes, largest market value first (empty for a demo result)' })
  async holdings(@Root() p: PortfolioType, @Ctx() ctx: RequestContext): Promise<HoldingType[]> {
    return ((await this.field(p, ctx, 'holdings')) ?? []).map(toHoldingType);
  }

  @FieldResolver(() => TradePageType, { description: 'The trade log, newest first (REST GET /api/v1/portfolios/{id}/trades)' })
  async trades(
    @Root() p: PortfolioType,
    @Ctx() ctx: RequestContext,
    @Arg('page', () => Int, { nullable: true, description: `1-based page, default 1, at most ${TRADES_PAGE.maxPage}` }) page?: number | null,
    @Arg('pageSize', () => Int, { nullable: true, description: `Items per page, default ${TRADES_PAGE.default}, at most ${TRADES_PAGE.max}` }) pageSize?: number | null,
  ): Promise<TradePageType> {
    if (isDemo(p)) return { items: [], page: page ?? 1, pageSize: pageSize ?? TRADES_PAGE.default, total: 0, hasMore: false };
    // The book carries the first page of the default size.
    if ((page ?? 1) === 1 && (pageSize ?? TRADES_PAGE.default) === TRADES_PAGE.default) {
      const book = await this.reads.of(p, ctx);
      if (book) return toTradePageType(book.trades);
    }
    return toTradePageType(await this.portfolios.trades(await ctx.principal(), p.id, { page, pageSize, naming: 'graphql' }));
  }
}

@Resolver()
export class BookMutationResolver {
  constructor(
    private readonly allocation: AllocationService,
    private readonly portfolios: PortfolioService,
    private readonly reads: BookReads,
  ) {}

  /** The Portfolio object of a book the caller just wrote (its stored result's fields, and the book). */
  private async portfolioOf(ctx: RequestContext, book: BookResponse): Promise<PortfolioType> {
    return this.reads.known(await portfolioFor(this.allocation, ctx, book.portfolio_id), book);
  }

  @Mutation(() => PortfolioType, {
    description:
      'Create a book from holdings and cash (REST POST /api/v1/portfolios). Partners only; symbols must be known securities with a close. A retry with the same idempotencyKey creates nothing and returns that book as it is now.',
  })
  async createPortfolio(
    @Arg('input', () => CreatePortfolioInput, { validate: false }) input: CreatePortfolioInput,
    @Ctx() ctx: RequestContext,
    @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey?: string | null,
  ): Promise<PortfolioType> {
    const { response } = await this.portfolios.create(await ctx.principal(), bodyOfCreatePortfolioInput(input), { traceId: ctx.traceId, idempotencyKey, naming: 'graphql' });
    return this.portfolioOf(ctx, response);
  }

  @Mutation(() => TradeResultType, {
    description:
      "Record a trade in one of your books (REST POST /api/v1/portfolios/{id}/trades): shares and cash change together; no margin, no short sale. expectedVersion: refused with PRECONDITION_FAILED unless the book is at that version. A retry with the same idempotencyKey returns the first answer.",
  })
  async recordTrade(
    @Arg('portfolioId', () => ID) portfolioId: string,
    @Arg('input', () => TradeInput, { validate: false }) input: TradeInput,
    @Ctx() ctx: RequestContext,
    @Arg('expectedVersion', () => Int, { nullable: true, description: 'The version the client read (REST If-Match)' }) expectedVersion?: number | null,
    @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey?: string | null,
  ): Promise<TradeResultType> {
    const { response } = await this.portfolios.trade(await ctx.principal(), portfolioId, bodyOfTradeInput(input), {
      traceId: ctx.traceId,
      idempotencyKey,
      expectedVersion,
      naming: 'graphql',
    });
    return { trade: toTradeType(response.trade), portfolio: await this.portfolioOf(ctx, response.portfolio) };
  }

  @Mutation(() => RebalanceType, {
    description:
      "The orders that move one of your books to the optimizer's target, the book itself as the prior weights (REST POST /api/v1/portfolios/{id}/rebalance): whole shares, sells before buys, cash never negative. apply: true records them as trades in one transaction (expectedVersion and idempotencyKey as for recordTrade).",
  })
  async rebalancePortfolio(
    @Arg('portfolioId', () => ID) portfolioId: string,
    @Ctx() ctx: RequestContext,
    @Arg('input', () => RebalanceInput, { nullable: true, validate: false }) input?: RebalanceInput | null,
    @Arg('apply', () => Boolean, { nullable: true, defaultValue: false, description: 'Record the orders as trades' }) apply?: boolean | null,
    @Arg('expectedVersion', () => Int, { nullable: true, description: 'The version the client read (REST If-Match)' }) expectedVersion?: number | null,
    @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey?: string | null,
  ): Promise<RebalanceType> {
    await ctx.limitExpensive();
    const { response } = await this.portfolios.rebalance(await ctx.principal(), portfolioId, bodyOfRebalanceInput(input), {
      traceId: ctx.traceId,
      idempotencyKey,
      expectedVersion,
      apply: apply === true,
      naming: 'graphql',
    });
    return toRebalanceType(response);
  }
}

export function buildAllocationSubgraph(allocation: AllocationService, portfolios: PortfolioService): Promise<Subgraph> {
  const reads = new BookReads(portfolios);
  return buildSubgraph({
    resolvers: [
      [AllocationInfoResolver, new AllocationInfoResolver(allocation)],
      [PortfolioResolver, new PortfolioResolver(allocation)],
      [PortfolioBookResolver, new PortfolioBookResolver(reads, portfolios)],
      [BookMutationResolver, new BookMutationResolver(allocation, portfolios, reads)],
    ],
    referenceResolvers: {
      Portfolio: {
        __resolveReference: (ref: { id: string }, ctx: RequestContext) => portfolioFor(allocation, ctx, ref.id),
      },
    },
  });
}
