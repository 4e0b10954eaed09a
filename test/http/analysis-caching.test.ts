/**
 * HTTP caching of the analysis REST reads (rest-compat/analysis-routes.ts), over real HTTP on port 0
 * against the real analysis origin and store: every 200 carries an ETag (the same for the same result)
 * and the route's Cache-Control (partner reads private, no-cache; the demo read public, max-age=60);
 * If-None-Match with that tag (weakly compared, in a list, or `*`) answers 304 with no body, the same
 * headers and x-trace-id; a new analysis day (or a new evidence table) gives 200 with another tag;
 * errors carry no ETag. The OpenAPI document lists the headers and the 304.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { analysisServiceOf } from '../../app/origins.js';
import { PIPELINE_VERSION } from '../../subgraphs/analysis/engine/document.js';
import { insertEvidenceTables, latestSnapshot, upsertSnapshots } from '../../subgraphs/analysis/store.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { seedAnalysis, type SeedResult } from '../helpers/analysis.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request } from '../helpers/http.js';

const RESULT = '/api/v1/results/analysis';
const DEMO = '/api/v1/demo/results/analysis';
const EVIDENCE = '/api/v1/analysis/evidence';

const config = testConfig({ ANALYZE_ON_START: 'false', DEMO_SYMBOL_COUNT: '12' });
let store: TestDb;
let platform: RunningPlatform;
let seed: SeedResult;
let token: string;

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis'], { db: store.db });
  seed = await seedAnalysis(store.db, { symbols: [config.demo.symbol], days: 3 });
  token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'partner-1' });
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
});

const get = (path: string, headers: Record<string, string> = {}) => request(`${platform.urls.analysis}${path}`, { headers });
const partner = (path: string, headers: Record<string, string> = {}) => get(path, { authorization: `Bearer ${token}`, ...headers });
const opaque = (tag: string) => tag.replace(/^W\//, '');

/** Stores a snapshot one day after the symbol's latest (a new analysis day) and drops the cached latest. */
async function storeNextDay(symbol: string): Promise<void> {
  const row = (await latestSnapshot(store.db, symbol))!;
  const next = new Date(Date.parse(`${row.analysisDate}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const doc = { ...(JSON.parse(row.docText) as Record<string, unknown>), analysis_date: next };
  await upsertSnapshots(store.db, [{ symbol, analysisDate: next, doc: JSON.stringify(doc), producedAt: new Date().toISOString(), pipelineVersion: row.pipelineVersion }]);
  analysisServiceOf(platform.apps.analysis!)!.invalidateSnapshots([symbol]);
}

describe.each([
  ['partner latest read', () => `${RESULT}/${config.demo.symbol}`, partner, 'private, no-cache'],
  ['partner dated read', () => `${RESULT}/${config.demo.symbol}?date=${seed.dates[0]}`, partner, 'private, no-cache'],
  ['demo read', () => `${DEMO}/${config.demo.symbol}`, get, 'public, max-age=60'],
] as const)('%s', (_, path, read, cacheControl) => {
  it('carries a stable ETag and its Cache-Control; If-None-Match answers 304 with no body', async () => {
    const first = await read(path());
    const second = await read(path());
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    expect(second.headers.get('etag')).toBe(etag);
    expect(first.headers.get('cache-control')).toBe(cacheControl);

    for (const condition of [etag, opaque(etag), `W/${opaque(etag)}`, `"nope", ${etag}`, '*']) {
      const res = await read(path(), { 'if-none-match': condition });
      expect(res.status).toBe(304);
      expect(res.text).toBe('');
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('cache-control')).toBe(cacheControl);
      expect(res.headers.get('x-trace-id')).toBeTruthy();
    }
    const other = await read(path(), { 'if-none-match': '"something-else", W/"another"' });
    expect(other.status).toBe(200);
    expect(other.headers.get('etag')).toBe(etag);
    expect((other.body as { success?: boolean }).success).toBe(true);
  });
});

it('partner and demo reads of one symbol have different tags (different bytes)', async () => {
  const full = await partner(`${RESULT}/${config.demo.symbol}`);
  const demo = await get(`${DEMO}/${config.demo.symbol}`);
  expect(full.headers.get('etag')).not.toBe(demo.headers.get('etag'));
});

it('a new analysis day changes the latest tags: revalidation answers 200 with the new document and tag', async () => {
  const symbol = config.demo.symbol;
  const full = await partner(`${RESULT}/${symbol}`);
  const demo = await get(`${DEMO}/${symbol}`);
  const dated = await partner(`${RESULT}/${symbol}?date=${seed.latestDate}`);
  await storeNextDay(symbol);

  const fullAfter = await partner(`${RESULT}/${symbol}`, { 'if-none-match': full.headers.get('etag') as string });
  expect(fullAfter.status).toBe(200);
  expect(fullAfter.headers.get('etag')).not.toBe(full.headers.get('etag'));
  expect((fullAfter.body as { result: { analysis_date: string } }).result.analysis_date > seed.latestDate).toBe(true);

  const demoAfter = await get(`${DEMO}/${symbol}`, { 'if-none-match': demo.headers.get('etag') as string });
  expect(demoAfter.status).toBe(200);
  expect(demoAfter.headers.get('etag')).not.toBe(demo.headers.get('etag'));

  // The snapshot of an earlier date is unchanged by a new day.
  const datedAfter = await partner(`${RESULT}/${symbol}?date=${seed.latestDate}`, { 'if-none-match': dated.headers.get('etag') as string });
  expect(datedAfter.status).toBe(304);
});

it('the evidence route: ETag, private Cache-Control, 304, and a new tag when a newer table is stored', async () => {
  // Tables dated after every snapshot: no read is presented with them, the evidence route returns the latest.
  await insertEvidenceTables(store.db, PIPELINE_VERSION, [{ asOf: '2999-01-29', json: JSON.stringify({ as_of: '2999-01-29', states: [] }) }]);
  const first = await partner(EVIDENCE);
  expect(first.status).toBe(200);
  const etag = first.headers.get('etag') as string;
  expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
  expect(first.headers.get('cache-control')).toBe('private, no-cache');
  const again = await partner(EVIDENCE, { 'if-none-match': etag });
  expect(again.status).toBe(304);
  expect(again.text).toBe('');
  expect(again.headers.get('etag')).toBe(etag);

  await insertEvidenceTables(store.db, PIPELINE_VERSION, [{ asOf: '2999-02-26', json: JSON.stringify({ as_of: '2999-02-26', states: [] }) }]);
  const after = await partner(EVIDENCE, { 'if-none-match': etag });
  expect(after.status).toBe(200);
  expect(after.headers.get('etag')).not.toBe(etag);
});

it('errors carry no ETag and never answer 304', async () => {
  for (const res of [
    await get(`${RESULT}/${config.demo.symbol}`, { 'if-none-match': '*' }), // 401
    await partner(`${RESULT}/NOPE`, { 'if-none-match': '*' }), // 404
    await partner(`${RESULT}/${config.demo.symbol}?date=2026-13-01`, { 'if-none-match': '*' }), // 400
    await get(`${DEMO}/NOPE`, { 'if-none-match': '*' }), // 403
  ]) {
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.get('etag')).toBeNull();
    expect((res.body as { success?: boolean }).success).toBe(false);
  }
});

it('the OpenAPI document lists the ETag and Cache-Control headers and the 304 of each read', async () => {
  type Op = { responses: Record<string, { headers?: Record<string, unknown>; content?: unknown }> };
  const doc = (await get('/openapi.json')).body as { paths: Record<string, { get: Op }> };
  const paths = Object.keys(doc.paths).filter((p) => p.startsWith(RESULT) || p.startsWith(DEMO) || p === EVIDENCE);
  expect(paths).toHaveLength(3);
  for (const p of paths) {
    const { responses } = doc.paths[p]!.get;
    for (const status of ['200', '304']) expect(Object.keys(responses[status]?.headers ?? {})).toEqual(expect.arrayContaining(['cache-control', 'etag']));
    expect(responses['304']?.content).toBeUndefined();
    expect(Object.keys(responses['404']?.headers ?? {})).not.toContain('etag');
  }
});
