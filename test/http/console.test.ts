/**
 * The web console on the gateway origin (gateway/console.ts), over real HTTP: the page at /console
 * under the self-only policy with the settings the console reads, its bundle served as hashed,
 * immutable assets (br or gzip as asked), CONSOLE on by default outside production and off in it, a
 * missing bundle answered with 503 in the error shape while the gateway serves everything else, and
 * in development POST /console/dev-token: a token that runs a partners-only query on all three
 * subgraphs through the gateway, its body checked field by field, under the gateway's rate limit, and
 * only for this machine: absent on a gateway listening beyond loopback, and refused (403, nothing
 * signed) to a request whose Host, Origin, peer address or forwarding headers say it is not local.
 *
 * The bundle is a small fixture in a temporary directory (known bytes), so these tests do not depend
 * on the console's build; the browser tests exercise the real bundle.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { DEMO_PORTFOLIO_ID, DEMO_PORTFOLIO_NAME, DEMO_PORTFOLIO_PARTNER } from '../../cli/demo-book.js';
import { isLoopback } from '../../gateway/console.js';
import { buildGatewayOrigin } from '../../gateway/gateway.js';
import { SUBGRAPHS, type Config } from '../../subgraphs/platform/config.js';
import { DEV_IDENTITY_KEY_FILE } from '../../subgraphs/platform/dev-secret.js';
import { PRODUCTION_ENV, testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { BROWSER_ACCEPT, expectErrorShape, graphql, rawGet, request, type JsonResponse } from '../helpers/http.js';

/** A fixture bundle: a script and a stylesheet with known bytes, long enough to be worth compressing. */
const FIXTURE_JS = Buffer.from(`'use strict';\n${Array.from({ length: 40 }, (_, i) => `document.getElementById('console').dataset.step${i} = '${i}';`).join('\n')}\n`);
const FIXTURE_CSS = Buffer.from(`${Array.from({ length: 40 }, (_, i) => `.row-${i} { padding: ${i}px; }`).join('\n')}\n`);

const tempDirs: string[] = [];
function bundleDir(files: { js?: Buffer; css?: Buffer }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-console-'));
  tempDirs.push(dir);
  if (files.js) fs.writeFileSync(path.join(dir, 'console.js'), files.js);
  if (files.css) fs.writeFileSync(path.join(dir, 'console.css'), files.css);
  return dir;
}

/** A POST with exactly the given headers (Host included: fetch would send the URL's), its JSON answer. */
function rawPost(url: string, headers: Record<string, string>, body = '{}'): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The page's stylesheet and script URLs, in order. */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/<(?:link rel="stylesheet" href|script src)="([^"]+)"/g)].map((m) => m[1] as string);
}

/** The attributes of the page's root element, by name. */
function rootAttributes(html: string): Record<string, string> {
  const tag = /<div id="console"[^>]*>/.exec(html)?.[0] ?? '';
  return Object.fromEntries([...tag.matchAll(/([a-z-]+)="([^"]*)"/g)].map((m) => [m[1] as string, m[2] as string]));
}

function postDevToken(base: string, body?: string, contentType = 'application/json'): Promise<JsonResponse> {
  return request(`${base}/console/dev-token`, { method: 'POST', ...(body === undefined ? {} : { body, headers: { 'content-type': contentType } }) });
}

/** A JWT's header and payload, decoded (not verified: the origins do that). */
function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>);
  return { header: header ?? {}, payload: payload ?? {} };
}

interface RunningGateway {
  url: string;
  config: Config;
  close(): Promise<void>;
}

let store: TestDb;
const running: RunningGateway[] = [];

/**
 * A gateway origin over the fixture bundle in `consoleDir`, configured by `env` (testConfig's); with
 * `subgraphs`, the three subgraphs started by startPlatform on the shared store and routed to where
 * they listen, as startPlatform routes its own gateway.
 */
async function startGateway(env: Record<string, string>, consoleDir: string, subgraphs = false, listenHost?: string): Promise<RunningGateway> {
  const config = testConfig(env);
  let platform: RunningPlatform | undefined;
  let app: FastifyInstance | undefined;
  const close = async () => {
    await app?.close();
    await platform?.close();
  };
  try {
    platform = subgraphs ? await startPlatform(config, SUBGRAPHS, { db: store.db }) : undefined;
    const local = Object.fromEntries(SUBGRAPHS.filter((s) => platform?.urls[s]).map((s) => [s, `${platform?.urls[s]}/graphql`]));
    const gatewayConfig = { ...config, gateway: { ...config.gateway, subgraphUrls: { ...config.gateway.subgraphUrls, ...local } } };
    app = await buildGatewayOrigin(gatewayConfig, undefined, { consoleBundleDir: consoleDir });
    const url = await app.listen({ host: listenHost ?? config.host, port: 0 });
    const gateway = { url, config, close };
    running.push(gateway);
    return gateway;
  } catch (err) {
    await close();
    throw err;
  }
}

