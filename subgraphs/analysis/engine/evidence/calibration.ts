/**
 * Probability calibration and its measurement. Pure: no I/O, no clock, no randomness; calibrators are plain
 * JSON (numbers and strings) so they can be stored and shipped.
 *
 * A calibrator maps a raw score s (a model probability, a confidence, any number where larger should mean
 * "more likely") to a probability that the event happens, fitted on past (score, outcome) pairs with outcome
 * 0 or 1. Rows whose score is not finite are ignored when fitting; calibrating a non-finite score gives NaN.
 *
 * Isotonic regression (Zadrozny & Elkan 2002; Barlow et al. 1972) by pool-adjacent-violators: rows sorted by
 * score, equal scores pooled first (they must map to one value), then adjacent blocks whose rates are not
 * increasing are merged (a block's rate = positives / rows) until the rates strictly increase. The result is
 * the non-decreasing step function of s that minimises the squared error sum (y_i - f(s_i))^2.
 *
 * Platt scaling (Platt 1999): p = 1 / (1 + exp(-(a s + b))), fitted by maximum likelihood on Platt's
 * regularised targets t+ = (N+ + 1) / (N+ + 2) for positives and t- = 1 / (N- + 2) for negatives, which keep
 * a, b finite on separable data. Minimised by Newton's method with step halving, as in Lin, Lin & Weng
 * (2007), on the standardised score (then converted back to a, b on the raw score).
 *
 * Shrinkage toward the base rate. A block fitted on few rows is noise, so each value is shrunk with a Beta
 * prior centred on the base rate p0 (the training share of positives unless given) with strength m
 * pseudo-observations (the m-estimate; Cestnik 1990, used for calibration by Zadrozny & Elkan 2001):
 *     isotonic block with k positives among n rows:  p = (k + m p0) / (n + m)
 *     Platt, fitted on n rows:                        p = (n p_platt(s) + m p0) / (n + m)
 * Default m = 20: a block of 20 rows is halfway between its own rate and the base rate, a block of 1,000
 * rows moves by 2% of its distance. Shrinking can break monotonicity (a small block shrinks more than its
 * larger neighbour), so after shrinking, adjacent blocks that are not increasing are pooled again and the
 * pooled block is shrunk once with the same m (its positives and rows summed), until values increase.
 * With a tiny training set every value is therefore close to p0.
 *
 * Evaluating the isotonic map: inside a block's score range [low, high] its value; between two blocks
 * linear interpolation from (high_k, value_k) to (low_k+1, value_k+1); below the first / above the last block
 * the end value. The map is non-decreasing and continuous between blocks.
 *
 * Metrics, on predicted probabilities p_i in [0, 1] and outcomes y_i in {0, 1}:
 * - Brier score (Brier 1950): (1/N) sum (p_i - y_i)^2.
 * - Expected calibration error (Naeini, Cooper & Hauskrecht 2015): ECE = sum_b (n_b / N) |ybar_b - pbar_b|
 *   over B bins (default 10): `uniform` bins [0, 0.1), [0.1, 0.2), ..., [0.9, 1] by predicted probability, or
 *   `quantile` bins (deciles of the predictions: after a stable sort by p, row r of N goes to bin
 *   floor(r B / N), so bins hold N/B rows each and ties may straddle a boundary). Empty bins contribute 0.
 * - Reliability table: per bin its range, n, mean predicted probability, observed rate and the Wilson score
 *   95% interval of the observed rate (Wilson 1927); its rows are what ECE sums.
 */

export type CalibrationMethod = 'isotonic' | 'platt';

/** One isotonic block. */
export interface CalibrationBlock {
  /** Smallest and largest training score in the block. */
  low: number;
  high: number;
  /** Training rows and positives in the block. */
  n: number;
  positives: number;
  /** Calibrated probability (after shrinkage). */
  value: number;
}

interface CalibratorBase {
  /** Training rows used. */
  n: number;
  /** Training positives. */
  positives: number;
  /** p0 the values were shrunk toward. */
  baseRate: number;
  /** m, in pseudo-observations. */
  priorStrength: number;
}

