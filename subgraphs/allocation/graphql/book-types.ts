/**
 * Allocation subgraph output types of a partner's book: its holdings valued at the latest close (each
 * referencing the analysis subgraph's `Security`), its trade log, a recorded trade and a rebalance's
 * order list. They are the REST shapes of book-types.ts in camelCase; graphql/schema.ts checks at
 * compile time that each has exactly the domain type's fields, so a field added on one side only fails
 * `tsc`. Money is a decimal of whole cents (a cost basis: 4 decimals); shares are whole and positive.
 */
import { SafeIntResolver } from 'graphql-scalars';
import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { DateScalar, SecurityReference } from '../../platform/graphql-types.js';
import type { TradeOrigin, TradeSide } from '../book-types.js';
import { TradeSideEnum } from '../request/classes.js';
import { ConstraintPackType, OptimizerDiagnosticsType, PortfolioType, RiskSettingsType } from './types.js';

@ObjectType('Holding', { description: 'One holding of a book, valued at its latest close' })
export class HoldingType {
  @Field(() => String)
  symbol!: string;

  @Field(() => SecurityReference, { description: 'The security, with its analysis (resolved by the analysis subgraph)' })
  security!: SecurityReference;

  @Field(() => String, { nullable: true, description: 'GICS sector of the security (null when the store has none)' })
  sector!: string | null;

  @Field(() => SafeIntResolver, { description: 'Whole shares held' })
  shares!: number;

  @Field(() => Float, { description: 'Average price paid per share (4 decimals)' })
  costBasis!: number;

  @Field(() => Float, { description: 'What the shares cost in all: shares x cost basis, reduced pro rata by sales' })
  costTotal!: number;

  @Field(() => Float, { nullable: true, description: 'Latest close (null: no close stored; valued at cost)' })
  price!: number | null;

  @Field(() => DateScalar, { nullable: true, description: 'Date of that close' })
  priceDate!: string | null;

  @Field(() => Float, { description: 'shares x price (x cost basis when there is no price)' })
  marketValue!: number;

  @Field(() => Float, { description: 'marketValue / the book\'s totalValue, 0..1' })
  weight!: number;

  @Field(() => Float, { description: 'marketValue - costTotal' })
  unrealisedPnl!: number;

  @Field(() => Float, { nullable: true, description: 'unrealisedPnl / costTotal (null when the cost is 0)' })
  unrealisedPnlPct!: number | null;

  @Field(() => DateScalar, { description: 'When the position was opened' })
  entryDate!: string;

  @Field(() => Int, { description: 'Calendar days from entryDate to the price date' })
  daysHeld!: number;

  @Field(() => Float, { nullable: true })
  stopLoss!: number | null;

  @Field(() => Float, { nullable: true })
  targetPrice!: number | null;
}

@ObjectType('Trade', { description: 'One recorded trade of a book' })
export class TradeType {
  @Field(() => ID)
  tradeId!: string;

  @Field(() => Int, { description: '1, 2, ... within the book, in the order trades were recorded' })
  seq!: number;

  @Field(() => String)
  symbol!: string;

  @Field(() => TradeSideEnum)
  side!: TradeSide;

  @Field(() => SafeIntResolver)
  shares!: number;

  @Field(() => Float, { description: 'Price per share' })
  price!: number;

  @Field(() => String, {
    description: "given (sent with the trade), close (the symbol's close on, or last before, the trade date) or cost (a rebalance's order for a holding with no close stored, at its average cost)",
  })
  priceSource!: 'given' | 'close' | 'cost';

  @Field(() => Float, { description: 'shares x price' })
  value!: number;

  @Field(() => DateScalar, { description: 'Trade date' })
  date!: string;

  @Field(() => Float, { nullable: true, description: 'For a sale: proceeds - the cost of the shares sold (average cost); null for a buy' })
  realisedPnl!: number | null;

  @Field(() => Float, { description: "The book's cash after this trade" })
  cashAfter!: number;

  @Field(() => Int, { description: "The book's version after the request that recorded it" })
  version!: number;

  @Field(() => String, { description: 'trade (recorded by a client) or rebalance (an applied rebalance)' })
  origin!: TradeOrigin;

