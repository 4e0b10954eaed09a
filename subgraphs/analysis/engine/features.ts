/**
 * Features and labels of the ML signal: one sample per symbol per sampled trading day.
 *
 * Features at day t (all causal, from bars 0..t):
 *   ret_5, ret_20, ret_60   log returns over 5, 20 and 60 days
 *   excess_ret_20           ret_20 minus the universe index's 20-day log return
 *   dist_sma50, dist_sma200 close / SMA - 1
 *   rsi_14                  RSI(14) / 100 - 0.5
 *   macd_hist               MACD histogram / close
 *   bb_width                Bollinger(20, 2) bandwidth
 *   hv_20                   20-day annualised historical volatility
 *   hv_ratio                hv_20 / hv_60 - 1 (volatility expanding or contracting)
 *   rel_volume              ln(volume / 50-day average volume)
 *   rel_strength            daily relative strength vs the index (see prepared.ts)
 *   stage_2, stage_3, stage_4  one-hot Weinstein stage of the last complete week (stage 1 is the base case)
 *
 * Label: 1 when the forward HORIZON_DAYS log return beats the index's over the same days, else 0.
 * A sample's time (for the walk-forward split) is the universe time of its label's last bar less
 * HORIZON_DAYS: the sample's own day when the symbol has no gaps, later when it has.
 * A day needs 200 bars of history (the 200-day SMA) and, for a label, HORIZON_DAYS bars after it.
 */
import type { PreparedSymbol } from './prepared.js';

export const FEATURE_NAMES = [
  'ret_5',
  'ret_20',
  'ret_60',
  'excess_ret_20',
  'dist_sma50',
  'dist_sma200',
  'rsi_14',
  'macd_hist',
  'bb_width',
  'hv_20',
  'hv_ratio',
  'rel_volume',
  'rel_strength',
  'stage_2',
  'stage_3',
  'stage_4',
] as const;
export const FEATURE_COUNT = FEATURE_NAMES.length;
/** Forward window of the label, in trading days. */
export const HORIZON_DAYS = 20;
/** First day with every feature available. */
export const FEATURE_WARMUP = 200;
/** Training samples are taken every SAMPLE_STRIDE trading days (consecutive days overlap heavily). */
export const SAMPLE_STRIDE = 5;

const { log } = Math;

/**
 * Writes the feature vector of day `t` into out[offset ..]; false when a feature is not available
 * (warm-up, missing index). Without an index the relative features are 0 (neutral).
 */
export function featuresAt(p: PreparedSymbol, t: number, out: Float64Array, offset: number): boolean {
  if (t < FEATURE_WARMUP) return false;
  const c = p.input.bars.close;
  const v = p.input.bars.volume;
  const bench = p.input.benchmark;
  const ind = p.ind;
  const close = c[t];
  const ret20 = log(close / c[t - 20]);
  const benchRet20 = bench ? log(bench[t] / bench[t - 20]) : ret20;
  const w = p.completeWeekAt[t];
  const stage = w >= 0 ? p.stages.stage[w] : 0;
  const rs = p.relativeStrength[t];
  const values = [
    log(close / c[t - 5]),
    ret20,
    log(close / c[t - 60]),
    ret20 - benchRet20,
    close / ind.sma50[t] - 1,
    close / ind.sma200[t] - 1,
    ind.rsi14[t] / 100 - 0.5,
    ind.macdHist[t] / close,
    ind.bbWidth[t],
    ind.hv20[t],
    ind.hv20[t] / ind.hv60[t] - 1,
    log(Math.max(v[t], 1) / Math.max(ind.volSma50[t], 1)),
    Number.isFinite(rs) ? rs : 0,
    stage === 2 ? 1 : 0,
    stage === 3 ? 1 : 0,
    stage === 4 ? 1 : 0,
  ];
  for (let k = 0; k < FEATURE_COUNT; k++) {
    const x = values[k];
    if (!Number.isFinite(x)) return false;
    out[offset + k] = x;
  }
  return true;
}

export interface SampleSet {
  n: number;
  x: Float64Array;
  y: Uint8Array;
  time: Int32Array;
}

/** Most samples labelledSamples can give a symbol of `bars` bars. */
export function sampleCapacity(bars: number): number {
  return Math.max(0, Math.floor((bars - 1 - HORIZON_DAYS - FEATURE_WARMUP) / SAMPLE_STRIDE) + 1);
}

/** Labelled training samples of one symbol: every SAMPLE_STRIDE-th day with features and a known label. */
export function labelledSamples(p: PreparedSymbol): SampleSet {
  const capacity = sampleCapacity(p.input.bars.close.length);
  const out: SampleSet = { n: 0, x: new Float64Array(capacity * FEATURE_COUNT), y: new Uint8Array(capacity), time: new Int32Array(capacity) };
  const n = labelledSamplesInto(p, out, 0);
  return { n, x: out.x.subarray(0, n * FEATURE_COUNT), y: out.y.subarray(0, n), time: out.time.subarray(0, n) };
}

/**
 * The same samples written into `out` from sample `at` on (room for sampleCapacity of the symbol's bars);
 * returns how many were written.
 */
export function labelledSamplesInto(p: PreparedSymbol, out: SampleSet, at: number): number {
  const c = p.input.bars.close;
  const bench = p.input.benchmark;
  const last = c.length - 1 - HORIZON_DAYS;
  const { x, y, time } = out;
  let n = at;
  for (let t = FEATURE_WARMUP; t <= last; t += SAMPLE_STRIDE) {
    if (!featuresAt(p, t, x, n * FEATURE_COUNT)) continue;
    const fwd = log(c[t + HORIZON_DAYS] / c[t]);
    const benchFwd = bench ? log(bench[t + HORIZON_DAYS] / bench[t]) : 0;
    if (!Number.isFinite(fwd - benchFwd)) continue;
    y[n] = fwd - benchFwd > 0 ? 1 : 0;
    // The walk-forward embargo keeps a sample out of a window's training set unless time <= start - 20.
    // Stating the sample's time as (time of its label's last bar) - 20 makes that mean "the outcome was
    // known by the window's start" even when the symbol has gaps (20 bars may span more than 20 days).
    time[n] = p.input.time[t + HORIZON_DAYS] - HORIZON_DAYS;
    n++;
  }
  return n - at;
}
