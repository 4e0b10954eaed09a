/**
 * Hostile input at the HTTP shell (platform/http.ts, json-depth.ts, http-limits.ts), over real sockets:
 *
 * - Request documents nested past MAX_JSON_DEPTH: 10,000 and 100,000 levels on every route that takes
 *   a body or a JSON query parameter (REST optimize; /graphql POST bodies and GET `variables` and
 *   `extensions` on the three subgraphs and the gateway), and GraphQL operations nested deeper than
 *   graphql-js can parse without overflowing its stack, in development and in production (`npm
 *   start` as a child process, so its log can be read): a 4xx, never a 5xx, and exactly one log line at
 *   info level without a stack for each. A document exactly at the limit is accepted.
 * - Refusals Node makes before a route exists (100 KB of headers, a 100 KB URL, a bad request line, an
 *   HTTP version other than 1.x, no Host): the error shape with an x-trace-id and `connection: close`,
 *   sent over raw sockets (node:net) because HTTP clients cannot send such requests.
 * - /graphql's own transport errors (malformed JSON, 413, 415, too deep) the GraphQL-over-HTTP way, and a
 *   body in any charset but UTF-8 refused with 415 instead of being read as UTF-8.
 *
 * DESIGN section 5 ("non-2xx body": the error shape on every origin; "trace id": every response);
 * README "Errors and trace ids" (/graphql answers the GraphQL-over-HTTP way).
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { ERROR_CODES } from '../../subgraphs/platform/errors.js';
import { originEnv, startOrigins, type Origins } from '../helpers/child.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { expectErrorShape, request, type JsonResponse } from '../helpers/http.js';
import { scaled } from '../helpers/time.js';

const ORIGINS = ['analysis', 'allocation', 'search', 'gateway'] as const;
type OriginName = (typeof ORIGINS)[number];
const OPTIMIZE = '/api/v1/portfolios/optimize';
const DEFAULT_DEPTH = 64;

type GraphqlBody = { data?: unknown; errors?: Array<{ message: string; extensions?: { code?: string; details?: unknown[] } }> };

/** `{"a":{"a":...1...}}`: `levels` objects deep. */
const objects = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** `[[...]]`: `levels` arrays deep. */
const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
/** A GraphQL POST body whose variables make the whole document `levels` deep (the body and `variables` are two). */
const graphqlBody = (levels: number) => `{"query":"{ __typename }","variables":{"v":${arrays(levels - 2)}}}`;

function expectGraphqlError(res: JsonResponse<GraphqlBody>, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors?.[0]).toEqual({ message: expect.any(String), extensions: { code, details: expect.any(Array) } });
  expect(ERROR_CODES[code as keyof typeof ERROR_CODES]).toBe(status);
  expect(res.text).not.toMatch(/\bat .+\.(ts|js):\d+|stack/i);
  expect(res.headers.get('x-trace-id')).toMatch(/^[\w.-]+$/);
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** The server closed the connection after its answer. */
  closed: boolean;
}

/** Writes `data` on a fresh connection and reads the answer until the server closes it (or 5 s, scaled). */
function rawRequest(url: string, data: string): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => socket.write(data));
    const timer = setTimeout(() => finish(false), scaled(5000));
    function finish(closed: boolean) {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split === -1) return reject(new Error(`no HTTP response: ${JSON.stringify(text.slice(0, 200))}`));
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const body = JSON.parse(text.slice(split + 4, split + 4 + Number(headers['content-length']))) as Record<string, unknown>;
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closed });
    }
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('close', () => finish(true));
    // A reset after the answer (the server closes while the client is still writing) ends the read too.
    socket.on('error', () => undefined);
  });
}

function expectRawRefusal(res: RawResponse, status: number, code: string, traceId?: string): void {
  expect(res.status).toBe(status);
  expectErrorShape(res.body, code, traceId);
  expect(res.headers['x-trace-id']).toBe(res.body.trace_id);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers.connection).toBe('close');
  expect(res.closed).toBe(true);
}

