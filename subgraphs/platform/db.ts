/**
 * Storage: one interface that speaks SQL to the embedded PGlite store (default, data on disk under
 * DATA_DIR) or to a PostgreSQL server (DATABASE_URL). Same SQL, same migrations, same results: dates
 * come back as 'YYYY-MM-DD' strings, bigint and numeric as numbers, timestamptz as ISO 8601 strings.
 *
 * Failures of the store itself reach callers as AppErrors, which every origin answers with 503:
 * `SERVICE_UNAVAILABLE` when the database is unreachable or does not answer within the deadline,
 * `STORAGE_FULL` when it refuses a write for lack of disk space. Other SQL errors pass through as they are.
 *
 * Deadline (`queryTimeoutMs`, DB_QUERY_TIMEOUT_MS for the origins; unset: none, for batch commands):
 * - PostgreSQL: one call waits at most the deadline in all, for a pooled connection and then for its
 *   statement. The server cancels a statement that runs longer (`statement_timeout`); a server that
 *   stops answering altogether (stopped, frozen, cut off) is given up on client-side, and that connection
 *   is destroyed, never handed back to the pool, so the pool recovers once the server answers again.
 *   Inside a transaction each statement has the deadline; a transaction that fails on a dead connection
 *   is not committed (the server rolls it back when the connection goes). TCP keepalive lets the
 *   operating system notice a server host that vanished from the network.
 * - PGlite runs inside this process on a single connection: calls take turns, and a call that waited
 *   the deadline for its turn gives up with 503 and never runs afterwards. A statement that has started
 *   cannot be interrupted (the engine runs it in this thread), nor can a transaction that holds the
 *   connection: on PGlite the deadline bounds waiting for the store, not the work of a statement.
 *
 * Full disk: a write refused for lack of space (SQLSTATE 53100, ENOSPC) is `STORAGE_FULL`, and ping()
 * fails while the store is in that state, so the readiness probes answer 503; each ping then tries a
 * small write that is rolled back, and the first one that succeeds clears the state. When PGlite's
 * write-ahead log itself runs out of room the engine stops (a PostgreSQL PANIC): the store then opens it
 * again on the next call, which succeeds once there is room, recovering everything committed before.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import pg from 'pg';
import { AppError } from './errors.js';
import { PROJECT_ROOT } from './project.js';

export type Row = Record<string, unknown>;

export interface Queryable {
  /** Runs one statement with $1..$n parameters and returns its rows. */
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Bulk load: `COPY <target> FROM ... WITH (FORMAT binary)` of rows in PostgreSQL's binary COPY format
   * (copy-binary.ts). `target` is a table and its column list, written by the caller (never user input).
   * Only the embedded store has it (its engine reads the rows from memory); PostgreSQL's COPY FROM STDIN
   * needs the wire protocol's copy mode, which the pg client leaves to a stream package, so callers fall
   * back to INSERT there.
   */
  copyBinary?(target: string, rows: Uint8Array): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs fn in a transaction: committed when fn resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Resolves when the database answers within timeoutMs; rejects otherwise, and while storage refuses
   * writes for lack of space (STORAGE_FULL) until a probe write succeeds again.
   */
  ping(timeoutMs: number): Promise<void>;
  /**
   * After a batch of heavy writes: lets the store give back the disk its write-ahead log took. The
   * embedded store checkpoints (single-user PostgreSQL never does on its own) and deletes the log segments
   * nothing needs any more; PostgreSQL's own checkpointer does this, so there it does nothing. Optional:
   * a wrapper without it (a test double) simply skips the step.
   */
  checkpoint?(): Promise<void>;
  /**
   * The embedded store's files as one uncompressed tar (PGlite's dump), which openPglite's `restoreFrom`
   * starts a store from without creating one afresh (about 0.4 s against 1.3 s). Embedded store only.
   */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082, TIMESTAMPTZ: 1184, TIMESTAMP: 1114 } as const;
/**
 * PostgreSQL's text form of a timestamp ('2024-01-02 08:34:05.678+05:30', '... -03', or no zone
 * for `timestamp`) as an ISO 8601 instant; 'infinity' and other non-instants stay as they are.
 */
