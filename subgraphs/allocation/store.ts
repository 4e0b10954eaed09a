/**
 * SQL of the allocation domain (see migrations.ts): portfolios (books) with their holdings, trade log
 * and idempotent trade requests. Amounts cross this module as decimals of whole cents (numeric(16,2)
 * read back as numbers); the service does its arithmetic in integer cents.
 */
import type { DatedClose } from '../analysis/store.js';
import { toIso, type Queryable } from '../platform/db.js';
import type { TradePriceSource } from './book-types.js';
import { costBasisOf } from './engine/ledger.js';

export interface PortfolioRecord {
  id: string;
  partnerId: string;
  name: string;
  currency: string;
  totalCapital: number;
  allocatedCapital: number;
  remainingCapital: number;
  positionCount: number;
  analysisDate: string | null;
  createdAt: string;
  traceId: string;
  idempotencyKey: string | null;
  requestHash: string;
  request: unknown;
  effectiveSettings: unknown;
  /** The response as served, JSON text. */
  responseText: string;
  /** The book's cash (default: remainingCapital). */
  cash?: number;
  /** How the book came to be (default 'optimize'). */
  source?: 'optimize' | 'holdings' | 'import';
}

/** A stored portfolio as read back (the response stays text). */
export interface StoredPortfolio {
  id: string;
  createdAt: string;
  requestHash: string;
  responseText: string;
}

interface StoredRow {
  id: string;
  created_at: string;
  request_hash: string;
  response: string;
}

const toStored = (r: StoredRow): StoredPortfolio => ({
  id: r.id,
  createdAt: r.created_at,
  requestHash: r.request_hash,
  responseText: r.response,
});

const COLUMNS = 'id::text AS id, created_at, request_hash, response::text AS response';

/**
 * Writes a portfolio at version 1 with its holdings; call it inside a transaction. With an
 * idempotency key already used by the partner nothing is written and false is returned (the caller
 * reads the first result).
 */
export async function insertPortfolio(tx: Queryable, p: PortfolioRecord, holdings: readonly HoldingRecord[]): Promise<boolean> {
  const inserted = await tx.query<{ id: string }>(
    `INSERT INTO portfolios (id, partner_id, name, currency, total_capital, allocated_capital, remaining_capital, position_count,
                             analysis_date, created_at, trace_id, idempotency_key, request_hash, request, effective_settings, response,
                             cash, version, source, updated_at)
     VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9::date, $10::timestamptz, $11, $12, $13, $14::jsonb, $15::jsonb, $16::json, $17, 1, $18, $10::timestamptz)
     ON CONFLICT (partner_id, idempotency_key) DO NOTHING
     RETURNING id::text AS id`,
    [
      p.id, p.partnerId, p.name, p.currency, p.totalCapital, p.allocatedCapital, p.remainingCapital, p.positionCount,
      p.analysisDate, p.createdAt, p.traceId, p.idempotencyKey, p.requestHash, JSON.stringify(p.request), JSON.stringify(p.effectiveSettings), p.responseText,
      p.cash ?? p.remainingCapital, p.source ?? 'optimize',
    ],
  );
  if (inserted.length === 0) return false;
  await insertHoldings(tx, p.id, holdings);
  return true;
}

/** One row of `portfolio_holdings`. */
export interface HoldingRecord {
  symbol: string;
  /** Order of the book: optimize rank, input order, then appended by buys. */
  position: number;
  shares: number;
  /** What the shares cost in all (whole cents, as a decimal). */
  costTotal: number;
  entryDate: string;
  stopLoss: number | null;
  targetPrice: number | null;
  sector: string | null;
  supportAtEntry: number | null;
}

