/**
 * Automatic persisted queries (APQ), the way Apollo clients use them, on the gateway and on a subgraph:
 * a hash the server does not know answers PERSISTED_QUERY_NOT_FOUND (message "PersistedQueryNotFound"),
 * the client then sends the query with its hash, and from then on the hash alone runs the query.
 */
import { createHash } from 'node:crypto';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { ERROR_CODES } from '../../subgraphs/platform/errors.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request } from '../helpers/http.js';

let store: TestDb;
let platform: RunningPlatform;
const config = testConfig({ DEMO_DATA: 'false' });

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
});

type Body = { data?: Record<string, unknown>; errors?: Array<{ message: string; extensions?: { code?: string } }> };
const post = (origin: 'gateway' | 'analysis', body: unknown) =>
  request<Body>(`${platform.urls[origin]}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe.each(['gateway', 'analysis'] as const)('on %s', (origin) => {
  it('a miss answers PERSISTED_QUERY_NOT_FOUND, then the query registers its hash, then the hash alone runs it', async () => {
    // Unique per origin and run, so no earlier registration can answer.
    const query = `query Apq_${origin} { security(symbol: "${config.demo.symbol}") { symbol } }`;
    const persistedQuery = { version: 1, sha256Hash: createHash('sha256').update(query).digest('hex') };

    const miss = await post(origin, { extensions: { persistedQuery } });
    expect(miss.body.data).toBeUndefined();
    expect(miss.body.errors).toHaveLength(1);
    expect(miss.body.errors?.[0]?.message).toBe('PersistedQueryNotFound');
    expect(miss.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(miss.status).toBe(ERROR_CODES.PERSISTED_QUERY_NOT_FOUND);

    const register = await post(origin, { query, extensions: { persistedQuery } });
    expect(register.status).toBe(200);
    expect(register.body.errors).toBeUndefined();
    expect(register.body.data).toEqual({ security: null }); // no market data is stored

    const hit = await post(origin, { extensions: { persistedQuery } });
    expect(hit.status).toBe(200);
    expect(hit.body.errors).toBeUndefined();
    expect(hit.body.data).toEqual(register.body.data);
  });
});
