/**
 * Technical indicators on typed arrays, following TA-Lib's definitions (the field's reference).
 *
 * Conventions shared by every function here:
 * - The output is as long as the input and aligned index by index: output[i] belongs to bar i and uses
 *   inputs [0..i] only, never later bars.
 * - Bars before the first computable value (TA-Lib's "lookback") hold NaN. A series shorter than that
 *   lookback gives an all-NaN output.
 * - Periods are positive integers; any other period gives an all-NaN output. TA-Lib itself refuses
 *   period 1 for SMA, EMA, RSI, STDDEV, BBANDS and MACD's fast/slow EMAs; here period 1 follows the same
 *   formulas (SMA and EMA return the input, STDDEV returns 0, RSI is 100 after a rise and 0 after a fall
 *   or no change).
 * - Inputs are finite numbers. As in TA-Lib, a NaN in the input propagates into the running sums and
 *   smoothed averages that follow it.
 * - The arithmetic of SMA, EMA, RSI, TRANGE, ATR and MACD is done in the same order as TA-Lib's C code,
 *   so on the same input they agree with it bit for bit (as checked on the TA-Lib fixture in
 *   test/fixtures/talib). STDDEV (and Bollinger Bands)
 *   use a cancellation-free rolling variance instead of TA-Lib's E[x^2] - E[x]^2 (same definition,
 *   smaller rounding error: TA-Lib's version can report a small non-zero deviation for a run of equal
 *   prices, this one reports exactly 0).
 * - Where TA-Lib treats a quantity as zero, so does this code: TA-Lib's TA_IS_ZERO uses an absolute
 *   threshold of 1e-14 (exported here as TA_EPSILON). RSI is 0 when average gain + average loss is
 *   below it, and STDDEV is 0 when the variance is below it. Being absolute, the threshold matters for
 *   prices far below a cent, and for RSI after a long run of unchanged closes: Wilder's averages then
 *   shrink geometrically, the RSI keeps its last value, and drops to 0 once their sum passes under 1e-14
 *   (for period 14 and moves of about 1, after some 430 unchanged bars).
 *
 * Indicators (bar i, period p):
 * - SMA: mean of the last p values; first value at p - 1.
 * - EMA: k = 2 / (p + 1); seeded with the SMA of the first p values at index p - 1, then
 *   ema[i] = ema[i-1] + k * (x[i] - ema[i-1]).
 * - RSI (Wilder): changes d[i] = x[i] - x[i-1]; gains are the positive changes, losses the negated
 *   negative ones. The first average gain/loss is the simple mean of the first p changes (d[1..p]) and
 *   gives the first RSI at index p; after that avg = (avg_prev * (p - 1) + today) / p.
 *   RSI = 100 * avgGain / (avgGain + avgLoss), and 0 when both averages are (TA-Lib-)zero.
 * - True range (TRANGE): max(high - low, |close[i-1] - high|, |close[i-1] - low|) from index 1 (bar 0
 *   has no previous close, so it is NaN as in TA-Lib).
 * - ATR (Wilder): first value at index p = mean of TR[1..p]; then atr = (atr_prev * (p - 1) + TR) / p.
 * - STDDEV: population standard deviation (divide by p) of the last p values, times `deviations`;
 *   first value at p - 1.
 * - Bollinger Bands (TA-Lib BBANDS with an SMA middle band): middle = SMA(p), upper/lower =
 *   middle +/- deviations * STDDEV(p). Bandwidth = (upper - lower) / middle is not a TA-Lib output; it is
 *   NaN when the middle band is 0.
 * - MACD (TA-Lib MACD, including its seeding): the slow EMA is seeded as usual with the SMA of the first
 *   `slow` closes (value at index slow - 1); the fast EMA is seeded at that same index, with the SMA of
 *   the `fast` closes ending there (so it does not start at fast - 1 as a stand-alone EMA would).
 *   macd = fastEMA - slowEMA from index slow - 1; signal = EMA(signal period) of the macd line, seeded with
 *   the mean of its first `signal` values; histogram = macd - signal. TA-Lib reports all three only from
 *   the first signal value, index (slow - 1) + (signal - 1) = 33 for 12/26/9, and so does this code. If
 *   slow < fast, the two are swapped, as TA-Lib does.
 * - Historical volatility (not a TA-Lib function): daily log returns r[i] = ln(close[i] / close[i-1]);
 *   the sample standard deviation (divide by p - 1) of the last p returns, annualised by
 *   sqrt(periodsPerYear), as a fraction (0.25 = 25%). First value at index p (p returns need p + 1
 *   closes); needs p >= 2 and positive closes.
 *
 * All kernels are O(n) per call whatever the period (STDDEV's occasional O(p) re-summation is amortised
 * to O(1) per bar), make one pass over the series (MACD two: its line, then the signal over it) and
 * allocate only their output arrays (historical volatility also one scratch array of log returns;
 * Bollinger's bandwidth is computed when first read). On a million bars they run at about TA-Lib C's
 * speed (npm run bench:indicators compares them with a TA-Lib build).
 */

