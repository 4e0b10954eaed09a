/**
 * The origins' fast lane (platform/http.ts FastLane) over real HTTP on port 0: the cached partner and
 * demo analysis reads and the anonymous demo optimize answered before Fastify must be the full path's
 * answers, byte for byte and header for header, and never stale:
 *   - the bytes equal a fresh serialisation (an uncached service's result in the envelope; the demo
 *     optimize computed again) and the Fastify route's answer to the same request;
 *   - If-None-Match answers 304 with the same headers as the Fastify route's;
 *   - a new analysis day (the pipeline invalidating the cache) and a new universe version change the bytes;
 *   - a budget the request would exceed, a body that is not the demo body's bytes, and an Origin the
 *     CORS rule refuses take the full path (429, 400 DEMO_BODY_MISMATCH, no CORS headers);
 *   - browsers' requests (Accept-Encoding, an allowed Origin) are answered by the lane with the Fastify
 *     route's headers and encoding, the compressed bytes decoding to the identity body; a cached read's
 *     compressed bytes are its prefix compressed once and the timestamp appended (cors.ts SplicedBody).
 * Requests go out through node:http with exactly the headers given; `fastLane.served` tells which path
 * answered.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { SplicedBody } from '../../subgraphs/platform/compression.js';
import { CORS_EXPOSED_HEADERS } from '../../subgraphs/platform/cors.js';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { analysisServiceOf } from '../../app/origins.js';
import { AllocationService, DEMO_OPTIMIZE_BODY, DEMO_OPTIMIZE_BODY_BYTES } from '../../subgraphs/allocation/service.js';
import { AnalysisService } from '../../subgraphs/analysis/service.js';
import { latestSnapshot, upsertSnapshots } from '../../subgraphs/analysis/store.js';
import { mintPartnerToken, type Principal } from '../../subgraphs/platform/auth.js';
import { seedAnalysis, type SeedResult } from '../helpers/analysis.js';
import { storeEdgeOdds } from '../helpers/kelly-odds.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';

const RESULT = '/api/v1/results/analysis';
const DEMO = '/api/v1/demo/results/analysis';
const OPTIMIZE = '/api/v1/portfolios/optimize';

const ALLOWED_ORIGIN = 'https://app.example';
const REFUSED_ORIGIN = 'https://elsewhere.example';
const config = testConfig({ ANALYZE_ON_START: 'false', DEMO_SYMBOL_COUNT: '12', ALLOCATION_UNIVERSE_TTL_MS: '0', RATE_LIMIT_PARTNERS: 'tiny=2', CORS_ORIGINS: ALLOWED_ORIGIN });
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let store: TestDb;
let platform: RunningPlatform;
let seed: SeedResult;
let token: string;
const PARTNER: Principal = { kind: 'partner', partnerId: 'partner-1', claims: { sub: 'partner-1' } };

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request with exactly these headers (none added but Host and Connection), on a kept-alive connection. */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: Buffer } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers, ...(options.body ? { 'content-length': String(options.body.length) } : {}) };
    const req = http.request(url, { method: options.method ?? 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const lane = (origin: 'analysis' | 'allocation') => platform.apps[origin]!.fastLane;
/** The request's answer and whether the fast lane sent it. */
async function via(origin: 'analysis' | 'allocation', path: string, options: Parameters<typeof raw>[1] = {}): Promise<Raw & { lane: boolean }> {
  const before = lane(origin).served;
  const res = await raw(`${platform.urls[origin]}${path}`, options);
  return { ...res, lane: lane(origin).served === before + 1 };
}

/** The headers two answers must share: everything but the date and the budget's count and reset. */
function comparable(headers: http.IncomingHttpHeaders): Record<string, unknown> {
  const { date: _date, 'ratelimit-remaining': _remaining, 'ratelimit-reset': _reset, ...rest } = headers;
  return rest;
}

/** The body as sent, decoded from its Content-Encoding. */
function decoded(res: Raw): Buffer {
  const coding = res.headers['content-encoding'];
  return coding === 'gzip' ? zlib.gunzipSync(res.body) : coding === 'br' ? zlib.brotliDecompressSync(res.body) : res.body;
}
const timestampOf = (body: Buffer) => /,"error":null,"timestamp":"([^"]+)"\}$/.exec(body.toString('utf8'))?.[1] ?? 'none';
const envelopeHead = (text: string) => Buffer.from(`{"success":true,"result":${text},"error":null,"timestamp":"`, 'utf8');
const envelopeTail = (timestamp: string) => Buffer.from(`${timestamp}"}`, 'latin1');
const envelope = (timestamp: string, text: string) => Buffer.concat([envelopeHead(text), envelopeTail(timestamp)]);
/** A service without a cache: the result as it is serialised afresh. */
const fresh = () => new AnalysisService(store.db, config.demo.symbol, { snapshotCacheTtlMs: 0 });

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis', 'allocation'], { db: store.db });
  const equities = await store.db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' ORDER BY symbol");
  seed = await seedAnalysis(store.db, { symbols: equities.map((r) => r.symbol), days: 2 });
  await storeEdgeOdds(store.db);
  token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'partner-1' });
});
afterAll(async () => {
  agent.destroy();
  await platform?.close();
  await store?.drop();
});

