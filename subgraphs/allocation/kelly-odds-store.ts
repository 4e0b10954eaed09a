/**
 * Kelly's measured odds in the store (table `candidate_odds`, migrations.ts): computed from the stored
 * snapshots and bars by engine/kelly-odds.ts, one table per pipeline version and as-of date.
 *
 * refreshCandidateOdds: the as-of schedule is the last trading day of each complete calendar month of the
 * equities' calendar, from the month in which the first snapshot's outcome can be known (its date + W
 * bars). The schedule needs the calendar only, so when every scheduled date is stored no bar or document is
 * read. Otherwise every snapshot of the current pipeline version whose trade can have an outcome within the
 * calendar (a full window of W bars after it) is read a few dates at a time and reduced to its trade
 * (engine/candidates.ts; only eligible candidates with a target), each trade is followed over its symbol's
 * bars, and the missing tables are written in one transaction. A table depends only on outcomes known by
 * its as-of date, so a stored table is never rewritten and a repeated refresh computes nothing.
 * The steps are exported (plan, trade candidate of a document, compute, store) so that the evidence step
 * (cli/evidence-history.ts) reads each document once for both of its measurements.
 *
 * candidateOddsFor(db, date): the table with the greatest as_of <= date (current pipeline version), or null.
 * Tables never change, so parsed tables are kept per store and as-of date.
 */
import { PIPELINE_VERSION } from '../analysis/engine/document.js';
import { equitiesWithBars } from '../analysis/pipeline.js';
import * as analysisStore from '../analysis/store.js';
import type { StoreDates } from '../analysis/evidence-states.js';
import type { BarSeries } from '../analysis/engine/market-types.js';
import { indexOfSorted } from '../analysis/engine/sorted.js';
import type { Db, Queryable } from '../platform/db.js';
import { candidateFromDocument } from './engine/candidates.js';
import { candidateState, oddsAsOfDates, ODDS_WINDOW, oddsTables, tradesOf, withOdds, type CandidateOddsTable, type OddsTrade } from './engine/kelly-odds.js';
import type { Candidate } from './engine/types.js';

/** Snapshot dates read per query (a date holds one document per symbol, kilobytes each). */
const DATES_PER_READ = 20;
/** Tables written per INSERT. */
const TABLES_PER_INSERT = 20;

export interface OddsRefresh {
  /** As-of dates computed now. */
  computed: string[];
  /** Scheduled as-of dates already stored. */
  skipped: number;
  /** Trades in the history (0 when nothing had to be read). */
  trades: number;
}

/** What a refresh has to compute (see planCandidateOdds). */
export interface OddsPlan {
  pipelineVersion: string;
  /** Every scheduled as-of date, ascending. */
  schedule: string[];
  /** Scheduled dates already stored. */
  stored: ReadonlySet<string>;
  /** Scheduled dates not stored yet, ascending. */
  missing: string[];
  /**
   * The snapshot dates whose trade can have an outcome within the calendar (W bars after it), ascending: a
   * later snapshot is never a trade of any table, so its document need not be read.
   */
  dates: string[];
}

/** The schedule and what of it is missing; null when nothing is scheduled (see the file comment). */
export async function planCandidateOdds(
  db: Queryable,
  options: {
    pipelineVersion?: string;
    /** The store's snapshot dates by pipeline version and the equities' calendar, when already read. */
    known?: StoreDates;
  } = {},
): Promise<OddsPlan | null> {
  const version = options.pipelineVersion ?? PIPELINE_VERSION;
  const dates = (options.known?.counts ?? (await analysisStore.snapshotDateCounts(db, {}))).filter((c) => c.pipelineVersion === version).map((c) => c.date);
  if (dates.length === 0) return null;
  // The schedule needs the calendar only (the equities' bar dates); the bars are loaded when a table is missing.
  const calendar = options.known?.calendar ?? (await analysisStore.equityBarDates(db));
  const first = calendar.findIndex((d) => d >= dates[0]);
  if (first < 0 || first + ODDS_WINDOW >= calendar.length) return null;
  const schedule = oddsAsOfDates(calendar, calendar[first + ODDS_WINDOW]);
  const stored = new Set(
    (await db.query<{ as_of: string }>('SELECT as_of::text AS as_of FROM candidate_odds WHERE pipeline_version = $1', [version])).map((r) => r.as_of),
  );
  const missing = schedule.filter((d) => !stored.has(d));
  const withOutcome = dates.filter((d) => {
    const i = indexOfSorted(calendar, d);
    return i >= 0 && i + ODDS_WINDOW < calendar.length;
  });
  return { pipelineVersion: version, schedule, stored, missing, dates: withOutcome };
}

/** The trade a stored document gives (its candidate, without the row fields a trade does not need), or null. */
export function tradeCandidate(doc: Readonly<Record<string, unknown>>): Candidate | null {
  const c = candidateFromDocument(doc, null);
  return c === null || candidateState(c) === null ? null : lean(c);
}

/** The missing tables of a plan from the trade candidates of its snapshot dates (any order) and the equities' bars. */
export function computeCandidateOdds(plan: OddsPlan, equities: readonly BarSeries[], candidates: readonly Candidate[]): { tables: CandidateOddsTable[]; trades: number } {
  const bars = new Map(equities.map((e) => [e.symbol, e] as const));
  const bySymbol = new Map<string, Candidate[]>();
  for (const c of candidates) {
    if (!bars.has(c.symbol)) continue;
    let list = bySymbol.get(c.symbol);
    if (!list) bySymbol.set(c.symbol, (list = []));
    list.push(c);
  }
  const trades: OddsTrade[] = [];
  for (const [symbol, list] of bySymbol) trades.push(...tradesOf(list, bars.get(symbol) as BarSeries));
  const tables = oddsTables(trades, plan.schedule, plan.pipelineVersion).filter((t) => !plan.stored.has(t.as_of));
  return { tables, trades: trades.length };
}

