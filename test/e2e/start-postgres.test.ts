/**
 * `npm start` on PostgreSQL (runs when TEST_DATABASE_URL is set, as in `npm run test:pg` and CI): a
 * Ctrl-C during the start-up analysis, whose documents come from worker threads while the main thread
 * writes them in one transaction, commits none of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { createPostgresDatabase } from '../helpers/db.js';

const START = path.join(PROJECT_ROOT, 'dist', 'cli', 'start.js');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

(process.env.TEST_DATABASE_URL ? it : it.skip)('Ctrl-C during the start-up analysis on PostgreSQL leaves no snapshot behind', async () => {
  if (!fs.existsSync(START)) throw new Error(`${START} is missing: run npm run build`);
  const database = await createPostgresDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-e2e-pg-'));
  const { TEST_DATABASE_URL: _t, ...inherited } = process.env;
  const env = {
    ...inherited,
    APP_ENV: 'development',
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    ANALYSIS_PORT: '0',
    ALLOCATION_PORT: '0',
    SEARCH_PORT: '0',
    GATEWAY_PORT: '0',
    DEMO_SYMBOL_COUNT: '300',
    DEMO_YEARS: '1',
    ANALYZE_WORKERS: '2',
    LOG_LEVEL: 'warn',
  };
  try {
    const child = spawn(process.execPath, [START], { env, cwd: PROJECT_ROOT });
    children.push(child);
    let out = '';
    const onOutput = (d: Buffer) => {
      out += d.toString();
      // Interrupt while the workers are computing and the main thread is writing documents.
      if (out.includes('Analysing the last') && !timer) timer = setTimeout(() => child.kill('SIGINT'), 1500);
    };
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect({ code, out }).toEqual({ code: 0, out: expect.stringContaining('Stopped cleanly.') });
    expect(out).not.toContain('Stored ');
    expect(child.killed).toBe(true);

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
    fs.rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}, 120_000);
