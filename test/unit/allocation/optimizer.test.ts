/**
 * The allocation optimizer, one behaviour per test: each strategy changes the book as documented, each
 * constraint binds and leaves its note, whole shares and leftover cash, infeasible inputs.
 *
 * Unless a test says otherwise: capital 100,000.00, candidates at entry 100.00 with the stop 10% below,
 * per-trade risk 0.1 (so no per-trade cap below 1), total risk 1, max position size 1.
 */
import { alignedReturns, ledoitWolf, quadraticForm } from '../../../subgraphs/allocation/engine/covariance.js';
import {
  DEFAULT_SOFTMAX_TEMPERATURE,
  DEFAULT_STAGE_WEIGHTS,
  MAX_TEMPERATURE_RAISE_FACTOR,
  NO_CONSTRAINT_PACK_NOTE,
  effectiveRiskSettings,
  optimize,
  symbolsNeedingCloses,
} from '../../../subgraphs/allocation/engine/optimizer.js';
import type { OptimizeResult } from '../../../subgraphs/allocation/engine/types.js';
import type { CloseSeries } from '../../../subgraphs/allocation/engine/types.js';
import { candidate, closeSeries, closesFor, input, pack, settings, tradingDates } from './fixtures.js';

function shares(r: OptimizeResult): Record<string, number> {
  return Object.fromEntries(r.allocations.map((a) => [a.symbol, a.shares]));
}

function weight(r: OptimizeResult, symbol: string, capital = 100_000): number {
  return (r.allocations.find((a) => a.symbol === symbol)?.position_value ?? 0) / capital;
}

function notes(r: OptimizeResult): string[] {
  return r.diagnostics.binding_notes;
}

function hasNote(r: OptimizeResult, re: RegExp): boolean {
  return notes(r).some((n) => re.test(n));
}

