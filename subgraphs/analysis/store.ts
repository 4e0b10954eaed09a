/**
 * SQL for the analysis domain's tables: securities and daily bars (market data), the stored analysis
 * snapshots (one JSON document per symbol per date), the log of pipeline runs and the evaluations of
 * the snapshots (evidence_runs).
 *
 * Snapshot reads return the document as raw JSON text, exactly as PostgreSQL prints it as jsonb
 * (`doc::text`): the REST read splices that text into its response without parsing it, and only the
 * readers that need fields (the demo subset, GraphQL) parse it. Documents are stored packed
 * (`doc_packed`, snapshot-codec.ts) and unpacked here; rows written before packing keep their jsonb
 * `doc`, read as before.
 */
import { BinaryCopyWriter, instantMicros } from '../platform/copy-binary.js';
import type { Queryable } from '../platform/db.js';
import type { AnalysisDocument } from './engine/document.js';
import type { AssetType, Bar, BarSeries, DataSource, GicsSector, SecurityRecord } from './engine/market-types.js';
import { decodeSnapshotDoc, encodeSnapshotDoc, jsonbKeyOrder, jsonMembers } from './snapshot-codec.js';

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

/**
 * Before bulk COPYs into `table` in one transaction on the embedded store: when the table holds no row, it
 * is truncated, which gives it a new file in this transaction. The embedded store runs with
 * wal_level=minimal (platform/db.ts), under which PostgreSQL writes no write-ahead log for what is
 * COPYed into a table created or truncated in the same transaction: at commit it writes the table's pages
 * out instead (or, below wal_skip_threshold, logs them then), and an aborted transaction drops the new
 * file (PostgreSQL documentation, "Populating a Database"). The demo market's bars and a first start's
 * snapshots are such loads (30,000 real packed snapshots by COPY: 1.0 s of CPU instead of 1.5-2.0 s). A
 * load killed before its commit leaves no row, but the new file stays on disk (PostgreSQL's crash recovery
 * does not remove files of uncommitted relations): up to the size of the load. Nothing happens when the
 * table has rows, or on PostgreSQL (no copyBinary), whose write-ahead log also serves replicas. Outside a
 * transaction it is refused. Returns whether it truncated.
 */
export async function bulkLoadIntoEmptyTable(db: Queryable, table: 'bars' | 'analysis_snapshots'): Promise<boolean> {
  if (!db.copyBinary) return false;
  // Also the guard that this runs in a transaction (the engine refuses LOCK outside one): the check and
  // the TRUNCATE must see the same table, and only a COPY in the same transaction skips the log.
  await db.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
  const [{ empty }] = await db.query<{ empty: boolean }>(`SELECT NOT EXISTS (SELECT 1 FROM ${table}) AS empty`);
  if (empty) await db.exec(`TRUNCATE ${table}`);
  return empty;
}

/**
 * Inserts the bars of symbols that have none yet, given in column form, many symbols per statement (a bar
 * already stored is an error). Returns the number of bars written.
 *
 * On PostgreSQL: plain INSERTs, which a first load of an empty store takes in about 60% of the time
 * upsertBars' ON CONFLICT path does. On the embedded store: one binary COPY (copy-binary.ts), no number
 * parsed from text; its symbols are first looked up in securities once each, locked as the foreign key
 * would lock them, so the engine's per-row foreign-key check is skipped for the COPY (inside a
 * transaction: session_replication_role, set back right after). For the demo market's 378,756 bars on
 * 2 cores: about 9.5 s as INSERTs, 5.5 s as a COPY with the per-row check, 2.1 s without it.
 */
