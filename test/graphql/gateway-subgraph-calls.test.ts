/**
 * What the gateway sends a subgraph for its part of a query plan: a GraphQL-over-HTTP POST with the
 * plan's operation and variables, and the caller's Authorization, trace and address headers. A
 * recording stand-in plays the analysis subgraph; the allocation subgraph is the real one.
 */
import http from 'node:http';
import net from 'node:net';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { graphql } from '../helpers/http.js';

interface Recorded {
  method?: string;
  url?: string;
  headers: http.IncomingHttpHeaders;
  body: { query?: string; variables?: Record<string, unknown>; operationName?: string };
}

let store: TestDb;
let fake: http.Server;
let platform: RunningPlatform;
const calls: Recorded[] = [];
let reply: { status: number; body: string } = { status: 200, body: '' };

beforeAll(async () => {
  store = await openTestDb('pglite');
  fake = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls.push({ method: req.method, url: req.url, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Recorded['body'] });
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  const port = (fake.address() as net.AddressInfo).port;
  platform = await startPlatform(testConfig({ DEMO_DATA: 'false', SUBGRAPH_ANALYSIS_URL: `http://127.0.0.1:${port}/graphql?tenant=a` }), ['allocation', 'search', 'gateway'], { db: store.db });
});
afterAll(async () => {
  await platform?.close();
  await new Promise((resolve) => fake.close(resolve));
  await store?.drop();
});
beforeEach(() => {
  calls.length = 0;
  reply = { status: 200, body: JSON.stringify({ data: { security: { name: 'Stand-in Corp' } } }) };
});

const QUERY = 'query Page($symbol: String!) { security(symbol: $symbol) { name } allocationStrategies { name } }';

it('posts the planned operation with its variables to the subgraph URL, and merges the answer', async () => {
  const res = await graphql<{ security: { name: string }; allocationStrategies: Array<{ name: string }> }>(`${platform.urls.gateway}/graphql`, QUERY, { symbol: 'ACME' });
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data?.security).toEqual({ name: 'Stand-in Corp' });
  expect(res.body.data?.allocationStrategies.length).toBeGreaterThan(0);
  expect(calls).toHaveLength(1);
  const [call] = calls;
  expect(call.method).toBe('POST');
  expect(call.url).toBe('/graphql?tenant=a');
  expect(call.headers['content-type']).toBe('application/json');
  expect(Number(call.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(call.body)));
  expect(call.body.query).toMatch(/security\(symbol: ?\$symbol\)/);
  expect(call.body.variables).toEqual({ symbol: 'ACME' });
  expect(call.body.operationName).toBe('Page__analysis__0');
});

it("forwards the caller's Authorization, trace and address, and nothing else of theirs", async () => {
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const res = await graphql(`${platform.urls.gateway}/graphql`, QUERY, { symbol: 'ACME' }, { authorization: 'Bearer caller-token', traceparent, cookie: 'session=secret', 'x-custom': 'no' });
  expect(res.status).toBe(200);
  const [call] = calls;
  expect(call.headers.authorization).toBe('Bearer caller-token');
  expect(call.headers.traceparent).toBe(traceparent);
  expect(call.headers['x-trace-id']).toBe(res.headers.get('x-trace-id'));
  expect(call.headers['x-trace-id']).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  expect(call.headers['x-forwarded-for']).toBe('127.0.0.1');
  expect(call.headers.cookie).toBeUndefined();
  expect(call.headers['x-custom']).toBeUndefined();
  expect(call.headers['apollo-federation-include-trace']).toBeUndefined(); // no inline trace unless asked
});

it("a subgraph's 401 is the caller's UNAUTHENTICATED, with its own message", async () => {
  reply = { status: 401, body: JSON.stringify({ errors: [{ message: 'The token has expired', extensions: { code: 'UNAUTHENTICATED', details: [] } }] }) };
  const res = await graphql(`${platform.urls.gateway}/graphql`, QUERY, { symbol: 'ACME' });
  expect(res.status).toBe(200);
  expect(res.body.errors?.[0]).toMatchObject({ message: 'The token has expired', extensions: { code: 'UNAUTHENTICATED' } });
});

