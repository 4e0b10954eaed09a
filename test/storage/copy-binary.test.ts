/**
 * The embedded store's binary COPY (subgraphs/platform/copy-binary.ts, Db.copyBinary): every value
 * reaches the table exactly as written, and the demo market's bulk load into an empty store checks its
 * symbols itself and leaves the store's foreign-key checks on for what follows; a load into a table that
 * was empty writes no write-ahead log.
 */
import { BinaryCopyWriter, instantMicros } from '../../subgraphs/platform/copy-binary.js';
import { bulkLoadIntoEmptyTable, insertNewBarSeries, upsertSecurities } from '../../subgraphs/analysis/store.js';
import type { BarSeries, SecurityRecord } from '../../subgraphs/analysis/engine/market-types.js';
import { openTestDb } from '../helpers/db.js';

const ROWS: Array<[string, string, number, number]> = [
  ['', '2000-01-01', 0, 0],
  ['Ünïcødé €', '1999-12-31', -0, 1],
  ['tab\tnew\nline "q" \\', '1970-01-01', 0.1, -1],
  ['AAPL', '2100-02-28', 1.7976931348623157e308, Number.MAX_SAFE_INTEGER],
  ['𝔘', '1900-03-01', 5e-324, -Number.MAX_SAFE_INTEGER],
  ['x'.repeat(5000), '2024-02-29', -123456.789, 42],
];

const security = (symbol: string): SecurityRecord => ({
  symbol,
  name: symbol,
  sector: 'Information Technology',
  subIndustry: 'Software',
  assetType: 'EQUITY',
  dataSource: 'synthetic',
});

const series = (symbol: string, days: number): BarSeries => {
  const dates = Array.from({ length: days }, (_, i) => `2026-01-${String(i + 2).padStart(2, '0')}`);
  const values = (base: number) => Float64Array.from(dates, (_, i) => base + i);
  return { symbol, dates, open: values(10), high: values(11), low: values(9), close: values(10.5), volume: values(1000) };
};

