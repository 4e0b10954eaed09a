/**
 * A partner's books: create one from holdings and cash (or a CSV import), record trades, read it valued
 * at the latest closes with its trade log, and rebalance it into an order list. Optimize writes books
 * too (service.ts); every book is traded, read and rebalanced alike here. REST handlers and GraphQL
 * resolvers call these methods and nothing else.
 *
 * Rules every method keeps:
 *   - partners only (401 otherwise), their own books only (404 PORTFOLIO_NOT_FOUND for any other id:
 *     existence is not revealed);
 *   - a refusal writes nothing: the body contract (dto.ts, every violation listed), then the store's
 *     checks (symbols known with a close, no symbol twice, no date after today), then, inside one
 *     transaction with the book's row locked (SELECT ... FOR UPDATE), the precondition and the ledger
 *     (engine/ledger.ts: no margin, no short position);
 *   - money is integer cents inside (engine/money.ts), decimals of whole cents outside;
 *   - a changing request adds 1 to the book's version, once (an applied rebalance: once for all its
 *     trades). If-Match (GraphQL expectedVersion) on another version: 412 PRECONDITION_FAILED;
 *   - Idempotency-Key: a new book uses the portfolios table's (partner, key); a trade or an applied
 *     rebalance the book's `portfolio_requests`, written in the same transaction as the change. A retry
 *     changes nothing; a trade or rebalance answers as the first request did, but a create answers the
 *     book it created as it is NOW (its version, cash and holdings after any trades since; only the
 *     header row is kept per key, not the first answer). The same key on a different request is 400
 *     IDEMPOTENCY_KEY_REUSED.
 *
 * Prices: a book is valued at each holding's latest close (rounded to the cent; at cost without one). A
 * trade without a price takes the close on its date or the last one before it. A rebalance prices the
 * current and the target shares at the latest close.
 *
 * Rebalance: the book's total value at those prices is the capital; its current weights are the
 * optimizer's prior book (so turnover against it is measured); the book's stored settings, overridden
 * field by field by the body's, are the settings (max_positions a hard limit: every holding outside the
 * target is sold). Orders: sells, then buys, whole shares; buys the cash cannot pay at these prices are
 * trimmed from the last (a note says so), so cash never goes negative after any order.
 */
import { createHash, randomUUID } from 'node:crypto';
import { closeOnOrBefore, findSecurities, latestCloses, type DatedClose } from '../analysis/store.js';
import { unavailable, type Db, type Queryable } from '../platform/db.js';
import { BoundedCache } from '../platform/bounded-cache.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import type { FieldNaming } from '../platform/param-table.js';
import { requirePartner, type Principal } from '../platform/principal.js';
import { pageSize as checkPageSize } from '../platform/validation.js';
import {
  TRADES_PAGE,
  type BookHolding,
  type BookOutcome,
  type BookResponse,
  type BookSource,
  type BookUpdateOptions,
  type BookWriteOptions,
  type CreatePortfolioBody,
  type RebalanceBody,
  type RebalanceResponse,
  type RebalanceTarget,
  type TradeBody,
  type TradePage,
  type TradePriceSource,
  type TradeRecord,
  type TradeResponse,
} from './book-types.js';
import { MAX_TOTAL_CAPITAL, namedPath, validateCreatePortfolioBody, validateRebalanceBody, validateTradeBody } from './dto.js';
import { parseHoldingsCsv } from './engine/holdings-csv.js';
import { applyTrade, costBasisOf, LEDGER_MAX_CENTS, parseIfMatch, rebalanceOrders, tradeValueRefusal, valueBook, type LedgerBook, type LedgerPosition, type Order } from './engine/ledger.js';
import { fromCents, toCents } from './engine/money.js';
import { effectiveRiskSettings, storedBookSettings } from './engine/optimizer.js';
import { buildPolicyExplanation, resolveRiskProfile } from './engine/risk-profile.js';
import type { RiskSettings } from './engine/risk-settings.js';
import { canonicalJson, idempotencyKey, optimizeOn, portfolioIdOf, portfolioNotFound, type PortfolioResponse } from './service.js';
import { bookVersionsOf } from './book-versions.js';
import * as store from './store.js';
import { UniverseCache } from './universe.js';

export interface PortfolioServiceOptions {
  now?: () => Date;
  /** The candidate universe rebalance optimizes over, shared with the optimize service (default: one of its own). */
  universes?: UniverseCache;
  /** Books whose last read is kept for the next (default 2,000; the least recently read go first). */
  maxBooks?: number;
}

/**
 * A book's read as kept for the next one, with everything its answer depends on: the owner, the version
 * (every trade and applied rebalance adds 1; holdings, cash and the trade log change only with it), the
 * closes it is valued at (store.bookStamp), and today's date when a holding's days held were counted to
 * it (no holding has a close). The answer is frozen: every reader shares it.
 */
interface KeptBook {
  partnerId: string;
  version: number;
  closesStamp: string;
  today: string | null;
  book: BookResponse;
}

