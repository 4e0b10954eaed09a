/** Candidates from snapshots: the long rule, stop and target rules, win probability, row fields. */
import type { IndicatorsBlock, PriceLevel, RiskParameters, StageLabel } from '../../../subgraphs/analysis/engine/document.js';
import { CANDIDATE_SOURCE_KEYS, toCandidate, UNCLASSIFIED_SECTOR, type CandidateSource } from '../../../subgraphs/allocation/engine/candidates.js';
import type { Candidate } from '../../../subgraphs/allocation/engine/types.js';

function level(price: number, strength: number): PriceLevel {
  return { price, strength, touches: 3, first_touch_date: '2026-01-05', last_touch_date: '2026-09-01' };
}

function indicators(over: Partial<IndicatorsBlock> = {}): IndicatorsBlock {
  return {
    sma_10: 100, sma_20: 99, sma_50: 97, sma_150: 92, sma_200: 90,
    ema_10: 100, ema_20: 99, ema_50: 97, ema_150: 92, ema_200: 90,
    sma_10w: 98, sma_30w: 93, ema_10w: 98, ema_30w: 93,
    rsi_14: 58, atr_14: 2, atr_percent: 2, bollinger: { upper: 104, middle: 99, lower: 94, bandwidth: 0.101 },
    macd: { macd: 0.5, signal: 0.4, histogram: 0.1 }, volume_sma_20: 1e6, volume_sma_50: 1e6, relative_volume: 1.1,
    historical_volatility_20: 0.25, historical_volatility_60: 0.24, volatility_trend: 'stable', is_high_volatility: false,
    mansfield_rs: 11.5, sata_score: 7,
    ...over,
  };
}

function riskParameters(over: Partial<RiskParameters> = {}): RiskParameters {
  return {
    entry_price: 100, atr_stop: 96, support_stop: 95.5, suggested_stop: 96.004, stop_method: 'atr', min_stop_distance_percent: 2,
    risk_per_share: 4, risk_per_share_percent: 4, suggested_target: 110, reward_risk_ratio: 2.5, shares_per_100k_at_1pct_risk: 250,
    position_size_hint: null, volatility_stop_loss_levels: { atr_1x: 98, atr_2x: 96, atr_3x: 94, hv_1sd_20d: 93.1 },
    atr: 2, atr_percent: 2, historical_volatility: 0.26, volatility_trend: 'rising', is_high_volatility: true,
    ...over,
  };
}

/** A stage-2 BUY snapshot at 100.004 with stop 96.004, pattern target 115, resistance 103/109/120, ATR 2. */
function doc(over: Partial<CandidateSource> = {}): CandidateSource {
  const stage: StageLabel = over.stage ?? 'STAGE 2';
  return {
    symbol: 'ACME',
    sector: 'Industrials',
    analysis_date: '2026-10-30',
    price: 100.004,
    stage,
    stage_strength: 'STRONG',
    signal: 'BUY',
    confidence: 0.7,
    signal_reasons: ['stage 2 advance', 'relative strength positive'],
    enhanced_signal: { signal: 'BUY', score: 0.4, confidence: 0.8, rules_weight: 0.8, ml_weight: 0.2, reasons: ['rules BUY'] },
    ml_signal: null,
    risk_parameters: riskParameters(),
    transition_probabilities: null,
    price_targets: [
      { source: 'resistance', basis: 'resistance (3 touches)', direction: 'bullish', price: 103, distance_percent: 3, confidence: 0.9 },
      { source: 'pattern', basis: 'BULL_FLAG', direction: 'bullish', price: 115, distance_percent: 15, confidence: 0.6 },
      { source: 'support', basis: 'support (4 touches)', direction: 'bearish', price: 97, distance_percent: -3, confidence: 0.8 },
    ],
    support_resistance: {
      support: [level(97.123456, 0.812345), level(92, 0.5)],
      resistance: [level(103, 0.9), level(109, 0.70001), level(120, 0.4)],
    },
    indicators: indicators(),
    stage_detail: null,
    pattern_signal: { direction: 'BULLISH', net_confidence: 0.42, bullish_confidence: 0.6, bearish_confidence: 0.18, pattern_count: 2 },
    ...over,
  };
}

