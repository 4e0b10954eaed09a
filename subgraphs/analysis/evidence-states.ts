/**
 * As-of evidence tables of the stored history (engine/evidence/states.ts): computed once per
 * (pipeline version, as-of date), stored in evidence_tables, and read by the snapshot reads.
 *
 *   as-of dates: the last trading day of every calendar month the store's calendar has moved past, from
 *     the month in which the first 20-day outcome of a snapshot of the current pipeline version is known
 *   -> the missing ones (no stored table of this version): snapshots dated up to the last missing as-of
 *      date, read a few dates at a time and reduced to their outputs (evidence-load.ts; a snapshot whose
 *      20-day outcome is not known by that date enters only the universe, so only its symbol and date are
 *      read), forward excess returns over the store's equal-weight universe (forward.ts), and one sweep of
 *      the engine over all as-of dates that summarises only the missing ones
 *   (plan, compute and store are exported: the evidence step, cli/evidence-history.ts, reads each document
 *   once for these tables and the Kelly odds together)
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
import {
  EVIDENCE_REPLICATES,
  EVIDENCE_SEED,
  evidenceAsOfDates,
  evidenceTableParts,
  evidenceTables,
  firstKnownOutcome,
  type EvidenceTableParts,
  type EvidenceTablesOptions,
  type StateRow,
} from './engine/evidence/states.js';
import { indexOfSorted } from './engine/sorted.js';
import type { Db, Queryable } from '../platform/db.js';
import { loadEquities, readDocuments, snapshotKeysOn, type StoreUniverse } from './evidence-load.js';
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
export function stateOutputs(doc: AnalysisDocument): StateOutputs {
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

export type StateOutputs = Omit<StateRow, 'forwardExcess'>;

/** What a refresh has to compute (see planEvidenceTables). */
export interface TablesPlan {
  pipelineVersion: string;
  /** Every as-of date of the calendar, ascending. */
  asOf: string[];
  /** As-of dates without a stored table, ascending. */
  missing: string[];
  /** Snapshot dates of the pipeline version up to the last missing as-of date, ascending. */
  dates: string[];
  /**
   * Those of `dates` whose documents are read: the ones with a 20-day outcome known by the last missing
   * as-of date. A snapshot on a later date enters no figure of these tables, only their universe (its
   * symbol and date), so its document is not needed (see presenceOutputs).
   */
  documentDates: string[];
}

/** What both measurements plan from: the stored snapshots' dates by pipeline version, and the equities' calendar. */
export interface StoreDates {
  counts: Array<{ date: string; pipelineVersion: string }>;
  calendar: string[];
}

/** The store's snapshot dates and calendar (read once for both plans of the evidence step). */
export async function storeDates(db: Queryable): Promise<StoreDates> {
  return { counts: await store.snapshotDateCounts(db, {}), calendar: await store.equityBarDates(db) };
}

/**
 * The as-of dates, the missing ones and the snapshot dates their tables are measured on (see the file
 * comment); `known`: the store's dates when already read.
 */
export async function planEvidenceTables(db: Queryable, known?: StoreDates): Promise<TablesPlan> {
  const version = PIPELINE_VERSION;
  const counts = known?.counts ?? (await store.snapshotDateCounts(db, {}));
  const snapshotDates = [...new Set(counts.filter((c) => c.pipelineVersion === version).map((c) => c.date))];
  if (snapshotDates.length === 0) return { pipelineVersion: version, asOf: [], missing: [], dates: [], documentDates: [] };
  const calendar = known?.calendar ?? (await store.equityBarDates(db));
  const asOf = evidenceAsOfDates(calendar, firstKnownOutcome(calendar, snapshotDates));
  const stored = new Set(await store.evidenceTableDates(db, version));
  const missing = asOf.filter((a) => !stored.has(a));
  if (missing.length === 0) return { pipelineVersion: version, asOf, missing, dates: [], documentDates: [] };
  const last = missing[missing.length - 1];
  const dates = snapshotDates.filter((d) => d <= last);
  const [short] = EVIDENCE_HORIZONS;
  const documentDates = dates.filter((d) => {
    const i = indexOfSorted(calendar, d);
    return i >= 0 && i + short < calendar.length && calendar[i + short] <= last;
  });
  return { pipelineVersion: version, asOf, missing, dates, documentDates };
}

/**
 * The outputs of a snapshot whose document is not read (a date of the plan after its document dates): its
 * symbol and date, nothing else. The tables give the same bytes as with its document's outputs, since no
 * outcome of it is known by any of their as-of dates.
 */