describe('strategies', () => {
  test('EQUAL_WEIGHT: equal capital per name; max_positions keeps the most confident', () => {
    const cands = ['AAA', 'BBB', 'CCC', 'DDD'].map((s, i) => candidate(s, { confidence: 0.5 + i * 0.1 }));
    const r = optimize(input(cands));
    expect(shares(r)).toEqual({ AAA: 250, BBB: 250, CCC: 250, DDD: 250 });
    expect(r.allocations.map((a) => a.symbol)).toEqual(['DDD', 'CCC', 'BBB', 'AAA']);
    expect(r.allocated_capital).toBe(100_000);
    expect(r.remaining_capital).toBe(0);
    const top2 = optimize(input(cands, { risk_settings: settings('EQUAL_WEIGHT', { max_positions: 2 }) }));
    expect(shares(top2)).toEqual({ DDD: 500, CCC: 500 });
  });

  test('STAGE_WEIGHTED: stage factor x strength; stage 4 gets nothing by default; custom stage_weights honoured', () => {
    const cands = [
      candidate('AAA', { stage: 2, strength: 'STRONG', entry: 1 }), // 1 x 0.75
      candidate('BBB', { stage: 1, strength: 'STRONG', entry: 1 }), // 0.25 x 0.75
      candidate('CCC', { stage: 4, strength: 'STRONG', entry: 1 }), // 0
      candidate('DDD', { stage: 2, strength: 'WEAK', entry: 1 }), // 1 x 0.25
    ];
    const r = optimize(input(cands, { risk_settings: settings('STAGE_WEIGHTED') }));
    const s = shares(r);
    expect(s.CCC).toBeUndefined();
    expect(s.AAA / s.BBB).toBeCloseTo(4, 3);
    expect(s.AAA / s.DDD).toBeCloseTo(3, 3);
    // Floors 63157, 15789, 21052 leave 2.00, which the greedy pass spends on the best-ranked name.
    expect(s.BBB).toBe(Math.floor((0.1875 / 1.1875) * 100_000));
    expect(s.DDD).toBe(Math.floor((0.25 / 1.1875) * 100_000));
    expect(s.AAA).toBe(Math.floor((0.75 / 1.1875) * 100_000) + 2);
    expect(r.remaining_capital).toBe(0);
    expect(hasNote(r, /^stage_weights: 1 eligible names are in a stage weighted 0/)).toBe(true);

    const custom = optimize(
      input(cands, { risk_settings: settings('STAGE_WEIGHTED', { stage_weights: { 'STAGE 1': 1, 'STAGE 4': 0.5 } }) }),
    );
    const c = shares(custom);
    // Stage 1 now weighs as much as stage 2 (equal targets; the rounding leftover goes to AAA, first by symbol).
    expect(c.AAA - c.BBB).toBeGreaterThanOrEqual(0);
    expect(c.AAA - c.BBB).toBeLessThanOrEqual(1);
    expect(c.AAA / c.CCC).toBeCloseTo(2, 3); // stage 4 at 0.5
    expect(c.AAA / c.DDD).toBeCloseTo(3, 3);
  });

  test('CONFIDENCE_WEIGHTED: softmax(confidence / T); a higher temperature is more uniform', () => {
    const cands = [candidate('AAA', { confidence: 0.9, entry: 1 }), candidate('BBB', { confidence: 0.5, entry: 1 })];
    const r = optimize(input(cands, { risk_settings: settings('CONFIDENCE_WEIGHTED') }));
    const s = shares(r);
    expect(s.AAA / s.BBB).toBeCloseTo(Math.exp(0.4 / DEFAULT_SOFTMAX_TEMPERATURE), 3);
    expect(r.diagnostics.softmax_temperature_base).toBe(DEFAULT_SOFTMAX_TEMPERATURE);
    expect(r.diagnostics.softmax_temperature_effective).toBe(DEFAULT_SOFTMAX_TEMPERATURE);
    const hot = shares(optimize(input(cands, { risk_settings: settings('CONFIDENCE_WEIGHTED', { softmax_temperature: 1 }) })));
    expect(hot.AAA / hot.BBB).toBeCloseTo(Math.exp(0.4), 3);
    expect(hot.AAA / hot.BBB).toBeLessThan(s.AAA / s.BBB);
  });

  describe('KELLY_CRITERION', () => {
    const cands = [
      candidate('AAA', { winProbability: 0.6, target: 120 }), // b = 2: f* = 0.6 - 0.4 / 2 = 0.4
      candidate('BBB', { winProbability: 0.5, target: 115 }), // b = 1.5: f* = 0.5 - 0.5 / 1.5 = 1/6
      candidate('CCC', { winProbability: 0.3, target: 110 }), // b = 1: f* = 0.3 - 0.7 < 0
      candidate('DDD', { winProbability: 0.9, target: null }), // b = 0: no edge
    ];

    test('absolute fractions; negative edge gets nothing; the rest stays cash', () => {
      const r = optimize(input(cands, { risk_settings: settings('KELLY_CRITERION') }));
      expect(shares(r)).toEqual({ AAA: 400, BBB: 166 });
      expect(r.remaining_capital).toBe(100_000 - 40_000 - 16_600);
      expect(notes(r)).toContain('KELLY_CRITERION: 2 eligible names have no positive edge (measured p at or below the no-edge p0, f* <= 0) and get nothing');
      expect(notes(r)).toContain('KELLY_CRITERION: Kelly fractions of the ranked names sum to 0.5667; the other 0.4333 stays cash');
      expect(hasNote(r, /^remaining_capital: 43400\.00 held back by KELLY_CRITERION/)).toBe(true);
      expect(r.diagnostics.softmax_temperature_base).toBeNull();
    });

    test('half Kelly halves the weights; the reward multiplier raises b', () => {
      const half = optimize(input(cands, { risk_settings: settings('KELLY_CRITERION', { half_kelly: true }) }));
      expect(shares(half)).toEqual({ AAA: 200, BBB: 83 });
      const doubled = optimize(input(cands, { risk_settings: settings('KELLY_CRITERION', { reward_multiplier: 2 }) }));
      // b = 4: 0.6 - 0.1 = 0.5; b = 3: 0.5 - 0.5 / 3 = 1/3; CCC: b = 2: 0.3 - 0.35 < 0
      expect(shares(doubled)).toEqual({ AAA: 500, BBB: 333 });
    });

    test('fractions summing above 1 are scaled to 1', () => {
      const rich = [candidate('AAA', { winProbability: 0.9, target: 130 }), candidate('BBB', { winProbability: 0.8, target: 130 })];
      // f* = 0.9 - 0.1 / 3 = 0.8667 and 0.8 - 0.2 / 3 = 0.7333, sum 1.6
      const r = optimize(input(rich, { risk_settings: settings('KELLY_CRITERION') }));
      expect(weight(r, 'AAA')).toBeCloseTo(0.8667 / 1.6, 2);
      expect(r.remaining_capital).toBeLessThan(100);
      expect(notes(r)).toContain('KELLY_CRITERION: Kelly fractions of the ranked names sum to 1.6000; scaled to sum to 1');
    });
  });

  describe('HYBRID_WEIGHTED', () => {
    test('the documented blend: softmax of 0.35 stage + 0.35 confidence + 0.2 Kelly edge + 0.1 RS', () => {
      const cands = [
        // stage part 1, confidence 0.8, full Kelly 0.6 - 0.4 / 2 = 0.4 -> 0.8, RS 50 -> 1: blend 0.89
        candidate('AAA', {
          ...{ stage: 2, strength: 'VERY_STRONG', confidence: 0.8, winProbability: 0.6 },
          ...{ entry: 1, stop: 0.9, target: 1.2, relativeStrength: 50 },
        }),
        // stage part 0.25, confidence 0.4, Kelly 0.5 - 0.5 / 1 = 0, RS -50 -> 0: blend 0.2275
        candidate('BBB', {
          ...{ stage: 2, strength: 'WEAK', confidence: 0.4, winProbability: 0.5 },
          ...{ entry: 1, stop: 0.9, target: 1.1, relativeStrength: -50 },
        }),
      ];
      const r = optimize(input(cands, { risk_settings: settings('HYBRID_WEIGHTED') }));
      const s = shares(r);
      expect(s.AAA / s.BBB).toBeCloseTo(Math.exp((0.89 - 0.2275) / 0.2), 1);
      expect(s.BBB).toBe(Math.floor((100_000 * 100) / (1 + Math.exp((0.89 - 0.2275) / 0.2)) / 100));
    });

    test('higher confidence gets more; unknown relative strength is neutral (as RS 0)', () => {
      const cands = [
        candidate('AAA', { confidence: 0.9, entry: 1 }),
        candidate('BBB', { confidence: 0.5, entry: 1 }),
        candidate('CCC', { confidence: 0.5, entry: 1, relativeStrength: 0 }),
        candidate('DDD', { confidence: 0.5, entry: 1, relativeStrength: null }),
      ];
      const s = shares(optimize(input(cands, { risk_settings: settings('HYBRID_WEIGHTED') })));
      expect(s.AAA).toBeGreaterThan(s.BBB);
      expect(s.CCC).toBe(s.DDD);
      expect(s.BBB).toBeGreaterThan(s.CCC); // RS 5 > neutral
    });

    test('custom stage_weights honoured; a higher temperature is more uniform', () => {
      const cands = [candidate('AAA', { stage: 2, entry: 1 }), candidate('BBB', { stage: 3, entry: 1 })];
      const base = shares(optimize(input(cands, { risk_settings: settings('HYBRID_WEIGHTED') })));
      expect(base.AAA).toBeGreaterThan(base.BBB);
      expect(base.BBB).toBeGreaterThan(0);
      const zero = optimize(input(cands, { risk_settings: settings('HYBRID_WEIGHTED', { stage_weights: { 'STAGE 3': 0 } }) }));
      expect(shares(zero)).toEqual({ AAA: 100_000 });
      expect(hasNote(zero, /^stage_weights: 1 eligible names/)).toBe(true);
      const same = shares(optimize(input(cands, { risk_settings: settings('HYBRID_WEIGHTED', { stage_weights: { 'STAGE 3': 1 } }) })));
      expect(same.AAA).toBe(same.BBB);
      const hot = shares(optimize(input(cands, { risk_settings: settings('HYBRID_WEIGHTED', { softmax_temperature: 2 }) })));
      expect(hot.AAA / hot.BBB).toBeLessThan(base.AAA / base.BBB);
      expect(hot.AAA / hot.BBB).toBeGreaterThan(1);
    });
  });
});

