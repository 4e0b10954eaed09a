/**
 * Response compression over real HTTP on port 0 (platform/cors.ts): br and gzip as Accept-Encoding
 * asks, decoding to the same JSON as the identity response, for prebuilt JSON text (an analysis read),
 * objects, and /graphql on a subgraph and the gateway; small responses and requests without
 * Accept-Encoding are sent as they are.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { JSON_TYPE } from '../../subgraphs/platform/http.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { bareOrigin } from '../helpers/origin.js';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came over the wire (still encoded). */
  raw: Buffer;
}

/** One request with exactly the given headers; the body is returned undecoded. */
function send(url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function decoded(res: RawResponse): unknown {
  const encoding = res.headers['content-encoding'];
  const bytes = encoding === 'br' ? zlib.brotliDecompressSync(res.raw) : encoding === 'gzip' ? zlib.gunzipSync(res.raw) : res.raw;
  return withoutEnvelopeTime(JSON.parse(bytes.toString('utf8')));
}

/** The response envelope's own `timestamp` is the moment of each answer: everything else must be alike. */
function withoutEnvelopeTime(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const { timestamp: _timestamp, ...rest } = body as Record<string, unknown>;
  return rest;
}

/** The same request as identity, gzip and br: the encoded ones are smaller and decode to the same JSON. */
async function expectCompressedAlike(url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<void> {
  const identity = await send(url, method, headers, body);
  expect(identity.status).toBe(200);
  expect(identity.headers['content-encoding']).toBeUndefined();
  expect(identity.raw.length).toBeGreaterThan(1024);
  const expected = decoded(identity);
  for (const encoding of ['gzip', 'br'] as const) {
    const res = await send(url, method, { ...headers, 'accept-encoding': encoding }, body);
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    expect(String(res.headers.vary)).toMatch(/accept-encoding/i);
    expect(res.raw.length).toBeLessThan(identity.raw.length);
    // Either an exact length or chunked, never a length of the uncompressed body.
    if (res.headers['content-length'] !== undefined) expect(Number(res.headers['content-length'])).toBe(res.raw.length);
    expect(decoded(res)).toEqual(expected);
  }
  // The preferred of several: br over gzip.
  const both = await send(url, method, { ...headers, 'accept-encoding': 'gzip, deflate, br' }, body);
  expect(both.headers['content-encoding']).toBe('br');
  expect(decoded(both)).toEqual(expected);
}

describe('compression on the HTTP shell', () => {
  let app: FastifyInstance;
  let base: string;
  const bigText = JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => ({ i, label: `row number ${i}` })) });

  beforeAll(async () => {
    app = await bareOrigin('compression-test');
    app.get('/text', async (_request, reply) => reply.type(JSON_TYPE).send(bigText));
    app.get('/object', async () => JSON.parse(bigText) as unknown);
    app.get('/small', async () => ({ ok: true }));
    app.get('/empty', async (_request, reply) => reply.code(204).send());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('compresses prebuilt JSON text and serialized objects with br or gzip', async () => {
    await expectCompressedAlike(`${base}/text`, 'GET');
    await expectCompressedAlike(`${base}/object`, 'GET');
  });

  it('sends small responses, 204s and requests without Accept-Encoding as they are', async () => {
    const small = await send(`${base}/small`, 'GET', { 'accept-encoding': 'gzip, br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.raw.toString('utf8'))).toEqual({ ok: true });
    const empty = await send(`${base}/empty`, 'GET', { 'accept-encoding': 'gzip, br' });
    expect(empty.status).toBe(204);
    expect(empty.headers['content-encoding']).toBeUndefined();
    expect(empty.raw.length).toBe(0);
    const plain = await send(`${base}/text`, 'GET');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.raw.toString('utf8')).toBe(bigText);
    expect(plain.headers['content-length']).toBe(String(Buffer.byteLength(bigText)));
    const identity = await send(`${base}/text`, 'GET', { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.raw.toString('utf8')).toBe(bigText);
  });
});

describe('compression on the analysis and gateway origins', () => {
  let store: TestDb;
  let platform: RunningPlatform;
  const introspection = JSON.stringify({ query: '{ __schema { types { name kind fields { name } } } }' });

  beforeAll(async () => {
    store = await openTestDb('pglite');
    platform = await startPlatform(testConfig({ ANALYZE_ON_START: 'false', DEMO_SYMBOL_COUNT: '12' }), ['analysis', 'gateway'], { db: store.db });
    await seedAnalysis(store.db, { symbols: ['ACME'], days: 1 });
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
  });

  it('compresses the demo analysis read (prebuilt JSON text)', async () => {
    await expectCompressedAlike(`${platform.urls.analysis}/api/v1/demo/results/analysis/ACME`, 'GET');
  });

  it('answers a matching If-None-Match 304 without a body or an encoding', async () => {
    const url = `${platform.urls.analysis}/api/v1/demo/results/analysis/ACME`;
    const first = await send(url, 'GET', { 'accept-encoding': 'gzip, br' });
    const etag = first.headers.etag;
    expect(etag).toEqual(expect.any(String));
    const again = await send(url, 'GET', { 'accept-encoding': 'gzip, br', 'if-none-match': String(etag) });
    expect(again.status).toBe(304);
    expect(again.headers['content-encoding']).toBeUndefined();
    expect(again.raw.length).toBe(0);
  });

  it.each(['analysis', 'gateway'] as const)('compresses a large /graphql answer on %s', async (origin) => {
    await expectCompressedAlike(`${platform.urls[origin]}/graphql`, 'POST', { 'content-type': 'application/json' }, introspection);
  });
});
