/**
 * `npm start` as a user runs it (the built dist/cli/start.js in a child process): all four origins
 * come up on the embedded store with the demo market, Ctrl-C stops them cleanly, and a restart on
 * the same data directory keeps everything (no second demo load). One origin can start alone. The
 * first start also creates the demo book, on which cash hunt has ideas right away, and the gateway
 * serves the web console's page and bundle. The gateway runs in a worker thread of its own unless
 * GATEWAY_THREAD=false, and a gateway that cannot start stops the whole start. A first start runs its
 * start-up steps in a child process of its own (cli/start-up-child.ts): Ctrl-C stops it with the start, a
 * killed one fails the start, and it does not outlive a killed start.
 * `npm test` builds dist/ first (schema:check). The children come from test/helpers/child.ts: each in
 * its own process group, killed with it however a test ends, every wait scaled to the machine.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { originEnv, runToExit, spawnOrigins, START_JS, startOrigins, withDeadline } from '../helpers/child.js';
import type { BookResponse } from '../../subgraphs/allocation/book-types.js';
import { request } from '../helpers/http.js';
import { scaled } from '../helpers/time.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-e2e-'));
// The child gets this process's environment minus any store settings of the surrounding run.
const env = originEnv({ DATA_DIR: dataDir });
// The first start also analyses every 10th day of the history and measures the evidence on it.
const withHistory = { ...env, ANALYZE_HISTORY_EVERY: '10' };
const start = (args: string[] = [], childEnv: NodeJS.ProcessEnv = env) => startOrigins(args, childEnv);

/** A live (not zombie) process's state and parent, from /proc/<pid>/stat; undefined once it is gone. */
function procStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' || state === 'X' ? undefined : { state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** The pid of npm start's start-up child (cli/start-up-child.js) under `parent`, waited for up to 10 s (scaled). */
async function startUpChildOf(parent: number): Promise<number> {
  const find = () =>
    fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number)
      .find((pid) => procStat(pid)?.ppid === parent && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start-up-child.js'));
  const deadline = Date.now() + scaled(10_000);
  for (let pid = find(); ; pid = find()) {
    if (pid !== undefined) return pid;
    if (Date.now() > deadline) throw new Error(`no start-up child under pid ${parent}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once `pid` is gone (or a zombie); rejects after `ms` (scaled). */
async function gone(pid: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + scaled(ms);
  while (procStat(pid) !== undefined) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still running`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it('starts every origin with demo data, stops cleanly on Ctrl-C, and keeps the data', async () => {
  const first = await start([], withHistory);
  expect(Object.keys(first.urls).sort()).toEqual(['allocation', 'analysis', 'gateway', 'search']);
  expect(first.output()).toMatch(/Demo market loaded: 23 securities, 5796 bars, .* \(synthetic\)/);
  expect(first.output()).toContain('demo symbol ACME');
  expect(first.output()).toMatch(/Demo book 00000000-0000-4000-8000-00000000d3e0 for partner-1: (\w+, ){4}\w+ and cash [\d.]+ of [\d.]+/);
  // The start-up analysis, in worker threads and one run: the last 60 trading days of every demo symbol and
  // every 10th trading day of the whole history (some of which fall in those 60), each documented once.
  const stored = /Stored (\d+) snapshots for 22 symbols, \S+ \((\d+) chosen trading day\(s\)\), [1-9]\d* worker thread\(s\)\./.exec(first.output());
  const history = /History: every 10th trading day, (\d+) date\(s\) on \d{4}-\d\d-\d\d\.\.\d{4}-\d\d-\d\d, in the run above/.exec(first.output());
  expect([stored, history]).not.toContain(null);
  const [snapshots, days, sampled] = [Number(stored?.[1]), Number(stored?.[2]), Number(history?.[1])];
  expect(sampled).toBeGreaterThan(5);
  expect(days).toBeGreaterThan(60);
  expect(days).toBeLessThan(60 + sampled);
  expect(snapshots).toBe(22 * days);
  // Then the evidence measured on the history (as-of tables).
  expect(first.output()).toMatch(/Evidence measured: [1-9]\d* monthly evidence tables, \d+ Kelly odds tables/);
  const demo = await request<{ success: boolean; result: { stage: string; analysis_date: string } }>(`${first.urls.analysis}/api/v1/demo/results/analysis/ACME`);
  expect(demo.status).toBe(200);
  expect(demo.body.result.stage).toMatch(/^STAGE [1-4]$/);
  for (const url of Object.values(first.urls)) expect((await request(`${url}/health`)).status).toBe(200);
  // The gateway answers from a thread of its own, not the subgraphs' (main) thread.
  expect(first.output()).toContain('gateway runs in its own thread');
  expect((await request(`${first.urls.gateway}/`)).body).toEqual(expect.objectContaining({ name: 'tradegraph-gateway', thread: 'own' }));
  const viaGateway = await request(`${first.urls.gateway}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ security(symbol: "ACME") { name } huntModes { mode } }' }),
  });
  expect(viaGateway.body).toEqual({ data: { security: { name: 'Acme Synthetic Corp' }, huntModes: [{ mode: 'GENERAL' }, { mode: 'REPLACE' }, { mode: 'INTEREST' }] } });
  // The web console: the page and the bundle the build made, served by the gateway (Chromium drives it in browser-console.test.ts).
  expect(first.output()).toContain(`web console ${first.urls.gateway}/console ("Sign in as the demo partner"`);
  const consolePage = await fetch(`${first.urls.gateway}/console`);
  expect(consolePage.status).toBe(200);
  const html = await consolePage.text();
  expect(html).toContain('id="console"');
  const script = /<script src="([^"]+console\.js)">/.exec(html)?.[1];
  expect(script).toBeDefined();
  const bundle = await fetch(`${first.urls.gateway}${script}`);
  expect(bundle.status).toBe(200);
  expect((await bundle.text()).length).toBeGreaterThan(100_000);

  first.signal('SIGINT');
  expect(await first.waitForExit()).toBe(0);
  expect(first.output()).toContain('Stopped cleanly.');
  expect(fs.existsSync(path.join(dataDir, 'tradegraph.lock'))).toBe(false);

  // Restart one origin alone on the same data directory: the stored market is still there.
  const second = await start(['analysis'], withHistory);
  expect(Object.keys(second.urls)).toEqual(['analysis']);
  expect(second.output()).not.toContain('Demo market loaded');
  expect(second.output()).not.toContain('Stored'); // the latest day already has snapshots
  expect(second.output()).not.toContain('History:'); // and so has every sampled day of the history
  expect(second.output()).not.toContain('Evidence measured'); // and every month its tables
  expect((await request(`${second.urls.analysis}/`)).body).toEqual(expect.objectContaining({ name: 'tradegraph-analysis', demo_symbol: 'ACME' }));
  second.signal('SIGTERM');
  expect(await second.waitForExit()).toBe(0);
});

it('the first start also creates the demo book for partner-1, and cash hunt has ideas for it out of the box', async () => {
  // The data directory of the first test: the demo book was created by that start; this restart keeps it.
  // GATEWAY_THREAD=false: the gateway on the main thread, beside the subgraphs, as a one-thread start.
  const running = await start([], { ...env, GATEWAY_THREAD: 'false' });
  expect(running.output()).not.toContain('gateway runs in its own thread');
  expect((await request(`${running.urls.gateway}/`)).body).toEqual(expect.objectContaining({ name: 'tradegraph-gateway', thread: 'main' }));
  const cli = path.join(path.dirname(START_JS), 'tradegraph.js');
  const token = async (audience: string) => {
    const minted = await runToExit(process.execPath, [cli, 'token', '--sub', 'partner-1', '--audience', audience], { env });
    expect(minted.code).toBe(0);
    return minted.stdout.trim();
  };
  const [allocationToken, searchToken] = [await token('allocation'), await token('search')];
  const { DEMO_PORTFOLIO_ID } = await import('../../cli/demo-book.js');
  const book = await request<BookResponse>(`${running.urls.allocation}/api/v1/portfolios/${DEMO_PORTFOLIO_ID}`, { headers: { authorization: `Bearer ${allocationToken}` } });
  expect(book.status).toBe(200);
  expect(book.body).toMatchObject({ portfolio_id: DEMO_PORTFOLIO_ID, name: 'Demo book', currency: 'USD', source: 'holdings', version: 1, position_count: 5 });
  expect(book.body.holdings.map((h) => h.symbol)).not.toContain('ACME');
  for (const h of book.body.holdings) {
    expect(h.stop_loss).toBeLessThan(h.price as number);
    expect(h.days_held).toBeGreaterThan(0);
  }
  expect(book.body.cash / book.body.total_value).toBeCloseTo(0.3, 1);

  const ideas = await request<{ recommendations: Array<{ symbol: string; shares: number }>; available_cash: number }>(
    `${running.urls.search}/api/v1/portfolios/cash-hunt?portfolio_id=${DEMO_PORTFOLIO_ID}`,
    { headers: { authorization: `Bearer ${searchToken}` } },
  );
  expect(ideas.status).toBe(200);
  expect(ideas.body.available_cash).toBe(book.body.cash);
  expect(ideas.body.recommendations.length).toBeGreaterThan(0);
  for (const idea of ideas.body.recommendations) expect(book.body.holdings.map((h) => h.symbol)).not.toContain(idea.symbol);
  running.signal('SIGINT');
  expect(await running.waitForExit()).toBe(0);
});

/** Runs the start script to its exit and returns the exit code and what it wrote to stderr. */
const runStartToExit = (args: string[], childEnv: NodeJS.ProcessEnv) => runToExit(process.execPath, [START_JS, ...args], { env: childEnv });

it('refuses an unknown origin name with exit code 2', async () => {
  const { code, stderr } = await runStartToExit(['billing'], env);
  expect(code).toBe(2);
  expect(stderr).toContain('Unknown origin(s): billing');
});

it('refuses bad configuration with the variable named, exit code 1', async () => {
  const { code, stderr } = await runStartToExit([], { ...env, ANALYSIS_PORT: 'http' });
  expect(code).toBe(1);
  expect(stderr).toContain('ANALYSIS_PORT must be an integer');
});

it('a gateway thread that cannot start ends the start with its reason, exit code 1', async () => {
  const bad = path.join(dataDir, 'not-a-supergraph.graphql');
  fs.writeFileSync(bad, 'type Query { nothing: String }');
  const { code, stderr } = await runStartToExit(['gateway'], { ...env, SUPERGRAPH_PATH: bad });
  expect(code).toBe(1);
  expect(stderr).toMatch(/^Failed to start: .*supergraph/im);
});

it('Ctrl-C during the demo load stops cleanly and never leaves a half-loaded market', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-e2e-int-'));
  const envInt = { ...env, DATA_DIR: dir, DEMO_SYMBOL_COUNT: '300', ANALYZE_ON_START_DAYS: '3' };
  const child = spawnOrigins([], envInt);
  await child.waitFor('Generating the synthetic demo market', 'the demo load');
  // The demo load runs in the start-up child; Ctrl-C reaches it through npm start and it ends with it.
  const steps = await startUpChildOf(child.pid);
  child.signal('SIGINT');
  expect(await child.waitForExit()).toBe(0);
  await gone(steps);
  const out = child.output();
  expect(out).toContain('SIGINT: stopping after the current start-up step...');
  expect(out).toContain('Stopped cleanly.');

  // Whatever the interrupted start committed, the next start sees a complete market.
  const restarted = await start(['analysis'], envInt);
  const url = restarted.urls.analysis;
  const secret = fs.readFileSync(path.join(dir, 'dev-hs256-secret'), 'utf8').trim();
  const { mintPartnerToken } = await import('../../subgraphs/platform/auth.js');
  const token = await mintPartnerToken({ secret, issuer: 'tradegraph-dev', audience: 'tradegraph-analysis', subject: 'e2e' });
  const res = await request<{ data: { securities: { totalCount: number }; security: { bars: { totalCount: number } } } }>(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ securities { totalCount } security(symbol: "ACME") { bars { totalCount } } }' }),
  });
  expect(res.body.data).toEqual({ securities: { totalCount: 301 }, security: { bars: { totalCount: 252 } } });
  restarted.signal('SIGTERM');
  expect(await restarted.waitForExit()).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
});

it('a killed start-up child fails the start with exit code 1, and a killed start takes its start-up child with it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-e2e-kill-'));
  const envKill = { ...env, DATA_DIR: dir, DEMO_SYMBOL_COUNT: '300' };
  const first = spawnOrigins([], envKill);
  process.kill(await startUpChildOf(first.pid), 'SIGKILL');
  expect(await first.waitForExit()).toBe(1);
  expect(first.stderr()).toMatch(/^Failed to start: the start-up steps' process \(pid \d+\) was killed by SIGKILL before it finished/m);

  const second = spawnOrigins([], envKill);
  const steps = await startUpChildOf(second.pid);
  // npm start killed alone (not its group): the child sees its IPC channel close and exits.
  process.kill(second.pid, 'SIGKILL');
  await gone(steps);
  expect(await second.waitForExit()).toBeNull();
  fs.rmSync(dir, { recursive: true, force: true });
});

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
  await withDeadline(headers, 30_000, 'response headers', running.output);
  running.signal(signal);
  await new Promise((r) => setTimeout(r, 300));
  resume();
  const text = await withDeadline(done, 30_000, 'response body', running.output);
  const body = JSON.parse(text) as { data: { securities: { nodes: Array<{ bars: { nodes: unknown[] } }> } } };
  expect(body.data.securities.nodes).toHaveLength(23);
  expect(body.data.securities.nodes.every((n) => n.bars.nodes.length === 2000)).toBe(true);
  expect(text.length).toBeGreaterThan(5_000_000);
  expect(await running.waitForExit(20_000)).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
}, scaled(120_000));

it('Ctrl-C during the start-up analysis stops promptly and stores no snapshot of the interrupted run', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-e2e-ana-'));
  const envAna = { ...env, DATA_DIR: dir, DEMO_SYMBOL_COUNT: '150' };
  const child = spawnOrigins([], envAna);
  await child.waitFor('Analysing the last', 'the start-up analysis');
  child.signal('SIGINT');
  // "Promptly": within 15 s on an idle machine (scaled), where the whole analysis takes much longer.
  expect(await child.waitForExit(15_000)).toBe(0);
  const out = child.output();
  expect(out).toContain('Stopped cleanly.');
  expect(out).not.toContain('Stored');

  // Nothing of the interrupted run was committed: without the start-up step there is no snapshot.
  const restarted = await start(['analysis'], { ...envAna, ANALYZE_ON_START: 'false' });
  const secret = fs.readFileSync(path.join(dir, 'dev-hs256-secret'), 'utf8').trim();
  const { mintPartnerToken } = await import('../../subgraphs/platform/auth.js');
  const token = await mintPartnerToken({ secret, issuer: 'tradegraph-dev', audience: 'tradegraph-analysis', subject: 'e2e' });
  const res = await request(`${restarted.urls.analysis}/api/v1/results/analysis/ACME`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(404);
  restarted.signal('SIGTERM');
  expect(await restarted.waitForExit()).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
});