describe('constraints', () => {
  test('max_positions: keeps the top-scored names and says how many', () => {
    const cands = [1, 2, 3, 4, 5].map((i) => candidate(`S${i}`, { confidence: i / 10 }));
    const r = optimize(input(cands, { risk_settings: settings('CONFIDENCE_WEIGHTED', { max_positions: 3 }) }));
    expect(r.allocations.map((a) => a.symbol)).toEqual(['S5', 'S4', 'S3']);
    expect(notes(r)).toContain('max_positions: kept 3 of 5 scored eligible names');
    expect(r.metrics.eligible_count).toBe(5);
    expect(r.metrics.ranked_count).toBe(3);
  });

  test('max_position_size: caps names, leaves cash when no one can take the excess', () => {
    const cands = [candidate('AAA'), candidate('BBB')];
    const r = optimize(input(cands, { risk_settings: settings('EQUAL_WEIGHT', { max_position_size: 0.3 }) }));
    expect(shares(r)).toEqual({ AAA: 300, BBB: 300 });
    expect(notes(r)).toContain('max_position_size: capped AAA at 0.3000 (wanted 0.5000)');
    expect(notes(r)).toContain('max_position_size: capped BBB at 0.3000 (wanted 0.5000)');
    expect(notes(r)).toContain('caps: 0.4000 of capital cannot be placed within the caps and stays cash');
    expect(notes(r)).toContain(
      'remaining_capital: 40000.00 held back by max_position_size (one more share of any affordable ranked name would break them)',
    );
    expect(r.diagnostics.max_position_size_effective).toBe(0.3);
  });

  test('max_position_size: the excess is redistributed in proportion to target weights', () => {
    const cands = [
      candidate('AAA', { confidence: 0.9, entry: 1 }),
      candidate('BBB', { confidence: 0.5, entry: 1 }),
      candidate('CCC', { confidence: 0.5, entry: 1 }),
    ];
    const r = optimize(input(cands, { risk_settings: settings('CONFIDENCE_WEIGHTED', { max_position_size: 0.5 }) }));
    expect(shares(r)).toEqual({ AAA: 50_000, BBB: 25_000, CCC: 25_000 });
    const wanted = Math.exp(2) / (Math.exp(2) + 2);
    expect(notes(r)).toContain(`max_position_size: capped AAA at 0.5000 (wanted ${wanted.toFixed(4)})`);
  });

  test('sector_caps.DEFAULT merges with max_position_size', () => {
    const cands = [candidate('AAA'), candidate('BBB')];
    const r = optimize(
      input(cands, {
        risk_settings: settings('EQUAL_WEIGHT', { max_position_size: 0.5 }),
        constraint_pack: pack({ sector_caps: { DEFAULT: 0.3 } }),
      }),
    );
    expect(shares(r)).toEqual({ AAA: 300, BBB: 300 });
    expect(notes(r)).toContain('sector_caps.DEFAULT: capped AAA at 0.3000 (wanted 0.5000)');
    expect(r.diagnostics.max_position_size_effective).toBe(0.3);
    expect(r.diagnostics.max_position_size_from_risk_settings).toBe(0.5);
    expect(r.diagnostics.constraint_pack_default_sector_cap).toBe(0.3);
    const looser = optimize(
      input(cands, {
        risk_settings: settings('EQUAL_WEIGHT', { max_position_size: 0.3 }),
        constraint_pack: pack({ sector_caps: { DEFAULT: 0.4 } }),
      }),
    );
    expect(looser.diagnostics.max_position_size_effective).toBe(0.3);
    expect(notes(looser)).toContain('max_position_size: capped AAA at 0.3000 (wanted 0.5000)');
  });

  test('sector caps: the sector sum is capped and the rest goes to other sectors; unknown sector keys get a note', () => {
    const cands = [
      candidate('AAA', { sector: 'Energy', entry: 10 }),
      candidate('BBB', { sector: 'Energy', entry: 10 }),
      candidate('CCC', { sector: 'Technology', entry: 10 }),
      candidate('DDD', { sector: 'Technology', entry: 10 }),
    ];
    const r = optimize(input(cands, { constraint_pack: pack({ sector_caps: { Energy: 0.3, Utilities: 0.1 } }) }));
    expect(shares(r)).toEqual({ AAA: 1500, BBB: 1500, CCC: 3500, DDD: 3500 });
    expect(notes(r)).toContain('sector_caps.Energy: capped at 0.3000 (wanted 0.5000)');
    expect(notes(r)).toContain('sector_caps.Utilities: no name in the book has this sector label; cap unused');
    expect(notes(r)).not.toContain(NO_CONSTRAINT_PACK_NOTE);
  });

  test('sector caps use the exact sector label', () => {
    const cands = [candidate('AAA', { sector: 'Energy' }), candidate('BBB', { sector: 'energy' })];
    const r = optimize(input(cands, { constraint_pack: pack({ sector_caps: { Energy: 0.2 } }) }));
    expect(weight(r, 'AAA')).toBeCloseTo(0.2, 6);
    expect(weight(r, 'BBB')).toBeCloseTo(0.8, 6);
  });

  test('max_risk_per_trade: w x stop distance <= max_risk_per_trade', () => {
    const cands = [candidate('AAA', { stop: 75, confidence: 0.9 }), candidate('BBB', { stop: 90 })];
    const r = optimize(input(cands, { risk_settings: settings('EQUAL_WEIGHT', { max_risk_per_trade: 0.05 }) }));
    expect(shares(r)).toEqual({ AAA: 200, BBB: 500 });
    const aaa = r.allocations.find((a) => a.symbol === 'AAA');
    expect(aaa?.risk_amount).toBe(5000);
    expect(notes(r)).toContain('max_risk_per_trade: capped AAA at 0.2000 (wanted 0.5000; stop distance 0.2500)');
    expect(notes(r)).toContain('max_risk_per_trade: capped BBB at 0.5000 (wanted 0.8000; stop distance 0.1000)');
  });

  test('max_portfolio_risk: all weights scaled down uniformly', () => {
    const cands = [candidate('AAA'), candidate('BBB', { stop: 80 })];
    // risk 0.5 x 0.1 + 0.5 x 0.2 = 0.15 > 0.03: scale 0.2
    const r = optimize(input(cands, { risk_settings: settings('EQUAL_WEIGHT', { max_portfolio_risk: 0.03 }) }));
    expect(notes(r)).toContain('max_portfolio_risk: total risk 0.1500 above 0.0300; every weight scaled by 0.2000');
    expect(r.metrics.total_risk_amount).toBeLessThanOrEqual(3000);
    expect(r.metrics.target_gross_weight).toBeCloseTo(0.2, 12);
    expect(shares(r)).toEqual({ AAA: 100, BBB: 100 });
    expect(hasNote(r, /^remaining_capital: 80000\.00 held back by max_portfolio_risk/)).toBe(true);
  });

  describe('vol_target_annual', () => {
    test('gross exposure is scaled for strategies without a temperature', () => {
      const cands = [candidate('AAA', { entry: 1 }), candidate('BBB', { entry: 1 })];
      const closes = closesFor(['AAA', 'BBB'], { dailyVol: 0.02 });
      // Vol is only measured under a vol target: one far above the book's vol measures it unconstrained.
      const free = optimize(input(cands, { closes, constraint_pack: pack({ vol_target_annual: 100 }) }));
      expect(free.metrics.expected_volatility_annual).toBeGreaterThan(0.15);
      const r = optimize(input(cands, { closes, constraint_pack: pack({ vol_target_annual: 0.1 }) }));
      expect(hasNote(r, /^vol_target_annual: gross exposure scaled by 0\.\d{4} \(vol 0\.\d{4} -> 0\.1000, target 0\.1000\)$/)).toBe(true);
      expect(r.metrics.expected_volatility_annual).toBeLessThanOrEqual(0.1 * (1 + 1e-9));
      expect(r.metrics.expected_volatility_annual).toBeGreaterThan(0.099);
      expect(r.remaining_capital).toBeGreaterThan(30_000);
      expect(hasNote(r, /held back by vol_target_annual/)).toBe(true);
      expect(r.diagnostics.vol_target_annual).toBe(0.1);
      expect(r.diagnostics.softmax_temperature_effective).toBeNull();
    });

    test('softmax strategies first raise the temperature, to the smallest that meets the target', () => {
      const cands = [candidate('HOT', { confidence: 0.9, entry: 1 }), candidate('CALM', { confidence: 0.5, entry: 1 })];
      const closes = closesFor(['HOT', 'CALM'], { vols: { HOT: 0.03, CALM: 0.005 } });
      const run = (t: number | null, target: number) =>
        optimize(
          input(cands, {
            closes,
            risk_settings: settings('CONFIDENCE_WEIGHTED', { softmax_temperature: t }),
            constraint_pack: pack({ vol_target_annual: target }),
          }),
        );
      const r = run(null, 0.35);
      const teff = r.diagnostics.softmax_temperature_effective as number;
      expect(r.diagnostics.softmax_temperature_base).toBe(0.2);
      expect(teff).toBeGreaterThan(0.2);
      expect(teff).toBeLessThan(0.2 * MAX_TEMPERATURE_RAISE_FACTOR);
      const raisedNote = /^vol_target_annual: softmax temperature raised from 0\.2000 to \d\.\d{4} \(vol 0\.\d{4} -> 0\.3500, target 0\.3500\)$/;
      expect(hasNote(r, raisedNote)).toBe(true);
      expect(hasNote(r, /gross exposure scaled/)).toBe(false);
      expect(r.metrics.expected_volatility_annual).toBeLessThanOrEqual(0.35 * (1 + 1e-9));
      // Smallest: starting at the found temperature needs no raise, starting just below it does.
      expect(hasNote(run(teff, 0.35), /temperature raised/)).toBe(false);
      expect(hasNote(run(teff * 0.99, 0.35), /temperature raised/)).toBe(true);
    });

    test('when the largest temperature is not enough, it is kept and gross exposure is scaled', () => {
      const cands = [candidate('AAA', { confidence: 0.9, entry: 1 }), candidate('BBB', { confidence: 0.5, entry: 1 })];
      // Both names mostly one market factor: spreading the weights barely lowers vol.
      const closes = closesFor(['AAA', 'BBB'], { beta: 1, marketVol: 0.03, dailyVol: 0.002 });
      const r = optimize(
        input(cands, { closes, risk_settings: settings('CONFIDENCE_WEIGHTED'), constraint_pack: pack({ vol_target_annual: 0.1 }) }),
      );
      expect(r.diagnostics.softmax_temperature_effective).toBeCloseTo(0.2 * MAX_TEMPERATURE_RAISE_FACTOR, 12);
      expect(hasNote(r, /^vol_target_annual: softmax temperature raised from 0\.2000 to the maximum 2\.0000 .*still above target 0\.1000\)$/)).toBe(
        true,
      );
      expect(hasNote(r, /^vol_target_annual: gross exposure scaled by /)).toBe(true);
      expect(r.metrics.expected_volatility_annual).toBeLessThanOrEqual(0.1 * (1 + 1e-9));
    });

    test('the target applies to the target weights; whole shares then keep the book within it', () => {
      // 1000.00 of capital: CALM (97.22, low vol) gets 6 whole shares instead of its 0.68 target weight,
      // and the leftover spend buys the cheap, volatile HOT, so the unconstrained whole-share book is far
      // more volatile than its target weights (measured on a capital where rounding is negligible).
      const cands = [
        candidate('CALM', { entry: 97.22, stop: 96.25, confidence: 0.25 }),
        candidate('HOT', { entry: 0.5, stop: 0.49, confidence: 0.001 }),
      ];
      const closes = new Map([
        ['CALM', closeSeries({ seed: 3, dailyVol: 0.003, marketSeed: 3 })],
        ['HOT', closeSeries({ seed: 4, dailyVol: 0.011, beta: 1.3, marketSeed: 3 })],
      ]);
      const base = input(cands, {
        total_capital: 1000,
        closes,
        risk_settings: settings('CONFIDENCE_WEIGHTED', { softmax_temperature: 0.33 }),
        constraint_pack: pack({ vol_target_annual: 100 }),
      });
      const wholeShares = optimize(base).metrics.expected_volatility_annual as number;
      const targetWeights = optimize({ ...base, total_capital: 1e10 }).metrics.expected_volatility_annual as number;
      expect(wholeShares).toBeGreaterThan(0.11);
      expect(targetWeights).toBeLessThan(0.1);
      // A target between the two: the target weights meet it, so neither the temperature nor the gross
      // exposure changes; the share-level vol check stops the leftover spend instead.
      const r = optimize({ ...base, constraint_pack: pack({ vol_target_annual: 0.1 }) });
      expect(notes(r).filter((n) => n.startsWith('vol_target_annual: '))).toEqual([]);
      expect(r.diagnostics.softmax_temperature_effective).toBe(0.33);
      expect(r.metrics.expected_volatility_annual).toBeLessThanOrEqual(0.1 * (1 + 1e-9));
      expect(hasNote(r, /^remaining_capital: \d+\.\d{2} held back by vol_target_annual /)).toBe(true);
    });

    test('vol is measured with Ledoit-Wolf over the ranked names on their common dates', () => {
      const cands = [candidate('AAA', { entry: 1 }), candidate('BBB', { entry: 1 }), candidate('CCC', { entry: 1 })];
      const closes = closesFor(['AAA', 'BBB', 'CCC'], { beta: 0.7, days: 400 });
      const r = optimize(input(cands, { closes, constraint_pack: pack({ vol_target_annual: 5 }) }));
      const ranked = symbolsNeedingCloses(input(cands, { constraint_pack: pack({ vol_target_annual: 5 }) }));
      const { returns } = alignedReturns(ranked.map((s) => closes.get(s)!), 252);
      const { covariance, shrinkage } = ledoitWolf(returns);
      const w = ranked.map((s) => weight(r, s));
      expect(r.metrics.covariance_shrinkage).toBe(shrinkage);
      expect(r.metrics.expected_volatility_annual).toBeCloseTo(Math.sqrt(quadraticForm(covariance, w) * 252), 12);
    });

    test('names without enough closes make vol unmeasurable: a note, and the target is not applied', () => {
      const cands = [candidate('AAA'), candidate('BBB')];
      const missing = optimize(
        input(cands, { closes: closesFor(['AAA']), constraint_pack: pack({ vol_target_annual: 0.01 }) }),
      );
      expect(notes(missing)).toContain('vol_target_annual: volatility unmeasurable (no closes for BBB); target not applied');
      expect(missing.metrics.expected_volatility_annual).toBeNull();
      expect(missing.allocated_capital).toBe(100_000);
      const short = optimize(
        input(cands, { closes: closesFor(['AAA', 'BBB'], { days: 15 }), constraint_pack: pack({ vol_target_annual: 0.01 }) }),
      );
      expect(notes(short)).toContain(
        'vol_target_annual: volatility unmeasurable (only 14 aligned daily returns, at least 20 needed); target not applied',
      );
      expect(short.allocated_capital).toBe(100_000);
    });
  });

  describe('turnover', () => {
    // AAA and BBB are held and no longer eligible; CCC and DDD are the new target.
    const cands = [
      candidate('AAA', { eligible: false }),
      candidate('BBB', { eligible: false }),
      candidate('CCC', { confidence: 0.7 }),
      candidate('DDD', { confidence: 0.6 }),
    ];

    test('above the cap the book is blended toward the prior book', () => {
      const r = optimize(
        input(cands, { prior_book_weights: { AAA: 0.5, BBB: 0.5 }, constraint_pack: pack({ max_portfolio_turnover_annual: 0.25 }) }),
      );
      // target turnover 1, alpha 0.25: held names 0.375, new names 0.125
      expect(shares(r)).toEqual({ AAA: 375, BBB: 375, CCC: 125, DDD: 125 });
      expect(r.allocations.map((a) => a.symbol)).toEqual(['CCC', 'DDD', 'AAA', 'BBB']);
      expect(r.allocations.every((a) => a.position_type === 'LONG')).toBe(true);
      expect(notes(r)).toContain(
        'max_portfolio_turnover_annual: target turnover 1.0000 above cap 0.2500; blended toward the prior book with alpha 0.2500',
      );
      expect(r.metrics.turnover).toBeCloseTo(0.25, 12);
      expect(r.diagnostics.max_portfolio_turnover_annual).toBe(0.25);
    });

    test('prior names without a candidate are sold, and the sale counts toward the cap first', () => {
      const r = optimize(
        input(cands, { prior_book_weights: { AAA: 0.3, ZZZ: 0.2 }, constraint_pack: pack({ max_portfolio_turnover_annual: 0.4 }) }),
      );
      expect(notes(r)).toContain('prior_book_weights: sold ZZZ (no candidate with usable prices)');
      expect(shares(r).ZZZ).toBeUndefined();
      expect(r.metrics.turnover).toBeLessThanOrEqual(0.4 + 1e-9);
      expect(r.metrics.turnover).toBeGreaterThan(0.39);
      // budget 0.4 - 0.1 for the rest (0.65): alpha = 0.3 / 0.65
      expect(hasNote(r, new RegExp(`alpha ${(0.3 / 0.65).toFixed(4)}$`))).toBe(true);
    });

    test('a prior book that breaks a hard cap is repaired; turnover then exceeds the cap and a note says why', () => {
      const r = optimize(
        input(cands, {
          risk_settings: settings('EQUAL_WEIGHT', { max_position_size: 0.5 }),
          prior_book_weights: { AAA: 0.8 },
          constraint_pack: pack({ max_portfolio_turnover_annual: 0.1 }),
        }),
      );
      expect(weight(r, 'AAA')).toBeLessThanOrEqual(0.5);
      expect(notes(r)).toContain('prior_book_weights: the blended book broke max_position_size (AAA); the hard caps win');
      expect(hasNote(r, /^max_portfolio_turnover_annual: turnover 0\.\d{4} exceeds cap 0\.1000 because the prior book breaks hard caps$/)).toBe(true);
      expect(r.metrics.turnover).toBeGreaterThan(0.1);
    });

    test('a turnover cap without a prior book only leaves a note', () => {
      const r = optimize(input(cands, { constraint_pack: pack({ max_portfolio_turnover_annual: 0.1 }) }));
      expect(notes(r)).toContain('max_portfolio_turnover_annual: no prior book, so turnover is not limited on a first optimize');
      expect(shares(r)).toEqual({ CCC: 500, DDD: 500 });
      expect(r.metrics.turnover).toBeNull();
    });

    test('a prior book without a turnover cap is ignored for sizing', () => {
      const r = optimize(input(cands, { prior_book_weights: { AAA: 0.5, BBB: 0.5 }, constraint_pack: pack() }));
      expect(notes(r)).toContain('prior_book_weights: ignored for sizing because the constraint pack sets no max_portfolio_turnover_annual');
      expect(shares(r)).toEqual({ CCC: 500, DDD: 500 });
      expect(r.metrics.turnover).toBe(1);
    });
  });

  test('no constraint pack: the first note says only risk_settings were used', () => {
    const r = optimize(input([candidate('AAA')]));
    expect(notes(r)[0]).toBe(NO_CONSTRAINT_PACK_NOTE);
    expect(NO_CONSTRAINT_PACK_NOTE).toBe('constraint_pack: none supplied, so only risk_settings were used');
    expect(r.diagnostics.constraint_pack_default_sector_cap).toBeNull();
    expect(r.diagnostics.vol_target_annual).toBeNull();
    expect(r.diagnostics.max_portfolio_turnover_annual).toBeNull();
    const withPack = optimize(input([candidate('AAA')], { constraint_pack: pack() }));
    expect(notes(withPack)).not.toContain(NO_CONSTRAINT_PACK_NOTE);
  });
});

