/**
 * Allocation optimizer: latency of `AllocationService.optimize` on universes of 500 and 5,000 symbols,
 * and REST throughput of the demo optimize against a bare Fastify route, in one run.
 *
 *   1. Universes: one PGlite store per size (a temporary data directory, every migration applied)
 *      holding BENCH_YEARS (default 2) years of synthetic daily bars per symbol, with real pipeline
 *      snapshots on the newest date only (runAnalysis, one worker thread per core). Building time is
 *      printed; it is not part of any figure below.
 *   2. Latency, per universe: a partner calls optimize with HYBRID_WEIGHTED, max_positions 30, sector
 *      caps (DEFAULT and four sectors) and vol_target_annual 0.15. The first call on a fresh service is
 *      the cold one (it builds the candidate universe); then BENCH_CALLS (default 50) warm calls, each
 *      with a slightly different total_capital and no Idempotency-Key, so no result can be reused (the
 *      universe and its closes are cached per analysis run, as in production: warm calls read no
 *      closes, and ask the store for the universe version at most once a second, the default
 *      ALLOCATION_UNIVERSE_TTL_MS). Every partner call persists its portfolio (one transaction). The demo path (anonymous
 *      caller, the demo body, nothing stored; its engine result is cached per analysis run) is
 *      measured the same way. Each call is split by where its time went: the universe version query,
 *      the candidate snapshot read (cold only), the closes query, the persisting transaction, and the
 *      rest (validation, the engine, the response JSON). The pure `optimize()` engine is also timed
 *      alone over the same candidates and closes.
 *   3. REST throughput: the real allocation origin (rate limiter on the path, with a budget above the
 *      load) answering `POST /api/v1/portfolios/optimize` with the demo body and no token on the
 *      500-symbol store, against a bare node:http server that reads the body and writes the same bytes
 *      from memory (the baseline), a bare Fastify route doing the same, and a route of the same origin
 *      answering them from memory (the shell's floor: what the origin's hooks, body parser and headers
 *      cost without any route work). Load from a child process (http-load.ts): keep-alive connections,
 *      warm-up, fixed window, rounds, median ratios by requests/s and by server CPU per request. The
 *      machine's load average is printed with it: other work on the machine skews the ratio.
 *
 * Ratios only: nothing here asserts a timing. The targets: p50 under 100 ms at 5,000 symbols, and the
 * REST demo optimize at 50% or more of bare node:http's requests/s.
 *
 *   npm run bench:optimize
 *   BENCH_SIZES=500 BENCH_CALLS=20 BENCH_SECONDS=3 npm run bench:optimize
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { buildAllocationOrigin, type OriginDeps } from '../app/origins.js';
import { OPTIMIZE_PATH } from '../rest-compat/allocation-routes.js';
import { toPortfolioRequest, validateRequestBody } from '../subgraphs/allocation/dto.js';
import { effectiveRiskSettings, optimize, symbolsNeedingCloses } from '../subgraphs/allocation/engine/optimizer.js';
import { resolveRiskProfile } from '../subgraphs/allocation/engine/risk-profile.js';
import { CONSTRAINT_PACK_SCHEMA_VERSION, type OptimizeResult } from '../subgraphs/allocation/engine/types.js';
import { candidatesFrom } from '../subgraphs/allocation/engine/candidates.js';
import { AllocationService, DEMO_OPTIMIZE_BODY, type OptimizeOutcome } from '../subgraphs/allocation/service.js';
import { defaultWorkers } from '../subgraphs/analysis/pipeline.js';
import { listCloses, snapshotsOn } from '../subgraphs/analysis/store.js';
import type { Principal } from '../subgraphs/platform/auth.js';
import type { Db } from '../subgraphs/platform/db.js';
import { resolvePartnerAuth } from '../subgraphs/platform/dev-secret.js';
import { median, runRounds, type LoadJob, type Scenario } from './http-load.js';
import {
  CALLS,
  SIZES,
  YEARS,
  benchOriginConfig,
  buildStore,
  buildTimes,
  dropStores,
  fmt,
  int,
  loadSettings,
  seconds,
  stats,
  statsText,
  timeStatements,
  type Stats,
  type Store,
  type TimedStatements,
} from './universe.js';

const TARGET_MS = 100;
/** The REST demo optimize's requests/s against bare node:http's. */
const TARGET_REST_RATIO = 0.5;

const PARTNER: Principal = { kind: 'partner', partnerId: 'bench', claims: { sub: 'bench' } };
const ANONYMOUS: Principal = { kind: 'anonymous' };
const BASE_CAPITAL = 1_000_000;

