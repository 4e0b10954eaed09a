/**
 * Builds the stored analysis document of one symbol at one date index from its prepared series and the
 * universe-wide state (market regime, stage transition table, walk-forward ML models). Pure: the same
 * inputs give the same document, and a document for bar i reads bars 0..i only.
 *
 * Windows: `detected_patterns` look back 250 trading days, `recent_patterns` 60; support and resistance
 * come from the last 250 days' pivots (at most 5 per side). The pattern lists keep the most recent
 * MAX_PATTERNS / MAX_RECENT_PATTERNS entries; `best_pattern` and `pattern_signal` use every detection of
 * the window (detectPatterns keeps at most 12).
 *
 * Stored numbers keep what the data supports: integers as they are, other values of magnitude >= 1 to
 * 4 decimals, smaller ones to 6 significant digits (see serializeDocument).
 */
import type {
  AnalysisDocument,
  IndicatorsBlock,
  MlModelSummary,
  RegimeDetail,
  StagePayload,
} from './document.js';
import { PIPELINE_VERSION } from './document.js';
import { ema, sma } from './indicators.js';
import { bestPattern, detectPatterns, summarizePatterns } from './patterns.js';
import { supportResistance } from './levels.js';
import type { PriceInput } from './pivots.js';
import { classifyStages, stagePayload } from './stage.js';
import type { TransitionTable } from './transitions.js';
import { FEATURE_COUNT, featuresAt } from './features.js';
import { predictProbability, type LogisticModel } from './logistic.js';
import { enhancedSignal, mlSignal, priceTargets, riskParameters, rulesSignal, volatilityState } from './signals.js';
import { weeklyAt, type PreparedSymbol } from './prepared.js';

export const PATTERN_LOOKBACK = 250;
export const RECENT_PATTERN_LOOKBACK = 60;
export const LEVEL_LOOKBACK = 250;
export const MAX_LEVELS = 5;
export const MAX_PATTERNS = 5;
export const MAX_RECENT_PATTERNS = 3;

/** The out-of-sample model for a date and what to say about it. */
export interface MlModelChoice {
  model: LogisticModel;
  summary: MlModelSummary;
}

export interface UniverseState {
  regimeAt(date: string): RegimeDetail | null;
  transitions: TransitionTable | null;
  /** The model that is out-of-sample for a universe time index, or null (too early, or no model). */
  mlModelAt(time: number): MlModelChoice | null;
}

const { abs, floor, log10, max, round: mathRound } = Math;

/** Rounds to `digits` decimals (prices, percentages). */
export function round(x: number, digits = 4): number {
  const f = 10 ** digits;
  return mathRound(x * f) / f;
}

/** Keeps `digits` significant digits (ratios and small values). */
function sig(x: number, digits = 6): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  const d = digits - 1 - floor(log10(abs(x)));
  return d > 0 ? round(x, max(0, d)) : x;
}

const num = (x: number, digits = 4): number | null => (Number.isFinite(x) ? round(x, digits) : null);
const ratio = (x: number): number | null => (Number.isFinite(x) ? sig(x) : null);

export function priceInput(p: PreparedSymbol): PriceInput {
  const b = p.input.bars;
  return { dates: b.dates, open: b.open, high: b.high, low: b.low, close: b.close, volume: b.volume, atr: p.ind.atr14 };
}

/** The weekly stage payload at daily index i (the current week is partial unless i closes it). */
export function stageAt(p: PreparedSymbol, i: number): { stage: StagePayload | null; weeklyClose: Float64Array } {
  const n = p.input.bars.close.length;
  const weekly = i === n - 1 ? p.weekly : weeklyAt(p, i);
  const stages = i === n - 1 ? p.stages : classifyStages(weekly);
  return { stage: stagePayload(weekly, stages, weekly.close.length - 1), weeklyClose: weekly.close };
}

function lastOf(values: Float64Array): number {
  return values.length > 0 ? values[values.length - 1] : NaN;
}