describe('binary COPY into the embedded store', () => {
  test('text, date, float8 and int8 values arrive exactly, through a buffer that had to grow', async () => {
    const t = await openTestDb('pglite', { migrate: false });
    try {
      await t.db.exec('CREATE TABLE copied (k int8, s text, d date, f float8, n int8)');
      const copy = new BinaryCopyWriter(32); // far too small: the writer grows
      ROWS.forEach(([s, d, f, n], k) => copy.row(5).int8(k).text(s).date(d).float8(f).int8(n));
      expect(copy.rowCount).toBe(ROWS.length);
      await t.db.copyBinary?.('copied (k, s, d, f, n)', copy.finish());
      const rows = await t.db.query<{ s: string; d: string; f: number; n: string; neg: boolean }>(
        `SELECT s, d::text AS d, f, n::text AS n, f::text = '-0' AS neg FROM copied ORDER BY k`,
      );
      expect(rows.map((r) => [r.s, r.d, r.f, Number(r.n)])).toEqual(ROWS);
      expect(rows[1].neg).toBe(true); // -0 kept its sign
    } finally {
      await t.drop();
    }
  });

  test('bytea and timestamptz values arrive exactly: every byte, and the instant to the millisecond', async () => {
    const t = await openTestDb('pglite', { migrate: false });
    try {
      await t.db.exec('CREATE TABLE copied (k int8, b bytea, at timestamptz)');
      const bytes = [new Uint8Array(0), Uint8Array.from({ length: 256 }, (_, i) => i), new Uint8Array(70_000).fill(0x5c)];
      const instants = ['2026-10-30T21:00:00.000Z', '1999-12-31T23:59:59.999Z', '2024-02-29T12:30:00+05:30', '1970-01-01T00:00:00.1-08:00'];
      const copy = new BinaryCopyWriter(8);
      bytes.forEach((b, k) => copy.row(3).int8(k).bytea(b).timestamptz(instants[k]));
      copy.row(3).int8(3).bytea(new Uint8Array([0])).timestamptz(instants[3]);
      await t.db.copyBinary?.('copied (k, b, at)', copy.finish());
      const rows = await t.db.query<{ hex: string; same: boolean }>(
        `SELECT encode(b, 'hex') AS hex, at = ($1::text[])[k + 1]::timestamptz AS same FROM copied ORDER BY k`,
        [instants],
      );
      expect(rows.map((r) => r.hex)).toEqual([...bytes.map((b) => Buffer.from(b).toString('hex')), '00']);
      expect(rows.every((r) => r.same)).toBe(true);
    } finally {
      await t.drop();
    }
  });

  test('an instant is taken only when it names its offset and is exact to the millisecond', () => {
    expect(instantMicros('2000-01-01T00:00:00Z')).toBe(0);
    expect(instantMicros('2000-01-01T00:00:00.001000Z')).toBe(1000);
    expect(instantMicros('2000-01-01T01:00:00+01:00')).toBe(0);
    expect(instantMicros('2000-01-01T15:59:00+15:59')).toBe(0);
    for (const bad of ['2000-01-01T00:00:00', '2000-01-01 00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z', '2000-01-01T00:00:00.0001Z', '2000-01-01T00:00:00+16:00', 'now']) {
      expect(instantMicros(bad)).toBeNull();
      expect(() => new BinaryCopyWriter().row(1).timestamptz(bad)).toThrow(RangeError);
    }
  });

  test('a value the writer cannot represent is refused before anything is sent', () => {
    const copy = new BinaryCopyWriter();
    expect(() => copy.row(1).date('2026-13-45')).toThrow(RangeError);
    expect(() => copy.row(1).date('2026-02-30')).toThrow(RangeError);
    expect(() => copy.row(1).date('2026-2-3')).toThrow(RangeError);
    expect(() => copy.row(1).int8(2 ** 53)).toThrow(RangeError);
    expect(() => copy.row(1).int8(1.5)).toThrow(RangeError);
  });

  test('bars of a symbol with no security are refused, and nothing is written', async () => {
    const t = await openTestDb('pglite');
    try {
      await upsertSecurities(t.db, [security('AAA')]);
      await expect(t.db.transaction((tx) => insertNewBarSeries(tx, [series('AAA', 3), series('ZZZ', 3)]))).rejects.toThrow('No security for the bars of ZZZ');
      expect(await t.db.query('SELECT symbol FROM bars')).toEqual([]);
    } finally {
      await t.drop();
    }
  });

  test('the per-row foreign-key check skipped for the load is on again for the rest of the transaction', async () => {
    const t = await openTestDb('pglite');
    try {
      const stored = await t.db.transaction(async (tx) => {
        await upsertSecurities(tx, [security('AAA'), security('BBB')]);
        const written = await insertNewBarSeries(tx, [series('AAA', 4), series('BBB', 2)]);
        const [{ role }] = await tx.query<{ role: string }>('SELECT current_setting($1) AS role', ['session_replication_role']);
        return { written, role };
      });
      expect(stored).toEqual({ written: 6, role: 'origin' });
      expect(await t.db.query('SELECT symbol, count(*)::int AS n FROM bars GROUP BY symbol ORDER BY symbol')).toEqual([
        { symbol: 'AAA', n: 4 },
        { symbol: 'BBB', n: 2 },
      ]);
      await expect(
        t.db.transaction(async (tx) => {
          await insertNewBarSeries(tx, [{ ...series('AAA', 1), dates: ['2026-02-02'] }]);
          await tx.query(`INSERT INTO bars (symbol, date, open, high, low, close, volume) VALUES ('NOPE', '2026-01-02', 1, 1, 1, 1, 1)`);
        }),
      ).rejects.toThrow(/foreign key/i);
      expect(await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM bars')).toEqual([{ n: 6 }]);
      // The load turns off every trigger of bars for its COPY: the only ones there must be the foreign key's.
      expect(await t.db.query(`SELECT tgname FROM pg_trigger WHERE tgrelid = 'bars'::regclass AND NOT tgisinternal`)).toEqual([]);
    } finally {
      await t.drop();
    }
  });
  test('a bulk load into a table emptied in its transaction skips the write-ahead log; one into a table with rows does not', async () => {
    const t = await openTestDb('pglite');
    // Well above wal_skip_threshold (2 MB), under which the engine logs the new table's pages at commit.
    const days = Array.from({ length: 1000 }, (_, i) => new Date(Date.UTC(2020, 0, 1) + i * 86_400_000).toISOString().slice(0, 10));
    const long = (symbol: string): BarSeries => ({ ...series(symbol, 0), dates: days, open: Float64Array.from(days, (_, i) => 10 + i), high: Float64Array.from(days, (_, i) => 11 + i), low: Float64Array.from(days, (_, i) => 9 + i), close: Float64Array.from(days, (_, i) => 10.5 + i), volume: Float64Array.from(days, (_, i) => 1000 + i) });
    const symbols = (prefix: string) => Array.from({ length: 30 }, (_, k) => `${prefix}${k}`);
    /** The write-ahead log's bytes written by a transaction that loads bars of `names`, and whether it emptied bars first. */
    const load = async (names: string[]) => {
      await upsertSecurities(t.db, names.map(security));
      const [{ lsn: before }] = await t.db.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
      const emptied = await t.db.transaction(async (tx) => {
        const truncated = await bulkLoadIntoEmptyTable(tx, 'bars');
        await insertNewBarSeries(tx, names.map(long));
        return truncated;
      });
      const [{ bytes }] = await t.db.query<{ bytes: number }>('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::float8 AS bytes', [before]);
      return { emptied, bytes };
    };
    try {
      expect((await t.db.query<{ wal_level: string }>('SHOW wal_level'))[0]).toEqual({ wal_level: 'minimal' });
      const first = await load(symbols('A'));
      const second = await load(symbols('B'));
      expect([first.emptied, second.emptied]).toEqual([true, false]);
      const [{ size }] = await t.db.query<{ size: number }>("SELECT pg_total_relation_size('bars')::float8 AS size");
      // The second load (half the table) is logged in full. The first logs only what is under the
      // threshold at commit (here the primary key, about 1 MB; the table's 2.5 MB is written out instead).
      expect(second.bytes).toBeGreaterThan(size / 2);
      expect(first.bytes).toBeLessThan(second.bytes / 3);
      expect(await t.db.query('SELECT left(symbol, 1) AS p, count(*)::int AS n FROM bars GROUP BY 1 ORDER BY 1')).toEqual([
        { p: 'A', n: 30_000 },
        { p: 'B', n: 30_000 },
      ]);
    } finally {
      await t.drop();
    }
  });

  test('emptying for a bulk load is undone with its transaction, a table with rows is never emptied, and outside a transaction it is refused', async () => {
    const t = await openTestDb('pglite');
    try {
      await upsertSecurities(t.db, [security('AAA')]);
      await expect(
        t.db.transaction(async (tx) => {
          expect(await bulkLoadIntoEmptyTable(tx, 'bars')).toBe(true);
          await insertNewBarSeries(tx, [series('AAA', 3)]);
          throw new Error('stop here');
        }),
      ).rejects.toThrow('stop here');
      expect(await t.db.query('SELECT symbol FROM bars')).toEqual([]);
      await t.db.transaction((tx) => insertNewBarSeries(tx, [series('AAA', 3)]));
      expect(await t.db.transaction((tx) => bulkLoadIntoEmptyTable(tx, 'bars'))).toBe(false);
      // Outside a transaction the check and the TRUNCATE could see different tables: refused.
      await expect(bulkLoadIntoEmptyTable(t.db, 'bars')).rejects.toThrow(/transaction/);
      expect(await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM bars')).toEqual([{ n: 3 }]);
    } finally {
      await t.drop();
    }
  });
});