/** The measured partner request: HYBRID_WEIGHTED, 30 names, sector caps and a vol target. */
const partnerBody = (totalCapital: number) => ({
  name: 'Bench portfolio',
  total_capital: totalCapital,
  risk_settings: { allocation_strategy: 'HYBRID_WEIGHTED', max_positions: 30 },
  constraint_pack: {
    schema_version: CONSTRAINT_PACK_SCHEMA_VERSION,
    vol_target_annual: 0.15,
    sector_caps: { DEFAULT: 0.08, 'Information Technology': 0.25, 'Health Care': 0.2, Financials: 0.2, Energy: 0.1 },
  },
});
/** Capital of warm call i: a few dollars apart, so no two calls are the same request. */
const capitalOf = (i: number) => BASE_CAPITAL + Math.round(i * 3725) / 100;
/** The demo body as a client sends it (plain JSON, not the frozen constant). */
const demoBody = () => JSON.parse(JSON.stringify(DEMO_OPTIMIZE_BODY)) as unknown;

// ---------------------------------------------------------------------------------------------------------
// Where a call's time goes: the store, wrapped to time each statement by kind
// ---------------------------------------------------------------------------------------------------------

const PARTS = ['version', 'universe', 'closes', 'persist', 'other sql'] as const;
type Part = (typeof PARTS)[number];
type Split = Record<Part, number>;
const emptySplit = (): Split => ({ version: 0, universe: 0, closes: 0, persist: 0, 'other sql': 0 });

/** Which of the service's statements this is (by its text). */
function partOf(sql: string): Part {
  if (/max\(analysis_date\)/i.test(sql)) return 'version';
  if (/analysis_snapshots s JOIN securities/i.test(sql)) return 'universe';
  if (/\bFROM bars\b/i.test(sql)) return 'closes';
  return 'other sql';
}

interface TimedDb extends TimedStatements<Part> {
  /** Parameters of the latest closes query (the symbols the engine needed and the first date). */
  lastCloses: { symbols: string[]; from: string; to: string } | null;
}

/** The same store; each statement's time is added to its part, a whole transaction to `persist`. */
function timedDb(db: Db): TimedDb {
  const timed: TimedDb = Object.assign(
    timeStatements<Part>(db, {
      empty: emptySplit,
      transaction: 'persist',
      partOf(sql, params) {
        const part = partOf(sql);
        if (part === 'closes' && params) timed.lastCloses = { symbols: params[0] as string[], from: params[1] as string, to: params[2] as string };
        return part;
      },
    }),
    { lastCloses: null },
  );
  return timed;
}

// ---------------------------------------------------------------------------------------------------------
// 2. Latency
// ---------------------------------------------------------------------------------------------------------

interface Call {
  ms: number;
  split: Split;
  outcome: OptimizeOutcome;
}

interface Latency {
  size: number;
  candidates: number;
  eligible: number;
  closesSymbols: number;
  cold: Call;
  partner: Stats;
  partnerSplit: Split;
  demo: Stats;
  demoSplit: Split;
  engine: Stats;
  engineResult: OptimizeResult;
  positions: number;
  persisted: number;
}

const meanSplit = (calls: readonly Call[]): Split => {
  const out = emptySplit();
  for (const c of calls) for (const p of PARTS) out[p] += c.split[p] / calls.length;
  return out;
};
/** The split as text; `rest` is the call's time outside the store (validation, engine, response JSON). */
const splitText = (split: Split, total: number) => {
  const sql = PARTS.reduce((s, p) => s + split[p], 0);
  const parts = PARTS.filter((p) => split[p] > 0.005).map((p) => `${p} ${fmt(split[p])}`);
  return `${parts.join(', ')}, rest (validation, engine, JSON) ${fmt(total - sql)}`;
};

