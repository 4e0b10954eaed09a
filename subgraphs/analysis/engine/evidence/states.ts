/**
 * As-of evidence tables (state-evidence.ts): for each as-of date A, what followed past snapshots in each
 * state, and the calibrator of each probability, measured only on outcomes known by A. Pure and
 * deterministic per seed: no I/O, no clock, no Math.random.
 *
 * Inputs: snapshot rows (rows.ts outputs with forward excess returns at 20 and 60 trading days, plus the best
 * pattern's type and confidence), the trading calendar, each symbol's bars (for pattern targets) and the
 * as-of dates (ascending).
 *
 * Known by A. A row dated D at calendar position i has its h-day outcome known when calendar[i + h] <= A;
 * its pattern trade (targets.ts, window W) when the W-th bar of its symbol after D is dated <= A (that bar is
 * never earlier than calendar[i + W]). A table reads nothing else about the future: the placebo of a
 * detection draws only from days of its symbol whose own window ends by the detection's window end, so a
 * table for A is a function of the snapshots and bars dated <= A.
 *
 * One sweep. Every row's outcomes are assigned to the first as-of date by which they are known; the as-of
 * dates are then visited in order, each adding its newly known outcomes to running per-state and
 * per-probability accumulators, so the work on the rows is done once for all dates and only the summaries
 * (bootstrap intervals) and calibrator fits are repeated per date.
 *
 * State records (per output and state label): n and dates of rows with a known 20-day excess return; hit
 * rate and mean at 20 days, mean at 60 days, from summary.ts groupSummary with block bootstrap over dates,
 * the minimum block being the windows' overlap in snapshot dates, ceil(h / step), as evaluate.ts does
 * (step inferred from the snapshot dates <= A). An estimate (value and interval) is given only with at least
 * `minDates` dates and `minOutcomes` rows; otherwise both are null and n still says how many there were.
 * best_pattern records also carry target_first: the share of open trades (target and stop on opposite sides)
 * whose target came before the stop within W bars (timeouts count as misses), with its interval, and the
 * placebo share (the same distances from `placeboDraws` random earlier days of the same symbol).
 *
 * Calibrators (calibration.ts fitCalibrator, isotonic, shrunk toward the base rate with the default prior
 * strength) on every known (score, outcome) pair; null below MIN_CALIBRATION_OUTCOMES. The rules confidence
 * and the enhanced (blended) signal's confidence have one calibrator per signal each, with the same events
 * (BUY right: 20-day excess > 0; SELL: < 0; HOLD: in the quieter half of its date), keyed by the rules
 * signal and by the enhanced signal respectively. Out-of-sample
 * metrics walk forward: every row whose outcome is known by A is scored by the calibrator of the table a
 * snapshot on its date would have used (the greatest as-of <= its date, always fitted before its outcome
 * was known), rows without such a calibrator are left out, and Brier score, ECE and the reliability table
 * (ten equal-width bins) are computed on those scores.
 *
 * Randomness: each summary has its own generator stream under `seed`, derived from the output, label and
 * figure (not from how many states exist), and each detection's placebo draws have a stream derived from its
 * symbol and date.
 */
import type { PatternType, Signal } from '../document.js';
import { createPrng } from '../prng.js';
import { indexOfSorted, upperBound } from '../sorted.js';
import { calibrate, calibrationMetrics, fitCalibrator, type Calibrator } from './calibration.js';
import { integerOption, minBlockLength, sataBucket } from './evaluate.js';
import { quietHalf } from './by-date.js';
import { checkAscending, inferSamplingStep, monthEnds } from './forward.js';
import type { EvaluationRow } from './rows.js';
import {
  EVIDENCE_HORIZONS,
  EVIDENCE_OUTPUTS,
  MIN_CALIBRATION_OUTCOMES,
  type Estimate,
  type EvidenceOutput,
  type EvidenceTable,
  type ProbabilityCalibration,
  type StateRecord,
} from './state-evidence.js';
import { groupSummary, type GroupSummary, type SummaryOptions } from './summary.js';
import { DEFAULT_PATTERN_WINDOW, placeboDays, placeboOutcomes, targetOutcome, type PathSeries } from './targets.js';

