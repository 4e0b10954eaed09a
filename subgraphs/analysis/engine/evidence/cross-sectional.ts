/**
 * The cross-sectional formulation of the ML model: which names of a date's universe will beat the others,
 * from where each name ranks among them on that date. Pure and deterministic: no I/O, no clock, no
 * randomness.
 *
 * Features (CROSS_SECTIONAL_FEATURES), raw values per row, all known at the row's date:
 *   reversal_1m          minus the last 21-day return (baselines.ts)
 *   momentum_12_1        the 12-month return skipping the last month (baselines.ts)
 *   volatility_60        standard deviation of the last 60 daily log returns (needs 61 usable closes)
 *   high_52w_proximity   close / highest close of the last 252 bars (baselines.ts)
 *   sata_score           the snapshot's SATA score, 0..10
 *   stage_rank           Weinstein order 2 > 1 > 3 > 4 as 4, 3, 2, 1
 *   pattern_signal       the pattern signal's net confidence, -1..1
 *   volume_trend         ln(mean volume of the last 20 bars / mean volume of the last 60 bars)
 * A value that cannot be computed is NaN.
 *
 * Ranking. On each date, each feature's finite values are ranked among that date's rows (average ranks for
 * ties) and mapped to (rank - 0.5) / m - 0.5, in (-0.5, 0.5), centred on the date's median; a missing value
 * gets 0, the middle. A ranked feature says where a name stands against the same day's universe, so
 * market-wide moves and level shifts over the years drop out; only the ordering is learned.
 *
 * Target. 1 when the row's forward excess return at the horizon (over the equal-weight universe) is
 * positive, else 0; rows whose outcome is unknown are never trained on (they are still scored).
 *
 * Walk-forward with an embargo. Rows carry a time (a trading-day position). A row at time t has an outcome
 * window ending at t + horizon, so it is known at the close of that day. The model that scores time T is
 * fitted on the rows with known outcome and time <= T - embargo (embargo >= horizon, default the horizon):
 * every training row's outcome window ends on or before T, so none overlaps T's own window (T, T + horizon].
 * The fit is logistic.ts's ridge-penalised logistic regression (walkForward with one-day test windows,
 * so the model is refitted whenever a new date's outcome becomes known; fits are reused while the
 * training set is unchanged). Scoring starts once `minTrainDates` dates with known outcomes are in the
 * training set; earlier rows get NaN. Every row (trained on or not) at or after that point gets the
 * out-of-sample probability of the model serving its time.
 */
import { modelAt, predictProbability, walkForward, type Dataset, type LogisticModel } from '../logistic.js';
import { indexOfSorted, upperBound } from '../sorted.js';
import { groupByDate, isFiniteNumber } from './by-date.js';
import { averageRanks } from './ic.js';
import type { EvaluationRow } from './rows.js';
import type { PathSeries } from './targets.js';

export const CROSS_SECTIONAL_FEATURES = [
  'reversal_1m',
  'momentum_12_1',
  'volatility_60',
  'high_52w_proximity',
  'sata_score',
  'stage_rank',
  'pattern_signal',
  'volume_trend',
] as const;
export type CrossSectionalFeature = (typeof CROSS_SECTIONAL_FEATURES)[number];

/** Look-backs of the bar features, in bars. */
export const VOLATILITY_DAYS = 60;
export const VOLUME_SHORT = 20;
export const VOLUME_LONG = 60;

/** Ridge penalty on the standardised ranked features (a sum over rows, as in logistic.ts); default. */
export const DEFAULT_CROSS_SECTIONAL_L2 = 10;
/** Dates with known outcomes before the first score; default. */
export const DEFAULT_MIN_TRAIN_DATES = 20;

/** Bars with optional volumes (a BarSeries fits). */
export interface FeatureSeries extends PathSeries {
  volume?: ArrayLike<number>;
}

const { log, sqrt } = Math;

function usable(value: number): boolean {
  return value > 0 && value < Infinity;
}

/** Standard deviation (population) of the last `days` daily log returns ending at bar t; NaN when any close is unusable or t < days. */
export function volatilityAtIndex(close: ArrayLike<number>, t: number, days = VOLATILITY_DAYS): number {
  if (!Number.isSafeInteger(t) || t < days || t >= close.length) return NaN;
  let sum = 0;
  let squares = 0;
  for (let k = t - days + 1; k <= t; k++) {
    if (!usable(close[k]) || !usable(close[k - 1])) return NaN;
    const r = log(close[k] / close[k - 1]);
    sum += r;
    squares += r * r;
  }
  const mean = sum / days;
  return sqrt(Math.max(0, squares / days - mean * mean));
}

