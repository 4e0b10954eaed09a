/** SQL of the allocation domain: persisted portfolios and their positions (see migrations.ts). */
import type { Queryable } from '../platform/db.js';

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
}

export interface PositionRecord {
  rank: number;
  symbol: string;
  sector: string | null;
  shares: number;
  entryPrice: number;
  stopLoss: number;
  targetPrice: number | null;
  positionValue: number;
  riskAmount: number;
  weight: number;
  /** Highest support level below the entry when the book was built (null when there is none). */
  supportAtEntry: number | null;
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
 * Writes a portfolio and its positions; call it inside a transaction. With an idempotency key already
 * used by the partner nothing is written and false is returned (the caller reads the first result).
 */
export async function insertPortfolio(tx: Queryable, p: PortfolioRecord, positions: readonly PositionRecord[]): Promise<boolean> {
  const inserted = await tx.query<{ id: string }>(
    `INSERT INTO portfolios (id, partner_id, name, currency, total_capital, allocated_capital, remaining_capital, position_count,
                             analysis_date, created_at, trace_id, idempotency_key, request_hash, request, effective_settings, response)
     VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9::date, $10::timestamptz, $11, $12, $13, $14::jsonb, $15::jsonb, $16::json)
     ON CONFLICT (partner_id, idempotency_key) DO NOTHING
     RETURNING id::text AS id`,
    [
      p.id, p.partnerId, p.name, p.currency, p.totalCapital, p.allocatedCapital, p.remainingCapital, p.positionCount,
      p.analysisDate, p.createdAt, p.traceId, p.idempotencyKey, p.requestHash, JSON.stringify(p.request), JSON.stringify(p.effectiveSettings), p.responseText,
    ],
  );
  if (inserted.length === 0) return false;
  if (positions.length) {
    const params: unknown[] = [p.id];
    const tuples = positions.map((x) => {
      const at = params.length;
      params.push(x.rank, x.symbol, x.sector, x.shares, x.entryPrice, x.stopLoss, x.targetPrice, x.positionValue, x.riskAmount, x.weight, x.supportAtEntry);
      return `($1::uuid, ${Array.from({ length: 11 }, (_, i) => `$${at + i + 1}`).join(', ')})`;
    });
    await tx.query(
      `INSERT INTO portfolio_positions (portfolio_id, rank, symbol, sector, shares, entry_price, stop_loss, target_price, position_value, risk_amount, weight, support_at_entry)
       VALUES ${tuples.join(', ')}`,
      params,
    );
  }
  return true;
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

/** A stored portfolio as opportunity search reads it: the figures and settings it was built with, and its positions. */
export interface PortfolioHoldings {
  id: string;
  /** The owner: the `sub` of the partner token that optimized it. */
  partnerId: string;
  name: string;
  totalCapital: number;
  remainingCapital: number;
  analysisDate: string | null;
  /** The effective settings as stored ({risk_settings, constraint_pack, preset_key, source}). */
  effectiveSettings: unknown;
  positions: Array<Omit<PositionRecord, 'rank' | 'positionValue' | 'riskAmount' | 'weight'>>;
}

/**
 * The portfolio with that id and its positions in rank order, or null. The caller checks the owner
 * (`partnerId`): a stored portfolio never changes, so search keeps what it read.
 */
export async function findPortfolioHoldings(db: Queryable, id: string): Promise<PortfolioHoldings | null> {
  const rows = await db.query<{
    id: string; partner_id: string; name: string; total_capital: number; remaining_capital: number; analysis_date: string | null;
    effective_settings: string; positions: string;
  }>(
    `SELECT p.id::text AS id, p.partner_id, p.name, p.total_capital::float8 AS total_capital, p.remaining_capital::float8 AS remaining_capital,
            p.analysis_date, p.effective_settings::text AS effective_settings,
            COALESCE((SELECT json_agg(json_build_object(
                        'symbol', x.symbol, 'sector', x.sector, 'shares', x.shares, 'entryPrice', x.entry_price::float8,
                        'stopLoss', x.stop_loss::float8, 'targetPrice', x.target_price::float8, 'supportAtEntry', x.support_at_entry::float8)
                        ORDER BY x.rank)
                      FROM portfolio_positions x WHERE x.portfolio_id = p.id), '[]')::text AS positions
       FROM portfolios p
      WHERE p.id = $1::uuid`,
    [id],
  );
  if (rows.length === 0) return null;
  const r = rows[0];
  return {
    id: r.id,
    partnerId: r.partner_id,
    name: r.name,
    totalCapital: r.total_capital,
    remainingCapital: r.remaining_capital,
    analysisDate: r.analysis_date,
    effectiveSettings: JSON.parse(r.effective_settings) as unknown,
    positions: JSON.parse(r.positions) as PortfolioHoldings['positions'],
  };
}
