/**
 * What every measurement over the stored history starts from (the evaluation, evidence-run.ts, and the as-of
 * evidence tables, evidence-states.ts): the store's universe of equities with their bars and calendar, and
 * the stored documents of one pipeline version read a few dates at a time and reduced as they are read (the
 * documents themselves are not kept: a date holds one document per symbol, kilobytes each).
 */
import type { AnalysisDocument } from './engine/document.js';
import type { BarSeries } from './engine/market-types.js';
import type { Queryable } from '../platform/db.js';
import { equitiesWithBars } from './pipeline.js';
import * as store from './store.js';
import { decodeSnapshotDoc } from './snapshot-codec.js';

/** Snapshot dates read per query. */
export const DATES_PER_READ = 20;

export interface StoreUniverse {
  equities: BarSeries[];
  /** Union of the equities' bar dates (the pipeline's calendar). */
  calendar: string[];
  /** Data sources of the equities, sorted. */
  sources: string[];
}

/** The pipeline's universe of equities (equitiesWithBars), without its index. */
export async function loadEquities(db: Queryable): Promise<StoreUniverse> {
  const { equities, calendar } = equitiesWithBars(await store.listAllSecurities(db), await equityBarSeries(db));
  return { equities: equities.map((e) => e.bars), calendar, sources: [...new Set(equities.map((e) => e.security.dataSource))].sort() };
}

/**
 * The equities' bars in column form, oldest first (store.listAllBarSeries' series of the equities). Each
 * price column comes as one bytea of the float8 values in their binary form (float8send: 8 big-endian
 * bytes each, the very doubles), read straight into a Float64Array: a fraction of the time that parsing
 * the text of hundreds of thousands of numbers in arrays takes.
 */
async function equityBarSeries(db: Queryable): Promise<Map<string, BarSeries>> {
  const column = (expr: string) => `string_agg(float8send(${expr}), ''::bytea ORDER BY date)`;
  const rows = await db.query<{ symbol: string; dates: string; open: Uint8Array; high: Uint8Array; low: Uint8Array; close: Uint8Array; volume: Uint8Array }>(
    `SELECT symbol, string_agg(date::text, ',' ORDER BY date) AS dates,
            ${column('open')} AS open, ${column('high')} AS high, ${column('low')} AS low, ${column('close')} AS close,
            ${column('volume::float8')} AS volume
       FROM bars WHERE symbol IN (SELECT symbol FROM securities WHERE asset_type = 'EQUITY')
      GROUP BY symbol ORDER BY symbol`,
  );
  const series = new Map<string, BarSeries>();
  for (const r of rows) {
    series.set(r.symbol, {
      symbol: r.symbol,
      dates: r.dates.split(','),
      open: float8s(r.open),
      high: float8s(r.high),
      low: float8s(r.low),
      close: float8s(r.close),
      volume: float8s(r.volume),
    });
  }
  return series;
}