beforeAll(async () => {
  store = await openTestDb('pglite');
});
afterAll(async () => {
  for (const gateway of running) await gateway.close();
  await store?.drop();
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('outside production (CONSOLE defaults to on)', () => {
  let base: string;
  beforeAll(async () => {
    base = (await startGateway({ DEMO_SYMBOL: 'BETA' }, bundleDir({ js: FIXTURE_JS, css: FIXTURE_CSS }))).url;
  });

  it.each(['/console', '/console/'])('GET %s is the console page, under the self-only policy, with its settings on the root element', async (pathname) => {
    const res = await fetch(`${base}${pathname}`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/style-src 'self'(;|$)/);
    expect(csp).toMatch(/connect-src 'self'(;|$)/);
    expect(csp).not.toMatch(/unsafe|https?:/);
    const html = await res.text();
    // APP_ENV=test: no development token endpoint, so the page names none.
    expect(rootAttributes(html)).toEqual({ id: 'console', 'data-endpoint': '/graphql', 'data-demo-symbol': 'BETA' });
    expect(html).toMatch(/<noscript>[^<]+<\/noscript>/);
    // No inline script or style, and every URL is a path of this origin.
    expect(html).not.toMatch(/<script>|<style|style="/);
    expect(html).not.toMatch(/(src|href)="(?!\/|data:)/);
  });

  it('serves the bundle under hashed URLs, cached for good, not sniffed, byte for byte', async () => {
    const urls = assetUrls(await (await fetch(`${base}/console`)).text());
    expect(urls).toEqual([expect.stringMatching(/^\/console\/assets\/[0-9a-f]{16}\/console\.css$/), expect.stringMatching(/^\/console\/assets\/[0-9a-f]{16}\/console\.js$/)]);
    for (const [url, type, bytes] of [
      [urls[0], 'text/css; charset=utf-8', FIXTURE_CSS],
      [urls[1], 'application/javascript; charset=utf-8', FIXTURE_JS],
    ] as const) {
      const res = await rawGet(`${base}${url}`, {});
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.raw.equals(bytes)).toBe(true);
    }
    // Another hash is an unknown route.
    const stale = await request(`${base}${(urls[1] as string).replace(/[0-9a-f]{16}/, '0'.repeat(16))}`);
    expect(stale.status).toBe(404);
    expectErrorShape(stale.body, 'ROUTE_NOT_FOUND');
  });

  it.each([
    ['br', 'br', zlib.brotliDecompressSync],
    ['gzip', 'gzip', zlib.gunzipSync],
    ['gzip, deflate, br', 'br', zlib.brotliDecompressSync],
    ['br;q=0.5, gzip', 'gzip', zlib.gunzipSync],
  ])('the script asked for with Accept-Encoding %s comes %s-encoded, decoding to the bundle file', async (acceptEncoding, encoding, decode) => {
    const script = assetUrls(await (await fetch(`${base}/console`)).text())[1] as string;
    const res = await rawGet(`${base}${script}`, { 'accept-encoding': acceptEncoding });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(decode(res.raw).equals(FIXTURE_JS)).toBe(true);
  });

  it('has no development token endpoint under APP_ENV=test', async () => {
    for (const body of [undefined, '{}']) {
      const res = await postDevToken(base, body);
      expect(res.status).toBe(404);
      expectErrorShape(res.body, 'ROUTE_NOT_FOUND');
    }
  });

  it('keeps the console out of the OpenAPI document', async () => {
    const document = await request<{ paths: Record<string, unknown> }>(`${base}/openapi.json`);
    expect(document.status).toBe(200);
    expect(Object.keys(document.body.paths).filter((p) => p.startsWith('/console'))).toEqual([]);
  });
});

describe('CONSOLE=false', () => {
  let on: string;
  let off: string;
  beforeAll(async () => {
    const dir = bundleDir({ js: FIXTURE_JS, css: FIXTURE_CSS });
    on = (await startGateway({}, dir)).url;
    off = (await startGateway({ APP_ENV: 'development', CONSOLE: 'false' }, dir)).url;
  });

  it('has no page, no assets and no development token endpoint, even in development', async () => {
    const assets = assetUrls(await (await fetch(`${on}/console`)).text());
    expect(assets).toHaveLength(2);
    for (const pathname of ['/console', '/console/', ...assets]) {
      const res = await request(`${off}${pathname}`, { headers: { accept: BROWSER_ACCEPT } });
      expect(res.status).toBe(404);
      expectErrorShape(res.body, 'ROUTE_NOT_FOUND');
    }
    const token = await postDevToken(off, '{}');
    expect(token.status).toBe(404);
    expectErrorShape(token.body, 'ROUTE_NOT_FOUND');
  });
});

describe('in production', () => {
  let off: string;
  let on: string;
  beforeAll(async () => {
    const dir = bundleDir({ js: FIXTURE_JS, css: FIXTURE_CSS });
    off = (await startGateway(PRODUCTION_ENV, dir)).url;
    on = (await startGateway({ ...PRODUCTION_ENV, CONSOLE: 'true' }, dir)).url;
  });

  it('is off by default', async () => {
    const res = await request(`${off}/console`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(404);
    expectErrorShape(res.body, 'ROUTE_NOT_FOUND');
  });

  it('CONSOLE=true serves the page, with no development token endpoint (sign-in is a pasted token)', async () => {
    const res = await fetch(`${on}/console`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await res.text();
    expect(rootAttributes(html)).toEqual({ id: 'console', 'data-endpoint': '/graphql', 'data-demo-symbol': 'ACME' });
    for (const url of assetUrls(html)) expect((await fetch(`${on}${url}`)).status).toBe(200);
    const token = await postDevToken(on, '{}');
    expect(token.status).toBe(404);
    expectErrorShape(token.body, 'ROUTE_NOT_FOUND');
  });
});

describe('in development: POST /console/dev-token', () => {
  let base: string;
  const partnersOnly = `query Console($book: ID!) {
    portfolios(first: 1) { totalCount nodes { id name } }
    securities(first: 1) { nodes { symbol } }
    cashHunt(portfolioId: $book, pageSize: 1) { portfolioName }
  }`;

  beforeAll(async () => {
    base = (await startGateway({ APP_ENV: 'development' }, bundleDir({ js: FIXTURE_JS, css: FIXTURE_CSS }), true)).url;
  });

  it('the page names the endpoint', async () => {
    const html = await (await fetch(`${base}/console`)).text();
    expect(rootAttributes(html)['data-dev-token']).toBe('/console/dev-token');
  });

  it.each([
    ['no body', undefined],
    ['{}', '{}'],
    ['{"sub": null}', '{"sub": null}'],
  ])("with %s mints the demo book owner's token, which runs a partners-only query on all three subgraphs", async (_name, body) => {
    const res = await postDevToken(base, body);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ token: expect.any(String), sub: DEMO_PORTFOLIO_PARTNER, audiences: expect.any(Array), expires_in: 3600 });
    const token = res.body.token as string;
    const { header, payload } = decodeJwt(token);
    // What `tradegraph token --audience analysis,allocation,search` mints: ES256 by the development identity key.
    expect(header).toMatchObject({ alg: 'ES256', kid: 'dev-identity-1' });
    expect(payload).toMatchObject({ sub: DEMO_PORTFOLIO_PARTNER, aud: res.body.audiences });
    expect(res.body.audiences).toEqual(['tradegraph-analysis', 'tradegraph-allocation', 'tradegraph-search']);
    expect((payload.exp as number) - (payload.iat as number)).toBe(3600);

    const answer = await graphql<{ portfolios: { totalCount: number; nodes: Array<{ id: string; name: string }> }; securities: { nodes: Array<{ symbol: string }> }; cashHunt: { portfolioName: string } }>(
      `${base}/graphql`,
      partnersOnly,
      { book: DEMO_PORTFOLIO_ID },
      { authorization: `Bearer ${token}` },
    );
    expect(answer.body.errors).toBeUndefined();
    expect(answer.status).toBe(200);
    expect(answer.body.data?.portfolios.nodes).toEqual([{ id: DEMO_PORTFOLIO_ID, name: DEMO_PORTFOLIO_NAME }]);
    expect(answer.body.data?.securities.nodes).toHaveLength(1);
    expect(answer.body.data?.cashHunt.portfolioName).toBe(DEMO_PORTFOLIO_NAME);
  });

  it('the same query without a token is refused (the token is what lets it run)', async () => {
    const answer = await graphql(`${base}/graphql`, partnersOnly, { book: DEMO_PORTFOLIO_ID });
    expect(answer.body.errors?.map((e) => e.extensions?.code)).toContain('UNAUTHENTICATED');
  });

  it('mints for another partner when asked, who sees none of the demo books', async () => {
    const res = await postDevToken(base, JSON.stringify({ sub: 'desk:7@example.org' }));
    expect(res.status).toBe(200);
    expect(res.body.sub).toBe('desk:7@example.org');
    const answer = await graphql<{ portfolios: { totalCount: number } }>(`${base}/graphql`, '{ portfolios(first: 1) { totalCount } }', {}, { authorization: `Bearer ${res.body.token as string}` });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.portfolios.totalCount).toBe(0);
  });

  it.each([
    ['an empty sub', '{"sub": ""}', ['sub']],
    ['a sub with a space', '{"sub": "partner 1"}', ['sub']],
    ['a sub of 129 characters', JSON.stringify({ sub: 'p'.repeat(129) }), ['sub']],
    ['a sub that is a number', '{"sub": 42}', ['sub']],
    ['an unknown field', '{"audience": "search"}', ['audience']],
    ['an unknown field and a bad sub', '{"sub": "a/b", "ttl": 99999}', ['ttl', 'sub']],
    ['an array', '[]', ['body']],
    ['a string', '"partner-1"', ['body']],
  ])('refuses %s with 400 VALIDATION_FAILED naming the field', async (_name, body, fields) => {
    const res = await postDevToken(base, body);
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 'VALIDATION_FAILED');
    expect((res.body.details as Array<{ field: string }>).map((d) => d.field)).toEqual(fields);
    expect(res.body.token).toBeUndefined();
  });

  it('refuses a body that is not JSON in the error shape', async () => {
    const res = await postDevToken(base, '{"sub": ');
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 'MALFORMED_JSON');
  });
});

