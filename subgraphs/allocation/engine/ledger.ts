/**
 * The book's ledger, in integer cents: pure functions (no I/O, no clock) that the portfolio service
 * runs inside its transactions.
 *
 * Trades (`applyTrade`):
 *   - BUY: cash -= shares x price; the holding's shares and total cost grow by the same amount (average
 *     cost). Refused with INSUFFICIENT_CASH when the cost exceeds the cash (no margin).
 *   - SELL: cash += shares x price; the holding gives up round(cost_total x sold / held) of its cost
 *     (all of it on a full sale, which removes the holding); realised P&L = proceeds - that cost.
 *     Refused with INSUFFICIENT_SHARES when selling more than held (no short position).
 *   Bounds: no trade may be worth more than {@link LEDGER_MAX_CENTS} (MAX_TOTAL_CAPITAL, 1e12, in
 *   cents), nor leave the cash or one holding's cost above it (VALIDATION_FAILED naming `shares`, or
 *   `price` when one share alone is over). So every figure the ledger holds or stores stays an exact
 *   integer (Number.MAX_SAFE_INTEGER is about 9e15 cents) and fits the store's numeric(16,2) columns.
 *   A refusal returns the reason and no book: the caller writes nothing. So cash + sum(shares x the
 *   price each was traded at) is conserved by every accepted trade.
 *
 * Valuation (`valueBook`): each holding at its own price (shares x price), at cost when it has none;
 * weights of the total (cash + holdings).
 *
 * Rebalance (`rebalanceOrders`): from current shares to target shares at one price per symbol. Sells
 * first (every symbol held above its target, including those the target drops), then buys, each group
 * in symbol order. When the buys cost more than the cash after the sells, the last buys are trimmed by
 * whole shares (a buy trimmed to nothing goes), then trimmed buys get back, in order, the shares the
 * cash left over still pays for; so cash never goes negative after any order. The returned target is
 * the book the orders end at.
 *
 * ETags (`etagOf`, `parseIfMatch`): a book's version as a strong entity tag `"3"` (the REST ETag header);
 * If-Match is `*` or a comma-separated list of tags, `W/"3"` compared weakly (as 3).
 */

export type LedgerSide = 'BUY' | 'SELL';

/** One holding as the ledger sees it. */
export interface LedgerPosition {
  shares: number;
  /** Total cost, integer cents. */
  cost: number;
}

/** Cash and positions, integer cents. */
export interface LedgerBook {
  cash: number;
  positions: ReadonlyMap<string, LedgerPosition>;
}

export interface LedgerTrade {
  symbol: string;
  side: LedgerSide;
  /** Whole shares, >= 1. */
  shares: number;
  /** Price per share, integer cents, >= 1. */
  price: number;
}

/**
 * The most cents a trade may be worth, and the most the cash or one holding's cost may reach: the
 * product's MAX_TOTAL_CAPITAL (1e12) in cents, far inside Number.MAX_SAFE_INTEGER.
 */
export const LEDGER_MAX_CENTS = 1e14;

export interface TradeRefusal {
  /** VALIDATION_FAILED: beyond {@link LEDGER_MAX_CENTS}. */
  code: 'INSUFFICIENT_CASH' | 'INSUFFICIENT_SHARES' | 'VALIDATION_FAILED';
  /** The field the refusal names (`shares` for a sale, `shares` or `price` for a buy). */
  field: string;
  message: string;
}

export type TradeResult =
  | {
      ok: true;
      book: LedgerBook;
      /** shares x price, cents. */
      value: number;
      /** Sale: proceeds - cost removed (cents); buy: null. */
      realised: number | null;
      /** The holding after the trade (null when a sale closed it). */
      position: LedgerPosition | null;
    }
  | { ok: false; refusal: TradeRefusal };

const formatCents = (cents: number): string => {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
};

const MAX_TEXT = formatCents(LEDGER_MAX_CENTS);

/** The field a refusal for too large an amount names: `shares`, unless one share alone is too much. */
const boundField = (trade: LedgerTrade): string => (trade.shares > 1 && trade.price <= LEDGER_MAX_CENTS ? 'shares' : 'price');

/**
 * Why a trade is worth too much to record (shares x price above {@link LEDGER_MAX_CENTS}), or null.
 * The product (even one far beyond 2^53) is compared, never kept.
 */
export function tradeValueRefusal(trade: LedgerTrade): TradeRefusal | null {
  if (trade.shares * trade.price <= LEDGER_MAX_CENTS) return null;
  return {
    code: 'VALIDATION_FAILED',
    field: boundField(trade),
    message: `${trade.shares} x ${formatCents(trade.price)} is worth more than ${MAX_TEXT}, the most one trade may be worth`,
  };
}