export function presenceOutputs(symbol: string, date: string): StateOutputs {
  return {
    symbol,
    date,
    stage: null,
    stageStrength: null,
    signal: null,
    confidence: null,
    enhancedSignal: null,
    enhancedConfidence: null,
    mlProbability: null,
    sataScore: null,
    bestPattern: null,
    bestPatternType: null,
    patternConfidence: null,
  };
}

/**
 * The missing tables of a plan from the outputs of the documents on its dates (in (date, symbol) order)
 * and the store's universe.
 */
export function computeEvidenceTables(plan: TablesPlan, u: StoreUniverse, outputs: readonly StateOutputs[], replicates?: number): EvidenceTable[] {
  if (plan.missing.length === 0) return [];
  const { rows, options } = engineInput(plan, u, outputs, replicates);
  return evidenceTables(rows, options);
}

/**
 * Halves of computeEvidenceTables' tables for the as-of dates given (engine/evidence/states.ts
 * evidenceTableParts): joinEvidenceTables of the halves of every missing date, however split, is
 * computeEvidenceTables' answer bit for bit, so they can be computed on two threads.
 */
export function computeEvidenceTableParts(
  plan: TablesPlan,
  u: StoreUniverse,
  outputs: readonly StateOutputs[],
  select: { states?: readonly string[]; probabilities?: readonly string[] },
  replicates?: number,
): EvidenceTableParts {
  if (plan.missing.length === 0) return { states: [], probabilities: [] };
  const { rows, options } = engineInput(plan, u, outputs, replicates);
  return evidenceTableParts(rows, options, select);
}

/** The engine's rows (outputs with their forward excess returns) and options for a plan's missing tables. */
function engineInput(plan: TablesPlan, u: StoreUniverse, outputs: readonly StateOutputs[], replicates?: number): { rows: StateRow[]; options: EvidenceTablesOptions } {
  const last = plan.missing[plan.missing.length - 1];
  const forward = new ForwardTable(u.equities, plan.dates, { horizons: EVIDENCE_HORIZONS, calendar: u.calendar });
  const rows: StateRow[] = outputs.map((o) => ({ ...o, forwardExcess: forward.excessByHorizon(o.symbol, o.date) }));
  return {
    rows,
    options: {
      calendar: u.calendar,
      paths: u.equities,
      asOf: plan.asOf.filter((a) => a <= last),
      compute: new Set(plan.missing),
      pipelineVersion: plan.pipelineVersion,
      seed: EVIDENCE_SEED,
      replicates: replicates ?? EVIDENCE_REPLICATES,
    },
  };
}

/** The presence outputs of the plan's snapshots whose documents are not read (see TablesPlan.documentDates). */
export async function presenceOnly(db: Queryable, plan: TablesPlan, universe: ReadonlySet<string>): Promise<StateOutputs[]> {
  const read = new Set(plan.documentDates);
  const keys = await snapshotKeysOn(
    db,
    plan.dates.filter((d) => !read.has(d)),
    plan.pipelineVersion,
  );
  return keys.filter((k) => universe.has(k.symbol)).map((k) => presenceOutputs(k.symbol, k.date));
}

/** Stores computed tables, `batch` per transaction (default 12). */
export async function storeEvidenceTables(db: Db, pipelineVersion: string, tables: readonly EvidenceTable[], batch = 12): Promise<void> {
  for (let k = 0; k < tables.length; k += batch) {
    const chunk = tables.slice(k, k + batch).map((t) => ({ asOf: t.as_of, json: JSON.stringify(t) }));
    await db.transaction((tx) => store.insertEvidenceTables(tx, pipelineVersion, chunk));
  }
}

/** Computes and stores every missing as-of table of the current pipeline version (see the file comment). */
export async function refreshEvidenceTables(db: Db, options: RefreshOptions = {}): Promise<RefreshResult> {
  const plan = await planEvidenceTables(db);
  if (plan.missing.length === 0) return { computed: [], skipped: plan.asOf.length };
  const u = await loadEquities(db);
  const symbols = new Set(u.equities.map((e) => e.symbol));
  const outputs = await readDocuments(db, plan.documentDates, plan.pipelineVersion, symbols, stateOutputs, store.snapshotOutputPartsOn);
  outputs.push(...(await presenceOnly(db, plan, symbols)));
  const tables = computeEvidenceTables(plan, u, outputs, options.replicates);
  await storeEvidenceTables(db, plan.pipelineVersion, tables, options.batch);
  return { computed: plan.missing, skipped: plan.asOf.length - plan.missing.length };
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
