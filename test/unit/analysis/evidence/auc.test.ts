/**
 * AUC and its interval by block bootstrap over dates (subgraphs/analysis/engine/evidence/auc.ts): the
 * point estimate against brute-force pair counting, the weighted form against repeated rows, and the
 * interval's coverage on random scores (with and without date effects) and its power on a planted signal.
 */
import {
  aucInterval,
  aucReplicates,
  aucWithInterval,
  datePairPointAuc,
  datePairRange,
  fillDatePairRows,
  newDatePairTable,
  rocAuc,
  sortRowsByScore,
  weightedAuc,
  type DatePairTable,
} from '../../../../subgraphs/analysis/engine/evidence/auc.js';
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

/**
 * n predictions over `days` dates: a NaN score every `nanEvery`th, coarse scores (many ties, long tied runs)
 * or fine ones, and labels leaning on the score. Draws from rng in that order.
 */
function randomRecord(rng: ReturnType<typeof createPrng>, days: number, n: number, nanEvery: number, coarse: boolean) {
  const dates = Array.from({ length: n }, () => dateOf(rng.int(days)));
  const scores = Array.from({ length: n }, (_, i) => (i % nanEvery === 0 ? NaN : coarse ? rng.int(6) / 5 : rng.normal()));
  const labels = scores.map((s) => (rng.next() < 0.3 + (Number.isNaN(s) ? 0 : 0.05 * s) ? 1 : 0));
  return { dates, scores, labels };
}

describe('aucWithInterval replicates from the date-pair table', () => {
  it('gives the same interval bit for bit as the pass over the rows, with ties across and within dates and NaN scores', () => {
    const rng = createPrng(77);
    for (let trial = 0; trial < 12; trial++) {
      const days = 10 + rng.int(15);
      const { dates, scores, labels } = randomRecord(rng, days, days * (5 + rng.int(60)), 29, trial % 2 === 0);
      const options = { replicates: 200, seed: 9 + trial };
      const rows = aucWithInterval(dates, scores, labels, { ...options, datePairs: false });
      const pairs = aucWithInterval(dates, scores, labels, { ...options, datePairs: true });
      expect(rows.ci).not.toBeNull();
      expect(pairs).toEqual(rows);
      expect(Object.is(pairs.ci?.low, rows.ci?.low) && Object.is(pairs.ci?.high, rows.ci?.high)).toBe(true);
    }
  });
});

describe('sortRowsByScore', () => {
  it('gives the order of a stable comparison sort, element for element, on long lists (radix) and short ones', () => {
    const rng = createPrng(81);
    const special = [0, -0, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE, 1, -1];
    for (const n of [100, 40_000, 70_000]) {
      for (const kind of ['fine', 'coarse', 'probability']) {
        const scores = Float64Array.from({ length: n }, (_, i) =>
          i % 97 === 0 ? special[rng.int(special.length)] : kind === 'fine' ? rng.normal() * 1e3 : kind === 'coarse' ? rng.int(7) - 3 : 1 / (1 + Math.exp(-rng.normal())),
        );
        // Rows in a shuffled order (equal scores keep it), not every row.
        const rows = Int32Array.from({ length: n }, (_, i) => i).filter(() => rng.next() < 0.9);
        for (let i = rows.length - 1; i > 0; i--) {
          const j = rng.int(i + 1);
          [rows[i], rows[j]] = [rows[j], rows[i]];
        }
        const position = new Map(Array.from(rows, (row, k) => [row, k] as const));
        const expected = Array.from(rows).sort((a, b) => (scores[a] < scores[b] ? -1 : scores[a] > scores[b] ? 1 : (position.get(a) as number) - (position.get(b) as number)));
        expect(Array.from(sortRowsByScore(scores, rows))).toEqual(expected);
      }
    }
  });
});