function cand(over: Partial<CandidateSource> = {}): Candidate {
  const c = toCandidate(doc(over));
  if (c === null) throw new Error('expected a candidate');
  return c;
}

describe('CANDIDATE_SOURCE_KEYS', () => {
  it('lists the 18 snapshot keys the builder reads, once each', () => {
    expect([...CANDIDATE_SOURCE_KEYS].sort()).toEqual(
      [
        'symbol', 'sector', 'analysis_date', 'price', 'stage', 'stage_strength', 'signal', 'confidence', 'signal_reasons', 'enhanced_signal',
        'ml_signal', 'risk_parameters', 'transition_probabilities', 'price_targets', 'support_resistance', 'indicators', 'stage_detail',
        'pattern_signal',
      ].sort(),
    );
  });

  it('builds the same candidate from a document reduced to those keys', () => {
    const full = { ...doc(), volume: 123, market_regime: 'bull', detected_patterns: [] } as CandidateSource;
    const reduced = Object.fromEntries(CANDIDATE_SOURCE_KEYS.map((k) => [k, full[k]])) as CandidateSource;
    expect(toCandidate(reduced)).toEqual(toCandidate(full));
  });
});

describe('long rule', () => {
  it('admits stage 2 with BUY signals', () => {
    const c = cand();
    expect(c.eligible).toBe(true);
    expect(c.exclusion).toBeNull();
    expect(c.stage_number).toBe(2);
  });

  it('admits stage 2 with HOLD signals (only SELL excludes)', () => {
    const c = cand({ signal: 'HOLD', enhanced_signal: { ...doc().enhanced_signal!, signal: 'HOLD' } });
    expect(c.eligible).toBe(true);
  });

  it.each([
    ['rules SELL', 'SELL', 'HOLD'],
    ['blended SELL', 'BUY', 'SELL'],
    ['both SELL', 'SELL', 'SELL'],
  ] as const)('rejects stage 2 with %s', (_name, rules, blended) => {
    const c = cand({ signal: rules, enhanced_signal: { ...doc().enhanced_signal!, signal: blended } });
    expect(c.eligible).toBe(false);
    expect(c.exclusion).toBe('SELL signal');
  });

  it('rejects stage 2 with a rules SELL when there is no blended signal', () => {
    const c = cand({ signal: 'SELL', enhanced_signal: null });
    expect(c.exclusion).toBe('SELL signal');
  });

  it.each([
    ['rules BUY', 'BUY', 'HOLD'],
    ['blended BUY', 'HOLD', 'BUY'],
    ['rules SELL but blended BUY', 'SELL', 'BUY'],
  ] as const)('admits stage 1 with %s (early breakout)', (_name, rules, blended) => {
    const c = cand({ stage: 'STAGE 1', signal: rules, enhanced_signal: { ...doc().enhanced_signal!, signal: blended } });
    expect(c.eligible).toBe(true);
    expect(c.stage_number).toBe(1);
  });

  it('rejects stage 1 without a BUY', () => {
    const c = cand({ stage: 'STAGE 1', signal: 'HOLD', enhanced_signal: { ...doc().enhanced_signal!, signal: 'HOLD' } });
    expect(c.eligible).toBe(false);
    expect(c.exclusion).toBe('stage 1 without a BUY signal');
    expect(cand({ stage: 'STAGE 1', signal: 'HOLD', enhanced_signal: null }).exclusion).toBe('stage 1 without a BUY signal');
  });

  it.each(['STAGE 3', 'STAGE 4'] as const)('never admits %s, even with BUY signals', (stage) => {
    const c = cand({ stage });
    expect(c.eligible).toBe(false);
    expect(c.exclusion).toBe(stage.toLowerCase());
  });

  it('rejects a snapshot without a stage, and takes the stage from stage_detail when the label is missing', () => {
    expect(cand({ stage: null as unknown as StageLabel }).exclusion).toBe('no stage');
    const detail = { stage: 2, label: 'STAGE 2', mansfield_rs: 5 } as unknown as CandidateSource['stage_detail'];
    const c = cand({ stage: null as unknown as StageLabel, stage_detail: detail });
    expect(c.stage_number).toBe(2);
    expect(c.row.stage).toBe('STAGE 2');
    expect(c.eligible).toBe(true);
  });

  it('rejects a missing stop, a stop at or above the price, and a non-positive stop, and lists every failing part', () => {
    expect(cand({ risk_parameters: riskParameters({ suggested_stop: null }) }).exclusion).toBe('no stop below entry');
    expect(cand({ risk_parameters: null }).exclusion).toBe('no stop below entry');
    expect(cand({ risk_parameters: riskParameters({ suggested_stop: 100.004 }) }).exclusion).toBe('no stop below entry');
    expect(cand({ risk_parameters: riskParameters({ suggested_stop: 101 }) }).exclusion).toBe('no stop below entry');
    expect(cand({ risk_parameters: riskParameters({ suggested_stop: 0 }) }).exclusion).toBe('no stop below entry');
    expect(cand({ stage: 'STAGE 4', risk_parameters: riskParameters({ suggested_stop: null }) }).exclusion).toBe('stage 4; no stop below entry');
  });
});

