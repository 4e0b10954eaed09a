/**
 * The ML signal's model: logistic regression on the features of features.ts, trained on the stored
 * history of every symbol with a walk-forward split and evaluated only out of sample.
 *
 * Walk-forward: the first test window starts one year (252 trading days) after the first day with
 * features; then the model is retrained every quarter (63 trading days). A window starting at day T
 * is predicted by a model trained only on samples whose label's last bar is on or before T (see the
 * sample time in features.ts, which also covers symbols with gaps). Training sets are capped at 100,000 samples by an even
 * stride. Fold boundaries do not depend on how much history follows, so the model used for any date is
 * the same whether or not later bars exist. Snapshots dated before the first window get no ML signal.
 *
 * Each model's record (its summary's oos_* figures) is what was known when it was trained: every
 * out-of-sample prediction of the earlier models whose outcome was known at the first day T of its window
 * (sample time <= T - HORIZON_DAYS, i.e. the label's last bar on or before T), pooled: accuracy (threshold
 * 0.5), AUC, and the AUC's 95% interval by stationary block bootstrap over the predictions' sample dates
 * (evidence/auc.ts, 1000 replicates, fixed seed). Blocks must span the label overlap: a prediction's label
 * covers HORIZON_DAYS trading days, so the mean block length is at least ceil(HORIZON_DAYS x D / S) dates,
 * where D distinct sample dates spread over S trading days (4 when every symbol is sampled on the same
 * days every 5 days; up to 20 when symbols' sampling days differ). No interval with fewer than 10 dates.
 * A snapshot therefore never quotes a figure that needed later prices, and the record of a date's model
 * is the same whether or not later bars exist. The first window has no record (null metrics), and the
 * enhanced signal's edge gate (signals.ts) then gives the ML vote no weight; so does an interval that
 * includes 0.5. Records are computed for the windows that serve requested dates (`servedTimes`), since
 * each costs a bootstrap over every earlier prediction.
 * The run summary reports the pooled out-of-sample figures over every window.
 */
import type { MlModelSummary } from './document.js';
import {
  aucReplicates,
  datePairPointAuc,
  datePairRange,
  datePairReplicates,
  fillDatePairRows,
  newDatePairTable,
  sortRowsByScore,
  type AucOptions,
  type DatePairTable,
} from './evidence/auc.js';
import { DEFAULT_REPLICATES, intervalOfReplicates, replicatePart } from './evidence/bootstrap.js';
import { FEATURE_COUNT, FEATURE_NAMES, FEATURE_WARMUP, HORIZON_DAYS, type SampleSet } from './features.js';
import {
  fitWalkForward,
  modelFromJson,
  modelToJson,
  planWalkForward,
  testWalkForwardFold,
  walkForwardFitCounts,
  walkForwardFolds,
  type Dataset,
  type LogisticModelJson,
  type WalkForwardFit,
  type WalkForwardPlan,
  type WalkForwardResult,
} from './logistic.js';
import type { MlModelChoice } from './snapshot.js';

export const MODEL_VERSION = '1';
export const FIRST_TEST_OFFSET = 252;
export const FOLD_LENGTH = 63;
export const MAX_TRAIN_SAMPLES = 100_000;
export const L2_PENALTY = 1.0;
/** Seed of the record's bootstrap (any fixed value: the interval must be reproducible). */
export const RECORD_SEED = 1;
/** Fewest distinct sample dates for an AUC interval. */
export const RECORD_MIN_DATES = 10;

/** A model's out-of-sample record as known when it was trained (see the file comment); plain JSON. */
export interface OosRecord {
  samples: number;
  dates: number;
  accuracy: number | null;
  auc: number | null;
  ci: { low: number; high: number; level: number; blockLength: number } | null;
  /** Latest sample date counted; null when none. */
  through: string | null;
}

