/**
 * Packed snapshots (snapshot-codec.ts, migration 2026120411): every read gives back exactly the text
 * the database printed when documents were stored as jsonb (`doc::text`), for real documents of the
 * pipeline and for arbitrary JSON; stores written before packing keep being read, their rows side by side
 * with packed ones; on both backends.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ALL_MIGRATIONS } from '../../app/migrations.js';
import { PIPELINE_VERSION } from '../../subgraphs/analysis/engine/document.js';
import { loadSyntheticMarket } from '../../subgraphs/analysis/market-data.js';
import { analyzeUniverse, loadUniverse } from '../../subgraphs/analysis/pipeline.js';
import { decodeSnapshotDoc, encodeSnapshotDoc, jsonbText, jsonMembers, numericText } from '../../subgraphs/analysis/snapshot-codec.js';
import { SNAPSHOT_DICTIONARY_1 } from '../../subgraphs/analysis/snapshot-dictionary.js';
import * as store from '../../subgraphs/analysis/store.js';
import type { Db, Queryable } from '../../subgraphs/platform/db.js';
import { migrate } from '../../subgraphs/platform/migrations.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';
import { jsonbValue } from '../helpers/jsonb-values.js';

const PACKING = 2026120411;
const PRODUCED_AT = '2026-10-30T21:00:00.000Z';

/** What the database prints for each JSON text as jsonb: the text readers got before packing. */
async function jsonbTexts(db: Db, texts: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (let k = 0; k < texts.length; k += 200) {
    const part = texts.slice(k, k + 200);
    const [row] = await db.query<Record<string, string>>(`SELECT ${part.map((_, i) => `$${i + 1}::jsonb::text AS t${i}`).join(', ')}`, part);
    out.push(...part.map((_, i) => row[`t${i}`]));
  }
  return out;
}

/** The old writer: the document as jsonb in `doc`. */
async function insertJsonbRow(db: Db, symbol: string, date: string, text: string): Promise<void> {
  await db.query(
    `INSERT INTO analysis_snapshots (symbol, analysis_date, doc, produced_at, pipeline_version) VALUES ($1, $2::date, $3::jsonb, $4::timestamptz, $5)`,
    [symbol, date, text, PRODUCED_AT, PIPELINE_VERSION],
  );
}

const PART_KEYS = ['symbol', 'analysis_date', 'price', 'stage', 'stage_strength', 'signal', 'confidence', 'enhanced_signal', 'ml_signal', 'pattern_signal', 'best_pattern'];

/** The evidence reads' parts of each JSON text as the database computes them from jsonb. */
async function partsByDatabase(db: Db, texts: readonly string[]): Promise<string[]> {
  const rows = await db.query<{ doc: string }>(
    `SELECT (SELECT jsonb_object_agg(key, CASE WHEN key IN ('indicators', 'stage_detail') THEN jsonb_build_object('sata_score', value -> 'sata_score') ELSE value END)
               FROM jsonb_each(d.doc::jsonb) WHERE key = ANY($2::text[]))::text AS doc
       FROM unnest($1::text[]) WITH ORDINALITY AS d(doc, n) ORDER BY n`,
    [texts, [...PART_KEYS, 'indicators', 'stage_detail']],
  );
  return rows.map((r) => r.doc);
}

/** snapshotOutputPartsOn as it read a store before packing (jsonb documents only). */
async function outputPartsBeforePacking(db: Db, date: string): Promise<Array<{ symbol: string; docText: string }>> {
  const rows = await db.query<{ symbol: string; doc: string }>(
    `SELECT symbol,
            (SELECT jsonb_object_agg(key, CASE WHEN key IN ('indicators', 'stage_detail') THEN jsonb_build_object('sata_score', value -> 'sata_score') ELSE value END)
               FROM jsonb_each(doc) WHERE key = ANY($3::text[]))::text AS doc
       FROM analysis_snapshots
      WHERE analysis_date = ANY($1::date[]) AND pipeline_version = $2
      ORDER BY analysis_date, symbol`,
    [[date], PIPELINE_VERSION, [...PART_KEYS, 'indicators', 'stage_detail']],
  );
  return rows.map((r) => ({ symbol: r.symbol, docText: r.doc }));
}