/** ln(mean volume of bars t-short+1..t / mean of t-long+1..t); NaN when t < long - 1, a volume is negative or not finite, or a mean is 0. */
export function volumeTrendAtIndex(volume: ArrayLike<number>, t: number, short = VOLUME_SHORT, long = VOLUME_LONG): number {
  if (!Number.isSafeInteger(t) || t < long - 1 || t >= volume.length) return NaN;
  let shortSum = 0;
  let longSum = 0;
  for (let k = t - long + 1; k <= t; k++) {
    const v = volume[k];
    if (!(v >= 0 && v < Infinity)) return NaN;
    longSum += v;
    if (k > t - short) shortSum += v;
  }
  return shortSum > 0 && longSum > 0 ? log(shortSum / short / (longSum / long)) : NaN;
}

const STAGE_RANK: Record<number, number> = { 2: 4, 1: 3, 3: 2, 4: 1 };

function num(value: number | null): number {
  return value === null ? NaN : value;
}

/**
 * Raw feature values of each row (row-major, CROSS_SECTIONAL_FEATURES order; NaN when unknown). The bar
 * features come from the row's symbol in `bars` on the row's date (NaN without its bars).
 */
export function crossSectionalFeatures(rows: readonly EvaluationRow[], bars: readonly FeatureSeries[] = []): Float64Array {
  const d = CROSS_SECTIONAL_FEATURES.length;
  const bySymbol = new Map(bars.map((s) => [s.symbol, s]));
  const x = new Float64Array(rows.length * d);
  rows.forEach((row, i) => {
    const series = bySymbol.get(row.symbol);
    const t = series === undefined ? -1 : indexOfSorted(series.dates, row.date);
    const values: Record<CrossSectionalFeature, number> = {
      reversal_1m: row.baselines.reversal_1m,
      momentum_12_1: row.baselines.momentum_12_1,
      volatility_60: series === undefined || t < 0 ? NaN : volatilityAtIndex(series.close, t),
      high_52w_proximity: row.baselines.high_52w_proximity,
      sata_score: num(row.sataScore),
      stage_rank: row.stage === null ? NaN : STAGE_RANK[row.stage],
      pattern_signal: num(row.patternScore),
      volume_trend: series?.volume === undefined || t < 0 ? NaN : volumeTrendAtIndex(series.volume, t),
    };
    CROSS_SECTIONAL_FEATURES.forEach((name, j) => {
      x[i * d + j] = values[name];
    });
  });
  return x;
}

/**
 * Each feature ranked per date (see the file comment): row-major like `x`, values in (-0.5, 0.5), 0 for a
 * missing value.
 */
export function rankPerDate(dates: readonly string[], x: Float64Array, d: number): Float64Array {
  const n = dates.length;
  if (x.length !== n * d) throw new RangeError(`${x.length} feature values for ${n} rows of ${d}`);
  const out = new Float64Array(n * d);
  const groups = groupByDate(dates);
  for (const rows of groups.rows) {
    for (let j = 0; j < d; j++) {
      const members: number[] = [];
      for (const i of rows) if (isFiniteNumber(x[i * d + j])) members.push(i);
      if (members.length === 0) continue;
      const ranks = averageRanks(members.map((i) => x[i * d + j]));
      const m = members.length;
      members.forEach((i, k) => {
        out[i * d + j] = (ranks[k] - 0.5) / m - 0.5;
      });
    }
  }
  return out;
}

export interface CrossSectionalInput {
  /** Date of each row (rows of a date form its cross-section). */
  dates: readonly string[];
  /** Trading-day position of each row's date (integer; NaN or a non-integer: the row is neither trained on nor scored). */
  time: ArrayLike<number>;
  /** Raw features, row-major, `d` per row (crossSectionalFeatures); ranked per date here. */
  features: Float64Array;
  d: number;
  /** Forward excess return of each row at the horizon; NaN when unknown. */
  outcome: ArrayLike<number>;
}

export interface CrossSectionalOptions {
  /** Outcome horizon in trading days (integer >= 1). */
  horizon: number;
  /** Trading days between a training row and the date it serves (integer >= horizon); default the horizon. */
  embargo?: number;
  /** Dates with known outcomes needed before the first score (integer >= 2); default {@link DEFAULT_MIN_TRAIN_DATES}. */
  minTrainDates?: number;
  /** Ridge penalty (finite, >= 0); default {@link DEFAULT_CROSS_SECTIONAL_L2}. */
  l2?: number;
}

export interface CrossSectionalResult {
  horizon: number;
  embargo: number;
  l2: number;
  minTrainDates: number;
  /** Out-of-sample probability that the row's forward excess return is positive; NaN where no model serves it. */
  scores: Float64Array;
  /** Rows with a score, and their distinct dates. */
  scored: number;
  scoredDates: number;
  /** First time with a model (null when there never is one). */
  firstTestTime: number | null;
  /** Distinct fitted training sets. */
  fits: number;
  /**
   * Per one-day test window with a model: its time, and the latest time of a row it was trained on (so
   * trainedThrough + embargo <= time). Windows without rows to score are included.
   */
  windows: Array<{ time: number; trainedThrough: number; trainRows: number }>;
  /** The model serving the last scored time, its weights by feature (on standardised ranks); null without one. */
  last: { time: number; trainRows: number; weights: Record<CrossSectionalFeature | string, number>; intercept: number } | null;
}

