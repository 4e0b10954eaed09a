/**
 * A partner's book as the allocation origin serves it: holdings and cash, changed only by recorded
 * trades, valued at the latest close. These are the REST shapes (snake_case); GraphQL maps them to its
 * camelCase types; the OpenAPI components (rest-compat/schemas.ts) are checked against them.
 *
 * Money: every amount is a decimal of whole cents (cash, trade prices, values, P&L); a holding's cost
 * basis is the average price paid per share (up to 4 decimals), its total cost whole cents. Shares are
 * whole and positive: there is no margin and no short position.
 *
 * Versions: a book starts at version 1; every request that changes it (a trade, an applied rebalance)
 * adds 1. The version is the book's ETag (`"<version>"`); a write sent with `If-Match` (GraphQL:
 * `expectedVersion`) on an older version is refused with 412 and changes nothing.
 */
import type { RiskSettings } from './engine/risk-settings.js';
import type { ConstraintPack, OptimizerDiagnostics } from './engine/types.js';

/** How a book came to be: an optimize result, a POST of holdings, or a CSV upload/CLI import. */
export type BookSource = 'optimize' | 'holdings' | 'import';
export const BOOK_SOURCES: readonly BookSource[] = ['optimize', 'holdings', 'import'];

export type TradeSide = 'BUY' | 'SELL';
export const TRADE_SIDES: readonly TradeSide[] = ['BUY', 'SELL'];

/** Who recorded a trade: a client's POST .../trades, or an applied rebalance. */
export type TradeOrigin = 'trade' | 'rebalance';

/** One holding valued at the latest close. */
export interface BookHolding {
  symbol: string;
  /** GICS sector of the security (null when the store has none). */
  sector: string | null;
  shares: number;
  /** Average price paid per share (4 decimals). */
  cost_basis: number;
  /** What the shares cost in all (whole cents): shares x cost basis, reduced pro rata by sales. */
  cost_total: number;
  /** Latest close on or before the valuation date, to the cent (null: no close stored; valued at cost). */
  price: number | null;
  /** Date of that close. */
  price_date: string | null;
  /** shares x price (x cost basis when there is no price). */
  market_value: number;
  /** market_value / total_value (0 when the book is worth nothing). */
  weight: number;
  /** market_value - cost_total. */
  unrealised_pnl: number;
  /** unrealised_pnl / cost_total (null when the cost is 0). */
  unrealised_pnl_pct: number | null;
  /** When the position was opened (given, or the date of the first buy). */
  entry_date: string;
  /** Calendar days from entry_date to the valuation date (0 when the entry is later). */
  days_held: number;
  stop_loss: number | null;
  target_price: number | null;
}

/** Where a trade's price came from (see TradeRecord.price_source). */
export type TradePriceSource = 'given' | 'close' | 'cost';

/** One recorded trade. */
export interface TradeRecord {
  trade_id: string;
  /** 1, 2, ... within the book, in the order trades were recorded. */
  seq: number;
  symbol: string;
  side: TradeSide;
  shares: number;
  /** Price per share, whole cents. */
  price: number;
  /**
   * 'given': sent with the trade; 'close': the symbol's close on (or last before) the trade date;
   * 'cost': a rebalance's order for a holding with no close stored, traded at its average cost.
   */
  price_source: TradePriceSource;
  /** shares x price. */
  value: number;
  /** Trade date (YYYY-MM-DD). */
  date: string;
  /** For a sale: proceeds - the cost of the shares sold (average cost); null for a buy. */
  realised_pnl: number | null;
  /** The book's cash after this trade. */
  cash_after: number;
  /** The book's version after the request that recorded it. */
  version: number;
  origin: TradeOrigin;
  /** ISO 8601 instant it was recorded. */
  recorded_at: string;
  trace_id: string;
}

/** A page of a book's trade log, newest first. */
export interface TradePage {
  items: TradeRecord[];
  page: number;
  page_size: number;
  total: number;
  has_more: boolean;
}

/** GET /api/v1/portfolios/{id}: the book now. */
export interface BookResponse {
  portfolio_id: string;
  name: string;
  currency: string;
  source: BookSource;
  version: number;
  created_at: string;
  /** When the last trade was recorded (created_at before any). */
  updated_at: string;
  cash: number;
  /** Sum of the holdings' market values. */
  holdings_value: number;
  /** cash + holdings_value. */
  total_value: number;
  /** Sum of the holdings' total cost. */
  cost_total: number;
  unrealised_pnl: number;
  /** Sum of realised_pnl over the trade log. */
  realised_pnl: number;
  /** The newest price date among the holdings (null without holdings or prices). */
  valuation_date: string | null;
  position_count: number;
  /** Largest market value first, then symbol. */
  holdings: BookHolding[];
  /** The settings hunt, cash hunt and rebalance apply to this book (every default filled). */
  risk_settings: RiskSettings;
  constraint_pack: ConstraintPack | null;
  /** The newest page of the trade log (page 1, TRADES_PAGE.default items; GET .../trades for more). */
  trades: TradePage;
}