export async function insertNewBarSeries(db: Queryable, series: readonly BarSeries[]): Promise<number> {
  if (db.copyBinary) {
    let rows = 0;
    for (const s of series) rows += s.dates.length;
    if (rows === 0) return 0;
    const symbols = [...new Set(series.map((s) => s.symbol))];
    const known = new Set(
      (await db.query<{ symbol: string }>('SELECT symbol FROM securities WHERE symbol = ANY($1::text[]) FOR KEY SHARE', [symbols])).map((r) => r.symbol),
    );
    const unknown = symbols.filter((s) => !known.has(s));
    if (unknown.length > 0) throw new Error(`No security for the bars of ${unknown.join(', ')}`);
    const copy = new BinaryCopyWriter(rows * 80);
    for (const s of series) {
      for (let i = 0; i < s.dates.length; i++) {
        copy.row(7).text(s.symbol).date(s.dates[i]).float8(s.open[i]).float8(s.high[i]).float8(s.low[i]).float8(s.close[i]).int8(Math.round(s.volume[i]));
      }
    }
    // The setting as it was is put back after the COPY (a failed COPY fails the transaction, which also
    // ends the setting). It turns off every trigger of bars for the COPY: a test checks that bars has none
    // but the foreign key's.
    const [{ previous }] = await db.query<{ previous: string }>("SELECT current_setting('session_replication_role') AS previous");
    await db.query("SELECT set_config('session_replication_role', 'replica', true)");
    await db.copyBinary('bars (symbol, date, open, high, low, close, volume)', copy.finish());
    await db.query("SELECT set_config('session_replication_role', $1, true)", [previous]);
    return rows;
  }
  let written = 0;
  let part: BarSeries[] = [];
  let rows = 0;
  const flush = async () => {
    if (part.length === 0) return;
    const cols: unknown[][] = [[], [], [], [], [], [], []];
    for (const s of part) {
      const [symbol, dates, open, high, low, close, volume] = cols;
      for (let i = 0; i < s.dates.length; i++) {
        symbol.push(s.symbol);
        dates.push(s.dates[i]);
        open.push(s.open[i]);
        high.push(s.high[i]);
        low.push(s.low[i]);
        close.push(s.close[i]);
        volume.push(Math.round(s.volume[i]));
      }
    }
    await db.query(
      `INSERT INTO bars (symbol, date, open, high, low, close, volume)
       SELECT * FROM unnest($1::text[], $2::date[], $3::float8[], $4::float8[], $5::float8[], $6::float8[], $7::int8[])`,
      cols,
    );
    written += rows;
    part = [];
    rows = 0;
  };
  for (const s of series) {
    part.push(s);
    rows += s.dates.length;
    if (rows >= BAR_CHUNK) await flush();
  }
  await flush();
  return written;
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

/** Every security in symbol order (the pipeline's universe). */
export async function listAllSecurities(db: Queryable): Promise<SecurityRecord[]> {
  const rows = await db.query<SecurityRow>('SELECT * FROM securities ORDER BY symbol');
  return rows.map(toSecurity);
}

/** Every symbol's bars in column form, oldest first, in one statement (the analysis pipeline's input). */
export async function listAllBarSeries(db: Queryable): Promise<Map<string, BarSeries>> {
  const rows = await db.query<{ symbol: string; dates: string[]; open: number[]; high: number[]; low: number[]; close: number[]; volume: number[] }>(
    `SELECT symbol,
            array_agg(date::text ORDER BY date) AS dates,
            array_agg(open ORDER BY date) AS open,
            array_agg(high ORDER BY date) AS high,
            array_agg(low ORDER BY date) AS low,
            array_agg(close ORDER BY date) AS close,
            array_agg(volume::float8 ORDER BY date) AS volume
       FROM bars GROUP BY symbol ORDER BY symbol`,
  );
  const series = new Map<string, BarSeries>();
  for (const r of rows) {
    series.set(r.symbol, {
      symbol: r.symbol,
      dates: r.dates,
      open: Float64Array.from(r.open),
      high: Float64Array.from(r.high),
      low: Float64Array.from(r.low),
      close: Float64Array.from(r.close),
      volume: Float64Array.from(r.volume),
    });
  }
  return series;
}

/** The `days` most recent dates that have bars (any symbol), newest first. */
export async function recentTradingDates(db: Queryable, days: number): Promise<string[]> {
  const rows = await db.query<{ date: string }>('SELECT DISTINCT date FROM bars ORDER BY date DESC LIMIT $1', [days]);
  return rows.map((r) => r.date);
}

export async function barDateRange(db: Queryable, symbol: string): Promise<{ first: string | null; last: string | null; count: number }> {
  const [row] = await db.query<{ first: string | null; last: string | null; count: number }>(
    'SELECT min(date) AS first, max(date) AS last, count(*)::int AS count FROM bars WHERE symbol = $1',
    [symbol],
  );
  return row;
}

// ---------------------------------------------------------------------------------------------------------
// Analysis snapshots
// ---------------------------------------------------------------------------------------------------------

/** One snapshot to store (what the pipeline writes). */
export interface SnapshotRow {
  symbol: string;
  /** YYYY-MM-DD */
  analysisDate: string;
  /**
   * The document, its JSON text (e.g. serialised by a worker thread; it must parse as JSON), or its packed
   * form (encodeSnapshotDoc, e.g. packed by a worker thread so the writer only sends bytes).
   */
  doc: AnalysisDocument | string | Uint8Array;
  /** ISO 8601 instant the pipeline produced the document. */
  producedAt: string;
  pipelineVersion: string;
}

/** One stored snapshot as read back: the document stays JSON text. */
export interface StoredSnapshot {
  symbol: string;
  analysisDate: string;
  producedAt: string;
  pipelineVersion: string;
  /** The stored document as JSON text (PostgreSQL's jsonb output: keys in jsonb order). */
  docText: string;
}

/** A stored document as selected: packed (doc_packed) or, for a row written before packing, jsonb text (doc). */
interface DocColumns {
  doc: string | null;
  doc_packed: Uint8Array | null;
}

interface StoredSnapshotRow extends DocColumns {
  symbol: string;
  analysis_date: string;
  produced_at: string;
  pipeline_version: string;
}

/** The document's JSON text, whichever form it is stored in. */
const docTextOf = (r: DocColumns): string => (r.doc_packed ? decodeSnapshotDoc(r.doc_packed) : (r.doc as string));

const toStored = (r: StoredSnapshotRow): StoredSnapshot => ({
  symbol: r.symbol,
  analysisDate: r.analysis_date,
  producedAt: r.produced_at,
  pipelineVersion: r.pipeline_version,
  docText: docTextOf(r),
});

/** The two forms of the document (prefix: a table alias with its dot, or ''). */
const docColumns = (prefix = '') => `${prefix}doc::text AS doc, ${prefix}doc_packed`;

const SNAPSHOT_COLUMNS = `symbol, analysis_date, produced_at, pipeline_version, ${docColumns()}`;

/** A row's document in its stored form (packed by a worker already, or packed here). */
const packedDoc = (row: SnapshotRow): Uint8Array => (row.doc instanceof Uint8Array ? row.doc : encodeSnapshotDoc(row.doc));

/**
 * Snapshots per INSERT. Statements are cut by count and by the bytes they carry, whichever comes first.
 */
const SNAPSHOT_CHUNK_ROWS = 500;
const SNAPSHOT_CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * Inserts or replaces snapshots (keyed by symbol and date), many rows per statement with one parameter
 * per value; each document is stored packed (encodeSnapshotDoc). Idempotent: writing the same rows again
 * changes nothing. When `rows` holds the same (symbol, date) twice, the later row wins. Returns the number
 * of snapshots written. Run it inside a transaction (db.transaction) to make a multi-chunk write
 * all-or-nothing.
 */
export async function upsertSnapshots(db: Queryable, rows: readonly SnapshotRow[]): Promise<number> {
  const latest = new Map<string, SnapshotRow>();
  for (const row of rows) {
    const key = `${row.symbol}|${row.analysisDate}`;
    latest.delete(key); // re-insert so the map keeps the order of the last occurrence
    latest.set(key, row);
  }
  const unique = [...latest.values()];
  let params: unknown[] = [];
  let tuples: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (tuples.length === 0) return;
    await db.query(
      `INSERT INTO analysis_snapshots (symbol, analysis_date, doc_packed, produced_at, pipeline_version)
       VALUES ${tuples.join(', ')}
       ON CONFLICT (symbol, analysis_date) DO UPDATE SET doc = NULL, doc_packed = EXCLUDED.doc_packed,
         produced_at = EXCLUDED.produced_at, pipeline_version = EXCLUDED.pipeline_version`,
      params,
    );
    params = [];
    tuples = [];
    bytes = 0;
  };
  for (const row of unique) {
    // NaN and Infinity are stored as null, as JSON.stringify writes them.
    const packed = packedDoc(row);
    if (tuples.length >= SNAPSHOT_CHUNK_ROWS || (bytes > 0 && bytes + packed.length > SNAPSHOT_CHUNK_BYTES)) await flush();
    const p = params.length;
    tuples.push(`($${p + 1}, $${p + 2}::date, $${p + 3}::bytea, $${p + 4}::timestamptz, $${p + 5})`);
    params.push(row.symbol, row.analysisDate, packed, row.producedAt, row.pipelineVersion);
    bytes += packed.length;
  }
  await flush();
  return unique.length;
}

