/**
 * Rate limits per caller (platform/rate-limit): partners by verified `sub`, everyone else by address;
 * 429 RATE_LIMITED in the error shape with Retry-After and RateLimit headers; per-partner and
 * per-origin budgets; probes never limited; and, with Redis (TEST_REDIS_URL, as in CI), two instances
 * of one origin spend one budget. (Issue "Production hardening" item 1; DESIGN section 5 "rate limits".)
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Redis } from 'ioredis';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { DEMO_OPTIMIZE_BODY } from '../../subgraphs/allocation/service.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { expectErrorShape, request, type JsonResponse } from '../helpers/http.js';
import { startTestIssuer, TEST_OIDC_AUDIENCE, type TestIssuer } from '../helpers/oidc.js';
import { scaled } from '../helpers/time.js';

let store: TestDb;
beforeAll(async () => {
  store = await openTestDb('pglite');
});
afterAll(async () => store?.drop());

const base = { DEMO_DATA: 'false', ANALYZE_ON_START: 'false', RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_MS: '60000', RATE_LIMIT_PARTNERS: 'partner-big=8', RATE_LIMIT_SEARCH_MAX: '2' };
const run = randomBytes(4).toString('hex'); // partner ids unique to this run (a shared Redis outlives it)

function graphqlCall(url: string, token?: string): Promise<JsonResponse> {
  return request(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
}

async function statuses(n: number, call: () => Promise<JsonResponse>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await call()).status);
  return out;
}

describe('in memory', () => {
  const config = testConfig(base);
  let platform: RunningPlatform;
  const mint = (sub: string, secret = TEST_SECRET) => mintPartnerToken({ secret, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: sub });
  beforeAll(async () => {
    platform = await startPlatform(config, ['analysis', 'search'], { db: store.db });
  });
  afterAll(async () => platform?.close());
  const analysis = () => platform.urls.analysis as string;

  it('an anonymous caller gets its budget, then 429 in the error shape with Retry-After and RateLimit headers', async () => {
    expect(await statuses(5, () => graphqlCall(analysis()))).toEqual([200, 200, 200, 200, 200]);
    const limited = await graphqlCall(analysis());
    expect(limited.status).toBe(429);
    expectErrorShape(limited.body, 'RATE_LIMITED');
    expect(limited.body.error).toMatch(/at most 5 per 60 s/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-limit')).toBe('5');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-trace-id')).toBe(limited.body.trace_id);
  });

  it('each verified partner has a budget of its own, and RATE_LIMIT_PARTNERS gives one a larger one', async () => {
    const one = await mint(`partner-1-${run}`);
    const first = await graphqlCall(analysis(), one);
    expect(first.status).toBe(200); // the address is out of budget, the partner is not
    expect(first.headers.get('ratelimit-remaining')).toBe('4');
    expect(await statuses(5, () => graphqlCall(analysis(), one))).toEqual([200, 200, 200, 200, 429]);
    const big = await mint('partner-big');
    expect(await statuses(9, () => graphqlCall(analysis(), big))).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
  });

  it('a forged token naming a partner spends the address budget, never that partner\'s', async () => {
    const victim = `partner-2-${run}`;
    const forged = await mint(victim, 'not-the-secret-0123456789abcdef-0123456789');
    for (let i = 0; i < 3; i++) await graphqlCall(analysis(), forged); // counted by address (spent by now)
    const real = await graphqlCall(analysis(), await mint(victim));
    expect(real.status).toBe(200);
    expect(real.headers.get('ratelimit-remaining')).toBe('4'); // the forged requests took nothing from it
  });

  it('GET / and /health are never limited', async () => {
    expect(await statuses(8, () => request(`${analysis()}/health`))).toEqual(Array(8).fill(200));
    expect(await statuses(8, () => request(`${analysis()}/`))).toEqual(Array(8).fill(200));
    expect(await statuses(8, () => request(`${analysis()}/health`, { method: 'HEAD' }))).toEqual(Array(8).fill(200)); // load-balancer probes
  });

  it('an origin can have its own budget (RATE_LIMIT_SEARCH_MAX)', async () => {
    const search = platform.urls.search as string;
    expect(await statuses(3, () => graphqlCall(search))).toEqual([200, 200, 429]);
  });
});

(process.env.TEST_REDIS_URL ? describe : describe.skip)('with Redis (REDIS_URL): replicas share one budget', () => {
  const config = testConfig({ ...base, RATE_LIMIT_MAX: '4', REDIS_URL: process.env.TEST_REDIS_URL as string });
  let a: RunningPlatform;
  let b: RunningPlatform;
  beforeAll(async () => {
    a = await startPlatform(config, ['analysis'], { db: store.db });
    b = await startPlatform(config, ['analysis'], { db: store.db });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('two instances of one origin count one partner together', async () => {
    const token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: `shared-${run}` });
    const urlA = a.urls.analysis as string;
    const urlB = b.urls.analysis as string;
    expect(urlA).not.toBe(urlB);
    const seen = [
      await graphqlCall(urlA, token),
      await graphqlCall(urlB, token),
      await graphqlCall(urlA, token),
      await graphqlCall(urlB, token),
    ];
    expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(seen.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['3', '2', '1', '0']);
    expect((await graphqlCall(urlB, token)).status).toBe(429);
    expect((await graphqlCall(urlA, token)).status).toBe(429);
  });
});

(process.env.TEST_REDIS_URL ? describe : describe.skip)('with Redis (REDIS_URL): the keys of both budgets', () => {
  const config = testConfig({ ...base, RATE_LIMIT_MAX: '50', RATE_LIMIT_EXPENSIVE_MAX: '5', REDIS_URL: process.env.TEST_REDIS_URL as string });
  let platform: RunningPlatform;
  let redis: Redis;
  beforeAll(async () => {
    platform = await startPlatform(config, ['allocation'], { db: store.db });
    redis = new Redis(process.env.TEST_REDIS_URL as string);
  });
  afterAll(async () => {
    await platform?.close();
    redis?.disconnect();
  });

  it('are tradegraph:<origin>:<caller> and tradegraph:<origin>:expensive:<caller>, never "undefined"', async () => {
    const sub = `keys-${run}`;
    const token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: sub });
    const res = await request(`${platform.urls.allocation}/api/v1/portfolios/optimize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(DEMO_OPTIMIZE_BODY),
    });
    expect(res.status).toBe(200);
    const keys: string[] = [];
    for await (const batch of redis.scanStream({ match: `*${sub}*`, count: 1000 })) keys.push(...(batch as string[]));
    expect(keys.sort()).toEqual([`tradegraph:allocation:expensive:partner:${sub}`, `tradegraph:allocation:partner:${sub}`]);
    expect(await redis.get(`tradegraph:allocation:expensive:partner:${sub}`)).toBe('1');
    const stray: string[] = [];
    for await (const batch of redis.scanStream({ match: 'tradegraph:*undefined*', count: 1000 })) stray.push(...(batch as string[]));
    expect(stray.filter((k) => k.includes(run))).toEqual([]);
  });
});

// Issue "Production hardening" item 1: expensive operations have their own, lower budget.
describe('expensive operations (optimize) have a lower budget of their own', () => {
  const config = testConfig({ ...base, RATE_LIMIT_MAX: '50', RATE_LIMIT_EXPENSIVE_MAX: '2' });
  let platform: RunningPlatform;
  beforeAll(async () => {
    platform = await startPlatform(config, ['allocation'], { db: store.db });
  });
  afterAll(async () => platform?.close());
  const allocation = () => platform.urls.allocation as string;
  const optimize = (token?: string) =>
    request(`${allocation()}/api/v1/portfolios/optimize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(DEMO_OPTIMIZE_BODY),
    });
  const mutation = (token?: string) =>
    request<{ data?: unknown; errors?: Array<{ extensions?: { code?: string } }> }>(`${allocation()}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({
        query: 'mutation($i: PortfolioRequestInput!) { optimizePortfolio(input: $i) { positionCount } }',
        variables: { i: { name: 'x', totalCapital: 5000 } },
      }),
    });

  it('REST optimize and the GraphQL mutation spend one budget; other routes and queries are not limited by it', async () => {
    expect(await statuses(2, () => optimize())).toEqual([200, 200]);
    const limited = await optimize();
    expect(limited.status).toBe(429);
    expectErrorShape(limited.body, 'RATE_LIMITED');
    expect(limited.body.error).toMatch(/expensive/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-limit')).toBe('2');
    // GraphQL: the resolver's refusal is an HTTP 429 with Retry-After too (the error's extensions.http).
    const refused = await mutation();
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-limit')).toBe('2');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(refused.text).not.toMatch(/"http"|stack/);
    // Cheap calls from the same caller still pass (their budget is RATE_LIMIT_MAX).
    expect((await request(`${allocation()}/api/v1/demo/optimize-body`)).status).toBe(200);
    expect((await graphqlCall(allocation())).status).toBe(200);
  });

  it('each partner has an expensive budget of its own, over REST and GraphQL', async () => {
    const token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: `optimizer-${run}` });
    expect((await mutation(token)).body.errors).toBeUndefined();
    expect((await optimize(token)).status).toBe(200);
    expect((await optimize(token)).status).toBe(429);
  });
});

// README "Rate limits": optimize, hunt and cash hunt "REST responses carry that budget's RateLimit-* headers".
describe('the expensive budget on 2xx responses and through the gateway', () => {
  let issuer: TestIssuer;
  let platform: RunningPlatform;
  let config: ReturnType<typeof testConfig>;
  beforeAll(async () => {
    issuer = await startTestIssuer();
    config = testConfig({ ...base, RATE_LIMIT_MAX: '50', RATE_LIMIT_EXPENSIVE_MAX: '3', OIDC_ISSUER: issuer.url, OIDC_AUDIENCES: TEST_OIDC_AUDIENCE });
    platform = await startPlatform(config, ['allocation', 'search', 'gateway'], { db: store.db });
  });
  afterAll(async () => {
    await platform?.close();
    await issuer?.close();
  });
  const partnerToken = (sub: string) => mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: sub });
  const budget = (res: JsonResponse) => [res.headers.get('ratelimit-limit'), res.headers.get('ratelimit-remaining')];

  it('optimize, hunt and cash hunt answer 200 with the expensive budget\'s RateLimit headers', async () => {
    const sub = `headers-${run}`;
    const optimized = await request<{ portfolio_id: string }>(`${platform.urls.allocation}/api/v1/portfolios/optimize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await partnerToken(sub)}` },
      body: JSON.stringify({ name: 'Headers', total_capital: 10000 }),
    });
    expect(optimized.status).toBe(200);
    expect(budget(optimized)).toEqual(['3', '2']);
    expect(Number(optimized.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    const auth = { authorization: `Bearer ${await issuer.idToken({ subject: sub })}` };
    const id = optimized.body.portfolio_id;
    const hunt = await request(`${platform.urls.search}/api/v1/portfolios/hunt?portfolio_id=${id}`, { headers: auth });
    expect(hunt.status).toBe(200);
    expect(budget(hunt)).toEqual(['3', '2']);
    const cashHunt = await request(`${platform.urls.search}/api/v1/portfolios/cash-hunt?portfolio_id=${id}`, { headers: auth });
    expect(cashHunt.status).toBe(200);
    expect(budget(cashHunt)).toEqual(['3', '1']);
    // A cheap route of the same origin keeps the request budget's headers.
    expect(budget(await request(`${platform.urls.allocation}/api/v1/demo/optimize-body`))[0]).toBe('50');
  });

  it('the request budget is checked first: its 429 carries its own headers and message', async () => {
    const tight = testConfig({ ...base, RATE_LIMIT_MAX: '1', RATE_LIMIT_EXPENSIVE_MAX: '3' });
    const small = await startPlatform(tight, ['allocation'], { db: store.db });
    try {
      const token = await mintPartnerToken({ secret: TEST_SECRET, issuer: tight.auth.issuer, audience: tight.auth.audiences.allocation, subject: `order-${run}` });
      const call = () =>
        request(`${small.urls.allocation}/api/v1/portfolios/optimize`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ name: 'Order', total_capital: 10000 }),
        });
      const first = await call();
      expect(first.status).toBe(200);
      expect(budget(first)).toEqual(['3', '2']);
      const second = await call();
      expect(second.status).toBe(429);
      expect(budget(second)).toEqual(['1', '0']); // the request budget refused it
      expect((second.body as { error: string }).error).not.toMatch(/expensive/);
    } finally {
      await small.close();
    }
  });

  it('through the gateway, a subgraph\'s 429 is a 429 with Retry-After', async () => {
    const token = await partnerToken(`gateway-${run}`);
    const mutation = () =>
      request<{ errors?: Array<{ extensions?: { code?: string } }> }>(`${platform.urls.gateway}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: 'mutation($i: PortfolioRequestInput!) { optimizePortfolio(input: $i) { positionCount } }', variables: { i: { name: 'x', totalCapital: 5000 } } }),
      });
    expect((await statuses(3, mutation))).toEqual([200, 200, 200]);
    const refused = await mutation();
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

it('a Redis that does not answer keeps the origin available, and every budget still applies (counted in memory)', async () => {
  const config = testConfig({ ...base, REDIS_URL: 'redis://127.0.0.1:1' });
  const platform = await startPlatform(config, ['analysis'], { db: store.db });
  try {
    const seen = [];
    for (let i = 0; i < 6; i++) seen.push(await graphqlCall(platform.urls.analysis as string));
    expect(seen.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    // The headers describe the counter that refused the sixth request.
    expect(seen.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0', '0']);
  } finally {
    await platform.close();
  }
});

it('a Redis that accepts connections but never answers neither holds the start nor the requests', async () => {
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as net.AddressInfo).port;
  const started = Date.now();
  const platform = await startPlatform(testConfig({ ...base, REDIS_URL: `redis://127.0.0.1:${port}` }), ['analysis'], { db: store.db });
  try {
    expect(Date.now() - started).toBeLessThan(scaled(5000));
    const t0 = Date.now();
    expect(await statuses(3, () => graphqlCall(platform.urls.analysis as string))).toEqual([200, 200, 200]);
    expect(Date.now() - t0).toBeLessThan(scaled(3000));
  } finally {
    await platform.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
});
