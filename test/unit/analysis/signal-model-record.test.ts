/**
 * A model's out-of-sample record computed in parts (subgraphs/analysis/engine/signal-model.ts): the
 * bootstrap replicates of one record split in ranges (as the pipeline spreads them over its worker
 * threads) and joined in order give the record of one pass, interval bounds bit for bit; so does a large
 * record's date-pair table built in parts (each sorting a range of the predictions, then filling the rows
 * of a range of dates), and that record is the one aucWithInterval gives on the predictions' date strings.
 * The records' history, taken from the fits before the folds are scored, is the walk-forward's pooled predictions.
 */
import { AnalysisBatch } from '../../../subgraphs/analysis/analyze-batch.js';
import { aucWithInterval } from '../../../subgraphs/analysis/engine/evidence/auc.js';
import { HORIZON_DAYS } from '../../../subgraphs/analysis/engine/features.js';
import { createPrng } from '../../../subgraphs/analysis/engine/prng.js';
import { symbolInputs } from '../../../subgraphs/analysis/pipeline.js';
import { INDEX_SYMBOL, priceUniverse, universeThrough } from './ml-universe.js';
import {
  fillRecordTable,
  fitSignalFold,
  planSignalModel,
  recordOfParts,
  recordPart,
  recordPartsWorth,
  recordTable,
  recordThrough,
  signalModelFolds,
  signalModelRecords,
  sortRecordTable,
  type PredictionHistory,
  type RecordTable,
} from '../../../subgraphs/analysis/engine/signal-model.js';

function history(seed: number, days: number, perDay: number): { history: PredictionHistory; calendar: string[] } {
  const rng = createPrng(seed);
  const calendar = Array.from({ length: days }, (_, t) => `D${String(t).padStart(4, '0')}`);
  const n = days * perDay;
  const time = new Int32Array(n);
  const probability = new Float64Array(n);
  const label = new Uint8Array(n);
  for (let k = 0; k < n; k++) {
    // Predictions on every other day, in time order, with some signal.
    time[k] = 2 * Math.floor(k / (2 * perDay));
    label[k] = rng.next() < 0.45 ? 1 : 0;
    probability[k] = Math.min(1, Math.max(0, 0.5 + 0.1 * label[k] + 0.2 * rng.normal()));
  }
  return { history: { time, probability, label }, calendar };
}

describe('recordPart and recordOfParts', () => {
  it('give the same record as recordThrough, interval bounds bit for bit, for any number of parts', () => {
    const { history: h, calendar } = history(5, 120, 6);
    for (const through of [40, 119]) {
      const whole = recordThrough(h, through, calendar);
      expect(whole.ci).not.toBeNull();
      for (const parts of [1, 2, 3]) {
        const joined = recordOfParts(Array.from({ length: parts }, (_, k) => recordPart(h, through, calendar, k, parts)));
        expect(joined).toEqual(whole);
        expect(Object.is(joined.ci?.low, whole.ci?.low) && Object.is(joined.ci?.high, whole.ci?.high)).toBe(true);
      }
    }
  });

  it('join to a record without an interval when there is none to make', () => {
    const { history: h, calendar } = history(6, 40, 3);
    const none = recordOfParts([recordPart(h, -1, calendar, 0, 2), recordPart(h, -1, calendar, 1, 2)]);
    expect(none).toEqual(recordThrough(h, -1, calendar));
    expect(none.samples).toBe(0);
    const few = recordOfParts([recordPart(h, 6, calendar, 0, 2), recordPart(h, 6, calendar, 1, 2)]);
    expect(few).toEqual(recordThrough(h, 6, calendar));
    expect(few.ci).toBeNull();
  });

  it('are worth splitting only when each replicate is a pass over every prediction (dates^2 >= predictions)', () => {
    const few = history(7, 120, 6).history; // 60 dates of 6 predictions
    expect(recordPartsWorth(few, 119, 2)).toBe(2);
    const many = history(8, 20, 40).history; // 10 dates of 80 predictions
    expect(recordPartsWorth(many, 19, 2)).toBe(1);
    expect(recordPartsWorth(few, -1, 2)).toBe(1);
  });
});