/** Big-endian float8 values (float8send's form) as doubles. */
export function float8s(bytes: Uint8Array): Float64Array {
  if (bytes.length % 8 !== 0) throw new RangeError(`${bytes.length} bytes are not whole float8 values`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float64Array(bytes.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat64(i * 8);
  return out;
}

/** Stored documents as read: packed (doc_packed) or, for a row written before packing, JSON text. */
export interface StoredDocs {
  symbols: string[];
  /** The packed documents one after another (a row stored as text has none). */
  bytes: Uint8Array;
  /** Where each row's packed bytes end in `bytes` (a text row's end is its predecessor's). */
  ends: Uint32Array;
  /** A row's JSON text when it has no packed form, else null. */
  texts: Array<string | null>;
}

/**
 * The stored documents of `version` on `dates`, in (date, symbol) order, as stored (store.snapshotDocsOn's
 * documents before decoding: decoding and parsing, the bulk of the work, can then be done on another thread).
 */
export async function storedDocsOn(db: Queryable, dates: readonly string[], version: string): Promise<StoredDocs> {
  const rows =
    dates.length === 0
      ? []
      : // The packed bytes as base64 text (its line breaks are skipped by the decoder): two thirds of the
        // hex text a bytea is sent as, and quicker to make and to read.
        (
          await db.query<{ symbol: string; packed: string | null; doc: string | null }>(
            `SELECT symbol, encode(doc_packed, 'base64') AS packed, CASE WHEN doc_packed IS NULL THEN doc::text END AS doc FROM analysis_snapshots
              WHERE analysis_date = ANY($1::date[]) AND pipeline_version = $2
              ORDER BY analysis_date, symbol`,
            [[...dates], version],
          )
        ).map((r) => ({ symbol: r.symbol, doc_packed: r.packed === null ? null : Buffer.from(r.packed, 'base64'), doc: r.doc }));
  let size = 0;
  for (const r of rows) size += r.doc_packed?.length ?? 0;
  const bytes = new Uint8Array(size);
  const ends = new Uint32Array(rows.length);
  const texts: Array<string | null> = [];
  let at = 0;
  rows.forEach((r, i) => {
    if (r.doc_packed) {
      bytes.set(r.doc_packed, at);
      at += r.doc_packed.length;
    }
    ends[i] = at;
    texts.push(r.doc_packed ? null : (r.doc as string));
  });
  return { symbols: rows.map((r) => r.symbol), bytes, ends, texts };
}

/** Rows `from` to `to` - 1 of stored documents, with their own copy of the bytes (to be transferred). */
export function sliceStoredDocs(docs: StoredDocs, from: number, to: number): StoredDocs {
  const start = from === 0 ? 0 : docs.ends[from - 1];
  const end = to === 0 ? 0 : docs.ends[to - 1];
  const ends = docs.ends.slice(from, to);
  for (let i = 0; i < ends.length; i++) ends[i] -= start;
  return { symbols: docs.symbols.slice(from, to), bytes: docs.bytes.slice(start, end), ends, texts: docs.texts.slice(from, to) };
}

/** The JSON text of row i of stored documents. */
export function storedDocText(docs: StoredDocs, i: number): string {
  const text = docs.texts[i];
  if (text !== null) return text;
  return decodeSnapshotDoc(docs.bytes.subarray(i === 0 ? 0 : docs.ends[i - 1], docs.ends[i]));
}

/**
 * `reduce` of every stored document of `version` on `dates` whose symbol is in `universe`, in (date, symbol)
 * order, reading DATES_PER_READ dates per query with `read` (default the whole documents; a reader of some
 * of their keys, e.g. store.snapshotOutputPartsOn, makes a long history much cheaper to read).
 */
export async function readDocuments<T>(
  db: Queryable,
  dates: readonly string[],
  version: string,
  universe: ReadonlySet<string>,
  reduce: (doc: AnalysisDocument) => T,
  read: typeof store.snapshotDocsOn = store.snapshotDocsOn,
): Promise<T[]> {
  const out: T[] = [];
  for (let k = 0; k < dates.length; k += DATES_PER_READ) {
    for (const { symbol, docText } of await read(db, dates.slice(k, k + DATES_PER_READ), version)) {
      if (universe.has(symbol)) out.push(reduce(JSON.parse(docText) as AnalysisDocument));
    }
  }
  return out;
}

/**
 * The symbol and date of every stored snapshot of `version` on `dates`, in (date, symbol) order, without
 * reading a document.
 */
export async function snapshotKeysOn(db: Queryable, dates: readonly string[], version: string): Promise<Array<{ symbol: string; date: string }>> {
  if (dates.length === 0) return [];
  return db.query<{ symbol: string; date: string }>(
    `SELECT symbol, analysis_date::text AS date FROM analysis_snapshots
      WHERE analysis_date = ANY($1::date[]) AND pipeline_version = $2
      ORDER BY analysis_date, symbol`,
    [[...dates], version],
  );
}