/** A trained walk-forward model family in plain JSON (crosses worker threads, stored per run). */
export interface SignalModel {
  version: string;
  features: string[];
  horizonDays: number;
  firstTestTime: number;
  folds: Array<{
    testStart: number;
    testEnd: number;
    trainSamples: number;
    trainedThrough: string;
    testSamples: number;
    accuracy: number | null;
    auc: number | null;
    /** The record known at testStart; null when no served time falls in the window (not computed). */
    record: OosRecord | null;
    model: LogisticModelJson;
  }>;
  oos: { accuracy: number | null; auc: number | null; samples: number };
}

/**
 * Trains the walk-forward family on all symbols' samples; null when the history is too short. Records are
 * computed for the windows containing one of `servedTimes` (universe time indices), or every window
 * when it is omitted.
 *
 * The same steps, spread over threads by the pipeline: {@link planSignalModel}, then
 * {@link fitSignalFold} for each of the plan's `fitCounts` (independent), {@link signalModelRecords}, then
 * each of its `recordThroughs` in parts (a large record's date-pair table first: {@link recordTable},
 * {@link sortRecordTable} and {@link fillRecordTable} for every part; then {@link recordPart} for every part,
 * joined by {@link recordOfParts}; {@link recordThrough} is all of it on one thread) while
 * {@link signalModelFolds} scores the folds, and {@link assembleSignalModel}.
 */
export function trainSignalModel(samples: SampleSet, calendar: readonly string[], servedTimes?: readonly number[]): SignalModel | null {
  const plan = planSignalModel(samples, calendar);
  if (plan === null) return null;
  const fits = new Map(plan.fitCounts.map((count) => [count, fitSignalFold(samples, plan, count)] as const));
  const folds = signalModelFolds(samples, plan, fits, servedTimes);
  const records = new Map(folds.recordThroughs.map((through) => [through, recordThrough(folds.history, through, calendar)] as const));
  return assembleSignalModel(folds, calendar, records);
}

/** The walk-forward plan of the signal model and the training counts it needs fitted. */
export interface SignalModelPlan {
  walk: WalkForwardPlan;
  firstTestTime: number;
  fitCounts: number[];
}

const datasetOf = (samples: SampleSet): Dataset => ({ n: samples.n, d: FEATURE_COUNT, x: samples.x, y: samples.y, time: samples.time });

/** The folds to fit and test; null when the history is too short for a model. */
export function planSignalModel(samples: SampleSet, calendar: readonly string[]): SignalModelPlan | null {
  const lastTime = calendar.length - 1;
  const firstTestTime = FEATURE_WARMUP + FIRST_TEST_OFFSET;
  if (samples.n === 0 || firstTestTime > lastTime) return null;
  const walk = planWalkForward(datasetOf(samples), {
    firstTestTime,
    foldLength: FOLD_LENGTH,
    embargo: HORIZON_DAYS,
    lastTime,
    maxTrainSamples: MAX_TRAIN_SAMPLES,
    fit: { l2: L2_PENALTY },
  });
  return { walk, firstTestTime, fitCounts: walkForwardFitCounts(walk, false) };
}

/** One fold's fit: the model on the first `count` samples in time order (see planSignalModel), with the tests of the folds it serves. */
export function fitSignalFold(samples: SampleSet, plan: SignalModelPlan, count: number): WalkForwardFit {
  return fitWalkForward(datasetOf(samples), plan.walk, count, true);
}

/** The records the served windows need: the out-of-sample prediction history and each window's record time. */
export interface SignalModelRecords {
  history: PredictionHistory;
  /** For each fold (null when it is not served or has no training samples), the time its record runs through. */
  recordAt: Array<number | null>;
  /** The distinct record times, in fold order. */
  recordThroughs: number[];
}

/** The scored folds, the out-of-sample prediction history, and the record times the served windows need. */
export interface SignalModelFolds extends SignalModelRecords {
  firstTestTime: number;
  walk: Pick<WalkForwardResult, 'folds' | 'oos' | 'predictions'>;
}