/** Math functions bound once: global lookups are slow in hot loops under a vm context (e.g. jest). */
const { abs, log, sqrt } = Math;

/** TA-Lib's TA_EPSILON: values with an absolute value below it are treated as zero (TA_IS_ZERO). */
export const TA_EPSILON = 1e-14;

function nanArray(n: number): Float64Array {
  return new Float64Array(n).fill(NaN);
}

/**
 * Node's Buffer.allocUnsafeSlow, where there is one (not in a browser): memory that is not zeroed first.
 * Outputs use it because every entry of an output is written before it is returned, so zeroing it
 * would be one more pass over the output (on a million bars a tenth of an SMA's time).
 */
const allocUnsafe = (globalThis as { Buffer?: { allocUnsafeSlow(size: number): Uint8Array } }).Buffer?.allocUnsafeSlow;

/**
 * An output of length n whose first `lookback` entries are NaN. The caller writes every entry after
 * them (the memory may hold anything before it does), so only the warm-up is filled here.
 */
function output(n: number, lookback: number): Float64Array {
  const out = allocUnsafe === undefined ? new Float64Array(n) : new Float64Array(allocUnsafe(n * 8).buffer, 0, n);
  out.fill(NaN, 0, lookback < n ? lookback : n);
  return out;
}

function isPeriod(period: number): boolean {
  return Number.isInteger(period) && period >= 1;
}

function assertSameLength(high: Float64Array, low: Float64Array, close: Float64Array): void {
  if (high.length !== low.length || low.length !== close.length) {
    throw new RangeError(`high, low and close must have the same length (got ${high.length}, ${low.length}, ${close.length})`);
  }
}

/** Simple moving average (TA-Lib SMA): mean of the last `period` values; first value at `period - 1`. */
export function sma(values: Float64Array, period: number): Float64Array {
  const n = values.length;
  if (!isPeriod(period) || n < period) return nanArray(n);
  const out = output(n, period - 1);
  smaInto(values, period, out);
  return out;
}

/** Writes the SMA of `values` to out[period - 1 ..] (needs values.length >= period). */
function smaInto(values: Float64Array, period: number, out: Float64Array): void {
  const n = values.length;
  // Running sum in TA-Lib's order: add the newest value, divide, then drop the oldest.
  let sum = 0;
  for (let i = 0; i < period - 1; i++) sum += values[i];
  for (let i = period - 1, trailing = 0; i < n; i++, trailing++) {
    const total = sum + values[i];
    out[i] = total / period;
    sum = total - values[trailing];
  }
}

/**
 * Exponential moving average (TA-Lib EMA, default compatibility): k = 2 / (period + 1), seeded with the
 * SMA of the first `period` values at index `period - 1`, then ema[i] = ema[i-1] + k * (x[i] - ema[i-1]).
 */
export function ema(values: Float64Array, period: number): Float64Array {
  return emaFrom(values, period, 0);
}

/**
 * EMA whose seed is the SMA of values[start .. start + period - 1] (TA-Lib's INT_EMA seeding when asked to
 * start late, as MACD does for its fast EMA); NaN before start + period - 1.
 */
