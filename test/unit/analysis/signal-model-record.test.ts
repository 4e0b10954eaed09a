/**
 * A model's out-of-sample record computed in parts (subgraphs/analysis/engine/signal-model.ts): the
 * bootstrap replicates of one record split in ranges (as the pipeline spreads them over its worker
 * threads) and joined in order give the record of one pass, interval bounds bit for bit.
 */
import { createPrng } from '../../../subgraphs/analysis/engine/prng.js';
import { recordOfParts, recordPart, recordPartsWorth, recordThrough, type PredictionHistory } from '../../../subgraphs/analysis/engine/signal-model.js';

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
