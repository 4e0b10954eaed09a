/**
 * Gateway throughput: the stock stack (@apollo/gateway inside Apollo Server's standalone HTTP server,
 * default settings: gateway-stock.ts) against the product's gateway origin, over the same subgraphs,
 * in one run, in two parts (BENCH_PART=inprocess or documented runs one):
 *
 * 1. In process: the analysis, allocation and search origins of `startPlatform` in this process on the
 *    embedded store (a synthetic market of BENCH_SYMBOLS symbols, default 120, its last trading day
 *    analysed), rate limiters on with budgets above the load, and both gateways in this process too:
 *    stock, and `buildGatewayOrigin` (Fastify, GraphQL limits, rate limiter, trace ids, subgraph
 *    timeouts, in-flight dedup). The query (a frontend's security page): one security with its latest
 *    analysis. CPU per request is this process's (gateways and subgraphs).
 *    Target: the gateway origin at least 1.5x the stock throughput.
 * 2. As documented: `npm start`'s entry (dist/cli/start.js) as a child process, as a user runs it (the
 *    gateway in its own thread, the subgraphs on the main thread; scratch DATA_DIR, DEMO_SYMBOL_COUNT
 *    BENCH_SYMBOLS, DEMO_YEARS 2, ANALYZE_HISTORY_EVERY 0), and the stock stack in another child
 *    process over the same subgraphs (so it has a process, and a core, of its own too). Two queries:
 *    the security page, and the portfolio join (the demo book with its positions' analysis: allocation,
 *    then analysis for every position). CPU per request counts every server process involved: npm
 *    start's for ours, npm start's (its subgraphs) and stock's for stock.
 *    Targets: at least 2x stock on the security page, at least 1.5x on the portfolio join.
 *    BENCH_GATEWAY_DEDUPE=false starts npm start with GATEWAY_DEDUPE=false (what the thread does alone).
 *
 * Both gateways must answer the same JSON data first. Load from a child process (http-load.ts):
 * BENCH_CONNECTIONS (default 50) keep-alive connections, warm-up, fixed window, BENCH_ROUNDS rounds
 * (default 3) in which stock and ours alternate; figures are medians, ratios the medians of per-round
 * ratios. The load averages are printed beside the figures; the gateway origin's own count of
 * subgraph requests sent and fetches shared (GET /) shows what in-flight dedup saved.
 *
 *   npm run bench:gateway
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPlatform } from '../cli/platform.js';
import { DEMO_PORTFOLIO_ID, DEMO_PORTFOLIO_PARTNER } from '../cli/demo-book.js';
import { buildGatewayOrigin, type SubgraphRequestCounts } from '../gateway/gateway.js';
import { withLocalSubgraphs } from '../gateway/thread.js';
import { mintPartnerToken } from '../subgraphs/platform/auth.js';
import { loadConfig } from '../subgraphs/platform/config.js';
import { mintDevelopmentToken, resolvePartnerAuth } from '../subgraphs/platform/dev-secret.js';
import { PROJECT_ROOT } from '../subgraphs/platform/project.js';
import { load, median, runRounds, type LoadJob, type LoadResult } from './http-load.js';
import { loadAverage, startServerProcess } from './gateway-processes.js';
import { startStockGateway, STOCK_READY } from './gateway-stock.js';

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 120);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3) * 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PART = process.env.BENCH_PART ?? 'both';
const TARGET = 1.5;
const TARGET_DOCUMENTED = { security: 2, join: 1.5 };
const QUERY = '{ security(symbol: "ACME") { symbol name sector analysis { analysisDate stage stageStrength signal confidence price } } }';
const JOIN = `{ portfolio(id: "${DEMO_PORTFOLIO_ID}") { name holdings { symbol shares security { analysis { stage signal price } } } } }`;
const SECRET = 'bench-secret-0123456789abcdef-0123456789abcdef';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** The gateway origin's count of subgraph requests (GET /). */
async function subgraphRequests(gateway: string): Promise<SubgraphRequestCounts> {
  const root = (await (await fetch(`${gateway}/`)).json()) as { subgraph_requests: SubgraphRequestCounts };
  return root.subgraph_requests;
}