/**
 * The records that the windows containing `servedTimes` need, from the plan and its fits alone: the same
 * history and record times as signalModelFolds', without scoring the folds (so the records can start first).
 * The history holds every fold's test predictions in fold order, as the walk-forward pools them.
 */
export function signalModelRecords(
  samples: SampleSet,
  plan: SignalModelPlan,
  fits: ReadonlyMap<number, WalkForwardFit>,
  servedTimes?: readonly number[],
): SignalModelRecords {
  const { order, folds } = plan.walk;
  const tests = folds.map((f, k) => {
    const fit = fits.get(f.trainCount);
    if (fit === undefined) throw new RangeError(`no fit for training count ${f.trainCount}`);
    if (fit.trainSamples === 0) return null;
    return (fit.tests?.find((t) => t.fold === k) ?? testWalkForwardFold(datasetOf(samples), plan.walk, k, fit.model)).probability;
  });
  const n = folds.reduce((s, f, k) => s + (tests[k] === null ? 0 : f.testTo - f.testFrom), 0);
  const history: PredictionHistory = { time: new Int32Array(n), probability: new Float64Array(n), label: new Uint8Array(n) };
  let at = 0;
  folds.forEach((f, k) => {
    const probability = tests[k];
    if (probability === null) return;
    for (let r = f.testFrom; r < f.testTo; r++, at++) {
      const i = order[r];
      history.time[at] = samples.time[i];
      history.label[at] = samples.y[i];
      history.probability[at] = probability[r - f.testFrom];
    }
  });
  const served = (start: number, end: number) => servedTimes === undefined || servedTimes.some((t) => t >= start && t <= end);
  const recordAt = folds.map((f, k) => (tests[k] !== null && served(f.testStart, f.testEnd) ? f.testStart - HORIZON_DAYS : null));
  const recordThroughs = [...new Set(recordAt.filter((t): t is number => t !== null))];
  return { history, recordAt, recordThroughs };
}

/**
 * Scores the folds with their fits and lists the records that the windows containing `servedTimes` need
 * (`records`, when signalModelRecords already gave them).
 */
export function signalModelFolds(
  samples: SampleSet,
  plan: SignalModelPlan,
  fits: ReadonlyMap<number, WalkForwardFit>,
  servedTimes?: readonly number[],
  records: SignalModelRecords = signalModelRecords(samples, plan, fits, servedTimes),
): SignalModelFolds {
  const walk = walkForwardFolds(datasetOf(samples), plan.walk, fits);
  return { firstTestTime: plan.firstTestTime, walk, ...records };
}

/** The model family from its scored folds and the records they need (keyed by record time). */
export function assembleSignalModel(scored: SignalModelFolds, calendar: readonly string[], records: ReadonlyMap<number, OosRecord>): SignalModel | null {
  const folds: SignalModel['folds'] = [];
  scored.walk.folds.forEach((f, k) => {
    if (f.trainSamples === 0) return;
    const through = scored.recordAt[k];
    const record = through === null ? null : records.get(through);
    if (record === undefined) throw new RangeError(`no record through time ${String(through)}`);
    folds.push({
      testStart: f.testStart,
      testEnd: f.testEnd,
      trainSamples: f.trainSamples,
      trainedThrough: calendar[Math.max(0, f.testStart - HORIZON_DAYS)],
      testSamples: f.testSamples,
      accuracy: f.accuracy,
      auc: f.auc,
      record,
      model: modelToJson(f.model),
    });
  });
  if (folds.length === 0) return null;
  return { version: MODEL_VERSION, features: [...FEATURE_NAMES], horizonDays: HORIZON_DAYS, firstTestTime: scored.firstTestTime, folds, oos: scored.walk.oos };
}

/** Out-of-sample predictions in time order with each sample's time and label. */
export interface PredictionHistory {
  time: Int32Array;
  probability: Float64Array;
  label: Uint8Array;
}