/** Adds holdings to a book (call inside a transaction). */
export async function insertHoldings(tx: Queryable, portfolioId: string, holdings: readonly HoldingRecord[]): Promise<void> {
  if (holdings.length === 0) return;
  const params: unknown[] = [portfolioId];
  const tuples = holdings.map((h) => {
    const at = params.length;
    params.push(h.symbol, h.position, h.shares, h.costTotal, h.entryDate, h.stopLoss, h.targetPrice, h.sector, h.supportAtEntry);
    const p = (i: number) => `$${at + i}`;
    return `($1::uuid, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}::date, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)})`;
  });
  await tx.query(
    `INSERT INTO portfolio_holdings (portfolio_id, symbol, position, shares, cost_total, entry_date, stop_loss, target_price, sector, support_at_entry)
     VALUES ${tuples.join(', ')}`,
    params,
  );
}

/** Sets a holding's shares and cost, adding the row when the book has none of that symbol. */
export async function upsertHolding(tx: Queryable, portfolioId: string, h: HoldingRecord): Promise<void> {
  await tx.query(
    `INSERT INTO portfolio_holdings (portfolio_id, symbol, position, shares, cost_total, entry_date, stop_loss, target_price, sector, support_at_entry)
     VALUES ($1::uuid, $2, $3, $4, $5, $6::date, $7, $8, $9, $10)
     ON CONFLICT (portfolio_id, symbol) DO UPDATE SET shares = EXCLUDED.shares, cost_total = EXCLUDED.cost_total`,
    [portfolioId, h.symbol, h.position, h.shares, h.costTotal, h.entryDate, h.stopLoss, h.targetPrice, h.sector, h.supportAtEntry],
  );
}

export async function deleteHolding(tx: Queryable, portfolioId: string, symbol: string): Promise<void> {
  await tx.query('DELETE FROM portfolio_holdings WHERE portfolio_id = $1::uuid AND symbol = $2', [portfolioId, symbol]);
}

/** A book's holdings in book order (position). */
export async function listHoldings(db: Queryable, portfolioId: string): Promise<HoldingRecord[]> {
  return db.query<HoldingRecord>(
    `SELECT symbol, position, shares, cost_total::float8 AS "costTotal", entry_date::text AS "entryDate", stop_loss::float8 AS "stopLoss",
            target_price::float8 AS "targetPrice", sector, support_at_entry::float8 AS "supportAtEntry"
       FROM portfolio_holdings WHERE portfolio_id = $1::uuid ORDER BY position, symbol`,
    [portfolioId],
  );
}

/** A book's header: what every book read and write starts from. */
export interface BookHeader {
  id: string;
  partnerId: string;
  name: string;
  currency: string;
  source: 'optimize' | 'holdings' | 'import';
  version: number;
  cash: number;
  createdAt: string;
  updatedAt: string;
  analysisDate: string | null;
  /** {risk_settings, constraint_pack, preset_key, source} as stored. */
  effectiveSettings: unknown;
}

const HEADER_COLUMNS = `id::text AS id, partner_id AS "partnerId", name, currency, source, version, cash::float8 AS cash, created_at AS "createdAt",
  updated_at AS "updatedAt", analysis_date::text AS "analysisDate", effective_settings::text AS settings`;

type HeaderRow = Omit<BookHeader, 'effectiveSettings'> & { settings: string };
const toHeader = ({ settings, ...r }: HeaderRow): BookHeader => ({ ...r, version: Number(r.version), effectiveSettings: JSON.parse(settings) as unknown });

/** The partner's book header, or null (another partner's book is null too). */
export async function findBookHeader(db: Queryable, partnerId: string, id: string): Promise<BookHeader | null> {
  const rows = await db.query<HeaderRow>(`SELECT ${HEADER_COLUMNS} FROM portfolios WHERE id = $1::uuid AND partner_id = $2`, [id, partnerId]);
  return rows.length ? toHeader(rows[0]) : null;
}

/** The same, with the row locked until the transaction ends (SELECT ... FOR UPDATE): every write to a book starts here. */
export async function lockBookHeader(tx: Queryable, partnerId: string, id: string): Promise<BookHeader | null> {
  const rows = await tx.query<HeaderRow>(`SELECT ${HEADER_COLUMNS} FROM portfolios WHERE id = $1::uuid AND partner_id = $2 FOR UPDATE`, [id, partnerId]);
  return rows.length ? toHeader(rows[0]) : null;
}

