/**
 * The measured record behind a store: a sampled history of snapshots and the evidence measured on it.
 *
 * Reads carry `evidence` and calibrated probabilities, and Kelly sizes from measured odds, only where the
 * store has a history whose outcomes are known (subgraphs/analysis/evidence-states.ts and
 * subgraphs/allocation/kelly-odds-store.ts). On a fresh demo store there is none, so the start-up analyses
 * every Nth trading day of the whole calendar (ANALYZE_HISTORY_EVERY, default 10; 0 turns it off), in the same
 * run as the recent days (cli/start-up-steps.ts), and then refreshes both measurements. `tradegraph evaluate` refreshes them too, for any imported universe.
 *
 * Resumable and idempotent: the sample grid is fixed by the equities' calendar's first day and N, a date
 * counts as done when it has snapshots of the current pipeline version (or when no equity can be documented
 * on it), and only the missing dates are analysed: the start-up takes exactly those (missingSampleDates),
 * ensureSampledHistory every grid date from the first missing one on. A run is one transaction, so a start
 * stopped during its analysis analyses the same dates again next time.
 */
import type { Db } from '../subgraphs/platform/db.js';
import { runAnalysis, sampleDates, type AnalyzeOptions, type AnalyzeSummary } from '../subgraphs/analysis/pipeline.js';
import * as analysisStore from '../subgraphs/analysis/store.js';
import { MIN_BARS } from '../subgraphs/analysis/analyze-batch.js';
import { PIPELINE_VERSION } from '../subgraphs/analysis/engine/document.js';
import { planEvidenceTables, presenceOnly, storeDates, storeEvidenceTables, type StateOutputs } from '../subgraphs/analysis/evidence-states.js';
import { DATES_PER_READ, loadEquities, storedDocsOn, type StoreUniverse } from '../subgraphs/analysis/evidence-load.js';
import { evidenceThreads } from '../subgraphs/analysis/evidence-tasks.js';
import { planCandidateOdds, storeCandidateOdds } from '../subgraphs/allocation/kelly-odds-store.js';

/**
 * The sampled dates of the whole calendar that have no snapshot of the current pipeline version yet, oldest
 * first. The calendar is the pipeline's (the dates of the equities' bars, not of an index that may reach
 * further back), so the grid a resumed run samples from its first missing date is this grid. A date on
 * which no equity can be documented (none has MIN_BARS bars through it) is not missing: it never gets a
 * snapshot, and counting it would analyse the history again on every start.
 */
export async function missingSampleDates(db: Db, every: number): Promise<string[]> {
  const calendar = await analysisStore.equityBarDates(db);
  if (calendar.length < MIN_BARS) return [];
  const grid = sampleDates(calendar, calendar, every).filter((date) => date >= calendar[MIN_BARS - 1]);
  if (grid.length === 0) return [];
  const done = new Set(
    (await analysisStore.snapshotDateCounts(db, { from: grid[0] })).filter((c) => c.pipelineVersion === PIPELINE_VERSION).map((c) => c.date),
  );
  const undone = grid.filter((date) => !done.has(date));
  if (undone.length === 0) return [];
  const documentable = new Set(await documentableDates(db, undone));
  return undone.filter((date) => documentable.has(date));
}

/**
 * The dates among `dates` on which some equity has a bar and at least MIN_BARS bars through it (what the
 * pipeline needs to document it). Each equity's MIN_BARS-th bar and its bar on a date are primary-key
 * lookups, so this stays cheap on a long history.
 */
async function documentableDates(db: Db, dates: readonly string[]): Promise<string[]> {
  const rows = await db.query<{ date: string }>(
    `WITH ready AS (
       SELECT s.symbol, (SELECT b.date FROM bars b WHERE b.symbol = s.symbol ORDER BY b.date OFFSET $2 LIMIT 1) AS from_date
         FROM securities s WHERE s.asset_type = 'EQUITY')
     SELECT d.date::text AS date FROM unnest($1::date[]) AS d(date)
      WHERE EXISTS (SELECT 1 FROM ready r JOIN bars b ON b.symbol = r.symbol AND b.date = d.date WHERE r.from_date <= d.date)`,
    [dates, MIN_BARS - 1],
  );
  return rows.map((r) => r.date);
}