/** Asks both gateways the same query and fails unless both answer the same data without errors. */
async function sameAnswer(stockUrl: string, oursUrl: string, headers: Record<string, string>, body: string): Promise<string> {
  const answer = async (url: string) => {
    const res = await fetch(url, { method: 'POST', headers, body });
    return { status: res.status, json: (await res.json()) as { data?: unknown; errors?: unknown } };
  };
  const [a, b] = await Promise.all([answer(stockUrl), answer(oursUrl)]);
  if (a.status !== 200 || b.status !== 200 || a.json.errors || b.json.errors) throw new Error(`a gateway failed: ${JSON.stringify({ a, b })}`);
  if (JSON.stringify(a.json.data) !== JSON.stringify(b.json.data)) throw new Error(`different answers:\n${JSON.stringify(a.json.data)}\n${JSON.stringify(b.json.data)}`);
  return JSON.stringify(b.json.data);
}

/** The platform both parts start: a small synthetic market, its last day analysed, budgets above the load. */
function platformEnv(dataDir: string): Record<string, string> {
  return {
    APP_ENV: 'development',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    ANALYSIS_PORT: '0',
    ALLOCATION_PORT: '0',
    SEARCH_PORT: '0',
    GATEWAY_PORT: '0',
    DEMO_SYMBOL_COUNT: String(SYMBOLS),
    DEMO_YEARS: '2',
    ANALYZE_ON_START_DAYS: '1',
    AUTH_HS256_SECRET: SECRET,
    RATE_LIMIT_MAX: '10000000',
    RATE_LIMIT_EXPENSIVE_MAX: '10000000',
  };
}

