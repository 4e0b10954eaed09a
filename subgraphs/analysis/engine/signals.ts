/**
 * Signals and risk parameters of a snapshot.
 *
 * Rules signal: a score in -1..1 from weighted votes (weights in RULE_WEIGHTS, divided by their sum):
 *   stage          stage 2: +1 (2C, extended: +0.5); stage 1: 0 (+0.25 when the last week broke out
 *                  above the base on volume); stage 3: -0.5; stage 4: -1
 *   relative       Mansfield RS above 0 and rising: +1; below 0 and falling: -1; otherwise 0
 *   patterns       pattern_signal.net_confidence (-1..1)
 *   trend          close above a rising 50-day SMA (vs 10 days earlier): +1; below a falling one: -1; else 0
 *   momentum       MACD histogram sign (+0.5 / -0.5) and RSI: above 75 overbought -0.5, below 25 in stage 4 -0.5
 *   regime         bull +1, bear -1, sideways 0 (the universe index's regime)
 * BUY when score >= 0.3 and the stage is 1 or 2; SELL when score <= -0.3; HOLD otherwise.
 * Confidence: BUY/SELL 0.5 + 0.5 * (|score| - 0.3) / 0.7; HOLD 0.5 + 0.5 * (1 - |score| / 0.3),
 * i.e. how far the score sits inside the band of its verdict.
 *
 * ML signal: probability p that the forward 20-day excess return is positive; BUY when p >= 0.55,
 * SELL when p <= 0.45, HOLD otherwise; confidence |2p - 1|.
 *
 * Enhanced signal: score = (1 - w) * rules + w * (2p - 1). The rules score is the base; every other
 * component (today the ML model) enters only through the edge gate: its weight is
 *     w = min(0.5, 4 * (low - 0.5)) when low > 0.5, else 0,
 * where low is the lower bound of the 95% interval of the component's out-of-sample AUC (block bootstrap
 * over dates, see signal-model.ts). No interval (too few dates), an interval that includes 0.5, or no
 * component at all means weight 0; above that the weight grows with the measured edge, reaching half at
 * low >= 0.625. A point estimate alone never earns weight. `weights` gives each component's weight with
 * the reason (for a weight of 0: why). Same thresholds and confidence as the rules signal.
 *
 * Risk parameters (long side):
 *   atr_stop      close - 2 x ATR(14)
 *   support_stop  nearest support below the close, less 0.25 x ATR
 *   suggested     the tighter (higher) of the two, but at least max(1%, 1 x ATR) below the close
 *   target        the nearest bullish pattern target or resistance above the close that is at least
 *                 1 x risk away, else close + 3 x ATR
 *   volatility    rising when hv_20 > 1.1 x hv_60, falling when < 0.9 x hv_60; high when the
 *                 annualised hv_20 >= 45% or ATR >= 4% of the close
 */
import type {
  AucInterval,
  BlendComponent,
  BlendWeight,
  EnhancedSignal,
  IndicatorsBlock,
  MarketRegime,
  MlModelSummary,
  MlSignal,
  PatternEntry,
  PatternSignal,
  PriceLevel,
  PriceTarget,
  RiskParameters,
  Signal,
  StagePayload,
} from './document.js';

export const RULE_WEIGHTS = { stage: 3, relative: 1.5, patterns: 1.5, trend: 1, momentum: 1, regime: 1 } as const;
export const SIGNAL_THRESHOLD = 0.3;
const { abs, max, min, floor, sqrt } = Math;

const round = (x: number, digits = 4): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};
const clamp = (x: number, lo: number, hi: number): number => min(hi, max(lo, x));

export interface RulesInput {
  stage: StagePayload | null;
  patternSignal: PatternSignal | null;
  close: number;
  sma50: number;
  sma50Prior: number;
  macdHist: number;
  rsi: number;
  regime: MarketRegime | null;
}

export interface RulesSignal {
  signal: Signal;
  score: number;
  confidence: number;
  reasons: string[];
}

