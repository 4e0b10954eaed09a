/**
 * Load test: a mixed workload at fixed rates against every origin of `npm start`, twice in a row.
 *
 *   1. The platform: the built dist/cli/start.js in a child process (all four origins, the embedded
 *      store in a temporary DATA_DIR, a synthetic market of BENCH_SYMBOLS symbols (default 200) and
 *      BENCH_YEARS years (default 2), analysis of its last 5 days), as a user starts it; request
 *      budgets raised above the load (one client address sends everything). One development token
 *      (the development identity key) carries every call, as a gateway client's would.
 *   2. Set-up: one stored portfolio (optimize, 10 positions) for hunt, cash hunt and the gateway query.
 *   3. The workload, autocannon, one instance per stream, all at once, each at a fixed rate:
 *        analysis reads      GET  /api/v1/results/analysis/{symbol}, every analysed symbol in turn  150/s
 *        hunt                GET  /api/v1/portfolios/hunt, general / replace / interest, pages 1-3     40/s
 *        cash hunt           GET  /api/v1/portfolios/cash-hunt, pages 1-2                              20/s
 *        demo optimize       POST /api/v1/portfolios/optimize, the demo body, no token                 20/s
 *        gateway             POST /graphql: portfolio -> positions -> analysis, and its cash hunt      20/s
 *      (BENCH_RATE_SCALE multiplies every rate) for BENCH_SECONDS (default 60), then the same again.
 *   4. Per stream and run: requests, achieved rate, p50/p95/p99 latency (exact, from every response's
 *      time), 2xx/4xx/5xx and socket errors. Per run: the server process's peak and final resident
 *      memory (VmRSS, sampled every 250 ms). Verdicts: zero 5xx and errors in both runs; no memory
 *      growth (the second run's peak within 10% of the first's).
 *
 *   npm run bench:load
 *   BENCH_SECONDS=10 BENCH_SYMBOLS=60 npm run bench:load
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { mintPartnerToken } from '../subgraphs/platform/auth.js';
import { loadConfig } from '../subgraphs/platform/config.js';
import { DEV_IDENTITY_KID, devIdentityKey, resolveOidc } from '../subgraphs/platform/dev-secret.js';
import { PROJECT_ROOT } from '../subgraphs/platform/project.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 200);
const YEARS = Number(process.env.BENCH_YEARS ?? 2);
const SCALE = Number(process.env.BENCH_RATE_SCALE ?? 1);
const RUNS = 2;
const GROWTH_LIMIT = 0.1;
const START = path.join(PROJECT_ROOT, 'dist', 'cli', 'start.js');

type Origin = 'analysis' | 'allocation' | 'search' | 'gateway';

interface Platform {
  child: ChildProcessWithoutNullStreams;
  urls: Record<Origin, string>;
  exit: Promise<number | null>;
}

function startPlatform(env: NodeJS.ProcessEnv): Promise<Platform> {
  if (!fs.existsSync(START)) throw new Error(`${START} is missing: run npm run build`);
  const child = spawn(process.execPath, [START], { env, cwd: PROJECT_ROOT });
  let out = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (!out.includes('Press Ctrl-C to stop.')) return;
      child.stdout.off('data', onData);
      const urls = Object.fromEntries([...out.matchAll(/^ {2}(\w+)\s+(http:\/\/\S+)\s+\(GraphQL/gm)].map((m) => [m[1], m[2]])) as Record<Origin, string>;
      resolve({ child, urls, exit });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    void exit.then((code) => reject(new Error(`the platform exited with ${code} before it was ready:\n${out}`)));
  });
}

/** Resident memory of a process in bytes (Linux /proc). */
function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? NaN);
  return kb * 1024;
}

interface Stream {
  label: string;
  origin: Origin;
  rate: number;
  requests: autocannon.Request[];
  headers?: Record<string, string>;
}