describe('a large record built from its date-pair table in parts', () => {
  /**
   * 60 dates of 80 predictions (dates^2 < predictions: the table), coarse probabilities (ties across the
   * parts' ranges), some NaN, a date with no positive and a date whose probabilities are all NaN.
   */
  function large(): { history: PredictionHistory; calendar: string[] } {
    const rng = createPrng(21);
    const calendar = Array.from({ length: 200 }, (_, t) => `2020-${String(1 + Math.floor(t / 28)).padStart(2, '0')}-${String(1 + (t % 28)).padStart(2, '0')}`);
    const n = 60 * 80;
    const time = new Int32Array(n);
    const probability = new Float64Array(n);
    const label = new Uint8Array(n);
    for (let k = 0; k < n; k++) {
      const d = Math.floor(k / 80);
      time[k] = 3 * d;
      label[k] = d === 7 ? 0 : rng.next() < 0.4 ? 1 : 0;
      probability[k] = d === 11 || k % 23 === 0 ? NaN : Math.round(20 * Math.min(1, Math.max(0, 0.5 + 0.1 * label[k] + 0.2 * rng.normal()))) / 20;
    }
    return { history: { time, probability, label }, calendar };
  }

  function built(h: PredictionHistory, through: number, calendar: string[], parts: number): RecordTable {
    const table = recordTable(h, through, calendar, parts);
    if (table === null) throw new Error('no table');
    for (let part = 0; part < parts; part++) sortRecordTable(h, table, part);
    for (let part = 0; part < parts; part++) fillRecordTable(h, calendar, table, part);
    return table;
  }

  const bits = (t: RecordTable) => [t.table.pairs, t.table.positives, t.table.negatives].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex'));

  it('has the same table bit for bit in 1, 2 and 3 parts, and gives the record of one pass and of aucWithInterval', () => {
    const { history: h, calendar } = large();
    for (const through of [120, 177]) {
      const whole = recordThrough(h, through, calendar);
      expect(whole.ci).not.toBeNull();
      const count = h.time.findIndex((t) => t > through);
      const end = count < 0 ? h.time.length : count;
      const generic = aucWithInterval(
        Array.from(h.time.subarray(0, end), (t) => calendar[t]),
        h.probability.subarray(0, end),
        h.label.subarray(0, end),
        recordPart(h, through, calendar).options,
      );
      expect(whole.auc).toBe(generic.auc);
      expect(whole.dates).toBe(generic.dates);
      expect(whole.ci && { low: whole.ci.low, high: whole.ci.high }).toEqual(generic.ci && { low: generic.ci.low, high: generic.ci.high });
      const one = built(h, through, calendar, 1);
      expect(one.table.negatives[7]).toBeGreaterThan(0);
      expect(one.table.positives[7]).toBe(0);
      for (const parts of [1, 2, 3]) {
        const table = built(h, through, calendar, parts);
        expect(bits(table)).toEqual(bits(one));
        const joined = recordOfParts(Array.from({ length: parts }, (_, k) => recordPart(h, through, calendar, k, parts, table)));
        expect(joined).toEqual(whole);
        expect(Object.is(joined.auc, whole.auc) && Object.is(joined.ci?.low, whole.ci?.low) && Object.is(joined.ci?.high, whole.ci?.high)).toBe(true);
      }
    }
  });

  it('is not made for a record without an interval or whose replicates pass over the rows, and refuses another record', () => {
    const { history: h, calendar } = large();
    expect(recordTable(h, 20, calendar, 2)).toBeNull(); // 7 dates
    const small = history(5, 120, 6);
    expect(recordTable(small.history, 119, small.calendar, 2)).toBeNull(); // dates^2 >= predictions
    const table = built(h, 177, calendar, 2);
    expect(() => recordPart(h, 120, calendar, 0, 2, table)).toThrow(RangeError);
    expect(() => fillRecordTable(h, calendar, { ...table, through: 120 }, 0)).toThrow(RangeError);
  });
});

describe('signalModelRecords', () => {
  it("takes the history of the walk-forward's pooled predictions from the fits, bit for bit, and the same record times", () => {
    const u = universeThrough(priceUniverse({ seed: 3, symbols: 12, days: 700, trend: 0.002 }), null);
    expect(u.index.symbol).toBe(INDEX_SYMBOL);
    const samples = new AnalysisBatch().load(symbolInputs(u)).samples;
    const plan = planSignalModel(samples, u.calendar);
    if (plan === null) throw new Error('no plan');
    const fits = new Map(plan.fitCounts.map((count) => [count, fitSignalFold(samples, plan, count)] as const));
    const served = [u.calendar.length - 1, u.calendar.length - 130];
    const records = signalModelRecords(samples, plan, fits, served);
    const scored = signalModelFolds(samples, plan, fits, served);
    const { sample, probability } = scored.walk.predictions;
    expect(records.history.probability.length).toBeGreaterThan(500);
    expect(Buffer.from(records.history.probability.buffer).equals(Buffer.from(Float64Array.from(probability).buffer))).toBe(true);
    expect(Array.from(records.history.time)).toEqual(sample.map((i) => samples.time[i]));
    expect(Array.from(records.history.label)).toEqual(sample.map((i) => samples.y[i]));
    expect(records.recordAt).toEqual(scored.walk.folds.map((f) => (f.trainSamples > 0 && served.some((t) => t >= f.testStart && t <= f.testEnd) ? f.testStart - HORIZON_DAYS : null)));
    expect(records.recordThroughs.length).toBe(2);
  });
});