describe('prices and stops', () => {
  it('rounds entry and stop to cents', () => {
    const c = cand({ price: 123.456, risk_parameters: riskParameters({ suggested_stop: 118.994 }) });
    expect(c.entry_price).toBe(123.46);
    expect(c.stop_loss).toBe(118.99);
    expect(c.stop_distance).toBeCloseTo((123.46 - 118.99) / 123.46, 12);
  });

  it('rounds half-cent prices up (1.005 -> 1.01)', () => {
    expect(cand({ price: 1.005, risk_parameters: riskParameters({ suggested_stop: 0.9 }) }).entry_price).toBe(1.01);
  });

  it('puts the stop one cent below the entry when rounding makes them equal', () => {
    const c = cand({ price: 50.001, risk_parameters: riskParameters({ suggested_stop: 49.998 }) });
    expect(c.entry_price).toBe(50);
    expect(c.stop_loss).toBe(49.99);
    expect(c.eligible).toBe(true);
  });

  it('derives a fallback stop from 2 x ATR% when there is no usable stop', () => {
    // ATR 2% -> 4% below 100
    const c = cand({ price: 100, risk_parameters: riskParameters({ suggested_stop: null, min_stop_distance_percent: 2 }) });
    expect(c.eligible).toBe(false);
    expect(c.stop_loss).toBe(96);
  });

  it('the fallback stop honours the minimum distance when it is wider than 2 x ATR%', () => {
    const c = cand({ price: 100, risk_parameters: riskParameters({ suggested_stop: null, min_stop_distance_percent: 7 }) });
    expect(c.stop_loss).toBe(93);
  });

  it('the fallback stop uses 1% without any volatility data, and stays positive with extreme ATR', () => {
    const bare = cand({ price: 100, risk_parameters: null, indicators: null });
    expect(bare.stop_loss).toBe(99);
    const wild = cand({ price: 10, risk_parameters: null, indicators: indicators({ atr_percent: 80, atr_14: 8 }) });
    expect(wild.stop_loss).toBe(5);
    expect(wild.stop_loss).toBeGreaterThan(0);
  });

  it('the fallback stop falls back to ATR / price when no ATR percent is known', () => {
    const c = cand({ price: 50, risk_parameters: null, indicators: indicators({ atr_percent: null, atr_14: 2.5 }) });
    expect(c.stop_loss).toBe(45); // 2 x 5% below 50
  });

  it('keeps the stop below the entry for a one-cent price', () => {
    const c = cand({ price: 0.01, risk_parameters: null, indicators: null, price_targets: [], support_resistance: null });
    expect(c.entry_price).toBe(0.01);
    expect(c.stop_loss).toBe(0);
    expect(c.stop_loss).toBeLessThan(c.entry_price);
  });

  it.each([
    ['null', null],
    ['NaN', Number.NaN],
    ['zero', 0],
    ['below half a cent', 0.004],
    ['negative', -5],
  ])('returns null for a %s price', (_name, price) => {
    expect(toCandidate(doc({ price: price as number | null }))).toBeNull();
  });
});

