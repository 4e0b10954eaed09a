/**
 * AUC and its interval by block bootstrap over dates (subgraphs/analysis/engine/evidence/auc.ts): the
 * point estimate against brute-force pair counting, the weighted form against repeated rows, and the
 * interval's coverage on random scores (with and without date effects) and its power on a planted signal.
 */
import { aucInterval, aucReplicates, aucWithInterval, rocAuc, weightedAuc } from '../../../../subgraphs/analysis/engine/evidence/auc.js';
import { replicatePart } from '../../../../subgraphs/analysis/engine/evidence/bootstrap.js';
import { createPrng } from '../../../../subgraphs/analysis/engine/prng.js';
import { aucByPairs } from '../../../reference/statistics.js';

function dateOf(d: number): string {
  return `D${String(d).padStart(4, '0')}`;
}

describe('AUC point estimate', () => {
  it('equals the share of correctly ordered pairs (ties 1/2) by brute force on random data with ties', () => {
    const rng = createPrng(41);
    for (let trial = 0; trial < 40; trial++) {
      const n = 2 + rng.int(150);
      const scores = Array.from({ length: n }, () => rng.int(1 + rng.int(20)) / 4);
      const labels = scores.map(() => (rng.next() < 0.3 ? 1 : 0));
      if (!labels.includes(1) || !labels.includes(0)) continue;
      const expected = aucByPairs(scores, labels);
      expect(rocAuc(scores, labels)).toBeCloseTo(expected, 12);
      expect(weightedAuc(scores, labels, scores.map(() => 1))).toBeCloseTo(expected, 12);
      expect(aucWithInterval(scores.map(() => '2024-01-01'), scores, labels).auc).toBeCloseTo(expected, 12);
    }
  });

  it('weighted: integer weights equal repeating the rows', () => {
    const rng = createPrng(42);
    for (let trial = 0; trial < 20; trial++) {
      const n = 2 + rng.int(60);
      const scores = Array.from({ length: n }, () => Math.round(rng.normal() * 3) / 3);
      const labels = scores.map(() => (rng.next() < 0.5 ? 1 : 0));
      const weights = scores.map(() => rng.int(4));
      const repeatedScores: number[] = [];
      const repeatedLabels: number[] = [];
      scores.forEach((s, i) => {
        for (let k = 0; k < weights[i]; k++) {
          repeatedScores.push(s);
          repeatedLabels.push(labels[i]);
        }
      });
      const expected = repeatedLabels.includes(1) && repeatedLabels.includes(0) ? aucByPairs(repeatedScores, repeatedLabels) : NaN;
      const actual = weightedAuc(scores, labels, weights);
      if (Number.isNaN(expected)) expect(actual).toBeNaN();
      else expect(actual).toBeCloseTo(expected, 12);
    }
  });

  it('ignores NaN scores, sorts infinite ones, and refuses bad weights', () => {
    expect(weightedAuc([0.1, NaN, 0.35, 0.8, 0.4], [0, 1, 1, 1, 0], [1, 1, 1, 1, 1])).toBe(0.75);
    expect(weightedAuc([-Infinity, Infinity, 0], [0, 1, 1], [1, 1, 1])).toBe(1);
    expect(weightedAuc([1, 2], [1, 1], [1, 1])).toBeNaN();
    expect(() => weightedAuc([1, 2], [0, 1], [1, -1])).toThrow(RangeError);
    expect(() => weightedAuc([1, 2], [0, 1], [1])).toThrow(RangeError);
  });
});