/** Applies one trade, or says why it is refused (then the book is unchanged). */
export function applyTrade(book: LedgerBook, trade: LedgerTrade): TradeResult {
  const tooLarge = tradeValueRefusal(trade);
  if (tooLarge) return { ok: false, refusal: tooLarge };
  const held = book.positions.get(trade.symbol);
  const value = trade.shares * trade.price;
  if (trade.side === 'BUY') {
    if (value > book.cash) {
      return {
        ok: false,
        refusal: {
          code: 'INSUFFICIENT_CASH',
          field: trade.shares > 1 && trade.price <= book.cash ? 'shares' : 'price',
          message: `buying ${trade.shares} ${trade.symbol} at ${formatCents(trade.price)} costs ${formatCents(value)}; the book has ${formatCents(book.cash)} cash (at most ${Math.floor(book.cash / trade.price)} shares)`,
        },
      };
    }
    const position = { shares: (held?.shares ?? 0) + trade.shares, cost: (held?.cost ?? 0) + value };
    if (position.cost > LEDGER_MAX_CENTS) {
      return {
        ok: false,
        refusal: {
          code: 'VALIDATION_FAILED',
          field: boundField(trade),
          message: `the book's ${trade.symbol} would cost ${formatCents(position.cost)} in all; one holding may cost at most ${MAX_TEXT}`,
        },
      };
    }
    const positions = new Map(book.positions);
    positions.set(trade.symbol, position);
    return { ok: true, book: { cash: book.cash - value, positions }, value, realised: null, position };
  }
  const shares = held?.shares ?? 0;
  if (trade.shares > shares) {
    return {
      ok: false,
      refusal: {
        code: 'INSUFFICIENT_SHARES',
        field: 'shares',
        message: shares === 0 ? `the book holds no ${trade.symbol}` : `the book holds ${shares} ${trade.symbol}; cannot sell ${trade.shares}`,
      },
    };
  }
  if (book.cash + value > LEDGER_MAX_CENTS) {
    return {
      ok: false,
      refusal: {
        code: 'VALIDATION_FAILED',
        field: boundField(trade),
        message: `selling ${trade.shares} ${trade.symbol} at ${formatCents(trade.price)} would take the cash to ${formatCents(book.cash + value)}; a book may hold at most ${MAX_TEXT} cash`,
      },
    };
  }
  const cost = held as LedgerPosition;
  const removed = trade.shares === shares ? cost.cost : Math.round((cost.cost * trade.shares) / shares);
  const positions = new Map(book.positions);
  const position = trade.shares === shares ? null : { shares: shares - trade.shares, cost: cost.cost - removed };
  if (position) positions.set(trade.symbol, position);
  else positions.delete(trade.symbol);
  return { ok: true, book: { cash: book.cash + value, positions }, value, realised: value - removed, position };
}

// ---------------------------------------------------------------------------------------------------------
// Valuation
// ---------------------------------------------------------------------------------------------------------

export interface ValuedPosition {
  symbol: string;
  shares: number;
  cost: number;
  /** Price per share in cents (null: none; valued at cost). */
  price: number | null;
  /** shares x price, or the cost without a price. */
  value: number;
  /** value / total (0 when the book is worth nothing). */
  weight: number;
  unrealised: number;
}

export interface BookValue {
  cash: number;
  holdingsValue: number;
  total: number;
  cost: number;
  unrealised: number;
  /** Largest value first, then symbol. */
  positions: ValuedPosition[];
}

