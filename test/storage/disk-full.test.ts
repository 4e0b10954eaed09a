/**
 * The embedded store on a full disk (platform/db.ts, module comment), on a real small file system:
 * a tmpfs filled with a filler file, freed by deleting it.
 *
 * - A write refused for lack of space is the STORAGE_FULL AppError (503), reads still answer, and
 *   ping() fails (the readiness probes answer 503) until a probe write succeeds again.
 * - When the write-ahead log itself runs out of room PostgreSQL PANICs and the engine stops: every call
 *   is STORAGE_FULL until there is room, then the store reopens by itself with everything committed.
 * - Opening on a full disk is one StorageFullError naming the data directory; a store whose first
 *   initialisation failed is not left half-written, so a start after freeing space initialises it.
 *
 * Mounting needs root (CI runs the suites as root); elsewhere the suite is skipped and says why.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../subgraphs/platform/errors.js';
import { openPglite, StorageFullError, type Db } from '../../subgraphs/platform/db.js';
import { fillDisk, mountTmpfs, tmpfsUnavailable, type Tmpfs } from '../helpers/tmpfs.js';
import { scaled } from '../helpers/time.js';

const cannotMount = tmpfsUnavailable();
const onTmpfs = cannotMount ? describe.skip : describe;
const title = (what: string) => (cannotMount ? `${what} (skipped: ${cannotMount})` : what);

function expectStorageFull(error: unknown): void {
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('STORAGE_FULL');
  expect((error as AppError).status).toBe(503);
  // What a client sees names no path and no engine internals.
  expect((error as AppError).message).not.toMatch(/\/|base|pg_wal|errno/);
}

async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  return undefined;
}

/** About 100 KB that does not compress, per row. */
const BULKY = "INSERT INTO notes (body, filler) SELECT $1, string_agg(md5(random()::text || g::text), '') FROM generate_series(1, 3200) AS g";

onTmpfs(title('the embedded store on a full disk'), () => {
  const mounts: Tmpfs[] = [];
  const open: Db[] = [];
  const mount = (sizeMb: number) => {
    const m = mountTmpfs(sizeMb);
    mounts.push(m);
    return m;
  };
  const openOn = async (dir: string) => {
    const db = await openPglite(path.join(dir, 'data'), { queryTimeoutMs: 5000 });
    open.push(db);
    return db;
  };
  afterAll(async () => {
    for (const db of open) await db.close().catch(() => undefined);
    for (const m of mounts) m.unmount();
  });

  it('a refused write is STORAGE_FULL, reads still answer, ping fails until space is freed; then writes work and nothing is lost', async () => {
    const disk = mount(64);
    const db = await openOn(disk.dir);
    await db.exec('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL, filler text)');
    await db.query("INSERT INTO notes (body) VALUES ('written before')");
    await db.ping(1000);
    const filler = fillDisk(disk.dir);

    let refused: unknown;
    let accepted = 0;
    for (let i = 0; i < 200 && refused === undefined; i++) {
      refused = await failure(() => db.transaction((tx) => tx.query(BULKY, [`while full ${i}`])));
      if (refused === undefined) accepted++;
    }
    expectStorageFull(refused);
    // Reads are served; the write that was refused left nothing behind.
    const rows = await db.query<{ body: string }>("SELECT body FROM notes WHERE body LIKE 'while full%' OR body = 'written before' ORDER BY id");
    expect(rows.map((r) => r.body)).toEqual(['written before', ...Array.from({ length: accepted }, (_, i) => `while full ${i}`)]);
    expectStorageFull(await failure(() => db.ping(1000)));
    expectStorageFull(await failure(() => db.ping(1000))); // stays failed while nothing changed

    fs.rmSync(filler);
    await db.ping(1000);
    await db.transaction((tx) => tx.query(BULKY, ['written after']));
    expect((await db.query<{ n: number }>("SELECT count(*)::int AS n FROM notes WHERE body IN ('written before', 'written after')"))[0].n).toBe(2);
  });

  it('the write-ahead log out of room stops the engine: every call is STORAGE_FULL until space is freed, then it reopens with everything committed', async () => {
    const disk = mount(64);
    const db = await openOn(disk.dir);
    await db.exec('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL, filler text)');
    await db.query("INSERT INTO notes (body) VALUES ('committed before')");
    const filler = fillDisk(disk.dir);
    // Write-ahead log records without table pages: the log needs a new segment and finds no room.
    let stopped: unknown;
    for (let i = 0; i < 64 && stopped === undefined; i++) {
      stopped = await failure(() => db.query("SELECT pg_logical_emit_message(false, 'probe', repeat('x', 1000000))"));
    }
    expectStorageFull(stopped);
    expectStorageFull(await failure(() => db.query('SELECT count(*) FROM notes')));
    expectStorageFull(await failure(() => db.ping(1000)));

    fs.rmSync(filler);
    // The engine is opened again (at most once a second), with crash recovery.
    const until = Date.now() + scaled(15_000);
    while ((await failure(() => db.ping(5000))) !== undefined && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    await db.ping(5000);
    expect(await db.query<{ body: string }>('SELECT body FROM notes ORDER BY id')).toEqual([{ body: 'committed before' }]);
    await db.query("INSERT INTO notes (body) VALUES ('written after')");
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM notes'))[0].n).toBe(2);
  });

  it('opening on a full disk is one StorageFullError naming the data directory, leaves nothing half-initialised, and opens once there is room', async () => {
    const disk = mount(16); // a new store needs about 40 MB
    const dataDir = path.join(disk.dir, 'data');
    const err = await failure(() => openPglite(dataDir));
    expect(err).toBeInstanceOf(StorageFullError);
    expect((err as Error).message).toContain(dataDir);
    expect((err as Error).message).toMatch(/is full/);
    expect((err as Error).message).not.toContain('\n');
    expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'tradegraph.lock'))).toBe(false);
    // The same on a second attempt (not "failed to initialize properly").
    expect(await failure(() => openPglite(dataDir))).toBeInstanceOf(StorageFullError);

    disk.resize(96);
    const db = await openOn(disk.dir);
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });
});
