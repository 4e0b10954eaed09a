/**
 * `npm start` as a user runs it (the built dist/cli/start.js in a child process): all four origins
 * come up on the embedded store with the demo market, Ctrl-C stops them cleanly, and a restart on
 * the same data directory keeps everything (no second demo load). One origin can start alone.
 * `npm test` builds dist/ first (schema:check).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { request } from '../helpers/http.js';

const START = path.join(PROJECT_ROOT, 'dist', 'cli', 'start.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-e2e-'));
// The child gets this process's environment minus any store settings of the surrounding run.
const { DATABASE_URL: _db, TEST_DATABASE_URL: _testDb, ...inherited } = process.env;
const env = {
  ...inherited,
  APP_ENV: 'development',
  DATA_DIR: dataDir,
  ANALYSIS_PORT: '0',
  ALLOCATION_PORT: '0',
  SEARCH_PORT: '0',
  GATEWAY_PORT: '0',
  DEMO_SYMBOL_COUNT: '22',
  DEMO_YEARS: '1',
  LOG_LEVEL: 'warn',
};

interface Started {
  child: ChildProcessWithoutNullStreams;
  urls: Record<string, string>;
  output: () => string;
  exit: Promise<number | null>;
}

function start(args: string[] = [], childEnv: NodeJS.ProcessEnv = env): Promise<Started> {
  if (!fs.existsSync(START)) throw new Error(`${START} is missing: run npm run build (npm test does)`);
  const child = spawn(process.execPath, [START, ...args], { env: childEnv, cwd: PROJECT_ROOT });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 60 s:\n${out}`)), 60_000);
    const check = () => {
      if (!out.includes('Press Ctrl-C to stop.')) return;
      clearTimeout(timer);
      child.stdout.off('data', check);
      const urls = Object.fromEntries([...out.matchAll(/^ {2}(\w+)\s+(http:\/\/\S+)\s+\(GraphQL/gm)].map((m) => [m[1], m[2]]));
      resolve({ child, urls, output: () => out, exit });
    };
    child.stdout.on('data', check);
    void exit.then((code) => reject(new Error(`exited with ${code} before ready:\n${out}`)));
  });
}

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it('starts every origin with demo data, stops cleanly on Ctrl-C, and keeps the data', async () => {
  const first = await start();
  expect(Object.keys(first.urls).sort()).toEqual(['allocation', 'analysis', 'gateway', 'search']);
  expect(first.output()).toMatch(/Demo market loaded: 23 securities, 5796 bars, .* \(synthetic\)/);
  expect(first.output()).toContain('demo symbol ACME');
  // The start-up analysis: the last 60 trading days of every demo symbol, in worker threads.
  expect(first.output()).toMatch(/Stored 1320 snapshots for 22 symbols, \S+ \(60 trading day\(s\)\), [1-9]\d* worker thread\(s\)\./);
  const demo = await request<{ success: boolean; result: { stage: string; analysis_date: string } }>(`${first.urls.analysis}/api/v1/demo/results/analysis/ACME`);
  expect(demo.status).toBe(200);
  expect(demo.body.result.stage).toMatch(/^STAGE [1-4]$/);
  for (const url of Object.values(first.urls)) expect((await request(`${url}/health`)).status).toBe(200);
  const viaGateway = await request(`${first.urls.gateway}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ security(symbol: "ACME") { name } huntModes { mode } }' }),
  });
  expect(viaGateway.body).toEqual({ data: { security: { name: 'Acme Synthetic Corp' }, huntModes: [{ mode: 'general' }, { mode: 'replace' }, { mode: 'interest' }] } });

  first.child.kill('SIGINT');
  expect(await first.exit).toBe(0);
  expect(first.output()).toContain('Stopped cleanly.');
  expect(fs.existsSync(path.join(dataDir, 'tradegraph.lock'))).toBe(false);

  // Restart one origin alone on the same data directory: the stored market is still there.
  const second = await start(['analysis']);
  expect(Object.keys(second.urls)).toEqual(['analysis']);
  expect(second.output()).not.toContain('Demo market loaded');
  expect(second.output()).not.toContain('Stored'); // the latest day already has snapshots
  expect((await request(`${second.urls.analysis}/`)).body).toEqual(expect.objectContaining({ name: 'tradegraph-analysis', demo_symbol: 'ACME' }));
  second.child.kill('SIGTERM');
  expect(await second.exit).toBe(0);
});

/** Runs the start script to its exit and returns the exit code and what it wrote to stderr. */
async function runToExit(args: string[], childEnv: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [START, ...args], { env: childEnv, cwd: PROJECT_ROOT });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stderr };
}

it('refuses an unknown origin name with exit code 2', async () => {
  const { code, stderr } = await runToExit(['billing'], env);
  expect(code).toBe(2);
  expect(stderr).toContain('Unknown origin(s): billing');
});

it('refuses bad configuration with the variable named, exit code 1', async () => {
  const { code, stderr } = await runToExit([], { ...env, ANALYSIS_PORT: 'http' });
  expect(code).toBe(1);
  expect(stderr).toContain('ANALYSIS_PORT must be an integer');
});