function emaFrom(values: Float64Array, period: number, start: number): Float64Array {
  const n = values.length;
  const seedEnd = start + period - 1;
  if (!isPeriod(period) || !Number.isInteger(start) || start < 0 || seedEnd >= n) return nanArray(n);
  const out = output(n, seedEnd);
  const k = 2 / (period + 1);
  let sum = 0;
  for (let i = start; i <= seedEnd; i++) sum += values[i];
  let prev = sum / period;
  out[seedEnd] = prev;
  for (let i = seedEnd + 1; i < n; i++) {
    prev = (values[i] - prev) * k + prev;
    out[i] = prev;
  }
  return out;
}

export { emaFrom as emaSeededAt };

/** Relative strength index (TA-Lib RSI, Wilder smoothing); first value at index `period`. */
export function rsi(close: Float64Array, period = 14): Float64Array {
  const n = close.length;
  if (!isPeriod(period) || n <= period) return nanArray(n);
  const out = output(n, period);
  let gain = 0;
  let loss = 0;
  for (let i = 1; i <= period; i++) {
    const change = close[i] - close[i - 1];
    if (change < 0) loss -= change;
    else gain += change;
  }
  gain /= period;
  loss /= period;
  let total = gain + loss;
  out[period] = abs(total) < TA_EPSILON ? 0 : 100 * (gain / total);
  const keep = period - 1;
  let previous = close[period];
  for (let i = period + 1; i < n; i++) {
    const x = close[i];
    const change = x - previous;
    previous = x;
    // TA-Lib adds a rise to the gain or subtracts a fall from the loss. Without the branch (which
    // mispredicts on every other bar of a real series): (change + |change|) / 2 is the rise or +0, and
    // (|change| - change) / 2 the fall or +0, both exact (a doubling and a halving), and adding +0
    // leaves a sum unchanged, so the averages are the same doubles. (A NaN change makes both averages
    // NaN instead of one; the RSI is NaN from there on either way.)
    const size = abs(change);
    gain = (gain * keep + (change + size) * 0.5) / period;
    loss = (loss * keep + (size - change) * 0.5) / period;
    total = gain + loss;
    out[i] = abs(total) < TA_EPSILON ? 0 : 100 * (gain / total);
  }
  return out;
}

/** True range (TA-Lib TRANGE); index 0 is NaN (no previous close). */
export function trueRange(high: Float64Array, low: Float64Array, close: Float64Array): Float64Array {
  assertSameLength(high, low, close);
  const n = close.length;
  const out = output(n, 1);
  for (let i = 1; i < n; i++) out[i] = trueRangeAt(high, low, close, i);
  return out;
}

/** TR of bar i >= 1, with TA-Lib's comparisons. */
function trueRangeAt(high: Float64Array, low: Float64Array, close: Float64Array, i: number): number {
  const h = high[i];
  const l = low[i];
  const prevClose = close[i - 1];
  let greatest = h - l;
  const toHigh = abs(prevClose - h);
  if (toHigh > greatest) greatest = toHigh;
  const toLow = abs(prevClose - l);
  if (toLow > greatest) greatest = toLow;
  return greatest;
}

/** Average true range (TA-Lib ATR): mean of TR[1..period] at index `period`, then Wilder smoothing. */
export function atr(high: Float64Array, low: Float64Array, close: Float64Array, period = 14): Float64Array {
  assertSameLength(high, low, close);
  const n = close.length;
  if (!isPeriod(period) || n <= period) return nanArray(n);
  const out = output(n, period);
  let sum = 0;
  for (let i = 1; i <= period; i++) sum += trueRangeAt(high, low, close, i);
  let prev = sum / period;
  out[period] = prev;
  const keep = period - 1;
  for (let i = period + 1; i < n; i++) {
    prev *= keep;
    prev += trueRangeAt(high, low, close, i);
    prev /= period;
    out[i] = prev;
  }
  return out;
}

/**
 * When a window's sum of squared deviations falls below this fraction of the largest raw sum of squares
 * accumulated since the last re-summation, the window is re-summed: the subtraction has then cancelled
 * enough leading digits that the running sums' rounding could show.
 */
const CANCELLATION_RATIO = 1e-3;