export function toIso(text: string): string {
  const zone = /([+-]\d\d)(?::?(\d\d))?(?::?\d\d)?$/.exec(text);
  const local = zone ? text.slice(0, zone.index) : text;
  const offset = zone ? `${zone[1]}:${zone[2] ?? '00'}` : 'Z';
  const date = new Date(`${local.replace(' ', 'T')}${offset}`);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

const textParsers: Record<number, (text: string) => unknown> = {
  [OID.INT8]: (t) => Number(t),
  [OID.NUMERIC]: (t) => Number(t),
  [OID.DATE]: (t) => t,
  [OID.TIMESTAMPTZ]: toIso,
  [OID.TIMESTAMP]: toIso,
};

// ---------------------------------------------------------------------------------------------------------
// Failures of the store, and what callers see of them
// ---------------------------------------------------------------------------------------------------------

interface ErrorFields {
  code?: unknown;
  message?: unknown;
  severity?: unknown;
  errno?: unknown;
  name?: unknown;
}

/** The fields of a thrown value, duck-typed: driver errors may come from another realm (VM contexts). */
function fieldsOf(err: unknown): ErrorFields {
  return typeof err === 'object' && err !== null ? (err as ErrorFields) : {};
}

/** ENOSPC as PGlite's file system (Emscripten, WASI numbering) reports it. */
const WASI_ENOSPC = 51;

/** A write refused for lack of disk space: SQLSTATE 53100, ENOSPC, or "No space left on device". */
export function isStorageFull(err: unknown): boolean {
  if (err instanceof AppError) return err.code === 'STORAGE_FULL';
  if (err instanceof StorageFullError) return true;
  const { code, message, errno, name } = fieldsOf(err);
  return (
    code === '53100' ||
    code === 'ENOSPC' ||
    (name === 'ErrnoError' && errno === WASI_ENOSPC) ||
    (typeof message === 'string' && /No space left on device/i.test(message))
  );
}

/** A statement or a connection that did not answer within its deadline. */
function isDeadlineError(err: unknown): boolean {
  const { code, message } = fieldsOf(err);
  return err instanceof DeadlineError || code === '57014' || (typeof message === 'string' && /^Query read timeout$/.test(message));
}

/** Maps a driver failure (server gone, pool timeout, deadline) to 503; anything else stays as it is. */
export function isConnectionError(err: unknown): boolean {
  // Duck-typed, not `instanceof Error`: socket errors are created by Node's own realm, which is not
  // always the realm of this module (a VM context, a test runner's sandbox).
  if (typeof err !== 'object' || err === null) return false;
  const { code = '', message = '' } = err as { code?: unknown; message?: unknown };
  return (
    isDeadlineError(err) ||
    (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '08006', '08001', '08003'].includes(code)) ||
    (typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect|database closed|PGlite is closed|Client has encountered a connection error/i.test(message))
  );
}

export function unavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The database is unavailable; try again shortly');
}

function tooSlow(ms: number): AppError {
  return new AppError('SERVICE_UNAVAILABLE', `The database did not answer within ${ms} ms; try again shortly`);
}

function storageFull(): AppError {
  return new AppError('STORAGE_FULL', 'The storage is full: writes are refused until space is freed; try again later');
}

/** Raised inside this module when a deadline passes; callers see tooSlow(). */
class DeadlineError extends Error {
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'DeadlineError';
  }
}

/** What a caller sees of a store failure: an AppError for the known ones, anything else unchanged. */
function storeFailure(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (isStorageFull(err)) return storageFull();
  if (err instanceof DeadlineError) return tooSlow(err.ms);
  if (isConnectionError(err)) return unavailable();
  return err;
}

/**
 * The store cannot start because its disk is full: one line for the operator, naming where.
 * (At run time the same condition is the STORAGE_FULL AppError, which names no path.)
 */
export class StorageFullError extends Error {
  constructor(readonly where: string, freeBytes?: number) {
    const free = freeBytes === undefined ? '' : ` (${(freeBytes / 1024 / 1024).toFixed(1)} MB free)`;
    super(`The disk holding ${where} is full${free}: no space left on device. Free some space and start again.`);
    this.name = 'StorageFullError';
  }

  /** The error for the configured store: the PostgreSQL server's disk, or the data directory's. */
  static of(store: { databaseUrl?: string; dataDir?: string }): StorageFullError {
    if (store.databaseUrl) return new StorageFullError(`the PostgreSQL server at ${new URL(store.databaseUrl).host}`);
    return new StorageFullError(`the data directory ${store.dataDir ?? '(in memory)'}`, store.dataDir ? freeBytes(store.dataDir) : undefined);
  }
}

/** Bytes free for this process on the file system holding `dir` (its nearest existing ancestor). */
function freeBytes(dir: string): number | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      const s = fs.statfsSync(at);
      return s.bavail * s.bsize;
    } catch {
      if (path.dirname(at) === at) return undefined;
    }
  }
}