/**
 * Stores a snapshot one day after each symbol's latest (a new analysis day) and, like the pipeline,
 * drops the cached latest; returns the newest date stored.
 */
async function storeNextDay(symbols: readonly string[]): Promise<string> {
  let next = '';
  for (const symbol of symbols) {
    const row = (await latestSnapshot(store.db, symbol))!;
    const day = new Date(Date.parse(`${row.analysisDate}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const doc = { ...(JSON.parse(row.docText) as Record<string, unknown>), analysis_date: day };
    await upsertSnapshots(store.db, [{ symbol, analysisDate: day, doc: JSON.stringify(doc), producedAt: new Date().toISOString(), pipelineVersion: row.pipelineVersion }]);
    if (day > next) next = day;
  }
  analysisServiceOf(platform.apps.analysis!)!.invalidateSnapshots(symbols);
  return next;
}

describe('analysis reads', () => {
  const symbol = () => config.demo.symbol;
  const partner = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, 'x-trace-id': 'lane-trace-1', ...extra });

  it('a cached partner read is the fresh serialisation and the Fastify route answer, header for header', async () => {
    await via('analysis', `${RESULT}/${symbol()}`, { headers: partner() }); // fills the cache (full path)
    const fast = await via('analysis', `${RESULT}/${symbol()}`, { headers: partner() });
    const full = await via('analysis', `${RESULT}/${symbol()}?via=fastify`, { headers: partner() });
    expect([fast.lane, full.lane]).toEqual([true, false]);
    expect(fast.status).toBe(200);
    const expected = envelope(timestampOf(fast.body), (await fresh().partnerResult(PARTNER, symbol())).text);
    expect(fast.body.equals(expected)).toBe(true);
    expect(fast.body.toString().replace(timestampOf(fast.body), '')).toBe(full.body.toString().replace(timestampOf(full.body), ''));
    expect(comparable(fast.headers)).toEqual(comparable(full.headers));
    expect(fast.headers['x-trace-id']).toBe('lane-trace-1');
    expect(Number(fast.headers['ratelimit-remaining'])).toBe(Number(full.headers['ratelimit-remaining']) + 1);
  });

  it('a cached demo read is the fresh public serialisation and the Fastify route answer', async () => {
    await via('analysis', `${DEMO}/${symbol()}`);
    const fast = await via('analysis', `${DEMO}/${symbol()}?date=2000-01-01`, { headers: { 'x-trace-id': 'lane-demo' } });
    // The demo route ignores tokens; one sends the request to the full path.
    const full = await via('analysis', `${DEMO}/${symbol()}`, { headers: { 'x-trace-id': 'lane-demo', authorization: `Bearer ${token}` } });
    expect([fast.lane, full.lane]).toEqual([true, false]);
    expect(fast.body.equals(envelope(timestampOf(fast.body), (await fresh().demoResult(symbol())).text))).toBe(true);
    expect(fast.body.toString().replace(timestampOf(fast.body), '')).toBe(full.body.toString().replace(timestampOf(full.body), ''));
    expect(comparable(fast.headers)).toEqual(comparable(full.headers));
  });

  it('If-None-Match answers 304 with the Fastify route headers, whatever the Accept-Encoding and Origin', async () => {
    const first = await via('analysis', `${RESULT}/${symbol()}`, { headers: partner() });
    const etag = String(first.headers.etag);
    for (const extra of [{}, { 'accept-encoding': 'gzip, deflate, br, zstd', origin: ALLOWED_ORIGIN }] as Array<Record<string, string>>) {
      const headers = partner({ 'if-none-match': `"x", ${etag}`, ...extra });
      const fast = await via('analysis', `${RESULT}/${symbol()}`, { headers });
      const full = await via('analysis', `${RESULT}/${symbol()}?via=fastify`, { headers });
      expect([fast.status, fast.lane, full.status, full.lane]).toEqual([304, true, 304, false]);
      expect(fast.body.length).toBe(0);
      expect(fast.headers['content-encoding']).toBeUndefined();
      expect(fast.headers.etag).toBe(etag);
      expect(comparable(fast.headers)).toEqual(comparable(full.headers));
    }
  });

  it('a new analysis day is served at once, never the previous bytes', async () => {
    const before = await via('analysis', `${RESULT}/${symbol()}`, { headers: partner() });
    const day = await storeNextDay([symbol()]);
    await via('analysis', `${RESULT}/${symbol()}`, { headers: partner() }); // the miss reads the store
    const after = await via('analysis', `${RESULT}/${symbol()}`, { headers: partner() });
    expect(after.lane).toBe(true);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(JSON.parse(after.body.toString()).result.analysis_date).toBe(day);
    expect(after.body.equals(envelope(timestampOf(after.body), (await fresh().partnerResult(PARTNER, symbol())).text))).toBe(true);
  });

  it('a cached result expires with the cache TTL: the lane asks the service, which no longer holds it', async () => {
    let now = 1_000;
    const service = new AnalysisService(store.db, config.demo.symbol, { snapshotCacheTtlMs: 50, now: () => now });
    await service.partnerResult(PARTNER, symbol());
    expect(service.cachedPartnerResult(PARTNER, symbol())?.text).toBe((await fresh().partnerResult(PARTNER, symbol())).text);
    expect(service.cachedPartnerResult({ kind: 'anonymous' }, symbol())).toBeUndefined();
    now += 50;
    expect(service.cachedPartnerResult(PARTNER, symbol())).toBeUndefined();
  });

  it('a request over its budget takes the full path and gets 429', async () => {
    const tiny = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'tiny' });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await via('analysis', `${RESULT}/${symbol()}`, { headers: { authorization: `Bearer ${tiny}` } }));
    expect(answers.map((a) => [a.status, a.lane])).toEqual([
      [200, true],
      [200, true],
      [429, false],
    ]);
    expect(JSON.parse(answers[2].body.toString())).toMatchObject({ success: false, result: null, code: 'RATE_LIMITED' });
  });
});

describe('demo optimize', () => {
  const post = (body: Buffer, headers: Record<string, string> = {}) =>
    via('allocation', OPTIMIZE, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-trace-id': 'lane-optimize', ...headers } });
  /** The answer without its per-call id and time. */
  const stable = (body: Buffer) => body.toString().replace(/"(portfolio_id|created_at)":"[^"]*"/g, '');
  const computed = async () =>
    (await new AllocationService(store.db, { universeTtlMs: 0 }).optimizeBody({ kind: 'anonymous' }, JSON.parse(DEMO_OPTIMIZE_BODY_BYTES.toString()), { traceId: 'lane-optimize', naming: 'rest' })).responseText;

  it('the demo body bytes are answered with the computed demo answer, as the Fastify route answers the same document', async () => {
    const fast = await post(DEMO_OPTIMIZE_BODY_BYTES);
    const full = await post(Buffer.from(JSON.stringify(DEMO_OPTIMIZE_BODY, null, 1)));
    expect([fast.status, fast.lane, full.status, full.lane]).toEqual([200, true, 200, false]);
    expect(stable(fast.body)).toBe(stable(Buffer.from(await computed())));
    expect(stable(fast.body)).toBe(stable(full.body));
    expect(JSON.parse(fast.body.toString()).trace_id).toBe('lane-optimize');
    expect(comparable(fast.headers)).toEqual(comparable(full.headers));
    expect(fast.headers['ratelimit-limit']).toBe(String(config.rateLimit.expensiveMax));
  });

  it('a body of the same length that is not the demo body is put back for the full path, on a connection that stays usable', async () => {
    const other = Buffer.from(DEMO_OPTIMIZE_BODY_BYTES.toString().replace('"max_positions":10', '"max_positions":11'));
    expect(other.length).toBe(DEMO_OPTIMIZE_BODY_BYTES.length);
    const refused = await post(other);
    expect([refused.status, refused.lane, JSON.parse(refused.body.toString()).code]).toEqual([400, false, 'DEMO_BODY_MISMATCH']);
    const next = await post(DEMO_OPTIMIZE_BODY_BYTES);
    expect([next.status, next.lane]).toEqual([200, true]);
  });

  it('a new universe version changes the answer', async () => {
    const before = await post(DEMO_OPTIMIZE_BODY_BYTES);
    const day = await storeNextDay(seed.symbols);
    const after = await post(DEMO_OPTIMIZE_BODY_BYTES);
    expect(after.lane).toBe(true);
    expect(JSON.parse(before.body.toString()).analysis_date).not.toBe(day);
    expect(JSON.parse(after.body.toString()).analysis_date).toBe(day);
    expect(stable(after.body)).toBe(stable(Buffer.from(await computed())));
  });
});

describe('browsers: compression and CORS on the lane and the Fastify route alike', () => {
  type Answer = Raw & { lane: boolean };
  type Call = (headers: Record<string, string>) => Promise<Answer>;
  /** Accept-Encoding values and the coding each gets (undefined: sent as it is). */
  const CODINGS: ReadonlyArray<readonly [string, 'gzip' | 'br' | undefined]> = [
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip;q=0, br', 'br'],
    ['identity', undefined],
    ['gzip, deflate, br, zstd', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
  ];
  const symbol = () => config.demo.symbol;
  const stable = (body: Buffer) => body.toString().replace(/"(portfolio_id|created_at)":"[^"]*"/g, '');

  /**
   * For every coding, without Origin and with the allowed one: the lane answers, with the Fastify
   * route's status and headers (CORS, Vary, Content-Encoding, length), bytes `rebuild` makes again
   * from the decoded body, and a decoded body `check` accepts; a refused Origin goes to Fastify and
   * gets no CORS header.
   */
  async function expectAlike(
    fast: Call,
    full: Call,
    rebuild: (identity: Buffer, coding: 'gzip' | 'br' | 'identity') => Buffer,
    check: (identity: Buffer) => void,
    sameLength = true,
  ): Promise<void> {
    const alike = (headers: http.IncomingHttpHeaders) => {
      const { 'content-length': length, ...rest } = comparable(headers);
      return sameLength ? { ...rest, 'content-length': length } : rest;
    };
    for (const [acceptEncoding, coding] of CODINGS) {
      for (const origin of [undefined, ALLOWED_ORIGIN]) {
        const headers = { 'accept-encoding': acceptEncoding, 'x-trace-id': 'lane-browser', ...(origin ? { origin } : {}) };
        const a = await fast(headers);
        const b = await full(headers);
        expect([a.status, a.lane, b.status, b.lane]).toEqual([200, true, 200, false]);
        expect(alike(a.headers)).toEqual(alike(b.headers));
        expect(a.headers['content-encoding']).toBe(coding);
        expect(a.headers.vary).toBe(coding ? 'Origin, accept-encoding' : 'Origin');
        expect(a.headers['access-control-allow-origin']).toBe(origin);
        if (origin) expect(a.headers['access-control-expose-headers']).toBe(CORS_EXPOSED_HEADERS.join(', '));
        for (const res of [a, b]) {
          expect(Number(res.headers['content-length'])).toBe(res.body.length);
          const identity = decoded(res);
          expect(res.body.equals(rebuild(identity, coding ?? 'identity'))).toBe(true);
          check(identity);
        }
      }
    }
    const refused = await fast({ 'accept-encoding': 'gzip', 'x-trace-id': 'lane-browser', origin: REFUSED_ORIGIN });
    expect([refused.status, refused.lane, refused.headers['content-encoding'], refused.headers['access-control-allow-origin']]).toEqual([200, false, 'gzip', undefined]);
    check(decoded(refused));
  }

  /** An analysis envelope's encoded bytes again, from a fresh serialisation and the answer's timestamp. */
  const envelopeRebuilt = (text: string) => (identity: Buffer, coding: 'gzip' | 'br' | 'identity') =>
    new SplicedBody(envelopeHead(text)).encode(coding, envelopeTail(timestampOf(identity)));
  const envelopeCheck = (text: string) => (identity: Buffer) => {
    expect(identity.equals(envelope(timestampOf(identity), text))).toBe(true);
    const json = JSON.parse(identity.toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(['error', 'result', 'success', 'timestamp']);
    expect([json.success, json.error, typeof json.result]).toEqual([true, null, 'object']);
    expect(new Date(String(json.timestamp)).toISOString()).toBe(json.timestamp);
  };

  it('partner read', async () => {
    const partner = (extra: Record<string, string>) => ({ authorization: `Bearer ${token}`, ...extra });
    await via('analysis', `${RESULT}/${symbol()}`, { headers: partner({}) });
    const text = (await fresh().partnerResult(PARTNER, symbol())).text;
    await expectAlike(
      (headers) => via('analysis', `${RESULT}/${symbol()}`, { headers: partner(headers) }),
      (headers) => via('analysis', `${RESULT}/${symbol()}?via=fastify`, { headers: partner(headers) }),
      envelopeRebuilt(text),
      envelopeCheck(text),
    );
  });

  it('demo read', async () => {
    await via('analysis', `${DEMO}/${symbol()}`);
    const text = (await fresh().demoResult(symbol())).text;
    await expectAlike(
      (headers) => via('analysis', `${DEMO}/${symbol()}`, { headers }),
      // The demo route ignores tokens; one sends the request to the full path.
      (headers) => via('analysis', `${DEMO}/${symbol()}`, { headers: { ...headers, authorization: `Bearer ${token}` } }),
      envelopeRebuilt(text),
      envelopeCheck(text),
    );
  });

  it('demo optimize', async () => {
    const post = (body: Buffer) => (headers: Record<string, string>) =>
      via('allocation', OPTIMIZE, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    const computed = (await new AllocationService(store.db, { universeTtlMs: 0 }).optimizeBody({ kind: 'anonymous' }, JSON.parse(DEMO_OPTIMIZE_BODY_BYTES.toString()), { traceId: 'lane-browser', naming: 'rest' })).responseText;
    expect(Buffer.byteLength(computed)).toBeGreaterThan(1024); // over the compression threshold
    await expectAlike(
      post(DEMO_OPTIMIZE_BODY_BYTES),
      post(Buffer.from(JSON.stringify(DEMO_OPTIMIZE_BODY, null, 1))),
      (identity, coding) => (coding === 'identity' ? identity : coding === 'gzip' ? zlib.gzipSync(identity) : zlib.brotliCompressSync(identity, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length } })),
      (identity) => expect(stable(identity)).toBe(stable(Buffer.from(computed))),
      // Each answer has its own id and time: compressed, their lengths may differ by a byte.
      false,
    );
  });
});