/** The record of the predictions whose sample time is <= `through` (a prefix, as they are in time order). */
export function recordThrough(history: PredictionHistory, through: number, calendar: readonly string[]): OosRecord {
  return recordOfParts([recordPart(history, through, calendar)]);
}

/**
 * Part of a record: the record without its interval, and the AUC of the bootstrap replicates of one of
 * `parts` consecutive ranges (null when there is no interval). The parts of one record are independent
 * (they can run on several threads); {@link recordOfParts} joins them into the record
 * {@link recordThrough} gives, bit for bit.
 */
export interface OosRecordPart {
  record: OosRecord;
  /** The bootstrap's options (its block length follows from the predictions). */
  options: AucOptions;
  dates: number;
  replicates: Float64Array | null;
}

/**
 * Predictions counted by the record through `through`, and its distinct sample dates (the record's size).
 */
function recordExtent(history: PredictionHistory, through: number): { count: number; dates: number } {
  let count = 0;
  for (let hi = history.time.length; count < hi; ) {
    const mid = (count + hi) >>> 1;
    if (history.time[mid] <= through) count = mid + 1;
    else hi = mid;
  }
  let dates = 0;
  for (let k = 0; k < count; k++) if (k === 0 || history.time[k] !== history.time[k - 1]) dates++;
  return { count, dates };
}

/**
 * Into how many parts (at most `threads`) the replicates of the record through `through` are worth
 * splitting when it has no date-pair table (recordTable null): each part repeats the record's set-up
 * (sorting the predictions), so only when each replicate is a pass over every prediction
 * (dates^2 >= predictions, see evidence/auc.ts) do the replicates outweigh it. A record with a table is
 * built in `threads` parts instead (recordTable).
 */
export function recordPartsWorth(history: PredictionHistory, through: number, threads: number): number {
  const { count, dates } = recordExtent(history, through);
  return count > 0 && dates * dates >= count ? Math.max(1, threads) : 1;
}

/**
 * The date-pair table of a large record (evidence/auc.ts: many predictions on few dates), built in `parts`
 * parts that can run on as many threads, in shared memory: first each part sorts its range of the
 * predictions by probability (sortRecordTable), then each fills the table's rows of its range of dates,
 * merging the sorted ranges as it scans them (fillRecordTable); every part of the record's replicates
 * (recordPart) then reads the whole table. The table is the one a single thread builds, bit for bit.
 */
export interface RecordTable {
  /** The record's time (its predictions are those whose sample time is <= through). */
  through: number;
  parts: number;
  /** The record's predictions with a probability, sorted by it within each part's range of predictions (the range's rest -1). */
  order: Int32Array;
  table: DatePairTable;
}

/** Where a record table's arrays are made (shared memory when its parts run on several threads). */
export interface TableArrays {
  int32(length: number): Int32Array;
  float64(length: number): Float64Array;
}

const LOCAL_ARRAYS: TableArrays = { int32: (length) => new Int32Array(length), float64: (length) => new Float64Array(length) };

/** How the first `count` predictions map to the table's dates (see tableLayout). */
interface TableLayout {
  dates: number;
  /** Date of each prediction: the rank of its sample time among those of predictions with a probability; -1 without one (NaN). */
  dateOf: Int32Array;
  positivesByDate: Float64Array;
}

/**
 * The layout of the record of the first `count` predictions when its interval comes from a date-pair table,
 * as aucReplicates decides (an AUC, at least RECORD_MIN_DATES dates, dates^2 < predictions with a
 * probability), else null. Also null when the calendar does not order the record's sample times as their
 * dates (aucReplicates groups by date string; the record then takes that path), or when positives x
 * negatives passes 2^52 (the table would no longer be exact).
 */