/** One snapshot as the tables need it. */
export interface StateRow
  extends Pick<EvaluationRow, 'symbol' | 'date' | 'stage' | 'stageStrength' | 'signal' | 'confidence' | 'mlProbability' | 'sataScore' | 'bestPattern' | 'forwardExcess'> {
  /** The best pattern's type whether or not its trade is open; null without a best pattern. */
  bestPatternType: PatternType | null;
  /** The best pattern's confidence (the pattern_target score); null without one. */
  patternConfidence: number | null;
  /** The enhanced (blended) signal; absent or null without one (no enhanced_confidence outcome then). */
  enhancedSignal?: Signal | null;
  /** `enhanced_signal.confidence` (the enhanced_confidence score); absent or null without one. */
  enhancedConfidence?: number | null;
}

export interface EvidenceTablesOptions {
  /** Trading calendar (ascending, distinct). */
  calendar: readonly string[];
  /** Each symbol's bars (closes with highs and lows), for pattern targets. */
  paths: readonly PathSeries[];
  /** As-of dates, ascending. */
  asOf: readonly string[];
  /** Only these as-of dates are summarised and returned (the others are still swept); default all. */
  compute?: ReadonlySet<string>;
  pipelineVersion: string;
  /** Default 0. */
  seed?: number;
  /** Bootstrap replicates per interval; default {@link EVIDENCE_REPLICATES}. */
  replicates?: number;
  /** Fewest dates for an estimate; default 10. */
  minDates?: number;
  /** Fewest rows for an estimate; default {@link MIN_STATE_OUTCOMES}. */
  minOutcomes?: number;
  /** Fewest outcomes for a calibrator; default MIN_CALIBRATION_OUTCOMES. */
  minCalibrationOutcomes?: number;
  /** Bars a pattern trade is followed for; default DEFAULT_PATTERN_WINDOW. */
  patternWindow?: number;
  /** Placebo trades per detection; default 10. */
  placeboDraws?: number;
}

/** Replicates of every interval: 400 keeps a full history refresh within seconds (see docs/ANALYSIS.md). */
export const EVIDENCE_REPLICATES = 400;
/** Fewest rows in a state for an estimate (besides the fewest dates). */
export const MIN_STATE_OUTCOMES = 30;
export const EVIDENCE_SEED = 0;

const [SHORT, LONG] = EVIDENCE_HORIZONS;

export const PROBABILITY_EVENTS = {
  BUY: 'the 20-day return beats the equal-weight universe (a BUY is right)',
  SELL: 'the 20-day return trails the equal-weight universe (a SELL is right)',
  HOLD: "the size of the 20-day excess return is below that date's median across the universe (a HOLD is right: the stock stays in the quieter half)",
  ml_probability_up: 'the 20-day return beats the equal-weight universe',
  pattern_target: 'the best pattern reaches its target before its invalidation level within the pattern window (timeouts count as misses)',
} as const;

const SIGNALS = ['BUY', 'SELL', 'HOLD'] as const;
type SignalKey = (typeof SIGNALS)[number];
/** Per-signal calibrators: the rules confidence ('BUY') and the enhanced signal's ('enhanced BUY'). */
type EnhancedKey = `enhanced ${SignalKey}`;
type CalibrationKey = SignalKey | EnhancedKey | 'ml_probability_up' | 'pattern_target';
const ENHANCED_KEYS: readonly EnhancedKey[] = SIGNALS.map((signal) => `enhanced ${signal}` as const);
const CALIBRATION_KEYS: readonly CalibrationKey[] = [...SIGNALS, ...ENHANCED_KEYS, 'ml_probability_up', 'pattern_target'];

// ---------------------------------------------------------------------------------------------------------
// Labels
// ---------------------------------------------------------------------------------------------------------

/** The sata bucket of evaluate.ts: 0-3, 4-6, 7-10. */
export { sataBucket };

