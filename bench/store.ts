/**
 * The store after the demo's first start, and the memory a first start leaves against a warm one:
 *
 *   1. first start: `node dist/cli/start.js` (every origin, the default demo config, as `npm start`) on a
 *      scratch DATA_DIR, in a child process of its own; its time to "Ready", each start-up step's time
 *      (the "Start-up steps" line when start.ts prints it, else the moments its progress lines appeared),
 *      and its RSS (VmRSS of /proc/<pid>/status) when it prints "Ready"; then Ctrl-C (SIGINT);
 *   2. the store on disk: total, pglite/base and pglite/pg_wal (allocated blocks, as du counts them);
 *   3. warm start: `node dist/cli/start.js` again on the same directory, in a fresh child process: its
 *      time to "Ready" and its RSS then; then Ctrl-C;
 *   4. per table and index sizes (pg_total_relation_size), bytes per bar and per snapshot.
 *
 * Targets (printed, never asserted): the store at most 250 MB after the first start, the first start
 * under 25 s on 2 idle cores, the RSS after it within 1.3x of the warm start's. The machine's cores and
 * load averages are printed beside the figures. Only DATA_DIR and the ports are set: everything else is
 * the caller's environment (DATABASE_URL is removed: this measures the embedded store).
 *
 *   npm run bench:store
 *   KEEP_DATA_DIR=1 npm run bench:store      # keep the scratch directory (printed) for a look afterwards
 *   START_UP_CHILD=false npm run bench:store # the start-up steps in the serving process (the baseline)
 *
 * By default a first start runs its start-up steps in a child process that exits before the origins open
 * the store; the RSS read is the serving process's.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PGlite } from '@electric-sql/pglite';
import { loadConfig } from '../subgraphs/platform/config.js';
import { STORE_TEMPLATE_DIR } from '../subgraphs/platform/db.js';
import { PROJECT_ROOT } from '../subgraphs/platform/project.js';

const START_JS = path.join(PROJECT_ROOT, 'dist', 'cli', 'start.js');
const MB = 1024 * 1024;
const TARGET_STORE_MB = 250;
const TARGET_FIRST_START_S = 25;
const TARGET_RSS_RATIO = 1.3;
/** Longest wait for a start's "Ready" (a first start on a loaded 2-core machine takes minutes). */
const READY_LIMIT_MS = 15 * 60_000;

const loads = (): string => os.loadavg().map((l) => l.toFixed(2)).join(' / ');
const mb = (bytes: number): string => (bytes / MB).toFixed(1);

interface StartRun {
  readyMs: number;
  rssBytes: number;
  peakRssBytes: number;
  /** The store on disk when "Ready" was printed. */
  disk: Disk;
  /** Each output line with the milliseconds since the spawn at which it arrived. */
  lines: Array<{ at: number; text: string }>;
}

