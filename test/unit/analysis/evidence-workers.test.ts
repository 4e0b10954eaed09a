/**
 * The start-up's evidence step on its real worker thread (the compiled code, in a child process: under the
 * test runner the sources run inline): on the same store, `refreshEvidence` with the worker stores the same
 * evidence and Kelly odds tables, byte for byte, as with everything on one thread (ANALYZE_WORKERS=0). This
 * covers what only the worker path does: the documents' buffers transferred, the plans, candidates and
 * universe cloned, and the probabilities halves and the odds computed on the other thread.
 */
import path from 'node:path';
import { runModuleScript } from '../../helpers/child.js';
import { PROJECT_ROOT } from '../../../subgraphs/platform/project.js';

const js = (...parts: string[]) => JSON.stringify(path.join(PROJECT_ROOT, 'dist', ...parts));

const SCRIPT = `
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
const load = (file) => import(pathToFileURL(file).href);
const { openDb } = await load(${js('subgraphs', 'platform', 'db.js')});
const { migrate } = await load(${js('subgraphs', 'platform', 'migrations.js')});
const { ALL_MIGRATIONS } = await load(${js('app', 'migrations.js')});
const { ensureDemoMarket } = await load(${js('subgraphs', 'analysis', 'market-data.js')});
const { ensureSampledHistory, refreshEvidence } = await load(${js('cli', 'evidence-history.js')});
const db = await openDb({});
await migrate(db, ALL_MIGRATIONS);
await ensureDemoMarket(db, { seed: 5, symbolCount: 24, years: 3, endDate: '2026-10-30', indexSymbol: 'TGMI' });
await ensureSampledHistory(db, 'TGMI', 10, { workers: 0 });
const stored = async () => {
  const hash = (rows) => createHash('sha256').update(JSON.stringify(rows)).digest('hex');
  const tables = await db.query('SELECT as_of::text AS as_of, evidence::text AS text FROM evidence_tables ORDER BY as_of');
  const odds = await db.query('SELECT as_of::text AS as_of, odds::text AS text, trades FROM candidate_odds ORDER BY as_of');
  return { tables: tables.length, odds: odds.length, hash: hash([tables, odds]) };
};
const out = {};
for (const workers of [0, 1]) {
  await db.exec('DELETE FROM evidence_tables; DELETE FROM candidate_odds');
  const refreshed = await refreshEvidence(db, undefined, { workers });
  out[workers] = { refreshed: [refreshed.tables, refreshed.odds], stored: await stored() };
}
await db.close();
console.log(JSON.stringify(out));
`;

it('stores the same evidence and odds tables with the worker thread as on one thread', async () => {
  const run = await runModuleScript(SCRIPT, { ms: 60_000 });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const out = JSON.parse(run.stdout) as Record<'0' | '1', { refreshed: [number, number]; stored: { tables: number; odds: number; hash: string } }>;
  expect(out[0].stored.tables).toBeGreaterThan(5);
  expect(out[0].stored.odds).toBeGreaterThan(5);
  expect(out[0].refreshed).toEqual([out[0].stored.tables, out[0].stored.odds]);
  expect(out[1]).toEqual(out[0]);
});
