/**
 * Kelly's odds, measured: how often past candidates in the same state reached their target before their
 * stop, as a calibrated probability for a new candidate. Pure: no I/O, no clock, no randomness; the same
 * history always gives the same tables.
 *
 * 1. The trade. A candidate (engine/candidates.ts) is the long trade entry = close, stop = stop_loss,
 *    target = target_price. Only eligible candidates with a target are trades (the ones Kelly can size).
 *    Its state is the stage with its strength and the target's source, e.g. 'STAGE 2 STRONG/pattern'
 *    ('STAGE 2/atr' when the strength is unknown).
 *
 * 2. The no-edge reference. For a driftless price the chance of touching target before stop is
 *    p0 = (entry - stop) / (target - stop) (gambler's ruin), and with b = (target - entry) / (entry - stop)
 *    the Kelly fraction p0 - (1 - p0) / b is exactly 0. Any p above p0 is an edge, f* = (p - p0) / (1 - p0).
 *
 * 3. History. Each stored snapshot's trade is followed over the symbol's next W = DEFAULT_PATTERN_WINDOW
 *    bars (analysis engine/evidence/targets.ts `targetOutcome`: highs and lows, a bar touching both levels
 *    counts as the stop, a timeout counts as not reaching the target). The outcome is known on the date of
 *    the symbol's bar start + W (the symbol's own bars: with gaps that is later than the calendar's, never
 *    earlier, so no outcome is used before it happened).
 *    Overlap. Weekly snapshots of one symbol share most of their 60-bar windows, so their outcomes are far
 *    from independent. Each trade is weighted by min(1, gap / W), gap = the symbol's bars since its previous
 *    trade in the history (1 for its first): the weights sum to about the number of non-overlapping windows
 *    (`windows`), and that, not the count of trades (`n`), is what the fit and the minimums trust.
 *
 * 4. Calibration (per as-of date A: trades whose outcome is known on or before A). The chance of the target
 *    first is modelled as logit p = alpha + beta x logit(p0), fitted by weighted maximum likelihood with a
 *    Gaussian (ridge) prior of strength PRIOR_STRENGTH on (alpha, beta):
 *    - pooled over every state, toward the no-edge reference (alpha 0, beta 1: p = p0);
 *    - per state with at least MIN_STATE_WINDOWS windows, also toward the no-edge reference; a state with
 *      fewer uses the pooled fit (its note says so).
 *    Why each state is shrunk toward "no edge" rather than toward the pool: the pool holds the other
 *    states' edges, and shrinking toward it hands them to a state whose own history shows none (a state
 *    hit exactly at p0 next to one hit far above it would get a positive f*). A state's edge must come
 *    from its own trades.
 *    Why not isotonic regression on p0: a step function is constant within a block while p0 varies, so
 *    every candidate at the low end of a block would get p > p0, a false edge that Kelly sizes; and a
 *    scalar base-rate prior pulls long shots (small p0) up toward the average hit rate, again a false edge.
 *    The model above degrades to p = p0 (no position) when the history says nothing.
 *    Below MIN_POOLED_WINDOWS pooled windows there is no table value at all: p is unknown.
 *
 * 5. As-of dates: the last trading day of each complete calendar month of the calendar (a month is complete
 *    once the calendar has a later month), from the first month in which an outcome is known. A candidate
 *    dated D uses the table with the greatest as_of <= D. A table is a function of the trades with outcome
 *    known by its as_of only, so bars or snapshots after it never change it.
 *
 * 6. Out-of-sample metrics of a table: every trade known by its as_of, scored by the table in force on the
 *    trade's own date (fitted only on outcomes known before it), against its outcome: Brier score, ECE
 *    (10 uniform bins) and the reliability table (calibration.ts), with the no-edge reference's Brier score.
 */
import { calibrationMetrics, type ReliabilityRow } from '../../analysis/engine/evidence/calibration.js';
import { evidenceAsOfDates } from '../../analysis/engine/evidence/states.js';
import { DEFAULT_PATTERN_WINDOW, targetOutcome, type PathSeries } from '../../analysis/engine/evidence/targets.js';
import { indexOfSorted } from '../../analysis/engine/sorted.js';
import type { Candidate, KellyOdds } from './types.js';

export type { KellyOdds } from './types.js';

