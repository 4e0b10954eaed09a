/**
 * Every 503 says when to retry: `Retry-After` in seconds (platform/http-limits.ts, RETRY_AFTER_SECONDS)
 * on each 503 path of the HTTP shell that a test can provoke with real components: the store gone
 * (sendError from a route: optimize, hunt; the analysis read's own envelope; /health), authentication
 * not configured, a full store, and a request arriving while the origin drains on close.
 *
 * spec "Errors" (503 on /health, optimize, hunt and cash-hunt; "retry transient failures") and DESIGN
 * section 5 (the error shape on every origin).
 */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { DEMO_OPTIMIZE_BODY } from '../../subgraphs/allocation/service.js';
import { AppError } from '../../subgraphs/platform/errors.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { expectErrorShape, request, type JsonResponse } from '../helpers/http.js';
import { bareOrigin } from '../helpers/origin.js';

function expectRetryAfter(res: JsonResponse, code: string, seconds: number): void {
  expect(res.status).toBe(503);
  expectErrorShape(res.body, code);
  expect(res.headers.get('retry-after')).toBe(String(seconds));
}

describe('503s of the origins', () => {
  let store: TestDb;
  let platform: RunningPlatform;
  let unconfigured: RunningPlatform;

  beforeAll(async () => {
    store = await openTestDb('pglite');
    // OIDC_ENFORCE=false: hunt reaches the store (what fails here); the second search origin has no identity provider.
    platform = await startPlatform(testConfig({ DEMO_DATA: 'false', ANALYZE_ON_START: 'false', OIDC_ENFORCE: 'false', DB_HEALTH_TIMEOUT_MS: '1000' }), ['analysis', 'allocation', 'search'], { db: store.db });
    unconfigured = await startPlatform(testConfig({ DEMO_DATA: 'false', ANALYZE_ON_START: 'false' }), ['search'], { db: store.db });
  });
  afterAll(async () => {
    await unconfigured?.close();
    await platform?.close();
    await store?.drop().catch(() => undefined);
  });

  it('search without an identity provider: hunt -> 503 AUTH_NOT_CONFIGURED with Retry-After: 60', async () => {
    const res = await request(`${unconfigured.urls.search}/api/v1/portfolios/hunt?portfolio_id=8d3f3c1e-6f3a-4a55-9a57-0c3c1e2b9d10`);
    expectRetryAfter(res, 'AUTH_NOT_CONFIGURED', 60);
  });

  it('with the store gone: /health, optimize, hunt and the analysis read -> 503 SERVICE_UNAVAILABLE with Retry-After: 5', async () => {
    await store.db.close();
    for (const origin of ['analysis', 'allocation'] as const) {
      const health = await request(`${platform.urls[origin]}/health`);
      expectRetryAfter(health, 'SERVICE_UNAVAILABLE', 5);
      expect(health.body.status).toBe('unavailable');
    }
    const optimize = await request(`${platform.urls.allocation}/api/v1/portfolios/optimize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(DEMO_OPTIMIZE_BODY),
    });
    expectRetryAfter(optimize, 'SERVICE_UNAVAILABLE', 5);
    const hunt = await request(`${platform.urls.search}/api/v1/portfolios/hunt?portfolio_id=8d3f3c1e-6f3a-4a55-9a57-0c3c1e2b9d10`);
    expectRetryAfter(hunt, 'SERVICE_UNAVAILABLE', 5);
    // The analysis routes answer in their own envelope (the spec's fields around the error shape).
    const read = await request(`${platform.urls.analysis}/api/v1/demo/results/analysis/ACME`);
    expectRetryAfter(read, 'SERVICE_UNAVAILABLE', 5);
    expect(read.body.result).toBeNull();
  });
});

describe('503s of the shell itself', () => {
  let app: FastifyInstance;
  let url: string;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    app = await bareOrigin('retry-after');
    // A store that reports its disk full (what the store raises then), and a request still in flight.
    app.post('/write', async () => {
      throw new AppError('STORAGE_FULL', 'The store is full; writes are refused until space is freed');
    });
    app.get('/held', async () => {
      await held;
      return { done: true };
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    release();
    await app?.close();
  });

  it('a full store -> 503 STORAGE_FULL with Retry-After: 60', async () => {
    expectRetryAfter(await request(`${url}/write`, { method: 'POST' }), 'STORAGE_FULL', 60);
  });

  it('a request on an open connection while the origin drains -> 503 SERVICE_UNAVAILABLE with Retry-After: 5', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Record<string, unknown> }>((resolve, reject) => {
        http
          .get(`${url}${path}`, { agent }, (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) as Record<string, unknown> }));
          })
          .on('error', reject);
      });
    // Open a keep-alive connection, then keep a second request in flight so the close has to drain.
    expect((await get('/health')).status).toBe(200);
    const inFlight = request(`${url}/held`);
    await new Promise((r) => setTimeout(r, 200));
    const closing = app.close();
    await new Promise((r) => setTimeout(r, 200));
    const refused = await get('/health');
    expect(refused.status).toBe(503);
    expectErrorShape(refused.body, 'SERVICE_UNAVAILABLE');
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers.connection).toBe('close');
    release();
    expect((await inFlight).status).toBe(200);
    await closing;
    agent.destroy();
  });
});