/** 'STAGE 2 STRONG', or 'STAGE 2' when the strength is unknown; null without a stage. */
export function stageLabel(row: Pick<StateRow, 'stage' | 'stageStrength'>): string | null {
  if (row.stage === null) return null;
  return row.stageStrength === null ? `STAGE ${row.stage}` : `STAGE ${row.stage} ${row.stageStrength}`;
}

/** The state label of each output for a row. */
export function stateLabels(row: StateRow): Record<EvidenceOutput, string | null> {
  return {
    stage: stageLabel(row),
    signal: row.signal,
    sata_bucket: sataBucket(row.sataScore),
    best_pattern: row.bestPatternType,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Per-row preparation
// ---------------------------------------------------------------------------------------------------------

/** Index of the first as-of date >= `date` (asOf.length when none). */
function firstAsOfFrom(asOf: readonly string[], date: string): number {
  return upperBound(asOf, date) - (indexOfSorted(asOf, date) >= 0 ? 1 : 0);
}

/** 32-bit FNV-1a of a string: a stable generator stream for a named figure. */
function streamOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

interface Prepared {
  row: StateRow;
  labels: Record<EvidenceOutput, string | null>;
  ex20: number;
  ex60: number;
  /** First as-of index by which each outcome is known (asOf.length: never within these dates). */
  at20: number;
  at60: number;
  atPattern: number;
  /** Pattern trade outcome: 1 target first, 0 stop or timeout, NaN none. */
  hit: number;
  placeboHits: number;
  placeboTrades: number;
  /** HOLD event (|ex20| below the date's median |ex20|): 1, 0, NaN when unknown. */
  quiet: number;
  /** As-of index whose calibrators score this row out of sample (-1: none). */
  scoredBy: number;
}

function finite(value: number | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : NaN;
}

/** `placebo`: whether the placebo trades are drawn (only the state records read them). */
function prepare(rows: readonly StateRow[], options: EvidenceTablesOptions, window: number, draws: number, seed: number, placebo: boolean): Prepared[] {
  const { calendar, asOf } = options;
  const paths = new Map(options.paths.map((p) => [p.symbol, p]));
  const eligible = new Map<string, Int32Array>();
  const sorted = [...rows].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].date === sorted[i - 1].date && sorted[i].symbol === sorted[i - 1].symbol) {
      throw new RangeError(`${sorted[i].symbol} on ${sorted[i].date} appears twice`);
    }
  }
  const never = asOf.length;
  const knownAt = (pos: number, h: number): number => (pos >= 0 && pos + h < calendar.length ? firstAsOfFrom(asOf, calendar[pos + h]) : never);
  const out: Prepared[] = [];
  for (const row of sorted) {
    const pos = indexOfSorted(calendar, row.date);
    if (pos < 0) continue;
    let hit = NaN;
    let placeboHits = 0;
    let placeboTrades = 0;
    let atPattern = never;
    const pattern = row.bestPattern;
    const path = pattern === null ? undefined : paths.get(row.symbol);
    if (pattern !== null && path !== undefined) {
      const start = indexOfSorted(path.dates, row.date);
      const outcome = start < 0 ? null : targetOutcome(path, start, pattern.target, pattern.stop, window);
      if (outcome !== null) {
        hit = outcome === 'target' ? 1 : 0;
        atPattern = firstAsOfFrom(asOf, path.dates[start + window]);
      }
      if (outcome !== null && placebo) {
        let days = eligible.get(row.symbol);
        if (days === undefined) {
          days = placeboDays(path, window);
          eligible.set(row.symbol, days);
        }
        // Days up to the detection's own: their windows end by the detection's window end.
        const earlier = days.subarray(0, upperBound(days, start));
        const rng = createPrng(seed, streamOf(`placebo ${row.symbol} ${row.date}`));
        for (const o of placeboOutcomes(path, earlier, pattern.target, pattern.stop, window, draws, rng)) {
          placeboTrades++;
          if (o === 'target') placeboHits++;
        }
      }
    }
    out.push({
      row,
      labels: stateLabels(row),
      ex20: finite(row.forwardExcess[SHORT]),
      ex60: finite(row.forwardExcess[LONG]),
      at20: knownAt(pos, SHORT),
      at60: knownAt(pos, LONG),
      atPattern,
      hit,
      placeboHits,
      placeboTrades,
      quiet: NaN,
      scoredBy: upperBound(asOf, row.date) - 1,
    });
  }
  // HOLD event: below the date's median |20-day excess| (all rows of a date become known together).
  const quiet = quietHalf(out.map((p) => p.row.date), Float64Array.from(out, (p) => p.ex20));
  out.forEach((p, k) => (p.quiet = quiet[k]));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Accumulators
