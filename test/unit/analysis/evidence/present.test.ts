/**
 * A snapshot as it is read (engine/evidence/present.ts; DESIGN section 8 "evidence", "probabilities"):
 * without a table nothing is measured (status not_measured, every probability null, the raw values kept);
 * with a table the snapshot's own state records are the table's (n 0 and null figures for a state the
 * table has no row for, null for a state the snapshot lacks), and every probability the document shows is
 * the table's calibrator applied to the stored value, which is kept in calibration.raw / raw_confidence
 * (the enhanced signal's confidence by the calibrator of the enhanced signal; a table stored before that
 * calibrator existed gives null with a reason). The stored document is never changed.
 */
import { calibrate, calibrationMetrics, fitCalibrator, type Calibrator } from '../../../../subgraphs/analysis/engine/evidence/calibration.js';
import { presentSnapshot, snapshotStates } from '../../../../subgraphs/analysis/engine/evidence/present.js';
import type { EvidenceTable, ProbabilityCalibration, StateRecord } from '../../../../subgraphs/analysis/engine/evidence/state-evidence.js';
import { MIN_CALIBRATION_OUTCOMES } from '../../../../subgraphs/analysis/engine/evidence/state-evidence.js';
import { PROBABILITY_EVENTS } from '../../../../subgraphs/analysis/engine/evidence/states.js';

type Doc = Record<string, unknown>;

const pattern = (type: string, confidence: number) => ({
  type,
  status: 'active',
  start_date: '2024-01-02',
  end_date: '2024-02-01',
  confidence,
  price_target: 120,
  direction: 'bullish',
  breakout_level: 105,
  invalidation_level: 95,
  key_points: [],
  confidence_parts: { geometry: 0.5, volume: 0.5, trend: 0.5 },
});

/** A stored document with the keys presentation reads (the rest of a real document passes through). */
function storedDoc(over: Doc = {}): Doc {
  return {
    stage: 'STAGE 2',
    stage_strength: 'STRONG',
    price: 100,
    indicators: { sata_score: 5, rsi_14: 55 },
    detected_patterns: [pattern('DOUBLE_BOTTOM', 0.62), pattern('BULL_FLAG', 0.41)],
    best_pattern: pattern('DOUBLE_BOTTOM', 0.62),
    recent_patterns: [pattern('BULL_FLAG', 0.41)],
    best_recent_pattern: pattern('BULL_FLAG', 0.41),
    price_targets: [
      { source: 'pattern', basis: 'DOUBLE_BOTTOM', direction: 'bullish', price: 120, distance_percent: 20, confidence: 0.62 },
      { source: 'resistance', basis: 'resistance (3 touches)', direction: 'bullish', price: 110, distance_percent: 10, confidence: 0.8 },
    ],
    signal: 'BUY',
    confidence: 0.7,
    ml_signal: { signal: 'BUY', probability_up: 0.58, confidence: 0.16, model: { model: 'logistic_regression' } },
    enhanced_signal: { signal: 'BUY', score: 0.35, confidence: 0.55, rules_weight: 1, ml_weight: 0, reasons: ['rules only'] },
    analysis_date: '2024-03-15',
    risk_parameters: { entry_price: 100 },
    symbol: 'ACME',
    ...over,
  };
}

/** A calibrator fitted on a known increasing curve p(s) = 0.2 + 0.6 s, with `rows` deterministic outcomes. */
function curveCalibrator(rows: number, shift = 0): Calibrator {
  const scores: number[] = [];
  const labels: number[] = [];
  for (let i = 0; i < rows; i++) {
    const s = (i % 100) / 100;
    scores.push(s);
    // Outcome 1 for the first p(s) share of each score's rows (by a fixed stride through 0..1).
    labels.push(((i * 0.6180339887) % 1) < Math.min(1, 0.2 + 0.6 * s + shift) ? 1 : 0);
  }
  return fitCalibrator(scores, labels) as Calibrator;
}

function probability(event: string, calibrator: Calibrator | null, n: number): ProbabilityCalibration {
  const p = [0.1, 0.5, 0.9];
  const y = [0, 1, 1];
  const m = calibrationMetrics(p, y);
  return {
    event,
    n,
    base_rate: 0.5,
    method: calibrator === null ? null : 'isotonic',
    calibrator,
    metrics: { n: m.n, brier: m.brier as number, ece: m.ece as number, reliability: m.reliability },
  };
}

const record = (n: number, value: number): StateRecord => ({
  n,
  dates: Math.ceil(n / 10),
  hit_rate: { value: 0.5 + value, ci: [0.45 + value, 0.55 + value] },
  mean_excess_20d: { value, ci: [value - 0.01, value + 0.01] },
  mean_excess_60d: { value: null, ci: null },
});

