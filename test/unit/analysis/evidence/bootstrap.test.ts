/**
 * Block bootstrap over dates (subgraphs/analysis/engine/evidence/bootstrap.ts): the resampling schemes'
 * structure, determinism, the percentile interval, and coverage on pure noise (about 5% of 95% intervals
 * exclude 0) and power under a planted drift.
 */
import {
  blockBootstrapMeanInterval,
  bootstrapInterval,
  bootstrapReplicates,
  defaultBlockLength,
  forEachResample,
  percentileInterval,
  quantileSorted,
  replicatePart,
  resampleIndices,
  resolveBootstrapOptions,
  type BlockScheme,
} from '../../../../subgraphs/analysis/engine/evidence/bootstrap.js';
import { createPrng } from '../../../../subgraphs/analysis/engine/prng.js';

/** Maximal runs of consecutive indices (i, i+1 mod n) in a resample. */
function runLengths(indices: Int32Array, n: number): number[] {
  const runs: number[] = [];
  let length = 1;
  for (let t = 1; t < indices.length; t++) {
    if (indices[t] === (indices[t - 1] + 1) % n) length++;
    else {
      runs.push(length);
      length = 1;
    }
  }
  runs.push(length);
  return runs;
}

describe('resampleIndices', () => {
  it('moving blocks: consecutive runs of L that never wrap, the last one cut at n', () => {
    const rng = createPrng(1);
    const n = 23;
    const out = new Int32Array(n);
    for (let trial = 0; trial < 50; trial++) {
      resampleIndices(out, 5, 'moving', rng);
      for (let start = 0; start < n; start += 5) {
        expect(out[start]).toBeLessThanOrEqual(n - 5);
        for (let k = start + 1; k < Math.min(start + 5, n); k++) expect(out[k]).toBe(out[k - 1] + 1);
      }
    }
  });

  it('circular blocks: runs of L that may wrap from the last index to the first', () => {
    const rng = createPrng(2);
    const n = 10;
    const out = new Int32Array(n);
    let wrapped = false;
    for (let trial = 0; trial < 100; trial++) {
      resampleIndices(out, 4, 'circular', rng);
      for (let start = 0; start < n; start += 4) {
        for (let k = start + 1; k < Math.min(start + 4, n); k++) {
          expect(out[k]).toBe((out[k - 1] + 1) % n);
          if (out[k] === 0) wrapped = true;
        }
      }
    }
    expect(wrapped).toBe(true);
  });

  it('stationary: geometric block lengths with mean L and every index equally likely', () => {
    const rng = createPrng(3);
    const n = 400;
    const out = new Int32Array(n);
    const counts = new Float64Array(n);
    const runs: number[] = [];
    for (let trial = 0; trial < 200; trial++) {
      resampleIndices(out, 8, 'stationary', rng);
      for (const i of out) counts[i]++;
      // Drop the last run of each resample (cut at n).
      runs.push(...runLengths(out, n).slice(0, -1));
    }
    const meanRun = runs.reduce((a, b) => a + b, 0) / runs.length;
    // A restart that happens to land on index + 1 merges two runs, so the observed mean is slightly above 8.
    expect(meanRun).toBeGreaterThan(7.5);
    expect(meanRun).toBeLessThan(8.6);
    const expected = 200;
    expect(Math.min(...counts)).toBeGreaterThan(expected * 0.5);
    expect(Math.max(...counts)).toBeLessThan(expected * 1.6);
  });

  it('block length 1 is the ordinary bootstrap and every scheme stays in 0..n-1', () => {
    for (const scheme of ['moving', 'circular', 'stationary'] as BlockScheme[]) {
      const rng = createPrng(4);
      const out = new Int32Array(37);
      for (let trial = 0; trial < 20; trial++) {
        resampleIndices(out, scheme === 'stationary' ? 3.5 : 3, scheme, rng);
        for (const i of out) {
          expect(i).toBeGreaterThanOrEqual(0);
          expect(i).toBeLessThan(37);
        }
      }
    }
  });
});