export interface IsotonicCalibrator extends CalibratorBase {
  method: 'isotonic';
  /** Blocks in increasing score and increasing value order. */
  blocks: CalibrationBlock[];
}

export interface PlattCalibrator extends CalibratorBase {
  method: 'platt';
  /** p_platt(s) = 1 / (1 + exp(-(a s + b))). */
  a: number;
  b: number;
}

export type Calibrator = IsotonicCalibrator | PlattCalibrator;

export interface CalibratorOptions {
  /** Default `isotonic`. */
  method?: CalibrationMethod;
  /** m >= 0 (0 = no shrinkage); default 20. */
  priorStrength?: number;
  /** p0 in [0, 1]; default the training share of positives. */
  baseRate?: number;
}

export const DEFAULT_PRIOR_STRENGTH = 20;

const { abs, exp, floor, log, log1p, max, min, sqrt } = Math;

// ---------------------------------------------------------------------------------------------------------
// Input checks
// ---------------------------------------------------------------------------------------------------------

function checkLabels(labels: ArrayLike<number>, n: number): void {
  if (labels.length !== n) throw new RangeError(`${n} values but ${labels.length} labels`);
  for (let i = 0; i < n; i++) {
    if (labels[i] !== 0 && labels[i] !== 1) throw new RangeError(`label ${i} must be 0 or 1, got ${labels[i]}`);
  }
}

function checkProbabilities(p: ArrayLike<number>): void {
  for (let i = 0; i < p.length; i++) {
    if (!(p[i] >= 0 && p[i] <= 1)) throw new RangeError(`probability ${i} must be in [0, 1], got ${p[i]}`);
  }
}

interface Resolved {
  rows: number[];
  positives: number;
  baseRate: number;
  priorStrength: number;
}

/** Finite-score rows, base rate and prior strength; null when no row is usable. */
function prepare(scores: ArrayLike<number>, labels: ArrayLike<number>, options: CalibratorOptions): Resolved | null {
  checkLabels(labels, scores.length);
  const priorStrength = options.priorStrength ?? DEFAULT_PRIOR_STRENGTH;
  if (!(priorStrength >= 0) || !Number.isFinite(priorStrength)) {
    throw new RangeError(`priorStrength must be a finite number >= 0, got ${priorStrength}`);
  }
  if (options.baseRate !== undefined && !(options.baseRate >= 0 && options.baseRate <= 1)) {
    throw new RangeError(`baseRate must be in [0, 1], got ${options.baseRate}`);
  }
  const rows: number[] = [];
  let positives = 0;
  for (let i = 0; i < scores.length; i++) {
    if (!Number.isFinite(scores[i])) continue;
    rows.push(i);
    positives += labels[i];
  }
  if (rows.length === 0) return null;
  return { rows, positives, baseRate: options.baseRate ?? positives / rows.length, priorStrength };
}

const shrink = (positives: number, n: number, p0: number, m: number): number => (positives + m * p0) / (n + m);

// ---------------------------------------------------------------------------------------------------------
// Isotonic regression
// ---------------------------------------------------------------------------------------------------------

interface Block {
  low: number;
  high: number;
  n: number;
  positives: number;
  value: number;
}

/**
 * Pools adjacent blocks (in order) until `value` strictly increases; `valueOf` gives a pooled block's value.
 * The classic stack form of pool-adjacent-violators.
 */
function poolAdjacentViolators(blocks: readonly Block[], valueOf: (positives: number, n: number) => number): Block[] {
  const stack: Block[] = [];
  for (const block of blocks) {
    let top: Block = { ...block };
    while (stack.length > 0 && stack[stack.length - 1].value >= top.value) {
      const below = stack.pop() as Block;
      const n = below.n + top.n;
      const positives = below.positives + top.positives;
      top = { low: below.low, high: top.high, n, positives, value: valueOf(positives, n) };
    }
    stack.push(top);
  }
  return stack;
}