it("a subgraph's 4xx is that subgraph's error, relayed as the same error in a 200 is", async () => {
  const error = { message: 'inventory offline', extensions: { code: 'INVENTORY_DOWN' } };
  reply = { status: 200, body: JSON.stringify({ data: { security: null }, errors: [{ ...error, path: ['security'] }] }) };
  const answered = await graphql(`${platform.urls.gateway}/graphql`, QUERY, { symbol: 'ACME' });
  reply = { status: 400, body: JSON.stringify({ errors: [error] }) };
  const refused = await graphql(`${platform.urls.gateway}/graphql`, QUERY, { symbol: 'ACME' });
  const relayed = { message: 'inventory offline', extensions: { code: 'DOWNSTREAM_SERVICE_ERROR', downstreamCode: 'INVENTORY_DOWN', serviceName: 'analysis', details: [] } };
  expect(answered.body.errors?.[0]).toMatchObject(relayed);
  expect(refused.body.errors?.[0]).toMatchObject(relayed);
});

it("a subgraph's validation failure names the subgraph, so it is not taken for the gateway's own", async () => {
  reply = { status: 400, body: JSON.stringify({ errors: [{ message: 'Expected value of type "Date", found "2024-02-30".', extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] }) };
  const res = await graphql(`${platform.urls.gateway}/graphql`, QUERY, { symbol: 'ACME' });
  expect(res.body.errors?.[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED', serviceName: 'analysis', details: [] });
});

it("a subgraph's details are relayed as field and message texts only, at most 20 of 500 characters", async () => {
  const details = [
    { field: 'sku', message: 'unknown sku', stacktrace: ['at inventory.js:12'], record: { secret: 'x' } },
    { message: 'm'.repeat(2000) },
    { field: 3, message: 'a field that is not text is dropped' },
    { field: 'no message' },
    'a bare string',
    ...Array.from({ length: 30 }, (_, i) => ({ message: `more ${i}` })),
  ];
  reply = { status: 200, body: JSON.stringify({ data: { security: null }, errors: [{ message: 'bad sku', path: ['security'], extensions: { code: 'BAD_USER_INPUT', details } }] }) };
  const res = await graphql(`${platform.urls.gateway}/graphql`, QUERY, { symbol: 'ACME' });
  const relayed = res.body.errors?.[0].extensions?.details as unknown[];
  expect(relayed).toHaveLength(20);
  expect(relayed.slice(0, 3)).toEqual([{ field: 'sku', message: 'unknown sku' }, { message: 'm'.repeat(500) }, { message: 'a field that is not text is dropped' }]);
  expect(relayed[3]).toEqual({ message: 'more 0' });
  expect(res.text).not.toMatch(/inventory\.js|secret/);
});

it.each([
  ['a JSON string', '"<html>proxy page</html>"'],
  ['an HTML page', '<html>proxy page</html>'],
  ['a JSON array', '["proxy page"]'],
])('a 200 that is %s is that subgraph unavailable, not a 500 and not its text', async (_kind, body) => {
  reply = { status: 200, body };
  const res = await graphql<{ security: unknown; allocationStrategies: unknown[] }>(`${platform.urls.gateway}/graphql`, QUERY, { symbol: 'ACME' });
  expect(res.status).toBe(200);
  expect(res.body.data?.security).toBeNull();
  expect(res.body.data?.allocationStrategies.length).toBeGreaterThan(0);
  expect(res.body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/analysis service is unavailable/), extensions: { code: 'SERVICE_UNAVAILABLE' } });
  expect(res.text).not.toMatch(/proxy page|127\.0\.0\.1/);
});
