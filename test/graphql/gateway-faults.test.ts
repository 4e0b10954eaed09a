/**
 * The gateway with one subgraph down: it answers 200 with the other subgraphs' data and a masked
 * SERVICE_UNAVAILABLE error for the missing part, within the subgraph timeout, and leaks neither the
 * subgraph's address nor the socket error. (Issue "Production hardening" item 3; DESIGN section 6.)
 */
import http from 'node:http';
import net from 'node:net';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request } from '../helpers/http.js';
import { scaled } from '../helpers/time.js';

type Body = { data?: { security?: unknown; allocationStrategies?: Array<{ name: string }> } | null; errors?: Array<{ message: string; path?: string[]; extensions?: { code?: string } }> };

// `security` (analysis) is nullable, so the analysis subgraph's outage leaves the allocation part intact.
// (A non-null root field of a subgraph that is down nulls the whole `data`, as GraphQL requires; the
// error is the same masked SERVICE_UNAVAILABLE.)
const QUERY = '{ security(symbol: "ACME") { name } allocationStrategies { name } }';
let store: TestDb;
let hung: net.Server;
let hungPort: number;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  store = await openTestDb('pglite');
  // A "subgraph" that accepts connections and never answers.
  hung = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
  hungPort = (hung.address() as net.AddressInfo).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => hung.close(resolve));
  await store?.drop();
});

async function gatewayWithAnalysisAt(url: string): Promise<RunningPlatform> {
  const config = testConfig({ DEMO_DATA: 'false', SUBGRAPH_ANALYSIS_URL: url, SUBGRAPH_TIMEOUT_MS: '500' });
  return startPlatform(config, ['allocation', 'search', 'gateway'], { db: store.db });
}

function expectPartial(res: Awaited<ReturnType<typeof request<Body>>>, secret: RegExp): void {
  expect(res.status).toBe(200);
  expect(res.body.data?.allocationStrategies?.map((s) => s.name)).toContain('KELLY_CRITERION');
  expect(res.body.data?.security).toBeNull();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/analysis service is unavailable/), extensions: { code: 'SERVICE_UNAVAILABLE' } });
  expect(res.text).not.toMatch(secret);
  expect(res.text).not.toMatch(/ECONNREFUSED|fetch failed|aborted|stack|\.js:\d+/i);
}

it('a subgraph that refuses connections: 200 with the rest of the data and a masked error', async () => {
  const platform = await gatewayWithAnalysisAt('http://127.0.0.1:1/graphql');
  try {
    const res = await request<Body>(`${platform.urls.gateway}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) });
    expectPartial(res, /127\.0\.0\.1:1\b/);
  } finally {
    await platform.close();
  }
});

it('a subgraph that never answers: the same, within the subgraph timeout', async () => {
  const platform = await gatewayWithAnalysisAt(`http://127.0.0.1:${hungPort}/graphql`);
  try {
    const started = Date.now();
    const res = await request<Body>(`${platform.urls.gateway}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) });
    expect(Date.now() - started).toBeLessThan(500 + scaled(2500)); // SUBGRAPH_TIMEOUT_MS is 500
    expectPartial(res, new RegExp(`:${hungPort}\\b`));
  } finally {
    await platform.close();
  }
});

it('a subgraph that sends its headers and then stalls: the deadline covers the whole answer', async () => {
  const stalled = new Set<http.ServerResponse>();
  const slow = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":{"security":'); // and nothing more
    stalled.add(res);
  });
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  const port = (slow.address() as net.AddressInfo).port;
  const platform = await gatewayWithAnalysisAt(`http://127.0.0.1:${port}/graphql`);
  try {
    const started = Date.now();
    const res = await request<Body>(`${platform.urls.gateway}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) });
    expect(Date.now() - started).toBeLessThan(500 + scaled(2500)); // SUBGRAPH_TIMEOUT_MS is 500
    expectPartial(res, new RegExp(`:${port}\\b`));
  } finally {
    await platform.close();
    for (const res of stalled) res.destroy();
    await new Promise((resolve) => slow.close(resolve));
  }
});

it('a subgraph that refuses the caller (429) or fails (503) is relayed as RATE_LIMITED or SERVICE_UNAVAILABLE', async () => {
  // A stand-in subgraph answering in the platform's REST error shape, as the rate limiter does.
  let status = 429;
  const fake = http.createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '7' });
    res.end(JSON.stringify({ success: false, error: 'Too many requests: at most 3 per 60 s; retry in 7 seconds', code: status === 429 ? 'RATE_LIMITED' : 'SERVICE_UNAVAILABLE', trace_id: 't', details: [] }));
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const platform = await gatewayWithAnalysisAt(`http://127.0.0.1:${(fake.address() as net.AddressInfo).port}/graphql`);
  try {
    const ask = () => request<Body>(`${platform.urls.gateway}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) });
    const limited = await ask();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.body.data?.allocationStrategies?.length).toBeGreaterThan(0);
    expect(limited.body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/at most 3 per 60 s/), extensions: { code: 'RATE_LIMITED', details: [{ field: 'retry_after_seconds', message: '7' }] } });
    status = 503;
    const failing = await ask();
    expect(failing.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
    expect(failing.body.data?.allocationStrategies?.length).toBeGreaterThan(0);
  } finally {
    await platform.close();
    await new Promise((resolve) => fake.close(resolve));
  }
});