describe('the development token endpoint is for this machine only', () => {
  /** An address of this machine beyond loopback, if it has one (to reach a gateway as another host would). */
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i !== undefined && !i.internal && i.family === 'IPv4')?.address;
  let local: RunningGateway;
  let port: string;
  const signed = () => fs.existsSync(path.join(local.config.dataDir, DEV_IDENTITY_KEY_FILE));
  beforeAll(async () => {
    // No subgraphs: the development identity key is created only when a token is signed.
    local = await startGateway({ APP_ENV: 'development' }, bundleDir({ js: FIXTURE_JS, css: FIXTURE_CSS }));
    port = new URL(local.url).port;
  });

  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.20', false],
    ['128.0.0.1', false],
    ['localhost.example', false],
    ['', false],
  ])('HOST %j is loopback: %s', (host, loopback) => {
    expect(isLoopback(host)).toBe(loopback);
  });

  it('a development gateway listening on 0.0.0.0 has no endpoint, and its page names none', async () => {
    const { url } = await startGateway({ APP_ENV: 'development', HOST: '0.0.0.0' }, bundleDir({ js: FIXTURE_JS, css: FIXTURE_CSS }));
    const base = `http://127.0.0.1:${new URL(url).port}`;
    const html = await (await fetch(`${base}/console`)).text();
    expect(rootAttributes(html)).toEqual({ id: 'console', 'data-endpoint': '/graphql', 'data-demo-symbol': 'ACME' });
    const res = await postDevToken(base, '{}');
    expect(res.status).toBe(404);
    expectErrorShape(res.body, 'ROUTE_NOT_FOUND');
  });

  it.each([
    ['a Host of another name (DNS rebinding)', { host: 'evil.example' }, ['host']],
    ['a Host of another name with the port', () => ({ host: `evil.example:${port}`, origin: `http://evil.example:${port}` }), ['host', 'origin']],
    ['a Host that only starts like localhost', () => ({ host: `localhost.evil.example:${port}` }), ['host']],
    ['a Host of a LAN address', () => ({ host: `192.168.1.20:${port}` }), ['host']],
    ['a page of another site', () => ({ host: `127.0.0.1:${port}`, origin: 'https://evil.example' }), ['origin']],
    ['a request through a proxy', () => ({ host: `127.0.0.1:${port}`, 'x-forwarded-for': '203.0.113.7' }), ['forwarded']],
    ['a request through a standard proxy', () => ({ host: `localhost:${port}`, forwarded: 'for=203.0.113.7' }), ['forwarded']],
  ] as Array<[string, Record<string, string> | (() => Record<string, string>), string[]]>)(
    'refuses %s with 403 FORBIDDEN naming what is not local, and signs nothing',
    async (_name, headers, fields) => {
      const res = await rawPost(`${local.url}/console/dev-token`, typeof headers === 'function' ? headers() : headers);
      expect(res.status).toBe(403);
      expectErrorShape(res.body, 'FORBIDDEN');
      expect((res.body.details as Array<{ field: string }>).map((d) => d.field)).toEqual(fields);
      expect(res.body.token).toBeUndefined();
      expect(signed()).toBe(false);
    },
  );

  (external ? it : it.skip)('refuses a connection from another address, whatever its Host says, and signs nothing', async () => {
    // A gateway built for HOST=127.0.0.1 but listening on every interface (buildGatewayOrigin's caller
    // chooses where it listens): the peer is what counts.
    const wide = await startGateway({ APP_ENV: 'development' }, bundleDir({ js: FIXTURE_JS, css: FIXTURE_CSS }), false, '0.0.0.0');
    const widePort = new URL(wide.url).port;
    const res = await rawPost(`http://${external}:${widePort}/console/dev-token`, { host: `127.0.0.1:${widePort}` });
    expect(res.status).toBe(403);
    expectErrorShape(res.body, 'FORBIDDEN');
    expect((res.body.details as Array<{ field: string }>).map((d) => d.field)).toEqual(['peer']);
    expect(fs.existsSync(path.join(wide.config.dataDir, DEV_IDENTITY_KEY_FILE))).toBe(false);
    expect((await rawPost(`http://127.0.0.1:${widePort}/console/dev-token`, { host: `127.0.0.1:${widePort}` })).status).toBe(200);
  });

  it.each([
    ['127.0.0.1 from its own page', () => ({ host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` })],
    ['localhost, no Origin (curl)', () => ({ host: `localhost:${port}` })],
    ['[::1] from its page', () => ({ host: `[::1]:${port}`, origin: `http://[::1]:${port}` })],
  ])('mints for a local request: %s', async (_name, headers) => {
    const res = await rawPost(`${local.url}/console/dev-token`, headers());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token: expect.any(String), sub: DEMO_PORTFOLIO_PARTNER });
    expect(signed()).toBe(true);
  });
});

