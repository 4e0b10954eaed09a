/**
 * `npm start` on PostgreSQL (runs when TEST_DATABASE_URL is set, as in `npm run test:pg` and CI): a
 * Ctrl-C during the start-up analysis, whose documents come from worker threads while the main thread
 * writes them in one transaction, commits none of them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { killChildren, originEnv, spawnOrigins } from '../helpers/child.js';
import { createPostgresDatabase } from '../helpers/db.js';
import { scaled } from '../helpers/time.js';

(process.env.TEST_DATABASE_URL ? it : it.skip)('Ctrl-C during the start-up analysis on PostgreSQL leaves no snapshot behind', async () => {
  const database = await createPostgresDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-e2e-pg-'));
  const env = originEnv({ DATABASE_URL: database.url, DATA_DIR: dataDir, DEMO_SYMBOL_COUNT: '300', ANALYZE_WORKERS: '2' });
  try {
    const child = spawnOrigins([], env);
    await child.waitFor('Analysing the last', 'the start-up analysis', 90_000);
    // Interrupt while the workers are computing and the main thread is writing documents.
    await new Promise((r) => setTimeout(r, 1500));
    child.signal('SIGINT');
    const code = await child.waitForExit();
    const out = child.output();
    expect({ code, out }).toEqual({ code: 0, out: expect.stringContaining('Stopped cleanly.') });
    expect(out).not.toContain('Stored ');

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ snapshots: number; bars: number }>(
        'SELECT (SELECT count(*)::int FROM analysis_snapshots) AS snapshots, (SELECT count(*)::int FROM bars) AS bars',
      );
      expect(rows[0].bars).toBeGreaterThan(0); // the demo load committed before the analysis began
      expect(rows[0].snapshots).toBe(0);
    } finally {
      await client.end();
    }
  } finally {
    await killChildren(); // the origins hold the database: it can only be dropped once they are gone
    fs.rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}, scaled(120_000));