describe('whole shares', () => {
  const cands = [
    candidate('AAA', { entry: 70, confidence: 0.9 }),
    candidate('BBB', { entry: 30, confidence: 0.8 }),
    candidate('CCC', { entry: 11, confidence: 0.7 }),
  ];

  test('leftover cash is spent greedily on the best-ranked names', () => {
    // 335.00 each: floors 4 x 70, 11 x 30, 30 x 11 leave 65.00; AAA cannot take one more, BBB takes two.
    const r = optimize(input(cands, { total_capital: 1005 }));
    expect(shares(r)).toEqual({ AAA: 4, BBB: 13, CCC: 30 });
    expect(r.remaining_capital).toBe(5);
    expect(notes(r)).toContain('remaining_capital: 5.00 is less than the price of one more share of any ranked name');
  });

  test('the leftover note names the constraints that hold cash back', () => {
    // cap 341.70: AAA stays at 4 (5 x 70 = 350), BBB at 11 (12 x 30 = 360), CCC goes to 31.
    const r = optimize(input(cands, { total_capital: 1005, risk_settings: settings('EQUAL_WEIGHT', { max_position_size: 0.34 }) }));
    expect(shares(r)).toEqual({ AAA: 4, BBB: 11, CCC: 31 });
    expect(notes(r)).toContain(
      'remaining_capital: 54.00 held back by max_position_size (one more share of any affordable ranked name would break them)',
    );
  });

  test('rows are exact to the cent and copy the candidate fields', () => {
    const c = candidate('AAA', { entry: 33.33, stop: 31.07, confidence: 0.77 });
    const r = optimize(input([c], { total_capital: 100_000.07 }));
    const row = r.allocations[0];
    expect(row.shares).toBe(3000);
    expect(row.position_value).toBe(99_990);
    expect(row.risk_amount).toBe(6780);
    expect(row.percent_of_account).toBe(Math.round((99_990 / 100_000.07) * 1e6) / 1e6);
    expect(r.allocated_capital).toBe(99_990);
    expect(r.remaining_capital).toBe(10.07);
    expect(row).toMatchObject({
      symbol: 'AAA',
      position_type: 'LONG',
      entry_price: 33.33,
      stop_loss: 31.07,
      target_price: c.target_price,
      risk_reward_ratio: c.risk_reward_ratio,
      confidence: 0.77,
      ...c.row,
    });
  });
  test('money is whole cents: the shortest decimal each, exact in cents, never nudged to make a float sum', () => {
    // 972.20 + 27.82 is 1000.0200000000001 in floating point; both stay the plain 2-decimal values and
    // their cents add up to the total's.
    const r = optimize(input([candidate('AAA', { entry: 97.22, stop: 87.5, target: 120.01 })], { total_capital: 1000.02 }));
    expect(r.allocations[0].shares).toBe(10);
    expect(JSON.stringify([r.allocated_capital, r.remaining_capital])).toBe('[972.2,27.82]');
    expect(Math.round(r.allocated_capital * 100) + Math.round(r.remaining_capital * 100)).toBe(100_002);
    const row = r.allocations[0];
    expect(JSON.stringify([row.entry_price, row.stop_loss, row.target_price, row.position_value, row.risk_amount])).toBe(
      '[97.22,87.5,120.01,972.2,97.2]',
    );
    expect(JSON.stringify(r.metrics.total_risk_amount)).toBe('97.2');
    // Capital too small to hold a cent: the remaining capital is still whole cents.
    const tiny = optimize(input([candidate('AAA')], { total_capital: 0.004 }));
    expect(tiny.allocated_capital).toBe(0);
    expect(tiny.remaining_capital).toBe(0);
  });
});

