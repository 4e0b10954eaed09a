/**
 * A document packed straight from its value with a number rule is the same bytes as its text written by
 * JSON.stringify with that rule as replacer and packed from the text: rounding, numbers JSON has no form
 * for, values JSON.stringify leaves out, toJSON and wrapped primitives, at any depth.
 */
import { decodeSnapshotDoc, encodeSnapshotDoc, jsonbText } from '../../../subgraphs/analysis/snapshot-codec.js';
import { serializeDocument, storedNumber } from '../../../subgraphs/analysis/engine/snapshot.js';
import type { AnalysisDocument } from '../../../subgraphs/analysis/engine/document.js';
import fc from 'fast-check';
import { jsonbNumber, jsonbValue, referenceJsonbText } from '../../helpers/jsonb-values.js';

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

/**
 * jsonbText writes its text byte by byte into a buffer, with its own digits for numbers and its own test
 * for strings that need no escape: it must give, for every value, the text a plain writer gives (the text
 * the database prints is checked against it on PGlite and PostgreSQL in test/storage/snapshot-packing).
 */
describe('jsonb text, byte for byte', () => {
  const runs = { seed: 20261130, numRuns: 1500 };

  it('any value: the text of JSON.stringify with keys in jsonb order, ", " and ": ", numbers written out', () => {
    fc.assert(fc.property(jsonbValue, (value) => jsonbText(value) === referenceJsonbText(value)), runs);
  });

  it('any value with a number rule: the text of JSON.stringify with the rule as replacer', () => {
    fc.assert(fc.property(jsonbValue, (value) => jsonbText(value, storedNumber) === referenceJsonbText(value, replacer)), runs);
  });

  it('any number: its shortest digits, never in exponent form', () => {
    fc.assert(fc.property(jsonbNumber, (n) => jsonbText(n) === referenceJsonbText(n) && jsonbText([n, -n]) === referenceJsonbText([n, -n])), { ...runs, numRuns: 20000 });
    for (let k = 0; k <= 22; k++) {
      for (const m of [1, 7, 10, 99, 12345, 999999, 2147483647, 2147483648, 123456789012345, 999999999999999, 1000000000000000, 9007199254740991]) {
        expect(jsonbText(m / 10 ** k)).toBe(referenceJsonbText(m / 10 ** k));
        expect(jsonbText(-m * 10 ** k)).toBe(referenceJsonbText(-m * 10 ** k));
      }
    }
  });

  it('any document packed: the same text read back, and the same bytes as from its JSON text', () => {
    fc.assert(
      fc.property(jsonbValue, (value) => {
        const doc = { value };
        const packed = encodeSnapshotDoc(doc);
        return decodeSnapshotDoc(packed) === referenceJsonbText(doc) && Buffer.from(packed).equals(Buffer.from(encodeSnapshotDoc(JSON.stringify(doc))));
      }),
      { ...runs, numRuns: 300 },
    );
  });

  it('refuses \\u0000 and lone surrogates in values and keys at any depth, and the next text is whole', () => {
    for (const bad of ['\u0000', 'a\ud800', '\udc00b', 'x\udc00\ud800y', '\ud83d\ud83d']) {
      for (const value of [bad, { ok: 1, bad }, [1, [2, { [bad]: true }]], { a: { b: [{ c: `é${bad}` }] } }]) {
        expect(() => referenceJsonbText(value)).toThrow();
        expect(() => jsonbText(value)).toThrow();
        expect(() => encodeSnapshotDoc({ value })).toThrow();
        expect(jsonbText({ b: 'é', a: [1.5, 'x'] })).toBe('{"a": [1.5, "x"], "b": "é"}');
      }
    }
  });

  it('a toJSON() may write jsonb text itself, or give what JSON.stringify leaves out, in the middle of a document', () => {
    const inner = { z: 'é', y: [0.000001, -0] };
    const value = {
      b: { toJSON: () => jsonbText(inner) },
      a: { toJSON: () => undefined },
      c: [{ toJSON: () => undefined }, { toJSON: (key: string) => `at ${key}` }],
      d: { toJSON: () => decodeSnapshotDoc(encodeSnapshotDoc(inner)) },
      toJSON2: 1,
    };
    expect(jsonbText(value)).toBe(referenceJsonbText(value));
    expect(jsonbText({ toJSON: () => ({ gone: undefined, kept: 1 }) })).toBe('{"kept": 1}');
  });

  it('honours a toJSON() every object or array inherits, as JSON.stringify does', () => {
    const value = { a: [1, { b: 2 }], c: 'x', d: { e: [[]] } };
    /** An object's copy with the key it was found at, an array's length and key. */
    function toJSON(this: unknown, key: string): unknown {
      return Array.isArray(this) ? { array: key, length: this.length } : { ...(this as object), seen: key };
    }
    for (const [proto, text] of [
      [Object.prototype, '{"a": {"array": "a", "length": 2}, "c": "x", "d": {"e": {"array": "e", "length": 1}, "seen": "d"}, "seen": ""}'],
      [Array.prototype, '{"a": {"array": "a", "length": 2}, "c": "x", "d": {"e": {"array": "e", "length": 1}}}'],
    ] as const) {
      Object.defineProperty(proto, 'toJSON', { value: toJSON, configurable: true, writable: true });
      try {
        expect(referenceJsonbText(value)).toBe(text);
        expect(jsonbText(value)).toBe(text);
      } finally {
        delete (proto as { toJSON?: unknown }).toJSON;
      }
    }
    expect(jsonbText(value)).toBe('{"a": [1, {"b": 2}], "c": "x", "d": {"e": [[]]}}');
  });

  it('writes texts of any length, one after another', () => {
    const long = (n: number) => Array.from({ length: n }, (_, i) => ({ i, price: i / 7, name: `s${i}é`, tag: 'x'.repeat(i % 50) }));
    for (const n of [10, 2000, 40000, 10]) {
      const value = long(n);
      const text = jsonbText(value, storedNumber);
      expect(text).toBe(referenceJsonbText(value, replacer));
      expect(decodeSnapshotDoc(encodeSnapshotDoc({ value }, storedNumber))).toBe(`{"value": ${text}}`);
    }
  });
});