export interface CreateOptions extends BookWriteOptions {
  /** 'holdings' (default) or 'import'. */
  source?: 'holdings' | 'import';
  /** A fixed id (the demo book); default a new UUID. */
  id?: string;
}

/** How the store's checks name a holding's field: `holdings[2].symbol`, or `line 4: symbol` for an import. */
type HoldingField = (index: number, field: string) => string;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
/** A close as whole cents (at least one cent). */
const closeCents = (close: number): number => Math.max(1, toCents(close));

/** Calendar days from one date to another (0 when the second is earlier). */
function daysBetween(from: string, to: string): number {
  const days = Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
  return Number.isFinite(days) && days > 0 ? days : 0;
}

function invalid(details: ErrorDetail[]): AppError {
  return new AppError('VALIDATION_FAILED', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
}

/** What the precondition of a write asks for: any version (none sent), or one of these. */
type Precondition = { any: true } | { any: false; versions: number[] };

/** The book's ledger: cash and positions in cents. */
function ledgerOf(cash: number, holdings: readonly store.HoldingRecord[]): LedgerBook {
  return { cash: toCents(cash), positions: new Map(holdings.map((h) => [h.symbol, { shares: h.shares, cost: toCents(h.costTotal) }])) };
}

function tradeRecord(t: store.TradeRow): TradeRecord {
  return {
    trade_id: t.id,
    seq: t.seq,
    symbol: t.symbol,
    side: t.side,
    shares: t.shares,
    price: t.price,
    price_source: t.priceSource,
    value: fromCents(t.shares * toCents(t.price)),
    date: t.tradeDate,
    realised_pnl: t.realisedPnl,
    cash_after: t.cashAfter,
    version: t.version,
    origin: t.origin,
    recorded_at: t.recordedAt,
    trace_id: t.traceId,
  };
}

/** A retry's answer: the stored one when the request is the same, else IDEMPOTENCY_KEY_REUSED. */
function replayOf<T>(prior: { requestHash: string; responseText: string }, requestHash: string, what: string): BookOutcome<T> {
  if (prior.requestHash !== requestHash) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', `This Idempotency-Key was already used for a different ${what} on this book; use a new key for a new request`, [
      { field: 'Idempotency-Key', message: 'already used for a different request' },
    ]);
  }
  return { response: JSON.parse(prior.responseText) as T, replayed: true };
}

/** A page of the trade log as the API states it, from the store's rows. */
function tradePageOf(log: { items: readonly store.TradeRow[]; total: number; realisedPnl: number }, page: number, size: number): { page: TradePage; realisedPnl: number } {
  return { page: { items: log.items.map(tradeRecord), page, page_size: size, total: log.total, has_more: page * size < log.total }, realisedPnl: log.realisedPnl };
}

/** Freezes a plain object and everything in it (a kept answer is shared by its readers). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Signals that the book changed between planning a rebalance and locking it. */
class BookMoved {
  constructor(readonly version: number) {}
}

export class PortfolioService {
  private readonly now: () => Date;
  private readonly universes: UniverseCache;
  /** Each book's last read (book()), answered again while its version and closes stay the same. */
  private readonly books: BoundedCache<string, KeptBook>;

  constructor(
    private readonly db: Db,
    options: PortfolioServiceOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.universes = options.universes ?? new UniverseCache(db);
    this.books = new BoundedCache(options.maxBooks ?? 2_000);
  }

  /**
   * Runs a transaction that may change the book and, once it has committed, notes the version it left
   * (book-versions.ts: on the embedded store hunt and cash hunt then follow the book without asking the
   * store). A transaction that failed may have committed first: the book is forgotten instead.
   */
  private async writeBook<T>(partnerId: string, bookId: string, versionAfter: (result: T) => number | null, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const versions = bookVersionsOf(this.db);
    let result: T;
    try {
      result = await this.db.transaction(fn);
    } catch (err) {
      versions?.forget(bookId);
      throw err;
    }
    const version = versionAfter(result);
    if (version !== null) versions?.note(bookId, partnerId, version);
    return result;
  }

  private today(): string {
    return this.now().toISOString().slice(0, 10);
  }

  // -------------------------------------------------------------------------------------------------------
  // Create and import
  // -------------------------------------------------------------------------------------------------------

  /** A new book from holdings and cash (REST body or a GraphQL input's body): 201 with the book valued. */
  async create(principal: Principal, body: unknown, options: CreateOptions): Promise<BookOutcome<BookResponse>> {
    const partnerId = requirePartner(principal, 'creating a book').partnerId;
    const key = idempotencyKey(options.idempotencyKey);
    const valid = validateCreatePortfolioBody(body, options.naming, key.problem ? [key.problem] : []);
    const field: HoldingField = (i, f) => namedPath(`holdings[${i}].${f}`, options.naming);
    return this.createValid(partnerId, valid, key.value, options, options.source ?? 'holdings', field);
  }