async function latency(store: Store): Promise<Latency> {
  const timed = timedDb(store.db);
  const service = new AllocationService(timed.db);
  const call = async (principal: Principal, body: unknown): Promise<Call> => {
    timed.reset();
    const t0 = performance.now();
    const outcome = await service.optimizeBody(principal, body, { traceId: randomUUID(), naming: 'rest' });
    const ms = performance.now() - t0;
    return { ms, split: timed.split, outcome };
  };

  const cold = await call(PARTNER, partnerBody(capitalOf(0)));
  const closesParams = timed.lastCloses;
  const partnerCalls: Call[] = [];
  for (let i = 1; i <= CALLS; i++) partnerCalls.push(await call(PARTNER, partnerBody(capitalOf(i))));
  const demoCalls: Call[] = [];
  for (let i = 0; i < CALLS; i++) demoCalls.push(await call(ANONYMOUS, demoBody()));
  for (const c of [cold, ...partnerCalls]) if (!c.outcome.persisted || c.outcome.replayed) throw new Error('a partner optimize was not persisted as a new portfolio');
  if (demoCalls.some((c) => c.outcome.persisted)) throw new Error('a demo optimize was persisted');
  const last = partnerCalls[partnerCalls.length - 1]?.outcome.response ?? cold.outcome.response;

  // The engine alone: the same candidates (built as the service builds them), the same request, the
  // same closes the service loaded, BENCH_CALLS times with the warm calls' capitals.
  const candidates = candidatesFrom(await snapshotsOn(store.db, store.analysisDate));
  const request = toPortfolioRequest(validateRequestBody(partnerBody(capitalOf(0)), 'rest'));
  const profile = resolveRiskProfile(request);
  const base = {
    total_capital: request.total_capital,
    risk_settings: effectiveRiskSettings(profile.risk_settings),
    constraint_pack: profile.constraint_pack,
    prior_book_weights: request.prior_book_weights,
    candidates,
  };
  const needed = symbolsNeedingCloses(base);
  const closes = await listCloses(store.db, needed, closesParams?.from ?? '1900-01-01', closesParams?.to ?? store.analysisDate);
  let engineResult = optimize({ ...base, closes });
  const engineMs: number[] = [];
  for (let i = 1; i <= CALLS; i++) {
    const t0 = performance.now();
    engineResult = optimize({ ...base, total_capital: capitalOf(i), closes });
    engineMs.push(performance.now() - t0);
  }
  const persisted = Number((await store.db.query<{ n: number }>("SELECT count(*)::int AS n FROM portfolios WHERE partner_id = 'bench'"))[0]?.n ?? 0);

  return {
    size: store.size,
    candidates: candidates.length,
    eligible: candidates.filter((c) => c.eligible).length,
    closesSymbols: closesParams?.symbols.length ?? needed.length,
    cold,
    partner: stats(partnerCalls.map((c) => c.ms)),
    partnerSplit: meanSplit(partnerCalls),
    demo: stats(demoCalls.map((c) => c.ms)),
    demoSplit: meanSplit(demoCalls),
    engine: stats(engineMs),
    engineResult,
    positions: last.position_count,
    persisted,
  };
}

function printLatency(l: Latency): void {
  const m = l.engineResult.metrics;
  const vol = m.expected_volatility_annual;
  console.log(
    `  ${int(l.size)} symbols: ${int(l.candidates)} candidates (${int(l.eligible)} eligible), the book needs the closes of ${int(l.closesSymbols)} symbols (loaded once per universe); ` +
      `book of ${l.positions} positions, expected vol ${vol === null ? 'n/a' : `${(100 * vol).toFixed(1)}%`}, ${l.engineResult.diagnostics.binding_notes.length} binding note(s)`,
  );
  const label = (s: string) => `    ${s.padEnd(58)}`;
  console.log(`${label('partner optimize, cold (builds the candidate universe)')}${fmt(l.cold.ms).padStart(6)} ms`);
  console.log(`      split: ${splitText(l.cold.split, l.cold.ms)}`);
  console.log(`${label(`partner optimize, warm x${CALLS} (each persists a portfolio)`)}${statsText(l.partner)}`);
  console.log(`      mean split: ${splitText(l.partnerSplit, l.partner.mean)} (mean ${fmt(l.partner.mean)} ms)`);
  console.log(`${label(`demo optimize, warm x${CALLS} (anonymous, nothing stored)`)}${statsText(l.demo)}`);
  console.log(`      mean split: ${splitText(l.demoSplit, l.demo.mean)} (mean ${fmt(l.demo.mean)} ms)`);
  console.log(`${label(`engine optimize() alone, same candidates and closes x${CALLS}`)}${statsText(l.engine)}`);
  console.log(`      ${l.persisted} portfolios persisted by the partner calls (cold + warm)`);
}

/** The largest part of a warm partner call, with the engine (measured alone) taken out of `rest`. */
function dominant(l: Latency): string {
  const sql = PARTS.reduce((s, p) => s + l.partnerSplit[p], 0);
  const rest = l.partner.mean - sql;
  const parts: Array<[string, number]> = [
    ['version query', l.partnerSplit.version],
    ['closes query', l.partnerSplit.closes],
    ['persistence', l.partnerSplit.persist],
    ['engine (alone, mean)', l.engine.mean],
    ['validation + response JSON + other', Math.max(0, rest - l.engine.mean)],
    ['other SQL', l.partnerSplit['other sql']],
  ];
  parts.sort((a, b) => b[1] - a[1]);
  return parts
    .filter(([, ms]) => ms > 0.005)
    .map(([name, ms]) => `${name} ${fmt(ms)} ms (${((100 * ms) / l.partner.mean).toFixed(0)}%)`)
    .join(', ');
}

