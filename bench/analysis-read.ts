/**
 * Analysis REST read throughput: the real analysis origin serving
 * `GET /api/v1/results/analysis/{symbol}` to a partner (a real signed token verified on every request,
 * the service's rules, the stored document spliced into the envelope) against a baseline measured in the
 * same run: a bare Fastify route that returns the same envelope (same bytes, fresh timestamp) from memory.
 *
 * Both servers listen on 127.0.0.1 port 0 in this process; the load comes from a child process (the other
 * core): N connections kept alive, each sending its next request as soon as the previous answer arrived,
 * a warm-up, then a fixed measuring window. Printed: requests/s, p50 and p99 latency, the server's CPU
 * time per request in the window, and the ratio to the baseline (target: at least 40%). On a shared
 * machine throughput moves with other load; CPU time per request moves much less, so its ratio is
 * printed beside the throughput ratio. The cache-miss path (snapshot cache TTL 0: requests read the
 * store; concurrent reads of one symbol share a query), dated reads (never cached: one query per request,
 * cycling through 20 dates) and the demo route (no token, public subset) are measured separately. The run is repeated in rounds, each measuring the baseline again right before
 * the origin, and the median ratio is reported, so a busy moment on the machine skews one round only.
 *
 *   npm run bench:analysis-read
 *   BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_CONNECTIONS=64 npm run bench:analysis-read
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { buildAnalysisOrigin, type OriginDeps } from '../rest-compat/origins.js';
import { successEnvelope } from '../rest-compat/analysis-routes.js';
import { ensureDemoMarket } from '../subgraphs/analysis/market-data.js';
import { AnalysisService } from '../subgraphs/analysis/service.js';
import { latestSnapshot } from '../subgraphs/analysis/store.js';
import { mintPartnerToken } from '../subgraphs/platform/auth.js';
import { ALL_MIGRATIONS } from '../subgraphs/platform/all-migrations.js';
import { loadConfig } from '../subgraphs/platform/config.js';
import { openPglite } from '../subgraphs/platform/db.js';
import { resolvePartnerAuth } from '../subgraphs/platform/dev-secret.js';
import { migrate } from '../subgraphs/platform/migrations.js';
import { seedAnalysis } from '../test/helpers/analysis.js';

interface LoadJob {
  /** Requested in turn, one per request (one URL: always the same request). */
  urls: string[];
  headers: Record<string, string>;
  connections: number;
  warmupMs: number;
  durationMs: number;
}

interface LoadResult {
  /** CPU time the server process spent during the measuring window, per answered request (microseconds). */
  serverCpuUs?: number;
  requests: number;
  errors: number;
  non200: number;
  seconds: number;
  p50: number;
  p99: number;
  bytes: number;
}

// ---------------------------------------------------------------------------------------------------------
// Load generator (worker thread)
// ---------------------------------------------------------------------------------------------------------

/**
 * One keep-alive TCP connection per virtual user, each sending its next request when the previous
 * response is complete. Requests are pre-built bytes and responses are framed by Content-Length (both
 * servers send it), so the generator costs far less per request than the servers it measures.
 */
