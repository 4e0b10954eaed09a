/**
 * Graceful shutdown of an origin: a response in flight when close() starts arrives in full, an idle
 * keep-alive connection does not hold the close, and a request arriving on an open connection while
 * closing gets 503 in the error shape.
 */
import http from 'node:http';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { expectErrorShape, request } from '../helpers/http.js';

// 10 years of bars: responses of several MB, which the default GraphQL cost limit would refuse.
const config = testConfig({ DEMO_YEARS: '10', GRAPHQL_MAX_COST: '100000000' });
let store: TestDb;
let platform: RunningPlatform;

beforeEach(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis'], { db: store.db });
});
afterEach(async () => {
  await platform.close();
  await store.drop();
});

/** A GraphQL POST whose response is read only when `resume` is called. */
function slowReader(url: string, body: string, headers: Record<string, string>) {
  let resume = () => {};
  const done = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
      res.pause();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
      resume = () => res.resume();
    });
    req.on('error', reject);
    req.end(body);
  });
  return { done, resume: () => resume() };
}

it('a large response in flight when close starts arrives in full', async () => {
  const token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'p' });
  // 2,000 bars of each of 23 securities: about 6 MB of JSON, more than loopback socket buffers hold.
  const query = '{ securities(first: 500) { nodes { symbol bars(first: 2000) { nodes { date open high low close volume } } } } }';
  const reader = slowReader(`${platform.urls.analysis}/graphql`, JSON.stringify({ query }), { authorization: `Bearer ${token}` });
  await new Promise((r) => setTimeout(r, 1500)); // the server has written what the buffers take
  const closing = platform.close();
  await new Promise((r) => setTimeout(r, 200));
  reader.resume();
  const { status, text } = await reader.done;
  await closing;
  expect(status).toBe(200);
  const body = JSON.parse(text) as { data: { securities: { nodes: Array<{ bars: { nodes: unknown[] } }> } } };
  expect(body.data.securities.nodes).toHaveLength(23);
  expect(body.data.securities.nodes.every((n) => n.bars.nodes.length === 2000)).toBe(true);
  expect(text.length).toBeGreaterThan(5_000_000);
});

it('an idle keep-alive connection does not hold the close', async () => {
  const agent = new http.Agent({ keepAlive: true });
  await new Promise<void>((resolve) => http.get(`${platform.urls.analysis}/health`, { agent }, (res) => res.resume().on('end', resolve)));
  const started = Date.now();
  await platform.close();
  expect(Date.now() - started).toBeLessThan(1000);
  agent.destroy();
});

it('a malformed URL gets the error shape and a trace id', async () => {
  const res = await request(`${platform.urls.analysis}/%ZZ`);
  expect(res.status).toBe(400);
  expectErrorShape(res.body, 'BAD_REQUEST');
  expect(res.headers.get('x-trace-id')).toBe(res.body.trace_id);
});