/** Stores computed tables in one transaction (a table already stored is kept). */
export async function storeCandidateOdds(db: Db, pipelineVersion: string, tables: readonly CandidateOddsTable[]): Promise<void> {
  await db.transaction(async (tx) => {
    for (let k = 0; k < tables.length; k += TABLES_PER_INSERT) {
      const chunk = tables.slice(k, k + TABLES_PER_INSERT);
      const params: unknown[] = [];
      const tuples = chunk.map((t) => {
        params.push(pipelineVersion, t.as_of, t.pooled?.n ?? 0, JSON.stringify(t));
        const i = params.length;
        return `($${i - 3}, $${i - 2}::date, $${i - 1}, $${i}::jsonb)`;
      });
      await tx.query(
        `INSERT INTO candidate_odds (pipeline_version, as_of, trades, odds) VALUES ${tuples.join(', ')} ON CONFLICT (pipeline_version, as_of) DO NOTHING`,
        params,
      );
    }
  });
}

/** Computes and stores every missing candidate-odds table of the current pipeline version (see the file comment). */
export async function refreshCandidateOdds(db: Db, options: { pipelineVersion?: string } = {}): Promise<OddsRefresh> {
  const plan = await planCandidateOdds(db, options);
  if (plan === null) return { computed: [], skipped: 0, trades: 0 };
  if (plan.missing.length === 0) return { computed: [], skipped: plan.schedule.length, trades: 0 };

  const { equities } = equitiesWithBars(await analysisStore.listAllSecurities(db), await analysisStore.listAllBarSeries(db));
  const symbols = new Set(equities.map((e) => e.security.symbol));
  const candidates: Candidate[] = [];
  for (let k = 0; k < plan.dates.length; k += DATES_PER_READ) {
    for (const d of await analysisStore.snapshotDocsOn(db, plan.dates.slice(k, k + DATES_PER_READ), plan.pipelineVersion)) {
      if (!symbols.has(d.symbol)) continue;
      const c = tradeCandidate(JSON.parse(d.docText) as Record<string, unknown>);
      if (c !== null) candidates.push(c);
    }
  }
  const { tables, trades } = computeCandidateOdds(
    plan,
    equities.map((e) => e.bars),
    candidates,
  );
  await storeCandidateOdds(db, plan.pipelineVersion, tables);
  return { computed: tables.map((t) => t.as_of), skipped: plan.schedule.length - plan.missing.length, trades };
}

/** The candidate without the row fields a trade does not need (the history holds tens of thousands). */
function lean(c: Candidate): Candidate {
  return { ...c, row: { ...c.row, signal_reason: null, volatility_stop_loss_levels: null, support_levels: null, resistance_levels: null } };
}

const parsed = new WeakMap<Queryable, Map<string, CandidateOddsTable>>();

/** The odds table with the greatest as_of <= date of the current pipeline version, or null (see the file comment). */
export async function candidateOddsFor(db: Queryable, date: string, pipelineVersion: string = PIPELINE_VERSION): Promise<CandidateOddsTable | null> {
  const [row] = await db.query<{ as_of: string }>(
    'SELECT as_of::text AS as_of FROM candidate_odds WHERE pipeline_version = $1 AND as_of <= $2::date ORDER BY as_of DESC LIMIT 1',
    [pipelineVersion, date],
  );
  if (!row) return null;
  let known = parsed.get(db);
  if (!known) parsed.set(db, (known = new Map()));
  const key = `${pipelineVersion}|${row.as_of}`;
  const hit = known.get(key);
  if (hit) return hit;
  const [found] = await db.query<{ odds: string }>('SELECT odds::text AS odds FROM candidate_odds WHERE pipeline_version = $1 AND as_of = $2::date', [
    pipelineVersion,
    row.as_of,
  ]);
  if (!found) return null;
  const table = JSON.parse(found.odds) as CandidateOddsTable;
  known.set(key, table);
  return table;
}

/** What the stored odds depend on (changes whenever a table is added): part of a universe's version. */
export async function candidateOddsVersion(db: Queryable, pipelineVersion: string = PIPELINE_VERSION): Promise<{ latest: string | null; tables: number }> {
  const [row] = await db.query<{ latest: string | null; tables: number }>(
    'SELECT max(as_of)::text AS latest, count(*)::int AS tables FROM candidate_odds WHERE pipeline_version = $1',
    [pipelineVersion],
  );
  return { latest: row?.latest ?? null, tables: row?.tables ?? 0 };
}

/** Candidates with their Kelly odds attached, each from the table in force on its own analysis date. */
export async function attachCandidateOdds(db: Queryable, candidates: readonly Candidate[]): Promise<Candidate[]> {
  const tables = new Map<string, CandidateOddsTable | null>();
  for (const date of new Set(candidates.map((c) => c.analysis_date))) tables.set(date, await candidateOddsFor(db, date));
  return candidates.map((c) => withOdds(c, tables.get(c.analysis_date) ?? null));
}