describe('options', () => {
  it('defaults: stationary, 1000 replicates, 95%, L = round(n^(1/3)), raised to minBlockLength, at most n', () => {
    expect([1, 7, 8, 100, 250, 1000].map(defaultBlockLength)).toEqual([1, 2, 2, 5, 6, 10]);
    expect(resolveBootstrapOptions(250)).toEqual({ replicates: 1000, blockLength: 6, scheme: 'stationary', seed: 0, stream: 0, level: 0.95 });
    expect(resolveBootstrapOptions(250, { minBlockLength: 12 }).blockLength).toBe(12);
    expect(resolveBootstrapOptions(5, { blockLength: 9 }).blockLength).toBe(5);
  });

  it('refuses malformed options', () => {
    expect(() => resolveBootstrapOptions(10, { replicates: 0 })).toThrow(RangeError);
    expect(() => resolveBootstrapOptions(10, { level: 1 })).toThrow(RangeError);
    expect(() => resolveBootstrapOptions(10, { blockLength: 0.5 })).toThrow(RangeError);
    expect(() => resolveBootstrapOptions(10, { scheme: 'moving', blockLength: 2.5 })).toThrow(RangeError);
    expect(() => resolveBootstrapOptions(10, { scheme: 'bogus' as BlockScheme })).toThrow(RangeError);
    expect(() => resolveBootstrapOptions(-1)).toThrow(RangeError);
    expect(() => resolveBootstrapOptions(10, { seed: 1.5 })).toThrow(RangeError);
    expect(() => forEachResample(10, { stream: Number.MAX_VALUE }, () => undefined)).toThrow(RangeError);
  });
});

describe('quantiles and percentile intervals', () => {
  it('interpolates between order statistics (Hyndman & Fan type 7)', () => {
    const sorted = [1, 2, 3, 4];
    expect(quantileSorted(sorted, 0)).toBe(1);
    expect(quantileSorted(sorted, 0.25)).toBe(1.75);
    expect(quantileSorted(sorted, 0.5)).toBe(2.5);
    expect(quantileSorted(sorted, 1)).toBe(4);
    expect(() => quantileSorted([], 0.5)).toThrow(RangeError);
  });

  it('drops non-finite replicates, and has no interval when most are missing', () => {
    const values = Array.from({ length: 101 }, (_, i) => i);
    const [low, high] = percentileInterval(values) as [number, number];
    expect(low).toBeCloseTo(2.5, 12);
    expect(high).toBeCloseTo(97.5, 12);
    const [low90, high90] = percentileInterval([...values, NaN, NaN], 0.9) as [number, number];
    expect(low90).toBeCloseTo(5, 12);
    expect(high90).toBeCloseTo(95, 12);
    expect(percentileInterval([1, NaN, NaN])).toBeNull();
    expect(percentileInterval([])).toBeNull();
  });
});