test('the dictionary of stored format 1 never changes (stored snapshots are read with exactly these bytes)', () => {
  expect(createHash('sha256').update(SNAPSHOT_DICTIONARY_1).digest('hex')).toBe('b218ca0b111d4e58dd727fc4a557164893ae49648ce1a033f9f3c6be3d819bc7');
});

test('members are cut out of JSON text as it is, whatever their strings hold', () => {
  const text = jsonbText({ a: 'x", "b": {', b: { c: [1, { d: '}]' }], e: 'q\\' }, c: -1.5e-7, d: null, 'k"ey': true, e: [[], {}] });
  const members = jsonMembers(text, new Set(['a', 'b', 'c', 'd', 'k"ey', 'e']));
  expect(Object.fromEntries([...members].map(([k, v]) => [k, JSON.parse(v) as unknown]))).toEqual(JSON.parse(text));
  expect(members.get('b')).toBe(jsonbText({ c: [1, { d: '}]' }], e: 'q\\' }));
});

test('numbers are written out in full where JavaScript uses an exponent', () => {
  expect([1e-7, 1.5e-7, -2.5e-10, 1e21, 1.2345e25, 0, -0, 40.2098].map(numericText)).toEqual([
    '0.0000001',
    '0.00000015',
    '-0.00000000025',
    '1000000000000000000000',
    '12345000000000000000000000',
    '0',
    '0',
    '40.2098',
  ]);
});

/** `tx`, noting the target of every COPY it is given in `copies`. */
const countingCopies = (tx: Queryable, copies: string[]): Queryable => ({
  query: (sql, params) => tx.query(sql, params),
  exec: (sql) => tx.exec(sql),
  ...(tx.copyBinary && { copyBinary: (target: string, rows: Uint8Array) => (copies.push(target), tx.copyBinary?.(target, rows) ?? Promise.resolve()) }),
});