export function rulesSignal(input: RulesInput): RulesSignal {
  const reasons: string[] = [];
  const votes: Record<keyof typeof RULE_WEIGHTS, number> = { stage: 0, relative: 0, patterns: 0, trend: 0, momentum: 0, regime: 0 };
  const st = input.stage;
  if (st) {
    if (st.stage === 2) {
      votes.stage = st.sub_stage.endsWith('C') ? 0.5 : 1;
      reasons.push(`${st.label} (${st.sub_stage}) advance, ${st.weeks_in_stage} week(s) in stage`);
    } else if (st.stage === 1) {
      const breakout = st.sata.find((a) => a.name === 'breakout')?.met ?? false;
      votes.stage = breakout ? 0.25 : 0;
      reasons.push(breakout ? `${st.label} base with a breakout attempt` : `${st.label} base: no trend yet`);
    } else if (st.stage === 3) {
      votes.stage = -0.5;
      reasons.push(`${st.label} top: distribution risk`);
    } else {
      votes.stage = -1;
      reasons.push(`${st.label} decline`);
    }
    if (st.mansfield_rs !== null) {
      if (st.mansfield_rs > 0 && st.mansfield_rs_trend === 'rising') {
        votes.relative = 1;
        reasons.push(`relative strength positive and rising (${round(st.mansfield_rs, 1)})`);
      } else if (st.mansfield_rs < 0 && st.mansfield_rs_trend === 'falling') {
        votes.relative = -1;
        reasons.push(`relative strength negative and falling (${round(st.mansfield_rs, 1)})`);
      }
    }
  } else {
    reasons.push('stage undetermined: not enough weekly history');
  }
  const ps = input.patternSignal;
  if (ps && ps.direction !== 'NEUTRAL') {
    votes.patterns = ps.net_confidence;
    reasons.push(`patterns ${ps.direction.toLowerCase()} (net ${round(ps.net_confidence, 2)})`);
  }
  if (Number.isFinite(input.sma50) && Number.isFinite(input.sma50Prior)) {
    const rising = input.sma50 > input.sma50Prior;
    const falling = input.sma50 < input.sma50Prior;
    if (input.close > input.sma50 && rising) {
      votes.trend = 1;
      reasons.push('close above a rising 50-day average');
    } else if (input.close < input.sma50 && falling) {
      votes.trend = -1;
      reasons.push('close below a falling 50-day average');
    }
  }
  if (Number.isFinite(input.macdHist)) votes.momentum = input.macdHist > 0 ? 0.5 : -0.5;
  if (Number.isFinite(input.rsi)) {
    if (input.rsi > 75) {
      votes.momentum -= 0.5;
      reasons.push(`RSI ${round(input.rsi, 1)}: overbought`);
    } else if (input.rsi < 25 && st?.stage === 4) {
      votes.momentum -= 0.5;
      reasons.push(`RSI ${round(input.rsi, 1)}: oversold in a decline`);
    }
  }
  if (input.regime) {
    votes.regime = input.regime === 'bull' ? 1 : input.regime === 'bear' ? -1 : 0;
    reasons.push(`market regime ${input.regime}`);
  }
  let total = 0;
  let weight = 0;
  for (const key of Object.keys(RULE_WEIGHTS) as (keyof typeof RULE_WEIGHTS)[]) {
    total += RULE_WEIGHTS[key] * votes[key];
    weight += RULE_WEIGHTS[key];
  }
  const score = clamp(total / weight, -1, 1);
  const buyableStage = st !== null && (st.stage === 1 || st.stage === 2);
  const signal: Signal = score >= SIGNAL_THRESHOLD && buyableStage ? 'BUY' : score <= -SIGNAL_THRESHOLD ? 'SELL' : 'HOLD';
  if (score >= SIGNAL_THRESHOLD && !buyableStage) reasons.push('bullish score, but no buy outside stages 1 and 2');
  return { signal, score: round(score), confidence: round(confidenceOf(signal, score)), reasons };
}

function confidenceOf(signal: Signal, score: number): number {
  if (signal === 'HOLD') return clamp(0.5 + 0.5 * (1 - abs(score) / SIGNAL_THRESHOLD), 0, 1);
  return clamp(0.5 + (0.5 * (abs(score) - SIGNAL_THRESHOLD)) / (1 - SIGNAL_THRESHOLD), 0, 1);
}

export function mlSignal(probabilityUp: number, model: MlModelSummary): MlSignal {
  const signal: Signal = probabilityUp >= 0.55 ? 'BUY' : probabilityUp <= 0.45 ? 'SELL' : 'HOLD';
  return { signal, probability_up: round(probabilityUp), confidence: round(abs(2 * probabilityUp - 1)), model };
}

/** Gain and cap of the edge gate: w = min(MAX_GATED_WEIGHT, EDGE_GAIN * (low - 0.5)) when low > 0.5. */
export const EDGE_GAIN = 4;
export const MAX_GATED_WEIGHT = 0.5;

/** What a gated component brings to the blend: its out-of-sample AUC, the AUC's interval and how many dates back it. */
export interface EdgeRecord {
  auc: number | null;
  ci: AucInterval | null;
  dates: number;
}

/** The gate's verdict on one component. */
export interface GateDecision {
  weight: number;
  /** The measured record and the verdict, e.g. "out-of-sample AUC 0.497 [0.481, 0.512] (95%, 57 dates), interval includes 0.5". */
  evidence: string;
}