describe('date-pair table filled in ranges of dates from rows sorted in ranges', () => {
  /** Rows on `days` dates with coarse scores (runs of ties across every range), -0 beside +0, no NaN. */
  function rows(seed: number, days: number, n: number) {
    const rng = createPrng(seed);
    const dateOf = Int32Array.from({ length: n }, () => rng.int(days));
    const scores = Float64Array.from({ length: n }, (_, i) => (i % 17 === 0 ? -0 : rng.int(9) / 8));
    // Date 1 has no positives, date 2 no negatives; the others both.
    const labels = Uint8Array.from(dateOf, (d) => (d === 1 ? 0 : d === 2 ? 1 : rng.next() < 0.4 ? 1 : 0));
    return { dateOf, scores, labels };
  }

  /** The table from the rows sorted in `sortParts` consecutive ranges and filled in the date ranges `bounds`. */
  function table(input: ReturnType<typeof rows>, days: number, sortParts: number, bounds: readonly number[]): DatePairTable {
    const n = input.scores.length;
    const sorted = Array.from({ length: sortParts }, (_, k) =>
      sortRowsByScore(input.scores, Int32Array.from({ length: Math.floor((n * (k + 1)) / sortParts) - Math.floor((n * k) / sortParts) }, (_, i) => Math.floor((n * k) / sortParts) + i)),
    );
    const t = newDatePairTable(days);
    // Stale values where the ranges will write: each range clears its own rows.
    t.pairs.fill(7);
    for (let k = 0; k + 1 < bounds.length; k++) fillDatePairRows(t, sorted, input.scores, input.labels, input.dateOf, bounds[k], bounds[k + 1]);
    return t;
  }

  const bits = (t: DatePairTable) => [t.pairs, t.positives, t.negatives].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex'));

  it('is the pair count by brute force, and the same bit for bit in 1, 2 and 3 ranges (sorted and filled), even and uneven', () => {
    const rng = createPrng(79);
    for (let trial = 0; trial < 8; trial++) {
      const days = 4 + rng.int(12);
      const input = rows(80 + trial, days, 40 + rng.int(400));
      const one = table(input, days, 1, [0, days]);
      // Brute force: every (positive, negative) pair, ties one half.
      const expected = new Float64Array(days * days);
      for (let i = 0; i < input.scores.length; i++) {
        if (input.labels[i] === 0) continue;
        for (let j = 0; j < input.scores.length; j++) {
          if (input.labels[j] !== 0) continue;
          const w = input.scores[i] > input.scores[j] ? 1 : input.scores[i] === input.scores[j] ? 0.5 : 0;
          expected[input.dateOf[i] * days + input.dateOf[j]] += w;
        }
      }
      expect(Array.from(one.pairs)).toEqual(Array.from(expected));
      expect(one.positives[1]).toBe(0);
      expect(one.negatives[2]).toBe(0);
      for (const parts of [2, 3]) {
        const balanced = Array.from({ length: parts + 1 }, (_, k) => (k === parts ? days : datePairRange(one.positives, k, parts).from));
        // Balanced ranges, and for 3 ranges uneven ones too (one of them empty).
        for (const bounds of parts === 2 ? [balanced] : [balanced, [0, 1, 2, days], [0, 0, days - 1, days]]) {
          for (const sortParts of [1, 2, 3]) expect(bits(table(input, days, sortParts, bounds))).toEqual(bits(one));
        }
      }
      // The pooled AUC of the table is rocAuc's, bit for bit.
      expect(Object.is(datePairPointAuc(one), rocAuc(input.scores, input.labels))).toBe(true);
    }
  });

  it('splits the dates in consecutive ranges of about as many positives', () => {
    const positives = [5, 0, 5, 5, 0, 5];
    expect([0, 1].map((k) => datePairRange(positives, k, 2))).toEqual([
      { from: 0, to: 3 },
      { from: 3, to: 6 },
    ]);
    expect([0, 1, 2].map((k) => datePairRange([1, 1], k, 3))).toEqual([
      { from: 0, to: 1 },
      { from: 1, to: 2 },
      { from: 2, to: 2 },
    ]);
    expect(() => datePairRange(positives, 2, 2)).toThrow(RangeError);
  });
});

describe('aucWithInterval replicates evaluated in ranges', () => {
  it('gives the same interval bit for bit when the replicates are computed in consecutive ranges and joined in order', () => {
    const rng = createPrng(78);
    for (let trial = 0; trial < 6; trial++) {
      const days = 10 + rng.int(30);
      const { dates, scores, labels } = randomRecord(rng, days, days * (3 + rng.int(40)), 31, trial % 2 === 0);
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
