/**
 * No blending without an edge: the enhanced signal's ML weight, measured on price universes run through the
 * product's own load pass (features, labels), walk-forward training, out-of-sample record and blend.
 *
 * - Null universes (random walks): the weight is 0 on nearly every date, and a weight of 0 always comes
 *   with its reason.
 * - Planted edge (trending regimes that past returns reveal): the weight becomes > 0 and grows with the
 *   edge, following w = min(0.5, 4 x (low - 0.5)) of the AUC interval's lower bound.
 * - No look-ahead: the gate as of a date is the same with or without the bars after it.
 */
import type { EnhancedSignal } from '../../../subgraphs/analysis/engine/document.js';
import { signalModelLookup, type SignalModel } from '../../../subgraphs/analysis/engine/signal-model.js';
import { enhancedSignal, mlSignal, rulesSignal } from '../../../subgraphs/analysis/engine/signals.js';
import { priceUniverse, trainOn, universeThrough } from './ml-universe.js';

const SYMBOLS = 40;
const DAYS = 1008; // four years: eight walk-forward windows after the first year of features
const RULES = rulesSignal({ stage: null, patternSignal: null, close: 100, sma50: NaN, sma50Prior: NaN, macdHist: NaN, rsi: NaN, regime: null });

interface WindowGate {
  /** Dates the window serves (one document per symbol on each). */
  dates: number;
  hasInterval: boolean;
  low: number | null;
  blend: EnhancedSignal;
}

/** The blend of every walk-forward window, as its documents would carry it. */
function gates(model: SignalModel): WindowGate[] {
  const lookup = signalModelLookup(model);
  return model.folds.map((f) => {
    const choice = lookup(f.testStart);
    if (!choice) throw new Error(`no model for window ${f.testStart}`);
    const ci = choice.summary.oos_auc_ci ?? null;
    return { dates: f.testEnd - f.testStart + 1, hasInterval: ci !== null, low: ci?.low ?? null, blend: enhancedSignal(RULES, mlSignal(0.7, choice.summary), null) };
  });
}

const ZERO_REASON =
  /^ml: (no out-of-sample predictions with known outcomes yet|out-of-sample AUC 0\.\d{3} over \d+ date\(s\), no interval \(it needs at least 10 dates with both outcomes\)|out-of-sample AUC 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] \(95%, \d+ dates\), interval (includes|below) 0\.5): weight 0$/;

describe('the ML edge gate on null universes (random walks)', () => {
  it('gives the ML model weight 0 on at least 95% of dates over 40 seeds, and says why every time', () => {
    let dates = 0;
    let zero = 0;
    let withInterval = 0;
    let largest = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const model = trainOn(universeThrough(priceUniverse({ seed, symbols: SYMBOLS, days: DAYS, trend: 0 }), null));
      if (!model) throw new Error('no model');
      for (const g of gates(model)) {
        dates += g.dates;
        if (g.hasInterval) withInterval += g.dates;
        const ml = g.blend.weights?.ml;
        expect(ml?.weight).toBe(g.blend.ml_weight);
        if (g.blend.ml_weight === 0) {
          zero += g.dates;
          expect(ml?.reason).toMatch(ZERO_REASON);
          expect(g.blend.score).toBe(RULES.score);
          expect(g.blend.weights?.rules).toEqual({ weight: 1, reason: 'rules: the base score: weight 1, since no gated component has a measured out-of-sample edge' });
        } else {
          largest = Math.max(largest, g.blend.ml_weight);
        }
      }
    }
    // Measured: 97.0% of 22,240 dates (100 seeds: 96.3%, at most 0.106 where a false edge got through).
    expect(withInterval / dates).toBeGreaterThan(0.7);
    expect(zero / dates).toBeGreaterThanOrEqual(0.95);
    expect(largest).toBeLessThan(0.15);
  });
});