describe('infeasible inputs give an empty or partial book with a reason', () => {
  test('no eligible candidates', () => {
    const r = optimize(input([candidate('AAA', { eligible: false })]));
    expect(r.allocations).toEqual([]);
    expect(r.remaining_capital).toBe(100_000);
    expect(notes(r)).toContain('candidates: no eligible candidates, so the book is empty');
  });

  test('capital below one share of anything', () => {
    const r = optimize(input([candidate('AAA', { entry: 2000 })], { total_capital: 1000 }));
    expect(r.allocations).toEqual([]);
    expect(r.allocated_capital).toBe(0);
    expect(r.remaining_capital).toBe(1000);
    expect(notes(r)).toContain('remaining_capital: 1000.00 is less than the price of one more share of any ranked name');
    expect(notes(r)).toContain('book: empty; no ranked name could buy a whole share within the constraints');
  });

  test('sector caps that leave nothing', () => {
    const r = optimize(
      input([candidate('AAA', { sector: 'Energy' }), candidate('BBB', { sector: 'Energy' })], {
        constraint_pack: pack({ sector_caps: { Energy: 0 } }),
      }),
    );
    expect(r.allocations).toEqual([]);
    expect(notes(r)).toContain('sector_caps.Energy: capped at 0.0000 (wanted 1.0000)');
    expect(notes(r)).toContain('caps: 1.0000 of capital cannot be placed within the caps and stays cash');
    expect(hasNote(r, /^remaining_capital: 100000\.00 held back by sector_caps\.Energy/)).toBe(true);
  });

  test('no name with a positive edge', () => {
    const r = optimize(input([candidate('AAA', { winProbability: 0.1 })], { risk_settings: settings('KELLY_CRITERION') }));
    expect(r.allocations).toEqual([]);
    expect(notes(r)).toContain('candidates: no eligible name has a positive KELLY_CRITERION score, so the book is empty');
    expect(notes(r)).toContain('remaining_capital: 100000.00 uninvested because no name is ranked');
  });
});

