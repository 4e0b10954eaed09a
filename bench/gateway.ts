/**
 * Gateway throughput: the stock stack (@apollo/gateway inside Apollo Server's standalone HTTP server,
 * default settings) against the product's gateway origin, for the same analysis query over the same
 * subgraphs, in one run.
 *
 *   1. The subgraphs: the analysis, allocation and search origins of `startPlatform` in this process
 *      on the embedded store (a synthetic market of BENCH_SYMBOLS symbols, default 120, its last
 *      trading day analysed), rate limiters on with budgets above the load.
 *   2. Two gateways over them, both from the committed supergraph:
 *      - stock: `new ApolloServer({ gateway: new ApolloGateway({ supergraphSdl, buildService: url }) })`
 *        with `startStandaloneServer`, forwarding the caller's Authorization (the one change a
 *        federated deployment needs for authenticated subgraphs);
 *      - ours: `buildGatewayOrigin` (Fastify, GraphQL limits, rate limiter, trace ids, subgraph timeouts).
 *   3. The query (a frontend's security page): one security with its latest analysis; both gateways
 *      must answer the same JSON data first. Load from a child process (http-load.ts): BENCH_CONNECTIONS
 *      (default 50) keep-alive connections, warm-up, fixed window, rounds, medians; the stock gateway is
 *      the baseline of each round. CPU per request is the whole process's (gateways and subgraphs).
 *
 * Ratios only. The target: the gateway origin at least 1.5 x the stock throughput.
 *
 *   npm run bench:gateway
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { ApolloGateway, RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { startPlatform } from '../cli/platform.js';
import { SUPERGRAPH_FILE } from '../gateway/gateway.js';
import { mintPartnerToken } from '../subgraphs/platform/auth.js';
import { loadConfig } from '../subgraphs/platform/config.js';
import { resolvePartnerAuth } from '../subgraphs/platform/dev-secret.js';
import { median, runRounds, type LoadJob } from './http-load.js';

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 120);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3) * 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET = 1.5;
const QUERY = '{ security(symbol: "ACME") { symbol name sector analysis { analysisDate stage stageStrength signal confidence price } } }';

interface StockContext {
  authorization?: string;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-bench-gateway-'));
  const config = loadConfig({
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
    AUTH_HS256_SECRET: 'bench-secret-0123456789abcdef-0123456789abcdef',
    RATE_LIMIT_MAX: '10000000',
    RATE_LIMIT_EXPENSIVE_MAX: '10000000',
    LOG_LEVEL: 'silent',
  });
  console.log(`gateway benchmark: ${SYMBOLS} symbols, ${os.cpus().length} cores, ${CONNECTIONS} connections, ${SECONDS} s per scenario, ${ROUNDS} rounds`);
  const platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway']);
  const auth = resolvePartnerAuth(config);
  const token = await mintPartnerToken({ secret: auth.hs256Secret as string, issuer: auth.issuer, audience: auth.audiences.analysis, subject: 'bench' });
  const supergraphSdl = fs.readFileSync(SUPERGRAPH_FILE, 'utf8');
  const subgraphUrl: Record<string, string> = {
    analysis: `${platform.urls.analysis}/graphql`,
    allocation: `${platform.urls.allocation}/graphql`,
    search: `${platform.urls.search}/graphql`,
  };

  // The stock stack: Apollo Server's standalone server around @apollo/gateway, defaults throughout.
  const stock = new ApolloServer<StockContext>({
    gateway: new ApolloGateway({
      supergraphSdl,
      buildService: ({ name, url }) =>
        new (class extends RemoteGraphQLDataSource<StockContext> {
          override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<StockContext>) {
            if (context.authorization) request.http?.headers.set('authorization', context.authorization);
          }
        })({ url: subgraphUrl[name] ?? url }),
    }),
  });
  const { url: stockUrl } = await startStandaloneServer(stock, {
    listen: { host: '127.0.0.1', port: 0 },
    context: async ({ req }) => ({ authorization: req.headers.authorization }),
  });
  // Ours: the gateway origin startPlatform started (gateway/gateway.ts buildGatewayOrigin).
  const ours = platform.urls.gateway as string;

  try {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const body = JSON.stringify({ query: QUERY });
    const answer = async (url: string) => {
      const res = await fetch(url, { method: 'POST', headers, body });
      return { status: res.status, json: (await res.json()) as { data?: unknown; errors?: unknown } };
    };
    const [a, b] = await Promise.all([answer(stockUrl), answer(`${ours}/graphql`)]);
    if (a.status !== 200 || b.status !== 200 || a.json.errors || b.json.errors) throw new Error(`a gateway failed: ${JSON.stringify({ a, b })}`);
    if (JSON.stringify(a.json.data) !== JSON.stringify(b.json.data)) throw new Error(`different answers:\n${JSON.stringify(a.json.data)}\n${JSON.stringify(b.json.data)}`);
    console.log(`  the same data from both: ${JSON.stringify(b.json.data)}`);

    const job = (url: string): LoadJob => ({ urls: [url], method: 'POST', body, headers, connections: CONNECTIONS, warmupMs: WARMUP_MS, durationMs: SECONDS * 1000 });
    const { ratios, cpuRatios, results } = await runRounds(
      [
        { label: 'stock @apollo/gateway + Apollo Server (baseline)', job: job(stockUrl) },
        { label: 'tradegraph gateway origin', job: job(`${ours}/graphql`) },
      ],
      ROUNDS,
      52,
    );
    const rps = (i: number) => median(results[i].map((r) => r.requests / r.seconds));
    const p50 = (i: number) => median(results[i].map((r) => r.p50));
    const ratio = median(ratios[1]);
    console.log('\nsummary');
    console.log(`  stock: ${Math.round(rps(0)).toLocaleString('en-US')} req/s, p50 ${p50(0).toFixed(1)} ms, ${median(results[0].map((r) => r.serverCpuUs ?? NaN)).toFixed(0)} us CPU/request`);
    console.log(`  ours:  ${Math.round(rps(1)).toLocaleString('en-US')} req/s, p50 ${p50(1).toFixed(1)} ms, ${median(results[1].map((r) => r.serverCpuUs ?? NaN)).toFixed(0)} us CPU/request`);
    console.log(`  ours / stock: ${ratio.toFixed(2)}x throughput, ${median(cpuRatios[1]).toFixed(2)}x by CPU per request (target ${TARGET}x: ${ratio >= TARGET ? 'met' : 'NOT met'})`);
  } finally {
    await stock.stop();
    await platform.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