describe('the development token endpoint is under the gateway rate limit', () => {
  it('counts against the address budget like any gateway request', async () => {
    const { url } = await startGateway({ APP_ENV: 'development', RATE_LIMIT_GATEWAY_MAX: '2' }, bundleDir({ js: FIXTURE_JS, css: FIXTURE_CSS }));
    expect((await postDevToken(url, '{}')).status).toBe(200);
    expect((await postDevToken(url, '{}')).status).toBe(200);
    const limited = await postDevToken(url, '{}');
    expect(limited.status).toBe(429);
    expectErrorShape(limited.body, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('without a built bundle', () => {
  let empty: string;
  let half: string;
  beforeAll(async () => {
    empty = (await startGateway({}, bundleDir({}))).url;
    half = (await startGateway({}, bundleDir({ js: FIXTURE_JS }))).url;
  });

  it('/console answers 503 in the error shape, saying to build and naming the missing files', async () => {
    for (const [base, missing] of [
      [empty, ['console.js', 'console.css']],
      [half, ['console.css']],
    ] as const) {
      const res = await request(`${base}/console`, { headers: { accept: BROWSER_ACCEPT } });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expectErrorShape(res.body, 'SERVICE_UNAVAILABLE');
      expect(res.body.error).toMatch(/npm run build/);
      const details = res.body.details as Array<{ field: string; message: string }>;
      expect(details.map((d) => d.field)).toEqual(missing.map(() => 'console'));
      missing.forEach((name, i) => expect(details[i]?.message).toContain(name));
      // No server path reaches the client.
      expect(res.text).not.toContain(os.tmpdir());
    }
  });

  it('the gateway still serves everything else', async () => {
    expect((await request(`${empty}/health`)).body).toMatchObject({ status: 'ok' });
    const answer = await graphql(`${empty}/graphql`, '{ __typename }');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ __typename: 'Query' });
  });
});
