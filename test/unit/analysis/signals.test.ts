/** Rules signal, ML signal, blend and risk parameters: the documented rules of engine/signals.ts. */
import type { MlModelSummary, PatternEntry, PatternSignal, PriceLevel, StagePayload } from '../../../subgraphs/analysis/engine/document.js';
import {
  enhancedSignal,
  mlSignal,
  priceTargets,
  riskParameters,
  rulesSignal,
  volatilityState,
  type RulesInput,
} from '../../../subgraphs/analysis/engine/signals.js';

function stage(n: 1 | 2 | 3 | 4, overrides: Partial<StagePayload> = {}): StagePayload {
  return {
    stage: n,
    label: `STAGE ${n}`,
    sub_stage: `${n}B`,
    weeks_in_stage: 8,
    strength: 'STRONG',
    week_ending: '2026-10-30',
    ma_30w: 100,
    ma_30w_slope_percent: 2,
    ma_10w: 105,
    price_vs_ma_30w_percent: 8,
    mansfield_rs: 5,
    mansfield_rs_trend: 'rising',
    breakout_volume_ratio: 1.2,
    sata_score: 8,
    sata: [{ name: 'breakout', met: false, detail: '' }],
    reasons: [],
    ...overrides,
  };
}

const neutralPatterns: PatternSignal = { direction: 'NEUTRAL', net_confidence: 0, bullish_confidence: 0, bearish_confidence: 0, pattern_count: 0 };

const bullish: RulesInput = {
  stage: stage(2),
  patternSignal: { direction: 'BULLISH', net_confidence: 0.6, bullish_confidence: 0.6, bearish_confidence: 0, pattern_count: 1 },
  close: 110,
  sma50: 105,
  sma50Prior: 100,
  macdHist: 0.5,
  rsi: 60,
  regime: 'bull',
};

/** A model summary with out-of-sample AUC `auc` and, when given, its interval [low, high] over `dates` dates. */
const summary = (auc: number | null, interval: [number, number] | null = null, dates = 40): MlModelSummary => ({
  model: 'logistic_regression',
  version: '1',
  features: [],
  horizon_days: 20,
  trained_through: '2026-06-01',
  train_samples: 1000,
  oos_accuracy: 0.55,
  oos_auc: auc,
  oos_samples: 500,
  oos_dates: dates,
  oos_through: '2026-05-29',
  oos_auc_ci: interval ? { low: interval[0], high: interval[1], level: 0.95, block_length: 4 } : null,
});

describe('rulesSignal', () => {
  it('every vote bullish in stage 2 gives BUY with a score of (3 + 1.5 + 0.9 + 1 + 0.5 + 1) / 9', () => {
    const r = rulesSignal(bullish);
    expect(r.signal).toBe('BUY');
    expect(r.score).toBeCloseTo((3 + 1.5 + 1.5 * 0.6 + 1 + 0.5 + 1) / 9, 4);
    expect(r.confidence).toBeGreaterThan(0.5);
    expect(r.confidence).toBeLessThanOrEqual(1);
    expect(r.reasons.join(' ')).toMatch(/STAGE 2/);
  });

  it('never buys outside stages 1 and 2, however bullish the rest', () => {
    const r = rulesSignal({ ...bullish, stage: stage(3, { mansfield_rs: 5, mansfield_rs_trend: 'rising' }) });
    expect(r.score).toBeGreaterThan(0.3);
    expect(r.signal).toBe('HOLD');
    expect(r.reasons).toContain('bullish score, but no buy outside stages 1 and 2');
  });

  it('a stage-4 decline with falling relative strength and a bear market is a SELL', () => {
    const r = rulesSignal({
      stage: stage(4, { mansfield_rs: -8, mansfield_rs_trend: 'falling' }),
      patternSignal: { direction: 'BEARISH', net_confidence: -0.5, bullish_confidence: 0, bearish_confidence: 0.5, pattern_count: 1 },
      close: 80,
      sma50: 90,
      sma50Prior: 95,
      macdHist: -0.3,
      rsi: 40,
      regime: 'bear',
    });
    expect(r.signal).toBe('SELL');
    expect(r.score).toBeLessThan(-0.3);
  });

  it('mixed evidence is a HOLD whose confidence falls as the score nears a threshold', () => {
    const flat = rulesSignal({ ...bullish, stage: stage(1, { mansfield_rs: null }), patternSignal: neutralPatterns, close: 100, sma50: 100, sma50Prior: 100, macdHist: NaN, regime: 'sideways' });
    expect(flat.signal).toBe('HOLD');
    expect(flat.score).toBe(0);
    expect(flat.confidence).toBe(1);
    const leaning = rulesSignal({ ...bullish, stage: stage(1, { mansfield_rs: null }), patternSignal: neutralPatterns, regime: 'sideways', macdHist: NaN });
    expect(leaning.signal).toBe('HOLD');
    expect(leaning.confidence).toBeLessThan(flat.confidence);
  });

  it('without a stage it says so and cannot buy', () => {
    const r = rulesSignal({ ...bullish, stage: null });
    expect(r.reasons[0]).toMatch(/stage undetermined/);
    expect(r.signal).not.toBe('BUY');
  });
});