/** POST /api/v1/portfolios/{id}/trades: the trade and the book after it. */
export interface TradeResponse {
  trade: TradeRecord;
  portfolio: BookResponse;
}

/** One order of a rebalance (sells first, then buys; each in symbol order). */
export interface RebalanceOrder {
  symbol: string;
  side: TradeSide;
  shares: number;
  /** The latest close, whole cents (what the book is valued at); a holding without a close: its average cost. */
  price: number;
  value: number;
  /** 'close' (the latest close) or 'cost' (a holding with no close stored); an applied order's trade records it. */
  price_source: 'close' | 'cost';
}

/** One row of the target book. */
export interface RebalanceTarget {
  symbol: string;
  shares: number;
  current_shares: number;
  price: number;
  value: number;
  /** value / total_value. */
  weight: number;
}

/** POST /api/v1/portfolios/{id}/rebalance. */
export interface RebalanceResponse {
  portfolio_id: string;
  /** The version the orders were computed on. */
  version: number;
  /** True with ?apply=true: the orders were recorded as trades (one transaction). */
  applied: boolean;
  /** The book's version after the applied orders (null when not applied). */
  version_after: number | null;
  /** cash + holdings at the latest close: the capital the optimizer was given. */
  total_value: number;
  cash_before: number;
  /** Cash once every order is filled at its price (never negative). */
  cash_after: number;
  sell_value: number;
  buy_value: number;
  /** One-way turnover: (sell_value + buy_value) / (2 x total_value). */
  turnover: number;
  orders: RebalanceOrder[];
  /** The book the orders end at (largest value first). */
  target: RebalanceTarget[];
  risk_settings: RiskSettings;
  constraint_pack: ConstraintPack | null;
  optimizer_diagnostics: OptimizerDiagnostics;
  analysis_date: string | null;
  notes: string[];
  /** The recorded trades when applied (empty otherwise). */
  trades: TradeRecord[];
}

/** Trade-log pages (REST page/page_size on GET .../trades; the book's own `trades` is page 1). */
/** Trade-log pages: items per page (default, max) and the last page number a request may ask for. */
export const TRADES_PAGE = Object.freeze({ default: 20, max: 100, maxPage: 1_000_000 });

// ---------------------------------------------------------------------------------------------------------
// Requests (REST bodies; GraphQL inputs map to the same bodies). The classes of request/ are the
// single source of their rules; these are the validated shapes.
// ---------------------------------------------------------------------------------------------------------

/** One holding of a new book. */
export interface HoldingBody {
  symbol: string;
  shares: number;
  cost_basis: number;
  entry_date?: string | null;
  stop_loss?: number | null;
  target_price?: number | null;
}

/** POST /api/v1/portfolios. */
export interface CreatePortfolioBody {
  name: string;
  currency?: string | null;
  cash: number;
  holdings: HoldingBody[];
  risk_settings?: Partial<RiskSettings> | null;
  constraint_pack?: ConstraintPack | null;
}

/** POST /api/v1/portfolios/{id}/trades. */
export interface TradeBody {
  symbol: string;
  side: TradeSide;
  shares: number;
  price?: number | null;
  date?: string | null;
}

/** POST /api/v1/portfolios/{id}/rebalance (the strategy is risk_settings.allocation_strategy). */
export interface RebalanceBody {
  risk_settings?: Partial<RiskSettings> | null;
  constraint_pack?: ConstraintPack | null;
}

/** Options every write takes. */
export interface BookWriteOptions {
  traceId: string;
  /** Idempotency-Key header / idempotencyKey argument: a retry returns the first answer. */
  idempotencyKey?: string | null;
  /** How violation details name fields: the spec's snake_case (REST) or camelCase (GraphQL). */
  naming: 'rest' | 'graphql';
}

/** Options of a write to an existing book. */
export interface BookUpdateOptions extends BookWriteOptions {
  /** REST If-Match header as sent (`"3"`, `W/"3"`, `*`, a list); null/undefined: no precondition. */
  ifMatch?: string | null;
  /** GraphQL expectedVersion (takes the place of If-Match). */
  expectedVersion?: number | null;
}

/** What a write answered, and whether it is the replay of an earlier request with the same key. */
export interface BookOutcome<T> {
  response: T;
  replayed: boolean;
}