export function buildDocument(p: PreparedSymbol, i: number, universe: UniverseState, producedAt: string): AnalysisDocument {
  const b = p.input.bars;
  const ind = p.ind;
  const date = b.dates[i];
  const close = b.close[i];
  const { stage, weeklyClose } = stageAt(p, i);

  const atrPercent = (ind.atr14[i] / close) * 100;
  const vol = volatilityState(ind.hv20[i], ind.hv60[i], atrPercent);
  const indicators: IndicatorsBlock = {
    sma_10: num(ind.sma10[i]),
    sma_20: num(ind.sma20[i]),
    sma_50: num(ind.sma50[i]),
    sma_150: num(ind.sma150[i]),
    sma_200: num(ind.sma200[i]),
    ema_10: num(ind.ema10[i]),
    ema_20: num(ind.ema20[i]),
    ema_50: num(ind.ema50[i]),
    ema_150: num(ind.ema150[i]),
    ema_200: num(ind.ema200[i]),
    sma_10w: num(lastOf(sma(weeklyClose, 10))),
    sma_30w: num(lastOf(sma(weeklyClose, 30))),
    ema_10w: num(lastOf(ema(weeklyClose, 10))),
    ema_30w: num(lastOf(ema(weeklyClose, 30))),
    rsi_14: num(ind.rsi14[i], 2),
    atr_14: num(ind.atr14[i]),
    atr_percent: num(atrPercent, 3),
    bollinger: Number.isFinite(ind.bbMiddle[i])
      ? { upper: round(ind.bbUpper[i]), middle: round(ind.bbMiddle[i]), lower: round(ind.bbLower[i]), bandwidth: sig(ind.bbWidth[i]) }
      : null,
    macd: Number.isFinite(ind.macdSignal[i]) ? { macd: sig(ind.macd[i]), signal: sig(ind.macdSignal[i]), histogram: sig(ind.macdHist[i]) } : null,
    volume_sma_20: num(ind.volSma20[i], 0),
    volume_sma_50: num(ind.volSma50[i], 0),
    relative_volume: ratio(b.volume[i] / ind.volSma50[i]),
    historical_volatility_20: ratio(ind.hv20[i]),
    historical_volatility_60: ratio(ind.hv60[i]),
    volatility_trend: vol.trend,
    is_high_volatility: vol.high,
    mansfield_rs: stage?.mansfield_rs ?? null,
    sata_score: stage?.sata_score ?? null,
  };

  const prices = priceInput(p);
  const detected = detectPatterns(prices, i, { lookback: PATTERN_LOOKBACK });
  const recent = detectPatterns(prices, i, { lookback: RECENT_PATTERN_LOOKBACK });
  const patternSignal = summarizePatterns(detected);
  const levels = supportResistance(prices, i, { lookback: LEVEL_LOOKBACK, maxLevels: MAX_LEVELS });
  const regime = universe.regimeAt(date);

  const rules = rulesSignal({
    stage,
    patternSignal,
    close,
    sma50: ind.sma50[i],
    sma50Prior: i >= 10 ? ind.sma50[i - 10] : NaN,
    macdHist: ind.macdHist[i],
    rsi: ind.rsi14[i],
    regime: regime?.regime ?? null,
  });

  const choice = universe.mlModelAt(p.input.time[i]);
  let ml = null;
  if (choice) {
    const x = new Float64Array(FEATURE_COUNT);
    if (featuresAt(p, i, x, 0)) ml = mlSignal(predictProbability(choice.model, x, 0), choice.summary);
  }

  const risk = riskParameters({
    close,
    atr: ind.atr14[i],
    hv20: ind.hv20[i],
    indicators,
    support: levels.support,
    resistance: levels.resistance,
    patterns: detected,
  });
  const transitions = stage && universe.transitions ? universe.transitions.probabilities(stage.stage, date) : null;

  return {
    stage: stage?.label ?? null,
    stage_strength: stage?.strength ?? null,
    price: round(close),
    volume: b.volume[i],
    indicators,
    detected_patterns: detected.slice(0, MAX_PATTERNS),
    best_pattern: bestPattern(detected),
    pattern_signal: patternSignal,
    price_targets: priceTargets(close, detected, levels.support, levels.resistance),
    support_levels: levels.support.map((l) => l.price),
    resistance_levels: levels.resistance.map((l) => l.price),
    recent_patterns: recent.slice(0, MAX_RECENT_PATTERNS),
    best_recent_pattern: bestPattern(recent),
    recent_pattern_signal: summarizePatterns(recent),
    market_regime: regime?.regime ?? null,
    sector: p.input.sector,
    signal: rules.signal,
    confidence: rules.confidence,
    ml_signal: ml,
    enhanced_signal: enhancedSignal(rules, ml, stage),
    analysis_date: date,
    analysis_timestamp: producedAt,
    timestamp: producedAt,
    risk_parameters: risk,
    transition_probabilities: transitions,
    symbol: p.input.symbol,
    data_source: p.input.dataSource,
    pipeline_version: PIPELINE_VERSION,
    bars_used: i + 1,
    stage_detail: stage,
    signal_reasons: rules.reasons,
    support_resistance: levels,
    regime_detail: regime,
  };
}

/** A number as stored: integers as they are, others rounded as the module comment says. */
export function storedNumber(value: number): number {
  return Number.isInteger(value) ? value : abs(value) >= 1 ? round(value) : sig(value);
}

/** The document as stored: JSON with numbers rounded as the module comment says (storedNumber). */
export function serializeDocument(doc: AnalysisDocument): string {
  return JSON.stringify(doc, (_key, value: unknown) => (typeof value === 'number' ? storedNumber(value) : value));
}