/** Sets a book's cash and version after a change. */
export async function updateBookHeader(tx: Queryable, id: string, change: { cash: number; version: number; updatedAt: string }): Promise<void> {
  await tx.query('UPDATE portfolios SET cash = $2, version = $3, updated_at = $4::timestamptz WHERE id = $1::uuid', [id, change.cash, change.version, change.updatedAt]);
}

/**
 * What a book's valuation reads beyond the book itself, as text: the newest bar of each holding's symbol
 * (date and close as the store prints them, NULL without one), in symbol order; one index probe of bars
 * (symbol, date) per holding. The same text at the same version: the same book, valued at the same
 * closes. One definition for both statements below (on the book's row `p`), so they always agree.
 */
const CLOSES_STAMP = `ARRAY(SELECT (SELECT b.date::text || '=' || b.close::text FROM bars b WHERE b.symbol = x.symbol ORDER BY b.date DESC LIMIT 1)
                       FROM portfolio_holdings x WHERE x.portfolio_id = p.id ORDER BY x.symbol)::text`;

/** A book as its read answers it: header, holdings, their latest closes and page 1 of the trade log. */
export interface StoredBook {
  header: BookHeader;
  /** In book order (position, symbol). */
  holdings: HoldingRecord[];
  /** The newest bar of each held symbol that has one. */
  closes: Map<string, DatedClose>;
  /** The first `limit` trades, newest first; the log's size and realised P&L in all. */
  trades: { items: TradeRow[]; total: number; realisedPnl: number };
  /** The closes the valuation reads, as bookStamp states them. */
  closesStamp: string;
}

/** A book's version and the closes it is valued at (bookStamp): unchanged, so is the book's read. */
export interface BookStamp {
  version: number;
  closesStamp: string;
}

/** A holding as findBook's statement writes it: the record and its symbol's newest bar. */
type HoldingJson = HoldingRecord & { barDate: string | null; barClose: number | null };

/**
 * The partner's book with its holdings, their latest closes and its newest `tradesLimit` trades, in one
 * statement (so one snapshot of the store), or null (another partner's book is null too). The same rows,
 * in the same order and types, as findBookHeader, listHoldings, analysis latestCloses and listTrades
 * (offset 0) read one by one.
 */