describe('target selection', () => {
  it('prefers the highest-confidence bullish pattern target above entry', () => {
    const c = cand({
      price_targets: [
        { source: 'pattern', basis: 'BULL_FLAG', direction: 'bullish', price: 115, distance_percent: 15, confidence: 0.6 },
        { source: 'pattern', basis: 'CUP_AND_HANDLE', direction: 'bullish', price: 112.345, distance_percent: 12, confidence: 0.75 },
        { source: 'pattern', basis: 'DOUBLE_BOTTOM', direction: 'bullish', price: 98, distance_percent: -2, confidence: 0.99 },
        { source: 'pattern', basis: 'DOUBLE_TOP', direction: 'bearish', price: 130, distance_percent: 30, confidence: 0.95 },
        { source: 'resistance', basis: 'resistance', direction: 'bullish', price: 140, distance_percent: 40, confidence: 1 },
      ],
    });
    expect(c.target_source).toBe('pattern');
    expect(c.target_price).toBe(112.35);
    expect(c.risk_reward_ratio).toBe(Math.round(((112.35 - 100) / 4) * 1e4) / 1e4);
  });

  it('breaks confidence ties by the lower price', () => {
    const c = cand({
      price_targets: [
        { source: 'pattern', basis: 'A', direction: 'bullish', price: 118, distance_percent: 18, confidence: 0.7 },
        { source: 'pattern', basis: 'B', direction: 'bullish', price: 111, distance_percent: 11, confidence: 0.7 },
      ],
    });
    expect(c.target_price).toBe(111);
  });

  it('falls back to the nearest resistance at least one risk distance above entry', () => {
    // entry 100, stop 96: risk 4 -> 103 is too close, 109 is the nearest far enough
    const c = cand({ price_targets: [] });
    expect(c.target_source).toBe('resistance');
    expect(c.target_price).toBe(109);
    expect(c.risk_reward_ratio).toBe(2.25);
  });

  it('accepts a resistance exactly one risk distance above', () => {
    const c = cand({ price_targets: [], support_resistance: { support: [], resistance: [level(104, 0.5), level(130, 0.5)] } });
    expect(c.target_price).toBe(104);
    expect(c.risk_reward_ratio).toBe(1);
  });

  it('uses the highest resistance above entry when none is far enough', () => {
    const c = cand({ price_targets: [], support_resistance: { support: [], resistance: [level(102.5, 0.5), level(101, 0.5), level(99, 0.9)] } });
    expect(c.target_source).toBe('resistance');
    expect(c.target_price).toBe(102.5);
    expect(c.risk_reward_ratio).toBe(0.625);
  });

  it('falls back to entry + 3 x ATR without patterns or resistance above', () => {
    const c = cand({ price_targets: [], support_resistance: { support: [], resistance: [level(95, 0.5)] } });
    expect(c.target_source).toBe('atr');
    expect(c.target_price).toBe(106);
    expect(c.risk_reward_ratio).toBe(1.5);
  });

  it('uses risk_parameters.atr for the ATR target when the indicators have none', () => {
    const c = cand({ price_targets: null, support_resistance: null, indicators: indicators({ atr_14: null }), risk_parameters: riskParameters({ atr: 3 }) });
    expect(c.target_source).toBe('atr');
    expect(c.target_price).toBe(109);
  });

  it('has no target (and ratio 0) without any source', () => {
    const c = cand({ price_targets: null, support_resistance: null, indicators: null, risk_parameters: riskParameters({ atr: null }) });
    expect(c.target_price).toBeNull();
    expect(c.target_source).toBeNull();
    expect(c.risk_reward_ratio).toBe(0);
  });

  it('ignores a pattern target that rounds to the entry', () => {
    const c = cand({
      price_targets: [{ source: 'pattern', basis: 'A', direction: 'bullish', price: 100.004, distance_percent: 0, confidence: 0.9 }],
    });
    expect(c.target_source).toBe('resistance');
  });
});

