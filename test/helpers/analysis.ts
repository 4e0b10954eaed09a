/**
 * Stored analysis snapshots for tests: `seedAnalysis(db)` is the one way tests get them.
 *
 * It runs the real analysis pipeline over the bars in the store (the test config's small demo market)
 * for the last `days` trading dates and stores the documents of the requested symbols: ACME and two
 * more equities by default. A requested symbol without bars of its own (a test's made-up ticker) gets
 * the demo symbol's computed documents under its own name, and a security row if it has none.
 *
 * Tests must not depend on engine numbers, only on the stored document's own values (read them back
 * with the store).
 */
import { analyzeUniverse, loadUniverse } from '../../subgraphs/analysis/pipeline.js';
import { PIPELINE_VERSION } from '../../subgraphs/analysis/engine/document.js';
import { findSecurities, upsertSecurities, upsertSnapshots, type SnapshotRow } from '../../subgraphs/analysis/store.js';
import { decodeSnapshotDoc } from '../../subgraphs/analysis/snapshot-codec.js';
import type { Db, Queryable } from '../../subgraphs/platform/db.js';

export const DEMO_SYMBOL = 'ACME';
const INDEX_SYMBOL = 'TGMI';

export interface SeedOptions {
  /** Symbols to store; default ACME and the next two equities in symbol order. */
  symbols?: string[];
  /** Trading dates per symbol, the most recent ones; default 5. */
  days?: number;
  /** produced_at of every snapshot; default the moment of the call. */
  producedAt?: string;
}

export interface SeedResult {
  /** The symbols that now have snapshots (ACME first). */
  symbols: string[];
  /** Their snapshot dates, oldest first (the same for every symbol). */
  dates: string[];
  latestDate: string;
}

export async function seedAnalysis(db: Db, options: SeedOptions = {}): Promise<SeedResult> {
  const days = options.days ?? 5;
  const symbols = options.symbols ?? (await defaultSymbols(db));
  const known = new Set((await findSecurities(db, symbols)).map((s) => s.symbol));
  const missing = symbols.filter((s) => !known.has(s));
  await upsertSecurities(
    db,
    missing.map((symbol) => ({ symbol, name: `${symbol} (test)`, sector: 'Information Technology', subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' })),
  );

  const universe = await loadUniverse(db, INDEX_SYMBOL);
  if (universe.calendar.length < days) throw new Error('seedAnalysis needs bars in the store (load the demo market first)');
  const dates = universe.calendar.slice(-days);
  const producedAt = options.producedAt ?? new Date().toISOString();
  const computed = new Map<string, string>();
  await analyzeUniverse(universe, { from: dates[0], to: dates[dates.length - 1], workers: 0, producedAt }, async (rows) => {
    for (const r of rows) computed.set(`${r.symbol}@${r.analysisDate}`, r.doc);
  });

  const rows: SnapshotRow[] = [];
  for (const symbol of symbols) {
    const source = computed.has(`${symbol}@${dates[0]}`) ? symbol : DEMO_SYMBOL;
    for (const date of dates) {
      const text = computed.get(`${source}@${date}`);
      if (!text) throw new Error(`the pipeline produced no document for ${source} on ${date}`);
      const doc = source === symbol ? text : JSON.stringify({ ...(JSON.parse(text) as object), symbol });
      rows.push({ symbol, analysisDate: date, doc, producedAt, pipelineVersion: PIPELINE_VERSION });
    }
  }
  await upsertSnapshots(db, rows);
  return { symbols, dates, latestDate: dates[dates.length - 1] };
}

async function defaultSymbols(db: Db): Promise<string[]> {
  const others = await db.query<{ symbol: string }>(
    "SELECT symbol FROM securities WHERE asset_type = 'EQUITY' AND symbol <> $1 ORDER BY symbol LIMIT 2",
    [DEMO_SYMBOL],
  );
  return [DEMO_SYMBOL, ...others.map((r) => r.symbol)];
}

/** A stored snapshot row as tests read it: its document's text whether the row is packed or jsonb. */
export interface StoredSnapshotText {
  symbol: string;
  date: string;
  doc: string;
  pipeline_version: string;
}

/**
 * Every stored snapshot matching `where` (SQL over analysis_snapshots' columns, `$1`.. from `params`),
 * ordered by symbol and date, with the document's text decoded from its packed form when it is packed.
 */
export async function storedSnapshotTexts(db: Queryable, where = 'TRUE', params: unknown[] = []): Promise<StoredSnapshotText[]> {
  const rows = await db.query<{ symbol: string; date: string; doc: string | null; doc_packed: Uint8Array | null; pipeline_version: string }>(
    `SELECT symbol, analysis_date::text AS date, doc::text AS doc, doc_packed, pipeline_version FROM analysis_snapshots WHERE ${where} ORDER BY symbol, analysis_date`,
    params,
  );
  return rows.map((r) => ({ symbol: r.symbol, date: r.date, doc: r.doc_packed ? decodeSnapshotDoc(r.doc_packed) : (r.doc as string), pipeline_version: r.pipeline_version }));
}