/** Isotonic calibrator (see the file comment); null when no score is finite. */
export function fitIsotonic(
  scores: ArrayLike<number>,
  labels: ArrayLike<number>,
  options: Omit<CalibratorOptions, 'method'> = {},
): IsotonicCalibrator | null {
  const resolved = prepare(scores, labels, options);
  if (resolved === null) return null;
  const { rows, positives, baseRate, priorStrength } = resolved;
  rows.sort((i, j) => scores[i] - scores[j]);
  const tied: Block[] = [];
  for (const i of rows) {
    const last = tied[tied.length - 1];
    if (last !== undefined && last.high === scores[i]) {
      last.n++;
      last.positives += labels[i];
      last.value = last.positives / last.n;
    } else {
      tied.push({ low: scores[i], high: scores[i], n: 1, positives: labels[i], value: labels[i] });
    }
  }
  const raw = poolAdjacentViolators(tied, (k, n) => k / n);
  const shrunk = raw.map((b) => ({ ...b, value: shrink(b.positives, b.n, baseRate, priorStrength) }));
  const blocks = poolAdjacentViolators(shrunk, (k, n) => shrink(k, n, baseRate, priorStrength));
  return { method: 'isotonic', n: rows.length, positives, baseRate, priorStrength, blocks };
}

function isotonicValue(blocks: readonly CalibrationBlock[], s: number): number {
  if (s <= blocks[0].high) return blocks[0].value;
  const last = blocks[blocks.length - 1];
  if (s >= last.low) return last.value;
  // The last block whose low is <= s (exists: blocks[0].low <= s).
  let lo = 0;
  let hi = blocks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (blocks[mid].low <= s) lo = mid;
    else hi = mid - 1;
  }
  const block = blocks[lo];
  if (s <= block.high) return block.value;
  const next = blocks[lo + 1];
  const w = (s - block.high) / (next.low - block.high);
  return block.value + w * (next.value - block.value);
}

// ---------------------------------------------------------------------------------------------------------
// Platt scaling
// ---------------------------------------------------------------------------------------------------------

const PLATT_MAX_ITERATIONS = 100;
const PLATT_TOLERANCE = 1e-10;
const PLATT_MIN_STEP = 1e-10;
/** Ridge on the Hessian diagonal (Lin, Lin & Weng's sigma) so the Newton system is always solvable. */
const PLATT_RIDGE = 1e-12;

function softplus(f: number): number {
  return max(f, 0) + log1p(exp(-abs(f)));
}

function sigmoid(f: number): number {
  const e = exp(-abs(f));
  return f >= 0 ? 1 / (1 + e) : e / (1 + e);
}

/** Platt's negative log-likelihood of (a, b) on standardised scores z with targets t. */
function plattLoss(z: Float64Array, t: Float64Array, a: number, b: number): number {
  let loss = 0;
  for (let i = 0; i < z.length; i++) {
    const f = a * z[i] + b;
    loss += softplus(f) - t[i] * f;
  }
  return loss;
}

/** Platt calibrator (see the file comment); null when no score is finite. */
export function fitPlatt(
  scores: ArrayLike<number>,
  labels: ArrayLike<number>,
  options: Omit<CalibratorOptions, 'method'> = {},
): PlattCalibrator | null {
  const resolved = prepare(scores, labels, options);
  if (resolved === null) return null;
  const { rows, positives, baseRate, priorStrength } = resolved;
  const n = rows.length;
  const negatives = n - positives;
  let mean = 0;
  for (const i of rows) mean += scores[i];
  mean /= n;
  let variance = 0;
  for (const i of rows) variance += (scores[i] - mean) ** 2;
  const sd = variance > 0 ? sqrt(variance / n) : 1;
  const z = Float64Array.from(rows, (i) => (scores[i] - mean) / sd);
  const hiTarget = (positives + 1) / (positives + 2);
  const loTarget = 1 / (negatives + 2);
  const t = Float64Array.from(rows, (i) => (labels[i] === 1 ? hiTarget : loTarget));

  let a = 0;
  let b = log((positives + 1) / (negatives + 1));
  let loss = plattLoss(z, t, a, b);
  for (let iteration = 0; iteration < PLATT_MAX_ITERATIONS; iteration++) {
    let ga = 0;
    let gb = 0;
    let haa = PLATT_RIDGE;
    let hab = 0;
    let hbb = PLATT_RIDGE;
    for (let i = 0; i < n; i++) {
      const p = sigmoid(a * z[i] + b);
      const r = p - t[i];
      const w = p * (1 - p);
      ga += r * z[i];
      gb += r;
      haa += w * z[i] * z[i];
      hab += w * z[i];
      hbb += w;
    }
    if (max(abs(ga), abs(gb)) < PLATT_TOLERANCE * n) break;
    const det = haa * hbb - hab * hab;
    const da = -(hbb * ga - hab * gb) / det;
    const db = -(haa * gb - hab * ga) / det;
    const slope = ga * da + gb * db;
    let step = 1;
    let accepted = false;
    while (step >= PLATT_MIN_STEP) {
      const candidate = plattLoss(z, t, a + step * da, b + step * db);
      if (candidate < loss + 1e-4 * step * slope) {
        a += step * da;
        b += step * db;
        loss = candidate;
        accepted = true;
        break;
      }
      step /= 2;
    }
    if (!accepted) break;
  }
  // Back to the raw score: a z + b = (a / sd) s + (b - a mean / sd).
  return { method: 'platt', n, positives, baseRate, priorStrength, a: a / sd, b: b - (a * mean) / sd };
}