/**
 * A run's snapshot writes, for a caller that writes each (symbol, date) once, in one transaction: rows on a
 * date that had no snapshot when the writer first saw it (it asks the store once per date, before writing
 * any of them) are new, and on the embedded store they go in by one binary COPY per call, the engine
 * reading each value's bytes as they are (about 40 us a row against 130 us for upsertSnapshots' multi-row
 * INSERT, whose every document travels as a hex string; a first start writes 66,500). The foreign key is
 * checked row by row as usual. Every other row, and every row on PostgreSQL, goes through
 * upsertSnapshots; so does a (symbol, date) given a second time, and a row whose producedAt the COPY
 * cannot carry exactly (copy-binary.ts instantMicros). The COPYed rows are gathered and sent about 10 MB at
 * a time (COPY_BATCH_ROWS), and the rest by `finish`. `write` returns the number of distinct (symbol,
 * date) per call, as upsertSnapshots does.
 */
export interface SnapshotWriter {
  /** Writes rows (see snapshotWriter); the number of distinct (symbol, date) among them. */
  write(rows: readonly SnapshotRow[]): Promise<number>;
  /** Sends what the writer still holds: call it once the last rows are written, before the transaction ends. */
  finish(): Promise<void>;
}

/**
 * Rows the writer gathers for one COPY. Into a table emptied in its transaction (bulkLoadIntoEmptyTable),
 * the engine skips the free-space map, so the pages each COPY extends the table by and does not fill stay
 * empty for good: one COPY per worker message (about 100 rows) left 40% of the table's pages empty (its
 * files 262 MB for 158 MB of rows, the empty pages as holes). About 10 MB a COPY leaves a few megabytes.
 */
