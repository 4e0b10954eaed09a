/**
 * CORS over real HTTP on port 0 (platform/cors.ts): preflights from allowed and disallowed origins,
 * actual requests and error responses with an Origin, the production default (no origin), preflights
 * that spend no rate-limit budget, and the configured domain and gateway origins.
 */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { loadConfig, type CorsOrigins } from '../../subgraphs/platform/config.js';
import { AppError } from '../../subgraphs/platform/errors.js';
import { originRateLimit } from '../../subgraphs/platform/rate-limit.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { bareOrigin } from '../helpers/origin.js';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request with exactly the given headers (no client of its own adds or hides any). */
function send(url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ALLOWED = 'https://app.example';
const OTHER = 'https://evil.example';
const preflightHeaders = (origin: string, method = 'POST') => ({
  origin,
  'access-control-request-method': method,
  'access-control-request-headers': 'authorization, content-type',
});

function expectPreflightAllowed(res: RawResponse, origin: string): void {
  expect(res.status).toBe(204);
  expect(res.headers['access-control-allow-origin']).toBe(origin);
  expect(res.headers['access-control-allow-methods']).toBe('GET, POST, OPTIONS');
  const allowedHeaders = String(res.headers['access-control-allow-headers']).split(/,\s*/);
  expect(allowedHeaders).toEqual(expect.arrayContaining(['authorization', 'content-type', 'apollo-require-preflight', 'idempotency-key', 'x-trace-id', 'traceparent']));
  expect(res.headers['access-control-max-age']).toBe('600');
  expect(String(res.headers.vary)).toMatch(/\bOrigin\b/i);
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  expect(res.text).toBe('');
}

function expectNoCors(res: RawResponse): void {
  for (const name of Object.keys(res.headers)) expect(name).not.toMatch(/^access-control-/);
}

function expectCorsRead(res: RawResponse, origin: string): void {
  expect(res.headers['access-control-allow-origin']).toBe(origin);
  const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
  expect(exposed).toEqual(expect.arrayContaining(['x-trace-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'idempotent-replayed', 'etag']));
  expect(String(res.headers.vary)).toMatch(/\bOrigin\b/i);
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/**
 * A bare shell with CORS for `corsOrigins`, a request budget of 3 per caller (named by x-caller, so each
 * test spends its own), and routes that answer or fail.
 */
async function shellWith(corsOrigins: CorsOrigins | undefined): Promise<{ app: FastifyInstance; base: string }> {
  const config = testConfig({ RATE_LIMIT_MAX: '3' });
  const app = await bareOrigin('cors-test', {
    corsOrigins,
    rateLimit: originRateLimit(config, 'analysis', async (request) => `ip:${String(request.headers['x-caller'] ?? 'default')}`),
  });
  app.get('/thing', async () => ({ ok: true }));
  app.post('/thing', async (request) => ({ echoed: request.body }));
  app.get('/boom', async () => {
    throw new Error('internal detail');
  });
  app.get('/refused', async () => {
    throw new AppError('UNAUTHENTICATED', 'A bearer token is required');
  });
  return { app, base: await listen(app) };
}

describe('CORS on the HTTP shell', () => {
  let shell: { app: FastifyInstance; base: string };
  let production: { app: FastifyInstance; base: string };

  beforeAll(async () => {
    shell = await shellWith(loadConfig({ CORS_ORIGINS: ALLOWED }).corsOrigins);
    const prodConfig = loadConfig({ APP_ENV: 'production', AUTH_JWKS_URL: 'https://idp.example/jwks.json', AUTH_ISSUER: 'https://idp.example/' });
    production = await shellWith(prodConfig.corsOrigins);
  });
  afterAll(async () => {
    await shell?.app.close();
    await production?.app.close();
  });

  it('answers a preflight from an allowed origin with 204 and the CORS headers, on any path, spending no budget', async () => {
    // The budget is 3 requests: five preflights would exhaust it if they counted.
    for (const path of ['/thing', '/graphql', '/no-such-route', '/boom', '/thing?x=1']) {
      expectPreflightAllowed(await send(`${shell.base}${path}`, 'OPTIONS', preflightHeaders(ALLOWED)), ALLOWED);
    }
    const res = await send(`${shell.base}/thing`, 'GET', { origin: ALLOWED });
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-remaining']).toBe('2');
    expectCorsRead(res, ALLOWED);
  });

  it('answers a preflight from another origin without any CORS header', async () => {
    const res = await send(`${shell.base}/thing`, 'OPTIONS', preflightHeaders(OTHER));
    expect(res.status).toBe(404);
    expectNoCors(res);
    expect(JSON.parse(res.text)).toEqual(expect.objectContaining({ success: false, code: 'ROUTE_NOT_FOUND' }));
  });

  it('lets an allowed origin read GET and POST responses, and never another origin or a request without Origin', async () => {
    const post = await send(`${shell.base}/thing`, 'POST', { origin: ALLOWED, 'content-type': 'application/json', 'x-caller': 'reads' }, '{"a":1}');
    expect(post.status).toBe(200);
    expect(JSON.parse(post.text)).toEqual({ echoed: { a: 1 } });
    expectCorsRead(post, ALLOWED);
    expect(post.headers['x-trace-id']).toEqual(expect.any(String));

    const other = await send(`${shell.base}/thing`, 'GET', { origin: OTHER, 'x-caller': 'reads' });
    expect(other.status).toBe(200);
    expectNoCors(other);
    const none = await send(`${shell.base}/thing`, 'GET', { 'x-caller': 'reads' });
    expect(none.status).toBe(200);
    expectNoCors(none);
  });

  it('puts the CORS headers on error responses, rate-limit refusals included', async () => {
    const missing = await send(`${shell.base}/no-such-route`, 'GET', { origin: ALLOWED, 'x-caller': 'errors' });
    expect(missing.status).toBe(404);
    expectCorsRead(missing, ALLOWED);
    const refused = await send(`${shell.base}/refused`, 'GET', { origin: ALLOWED, 'x-caller': 'errors' });
    expect(refused.status).toBe(401);
    expectCorsRead(refused, ALLOWED);
    const failed = await send(`${shell.base}/boom`, 'GET', { origin: ALLOWED, 'x-caller': 'errors' });
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.text)).toEqual(expect.objectContaining({ success: false, code: 'INTERNAL_ERROR' }));
    expectCorsRead(failed, ALLOWED);
    const malformed = await send(`${shell.base}/thing`, 'POST', { origin: ALLOWED, 'content-type': 'application/json', 'x-caller': 'malformed' }, '{"a":');
    expect(malformed.status).toBe(400);
    expectCorsRead(malformed, ALLOWED);

    let limited: RawResponse | undefined;
    for (let i = 0; i < 6 && limited?.status !== 429; i += 1) limited = await send(`${shell.base}/thing`, 'GET', { origin: ALLOWED, 'x-caller': 'limited' });
    expect(limited?.status).toBe(429);
    expect(limited?.headers['retry-after']).toEqual(expect.any(String));
    expectCorsRead(limited as RawResponse, ALLOWED);
  });

  it('allows no origin by default in production, not even localhost', async () => {
    const preflight = await send(`${production.base}/thing`, 'OPTIONS', preflightHeaders('http://localhost:3000'));
    expect(preflight.status).toBe(404);
    expectNoCors(preflight);
    const res = await send(`${production.base}/thing`, 'GET', { origin: 'http://localhost:3000', 'x-caller': 'production' });
    expect(res.status).toBe(200);
    expectNoCors(res);
  });

  it('allows no origin when the shell is given none', async () => {
    const app = await bareOrigin('no-cors');
    app.get('/thing', async () => ({ ok: true }));
    try {
      const base = await listen(app);
      expectNoCors(await send(`${base}/thing`, 'OPTIONS', preflightHeaders(ALLOWED)));
      expectNoCors(await send(`${base}/thing`, 'GET', { origin: ALLOWED }));
    } finally {
      await app.close();
    }
  });
});

describe('CORS on the configured origins', () => {
  let store: TestDb;
  let platform: RunningPlatform;
  const LOCAL = 'http://localhost:5173';

  beforeAll(async () => {
    store = await openTestDb('pglite');
    // The development default (APP_ENV is not production): any localhost or 127.0.0.1 origin.
    platform = await startPlatform(testConfig({ ANALYZE_ON_START: 'false', DEMO_SYMBOL_COUNT: '12' }), ['analysis', 'gateway'], { db: store.db });
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
  });

  it.each(['analysis', 'gateway'] as const)('%s answers a /graphql preflight from a local development origin', async (origin) => {
    const res = await send(`${platform.urls[origin]}/graphql`, 'OPTIONS', preflightHeaders(LOCAL));
    expectPreflightAllowed(res, LOCAL);
    expectNoCors(await send(`${platform.urls[origin]}/graphql`, 'OPTIONS', preflightHeaders(OTHER)));
  });

  it('lets a local origin read a gateway query and a REST error', async () => {
    const query = await send(`${platform.urls.gateway}/graphql`, 'POST', { origin: 'http://127.0.0.1:8080', 'content-type': 'application/json' }, JSON.stringify({ query: '{ __typename }' }));
    expect(query.status).toBe(200);
    expect(JSON.parse(query.text)).toEqual({ data: { __typename: 'Query' } });
    expectCorsRead(query, 'http://127.0.0.1:8080');

    const unauthenticated = await send(`${platform.urls.analysis}/api/v1/results/analysis/ACME`, 'GET', { origin: LOCAL });
    expect(unauthenticated.status).toBe(401);
    expectCorsRead(unauthenticated, LOCAL);
  });
});