const auc3 = (x: number): string => x.toFixed(3);

/**
 * The edge gate every blended component other than the rules base goes through (see the file comment):
 * its weight, and the evidence behind it, which always states the measured record and, for 0, why.
 */
export function edgeGate(record: EdgeRecord): GateDecision {
  const { auc, ci, dates } = record;
  if (auc === null || !Number.isFinite(auc)) return { weight: 0, evidence: 'no out-of-sample predictions with known outcomes yet' };
  if (ci === null) {
    return { weight: 0, evidence: `out-of-sample AUC ${auc3(auc)} over ${dates} date(s), no interval (it needs at least 10 dates with both outcomes)` };
  }
  const measured = `out-of-sample AUC ${auc3(auc)} [${auc3(ci.low)}, ${auc3(ci.high)}] (${round(ci.level * 100, 1)}%, ${dates} dates)`;
  if (!(ci.low > 0.5)) return { weight: 0, evidence: `${measured}, interval ${ci.high < 0.5 ? 'below' : 'includes'} 0.5` };
  const weight = round(min(MAX_GATED_WEIGHT, EDGE_GAIN * (ci.low - 0.5)));
  return { weight, evidence: `${measured}, lower bound above 0.5: min(${MAX_GATED_WEIGHT}, ${EDGE_GAIN} x (${auc3(ci.low)} - 0.5))` };
}

/** The ML model's record as its summary states it (documents stored before the gate count as no record). */
export function mlEdgeRecord(model: MlModelSummary): EdgeRecord {
  return { auc: model.oos_auc, ci: model.oos_auc_ci ?? null, dates: model.oos_dates ?? 0 };
}

const NO_ML = 'no ML signal for this date (no out-of-sample model yet, or too little history for its features)';

export function enhancedSignal(rules: RulesSignal, ml: MlSignal | null, stage: StagePayload | null): EnhancedSignal {
  const gate: GateDecision = ml ? edgeGate(mlEdgeRecord(ml.model)) : { weight: 0, evidence: NO_ML };
  const w = gate.weight;
  const score = clamp((1 - w) * rules.score + (ml ? w * (2 * ml.probability_up - 1) : 0), -1, 1);
  const buyableStage = stage !== null && (stage.stage === 1 || stage.stage === 2);
  const signal: Signal = score >= SIGNAL_THRESHOLD && buyableStage ? 'BUY' : score <= -SIGNAL_THRESHOLD ? 'SELL' : 'HOLD';
  const rulesWeight = round(1 - w);
  const weights: Record<BlendComponent, BlendWeight> = {
    rules: {
      weight: rulesWeight,
      reason: w > 0
        ? `rules: the base score: weight ${rulesWeight} = 1 - the gated components' weights`
        : 'rules: the base score: weight 1, since no gated component has a measured out-of-sample edge',
    },
    ml: { weight: w, reason: `ml: ${gate.evidence}: weight ${w}` },
  };
  const reasons = [`rules ${rules.signal} (score ${round(rules.score, 2)}, weight ${round(1 - w, 2)})`];
  if (!ml) reasons.push(NO_ML);
  else if (w === 0) reasons.push(`ML ${ml.signal} ignored: ${gate.evidence}`);
  else reasons.push(`ML ${ml.signal} (p_up ${round(ml.probability_up, 2)}, weight ${round(w, 2)}): ${gate.evidence}`);
  return { signal, score: round(score), confidence: round(confidenceOf(signal, score)), rules_weight: rulesWeight, ml_weight: w, weights, reasons };
}

export interface VolatilityState {
  trend: 'rising' | 'falling' | 'stable' | null;
  high: boolean | null;
}

export function volatilityState(hv20: number, hv60: number, atrPercent: number): VolatilityState {
  const trend = Number.isFinite(hv20) && Number.isFinite(hv60) && hv60 > 0 ? (hv20 > 1.1 * hv60 ? 'rising' : hv20 < 0.9 * hv60 ? 'falling' : 'stable') : null;
  const high = Number.isFinite(hv20) || Number.isFinite(atrPercent) ? (Number.isFinite(hv20) && hv20 >= 0.45) || (Number.isFinite(atrPercent) && atrPercent >= 4) : null;
  return { trend, high };
}

export interface RiskInput {
  close: number;
  atr: number;
  hv20: number;
  indicators: Pick<IndicatorsBlock, 'atr_percent' | 'historical_volatility_20' | 'volatility_trend' | 'is_high_volatility'>;
  support: readonly PriceLevel[];
  resistance: readonly PriceLevel[];
  patterns: readonly PatternEntry[];
}