describe('effectiveRiskSettings and symbolsNeedingCloses', () => {
  test('fills only what the strategy reads', () => {
    expect(effectiveRiskSettings(settings('EQUAL_WEIGHT'))).toEqual(settings('EQUAL_WEIGHT'));
    expect(effectiveRiskSettings(settings('CONFIDENCE_WEIGHTED'))).toEqual(
      settings('CONFIDENCE_WEIGHTED', { softmax_temperature: DEFAULT_SOFTMAX_TEMPERATURE }),
    );
    expect(effectiveRiskSettings(settings('STAGE_WEIGHTED', { stage_weights: { 'STAGE 3': 0.6 } }))).toEqual(
      settings('STAGE_WEIGHTED', { stage_weights: { ...DEFAULT_STAGE_WEIGHTS, 'STAGE 3': 0.6 } }),
    );
    expect(effectiveRiskSettings(settings('KELLY_CRITERION', { half_kelly: true }))).toEqual(
      settings('KELLY_CRITERION', { reward_multiplier: 1, half_kelly: true }),
    );
    expect(effectiveRiskSettings(settings('HYBRID_WEIGHTED', { softmax_temperature: 0.5 }))).toEqual(
      settings('HYBRID_WEIGHTED', { softmax_temperature: 0.5, stage_weights: { ...DEFAULT_STAGE_WEIGHTS } }),
    );
  });

  test('with a vol target: ranked names in rank order, then prior names that can be kept when a turnover cap applies', () => {
    const cands = [
      candidate('AAA', { confidence: 0.2 }),
      candidate('BBB', { confidence: 0.9 }),
      candidate('CCC', { eligible: false }),
      candidate('DDD', { confidence: 0.5 }),
    ];
    const base = input(cands, {
      risk_settings: settings('CONFIDENCE_WEIGHTED', { max_positions: 2 }),
      constraint_pack: pack({ vol_target_annual: 0.2 }),
    });
    expect(symbolsNeedingCloses(base)).toEqual(['BBB', 'DDD']);
    // Without a vol target vol is never measured, so no closes are needed.
    expect(symbolsNeedingCloses({ ...base, constraint_pack: pack() })).toEqual([]);
    expect(symbolsNeedingCloses({ ...base, constraint_pack: null })).toEqual([]);
    const prior = { ...base, prior_book_weights: { CCC: 0.2, AAA: 0.1, ZZZ: 0.1 } };
    expect(symbolsNeedingCloses(prior)).toEqual(['BBB', 'DDD']);
    expect(
      symbolsNeedingCloses({ ...prior, constraint_pack: pack({ vol_target_annual: 0.2, max_portfolio_turnover_annual: 0.5 }) }),
    ).toEqual([
      'BBB',
      'DDD',
      'AAA',
      'CCC',
    ]);
  });

  test('closes of a gap-free series give the same book as closes with extra older history', () => {
    const cands = [candidate('AAA', { entry: 1 }), candidate('BBB', { entry: 1 })];
    const long = new Map([
      ['AAA', closeSeries({ seed: 1, days: 600 })],
      ['BBB', closeSeries({ seed: 2, days: 600 })],
    ]);
    const trimmed = new Map([...long].map(([s, c]) => [s, { dates: c.dates.slice(-253), closes: c.closes.slice(-253) }]));
    const a = optimize(input(cands, { closes: long, constraint_pack: pack({ vol_target_annual: 0.1 }) }));
    const b = optimize(input(cands, { closes: trimmed, constraint_pack: pack({ vol_target_annual: 0.1 }) }));
    expect(b).toEqual(a);
  });
});

