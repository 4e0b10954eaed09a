/**
 * What the evidence step reads from a store (subgraphs/analysis/evidence-load.ts), on PGlite (and
 * PostgreSQL when TEST_DATABASE_URL is set):
 * - loadEquities' bars, read as the binary form of their doubles, are the very series of
 *   store.listAllBarSeries (every double bit for bit, awkward ones included), for the equities only;
 * - storedDocsOn gives the documents as stored (packed, read as base64 text, or JSON text for a row stored
 *   before packing), in (date, symbol) order: decoded, each is store.snapshotDocsOn's text, also after cutting into batches.
 */
import { PIPELINE_VERSION, type AnalysisDocument } from '../../subgraphs/analysis/engine/document.js';
import type { Bar, SecurityRecord } from '../../subgraphs/analysis/engine/market-types.js';
import { equitiesWithBars } from '../../subgraphs/analysis/pipeline.js';
import { float8s, loadEquities, sliceStoredDocs, storedDocsOn, storedDocText } from '../../subgraphs/analysis/evidence-load.js';
import * as store from '../../subgraphs/analysis/store.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';

const DATES = ['2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05'];
/** Prices whose shortest decimal form is long, tiny or huge: their text and binary forms must agree. */
const AWKWARD = [0.1 + 0.2, 1 / 3, 123.456789012345678, 5e-324, 1.7976931348623157e308, 2 ** -1074 * 3, 9007199254740993, 0.000001234];

const securities: SecurityRecord[] = [
  { symbol: 'IDX', name: 'Index', sector: null, subIndustry: null, assetType: 'INDEX', dataSource: 'synthetic' },
  { symbol: 'AAA', name: 'A', sector: 'Energy', subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' },
  { symbol: 'BBB', name: 'B', sector: 'Energy', subIndustry: null, assetType: 'EQUITY', dataSource: 'imported' },
  { symbol: 'CCC', name: 'C (no bars)', sector: 'Energy', subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' },
];

function bars(symbol: string, shift: number): Bar[] {
  return DATES.map((date, t) => {
    const p = AWKWARD[(t + shift) % AWKWARD.length];
    return { symbol, date, open: p, high: p * 1.5, low: p / 1.5, close: AWKWARD[(t + shift + 1) % AWKWARD.length], volume: 1234567 * (t + 1) + shift };
  });
}

/** A small document (the store keeps any JSON object; only its text matters here). */
const doc = (symbol: string, date: string, t: number): AnalysisDocument => ({ symbol, analysis_date: date, price: AWKWARD[t % AWKWARD.length], signal: 'BUY', notes: `é ${'x'.repeat(t * 37)}`, noise: Array.from({ length: 40 * t }, (_, i) => Math.sin(i * 7.3 + t)) }) as unknown as AnalysisDocument;

describe.each(BACKENDS)('what the evidence step reads on %s', (backend) => {
  let t: TestDb;

  beforeAll(async () => {
    t = await openTestDb(backend);
    await store.upsertSecurities(t.db, securities);
    await store.upsertBars(t.db, [...bars('IDX', 0), ...bars('AAA', 1), ...bars('BBB', 2)]);
    const rows = DATES.flatMap((date, k) =>
      ['AAA', 'BBB'].map((symbol, j) => ({ symbol, analysisDate: date, doc: doc(symbol, date, k * 2 + j), producedAt: '2026-01-01T00:00:00Z', pipelineVersion: PIPELINE_VERSION })),
    );
    await t.db.transaction((tx) => store.upsertSnapshots(tx, rows).then(() => undefined));
    // A row stored before packing: its document as jsonb.
    await t.db.query(
      `INSERT INTO analysis_snapshots (symbol, analysis_date, doc, produced_at, pipeline_version) VALUES ($1, $2::date, $3::jsonb, $4::timestamptz, $5)`,
      ['CCC', DATES[1], JSON.stringify(doc('CCC', DATES[1], 3)), '2026-01-01T00:00:00Z', PIPELINE_VERSION],
    );
  });

  afterAll(async () => {
    await t?.drop();
  });

  it("loads the equities' bars bit for bit as listAllBarSeries gives them", async () => {
    const u = await loadEquities(t.db);
    const expected = equitiesWithBars(await store.listAllSecurities(t.db), await store.listAllBarSeries(t.db));
    expect(u.equities.map((e) => e.symbol)).toEqual(['AAA', 'BBB']);
    expect(u.calendar).toEqual(expected.calendar);
    expect(u.sources).toEqual(['imported', 'synthetic']);
    const bits = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex');
    expected.equities.forEach(({ bars: e }, k) => {
      const got = u.equities[k];
      expect(got.dates).toEqual(e.dates);
      for (const column of ['open', 'high', 'low', 'close', 'volume'] as const) {
        expect(got[column]).toBeInstanceOf(Float64Array);
        expect(bits(got[column])).toBe(bits(e[column]));
      }
    });
  });

  it('reads the stored documents as stored, each decoding to the text snapshotDocsOn gives', async () => {
    const dates = DATES.slice(0, 3);
    const docs = await storedDocsOn(t.db, dates, PIPELINE_VERSION);
    const expected = await store.snapshotDocsOn(t.db, dates, PIPELINE_VERSION);
    expect(docs.symbols).toEqual(expected.map((e) => e.symbol));
    expect(docs.texts.map((x) => x !== null)).toEqual(expected.map((e) => e.symbol === 'CCC'));
    expect(docs.symbols.map((_, i) => storedDocText(docs, i))).toEqual(expected.map((e) => e.docText));
    // Some packed documents span several lines of base64 text (76 characters each).
    expect(Math.max(...Array.from(docs.ends, (end, i) => end - (i === 0 ? 0 : docs.ends[i - 1])))).toBeGreaterThan(200);
    // Cut into batches (each with its own bytes), the rows decode the same.
    const batches = [sliceStoredDocs(docs, 0, 2), sliceStoredDocs(docs, 2, 5), sliceStoredDocs(docs, 5, docs.symbols.length)];
    expect(batches.flatMap((b) => b.symbols.map((_, i) => storedDocText(b, i)))).toEqual(expected.map((e) => e.docText));
    expect(batches[1].bytes.buffer).not.toBe(docs.bytes.buffer);
    expect(await storedDocsOn(t.db, [], PIPELINE_VERSION)).toEqual({ symbols: [], bytes: new Uint8Array(0), ends: new Uint32Array(0), texts: [] });
  });
});

describe('float8s', () => {
  it('reads big-endian doubles at any offset, and refuses a partial value', () => {
    const values = [1.5, -0, Number.MIN_VALUE, Infinity];
    const bytes = Buffer.alloc(3 + values.length * 8);
    values.forEach((v, i) => bytes.writeDoubleBE(v, 3 + i * 8));
    const read = float8s(bytes.subarray(3));
    expect(Array.from(read)).toEqual(values);
    expect(Object.is(read[1], -0)).toBe(true);
    expect(() => float8s(bytes.subarray(3, 10))).toThrow(RangeError);
  });
});