export async function findBook(db: Queryable, partnerId: string, id: string, tradesLimit: number): Promise<StoredBook | null> {
  const rows = await db.query<HeaderRow & { holdings: string; trades: string; trade_count: number; realised: number; stamp: string }>(
    `SELECT ${HEADER_COLUMNS},
            COALESCE((SELECT json_agg(json_build_object(
                        'symbol', x.symbol, 'position', x.position, 'shares', x.shares, 'costTotal', x.cost_total::float8,
                        'entryDate', x.entry_date::text, 'stopLoss', x.stop_loss::float8, 'targetPrice', x.target_price::float8,
                        'sector', x.sector, 'supportAtEntry', x.support_at_entry::float8, 'barDate', b.date::text, 'barClose', b.close)
                        ORDER BY x.position, x.symbol)
                        FROM portfolio_holdings x
                        LEFT JOIN LATERAL (SELECT bars.date, bars.close FROM bars WHERE bars.symbol = x.symbol ORDER BY bars.date DESC LIMIT 1) b ON true
                       WHERE x.portfolio_id = p.id), '[]')::text AS holdings,
            COALESCE((SELECT json_agg(json_build_object(
                        'id', t.id::text, 'seq', t.seq, 'symbol', t.symbol, 'side', t.side, 'shares', t.shares, 'price', t.price::float8,
                        'priceSource', t.price_source, 'tradeDate', t.trade_date::text, 'realisedPnl', t.realised_pnl::float8,
                        'cashAfter', t.cash_after::float8, 'version', t.version, 'origin', t.origin, 'recordedAt', t.recorded_at::text,
                        'traceId', t.trace_id)
                        ORDER BY t.seq DESC)
                        FROM (SELECT * FROM portfolio_trades WHERE portfolio_id = p.id ORDER BY seq DESC LIMIT $3) t), '[]')::text AS trades,
            (SELECT count(*)::int FROM portfolio_trades WHERE portfolio_id = p.id) AS trade_count,
            (SELECT COALESCE(sum(realised_pnl), 0)::float8 FROM portfolio_trades WHERE portfolio_id = p.id) AS realised,
            ${CLOSES_STAMP} AS stamp
       FROM portfolios p WHERE p.id = $1::uuid AND p.partner_id = $2`,
    [id, partnerId, tradesLimit],
  );
  if (rows.length === 0) return null;
  const { holdings, trades, trade_count: total, realised, stamp, ...header } = rows[0];
  const closes = new Map<string, DatedClose>();
  const records = (JSON.parse(holdings) as HoldingJson[]).map(({ barDate, barClose, ...h }): HoldingRecord => {
    if (barDate !== null && barClose !== null) closes.set(h.symbol, { date: barDate, close: Number(barClose) });
    return h;
  });
  const items = (JSON.parse(trades) as TradeRow[]).map((t): TradeRow => ({ ...t, version: Number(t.version), recordedAt: toIso(t.recordedAt) }));
  return { header: toHeader(header), holdings: records, closes, trades: { items, total, realisedPnl: realised }, closesStamp: stamp };
}

/** The partner's book's version and closes stamp (as findBook reads them), or null: one primary-key read and an index probe per holding. */
export async function bookStamp(db: Queryable, partnerId: string, id: string): Promise<BookStamp | null> {
  const rows = await db.query<{ version: number; stamp: string }>(
    `SELECT p.version, ${CLOSES_STAMP} AS stamp FROM portfolios p WHERE p.id = $1::uuid AND p.partner_id = $2`,
    [id, partnerId],
  );
  return rows.length ? { version: Number(rows[0].version), closesStamp: rows[0].stamp } : null;
}

/** The stored optimize response of the partner's book, or null when it is not theirs or not an optimize book. */
export async function findOptimizeResponse(db: Queryable, partnerId: string, id: string): Promise<string | null> {
  const rows = await db.query<{ response: string }>(
    `SELECT response::text AS response FROM portfolios WHERE id = $1::uuid AND partner_id = $2 AND source = 'optimize'`,
    [id, partnerId],
  );
  return rows.length ? rows[0].response : null;
}

/** One row of `portfolio_trades`. */
export interface TradeRow {
  id: string;
  seq: number;
  symbol: string;
  side: 'BUY' | 'SELL';
  shares: number;
  price: number;
  priceSource: TradePriceSource;
  tradeDate: string;
  realisedPnl: number | null;
  cashAfter: number;
  version: number;
  origin: 'trade' | 'rebalance';
  recordedAt: string;
  traceId: string;
}

/** The book's next trade number. */
export async function nextTradeSeq(tx: Queryable, portfolioId: string): Promise<number> {
  const [r] = await tx.query<{ n: number }>('SELECT COALESCE(max(seq), 0)::int + 1 AS n FROM portfolio_trades WHERE portfolio_id = $1::uuid', [portfolioId]);
  return r.n;
}

export async function insertTrades(tx: Queryable, portfolioId: string, trades: readonly TradeRow[]): Promise<void> {
  for (const t of trades) {
    await tx.query(
      `INSERT INTO portfolio_trades (id, portfolio_id, seq, symbol, side, shares, price, price_source, trade_date, realised_pnl, cash_after, version, origin, recorded_at, trace_id)
       VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, $7, $8, $9::date, $10, $11, $12, $13, $14::timestamptz, $15)`,
      [t.id, portfolioId, t.seq, t.symbol, t.side, t.shares, t.price, t.priceSource, t.tradeDate, t.realisedPnl, t.cashAfter, t.version, t.origin, t.recordedAt, t.traceId],
    );
  }
}

