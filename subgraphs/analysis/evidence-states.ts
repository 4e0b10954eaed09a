/**
 * As-of evidence tables of the stored history (engine/evidence/states.ts): computed once per
 * (pipeline version, as-of date), stored in evidence_tables, and read by the snapshot reads.
 *
 *   as-of dates: the last trading day of every calendar month the store's calendar has moved past, from
 *     the month in which the first 20-day outcome of a snapshot of the current pipeline version is known
 *   -> the missing ones (no stored table of this version): snapshots dated up to the last missing as-of
 *      date, read a few dates at a time and reduced to their outputs (evidence-load.ts), forward excess
 *      returns over the store's equal-weight universe (forward.ts), and one sweep of the engine over all
 *      as-of dates that summarises only the missing ones
 *   -> stored in batches (one transaction each), never replaced: a table is a function of the snapshots
 *      and bars dated <= its as-of date, so appending later bars or snapshots only adds later tables.
 *
 * `evidenceTableFor(db, date)`: the table a snapshot dated `date` uses, the one with the greatest as-of
 * <= date; parsed tables are memoised per store by as-of date (they never change), a bounded number per
 * store.
 */
import { PIPELINE_VERSION, type AnalysisDocument } from './engine/document.js';
import { ForwardTable } from './engine/evidence/forward.js';
import { finiteOrNull, outputsFromDocument } from './engine/evidence/rows.js';
import { EVIDENCE_HORIZONS, type EvidenceTable } from './engine/evidence/state-evidence.js';
import { EVIDENCE_REPLICATES, EVIDENCE_SEED, evidenceAsOfDates, evidenceTables, firstKnownOutcome, type StateRow } from './engine/evidence/states.js';
import type { Db, Queryable } from '../platform/db.js';
import { loadEquities, readDocuments } from './evidence-load.js';
import * as store from './store.js';

export interface RefreshOptions {
  /** Tables stored per transaction; default 12. */
  batch?: number;
  /** Bootstrap replicates (tests); default the engine's. Tables of one store must all use the same. */
  replicates?: number;
}

export interface RefreshResult {
  /** As-of dates computed now, ascending. */
  computed: string[];
  /** As-of dates that already had a table. */
  skipped: number;
}

/** The outputs a table needs from a stored document. */
function stateOutputs(doc: AnalysisDocument): Omit<StateRow, 'forwardExcess'> {
  const out = outputsFromDocument(doc);
  return {
    symbol: out.symbol,
    date: out.date,
    stage: out.stage,
    stageStrength: out.stageStrength,
    signal: out.signal,
    confidence: out.confidence,
    enhancedSignal: out.enhancedSignal,
    enhancedConfidence: finiteOrNull(doc.enhanced_signal?.confidence),
    mlProbability: out.mlProbability,
    sataScore: out.sataScore,
    bestPattern: out.bestPattern,
    bestPatternType: doc.best_pattern?.type ?? null,
    patternConfidence: finiteOrNull(doc.best_pattern?.confidence),
  };
}

/** Computes and stores every missing as-of table of the current pipeline version (see the file comment). */
export async function refreshEvidenceTables(db: Db, options: RefreshOptions = {}): Promise<RefreshResult> {
  const version = PIPELINE_VERSION;
  const batch = options.batch ?? 12;
  const counts = await store.snapshotDateCounts(db, {});
  const snapshotDates = [...new Set(counts.filter((c) => c.pipelineVersion === version).map((c) => c.date))];
  if (snapshotDates.length === 0) return { computed: [], skipped: 0 };
  const calendar = await store.equityBarDates(db);
  const asOf = evidenceAsOfDates(calendar, firstKnownOutcome(calendar, snapshotDates));
  const stored = new Set(await store.evidenceTableDates(db, version));
  const missing = asOf.filter((a) => !stored.has(a));
  if (missing.length === 0) return { computed: [], skipped: asOf.length };
  const u = await loadEquities(db);

  const last = missing[missing.length - 1];
  const dates = snapshotDates.filter((d) => d <= last);
  const symbols = new Set(u.equities.map((e) => e.symbol));
  const outputs = await readDocuments(db, dates, version, symbols, stateOutputs, store.snapshotOutputPartsOn);
  const forward = new ForwardTable(u.equities, dates, { horizons: EVIDENCE_HORIZONS, calendar: u.calendar });
  const rows: StateRow[] = outputs.map((o) => ({ ...o, forwardExcess: forward.excessByHorizon(o.symbol, o.date) }));
  const sweep = asOf.filter((a) => a <= last);
  const tables = evidenceTables(rows, {
    calendar: u.calendar,
    paths: u.equities,
    asOf: sweep,
    compute: new Set(missing),
    pipelineVersion: version,
    seed: EVIDENCE_SEED,
    replicates: options.replicates ?? EVIDENCE_REPLICATES,
  });
  for (let k = 0; k < tables.length; k += batch) {
    const chunk = tables.slice(k, k + batch).map((t) => ({ asOf: t.as_of, json: JSON.stringify(t) }));
    await db.transaction((tx) => store.insertEvidenceTables(tx, version, chunk));
  }
  return { computed: missing, skipped: asOf.length - missing.length };
}

/** Parsed tables kept per store (a table is tens of kilobytes). */
const MEMO_LIMIT = 64;
const memo = new WeakMap<object, Map<string, EvidenceTable>>();

/** The evidence table a snapshot dated `date` uses (greatest as-of <= date), or null when none is stored. */
export async function evidenceTableFor(db: Queryable, date: string): Promise<EvidenceTable | null> {
  const asOf = await store.evidenceTableAsOf(db, PIPELINE_VERSION, date);
  return asOf === null ? null : evidenceTableAt(db, asOf);
}

/** The stored table of exactly this as-of date (memoised: a table never changes), or null. */
export async function evidenceTableAt(db: Queryable, asOf: string): Promise<EvidenceTable | null> {
  const version = PIPELINE_VERSION;
  let tables = memo.get(db);
  if (tables === undefined) {
    tables = new Map();
    memo.set(db, tables);
  }
  const cached = tables.get(asOf);
  if (cached !== undefined) {
    // Most recently used last.
    tables.delete(asOf);
    tables.set(asOf, cached);
    return cached;
  }
  const text = await store.evidenceTableText(db, version, asOf);
  if (text === null) return null;
  const table = JSON.parse(text) as EvidenceTable;
  tables.set(asOf, table);
  if (tables.size > MEMO_LIMIT) tables.delete(tables.keys().next().value as string);
  return table;
}
