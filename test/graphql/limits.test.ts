/**
 * GraphQL limits on every subgraph and on the gateway (platform/graphql-limits): each hostile
 * operation is refused with a clear 400 before it runs, and the frontend query beside it still passes.
 * Issue "Production hardening" item 2; DESIGN section 6 ("depth and cost limits, alias limits, CSRF
 * prevention, introspection and stack traces configurable (off in production)").
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { getIntrospectionQuery } from 'graphql';
import { DEFAULT_GRAPHQL_LIMITS, STANDARD_INTROSPECTION_DEPTH } from '../../subgraphs/platform/graphql-limits.js';
import { PRODUCTION_ENV, testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request } from '../helpers/http.js';

type Body = { data?: Record<string, unknown> | null; errors?: Array<{ message: string; extensions?: { code?: string } }> };

let store: TestDb;
let platform: RunningPlatform;
let token: string;
// Depth lowered so that the analysis graph, which is shallow, can exceed it; the rest at their defaults.
const config = testConfig({ DEMO_SYMBOL_COUNT: '12', ANALYZE_ON_START: 'false', GRAPHQL_MAX_DEPTH: '5' });

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
  token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'p' });
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  request<Body>(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers }, body: JSON.stringify(body) });

function expectRefused(res: Awaited<ReturnType<typeof post>>, code: string, message: RegExp): void {
  expect(res.status).toBe(400);
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors?.[0]?.extensions?.code).toBe(code);
  expect(res.body.errors?.[0]?.message).toMatch(message);
  expect(res.text).not.toMatch(/stack|\.js:\d+|INTERNAL_ERROR/);
}

const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: securities(first: 1) { totalCount }`).join(' ')} }`;
const directives = (n: number) => `{ securities(first: 1) { ${Array.from({ length: n }, () => 'totalCount @include(if: true)').join(' ')} } }`;

describe.each(['gateway', 'analysis'] as const)('limits on %s', (origin) => {
  const url = () => `${platform.urls[origin]}/graphql`;

  it('depth (fields on the longest path): one deeper than the maximum is refused; one at the maximum runs', async () => {
    expectRefused(await post(url(), { query: '{ securities(first: 1) { nodes { analysis { bestPattern { keyPoints { label } } } } } }' }), 'QUERY_LIMIT_EXCEEDED', /depth 6 exceeds the maximum of 5/);
    // Fragments count where they are spread.
    expectRefused(
      await post(url(), { query: 'query { securities(first: 1) { ...N } } fragment N on SecurityConnection { nodes { analysis { bestPattern { keyPoints { label } } } } }' }),
      'QUERY_LIMIT_EXCEEDED',
      /depth 6/,
    );
    const ok = await post(url(), { query: '{ securities(first: 2) { nodes { analysis { bestPattern { type } } } } }' });
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
    // Introspection beside it lends the data path nothing of its own allowance.
    expectRefused(
      await post(url(), { query: '{ __schema { queryType { name } } securities(first: 1) { nodes { analysis { bestPattern { keyPoints { label } } } } } }' }),
      'QUERY_LIMIT_EXCEEDED',
      /Query depth 6 exceeds the maximum of 5/,
    );
  });

  it('aliases: more than the maximum is refused; a few run', async () => {
    expectRefused(await post(url(), { query: aliases(DEFAULT_GRAPHQL_LIMITS.maxAliases + 1) }), 'QUERY_LIMIT_EXCEEDED', /aliases 31 exceeds the maximum of 30/);
    const ok = await post(url(), { query: aliases(3) });
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.data ?? {})).toEqual(['a0', 'a1', 'a2']);
  });

  it('directives: more than the maximum is refused; a few run', async () => {
    expectRefused(await post(url(), { query: directives(DEFAULT_GRAPHQL_LIMITS.maxDirectives + 1) }), 'QUERY_LIMIT_EXCEEDED', /directives 21 exceeds the maximum of 20/);
    expect((await post(url(), { query: directives(2) })).status).toBe(200);
  });

  it('tokens: a document longer than the maximum is not even parsed', async () => {
    const huge = `{ ${Array.from({ length: DEFAULT_GRAPHQL_LIMITS.maxTokens }, () => '__typename').join(' ')} }`;
    expectRefused(await post(url(), { query: huge }), 'GRAPHQL_PARSE_FAILED', /4000 tokens/);
  });

  it('cost: 500 securities x 2,000 bars is refused, literally or through variables; a page of bars runs', async () => {
    const heavy = 'query ($n: Int, $b: Int) { securities(first: $n) { nodes { symbol bars(first: $b) { totalCount } } } }';
    expectRefused(await post(url(), { query: heavy, variables: { n: 500, b: 2000 } }), 'QUERY_LIMIT_EXCEEDED', /cost \d+ exceeds the maximum of 25000/);
    expectRefused(await post(url(), { query: '{ securities(first: 500) { nodes { bars(first: 2000) { totalCount } } } }' }), 'QUERY_LIMIT_EXCEEDED', /cost/);
    const ok = await post(url(), { query: heavy, variables: { n: 5, b: 250 } });
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
  });

  it('variables that do not fit the operation are the caller\'s error (400), not a failure of the cost check', async () => {
    const res = await post(url(), { query: 'query ($s: String!, $n: Int) { analysis(symbol: $s) { stage } securities(first: $n) { totalCount } }', variables: { n: 'many' } });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('fragments spread many times cost no more time than written out: a doubling chain is refused at once', async () => {
    const chain = Array.from({ length: 30 }, (_, i) => (i === 0 ? 'fragment F0 on Query { __typename }' : `fragment F${i} on Query { ...F${i - 1} ...F${i - 1} }`)).join(' ');
    // Expanded, this document has 2^29 selections: without the per-fragment memo it would never finish.
    const res = await post(url(), { query: `{ ...F29 } ${chain}` });
    expectRefused(res, 'QUERY_LIMIT_EXCEEDED', /too many selections|cost/);
  });

  it('padding a costly query with selections does not switch the cost check off', async () => {
    const pad = Array.from({ length: 15 }, (_, i) => (i === 0 ? 'fragment P0 on Query { __typename }' : `fragment P${i} on Query { ...P${i - 1} ...P${i - 1} }`)).join(' ');
    expectRefused(await post(url(), { query: `{ securities(first: 500) { nodes { bars(first: 2000) { totalCount } } } ...P14 } ${pad}` }), 'QUERY_LIMIT_EXCEEDED', /too many selections|cost/);
  });

  it('a variable whose text looks like a database error is the caller\'s mistake (400 BAD_USER_INPUT), not an outage', async () => {
    const res = await post(url(), { query: 'query ($n: Int) { securities(first: $n) { totalCount } }', variables: { n: 'Connection terminated' } });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('batched requests are refused', async () => {
    const res = await post(url(), [{ query: '{ __typename }' }, { query: '{ __typename }' }]);
    expect(res.status).toBe(400);
    expect(res.text).not.toMatch(/stack|\.js:\d+/);
  });

  it('CSRF prevention: a GET without a preflight header is refused, with it the query runs', async () => {
    const q = encodeURIComponent('{ __typename }');
    expect((await request(`${url()}?query=${q}`)).status).toBe(400);
    expect((await request(`${url()}?query=${q}`, { headers: { 'apollo-require-preflight': 'true' } })).status).toBe(200);
  });

  it('outside production, introspection works and misspelt fields get suggestions', async () => {
    expect((await post(url(), { query: '{ __schema { queryType { name } } }' })).body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    expect((await post(url(), { query: '{ securitie { totalCount } }' })).body.errors?.[0]?.message).toMatch(/Did you mean/);
  });
});

/** A gateway query with the header that asks @apollo/gateway for its query plan. */
const askForQueryPlan = (gateway: string) =>
  request<{ extensions?: { __queryPlanExperimental?: string } }>(`${gateway}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'apollo-query-plan-experimental': '1' },
    body: JSON.stringify({ query: '{ security(symbol: "ACME") { symbol } }' }),
  });

it('outside production, the gateway shows the query plan of a request that asks for it', async () => {
  const res = await askForQueryPlan(platform.urls.gateway as string);
  expect(res.status).toBe(200);
  expect(res.body.extensions?.__queryPlanExperimental).toMatch(/Fetch\(service: "analysis"\)/);
});

it('an entity fetch (_entities) costs its representations times its selection', async () => {
  const representations = Array.from({ length: 2000 }, () => ({ __typename: 'Security', symbol: 'ACME' }));
  const query = 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Security { bars(first: 2000) { totalCount } } } }';
  const url = `${platform.urls.analysis}/graphql`;
  expectRefused(await post(url, { query, variables: { r: representations } }), 'QUERY_LIMIT_EXCEEDED', /cost/);
  const few = await post(url, { query, variables: { r: representations.slice(0, 3) } });
  expect(few.status).toBe(200);
  expect(few.body.errors).toBeUndefined();
});

/** `__schema { types { ofType { ... { name } } } }` or `__type(name:) { ofType { ... { name } } }`, `depth` fields deep. */
function ofTypeChain(root: '__schema' | '__type', depth: number): string {
  const head = root === '__schema' ? ['__schema', 'types'] : ['__type(name: "Query")'];
  const chain = [...head, ...Array.from({ length: depth - head.length - 1 }, () => 'ofType')];
  return `{ ${chain.map((field) => `${field} {`).join(' ')} name ${'} '.repeat(chain.length)}}`;
}

// Introspection counts toward the depth limit like any other field (issue "Production hardening",
// GraphQL depth limit); the standard introspection query of GraphiQL / graphql-js still runs outside
// production at the default GRAPHQL_MAX_DEPTH. DESIGN section 6 ("depth and cost limits").
describe('introspection depth at the default GRAPHQL_MAX_DEPTH (12)', () => {
  let defaults: RunningPlatform;
  beforeAll(async () => {
    defaults = await startPlatform(testConfig({ DEMO_DATA: 'false', ANALYZE_ON_START: 'false' }), ['analysis', 'gateway'], { db: store.db });
  });
  afterAll(async () => defaults?.close());

  it('the standard introspection query is 15 deep (its TypeRef nests ofType 9 times): that much is allowed', () => {
    expect(DEFAULT_GRAPHQL_LIMITS.maxDepth).toBe(12);
    expect(STANDARD_INTROSPECTION_DEPTH).toBe(15);
  });

  describe.each(['gateway', 'analysis'] as const)('on %s', (origin) => {
    const url = () => `${defaults.urls[origin]}/graphql`;

    it.each(['__schema', '__type'] as const)('a 45-deep %s ofType chain is 400 QUERY_LIMIT_EXCEEDED', async (root) => {
      expectRefused(await post(url(), { query: ofTypeChain(root, 45) }), 'QUERY_LIMIT_EXCEEDED', /introspection depth 45 exceeds the maximum of 15/);
      expectRefused(await post(url(), { query: ofTypeChain(root, 16) }), 'QUERY_LIMIT_EXCEEDED', /introspection depth 16 exceeds the maximum of 15/);
      const atMost = await post(url(), { query: ofTypeChain(root, 15) });
      expect(atMost.status).toBe(200);
      expect(atMost.body.errors).toBeUndefined();
    });

    it('an ofType chain hidden in fragments counts where it is spread', async () => {
      const fragments = Array.from({ length: 44 }, (_, i) => `fragment T${i} on __Type { name ${i < 43 ? `ofType { ...T${i + 1} }` : ''} }`).join(' ');
      expectRefused(await post(url(), { query: `{ __type(name: "Query") { ...T0 } } ${fragments}` }), 'QUERY_LIMIT_EXCEEDED', /introspection depth/);
    });

    it('the standard introspection query of GraphiQL / graphql-js still runs outside production', async () => {
      for (const query of [getIntrospectionQuery(), getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true })]) {
        const res = await post(url(), { query });
        expect(res.status).toBe(200);
        expect(res.body.errors).toBeUndefined();
        const schema = (res.body.data as { __schema: { queryType: { name: string }; types: unknown[] } }).__schema;
        expect(schema.queryType.name).toBe('Query');
        expect(schema.types.length).toBeGreaterThan(10);
      }
    });
  });
});

describe('in production', () => {
  let prod: RunningPlatform;
  beforeAll(async () => {
    const prodConfig = testConfig(PRODUCTION_ENV);
    prod = await startPlatform(prodConfig, ['analysis', 'gateway'], { db: store.db });
  });
  afterAll(async () => prod?.close());

  it('a subgraph does not serve its SDL (_service) either', async () => {
    const res = await post(`${prod.urls.analysis}/graphql`, { query: '{ _service { sdl } }' });
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(res.text).not.toMatch(/type Query|Security/);
  });

  it('the gateway does not show query plans, whatever NODE_ENV says', async () => {
    const res = await askForQueryPlan(prod.urls.gateway as string);
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/queryPlan|QueryPlan|Fetch\(service/);
  });

  it('introspection is off and errors name no fields of the schema', async () => {
    const url = `${prod.urls.analysis}/graphql`;
    const introspection = await post(url, { query: '{ __schema { queryType { name } } }' });
    expect(introspection.status).toBe(400);
    const misspelt = await post(url, { query: '{ securitie { totalCount } }' });
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.errors?.[0]?.message).not.toMatch(/Did you mean|securities/);
  });
});
