/**
 * Group summaries (subgraphs/analysis/engine/evidence/summary.ts): hand-computed statistics, nulls with
 * too little history, coverage of the date-bootstrap intervals on noise with a shared shock per date, power
 * under a planted drift, excess returns over the date mean, and the joint interval of a difference.
 */
import { excessOverDateMean, groupSummary, meanDifference } from '../../../../subgraphs/analysis/engine/evidence/summary.js';
import { createPrng } from '../../../../subgraphs/analysis/engine/prng.js';

function dateOf(d: number): string {
  return `D${String(d).padStart(4, '0')}`;
}

/** `dates` dates of `perDate` rows: drift + a shock shared by the date (sd `common`) + an own shock (sd 1). */
function panel(seed: number, stream: number, dates: number, perDate: number, drift: number, common: number) {
  const rng = createPrng(seed, stream);
  const d: string[] = [];
  const values: number[] = [];
  for (let t = 0; t < dates; t++) {
    const shock = common * rng.normal();
    for (let k = 0; k < perDate; k++) {
      d.push(dateOf(t));
      values.push(drift + shock + rng.normal());
    }
  }
  return { d, values };
}

describe('groupSummary', () => {
  it('counts rows and dates and computes mean, median and hit rate (a 0 is not a hit); no interval under 10 dates', () => {
    const summary = groupSummary(['2024-01-02', '2024-01-01', '2024-01-01', '2024-01-03', '2024-01-04'], [0.02, -0.01, 0.03, 0, NaN]);
    expect(summary).toMatchObject({ n: 4, dates: 3, hitRate: 0.5, ci: null, hitRateCi: null });
    expect(summary.mean).toBeCloseTo(0.01, 14);
    expect(summary.median).toBeCloseTo(0.01, 14);
    expect(summary.interval).toEqual({ level: 0.95, replicates: 0, blockLength: null, scheme: 'stationary' });
    expect(groupSummary(['a', 'b', 'c'], [3, 1, 2]).median).toBe(2);
  });

  it('counts no hit for flat outcomes in the interval either', () => {
    const dates = Array.from({ length: 12 }, (_, t) => dateOf(t));
    const summary = groupSummary(dates, dates.map(() => 0));
    expect(summary).toMatchObject({ n: 12, dates: 12, mean: 0, hitRate: 0, ci: [0, 0], hitRateCi: [0, 0] });
  });

  it('is all nulls without rows and refuses malformed input', () => {
    expect(groupSummary([], [])).toMatchObject({ n: 0, dates: 0, mean: null, median: null, hitRate: null, ci: null, hitRateCi: null });
    expect(groupSummary(['a'], [NaN])).toMatchObject({ n: 0, dates: 0, mean: null });
    expect(() => groupSummary(['a'], [1, 2])).toThrow(RangeError);
    expect(() => groupSummary(['a'], [1], { minDates: 1 })).toThrow(RangeError);
    expect(() => groupSummary(['a', 'b'], [1, 2], { minDates: 2, replicates: 0 })).toThrow(RangeError);
  });

  it('gives deterministic intervals around the mean and the hit rate once there are enough dates', () => {
    const { d, values } = panel(1, 51, 40, 5, 0.2, 0.5);
    const summary = groupSummary(d, values, { seed: 7 });
    expect(summary.n).toBe(200);
    expect(summary.dates).toBe(40);
    const [low, high] = summary.ci as [number, number];
    expect(low).toBeLessThan(summary.mean as number);
    expect(high).toBeGreaterThan(summary.mean as number);
    const [hitLow, hitHigh] = summary.hitRateCi as [number, number];
    expect(hitLow).toBeLessThan(summary.hitRate as number);
    expect(hitHigh).toBeGreaterThan(summary.hitRate as number);
    expect(summary.interval).toEqual({ level: 0.95, replicates: 1000, blockLength: 3, scheme: 'stationary' });
    expect(groupSummary(d, values, { seed: 7 })).toEqual(summary);
    expect(groupSummary(d, values, { seed: 7, minBlockLength: 12 }).interval.blockLength).toBe(12);
  });

  it('skips the median when asked, every other figure unchanged', () => {
    const { d, values } = panel(2, 51, 40, 5, 0.2, 0.5);
    const whole = groupSummary(d, values, { seed: 7 });
    expect(whole.median).not.toBeNull();
    expect(groupSummary(d, values, { seed: 7, median: false })).toEqual({ ...whole, median: null });
  });

  /** Shares of seeds whose mean interval excludes 0 and whose hit-rate interval excludes 0.5. */
  function exclusion(seeds: number, drift: number, byRow = false): { mean: number; hit: number } {
    let mean = 0;
    let hit = 0;
    for (let seed = 0; seed < seeds; seed++) {
      const { d, values } = panel(seed, 52, 100, 20, drift, 1);
      const keys = byRow ? d.map((_, i) => dateOf(i)) : d;
      const summary = groupSummary(keys, values, { seed, replicates: 500, ...(byRow ? { blockLength: 1 } : {}) });
      const [low, high] = summary.ci as [number, number];
      const [hitLow, hitHigh] = summary.hitRateCi as [number, number];
      if (low > 0 || high < 0) mean++;
      if (hitLow > 0.5 || hitHigh < 0.5) hit++;
    }
    return { mean: mean / seeds, hit: hit / seeds };
  }

  it('on noise with a shared shock per date, about 5% of 200 intervals exclude the truth (1%-11%)', () => {
    const rates = exclusion(200, 0);
    process.stdout.write(`summary CI excludes the truth on noise: mean ${rates.mean}, hit rate ${rates.hit}\n`);
    for (const rate of [rates.mean, rates.hit]) {
      expect(rate).toBeGreaterThanOrEqual(0.01);
      expect(rate).toBeLessThanOrEqual(0.11);
    }
  });

  it('resampling single rows instead of dates would exclude 0 far more often than 5% on the same noise', () => {
    const rates = exclusion(50, 0, true);
    process.stdout.write(`summary CI excludes 0 on noise when rows are resampled: ${rates.mean}\n`);
    expect(rates.mean).toBeGreaterThan(0.3);
  });

  it('excludes 0 under a planted drift of half a shock', () => {
    const rates = exclusion(20, 0.5);
    process.stdout.write(`summary CI excludes 0 with drift 0.5: ${rates.mean}\n`);
    expect(rates.mean).toBe(1);
  });
});

