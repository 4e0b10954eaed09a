/**
 * The four origins over real HTTP on port 0: root and health documents, the error shape, trace ids,
 * malformed and oversized bodies. Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { VERSION } from '../../subgraphs/platform/project.js';
import { testConfig } from '../helpers/config.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';
import { expectErrorShape, request } from '../helpers/http.js';

const SUBGRAPH_ORIGINS = ['analysis', 'allocation', 'search'] as const;

/** A /graphql transport error: `{"errors": [{"message", "extensions": {"code", "details"}}]}`, no data, no stack. */
function expectGraphqlTransportError(body: unknown, code: string): void {
  expect(body).toEqual({ errors: [{ message: expect.any(String), extensions: { code, details: expect.any(Array) } }] });
  expect(JSON.stringify(body)).not.toMatch(/\bat .+\.(ts|js):\d+|stack/i);
}

describe.each(BACKENDS)('origins on %s', (backend) => {
  let store: TestDb;
  let platform: RunningPlatform;
  const url = (origin: keyof RunningPlatform['urls'], path: string) => `${platform.urls[origin]}${path}`;

  beforeAll(async () => {
    store = await openTestDb(backend);
    platform = await startPlatform(testConfig({ BODY_LIMIT_BYTES: '2048' }), ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
  });

  it('loads the synthetic demo market on first start (22 equities + index, one year)', () => {
    expect(platform.demo).toEqual(expect.objectContaining({ securities: 23, bars: 23 * 252 }));
  });

  // spec "What the service does" 4 and "Endpoints / Common to all three services": GET / -> name, version, status
  it.each([...SUBGRAPH_ORIGINS, 'gateway'] as const)('GET / on %s answers name, version and status', async (origin) => {
    const res = await request(url(origin, '/'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(expect.objectContaining({ name: `tradegraph-${origin}`, version: VERSION, status: 'ok' }));
  });

  it('GET / on analysis also reports the demo symbol (DESIGN section 5)', async () => {
    const res = await request(url('analysis', '/'));
    expect(res.body.demo_symbol).toBe('ACME');
  });

  // spec "Common to all three services": analysis /health -> 200 {status, version, timestamp}
  it('analysis /health answers status, version and timestamp', async () => {
    const res = await request(url('analysis', '/health'));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['status', 'timestamp', 'version']);
    expect(res.body.status).toBe('ok');
    expect(res.body.version).toBe(VERSION);
    expect(new Date(res.body.timestamp as string).toISOString()).toBe(res.body.timestamp);
  });

  // spec: allocation and search /health -> 200 {status}
  it.each(['allocation', 'search'] as const)('%s /health answers status', async (origin) => {
    const res = await request(url(origin, '/health'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  // DESIGN section 5: unknown routes 404 in the error shape; x-trace-id on every response
  it.each([...SUBGRAPH_ORIGINS, 'gateway'] as const)('unknown route on %s -> 404 in the error shape with the trace id', async (origin) => {
    const res = await request(url(origin, '/api/v1/nothing-here?x=1'));
    expect(res.status).toBe(404);
    expectErrorShape(res.body, 'ROUTE_NOT_FOUND');
    expect(res.headers.get('x-trace-id')).toBe(res.body.trace_id);
    expect(res.body.error).toBe('No route GET /api/v1/nothing-here');
  });

  it('honours an incoming x-trace-id', async () => {
    const res = await request(url('analysis', '/missing'), { headers: { 'x-trace-id': 'client-trace-42' } });
    expect(res.headers.get('x-trace-id')).toBe('client-trace-42');
    expect(res.body.trace_id).toBe('client-trace-42');
  });

  it('honours a W3C traceparent', async () => {
    const res = await request(url('search', '/health'), { headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
    expect(res.headers.get('x-trace-id')).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
  });

  it('replaces an unusable x-trace-id with a fresh one', async () => {
    const res = await request(url('allocation', '/health'), { headers: { 'x-trace-id': 'bad id with spaces' } });
    expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
  });

  // README "Errors and trace ids": /graphql answers the GraphQL-over-HTTP way, its transport errors included.
  it.each([...SUBGRAPH_ORIGINS, 'gateway'] as const)('malformed JSON on %s -> 400 MALFORMED_JSON, GraphQL-style', async (origin) => {
    const res = await request(url(origin, '/graphql'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query": "{ __typename ' });
    expect(res.status).toBe(400);
    expectGraphqlTransportError(res.body, 'MALFORMED_JSON');
    expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
  });

  it.each([...SUBGRAPH_ORIGINS, 'gateway'] as const)('a body over BODY_LIMIT_BYTES on %s -> 413', async (origin) => {
    const res = await request(url(origin, '/graphql'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: `{ __typename } # ${'x'.repeat(4096)}` }),
    });
    expect(res.status).toBe(413);
    expectGraphqlTransportError(res.body, 'PAYLOAD_TOO_LARGE');
  });

  it('an unsupported content type -> 415, GraphQL-style on /graphql', async () => {
    const res = await request(url('analysis', '/graphql'), { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<q/>' });
    expect(res.status).toBe(415);
    expectGraphqlTransportError(res.body, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('prototype-poisoning JSON is refused with 400, not executed', async () => {
    const res = await request(url('allocation', '/graphql'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ __typename }","__proto__":{"polluted":true}}',
    });
    expect(res.status).toBe(400);
    expectGraphqlTransportError(res.body, 'MALFORMED_JSON');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