describe('mlSignal and enhancedSignal', () => {
  it('maps the probability to BUY / HOLD / SELL at 0.55 and 0.45', () => {
    expect(mlSignal(0.6, summary(0.6)).signal).toBe('BUY');
    expect(mlSignal(0.5, summary(0.6)).signal).toBe('HOLD');
    expect(mlSignal(0.4, summary(0.6)).signal).toBe('SELL');
    expect(mlSignal(0.6, summary(0.6)).confidence).toBeCloseTo(0.2, 10);
  });

  it('gives the model no weight when the interval of its out-of-sample AUC includes 0.5, and says why', () => {
    const rules = rulesSignal(bullish);
    const e = enhancedSignal(rules, mlSignal(0.1, summary(0.497, [0.481, 0.512], 57)), bullish.stage);
    expect(e.ml_weight).toBe(0);
    expect(e.rules_weight).toBe(1);
    expect(e.score).toBeCloseTo(rules.score, 4);
    expect(e.reasons[1]).toBe('ML SELL ignored: out-of-sample AUC 0.497 [0.481, 0.512] (95%, 57 dates), interval includes 0.5');
    expect(e.weights).toEqual({
      rules: { weight: 1, reason: 'rules: the base score: weight 1, since no gated component has a measured out-of-sample edge' },
      ml: { weight: 0, reason: 'ml: out-of-sample AUC 0.497 [0.481, 0.512] (95%, 57 dates), interval includes 0.5: weight 0' },
    });
  });

  it('never weights a point estimate alone: a high AUC without an interval, or with a wide one, gets 0', () => {
    const rules = rulesSignal(bullish);
    const noInterval = enhancedSignal(rules, mlSignal(0.2, summary(0.9, null, 8)), bullish.stage);
    expect(noInterval.ml_weight).toBe(0);
    expect(noInterval.weights?.ml.reason).toBe('ml: out-of-sample AUC 0.900 over 8 date(s), no interval (it needs at least 10 dates with both outcomes): weight 0');
    const wide = enhancedSignal(rules, mlSignal(0.2, summary(0.62, [0.5, 0.74])), bullish.stage);
    expect(wide.ml_weight).toBe(0);
    expect(wide.weights?.ml.reason).toMatch(/\[0\.500, 0\.740\] \(95%, 40 dates\), interval includes 0\.5: weight 0$/);
    const below = enhancedSignal(rules, mlSignal(0.2, summary(0.45, [0.43, 0.47])), bullish.stage);
    expect(below.ml_weight).toBe(0);
    expect(below.weights?.ml.reason).toMatch(/interval below 0\.5: weight 0$/);
    const noRecord = enhancedSignal(rules, mlSignal(0.2, summary(null, null, 0)), bullish.stage);
    expect(noRecord.weights?.ml).toEqual({ weight: 0, reason: 'ml: no out-of-sample predictions with known outcomes yet: weight 0' });
  });

  it('weights the model by 4 x (lower bound - 0.5) once the interval is above 0.5, capped at one half', () => {
    const rules = rulesSignal(bullish);
    const some = enhancedSignal(rules, mlSignal(0.2, summary(0.6, [0.55, 0.65])), bullish.stage);
    expect(some.ml_weight).toBeCloseTo(0.2, 10);
    expect(some.rules_weight).toBeCloseTo(0.8, 10);
    expect(some.score).toBeCloseTo(0.8 * rules.score + 0.2 * (2 * 0.2 - 1), 3);
    expect(some.weights?.ml).toEqual({ weight: 0.2, reason: 'ml: out-of-sample AUC 0.600 [0.550, 0.650] (95%, 40 dates), lower bound above 0.5: min(0.5, 4 x (0.550 - 0.5)): weight 0.2' });
    expect(some.weights?.rules).toEqual({ weight: 0.8, reason: "rules: the base score: weight 0.8 = 1 - the gated components' weights" });
    expect(some.reasons[1]).toBe('ML SELL (p_up 0.2, weight 0.2): out-of-sample AUC 0.600 [0.550, 0.650] (95%, 40 dates), lower bound above 0.5: min(0.5, 4 x (0.550 - 0.5))');
    const more = enhancedSignal(rules, mlSignal(0.2, summary(0.62, [0.58, 0.66])), bullish.stage);
    expect(more.ml_weight).toBeCloseTo(0.32, 10);
    const capped = enhancedSignal(rules, mlSignal(0.2, summary(0.9, [0.7, 0.95])), bullish.stage);
    expect(capped.ml_weight).toBe(0.5);
    expect(capped.rules_weight).toBe(0.5);
  });

  it('without a model the blend is the rules signal, and says so', () => {
    const rules = rulesSignal(bullish);
    const e = enhancedSignal(rules, null, bullish.stage);
    expect(e.signal).toBe(rules.signal);
    expect(e.score).toBe(rules.score);
    expect(e.weights?.ml).toEqual({
      weight: 0,
      reason: 'ml: no ML signal for this date (no out-of-sample model yet, or too little history for its features): weight 0',
    });
  });

  it('treats a summary stored before the gate (no interval keys) as having no interval', () => {
    const rules = rulesSignal(bullish);
    const legacy: MlModelSummary = { ...summary(0.7) };
    delete legacy.oos_auc_ci;
    delete legacy.oos_dates;
    const e = enhancedSignal(rules, mlSignal(0.9, legacy), bullish.stage);
    expect(e.ml_weight).toBe(0);
    expect(e.weights?.ml.reason).toMatch(/^ml: out-of-sample AUC 0\.700 over 0 date\(s\), no interval/);
  });
});