function tableLayout(history: PredictionHistory, count: number, calendar: readonly string[]): TableLayout | null {
  const { time, probability, label } = history;
  const dateOf = new Int32Array(count);
  const byDate: number[] = [];
  let kept = 0;
  let positives = 0;
  let last = -1;
  for (let k = 0; k < count; k++) {
    if (probability[k] !== probability[k]) {
      dateOf[k] = -1;
      continue;
    }
    const t = time[k];
    if (t !== last) {
      if (byDate.length > 0 && !(calendar[t] > calendar[last])) return null;
      last = t;
      byDate.push(0);
    }
    dateOf[k] = byDate.length - 1;
    kept++;
    if (label[k] !== 0) {
      positives++;
      byDate[byDate.length - 1]++;
    }
  }
  const dates = byDate.length;
  const negatives = kept - positives;
  if (positives === 0 || negatives === 0 || dates < RECORD_MIN_DATES || dates * dates >= kept || positives * negatives > 2 ** 52) return null;
  return { dates, dateOf, positivesByDate: Float64Array.from(byDate) };
}

/**
 * The empty table of the record through `through`, to build in `parts` parts with its arrays from
 * `arrays`; null when the record's interval does not come from a table (see tableLayout).
 */
export function recordTable(history: PredictionHistory, through: number, calendar: readonly string[], parts: number, arrays: TableArrays = LOCAL_ARRAYS): RecordTable | null {
  if (!Number.isSafeInteger(parts) || parts < 1) throw new RangeError(`${parts} parts`);
  const { count } = recordExtent(history, through);
  const layout = tableLayout(history, count, calendar);
  if (layout === null) return null;
  const dates = layout.dates;
  return { through, parts, order: arrays.int32(count), table: newDatePairTable(dates, (length) => arrays.float64(length)) };
}

/** The first step of part `part` of a record table: sorts its range of the predictions (see RecordTable). */
export function sortRecordTable(history: PredictionHistory, table: RecordTable, part: number): void {
  const { order } = table;
  const { from, to } = replicatePart(order.length, part, table.parts); // the same near-equal split as the replicates'
  const probability = history.probability;
  let end = from;
  for (let k = from; k < to; k++) if (probability[k] === probability[k]) order[end++] = k;
  sortRowsByScore(probability, order.subarray(from, end));
  order.fill(-1, end, to);
}

/**
 * The second step of part `part` of a record table, once every part is sorted: the table's rows of its
 * range of dates (evidence/auc.ts fillDatePairRows).
 */
export function fillRecordTable(history: PredictionHistory, calendar: readonly string[], table: RecordTable, part: number): void {
  const { order, parts } = table;
  const layout = tableLayout(history, order.length, calendar);
  if (layout === null || layout.dates !== table.table.dates || recordExtent(history, table.through).count !== order.length) {
    throw new RangeError(`not the table of the record through time ${table.through}`);
  }
  const sorted = Array.from({ length: parts }, (_, l) => {
    const { from, to } = replicatePart(order.length, l, parts);
    let end = from;
    while (end < to && order[end] >= 0) end++;
    return order.subarray(from, end);
  });
  const dates = datePairRange(layout.positivesByDate, part, parts);
  fillDatePairRows(table.table, sorted, history.probability, history.label, layout.dateOf, dates.from, dates.to);
}

/**
 * Part `part` of `parts` of the record through `through` (see OosRecordPart). A record with a date-pair
 * table (recordTable) reads `table` when it is given, built (sortRecordTable, then fillRecordTable, every
 * part of each), and otherwise builds the whole table itself.
 */