async function drive(job: LoadJob, mark: (phase: 'start' | 'end') => void): Promise<LoadResult> {
  const target = new URL(job.urls[0]);
  const requests = job.urls.map((url) => {
    const u = new URL(url);
    const head = [`GET ${u.pathname}${u.search} HTTP/1.1`, `host: ${u.host}`, 'connection: keep-alive', ...Object.entries(job.headers).map(([k, v]) => `${k}: ${v}`)];
    return Buffer.from(`${head.join('\r\n')}\r\n\r\n`);
  });
  let next = 0;
  const latencies: number[] = [];
  let errors = 0;
  let non200 = 0;
  let bytes = 0;
  let measuring = false;
  let stopped = false;

  const user = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect(Number(target.port), target.hostname);
      socket.setNoDelay(true);
      let buffer: Buffer = Buffer.alloc(0);
      let t0 = 0;
      const send = () => {
        if (stopped) {
          socket.end();
          return resolve();
        }
        t0 = performance.now();
        socket.write(requests[next]);
        next = (next + 1) % requests.length;
      };
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
        for (;;) {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) return;
          const headers = buffer.subarray(0, end).toString('latin1');
          const length = /\r\ncontent-length: *(\d+)/i.exec(headers);
          if (!length) {
            errors++;
            socket.destroy();
            return resolve();
          }
          const total = end + 4 + Number(length[1]);
          if (buffer.length < total) return;
          if (measuring) {
            latencies.push(performance.now() - t0);
            bytes += total;
            if (!headers.startsWith('HTTP/1.1 200')) non200++;
          }
          buffer = buffer.subarray(total);
          send();
        }
      });
      socket.on('error', () => {
        if (measuring) errors++;
        resolve();
      });
      socket.on('close', () => resolve());
    });

  const users = Array.from({ length: job.connections }, user);
  await new Promise((r) => setTimeout(r, job.warmupMs));
  measuring = true;
  mark('start');
  const start = performance.now();
  await new Promise((r) => setTimeout(r, job.durationMs));
  measuring = false;
  mark('end');
  const seconds = (performance.now() - start) / 1000;
  stopped = true;
  await Promise.all(users);
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] : NaN);
  return { requests: latencies.length, errors, non200, seconds, p50: pct(0.5), p99: pct(0.99), bytes };
}

const LOAD_FLAG = '--load-generator';

if (process.argv.includes(LOAD_FLAG)) {
  process.once('message', (job: LoadJob) => {
    void drive(job, (phase) => process.send?.({ phase })).then((result) => process.send?.({ result }, () => process.exit(0)));
  });
}

/** Runs one load in a child process (so the server's CPU time can be measured apart from the load's). */
function load(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [LOAD_FLAG], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let cpuAtStart: NodeJS.CpuUsage | undefined;
    let serverCpu = 0;
    child.on('message', (message: { phase?: 'start' | 'end'; result?: LoadResult }) => {
      if (message.phase === 'start') cpuAtStart = process.cpuUsage();
      if (message.phase === 'end' && cpuAtStart) {
        const used = process.cpuUsage(cpuAtStart);
        serverCpu = used.user + used.system;
      }
      if (message.result) resolve({ ...message.result, serverCpuUs: message.result.requests ? serverCpu / message.result.requests : NaN });
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`load generator exited with ${code}`));
    });
    child.send(job);
  });
}

