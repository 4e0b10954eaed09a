/**
 * Walk-forward evaluation of stored snapshots: for every output of the analysis, what the forward excess
 * return was after it said so, with intervals that respect dependence between rows of a date and between
 * overlapping windows. Pure and deterministic per seed: no I/O, no clock, no Math.random.
 *
 * Input: evaluation rows (rows.ts: one snapshot's outputs, its forward excess returns by horizon, its
 * baselines), optionally each symbol's bars (for pattern targets) and the trading calendar. Rows are sorted by
 * (date, symbol) first, so the result does not depend on their order; a (symbol, date) pair may occur once.
 *
 * Per horizon h (default 20 and 60 trading days):
 * - Overlap. Snapshots are `samplingStep` trading days apart (given, else inferred from the calendar as the
 *   median gap of the row dates, else 1, the conservative choice); forward windows of ceil(h / step)
 *   consecutive dates overlap, so every interval resamples blocks of at least `blockFactor` (default 1) times
 *   that many dates and every Newey-West t-statistic uses at least that many lags minus one. Measured on
 *   null universes (random walks with random labels, 20 seeds; the tests): 95% intervals exclude 0 in 6.7%
 *   (20 days) and 10.4% (60 days) of cases with ~240 weekly dates, 10.4% and 13.1% with ~150: overlapping
 *   windows make short samples look more informative than they are, so read a 60-day interval over a few
 *   hundred dates as roughly a 90% one. A blockFactor of 2 or 3 was worse at these sizes (fewer blocks).
 * - Group tables (summary.ts groupSummary on the forward excess returns of each level's rows: n, dates,
 *   mean, median, hit rate = share of rows with excess > 0, 95% block-bootstrap intervals over dates, null
 *   with fewer than `minDates` dates). Outputs and levels:
 *     stage (STAGE 1-4), stage_strength (stage x strength), signal, enhanced_signal, ml_signal (BUY, HOLD,
 *     SELL), sata_bucket (0-3, 4-6, 7-10), pattern_direction (BULLISH, NEUTRAL, BEARISH), best_pattern (the
 *     best pattern's type, among rows whose pattern has an open target and stop), and for the baselines
 *     the same table on the same rows: above_sma_200 (above / below) and per-date quantile buckets Q1 (lowest)
 *     .. Qk (highest, default k = 5) of momentum_12_1, reversal_1m and high_52w_proximity (ranked among
 *     the date's rows with the baseline, ties by average rank).
 * - Contrasts (summary.ts meanDifference, dates resampled jointly): stage 2 - stage 4, BUY - SELL for each
 *   signal, sata 7-10 - 0-3, BULLISH - BEARISH, above - below, Qk - Q1.
 * - Rank IC (ic.ts): per-date Spearman IC of each score against the forward excess return (dates with at
 *   least `minCrossSection` rows), its mean, Newey-West t and share of positive dates. Product scores:
 *   sata_score, signed_confidence (rules confidence, + for BUY, - for SELL, 0 for HOLD), stage_rank
 *   (2 > 1 > 3 > 4: 4, 3, 2, 1), pattern_signal (net confidence), ml_probability, enhanced_score; baselines:
 *   the four of baselines.ts. Each product score also gets its IC after controlling for the four baselines
 *   (per-date partial Spearman), on the rows where every baseline is known and on dates with at least
 *   minCrossSection + 4 such rows. Like intervals, a t-statistic needs `minDates` dates (else null).
 * - ML AUC (auc.ts) of ml_probability for "forward excess > 0", with a block-bootstrap interval over dates.
 * - ML formulations: the stored per-symbol model (ml_probability) against the cross-sectional model
 *   (cross-sectional.ts: features ranked per date, walk-forward on these rows with an embargo of h trading
 *   days, target "forward excess at h > 0"), each with its AUC and interval as above and its rank IC with a
 *   Newey-West t, on the rows it scored and on the rows both scored. Kept (`mlChoice`, at the ML signal's
 *   horizon, 20 days, or the shortest horizon without it): the cross-sectional model when its AUC interval
 *   has the higher lower bound both on its own rows and on the rows both scored (like for like: the two
 *   cover different periods); else the per-symbol model, the one in the product (also on a tie or when
 *   an interval is missing). Measured on the 120 real stocks, the own-row lower bounds differed by about
 *   0.001 and their order changed with the bootstrap seed, while the common-row order was the opposite:
 *   one comparison alone would pick a formulation by resampling noise. The cross-sectional intervals use streams drawn after every other figure,
 *   so adding them left the other figures unchanged.
 *
 * Pattern targets (targets.ts), once per evaluation, with `bars`: for every row whose best pattern has an
 * open target and stop, whether the target is reached before the stop within `patternWindow` bars (default
 * 60) after the snapshot date, against `placeboDraws` (default 10) placebo trades with the same distances
 * from random days of the same symbol; per pattern type and for all types: the target-first share with an
 * interval over dates (blocks of at least ceil(window / step) dates, times blockFactor), the stop-first and
 * timeout shares, the placebo's target-first share with its interval, and the difference (pattern - placebo)
 * with a joint interval. Placebo draws use one seeded stream consumed in row order.
 *
 * Randomness: every interval has its own generator stream under `seed`, assigned in a fixed order, so equal
 * rows and options give identical results.
 */