// ---------------------------------------------------------------------------------------------------------
// Applying a calibrator
// ---------------------------------------------------------------------------------------------------------

/** Isotonic by default; null when no score is finite. */
export function fitCalibrator(scores: ArrayLike<number>, labels: ArrayLike<number>, options: CalibratorOptions = {}): Calibrator | null {
  const method = options.method ?? 'isotonic';
  if (method === 'isotonic') return fitIsotonic(scores, labels, options);
  if (method === 'platt') return fitPlatt(scores, labels, options);
  throw new RangeError(`method must be isotonic or platt, got ${String(method)}`);
}

/** Calibrated probability of a raw score; NaN for a non-finite score. */
export function calibrate(calibrator: Calibrator, score: number): number {
  if (!Number.isFinite(score)) return NaN;
  if (calibrator.method === 'isotonic') return isotonicValue(calibrator.blocks, score);
  const { n, baseRate, priorStrength, a, b } = calibrator;
  return (n * sigmoid(a * score + b) + priorStrength * baseRate) / (n + priorStrength);
}

/** {@link calibrate} over an array. */
export function calibrateAll(calibrator: Calibrator, scores: ArrayLike<number>): Float64Array {
  return Float64Array.from({ length: scores.length }, (_, i) => calibrate(calibrator, scores[i]));
}

// ---------------------------------------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------------------------------------

/** Mean squared difference between probabilities and 0/1 outcomes; NaN without rows. */
export function brierScore(probabilities: ArrayLike<number>, labels: ArrayLike<number>): number {
  checkLabels(labels, probabilities.length);
  checkProbabilities(probabilities);
  const n = probabilities.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (probabilities[i] - labels[i]) ** 2;
  return n > 0 ? sum / n : NaN;
}

export type BinStrategy = 'uniform' | 'quantile';

export interface ReliabilityOptions {
  /** Number of bins B, integer >= 1; default 10 (deciles). */
  bins?: number;
  /** Default `uniform`. */
  strategy?: BinStrategy;
}

export interface ReliabilityRow {
  /** Bin range of predicted probabilities: the fixed edges for `uniform`, the smallest and largest prediction in the bin for `quantile` (null when empty). */
  low: number | null;
  high: number | null;
  n: number;
  /** Mean predicted probability and observed share of positives; null when the bin is empty. */
  meanPredicted: number | null;
  observedRate: number | null;
  /** Wilson 95% interval of the observed rate; null when empty. */
  observedLow: number | null;
  observedHigh: number | null;
}

const Z95 = 1.959963984540054;

/** Wilson score interval for k successes in n > 0 trials at z = 1.96. */
export function wilsonInterval(k: number, n: number): [number, number] {
  const p = k / n;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 * sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [max(0, centre - half), min(1, centre + half)];
}