/** A page of the book's trade log, newest first; the log's size and its realised P&L in all. */
export async function listTrades(
  db: Queryable,
  portfolioId: string,
  options: { offset: number; limit: number },
): Promise<{ items: TradeRow[]; total: number; realisedPnl: number }> {
  const items = await db.query<TradeRow>(
    `SELECT id::text AS id, seq, symbol, side, shares, price::float8 AS price, price_source AS "priceSource", trade_date::text AS "tradeDate",
            realised_pnl::float8 AS "realisedPnl", cash_after::float8 AS "cashAfter", version, origin, recorded_at AS "recordedAt", trace_id AS "traceId"
       FROM portfolio_trades WHERE portfolio_id = $1::uuid ORDER BY seq DESC OFFSET $2 LIMIT $3`,
    [portfolioId, options.offset, options.limit],
  );
  const [count] = await db.query<{ n: number; realised: number }>(
    'SELECT count(*)::int AS n, COALESCE(sum(realised_pnl), 0)::float8 AS realised FROM portfolio_trades WHERE portfolio_id = $1::uuid',
    [portfolioId],
  );
  return { items: items.map((t) => ({ ...t, version: Number(t.version) })), total: count.n, realisedPnl: count.realised };
}

/** The answer recorded for a book's Idempotency-Key (a trade or an applied rebalance), or null. */
export async function findBookRequest(tx: Queryable, portfolioId: string, key: string): Promise<{ requestHash: string; responseText: string } | null> {
  const rows = await tx.query<{ request_hash: string; response: string }>(
    'SELECT request_hash, response::text AS response FROM portfolio_requests WHERE portfolio_id = $1::uuid AND idempotency_key = $2',
    [portfolioId, key],
  );
  return rows.length ? { requestHash: rows[0].request_hash, responseText: rows[0].response } : null;
}

export async function insertBookRequest(tx: Queryable, portfolioId: string, r: { key: string; requestHash: string; responseText: string; createdAt: string }): Promise<void> {
  await tx.query(
    'INSERT INTO portfolio_requests (portfolio_id, idempotency_key, request_hash, response, created_at) VALUES ($1::uuid, $2, $3, $4::json, $5::timestamptz)',
    [portfolioId, r.key, r.requestHash, r.responseText, r.createdAt],
  );
}

/** The partner's portfolio with that id, or null (someone else's portfolio is null too). */
export async function findPortfolio(db: Queryable, partnerId: string, id: string): Promise<StoredPortfolio | null> {
  const rows = await db.query<StoredRow>(`SELECT ${COLUMNS} FROM portfolios WHERE id = $1::uuid AND partner_id = $2`, [id, partnerId]);
  return rows.length ? toStored(rows[0]) : null;
}

export async function findByIdempotencyKey(db: Queryable, partnerId: string, key: string): Promise<StoredPortfolio | null> {
  const rows = await db.query<StoredRow>(`SELECT ${COLUMNS} FROM portfolios WHERE partner_id = $1 AND idempotency_key = $2`, [partnerId, key]);
  return rows.length ? toStored(rows[0]) : null;
}

/** A keyset position in a partner's list: newest first, ties by id. */
export interface PortfolioCursor {
  createdAt: string;
  id: string;
}