/** Runs start.js on dataDir until it prints "Ready", reads its memory, stops it with SIGINT. */
async function runStart(dataDir: string): Promise<StartRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ANALYSIS_PORT: '0', ALLOCATION_PORT: '0', SEARCH_PORT: '0', GATEWAY_PORT: '0' };
  delete env.DATABASE_URL;
  const started = performance.now();
  const child = spawn(process.execPath, [START_JS], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start dist/cli/start.js');
  const killGroup = () => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', killGroup);
  const lines: StartRun['lines'] = [];
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    const ready = await new Promise<Omit<StartRun, 'lines'>>((resolve, reject) => {
      let pending = '';
      const timer = setTimeout(() => reject(new Error(`no "Ready" within ${READY_LIMIT_MS / 1000} s; output:\n${output}`)), READY_LIMIT_MS);
      const onData = (chunk: Buffer) => {
        const at = performance.now() - started;
        output += chunk.toString();
        pending += chunk.toString();
        // Progress bars redraw with \r: each redraw counts as a line too.
        const parts = pending.split(/\r?\n|\r/);
        pending = parts.pop() ?? '';
        for (const text of parts) if (text.trim()) lines.push({ at, text });
        if (/Ready in [\d.]+ s/.test(output)) {
          clearTimeout(timer);
          const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
          const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
          resolve({ readyMs: at, rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM'), disk: storeOnDisk(dataDir) });
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then((code) => reject(new Error(`start.js exited (code ${code}) before "Ready"; output:\n${output}`)));
    });
    child.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<'late'>((r) => setTimeout(() => r('late'), 60_000))]);
    if (code === 'late') throw new Error(`start.js did not stop within 60 s of SIGINT; output:\n${output}`);
    if (code !== 0) throw new Error(`start.js stopped with code ${code}; output:\n${output}`);
    return { ...ready, lines };
  } finally {
    killGroup();
    process.off('exit', killGroup);
  }
}

interface Disk {
  total: number;
  base: number;
  wal: number;
}

/** The data directory's bytes on disk: in all, and PGlite's base and pg_wal. */
function storeOnDisk(dataDir: string): Disk {
  const engineDir = path.join(dataDir, 'pglite');
  return { total: diskBytes(dataDir), base: diskBytes(path.join(engineDir, 'base')), wal: diskBytes(path.join(engineDir, 'pg_wal')) };
}

const diskLine = (d: Disk): string => `${mb(d.total)} MB (pglite/base ${mb(d.base)} MB, pglite/pg_wal ${mb(d.wal)} MB, the rest ${mb(d.total - d.base - d.wal)} MB)`;

/** Bytes allocated on disk under dir (what du counts); a file removed while it is counted counts 0. */
function diskBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += diskBytes(full);
    else if (entry.isFile()) total += (fs.statSync(full, { throwIfNoEntry: false })?.blocks ?? 0) * 512;
  }
  return total;
}

/** The step times: start.ts's "Start-up steps" line, or the moments the progress lines appeared. */
function stepTimes(run: StartRun): string[] {
  const line = run.lines.find((l) => l.text.startsWith('Start-up steps: '));
  if (line) return line.text.slice('Start-up steps: '.length).split(', ');
  const first = (re: RegExp) => run.lines.find((l) => re.test(l.text))?.at;
  const marks: Array<[string, number | undefined]> = [
    ['process start and migrations, demo market generated', first(/^Generating the synthetic demo market/)],
    ['demo market stored, demo book, analysis loaded and trained', first(/^Analysing the last/)],
    // Builds before the recent days and the history went in one run analysed the history apart.
    ['recent analysis stored, history loaded and trained', first(/^Analysing every/)],
    ['analysis stored, evidence, origins listening', run.readyMs],
  ];
  const out: string[] = [];
  let previous = 0;
  for (const [label, at] of marks) {
    if (at === undefined) continue;
    out.push(`${label} ${((at - previous) / 1000).toFixed(1)} s (by when its output appeared)`);
    previous = at;
  }
  const summary = run.lines.filter((l) => /prepare \d+ ms|Evidence measured|Demo market loaded|History:/.test(l.text)).map((l) => l.text.trim());
  return [...out, ...summary];
}

interface RelationSize {
  name: string;
  bytes: number;
}

/** Sizes of the public tables (with their TOAST and indexes) and of each index, and the row counts. */
async function relationSizes(dataDir: string): Promise<{ tables: RelationSize[]; indexes: RelationSize[]; bars: number; snapshots: number; packed: number }> {
  const lite = await PGlite.create({ dataDir: path.join(dataDir, 'pglite') });
  try {
    const rows = async <T>(sql: string) => (await lite.query<T>(sql)).rows;
    const tables = await rows<RelationSize>(
      `SELECT c.relname AS name, pg_total_relation_size(c.oid)::float8 AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC`,
    );
    const indexes = await rows<RelationSize>(
      `SELECT c.relname AS name, pg_relation_size(c.oid)::float8 AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'i' ORDER BY 2 DESC`,
    );
    const [counts] = await rows<{ bars: number; snapshots: number; packed: number }>(
      `SELECT (SELECT count(*) FROM bars)::float8 AS bars, (SELECT count(*) FROM analysis_snapshots)::float8 AS snapshots,
              (SELECT count(*) FROM analysis_snapshots WHERE doc_packed IS NOT NULL)::float8 AS packed`,
    );
    return { tables, indexes, ...counts };
  } finally {
    await lite.close();
  }
}

