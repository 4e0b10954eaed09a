/**
 * A bulk load that skipped the write-ahead log (analysis/store.ts bulkLoadIntoEmptyTable, the embedded
 * store's wal_level=minimal) is as durable as a logged write once committed: a process killed with
 * SIGKILL right after the commit (no shutdown, no checkpoint) leaves every row on disk, and one killed
 * before the commit leaves none (the table as empty as before, and usable).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runModuleScript } from '../helpers/child.js';
import { openPglite } from '../../subgraphs/platform/db.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';

const js = (...parts: string[]) => JSON.stringify(path.join(PROJECT_ROOT, 'dist', ...parts));
const SYMBOLS = 60;
const DAYS = 1000;

/** Migrates a store on disk, loads SYMBOLS x DAYS bars into its empty bars table, and kills itself with SIGKILL after (or before) the commit. */
const script = (dir: string, killBeforeCommit: boolean) => `
import { pathToFileURL } from 'node:url';
const load = (file) => import(pathToFileURL(file).href);
const { openPglite } = await load(${js('subgraphs', 'platform', 'db.js')});
const { migrate } = await load(${js('subgraphs', 'platform', 'migrations.js')});
const { ALL_MIGRATIONS } = await load(${js('app', 'migrations.js')});
const { bulkLoadIntoEmptyTable, insertNewBarSeries, upsertSecurities } = await load(${js('subgraphs', 'analysis', 'store.js')});
const db = await openPglite(${JSON.stringify(dir)});
await migrate(db, ALL_MIGRATIONS);
const days = Array.from({ length: ${DAYS} }, (_, i) => new Date(Date.UTC(2020, 0, 1) + i * 86400000).toISOString().slice(0, 10));
const names = Array.from({ length: ${SYMBOLS} }, (_, k) => 'S' + k);
await upsertSecurities(db, names.map((symbol) => ({ symbol, name: symbol, sector: 'Information Technology', subIndustry: 'Software', assetType: 'EQUITY', dataSource: 'synthetic' })));
const values = (base) => Float64Array.from(days, (_, i) => base + i);
await db.transaction(async (tx) => {
  if (!(await bulkLoadIntoEmptyTable(tx, 'bars'))) throw new Error('bars was not emptied');
  await insertNewBarSeries(tx, names.map((symbol) => ({ symbol, dates: days, open: values(10), high: values(11), low: values(9), close: values(10.5), volume: values(1000) })));
  if (${killBeforeCommit}) process.kill(process.pid, 'SIGKILL');
});
process.kill(process.pid, 'SIGKILL');
`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function killedLoad(killBeforeCommit: boolean): Promise<{ n: number; sum: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-bulk-kill-'));
  dirs.push(dir);
  const run = await runModuleScript(script(dir, killBeforeCommit), { ms: 60_000 });
  expect(run.stderr).toBe('');
  expect(run.code).not.toBe(0); // killed, not exited
  const db = await openPglite(dir);
  try {
    const [counted] = await db.query<{ n: number; sum: number | null }>('SELECT count(*)::int AS n, sum(close)::float8 AS sum FROM bars');
    // The store takes writes again after the kill.
    await db.query("INSERT INTO bars (symbol, date, open, high, low, close, volume) VALUES ('S0', '2030-01-01', 1, 1, 1, 1, 1)");
    return { n: counted.n, sum: counted.sum ?? 0 };
  } finally {
    await db.close();
  }
}

it('every row of a committed bulk load is there after SIGKILL', async () => {
  // sum over the symbols of 10.5 + 11.5 + ... + (10.5 + DAYS - 1)
  expect(await killedLoad(false)).toEqual({ n: SYMBOLS * DAYS, sum: SYMBOLS * (DAYS * 10.5 + (DAYS * (DAYS - 1)) / 2) });
});

it('no row of a bulk load killed before its commit is there', async () => {
  expect(await killedLoad(true)).toEqual({ n: 0, sum: 0 });
});