/** Part 1: both gateways and the subgraphs in this process. */
async function inProcess(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-bench-gateway-'));
  const config = loadConfig({ ...platformEnv(dataDir), LOG_LEVEL: 'silent' });
  console.log(`\n1. in process: both gateways and the subgraphs in this process, the security page`);
  const platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway']).catch((err: unknown) => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });
  const auth = resolvePartnerAuth(config);
  const token = await mintPartnerToken({ secret: auth.hs256Secret as string, issuer: auth.issuer, audience: auth.audiences.analysis, subject: 'bench' });
  const stock = await startStockGateway({
    analysis: `${platform.urls.analysis}/graphql`,
    allocation: `${platform.urls.allocation}/graphql`,
    search: `${platform.urls.search}/graphql`,
  });
  // Ours: the gateway origin startPlatform started (gateway/gateway.ts buildGatewayOrigin).
  const ours = platform.urls.gateway as string;
  // And the same origin with in-flight dedup off, to show what the rest of the gateway does alone.
  const { gateway: _gateway, ...subgraphUrls } = platform.urls;
  const noDedupeApp = await buildGatewayOrigin(withLocalSubgraphs({ ...config, gateway: { ...config.gateway, dedupe: false } }, subgraphUrls));
  const noDedupe = await noDedupeApp.listen({ host: '127.0.0.1', port: 0 });

  try {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const body = JSON.stringify({ query: QUERY });
    console.log(`  the same data from both: ${await sameAnswer(stock.url, `${ours}/graphql`, headers, body)}`);
    const job = (url: string): LoadJob => ({ urls: [url], method: 'POST', body, headers, connections: CONNECTIONS, warmupMs: WARMUP_MS, durationMs: SECONDS * 1000 });
    const before = await subgraphRequests(ours);
    const { ratios, cpuRatios, results } = await runRounds(
      [
        { label: 'stock @apollo/gateway + Apollo Server (baseline)', job: job(stock.url) },
        { label: 'tradegraph gateway origin', job: job(`${ours}/graphql`) },
        { label: 'tradegraph gateway origin, GATEWAY_DEDUPE=false', job: job(`${noDedupe}/graphql`) },
      ],
      ROUNDS,
      52,
    );
    const after = await subgraphRequests(ours);
    const rps = (i: number) => median(results[i].map((r) => r.requests / r.seconds));
    const p50 = (i: number) => median(results[i].map((r) => r.p50));
    const ratio = median(ratios[1]);
    console.log(`summary (in process; load average ${loadAverage()})`);
    console.log(`  stock: ${fmt(rps(0))} req/s, p50 ${p50(0).toFixed(1)} ms, ${median(results[0].map((r) => r.serverCpuUs ?? NaN)).toFixed(0)} us CPU/request`);
    console.log(`  ours:  ${fmt(rps(1))} req/s, p50 ${p50(1).toFixed(1)} ms, ${median(results[1].map((r) => r.serverCpuUs ?? NaN)).toFixed(0)} us CPU/request`);
    console.log(`  ours without dedup: ${fmt(rps(2))} req/s, p50 ${p50(2).toFixed(1)} ms, ${median(results[2].map((r) => r.serverCpuUs ?? NaN)).toFixed(0)} us CPU/request`);
    console.log(`  ours / stock: ${ratio.toFixed(2)}x throughput, ${(1 / median(cpuRatios[1])).toFixed(2)}x the CPU per request (target ${TARGET}x: ${ratio >= TARGET ? 'met' : 'NOT met'})`);
    console.log(`  ours without dedup / stock: ${median(ratios[2]).toFixed(2)}x throughput, ${(1 / median(cpuRatios[2])).toFixed(2)}x the CPU per request`);
    console.log(`  ours, subgraph fetches over the rounds (warm-ups included): ${fmt(after.sent - before.sent)} sent, ${fmt(after.shared - before.shared)} shared with one in flight`);
  } finally {
    await stock.stop();
    await noDedupeApp.close();
    await platform.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One measured load on a server made of `processes`: a warm-up load first, then the window, their CPU read around it. */
async function measure(job: LoadJob, processes: Array<{ cpuUs(): number }>): Promise<LoadResult> {
  await load({ ...job, durationMs: WARMUP_MS, warmupMs: 0 });
  const cpu = () => processes.reduce((sum, p) => sum + p.cpuUs(), 0);
  const before = cpu();
  const r = await load({ ...job, warmupMs: 0 });
  const used = cpu() - before;
  return { ...r, serverCpuUs: r.requests ? used / r.requests : NaN };
}

/** Part 2: npm start as documented, and the stock stack in a process of its own over its subgraphs. */
async function documented(): Promise<void> {
  const startJs = path.join(PROJECT_ROOT, 'dist', 'cli', 'start.js');
  const stockJs = path.join(PROJECT_ROOT, 'dist', 'bench', 'gateway-stock.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-bench-gateway-start-'));
  const { DATABASE_URL: _db, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    ...platformEnv(dataDir),
    ANALYZE_HISTORY_EVERY: '0',
    LOG_LEVEL: 'warn',
    // BENCH_GATEWAY_DEDUPE=false: npm start with in-flight dedup off, to see the thread's share alone.
    GATEWAY_DEDUPE: process.env.BENCH_GATEWAY_DEDUPE ?? 'true',
  };
  console.log(`\n2. as documented: npm start (dist/cli/start.js) in a child process, stock in another over its subgraphs`);
  const started = Date.now();
  const start = startServerProcess(process.execPath, [startJs], env);
  let stock: ReturnType<typeof startServerProcess> | undefined;
  try {
    await start.waitFor(/Press Ctrl-C to stop\./, 'npm start ready', 300_000);
    const urls = Object.fromEntries([...start.output().matchAll(/^ {2}(\w+)\s+(http:\/\/\S+)\s+\(GraphQL/gm)].map((m) => [m[1], m[2]]));
    const threaded = start.output().includes('gateway runs in its own thread');
    console.log(
      `  npm start ready in ${((Date.now() - started) / 1000).toFixed(1)} s (pid ${start.pid}; gateway ${threaded ? 'in its own thread' : 'on the main thread'}, GATEWAY_DEDUPE=${env.GATEWAY_DEDUPE})`,
    );
    const subgraphs = { analysis: `${urls.analysis}/graphql`, allocation: `${urls.allocation}/graphql`, search: `${urls.search}/graphql` };
    stock = startServerProcess(process.execPath, [stockJs, JSON.stringify(subgraphs)], inherited);
    const stockUrl = (await stock.waitFor(STOCK_READY, 'stock gateway ready', 60_000))[1];
    const ours = urls.gateway;

    const config = loadConfig(env);
    const { token } = await mintDevelopmentToken(config, { subject: DEMO_PORTFOLIO_PARTNER, audiences: ['analysis', 'allocation'] });
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const queries = [
      { name: 'security page', key: 'security' as const, body: JSON.stringify({ query: QUERY }) },
      { name: 'portfolio join', key: 'join' as const, body: JSON.stringify({ query: JOIN }) },
    ];
    for (const q of queries) console.log(`  ${q.name}, the same data from both: ${(await sameAnswer(stockUrl, `${ours}/graphql`, headers, q.body)).slice(0, 160)}...`);

    const job = (url: string, body: string): LoadJob => ({ urls: [url], method: 'POST', body, headers, connections: CONNECTIONS, warmupMs: 0, durationMs: SECONDS * 1000 });
    type Side = { results: LoadResult[]; sent: number; shared: number };
    const sides = queries.map(() => ({ stock: { results: [], sent: 0, shared: 0 } as Side, ours: { results: [], sent: 0, shared: 0 } as Side, ratios: [] as number[], cpuRatios: [] as number[] }));
    const line = (label: string, r: LoadResult, extra = '') =>
      console.log(
        `    ${label.padEnd(34)} ${fmt(r.requests / r.seconds).padStart(7)} req/s  p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(6)} ms  ` +
          `server CPU ${(r.serverCpuUs ?? NaN).toFixed(0).padStart(5)} us/req${r.errors || r.non200 ? `  (${r.errors} errors, ${r.non200} non-200)` : ''}${extra}`,
      );
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`  round ${round} (load average ${loadAverage()})`);
      for (const [i, q] of queries.entries()) {
        const side = sides[i];
        const a = await measure(job(stockUrl, q.body), [start, stock]);
        side.stock.results.push(a);
        line(`${q.name}: stock (own process)`, a);
        const before = await subgraphRequests(ours);
        const b = await measure(job(`${ours}/graphql`, q.body), [start]);
        const after = await subgraphRequests(ours);
        side.ours.results.push(b);
        side.ours.sent += after.sent - before.sent;
        side.ours.shared += after.shared - before.shared;
        side.ratios.push(b.requests / b.seconds / (a.requests / a.seconds));
        side.cpuRatios.push((b.serverCpuUs ?? NaN) / (a.serverCpuUs ?? NaN));
        line(`${q.name}: ours (npm start)`, b, `  ${((100 * b.requests) / b.seconds / (a.requests / a.seconds)).toFixed(0)}% of stock`);
      }
    }
    console.log(`summary (as documented; load average ${loadAverage()}; ${os.cpus().length} cores; the load generator shares them)`);
    for (const [i, q] of queries.entries()) {
      const side = sides[i];
      const rps = (rs: LoadResult[]) => median(rs.map((r) => r.requests / r.seconds));
      const p50 = (rs: LoadResult[]) => median(rs.map((r) => r.p50));
      const cpu = (rs: LoadResult[]) => median(rs.map((r) => r.serverCpuUs ?? NaN));
      const ratio = median(side.ratios);
      const target = TARGET_DOCUMENTED[q.key];
      console.log(`  ${q.name}:`);
      console.log(`    stock: ${fmt(rps(side.stock.results))} req/s, p50 ${p50(side.stock.results).toFixed(1)} ms, ${cpu(side.stock.results).toFixed(0)} us CPU/request (stock's process and npm start's subgraphs)`);
      console.log(`    ours:  ${fmt(rps(side.ours.results))} req/s, p50 ${p50(side.ours.results).toFixed(1)} ms, ${cpu(side.ours.results).toFixed(0)} us CPU/request (npm start's process)`);
      console.log(
        `    ours / stock: ${ratio.toFixed(2)}x throughput (rounds ${side.ratios.map((r) => r.toFixed(2)).join(', ')}), ${median(side.cpuRatios).toFixed(2)}x the CPU per request; ` +
          `target ${target}x: ${ratio >= target ? 'met' : 'NOT met'} (${(ratio / target).toFixed(2)} of it)`,
      );
      const answered = side.ours.results.reduce((n, r) => n + r.requests, 0);
      console.log(
        `    ours, subgraph fetches in the measured windows and their warm-ups: ${fmt(side.ours.sent)} sent, ${fmt(side.ours.shared)} shared with one in flight (dedup hits) ` +
          `for ${fmt(answered)} measured client requests`,
      );
    }
  } finally {
    await stock?.stop();
    await start.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(
    `gateway benchmark: ${SYMBOLS} symbols, ${os.cpus().length} cores, ${CONNECTIONS} connections, ${SECONDS} s per scenario after ${WARMUP_MS / 1000} s of warm-up, ${ROUNDS} rounds; load average ${loadAverage()}`,
  );
  if (PART !== 'documented') await inProcess();
  if (PART !== 'inprocess') await documented();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