/**
 * Rolling standard deviation of values[i - period + 1 .. i] for every i >= first + period - 1, written to
 * out[i] as sqrt(M2 / divisor) * multiplier, where M2 is the window's sum of squared deviations from its
 * mean. A variance below `zeroBelow` is reported as exactly 0.
 *
 * With `bands` (Bollinger Bands, in the same pass: a second pass over the series would cost a fifth more)
 * it also writes the window's SMA to bands.middle[i], with the running sum of smaInto (TA-Lib's order, so
 * the middle band is the SMA bit for bit), and then out[i] = middle + deviation, bands.lower[i] =
 * middle - deviation.
 *
 * Method: running sums S1 = sum(x - a) and S2 = sum((x - a)^2) around an anchor a taken from inside the
 * window, so period * M2 = period * S2 - S1^2 never subtracts two numbers of the price's own magnitude.
 * The window is re-summed from scratch (with a fresh anchor) every
 * `period` bars, which bounds how many roundings the sums can accumulate, and whenever M2 has become
 * tiny next to the sums (see CANCELLATION_RATIO). A run of equal values therefore gives exactly 0, and
 * the relative error stays around 1e-12 whatever the price level.
 */
function rollingDeviation(
  values: Float64Array,
  first: number,
  period: number,
  divisor: number,
  multiplier: number,
  zeroBelow: number,
  out: Float64Array,
  bands?: { middle: Float64Array; lower: Float64Array },
): void {
  const n = values.length;
  // variance = period * M2 / (period * divisor), by a multiplication (a division per bar would be the
  // loop's slowest step after the square root).
  const perScale = 1 / (period * divisor);
  const cancelBelow = CANCELLATION_RATIO * period;
  const middle = bands?.middle;
  const lower = bands?.lower;
  let sum = 0;
  if (middle !== undefined) for (let j = first; j < first + period - 1; j++) sum += values[j];
  let i = first + period - 1;
  while (i < n) {
    // Re-summation of the window ending at i around a fresh anchor, its first value.
    const start = i - period + 1;
    const anchor = values[start];
    let s1 = 0;
    let s2 = 0;
    for (let j = start + 1; j <= i; j++) {
      const d = values[j] - anchor;
      s1 += d;
      s2 += d * d;
    }
    let peak = s2;
    let m2 = period * s2 - s1 * s1;
    // Then up to `period` more windows by updating the sums, unless the cancellation test asks for a
    // re-summation earlier.
    const end = i + period + 1 < n ? i + period + 1 : n;
    for (;;) {
      const variance = m2 * perScale;
      const deviation = variance < zeroBelow ? 0 : sqrt(variance) * multiplier;
      if (middle === undefined || lower === undefined) out[i] = deviation;
      else {
        const total = sum + values[i];
        const m = total / period;
        sum = total - values[i - period + 1];
        middle[i] = m;
        out[i] = m + deviation;
        lower[i] = m - deviation;
      }
      if (++i >= end) break;
      const added = values[i] - anchor;
      const removed = values[i - period] - anchor;
      s1 += added - removed;
      s2 += added * added - removed * removed;
      if (s2 > peak) peak = s2;
      m2 = period * s2 - s1 * s1;
      if (m2 < cancelBelow * peak) break;
    }
  }
}

/** Standard deviation (TA-Lib STDDEV, population) of the last `period` values, times `deviations`. */
export function stddev(values: Float64Array, period: number, deviations = 1): Float64Array {
  const n = values.length;
  if (!isPeriod(period) || n < period) return nanArray(n);
  const out = output(n, period - 1);
  rollingDeviation(values, 0, period, period, deviations, TA_EPSILON, out);
  return out;
}

export interface BollingerBands {
  upper: Float64Array;
  middle: Float64Array;
  lower: Float64Array;
  /**
   * (upper - lower) / middle; not a TA-Lib output. Computed on first read (and kept), so callers that
   * only need the bands do not pay for it.
   */
  readonly bandwidth: Float64Array;
}