describe('aucWithInterval', () => {
  /** `dates` dates of `perDate` rows: score = signal * label + noise (+ a shared date effect in each). */
  function panel(seed: number, dates: number, perDate: number, signal: number, dateEffect: number) {
    const rng = createPrng(seed, 43);
    const d: string[] = [];
    const scores: number[] = [];
    const labels: number[] = [];
    for (let t = 0; t < dates; t++) {
      const scoreShift = dateEffect * rng.normal();
      const labelShift = dateEffect * rng.normal();
      for (let k = 0; k < perDate; k++) {
        const label = rng.normal() + labelShift > 0 ? 1 : 0;
        d.push(dateOf(t));
        labels.push(label);
        scores.push(signal * label + rng.normal() + scoreShift);
      }
    }
    return { d, scores, labels };
  }

  it('reports counts, the pooled AUC and a deterministic interval around it', () => {
    const { d, scores, labels } = panel(1, 30, 20, 0.5, 0);
    const estimate = aucWithInterval(d, scores, labels, { seed: 3 });
    expect(estimate.n).toBe(600);
    expect(estimate.dates).toBe(30);
    expect(estimate.positives + estimate.negatives).toBe(600);
    expect(estimate.auc).toBe(rocAuc(scores, labels));
    expect(estimate.ci?.low).toBeLessThan(estimate.auc as number);
    expect(estimate.ci?.high).toBeGreaterThan(estimate.auc as number);
    expect(estimate.ci).toMatchObject({ level: 0.95, replicates: 1000, blockLength: 3, scheme: 'stationary' });
    expect(aucWithInterval(d, scores, labels, { seed: 3 })).toEqual(estimate);
  });

  it('has no interval with fewer than minDates dates or one class, and refuses bad input', () => {
    const { d, scores, labels } = panel(2, 9, 10, 0.5, 0);
    expect(aucWithInterval(d, scores, labels).ci).toBeNull();
    expect(aucWithInterval(d, scores, labels, { minDates: 5 }).ci).not.toBeNull();
    const oneClass = aucWithInterval(d, scores, labels.map(() => 1), { minDates: 2 });
    expect(oneClass.auc).toBeNull();
    expect(oneClass.ci).toBeNull();
    expect(() => aucWithInterval(d, scores, labels, { minDates: 1 })).toThrow(RangeError);
    expect(() => aucWithInterval(d.slice(1), scores, labels)).toThrow(RangeError);
  });

  /** Share of seeds whose interval contains 0.5; `byRow` resamples single rows instead of dates. */
  function coverage(seeds: number, dates: number, perDate: number, signal: number, dateEffect: number, byRow = false): number {
    let contains = 0;
    for (let seed = 0; seed < seeds; seed++) {
      const { d, scores, labels } = panel(seed, dates, perDate, signal, dateEffect);
      const keys = byRow ? d.map((_, i) => dateOf(i)) : d;
      const ci = aucWithInterval(keys, scores, labels, { seed, replicates: 500, ...(byRow ? { blockLength: 1 } : {}) }).ci;
      if (ci === null) throw new Error('no interval');
      if (ci.low <= 0.5 && ci.high >= 0.5) contains++;
    }
    return contains / seeds;
  }

  it('contains 0.5 for about 95% of 200 seeds of random scores (binomial tolerance 89%-99%)', () => {
    const plain = coverage(200, 60, 10, 0, 0);
    // Date effects: every score and every outcome of a date share a shock, so rows of a date are not independent.
    const clustered = coverage(200, 60, 10, 0, 1);
    process.stdout.write(`AUC 95% CI contains 0.5 on random scores: ${plain} (with date effects: ${clustered})\n`);
    for (const rate of [plain, clustered]) {
      expect(rate).toBeGreaterThanOrEqual(0.89);
      expect(rate).toBeLessThanOrEqual(0.99);
    }
  });

  it('under date effects, resampling single rows instead of dates covers far less than 95%', () => {
    const byRow = coverage(100, 60, 20, 0, 1, true);
    process.stdout.write(`AUC 95% CI contains 0.5 with date effects when rows are resampled: ${byRow}\n`);
    expect(byRow).toBeLessThan(0.85);
  });

  it('excludes 0.5 when the scores carry a planted signal', () => {
    const rate = coverage(20, 60, 10, 0.4, 0);
    process.stdout.write(`AUC 95% CI contains 0.5 with a planted signal: ${rate}\n`);
    expect(rate).toBe(0);
  });
});

describe('aucWithInterval replicates from the date-pair table', () => {
  it('gives the same interval bit for bit as the pass over the rows, with ties across and within dates and NaN scores', () => {
    const rng = createPrng(77);
    for (let trial = 0; trial < 12; trial++) {
      const days = 10 + rng.int(15);
      const n = days * (5 + rng.int(60));
      const dates = Array.from({ length: n }, () => dateOf(rng.int(days)));
      // Coarse scores (many ties, long tied runs) in half the trials, fine ones in the others.
      const scores = Array.from({ length: n }, (_, i) => (i % 29 === 0 ? NaN : trial % 2 === 0 ? rng.int(6) / 5 : rng.normal()));
      const labels = scores.map((s) => (rng.next() < 0.3 + (Number.isNaN(s) ? 0 : 0.05 * s) ? 1 : 0));
      const options = { replicates: 200, seed: 9 + trial };
      const rows = aucWithInterval(dates, scores, labels, { ...options, datePairs: false });
      const pairs = aucWithInterval(dates, scores, labels, { ...options, datePairs: true });
      expect(rows.ci).not.toBeNull();
      expect(pairs).toEqual(rows);
      expect(Object.is(pairs.ci?.low, rows.ci?.low) && Object.is(pairs.ci?.high, rows.ci?.high)).toBe(true);
    }
  });
});


describe('aucWithInterval replicates evaluated in ranges', () => {
  it('gives the same interval bit for bit when the replicates are computed in consecutive ranges and joined in order', () => {
    const rng = createPrng(78);
    for (let trial = 0; trial < 6; trial++) {
      const days = 10 + rng.int(30);
      const n = days * (3 + rng.int(40));
      const dates = Array.from({ length: n }, () => dateOf(rng.int(days)));
      const scores = Array.from({ length: n }, (_, i) => (i % 31 === 0 ? NaN : trial % 2 === 0 ? rng.int(6) / 5 : rng.normal()));
      const labels = scores.map((s) => (rng.next() < 0.3 + (Number.isNaN(s) ? 0 : 0.05 * s) ? 1 : 0));
      const options = { replicates: 201, seed: 5 + trial, minBlockLength: 1 + rng.int(4), datePairs: trial % 3 === 0 };
      const whole = aucWithInterval(dates, scores, labels, options);
      expect(whole.ci).not.toBeNull();
      const parts = 1 + (trial % 4);
      const ranges = Array.from({ length: parts }, (_, k) => aucReplicates(dates, scores, labels, options, replicatePart(201, k, parts)));
      const values = ranges.flatMap((r) => Array.from(r.values ?? []));
      expect(values).toHaveLength(201);
      const joined = aucInterval(ranges[0].estimate, values, options);
      expect(joined).toEqual(whole);
      expect(Object.is(joined.ci?.low, whole.ci?.low) && Object.is(joined.ci?.high, whole.ci?.high)).toBe(true);
    }
  });

  it('has no replicates when there is no interval to make', () => {
    const dates = ['D1', 'D2', 'D3'];
    expect(aucReplicates(dates, [0.1, 0.5, 0.9], [0, 1, 1]).values).toBeNull();
    expect(() => aucInterval(aucReplicates(dates, [0.1, 0.5, 0.9], [0, 1, 1], { minDates: 2 }).estimate, [0.5], { minDates: 2 })).toThrow(RangeError);
  });
});