const COPY_BATCH_ROWS = 4000;

export function snapshotWriter(db: Queryable): SnapshotWriter {
  /** Per date seen: the symbols written to it by COPY, or null when the date had snapshots already. */
  const fresh = new Map<string, Set<string> | null>();
  let emptied = false;
  let pending: BinaryCopyWriter | null = null;
  const flush = async () => {
    if (pending === null) return;
    const rows = pending.finish();
    pending = null;
    await db.copyBinary?.('analysis_snapshots (symbol, analysis_date, doc_packed, produced_at, pipeline_version)', rows);
  };
  const write = async (rows: readonly SnapshotRow[]): Promise<number> => {
    if (!db.copyBinary) return upsertSnapshots(db, rows);
    if (!emptied) {
      emptied = true;
      await bulkLoadIntoEmptyTable(db, 'analysis_snapshots');
    }
    const unseen = [...new Set(rows.map((r) => r.analysisDate).filter((d) => !fresh.has(d)))];
    if (unseen.length > 0) {
      const stored = new Set(
        (await db.query<{ d: string }>('SELECT DISTINCT analysis_date::text AS d FROM analysis_snapshots WHERE analysis_date = ANY($1::date[])', [unseen])).map((r) => r.d),
      );
      for (const d of unseen) fresh.set(d, stored.has(d) ? null : new Set());
    }
    const upserted: SnapshotRow[] = [];
    for (const row of rows) {
      const symbols = fresh.get(row.analysisDate);
      // The first row of a (symbol, date) on a fresh date is remembered whichever way it goes, so that a
      // later one is upserted after it (and wins) rather than COPYed into a key already taken.
      const first = symbols !== undefined && symbols !== null && !symbols.has(row.symbol);
      if (first) symbols.add(row.symbol);
      if (first && instantMicros(row.producedAt) !== null) {
        pending ??= new BinaryCopyWriter(COPY_BATCH_ROWS * 2600);
        pending.row(5).text(row.symbol).date(row.analysisDate).bytea(packedDoc(row)).timestamptz(row.producedAt).text(row.pipelineVersion);
      } else upserted.push(row);
    }
    // Rows given twice in one call, or again later: the later one wins, as in upsertSnapshots, after the
    // COPY of the rows before it.
    if (upserted.length > 0 || (pending?.rowCount ?? 0) >= COPY_BATCH_ROWS) await flush();
    if (upserted.length > 0) await upsertSnapshots(db, upserted);
    return new Set(rows.map((r) => `${r.symbol}|${r.analysisDate}`)).size;
  };
  return { write, finish: flush };
}

/** The newest snapshot of a symbol, or null when it has none. */
export async function latestSnapshot(db: Queryable, symbol: string): Promise<StoredSnapshot | null> {
  const rows = await db.query<StoredSnapshotRow>(
    `SELECT ${SNAPSHOT_COLUMNS} FROM analysis_snapshots WHERE symbol = $1 ORDER BY analysis_date DESC LIMIT 1`,
    [symbol],
  );
  return rows.length ? toStored(rows[0]) : null;
}

/** The newest snapshot of each of `symbols` that has one (one index probe per symbol), in no set order. */
export async function latestSnapshots(db: Queryable, symbols: readonly string[]): Promise<StoredSnapshot[]> {
  if (symbols.length === 0) return [];
  const rows = await db.query<StoredSnapshotRow>(
    `SELECT s.symbol, s.analysis_date, s.produced_at, s.pipeline_version, ${docColumns('s.')}
     FROM unnest($1::text[]) AS q(symbol)
     CROSS JOIN LATERAL (
       SELECT * FROM analysis_snapshots a WHERE a.symbol = q.symbol ORDER BY a.analysis_date DESC LIMIT 1
     ) s`,
    [[...new Set(symbols)]],
  );
  return rows.map(toStored);
}

/** The snapshot of a symbol on one calendar date, or null. */
export async function snapshotOn(db: Queryable, symbol: string, date: string): Promise<StoredSnapshot | null> {
  const rows = await db.query<StoredSnapshotRow>(
    `SELECT ${SNAPSHOT_COLUMNS} FROM analysis_snapshots WHERE symbol = $1 AND analysis_date = $2::date`,
    [symbol, date],
  );
  return rows.length ? toStored(rows[0]) : null;
}