function checkInteger(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${value}`);
  return value;
}

/** Walk-forward out-of-sample scores of the cross-sectional model (see the file comment). */
export function crossSectionalScores(input: CrossSectionalInput, options: CrossSectionalOptions, featureNames: readonly string[] = CROSS_SECTIONAL_FEATURES): CrossSectionalResult {
  const { dates, time, features, d, outcome } = input;
  const n = dates.length;
  if (time.length !== n || outcome.length !== n) throw new RangeError(`${n} dates, ${time.length} times and ${outcome.length} outcomes`);
  const horizon = checkInteger('horizon', options.horizon, 1);
  const embargo = checkInteger('embargo', options.embargo ?? horizon, horizon);
  const minTrainDates = checkInteger('minTrainDates', options.minTrainDates ?? DEFAULT_MIN_TRAIN_DATES, 2);
  const l2 = options.l2 ?? DEFAULT_CROSS_SECTIONAL_L2;
  if (!(l2 >= 0 && l2 < Infinity)) throw new RangeError(`l2 must be a finite number >= 0, got ${l2}`);
  const ranked = rankPerDate(dates, features, d);

  const timed: number[] = [];
  const trainable: number[] = [];
  for (let i = 0; i < n; i++) {
    if (!Number.isSafeInteger(time[i])) continue;
    timed.push(i);
    if (isFiniteNumber(outcome[i])) trainable.push(i);
  }
  const scores = new Float64Array(n).fill(NaN);
  const empty: CrossSectionalResult = { horizon, embargo, l2, minTrainDates, scores, scored: 0, scoredDates: 0, firstTestTime: null, fits: 0, windows: [], last: null };
  const knownTimes = [...new Set(trainable.map((i) => time[i]))].sort((a, b) => a - b);
  if (knownTimes.length < minTrainDates || timed.length === 0) return empty;
  const firstTestTime = knownTimes[minTrainDates - 1] + embargo;
  let lastTime = firstTestTime;
  for (const i of timed) if (time[i] > lastTime) lastTime = time[i];

  const m = trainable.length;
  const data: Dataset = { n: m, d, x: new Float64Array(m * d), y: new Uint8Array(m), time: new Int32Array(m) };
  trainable.forEach((i, k) => {
    data.x.set(ranked.subarray(i * d, i * d + d), k * d);
    data.y[k] = outcome[i] > 0 ? 1 : 0;
    data.time[k] = time[i];
  });
  const result = walkForward(data, { firstTestTime, foldLength: 1, embargo, lastTime, fit: { l2 } });

  const byTime = new Map<number, number[]>();
  for (const i of timed) {
    const list = byTime.get(time[i]);
    if (list === undefined) byTime.set(time[i], [i]);
    else list.push(i);
  }
  let scored = 0;
  let scoredDates = 0;
  let last: CrossSectionalResult['last'] = null;
  let lastModel: LogisticModel | null = null;
  for (const t of [...byTime.keys()].sort((a, b) => a - b)) {
    const model = modelAt(result, t);
    if (model === null) continue;
    for (const i of byTime.get(t) as number[]) scores[i] = predictProbability(model, ranked, i * d);
    scored += (byTime.get(t) as number[]).length;
    scoredDates++;
    lastModel = model;
    last = { time: t, trainRows: countThrough(trainable, time, t - embargo), weights: {}, intercept: model.intercept };
  }
  if (last !== null && lastModel !== null) {
    const model = lastModel;
    last.weights = Object.fromEntries(featureNames.map((name, j) => [name, model.weights[j]]));
  }

  const windows: CrossSectionalResult['windows'] = [];
  let fits = 0;
  let previousCount = -1;
  for (const fold of result.folds) {
    if (fold.trainSamples === 0) continue;
    const through = latestAtOrBefore(knownTimes, fold.testStart - embargo);
    windows.push({ time: fold.testStart, trainedThrough: through, trainRows: fold.trainSamples });
    if (fold.trainSamples !== previousCount) fits++;
    previousCount = fold.trainSamples;
  }
  return { horizon, embargo, l2, minTrainDates, scores, scored, scoredDates, firstTestTime, fits, windows, last };
}

/** The largest of the ascending `times` that is <= limit (the caller knows one exists). */
function latestAtOrBefore(times: readonly number[], limit: number): number {
  return times[upperBound(times, limit) - 1];
}

/** Trainable rows with time <= limit. */
function countThrough(trainable: readonly number[], time: ArrayLike<number>, limit: number): number {
  let count = 0;
  for (const i of trainable) if (time[i] <= limit) count++;
  return count;
}