it('Ctrl-C during the demo load stops cleanly and never leaves a half-loaded market', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-e2e-int-'));
  const envInt = { ...env, DATA_DIR: dir, DEMO_SYMBOL_COUNT: '300', ANALYZE_ON_START_DAYS: '3' };
  const child = spawn(process.execPath, [START], { env: envInt, cwd: PROJECT_ROOT });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('Generating the synthetic demo market') && !child.killed) child.kill('SIGINT');
  });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  expect(code).toBe(0);
  expect(out).toContain('SIGINT: stopping after the current start-up step...');
  expect(out).toContain('Stopped cleanly.');

  // Whatever the interrupted start committed, the next start sees a complete market.
  const restarted = spawn(process.execPath, [START, 'analysis'], { env: envInt, cwd: PROJECT_ROOT });
  let out2 = '';
  restarted.stdout.on('data', (d: Buffer) => (out2 += d.toString()));
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (out2.includes('Press Ctrl-C')) {
        clearInterval(poll);
        resolve();
      }
    }, 50);
  });
  const url = /analysis\s+(http:\/\/\S+)/.exec(out2)![1];
  const secret = fs.readFileSync(path.join(dir, 'dev-hs256-secret'), 'utf8').trim();
  const { mintPartnerToken } = await import('../../subgraphs/platform/auth.js');
  const token = await mintPartnerToken({ secret, issuer: 'tradegraph-dev', audience: 'tradegraph-analysis', subject: 'e2e' });
  const res = await request<{ data: { securities: { totalCount: number }; security: { bars: { totalCount: number } } } }>(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ securities { totalCount } security(symbol: "ACME") { bars { totalCount } } }' }),
  });
  expect(res.body.data).toEqual({ securities: { totalCount: 301 }, security: { bars: { totalCount: 252 } } });
  restarted.kill('SIGTERM');
  expect(await new Promise((resolve) => restarted.on('exit', resolve))).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Resolves with the promise, or fails after ms with what the child printed (a hang explains itself). */
function within<T>(promise: Promise<T>, ms: number, step: string, output: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step}: nothing after ${ms} ms; child output:\n${output()}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

it.each([
  ['Ctrl-C', 'SIGINT'],
  ['SIGTERM (how orchestrators stop a process)', 'SIGTERM'],
] as const)('%s while a large response is being read: the response arrives in full, then the process exits 0', async (_label, signal) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-e2e-drain-'));
  // Ten years of bars: a response of several MB, more than loopback socket buffers take.
  // A several-MB response on purpose: lift the GraphQL cost limit that would refuse it.
  const running = await start(['analysis'], { ...env, DATA_DIR: dir, DEMO_YEARS: '10', GRAPHQL_MAX_COST: '100000000' });
  const secret = fs.readFileSync(path.join(dir, 'dev-hs256-secret'), 'utf8').trim();
  const { mintPartnerToken } = await import('../../subgraphs/platform/auth.js');
  const token = await mintPartnerToken({ secret, issuer: 'tradegraph-dev', audience: 'tradegraph-analysis', subject: 'e2e' });
  const query = '{ securities(first: 500) { nodes { symbol bars(first: 2000) { nodes { date open high low close volume } } } } }';
  let resume = () => {};
  let headersIn: () => void = () => {};
  const headers = new Promise<void>((resolve) => (headersIn = resolve));
  const done = new Promise<string>((resolve, reject) => {
    const req = http.request(`${running.urls.analysis}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } }, (res) => {
      res.pause(); // read nothing yet: the server is left writing into full buffers
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(text));
      res.on('error', reject);
      resume = () => res.resume();
      headersIn();
    });
    req.on('error', reject);
    req.end(JSON.stringify({ query }));
  });
  // The body is complete on the server and being written when the signal arrives.
  await within(headers, 30_000, 'response headers', running.output);
  running.child.kill(signal);
  await new Promise((r) => setTimeout(r, 300));
  resume();
  const text = await within(done, 30_000, 'response body', running.output);
  const body = JSON.parse(text) as { data: { securities: { nodes: Array<{ bars: { nodes: unknown[] } }> } } };
  expect(body.data.securities.nodes).toHaveLength(23);
  expect(body.data.securities.nodes.every((n) => n.bars.nodes.length === 2000)).toBe(true);
  expect(text.length).toBeGreaterThan(5_000_000);
  expect(await within(running.exit, 20_000, 'exit after the drain', running.output)).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
}, 120_000);

it('Ctrl-C during the start-up analysis stops promptly and stores no snapshot of the interrupted run', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-e2e-ana-'));
  const envAna = { ...env, DATA_DIR: dir, DEMO_SYMBOL_COUNT: '150' };
  const child = spawn(process.execPath, [START], { env: envAna, cwd: PROJECT_ROOT });
  let out = '';
  let interruptedAt = 0;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('Analysing the last') && !child.killed) {
      interruptedAt = Date.now();
      child.kill('SIGINT');
    }
  });
  const code = await new Promise((resolve) => child.on('exit', resolve));
  expect(code).toBe(0);
  expect(interruptedAt).toBeGreaterThan(0);
  expect(Date.now() - interruptedAt).toBeLessThan(15_000);
  expect(out).toContain('Stopped cleanly.');
  expect(out).not.toContain('Stored');

  // Nothing of the interrupted run was committed: without the start-up step there is no snapshot.
  const restarted = await start(['analysis'], { ...envAna, ANALYZE_ON_START: 'false' });
  const secret = fs.readFileSync(path.join(dir, 'dev-hs256-secret'), 'utf8').trim();
  const { mintPartnerToken } = await import('../../subgraphs/platform/auth.js');
  const token = await mintPartnerToken({ secret, issuer: 'tradegraph-dev', audience: 'tradegraph-analysis', subject: 'e2e' });
  const res = await request(`${restarted.urls.analysis}/api/v1/results/analysis/ACME`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(404);
  restarted.child.kill('SIGTERM');
  expect(await restarted.exit).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
});