import { PATTERN_TYPES, STAGE_LABELS, STAGE_STRENGTHS, type PatternType, type Signal } from '../document.js';
import { createPrng } from '../prng.js';
import { indexOfSorted } from '../sorted.js';
import { HORIZON_DAYS as ML_HORIZON } from '../features.js';
import { aucWithInterval, type AucEstimate } from './auc.js';
import { BASELINE_NAMES, type BaselineName } from './baselines.js';
import {
  CROSS_SECTIONAL_FEATURES,
  crossSectionalFeatures,
  crossSectionalScores,
  type CrossSectionalOptions,
  type FeatureSeries,
} from './cross-sectional.js';
import { averageRanks, dailyIc, icSummary, type DailyIc, type IcSummary } from './ic.js';
import { checkAscending, checkHorizons, DEFAULT_HORIZONS, inferSamplingStep, unionCalendar } from './forward.js';
import type { EvaluationRow } from './rows.js';
import { groupSummary, meanDifference, type GroupSummary, type MeanDifference, type SummaryOptions } from './summary.js';
import { DEFAULT_PATTERN_WINDOW, placeboDays, placeboOutcomes, targetOutcome, type PathSeries, type TargetOutcome } from './targets.js';

export interface EvaluateOptions {
  /** Horizons in trading days; default 20 and 60. Rows without a horizon's excess return do not count for it. */
  horizons?: readonly number[];
  /** Trading days between snapshot dates (integer >= 1); default inferred (see the file comment). */
  samplingStep?: number;
  /** Trading calendar for inferring the sampling step; default the union of the bars' dates. */
  calendar?: readonly string[];
  /**
   * Bars of the symbols (for pattern targets, and the cross-sectional model's volatility and volume trend);
   * without them there is no pattern-target table and those two features are missing.
   */
  bars?: readonly FeatureSeries[];
  /** Seed of every bootstrap and of the placebo draws (safe integer); default 0. */
  seed?: number;
  /** Bootstrap replicates; default 1000. */
  replicates?: number;
  /** Interval coverage; default 0.95. */
  level?: number;
  /** Fewest dates for an interval; default 10. */
  minDates?: number;
  /** Fewest rows on a date for its IC; default 5. */
  minCrossSection?: number;
  /** Quantile buckets of the continuous baselines (integer >= 2); default 5. */
  baselineBuckets?: number;
  /**
   * Minimum block length (and Newey-West lag + 1) as a multiple of the window overlap in dates (number >= 1);
   * default {@link DEFAULT_BLOCK_FACTOR}. See the file comment.
   */
  blockFactor?: number;
  /** Bars a pattern's trade is followed for (integer >= 1); default 60. */
  patternWindow?: number;
  /** Placebo trades per detection (integer >= 0); default 10. */
  placeboDraws?: number;
  /** Cross-sectional model settings (cross-sectional.ts defaults otherwise); its embargo is each horizon. */
  crossSectional?: Pick<CrossSectionalOptions, 'minTrainDates' | 'l2'>;
}

export const OUTPUTS = [
  'stage',
  'stage_strength',
  'signal',
  'enhanced_signal',
  'ml_signal',
  'sata_bucket',
  'pattern_direction',
  'best_pattern',
  ...BASELINE_NAMES,
] as const;
export type OutputName = (typeof OUTPUTS)[number];

export const PRODUCT_SCORES = ['sata_score', 'signed_confidence', 'stage_rank', 'pattern_signal', 'ml_probability', 'enhanced_score'] as const;
export type ProductScore = (typeof PRODUCT_SCORES)[number];
export type ScoreName = ProductScore | BaselineName;

export const DEFAULT_BLOCK_FACTOR = 1;

export const SATA_BUCKETS = ['0-3', '4-6', '7-10'] as const;

/** The sata_score bucket of a score (0-3, 4-6, 7-10); null without a finite score. */
export function sataBucket(score: number | null): (typeof SATA_BUCKETS)[number] | null {
  if (score === null || !Number.isFinite(score)) return null;
  return score <= 3 ? '0-3' : score <= 6 ? '4-6' : '7-10';
}

export interface LevelRow {
  level: string;
  summary: GroupSummary;
}

export interface OutputTable {
  output: OutputName;
  /** Every level in a fixed order (levels without rows have n 0). */
  levels: LevelRow[];
}

export interface ContrastRow {
  output: OutputName;
  /** Level A minus level B. */
  a: string;
  b: string;
  result: MeanDifference;
}

export interface IcRow {
  score: ScoreName;
  kind: 'product' | 'baseline';
  ic: IcSummary;
  /** IC after controlling for the four baselines (product scores only). */
  controlled: IcSummary | null;
}

