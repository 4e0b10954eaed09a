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
  const { equities, calendar } = equitiesWithBars(await store.listAllSecurities(db), await store.listAllBarSeries(db));
  return { equities: equities.map((e) => e.bars), calendar, sources: [...new Set(equities.map((e) => e.security.dataSource))].sort() };
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
