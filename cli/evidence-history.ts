/**
 * The measured record behind a store: a sampled history of snapshots and the evidence measured on it.
 *
 * Reads carry `evidence` and calibrated probabilities, and Kelly sizes from measured odds, only where the
 * store has a history whose outcomes are known (subgraphs/analysis/evidence-states.ts and
 * subgraphs/allocation/kelly-odds-store.ts). On a fresh demo store there is none, so the start-up analyses
 * every Nth trading day of the whole calendar (ANALYZE_HISTORY_EVERY, default 10; 0 turns it off) and then
 * refreshes both measurements. `tradegraph evaluate` refreshes them too, for any imported universe.
 *
 * Resumable and idempotent: the sample grid is fixed by the calendar's first day and N, a date counts as
 * done when it has snapshots, and only the dates from the first missing one on are analysed (a start
 * stopped during the history analyses them again next time; a run is one transaction).
 */
import type { Db } from '../subgraphs/platform/db.js';
import { runAnalysis, sampleDates, type AnalyzeOptions, type AnalyzeSummary } from '../subgraphs/analysis/pipeline.js';
import * as analysisStore from '../subgraphs/analysis/store.js';
import { MIN_BARS } from '../subgraphs/analysis/analyze-batch.js';
import { refreshEvidenceTables } from '../subgraphs/analysis/evidence-states.js';
import { refreshCandidateOdds } from '../subgraphs/allocation/kelly-odds-store.js';

/** Enough trading days to cover any store's calendar (about 400 years). */
const WHOLE_CALENDAR = 100_000;

/**
 * The sampled dates of the whole calendar that have no snapshot yet, oldest first. The grid starts on the
 * calendar's first day; dates before any equity has MIN_BARS bars can hold no snapshot and are left out.
 */
export async function missingSampleDates(db: Db, every: number): Promise<string[]> {
  const calendar = (await analysisStore.recentTradingDates(db, WHOLE_CALENDAR)).reverse();
  if (calendar.length < MIN_BARS) return [];
  const firstDocumentable = calendar[MIN_BARS - 1];
  const grid = sampleDates(calendar, calendar, every).filter((date) => date >= firstDocumentable);
  const coverage = await analysisStore.snapshotCoverage(db, grid);
  return grid.filter((date) => (coverage.get(date)?.snapshots ?? 0) === 0);
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

/** Computes every missing evidence table and candidate-odds table of the current pipeline version. */
export async function refreshEvidence(db: Db): Promise<EvidenceRefresh> {
  const started = performance.now();
  const tables = await refreshEvidenceTables(db);
  const odds = await refreshCandidateOdds(db);
  return { tables: tables.computed.length, odds: odds.computed.length, ms: Math.round(performance.now() - started) };
}