describe('the ML edge gate with a planted, learnable edge', () => {
  const TRENDS = [0, 0.0015, 0.002, 0.003, 0.006];
  const SEEDS = [1, 2, 3];
  const results = new Map<number, WindowGate[]>();
  beforeAll(() => {
    for (const trend of TRENDS) {
      const all: WindowGate[] = [];
      for (const seed of SEEDS) {
        const model = trainOn(universeThrough(priceUniverse({ seed, symbols: SYMBOLS, days: DAYS, trend }), null));
        if (!model) throw new Error('no model');
        all.push(...gates(model));
      }
      results.set(trend, all);
    }
  });
  const meanWeight = (trend: number): number => {
    const withInterval = (results.get(trend) ?? []).filter((g) => g.hasInterval);
    return withInterval.reduce((s, g) => s + g.blend.ml_weight, 0) / withInterval.length;
  };

  it('gives weight once the interval clears 0.5, and the weight grows with the edge up to the cap of 0.5', () => {
    const means = TRENDS.map(meanWeight);
    // Measured: 0, 0.038, 0.120, 0.366, 0.5 (mean over the 21 windows with an interval).
    for (let k = 1; k < means.length; k++) expect(means[k]).toBeGreaterThan(means[k - 1]);
    expect(means[2]).toBeGreaterThan(0.05);
    expect(means[means.length - 1]).toBe(0.5);
    const strong = (results.get(0.003) ?? []).filter((g) => g.hasInterval);
    expect(strong.length).toBeGreaterThanOrEqual(20);
    for (const g of strong) expect(g.blend.ml_weight).toBeGreaterThan(0);
  });

  it('sets the weight to min(0.5, 4 x (low - 0.5)) of the interval lower bound, 0 when low <= 0.5, and states it', () => {
    for (const g of TRENDS.flatMap((t) => results.get(t) ?? [])) {
      const expected = g.low !== null && g.low > 0.5 ? Math.round(Math.min(0.5, 4 * (g.low - 0.5)) * 1e4) / 1e4 : 0;
      expect(g.blend.ml_weight).toBeCloseTo(expected, 10);
      expect(g.blend.rules_weight).toBeCloseTo(1 - expected, 10);
      const reason = g.blend.weights?.ml.reason ?? '';
      if (expected > 0) {
        expect(reason).toMatch(/^ml: out-of-sample AUC 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] \(95%, \d+ dates\), lower bound above 0\.5: min\(0\.5, 4 x \(0\.\d{3} - 0\.5\)\): weight 0\.\d+$/);
        expect(g.blend.score).toBeCloseTo((1 - expected) * RULES.score + expected * (2 * 0.7 - 1), 3);
      } else {
        expect(reason).toMatch(ZERO_REASON);
      }
    }
  });
});

describe('the ML edge gate has no look-ahead', () => {
  const universe = priceUniverse({ seed: 7, symbols: SYMBOLS, days: DAYS, trend: 0.002 });
  const full = universeThrough(universe, null);
  let fullLookup: ReturnType<typeof signalModelLookup>;
  const weights: number[] = [];
  beforeAll(() => {
    fullLookup = signalModelLookup(trainOn(full));
  });

  // Dates in four different windows, one on a window's first day, and the day before the last.
  it.each([515, 600, 767, 890, DAYS - 2])('the gate as of day %i is the same with and without the bars after it', (t) => {
    const date = full.calendar[t];
    const past = universeThrough(universe, date);
    expect(past.calendar[past.calendar.length - 1]).toBe(date);
    const pastChoice = signalModelLookup(trainOn(past, [t]))(t);
    const fullChoice = fullLookup(t);
    expect(pastChoice?.summary).toEqual(fullChoice?.summary);
    expect(pastChoice?.summary.oos_through ?? '').not.toBe('');
    expect((pastChoice?.summary.oos_through ?? '9999') <= (pastChoice?.summary.trained_through ?? '')).toBe(true);
    const blend = (s: typeof pastChoice) => (s ? enhancedSignal(RULES, mlSignal(0.7, s.summary), null) : null);
    expect(blend(pastChoice)).toEqual(blend(fullChoice));
    weights.push(blend(pastChoice)?.ml_weight ?? 0);
  });

  it('compared live gates: some of those dates gave the model weight, some did not', () => {
    expect(weights).toHaveLength(5);
    expect(weights.some((w) => w > 0)).toBe(true);
    expect(weights.some((w) => w === 0)).toBe(true);
  });
});