/**
 * Room the embedded store needs to start on an existing data directory: PostgreSQL writes a new 16 MB
 * write-ahead log segment and a checkpoint while it opens (measured: 16 MB free is not enough, 18 MB is).
 */
const START_ROOM_BYTES = 32 * 1024 * 1024;

/** The error a failed open of PGlite stands for: StorageFullError when its disk is (nearly) full. */
function openFailure(err: unknown, dataDir: string | undefined): Error {
  const free = dataDir === undefined ? undefined : freeBytes(dataDir);
  if (dataDir !== undefined && (isStorageFull(err) || (free !== undefined && free < START_ROOM_BYTES))) {
    return new StorageFullError(`the data directory ${dataDir}`, free);
  }
  if (err instanceof Error) return err;
  // PGlite's file system throws plain objects ({name: 'ErrnoError', errno}): say what it was.
  const { name, errno } = fieldsOf(err);
  return new Error(`The embedded store could not open${dataDir ? ` ${dataDir}` : ''}: ${String(name ?? 'error')}${errno === undefined ? '' : ` (errno ${String(errno)})`}`);
}

// ---------------------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------------------

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The write probe of ping() while storage refuses writes: a temporary table filled with about 256 KB
 * (new pages on disk), inside a transaction the caller rolls back. Nothing stays behind.
 */
const WRITE_PROBE_SQL = `CREATE TEMP TABLE tradegraph_write_probe (filler text) ON COMMIT DROP;
INSERT INTO tradegraph_write_probe SELECT repeat(md5(g::text), 30) FROM generate_series(1, 256) AS g;`;

/** Whether storage refused a write for lack of space, until a probe write succeeds again. */
class WriteRefusal {
  private refused = false;

  /** Notes a failure: refusals for lack of space set the state. Returns what the caller should see. */
  note(err: unknown): unknown {
    if (isStorageFull(err)) this.refused = true;
    return storeFailure(err);
  }

  /** While refused: runs the probe; a success clears the state, a refusal keeps it (STORAGE_FULL). */
  async check(probe: () => Promise<void>): Promise<void> {
    if (!this.refused) return;
    try {
      await probe();
    } catch (err) {
      throw this.note(err);
    }
    this.refused = false;
  }
}

/** One connection's turns, first come first served; a caller that waited too long leaves the queue. */
class Turns {
  private busy = false;
  private readonly waiting: Array<() => boolean> = [];

  /** Resolves with a release function once it is the caller's turn; rejects after waitMs (none: waits). */
  take(waitMs: number | undefined): Promise<() => void> {
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const since = Date.now();
      let timer: NodeJS.Timeout | undefined;
      // Returns false when the caller's deadline passed before its turn came (a statement that blocked
      // this thread can end after the deadline but before the timer below had a chance to run).
      const grant = (): boolean => {
        clearTimeout(timer);
        if (waitMs !== undefined && Date.now() - since >= waitMs) {
          reject(new DeadlineError(waitMs));
          return false;
        }
        resolve(this.releaser());
        return true;
      };
      this.waiting.push(grant);
      if (waitMs === undefined) return;
      timer = setTimeout(() => {
        const at = this.waiting.indexOf(grant);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        reject(new DeadlineError(waitMs));
      }, waitMs);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (let next = this.waiting.shift(); next; next = this.waiting.shift()) if (next()) return;
      this.busy = false;
    };
  }
}

// ---------------------------------------------------------------------------------------------------------
// PGlite
// ---------------------------------------------------------------------------------------------------------

/**
 * Takes the data directory for this process (a lock file holding our pid). PGlite is one process's
 * database: a second process on the same directory would corrupt it, so it is refused with advice.
 */
