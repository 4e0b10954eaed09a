/**
 * The analysis REST reads against the HTTP contract (spec "Analysis service", "AnalysisResultResponse",
 * "AnalysisLatestResult", "Authentication", "Errors", "Limits"; DESIGN section 5), over real HTTP on
 * port 0 with real signed partner tokens. Every status code, default and access rule of
 *   GET /api/v1/results/analysis/{symbol}        (partners)
 *   GET /api/v1/demo/results/analysis/{symbol}   (demo)
 * Expected values come from the stored documents themselves (read back through the store), never from
 * numbers the test knows in advance. Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
import type { FastifyInstance } from 'fastify';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { analysisServiceOf, buildAnalysisOrigin } from '../../app/origins.js';
import { memoizeVerifier } from '../../subgraphs/platform/authenticators.js';
import { AUTH_ONLY_RESULT_KEYS, PUBLIC_RESULT_KEYS } from '../../subgraphs/analysis/engine/document.js';
import { PRESENTATION_KEYS } from '../../subgraphs/analysis/engine/evidence/present.js';
import { presentSnapshot } from '../../subgraphs/analysis/engine/evidence/present.js';
import { evidenceTableFor } from '../../subgraphs/analysis/evidence-states.js';
import { AnalysisService, PUBLIC_PRESENTED_KEYS } from '../../subgraphs/analysis/service.js';
import {
  hasSnapshotsOn,
  latestRun,
  latestSnapshot,
  latestSnapshots,
  listSnapshots,
  recordRun,
  snapshotOn,
  snapshotSymbols,
  upsertSecurities,
  upsertSnapshots,
} from '../../subgraphs/analysis/store.js';
import { mintPartnerToken, type PartnerPrincipal } from '../../subgraphs/platform/auth.js';
import { AppError } from '../../subgraphs/platform/errors.js';
import type { Db } from '../../subgraphs/platform/db.js';
import { resolvePartnerAuth } from '../../subgraphs/platform/dev-secret.js';
import { seedAnalysis, type SeedResult } from '../helpers/analysis.js';
import { checkResponse, fetchOpenApi, templateFor, type OpenApiDocument } from '../helpers/openapi.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';
import { request, type JsonResponse } from '../helpers/http.js';

type Doc = Record<string, unknown>;
interface Envelope {
  success: boolean;
  timestamp: string;
  result: Doc | null;
  error: string | null;
  code?: string;
  trace_id?: string;
  details?: Array<{ field?: string; message: string }>;
}

const RESULT = '/api/v1/results/analysis';
const DEMO = '/api/v1/demo/results/analysis';
// The public subset: the spec's public keys and the presentation's evidence and calibration (DESIGN section 8).
const PUBLIC = new Set<string>(PUBLIC_PRESENTED_KEYS);
const AUTH_ONLY = new Set<string>(AUTH_ONLY_RESULT_KEYS);
const isoNow = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The error envelope: the platform error shape plus the spec's envelope fields, with x-trace-id. */
function expectErrorEnvelope(res: JsonResponse<Envelope>, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = res.body;
  expect(Object.keys(body).sort()).toEqual(['code', 'details', 'error', 'result', 'success', 'timestamp', 'trace_id']);
  expect(body.success).toBe(false);
  expect(body.result).toBeNull();
  expect(typeof body.error).toBe('string');
  expect((body.error as string).length).toBeGreaterThan(0);
  expect(body.code).toBe(code);
  expect(body.timestamp).toMatch(isoNow);
  expect(Array.isArray(body.details)).toBe(true);
  expect(typeof body.trace_id).toBe('string');
  expect(res.headers.get('x-trace-id')).toBe(body.trace_id);
  expect(res.text).not.toMatch(/\bat .+\.(ts|js):\d+|stack|node_modules/i);
}