// ---------------------------------------------------------------------------------------------------------
// 3. REST throughput
// ---------------------------------------------------------------------------------------------------------

interface Throughput {
  size: number;
  originRps: number;
  /** bare node:http's requests/s (the baseline) and bare Fastify's. */
  bareRps: number;
  fastifyRps: number;
  ratio: number;
  cpuRatio: number;
  /** Server CPU per request (microseconds): the origin's demo optimize, bare node:http's. */
  originCpuUs: number;
  bareCpuUs: number;
  /** Bare Fastify against bare node:http. */
  fastifyRatio: number;
  /** The shell's floor (a route of the same origin answering from memory) against the bare route. */
  floorRatio: number;
  responseBytes: number;
  /** The machine's 1-minute load average when the load began and when it ended (other work skews every figure). */
  load: [number, number];
}

const FLOOR_PATH = '/bench/floor';

async function throughput(store: Store): Promise<Throughput> {
  const { seconds, connections, warmupMs, rounds } = loadSettings();
  // The rate limiter stays on the measured path, with a budget above what the load sends.
  const { config, configDir } = benchOriginConfig('optimize');
  const deps: OriginDeps = { config, partnerAuth: resolvePartnerAuth(config), db: store.db };
  const origin = await buildAllocationOrigin(deps);
  // The shell's floor: a route of the same origin (every global hook: trace id, limits, headers, body
  // parser) answering the same text from memory, so the gap to the bare route splits into shell and route.
  origin.post(FLOOR_PATH, async (_request, reply) => reply.type('application/json; charset=utf-8').send(floorText));
  let floorText = '';
  const originUrl = await origin.listen({ host: '127.0.0.1', port: 0 });
  const body = JSON.stringify(DEMO_OPTIMIZE_BODY);
  const headers = { 'content-type': 'application/json' };
  const first = await fetch(`${originUrl}${OPTIMIZE_PATH}`, { method: 'POST', headers, body });
  const responseText = await first.text();
  if (first.status !== 200) throw new Error(`the demo optimize answered ${first.status}: ${responseText}`);
  floorText = responseText;

  // The baseline: a bare node:http server that reads the request body and writes the same response
  // bytes from memory; and a bare Fastify route doing the same, as a second reference.
  const responseBytes = Buffer.from(responseText, 'utf8');
  const node = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': responseBytes.length });
      response.end(responseBytes);
    });
  });
  const nodeUrl = await new Promise<string>((resolve) => {
    node.listen(0, '127.0.0.1', () => {
      const address = node.address();
      resolve(typeof address === 'object' && address ? `http://127.0.0.1:${address.port}` : '');
    });
  });
  const bare = Fastify({ logger: false });
  bare.post(OPTIMIZE_PATH, async (_request, reply) => reply.type('application/json; charset=utf-8').send(responseText));
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });
  // Both answer the same document apart from the per-call identifiers and clock.
  const strip = (s: string) => s.replace(/"(portfolio_id|trace_id|created_at)":"[^"]*"/g, '');
  const answers = await Promise.all(
    [nodeUrl, bareUrl, originUrl].map((url) => fetch(`${url}${OPTIMIZE_PATH}`, { method: 'POST', headers, body }).then((r) => r.text())),
  );
  if (answers.some((text) => strip(text) !== strip(responseText))) throw new Error('the servers do not answer the same document');

  const job = (url: string): LoadJob => ({ urls: [`${url}${OPTIMIZE_PATH}`], method: 'POST', body, headers, connections, warmupMs, durationMs: seconds * 1000 });
  const scenarios: Scenario[] = [
    { label: 'bare node:http, same response from memory (baseline)', job: job(nodeUrl) },
    { label: 'bare Fastify, same response from memory', job: job(bareUrl) },
    { label: `allocation origin, demo optimize, ${int(store.size)} symbols`, job: job(originUrl) },
    { label: 'allocation origin, same response from memory (shell floor)', job: { ...job(originUrl), urls: [`${originUrl}${FLOOR_PATH}`] } },
  ];
  console.log(
    `  POST ${OPTIMIZE_PATH}, demo body (${body.length} B) -> ${(responseText.length / 1024).toFixed(1)} KiB, ${connections} keep-alive connections, ` +
      `${warmupMs / 1000} s warm-up + ${seconds} s per scenario, ${rounds} round(s) (each round measures the baseline again)`,
  );
  const loadBefore = os.loadavg()[0];
  const { ratios, cpuRatios, results } = await runRounds(scenarios, rounds, 52);
  const loadAfter = os.loadavg()[0];
  const rps = (i: number) => median(results[i].map((r) => r.requests / r.seconds));
  const cpu = (i: number) => median(results[i].map((r) => r.serverCpuUs ?? NaN));
  await Promise.all([bare.close(), origin.close(), new Promise((resolve) => node.close(resolve))]);
  fs.rmSync(configDir, { recursive: true, force: true });
  return {
    size: store.size,
    bareRps: rps(0),
    fastifyRps: rps(1),
    originRps: rps(2),
    ratio: median(ratios[2]),
    cpuRatio: median(cpuRatios[2]),
    originCpuUs: cpu(2),
    bareCpuUs: cpu(0),
    fastifyRatio: median(ratios[1]),
    floorRatio: median(ratios[3]),
    responseBytes: responseText.length,
    load: [loadBefore, loadAfter],
  };
}