describe('scores', () => {
  it.each([
    ['VERY_STRONG', 1],
    ['STRONG', 0.75],
    ['MODERATE', 0.5],
    ['WEAK', 0.25],
    [null, 0.5],
  ] as const)('strength factor of %s is %d', (strength, factor) => {
    expect(cand({ stage_strength: strength }).strength_factor).toBe(factor);
  });

  it('confidence is conviction in the long: the blended score mapped to 0..1, else the signed rules confidence, else 0.5', () => {
    expect(cand().confidence).toBeCloseTo(0.7, 12); // score 0.4
    expect(cand({ enhanced_signal: { ...doc().enhanced_signal!, score: -0.2 } }).confidence).toBeCloseTo(0.4, 12);
    expect(cand({ enhanced_signal: { ...doc().enhanced_signal!, score: 3 } }).confidence).toBe(1);
    expect(cand({ enhanced_signal: null }).confidence).toBeCloseTo(0.85, 12); // rules BUY at 0.7
    expect(cand({ enhanced_signal: null, signal: 'HOLD' }).confidence).toBe(0.5);
    expect(cand({ enhanced_signal: null, signal: 'SELL' }).confidence).toBeCloseTo(0.15, 12);
    expect(cand({ enhanced_signal: null, confidence: null }).confidence).toBe(0.5);
  });

  it('a confident HOLD does not outrank a BUY', () => {
    const hold = cand({ enhanced_signal: { signal: 'HOLD', score: 0.1, confidence: 0.9, rules_weight: 0.8, ml_weight: 0.2, reasons: [] } });
    const buy = cand({ enhanced_signal: { signal: 'BUY', score: 0.35, confidence: 0.6, rules_weight: 0.8, ml_weight: 0.2, reasons: [] } });
    expect(buy.confidence).toBeGreaterThan(hold.confidence);
    expect(hold.row.signal_confidence).toBe(0.9); // the row still carries the signal's own confidence
  });

  describe('win probability', () => {
    it('is not read from one document: null until measured odds are attached (engine/kelly-odds.ts)', () => {
      const ml = { signal: 'BUY', probability_up: 0.9, confidence: 0.8, model: null as never } as CandidateSource['ml_signal'];
      expect(cand({ ml_signal: ml }).win_probability).toBeNull();
      expect(cand({ ml_signal: null, enhanced_signal: null }).win_probability).toBeNull();
    });
  });

  it('relative strength: stage_detail, else indicators, else null', () => {
    const detail = { stage: 2, label: 'STAGE 2', mansfield_rs: 21.5 } as unknown as CandidateSource['stage_detail'];
    expect(cand({ stage_detail: detail }).relative_strength).toBe(21.5);
    expect(cand().relative_strength).toBe(11.5);
    expect(cand({ indicators: null }).relative_strength).toBeNull();
  });

  it('carries the pattern signal direction and net confidence, null without a valid one', () => {
    expect(cand().pattern_signal).toEqual({ direction: 'BULLISH', net_confidence: 0.42 });
    expect(cand({ pattern_signal: null }).pattern_signal).toBeNull();
    const bad = { direction: 'SIDEWAYS', net_confidence: 1, bullish_confidence: 0, bearish_confidence: 0, pattern_count: 0 } as unknown as CandidateSource['pattern_signal'];
    expect(cand({ pattern_signal: bad }).pattern_signal).toBeNull();
  });

  it('sector falls back to Unclassified', () => {
    expect(cand().sector).toBe('Industrials');
    expect(cand({ sector: null }).sector).toBe(UNCLASSIFIED_SECTOR);
    expect(UNCLASSIFIED_SECTOR).toBe('Unclassified');
  });
});