describe.each(BACKENDS)('analysis REST contract on %s', (backend) => {
  const config = testConfig({ ANALYZE_ON_START: 'false', DEMO_SYMBOL_COUNT: '12' });
  let store: TestDb;
  let platform: RunningPlatform;
  let seed: SeedResult;
  let token: string;
  let other: string; // a seeded symbol that is not the demo symbol

  const mint = (over: Partial<Parameters<typeof mintPartnerToken>[0]> = {}) =>
    mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'partner-1', ...over });
  let openapi: OpenApiDocument;
  // Issue "Production hardening" item 6: every response must fit the origin's own OpenAPI document.
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await request<Envelope>(`${platform.urls.analysis}${path}`, { headers });
    // (Paths no route serves, 404 ROUTE_NOT_FOUND, are not in the document.)
    if (templateFor(openapi, path) && res.headers.get('content-type')?.includes('json')) checkResponse(openapi, 'GET', path, res.status, res.body);
    return res;
  };
  const partner = (path: string, headers: Record<string, string> = {}) => get(path, { authorization: `Bearer ${token}`, ...headers });
  const storedRaw = async (symbol: string, date?: string): Promise<Doc> => {
    const row = date ? await snapshotOn(store.db, symbol, date) : await latestSnapshot(store.db, symbol);
    if (!row) throw new Error(`no stored snapshot for ${symbol} ${date ?? '(latest)'}`);
    return JSON.parse(row.docText) as Doc;
  };
  // A read presents the stored document with the evidence table of its date (DESIGN section 8): calibrated
  // probabilities in place, evidence and calibration added.
  const stored = async (symbol: string, date?: string): Promise<Doc> => {
    const doc = await storedRaw(symbol, date);
    return presentSnapshot(doc, await evidenceTableFor(store.db, doc.analysis_date as string));
  };

  beforeAll(async () => {
    store = await openTestDb(backend);
    platform = await startPlatform(config, ['analysis'], { db: store.db });
    openapi = await fetchOpenApi(platform.urls.analysis as string);
    seed = await seedAnalysis(store.db);
    other = seed.symbols.find((s) => s !== config.demo.symbol) as string;
    token = await mint();
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
  });

  it('the seed gives the demo symbol and another symbol several dates', () => {
    expect(seed.symbols).toContain(config.demo.symbol);
    expect(other).toBeDefined();
    expect(seed.dates.length).toBeGreaterThanOrEqual(3);
    expect(seed.latestDate).toBe(seed.dates[seed.dates.length - 1]);
  });

  // DESIGN section 3: analysis_snapshots(symbol, analysis_date, doc jsonb, produced_at, pipeline_version), on both backends
  describe('snapshot store', () => {
    it('upserts are idempotent, and the later of two rows for one key wins', async () => {
      const row = await snapshotOn(store.db, other, seed.dates[0]);
      const doc = JSON.parse(row!.docText) as Doc;
      const rows = [
        { symbol: other, analysisDate: seed.dates[0], doc: JSON.stringify({ ...doc, confidence: 0.123 }), producedAt: row!.producedAt, pipelineVersion: row!.pipelineVersion },
        { symbol: other, analysisDate: seed.dates[0], doc: row!.docText, producedAt: row!.producedAt, pipelineVersion: row!.pipelineVersion },
      ];
      expect(await upsertSnapshots(store.db, rows)).toBe(1);
      expect(await upsertSnapshots(store.db, rows)).toBe(1);
      const again = await snapshotOn(store.db, other, seed.dates[0]);
      expect(JSON.parse(again!.docText)).toEqual(doc);
      expect(again!.producedAt).toBe(row!.producedAt);
      const [{ n }] = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM analysis_snapshots WHERE symbol = $1', [other]);
      expect(n).toBe(seed.dates.length);
    });

    it('reads the latest of many symbols in one statement, and lists a history by date', async () => {
      const many = await latestSnapshots(store.db, [...seed.symbols, 'ZZZZ']);
      expect(many.map((r) => r.symbol).sort()).toEqual([...seed.symbols].sort());
      for (const r of many) expect(r).toEqual(await latestSnapshot(store.db, r.symbol));
      const firstPage = await listSnapshots(store.db, other, { limit: 2 });
      expect(firstPage.total).toBe(seed.dates.length);
      expect(firstPage.items.map((r) => r.analysisDate)).toEqual(seed.dates.slice(0, 2));
      const nextPage = await listSnapshots(store.db, other, { after: seed.dates[1], limit: 2 });
      expect(nextPage.items.map((r) => r.analysisDate)).toEqual(seed.dates.slice(2, 4));
      expect(await hasSnapshotsOn(store.db, seed.latestDate)).toBe(true);
      expect(await hasSnapshotsOn(store.db, '2000-01-03')).toBe(false);
      const symbols = await snapshotSymbols(store.db);
      expect(symbols).toEqual(expect.arrayContaining(seed.symbols.map((symbol) => ({ symbol, latestDate: seed.latestDate }))));
    });

    it('records pipeline runs and returns the latest', async () => {
      const run = {
        startedAt: '2026-11-01T10:00:00.000Z',
        finishedAt: '2026-11-01T10:01:30.500Z',
        pipelineVersion: '1.0.0',
        fromDate: seed.dates[0],
        toDate: seed.latestDate,
        symbols: seed.symbols.length,
        snapshots: seed.symbols.length * seed.dates.length,
        model: { folds: 3, oosAuc: 0.55 },
        transitions: { total: 120 },
      };
      await recordRun(store.db, { ...run, finishedAt: '2026-11-01T10:00:30.000Z', model: undefined, transitions: null });
      await recordRun(store.db, run);
      const latest = await latestRun(store.db);
      expect(latest).toEqual({ ...run, id: expect.any(Number) });
    });
  });

  // spec "Analysis service: AnalysisResultResponse (envelope)": success, timestamp (server time), result, error
  describe('200 envelope', () => {
    it('has exactly success, timestamp, result and error, with their types', async () => {
      const before = Date.now();
      const res = await partner(`${RESULT}/${config.demo.symbol}`);
      const after = Date.now();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
      expect(Object.keys(res.body).sort()).toEqual(['error', 'result', 'success', 'timestamp']); // member order is not part of the contract
      expect(res.body.success).toBe(true);
      expect(res.body.error).toBeNull();
      expect(typeof res.body.result).toBe('object');
      expect(Array.isArray(res.body.result)).toBe(false);
      // "server time when the response was built; not necessarily the analysis run time"
      expect(res.body.timestamp).toMatch(isoNow);
      const t = Date.parse(res.body.timestamp);
      expect(t).toBeGreaterThanOrEqual(before - 5);
      expect(t).toBeLessThanOrEqual(after + 5);
      expect(res.body.timestamp).not.toBe(res.body.result?.analysis_timestamp);
    });

    it('timestamp is the time of each response, not a cached one', async () => {
      const a = await partner(`${RESULT}/${config.demo.symbol}`);
      await new Promise((r) => setTimeout(r, 15));
      const b = await partner(`${RESULT}/${config.demo.symbol}`);
      expect(Date.parse(b.body.timestamp)).toBeGreaterThan(Date.parse(a.body.timestamp));
      expect(b.body.result).toEqual(a.body.result);
    });
  });

  // spec "Analysis service": "omitted gives the latest stored document"; "historical slice ... to authenticated callers"
  describe('latest by default, date slice for partners', () => {
    it.each(['demo', 'other'] as const)('without date: the latest stored document (%s symbol)', async (which) => {
      const symbol = which === 'demo' ? config.demo.symbol : other;
      const res = await partner(`${RESULT}/${symbol}`);
      expect(res.status).toBe(200);
      expect(res.body.result).toEqual(await stored(symbol));
      expect(res.body.result?.analysis_date).toBe(seed.latestDate);
    });

    it('with date: exactly that date\'s snapshot, for every stored date', async () => {
      for (const date of seed.dates) {
        const res = await partner(`${RESULT}/${other}?date=${date}`);
        expect(res.status).toBe(200);
        expect(res.body.result?.analysis_date).toBe(date);
        expect(res.body.result).toEqual(await stored(other, date));
      }
      const older = await partner(`${RESULT}/${other}?date=${seed.dates[0]}`);
      const latest = await partner(`${RESULT}/${other}`);
      expect(older.body.result).not.toEqual(latest.body.result);
    });

    // spec "AnalysisLatestResult": risk_parameters, transition_probabilities authenticated only; DESIGN 3: extra keys pass through
    it('the partner result is the whole stored document: auth-only keys and every extra key', async () => {
      const res = await partner(`${RESULT}/${other}?date=${seed.dates[1]}`);
      const doc = await stored(other, seed.dates[1]);
      const keys = Object.keys(res.body.result ?? {});
      expect(keys.sort()).toEqual(Object.keys(doc).sort());
      for (const key of AUTH_ONLY_RESULT_KEYS) {
        expect(keys).toContain(key);
        expect(res.body.result?.[key]).toEqual(doc[key]);
      }
      const extras = Object.keys(doc).filter((k) => !PUBLIC.has(k) && !AUTH_ONLY.has(k));
      expect(extras.length).toBeGreaterThan(0);
      for (const key of extras) expect(res.body.result?.[key]).toEqual(doc[key]);
    });

    it('unknown query parameters are ignored', async () => {
      const res = await partner(`${RESULT}/${other}?limit=3&foo=bar&Date=2000-01-01`);
      expect(res.status).toBe(200);
      expect(res.body.result).toEqual(await stored(other));
    });
  });

  // DESIGN section 8 "evidence", "probabilities": every read carries evidence and calibration; with no
  // evidence table measured yet (this store has a few days of snapshots only) nothing is measured and no
  // probability is shown, the stored values being kept in calibration.raw.
  describe('evidence and calibration before any table is measured', () => {
    it('a partner read: evidence not_measured, confidence and ML probability null, raw values in calibration', async () => {
      for (const date of [seed.dates[0], seed.latestDate]) {
        const res = await partner(`${RESULT}/${other}?date=${date}`);
        const raw = await storedRaw(other, date);
        const result = res.body.result as Doc;
        expect(Object.keys(result).slice(-2)).toEqual([...PRESENTATION_KEYS]);
        expect(result.evidence).toEqual(expect.objectContaining({ as_of: null, status: 'not_measured', reason: expect.any(String), stage: null, signal: null }));
        expect(result.confidence).toBeNull();
        const calibration = result.calibration as Record<string, Doc>;
        expect(calibration.as_of).toBeNull();
        expect(calibration.confidence).toEqual(expect.objectContaining({ raw: raw.confidence, probability: null, reason: expect.any(String) }));
        expect(calibration.ml_probability_up.raw).toBe((raw.ml_signal as Doc | null)?.probability_up ?? null);
        expect(calibration.pattern_target.raw).toBe((raw.best_pattern as Doc | null)?.confidence ?? null);
        for (const p of (result.detected_patterns as Doc[] | null) ?? []) {
          expect(p.confidence).toBeNull();
          expect(typeof p.raw_confidence).toBe('number');
        }
      }
    });

    it('the demo subset carries evidence and calibration too, and its confidence is the presented one, not the stored one', async () => {
      const raw = await storedRaw(config.demo.symbol);
      expect(typeof raw.confidence).toBe('number');
      const res = await get(`${DEMO}/${config.demo.symbol}`);
      const result = res.body.result as Doc;
      const partnerRead = (await partner(`${RESULT}/${config.demo.symbol}`)).body.result as Doc;
      expect(result.evidence).toEqual(partnerRead.evidence);
      expect(result.calibration).toEqual(partnerRead.calibration);
      expect(result.confidence).toBeNull();
      expect(Object.keys(result).filter((k) => !PUBLIC_RESULT_KEYS.includes(k as never))).toEqual([...PRESENTATION_KEYS]);
    });
  });

  // spec "Analysis service" > Status codes: 404 no stored analysis for the symbol (or date)
  describe('404 ANALYSIS_NOT_FOUND', () => {
    it('an unknown symbol', async () => {
      const res = await partner(`${RESULT}/ZZZZ`);
      expectErrorEnvelope(res, 404, 'ANALYSIS_NOT_FOUND');
      expect(res.body.error).toMatch(/ZZZZ/);
    });

    it('a known security without any snapshot', async () => {
      await upsertSecurities(store.db, [{ symbol: 'NOAN', name: 'No Analysis Corp', sector: 'Energy', subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' }]);
      expectErrorEnvelope(await partner(`${RESULT}/NOAN`), 404, 'ANALYSIS_NOT_FOUND');
      expectErrorEnvelope(await partner(`${RESULT}/NOAN?date=${seed.latestDate}`), 404, 'ANALYSIS_NOT_FOUND');
    });

    it('a valid date with no snapshot (before or after the stored ones)', async () => {
      for (const date of ['2000-01-03', '2099-12-31']) {
        const res = await partner(`${RESULT}/${other}?date=${date}`);
        expectErrorEnvelope(res, 404, 'ANALYSIS_NOT_FOUND');
        expect(res.body.error).toContain(date);
        expect(res.body.details?.[0]).toEqual(expect.objectContaining({ field: 'date' }));
        expect(res.body.details?.[0].message).toContain(seed.latestDate);
      }
    });
  });

  // DESIGN section 5 (validation is a 400 in the error shape); spec "date ... YYYY-MM-DD"
  describe('400 VALIDATION_FAILED', () => {
    it.each(['2026-13-01', '2026-02-30', '20261030', '2026-1-5', 'yesterday', '', '2026-10-30T00:00:00Z'])('malformed date %p', async (date) => {
      const res = await partner(`${RESULT}/${other}?date=${encodeURIComponent(date)}`);
      expectErrorEnvelope(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details?.[0]).toEqual(expect.objectContaining({ field: 'date' }));
    });

    it('date given twice', async () => {
      const res = await partner(`${RESULT}/${other}?date=${seed.dates[0]}&date=${seed.dates[1]}`);
      expectErrorEnvelope(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details?.[0]).toEqual({ field: 'date', message: expect.stringMatching(/at most once/) });
    });

    it.each(['AC$ME', 'A B', '../etc/passwd', 'TOOLONGSYMBOL1', '1ACME', 'ÄCME', '-'])('malformed symbol %p', async (symbol) => {
      const res = await partner(`${RESULT}/${encodeURIComponent(symbol)}`);
      expectErrorEnvelope(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details?.[0]).toEqual(expect.objectContaining({ field: 'symbol' }));
    });
  });

  it('symbols are trimmed and upper-cased', async () => {
    const expected = await stored(config.demo.symbol);
    for (const raw of ['  acme ', 'acme', 'Acme']) {
      const res = await partner(`${RESULT}/${encodeURIComponent(raw)}`);
      expect(res.status).toBe(200);
      expect(res.body.result).toEqual(expected);
    }
  });

  // spec "Authentication": Bearer <ACCESS_TOKEN>; "Errors": 401 analysis read, missing or invalid authentication
  describe('401 UNAUTHENTICATED', () => {
    const cases: Array<[string, () => Promise<Record<string, string>>]> = [
      ['no Authorization header', async () => ({})],
      ['a header that is not Bearer', async () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
      ['a token that is not a JWT', async () => ({ authorization: 'Bearer not-a-jwt' })],
      ['an expired token', async () => ({ authorization: `Bearer ${await mint({ expiresIn: -3600 })}` })],
      ['a token for another audience (allocation)', async () => ({ authorization: `Bearer ${await mint({ audience: config.auth.audiences.allocation })}` })],
      ['a token from another issuer', async () => ({ authorization: `Bearer ${await mint({ issuer: 'someone-else' })}` })],
      ['a token signed with another secret', async () => ({ authorization: `Bearer ${await mint({ secret: 'x'.repeat(48) })}` })],
    ];
    it.each(cases)('%s -> 401 with a Bearer challenge', async (_, headers) => {
      const res = await get(`${RESULT}/${config.demo.symbol}`, await headers());
      expectErrorEnvelope(res, 401, 'UNAUTHENTICATED');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
      expect(res.text).not.toMatch(/JWS|JWT|jose/);
    });

    it('authentication is checked before the symbol and the date', async () => {
      expectErrorEnvelope(await get(`${RESULT}/${encodeURIComponent('AC$ME')}`), 401, 'UNAUTHENTICATED');
      expectErrorEnvelope(await get(`${RESULT}/ZZZZ?date=nope`), 401, 'UNAUTHENTICATED');
    });
  });

  // spec "Analysis service" > Demo mode; DESIGN section 5 "analysis demo route"; spec "Limits": one fixed symbol, always latest
  describe('demo route', () => {
    const expectedPublic = async () => {
      const doc = await stored(config.demo.symbol);
      return Object.fromEntries(PUBLIC_PRESENTED_KEYS.filter((k) => k in doc).map((k) => [k, doc[k]]));
    };

    it('serves the demo symbol without a token: the envelope with exactly the public subset', async () => {
      const res = await get(`${DEMO}/${config.demo.symbol}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['error', 'result', 'success', 'timestamp']); // member order is not part of the contract
      expect(res.body.success).toBe(true);
      expect(res.body.error).toBeNull();
      expect(res.body.timestamp).toMatch(isoNow);
      const expected = await expectedPublic();
      expect(res.body.result).toEqual(expected);
      const keys = Object.keys(res.body.result ?? {});
      for (const key of keys) expect(PUBLIC.has(key)).toBe(true);
      for (const key of AUTH_ONLY_RESULT_KEYS) expect(keys).not.toContain(key);
      const full = await stored(config.demo.symbol);
      const extras = Object.keys(full).filter((k) => !PUBLIC.has(k) && !AUTH_ONLY.has(k));
      expect(extras.length).toBeGreaterThan(0);
      for (const key of extras) expect(keys).not.toContain(key);
    });

    it('ignores date (always the latest), even a malformed or repeated one', async () => {
      const expected = await expectedPublic();
      for (const query of [`date=${seed.dates[0]}`, 'date=garbage', `date=${seed.dates[0]}&date=${seed.dates[1]}`, 'foo=1']) {
        const res = await get(`${DEMO}/${config.demo.symbol}?${query}`);
        expect(res.status).toBe(200);
        expect(res.body.result).toEqual(expected);
        expect(res.body.result?.analysis_date).toBe(seed.latestDate);
      }
    });

    it('gives the public subset with a partner token too (the route itself is public)', async () => {
      const res = await partner(`${DEMO}/${config.demo.symbol}`);
      expect(res.status).toBe(200);
      expect(res.body.result).toEqual(await expectedPublic());
    });

    it('normalises the symbol', async () => {
      const res = await get(`${DEMO}/${encodeURIComponent(' acme ')}`);
      expect(res.status).toBe(200);
      expect(res.body.result).toEqual(await expectedPublic());
    });

    it('refuses any other symbol with 403 FORBIDDEN, with or without a token', async () => {
      for (const symbol of [other, 'ZZZZ']) {
        const res = await get(`${DEMO}/${symbol}`);
        expectErrorEnvelope(res, 403, 'FORBIDDEN');
        expect(res.body.error).toContain(config.demo.symbol);
        expectErrorEnvelope(await partner(`${DEMO}/${symbol}`), 403, 'FORBIDDEN');
      }
    });

    it('a malformed symbol is 400', async () => {
      expectErrorEnvelope(await get(`${DEMO}/${encodeURIComponent('AC$ME')}`), 400, 'VALIDATION_FAILED');
    });
  });

  // DESIGN section 5: trace id honoured and echoed; error bodies never carry a stack
  it('honours an incoming x-trace-id on success and error responses', async () => {
    const ok = await partner(`${RESULT}/${config.demo.symbol}`, { 'x-trace-id': 'client-trace-7' });
    expect(ok.headers.get('x-trace-id')).toBe('client-trace-7');
    const bad = await get(`${RESULT}/ZZZZ`, { 'x-trace-id': 'client-trace-8' });
    expectErrorEnvelope(bad, 401, 'UNAUTHENTICATED');
    expect(bad.body.trace_id).toBe('client-trace-8');
  });

  it('other routes keep the plain platform error shape', async () => {
    const res = await get('/api/v1/results/analysis');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('ROUTE_NOT_FOUND');
  });

  // spec "Analysis service" > Status codes: 500 server error (masked); DESIGN 5 503 when the database is down
  describe('server errors', () => {
    const origins: FastifyInstance[] = [];
    afterAll(async () => {
      for (const app of origins) await app.close();
    });

    /** An analysis origin whose store fails every snapshot query with `error`. */
    async function failingOrigin(error: () => Error): Promise<string> {
      const db: Db = {
        ...store.db,
        query: async <T>(sql: string, params?: readonly unknown[]) => {
          if (sql.includes('analysis_snapshots')) throw error();
          return store.db.query<T>(sql, params);
        },
      };
      const app = await buildAnalysisOrigin({ config, partnerAuth: resolvePartnerAuth(config), db });
      origins.push(app);
      return app.listen({ host: '127.0.0.1', port: 0 });
    }

    it('an unexpected failure is 500 INTERNAL_ERROR with a masked message', async () => {
      const url = await failingOrigin(() => new Error('relation "secret_internal_table" does not exist'));
      const res = await request<Envelope>(`${url}${RESULT}/${config.demo.symbol}`, { headers: { authorization: `Bearer ${token}` } });
      expectErrorEnvelope(res, 500, 'INTERNAL_ERROR');
      expect(res.body.error).toBe('Internal server error');
      expect(res.text).not.toContain('secret_internal_table');
      expectErrorEnvelope(await request<Envelope>(`${url}${DEMO}/${config.demo.symbol}`), 500, 'INTERNAL_ERROR');
    });

    it('a lost database connection is 503 SERVICE_UNAVAILABLE', async () => {
      const url = await failingOrigin(() => Object.assign(new Error('Connection terminated unexpectedly'), { code: '57P01' }));
      const res = await request<Envelope>(`${url}${RESULT}/${config.demo.symbol}`, { headers: { authorization: `Bearer ${token}` } });
      expectErrorEnvelope(res, 503, 'SERVICE_UNAVAILABLE');
    });
  });

  // README "Analysis snapshots" > freshness: the latest document is cached for the TTL unless invalidated
  describe('latest-snapshot cache', () => {
    const origins: FastifyInstance[] = [];
    afterAll(async () => {
      for (const app of origins) await app.close();
    });

    async function originWith(service: AnalysisService): Promise<string> {
      const app = await buildAnalysisOrigin({ config, partnerAuth: resolvePartnerAuth(config), db: store.db }, { service });
      origins.push(app);
      expect(analysisServiceOf(app)).toBe(service);
      return app.listen({ host: '127.0.0.1', port: 0 });
    }

    it('serves a cached latest document until invalidateSnapshots(), and reads through with TTL 0', async () => {
      const symbol = 'CACHE';
      await upsertSecurities(store.db, [{ symbol, name: 'Cache Test Corp', sector: 'Energy', subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' }]);
      const cacheSeed = await seedAnalysis(store.db, { symbols: [symbol], days: 2 });
      const cached = new AnalysisService(store.db, config.demo.symbol, { snapshotCacheTtlMs: 60_000 });
      const uncached = new AnalysisService(store.db, config.demo.symbol, { snapshotCacheTtlMs: 0 });
      const [cachedUrl, uncachedUrl] = [await originWith(cached), await originWith(uncached)];
      const read = async (url: string) =>
        (await request<Envelope>(`${url}${RESULT}/${symbol}`, { headers: { authorization: `Bearer ${token}` } })).body.result?.analysis_date;

      expect(await read(cachedUrl)).toBe(cacheSeed.latestDate);
      expect(await read(uncachedUrl)).toBe(cacheSeed.latestDate);

      // The pipeline stores a newer snapshot (a copy of the latest under the next day).
      const next = new Date(Date.parse(`${cacheSeed.latestDate}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      const doc = { ...(await storedRaw(symbol)), analysis_date: next };
      await upsertSnapshots(store.db, [{ symbol, analysisDate: next, doc: JSON.stringify(doc), producedAt: new Date().toISOString(), pipelineVersion: 'test' }]);

      expect(await read(uncachedUrl)).toBe(next);
      expect(await read(cachedUrl)).toBe(cacheSeed.latestDate); // stale within the TTL, as documented
      cached.invalidateSnapshots([symbol]);
      expect(await read(cachedUrl)).toBe(next);
    });

    it('a cached latest document is read again once the TTL has passed', async () => {
      const symbol = 'TTLX';
      await upsertSecurities(store.db, [{ symbol, name: 'TTL Test Corp', sector: 'Energy', subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' }]);
      await seedAnalysis(store.db, { symbols: [symbol], days: 2 });
      let now = 1_000_000;
      const service = new AnalysisService(store.db, config.demo.symbol, { snapshotCacheTtlMs: 5_000, now: () => now });
      const partnerPrincipal: PartnerPrincipal = { kind: 'partner', partnerId: 'p', claims: {} };
      const latestDate = async () => (JSON.parse(await service.partnerResultText(partnerPrincipal, symbol)) as Doc).analysis_date;
      const before = await latestDate();
      const next = new Date(Date.parse(`${before as string}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      const doc = { ...(await storedRaw(symbol)), analysis_date: next };
      await upsertSnapshots(store.db, [{ symbol: symbol, analysisDate: next, doc: JSON.stringify(doc), producedAt: new Date().toISOString(), pipelineVersion: 'test' }]);
      now += 4_999;
      expect(await latestDate()).toBe(before);
      now += 2;
      expect(await latestDate()).toBe(next);
    });

    it("a security's profile is kept for the same TTL, and invalidateSnapshots forgets it", async () => {
      const symbol = 'PROF';
      const write = (name: string) => upsertSecurities(store.db, [{ symbol, name, sector: 'Energy', subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' }]);
      await write('Profile Corp');
      let now = 1_000_000;
      const service = new AnalysisService(store.db, config.demo.symbol, { snapshotCacheTtlMs: 5_000, now: () => now });
      const partnerPrincipal: PartnerPrincipal = { kind: 'partner', partnerId: 'p', claims: {} };
      const name = async () => (await service.getSecurity(partnerPrincipal, symbol))?.name;
      expect(await name()).toBe('Profile Corp');
      await write('Profile Corp (renamed)');
      now += 4_999;
      expect(await name()).toBe('Profile Corp');
      now += 2;
      expect(await name()).toBe('Profile Corp (renamed)');
      await write('Profile Corp (again)');
      service.invalidateSnapshots([symbol]);
      expect(await name()).toBe('Profile Corp (again)');
      // TTL 0: every read asks the store.
      const uncached = new AnalysisService(store.db, config.demo.symbol, { snapshotCacheTtlMs: 0 });
      await write('Profile Corp (live)');
      expect((await uncached.getSecurity(partnerPrincipal, symbol))?.name).toBe('Profile Corp (live)');
    });
  });
});

// The analysis origin remembers verified partner tokens (README "Analysis snapshots" > Freshness): never past
// their exp, at most maxAgeMs, failures never remembered, bounded in size.
describe('verified-token memo', () => {
  const principal = (exp: number): PartnerPrincipal => ({ kind: 'partner', partnerId: 'p', claims: { exp } });

  it('re-verifies after maxAgeMs and never trusts a token past its exp', async () => {
    let now = 1_000_000_000_000;
    let calls = 0;
    let exp = now / 1000 + 3600;
    const verify = memoizeVerifier(async () => (calls++, principal(exp)), { maxAgeMs: 60_000, maxTokens: 10, now: () => now });
    await verify('t1');
    await verify('t1');
    expect(calls).toBe(1);
    now += 60_001;
    await verify('t1');
    expect(calls).toBe(2);

    exp = now / 1000 + 10; // expires in 10 s: remembered for 10 s only
    await verify('t2');
    now += 9_000;
    await verify('t2');
    expect(calls).toBe(3);
    now += 1_001;
    await verify('t2');
    expect(calls).toBe(4);
  });

  it('does not remember refusals', async () => {
    let calls = 0;
    const verify = memoizeVerifier(
      async () => {
        calls++;
        throw new AppError('UNAUTHENTICATED', 'Invalid access token');
      },
      { maxAgeMs: 60_000, maxTokens: 10 },
    );
    await expect(verify('bad')).rejects.toThrow('Invalid access token');
    await expect(verify('bad')).rejects.toThrow('Invalid access token');
    expect(calls).toBe(2);
  });

  it('holds at most maxTokens, dropping the oldest', async () => {
    const seen: string[] = [];
    const verify = memoizeVerifier(async (t) => (seen.push(t), principal(Date.now() / 1000 + 3600)), { maxAgeMs: 60_000, maxTokens: 2 });
    for (const t of ['a', 'b', 'c', 'b', 'a']) await verify(t);
    expect(seen).toEqual(['a', 'b', 'c', 'a']);
  });
});