/** Snapshots of one symbol in date order within [from, to], after the cursor date, at most `limit`. */
export async function listSnapshots(
  db: Queryable,
  symbol: string,
  options: { from?: string; to?: string; after?: string; limit: number },
): Promise<{ items: StoredSnapshot[]; total: number }> {
  const params = [symbol, options.from ?? null, options.to ?? null];
  const range = 'symbol = $1 AND ($2::date IS NULL OR analysis_date >= $2::date) AND ($3::date IS NULL OR analysis_date <= $3::date)';
  const items = await db.query<StoredSnapshotRow>(
    `SELECT ${SNAPSHOT_COLUMNS} FROM analysis_snapshots
     WHERE ${range} AND ($4::date IS NULL OR analysis_date > $4::date) ORDER BY analysis_date LIMIT $5`,
    [...params, options.after ?? null, options.limit],
  );
  const [count] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM analysis_snapshots WHERE ${range}`, params);
  return { items: items.map(toStored), total: count.n };
}

/** First and last snapshot dates of a symbol and how many it has (nulls and 0 when none). */
export async function snapshotDateRange(db: Queryable, symbol: string): Promise<{ first: string | null; last: string | null; count: number }> {
  const [row] = await db.query<{ first: string | null; last: string | null; count: number }>(
    'SELECT min(analysis_date) AS first, max(analysis_date) AS last, count(*)::int AS count FROM analysis_snapshots WHERE symbol = $1',
    [symbol],
  );
  return row;
}

/** Whether any symbol has a snapshot on `date`. */
export async function hasSnapshotsOn(db: Queryable, date: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM analysis_snapshots WHERE analysis_date = $1::date LIMIT 1', [date]);
  return rows.length > 0;
}

/** Per date: how many equities have a bar that day, and how many snapshots are stored for it. */
export async function snapshotCoverage(db: Queryable, dates: readonly string[]): Promise<Map<string, { bars: number; snapshots: number }>> {
  const rows = await db.query<{ date: string; bars: number; snapshots: number }>(
    `SELECT d.date::text AS date,
            (SELECT count(*)::int FROM bars b JOIN securities s USING (symbol) WHERE s.asset_type = 'EQUITY' AND b.date = d.date) AS bars,
            (SELECT count(*)::int FROM analysis_snapshots a WHERE a.analysis_date = d.date) AS snapshots
       FROM unnest($1::date[]) AS d(date)`,
    [dates],
  );
  return new Map(rows.map((r) => [r.date, { bars: r.bars, snapshots: r.snapshots }]));
}

/** Each equity's first bar date. */
export async function firstBarDates(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ first: string }>(
    `SELECT min(b.date)::text AS first FROM bars b JOIN securities s USING (symbol) WHERE s.asset_type = 'EQUITY' GROUP BY b.symbol`,
  );
  return rows.map((r) => r.first);
}

/** Every symbol that has snapshots, with its newest snapshot date, in symbol order. */
export async function snapshotSymbols(db: Queryable): Promise<Array<{ symbol: string; latestDate: string }>> {
  return db.query<{ symbol: string; latestDate: string }>(
    'SELECT symbol, max(analysis_date) AS "latestDate" FROM analysis_snapshots GROUP BY symbol ORDER BY symbol',
  );
}

// ---------------------------------------------------------------------------------------------------------
// Pipeline runs
// ---------------------------------------------------------------------------------------------------------

/** One pipeline run: when, which dates, how much it wrote, and the model and transitions it estimated. */
export interface AnalysisRunRecord {
  startedAt: string;
  finishedAt: string;
  pipelineVersion: string;
  /** First and last analysis date written (YYYY-MM-DD). */
  fromDate: string;
  toDate: string;
  symbols: number;
  snapshots: number;
  /** Any JSON value (stored as jsonb; undefined is stored as SQL NULL). */
  model: unknown;
  transitions: unknown;
}

export interface StoredAnalysisRun extends AnalysisRunRecord {
  id: number;
}

/** JSON text for a jsonb parameter, or null for SQL NULL. */
const jsonParam = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

export async function recordRun(db: Queryable, run: AnalysisRunRecord): Promise<void> {
  await db.query(
    `INSERT INTO analysis_runs (started_at, finished_at, pipeline_version, from_date, to_date, symbols, snapshots, model, transitions)
     VALUES ($1::timestamptz, $2::timestamptz, $3, $4::date, $5::date, $6, $7, $8::jsonb, $9::jsonb)`,
    [run.startedAt, run.finishedAt, run.pipelineVersion, run.fromDate, run.toDate, run.symbols, run.snapshots, jsonParam(run.model), jsonParam(run.transitions)],
  );
}

/** The most recently recorded run, or null when the pipeline never ran on this store. */
export async function latestRun(db: Queryable): Promise<StoredAnalysisRun | null> {
  const rows = await db.query<StoredAnalysisRun>(
    `SELECT id, started_at AS "startedAt", finished_at AS "finishedAt", pipeline_version AS "pipelineVersion",
       from_date AS "fromDate", to_date AS "toDate", symbols, snapshots, model, transitions
     FROM analysis_runs ORDER BY id DESC LIMIT 1`,
  );
  return rows[0] ?? null;
}

// ---------------------------------------------------------------------------------------------------------
// Evaluations (evidence_runs) and the snapshot reads they start from
// ---------------------------------------------------------------------------------------------------------

/** Per snapshot date within [from, to] (either open) and pipeline version: how many snapshots, oldest first. */
export async function snapshotDateCounts(
  db: Queryable,
  options: { from?: string; to?: string },
): Promise<Array<{ date: string; pipelineVersion: string; snapshots: number }>> {
  return db.query<{ date: string; pipelineVersion: string; snapshots: number }>(
    `SELECT analysis_date::text AS date, pipeline_version AS "pipelineVersion", count(*)::int AS snapshots
       FROM analysis_snapshots
      WHERE ($1::date IS NULL OR analysis_date >= $1::date) AND ($2::date IS NULL OR analysis_date <= $2::date)
      GROUP BY analysis_date, pipeline_version
      ORDER BY analysis_date, pipeline_version`,
    [options.from ?? null, options.to ?? null],
  );
}

/** The documents (JSON text) of one pipeline version on the given dates, in (date, symbol) order. */
export async function snapshotDocsOn(db: Queryable, dates: readonly string[], pipelineVersion: string): Promise<Array<{ symbol: string; docText: string }>> {
  if (dates.length === 0) return [];
  const rows = await db.query<{ symbol: string } & DocColumns>(
    `SELECT symbol, ${docColumns()} FROM analysis_snapshots
      WHERE analysis_date = ANY($1::date[]) AND pipeline_version = $2
      ORDER BY analysis_date, symbol`,
    [[...dates], pipelineVersion],
  );
  return rows.map((r) => ({ symbol: r.symbol, docText: docTextOf(r) }));
}

/**
 * The parts of the documents of one pipeline version on the given dates that the evidence tables read
 * (engine/evidence/rows.ts outputs and the best pattern), as JSON text of a document with only those keys
 * (indicators and stage_detail reduced to their sata_score), in (date, symbol) order. A fraction of the
 * whole document, so a history of tens of thousands of snapshots is read in seconds.
 */
export async function snapshotOutputPartsOn(db: Queryable, dates: readonly string[], pipelineVersion: string): Promise<Array<{ symbol: string; docText: string }>> {
  if (dates.length === 0) return [];
  const rows = await db.query<{ symbol: string } & DocColumns>(
    // Rows stored as jsonb: one pass over each document's top-level keys (every doc->'key' would read the
    // stored document again). Packed rows are unpacked and reduced here, to the same text.
    `SELECT symbol, doc_packed,
            (SELECT jsonb_object_agg(key, CASE WHEN key IN ('indicators', 'stage_detail') THEN jsonb_build_object('sata_score', value -> 'sata_score') ELSE value END)
               FROM jsonb_each(doc) WHERE key = ANY($3::text[]))::text AS doc
       FROM analysis_snapshots
      WHERE analysis_date = ANY($1::date[]) AND pipeline_version = $2
      ORDER BY analysis_date, symbol`,
    [[...dates], pipelineVersion, [...OUTPUT_PART_KEYS, ...SATA_PART_KEYS]],
  );
  return rows.map((r) => ({ symbol: r.symbol, docText: r.doc_packed ? outputPartsText(decodeSnapshotDoc(r.doc_packed)) : (r.doc as string) }));
}

/** The top-level keys snapshotOutputPartsOn keeps whole, and those it reduces to their sata_score. */
const OUTPUT_PART_KEYS = ['symbol', 'analysis_date', 'price', 'stage', 'stage_strength', 'signal', 'confidence', 'enhanced_signal', 'ml_signal', 'pattern_signal', 'best_pattern'];
const SATA_PART_KEYS = ['indicators', 'stage_detail'];

/** Every member snapshotOutputPartsOn reads, in jsonb's key order (the order it prints them in). */
const OUTPUT_PART_ORDER = jsonbKeyOrder([...OUTPUT_PART_KEYS, ...SATA_PART_KEYS]);
const OUTPUT_PART_SET = new Set(OUTPUT_PART_ORDER);
const SATA_SCORE = new Set(['sata_score']);

/**
 * The output parts of a document's jsonb text, as the jsonb query above prints them for a jsonb row: the
 * members are cut out of the text (a member of jsonb text is in jsonb's text form), the rest of the
 * document is skipped without being parsed.
 */
function outputPartsText(text: string): string {
  const members = jsonMembers(text, OUTPUT_PART_SET);
  const parts: string[] = [];
  for (const key of OUTPUT_PART_ORDER) {
    const value = members.get(key);
    if (value === undefined) continue;
    // jsonb's `value -> 'sata_score'` is SQL NULL (a JSON null in the object built) unless value is an object with that key.
    const printed = SATA_PART_KEYS.includes(key) ? `{"sata_score": ${(value.startsWith('{') ? jsonMembers(value, SATA_SCORE).get('sata_score') : undefined) ?? 'null'}}` : value;
    parts.push(`"${key}": ${printed}`);
  }
  return `{${parts.join(', ')}}`;
}

/** The dates with a bar of some equity (the pipeline's calendar), ascending. */
export async function equityBarDates(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ date: string }>(
    `SELECT DISTINCT b.date::text AS date FROM bars b JOIN securities s ON s.symbol = b.symbol
      WHERE s.asset_type = 'EQUITY' ORDER BY 1`,
  );
  return rows.map((r) => r.date);
}

/** One evaluation to record (see migrations.ts, evidence_runs). */
export interface EvidenceRunRecord {
  pipelineVersion: string;
  /** YYYY-MM-DD dates: the last with a known outcome at the longest horizon, the first and last evaluated. */
  asOfDate: string;
  fromDate: string;
  toDate: string;
  horizons: number[];
  seed: number;
  snapshots: number;
  symbols: number;
  /** The evaluation (JSON; non-finite numbers are stored as null). */
  evaluation: unknown;
}

export interface StoredEvidenceRun extends EvidenceRunRecord {
  id: number;
  createdAt: string;
}

/** Records an evaluation; returns its id. */
export async function recordEvidenceRun(db: Queryable, run: EvidenceRunRecord): Promise<number> {
  const [row] = await db.query<{ id: number }>(
    `INSERT INTO evidence_runs (pipeline_version, as_of_date, from_date, to_date, horizons, seed, snapshots, symbols, evaluation)
     VALUES ($1, $2::date, $3::date, $4::date, $5::int[], $6::bigint, $7, $8, $9::jsonb)
     RETURNING id::float8 AS id`,
    [run.pipelineVersion, run.asOfDate, run.fromDate, run.toDate, run.horizons, run.seed, run.snapshots, run.symbols, JSON.stringify(run.evaluation)],
  );
  return row.id;
}

/** The most recent evaluation (of one pipeline version, when given), or null. */
export async function latestEvidenceRun(db: Queryable, pipelineVersion?: string): Promise<StoredEvidenceRun | null> {
  const rows = await db.query<StoredEvidenceRun>(
    `SELECT id::float8 AS id, pipeline_version AS "pipelineVersion", as_of_date::text AS "asOfDate", from_date::text AS "fromDate",
            to_date::text AS "toDate", horizons, seed::float8 AS seed, snapshots, symbols, to_json(created_at) #>> '{}' AS "createdAt", evaluation
       FROM evidence_runs WHERE ($1::text IS NULL OR pipeline_version = $1) ORDER BY id DESC LIMIT 1`,
    [pipelineVersion ?? null],
  );
  return rows[0] ?? null;
}

// ---------------------------------------------------------------------------------------------------------
// As-of evidence tables (engine/evidence/states.ts)
// ---------------------------------------------------------------------------------------------------------

/** The as-of dates (YYYY-MM-DD, ascending) with a stored evidence table of the pipeline version. */
export async function evidenceTableDates(db: Queryable, pipelineVersion: string): Promise<string[]> {
  const rows = await db.query<{ asOf: string }>(
    'SELECT as_of::text AS "asOf" FROM evidence_tables WHERE pipeline_version = $1 ORDER BY as_of',
    [pipelineVersion],
  );
  return rows.map((r) => r.asOf);
}

/**
 * Stores evidence tables given as JSON text; a table already stored for the same (version, as-of) is kept
 * (tables never change). Returns how many were inserted.
 */
export async function insertEvidenceTables(db: Queryable, pipelineVersion: string, tables: ReadonlyArray<{ asOf: string; json: string }>): Promise<number> {
  let inserted = 0;
  for (const table of tables) {
    const rows = await db.query<{ asOf: string }>(
      `INSERT INTO evidence_tables (pipeline_version, as_of, evidence) VALUES ($1, $2::date, $3::json)
       ON CONFLICT (pipeline_version, as_of) DO NOTHING RETURNING as_of::text AS "asOf"`,
      [pipelineVersion, table.asOf, table.json],
    );
    inserted += rows.length;
  }
  return inserted;
}

/** The greatest as-of date <= `date` with a stored table of the pipeline version, or null. */
export async function evidenceTableAsOf(db: Queryable, pipelineVersion: string, date: string): Promise<string | null> {
  const rows = await db.query<{ asOf: string }>(
    `SELECT as_of::text AS "asOf" FROM evidence_tables WHERE pipeline_version = $1 AND as_of <= $2::date
      ORDER BY as_of DESC LIMIT 1`,
    [pipelineVersion, date],
  );
  return rows[0]?.asOf ?? null;
}

/** The stored JSON text of one evidence table, or null. */
export async function evidenceTableText(db: Queryable, pipelineVersion: string, asOf: string): Promise<string | null> {
  const rows = await db.query<{ evidence: string }>(
    'SELECT evidence::text AS evidence FROM evidence_tables WHERE pipeline_version = $1 AND as_of = $2::date',
    [pipelineVersion, asOf],
  );
  return rows[0]?.evidence ?? null;
}

// ---------------------------------------------------------------------------------------------------------
// Universe-wide reads for the other domains (allocation candidates, covariance inputs)
// ---------------------------------------------------------------------------------------------------------

/**
 * Identifies what a universe built from the newest snapshots depends on: it changes whenever that set
 * of snapshots, a pipeline run or a security's record (its sector) does.
 */
export interface UniverseVersion {
  /** Newest analysis date stored, null when there are no snapshots. */
  analysisDate: string | null;
  snapshots: number;
  /** Newest produced_at among that date's snapshots. */
  producedAt: string | null;
  /** Id of the latest recorded pipeline run (null before the first). */
  runId: number | null;
  /** Newest change to the securities table. */
  securitiesUpdatedAt: string | null;
}

/** The newest analysis date, its snapshot count and newest write, the latest run, the securities' newest change. */
export async function universeVersion(db: Queryable): Promise<UniverseVersion> {
  const rows = await db.query<{ analysis_date: string | null; n: number; produced_at: string | null; run_id: number | null; securities_at: string | null }>(
    `SELECT d.analysis_date, count(s.symbol)::int AS n, max(s.produced_at) AS produced_at,
            (SELECT max(id) FROM analysis_runs) AS run_id,
            (SELECT max(updated_at) FROM securities) AS securities_at
       FROM (SELECT max(analysis_date) AS analysis_date FROM analysis_snapshots) d
       LEFT JOIN analysis_snapshots s ON s.analysis_date = d.analysis_date
      GROUP BY d.analysis_date`,
  );
  const r = rows[0];
  return {
    analysisDate: r?.analysis_date ?? null,
    snapshots: r?.n ?? 0,
    producedAt: r?.produced_at ?? null,
    runId: r?.run_id ?? null,
    securitiesUpdatedAt: r?.securities_at ?? null,
  };
}

/**
 * Every snapshot on one date, with its security's sector, in symbol order. The documents come back
 * whole, as text: projecting keys inside the database (jsonb -> key per row) measured about six times
 * slower on the embedded store than moving the text and picking the keys in the caller.
 */
export async function snapshotsOn(db: Queryable, date: string): Promise<Array<{ symbol: string; sector: string | null; docText: string }>> {
  const rows = await db.query<{ symbol: string; sector: string | null } & DocColumns>(
    `SELECT s.symbol, c.sector, ${docColumns('s.')}
       FROM analysis_snapshots s JOIN securities c ON c.symbol = s.symbol
      WHERE s.analysis_date = $1::date
      ORDER BY s.symbol`,
    [date],
  );
  return rows.map((r) => ({ symbol: r.symbol, sector: r.sector, docText: docTextOf(r) }));
}

/** Daily closes of `symbols` within [from, to], oldest first, as columns per symbol. */
export async function listCloses(db: Queryable, symbols: readonly string[], from: string, to: string): Promise<Map<string, { dates: string[]; closes: number[] }>> {
  const out = new Map<string, { dates: string[]; closes: number[] }>();
  if (symbols.length === 0) return out;
  const rows = await db.query<{ symbol: string; dates: string[]; closes: number[] }>(
    `SELECT symbol, array_agg(date::text ORDER BY date) AS dates, array_agg(close ORDER BY date) AS closes
       FROM bars WHERE symbol = ANY($1::text[]) AND date BETWEEN $2::date AND $3::date GROUP BY symbol`,
    [[...new Set(symbols)], from, to],
  );
  for (const r of rows) out.set(r.symbol, { dates: r.dates, closes: r.closes.map(Number) });
  return out;
}

/** A symbol's close on one date. */
export interface DatedClose {
  date: string;
  close: number;
}

/** The newest bar's close of each symbol (one query); symbols without a bar are absent. */
export async function latestCloses(db: Queryable, symbols: readonly string[]): Promise<Map<string, DatedClose>> {
  const out = new Map<string, DatedClose>();
  if (symbols.length === 0) return out;
  const rows = await db.query<{ symbol: string; date: string; close: number }>(
    // One index lookup per symbol (bars' primary key is (symbol, date)); ordering by the text alias would
    // read and sort every bar of the symbols.
    `SELECT s.symbol, b.date::text AS date, b.close
       FROM unnest($1::text[]) AS s(symbol)
       CROSS JOIN LATERAL (SELECT date, close FROM bars WHERE bars.symbol = s.symbol ORDER BY date DESC LIMIT 1) b`,
    [[...new Set(symbols)]],
  );
  for (const r of rows) out.set(r.symbol, { date: r.date, close: Number(r.close) });
  return out;
}

/** The symbol's close on `date`, or on the last date before it with a bar; null when there is none. */
export async function closeOnOrBefore(db: Queryable, symbol: string, date: string): Promise<DatedClose | null> {
  const rows = await db.query<{ date: string; close: number }>(
    'SELECT date::text AS date, close FROM bars WHERE symbol = $1 AND date <= $2::date ORDER BY bars.date DESC LIMIT 1',
    [symbol, date],
  );
  return rows.length ? { date: rows[0].date, close: Number(rows[0].close) } : null;
}