const level = (price: number, touches = 2): PriceLevel => ({ price, strength: 0.5, touches, first_touch_date: '2026-01-02', last_touch_date: '2026-09-01' });
const pattern = (overrides: Partial<PatternEntry>): PatternEntry => ({
  type: 'BULL_FLAG',
  status: 'active',
  start_date: '2026-09-01',
  end_date: '2026-10-01',
  confidence: 0.7,
  price_target: 130,
  direction: 'bullish',
  breakout_level: 102,
  invalidation_level: 95,
  key_points: [],
  confidence_parts: { geometry: 0.7, volume: 0.7, trend: 0.7 },
  ...overrides,
});
const vol = { atr_percent: 2, historical_volatility_20: 0.3, volatility_trend: 'stable' as const, is_high_volatility: false };

describe('riskParameters', () => {
  it('takes the tighter of the ATR and support stops', () => {
    // ATR stop 100 - 2 x 2 = 96; support 97 less 0.25 x 2 = 96.5 (tighter).
    const r = riskParameters({ close: 100, atr: 2, hv20: 0.3, indicators: vol, support: [level(97)], resistance: [level(112)], patterns: [] });
    expect(r.atr_stop).toBe(96);
    expect(r.support_stop).toBe(96.5);
    expect(r.suggested_stop).toBe(96.5);
    expect(r.stop_method).toBe('support');
    expect(r.risk_per_share).toBe(3.5);
    expect(r.suggested_target).toBe(112);
    expect(r.reward_risk_ratio).toBeCloseTo(12 / 3.5, 2);
    expect(r.shares_per_100k_at_1pct_risk).toBe(Math.floor(1000 / 3.5));
  });

  it('keeps the stop at least one ATR (and 1%) below the entry', () => {
    const r = riskParameters({ close: 100, atr: 2, hv20: 0.3, indicators: vol, support: [level(99.5)], resistance: [], patterns: [] });
    expect(r.stop_method).toBe('minimum_distance');
    expect(r.suggested_stop).toBe(98);
    expect(r.min_stop_distance_percent).toBe(2);
  });

  it('targets the nearest bullish pattern target or resistance at least one risk away, else 3 ATR', () => {
    const withPattern = riskParameters({ close: 100, atr: 2, hv20: 0.3, indicators: vol, support: [], resistance: [level(101)], patterns: [pattern({ price_target: 108 })] });
    expect(withPattern.suggested_target).toBe(108); // 101 is closer than one risk (4)
    const failed = riskParameters({ close: 100, atr: 2, hv20: 0.3, indicators: vol, support: [], resistance: [], patterns: [pattern({ status: 'failed' })] });
    expect(failed.suggested_target).toBe(106);
    expect(failed.volatility_stop_loss_levels).toEqual({ atr_1x: 98, atr_2x: 96, atr_3x: 94, hv_1sd_20d: expect.any(Number) });
  });

  it('has no stops without an ATR or a support', () => {
    const r = riskParameters({ close: 100, atr: NaN, hv20: NaN, indicators: vol, support: [], resistance: [], patterns: [] });
    expect(r.suggested_stop).toBeNull();
    expect(r.risk_per_share).toBeNull();
    expect(r.volatility_stop_loss_levels).toBeNull();
  });
});

describe('volatilityState and priceTargets', () => {
  it('classifies the volatility trend and level', () => {
    expect(volatilityState(0.34, 0.3, 2)).toEqual({ trend: 'rising', high: false });
    expect(volatilityState(0.26, 0.3, 2)).toEqual({ trend: 'falling', high: false });
    expect(volatilityState(0.5, 0.5, 2)).toEqual({ trend: 'stable', high: true });
    expect(volatilityState(0.2, 0.2, 4.5).high).toBe(true);
    expect(volatilityState(NaN, NaN, NaN)).toEqual({ trend: null, high: null });
  });

  it('lists pattern and level targets nearest first, skipping failed and completed patterns', () => {
    const targets = priceTargets(100, [pattern({ price_target: 120 }), pattern({ type: 'DOUBLE_TOP', direction: 'bearish', price_target: 90, status: 'failed' })], [level(95)], [level(104)]);
    expect(targets.map((t) => t.price)).toEqual([104, 95, 120]);
    expect(targets[2]).toMatchObject({ source: 'pattern', basis: 'BULL_FLAG', distance_percent: 20 });
  });
});
