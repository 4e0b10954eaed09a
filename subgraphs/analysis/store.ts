/** SQL for the analysis domain's market-data tables: securities and daily bars. */
import type { Queryable } from '../platform/db.js';
import type { AssetType, Bar, BarSeries, DataSource, GicsSector, SecurityRecord } from './engine/market-types.js';

interface SecurityRow extends Record<string, unknown> {
  symbol: string;
  name: string;
  sector: string | null;
  sub_industry: string | null;
  asset_type: string;
  data_source: string;
}

const toSecurity = (r: SecurityRow): SecurityRecord => ({
  symbol: r.symbol,
  name: r.name,
  sector: r.sector as GicsSector | null,
  subIndustry: r.sub_industry,
  assetType: r.asset_type as AssetType,
  dataSource: r.data_source as DataSource,
});

/** Rows per INSERT: each statement ships column arrays (unnest), the fastest portable bulk path. */
const BAR_CHUNK = 20_000;

export async function upsertSecurities(db: Queryable, securities: readonly SecurityRecord[]): Promise<void> {
  if (securities.length === 0) return;
  await db.query(
    `INSERT INTO securities (symbol, name, sector, sub_industry, asset_type, data_source)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
     ON CONFLICT (symbol) DO UPDATE SET name = EXCLUDED.name, sector = EXCLUDED.sector,
       sub_industry = EXCLUDED.sub_industry, asset_type = EXCLUDED.asset_type,
       data_source = EXCLUDED.data_source, updated_at = now()`,
    [
      securities.map((s) => s.symbol),
      securities.map((s) => s.name),
      securities.map((s) => s.sector),
      securities.map((s) => s.subIndustry),
      securities.map((s) => s.assetType),
      securities.map((s) => s.dataSource),
    ],
  );
}

/** Inserts or replaces bars given in column form (BarSeries) or row form. */
export async function upsertBars(db: Queryable, bars: BarSeries | readonly Bar[]): Promise<number> {
  const n = 'dates' in bars ? bars.dates.length : bars.length;
  for (let start = 0; start < n; start += BAR_CHUNK) {
    const end = Math.min(n, start + BAR_CHUNK);
    const cols = 'dates' in bars ? seriesColumns(bars, start, end) : rowColumns(bars, start, end);
    await db.query(
      `INSERT INTO bars (symbol, date, open, high, low, close, volume)
       SELECT * FROM unnest($1::text[], $2::date[], $3::float8[], $4::float8[], $5::float8[], $6::float8[], $7::int8[])
       ON CONFLICT (symbol, date) DO UPDATE SET open = EXCLUDED.open, high = EXCLUDED.high,
         low = EXCLUDED.low, close = EXCLUDED.close, volume = EXCLUDED.volume`,
      cols,
    );
  }
  return n;
}

function seriesColumns(s: BarSeries, start: number, end: number): unknown[] {
  const slice = (a: Float64Array) => Array.from(a.subarray(start, end));
  return [
    new Array<string>(end - start).fill(s.symbol),
    s.dates.slice(start, end),
    slice(s.open),
    slice(s.high),
    slice(s.low),
    slice(s.close),
    slice(s.volume).map(Math.round),
  ];
}

function rowColumns(rows: readonly Bar[], start: number, end: number): unknown[] {
  const part = rows.slice(start, end);
  return [
    part.map((b) => b.symbol),
    part.map((b) => b.date),
    part.map((b) => b.open),
    part.map((b) => b.high),
    part.map((b) => b.low),
    part.map((b) => b.close),
    part.map((b) => Math.round(b.volume)),
  ];
}

export async function countSecurities(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM securities');
  return row.n;
}

export async function findSecurity(db: Queryable, symbol: string): Promise<SecurityRecord | null> {
  const rows = await db.query<SecurityRow>('SELECT * FROM securities WHERE symbol = $1', [symbol]);
  return rows.length ? toSecurity(rows[0]) : null;
}

export async function findSecurities(db: Queryable, symbols: readonly string[]): Promise<SecurityRecord[]> {
  const rows = await db.query<SecurityRow>('SELECT * FROM securities WHERE symbol = ANY($1::text[])', [symbols]);
  return rows.map(toSecurity);
}

/** Securities in symbol order after `after`, optionally of one sector. */
export async function listSecurities(
  db: Queryable,
  options: { sector?: string; after?: string; limit: number },
): Promise<{ items: SecurityRecord[]; total: number }> {
  const inSector = '($1::text IS NULL OR sector = $1)';
  const items = await db.query<SecurityRow>(
    `SELECT * FROM securities WHERE ${inSector} AND ($2::text IS NULL OR symbol > $2) ORDER BY symbol LIMIT $3`,
    [options.sector ?? null, options.after ?? null, options.limit],
  );
  const [count] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM securities WHERE ${inSector}`, [options.sector ?? null]);
  return { items: items.map(toSecurity), total: count.n };
}

/** Bars of one symbol in date order within [from, to], after the cursor date, at most `limit`. */
export async function listBars(
  db: Queryable,
  symbol: string,
  options: { from?: string; to?: string; after?: string; limit: number },
): Promise<{ items: Bar[]; total: number }> {
  const params = [symbol, options.from ?? null, options.to ?? null];
  const range = 'symbol = $1 AND ($2::date IS NULL OR date >= $2::date) AND ($3::date IS NULL OR date <= $3::date)';
  const items = await db.query<Bar>(
    `SELECT symbol, date, open, high, low, close, volume FROM bars
     WHERE ${range} AND ($4::date IS NULL OR date > $4::date) ORDER BY date LIMIT $5`,
    [...params, options.after ?? null, options.limit],
  );
  const [count] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM bars WHERE ${range}`, params);
  return { items, total: count.n };
}

export async function barDateRange(db: Queryable, symbol: string): Promise<{ first: string | null; last: string | null; count: number }> {
  const [row] = await db.query<{ first: string | null; last: string | null; count: number }>(
    'SELECT min(date) AS first, max(date) AS last, count(*)::int AS count FROM bars WHERE symbol = $1',
    [symbol],
  );
  return row;
}