interface StreamResult {
  label: string;
  rate: number;
  requests: number;
  p50: number;
  p95: number;
  p99: number;
  s2xx: number;
  s4xx: number;
  s5xx: number;
  errors: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function runStream(stream: Stream, urls: Record<Origin, string>): Promise<StreamResult> {
  const times: number[] = [];
  let s4xx = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: urls[stream.origin],
        connections: Math.max(2, Math.ceil(stream.rate / 20)),
        overallRate: stream.rate,
        duration: SECONDS,
        headers: stream.headers,
        requests: stream.requests,
      },
      (err, result) => {
        if (err) return reject(err);
        times.sort((a, b) => a - b);
        resolve({
          label: stream.label,
          rate: times.length / SECONDS,
          requests: times.length,
          p50: percentile(times, 0.5),
          p95: percentile(times, 0.95),
          p99: percentile(times, 0.99),
          s2xx: result['2xx'],
          s4xx,
          s5xx: result['5xx'],
          errors: result.errors + result.timeouts,
        });
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      times.push(responseTime);
      if (statusCode >= 400 && statusCode < 500) s4xx++;
    });
  });
}

interface Run {
  streams: StreamResult[];
  peakRss: number;
  endRss: number;
}

async function loadRun(streams: readonly Stream[], platform: Platform): Promise<Run> {
  let peakRss = 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssOf(platform.child.pid as number))), 250);
  try {
    const results = await Promise.all(streams.map((s) => runStream(s, platform.urls)));
    return { streams: results, peakRss, endRss: rssOf(platform.child.pid as number) };
  } finally {
    clearInterval(sampler);
  }
}

const MB = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');

function printRun(i: number, run: Run): void {
  console.log(`\nrun ${i + 1} (${SECONDS} s): server peak RSS ${MB(run.peakRss)}, at the end ${MB(run.endRss)}`);
  console.log(`  ${'stream'.padEnd(18)} ${'target/s'.padStart(8)} ${'done/s'.padStart(7)} ${'requests'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p95 ms'.padStart(7)} ${'p99 ms'.padStart(7)}   2xx / 4xx / 5xx / errors`);
  for (const s of run.streams) {
    console.log(
      `  ${s.label.padEnd(18)} ${String(Math.round(STREAM_RATE.get(s.label) ?? 0)).padStart(8)} ${s.rate.toFixed(1).padStart(7)} ${String(s.requests).padStart(9)} ` +
        `${ms(s.p50).padStart(7)} ${ms(s.p95).padStart(7)} ${ms(s.p99).padStart(7)}   ${s.s2xx} / ${s.s4xx} / ${s.s5xx} / ${s.errors}`,
    );
  }
}

const STREAM_RATE = new Map<string, number>();