  @Field(() => String, { description: 'ISO 8601 instant it was recorded' })
  recordedAt!: string;

  @Field(() => String)
  traceId!: string;
}

@ObjectType('TradePage', { description: "A page of a book's trade log, newest first" })
export class TradePageType {
  @Field(() => [TradeType])
  items!: TradeType[];

  @Field(() => Int)
  page!: number;

  @Field(() => Int)
  pageSize!: number;

  @Field(() => Int)
  total!: number;

  @Field(() => Boolean)
  hasMore!: boolean;
}

@ObjectType('RebalanceOrder', { description: 'One order of a rebalance (sells first, then buys; each in symbol order)' })
export class RebalanceOrderType {
  @Field(() => String)
  symbol!: string;

  @Field(() => TradeSideEnum)
  side!: TradeSide;

  @Field(() => SafeIntResolver)
  shares!: number;

  @Field(() => Float, { description: 'The latest close (what the book is valued at); a holding with no close: its average cost' })
  price!: number;

  @Field(() => Float, { description: 'shares x price' })
  value!: number;

  @Field(() => String, { description: 'close (the latest close) or cost (a holding with no close stored, at its average cost); an applied order\'s trade records the same' })
  priceSource!: 'close' | 'cost';
}

@ObjectType('RebalanceTarget', { description: 'One row of the book a rebalance ends at' })
export class RebalanceTargetType {
  @Field(() => String)
  symbol!: string;

  @Field(() => SafeIntResolver)
  shares!: number;

  @Field(() => SafeIntResolver, { description: 'Shares held now' })
  currentShares!: number;

  @Field(() => Float)
  price!: number;

  @Field(() => Float)
  value!: number;

  @Field(() => Float, { description: 'value / totalValue' })
  weight!: number;
}

@ObjectType('Rebalance', { description: 'The orders that move a book to the optimizer\'s target (REST POST /api/v1/portfolios/{id}/rebalance)' })
export class RebalanceType {
  @Field(() => ID)
  portfolioId!: string;

  @Field(() => Int, { description: 'The version the orders were computed on' })
  version!: number;

  @Field(() => Boolean, { description: 'True with apply: the orders were recorded as trades (one transaction)' })
  applied!: boolean;

  @Field(() => Int, { nullable: true, description: "The book's version after the applied orders (null when not applied)" })
  versionAfter!: number | null;

  @Field(() => Float, { description: 'cash + holdings at the latest close: the capital the optimizer was given' })
  totalValue!: number;

  @Field(() => Float)
  cashBefore!: number;

  @Field(() => Float, { description: 'Cash once every order is filled at its price (never negative)' })
  cashAfter!: number;

  @Field(() => Float)
  sellValue!: number;

  @Field(() => Float)
  buyValue!: number;

  @Field(() => Float, { description: 'One-way turnover: (sellValue + buyValue) / (2 x totalValue)' })
  turnover!: number;

  @Field(() => [RebalanceOrderType])
  orders!: RebalanceOrderType[];

  @Field(() => [RebalanceTargetType], { description: 'The book the orders end at (largest value first)' })
  target!: RebalanceTargetType[];

  @Field(() => RiskSettingsType, { description: 'Effective settings used' })
  riskSettings!: RiskSettingsType;

  @Field(() => ConstraintPackType, { nullable: true })
  constraintPack!: ConstraintPackType | null;

  @Field(() => OptimizerDiagnosticsType)
  optimizerDiagnostics!: OptimizerDiagnosticsType;

  @Field(() => DateScalar, { nullable: true, description: 'Date of the analysis snapshots the target was built from' })
  analysisDate!: string | null;

  @Field(() => [String])
  notes!: string[];

  @Field(() => [TradeType], { description: 'The recorded trades when applied (empty otherwise)' })
  trades!: TradeType[];
}

@ObjectType('TradeResult', { description: 'A recorded trade and the book after it' })
export class TradeResultType {
  @Field(() => TradeType)
  trade!: TradeType;

  @Field(() => PortfolioType)
  portfolio!: PortfolioType;
}
