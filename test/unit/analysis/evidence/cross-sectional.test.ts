/**
 * The cross-sectional ML formulation (subgraphs/analysis/engine/evidence/cross-sectional.ts): its bar
 * features and per-date ranks on hand-checked values; on a synthetic universe with a planted 1-month
 * reversal it finds the edge out of sample (AUC interval above 0.5, the reversal rank carrying the largest
 * weight), on random walks its interval covers 0.5; and the embargo: no model is fitted on a row whose
 * outcome was unknown at the date it scores, shown by changing those outcomes (nothing moves) and by the
 * same check with a too-short embargo (scores move: the test can see a leak).
 */
import { aucWithInterval, type AucEstimate } from '../../../../subgraphs/analysis/engine/evidence/auc.js';
import {
  CROSS_SECTIONAL_FEATURES,
  crossSectionalFeatures,
  crossSectionalScores,
  rankPerDate,
  volatilityAtIndex,
  volumeTrendAtIndex,
  type CrossSectionalInput,
  type CrossSectionalResult,
} from '../../../../subgraphs/analysis/engine/evidence/cross-sectional.js';
import type { EvaluationRow } from '../../../../subgraphs/analysis/engine/evidence/rows.js';
import { reversalUniverse } from './reversal-universe.js';
import { nullUniverse, type Universe } from './universe.js';

const D = CROSS_SECTIONAL_FEATURES.length;

/** The model's input from a synthetic universe: row times are the day numbers of the T00000 dates. */
function inputOf(u: Universe, horizon = 20): CrossSectionalInput {
  return {
    dates: u.rows.map((r) => r.date),
    time: u.rows.map((r) => Number(r.date.slice(1))),
    features: crossSectionalFeatures(u.rows, u.closes),
    d: D,
    outcome: u.rows.map((r) => r.forwardExcess[horizon]),
  };
}

/** AUC with its interval of the out-of-sample scores for "20-day excess > 0" (blocks of 4 weekly dates). */
function aucOf(u: Universe, result: CrossSectionalResult): AucEstimate {
  const outcome = u.rows.map((r) => r.forwardExcess[20]);
  const scores = result.scores.map((p, i) => (Number.isFinite(outcome[i]) ? p : NaN));
  return aucWithInterval(
    u.rows.map((r) => r.date),
    scores,
    outcome.map((v) => (v > 0 ? 1 : 0)),
    { seed: 1, minBlockLength: 4, replicates: 500 },
  );
}

const fmt = (a: AucEstimate): string => `${a.auc?.toFixed(3)} [${a.ci?.low.toFixed(3)}, ${a.ci?.high.toFixed(3)}] on ${a.n} rows, ${a.dates} dates`;