describe('blockBootstrapMeanInterval', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const rng = createPrng(5);
    const series = Array.from({ length: 120 }, () => rng.normal());
    const a = blockBootstrapMeanInterval(series, { seed: 9 });
    expect(blockBootstrapMeanInterval(series, { seed: 9 })).toEqual(a);
    expect(blockBootstrapMeanInterval(series, { seed: 10 })).not.toEqual(a);
    expect(a).toMatchObject({ level: 0.95, replicates: 1000, blockLength: 5, scheme: 'stationary' });
    const mean = series.reduce((s, v) => s + v, 0) / series.length;
    expect(a?.low).toBeLessThan(mean);
    expect(a?.high).toBeGreaterThan(mean);
  });

  it('has no interval for fewer than 2 dates and refuses non-finite values', () => {
    expect(blockBootstrapMeanInterval([1])).toBeNull();
    expect(blockBootstrapMeanInterval([])).toBeNull();
    expect(() => blockBootstrapMeanInterval([1, NaN, 2])).toThrow(RangeError);
  });

  it('drops replicates whose statistic is undefined', () => {
    const interval = bootstrapInterval(50, (indices) => (indices[0] % 2 === 0 ? NaN : indices[0]), { replicates: 400, seed: 1 });
    expect(interval?.replicates).toBeLessThan(400);
    expect(interval?.replicates).toBeGreaterThan(150);
  });

  /** Share of seeds whose 95% interval of the mean excludes 0. */
  function exclusionRate(seeds: number, series: (seed: number) => Float64Array, scheme: BlockScheme): number {
    let excluded = 0;
    for (let seed = 0; seed < seeds; seed++) {
      const ci = blockBootstrapMeanInterval(series(seed), { seed, scheme, replicates: 1000 });
      if (ci === null) throw new Error('no interval');
      if (ci.low > 0 || ci.high < 0) excluded++;
    }
    return excluded / seeds;
  }

  const noise = (length: number, phi: number, drift: number) => (seed: number): Float64Array => {
    const rng = createPrng(seed, 31);
    const out = new Float64Array(length);
    let v = 0;
    for (let t = 0; t < length; t++) {
      v = phi * v + rng.normal();
      out[t] = drift + v;
    }
    return out;
  };

  it('excludes 0 in about 5% of 200 pure-noise series (binomial tolerance 1%-11%)', () => {
    const iid = exclusionRate(200, noise(250, 0, 0), 'stationary');
    const ar = exclusionRate(200, noise(250, 0.3, 0), 'stationary');
    const moving = exclusionRate(200, noise(250, 0, 0), 'moving');
    // The same series under the exact-variance z-test (sample sd, iid), to separate the seeds' luck from the bootstrap.
    let zExcluded = 0;
    for (let seed = 0; seed < 200; seed++) {
      const x = noise(250, 0, 0)(seed);
      const mean = x.reduce((a, b) => a + b, 0) / x.length;
      const sd = Math.sqrt(x.reduce((a, b) => a + (b - mean) ** 2, 0) / (x.length - 1));
      if (Math.abs(mean) > (1.96 * sd) / Math.sqrt(x.length)) zExcluded++;
    }
    process.stdout.write(
      `95% CI excludes 0 on noise: iid ${iid}, AR(1) 0.3 ${ar}, moving blocks iid ${moving} (z-test on the iid series: ${zExcluded / 200})\n`,
    );
    for (const rate of [iid, ar, moving]) {
      expect(rate).toBeGreaterThanOrEqual(0.01);
      expect(rate).toBeLessThanOrEqual(0.11);
    }
  });

  it('excludes 0 under a planted drift of 0.3 standard deviations per date', () => {
    const rate = exclusionRate(20, noise(250, 0, 0.3), 'stationary');
    process.stdout.write(`95% CI excludes 0 with drift 0.3: ${rate}\n`);
    expect(rate).toBe(1);
  });
});

describe('replicates in ranges', () => {
  it('evaluates each replicate on the same resample whichever range holds it, and the parts cover every replicate once', () => {
    const statistic = (indices: Int32Array) => indices.reduce((s, i, t) => s + i * (t + 1), 0);
    for (const scheme of ['moving', 'circular', 'stationary'] as const) {
      const options = { replicates: 37, seed: 4, scheme, blockLength: 3 };
      const whole = bootstrapReplicates(40, statistic, options);
      for (const parts of [1, 2, 3, 37]) {
        const joined = Array.from({ length: parts }, (_, k) => Array.from(bootstrapReplicates(40, statistic, options, replicatePart(37, k, parts)))).flat();
        expect(joined).toEqual(Array.from(whole));
      }
    }
    expect(bootstrapReplicates(40, statistic, { replicates: 5 }, { from: 2, to: 2 })).toHaveLength(0);
    expect(() => bootstrapReplicates(40, statistic, { replicates: 5 }, { from: 3, to: 6 })).toThrow(RangeError);
    expect(() => replicatePart(10, 2, 2)).toThrow(RangeError);
  });
});
