/**
 * Malformed or unsupported operations are client errors (4xx and a registry code), on the gateway and
 * on the subgraphs, never an INTERNAL_ERROR.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { ERROR_CODES } from '../../subgraphs/platform/errors.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request } from '../helpers/http.js';

let store: TestDb;
let platform: RunningPlatform;
let token: string;
const config = testConfig({ DEMO_DATA: 'false' });

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
  token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'p' });
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
});

type Body = { errors?: Array<{ message: string; extensions?: { code?: string } }> };
const post = (origin: 'gateway' | 'analysis' | 'search', body: unknown) =>
  request<Body>(`${platform.urls[origin]}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });

const CASES: Array<[string, unknown]> = [
  ['two operations without operationName', { query: 'query A { huntModes { mode } } query B { huntModes { mode } }' }],
  ['an unknown operationName', { query: 'query A { huntModes { mode } }', operationName: 'Nope' }],
  ['a mutation where the graph has none', { query: 'mutation { x }' }],
  ['a subscription', { query: 'subscription { x }' }],
  ['a query that is not a string', { query: 42 }],
  ['variables that are not an object', { query: '{ huntModes { mode } }', variables: 'x' }],
];

describe.each(['gateway', 'analysis', 'search'] as const)('on %s', (origin) => {
  it.each(CASES)('%s -> 400 with a client error code', async (_, body) => {
    const res = await post(origin, body);
    expect(res.status).toBe(400);
    const code = res.body.errors?.[0]?.extensions?.code ?? '';
    expect(code in ERROR_CODES).toBe(true);
    expect(ERROR_CODES[code as keyof typeof ERROR_CODES]).toBe(400);
    expect(res.text).not.toMatch(/INTERNAL_ERROR|stack|\.js:\d+/);
  });
});

it('a sector outside GICS is a validation error, even with control characters', async () => {
  for (const sector of ['Space Mining', '\u0000']) {
    const res = await post('gateway', { query: 'query ($s: String) { securities(sector: $s) { totalCount } }', variables: { s: sector } });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_FAILED');
  }
});

it('entity lookups with an unknown type or a malformed representation are client errors', async () => {
  for (const representations of [[{ __typename: 'Nope', symbol: 'ACME' }], ['not an object'], [{ __typename: 'Security' }]]) {
    const res = await post('analysis', { query: 'query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }', variables: { r: representations } });
    const code = res.body.errors?.[0]?.extensions?.code ?? '';
    expect(code).not.toBe('INTERNAL_ERROR');
    expect(ERROR_CODES[code as keyof typeof ERROR_CODES]).toBe(400);
  }
});