export function riskParameters(input: RiskInput): RiskParameters {
  const { close, atr } = input;
  const hasAtr = Number.isFinite(atr) && atr > 0;
  const atrStop = hasAtr ? close - 2 * atr : null;
  const nearestSupport = input.support.find((l) => l.price < close);
  const supportStop = nearestSupport ? nearestSupport.price - (hasAtr ? 0.25 * atr : 0) : null;
  const minDistance = max(0.01 * close, hasAtr ? atr : 0);
  const candidates = [atrStop, supportStop].filter((s): s is number => s !== null && s > 0);
  let stop: number | null = null;
  let method: RiskParameters['stop_method'] = null;
  if (candidates.length > 0) {
    const tighter = max(...candidates);
    method = tighter === supportStop ? 'support' : 'atr';
    stop = tighter;
    if (close - stop < minDistance) {
      stop = close - minDistance;
      method = 'minimum_distance';
    }
  }
  const risk = stop !== null ? close - stop : null;
  const targets = [
    ...input.patterns.filter((p) => p.direction === 'bullish' && p.status !== 'failed' && p.status !== 'completed' && p.price_target !== null).map((p) => p.price_target as number),
    ...input.resistance.map((l) => l.price),
  ]
    .filter((t) => risk !== null && t >= close + risk)
    .sort((a, b) => a - b);
  const target = risk === null ? null : targets.length > 0 ? targets[0] : hasAtr ? close + 3 * atr : null;
  const shares = risk !== null && risk > 0 ? floor(1000 / risk) : null;
  const weightAt1pct = risk !== null && risk > 0 ? (0.01 * close) / risk : null;
  const hv = input.hv20;
  return {
    entry_price: round(close),
    atr_stop: atrStop === null ? null : round(atrStop),
    support_stop: supportStop === null ? null : round(supportStop),
    suggested_stop: stop === null ? null : round(stop),
    stop_method: method,
    min_stop_distance_percent: round((minDistance / close) * 100, 2),
    risk_per_share: risk === null ? null : round(risk),
    risk_per_share_percent: risk === null ? null : round((risk / close) * 100, 2),
    suggested_target: target === null ? null : round(target),
    reward_risk_ratio: target !== null && risk !== null && risk > 0 ? round((target - close) / risk, 2) : null,
    shares_per_100k_at_1pct_risk: shares,
    position_size_hint:
      weightAt1pct === null
        ? null
        : weightAt1pct > 0.2
          ? `1% risk would need ${round(weightAt1pct * 100, 1)}% of capital: cap at 20% (risk ${round(0.2 * (risk as number) / close * 100, 2)}% of capital)`
          : `1% risk per trade = ${round(weightAt1pct * 100, 1)}% of capital`,
    volatility_stop_loss_levels: hasAtr
      ? {
          atr_1x: round(close - atr),
          atr_2x: round(close - 2 * atr),
          atr_3x: round(close - 3 * atr),
          hv_1sd_20d: Number.isFinite(hv) ? round(close * Math.exp(-hv * sqrt(20 / 252))) : null,
        }
      : null,
    atr: hasAtr ? round(atr) : null,
    atr_percent: input.indicators.atr_percent,
    historical_volatility: input.indicators.historical_volatility_20,
    volatility_trend: input.indicators.volatility_trend,
    is_high_volatility: input.indicators.is_high_volatility,
  };
}

/** Targets from patterns (measured moves) and the two nearest levels per side: the nearest MAX_PRICE_TARGETS. */
export const MAX_PRICE_TARGETS = 5;

export function priceTargets(close: number, patterns: readonly PatternEntry[], support: readonly PriceLevel[], resistance: readonly PriceLevel[]): PriceTarget[] {
  const out: PriceTarget[] = [];
  const seen = new Set<string>();
  for (const p of patterns) {
    if (p.price_target === null || p.status === 'failed' || p.status === 'completed') continue;
    const key = `${p.type}:${p.price_target}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ source: 'pattern', basis: p.type, direction: p.direction, price: round(p.price_target), distance_percent: round(((p.price_target - close) / close) * 100, 2), confidence: round(p.confidence) });
  }
  for (const l of resistance.slice(0, 2)) {
    out.push({ source: 'resistance', basis: `resistance (${l.touches} touches)`, direction: 'bullish', price: round(l.price), distance_percent: round(((l.price - close) / close) * 100, 2), confidence: round(l.strength) });
  }
  for (const l of support.slice(0, 2)) {
    out.push({ source: 'support', basis: `support (${l.touches} touches)`, direction: 'bearish', price: round(l.price), distance_percent: round(((l.price - close) / close) * 100, 2), confidence: round(l.strength) });
  }
  return out.sort((a, b) => abs(a.distance_percent) - abs(b.distance_percent)).slice(0, MAX_PRICE_TARGETS);
}