describe.each(BACKENDS)('packed snapshots on %s', (backend) => {
  let t: TestDb;
  /** Real documents of the pipeline (JSON text as the workers write it), by symbol and date. */
  let docs: Array<{ symbol: string; date: string; text: string }>;

  beforeAll(async () => {
    t = await openTestDb(backend);
    await loadSyntheticMarket(t.db, { seed: 20240614, symbolCount: 12, years: 1, endDate: '2026-10-30', indexSymbol: 'TGMI' });
    const universe = await loadUniverse(t.db, 'TGMI');
    const dates = universe.calendar.slice(-3);
    docs = [];
    await analyzeUniverse(universe, { from: dates[0], to: dates[2], workers: 0, producedAt: PRODUCED_AT }, async (rows) => {
      for (const r of rows) docs.push({ symbol: r.symbol, date: r.analysisDate, text: r.doc });
    });
  });
  afterAll(() => t.drop());

  test('every read of real documents gives the text jsonb gave, at about a quarter of its stored size', async () => {
    const expected = await jsonbTexts(t.db, docs.map((d) => d.text));
    expect(docs.map((d) => jsonbText(JSON.parse(d.text)))).toEqual(expected);
    await store.upsertSnapshots(t.db, docs.map((d) => ({ symbol: d.symbol, analysisDate: d.date, doc: d.text, producedAt: PRODUCED_AT, pipelineVersion: PIPELINE_VERSION })));

    const want = new Map(docs.map((d, i) => [`${d.symbol}@${d.date}`, expected[i]]));
    const dates = [...new Set(docs.map((d) => d.date))].sort();
    const latest = dates[dates.length - 1];
    const one = docs[0].symbol;
    expect((await store.snapshotOn(t.db, one, dates[0]))?.docText).toBe(want.get(`${one}@${dates[0]}`));
    expect((await store.latestSnapshot(t.db, one))?.docText).toBe(want.get(`${one}@${latest}`));
    const listed = await store.listSnapshots(t.db, one, { limit: 10 });
    expect(listed.items.map((s) => s.docText)).toEqual(dates.map((d) => want.get(`${one}@${d}`)));
    for (const s of await store.latestSnapshots(t.db, [...new Set(docs.map((d) => d.symbol))])) expect(s.docText).toBe(want.get(`${s.symbol}@${latest}`));
    for (const s of await store.snapshotsOn(t.db, latest)) expect(s.docText).toBe(want.get(`${s.symbol}@${latest}`));
    const byDate = [...docs].sort((x, y) => x.date.localeCompare(y.date) || (x.symbol < y.symbol ? -1 : 1));
    expect(await store.snapshotDocsOn(t.db, dates, PIPELINE_VERSION)).toEqual(byDate.map((d) => ({ symbol: d.symbol, docText: want.get(`${d.symbol}@${d.date}`) })));
    // The evidence reads cut their parts out of the packed text: the same text the database made of jsonb.
    const parts = await partsByDatabase(t.db, byDate.map((d) => d.text));
    expect(await store.snapshotOutputPartsOn(t.db, dates, PIPELINE_VERSION)).toEqual(byDate.map((d, i) => ({ symbol: d.symbol, docText: parts[i] })));

    // Stored bytes against the same documents stored as jsonb (compressed by the database as it can).
    await t.db.exec('CREATE TABLE jsonb_docs (doc jsonb)');
    await t.db.query('INSERT INTO jsonb_docs SELECT d::jsonb FROM unnest($1::text[]) AS d', [expected]);
    const [size] = await t.db.query<{ packed: number; jsonb: number }>(
      'SELECT (SELECT sum(pg_column_size(doc_packed))::int FROM analysis_snapshots) AS packed, (SELECT sum(pg_column_size(doc))::int FROM jsonb_docs) AS jsonb',
    );
    expect(size.packed).toBeLessThan(size.jsonb / 2.5);
  });

  test("a run's writer inserts the rows of dates with no snapshot as new (by COPY on the embedded store) and upserts the rest", async () => {
    const w = await openTestDb(backend);
    try {
      const symbols = [...new Set(docs.map((d) => d.symbol))];
      await w.db.query(`INSERT INTO securities (symbol, name, data_source) SELECT s, s, 'synthetic' FROM unnest($1::text[]) AS s`, [symbols]);
      const dates = [...new Set(docs.map((d) => d.date))].sort();
      const row = (d: (typeof docs)[number], producedAt = PRODUCED_AT): store.SnapshotRow => ({ symbol: d.symbol, analysisDate: d.date, doc: d.text, producedAt, pipelineVersion: PIPELINE_VERSION });
      // The first date already holds half of its symbols, from an older run.
      const before = docs.filter((d) => d.date === dates[0]).slice(0, Math.ceil(symbols.length / 2));
      await store.upsertSnapshots(w.db, before.map((d) => ({ ...row(d, '2026-01-01T00:00:00.000Z'), doc: '{"old": true}', pipelineVersion: 'older' })));
      const again = docs.find((d) => d.date === dates[1]) as (typeof docs)[number];
      const copies: string[] = [];
      const written = await w.db.transaction(async (tx) => {
        const counted = countingCopies(tx, copies);
        const writer = store.snapshotWriter(counted);
        const first = await writer.write(docs.filter((d) => d.date !== dates[2]).map((d) => row(d)));
        // A row given again, later and within one call, wins as in upsertSnapshots; so does one given after
        // a row the COPY cannot carry (an instant finer than a millisecond goes by the upsert).
        const finer = row(docs.find((d) => d.date === dates[2]) as (typeof docs)[number], '2026-11-02T00:00:00.000001Z');
        const second = await writer.write([finer, ...docs.filter((d) => d.date === dates[2]).map((d) => row(d)), row(again, '2026-11-01T00:00:00.000Z')]);
        return first + second;
      });
      expect(written).toBe(docs.length + 1);
      // Dates 1 and 2 were fresh: on the embedded store each call COPYs them; PostgreSQL upserts everything.
      expect(copies.length).toBe(backend === 'pglite' ? 2 : 0);
      const stored = await w.db.query<{ symbol: string; date: string; produced: string; version: string; n: number }>(
        `SELECT symbol, analysis_date::text AS date, to_char(produced_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS produced, pipeline_version AS version,
                count(*) OVER (PARTITION BY symbol, analysis_date)::int AS n
           FROM analysis_snapshots ORDER BY analysis_date, symbol`,
      );
      expect(stored.length).toBe(docs.length);
      expect(stored.every((r) => r.n === 1 && r.version === PIPELINE_VERSION)).toBe(true);
      const expected = await jsonbTexts(w.db, docs.map((d) => d.text));
      for (const [i, d] of docs.entries()) {
        expect((await store.snapshotOn(w.db, d.symbol, d.date))?.docText).toBe(expected[i]);
        const produced = stored.find((r) => r.symbol === d.symbol && r.date === d.date)?.produced;
        expect(produced).toBe(d === again ? '2026-11-01T00:00:00.000Z' : PRODUCED_AT);
      }
    } finally {
      await w.drop();
    }
  });

  test("the writer gathers a run's new rows into one COPY until it is finished (each COPY into an emptied table leaves its spare pages empty)", async () => {
    const w = await openTestDb(backend);
    try {
      const symbols = [...new Set(docs.map((d) => d.symbol))];
      await w.db.query(`INSERT INTO securities (symbol, name, data_source) SELECT s, s, 'synthetic' FROM unnest($1::text[]) AS s`, [symbols]);
      const copies: string[] = [];
      const written = await w.db.transaction(async (tx) => {
        const counted = countingCopies(tx, copies);
        const writer = store.snapshotWriter(counted);
        let n = 0;
        for (const d of docs) n += await writer.write([{ symbol: d.symbol, analysisDate: d.date, doc: d.text, producedAt: PRODUCED_AT, pipelineVersion: PIPELINE_VERSION }]);
        expect(copies).toEqual([]);
        await writer.finish();
        return n;
      });
      expect(written).toBe(docs.length);
      expect(copies.length).toBe(backend === 'pglite' ? 1 : 0);
      expect(await w.db.query('SELECT count(*)::int AS n FROM analysis_snapshots')).toEqual([{ n: docs.length }]);
    } finally {
      await w.drop();
    }
  });

  test('a store written before packing keeps its jsonb rows readable beside packed ones, and a rewrite packs them', async () => {
    const old = await openTestDb(backend, { migrate: false });
    try {
      await migrate(old.db, ALL_MIGRATIONS.filter((m) => m.version < PACKING));
      const [a, b] = docs.filter((d) => d.date === docs[0].date);
      await old.db.query(`INSERT INTO securities (symbol, name, data_source) VALUES ($1, $1, 'synthetic'), ($2, $2, 'synthetic')`, [a.symbol, b.symbol]);
      await insertJsonbRow(old.db, a.symbol, a.date, a.text);
      await insertJsonbRow(old.db, b.symbol, b.date, b.text);
      const [textA, textB] = await jsonbTexts(old.db, [a.text, b.text]);
      const partsBefore = await outputPartsBeforePacking(old.db, a.date);

      expect((await migrate(old.db, ALL_MIGRATIONS)).applied.map((m) => m.version)).toEqual([PACKING]);
      expect((await store.snapshotOn(old.db, a.symbol, a.date))?.docText).toBe(textA);
      // The evidence reads give the same text for a jsonb row and for its packed rewrite.
      expect(await store.snapshotOutputPartsOn(old.db, [a.date], PIPELINE_VERSION)).toEqual(partsBefore);
      await store.upsertSnapshots(old.db, [{ symbol: b.symbol, analysisDate: b.date, doc: b.text, producedAt: PRODUCED_AT, pipelineVersion: PIPELINE_VERSION }]);
      const forms = await old.db.query<{ symbol: string; jsonb: boolean; packed: boolean }>(
        'SELECT symbol, doc IS NOT NULL AS jsonb, doc_packed IS NOT NULL AS packed FROM analysis_snapshots ORDER BY symbol',
      );
      expect(forms).toEqual([a, b].map((d) => ({ symbol: d.symbol, jsonb: d === a, packed: d === b })).sort((x, y) => x.symbol.localeCompare(y.symbol)));
      expect((await store.snapshotsOn(old.db, a.date)).map((s) => s.docText).sort()).toEqual([textA, textB].sort());
      expect(await store.snapshotOutputPartsOn(old.db, [a.date], PIPELINE_VERSION)).toEqual(partsBefore);
      // A row holds exactly one form.
      await expect(old.db.query(`UPDATE analysis_snapshots SET doc = '{}'::jsonb WHERE symbol = $1`, [b.symbol])).rejects.toThrow(/analysis_snapshots_one_doc/);
    } finally {
      await old.drop();
    }
  });

  test('arbitrary JSON comes back as the text jsonb prints for it', async () => {
    const tricky: unknown[] = [
      { b: 1, a: 2, aa: 3, é: 4, z: 5, '': 6, 'ab\n': 7, '\u{1f600}': 8, 'ｚ': 9, '10': 10, '9': 11 },
      [1e-7, -1.5e-300, 5e-324, Number.MAX_VALUE, 1e21, 0.1 + 0.2, -0, NaN, Infinity, 123456789012345680000],
      { s: 'quote " backslash \\ tab \t newline \n bell \u0007 unit \u001f del \u007f é \u2028 \u{1f600}' },
      { nested: { deep: [[], {}, [{}], null, true, false] }, when: new Date('2026-10-30T00:00:00Z'), gone: undefined, fn: () => 1 },
      // One shape in two key orders, and a shape that is a prefix of another.
      [{ a: 1, bb: 2, c: 3 }, { c: 4, bb: 5, a: 6 }, { a: 7, bb: 8 }, { a: 9, bb: 10, c: 11, d: 12 }],
      { escaped: 'a backslash before u: \\u0041 and \\ud800' },
    ];
    const arbitrary = fc.sample(fc.jsonValue({ maxDepth: 3 }), { seed: 42, numRuns: 300 });
    // Escapes, UTF-8, equal-length keys, decimals of every length, -0, values JSON.stringify rewrites.
    const edgy = fc.sample(jsonbValue, { seed: 20261130, numRuns: 400 });
    const values = [...tricky, ...arbitrary, ...edgy];
    const expected = await jsonbTexts(t.db, values.map((v) => JSON.stringify(v) ?? 'null'));
    expect(values.map((v) => jsonbText(v))).toEqual(expected);
    // Documents are objects; a string given to the packer is JSON text.
    const documents = values.map((value) => ({ value }));
    const expectedDocs = await jsonbTexts(t.db, documents.map((d) => JSON.stringify(d)));
    expect(documents.map((d) => decodeSnapshotDoc(encodeSnapshotDoc(d)))).toEqual(expectedDocs);
    expect(documents.map((d) => decodeSnapshotDoc(encodeSnapshotDoc(JSON.stringify(d))))).toEqual(expectedDocs);
  });

  test('text jsonb refuses is refused before it is stored', async () => {
    for (const bad of ['nul \u0000 here', 'lone \ud800 high', 'lone \udc00 low']) {
      await expect(jsonbTexts(t.db, [JSON.stringify({ bad })])).rejects.toThrow();
      expect(() => encodeSnapshotDoc({ bad })).toThrow();
    }
    expect(() => encodeSnapshotDoc('{not json')).toThrow(SyntaxError);
  });
});