/** Closes from daily returns, starting at 100 on the fixture trading dates. */
function fromReturns(returns: readonly number[]): CloseSeries {
  const closes = [100];
  for (const r of returns) closes.push(closes[closes.length - 1] * (1 + r));
  return { dates: tradingDates(closes.length), closes };
}

describe('regressions', () => {
  test('sector caps still bind when the name caps freeze every name', () => {
    const cands = [candidate('AAA', { sector: 'Energy', confidence: 0.9 }), candidate('BBB', { sector: 'Energy', confidence: 0.8 })];
    const r = optimize(
      input(cands, {
        risk_settings: settings('EQUAL_WEIGHT', { max_position_size: 0.3 }),
        constraint_pack: pack({ sector_caps: { Energy: 0.2 } }),
      }),
    );
    expect(shares(r)).toEqual({ AAA: 100, BBB: 100 });
    expect(hasNote(r, /^sector_caps\.Energy: capped at 0\.2000 \(wanted 0\.6000\)$/)).toBe(true);
    expect(r.metrics.target_gross_weight).toBeCloseTo(0.2, 12);
  });

  test('softmax weights that underflow to subnormals are shared without overflow', () => {
    // At T = 0.001 BBB's and CCC's softmax weights are ~1.6e-309 and ~4e-322 (subnormal).
    const cands = [
      candidate('AAA', { confidence: 1, entry: 1, stop: 0.5 }),
      candidate('BBB', { confidence: 0.289, entry: 1, stop: 0.5 }),
      candidate('CCC', { confidence: 0.26, entry: 1, stop: 0.5 }),
    ];
    const r = optimize(
      input(cands, {
        risk_settings: settings('CONFIDENCE_WEIGHTED', {
          softmax_temperature: 0.001,
          max_position_size: 0.5,
          max_risk_per_trade: 1,
          max_portfolio_risk: 0.3,
        }),
      }),
    );
    expect(shares(r)).toEqual({ AAA: 30000, BBB: 30000 });
    expect(notes(r).filter((n) => /Infinity|NaN/.test(n))).toEqual([]);
    expect(r.metrics.target_gross_weight).toBeLessThanOrEqual(1 + 1e-9);
  });

  test('KELLY_CRITERION: a prior book above a Kelly fraction is named as breaking the hard caps, not rounding', () => {
    // AAA: f* = 0.6 - 0.4 / 2 = 0.4, held at 0.9; BBB: f* = 0.5 - 0.5 / 1.5.
    const cands = [candidate('AAA', { winProbability: 0.6, target: 120 }), candidate('BBB', { winProbability: 0.5, target: 115 })];
    const r = optimize(
      input(cands, {
        risk_settings: settings('KELLY_CRITERION'),
        prior_book_weights: { AAA: 0.9 },
        constraint_pack: pack({ max_portfolio_turnover_annual: 0.1 }),
      }),
    );
    expect(shares(r).AAA).toBe(400);
    expect(r.metrics.turnover).toBeCloseTo(0.275, 9);
    expect(hasNote(r, /^prior_book_weights: the blended book broke KELLY_CRITERION \(AAA\); the hard caps win$/)).toBe(true);
    expect(hasNote(r, /^max_portfolio_turnover_annual: turnover 0\.2750 exceeds cap 0\.1000 because the prior book breaks hard caps$/)).toBe(
      true,
    );
    expect(hasNote(r, /rounding/)).toBe(false);
  });

  test('the vol trim removes shares in bulk: a 1e12 book that rounding puts above the vol target', () => {
    // An almost perfectly hedged pair: whole shares, the Kelly ceiling and the prior book push the
    // rounded book above the vol target, and the trim must take billions of shares back.
    const ra: number[] = [];
    const rb: number[] = [];
    for (let t = 0; t < 253; t++) {
      const x = 0.02 * Math.sin(1.3 * t);
      ra.push(x);
      rb.push(-x + 0.001 * Math.cos(7.1 * t));
    }
    const closes = new Map([
      ['AAA', fromReturns(ra)],
      ['BBB', fromReturns(rb)],
    ]);
    const cands = [
      candidate('AAA', { entry: 10, stop: 9, target: 11, winProbability: 0.55 }), // f* = 0.1
      candidate('BBB', { entry: 1, stop: 0.9, target: 1.3, winProbability: 0.6 }), // f* = 0.4667
    ];
    const r = optimize(
      input(cands, {
        total_capital: 1e12,
        closes,
        prior_book_weights: { AAA: 0.45, BBB: 0.45 },
        risk_settings: settings('KELLY_CRITERION', { max_risk_per_trade: 1 }),
        constraint_pack: pack({ vol_target_annual: 0.02, max_portfolio_turnover_annual: 0.05 }),
      }),
    );
    expect(shares(r).AAA).toBe(10_000_000_000); // its Kelly fraction, 0.1
    expect(r.metrics.expected_volatility_annual).toBeLessThanOrEqual(0.02 * (1 + 1e-9));
    expect(r.metrics.expected_volatility_annual).toBeGreaterThan(0.0199);
    expect(weight(r, 'BBB', 1e12)).toBeGreaterThan(0.18);
    expect(weight(r, 'BBB', 1e12)).toBeLessThan(0.19);
  });

  test('without a vol target no covariance is computed: vol and shrinkage are null', () => {
    const cands = [candidate('AAA'), candidate('BBB')];
    const closes = closesFor(['AAA', 'BBB']);
    for (const constraint_pack of [null, pack({ sector_caps: { Energy: 0.5 } })]) {
      const r = optimize(input(cands, { closes, constraint_pack }));
      expect(r.metrics.expected_volatility_annual).toBeNull();
      expect(r.metrics.covariance_shrinkage).toBeNull();
      expect(hasNote(r, /vol_target_annual/)).toBe(false);
    }
  });

  test('a zero turnover cap without forced sales does not blame sales of prior names', () => {
    const r = optimize(
      input([candidate('AAA'), candidate('BBB')], {
        risk_settings: settings('EQUAL_WEIGHT', { max_position_size: 0.3 }),
        prior_book_weights: { AAA: 0.5 },
        constraint_pack: pack({ max_portfolio_turnover_annual: 0 }),
      }),
    );
    expect(hasNote(r, /^max_portfolio_turnover_annual: turnover 0\.1000 exceeds cap 0\.0000 because the prior book breaks hard caps$/)).toBe(
      true,
    );
    expect(hasNote(r, /sales of prior names/)).toBe(false);
  });

  test('the leftover note names the constraint the spend ended on, after S w is recomputed', () => {
    // A hedged pair at 1e12: the running S w drifts during the spend, so once recomputed exactly the vol
    // target leaves room again. The spend resumes and the note names vol_target_annual.
    let seed = 2552;
    const rand = (): number => {
      seed ^= seed << 13;
      seed >>>= 0;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      seed >>>= 0;
      return seed / 4294967296;
    };
    const normal = (): number => {
      let u = 0;
      while (u === 0) u = rand();
      const v = rand();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    };
    rand();
    rand();
    const ra: number[] = [];
    const rb: number[] = [];
    for (let t = 0; t < 260; t++) {
      const x = rand() < 0.5 ? 0.02 : -0.02;
      ra.push(x + 1e-4 * normal());
      rb.push(-x + 1e-4 * normal());
    }
    const r = optimize(
      input([candidate('S0', { entry: 3.33, stop: 1.67, confidence: 0.4897 }), candidate('S1', { entry: 1, stop: 0.5, confidence: 0.8476 })], {
        total_capital: 1e12,
        closes: new Map([
          ['S0', fromReturns(ra)],
          ['S1', fromReturns(rb)],
        ]),
        risk_settings: settings('EQUAL_WEIGHT', { max_risk_per_trade: 1, max_position_size: 0.6 }),
        constraint_pack: pack({ vol_target_annual: 0.0011147146267229827 }),
      }),
    );
    const last = notes(r).filter((n) => n.startsWith('remaining_capital: '));
    expect(last).toHaveLength(1);
    expect(last[0]).toMatch(/^remaining_capital: \d+\.\d{2} held back by vol_target_annual \(one more share/);
    expect(r.metrics.expected_volatility_annual).toBeLessThanOrEqual(0.0011147146267229827 * (1 + 1e-6));
  });
});