describe('bar features and per-date ranks', () => {
  it('computes the 60-day volatility of log returns and the 20/60-day volume trend', () => {
    const close = Array.from({ length: 62 }, (_, t) => 100 * Math.exp(0.01 * t * (t % 2 === 0 ? 1 : 0.5)));
    const returns = Array.from({ length: 60 }, (_, k) => Math.log(close[k + 2] / close[k + 1]));
    const mean = returns.reduce((s, r) => s + r, 0) / 60;
    const sd = Math.sqrt(returns.reduce((s, r) => s + (r - mean) ** 2, 0) / 60);
    expect(volatilityAtIndex(close, 61)).toBeCloseTo(sd, 12);
    expect(volatilityAtIndex(close, 59)).toBeNaN();
    expect(volatilityAtIndex([...close.slice(0, 30), 0, ...close.slice(31)], 61)).toBeNaN();

    const volume = [...new Array<number>(40).fill(100), ...new Array<number>(20).fill(400)];
    // Last 20 average 400; last 60 average (40 x 100 + 20 x 400) / 60 = 200.
    expect(volumeTrendAtIndex(volume, 59)).toBeCloseTo(Math.log(2), 12);
    expect(volumeTrendAtIndex(volume, 58)).toBeNaN();
    expect(volumeTrendAtIndex([...volume.slice(0, 59), NaN], 59)).toBeNaN();
  });

  it('ranks each feature among the rows of its date into (-0.5, 0.5), ties sharing, a missing value at 0', () => {
    const dates = ['a', 'a', 'a', 'a', 'b', 'b'];
    // Two features per row; rows 0-3 on date a, rows 4-5 on date b.
    const rows = [
      [10, 5],
      [20, 20],
      [3, NaN],
      [1, NaN],
      [7, 0],
      [0, 0],
    ];
    const flat = Float64Array.from(rows.flat());
    const r = rankPerDate(dates, flat, 2);
    // Date a, feature 0: 10, 20, 3, 1 -> ranks 3, 4, 2, 1 of 4 -> (rank - 0.5) / 4 - 0.5.
    expect(Array.from([r[0], r[2], r[4], r[6]])).toEqual([0.125, 0.375, -0.125, -0.375]);
    // Date a, feature 1: 5, 20 and two missing -> ranks 1, 2 of 2; missing 0.
    expect(Array.from([r[1], r[3], r[5], r[7]])).toEqual([-0.25, 0.25, 0, 0]);
    // Date b: 7 and 0 (ranks 2, 1); feature 1 tied 0 and 0 -> both rank 1.5 -> 0.
    expect(Array.from(r.subarray(8))).toEqual([0.25, 0, -0.25, 0]);
  });

  it('takes the baselines and snapshot outputs of each row and the bar features of its symbol', () => {
    const u = reversalUniverse({ seed: 2, symbols: 3, days: 400, firstSnapshot: 300, step: 50, vol: 0.01, kappa: 0 });
    const x = crossSectionalFeatures(u.rows, u.closes);
    const row: EvaluationRow = u.rows[1];
    const f = (name: (typeof CROSS_SECTIONAL_FEATURES)[number]): number => x[D + CROSS_SECTIONAL_FEATURES.indexOf(name)];
    expect(f('reversal_1m')).toBe(row.baselines.reversal_1m);
    expect(f('momentum_12_1')).toBe(row.baselines.momentum_12_1);
    expect(f('high_52w_proximity')).toBe(row.baselines.high_52w_proximity);
    expect(f('sata_score')).toBe(row.sataScore);
    expect(f('pattern_signal')).toBe(row.patternScore);
    expect(f('stage_rank')).toBe({ 2: 4, 1: 3, 3: 2, 4: 1 }[row.stage as number]);
    const series = u.closes.find((s) => s.symbol === row.symbol);
    expect(f('volatility_60')).toBe(volatilityAtIndex(series?.close ?? [], Number(row.date.slice(1))));
    // Closes only: no volume, so no volume trend; without bars, no bar feature at all.
    expect(f('volume_trend')).toBeNaN();
    expect(crossSectionalFeatures(u.rows)[D + CROSS_SECTIONAL_FEATURES.indexOf('volatility_60')]).toBeNaN();
  });
});

describe('cross-sectional model out of sample', () => {
  const spec = { symbols: 40, days: 780, firstSnapshot: 260, step: 5, vol: 0.015 };

  it('finds a planted 1-month reversal: AUC interval above 0.5, reversal rank weighted most', () => {
    const u = reversalUniverse({ ...spec, seed: 3, kappa: 0.3 });
    const result = crossSectionalScores(inputOf(u), { horizon: 20 });
    const auc = aucOf(u, result);
    console.log(`planted reversal: AUC ${fmt(auc)}; last weights ${JSON.stringify(result.last?.weights)}`);
    expect(auc.ci).not.toBeNull();
    expect(auc.ci?.low).toBeGreaterThan(0.5);
    const weights = result.last?.weights ?? {};
    const top = Object.entries(weights).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]))[0];
    expect(top[0]).toBe('reversal_1m');
    expect(top[1]).toBeGreaterThan(0);
    // 20 dates with known outcomes, then 4 weekly dates of embargo: the first score is on the 24th date.
    expect(result.firstTestTime).toBe(260 + 19 * 5 + 20);
    expect(result.scoredDates).toBe(104 - 23);
  });

  it('on random walks (the same universe without the pull) its interval covers 0.5 in nearly every seed', () => {
    let covering = 0;
    const lines: string[] = [];
    for (let seed = 1; seed <= 10; seed++) {
      const u = nullUniverse({ ...spec, seed });
      const auc = aucOf(u, crossSectionalScores(inputOf(u), { horizon: 20 }));
      lines.push(`${seed}: ${auc.auc?.toFixed(3)} [${auc.ci?.low.toFixed(3)}, ${auc.ci?.high.toFixed(3)}]`);
      if (auc.ci !== null && auc.ci.low <= 0.5 && auc.ci.high >= 0.5) covering++;
    }
    console.log(`null universes, cross-sectional AUC: ${lines.join('; ')}`);
    expect(covering).toBeGreaterThanOrEqual(8);
    const u = nullUniverse({ ...spec, seed: 1 });
    const one = aucOf(u, crossSectionalScores(inputOf(u), { horizon: 20 }));
    expect(one.ci?.low).toBeLessThanOrEqual(0.5);
    expect(one.ci?.high).toBeGreaterThanOrEqual(0.5);
  });
});