export const ODDS_WINDOW = DEFAULT_PATTERN_WINDOW;
/** Ridge prior strength on (alpha, beta); about 25 non-overlapping trades' worth of information at p near 0.3. */
export const PRIOR_STRENGTH = 5;
/** Fewest non-overlapping windows a state needs for its own fit (else the pooled fit is used). */
export const MIN_STATE_WINDOWS = 20;
/** Fewest non-overlapping windows pooled over all states below which p is unknown. */
export const MIN_POOLED_WINDOWS = 50;
/** p0 is clamped to this range before its logit is taken. */
const P0_LIMIT = 1e-4;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const logit = (p: number): number => {
  const q = Math.min(1 - P0_LIMIT, Math.max(P0_LIMIT, p));
  return Math.log(q / (1 - q));
};
const sigmoid = (f: number): number => {
  const e = Math.exp(-Math.abs(f));
  return f >= 0 ? 1 / (1 + e) : e / (1 + e);
};
const round6 = (v: number): number => Math.round(v * 1e6) / 1e6;

// ---------------------------------------------------------------------------------------------------------
// Trades
// ---------------------------------------------------------------------------------------------------------

/** The candidate's state label (stage, strength, target source); null when it is not a trade. */
export function candidateState(c: Candidate): string | null {
  if (!c.eligible || c.target_price === null || c.target_source === null || c.row.stage === null) return null;
  const stage = c.row.stage_strength ? `${c.row.stage} ${c.row.stage_strength}` : c.row.stage;
  return `${stage}/${c.target_source}`;
}

/** p0 = (entry - stop) / (target - stop), the no-edge chance of the target first; null without a trade. */
export function noEdgeProbability(c: Candidate): number | null {
  const { entry_price: entry, stop_loss: stop, target_price: target } = c;
  if (!isNum(entry) || !isNum(stop) || !isNum(target) || !(stop < entry) || !(target > entry) || !(stop >= 0)) return null;
  return (entry - stop) / (target - stop);
}

/** One past trade and its outcome. */
export interface OddsTrade {
  symbol: string;
  /** Snapshot date (the trade's entry). */
  date: string;
  state: string;
  p0: number;
  /** 1 when the target came first. */
  hit: 0 | 1;
  /** Date the outcome became known (the symbol's bar W bars after the entry). */
  known: string;
  /** Overlap weight in (0, 1] (header, step 3). */
  weight: number;
}

/**
 * The trades of one symbol's candidates (any order; one per date) over its bars (oldest first, with highs
 * and lows). Candidates that are not trades, dated off the bars, or without a full window are left out.
 */