  /**
   * A new book from a broker-style CSV (engine/holdings-csv.ts) and the name, currency and cash given
   * beside it (query string or CLI flags; cash may be text). Every bad line and field is listed at once
   * (`line 4: shares`); then the same rules as create, source 'import'.
   */
  async importCsv(
    principal: Principal,
    csv: string,
    fields: { name?: string | null; currency?: string | null; cash?: number | string | null },
    options: BookWriteOptions & { id?: string },
  ): Promise<BookOutcome<BookResponse>> {
    const partnerId = requirePartner(principal, 'importing a book').partnerId;
    const key = idempotencyKey(options.idempotencyKey);
    const parsed = parseHoldingsCsv(csv);
    const problems: ErrorDetail[] = [...parsed.problems];
    if (key.problem) problems.push(key.problem);
    let cash: unknown = fields.cash ?? 0;
    if (typeof cash === 'string') {
      const text = cash.trim();
      cash = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
      if (Number.isNaN(cash)) problems.push({ field: 'cash', message: `must be a number (got ${JSON.stringify(text.slice(0, 40))})` });
    }
    const body: Record<string, unknown> = { name: fields.name ?? undefined, cash: Number.isNaN(cash) ? 0 : cash, holdings: parsed.holdings };
    if (fields.currency !== null && fields.currency !== undefined) body.currency = fields.currency;
    const lineOf = (i: number): string => `line ${parsed.lines[i] ?? i + 2}`;
    let valid: CreatePortfolioBody;
    try {
      valid = validateCreatePortfolioBody(body, options.naming, problems);
    } catch (err) {
      // The contract names a holding by its index: name it by its line in the file.
      if (err instanceof AppError && err.details) {
        const details = err.details.map((d) => {
          const m = /^holdings\[(\d+)\]\.(.+)$/.exec(d.field ?? '');
          return m ? { ...d, field: `${lineOf(Number(m[1]))}: ${m[2]}` } : d;
        });
        throw invalid(details);
      }
      throw err;
    }
    return this.createValid(partnerId, valid, key.value, options, 'import', (i, f) => `${lineOf(i)}: ${f}`);
  }

  private async createValid(
    partnerId: string,
    valid: CreatePortfolioBody,
    idemKey: string | null,
    options: BookWriteOptions & { id?: string },
    source: 'holdings' | 'import',
    field: HoldingField,
  ): Promise<BookOutcome<BookResponse>> {
    const requestHash = sha256(canonicalJson({ kind: 'create', source, body: valid }));
    if (idemKey !== null) {
      const first = await store.findByIdempotencyKey(this.db, partnerId, idemKey);
      if (first) return this.createReplay(partnerId, first, requestHash);
    }
    const today = this.today();
    const symbols = valid.holdings.map((h) => h.symbol);
    const [closes, securities] = await Promise.all([latestCloses(this.db, symbols), findSecurities(this.db, symbols)]);
    const sectors = new Map(securities.map((s) => [s.symbol, s.sector]));

    // The store's checks, every problem at once.
    const problems: ErrorDetail[] = [];
    const seen = new Map<string, number>();
    const costs = valid.holdings.map((h) => Math.round((h.shares * Math.round(h.cost_basis * 1e4)) / 100));
    valid.holdings.forEach((h, i) => {
      if (!closes.has(h.symbol)) problems.push({ field: field(i, 'symbol'), message: `unknown symbol ${JSON.stringify(h.symbol)}, or no prices stored for it` });
      const first = seen.get(h.symbol);
      if (first !== undefined) problems.push({ field: field(i, 'symbol'), message: `${h.symbol} is already held at ${field(first, 'symbol')}; one holding per symbol` });
      else seen.set(h.symbol, i);
      if (h.entry_date && h.entry_date > today) problems.push({ field: field(i, 'entry_date'), message: `${h.entry_date} is after today (${today})` });
      if (costs[i] > toCents(MAX_TOTAL_CAPITAL)) problems.push({ field: field(i, 'cost_basis'), message: `shares x cost_basis exceeds ${MAX_TOTAL_CAPITAL}` });
    });
    const cashCents = toCents(valid.cash);
    const costCents = costs.reduce((s, c) => s + c, 0);
    if (problems.length === 0 && cashCents + costCents > toCents(MAX_TOTAL_CAPITAL)) {
      problems.push({ field: 'cash', message: `cash + the holdings' cost exceeds ${MAX_TOTAL_CAPITAL}` });
    }
    if (problems.length) throw invalid(problems);

    const id = options.id ?? randomUUID();
    const createdAt = this.now().toISOString();
    const profile = resolveRiskProfile({ risk_settings: valid.risk_settings ?? null, constraint_pack: valid.constraint_pack ?? null });
    const settings = effectiveRiskSettings(profile.risk_settings);
    const currency = valid.currency ?? 'USD';
    const opening: PortfolioResponse = {
      portfolio_id: id,
      name: valid.name,
      description: null,
      total_capital: fromCents(cashCents + costCents),
      allocated_capital: fromCents(costCents),
      remaining_capital: fromCents(cashCents),
      position_count: valid.holdings.length,
      allocations: [],
      created_at: createdAt,
      currency,
      risk_settings: settings,
      trace_id: options.traceId,
      optimizer_diagnostics: null,
      policy_explanation: buildPolicyExplanation(profile),
      constraint_pack: profile.constraint_pack,
      investor_profile: null,
      analysis_date: null,
    };
    const written = await this.db.transaction((tx) =>
      store.insertPortfolio(
        tx,
        {
          id,
          partnerId,
          name: valid.name,
          currency,
          totalCapital: opening.total_capital,
          allocatedCapital: opening.allocated_capital,
          remainingCapital: opening.remaining_capital,
          positionCount: opening.position_count,
          analysisDate: null,
          createdAt,
          traceId: options.traceId,
          idempotencyKey: idemKey,
          requestHash,
          request: valid,
          effectiveSettings: { risk_settings: settings, constraint_pack: profile.constraint_pack, preset_key: null, source: profile.source },
          responseText: JSON.stringify(opening),
          cash: fromCents(cashCents),
          source,
        },
        valid.holdings.map((h, i) => ({
          symbol: h.symbol,
          position: i + 1,
          shares: h.shares,
          costTotal: fromCents(costs[i]),
          entryDate: h.entry_date ?? today,
          stopLoss: h.stop_loss ?? null,
          targetPrice: h.target_price ?? null,
          sector: sectors.get(h.symbol) ?? null,
          supportAtEntry: null,
        })),
      ),
    );
    if (!written) {
      // A concurrent request with the same key committed first: its book is the answer.
      const first = idemKey === null ? null : await store.findByIdempotencyKey(this.db, partnerId, idemKey);
      if (!first) throw unavailable();
      return this.createReplay(partnerId, first, requestHash);
    }
    return { response: await this.bookOf(this.db, partnerId, id), replayed: false };
  }