/** Bollinger Bands (TA-Lib BBANDS, SMA middle band, same deviations up and down) plus bandwidth. */
export function bollinger(close: Float64Array, period = 20, deviations = 2): BollingerBands {
  const n = close.length;
  if (!isPeriod(period) || n < period) return { upper: nanArray(n), middle: nanArray(n), lower: nanArray(n), bandwidth: nanArray(n) };
  const lookback = period - 1;
  const middle = output(n, lookback);
  const upper = output(n, lookback);
  const lower = output(n, lookback);
  rollingDeviation(close, 0, period, period, deviations, TA_EPSILON, upper, { middle, lower });
  let bandwidth: Float64Array | undefined;
  return {
    upper,
    middle,
    lower,
    get bandwidth(): Float64Array {
      bandwidth ??= bandwidthOf(upper, middle, lower, lookback);
      return bandwidth;
    },
  };
}

function bandwidthOf(upper: Float64Array, middle: Float64Array, lower: Float64Array, lookback: number): Float64Array {
  const n = middle.length;
  const out = output(n, lookback);
  for (let i = lookback; i < n; i++) {
    const m = middle[i];
    out[i] = m === 0 ? NaN : (upper[i] - lower[i]) / m;
  }
  return out;
}

export interface Macd {
  macd: Float64Array;
  signal: Float64Array;
  histogram: Float64Array;
}

/** MACD exactly as TA-Lib computes it (see the file comment for the fast EMA's seeding). */
export function macd(close: Float64Array, fast = 12, slow = 26, signal = 9): Macd {
  const n = close.length;
  const none = (): Macd => ({ macd: nanArray(n), signal: nanArray(n), histogram: nanArray(n) });
  if (!isPeriod(fast) || !isPeriod(slow) || !isPeriod(signal)) return none();
  if (slow < fast) [fast, slow] = [slow, fast];
  const macdStart = slow - 1;
  const firstOut = macdStart + signal - 1;
  if (n <= firstOut) return none();
  const line = output(n, macdStart);
  const signalLine = output(n, firstOut);
  const histogram = output(n, firstOut);
  const result = { macd: line, signal: signalLine, histogram };

  const kSlow = 2 / (slow + 1);
  const kFast = 2 / (fast + 1);
  const kSignal = 2 / (signal + 1);
  let slowSum = 0;
  for (let i = 0; i <= macdStart; i++) slowSum += close[i];
  let fastSum = 0;
  for (let i = slow - fast; i <= macdStart; i++) fastSum += close[i];
  let slowEma = slowSum / slow;
  let fastEma = fastSum / fast;

  // The macd line is written from macdStart so the signal seed can be summed from it; the part
  // before firstOut is reset to NaN below (TA-Lib does not report it).
  line[macdStart] = fastEma - slowEma;
  for (let i = macdStart + 1; i < n; i++) {
    const x = close[i];
    slowEma = (x - slowEma) * kSlow + slowEma;
    fastEma = (x - fastEma) * kFast + fastEma;
    line[i] = fastEma - slowEma;
  }
  let signalSum = 0;
  for (let i = macdStart; i <= firstOut; i++) signalSum += line[i];
  let sig = signalSum / signal;
  signalLine[firstOut] = sig;
  histogram[firstOut] = line[firstOut] - sig;
  for (let i = firstOut + 1; i < n; i++) {
    const m = line[i];
    sig = (m - sig) * kSignal + sig;
    signalLine[i] = sig;
    histogram[i] = m - sig;
  }
  for (let i = macdStart; i < firstOut; i++) line[i] = NaN;
  return result;
}

/**
 * Historical volatility: sample standard deviation (n - 1) of the last `period` daily log returns,
 * times sqrt(periodsPerYear); first value at index `period`. Not a TA-Lib function.
 */
export function historicalVolatility(close: Float64Array, period: number, periodsPerYear = 252): Float64Array {
  const n = close.length;
  if (!isPeriod(period) || period < 2 || n <= period) return nanArray(n);
  const out = output(n, period);
  const returns = new Float64Array(n);
  returns[0] = NaN;
  for (let i = 1; i < n; i++) returns[i] = log(close[i] / close[i - 1]);
  rollingDeviation(returns, 1, period, period - 1, sqrt(periodsPerYear), 0, out);
  return out;
}