// ---------------------------------------------------------------------------------------------------------

/** Growing (date, value) columns. */
class Series {
  readonly dates: string[] = [];
  readonly values: number[] = [];
  push(date: string, value: number): void {
    this.dates.push(date);
    this.values.push(value);
  }
}

interface StateAccumulator {
  short: Series;
  long: Series;
  target: Series;
  placeboHits: number;
  placeboTrades: number;
}

interface CalibrationAccumulator {
  scores: number[];
  labels: number[];
  /** Out-of-sample probabilities and outcomes. */
  oosP: number[];
  oosY: number[];
}

/** A signal key's signal ('enhanced SELL' -> 'SELL'); null for the other probabilities. */
function signalOf(key: CalibrationKey): SignalKey | null {
  if (key === 'ml_probability_up' || key === 'pattern_target') return null;
  return key.startsWith('enhanced ') ? (key.slice('enhanced '.length) as SignalKey) : (key as SignalKey);
}

function scoreOf(r: StateRow, key: CalibrationKey): number | null | undefined {
  if (key === 'ml_probability_up') return r.mlProbability;
  if (key === 'pattern_target') return r.patternConfidence;
  const signal = signalOf(key);
  if (key.startsWith('enhanced ')) return r.enhancedSignal === signal ? r.enhancedConfidence : null;
  return r.signal === signal ? r.confidence : null;
}

function scoreAndLabel(p: Prepared, key: CalibrationKey): [number, number] | null {
  const score = scoreOf(p.row, key);
  if (score === null || score === undefined || !Number.isFinite(score)) return null;
  const signal = signalOf(key);
  let label: number;
  if (key === 'pattern_target') label = p.hit;
  else if (signal === 'HOLD') label = p.quiet;
  else if (signal === 'SELL') label = p.ex20 < 0 ? 1 : 0;
  else label = p.ex20 > 0 ? 1 : 0;
  if (key !== 'pattern_target' && !Number.isFinite(p.ex20)) return null;
  return Number.isFinite(label) ? [score, label] : null;
}

// ---------------------------------------------------------------------------------------------------------
// Summaries
// ---------------------------------------------------------------------------------------------------------

interface Resolved {
  seed: number;
  replicates: number;
  minDates: number;
  minOutcomes: number;
  minCalibration: number;
  window: number;
  draws: number;
}

/** The minimum block of evaluate.ts: the overlap of h-day windows in snapshot dates (default block factor). */
function minBlockFor(horizon: number, step: number): number {
  return minBlockLength(Math.max(1, Math.ceil(horizon / step)));
}

function summaryOptions(resolved: Resolved, name: string, minBlockLength: number): SummaryOptions {
  // A state record has no median: its summaries skip sorting the values for one.
  return { seed: resolved.seed, stream: streamOf(name), replicates: resolved.replicates, minDates: resolved.minDates, minBlockLength, median: false };
}

function estimate(summary: GroupSummary, value: number | null, ci: [number, number] | null, resolved: Resolved): Estimate {
  return summary.n >= resolved.minOutcomes && ci !== null ? { value, ci } : { value: null, ci: null };
}