async function main(): Promise<void> {
  const started = performance.now();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-bench-load-'));
  const env = {
    ...process.env,
    APP_ENV: 'development',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    ANALYSIS_PORT: '0',
    ALLOCATION_PORT: '0',
    SEARCH_PORT: '0',
    GATEWAY_PORT: '0',
    DEMO_SYMBOL_COUNT: String(SYMBOLS),
    DEMO_YEARS: String(YEARS),
    ANALYZE_ON_START_DAYS: '5',
    RATE_LIMIT_MAX: '10000000',
    RATE_LIMIT_EXPENSIVE_MAX: '10000000',
    LOG_LEVEL: 'warn',
  };
  console.log(`load test: npm start's origins in a child process, ${SYMBOLS} synthetic symbols x ${YEARS} years, ${os.cpus().length} cores; ${RUNS} runs of ${SECONDS} s`);
  const t0 = performance.now();
  const platform = await startPlatform(env);
  console.log(`  platform ready in ${((performance.now() - t0) / 1000).toFixed(1)} s (pid ${platform.child.pid})`);
  try {
    // One development token for every origin (the partner origins trust the development identity key).
    const config = loadConfig(env);
    const token = await mintPartnerToken({
      privateKey: devIdentityKey(config).privateJwk,
      alg: 'ES256',
      kid: DEV_IDENTITY_KID,
      issuer: config.auth.issuer,
      audience: [config.auth.audiences.analysis, config.auth.audiences.allocation, resolveOidc(config).audiences[0]],
      subject: 'load-partner',
      expiresIn: '2h',
    });
    const auth = { authorization: `Bearer ${token}` };
    const json = { 'content-type': 'application/json' };

    // Set-up: the analysed symbols and one stored portfolio.
    const post = async (url: string, body: unknown, headers: Record<string, string>) => {
      const res = await fetch(url, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) });
      const parsed = (await res.json()) as Record<string, unknown>;
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(parsed)}`);
      return parsed;
    };
    const listed = await post(`${platform.urls.analysis}/graphql`, { query: '{ securities(first: 500) { nodes { symbol analysis { stage } } } }' }, auth);
    const nodes = (listed.data as { securities: { nodes: Array<{ symbol: string; analysis: unknown }> } }).securities.nodes;
    const symbols = nodes.filter((n) => n.analysis !== null).map((n) => n.symbol);
    const book = await post(`${platform.urls.allocation}/api/v1/portfolios/optimize`, { name: 'Load book', total_capital: 250000, risk_settings: { max_positions: 10 } }, auth);
    const id = book.portfolio_id as string;
    const held = (book.allocations as Array<{ symbol: string }>).map((a) => a.symbol);
    const notHeld = symbols.filter((s) => !held.includes(s));
    const demoBody = await (await fetch(`${platform.urls.allocation}/api/v1/demo/optimize-body`)).text();
    console.log(`  set-up: ${symbols.length} analysed symbols; portfolio ${id} with ${held.length} positions`);

    const rate = (r: number) => Math.max(1, Math.round(r * SCALE));
    const streams: Stream[] = [
      { label: 'analysis reads', origin: 'analysis', rate: rate(150), headers: auth, requests: symbols.map((s) => ({ method: 'GET', path: `/api/v1/results/analysis/${s}` })) },
      {
        label: 'hunt',
        origin: 'search',
        rate: rate(40),
        headers: auth,
        requests: [1, 2, 3].flatMap((page) => [
          { method: 'GET' as const, path: `/api/v1/portfolios/hunt?portfolio_id=${id}&page=${page}` },
          { method: 'GET' as const, path: `/api/v1/portfolios/hunt?portfolio_id=${id}&symbol_replace=${held[page % held.length]}&page=${page}` },
          { method: 'GET' as const, path: `/api/v1/portfolios/hunt?portfolio_id=${id}&symbol_interest=${notHeld[page % notHeld.length]}` },
        ]),
      },
      { label: 'cash hunt', origin: 'search', rate: rate(20), headers: auth, requests: [1, 2].map((page) => ({ method: 'GET', path: `/api/v1/portfolios/cash-hunt?portfolio_id=${id}&page=${page}` })) },
      { label: 'demo optimize', origin: 'allocation', rate: rate(20), headers: json, requests: [{ method: 'POST', path: '/api/v1/portfolios/optimize', body: demoBody }] },
      {
        label: 'gateway',
        origin: 'gateway',
        rate: rate(20),
        headers: { ...json, ...auth },
        requests: [
          {
            method: 'POST',
            path: '/graphql',
            body: JSON.stringify({
              query: `{ portfolio(id: "${id}") { name allocations { symbol shares security { analysis { stage signal price } } } cashHunt(pageSize: 3) { availableCash recommendations { symbol shares security { analysis { stage } } } } } }`,
            }),
          },
        ],
      },
    ];
    for (const s of streams) STREAM_RATE.set(s.label, s.rate);
    console.log(`  workload: ${streams.map((s) => `${s.label} ${s.rate}/s`).join(', ')} (${streams.reduce((a, s) => a + s.rate, 0)}/s in all)`);

    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      const run = await loadRun(streams, platform);
      runs.push(run);
      printRun(i, run);
    }

    console.log('\nsummary');
    const bad = runs.flatMap((r) => r.streams).reduce((n, s) => n + s.s5xx + s.errors, 0);
    console.log(`  5xx responses and socket errors over both runs: ${bad} (${bad === 0 ? 'none' : 'NOT zero'})`);
    const growth = runs[1].peakRss / runs[0].peakRss - 1;
    console.log(
      `  server memory: peak ${MB(runs[0].peakRss)} then ${MB(runs[1].peakRss)} (${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)}%), ` +
        `end of run ${MB(runs[0].endRss)} then ${MB(runs[1].endRss)}: ${growth <= GROWTH_LIMIT ? `no growth (within ${GROWTH_LIMIT * 100}%)` : 'GROWS'}`,
    );
    for (const s of runs[1].streams) {
      console.log(`  ${s.label.padEnd(16)} run 2: ${s.rate.toFixed(1)}/s of ${STREAM_RATE.get(s.label)}/s, p50 ${ms(s.p50)} ms, p95 ${ms(s.p95)} ms, p99 ${ms(s.p99)} ms`);
    }
    console.log(`  whole run ${((performance.now() - started) / 1000).toFixed(0)} s`);
    if (bad > 0) process.exitCode = 1;
  } finally {
    platform.child.kill('SIGINT');
    await platform.exit;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
