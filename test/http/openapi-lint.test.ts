/**
 * The OpenAPI documents the real origins serve pass `redocly lint` with the project's rules (redocly.yaml:
 * the `recommended` ruleset): no errors on any origin's document. The analysis, allocation, search and
 * gateway origins start on port 0; each GET /openapi.json is written to a temporary directory and linted
 * by the @redocly/cli CLI as a child process (its own process group, killed on the deadline). Warnings
 * are printed, not failed on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { runToExit } from '../helpers/child.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

const REDOCLY = path.join(PROJECT_ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const CONFIG = path.join(PROJECT_ROOT, 'redocly.yaml');
/** How long one lint may take on an idle machine (before scaling). */
const LINT_MS = 60_000;
const ORIGINS = ['analysis', 'allocation', 'search', 'gateway'] as const;

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; severity: 'error' | 'warn'; message: string; location?: Array<{ pointer?: string }> }>;
}

let store: TestDb;
let platform: RunningPlatform;
let dir: string;

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(testConfig({ DEMO_DATA: 'false', ANALYZE_ON_START: 'false' }), ORIGINS, { db: store.db });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-openapi-'));
  for (const origin of ORIGINS) {
    const res = await fetch(`${platform.urls[origin]}/openapi.json`);
    expect(res.status).toBe(200);
    fs.writeFileSync(path.join(dir, `${origin}.json`), await res.text());
  }
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it.each(ORIGINS)('the %s document has no redocly lint error (recommended rules, redocly.yaml)', async (origin) => {
  const file = path.join(dir, `${origin}.json`);
  const run = await runToExit(process.execPath, [REDOCLY, 'lint', '--config', CONFIG, '--format', 'json', file], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' },
    ms: LINT_MS,
  });
  const report = JSON.parse(run.stdout) as LintReport;
  const describe = (severity: 'error' | 'warn') =>
    report.problems.filter((p) => p.severity === severity).map((p) => `${p.ruleId} at ${p.location?.[0]?.pointer ?? '?'}: ${p.message}`);
  console.log(`redocly lint ${origin}: ${report.totals.errors} errors, ${report.totals.warnings} warnings${report.totals.warnings ? `\n  ${describe('warn').join('\n  ')}` : ''}`);
  expect(describe('error')).toEqual([]);
  expect(describe('warn')).toEqual([]);
  expect(run.code).toBe(0);
});