async function main(): Promise<void> {
  if (!fs.existsSync(START_JS)) throw new Error(`${START_JS} is missing: npm run build first`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-bench-store-'));
  // Whether other work was running is judged before the first start: during it the start's own work is the load.
  const loadBefore = os.loadavg()[0];
  console.log(`bench:store on ${os.availableParallelism()} cores (${os.cpus()[0]?.model ?? 'unknown cpu'}), load average ${loads()} (1/5/15 min)`);
  console.log(`scratch DATA_DIR ${dataDir}`);
  const inChild = loadConfig().startUpChild;
  console.log(`start-up steps of the first start: ${inChild ? 'in a child process of their own' : 'in the serving process'} (START_UP_CHILD=${inChild})`);
  const template = fs.existsSync(path.join(STORE_TEMPLATE_DIR, 'template.json'));
  console.log(`new store: ${template ? `a copy of the build's store template (${path.relative(PROJECT_ROOT, STORE_TEMPLATE_DIR)})` : "PGlite's initdb (no store template: npm run build makes one)"}`);
  try {
    const first = await runStart(dataDir);
    console.log(`\nfirst start: Ready after ${(first.readyMs / 1000).toFixed(1)} s, load average now ${loads()}`);
    for (const step of stepTimes(first)) console.log(`  ${step}`);

    const stopped = storeOnDisk(dataDir);

    const warm = await runStart(dataDir);
    console.log(`warm start: Ready after ${(warm.readyMs / 1000).toFixed(1)} s, load average now ${loads()}`);
    const afterWarm = storeOnDisk(dataDir);

    const sizes = await relationSizes(dataDir);
    const size = (name: string) => sizes.tables.find((t) => t.name === name)?.bytes ?? 0;
    const disk = first.disk;
    console.log(`\nstore on disk when the first start was Ready: ${diskLine(disk)}`);
    console.log(`  after it stopped: ${diskLine(stopped)}; after the warm start stopped: ${diskLine(afterWarm)}`);
    console.log('  largest tables (with TOAST and indexes):');
    for (const t of sizes.tables.slice(0, 6)) console.log(`    ${t.name.padEnd(28)} ${mb(t.bytes).padStart(8)} MB`);
    console.log('  largest indexes:');
    for (const i of sizes.indexes.slice(0, 5)) console.log(`    ${i.name.padEnd(36)} ${mb(i.bytes).padStart(8)} MB`);
    console.log(`  bars: ${sizes.bars} rows, ${(size('bars') / sizes.bars).toFixed(1)} bytes per bar (heap and primary key)`);
    console.log(
      `  snapshots: ${sizes.snapshots} rows (${sizes.packed} packed), ${(size('analysis_snapshots') / sizes.snapshots).toFixed(0)} bytes per snapshot (heap, TOAST and both indexes)`,
    );

    const ratio = first.rssBytes / warm.rssBytes;
    console.log(`\nRSS when Ready: first start ${mb(first.rssBytes)} MB (peak ${mb(first.peakRssBytes)} MB), warm start ${mb(warm.rssBytes)} MB (peak ${mb(warm.peakRssBytes)} MB)`);
    console.log('\ntargets (reported, not asserted):');
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
    console.log(`  store <= ${TARGET_STORE_MB} MB after the first start: ${mb(disk.total)} MB -> ${verdict(disk.total <= TARGET_STORE_MB * MB)}`);
    console.log(`  first start < ${TARGET_FIRST_START_S} s on 2 idle cores: ${(first.readyMs / 1000).toFixed(1)} s with load average ${loads()} -> ${verdict(first.readyMs < TARGET_FIRST_START_S * 1000)}${loadBefore > 0.5 ? ` (the machine was not idle: load average ${loadBefore.toFixed(2)} before it)` : ` (idle before it: load average ${loadBefore.toFixed(2)})`}`);
    console.log(`  RSS first / warm <= ${TARGET_RSS_RATIO}x: ${ratio.toFixed(2)}x -> ${verdict(ratio <= TARGET_RSS_RATIO)}`);
  } finally {
    if (process.env.KEEP_DATA_DIR) console.log(`kept ${dataDir}`);
    else fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