describe('cross-sectional embargo', () => {
  const u = reversalUniverse({ seed: 4, symbols: 15, days: 520, firstSnapshot: 260, step: 5, vol: 0.015, kappa: 0.3 });
  const input = inputOf(u);
  const times = Array.from(input.time);

  /** The input with the outcome of every row not yet known at `at` (time + 20 > at) flipped. */
  function flippedAfter(at: number): CrossSectionalInput {
    const outcome = Array.from(input.outcome, (v, i) => (times[i] + 20 > at ? -v : v));
    return { ...input, outcome };
  }

  const scoresAt = (result: CrossSectionalResult, at: number): number[] => times.flatMap((t, i) => (t === at ? [result.scores[i]] : []));

  it('trains the model of each date only on rows whose outcome window ended by then', () => {
    const result = crossSectionalScores(input, { horizon: 20 });
    expect(result.windows.length).toBeGreaterThan(100);
    for (const w of result.windows) expect(w.trainedThrough + 20).toBeLessThanOrEqual(w.time);
    const longer = crossSectionalScores(input, { horizon: 20, embargo: 30 });
    for (const w of longer.windows) expect(w.trainedThrough + 30).toBeLessThanOrEqual(w.time);
  });

  it('gives the same scores on a date whatever the outcomes that were unknown on it; a short embargo would not', () => {
    const base = crossSectionalScores(input, { horizon: 20 });
    const checked = [400, 445, 500];
    for (const at of checked) {
      const before = scoresAt(base, at);
      expect(before.every(Number.isFinite)).toBe(true);
      expect(scoresAt(crossSectionalScores(flippedAfter(at), { horizon: 20 }), at)).toEqual(before);
    }
    // The same check on a model told its outcomes are 5-day ones (embargo 5) while they cover 20 days:
    // rows whose outcome was still running are trained on, and flipping them moves the scores.
    const short = crossSectionalScores(input, { horizon: 5 });
    for (const at of checked) {
      expect(scoresAt(crossSectionalScores(flippedAfter(at), { horizon: 5 }), at)).not.toEqual(scoresAt(short, at));
    }
  });

  it('refuses an embargo shorter than the horizon and malformed options', () => {
    expect(() => crossSectionalScores(input, { horizon: 20, embargo: 19 })).toThrow(RangeError);
    expect(() => crossSectionalScores(input, { horizon: 0 })).toThrow(RangeError);
    expect(() => crossSectionalScores(input, { horizon: 20, minTrainDates: 1 })).toThrow(RangeError);
    expect(() => crossSectionalScores(input, { horizon: 20, l2: -1 })).toThrow(RangeError);
    expect(() => crossSectionalScores({ ...input, outcome: [1] }, { horizon: 20 })).toThrow(RangeError);
  });

  it('scores nothing before enough dates have known outcomes', () => {
    const few = crossSectionalScores(input, { horizon: 20, minTrainDates: 1000 });
    expect(few.scored).toBe(0);
    expect(few.firstTestTime).toBeNull();
    expect(Array.from(few.scores).every(Number.isNaN)).toBe(true);
  });
});
