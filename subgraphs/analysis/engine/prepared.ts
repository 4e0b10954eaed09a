/**
 * One symbol's bars with every full-length series the snapshot engine reads: daily indicators, the
 * weekly bars and their stage classification, and a daily relative-strength line. Computed once per
 * symbol and then read at any date index (every series is causal: a value at index i uses bars 0..i only).
 */
import type { BarSeries } from './market-types.js';
import { atr, bollinger, ema, historicalVolatility, macd, rsi, sma } from './indicators.js';
import { isWeekComplete, toWeekly, type WeeklyBars } from './weekly.js';
import { classifyStages, type StageSeries } from './stage.js';

export interface SymbolInput {
  symbol: string;
  sector: string | null;
  dataSource: 'synthetic' | 'imported';
  bars: BarSeries;
  /** Universe index closes aligned to `bars.dates` (NaN where the index has no bar), or null. */
  benchmark: Float64Array | null;
  /** For each bar, its position in the universe calendar (the time axis of the ML walk-forward). */
  time: Int32Array;
}

export interface DailyIndicators {
  sma10: Float64Array;
  sma20: Float64Array;
  sma50: Float64Array;
  sma150: Float64Array;
  sma200: Float64Array;
  ema10: Float64Array;
  ema20: Float64Array;
  ema50: Float64Array;
  ema150: Float64Array;
  ema200: Float64Array;
  rsi14: Float64Array;
  atr14: Float64Array;
  bbUpper: Float64Array;
  bbMiddle: Float64Array;
  bbLower: Float64Array;
  bbWidth: Float64Array;
  macd: Float64Array;
  macdSignal: Float64Array;
  macdHist: Float64Array;
  volSma20: Float64Array;
  volSma50: Float64Array;
  hv20: Float64Array;
  hv60: Float64Array;
}

export interface PreparedSymbol {
  input: SymbolInput;
  ind: DailyIndicators;
  /** Weekly bars of the whole history (the last week may be partial) and their stages. */
  weekly: WeeklyBars;
  stages: StageSeries;
  /** For each daily bar, the index of the last complete week at that bar (-1 before the first one). */
  completeWeekAt: Int32Array;
  /** Daily relative strength: (close / index) / SMA(close / index, 250) - 1; NaN without an index. */
  relativeStrength: Float64Array;
}

export function computeIndicators(bars: BarSeries): DailyIndicators {
  const { high, low, close, volume } = bars;
  const bb = bollinger(close, 20, 2);
  const m = macd(close, 12, 26, 9);
  return {
    sma10: sma(close, 10),
    sma20: sma(close, 20),
    sma50: sma(close, 50),
    sma150: sma(close, 150),
    sma200: sma(close, 200),
    ema10: ema(close, 10),
    ema20: ema(close, 20),
    ema50: ema(close, 50),
    ema150: ema(close, 150),
    ema200: ema(close, 200),
    rsi14: rsi(close, 14),
    atr14: atr(high, low, close, 14),
    bbUpper: bb.upper,
    bbMiddle: bb.middle,
    bbLower: bb.lower,
    bbWidth: bb.bandwidth,
    macd: m.macd,
    macdSignal: m.signal,
    macdHist: m.histogram,
    volSma20: sma(volume, 20),
    volSma50: sma(volume, 50),
    hv20: historicalVolatility(close, 20),
    hv60: historicalVolatility(close, 60),
  };
}

/** Weekly bars up to daily index `end` (the last week partial unless `end` closes it). */
export function weeklyUpTo(input: SymbolInput, end: number): WeeklyBars {
  const b = input.bars;
  return toWeekly(b.dates, b.open, b.high, b.low, b.close, b.volume, input.benchmark, end);
}

/**
 * weeklyUpTo(p.input, end), cut from the whole history's weekly bars: the weeks before the one holding
 * `end` are the same, and that week is gathered again up to `end` in the same order (the same sums).
 */
export function weeklyAt(p: PreparedSymbol, end: number): WeeklyBars {
  const full = p.weekly;
  const last = full.lastIndex;
  if (!Number.isInteger(end) || end < 0 || end > last[last.length - 1]) return weeklyUpTo(p.input, end);
  // The week holding `end`: the first whose last bar is at or after it.
  let lo = 0;
  let hi = last.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (last[mid] < end) lo = mid + 1;
    else hi = mid;
  }
  const w = lo;
  const count = w + 1;
  const out: WeeklyBars = {
    dates: full.dates.slice(0, count),
    weekKeys: full.weekKeys.slice(0, count),
    lastIndex: full.lastIndex.slice(0, count),
    open: full.open.slice(0, count),
    high: full.high.slice(0, count),
    low: full.low.slice(0, count),
    close: full.close.slice(0, count),
    volume: full.volume.slice(0, count),
    benchmark: full.benchmark.slice(0, count),
  };
  if (last[w] === end) return out;
  const b = p.input.bars;
  const first = w > 0 ? last[w - 1] + 1 : 0;
  let high = b.high[first];
  let low = b.low[first];
  let volume = 0;
  for (let i = first; i <= end; i++) {
    if (b.high[i] > high) high = b.high[i];
    if (b.low[i] < low) low = b.low[i];
    volume += b.volume[i];
  }
  out.dates[w] = b.dates[end];
  out.lastIndex[w] = end;
  out.high[w] = high;
  out.low[w] = low;
  out.close[w] = b.close[end];
  out.volume[w] = volume;
  out.benchmark[w] = p.input.benchmark !== null ? p.input.benchmark[end] : NaN;
  return out;
}

export function prepareSymbol(input: SymbolInput): PreparedSymbol {
  const n = input.bars.close.length;
  const weekly = weeklyUpTo(input, n - 1);
  const stages = classifyStages(weekly);
  // A week is complete at bar i when a later week has begun (i is past its last bar), or at its last
  // bar when that bar falls on its Friday (or later). The rule reads only dates up to i, so a value is
  // the same whether computed on the day or from a longer history.
  const dates = input.bars.dates;
  const completeWeekAt = new Int32Array(n).fill(-1);
  let w = -1;
  for (let i = 0; i < n; i++) {
    while (w + 1 < weekly.lastIndex.length) {
      const last = weekly.lastIndex[w + 1];
      if (last < i || (last === i && isWeekComplete(dates[i], null))) w++;
      else break;
    }
    completeWeekAt[i] = w;
  }
  return { input, ind: computeIndicators(input.bars), weekly, stages, completeWeekAt, relativeStrength: dailyRelativeStrength(input) };
}

function dailyRelativeStrength(input: SymbolInput): Float64Array {
  const n = input.bars.close.length;
  const out = new Float64Array(n).fill(NaN);
  if (!input.benchmark) return out;
  const rp = new Float64Array(n);
  for (let i = 0; i < n; i++) rp[i] = input.bars.close[i] / input.benchmark[i];
  const avg = sma(rp, 250);
  for (let i = 0; i < n; i++) out[i] = rp[i] / avg[i] - 1;
  return out;
}
