/**
 * Pages for people on every origin, over real HTTP: the GraphQL IDE at GET /graphql for a browser
 * (platform/ide.ts), its files served by the origin (br or gzip as Accept-Encoding asks, compressed once
 * by platform/page-assets.ts and never again by the compression plugin), GraphQL GET and POST unchanged, the IDE off in
 * production unless GRAPHQL_IDE=true; and the API reference at /docs (platform/reference-page.ts),
 * which renders the origin's own /openapi.json in every environment. (The browser test,
 * test/e2e/browser-ide.test.ts, shows both pages render and reach nothing but their origin.)
 */
import zlib from 'node:zlib';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { prefersHtml } from '../../subgraphs/platform/ide.js';
import { packageFile } from '../../subgraphs/platform/page-assets.js';
import { PRODUCTION_ENV, testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { BROWSER_ACCEPT, expectErrorShape, graphql, rawGet, request } from '../helpers/http.js';

const ORIGINS = ['analysis', 'allocation', 'search', 'gateway'] as const;
type Origin = (typeof ORIGINS)[number];

async function openIde(base: string): Promise<Response> {
  return fetch(`${base}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
}

/** The page's stylesheet and script URLs, in order. */
function assetUrls(html: string): string[] {
  return [...html.matchAll(/<(?:link rel="stylesheet" href|script src)="([^"]+)"/g)].map((m) => m[1] as string);
}

function unescapeHtml(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

let store: TestDb;
beforeAll(async () => {
  store = await openTestDb('pglite');
});
afterAll(async () => store?.drop());

describe('prefersHtml (the choice between the IDE and GraphQL)', () => {
  it.each([
    [BROWSER_ACCEPT, true],
    ['text/html', true],
    ['text/html, */*', true],
    ['application/json, text/html', false],
    ['text/html;q=0.5, application/json', false],
    ['*/*', false],
    ['application/graphql-response+json, application/json;q=0.9', false],
    ['multipart/mixed;deferSpec=20220824, application/json', false],
    ['text/html;q=0', false],
    ['garbage', false],
    [undefined, false],
  ])('%s -> %s', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });
});

describe('outside production (GRAPHQL_IDE defaults to on)', () => {
  let platform: RunningPlatform;
  const base = (origin: Origin) => platform.urls[origin] as string;

  beforeAll(async () => {
    platform = await startPlatform(testConfig(), ORIGINS, { db: store.db });
  });
  afterAll(async () => platform?.close());

  it.each(ORIGINS)('%s: a browser opening /graphql gets the IDE page, with a self-only policy', async (origin) => {
    const res = await openIde(base(origin));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toMatch(/unsafe|https?:/);
    const html = await res.text();
    expect(html).toContain('id="graphiql"');
    // Every URL of the page is a path of this origin (no scheme, no host).
    expect(html).not.toMatch(/(src|href)="(?!\/|data:)/);
    expect(assetUrls(html)).toHaveLength(6);
  });

  it.each(ORIGINS)('%s: the IDE opens with an operation that runs there without a token', async (origin) => {
    const html = await (await openIde(base(origin))).text();
    const query = unescapeHtml(/data-default-query="([^"]*)"/.exec(html)?.[1] ?? '');
    expect(query).toContain('Authorization');
    const res = await graphql(`${base(origin)}/graphql`, query);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(Object.keys(res.body.data ?? {}).length).toBeGreaterThan(0);
  });

  it('serves GraphiQL, React and ReactDOM from the installed packages, cached for good, not sniffed', async () => {
    const html = await (await openIde(base('gateway'))).text();
    const urls = assetUrls(html);
    const expected: Array<[string, string, Buffer | null]> = [
      ['graphiql.min.css', 'text/css; charset=utf-8', packageFile('graphiql', 'graphiql.min.css')],
      ['ide.css', 'text/css; charset=utf-8', null],
      ['react.production.min.js', 'application/javascript; charset=utf-8', packageFile('react', 'umd/react.production.min.js')],
      ['react-dom.production.min.js', 'application/javascript; charset=utf-8', packageFile('react-dom', 'umd/react-dom.production.min.js')],
      ['graphiql.min.js', 'application/javascript; charset=utf-8', packageFile('graphiql', 'graphiql.min.js')],
      ['ide.js', 'application/javascript; charset=utf-8', null],
    ];
    expect(urls.map((u) => u.split('/').pop())).toEqual(expected.map(([name]) => name));
    for (const [i, [, type, bytes]] of expected.entries()) {
      const url = urls[i] as string;
      expect(url).toMatch(/^\/graphql\/ide\/[0-9a-f]{16}\//);
      const res = await fetch(`${base('gateway')}${url}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const body = Buffer.from(await res.arrayBuffer());
      if (bytes) expect(body.equals(bytes)).toBe(true);
      else expect(body.length).toBeGreaterThan(0);
    }
    // The stylesheet's fonts and icons are embedded: it names no other server.
    expect(packageFile('graphiql', 'graphiql.min.css').toString('utf8')).not.toMatch(/url\(\s*['"]?(https?:)?\/\//);
  });

  it.each([
    ['br', 'br', zlib.brotliDecompressSync],
    ['gzip', 'gzip', zlib.gunzipSync],
    ['gzip;q=0.5, br', 'br', zlib.brotliDecompressSync],
    ['br;q=0.5, gzip', 'gzip', zlib.gunzipSync],
    ['*', 'br', zlib.brotliDecompressSync],
  ])('an asset asked for with Accept-Encoding %s comes %s-encoded, once, decoding to the package file', async (acceptEncoding, encoding, decode) => {
    const urls = assetUrls(await (await openIde(base('analysis'))).text());
    const graphiql = packageFile('graphiql', 'graphiql.min.js');
    // Twice: the first request compresses, the second is sent what was kept.
    for (let i = 0; i < 2; i++) {
      const res = await rawGet(`${base('analysis')}${urls[4]}`, { 'accept-encoding': acceptEncoding });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      // Decoded once it is the file itself: the compression plugin did not encode it a second time.
      expect(decode(res.raw).equals(graphiql)).toBe(true);
    }
  });

  it.each<Record<string, string>>([{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'br;q=0, gzip;q=0' }, { 'accept-encoding': 'deflate' }])(
    'an asset asked for with %j comes as the package file itself',
    async (headers) => {
      const urls = assetUrls(await (await openIde(base('analysis'))).text());
      const res = await rawGet(`${base('analysis')}${urls[0]}`, headers);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.raw.equals(packageFile('graphiql', 'graphiql.min.css'))).toBe(true);
    },
  );

  it("the API reference's Swagger UI bundle comes br-encoded, decoding to the package file", async () => {
    const urls = assetUrls(await (await fetch(`${base('search')}/docs`)).text());
    const res = await rawGet(`${base('search')}${urls[1]}`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(res.raw).equals(packageFile('@fastify/swagger-ui', 'static/swagger-ui-bundle.js'))).toBe(true);
  });

  it('the same asset URLs on every origin of a process; another hash or name is an unknown route', async () => {
    const urls = assetUrls(await (await openIde(base('gateway'))).text());
    for (const origin of ['analysis', 'allocation', 'search'] as const) expect(assetUrls(await (await openIde(base(origin))).text())).toEqual(urls);
    for (const wrong of [(urls[4] as string).replace(/[0-9a-f]{16}/, '0'.repeat(16)), '/graphql/ide/package.json', '/graphql/ide/']) {
      const res = await request(`${base('gateway')}${wrong}`);
      expect(res.status).toBe(404);
      expectErrorShape(res.body, 'ROUTE_NOT_FOUND');
    }
  });

  it.each(ORIGINS)('%s: GraphQL GET with ?query= and POST still execute, whatever Accept says', async (origin) => {
    for (const accept of [BROWSER_ACCEPT, 'application/json']) {
      const get = await request(`${base(origin)}/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept, 'apollo-require-preflight': 'true' } });
      expect(get.status).toBe(200);
      expect(get.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
      expect(get.body).toEqual({ data: { __typename: 'Query' } });
    }
    const post = await graphql(`${base(origin)}/graphql`, '{ __typename }', {}, { accept: BROWSER_ACCEPT });
    expect(post.status).toBe(200);
    expect(post.body).toEqual({ data: { __typename: 'Query' } });
  });

  it.each(['analysis', 'gateway'] as const)('%s: a browser GET naming a trusted document (?documentId=) gets GraphQL, not the IDE', async (origin) => {
    const res = await request(`${base(origin)}/graphql?documentId=${encodeURIComponent(`sha256:${'0'.repeat(64)}`)}`, {
      headers: { accept: BROWSER_ACCEPT, 'apollo-require-preflight': 'true' },
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
    expect(res.text).not.toMatch(/<html/i);
    expect(Array.isArray((res.body as { errors?: unknown }).errors)).toBe(true);
  });

  it('a GraphQL GET without the CSRF header, or a client that does not prefer HTML, still gets GraphQL (no page)', async () => {
    const navigated = await request(`${base('analysis')}/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { accept: BROWSER_ACCEPT } });
    expect(navigated.status).toBe(400);
    expect((navigated.body as { errors: Array<{ extensions: { code: string } }> }).errors[0]?.extensions.code).toBe('BAD_REQUEST');
    for (const accept of ['*/*', 'application/json']) {
      const res = await request(`${base('analysis')}/graphql`, { headers: { accept, 'apollo-require-preflight': 'true' } });
      expect(res.status).toBe(400);
      expect(res.text).not.toMatch(/<html/i);
      expect(Array.isArray((res.body as { errors?: unknown }).errors)).toBe(true);
    }
  });

  it.each(ORIGINS)('%s: /docs is the API reference of its own /openapi.json, every file served by the origin', async (origin) => {
    const res = await fetch(`${base(origin)}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/unsafe|https?:/);
    const html = await res.text();
    expect(html).toContain(`tradegraph-${origin} API reference`);
    expect(html).toContain('data-url="/openapi.json"');
    expect(html).not.toMatch(/(src|href)="(?!\/|data:)/);
    const urls = assetUrls(html);
    expect(urls.map((u) => u.split('/').pop())).toEqual(['swagger-ui.css', 'swagger-ui-bundle.js', 'reference.js']);
    const expected = [packageFile('@fastify/swagger-ui', 'static/swagger-ui.css'), packageFile('@fastify/swagger-ui', 'static/swagger-ui-bundle.js'), null];
    for (const [i, url] of urls.entries()) {
      expect(url).toMatch(/^\/docs\/static\/[0-9a-f]{16}\//);
      const asset = await fetch(`${base(origin)}${url}`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toBe(i === 0 ? 'text/css; charset=utf-8' : 'application/javascript; charset=utf-8');
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const body = Buffer.from(await asset.arrayBuffer());
      const bytes = expected[i];
      if (bytes) expect(body.equals(bytes)).toBe(true);
      // The starter asks for no validator and names no other server.
      else expect(body.toString('utf8')).toMatch(/validatorUrl: null[\s\S]*presets: \[SwaggerUIBundle\.presets\.apis\]/);
    }
    // The pages themselves are not part of the API.
    const document = await request(`${base(origin)}/openapi.json`);
    const paths = Object.keys((document.body as { paths: Record<string, unknown> }).paths);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => p.startsWith('/docs') || p.startsWith('/graphql'))).toEqual([]);
  });
});

describe('in production', () => {
  let off: RunningPlatform;
  let on: RunningPlatform;
  let assetPaths: string[];

  beforeAll(async () => {
    off = await startPlatform(testConfig(PRODUCTION_ENV), ['analysis', 'gateway'], { db: store.db });
    on = await startPlatform(testConfig({ ...PRODUCTION_ENV, GRAPHQL_IDE: 'true' }), ['analysis', 'gateway'], { db: store.db });
    assetPaths = assetUrls(await (await openIde(on.urls.gateway as string)).text());
  });
  afterAll(async () => {
    await off?.close();
    await on?.close();
  });

  it.each(['analysis', 'gateway'] as const)('%s: no IDE; a browser opening /graphql gets a GraphQL 400 (as without any landing page)', async (origin) => {
    const res = await request(`${off.urls[origin]}/graphql`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.text).not.toMatch(/<html|stack/i);
    expect(res.body).toEqual({ errors: [expect.objectContaining({ message: expect.any(String), extensions: expect.objectContaining({ code: 'BAD_REQUEST' }) })] });
  });

  it.each(['analysis', 'gateway'] as const)('%s: the IDE files do not exist', async (origin) => {
    expect(assetPaths).toHaveLength(6);
    for (const url of assetPaths) {
      const res = await request(`${off.urls[origin]}${url}`);
      expect(res.status).toBe(404);
      expectErrorShape(res.body, 'ROUTE_NOT_FOUND');
    }
  });

  it.each(['analysis', 'gateway'] as const)('%s: GRAPHQL_IDE=true turns the IDE on', async (origin) => {
    const res = await openIde(on.urls[origin] as string);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain('id="graphiql"');
    const asset = await fetch(`${on.urls[origin]}${assetPaths[4]}`);
    expect(asset.status).toBe(200);
  });

  it.each(['analysis', 'gateway'] as const)('%s: the API reference stays on (its document is public)', async (origin) => {
    const res = await fetch(`${off.urls[origin]}/docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`tradegraph-${origin} API reference`);
    for (const url of assetUrls(html)) expect((await fetch(`${off.urls[origin]}${url}`)).status).toBe(200);
    expect((await request(`${off.urls[origin]}/openapi.json`)).status).toBe(200);
  });
});