function table(over: Partial<EvidenceTable['probabilities']> = {}): EvidenceTable {
  return {
    as_of: '2024-02-29',
    pipeline_version: '1.1.0',
    universe: { symbols: 40, first_date: '2020-01-02', last_date: '2024-02-29', benchmark: 'equal-weight' },
    states: {
      stage: { 'STAGE 2 STRONG': record(300, 0.01), 'STAGE 4 WEAK': record(120, -0.02) },
      signal: { BUY: record(500, 0.002), SELL: record(400, -0.001) },
      sata_bucket: { '0-3': record(200, -0.003) }, // no '4-6' row
      best_pattern: { DOUBLE_BOTTOM: { ...record(80, 0.004), target_first: { value: 0.41, ci: [0.3, 0.52], n: 70, placebo: 0.36 } } },
    },
    probabilities: {
      confidence: {
        BUY: probability(PROBABILITY_EVENTS.BUY, curveCalibrator(1000), 1000),
        SELL: probability(PROBABILITY_EVENTS.SELL, curveCalibrator(1000, -0.15), 1000),
        HOLD: probability(PROBABILITY_EVENTS.HOLD, null, 150),
      },
      enhanced_confidence: {
        BUY: probability(PROBABILITY_EVENTS.BUY, curveCalibrator(900, 0.05), 900),
        SELL: probability(PROBABILITY_EVENTS.SELL, curveCalibrator(900, -0.2), 900),
        HOLD: probability(PROBABILITY_EVENTS.HOLD, null, 120),
      },
      ml_probability_up: probability(PROBABILITY_EVENTS.ml_probability_up, curveCalibrator(800, 0.1), 800),
      pattern_target: probability(PROBABILITY_EVENTS.pattern_target, curveCalibrator(600, -0.1), 600),
      ...over,
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe('without an evidence table', () => {
  const stored = deepFreeze(storedDoc());
  const out = presentSnapshot(stored, null) as Doc & ReturnType<typeof presentSnapshot>;

  it('says nothing is measured: status not_measured with a reason, as_of null, every state null', () => {
    expect(out.evidence).toEqual({
      as_of: null,
      status: 'not_measured',
      reason: expect.stringMatching(/no evidence table/),
      pipeline_version: null,
      universe: null,
      stage: null,
      signal: null,
      sata_bucket: null,
      best_pattern: null,
    });
  });

  it('shows no unmeasured probability: confidence, ML probability and pattern confidences are null, the raw values kept', () => {
    expect(out.confidence).toBeNull();
    expect((out.ml_signal as Doc).probability_up).toBeNull();
    expect((out.ml_signal as Doc).confidence).toBeNull();
    expect((out.ml_signal as Doc).raw_confidence).toBe(0.16);
    for (const key of ['detected_patterns', 'recent_patterns'] as const) {
      (out[key] as Doc[]).forEach((p, i) => {
        expect(p.confidence).toBeNull();
        expect(p.raw_confidence).toBe(((stored[key] as Doc[])[i] as Doc).confidence);
      });
    }
    expect((out.best_pattern as Doc).raw_confidence).toBe(0.62);
    expect((out.best_pattern as Doc).confidence).toBeNull();
    expect((out.price_targets as Doc[])[0]).toEqual({ ...(stored.price_targets as Doc[])[0], confidence: null, raw_confidence: 0.62 });
    expect((out.price_targets as Doc[])[1]).toBe((stored.price_targets as Doc[])[1]);
    expect(out.calibration.as_of).toBeNull();
    expect(out.calibration.confidence).toEqual({ raw: 0.7, probability: null, event: PROBABILITY_EVENTS.BUY, method: null, n: 0, brier: null, ece: null, reason: expect.any(String) });
    expect(out.calibration.ml_probability_up).toMatchObject({ raw: 0.58, probability: null, event: PROBABILITY_EVENTS.ml_probability_up, n: 0 });
    expect(out.calibration.pattern_target).toMatchObject({ raw: 0.62, probability: null, event: PROBABILITY_EVENTS.pattern_target, n: 0 });
    expect(out.enhanced_signal).toEqual({ ...(stored.enhanced_signal as Doc), confidence: null, raw_confidence: 0.55 });
    expect(out.calibration.enhanced_confidence).toEqual({ raw: 0.55, probability: null, event: PROBABILITY_EVENTS.BUY, method: null, n: 0, brier: null, ece: null, reason: expect.stringMatching(/no evidence table/) });
  });

  it('keeps every other key as stored, and never changes the stored document (frozen here)', () => {
    expect(out.risk_parameters).toBe(stored.risk_parameters);
    expect(out.indicators).toBe(stored.indicators);
    expect(stored).toEqual(storedDoc());
    expect(Object.keys(out).slice(-2)).toEqual(['evidence', 'calibration']);
  });
});

describe('with an evidence table', () => {
  const t = deepFreeze(table());
  const stored = deepFreeze(storedDoc());
  const out = presentSnapshot(stored, t) as Doc & ReturnType<typeof presentSnapshot>;
  const cal = (c: Calibrator | null, s: number) => calibrate(c as Calibrator, s);

  it('labels the snapshot state as the tables do', () => {
    expect(snapshotStates(stored as never)).toEqual({ stage: 'STAGE 2 STRONG', signal: 'BUY', sata_bucket: '4-6', best_pattern: 'DOUBLE_BOTTOM' });
  });

  it("evidence is the table's record of each of the snapshot's states, with the table's as-of and universe", () => {
    expect(out.evidence.status).toBe('measured');
    expect(out.evidence.reason).toBeNull();
    expect(out.evidence.as_of).toBe(t.as_of);
    expect(out.evidence.pipeline_version).toBe(t.pipeline_version);
    expect(out.evidence.universe).toEqual(t.universe);
    expect(out.evidence.stage).toEqual({ state: 'STAGE 2 STRONG', ...t.states.stage['STAGE 2 STRONG'] });
    expect(out.evidence.signal).toEqual({ state: 'BUY', ...t.states.signal.BUY });
    expect(out.evidence.best_pattern).toEqual({ state: 'DOUBLE_BOTTOM', ...t.states.best_pattern.DOUBLE_BOTTOM });
    expect(out.evidence.best_pattern?.target_first?.placebo).toBe(0.36);
  });

  it('a state the table has no row for: n 0 and null figures; a state the snapshot lacks: null', () => {
    expect(out.evidence.sata_bucket).toEqual({
      state: '4-6',
      n: 0,
      dates: 0,
      hit_rate: { value: null, ci: null },
      mean_excess_20d: { value: null, ci: null },
      mean_excess_60d: { value: null, ci: null },
    });
    const bare = presentSnapshot(storedDoc({ best_pattern: null, stage: null, stage_strength: null }), t);
    expect(bare.evidence.best_pattern).toBeNull();
    expect(bare.evidence.stage).toBeNull();
    expect(bare.calibration.pattern_target).toMatchObject({ raw: null, probability: null, reason: 'the snapshot has no best pattern confidence' });
  });

  it("confidence is the calibrator of the snapshot's own signal applied to the stored confidence", () => {
    const buy = cal(t.probabilities.confidence.BUY.calibrator, 0.7);
    expect(out.confidence).toBe(buy);
    expect(out.calibration.confidence).toEqual({
      raw: 0.7,
      probability: buy,
      event: PROBABILITY_EVENTS.BUY,
      method: 'isotonic',
      n: 1000,
      brier: t.probabilities.confidence.BUY.metrics?.brier,
      ece: t.probabilities.confidence.BUY.metrics?.ece,
      reason: null,
    });
    const sell = presentSnapshot(storedDoc({ signal: 'SELL' }), t);
    const expected = cal(t.probabilities.confidence.SELL.calibrator, 0.7);
    expect(expected).not.toBe(buy);
    expect(sell.confidence).toBe(expected);
    expect(sell.calibration.confidence.event).toBe(PROBABILITY_EVENTS.SELL);
    expect(sell.evidence.signal?.state).toBe('SELL');
  });

  it('a calibrator below the minimum outcomes gives null with the reason (HOLD has 150 here)', () => {
    const hold = presentSnapshot(storedDoc({ signal: 'HOLD' }), t);
    expect(hold.confidence).toBeNull();
    expect(hold.calibration.confidence).toMatchObject({ raw: 0.7, probability: null, n: 150, method: null, event: PROBABILITY_EVENTS.HOLD });
    expect(hold.calibration.confidence.reason).toContain(String(MIN_CALIBRATION_OUTCOMES));
    expect(hold.calibration.confidence.brier).toBe(t.probabilities.confidence.HOLD.metrics?.brier);
  });

  it('ML probability_up is calibrated, its confidence recomputed from it, the raw values kept', () => {
    const p = cal(t.probabilities.ml_probability_up.calibrator, 0.58);
    expect(p).not.toBe(0.58);
    expect(out.ml_signal).toEqual({ ...(stored.ml_signal as Doc), probability_up: p, confidence: Math.abs(2 * p - 1), raw_confidence: 0.16 });
    expect(out.calibration.ml_probability_up).toMatchObject({ raw: 0.58, probability: p, n: 800, reason: null });
  });

  it("enhanced_signal.confidence is the calibrator of the snapshot's enhanced signal applied to the stored one, kept in raw_confidence", () => {
    const buy = cal(t.probabilities.enhanced_confidence?.BUY.calibrator ?? null, 0.55);
    expect(buy).not.toBe(0.55);
    expect(buy).not.toBe(cal(t.probabilities.confidence.BUY.calibrator, 0.55));
    expect(out.enhanced_signal).toEqual({ ...(stored.enhanced_signal as Doc), confidence: buy, raw_confidence: 0.55 });
    expect(out.calibration.enhanced_confidence).toEqual({
      raw: 0.55,
      probability: buy,
      event: PROBABILITY_EVENTS.BUY,
      method: 'isotonic',
      n: 900,
      brier: t.probabilities.enhanced_confidence?.BUY.metrics?.brier,
      ece: t.probabilities.enhanced_confidence?.BUY.metrics?.ece,
      reason: null,
    });
    // Keyed by the enhanced signal, not the rules signal (here a rules BUY blended into a SELL).
    const sell = presentSnapshot(storedDoc({ enhanced_signal: { ...(stored.enhanced_signal as Doc), signal: 'SELL' } }), t);
    const expected = cal(t.probabilities.enhanced_confidence?.SELL.calibrator ?? null, 0.55);
    expect(expected).not.toBe(buy);
    expect((sell.enhanced_signal as Doc).confidence).toBe(expected);
    expect(sell.calibration.enhanced_confidence.event).toBe(PROBABILITY_EVENTS.SELL);
    expect(sell.confidence).toBe(out.confidence);
  });

  it('enhanced confidence without a calibrator (HOLD has 120 here) or without an enhanced signal: null with the reason', () => {
    const hold = presentSnapshot(storedDoc({ enhanced_signal: { ...(storedDoc().enhanced_signal as Doc), signal: 'HOLD' } }), t);
    expect((hold.enhanced_signal as Doc).confidence).toBeNull();
    expect((hold.enhanced_signal as Doc).raw_confidence).toBe(0.55);
    expect(hold.calibration.enhanced_confidence).toMatchObject({ raw: 0.55, probability: null, n: 120, method: null, event: PROBABILITY_EVENTS.HOLD });
    expect(hold.calibration.enhanced_confidence.reason).toContain(String(MIN_CALIBRATION_OUTCOMES));
    const none = presentSnapshot(storedDoc({ enhanced_signal: null }), t);
    expect(none.enhanced_signal).toBeNull();
    expect(none.calibration.enhanced_confidence).toMatchObject({ raw: null, probability: null, event: null, reason: 'the snapshot has no enhanced signal' });
  });

  it('a table stored before the enhanced calibrator existed: enhanced confidence not measured, the reason says the table predates it', () => {
    const old = table();
    delete old.probabilities.enhanced_confidence;
    deepFreeze(old);
    const read = presentSnapshot(stored, old);
    expect((read.enhanced_signal as Doc).confidence).toBeNull();
    expect((read.enhanced_signal as Doc).raw_confidence).toBe(0.55);
    expect(read.calibration.enhanced_confidence).toMatchObject({ raw: 0.55, probability: null, event: PROBABILITY_EVENTS.BUY, method: null, n: 0, brier: null, ece: null });
    expect(read.calibration.enhanced_confidence.reason).toMatch(new RegExp(`table of ${old.as_of} predates`));
    // The rest is measured as before.
    expect(read.confidence).toBe(out.confidence);
    expect(read.evidence).toEqual(out.evidence);
  });

  it('every pattern entry and pattern-sourced target: the pattern_target calibrator applied, raw_confidence kept', () => {
    const c = t.probabilities.pattern_target.calibrator;
    const check = (entry: unknown, raw: number) => {
      expect((entry as Doc).confidence).toBe(cal(c, raw));
      expect((entry as Doc).raw_confidence).toBe(raw);
    };
    check((out.detected_patterns as Doc[])[0], 0.62);
    check((out.detected_patterns as Doc[])[1], 0.41);
    check((out.recent_patterns as Doc[])[0], 0.41);
    check(out.best_pattern, 0.62);
    check(out.best_recent_pattern, 0.41);
    check((out.price_targets as Doc[])[0], 0.62);
    expect((out.price_targets as Doc[])[1]).toEqual((stored.price_targets as Doc[])[1]);
    expect(out.calibration.pattern_target.probability).toBe((out.best_pattern as Doc).confidence);
    expect(cal(c, 0.62)).not.toBe(0.62);
  });

  it('the stored document and the table are unchanged (both frozen)', () => {
    expect(stored).toEqual(storedDoc());
    expect(t).toEqual(table());
  });
});