/**
 * Analyses the missing dates of the every-Nth-day grid (from the first missing one, on the same grid).
 * Returns null when nothing was missing.
 */
export async function ensureSampledHistory(
  db: Db,
  indexSymbol: string,
  every: number,
  options: Omit<AnalyzeOptions, 'from' | 'to' | 'every'>,
): Promise<AnalyzeSummary | null> {
  const missing = await missingSampleDates(db, every);
  if (missing.length === 0) return null;
  return runAnalysis(db, indexSymbol, { ...options, from: missing[0], every });
}

export interface EvidenceRefresh {
  /** As-of dates whose evidence tables were computed now. */
  tables: number;
  /** As-of dates whose candidate odds were computed now. */
  odds: number;
  ms: number;
}

/**
 * Computes every missing evidence table and candidate-odds table of the current pipeline version. Both
 * measurements are planned first (which as-of dates are missing, which snapshot dates they need, from one
 * read of the store's dates); then every needed document is read once and reduced to what each measurement
 * needs (its state outputs, its trade), and the equities' bars are loaded once; then the evidence tables
 * are computed and stored, and the Kelly odds tables. An abort after the tables skips the odds (a later
 * start or evaluate computes what is missing).
 *
 * Two threads (subgraphs/analysis/evidence-tasks.ts): while this one reads the documents and the bars, a
 * worker decodes and reduces documents (this one takes its share of them between reads); then the worker
 * computes the probabilities halves of the evidence tables and the odds while this one computes the states
 * halves. Every part is a pure function merged in a fixed order, so the stored tables are the same bytes as
 * on one thread.
 */
export async function refreshEvidence(db: Db, signal?: AbortSignal, options: { workers?: number } = {}): Promise<EvidenceRefresh> {
  const started = performance.now();
  const known = await storeDates(db);
  const tablesPlan = await planEvidenceTables(db, known);
  const oddsPlan = await planCandidateOdds(db, { known });
  const oddsMissing = oddsPlan !== null && oddsPlan.missing.length > 0 ? oddsPlan : null;
  const done = (tables: number, odds: number): EvidenceRefresh => ({ tables, odds, ms: Math.round(performance.now() - started) });
  if (tablesPlan.missing.length === 0 && oddsMissing === null) return done(0, 0);

  const forTables = tablesPlan.documentDates;
  const forOdds = oddsMissing?.dates ?? [];
  const dates = [...new Set([...forTables, ...forOdds])].sort();
  // ANALYZE_WORKERS=0 keeps the step on this thread too.
  const threads = evidenceThreads(forTables, forOdds, { workers: options.workers === 0 ? 0 : 1 });
  try {
    // The first read's documents go to the worker while this thread loads the bars.
    let u: StoreUniverse | null = null;
    for (let k = 0; k < dates.length; k += DATES_PER_READ) {
      threads.add(await storedDocsOn(db, dates.slice(k, k + DATES_PER_READ), tablesPlan.pipelineVersion));
      if (u === null) {
        await threads.share(Infinity);
        u = await loadEquities(db);
      } else {
        await threads.share();
      }
    }
    if (u === null) u = await loadEquities(db);
    const universe = new Set(u.equities.map((e) => e.symbol));
    const outputs: StateOutputs[] = await presenceOnly(db, tablesPlan, universe);
    const reduced = await threads.reduced();
    for (const o of reduced.outputs) if (universe.has(o.symbol)) outputs.push(o);
    const candidates = reduced.candidates.filter((c) => universe.has(c.symbol));

    // Stopped by now: the tables are still computed and stored, the odds left to a later start.
    const odds = oddsMissing === null || signal?.aborted ? null : { plan: oddsMissing, candidates };
    const measured = await threads.measure(tablesPlan, u, outputs, odds);
    await storeEvidenceTables(db, tablesPlan.pipelineVersion, measured.tables);
    if (oddsMissing === null || signal?.aborted) return done(measured.tables.length, 0);
    if (measured.oddsError !== null) throw measured.oddsError;
    const oddsTables = measured.odds ?? [];
    await storeCandidateOdds(db, oddsMissing.pipelineVersion, oddsTables);
    return done(measured.tables.length, oddsTables.length);
  } finally {
    await threads.close();
  }
}