describe('excessOverDateMean', () => {
  it('subtracts the equal-weight mean of each date, leaving non-finite values as NaN', () => {
    const excess = excessOverDateMean(['a', 'b', 'a', 'a', 'b', 'b'], [0.01, 0.05, 0.03, 0.05, NaN, 0.01]);
    const expected = [-0.02, 0.02, 0, 0.02, NaN, -0.02];
    expected.forEach((v, i) => (Number.isNaN(v) ? expect(excess[i]).toBeNaN() : expect(excess[i]).toBeCloseTo(v, 14)));
    expect(() => excessOverDateMean(['a'], [])).toThrow(RangeError);
  });
});

describe('meanDifference', () => {
  it('computes mean(A) - mean(B) and counts shared dates; no interval under minDates', () => {
    const result = meanDifference({ dates: ['a', 'b', 'c'], values: [1, 2, 3] }, { dates: ['b', 'c', 'd', 'd'], values: [0, 1, 1, NaN] });
    expect(result).toMatchObject({ nA: 3, nB: 3, sharedDates: 2, ci: null });
    expect(result.difference).toBeCloseTo(2 - 2 / 3, 14);
    expect(meanDifference({ dates: [], values: [] }, { dates: ['a'], values: [1] })).toMatchObject({ difference: null, ci: null });
  });

  it('resamples the dates of both groups jointly, so a shock shared by both cancels in the difference', () => {
    let separated = 0;
    let overlapping = 0;
    const seeds = 20;
    for (let seed = 0; seed < seeds; seed++) {
      // Both groups move with the same strong shock per date; A is 0.3 above B.
      const rng = createPrng(seed, 53);
      const a = { dates: [] as string[], values: [] as number[] };
      const b = { dates: [] as string[], values: [] as number[] };
      for (let t = 0; t < 50; t++) {
        const shock = 2 * rng.normal();
        for (let k = 0; k < 10; k++) {
          a.dates.push(dateOf(t));
          a.values.push(0.3 + shock + rng.normal());
          b.dates.push(dateOf(t));
          b.values.push(shock + rng.normal());
        }
      }
      const [low] = meanDifference(a, b, { seed }).ci as [number, number];
      if (low > 0) separated++;
      const ciA = groupSummary(a.dates, a.values, { seed }).ci as [number, number];
      const ciB = groupSummary(b.dates, b.values, { seed }).ci as [number, number];
      if (ciA[0] < ciB[1]) overlapping++;
    }
    process.stdout.write(`difference CI excludes 0 in ${separated}/${seeds}; the groups' own CIs overlap in ${overlapping}/${seeds}\n`);
    expect(separated).toBe(seeds);
    expect(overlapping).toBe(seeds);
  });
});