describe.each(['development', 'production'] as const)('request documents nested past MAX_JSON_DEPTH, APP_ENV=%s', (appEnv) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-hostile-'));
  let origins: Origins;
  const url = (origin: OriginName, p: string) => `${origins.urls[origin]}${p}`;
  /** Log lines the child wrote so far (JSON lines only). */
  const logLines = () =>
    origins
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => ({ raw: l, entry: JSON.parse(l) as Record<string, unknown> }));

  /** Exactly one log line for the request, at info, with no stack or error object: checked once it has arrived. */
  async function expectOneInfoLine(traceId: string): Promise<void> {
    const mine = () => logLines().filter((l) => l.entry.trace_id === traceId || l.raw.includes(traceId));
    const deadline = Date.now() + scaled(5000);
    while (mine().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 100)); // anything a second line would add
    const lines = mine();
    expect(lines.map((l) => l.raw)).toHaveLength(1);
    expect(lines[0].entry.level).toBe(30);
    expect(lines[0].entry.err).toBeUndefined();
    expect(lines[0].raw).not.toMatch(/stack|\.(ts|js):\d+/i);
  }

  beforeAll(async () => {
    const production = appEnv === 'production';
    origins = await startOrigins(
      [],
      originEnv({
        APP_ENV: appEnv,
        DATA_DIR: dataDir,
        DEMO_DATA: 'false',
        ANALYZE_ON_START: 'false',
        LOG_LEVEL: 'info',
        // Production needs an identity provider's settings; nothing here presents a token, so none is fetched.
        AUTH_HS256_SECRET: '',
        ...(production ? { AUTH_ISSUER: 'https://issuer.example', AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks.json' } : {}),
      }),
    );
  });
  afterAll(async () => {
    origins?.signal('SIGINT');
    await origins?.waitForExit();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it.each([10_000, 100_000])('POST optimize with a body %i levels deep, no token -> 400 REQUEST_TOO_DEEP, one info line', async (levels) => {
    const traceId = `deep-optimize-${appEnv}-${levels}`;
    const body = `{"name":"x","total_capital":5000,"risk_quiz_answers":${objects(levels - 1)}}`;
    const res = await request(url('allocation', OPTIMIZE), { method: 'POST', headers: { 'content-type': 'application/json', 'x-trace-id': traceId }, body });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 'REQUEST_TOO_DEEP', traceId);
    expect(res.body.details).toEqual([{ field: 'body', message: expect.stringContaining(`${DEFAULT_DEPTH}`) }]);
    await expectOneInfoLine(traceId);
  });

  describe.each(ORIGINS)('/graphql on %s', (origin) => {
    it.each([10_000, 100_000])('POST with variables %i levels deep -> 400 REQUEST_TOO_DEEP, GraphQL-style, one info line', async (levels) => {
      const traceId = `deep-post-${appEnv}-${origin}-${levels}`;
      const res = await request<GraphqlBody>(url(origin, '/graphql'), { method: 'POST', headers: { 'content-type': 'application/json', 'x-trace-id': traceId }, body: graphqlBody(levels) });
      expectGraphqlError(res, 400, 'REQUEST_TOO_DEEP');
      expect(res.headers.get('x-trace-id')).toBe(traceId);
      await expectOneInfoLine(traceId);
    });

    // Past Node's 16 KiB request head: refused before any route with 414, in the error shape.
    it.each([
      ['variables', 10_000],
      ['extensions', 100_000],
    ] as const)('GET with %s %i levels deep -> 414 URI_TOO_LONG, one info line', async (param, levels) => {
      const res = await rawRequest(
        url(origin, '/'),
        `GET /graphql?query=%7B__typename%7D&${param}=${arrays(levels)} HTTP/1.1\r\nhost: localhost\r\napollo-require-preflight: true\r\n\r\n`,
      );
      expectRawRefusal(res, 414, 'URI_TOO_LONG');
      await expectOneInfoLine(res.body.trace_id as string);
    });

    it.each(['variables', 'extensions'])('GET with %s 3,000 levels deep (a URL within the limit) -> 400 REQUEST_TOO_DEEP, GraphQL-style', async (param) => {
      const traceId = `deep-get-${appEnv}-${origin}-${param}`;
      const res = await request<GraphqlBody>(`${url(origin, '/graphql')}?query=${encodeURIComponent('{ __typename }')}&${param}=${arrays(3000)}`, {
        headers: { 'apollo-require-preflight': 'true', 'x-trace-id': traceId },
      });
      expectGraphqlError(res, 400, 'REQUEST_TOO_DEEP');
      expect(res.body.errors?.[0]?.extensions?.details).toEqual([{ field: param, message: expect.any(String) }]);
      await expectOneInfoLine(traceId);
    });

    // graphql-js parses recursively: 1,990 selection sets fit in GRAPHQL_MAX_TOKENS but used to overflow its stack.
    it('an operation nested 1,990 levels deep (POST) or 1,500 (GET) -> 400 REQUEST_TOO_DEEP before graphql-js parses it, one info line', async () => {
      const traceId = `deep-query-${appEnv}-${origin}`;
      const deepQuery = (levels: number) => `${'{a'.repeat(levels)}${'}'.repeat(levels)}`;
      const post = await request<GraphqlBody>(url(origin, '/graphql'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-trace-id': traceId },
        body: JSON.stringify({ query: deepQuery(1990) }),
      });
      expectGraphqlError(post, 400, 'REQUEST_TOO_DEEP');
      expect(post.body.errors?.[0]?.extensions?.details).toEqual([{ field: 'query', message: expect.any(String) }]);
      expect(post.text).not.toMatch(/call stack/i);
      await expectOneInfoLine(traceId);
      const get = await request<GraphqlBody>(`${url(origin, '/graphql')}?query=${deepQuery(1500)}`, { headers: { 'apollo-require-preflight': 'true' } });
      expectGraphqlError(get, 400, 'REQUEST_TOO_DEEP');
      // Brackets in a comment are not nesting: this one runs.
      const commented = await request<GraphqlBody>(url(origin, '/graphql'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ __typename } # "${'[{'.repeat(500)}` }),
      });
      expect(commented.body).toEqual({ data: { __typename: 'Query' } });
    });

    it(`a document exactly ${DEFAULT_DEPTH} levels deep runs; one more is refused`, async () => {
      const post = (levels: number) => request<GraphqlBody>(url(origin, '/graphql'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: graphqlBody(levels) });
      const atLimit = await post(DEFAULT_DEPTH);
      expect(atLimit.status).toBe(200);
      expect(atLimit.body).toEqual({ data: { __typename: 'Query' } });
      expectGraphqlError(await post(DEFAULT_DEPTH + 1), 400, 'REQUEST_TOO_DEEP');
      const get = await request<GraphqlBody>(`${url(origin, '/graphql')}?query=${encodeURIComponent('{ __typename }')}&variables={"v":${arrays(DEFAULT_DEPTH - 1)}}`, {
        headers: { 'apollo-require-preflight': 'true' },
      });
      expect(get.status).toBe(200);
      expect(get.body).toEqual({ data: { __typename: 'Query' } });
    });
  });

  it(`optimize takes a body exactly ${DEFAULT_DEPTH} levels deep to validation; one more is refused`, async () => {
    const post = (levels: number) =>
      request(url('allocation', OPTIMIZE), { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"name":"x","total_capital":5000,"risk_quiz_answers":${objects(levels - 1)}}` });
    const atLimit = await post(DEFAULT_DEPTH);
    expect(atLimit.status).toBe(400);
    expectErrorShape(atLimit.body, 'VALIDATION_FAILED');
    expect(atLimit.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'risk_quiz_answers' })]));
    expectErrorShape((await post(DEFAULT_DEPTH + 1)).body, 'REQUEST_TOO_DEEP');
  });

  it('every origin still answers afterwards, and nothing was logged at error level', async () => {
    for (const origin of ORIGINS) expect((await request(url(origin, '/health'))).status).toBe(200);
    expect(logLines().filter((l) => Number(l.entry.level) >= 50)).toEqual([]);
    expect(origins.output()).not.toMatch(/RangeError|Maximum call stack/);
  });
});

describe('HTTP-level refusals and transport errors (in process)', () => {
  let store: TestDb;
  let platform: RunningPlatform;
  const MAX_DEPTH = 8;
  const url = (origin: OriginName, p: string) => `${platform.urls[origin]}${p}`;

  beforeAll(async () => {
    store = await openTestDb('pglite');
    const config = testConfig({ BODY_LIMIT_BYTES: '2048', MAX_JSON_DEPTH: String(MAX_DEPTH), DEMO_DATA: 'false', ANALYZE_ON_START: 'false' });
    platform = await startPlatform(config, ORIGINS, { db: store.db });
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
  });

  describe.each(ORIGINS)('on %s', (origin) => {
    const raw = (data: string) => rawRequest(url(origin, '/'), data);

    it('100 KB of headers -> 431 HEADERS_TOO_LARGE in the error shape, keeping the x-trace-id sent before them', async () => {
      const res = await raw(`GET /health HTTP/1.1\r\nhost: localhost\r\nx-trace-id: big-headers-1\r\nx-big: ${'a'.repeat(100_000)}\r\n\r\n`);
      expectRawRefusal(res, 431, 'HEADERS_TOO_LARGE', 'big-headers-1');
    });

    it('a 100 KB URL -> 414 URI_TOO_LONG', async () => {
      expectRawRefusal(await raw(`GET /${'a'.repeat(100_000)} HTTP/1.1\r\nhost: localhost\r\n\r\n`), 414, 'URI_TOO_LONG');
    });

    it('a 10 KB URL (within Node\'s head limit, past the 8 KiB URL limit) -> 414 URI_TOO_LONG, in the error shape on /graphql too', async () => {
      expectRawRefusal(await raw(`GET /health?x=${'a'.repeat(10_000)} HTTP/1.1\r\nhost: localhost\r\nx-trace-id: long-url-1\r\n\r\n`), 414, 'URI_TOO_LONG', 'long-url-1');
      expectRawRefusal(await raw(`GET /graphql?query=${'a'.repeat(10_000)} HTTP/1.1\r\nhost: localhost\r\n\r\n`), 414, 'URI_TOO_LONG');
    });

    it.each(['GARBAGE\r\n\r\n', 'GET / XTTP/1.1\r\nhost: x\r\n\r\n', 'GET /a b HTTP/1.1\r\nhost: x\r\n\r\n', 'GET / HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\ntransfer-encoding: chunked\r\n\r\n'])(
      'a bad request %j -> 400 BAD_REQUEST',
      async (data) => expectRawRefusal(await raw(data), 400, 'BAD_REQUEST'),
    );

    it.each(['HTTP/2.0', 'HTTP/0.9', 'HTTP/1.7', 'HTTP/3.0'])('%s -> 505 HTTP_VERSION_NOT_SUPPORTED', async (version) => {
      expectRawRefusal(await raw(`GET /health ${version}\r\nhost: localhost\r\n\r\n`), 505, 'HTTP_VERSION_NOT_SUPPORTED');
    });

    it('an HTTP/1.1 request without Host -> 400 BAD_REQUEST in the error shape; HTTP/1.0 needs none', async () => {
      expectRawRefusal(await raw('GET /health HTTP/1.1\r\n\r\n'), 400, 'BAD_REQUEST');
      const old = await raw('GET /health HTTP/1.0\r\n\r\n');
      expect(old.status).toBe(200);
    });

    it('/graphql: malformed JSON, prototype poisoning, 413, 415 and too deep answer GraphQL-style with the same status', async () => {
      const post = (body: string, contentType = 'application/json') => request<GraphqlBody>(url(origin, '/graphql'), { method: 'POST', headers: { 'content-type': contentType }, body });
      expectGraphqlError(await post('{"query": "{ __typename '), 400, 'MALFORMED_JSON');
      expectGraphqlError(await post('{"query":"{ __typename }","__proto__":{"polluted":true}}'), 400, 'MALFORMED_JSON');
      expectGraphqlError(await post(JSON.stringify({ query: `{ __typename } # ${'x'.repeat(4096)}` })), 413, 'PAYLOAD_TOO_LARGE');
      expectGraphqlError(await post('<q/>', 'application/xml'), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectGraphqlError(await post(graphqlBody(MAX_DEPTH + 1)), 400, 'REQUEST_TOO_DEEP');
      // MAX_JSON_DEPTH is the configured one on every origin.
      expect((await post(graphqlBody(MAX_DEPTH))).body).toEqual({ data: { __typename: 'Query' } });
    });

    it.each(['application/json; charset=utf-16', 'application/json;charset=UTF-16LE', 'application/json; charset="utf-16"', 'application/json; CHARSET=iso-8859-1', 'text/plain; charset=utf-16'])(
      '/graphql: a body declared %s -> 415, not read as UTF-8',
      async (contentType) => {
        const res = await request<GraphqlBody>(url(origin, '/graphql'), {
          method: 'POST',
          headers: { 'content-type': contentType },
          body: Buffer.from('{"query":"{ __typename }"}', 'utf16le'),
        });
        expectGraphqlError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      },
    );

    it('/graphql: the same body runs when declared UTF-8 (quoted, in capitals) or with no charset, and is refused as UTF-16', async () => {
      const post = (contentType: string) => request<GraphqlBody>(url(origin, '/graphql'), { method: 'POST', headers: { 'content-type': contentType }, body: '{"query":"{ __typename }"}' });
      for (const contentType of ['application/json', 'application/json; charset=utf-8', 'application/json; Charset="UTF-8"']) {
        expect((await post(contentType)).body).toEqual({ data: { __typename: 'Query' } });
      }
      expectGraphqlError(await post('application/json; charset=utf-16'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  it('REST optimize: charset and depth refusals keep the error shape', async () => {
    const post = (body: string | Buffer, contentType: string) => request(url('allocation', OPTIMIZE), { method: 'POST', headers: { 'content-type': contentType }, body });
    const utf16 = await post(Buffer.from('{"name":"x","total_capital":5000}', 'utf16le'), 'application/json; charset=utf-16');
    expect(utf16.status).toBe(415);
    expectErrorShape(utf16.body, 'UNSUPPORTED_MEDIA_TYPE');
    expect(utf16.headers.get('x-trace-id')).toBe(utf16.body.trace_id);
    const deep = await post(objects(MAX_DEPTH + 1), 'application/json');
    expect(deep.status).toBe(400);
    expectErrorShape(deep.body, 'REQUEST_TOO_DEEP');
  });
});