export type MlFormulation = 'per_symbol' | 'cross_sectional';

export interface MlFormulationRow {
  formulation: MlFormulation;
  /** 'own': every row the formulation scored; 'common': the rows both formulations scored. */
  rows: 'own' | 'common';
  /** AUC of its probability for "forward excess > 0", with the block-bootstrap interval. */
  auc: AucEstimate;
  /** Per-date rank IC of its probability with the forward excess return. */
  ic: IcSummary;
}

/** How the cross-sectional model was fitted at one horizon. */
export interface CrossSectionalFit {
  features: string[];
  /** Trading days between a training row and the date it scores (the horizon). */
  embargo: number;
  l2: number;
  minTrainDates: number;
  /** Rows scored, their dates, and the first date scored (null when none). */
  scored: number;
  scoredDates: number;
  firstDate: string | null;
  /** Distinct training sets fitted. */
  fits: number;
  /** The last model's weights by feature (per standard deviation of the ranked feature); null without one. */
  lastWeights: Record<string, number> | null;
}

/** Which ML formulation evaluates better out of sample (see the file comment). */
export interface MlChoice {
  horizon: number;
  kept: MlFormulation;
  /** Lower bounds of the AUC intervals on each formulation's own rows; null without an interval. */
  perSymbolLow: number | null;
  crossSectionalLow: number | null;
  /** The same on the rows both formulations scored. */
  perSymbolCommonLow: number | null;
  crossSectionalCommonLow: number | null;
  /** True when the kept formulation's interval lies above 0.5. */
  edge: boolean;
  reason: string;
}

export interface HorizonEvaluation {
  horizon: number;
  /** Consecutive snapshot dates whose forward windows overlap: ceil(horizon / samplingStep). */
  overlap: number;
  /** Minimum block length of every interval, and Newey-West lag + 1: ceil(blockFactor x overlap). */
  minBlockLength: number;
  /** Rows with a forward excess return at this horizon, and their dates. */
  rows: number;
  dates: number;
  groups: OutputTable[];
  contrasts: ContrastRow[];
  ic: IcRow[];
  mlAuc: AucEstimate;
  /** Per-symbol and cross-sectional ML formulations side by side. */
  mlFormulations: MlFormulationRow[];
  crossSectional: CrossSectionalFit;
}

export interface PatternTargetRow {
  type: PatternType | 'ALL';
  /** Detections with a full window after them. */
  detections: number;
  dates: number;
  /** Mean absolute target and stop distances (fractions); null without detections. */
  meanTarget: number | null;
  meanStop: number | null;
  /** Target-first share (the summary's mean of 0/1) with its interval. */
  hit: GroupSummary;
  stopShare: number | null;
  timeoutShare: number | null;
  /** Placebo trades and their target-first share. */
  placebo: GroupSummary;
  /** Target-first share minus the placebo's, with a joint interval over dates. */
  difference: MeanDifference;
}

export interface PatternTargetEvaluation {
  window: number;
  placeboDraws: number;
  overlap: number;
  minBlockLength: number;
  /** Rows with an open pattern trade that could not be measured. */
  skipped: { noBars: number; incompleteWindow: number };
  rows: PatternTargetRow[];
}

export interface Evaluation {
  seed: number;
  replicates: number;
  level: number;
  minDates: number;
  samplingStep: number;
  blockFactor: number;
  horizons: number[];
  rows: number;
  symbols: number;
  dates: number;
  from: string | null;
  to: string | null;
  byHorizon: HorizonEvaluation[];
  patternTargets: PatternTargetEvaluation | null;
  /** The ML formulation kept, at the ML signal's horizon. */
  mlChoice: MlChoice;
}

// ---------------------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------------------

interface Resolved {
  horizons: number[];
  samplingStep: number;
  seed: number;
  replicates: number;
  level: number;
  minDates: number;
  minCrossSection: number;
  buckets: number;
  blockFactor: number;
  window: number;
  draws: number;
}