// ---------------------------------------------------------------------------------------------------------
// Servers and the run
// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
  const warmupMs = Number(process.env.BENCH_WARMUP_SECONDS ?? 2) * 1000;
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  const secret = 'bench-secret-0123456789abcdef-0123456789abcdef';
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-bench-'));
  // The rate limiter stays on the measured path (its cost is part of a real read), with a budget
  // above what one bench caller sends, so every measured answer is a 200.
  const config = loadConfig({ APP_ENV: 'development', DATA_DIR: dataDir, AUTH_HS256_SECRET: secret, LOG_LEVEL: 'silent', HOST: '127.0.0.1', RATE_LIMIT_MAX: '10000000' });

  const db = await openPglite(undefined);
  await migrate(db, ALL_MIGRATIONS);
  await ensureDemoMarket(db, { seed: config.demo.seed, symbolCount: 30, years: 2, endDate: config.demo.endDate, indexSymbol: config.marketIndexSymbol });
  const seed = await seedAnalysis(db, { days: 20 });
  const symbol = seed.symbols[1];
  const stored = await latestSnapshot(db, symbol);
  if (!stored) throw new Error('no snapshot was stored');
  const token = await mintPartnerToken({ secret, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'bench-partner' });
  const deps: OriginDeps = { config, partnerAuth: resolvePartnerAuth(config), db };

  // (a) the baseline: the same envelope from memory, nothing else.
  const bare = Fastify({ logger: false });
  bare.get('/bare/:symbol', async (_request, reply) => reply.type('application/json; charset=utf-8').send(successEnvelope(stored.docText)));
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });

  // (b) the real origin with the default cache, (c) the same with the cache off.
  const cached = await buildAnalysisOrigin(deps);
  const cachedUrl = await cached.listen({ host: '127.0.0.1', port: 0 });
  const uncached = await buildAnalysisOrigin(deps, { service: new AnalysisService(db, config.demo.symbol, { snapshotCacheTtlMs: 0 }) });
  const uncachedUrl = await uncached.listen({ host: '127.0.0.1', port: 0 });

  const auth = { authorization: `Bearer ${token}` };
  const route = `/api/v1/results/analysis/${symbol}`;
  // Every server must answer the same bytes (apart from the timestamp) before anything is measured.
  const strip = (s: string) => s.replace(/"timestamp":"[^"]+"/, '');
  const [a, b, c] = await Promise.all([
    fetch(`${bareUrl}/bare/${symbol}`).then((r) => r.text()),
    fetch(`${cachedUrl}${route}`, { headers: auth }).then((r) => r.text()),
    fetch(`${uncachedUrl}${route}`, { headers: auth }).then((r) => r.text()),
  ]);
  if (strip(a) !== strip(b) || strip(a) !== strip(c)) throw new Error('the servers do not answer the same envelope');

  const job = (url: string | string[], headers: Record<string, string> = {}): LoadJob => ({
    urls: typeof url === 'string' ? [url] : url,
    headers,
    connections,
    warmupMs,
    durationMs: seconds * 1000,
  });
  const scenarios: Array<{ label: string; job: LoadJob }> = [
    { label: 'bare Fastify, envelope from memory (baseline)', job: job(`${bareUrl}/bare/${symbol}`) },
    { label: `analysis origin, partner token, cache TTL ${config.analysis.cacheTtlMs} ms`, job: job(`${cachedUrl}${route}`, auth) },
    { label: 'analysis origin, partner token, cache off (TTL 0)', job: job(`${uncachedUrl}${route}`, auth) },
    { label: 'analysis origin, partner token, dated reads', job: job(seed.dates.map((d) => `${cachedUrl}${route}?date=${d}`), auth) },
    { label: 'analysis origin, demo route (no token)', job: job(`${cachedUrl}/api/v1/demo/results/analysis/${config.demo.symbol}`) },
  ];
  console.log(
    `analysis REST read on PGlite: ${symbol}, document ${(stored.docText.length / 1024).toFixed(1)} KiB, ${connections} keep-alive connections, ` +
      `${warmupMs / 1000} s warm-up + ${seconds} s per scenario, ${rounds} round(s) (each round measures the baseline again)`,
  );
  const ratios = scenarios.map(() => [] as number[]);
  const cpuRatios = scenarios.map(() => [] as number[]);
  for (let round = 1; round <= rounds; round++) {
    console.log(`round ${round}`);
    let base = NaN;
    let baseCpu = NaN;
    for (const [i, scenario] of scenarios.entries()) {
      const r = await load(scenario.job);
      const rps = r.requests / r.seconds;
      if (i === 0) [base, baseCpu] = [rps, r.serverCpuUs ?? NaN];
      ratios[i].push(rps / base);
      cpuRatios[i].push(baseCpu / (r.serverCpuUs ?? NaN));
      const problems = r.errors || r.non200 ? `  (${r.errors} errors, ${r.non200} non-200)` : '';
      console.log(
        `  ${scenario.label.padEnd(50)} ${Math.round(rps).toLocaleString('en-US').padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2).padStart(5)} ms  ` +
          `server CPU ${(r.serverCpuUs ?? NaN).toFixed(0).padStart(4)} us/req  ${((100 * rps) / base).toFixed(0).padStart(3)}% of baseline${problems}`,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  console.log('median over the rounds, against the baseline (throughput ratio; CPU-cost ratio = baseline CPU per request / ours):');
  for (const [i, scenario] of scenarios.entries()) {
    if (i > 0) console.log(`  ${scenario.label.padEnd(50)} throughput ${(100 * median(ratios[i])).toFixed(0).padStart(3)}%   CPU-cost ${(100 * median(cpuRatios[i])).toFixed(0).padStart(3)}%`);
  }
  console.log(`partner read (cached) / bare: ${(100 * median(ratios[1])).toFixed(0)}% of the throughput, ${(100 * median(cpuRatios[1])).toFixed(0)}% by CPU cost (target >= 40%)`);

  await Promise.all([bare.close(), cached.close(), uncached.close()]);
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

if (!process.argv.includes(LOAD_FLAG)) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