// ---------------------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now();
  console.log(
    `allocation optimize benchmark: universes of ${SIZES.map(int).join(' and ')} symbols, ${YEARS} years of bars, ` +
      `${defaultWorkers()} cores, ${CALLS} warm calls per path\n`,
  );
  const stores: Store[] = [];
  const latencies: Latency[] = [];
  let rest: Throughput | null = null;
  try {
    console.log('1. universes (PGlite on disk, every migration; snapshots on the newest date only)');
    for (const size of SIZES) stores.push(await buildStore(size, 'optimize'));

    console.log(`\n2. latency of AllocationService.optimize (HYBRID_WEIGHTED, max_positions 30, sector caps DEFAULT + 4 sectors, vol_target_annual 0.15)`);
    console.log('   split: time spent in the store by statement kind, persist = the whole portfolio transaction; rest = outside the store');
    for (const store of stores) {
      const l = await latency(store);
      latencies.push(l);
      printLatency(l);
    }

    const smallest = stores[0];
    if (smallest) {
      console.log('\n3. REST throughput, demo optimize vs bare node:http (and bare Fastify)');
      rest = await throughput(smallest);
    }

    console.log('\nsummary');
    console.log(`  building the universes: ${buildTimes(stores)}`);
    for (const l of latencies) {
      console.log(
        `  ${int(l.size).padStart(5)} symbols: cold ${fmt(l.cold.ms)} ms; warm partner (persisted) ${statsText(l.partner)}; ` +
          `demo p50 ${fmt(l.demo.p50)} ms; engine alone p50 ${fmt(l.engine.p50, 2)} ms`,
      );
      console.log(`        warm partner call, mean by part: ${dominant(l)}`);
    }
    if (rest) {
      console.log(
        `  REST demo optimize (${int(rest.size)} symbols): ${int(rest.originRps)} req/s vs bare node:http ${int(rest.bareRps)} req/s: ` +
          `${(100 * rest.ratio).toFixed(1)}% of the requests/s, ${(100 * rest.cpuRatio).toFixed(1)}% by CPU per request (${rest.originCpuUs.toFixed(0)} vs ${rest.bareCpuUs.toFixed(0)} us; median of the rounds); ` +
          `bare Fastify ${int(rest.fastifyRps)} req/s (${(100 * rest.fastifyRatio).toFixed(1)}% of bare node:http; the demo optimize ${(100 * (rest.ratio / rest.fastifyRatio)).toFixed(1)}% of it); ` +
          `the origin's shell alone (same response from memory, through Fastify) ${(100 * rest.floorRatio).toFixed(1)}%; ` +
          `machine load (1-minute average) ${rest.load[0].toFixed(2)} at the start, ${rest.load[1].toFixed(2)} at the end, ${os.cpus().length} cores`,
      );
      console.log(`  target REST demo optimize >= ${100 * TARGET_REST_RATIO}% of bare node:http's requests/s: ${rest.ratio >= TARGET_REST_RATIO ? 'met' : 'NOT met'} (${(100 * rest.ratio).toFixed(1)}%)`);
    }
    const big = latencies.find((l) => l.size === 5000) ?? latencies[latencies.length - 1];
    if (big) {
      const met = big.partner.p50 < TARGET_MS;
      console.log(`  target p50 < ${TARGET_MS} ms at ${int(big.size)} symbols: ${met ? 'met' : 'NOT met'} (p50 ${fmt(big.partner.p50)} ms, persistence included)`);
    }
    console.log(`  whole run ${seconds(performance.now() - started)}`);
  } finally {
    await dropStores(stores);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
