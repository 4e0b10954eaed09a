/**
 * The evaluation of the stored snapshots (`tradegraph evaluate`): what followed each snapshot, measured
 * by the evidence engine (engine/evidence/), rendered as a Markdown report and recorded in evidence_runs.
 *
 *   securities and bars of the store -> the universe: every equity with bars; its calendar is the union
 *     of their dates (the pipeline's calendar), and the equal-weight universe of forward.ts is all of them
 *   snapshots of the current pipeline version in [from, to], read a few dates at a time and reduced to
 *     their outputs (rows.ts; the documents themselves are not kept)
 *   -> forward excess returns by horizon and baselines (rows.ts), evaluate (evaluate.ts) with the bars
 *      for pattern targets, report (report.ts)
 *   -> one evidence_runs row: pipeline version, as-of date, the evaluated snapshot dates, horizons, seed
 * (`tradegraph evaluate` then brings the as-of evidence tables and Kelly odds of every month up to date,
 * cli/evidence-history.ts, whatever the range and horizons of this evaluation.)
 *
 * As-of date: the last evaluated snapshot date whose forward window at the longest horizon ends within the
 * bars (its outcomes are known). Later snapshots still count at the horizons whose outcome is known.
 * Snapshots of another pipeline version are left out (and counted): they were computed by different code.
 */
import { PIPELINE_VERSION } from './engine/document.js';
import { evaluate, type Evaluation } from './engine/evidence/evaluate.js';
import { checkHorizons, DEFAULT_HORIZONS, ForwardTable } from './engine/evidence/forward.js';
import { renderReport } from './engine/evidence/report.js';
import { buildRows, outputsFromDocument, type EvaluationRow } from './engine/evidence/rows.js';
import { indexOfSorted } from './engine/sorted.js';
import type { Db } from '../platform/db.js';
import { loadEquities, readDocuments, type StoreUniverse } from './evidence-load.js';
import * as store from './store.js';

export interface EvidenceRunOptions {
  /** Snapshot dates evaluated (YYYY-MM-DD, inclusive); default all. */
  from?: string;
  to?: string;
  /** Horizons in trading days; default 20 and 60. */
  horizons?: readonly number[];
  /** Seed of every bootstrap and placebo draw; default 0. */
  seed?: number;
  /** Bootstrap replicates; default the engine's (1000). */
  replicates?: number;
  /**
   * Called with the report before the evaluation is recorded, inside the same transaction: when it throws
   * (the report file cannot be written), nothing is recorded.
   */
  deliver?: (report: string, run: store.EvidenceRunRecord, rows: readonly EvaluationRow[]) => Promise<void> | void;
}

export interface EvidenceRunResult {
  id: number;
  run: store.EvidenceRunRecord;
  evaluation: Evaluation;
  report: string;
  /** Snapshots in the range left out because another pipeline version computed them. */
  otherVersions: number;
}

/** Why there is nothing to evaluate (no snapshots, none of this version, no known outcome yet). */
export class NothingToEvaluate extends Error {}

/** The last date of `dates` (ascending) whose `horizon`-day window ends within the calendar; null if none. */
export function asOfDate(calendar: readonly string[], dates: readonly string[], horizon: number): string | null {
  for (let k = dates.length - 1; k >= 0; k--) {
    const i = indexOfSorted(calendar, dates[k]);
    if (i >= 0 && i + horizon < calendar.length) return dates[k];
  }
  return null;
}

function universeLine(u: StoreUniverse, run: store.EvidenceRunRecord, otherVersions: number): string {
  const longest = run.horizons[run.horizons.length - 1];
  const skipped = otherVersions > 0 ? ` ${otherVersions.toLocaleString('en-US')} snapshots of other pipeline versions in the range were left out.` : '';
  return (
    `Universe: the store's ${u.equities.length} equities (${u.sources.join(', ')} data), bars ${u.calendar[0]} to ${u.calendar[u.calendar.length - 1]}. ` +
    `Snapshots of pipeline version ${run.pipelineVersion}; as of ${run.asOfDate}, the last snapshot date with a known ${longest}-day outcome.${skipped}`
  );
}

/** Evaluates the stored snapshots, renders the report and records the evaluation (see the file comment). */
export async function runEvaluation(db: Db, options: EvidenceRunOptions = {}): Promise<EvidenceRunResult> {
  const horizons = checkHorizons(options.horizons ?? DEFAULT_HORIZONS);
  const seed = options.seed ?? 0;
  const version = PIPELINE_VERSION;
  const u = await loadEquities(db);
  const counts = await store.snapshotDateCounts(db, { from: options.from, to: options.to });
  const range = `${options.from ?? 'the first'} to ${options.to ?? 'the last'} snapshot date`;
  if (counts.length === 0) throw new NothingToEvaluate(`no stored snapshots from ${range}: run \`tradegraph analyze\` first (e.g. --every week)`);
  const dates = [...new Set(counts.filter((c) => c.pipelineVersion === version).map((c) => c.date))];
  const otherVersions = counts.filter((c) => c.pipelineVersion !== version).reduce((s, c) => s + c.snapshots, 0);
  if (dates.length === 0) {
    const found = [...new Set(counts.map((c) => c.pipelineVersion))].join(', ');
    throw new NothingToEvaluate(`the snapshots from ${range} are of pipeline version ${found}, not ${version}: run \`tradegraph analyze\` again`);
  }
  const longest = horizons[horizons.length - 1];
  const asOf = asOfDate(u.calendar, dates, longest);
  if (asOf === null) {
    throw new NothingToEvaluate(`no snapshot from ${range} has a known ${longest}-day outcome yet (bars end ${u.calendar[u.calendar.length - 1] ?? 'nowhere'})`);
  }

  const outputs = await readDocuments(db, dates, version, new Set(u.equities.map((e) => e.symbol)), outputsFromDocument);
  const forward = new ForwardTable(u.equities, dates, { horizons, calendar: u.calendar });
  const rows = buildRows(outputs, forward, u.equities);
  const evaluation = evaluate(rows, { horizons, seed, bars: u.equities, calendar: u.calendar, replicates: options.replicates });
  const run: store.EvidenceRunRecord = {
    pipelineVersion: version,
    asOfDate: asOf,
    fromDate: evaluation.from ?? dates[0],
    toDate: evaluation.to ?? dates[dates.length - 1],
    horizons,
    seed,
    snapshots: evaluation.rows,
    symbols: evaluation.symbols,
    evaluation,
  };
  const report = renderReport(evaluation, { universe: universeLine(u, run, otherVersions) });
  const id = await db.transaction(async (tx) => {
    const recorded = await store.recordEvidenceRun(tx, run);
    await options.deliver?.(report, run, rows);
    return recorded;
  });
  return { id, run, evaluation, report, otherVersions };
}