export function tradesOf(candidates: readonly Candidate[], bars: PathSeries & { dates: readonly string[] }, window = ODDS_WINDOW): OddsTrade[] {
  const out: OddsTrade[] = [];
  const sorted = [...candidates].sort((a, b) => (a.analysis_date < b.analysis_date ? -1 : a.analysis_date > b.analysis_date ? 1 : 0));
  let previous = -1;
  for (const c of sorted) {
    const state = candidateState(c);
    const p0 = noEdgeProbability(c);
    if (state === null || p0 === null) continue;
    const start = indexOfSorted(bars.dates, c.analysis_date);
    if (start < 0) continue;
    const outcome = targetOutcome(bars, start, (c.target_price as number) / c.entry_price - 1, c.stop_loss / c.entry_price - 1, window);
    if (outcome === null) continue;
    const weight = previous < 0 ? 1 : Math.min(1, (start - previous) / window);
    previous = start;
    out.push({ symbol: c.symbol, date: c.analysis_date, state, p0, hit: outcome === 'target' ? 1 : 0, known: bars.dates[start + window], weight });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Fitting
// ---------------------------------------------------------------------------------------------------------

/** A fitted logit p = alpha + beta x logit(p0) over a group of trades. */
export interface OddsFit {
  /** Trades, non-overlapping windows (sum of weights), trades that hit the target. */
  n: number;
  windows: number;
  hits: number;
  /** Weighted hit rate and weighted mean p0 of the group (what the pool did vs the no-edge reference). */
  hit_rate: number;
  mean_p0: number;
  alpha: number;
  beta: number;
}

interface Group {
  s: number[];
  y: number[];
  w: number[];
  n: number;
  hits: number;
  windows: number;
  sumP0: number;
  sumHit: number;
}

const emptyGroup = (): Group => ({ s: [], y: [], w: [], n: 0, hits: 0, windows: 0, sumP0: 0, sumHit: 0 });

function addTrade(g: Group, t: OddsTrade): void {
  g.s.push(logit(t.p0));
  g.y.push(t.hit);
  g.w.push(t.weight);
  g.n++;
  g.hits += t.hit;
  g.windows += t.weight;
  g.sumP0 += t.weight * t.p0;
  g.sumHit += t.weight * t.hit;
}

/** Weighted MAP logistic fit of y on (1, s) with a ridge of strength `lambda` toward `prior` (Newton, step halving). */
function fitGroup(g: Group, prior: readonly [number, number], lambda: number): OddsFit {
  let a = prior[0];
  let b = prior[1];
  const objective = (aa: number, bb: number): number => {
    let ll = 0;
    for (let i = 0; i < g.s.length; i++) {
      const f = aa + bb * g.s[i];
      // log sigmoid(f) for y = 1, log(1 - sigmoid(f)) for y = 0.
      const z = g.y[i] === 1 ? f : -f;
      ll += g.w[i] * -(Math.max(-z, 0) + Math.log1p(Math.exp(-Math.abs(z))));
    }
    return ll - (lambda / 2) * ((aa - prior[0]) ** 2 + (bb - prior[1]) ** 2);
  };
  let value = objective(a, b);
  for (let iteration = 0; iteration < 50; iteration++) {
    let ga = -lambda * (a - prior[0]);
    let gb = -lambda * (b - prior[1]);
    let haa = lambda;
    let hab = 0;
    let hbb = lambda;
    for (let i = 0; i < g.s.length; i++) {
      const p = sigmoid(a + b * g.s[i]);
      const r = g.w[i] * (g.y[i] - p);
      const v = g.w[i] * p * (1 - p);
      ga += r;
      gb += r * g.s[i];
      haa += v;
      hab += v * g.s[i];
      hbb += v * g.s[i] * g.s[i];
    }
    const det = haa * hbb - hab * hab;
    if (!(det > 0)) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    let step = 1;
    let moved = false;
    while (step > 1e-8) {
      const next = objective(a + step * da, b + step * db);
      if (next >= value) {
        a += step * da;
        b += step * db;
        moved = next - value > 1e-12;
        value = next;
        break;
      }
      step /= 2;
    }
    if (!moved || Math.max(Math.abs(da), Math.abs(db)) * step < 1e-9) break;
  }
  return { ...summaryOf(g), alpha: a, beta: b };
}

/** The group's counts without a fit (alpha 0, beta 1: the no-edge reference; not used for odds). */
function summaryOf(g: Group): OddsFit {
  return {
    n: g.n,
    windows: round6(g.windows),
    hits: g.hits,
    hit_rate: g.windows > 0 ? round6(g.sumHit / g.windows) : 0,
    mean_p0: g.windows > 0 ? round6(g.sumP0 / g.windows) : 0,
    alpha: 0,
    beta: 1,
  };
}

const NO_EDGE: readonly [number, number] = [0, 1];

/** The measured chance of the target first for a trade with no-edge probability p0 under a fit. */
export function fittedProbability(fit: Pick<OddsFit, 'alpha' | 'beta'>, p0: number): number {
  return sigmoid(fit.alpha + fit.beta * logit(p0));
}

// ---------------------------------------------------------------------------------------------------------
// As-of tables
// ---------------------------------------------------------------------------------------------------------

export interface OddsMetrics {
  /** Trades known by as_of that had a table in force on their own date. */
  n: number;
  brier: number;
  ece: number;
  /** Brier score of predicting p0 itself (the no-edge reference) on the same trades. */
  brier_no_edge: number;
  reliability: ReliabilityRow[];
}

export interface CandidateOddsTable {
  as_of: string;
  pipeline_version: string;
  window: number;
  prior_strength: number;
  min_state_windows: number;
  min_pooled_windows: number;
  /** Every trade known by as_of (null before the first). */
  pooled: OddsFit | null;
  /** Per state with at least one known trade; `fitted` false below MIN_STATE_WINDOWS (the pooled fit applies). */
  states: Record<string, OddsFit & { fitted: boolean }>;
  metrics: OddsMetrics | null;
}

/**
 * The as-of dates of a calendar (ascending YYYY-MM-DD): the last trading day of each complete calendar month,
 * from `from` on (header, step 5). The same schedule as the evidence tables (one month-end rule for both).
 */
export function oddsAsOfDates(calendar: readonly string[], from: string | null = calendar[0] ?? null): string[] {
  return evidenceAsOfDates(calendar, from);
}

/** The tables for every as-of date (ascending), from the full history of trades. */
export function oddsTables(trades: readonly OddsTrade[], asOfs: readonly string[], pipelineVersion: string): CandidateOddsTable[] {
  const byKnown = [...trades].sort((a, b) => (a.known < b.known ? -1 : a.known > b.known ? 1 : a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : a.date < b.date ? -1 : 1));
  const tables: CandidateOddsTable[] = [];
  const pooled = emptyGroup();
  const states = new Map<string, Group>();
  /** Out-of-sample prediction of each trade (by the table in force on its date), in byKnown order. */
  const predicted: Array<number | null> = [];
  let k = 0;
  for (const asOf of asOfs) {
    while (k < byKnown.length && byKnown[k].known <= asOf) {
      const t = byKnown[k];
      addTrade(pooled, t);
      let g = states.get(t.state);
      if (!g) states.set(t.state, (g = emptyGroup()));
      addTrade(g, t);
      const inForce = tableAt(tables, t.date);
      predicted.push(inForce ? probabilityFrom(inForce, t.state, t.p0).p : null);
      k++;
    }
    tables.push(buildTable(asOf, pipelineVersion, pooled, states, byKnown.slice(0, k), predicted));
  }
  return tables;
}

function buildTable(
  asOf: string,
  pipelineVersion: string,
  pooledGroup: Group,
  groups: ReadonlyMap<string, Group>,
  known: readonly OddsTrade[],
  predicted: ReadonlyArray<number | null>,
): CandidateOddsTable {
  const pooled = pooledGroup.n > 0 ? fitGroup(pooledGroup, NO_EDGE, PRIOR_STRENGTH) : null;
  const states: CandidateOddsTable['states'] = {};
  for (const label of [...groups.keys()].sort()) {
    const g = groups.get(label) as Group;
    const fitted = pooled !== null && pooled.windows >= MIN_POOLED_WINDOWS && g.windows >= MIN_STATE_WINDOWS;
    states[label] = fitted ? { ...fitGroup(g, NO_EDGE, PRIOR_STRENGTH), fitted } : { ...summaryOf(g), fitted };
  }
  const p: number[] = [];
  const y: number[] = [];
  const p0: number[] = [];
  for (let i = 0; i < known.length; i++) {
    const value = predicted[i];
    if (value === null || value === undefined) continue;
    p.push(value);
    y.push(known[i].hit);
    p0.push(known[i].p0);
  }
  let metrics: OddsMetrics | null = null;
  if (p.length > 0) {
    const m = calibrationMetrics(p, y);
    const reference = calibrationMetrics(p0, y);
    metrics = { n: m.n, brier: m.brier as number, ece: m.ece as number, brier_no_edge: reference.brier as number, reliability: m.reliability };
  }
  return {
    as_of: asOf,
    pipeline_version: pipelineVersion,
    window: ODDS_WINDOW,
    prior_strength: PRIOR_STRENGTH,
    min_state_windows: MIN_STATE_WINDOWS,
    min_pooled_windows: MIN_POOLED_WINDOWS,
    pooled,
    states,
    metrics,
  };
}

/** The table with the greatest as_of <= date among `tables` (ascending by as_of), or null. */
export function tableAt<T extends { as_of: string }>(tables: readonly T[], date: string): T | null {
  let lo = 0;
  let hi = tables.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (tables[mid].as_of <= date) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? tables[lo - 1] : null;
}

// ---------------------------------------------------------------------------------------------------------
// Applying a table
// ---------------------------------------------------------------------------------------------------------

function probabilityFrom(table: CandidateOddsTable, state: string, p0: number): { p: number | null; source: KellyOdds['source']; fit: OddsFit | null; reason: string | null } {
  const pooled = table.pooled;
  if (pooled === null || pooled.windows < MIN_POOLED_WINDOWS) {
    return { p: null, source: null, fit: pooled, reason: `only ${f1(pooled?.windows ?? 0)} non-overlapping trades were known by ${table.as_of} (at least ${MIN_POOLED_WINDOWS} are needed)` };
  }
  const own = table.states[state];
  if (own && own.fitted) return { p: round6(fittedProbability(own, p0)), source: 'state', fit: own, reason: null };
  const why = own ? `${state} has ${f1(own.windows)} non-overlapping trades (< ${MIN_STATE_WINDOWS})` : `${state} has no trades with a known outcome`;
  return { p: round6(fittedProbability(pooled, p0)), source: 'pooled', fit: pooled, reason: why };
}

const f1 = (v: number): string => (Math.round(v * 10) / 10).toString();

/** Kelly's odds for one candidate under a table (null table: not measured yet). */
export function oddsFor(table: CandidateOddsTable | null, c: Candidate): KellyOdds {
  const state = candidateState(c);
  const p0 = noEdgeProbability(c);
  if (table === null) {
    return { p: null, p0, state, source: null, n: 0, windows: 0, as_of: null, reason: 'the win odds are not measured yet (run `tradegraph evaluate`)' };
  }
  if (state === null || p0 === null) {
    return { p: null, p0, state, source: null, n: 0, windows: 0, as_of: table.as_of, reason: 'not a trade (no target above the entry, or not eligible)' };
  }
  const r = probabilityFrom(table, state, p0);
  return { p: r.p, p0: round6(p0), state, source: r.source, n: r.fit?.n ?? 0, windows: r.fit?.windows ?? 0, as_of: table.as_of, reason: r.reason };
}

/** The candidate with its Kelly odds attached (win_probability = the measured p, or null). */
export function withOdds(c: Candidate, table: CandidateOddsTable | null): Candidate {
  const odds = oddsFor(table, c);
  return { ...c, win_probability: odds.p, kelly_odds: odds };
}
