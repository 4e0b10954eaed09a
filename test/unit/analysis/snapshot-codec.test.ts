/**
 * A document packed straight from its value with a number rule is the same bytes as its text written by
 * JSON.stringify with that rule as replacer and packed from the text: rounding, numbers JSON has no form
 * for, values JSON.stringify leaves out, toJSON and wrapped primitives, at any depth.
 */
import { decodeSnapshotDoc, encodeSnapshotDoc, jsonbText } from '../../../subgraphs/analysis/snapshot-codec.js';
import { serializeDocument, storedNumber } from '../../../subgraphs/analysis/engine/snapshot.js';
import type { AnalysisDocument } from '../../../subgraphs/analysis/engine/document.js';

const replacer = (_key: string, value: unknown): unknown => (typeof value === 'number' ? storedNumber(value) : value);

const values: unknown[] = [
  { price: 123.456789, small: 0.000123456789, tiny: 1.23456789e-9, big: 1.5e21, negative: -0.98765432, zero: -0, whole: 42, ratio: 2 / 3 },
  { nan: NaN, inf: Infinity, minusInf: -Infinity, list: [NaN, Infinity, undefined, () => 1, 1.000049, -1.00005] },
  { gone: undefined, fn: () => 1, kept: null, nested: { deeper: [{ a: 0.1 + 0.2, bb: 'x', ccc: true }], when: new Date(Date.UTC(2026, 0, 2)) } },
  { wrapped: Object(1.23456789) as unknown, text: Object('quote " and \\ and \n') as unknown, flag: Object(false) as unknown },
  { toJSON: () => ({ replaced: 3.14159265 }) },
  [1.23456789, 'é ü 中', { 'é': 1, e: 2, ee: 0.5 }],
  7.123456,
];

describe('encodeSnapshotDoc with a number rule', () => {
  it.each(values.map((v, k) => [k, v]))('value %i: the bytes of its text written with the rule as replacer', (_k, value) => {
    const text = JSON.stringify(value, replacer);
    expect(jsonbText(value, storedNumber)).toBe(jsonbText(JSON.parse(text)));
    expect(Buffer.from(encodeSnapshotDoc(value, storedNumber)).equals(Buffer.from(encodeSnapshotDoc(text)))).toBe(true);
  });

  it('packs a document as serializeDocument writes it', () => {
    const doc = { price: 101.234567, indicators: { rsi_14: 55.55555, macd: { macd: 0.00123456789 } }, symbol: 'AAA', analysis_date: '2026-10-30' } as unknown as AnalysisDocument;
    expect(decodeSnapshotDoc(encodeSnapshotDoc(doc, storedNumber))).toBe(jsonbText(JSON.parse(serializeDocument(doc))));
  });
});
