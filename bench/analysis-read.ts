/**
 * Analysis REST read throughput: the real analysis origin serving
 * `GET /api/v1/results/analysis/{symbol}` to a partner (a real signed token, the service's rules, the
 * stored document presented with its evidence, in the envelope) against a baseline measured in the same
 * run: a bare node:http server (http.createServer) writing the same answer's bytes from memory. A bare
 * Fastify route answering the same envelope (fresh timestamp) is measured too, as a second reference.
 *
 * Both servers listen on 127.0.0.1 port 0 in this process; the load comes from a child process
 * (http-load.ts; the other core): N connections kept alive, each sending its next request as soon as
 * the previous answer arrived, a warm-up, then a fixed measuring window. Printed: requests/s, p50 and
 * p99 latency, the server's CPU time per request in the window, and the ratios to the baseline by
 * requests/s and by CPU per request (target: the cached partner read at least 60% of bare node:http).
 * On a shared machine throughput moves with other load; CPU time per request moves much less, so its
 * ratio is printed beside the throughput ratio, with the load average. The cache-miss path (snapshot
 * cache TTL 0: requests read the store; concurrent reads of one symbol share a query), dated reads (never
 * cached: one query per request, cycling through 20 dates) and the demo route (no token, public subset)
 * are measured separately. The run is repeated in rounds, each measuring the baseline again right before
 * the others, and the median ratio is reported, so a busy moment on the machine skews one round only.
 *
 * Browser-like clients: the cached partner read with the headers a browser's fetch sends
 * (`Accept-Encoding: gzip, deflate, br, zstd` and an allowed `Origin`), against its own fair baseline
 * measured in the same round: a bare node:http server writing the origin's compressed answer (br, the
 * same bytes) from memory with Content-Encoding and Vary. Its ratio is the median of the per-round
 * ratios to that baseline (target: 60% too).
 *
 *   npm run bench:analysis-read
 *   BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_CONNECTIONS=64 npm run bench:analysis-read
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import Fastify from 'fastify';
import { buildAnalysisOrigin, type OriginDeps } from '../app/origins.js';
import { ensureDemoMarket } from '../subgraphs/analysis/market-data.js';
import { AnalysisService } from '../subgraphs/analysis/service.js';
import { latestSnapshot } from '../subgraphs/analysis/store.js';
import { mintPartnerToken } from '../subgraphs/platform/auth.js';
import { ALL_MIGRATIONS } from '../app/migrations.js';
import { loadConfig } from '../subgraphs/platform/config.js';
import { openPglite } from '../subgraphs/platform/db.js';
import { resolvePartnerAuth } from '../subgraphs/platform/dev-secret.js';
import { migrate } from '../subgraphs/platform/migrations.js';
import { seedAnalysis } from '../test/helpers/analysis.js';
import { median, runRounds, type LoadJob, type Scenario } from './http-load.js';

/** The cached partner read's requests/s against bare node:http's. */
const TARGET = 0.6;
const loadText = () => os.loadavg().map((l) => l.toFixed(2)).join(' / ');

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

  // (b) the real origin with the default cache, (c) the same with the cache off.
  const cached = await buildAnalysisOrigin(deps);
  const cachedUrl = await cached.listen({ host: '127.0.0.1', port: 0 });
  const uncached = await buildAnalysisOrigin(deps, { service: new AnalysisService(db, config.demo.symbol, { snapshotCacheTtlMs: 0 }) });
  const uncachedUrl = await uncached.listen({ host: '127.0.0.1', port: 0 });

  const auth = { authorization: `Bearer ${token}` };
  const route = `/api/v1/results/analysis/${symbol}`;

  // (a) the baseline: a bare node:http server writing the origin's own answer (the presented document,
  // evidence included, in its envelope) from memory, nothing else; (a') a bare Fastify route answering
  // the same envelope with a fresh timestamp.
  const answer = await (await fetch(`${cachedUrl}${route}`, { headers: auth })).text();
  // Every server must answer the same bytes (apart from the timestamp) before anything is measured.
  // (The envelope's timestamp is its last member; the document may have a `timestamp` of its own.)
  const ENVELOPE_TIME = /"timestamp":"[^"]+"\}$/;
  const strip = (s: string) => s.replace(ENVELOPE_TIME, '');
  const answerBytes = Buffer.from(answer, 'utf8');
  const node = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': answerBytes.length });
    response.end(answerBytes);
  });
  const nodeUrl = await new Promise<string>((resolve) => {
    node.listen(0, '127.0.0.1', () => {
      const address = node.address();
      resolve(typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '');
    });
  });
  // The browser-like baseline: the origin's own compressed answer for a browser's headers, sent as it is.
  const browser = { ...auth, 'accept-encoding': 'gzip, deflate, br, zstd', origin: 'http://localhost:5173' };
  const compressed = await rawGet(`${cachedUrl}${route}`, browser);
  if (compressed.headers['content-encoding'] !== 'br' || compressed.headers['access-control-allow-origin'] !== browser.origin) {
    throw new Error('the origin did not answer the browser-like read compressed with its CORS headers');
  }
  if (strip(zlib.brotliDecompressSync(compressed.body).toString('utf8')) !== strip(answer)) throw new Error('the compressed answer is not the envelope');
  const nodeBrowser = http.createServer((_request, response) => {
    response.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': compressed.body.length,
      'content-encoding': 'br',
      vary: 'Origin, accept-encoding',
      'access-control-allow-origin': browser.origin,
    });
    response.end(compressed.body);
  });
  const nodeBrowserUrl = await new Promise<string>((resolve) => {
    nodeBrowser.listen(0, '127.0.0.1', () => {
      const address = nodeBrowser.address();
      resolve(typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '');
    });
  });
  const bare = Fastify({ logger: false });
  bare.get('/bare/:symbol', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(answer.replace(ENVELOPE_TIME, `"timestamp":"${new Date().toISOString()}"}`)),
  );
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });
  const answers = await Promise.all([
    fetch(`${nodeUrl}/node/${symbol}`).then((r) => r.text()),
    fetch(`${bareUrl}/bare/${symbol}`).then((r) => r.text()),
    fetch(`${cachedUrl}${route}`, { headers: auth }).then((r) => r.text()),
    fetch(`${uncachedUrl}${route}`, { headers: auth }).then((r) => r.text()),
  ]);
  if (answers.some((text) => strip(text) !== strip(answer))) throw new Error('the servers do not answer the same envelope');

  const job = (url: string | string[], headers: Record<string, string> = {}): LoadJob => ({
    urls: typeof url === 'string' ? [url] : url,
    headers,
    connections,
    warmupMs,
    durationMs: seconds * 1000,
  });
  const scenarios: Scenario[] = [
    { label: 'bare node:http, same bytes from memory (baseline)', job: job(`${nodeUrl}/node/${symbol}`) },
    { label: 'bare Fastify, envelope from memory', job: job(`${bareUrl}/bare/${symbol}`) },
    { label: `analysis origin, partner token, cache TTL ${config.analysis.cacheTtlMs} ms`, job: job(`${cachedUrl}${route}`, auth) },
    { label: 'analysis origin, partner token, cache off (TTL 0)', job: job(`${uncachedUrl}${route}`, auth) },
    { label: 'analysis origin, partner token, dated reads', job: job(seed.dates.map((d) => `${cachedUrl}${route}?date=${d}`), auth) },
    { label: 'analysis origin, demo route (no token)', job: job(`${cachedUrl}/api/v1/demo/results/analysis/${config.demo.symbol}`) },
    { label: 'bare node:http, same br bytes (browser baseline)', job: job(`${nodeBrowserUrl}/node/${symbol}`, browser) },
    { label: 'analysis origin, partner token, browser headers', job: job(`${cachedUrl}${route}`, browser) },
  ];
  const BROWSER_BASE = scenarios.length - 2;
  const BROWSER = scenarios.length - 1;
  console.log(
    `analysis REST read on PGlite: ${symbol}, answer ${(answerBytes.length / 1024).toFixed(1)} KiB, ${connections} keep-alive connections, ` +
      `${warmupMs / 1000} s warm-up + ${seconds} s per scenario, ${rounds} round(s) (each round measures the baseline again), ` +
      `${os.cpus().length} cores, load average ${loadText()}`,
  );
  const { ratios, cpuRatios, results } = await runRounds(scenarios, rounds);
  const cpu = (i: number) => median(results[i].map((r) => r.serverCpuUs ?? NaN));
  console.log(`median over the rounds, against bare node:http (requests/s ratio; CPU ratio = bare node:http's CPU per request / ours), load average now ${loadText()}:`);
  for (const [i, scenario] of scenarios.entries()) {
    if (i > 0) {
      console.log(
        `  ${scenario.label.padEnd(50)} req/s ${(100 * median(ratios[i])).toFixed(0).padStart(3)}%   CPU ${(100 * median(cpuRatios[i])).toFixed(0).padStart(3)}%   (${cpu(i).toFixed(0)} us vs ${cpu(0).toFixed(0)} us per request)`,
      );
    }
  }
  // The browser-like read against its own baseline, round by round.
  const browserRatios = results[BROWSER].map((r, round) => r.requests / r.seconds / (results[BROWSER_BASE][round].requests / results[BROWSER_BASE][round].seconds));
  const browserCpuRatios = results[BROWSER].map((r, round) => (results[BROWSER_BASE][round].serverCpuUs ?? NaN) / (r.serverCpuUs ?? NaN));
  const met = median(ratios[2]) >= TARGET;
  const browserMet = median(browserRatios) >= TARGET;
  console.log(
    `partner read (cached) / bare node:http: ${(100 * median(ratios[2])).toFixed(0)}% of the requests/s, ${(100 * median(cpuRatios[2])).toFixed(0)}% by CPU per request ` +
      `(target >= ${100 * TARGET}% of the requests/s: ${met ? 'met' : 'NOT met'}); against bare Fastify ${(100 * (median(ratios[2]) / median(ratios[1]))).toFixed(0)}%`,
  );
  console.log(
    `partner read (cached), browser headers (br, ${compressed.body.length} bytes, allowed Origin) / bare node:http sending the same br bytes: ` +
      `${(100 * median(browserRatios)).toFixed(0)}% of the requests/s, ${(100 * median(browserCpuRatios)).toFixed(0)}% by CPU per request ` +
      `(${cpu(BROWSER).toFixed(0)} us vs ${cpu(BROWSER_BASE).toFixed(0)} us; target >= ${100 * TARGET}%: ${browserMet ? 'met' : 'NOT met'}); load average now ${loadText()}`,
  );

  await Promise.all([bare.close(), cached.close(), uncached.close(), new Promise((resolve) => node.close(resolve)), new Promise((resolve) => nodeBrowser.close(resolve))]);
  await db.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** One GET with exactly these headers, the body as it came (still encoded). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