function lockDataDir(dataDir: string): () => void {
  const lock = path.join(dataDir, 'tradegraph.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number(fs.readFileSync(lock, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
        throw new Error(
          `The data directory ${dataDir} is in use by process ${pid}. Start the origins in one process ` +
            '(npm start), or give each its own DATA_DIR, or point them all at PostgreSQL with DATABASE_URL.',
        );
      }
      fs.rmSync(lock, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Cannot lock the data directory ${dataDir}`);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * bytea (oid 17) to and from its hex text in one call each, instead of PGlite's default parser and
 * serializer, which handle one number per byte (a stored snapshot's 2 KB took about 0.6 ms to send).
 */
const BYTEA_OID = 17;
const pgliteParsers = {
  ...Object.fromEntries(Object.entries(textParsers).map(([oid, fn]) => [Number(oid), fn])),
  [BYTEA_OID]: (text: string) => Buffer.from(text.slice(2), 'hex'),
};
const pgliteSerializers = {
  [BYTEA_OID]: (value: unknown): string => {
    if (!(value instanceof Uint8Array)) throw new TypeError('A bytea parameter must be a Buffer or Uint8Array');
    return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  },
};

/** The embedded engine reads a query's `blob` option as the file /dev/blob. */
const copyBinarySql = (target: string): string => `COPY ${target} FROM '/dev/blob' WITH (FORMAT binary)`;

/** PGlite's own start parameters (single-user mode and its settings), which ours extend. */
const PGLITE_START_PARAMS: readonly string[] = (PGlite as unknown as { defaultStartParams?: readonly string[] }).defaultStartParams ?? [
  '--single', '-F', '-O', '-j', '-c', 'search_path=public', '-c', 'exit_on_error=false', '-c', 'log_checkpoints=false',
  '-c', 'max_worker_processes=0', '-c', 'max_parallel_workers=0', '-c', 'max_parallel_workers_per_gather=0', '-c', 'io_method=sync',
  '-c', 'max_parallel_maintenance_workers=0',
];

/**
 * The embedded engine's write-ahead log settings, given on its command line so they hold from the first
 * statement (ALTER SYSTEM only takes effect at the next start). PGlite runs PostgreSQL in single-user
 * mode: no checkpointer, so nothing checkpoints on its own (max_wal_size and min_wal_size play no part)
 * and the log grows until checkpoint() or the shutdown checkpoint of close(). With wal_recycle off, a
 * checkpoint deletes the segments it no longer needs instead of keeping up to max_wal_size of them
 * renamed for reuse, so the log shrinks back to a segment or two. wal_level=minimal (no replica or archive
 * ever reads an embedded store's log; max_wal_senders=0 is what it requires) lets a bulk load into a table
 * emptied in its own transaction skip the log (analysis/store.ts bulkLoadIntoEmptyTable).
 */
const PGLITE_SETTINGS = ['wal_recycle=off', 'wal_level=minimal', 'max_wal_senders=0'];

/**
 * A new store's write-ahead log segments are 1 MB instead of PostgreSQL's 16 MB, so what stays in pg_wal
 * after a checkpoint is about a megabyte. (Fixed when the store is created: older stores keep theirs.)
 */
const PGLITE_INITDB = ['--wal-segsize=1'];

/**
 * A new store's first files: the data directory PGlite's initdb makes, made once by the build
 * (writeStoreTemplate, `npm run build`) and copied for each new store, instead of running initdb, about
 * 2-3 s of the first start, each time. Used only when it was made by this engine version with these
 * initdb parameters (its template.json); otherwise a new store runs initdb as before.
 */
export const STORE_TEMPLATE_DIR = path.join(PROJECT_ROOT, 'dist', 'store-template');

/** The embedded engine's version (its package's), or null when it cannot be read. */
export function pgliteVersion(): string | null {
  try {
    // The package's exports leave out its package.json: found above its entry point.
    for (let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      const file = path.join(dir, 'package.json');
      if (!fs.existsSync(file)) continue;
      const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === '@electric-sql/pglite' && manifest.version) return manifest.version;
    }
    return null;
  } catch {
    return null;
  }
}

/** What a template must have been made with: this engine version and these initdb parameters; null when the version cannot be read. */
function templateKey(): { pglite: string; initdb: readonly string[] } | null {
  const pglite = pgliteVersion();
  return pglite === null ? null : { pglite, initdb: PGLITE_INITDB };
}

/** Every file under `dir` with its size, by path relative to it, sorted: what a copy of the template must hold. */
function fileList(dir: string): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push([path.relative(dir, full), fs.statSync(full).size]);
    }
  };
  walk(dir);
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

interface TemplateManifest {
  key: NonNullable<ReturnType<typeof templateKey>>;
  files: Array<[string, number]>;
}

/**
 * Makes the store template under `dir` (default STORE_TEMPLATE_DIR), replacing one made before: made in a
 * scratch directory of this process's own, then swapped in by renames, so that two builds at once do not
 * mix their files, and a store being copied from the old one meanwhile finds its copy incomplete
 * (storeFromTemplate checks it against the manifest) rather than a mixture.
 */
export async function writeStoreTemplate(dir = STORE_TEMPLATE_DIR): Promise<void> {
  const key = templateKey();
  if (key === null) throw new Error('the embedded engine\'s version cannot be read: no store template');
  const scratch = `${dir}.making-${process.pid}`;
  const old = `${dir}.old-${process.pid}`;
  fs.rmSync(scratch, { recursive: true, force: true });
  try {
    fs.mkdirSync(scratch, { recursive: true });
    const lite = await PGlite.create({ dataDir: path.join(scratch, 'pglite'), startParams: engineStartParams(), initDbStartParams: PGLITE_INITDB });
    await lite.close();
    const manifest: TemplateManifest = { key, files: fileList(path.join(scratch, 'pglite')) };
    fs.writeFileSync(path.join(scratch, 'template.json'), `${JSON.stringify(manifest)}\n`);
    if (fs.existsSync(dir)) fs.renameSync(dir, old);
    fs.renameSync(scratch, dir);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
    fs.rmSync(old, { recursive: true, force: true });
  }
}

/**
 * Gives a store that does not exist yet the template's files, when there is a template for this engine:
 * copied beside engineDir, checked against the template's manifest (every file, at its size), and renamed
 * into place, so that a copy cut short or taken while a build replaced the template leaves no store that
 * looks made. Returns whether it did; false (the caller runs initdb) for no template, one of another
 * engine version or initdb parameters, or a copy that does not match.
 */
function storeFromTemplate(engineDir: string, templateDir: string): boolean {
  const scratch = `${engineDir}.from-template`;
  fs.rmSync(scratch, { recursive: true, force: true });
  let manifest: TemplateManifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(templateDir, 'template.json'), 'utf8')) as TemplateManifest;
  } catch {
    return false;
  }
  if (JSON.stringify(manifest.key) !== JSON.stringify(templateKey())) return false;
  try {
    fs.cpSync(path.join(templateDir, 'pglite'), scratch, { recursive: true });
    if (JSON.stringify(fileList(scratch)) !== JSON.stringify(manifest.files)) {
      fs.rmSync(scratch, { recursive: true, force: true });
      return false;
    }
    fs.renameSync(scratch, engineDir);
  } catch (err) {
    fs.rmSync(scratch, { recursive: true, force: true });
    if (isStorageFull(err)) throw err;
    return false; // the template went away while it was copied, or cannot be read: initdb instead
  }
  return true;
}

const engineStartParams = (): string[] => [...PGLITE_START_PARAMS, ...PGLITE_SETTINGS.flatMap((s) => ['-c', s])];

/**
 * Starts the engine on dataDir/pglite (in memory without a data directory); a new store starts from the
 * store template when there is one (storeFromTemplate). A store that did not exist before and failed to
 * initialise is removed again: the next start initialises it afresh instead of failing on a
 * half-written directory.
 */
async function startEngine(dataDir: string | undefined, restoreFrom?: Blob, templateDir = STORE_TEMPLATE_DIR): Promise<PGlite> {
  const startParams = engineStartParams();
  if (!dataDir) return PGlite.create({ parsers: pgliteParsers, serializers: pgliteSerializers, startParams, ...(restoreFrom && { loadDataDir: restoreFrom }) });
  const engineDir = path.join(dataDir, 'pglite');
  const fresh = !fs.existsSync(engineDir);
  const create = () => PGlite.create({ dataDir: engineDir, parsers: pgliteParsers, serializers: pgliteSerializers, startParams, initDbStartParams: PGLITE_INITDB });
  try {
    if (fresh && storeFromTemplate(engineDir, templateDir)) {
      try {
        return await create();
      } catch (err) {
        if (isStorageFull(err)) throw err;
        // A template the engine does not start on: this store is made by initdb after all.
        fs.rmSync(engineDir, { recursive: true, force: true });
      }
    }
    return await create();
  } catch (err) {
    const failure = openFailure(err, dataDir); // before the removal below frees space again
    if (fresh) fs.rmSync(engineDir, { recursive: true, force: true });
    throw failure;
  }
}

/** Shortest interval between two attempts to open a stopped engine again. */
const REOPEN_INTERVAL_MS = 1000;

/**
 * Deletes the write-ahead log segments of the current timeline that lie ahead of the one being written:
 * stores opened before wal_recycle was off kept up to hundreds of megabytes of old segments renamed for
 * reuse, which no checkpoint removes. The engine creates a segment again when the log reaches it, and
 * nothing else runs on it meanwhile (single connection, in its turn).
 */
async function dropPreallocatedWal(lite: PGlite, walDir: string): Promise<void> {
  const [{ current }] = (await lite.query<{ current: string }>('SELECT pg_walfile_name(pg_current_wal_insert_lsn()) AS current')).rows;
  const timeline = current.slice(0, 8);
  let names: string[];
  try {
    names = fs.readdirSync(walDir);
  } catch {
    return; // not where PGlite keeps it: nothing to tidy
  }
  for (const name of names) {
    if (/^[0-9A-F]{24}$/.test(name) && name.startsWith(timeline) && name > current) fs.rmSync(path.join(walDir, name), { force: true });
  }
}

/** Embedded PostgreSQL (WASM) on disk under dataDir (or in memory when dataDir is undefined). */
export async function openPglite(dataDir: string | undefined, options: { queryTimeoutMs?: number; restoreFrom?: Blob; templateDir?: string } = {}): Promise<Db> {
  if (dataDir && options.restoreFrom) throw new Error('openPglite: restoreFrom starts a store in memory only');
  let unlock = () => {};
  if (dataDir) {
    try {
      fs.mkdirSync(dataDir, { recursive: true });
      unlock = lockDataDir(dataDir);
    } catch (err) {
      throw isStorageFull(err) ? new StorageFullError(`the data directory ${dataDir}`, freeBytes(dataDir)) : err;
    }
  }
  let lite: PGlite | undefined;
  try {
    lite = await startEngine(dataDir, options.restoreFrom, options.templateDir);
  } catch (err) {
    await lite?.close().catch(() => undefined);
    unlock();
    throw err instanceof StorageFullError ? err : openFailure(err, dataDir);
  }
  return pgliteDb(lite, dataDir, unlock, options.queryTimeoutMs);
}

/** The Db over a running engine: turns with a deadline, full-disk state, reopening after a PANIC. */
function pgliteDb(started: PGlite, dataDir: string | undefined, unlock: () => void, deadline: number | undefined): Db {
  let lite = started;
  const turns = new Turns();
  const refusal = new WriteRefusal();
  let closed = false;
  // A PANIC (PostgreSQL's "stop now", e.g. no room for the write-ahead log) leaves the engine unable to
  // run anything. It is abandoned, not closed: closing runs PostgreSQL's shutdown (a checkpoint), which
  // must not happen after a PANIC. The next call opens the directory again, after crash recovery.
  let stopped = false;
  let lastReopen = 0;

  const noteStop = (err: unknown) => {
    if (fieldsOf(err).severity === 'PANIC') stopped = true;
  };

  /** The running engine; after a PANIC, opened again (at most once per REOPEN_INTERVAL_MS). */
  const engine = async (): Promise<PGlite> => {
    if (!stopped) return lite;
    // In memory there is nothing to reopen: the data went with the engine.
    if (!dataDir || Date.now() - lastReopen < REOPEN_INTERVAL_MS) throw reopenFailure(undefined);
    lastReopen = Date.now();
    try {
      lite = await startEngine(dataDir);
    } catch (err) {
      throw reopenFailure(err);
    }
    stopped = false;
    return lite;
  };

  /** Why the stopped engine is not back: its disk is still full (STORAGE_FULL), or unavailable. */
  const reopenFailure = (err: unknown): AppError => {
    if (dataDir && openFailure(err, dataDir) instanceof StorageFullError) return refusal.note(storageFull()) as AppError;
    return unavailable();
  };

  /** Runs fn on the engine in its turn, waiting at most waitMs for the turn. */
  const inTurn = async <T>(waitMs: number | undefined, fn: (engine: PGlite) => Promise<T>): Promise<T> => {
    let release: (() => void) | undefined;
    try {
      release = await turns.take(waitMs);
      if (closed) throw new Error('database closed');
      return await fn(await engine());
    } catch (err) {
      noteStop(err);
      throw refusal.note(err);
    } finally {
      release?.();
    }
  };

  /** A transaction's statements, whose failures are noted as they happen. */
  const txQueryable = (tx: Transaction, seen: { full: boolean }): Queryable => {
    const noted = (err: unknown) => {
      if (isStorageFull(err)) seen.full = true;
      noteStop(err);
      return refusal.note(err);
    };
    return {
      async query<T>(sql: string, params: readonly unknown[] = []) {
        try {
          return (await tx.query<T>(sql, params as unknown[])).rows;
        } catch (err) {
          throw noted(err);
        }
      },
      async exec(sql: string) {
        try {
          await tx.exec(sql);
        } catch (err) {
          throw noted(err);
        }
      },
      async copyBinary(target: string, rows: Uint8Array) {
        try {
          await tx.query(copyBinarySql(target), [], { blob: new Blob([rows]) });
        } catch (err) {
          throw noted(err);
        }
      },
    };
  };

  const probe = (engineNow: PGlite) =>
    engineNow.transaction(async (tx) => {
      await tx.exec(WRITE_PROBE_SQL);
      await tx.rollback();
    });

  return {
    kind: 'pglite',
    query: <T>(sql: string, params: readonly unknown[] = []) => inTurn(deadline, async (l) => (await l.query<T>(sql, params as unknown[])).rows),
    exec: (sql: string) => inTurn(deadline, async (l) => void (await l.exec(sql))),
    copyBinary: (target: string, rows: Uint8Array) =>
      inTurn(deadline, async (l) => void (await l.query(copyBinarySql(target), [], { blob: new Blob([rows]) }))),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
      inTurn(deadline, async (l) => {
        const seen = { full: false };
        try {
          return await l.transaction((tx) => fn(txQueryable(tx, seen)));
        } catch (err) {
          // After a PANIC while writing, PGlite's own ROLLBACK fails too, and that is the error it
          // throws: the lack of space seen first is what the caller learns.
          noteStop(err);
          throw seen.full && !isStorageFull(err) ? storageFull() : err;
        }
      }),
    async ping(timeoutMs) {
      await inTurn(timeoutMs, async (l) => {
        await l.query('SELECT 1');
        await refusal.check(() => probe(l));
      });
    },
    async checkpoint() {
      await inTurn(deadline, async (l) => {
        await l.exec('CHECKPOINT');
        if (dataDir) await dropPreallocatedWal(l, path.join(dataDir, 'pglite', 'pg_wal'));
      });
    },
    dumpDataDir: () => inTurn(deadline, (l) => l.dumpDataDir('none')),
    async close() {
      if (closed) return;
      closed = true;
      const release = await turns.take(undefined);
      try {
        if (!stopped) await lite.close();
      } finally {
        release();
        unlock();
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------------------------------------

export interface PostgresOptions {
  poolSize?: number;
  /** Longest wait for a connection from the pool (a free one, or a new one): default the deadline, else 5 s. */
  connectTimeoutMs?: number;
  /** The deadline of one call (see the module comment); unset: none. */
  queryTimeoutMs?: number;
  onError?: (err: Error) => void;
}

/**
 * The server-side statement_timeout for a deadline: a little under it, so that for a server that is
 * merely slow its cancel (which keeps the connection) arrives before the client gives up (which
 * destroys the connection).
 */
function serverDeadline(deadlineMs: number): number {
  return deadlineMs - Math.min(250, Math.floor(deadlineMs / 5));
}

/** How long a connection is idle before TCP keepalive probes start. */
const KEEPALIVE_DELAY_MS = 10_000;

/** A PostgreSQL server through a connection pool; reconnects by itself when the server comes back. */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Db> {
  const deadline = options.queryTimeoutMs;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? deadline ?? 5000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    ...(deadline === undefined ? {} : { statement_timeout: serverDeadline(deadline) }),
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        textParsers[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on('error', (err) => options.onError?.(err));
  const refusal = new WriteRefusal();

  /**
   * A client of the pool, and what is left of budgetMs once it is handed over. A caller that gave up
   * waiting never gets it: a client handed over later goes straight back to the pool, unused.
   */
  const acquire = async (budgetMs: number | undefined): Promise<{ client: pg.PoolClient; left: number | undefined }> => {
    const connecting = pool.connect();
    if (budgetMs === undefined) return { client: await connecting, left: undefined };
    const started = Date.now();
    let client: pg.PoolClient;
    try {
      client = await withTimeout(connecting, budgetMs);
    } catch (err) {
      connecting.then((late) => late.release(), () => undefined);
      throw err;
    }
    const left = budgetMs - (Date.now() - started);
    if (left > 0) return { client, left };
    client.release(); // handed over after the deadline (this thread was busy): unused, still healthy
    throw new DeadlineError(budgetMs);
  };

  /**
   * One statement, given up client-side after timeoutMs (DeadlineError): a server that cannot answer
   * at all (stopped, cut off) is not noticed by anything else.
   */
  const run = async (client: pg.PoolClient, sql: string, params: readonly unknown[] | undefined, timeoutMs: number | undefined) => {
    const config: pg.QueryConfig & { query_timeout?: number } = { text: sql, values: params as unknown[] | undefined };
    if (timeoutMs !== undefined) config.query_timeout = timeoutMs;
    try {
      return await client.query(config);
    } catch (err) {
      throw timeoutMs !== undefined && fieldsOf(err).message === 'Query read timeout' ? new DeadlineError(timeoutMs) : err;
    }
  };

  /**
   * Whether a client must be destroyed rather than handed back: its connection is gone, or a statement
   * may still be running on it (given up client-side). A statement the server cancelled (57014) leaves
   * the connection usable.
   */
  const unusable = (err: unknown): boolean => err instanceof DeadlineError || (isConnectionError(err) && fieldsOf(err).code !== '57014');

  /** Runs fn on its own client within budgetMs (waiting for the client included). */
  const withClient = async <T>(budgetMs: number | undefined, fn: (client: pg.PoolClient, left: number | undefined) => Promise<T>): Promise<T> => {
    const { client, left } = await acquire(budgetMs);
    let failure: unknown;
    // A connection lost while the client is out of the pool is reported here (and by the statement).
    const lost = (err: Error) => (failure ??= err);
    client.on('error', lost);
    try {
      return await fn(client, left);
    } catch (err) {
      failure ??= err;
      throw err;
    } finally {
      client.off('error', lost);
      // A client that timed out on a stopped server must not go back to the pool as if healthy.
      client.release(unusable(failure) ? (failure as Error) : undefined);
    }
  };

  const single = async <T>(sql: string, params: readonly unknown[] | undefined, budgetMs = deadline): Promise<T[]> => {
    try {
      return await withClient(budgetMs, async (client, left) => (await run(client, sql, params, left)).rows as T[]);
    } catch (err) {
      throw refusal.note(err);
    }
  };

  /** The write probe, rolled back; within budgetMs. */
  const probe = (budgetMs: number) =>
    withClient(budgetMs, async (client, left) => {
      await run(client, 'BEGIN', undefined, left);
      try {
        await run(client, WRITE_PROBE_SQL, undefined, left);
      } finally {
        await run(client, 'ROLLBACK', undefined, left);
      }
    });

  return {
    kind: 'postgres',
    query: <T>(sql: string, params: readonly unknown[] = []) => single<T>(sql, params),
    exec: async (sql: string) => {
      await single(sql, undefined); // no parameters: the simple protocol runs every statement
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      try {
        return await withClient(deadline, (client, left) => inTransaction(client, left, fn));
      } catch (err) {
        throw refusal.note(err);
      }
    },
    async ping(timeoutMs) {
      await single('SELECT 1', undefined, timeoutMs);
      await refusal.check(() => probe(timeoutMs));
    },
    async checkpoint() {},
    async close() {
      await pool.end();
    },
  };

  /**
   * BEGIN (within what is left of the deadline), fn, COMMIT; ROLLBACK when fn throws. Each statement has
   * the deadline. After a deadline or a lost connection the handle refuses everything and no ROLLBACK is
   * sent: the client is then destroyed (withClient), which ends the transaction on the server, rolled back.
   */
  async function inTransaction<T>(client: pg.PoolClient, left: number | undefined, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    // The handle also refuses work once the transaction has ended: a statement issued late (a forgotten
    // promise) must fail rather than run in autocommit on a client already back in the pool.
    let open = true;
    let broken: unknown;
    const statement = async (sql: string, params: readonly unknown[] | undefined, timeoutMs = deadline) => {
      if (broken) throw refusal.note(broken);
      try {
        return await run(client, sql, params, timeoutMs);
      } catch (err) {
        if (unusable(err)) broken = err;
        throw refusal.note(err);
      }
    };
    const ended = () => Promise.reject(new Error('transaction already ended'));
    const tx: Queryable = {
      query: async <R>(sql: string, params: readonly unknown[] = []) => (open ? ((await statement(sql, params)).rows as R[]) : ended()),
      exec: async (sql: string) => (open ? void (await statement(sql, undefined)) : ended()),
    };
    try {
      await statement('BEGIN', undefined, left);
      const result = await fn(tx);
      open = false;
      await statement('COMMIT', undefined);
      return result;
    } catch (err) {
      open = false;
      if (!broken) await statement('ROLLBACK', undefined).catch(() => undefined);
      // withClient destroys the client when the connection is unusable (the raw error says so).
      throw broken ?? err;
    } finally {
      open = false;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------

export interface StoreOptions {
  databaseUrl?: string;
  dataDir?: string;
  /** The deadline of one store call (DB_QUERY_TIMEOUT_MS for the origins); unset: none (batch commands). */
  queryTimeoutMs?: number;
  onError?: (err: Error) => void;
}

/** Opens the configured store: PostgreSQL when databaseUrl is set, otherwise PGlite under dataDir. */
export async function openDb(options: StoreOptions): Promise<Db> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, { onError: options.onError, queryTimeoutMs: options.queryTimeoutMs });
  return openPglite(options.dataDir, { queryTimeoutMs: options.queryTimeoutMs });
}

/** A store that refuses every call: for printing schemas where no database is needed. */
export function offlineDb(): Db {
  const refuse = async (): Promise<never> => {
    throw new Error('offline: no database in this context');
  };
  return { kind: 'postgres', query: refuse, transaction: refuse, exec: refuse, ping: refuse, checkpoint: refuse, close: async () => undefined };
}