export function recordPart(
  history: PredictionHistory,
  through: number,
  calendar: readonly string[],
  part = 0,
  parts = 1,
  table?: RecordTable | null,
): OosRecordPart {
  const { count } = recordExtent(history, through);
  const options: AucOptions = { minDates: RECORD_MIN_DATES, seed: RECORD_SEED, replicates: DEFAULT_REPLICATES };
  if (count === 0) return { record: { samples: 0, dates: 0, accuracy: null, auc: null, ci: null, through: null }, options, dates: 0, replicates: null };
  const time = history.time.subarray(0, count);
  const probability = history.probability.subarray(0, count);
  const label = history.label.subarray(0, count);
  let correct = 0;
  let distinct = 0;
  for (let k = 0; k < count; k++) {
    if ((probability[k] >= 0.5 ? 1 : 0) === label[k]) correct++;
    if (k === 0 || time[k] !== time[k - 1]) distinct++;
  }
  const span = time[count - 1] - time[0] + 1;
  options.minBlockLength = Math.max(1, Math.ceil((HORIZON_DAYS * distinct) / span));
  const range = replicatePart(DEFAULT_REPLICATES, part, parts);
  const last = calendar[time[count - 1]];
  let built = table ?? null;
  if (built === null) {
    built = recordTable(history, through, calendar, 1);
    if (built !== null) {
      sortRecordTable(history, built, 0);
      fillRecordTable(history, calendar, built, 0);
    }
  } else if (built.through !== through || built.order.length !== count) {
    throw new RangeError(`not the table of the record through time ${through}`);
  }
  if (built !== null) {
    const dates = built.table.dates;
    const record: OosRecord = { samples: count, dates, accuracy: correct / count, auc: datePairPointAuc(built.table), ci: null, through: last };
    return { record, options, dates, replicates: datePairReplicates(built.table, options, range) };
  }
  const { estimate, values } = aucReplicates(Array.from(time, (t) => calendar[t]), probability, label, options, range);
  return {
    record: { samples: count, dates: estimate.dates, accuracy: correct / count, auc: estimate.auc, ci: null, through: last },
    options,
    dates: estimate.dates,
    replicates: values,
  };
}

/** The record from its parts (every part of one record, in order). */
export function recordOfParts(parts: readonly OosRecordPart[]): OosRecord {
  const first = parts[0];
  if (first.replicates === null) return first.record;
  const all = new Float64Array(parts.reduce((s, p) => s + (p.replicates?.length ?? 0), 0));
  let at = 0;
  for (const p of parts) {
    if (p.replicates === null) throw new RangeError('parts of different records');
    all.set(p.replicates, at);
    at += p.replicates.length;
  }
  const ci = intervalOfReplicates(first.dates, all, first.options);
  return { ...first.record, ci: ci ? { low: ci.low, high: ci.high, level: ci.level, blockLength: ci.blockLength } : null };
}

const round = (x: number | null): number | null => (x === null || !Number.isFinite(x) ? null : Math.round(x * 10000) / 10000);

/** For a universe time index, the fold model that is out of sample there (binary search), with its summary. */
export function signalModelLookup(model: SignalModel | null): (time: number) => MlModelChoice | null {
  if (!model) return () => null;
  const choices = model.folds.map((f) => {
    const r = f.record;
    const summary: MlModelSummary = {
      model: 'logistic_regression',
      version: model.version,
      features: model.features,
      horizon_days: model.horizonDays,
      trained_through: f.trainedThrough,
      train_samples: f.trainSamples,
      oos_accuracy: round(r?.accuracy ?? null),
      oos_auc: round(r?.auc ?? null),
      oos_samples: r?.samples ?? 0,
      oos_dates: r?.dates ?? 0,
      oos_through: r?.through ?? null,
      oos_auc_ci: r?.ci ? { low: round(r.ci.low) as number, high: round(r.ci.high) as number, level: r.ci.level, block_length: round(r.ci.blockLength) as number } : null,
    };
    return { testStart: f.testStart, testEnd: f.testEnd, choice: { model: modelFromJson(f.model), summary } };
  });
  return (time) => {
    let lo = 0;
    let hi = choices.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = choices[mid];
      if (time < c.testStart) hi = mid - 1;
      else if (time > c.testEnd) lo = mid + 1;
      else return c.choice;
    }
    return null;
  };
}
