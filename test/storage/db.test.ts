/**
 * The store: the same behaviour on PGlite and on PostgreSQL (when TEST_DATABASE_URL is set):
 * migrations, transactions, value types, bulk writes and reads of bars; PGlite's stores on disk, from the
 * store template and from a dump.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as store from '../../subgraphs/analysis/store.js';
import type { SecurityRecord } from '../../subgraphs/analysis/engine/market-types.js';
import { ALL_MIGRATIONS } from '../../app/migrations.js';
import { openPglite, writeStoreTemplate, type Queryable } from '../../subgraphs/platform/db.js';
import { migrate, orderMigrations } from '../../subgraphs/platform/migrations.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';

const ACME: SecurityRecord = { symbol: 'ACME', name: 'Acme Synthetic Corp', sector: 'Information Technology', subIndustry: 'Application Software', assetType: 'EQUITY', dataSource: 'synthetic' };

describe.each(BACKENDS)('store on %s', (backend) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb(backend);
  });
  afterAll(async () => t?.drop());

  it('applies every migration once and records it', async () => {
    const again = await migrate(t.db, ALL_MIGRATIONS);
    expect(again.applied).toEqual([]);
    const rows = await t.db.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(ALL_MIGRATIONS.map((m) => m.version));
  });

  it('refuses a migration whose SQL changed after it was applied', async () => {
    const edited = ALL_MIGRATIONS.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
    await expect(migrate(t.db, edited)).rejects.toThrow(/was changed after it was applied/);
  });

  it('applies a new migration and rolls back a failing one completely', async () => {
    const next = ALL_MIGRATIONS[ALL_MIGRATIONS.length - 1].version + 1;
    const bad = { version: next, name: 'broken', sql: 'CREATE TABLE half_done (id int); SELECT no_such_function();' };
    await expect(migrate(t.db, [...ALL_MIGRATIONS, bad])).rejects.toThrow();
    const tables = await t.db.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'half_done'");
    expect(tables).toEqual([]);
    const recorded = await t.db.query('SELECT 1 FROM schema_migrations WHERE version = $1', [next]);
    expect(recorded).toEqual([]);
  });

  it('rejects duplicate migration versions', () => {
    expect(() => orderMigrations([ALL_MIGRATIONS, [{ ...ALL_MIGRATIONS[0], name: 'copy' }]])).toThrow(/Duplicate migration version/);
  });

  it('returns dates as YYYY-MM-DD, bigints as numbers and timestamps as ISO strings', async () => {
    const [row] = await t.db.query<{ d: unknown; big: unknown; ts: unknown; num: unknown }>(
      "SELECT DATE '2024-02-29' AS d, 9007199254740991::bigint AS big, TIMESTAMPTZ '2024-01-02T03:04:05.678Z' AS ts, 12.5::numeric AS num",
    );
    expect(row).toEqual({ d: '2024-02-29', big: 9007199254740991, ts: '2024-01-02T03:04:05.678Z', num: 12.5 });
  });

  it.each(['Asia/Kolkata', 'America/St_Johns', 'Pacific/Chatham'])('reads timestamps right whatever the session time zone (%s)', async (zone) => {
    const [row] = await t.db.transaction(async (tx) => {
      await tx.query(`SET LOCAL TIME ZONE '${zone}'`);
      return tx.query<{ ts: unknown; inf: unknown }>("SELECT TIMESTAMPTZ '2024-01-02T03:04:05.678Z' AS ts, 'infinity'::timestamptz AS inf");
    });
    expect(row).toEqual({ ts: '2024-01-02T03:04:05.678Z', inf: 'infinity' });
  });

  it('commits a transaction as a whole and rolls back on error (no partial writes)', async () => {
    await store.upsertSecurities(t.db, [ACME]);
    await expect(
      t.db.transaction(async (tx) => {
        await store.upsertBars(tx, [{ symbol: 'ACME', date: '2024-01-02', open: 10, high: 11, low: 9, close: 10.5, volume: 1000 }]);
        await store.upsertBars(tx, [{ symbol: 'ACME', date: '2024-01-03', open: -1, high: 11, low: 9, close: 10.5, volume: 1000 }]);
      }),
    ).rejects.toThrow();
    expect((await store.listBars(t.db, 'ACME', { limit: 10 })).total).toBe(0);
  });

  it('a transaction handle refuses statements once its transaction has ended (a late write cannot autocommit)', async () => {
    let late: Queryable | undefined;
    await expect(
      t.db.transaction(async (tx) => {
        late = tx;
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await expect((late as Queryable).query("INSERT INTO securities (symbol, name, data_source) VALUES ('LATE', 'Late Corp', 'imported')")).rejects.toThrow();
    expect(await store.findSecurity(t.db, 'LATE')).toBeNull();
  });

  it('refuses bars that break the table checks (high < low, unknown symbol)', async () => {
    await expect(store.upsertBars(t.db, [{ symbol: 'ACME', date: '2024-01-02', open: 10, high: 9, low: 11, close: 10, volume: 1 }])).rejects.toThrow();
    await expect(store.upsertBars(t.db, [{ symbol: 'NOPE', date: '2024-01-02', open: 10, high: 11, low: 9, close: 10, volume: 1 }])).rejects.toThrow();
  });

  it('bulk-writes column series, replaces on re-import and pages bars by date', async () => {
    const n = 45_000; // more than one 20,000-row chunk
    const dates = Array.from({ length: n }, (_, i) => new Date(Date.UTC(1900, 0, 1) + i * 86_400_000).toISOString().slice(0, 10));
    const series = (bump: number) => ({
      symbol: 'ACME',
      dates,
      open: Float64Array.from(dates, (_, i) => 100 + i + bump),
      high: Float64Array.from(dates, (_, i) => 102 + i + bump),
      low: Float64Array.from(dates, (_, i) => 99 + i + bump),
      close: Float64Array.from(dates, (_, i) => 101 + i + bump),
      volume: Float64Array.from(dates, (_, i) => 5_000_000_000 + i),
    });
    expect(await store.upsertBars(t.db, series(0))).toBe(n);
    expect(await store.upsertBars(t.db, series(1))).toBe(n); // same keys: replaced, not duplicated
    const range = await store.barDateRange(t.db, 'ACME');
    expect(range).toEqual({ first: '1900-01-01', last: dates[n - 1], count: n });

    const page1 = await store.listBars(t.db, 'ACME', { from: '1900-01-10', to: '1900-01-20', limit: 4 });
    expect(page1.total).toBe(11);
    expect(page1.items.map((b) => b.date)).toEqual(['1900-01-10', '1900-01-11', '1900-01-12', '1900-01-13']);
    expect(page1.items[0]).toEqual({ symbol: 'ACME', date: '1900-01-10', open: 110, high: 112, low: 109, close: 111, volume: 5_000_000_009 });
    const page2 = await store.listBars(t.db, 'ACME', { from: '1900-01-10', to: '1900-01-20', after: '1900-01-13', limit: 4 });
    expect(page2.items[0].date).toBe('1900-01-14');
  });

  it('upserts securities and lists them by sector in symbol order', async () => {
    await store.upsertSecurities(t.db, [
      { ...ACME, name: 'Acme Synthetic Corp (renamed)' },
      { symbol: 'BETA', name: 'Beta', sector: 'Energy', subIndustry: null, assetType: 'EQUITY', dataSource: 'imported' },
      { symbol: 'TGMI', name: 'Index', sector: null, subIndustry: null, assetType: 'INDEX', dataSource: 'synthetic' },
    ]);
    expect(await store.findSecurity(t.db, 'ACME')).toEqual({ ...ACME, name: 'Acme Synthetic Corp (renamed)' });
    const energy = await store.listSecurities(t.db, { sector: 'Energy', limit: 10 });
    expect(energy).toEqual({ items: [expect.objectContaining({ symbol: 'BETA' })], total: 1 });
    const all = await store.listSecurities(t.db, { limit: 2 });
    expect(all.items.map((s) => s.symbol)).toEqual(['ACME', 'BETA']);
    expect(all.total).toBe(3);
  });
});

describe('PGlite on disk', () => {
  it('keeps committed data across a close and reopen, and refuses a second process-level open', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-pglite-'));
    const first = await openPglite(dir);
    await migrate(first, ALL_MIGRATIONS);
    await store.upsertSecurities(first, [ACME]);
    // A stale lock from a dead process is taken over; a live one is refused.
    fs.writeFileSync(path.join(dir, 'tradegraph.lock'), '1'); // pid 1 is alive (init)
    await expect(openPglite(dir)).rejects.toThrow(/in use by process 1/);
    fs.writeFileSync(path.join(dir, 'tradegraph.lock'), String(process.pid));
    await first.close();
    expect(fs.existsSync(path.join(dir, 'tradegraph.lock'))).toBe(false);

    const second = await openPglite(dir);
    expect(await store.findSecurity(second, 'ACME')).toEqual(ACME);
    await second.close();
  });
});

describe('PGlite from the store template', () => {
  const dirs: string[] = [];
  const scratch = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-template-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  const systemId = async (db: Queryable) => (await db.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()'))[0].id;

  it('a new store starts as a copy of the template, a working store of its own; a template of another engine is passed over', async () => {
    const root = scratch();
    const template = path.join(root, 'template');
    await writeStoreTemplate(template);
    const idOf = async (dataDir: string, templateDir: string) => {
      const db = await openPglite(dataDir, { templateDir });
      try {
        return await systemId(db);
      } finally {
        await db.close();
      }
    };
    // initdb gives every store a new identifier; a copy of the template has the template's.
    const initdb = await idOf(path.join(root, 'initdb'), path.join(root, 'no-template'));
    const a = path.join(root, 'a');
    const first = await openPglite(a, { templateDir: template });
    const second = await openPglite(path.join(root, 'b'), { templateDir: template });
    const id = await systemId(first);
    try {
      expect(id).not.toBe(initdb);
      expect(await systemId(second)).toBe(id);
      expect((await first.query<{ wal_level: string }>('SHOW wal_level'))[0].wal_level).toBe('minimal');
      await migrate(first, ALL_MIGRATIONS);
      await store.upsertSecurities(first, [ACME]);
      expect(await second.query("SELECT to_regclass('securities')::text AS t")).toEqual([{ t: null }]);
    } finally {
      await first.close();
      await second.close();
    }
    const reopened = await openPglite(a, { templateDir: template });
    expect(await store.findSecurity(reopened, 'ACME')).toEqual(ACME);
    await reopened.close();
    // Nothing of the copies is left beside the stores.
    expect(fs.readdirSync(root).sort()).toEqual(['a', 'b', 'initdb', 'template']);

    // A template missing a file of its manifest (a build replacing it meanwhile), or one the engine does
    // not start on, is passed over for initdb, leaving nothing of the copy.
    const manifestFile = path.join(template, 'template.json');
    const manifest = fs.readFileSync(manifestFile, 'utf8');
    const pgVersion = path.join(template, 'pglite', 'PG_VERSION');
    const version = fs.readFileSync(pgVersion, 'utf8');
    fs.renameSync(pgVersion, `${pgVersion}.away`);
    expect(await idOf(path.join(root, 'c'), template)).not.toBe(id);
    fs.renameSync(`${pgVersion}.away`, pgVersion);
    fs.writeFileSync(pgVersion, version.replace(/^\d+/, (v) => String(Number(v) - 1).padStart(v.length, '0')));
    expect(await idOf(path.join(root, 'd'), template)).not.toBe(id);
    fs.writeFileSync(pgVersion, version);
    expect(await idOf(path.join(root, 'e'), template)).toBe(id);
    // A template made by another engine version (or with other initdb parameters) is not used.
    fs.writeFileSync(manifestFile, manifest.replace(/"pglite":"[^"]*"/, '"pglite":"0.0.0"'));
    expect(await idOf(path.join(root, 'f'), template)).not.toBe(id);
    expect(fs.readdirSync(root).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'initdb', 'template']);
  });
});

describe('PGlite from a dump', () => {
  it('a store restored from a dump holds what the dumped one did, and the two change apart', async () => {
    const source = await openPglite(undefined);
    try {
      await migrate(source, ALL_MIGRATIONS);
      await store.upsertSecurities(source, [ACME]);
      const dump = await (source.dumpDataDir as () => Promise<Blob>)();
      const restored = await openPglite(undefined, { restoreFrom: dump });
      try {
        expect((await migrate(restored, ALL_MIGRATIONS)).applied).toEqual([]);
        expect(await store.findSecurity(restored, 'ACME')).toEqual(ACME);
        await store.upsertSecurities(restored, [{ ...ACME, symbol: 'ONLY' }]);
        expect(await store.findSecurity(source, 'ONLY')).toBeNull();
      } finally {
        await restored.close();
      }
      await expect(openPglite(os.tmpdir(), { restoreFrom: dump })).rejects.toThrow(/in memory only/);
    } finally {
      await source.close();
    }
  });
});