/** An integer option, `fallback` when absent; RangeError unless a safe integer >= min. */
export function integerOption(name: string, value: number | undefined, fallback: number, min: number): number {
  const v = value ?? fallback;
  if (!Number.isSafeInteger(v) || v < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${v}`);
  return v;
}

function blockFactorOption(value: number | undefined): number {
  const v = value ?? DEFAULT_BLOCK_FACTOR;
  if (!(v >= 1 && v < Infinity)) throw new RangeError(`blockFactor must be a finite number >= 1, got ${v}`);
  return v;
}

/** ceil(blockFactor x overlap). */
/** The minimum bootstrap block: `overlap` consecutive snapshot dates whose forward windows overlap, times the block factor. */
export function minBlockLength(overlap: number, blockFactor: number = DEFAULT_BLOCK_FACTOR): number {
  return Math.max(1, Math.ceil(blockFactor * overlap - 1e-9));
}

function minBlock(overlap: number, resolved: Resolved): number {
  return minBlockLength(overlap, resolved.blockFactor);
}

function resolve(rows: readonly EvaluationRow[], options: EvaluateOptions): Resolved {
  const seed = options.seed ?? 0;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  const level = options.level ?? 0.95;
  if (!(level > 0 && level < 1)) throw new RangeError(`level must be in (0, 1), got ${level}`);
  let samplingStep = options.samplingStep;
  if (samplingStep === undefined) {
    const calendar = options.calendar ?? (options.bars ? unionCalendar(options.bars) : null);
    samplingStep = calendar === null ? 1 : inferSamplingStep(calendar, rows.map((r) => r.date));
  }
  return {
    horizons: checkHorizons(options.horizons ?? DEFAULT_HORIZONS),
    samplingStep: integerOption('samplingStep', samplingStep, 1, 1),
    seed,
    replicates: integerOption('replicates', options.replicates, 1000, 1),
    level,
    minDates: integerOption('minDates', options.minDates, 10, 2),
    minCrossSection: integerOption('minCrossSection', options.minCrossSection, 5, 2),
    buckets: integerOption('baselineBuckets', options.baselineBuckets, 5, 2),
    blockFactor: blockFactorOption(options.blockFactor),
    window: integerOption('patternWindow', options.patternWindow, DEFAULT_PATTERN_WINDOW, 1),
    draws: integerOption('placeboDraws', options.placeboDraws, 10, 0),
  };
}

/** Rows sorted by (date, symbol); throws RangeError on a repeated pair or a malformed key. */
function sortRows(rows: readonly EvaluationRow[]): EvaluationRow[] {
  for (const [i, row] of rows.entries()) {
    if (typeof row.symbol !== 'string' || typeof row.date !== 'string') throw new RangeError(`row ${i} needs a string symbol and date`);
  }
  const sorted = [...rows].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].date === sorted[i - 1].date && sorted[i].symbol === sorted[i - 1].symbol) {
      throw new RangeError(`${sorted[i].symbol} on ${sorted[i].date} appears twice`);
    }
  }
  return sorted;
}

// ---------------------------------------------------------------------------------------------------------
// Levels and scores
// ---------------------------------------------------------------------------------------------------------

const SIGNAL_LEVELS: readonly Signal[] = ['BUY', 'HOLD', 'SELL'];
const DIRECTION_LEVELS = ['BULLISH', 'NEUTRAL', 'BEARISH'];
const SMA_LEVELS = ['above', 'below'];

function quantileLevels(k: number): string[] {
  return Array.from({ length: k }, (_, q) => `Q${q + 1}`);
}

/** Per-date quantile bucket (Q1 lowest .. Qk highest) of a baseline among the rows of each date that have it. */
function quantileBuckets(rows: readonly EvaluationRow[], name: BaselineName, k: number): Array<string | null> {
  const out: Array<string | null> = rows.map(() => null);
  let start = 0;
  while (start < rows.length) {
    let end = start;
    while (end < rows.length && rows[end].date === rows[start].date) end++;
    const members: number[] = [];
    for (let i = start; i < end; i++) if (Number.isFinite(rows[i].baselines[name])) members.push(i);
    const ranks = averageRanks(members.map((i) => rows[i].baselines[name]));
    members.forEach((i, m) => {
      const q = Math.min(k - 1, Math.floor(((ranks[m] - 0.5) / members.length) * k));
      out[i] = `Q${q + 1}`;
    });
    start = end;
  }
  return out;
}

interface OutputSpec {
  output: OutputName;
  levels: readonly string[];
  levelOf: Array<string | null>;
}

function outputSpecs(rows: readonly EvaluationRow[], buckets: number): OutputSpec[] {
  const map = (f: (r: EvaluationRow) => string | null): Array<string | null> => rows.map(f);
  const specs: OutputSpec[] = [
    { output: 'stage', levels: STAGE_LABELS, levelOf: map((r) => (r.stage === null ? null : `STAGE ${r.stage}`)) },
    {
      output: 'stage_strength',
      levels: STAGE_LABELS.flatMap((s) => STAGE_STRENGTHS.map((strength) => `${s} ${strength}`)),
      levelOf: map((r) => (r.stage === null || r.stageStrength === null ? null : `STAGE ${r.stage} ${r.stageStrength}`)),
    },
    { output: 'signal', levels: SIGNAL_LEVELS, levelOf: map((r) => r.signal) },
    { output: 'enhanced_signal', levels: SIGNAL_LEVELS, levelOf: map((r) => r.enhancedSignal) },
    { output: 'ml_signal', levels: SIGNAL_LEVELS, levelOf: map((r) => r.mlSignal) },
    { output: 'sata_bucket', levels: SATA_BUCKETS, levelOf: map((r) => sataBucket(r.sataScore)) },
    { output: 'pattern_direction', levels: DIRECTION_LEVELS, levelOf: map((r) => r.patternDirection) },
    { output: 'best_pattern', levels: PATTERN_TYPES, levelOf: map((r) => r.bestPattern?.type ?? null) },
  ];
  for (const name of BASELINE_NAMES) {
    if (name === 'above_sma_200') {
      const levelOf = map((r) => {
        const v = r.baselines.above_sma_200;
        return v === 1 ? 'above' : v === 0 ? 'below' : null;
      });
      specs.push({ output: name, levels: SMA_LEVELS, levelOf });
    } else {
      specs.push({ output: name, levels: quantileLevels(buckets), levelOf: quantileBuckets(rows, name, buckets) });
    }
  }
  return specs;
}

function contrastPairs(buckets: number): Array<[OutputName, string, string]> {
  const top = `Q${buckets}`;
  return [
    ['stage', 'STAGE 2', 'STAGE 4'],
    ['signal', 'BUY', 'SELL'],
    ['enhanced_signal', 'BUY', 'SELL'],
    ['ml_signal', 'BUY', 'SELL'],
    ['sata_bucket', '7-10', '0-3'],
    ['pattern_direction', 'BULLISH', 'BEARISH'],
    ['momentum_12_1', top, 'Q1'],
    ['reversal_1m', top, 'Q1'],
    ['above_sma_200', 'above', 'below'],
    ['high_52w_proximity', top, 'Q1'],
  ];
}

const STAGE_RANK: Record<number, number> = { 2: 4, 1: 3, 3: 2, 4: 1 };
const SIGNAL_SIGN: Record<Signal, number> = { BUY: 1, HOLD: 0, SELL: -1 };

function num(value: number | null): number {
  return value === null ? NaN : value;
}

function productScore(row: EvaluationRow, score: ProductScore): number {
  switch (score) {
    case 'sata_score':
      return num(row.sataScore);
    case 'signed_confidence':
      return row.signal === null || row.confidence === null ? NaN : SIGNAL_SIGN[row.signal] * row.confidence;
    case 'stage_rank':
      return row.stage === null ? NaN : STAGE_RANK[row.stage];
    case 'pattern_signal':
      return num(row.patternScore);
    case 'ml_probability':
      return num(row.mlProbability);
    case 'enhanced_score':
      return num(row.enhancedScore);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Per horizon
// ---------------------------------------------------------------------------------------------------------

/** The IC summary without a t-statistic when fewer than `minDates` dates support it (as intervals). */
function withoutSmallT(summary: IcSummary, minDates: number): IcSummary {
  return summary.dates >= minDates ? summary : { ...summary, se: null, t: null, lag: null };
}

type BaseHorizon = Omit<HorizonEvaluation, 'mlFormulations' | 'crossSectional'>;

/** One number per row (a plain loop: typed-array `from` with a mapping function is slow on large arrays). */
function column(rows: readonly EvaluationRow[], value: (row: EvaluationRow, i: number) => number): Float64Array {
  const out = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) out[i] = value(rows[i], i);
  return out;
}

/** Hands out bootstrap options with a fresh stream each time, in call order. */
class Streams {
  private next = 0;
  constructor(private readonly base: Resolved) {}
  options(minBlockLength: number): SummaryOptions {
    const { seed, replicates, level, minDates } = this.base;
    return { seed, stream: this.next++, replicates, level, minDates, minBlockLength };
  }
}

function subset(dates: readonly string[], values: Float64Array, levelOf: Array<string | null>, level: string) {
  const d: string[] = [];
  const v: number[] = [];
  for (let i = 0; i < dates.length; i++) {
    if (levelOf[i] === level && Number.isFinite(values[i])) {
      d.push(dates[i]);
      v.push(values[i]);
    }
  }
  return { dates: d, values: v };
}

/** The rows' dates and scores as columns, read once for every horizon. */
interface Columns {
  dates: string[];
  products: Float64Array[];
  baselines: Float64Array[];
  mlProbability: Float64Array;
}

function toColumns(rows: readonly EvaluationRow[]): Columns {
  return {
    dates: rows.map((r) => r.date),
    products: PRODUCT_SCORES.map((score) => column(rows, (r) => productScore(r, score))),
    baselines: BASELINE_NAMES.map((name) => column(rows, (r) => r.baselines[name])),
    mlProbability: column(rows, (r) => num(r.mlProbability)),
  };
}

function evaluateHorizon(
  rows: readonly EvaluationRow[],
  cols: Columns,
  specs: readonly OutputSpec[],
  horizon: number,
  resolved: Resolved,
  streams: Streams,
): BaseHorizon {
  const overlap = Math.max(1, Math.ceil(horizon / resolved.samplingStep));
  const block = minBlock(overlap, resolved);
  const dates = cols.dates;
  const outcome = column(rows, (r) => {
    const v = r.forwardExcess[horizon];
    return typeof v === 'number' && Number.isFinite(v) ? v : NaN;
  });
  const usableDates = new Set(dates.filter((_, i) => Number.isFinite(outcome[i])));

  const groups: OutputTable[] = specs.map((spec) => ({
    output: spec.output,
    levels: spec.levels.map((level) => {
      const s = subset(dates, outcome, spec.levelOf, level);
      return { level, summary: groupSummary(s.dates, s.values, streams.options(block)) };
    }),
  }));

  const specOf = new Map(specs.map((s) => [s.output, s]));
  const contrasts: ContrastRow[] = contrastPairs(resolved.buckets).map(([output, a, b]) => {
    const spec = specOf.get(output) as OutputSpec;
    return { output, a, b, result: meanDifference(subset(dates, outcome, spec.levelOf, a), subset(dates, outcome, spec.levelOf, b), streams.options(block)) };
  });

  const nw = { minLag: block - 1 };
  const summarise = (daily: DailyIc[]): IcSummary => withoutSmallT(icSummary(daily, nw), resolved.minDates);
  const icOptions = { minCrossSection: resolved.minCrossSection };
  const controls = cols.baselines;
  // A partial correlation given 4 controls needs 4 more rows a date than a plain one for the same residual size.
  const controlledOptions = { minCrossSection: resolved.minCrossSection + controls.length, controls };
  const ic: IcRow[] = [
    ...PRODUCT_SCORES.map((score, k): IcRow => {
      const x = cols.products[k];
      return {
        score,
        kind: 'product',
        ic: summarise(dailyIc(dates, x, outcome, icOptions)),
        controlled: summarise(dailyIc(dates, x, outcome, controlledOptions)),
      };
    }),
    ...BASELINE_NAMES.map((score, k): IcRow => ({ score, kind: 'baseline', ic: summarise(dailyIc(dates, controls[k], outcome, icOptions)), controlled: null })),
  ];

  const mlScores = cols.mlProbability.map((p, i) => (Number.isFinite(outcome[i]) ? p : NaN));
  const labels = outcome.map((v) => (v > 0 ? 1 : 0));
  const mlAuc = aucWithInterval(dates, mlScores, labels, streams.options(block));

  return {
    horizon,
    overlap,
    minBlockLength: block,
    rows: outcome.filter(Number.isFinite).length,
    dates: usableDates.size,
    groups,
    contrasts,
    ic,
    mlAuc,
  };
}

// ---------------------------------------------------------------------------------------------------------
// ML formulations
// ---------------------------------------------------------------------------------------------------------

/** Trading-day position of each row's date: in the calendar when there is one, else its date's index times the step. */
function rowTimes(rows: readonly EvaluationRow[], calendar: readonly string[] | null, step: number): Float64Array {
  if (calendar !== null) return column(rows, (r) => indexOfSorted(calendar, r.date)).map((t) => (t < 0 ? NaN : t));
  const distinct = [...new Set(rows.map((r) => r.date))];
  const index = new Map(distinct.map((d, k) => [d, k * step]));
  return column(rows, (r) => index.get(r.date) as number);
}

/** The rows' forward excess returns at a horizon (NaN when unknown). */
function outcomeAt(rows: readonly EvaluationRow[], horizon: number): Float64Array {
  return column(rows, (r) => {
    const v = r.forwardExcess[horizon];
    return typeof v === 'number' && Number.isFinite(v) ? v : NaN;
  });
}

interface FormulationInput {
  rows: readonly EvaluationRow[];
  dates: string[];
  features: Float64Array;
  time: Float64Array;
  perSymbol: Float64Array;
}

function formulationsAt(
  input: FormulationInput,
  base: BaseHorizon,
  resolved: Resolved,
  streams: Streams,
  settings: EvaluateOptions['crossSectional'],
): { mlFormulations: MlFormulationRow[]; crossSectional: CrossSectionalFit } {
  const { dates } = input;
  const horizon = base.horizon;
  const outcome = outcomeAt(input.rows, horizon);
  const model = crossSectionalScores(
    { dates, time: input.time, features: input.features, d: CROSS_SECTIONAL_FEATURES.length, outcome },
    { horizon, minTrainDates: settings?.minTrainDates, l2: settings?.l2 },
  );
  const labels = outcome.map((v) => (v > 0 ? 1 : 0));
  const known = (scores: Float64Array, keep: (i: number) => boolean): Float64Array => scores.map((p, i) => (Number.isFinite(outcome[i]) && keep(i) ? p : NaN));
  const cross = model.scores;
  const both = (i: number): boolean => Number.isFinite(cross[i]) && Number.isFinite(input.perSymbol[i]);
  const summarise = (scores: Float64Array): IcSummary =>
    withoutSmallT(icSummary(dailyIc(dates, scores, outcome, { minCrossSection: resolved.minCrossSection }), { minLag: base.minBlockLength - 1 }), resolved.minDates);
  const row = (formulation: MlFormulation, rows: 'own' | 'common', scores: Float64Array): MlFormulationRow => {
    const masked = known(scores, rows === 'own' ? () => true : both);
    return { formulation, rows, auc: aucWithInterval(dates, masked, labels, streams.options(base.minBlockLength)), ic: summarise(masked) };
  };
  const ownPerSymbol = base.ic.find((r) => r.score === 'ml_probability');
  const mlFormulations: MlFormulationRow[] = [
    { formulation: 'per_symbol', rows: 'own', auc: base.mlAuc, ic: (ownPerSymbol as IcRow).ic },
    row('cross_sectional', 'own', cross),
    row('per_symbol', 'common', input.perSymbol),
    row('cross_sectional', 'common', cross),
  ];
  const firstScored = cross.findIndex((p) => Number.isFinite(p));
  return {
    mlFormulations,
    crossSectional: {
      features: [...CROSS_SECTIONAL_FEATURES],
      embargo: model.embargo,
      l2: model.l2,
      minTrainDates: model.minTrainDates,
      scored: model.scored,
      scoredDates: model.scoredDates,
      firstDate: firstScored < 0 ? null : dates[firstScored],
      fits: model.fits,
      lastWeights: model.last === null ? null : { ...model.last.weights },
    },
  };
}

const FORMULATION_NAMES: Record<MlFormulation, string> = { per_symbol: 'per-symbol', cross_sectional: 'cross-sectional' };

function fmt3(v: number | null): string {
  return v === null ? 'none' : v.toFixed(3);
}

/** The kept formulation at the ML signal's horizon (see the file comment). */
function chooseFormulation(byHorizon: readonly HorizonEvaluation[]): MlChoice {
  const h = byHorizon.find((x) => x.horizon === ML_HORIZON) ?? byHorizon[0];
  const low = (f: MlFormulation, rows: 'own' | 'common'): number | null =>
    (h.mlFormulations.find((r) => r.formulation === f && r.rows === rows) as MlFormulationRow).auc.ci?.low ?? null;
  const perSymbolLow = low('per_symbol', 'own');
  const crossSectionalLow = low('cross_sectional', 'own');
  const perSymbolCommonLow = low('per_symbol', 'common');
  const crossSectionalCommonLow = low('cross_sectional', 'common');
  const higher = (a: number | null, b: number | null): boolean => a !== null && (b === null || a > b);
  const kept: MlFormulation = higher(crossSectionalLow, perSymbolLow) && higher(crossSectionalCommonLow, perSymbolCommonLow) ? 'cross_sectional' : 'per_symbol';
  const keptLow = kept === 'per_symbol' ? perSymbolLow : crossSectionalLow;
  const edge = keptLow !== null && keptLow > 0.5;
  const compared =
    `lower bounds of the ${h.horizon}-day AUC intervals, per-symbol vs cross-sectional: ${fmt3(perSymbolLow)} vs ${fmt3(crossSectionalLow)} on their own rows, ` +
    `${fmt3(perSymbolCommonLow)} vs ${fmt3(crossSectionalCommonLow)} on the rows both scored`;
  const why =
    kept === 'cross_sectional'
      ? 'the cross-sectional lower bound is higher on both'
      : crossSectionalLow === null
        ? 'the cross-sectional model has no interval, so the per-symbol model stays'
        : 'the cross-sectional lower bound is not higher on both, so the per-symbol model stays';
  const edgeText = edge ? `its interval lies above 0.5` : `its interval ${keptLow === null ? 'is missing' : 'includes 0.5 or lies below it'}: no measured edge`;
  return { horizon: h.horizon, kept, perSymbolLow, crossSectionalLow, perSymbolCommonLow, crossSectionalCommonLow, edge, reason: `Kept: ${FORMULATION_NAMES[kept]} (${compared}; ${why}); ${edgeText}.` };
}

// ---------------------------------------------------------------------------------------------------------
// Pattern targets
// ---------------------------------------------------------------------------------------------------------

interface Detection {
  type: PatternType;
  date: string;
  target: number;
  stop: number;
  outcome: TargetOutcome;
  placebo: TargetOutcome[];
}

/** Placebo draws per symbol come from one stream consumed in row order. */
const PLACEBO_STREAM = 0x7a12;

/** Bars by symbol; throws RangeError on a repeated symbol, unsorted dates or columns of the wrong length. */
function barsBySymbol(bars: readonly PathSeries[]): Map<string, PathSeries> {
  const bySymbol = new Map<string, PathSeries>();
  for (const series of bars) {
    if (bySymbol.has(series.symbol)) throw new RangeError(`bars of ${series.symbol} appear twice`);
    checkAscending(series.dates, series.symbol);
    for (const column of [series.close, series.high, series.low]) {
      if (column !== undefined && column.length !== series.dates.length) {
        throw new RangeError(`${series.symbol}: ${series.dates.length} dates but a column of ${column.length} values`);
      }
    }
    bySymbol.set(series.symbol, series);
  }
  return bySymbol;
}

function detectPatterns(rows: readonly EvaluationRow[], bars: readonly PathSeries[], resolved: Resolved) {
  const bySymbol = barsBySymbol(bars);
  const eligible = new Map<string, Int32Array>();
  const rng = createPrng(resolved.seed, PLACEBO_STREAM);
  const detections: Detection[] = [];
  const skipped = { noBars: 0, incompleteWindow: 0 };
  for (const row of rows) {
    const pattern = row.bestPattern;
    if (pattern === null) continue;
    const path = bySymbol.get(row.symbol);
    const start = path === undefined ? -1 : indexOfSorted(path.dates, row.date);
    if (path === undefined || start < 0) {
      skipped.noBars++;
      continue;
    }
    const outcome = targetOutcome(path, start, pattern.target, pattern.stop, resolved.window);
    if (outcome === null) {
      skipped.incompleteWindow++;
      continue;
    }
    let days = eligible.get(row.symbol);
    if (days === undefined) {
      days = placeboDays(path, resolved.window);
      eligible.set(row.symbol, days);
    }
    const placebo = placeboOutcomes(path, days, pattern.target, pattern.stop, resolved.window, resolved.draws, rng);
    detections.push({ type: pattern.type, date: row.date, target: pattern.target, stop: pattern.stop, outcome, placebo });
  }
  return { detections, skipped };
}

function share(outcomes: readonly TargetOutcome[], which: TargetOutcome): number | null {
  return outcomes.length === 0 ? null : outcomes.filter((o) => o === which).length / outcomes.length;
}

function meanAbs(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((s, v) => s + Math.abs(v), 0) / values.length;
}

function patternRow(type: PatternType | 'ALL', detections: readonly Detection[], block: number, streams: Streams): PatternTargetRow {
  const hits = { dates: detections.map((d) => d.date), values: detections.map((d) => (d.outcome === 'target' ? 1 : 0)) };
  const placebo = { dates: [] as string[], values: [] as number[] };
  for (const d of detections) {
    for (const o of d.placebo) {
      placebo.dates.push(d.date);
      placebo.values.push(o === 'target' ? 1 : 0);
    }
  }
  const outcomes = detections.map((d) => d.outcome);
  return {
    type,
    detections: detections.length,
    dates: new Set(hits.dates).size,
    meanTarget: meanAbs(detections.map((d) => d.target)),
    meanStop: meanAbs(detections.map((d) => d.stop)),
    hit: groupSummary(hits.dates, hits.values, streams.options(block)),
    stopShare: share(outcomes, 'stop'),
    timeoutShare: share(outcomes, 'timeout'),
    placebo: groupSummary(placebo.dates, placebo.values, streams.options(block)),
    difference: meanDifference(hits, placebo, streams.options(block)),
  };
}

function evaluatePatternTargets(rows: readonly EvaluationRow[], bars: readonly PathSeries[], resolved: Resolved, streams: Streams): PatternTargetEvaluation {
  const { detections, skipped } = detectPatterns(rows, bars, resolved);
  const overlap = Math.max(1, Math.ceil(resolved.window / resolved.samplingStep));
  const block = minBlock(overlap, resolved);
  const types: Array<PatternType | 'ALL'> = [...PATTERN_TYPES, 'ALL'];
  return {
    window: resolved.window,
    placeboDraws: resolved.draws,
    overlap,
    minBlockLength: block,
    skipped,
    rows: types.map((type) => patternRow(type, type === 'ALL' ? detections : detections.filter((d) => d.type === type), block, streams)),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------------------

/** Evaluates the rows (see the file comment). Throws RangeError on malformed options or repeated rows. */
export function evaluate(rows: readonly EvaluationRow[], options: EvaluateOptions = {}): Evaluation {
  const resolved = resolve(rows, options);
  const sorted = sortRows(rows);
  const specs = outputSpecs(sorted, resolved.buckets);
  const streams = new Streams(resolved);
  const cols = toColumns(sorted);
  const bases = resolved.horizons.map((h) => evaluateHorizon(sorted, cols, specs, h, resolved, streams));
  const patternTargets = options.bars === undefined ? null : evaluatePatternTargets(sorted, options.bars, resolved, streams);
  const calendar = options.calendar ?? (options.bars ? unionCalendar(options.bars) : null);
  const input: FormulationInput = {
    rows: sorted,
    dates: cols.dates,
    features: crossSectionalFeatures(sorted, options.bars ?? []),
    time: rowTimes(sorted, calendar, resolved.samplingStep),
    perSymbol: cols.mlProbability,
  };
  const byHorizon: HorizonEvaluation[] = bases.map((base) => ({ ...base, ...formulationsAt(input, base, resolved, streams, options.crossSectional) }));
  const dates = new Set(sorted.map((r) => r.date));
  return {
    seed: resolved.seed,
    replicates: resolved.replicates,
    level: resolved.level,
    minDates: resolved.minDates,
    samplingStep: resolved.samplingStep,
    blockFactor: resolved.blockFactor,
    horizons: resolved.horizons,
    rows: sorted.length,
    symbols: new Set(sorted.map((r) => r.symbol)).size,
    dates: dates.size,
    from: sorted.length > 0 ? sorted[0].date : null,
    to: sorted.length > 0 ? sorted[sorted.length - 1].date : null,
    byHorizon,
    patternTargets,
    mlChoice: chooseFormulation(byHorizon),
  };
}