describe('row fields', () => {
  it('copies the snapshot fields', () => {
    const c = cand();
    expect(c.symbol).toBe('ACME');
    expect(c.analysis_date).toBe('2026-10-30');
    expect(c.row).toEqual({
      stage: 'STAGE 2',
      stage_strength: 'STRONG',
      entry_date: '2026-10-30',
      signal: 'BUY',
      signal_confidence: 0.8,
      signal_reason: 'stage 2 advance; relative strength positive',
      bb_width: 0.101,
      atr: 2,
      atr_percent: 2,
      volatility_trend: 'rising',
      is_high_volatility: true,
      volatility_stop_loss_levels: { atr_1x: 98, atr_2x: 96, atr_3x: 94, hv_1sd_20d: 93.1 },
      historical_volatility: 0.26,
      support_levels: [
        { price: 97.123456, strength: 0.8123 },
        { price: 92, strength: 0.5 },
      ],
      resistance_levels: [
        { price: 103, strength: 0.9 },
        { price: 109, strength: 0.7 },
        { price: 120, strength: 0.4 },
      ],
    });
  });

  it('the signal is the blended one; without it the rules signal and confidence', () => {
    const blendedHold = cand({ signal: 'BUY', enhanced_signal: { ...doc().enhanced_signal!, signal: 'HOLD', confidence: 0.55 } });
    expect(blendedHold.row.signal).toBe('HOLD');
    expect(blendedHold.row.signal_confidence).toBe(0.55);
    const rulesOnly = cand({ enhanced_signal: null });
    expect(rulesOnly.row.signal).toBe('BUY');
    expect(rulesOnly.row.signal_confidence).toBe(0.7);
  });

  it('is null where the snapshot has no value', () => {
    const c = cand({ indicators: null, risk_parameters: null, support_resistance: null, signal_reasons: [], stage_strength: null, enhanced_signal: null, signal: null, confidence: null });
    expect(c.row).toEqual({
      stage: 'STAGE 2',
      stage_strength: null,
      entry_date: '2026-10-30',
      signal: null,
      signal_confidence: null,
      signal_reason: null,
      bb_width: null,
      atr: null,
      atr_percent: null,
      volatility_trend: null,
      is_high_volatility: null,
      volatility_stop_loss_levels: null,
      historical_volatility: null,
      support_levels: null,
      resistance_levels: null,
    });
  });

  it('falls back to the indicators for ATR, volatility and historical volatility', () => {
    const c = cand({ risk_parameters: riskParameters({ historical_volatility: null, volatility_trend: null, is_high_volatility: null, atr: 9 }) });
    expect(c.row.historical_volatility).toBe(0.25);
    expect(c.row.volatility_trend).toBe('stable');
    expect(c.row.is_high_volatility).toBe(false);
    expect(c.row.atr).toBe(2);
    const noInd = cand({ indicators: null });
    expect(noInd.row.atr).toBe(2);
    expect(noInd.row.atr_percent).toBe(2);
  });

  it('does not share the volatility stop levels object with the snapshot', () => {
    const d = doc();
    const c = toCandidate(d)!;
    expect(c.row.volatility_stop_loss_levels).not.toBe(d.risk_parameters!.volatility_stop_loss_levels);
  });

  it('keeps empty level lists as empty arrays', () => {
    const c = cand({ support_resistance: { support: [], resistance: [] } });
    expect(c.row.support_levels).toEqual([]);
    expect(c.row.resistance_levels).toEqual([]);
  });
});

describe('invariants', () => {
  it('stop below entry and no unmeasured probability over a grid of prices and stops', () => {
    for (const price of [0.01, 0.02, 0.5, 1.005, 9.999, 100.004, 2500.5]) {
      for (const stopFraction of [null, -0.1, 0, 0.5, 0.9999, 1, 1.2]) {
        const stop = stopFraction === null ? null : price * stopFraction;
        const c = cand({ price, risk_parameters: riskParameters({ suggested_stop: stop }) });
        expect(c.stop_loss).toBeLessThan(c.entry_price);
        expect(c.stop_loss).toBeGreaterThanOrEqual(0);
        expect(Math.round(c.stop_loss * 100)).toBeCloseTo(c.stop_loss * 100, 9);
        expect(c.win_probability).toBeNull();
        expect(c.stop_distance).toBeGreaterThan(0);
        if (c.target_price !== null) expect(c.target_price).toBeGreaterThan(c.entry_price);
      }
    }
  });

  it('is deterministic and does not mutate the document', () => {
    const d = doc({ ml_signal: null });
    const before = JSON.stringify(d);
    expect(toCandidate(d)).toEqual(toCandidate(d));
    expect(JSON.stringify(d)).toBe(before);
  });
});