  /** A create's retry: the book it created as it is now (not its first answer: trades since show). */
  private async createReplay(partnerId: string, first: store.StoredPortfolio, requestHash: string): Promise<BookOutcome<BookResponse>> {
    if (first.requestHash !== requestHash) {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different request; use a new key for a new request', [
        { field: 'Idempotency-Key', message: `already used for portfolio ${first.id}` },
      ]);
    }
    return { response: await this.bookOf(this.db, partnerId, first.id), replayed: true };
  }

  // -------------------------------------------------------------------------------------------------------
  // Reads
  // -------------------------------------------------------------------------------------------------------

  /** The caller's book now: holdings valued at the latest closes, cash, version, trade log page 1. */
  async book(principal: Principal, id: string): Promise<BookResponse> {
    const partnerId = requirePartner(principal, 'reading portfolios').partnerId;
    const bookId = portfolioIdOf(id);
    const kept = this.books.get(bookId);
    if (kept && kept.partnerId === partnerId) {
      const stamp = await store.bookStamp(this.db, partnerId, bookId);
      if (!stamp) throw portfolioNotFound(bookId);
      if (stamp.version === kept.version && stamp.closesStamp === kept.closesStamp && (kept.today === null || kept.today === this.today())) return kept.book;
    }
    const read = await this.readBook(this.db, partnerId, bookId);
    deepFreeze(read.book);
    this.books.set(bookId, read);
    return read.book;
  }

  /** A page of the caller's book's trade log, newest first. */
  async trades(principal: Principal, id: string, options: { page?: number | null; pageSize?: number | null; naming: FieldNaming }): Promise<TradePage> {
    const partnerId = requirePartner(principal, 'reading portfolios').partnerId;
    const bookId = portfolioIdOf(id);
    const page = options.page ?? 1;
    if (!Number.isInteger(page) || page < 1 || page > TRADES_PAGE.maxPage) {
      throw invalid([{ field: 'page', message: `expected an integer from 1 to ${TRADES_PAGE.maxPage}` }]);
    }
    const size = checkPageSize(options.pageSize, options.naming === 'rest' ? 'page_size' : 'pageSize', TRADES_PAGE.default, TRADES_PAGE.max);
    const header = await store.findBookHeader(this.db, partnerId, bookId);
    if (!header) throw portfolioNotFound(id);
    return (await this.tradePage(this.db, bookId, page, size)).page;
  }

  /** The stored optimize result of the caller's book (404 for books that were not optimized). */
  async optimizeResultText(principal: Principal, id: string): Promise<string> {
    const partnerId = requirePartner(principal, 'reading portfolios').partnerId;
    const text = await store.findOptimizeResponse(this.db, partnerId, portfolioIdOf(id));
    if (text === null) throw portfolioNotFound(id);
    return text;
  }

  private async tradePage(q: Queryable, bookId: string, page: number, size: number): Promise<{ page: TradePage; realisedPnl: number }> {
    return tradePageOf(await store.listTrades(q, bookId, { offset: (page - 1) * size, limit: size }), page, size);
  }

  /** The partner's book now, read in one statement on `q` (inside a transaction: its own connection). */
  private async bookOf(q: Queryable, partnerId: string, bookId: string): Promise<BookResponse> {
    return (await this.readBook(q, partnerId, bookId)).book;
  }

  /** The book and what its answer depends on besides the version: the closes it is valued at, and today when no holding has one. */
  private async readBook(q: Queryable, partnerId: string, bookId: string): Promise<KeptBook> {
    const stored = await store.findBook(q, partnerId, bookId, TRADES_PAGE.default);
    if (!stored) throw portfolioNotFound(bookId);
    const today = this.today();
    const book = this.bookFrom(stored, today);
    const usedToday = book.valuation_date === null && book.holdings.length > 0;
    return { partnerId, version: stored.header.version, closesStamp: stored.closesStamp, today: usedToday ? today : null, book };
  }

  /** The book of a stored read: holdings valued at their latest closes, cash, version, trade log page 1. */
  private bookFrom({ header, holdings, closes, trades: log }: store.StoredBook, today: string): BookResponse {
    const trades = tradePageOf(log, 1, TRADES_PAGE.default);
    const prices = new Map<string, number>();
    for (const [symbol, c] of closes) prices.set(symbol, closeCents(c.close));
    const valued = valueBook(ledgerOf(header.cash, holdings), prices);
    const bySymbol = new Map(holdings.map((h) => [h.symbol, h]));
    let valuationDate: string | null = null;
    for (const c of closes.values()) if (valuationDate === null || c.date > valuationDate) valuationDate = c.date;
    const rows: BookHolding[] = valued.positions.map((p) => {
      const h = bySymbol.get(p.symbol) as store.HoldingRecord;
      const close: DatedClose | undefined = closes.get(p.symbol);
      return {
        symbol: p.symbol,
        sector: h.sector,
        shares: p.shares,
        cost_basis: costBasisOf(p.cost, p.shares),
        cost_total: fromCents(p.cost),
        price: p.price === null ? null : fromCents(p.price),
        price_date: close?.date ?? null,
        market_value: fromCents(p.value),
        weight: round6(p.weight),
        unrealised_pnl: fromCents(p.unrealised),
        unrealised_pnl_pct: p.cost > 0 ? round6(p.unrealised / p.cost) : null,
        entry_date: h.entryDate,
        days_held: daysBetween(h.entryDate, close?.date ?? valuationDate ?? today),
        stop_loss: h.stopLoss,
        target_price: h.targetPrice,
      };
    });
    const settings = storedBookSettings(header.effectiveSettings);
    return {
      portfolio_id: header.id,
      name: header.name,
      currency: header.currency,
      source: header.source as BookSource,
      version: header.version,
      created_at: header.createdAt,
      updated_at: header.updatedAt,
      cash: fromCents(valued.cash),
      holdings_value: fromCents(valued.holdingsValue),
      total_value: fromCents(valued.total),
      cost_total: fromCents(valued.cost),
      unrealised_pnl: fromCents(valued.unrealised),
      realised_pnl: trades.realisedPnl,
      valuation_date: valuationDate,
      position_count: rows.length,
      holdings: rows,
      risk_settings: settings.risk_settings,
      constraint_pack: settings.constraint_pack,
      trades: trades.page,
    };
  }

  // -------------------------------------------------------------------------------------------------------
  // Writes to a book
  // -------------------------------------------------------------------------------------------------------

  /** The precondition of a write: GraphQL expectedVersion, else If-Match (a malformed header is a problem). */
  private precondition(options: BookUpdateOptions, problems: ErrorDetail[]): Precondition {
    if (options.expectedVersion !== null && options.expectedVersion !== undefined) {
      if (!Number.isInteger(options.expectedVersion) || options.expectedVersion < 1) {
        problems.push({ field: 'expectedVersion', message: 'expected a version from 1' });
        return { any: true };
      }
      return { any: false, versions: [options.expectedVersion] };
    }
    if (options.ifMatch === null || options.ifMatch === undefined) return { any: true };
    const parsed = parseIfMatch(options.ifMatch);
    if (parsed === null) {
      problems.push({ field: 'If-Match', message: 'expected * or a list of entity tags such as "3"' });
      return { any: true };
    }
    return parsed;
  }

  private checkPrecondition(pre: Precondition, version: number, options: BookUpdateOptions): void {
    if (pre.any || pre.versions.includes(version)) return;
    const field = options.expectedVersion !== null && options.expectedVersion !== undefined ? 'expectedVersion' : 'If-Match';
    throw new AppError('PRECONDITION_FAILED', `The book has changed: it is at version ${version}; read it again and retry`, [
      { field, message: `the book is at version ${version}` },
    ]);
  }

  /** Records one buy or sale: shares and cash change in one transaction; the trade and the book after it. */
  async trade(principal: Principal, id: string, body: unknown, options: BookUpdateOptions): Promise<BookOutcome<TradeResponse>> {
    const partnerId = requirePartner(principal, 'recording trades').partnerId;
    const bookId = portfolioIdOf(id);
    const header = await store.findBookHeader(this.db, partnerId, bookId);
    if (!header) throw portfolioNotFound(id);
    const key = idempotencyKey(options.idempotencyKey);
    const problems: ErrorDetail[] = key.problem ? [key.problem] : [];
    const pre = this.precondition(options, problems);
    const valid: TradeBody = validateTradeBody(body, options.naming, problems);
    const requestHash = sha256(canonicalJson({ kind: 'trade', body: valid }));

    // The store's checks.
    const today = this.today();
    const date = valid.date ?? today;
    if (date > today) throw invalid([{ field: 'date', message: `${date} is after today (${today})` }]);
    let price: number;
    let priceSource: TradePriceSource;
    if (valid.price !== null && valid.price !== undefined) {
      const known = (await latestCloses(this.db, [valid.symbol])).has(valid.symbol);
      if (!known && !(await store.listHoldings(this.db, bookId)).some((h) => h.symbol === valid.symbol)) {
        throw invalid([{ field: 'symbol', message: `unknown symbol ${JSON.stringify(valid.symbol)}, or no prices stored for it` }]);
      }
      price = toCents(valid.price);
      priceSource = 'given';
    } else {
      const close = await closeOnOrBefore(this.db, valid.symbol, date);
      if (!close) {
        const known = (await latestCloses(this.db, [valid.symbol])).has(valid.symbol);
        throw invalid([
          known
            ? { field: 'price', message: `no close of ${valid.symbol} on or before ${date}; send a price` }
            : { field: 'symbol', message: `unknown symbol ${JSON.stringify(valid.symbol)}, or no prices stored for it` },
        ]);
      }
      price = closeCents(close.close);
      priceSource = 'close';
    }
    // Worth more than MAX_TOTAL_CAPITAL: refused before the book is locked (the ledger refuses it too).
    const tooLarge = tradeValueRefusal({ symbol: valid.symbol, side: valid.side, shares: valid.shares, price });
    if (tooLarge) throw invalid([{ field: tooLarge.field, message: tooLarge.message }]);

    return this.writeBook(partnerId, bookId, (o) => (o.replayed ? null : o.response.portfolio.version), async (tx) => {
      const locked = await store.lockBookHeader(tx, partnerId, bookId);
      if (!locked) throw portfolioNotFound(id);
      if (key.value !== null) {
        const prior = await store.findBookRequest(tx, bookId, key.value);
        if (prior) return replayOf<TradeResponse>(prior, requestHash, 'trade');
      }
      this.checkPrecondition(pre, locked.version, options);
      const recordedAt = this.now().toISOString();
      const version = locked.version + 1;
      const [trade] = await this.record(tx, locked, [{ symbol: valid.symbol, side: valid.side, shares: valid.shares, price, value: valid.shares * price, priceSource }], {
        date,
        version,
        origin: 'trade',
        recordedAt,
        traceId: options.traceId,
      });
      const response: TradeResponse = { trade, portfolio: await this.bookOf(tx, partnerId, bookId) };
      if (key.value !== null) await store.insertBookRequest(tx, bookId, { key: key.value, requestHash, responseText: JSON.stringify(response), createdAt: recordedAt });
      return { response, replayed: false };
    });
  }

  /**
   * Applies orders to a locked book through the ledger (a refusal throws, so the transaction writes
   * nothing), records each as a trade and writes the holdings, cash and version. Returns the trades.
   */
  private async record(
    tx: Queryable,
    locked: store.BookHeader,
    orders: ReadonlyArray<Order & { priceSource: TradePriceSource }>,
    how: { date: string; version: number; origin: 'trade' | 'rebalance'; recordedAt: string; traceId: string },
  ): Promise<TradeRecord[]> {
    const holdings = await store.listHoldings(tx, locked.id);
    const bySymbol = new Map(holdings.map((h) => [h.symbol, h]));
    let nextPosition = holdings.reduce((m, h) => Math.max(m, h.position), 0) + 1;
    let book = ledgerOf(locked.cash, holdings);
    let seq = await store.nextTradeSeq(tx, locked.id);
    const rows: store.TradeRow[] = [];
    const touched = new Map<string, LedgerPosition | null>();
    for (const o of orders) {
      const result = applyTrade(book, o);
      if (!result.ok) throw new AppError(result.refusal.code, result.refusal.message, [{ field: result.refusal.field, message: result.refusal.message }]);
      book = result.book;
      touched.set(o.symbol, result.position);
      rows.push({
        id: randomUUID(),
        seq: seq++,
        symbol: o.symbol,
        side: o.side,
        shares: o.shares,
        price: fromCents(o.price),
        priceSource: o.priceSource,
        tradeDate: how.date,
        realisedPnl: result.realised === null ? null : fromCents(result.realised),
        cashAfter: fromCents(book.cash),
        version: how.version,
        origin: how.origin,
        recordedAt: how.recordedAt,
        traceId: how.traceId,
      });
    }
    if (rows.length === 0) return [];
    await store.insertTrades(tx, locked.id, rows);
    const opened = [...touched].filter(([symbol, p]) => p !== null && !bySymbol.has(symbol)).map(([symbol]) => symbol);
    const sectors = new Map((opened.length ? await findSecurities(tx, opened) : []).map((s) => [s.symbol, s.sector]));
    for (const [symbol, p] of touched) {
      const held = bySymbol.get(symbol);
      if (p === null) {
        if (held) await store.deleteHolding(tx, locked.id, symbol);
        continue;
      }
      await store.upsertHolding(tx, locked.id, {
        symbol,
        position: held?.position ?? nextPosition++,
        shares: p.shares,
        costTotal: fromCents(p.cost),
        entryDate: held?.entryDate ?? how.date,
        stopLoss: held?.stopLoss ?? null,
        targetPrice: held?.targetPrice ?? null,
        sector: held ? held.sector : (sectors.get(symbol) ?? null),
        supportAtEntry: held?.supportAtEntry ?? null,
      });
    }
    await store.updateBookHeader(tx, locked.id, { cash: fromCents(book.cash), version: how.version, updatedAt: how.recordedAt });
    return rows.map(tradeRecord);
  }

  // -------------------------------------------------------------------------------------------------------
  // Rebalance
  // -------------------------------------------------------------------------------------------------------

  /**
   * The orders that move the caller's book to the optimizer's target; with `apply` they are recorded as
   * trades in one transaction (version +1 once). Without apply nothing is written (no precondition,
   * no Idempotency-Key record).
   */
  async rebalance(principal: Principal, id: string, body: unknown, options: BookUpdateOptions & { apply: boolean }): Promise<BookOutcome<RebalanceResponse>> {
    const partnerId = requirePartner(principal, 'rebalancing a book').partnerId;
    const bookId = portfolioIdOf(id);
    let header = await store.findBookHeader(this.db, partnerId, bookId);
    if (!header) throw portfolioNotFound(id);
    const key = idempotencyKey(options.idempotencyKey);
    const problems: ErrorDetail[] = key.problem ? [key.problem] : [];
    const pre = this.precondition(options, problems);
    const valid: RebalanceBody = validateRebalanceBody(body ?? {}, options.naming, problems);
    const requestHash = sha256(canonicalJson({ kind: 'rebalance', body: valid }));
    const idemKey = options.apply ? key.value : null;

    for (let attempt = 0; ; attempt++) {
      const plan = await this.plan(header, valid);
      if (!options.apply) return { response: plan, replayed: false };
      const versionAfter = (o: BookOutcome<RebalanceResponse> | BookMoved) => (o instanceof BookMoved || o.replayed ? null : o.response.version_after);
      const outcome = await this.writeBook(partnerId, bookId, versionAfter, async (tx): Promise<BookOutcome<RebalanceResponse> | BookMoved> => {
        const locked = await store.lockBookHeader(tx, partnerId, bookId);
        if (!locked) throw portfolioNotFound(id);
        if (idemKey !== null) {
          const prior = await store.findBookRequest(tx, bookId, idemKey);
          if (prior) return replayOf<RebalanceResponse>(prior, requestHash, 'rebalance');
        }
        this.checkPrecondition(pre, locked.version, options);
        if (locked.version !== plan.version) return new BookMoved(locked.version);
        const recordedAt = this.now().toISOString();
        const changes = plan.orders.length > 0;
        const version = changes ? locked.version + 1 : locked.version;
        const trades = await this.record(
          tx,
          locked,
          plan.orders.map((o) => ({ symbol: o.symbol, side: o.side, shares: o.shares, price: toCents(o.price), value: toCents(o.value), priceSource: o.price_source })),
          { date: this.today(), version, origin: 'rebalance', recordedAt, traceId: options.traceId },
        );
        const response: RebalanceResponse = { ...plan, applied: true, version_after: version, trades };
        if (idemKey !== null) await store.insertBookRequest(tx, bookId, { key: idemKey, requestHash, responseText: JSON.stringify(response), createdAt: recordedAt });
        return { response, replayed: false };
      });
      if (!(outcome instanceof BookMoved)) return outcome;
      // A trade landed between the plan and the lock: plan again on the book as it is now.
      if (attempt >= 2) {
        throw new AppError('PRECONDITION_FAILED', `The book kept changing while the rebalance was planned; it is at version ${outcome.version}; retry`, [
          { field: options.naming === 'graphql' ? 'expectedVersion' : 'If-Match', message: `the book is at version ${outcome.version}` },
        ]);
      }
      header = await store.findBookHeader(this.db, partnerId, bookId);
      if (!header) throw portfolioNotFound(id);
    }
  }

  /** The target book and its orders for a book as it is now (nothing written). */
  private async plan(header: store.BookHeader, body: RebalanceBody): Promise<RebalanceResponse> {
    const holdings = await store.listHoldings(this.db, header.id);
    const closes = await latestCloses(this.db, holdings.map((h) => h.symbol));
    const notes: string[] = [];
    const prices = new Map<string, number>();
    /** Holdings with no close: valued and traded at their average cost (their orders say 'cost'). */
    const atCost = new Set<string>();
    for (const h of holdings) {
      const close = closes.get(h.symbol);
      if (close) prices.set(h.symbol, closeCents(close.close));
      else {
        prices.set(h.symbol, Math.max(1, Math.round(toCents(h.costTotal) / h.shares)));
        atCost.add(h.symbol);
        notes.push(`${h.symbol}: no close stored, so it is valued and traded at its cost basis`);
      }
    }
    const ledger = ledgerOf(header.cash, holdings);
    const valued = valueBook(ledger, prices);
    const total = valued.total;
    // The capital the optimizer is given must be one an optimize may ask for; so every value and cash
    // figure of the plan (each at most the total) stays within it.
    if (total > LEDGER_MAX_CENTS) {
      throw invalid([
        { field: 'total_value', message: `the book is worth more than ${MAX_TOTAL_CAPITAL} at the latest closes, more than a rebalance can plan for (MAX_TOTAL_CAPITAL)` },
      ]);
    }

    const stored = storedBookSettings(header.effectiveSettings);
    const given = Object.fromEntries(Object.entries(body.risk_settings ?? {}).filter(([, v]) => v !== undefined && v !== null));
    const riskSettings = effectiveRiskSettings({ ...stored.risk_settings, ...given } as RiskSettings);
    const constraintPack = body.constraint_pack ?? stored.constraint_pack;
    const prior: Record<string, number> = {};
    for (const p of valued.positions) if (p.value > 0 && total > 0) prior[p.symbol] = p.value / total;

    const universe = await this.universes.get();
    const result = await optimizeOn(this.universes, universe, {
      total_capital: fromCents(total),
      risk_settings: riskSettings,
      constraint_pack: constraintPack,
      prior_book_weights: Object.keys(prior).length ? prior : null,
    });
    let allocations = result.allocations.filter((a) => a.shares > 0);
    if (allocations.length > riskSettings.max_positions) {
      notes.push(`max_positions: kept the ${riskSettings.max_positions} best-ranked names of ${allocations.length}`);
      allocations = allocations.slice(0, riskSettings.max_positions);
    }
    const newSymbols = allocations.map((a) => a.symbol).filter((s) => !prices.has(s));
    const newCloses = await latestCloses(this.db, newSymbols);
    for (const a of allocations) {
      if (prices.has(a.symbol)) continue;
      const close = newCloses.get(a.symbol);
      prices.set(a.symbol, close ? closeCents(close.close) : Math.max(1, toCents(a.entry_price)));
    }
    const current = new Map(holdings.map((h) => [h.symbol, h.shares]));
    const target = new Map(allocations.map((a) => [a.symbol, a.shares]));
    const orders = rebalanceOrders(current, target, prices, ledger.cash);
    for (const t of orders.trimmed) {
      notes.push(
        t.kept === 0
          ? `cash: no ${t.symbol} bought (wanted ${t.wanted}), so that cash stays at or above 0 at the latest closes`
          : `cash: bought ${t.kept} of ${t.wanted} ${t.symbol}, so that cash stays at or above 0 at the latest closes`,
      );
    }
    const targetRows: RebalanceTarget[] = [...orders.target]
      .map(([symbol, shares]) => {
        const price = prices.get(symbol) as number;
        return { symbol, shares, current_shares: current.get(symbol) ?? 0, price: fromCents(price), value: fromCents(shares * price), weight: total > 0 ? round6((shares * price) / total) : 0 };
      })
      .sort((a, b) => b.value - a.value || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
    return {
      portfolio_id: header.id,
      version: header.version,
      applied: false,
      version_after: null,
      total_value: fromCents(total),
      cash_before: fromCents(ledger.cash),
      cash_after: fromCents(orders.cashAfter),
      sell_value: fromCents(orders.sellValue),
      buy_value: fromCents(orders.buyValue),
      turnover: total > 0 ? round6((orders.sellValue + orders.buyValue) / (2 * total)) : 0,
      orders: orders.orders.map((o) => ({
        symbol: o.symbol,
        side: o.side,
        shares: o.shares,
        price: fromCents(o.price),
        value: fromCents(o.value),
        price_source: atCost.has(o.symbol) ? ('cost' as const) : ('close' as const),
      })),
      target: targetRows,
      risk_settings: riskSettings,
      constraint_pack: constraintPack,
      optimizer_diagnostics: result.diagnostics,
      analysis_date: universe.analysisDate,
      notes,
      trades: [],
    };
  }
}