/** The bin of each row (see the file comment). */
function binOf(probabilities: ArrayLike<number>, bins: number, strategy: BinStrategy): Int32Array {
  const n = probabilities.length;
  const bin = new Int32Array(n);
  if (strategy === 'uniform') {
    for (let i = 0; i < n; i++) bin[i] = min(floor(probabilities[i] * bins), bins - 1);
  } else {
    const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => probabilities[i] - probabilities[j] || i - j);
    order.forEach((row, r) => {
      bin[row] = floor((r * bins) / n);
    });
  }
  return bin;
}

/** Reliability table with B rows (see the file comment). */
export function reliabilityTable(
  probabilities: ArrayLike<number>,
  labels: ArrayLike<number>,
  options: ReliabilityOptions = {},
): ReliabilityRow[] {
  checkLabels(labels, probabilities.length);
  checkProbabilities(probabilities);
  const bins = options.bins ?? 10;
  const strategy = options.strategy ?? 'uniform';
  if (!Number.isSafeInteger(bins) || bins < 1) throw new RangeError(`bins must be an integer >= 1, got ${bins}`);
  if (strategy !== 'uniform' && strategy !== 'quantile') throw new RangeError(`strategy must be uniform or quantile, got ${String(strategy)}`);
  const bin = binOf(probabilities, bins, strategy);
  const count = new Float64Array(bins);
  const sumP = new Float64Array(bins);
  const sumY = new Float64Array(bins);
  const lowest = new Float64Array(bins).fill(Infinity);
  const highest = new Float64Array(bins).fill(-Infinity);
  for (let i = 0; i < probabilities.length; i++) {
    const k = bin[i];
    count[k]++;
    sumP[k] += probabilities[i];
    sumY[k] += labels[i];
    lowest[k] = min(lowest[k], probabilities[i]);
    highest[k] = max(highest[k], probabilities[i]);
  }
  return Array.from({ length: bins }, (_, k) => {
    const n = count[k];
    const [low, high] = strategy === 'uniform' ? [k / bins, (k + 1) / bins] : n > 0 ? [lowest[k], highest[k]] : [null, null];
    if (n === 0) return { low, high, n, meanPredicted: null, observedRate: null, observedLow: null, observedHigh: null };
    const [observedLow, observedHigh] = wilsonInterval(sumY[k], n);
    return { low, high, n, meanPredicted: sumP[k] / n, observedRate: sumY[k] / n, observedLow, observedHigh };
  });
}

/** Expected calibration error over B bins (see the file comment); NaN without rows. */
export function expectedCalibrationError(
  probabilities: ArrayLike<number>,
  labels: ArrayLike<number>,
  options: ReliabilityOptions = {},
): number {
  return eceOf(reliabilityTable(probabilities, labels, options), probabilities.length);
}

function eceOf(table: readonly ReliabilityRow[], n: number): number {
  if (n === 0) return NaN;
  let ece = 0;
  for (const row of table) {
    if (row.n > 0) ece += (row.n / n) * abs((row.observedRate as number) - (row.meanPredicted as number));
  }
  return ece;
}

export interface CalibrationMetrics {
  n: number;
  /** Share of positives; null without rows. */
  baseRate: number | null;
  /** Null without rows. */
  brier: number | null;
  ece: number | null;
  /** Brier score of always predicting the base rate, baseRate (1 - baseRate): the reference a forecast must beat. */
  brierReference: number | null;
  reliability: ReliabilityRow[];
}

/** Brier score, ECE and the reliability table of one set of probabilities. */
export function calibrationMetrics(
  probabilities: ArrayLike<number>,
  labels: ArrayLike<number>,
  options: ReliabilityOptions = {},
): CalibrationMetrics {
  const reliability = reliabilityTable(probabilities, labels, options);
  const n = probabilities.length;
  if (n === 0) return { n, baseRate: null, brier: null, ece: null, brierReference: null, reliability };
  let positives = 0;
  for (let i = 0; i < n; i++) positives += labels[i];
  const baseRate = positives / n;
  return {
    n,
    baseRate,
    brier: brierScore(probabilities, labels),
    ece: eceOf(reliability, n),
    brierReference: baseRate * (1 - baseRate),
    reliability,
  };
}