function stateRecord(output: EvidenceOutput, label: string, acc: StateAccumulator, step: number, resolved: Resolved): StateRecord {
  const name = `${output} ${label}`;
  const s20 = groupSummary(acc.short.dates, acc.short.values, summaryOptions(resolved, `${name} 20`, minBlockFor(SHORT, step)));
  const s60 = groupSummary(acc.long.dates, acc.long.values, summaryOptions(resolved, `${name} 60`, minBlockFor(LONG, step)));
  const record: StateRecord = {
    n: s20.n,
    dates: s20.dates,
    hit_rate: estimate(s20, s20.hitRate, s20.hitRateCi, resolved),
    mean_excess_20d: estimate(s20, s20.mean, s20.ci, resolved),
    mean_excess_60d: estimate(s60, s60.mean, s60.ci, resolved),
  };
  if (output === 'best_pattern') {
    const st = groupSummary(acc.target.dates, acc.target.values, summaryOptions(resolved, `${name} target`, minBlockFor(resolved.window, step)));
    record.target_first = {
      ...estimate(st, st.mean, st.ci, resolved),
      n: st.n,
      placebo: acc.placeboTrades > 0 ? acc.placeboHits / acc.placeboTrades : null,
    };
  }
  return record;
}

function calibration(key: CalibrationKey, acc: CalibrationAccumulator, calibrator: Calibrator | null): ProbabilityCalibration {
  const n = acc.labels.length;
  let positives = 0;
  for (const y of acc.labels) positives += y;
  let metrics: ProbabilityCalibration['metrics'] = null;
  if (acc.oosP.length > 0) {
    const m = calibrationMetrics(acc.oosP, acc.oosY);
    metrics = { n: m.n, brier: m.brier as number, ece: m.ece as number, reliability: m.reliability };
  }
  return {
    event: PROBABILITY_EVENTS[signalOf(key) ?? (key as 'ml_probability_up' | 'pattern_target')],
    n,
    base_rate: n > 0 ? positives / n : null,
    method: calibrator === null ? null : calibrator.method,
    calibrator,
    metrics,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------------------

/**
 * As-of dates of a calendar: the last calendar date of every month that the calendar has moved past (a month
 * still in progress has no as-of date yet, so appending bars never moves one), from the month in which the
 * first outcome (`firstKnown`) is known. Empty when no outcome is known.
 */
export function evidenceAsOfDates(calendar: readonly string[], firstKnown: string | null): string[] {
  return firstKnown === null ? [] : monthEnds(calendar, firstKnown);
}

/** The earliest date by which some snapshot's 20-day outcome is known; null when none is. */
export function firstKnownOutcome(calendar: readonly string[], snapshotDates: readonly string[]): string | null {
  let first: string | null = null;
  for (const date of snapshotDates) {
    const i = indexOfSorted(calendar, date);
    if (i >= 0 && i + SHORT < calendar.length && (first === null || calendar[i + SHORT] < first)) first = calendar[i + SHORT];
  }
  return first;
}

/** The evidence table of each as-of date (of `compute`, default all), in as-of order (see the file comment). */
export function evidenceTables(rows: readonly StateRow[], options: EvidenceTablesOptions): EvidenceTable[] {
  const all = new Set(options.asOf);
  const { states, probabilities } = evidenceTableParts(rows, options, { states: all, probabilities: all });
  return joinEvidenceTables(states, probabilities);
}

/** The figures of an evidence table but its probabilities: what followed each state. */
export type EvidenceTableStates = Pick<EvidenceTable, 'as_of' | 'pipeline_version' | 'universe' | 'states'>;
/** The probabilities (calibrators and their metrics) of an evidence table. */
export type EvidenceTableProbabilities = Pick<EvidenceTable, 'as_of' | 'probabilities'>;

export interface EvidenceTableParts {
  states: EvidenceTableStates[];
  probabilities: EvidenceTableProbabilities[];
}

/**
 * Halves of evidenceTables' tables, each for the as-of dates given (of `compute` when given), in as-of
 * order. The halves share no figure, only the rows and the options, and a half's table for a date is the
 * same whichever other dates are computed: joinEvidenceTables of the halves of every date, however they were
 * split between calls, is evidenceTables' answer bit for bit, so the work can be shared between threads.
 * A half without dates is neither summarised nor swept (the placebo trades are drawn only for the states).
 */
export function evidenceTableParts(
  rows: readonly StateRow[],
  options: EvidenceTablesOptions,
  select: { states?: Iterable<string>; probabilities?: Iterable<string> },
): EvidenceTableParts {
  const chosen = (dates: Iterable<string> | undefined): ReadonlySet<string> | null => {
    if (dates === undefined) return null;
    const set = new Set([...dates].filter((d) => options.compute === undefined || options.compute.has(d)));
    return set.size > 0 ? set : null;
  };
  return sweep(rows, options, chosen(select.states), chosen(select.probabilities));
}

/** The tables of the halves (each in as-of order; the same dates in both). */
export function joinEvidenceTables(states: readonly EvidenceTableStates[], probabilities: readonly EvidenceTableProbabilities[]): EvidenceTable[] {
  if (states.length !== probabilities.length) throw new RangeError(`${states.length} state halves, ${probabilities.length} probability halves`);
  return states.map((s, k) => {
    const p = probabilities[k];
    if (p.as_of !== s.as_of) throw new RangeError(`halves of ${s.as_of} and ${p.as_of}`);
    return { as_of: s.as_of, pipeline_version: s.pipeline_version, universe: s.universe, states: s.states, probabilities: p.probabilities };
  });
}

function sweep(
  rows: readonly StateRow[],
  options: EvidenceTablesOptions,
  statesFor: ReadonlySet<string> | null,
  probabilitiesFor: ReadonlySet<string> | null,
): EvidenceTableParts {
  const resolved: Resolved = {
    seed: options.seed ?? EVIDENCE_SEED,
    replicates: integerOption('replicates', options.replicates, EVIDENCE_REPLICATES, 1),
    minDates: integerOption('minDates', options.minDates, 10, 2),
    minOutcomes: integerOption('minOutcomes', options.minOutcomes, MIN_STATE_OUTCOMES, 1),
    minCalibration: integerOption('minCalibrationOutcomes', options.minCalibrationOutcomes, MIN_CALIBRATION_OUTCOMES, 1),
    window: integerOption('patternWindow', options.patternWindow, DEFAULT_PATTERN_WINDOW, 1),
    draws: integerOption('placeboDraws', options.placeboDraws, 10, 0),
  };
  if (!Number.isSafeInteger(resolved.seed)) throw new RangeError(`seed must be a safe integer, got ${resolved.seed}`);
  checkAscending(options.calendar, 'calendar');
  checkAscending(options.asOf, 'as-of dates');
  const { asOf } = options;
  const parts = { states: statesFor !== null, probabilities: probabilitiesFor !== null };
  const prepared = prepare(rows, options, resolved.window, resolved.draws, resolved.seed, parts.states);

  // Rows by the as-of index at which each of their outcomes becomes known.
  const bucket = (at: (p: Prepared) => number): Prepared[][] => {
    const b: Prepared[][] = asOf.map(() => []);
    for (const p of prepared) if (at(p) < asOf.length) b[at(p)].push(p);
    return b;
  };
  const by20 = bucket((p) => p.at20);
  const by60 = bucket((p) => p.at60);
  const byPattern = bucket((p) => p.atPattern);

  const states = new Map<string, StateAccumulator>();
  const stateOf = (output: EvidenceOutput, label: string): StateAccumulator => {
    const key = `${output}\u0000${label}`;
    let acc = states.get(key);
    if (acc === undefined) {
      acc = { short: new Series(), long: new Series(), target: new Series(), placeboHits: 0, placeboTrades: 0 };
      states.set(key, acc);
    }
    return acc;
  };
  const cal = new Map<CalibrationKey, CalibrationAccumulator>(CALIBRATION_KEYS.map((k) => [k, { scores: [], labels: [], oosP: [], oosY: [] }]));
  const calibrators: Array<Map<CalibrationKey, Calibrator | null>> = [];
  const addCalibration = (p: Prepared, keys: readonly CalibrationKey[]): void => {
    for (const key of keys) {
      const pair = scoreAndLabel(p, key);
      if (pair === null) continue;
      const acc = cal.get(key) as CalibrationAccumulator;
      acc.scores.push(pair[0]);
      acc.labels.push(pair[1]);
      const c = p.scoredBy >= 0 ? calibrators[p.scoredBy].get(key) : null;
      if (c !== null && c !== undefined) {
        acc.oosP.push(calibrate(c, pair[0]));
        acc.oosY.push(pair[1]);
      }
    }
  };

  const snapshotDates = [...new Set(prepared.map((p) => p.row.date))];
  const stateTables: EvidenceTableStates[] = [];
  const probabilityTables: EvidenceTableProbabilities[] = [];
  // The universe's symbols up to the as-of date: prepared rows are in date order, the as-of dates ascend.
  const symbols = new Set<string>();
  let seen = 0;
  for (let k = 0; k < asOf.length; k++) {
    for (const p of by20[k]) {
      if (parts.states) {
        for (const output of EVIDENCE_OUTPUTS) {
          const label = p.labels[output];
          if (label !== null) stateOf(output, label).short.push(p.row.date, p.ex20);
        }
      }
      if (parts.probabilities) addCalibration(p, [...SIGNALS, ...ENHANCED_KEYS, 'ml_probability_up']);
    }
    if (parts.states) {
      for (const p of by60[k]) {
        for (const output of EVIDENCE_OUTPUTS) {
          const label = p.labels[output];
          if (label !== null) stateOf(output, label).long.push(p.row.date, p.ex60);
        }
      }
    }
    for (const p of byPattern[k]) {
      const label = p.labels.best_pattern;
      if (parts.states && label !== null) {
        const acc = stateOf('best_pattern', label);
        acc.target.push(p.row.date, p.hit);
        acc.placeboHits += p.placeboHits;
        acc.placeboTrades += p.placeboTrades;
      }
      if (parts.probabilities) addCalibration(p, ['pattern_target']);
    }
    const fitted = new Map<CalibrationKey, Calibrator | null>();
    if (parts.probabilities) {
      for (const key of CALIBRATION_KEYS) {
        const acc = cal.get(key) as CalibrationAccumulator;
        fitted.set(key, acc.labels.length >= resolved.minCalibration ? fitCalibrator(acc.scores, acc.labels, { method: 'isotonic' }) : null);
      }
    }
    calibrators.push(fitted);

    if (statesFor?.has(asOf[k])) {
      const datesUpTo = snapshotDates.slice(0, upperBound(snapshotDates, asOf[k]));
      const step = inferSamplingStep(options.calendar, datesUpTo);
      const record = {} as Record<EvidenceOutput, Record<string, StateRecord>>;
      for (const output of EVIDENCE_OUTPUTS) record[output] = {};
      const keys = [...states.keys()].sort();
      for (const key of keys) {
        const [output, label] = key.split('\u0000') as [EvidenceOutput, string];
        const acc = states.get(key) as StateAccumulator;
        if (acc.short.values.length === 0 && acc.long.values.length === 0 && acc.target.values.length === 0) continue;
        record[output][label] = stateRecord(output, label, acc, step, resolved);
      }
      for (; seen < prepared.length && prepared[seen].row.date <= asOf[k]; seen++) symbols.add(prepared[seen].row.symbol);
      stateTables.push({
        as_of: asOf[k],
        pipeline_version: options.pipelineVersion,
        universe: { symbols: symbols.size, first_date: datesUpTo[0] ?? asOf[k], last_date: asOf[k], benchmark: 'equal-weight' },
        states: record,
      });
    }
    if (probabilitiesFor?.has(asOf[k])) {
      const probability = (key: CalibrationKey) => calibration(key, cal.get(key) as CalibrationAccumulator, fitted.get(key) ?? null);
      probabilityTables.push({
        as_of: asOf[k],
        probabilities: {
          confidence: { BUY: probability('BUY'), SELL: probability('SELL'), HOLD: probability('HOLD') },
          enhanced_confidence: { BUY: probability('enhanced BUY'), SELL: probability('enhanced SELL'), HOLD: probability('enhanced HOLD') },
          ml_probability_up: probability('ml_probability_up'),
          pattern_target: probability('pattern_target'),
        },
      });
    }
  }
  return { states: stateTables, probabilities: probabilityTables };
}