/** Values a book at one price per symbol (cents; a symbol without a price is valued at cost). */
export function valueBook(book: LedgerBook, prices: ReadonlyMap<string, number>): BookValue {
  let holdingsValue = 0;
  let cost = 0;
  const rows: Omit<ValuedPosition, 'weight'>[] = [];
  for (const [symbol, p] of book.positions) {
    const price = prices.get(symbol) ?? null;
    const value = price === null ? p.cost : p.shares * price;
    holdingsValue += value;
    cost += p.cost;
    rows.push({ symbol, shares: p.shares, cost: p.cost, price, value, unrealised: value - p.cost });
  }
  const total = book.cash + holdingsValue;
  rows.sort((a, b) => b.value - a.value || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  return {
    cash: book.cash,
    holdingsValue,
    total,
    cost,
    unrealised: holdingsValue - cost,
    positions: rows.map((r) => ({ ...r, weight: total > 0 ? r.value / total : 0 })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Rebalance orders
// ---------------------------------------------------------------------------------------------------------

export interface Order {
  symbol: string;
  side: LedgerSide;
  shares: number;
  /** Cents. */
  price: number;
  /** shares x price, cents. */
  value: number;
}

export interface RebalancePlan {
  /** Sells (symbol order), then buys (symbol order). */
  orders: Order[];
  /** symbol -> shares the orders end at (symbols ending at 0 are absent). */
  target: Map<string, number>;
  cashAfter: number;
  sellValue: number;
  buyValue: number;
  /** Buys cut for lack of cash: the shares asked for and the shares kept. */
  trimmed: Array<{ symbol: string; wanted: number; kept: number }>;
}

const bySymbol = (a: { symbol: string }, b: { symbol: string }): number => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0);

/**
 * The orders that move `current` (symbol -> shares) to `target` (symbol -> shares; absent = 0) at
 * `prices` (cents; every symbol of either side must have one, >= 1), with `cash` cents to start from.
 */
export function rebalanceOrders(
  current: ReadonlyMap<string, number>,
  target: ReadonlyMap<string, number>,
  prices: ReadonlyMap<string, number>,
  cash: number,
): RebalancePlan {
  const priceOf = (symbol: string): number => {
    const p = prices.get(symbol);
    if (p === undefined || !Number.isInteger(p) || p < 1) throw new Error(`rebalanceOrders: no price for ${symbol}`);
    return p;
  };
  const sells: Order[] = [];
  const buys: Order[] = [];
  for (const symbol of new Set([...current.keys(), ...target.keys()])) {
    const delta = (target.get(symbol) ?? 0) - (current.get(symbol) ?? 0);
    if (delta === 0) continue;
    const price = priceOf(symbol);
    const shares = Math.abs(delta);
    (delta < 0 ? sells : buys).push({ symbol, side: delta < 0 ? 'SELL' : 'BUY', shares, price, value: shares * price });
  }
  sells.sort(bySymbol);
  buys.sort(bySymbol);
  const sellValue = sells.reduce((s, o) => s + o.value, 0);
  let available = cash + sellValue;
  let buyValue = buys.reduce((s, o) => s + o.value, 0);
  const wanted = new Map(buys.map((o) => [o.symbol, o.shares]));
  // Trim the last buys first, each by as few whole shares as it takes ...
  for (let i = buys.length - 1; i >= 0 && buyValue > available; i--) {
    const o = buys[i];
    const cut = Math.min(o.shares, Math.ceil((buyValue - available) / o.price));
    buyValue -= cut * o.price;
    o.shares -= cut;
  }
  // ... then give back, in order, the whole shares that the cash left over still pays for (a cheap
  // name trimmed away while a dear one was being cut).
  for (const o of buys) {
    const back = Math.min((wanted.get(o.symbol) as number) - o.shares, Math.floor((available - buyValue) / o.price));
    if (back > 0) {
      o.shares += back;
      buyValue += back * o.price;
    }
  }
  const trimmed: RebalancePlan['trimmed'] = [];
  for (const o of buys) {
    o.value = o.shares * o.price;
    const asked = wanted.get(o.symbol) as number;
    if (o.shares < asked) trimmed.push({ symbol: o.symbol, wanted: asked, kept: o.shares });
  }
  const keptBuys = buys.filter((o) => o.shares > 0);
  available -= buyValue;
  const ends = new Map<string, number>();
  for (const [symbol, shares] of current) if (shares > 0) ends.set(symbol, shares);
  for (const o of [...sells, ...keptBuys]) {
    const n = (ends.get(o.symbol) ?? 0) + (o.side === 'BUY' ? o.shares : -o.shares);
    if (n > 0) ends.set(o.symbol, n);
    else ends.delete(o.symbol);
  }
  return { orders: [...sells, ...keptBuys], target: ends, cashAfter: available, sellValue, buyValue, trimmed };
}

// ---------------------------------------------------------------------------------------------------------
// ETag / If-Match
// ---------------------------------------------------------------------------------------------------------

/** A book version as its (strong) entity tag. */
/** A holding's average cost per share as the book states it (`cost_basis`): total cost in cents / shares, to 4 decimals. */
export const costBasisOf = (costCents: number, shares: number): number => Math.round((costCents / 100 / shares) * 1e4) / 1e4;

export const etagOf = (version: number): string => `"${version}"`;

const TAG_RE = /^(?:W\/)?"([^"]*)"$/;

/**
 * An If-Match header: `any` for `*`, else the versions its entity tags name (tags that are not a
 * version match nothing); null when the header is not a valid If-Match.
 */
export function parseIfMatch(header: string): { any: true } | { any: false; versions: number[] } | null {
  const text = header.trim();
  if (text === '*') return { any: true };
  if (text === '') return null;
  const versions: number[] = [];
  for (const part of text.split(',')) {
    const m = TAG_RE.exec(part.trim());
    if (!m) return null;
    if (/^[1-9][0-9]{0,15}$/.test(m[1])) versions.push(Number(m[1]));
  }
  return { any: false, versions };
}