/** The partner's portfolios, newest first, after the cursor, at most `limit`; and how many there are. */
export async function listPortfolios(
  db: Queryable,
  partnerId: string,
  options: { after?: PortfolioCursor; limit: number },
): Promise<{ items: StoredPortfolio[]; total: number }> {
  const items = await db.query<StoredRow>(
    `SELECT ${COLUMNS} FROM portfolios
      WHERE partner_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::uuid))
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [partnerId, options.after?.createdAt ?? null, options.after?.id ?? null, options.limit],
  );
  const [count] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolios WHERE partner_id = $1', [partnerId]);
  return { items: items.map(toStored), total: count.n };
}

/** A book as opportunity search reads it: its cash, holdings and settings now, and its version. */
export interface PortfolioHoldings {
  id: string;
  /** The owner: the `sub` of the partner token that created it. */
  partnerId: string;
  name: string;
  /** The book's version: what it holds changes only with it. */
  version: number;
  /** Cash now. */
  cash: number;
  /** The optimize result's analysis date (null for created and imported books). */
  analysisDate: string | null;
  /** The effective settings as stored ({risk_settings, constraint_pack, preset_key, source}). */
  effectiveSettings: unknown;
  /**
   * Holdings in book order. entryPrice: the average cost per share, cost_total / shares to 4 decimals
   * (the book's `cost_basis`); stopLoss and targetPrice are null where the book has none;
   * price/priceDate: the latest close, rounded to the cent (null without one). The book is valued
   * (market values, totals, weights) by engine/ledger.ts valueBook only, not here.
   */
  positions: Array<Omit<HoldingRecord, 'position'> & { entryPrice: number; price: number | null; priceDate: string | null }>;
}

/**
 * The book with that id as it is now, or null. The caller checks the owner (`partnerId`) and keys what
 * it keeps by `version` (portfolioVersion reads just that).
 */
export async function findPortfolioHoldings(db: Queryable, id: string): Promise<PortfolioHoldings | null> {
  const rows = await db.query<{
    id: string; partner_id: string; name: string; version: number; cash: number; analysis_date: string | null; effective_settings: string; positions: string;
  }>(
    `SELECT p.id::text AS id, p.partner_id, p.name, p.version, p.cash::float8 AS cash, p.analysis_date::text AS analysis_date,
            p.effective_settings::text AS effective_settings,
            COALESCE((SELECT json_agg(json_build_object(
                        'symbol', x.symbol, 'sector', x.sector, 'shares', x.shares, 'costTotal', x.cost_total::float8,
                        'entryDate', x.entry_date::text, 'stopLoss', x.stop_loss::float8, 'targetPrice', x.target_price::float8,
                        'supportAtEntry', x.support_at_entry::float8, 'price', b.close, 'priceDate', b.date::text)
                        ORDER BY x.position, x.symbol)
                      FROM portfolio_holdings x
                      LEFT JOIN LATERAL (SELECT date, close FROM bars WHERE bars.symbol = x.symbol ORDER BY date DESC LIMIT 1) b ON true
                     WHERE x.portfolio_id = p.id), '[]')::text AS positions
       FROM portfolios p
      WHERE p.id = $1::uuid`,
    [id],
  );
  if (rows.length === 0) return null;
  const r = rows[0];
  type Raw = Omit<PortfolioHoldings['positions'][number], 'entryPrice'>;
  const raw = JSON.parse(r.positions) as Raw[];
  const positions = raw.map((x) => ({
    ...x,
    price: x.price === null ? null : Math.round(x.price * 100) / 100,
    entryPrice: costBasisOf(Math.round(x.costTotal * 100), x.shares),
  }));
  return {
    id: r.id,
    partnerId: r.partner_id,
    name: r.name,
    version: Number(r.version),
    cash: r.cash,
    analysisDate: r.analysis_date,
    effectiveSettings: JSON.parse(r.effective_settings) as unknown,
    positions,
  };
}

/** A book's owner and version (one primary-key read), or null. */
export async function portfolioVersion(db: Queryable, id: string): Promise<{ partnerId: string; version: number } | null> {
  const rows = await db.query<{ partner_id: string; version: number }>('SELECT partner_id, version FROM portfolios WHERE id = $1::uuid', [id]);
  return rows.length ? { partnerId: rows[0].partner_id, version: Number(rows[0].version) } : null;
}
