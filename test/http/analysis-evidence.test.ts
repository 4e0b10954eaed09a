/**
 * Evidence in every snapshot read, end to end (DESIGN section 8 "evidence", "probabilities"; the analysis
 * read of spec "Analysis service" with its extra keys): the real pipeline analyses a sampled history of the
 * synthetic demo market, the store's as-of evidence tables are computed (evidence-states.ts), and every
 * snapshot read over REST and GraphQL (real HTTP on port 0, real partner tokens) carries
 * - `evidence`: the record, in the table with the greatest as_of <= the snapshot's date, of the snapshot's
 *   own state (stage with strength, rules signal, sata bucket, best pattern type), with that as_of and
 *   universe; no table -> not_measured;
 * - calibrated probabilities in place (the table's calibrator applied to the stored value, the stored one in
 *   calibration.raw / raw_confidence), null when not measured: the rules confidence by the calibrator of the
 *   rules signal, enhanced_signal.confidence by the one of the enhanced signal;
 * and the partner route GET /api/v1/analysis/evidence (and GraphQL evidenceTable) returns the whole table.
 * Every response is checked against the origin's OpenAPI document. Expected values come from the store
 * (the stored documents and tables), never from numbers known in advance.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { calibrate } from '../../subgraphs/analysis/engine/evidence/calibration.js';
import type { EvidenceTable } from '../../subgraphs/analysis/engine/evidence/state-evidence.js';
import { PIPELINE_VERSION } from '../../subgraphs/analysis/engine/document.js';
import { evidenceTableFor, refreshEvidenceTables } from '../../subgraphs/analysis/evidence-states.js';
import { runAnalysis } from '../../subgraphs/analysis/pipeline.js';
import { AnalysisService } from '../../subgraphs/analysis/service.js';
import * as store from '../../subgraphs/analysis/store.js';
import { mintPartnerToken, type PartnerPrincipal } from '../../subgraphs/platform/auth.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';
import { graphql, request } from '../helpers/http.js';
import { checkResponse, fetchOpenApi, templateFor, type OpenApiDocument } from '../helpers/openapi.js';

type Doc = Record<string, unknown>;
interface Envelope {
  success: boolean;
  result: Doc | null;
  error: string | null;
  code?: string;
  details?: Array<{ field?: string; message: string }>;
}

const RESULT = '/api/v1/results/analysis';
const DEMO_ROUTE = '/api/v1/demo/results/analysis';
const EVIDENCE = '/api/v1/analysis/evidence';
/** Sampled history: every 5th trading day of the last HISTORY_DAYS. */
const HISTORY_DAYS = 200;
const EVERY = 5;

/** The state labels of a stored document, worked out here from its fields (states.ts label rules). */
function labels(doc: Doc): Record<'stage' | 'signal' | 'sata_bucket' | 'best_pattern', string | null> {
  const sata = ((doc.indicators as Doc | null)?.sata_score ?? (doc.stage_detail as Doc | null)?.sata_score ?? null) as number | null;
  return {
    stage: doc.stage === null ? null : doc.stage_strength === null ? (doc.stage as string) : `${doc.stage as string} ${doc.stage_strength as string}`,
    signal: (doc.signal as string | null) ?? null,
    sata_bucket: sata === null ? null : sata <= 3 ? '0-3' : sata <= 6 ? '4-6' : '7-10',
    best_pattern: ((doc.best_pattern as Doc | null)?.type as string | undefined) ?? null,
  };
}

/** What `evidence` must be for a stored document and the table of its date. */
function expectedEvidence(doc: Doc, table: EvidenceTable | null): Doc {
  if (table === null) return expect.objectContaining({ as_of: null, status: 'not_measured', reason: expect.any(String), universe: null, stage: null, signal: null, sata_bucket: null, best_pattern: null }) as Doc;
  const out: Doc = { as_of: table.as_of, status: 'measured', reason: null, pipeline_version: table.pipeline_version, universe: table.universe };
  for (const [output, label] of Object.entries(labels(doc)) as Array<[keyof EvidenceTable['states'], string | null]>) {
    const record = label === null ? undefined : table.states[output][label];
    const none = { value: null, ci: null };
    out[output] = label === null ? null : record === undefined ? { state: label, n: 0, dates: 0, hit_rate: none, mean_excess_20d: none, mean_excess_60d: none } : { state: label, ...record };
  }
  return out;
}

describe.each(BACKENDS)('evidence in snapshot reads on %s', (backend) => {
  const config = testConfig({ ANALYZE_ON_START: 'false', DEMO_SYMBOL_COUNT: '16', DEMO_YEARS: '2' });
  let db: TestDb;
  let platform: RunningPlatform;
  let openapi: OpenApiDocument;
  let token: string;
  let symbols: string[];
  let dates: string[];
  let asOfs: string[];
  const partnerPrincipal: PartnerPrincipal = { kind: 'partner', partnerId: 'p', claims: {} };
  // A service whose latest documents stay cached 5 s on a fake clock, read before the tables exist.
  let clock = 1_000_000;
  let cached: AnalysisService;
  let cachedBefore: Doc;

  const get = async (path: string, auth = true) => {
    const res = await request<Envelope>(`${platform.urls.analysis}${path}`, { headers: auth ? { authorization: `Bearer ${token}` } : {} });
    if (templateFor(openapi, path)) checkResponse(openapi, 'GET', path, res.status, res.body);
    return res;
  };
  const rawDoc = async (symbol: string, date: string): Promise<Doc> => JSON.parse((await store.snapshotOn(db.db, symbol, date))!.docText) as Doc;
  const tableOf = (date: string) => evidenceTableFor(db.db, date);

  beforeAll(async () => {
    db = await openTestDb(backend);
    platform = await startPlatform(config, ['analysis', 'gateway'], { db: db.db });
    openapi = await fetchOpenApi(platform.urls.analysis as string);
    token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'partner-e' });
    const calendar = (await db.db.query<{ date: string }>('SELECT DISTINCT date::text AS date FROM bars ORDER BY date')).map((r) => r.date);
    await runAnalysis(db.db, config.marketIndexSymbol, { from: calendar[calendar.length - HISTORY_DAYS], to: calendar[calendar.length - 1], every: EVERY, workers: 0 });
    symbols = (await store.snapshotSymbols(db.db)).map((s) => s.symbol).sort();
    dates = [...new Set((await store.listSnapshots(db.db, config.demo.symbol, { limit: 1000 })).items.map((s) => s.analysisDate))];

    cached = new AnalysisService(db.db, config.demo.symbol, { snapshotCacheTtlMs: 5_000, now: () => clock });
    cachedBefore = JSON.parse(await cached.partnerResultText(partnerPrincipal, config.demo.symbol)) as Doc;

    const refreshed = await refreshEvidenceTables(db.db, { replicates: 100 });
    asOfs = await store.evidenceTableDates(db.db, PIPELINE_VERSION);
    expect(refreshed.computed).toEqual(asOfs);
  }, 600_000);
  afterAll(async () => {
    await platform?.close();
    await db?.drop();
  });

  it('the history spans months before and after the first table, so reads with and without evidence both occur', () => {
    expect(symbols.length).toBeGreaterThan(10);
    expect(asOfs.length).toBeGreaterThanOrEqual(3);
    expect(dates[0] < asOfs[0]).toBe(true);
    expect(dates[dates.length - 1] >= asOfs[asOfs.length - 1]).toBe(true);
  });

  it('REST dated reads: evidence is the record of the snapshot\'s own state in the table with the greatest as_of <= its date', async () => {
    let measured = 0;
    let calibrated = 0;
    let enhancedCalibrated = 0;
    for (const date of dates) {
      const res = await get(`${RESULT}/${config.demo.symbol}?date=${date}`);
      expect(res.status).toBe(200);
      const result = res.body.result as Doc;
      const raw = await rawDoc(config.demo.symbol, date);
      const table = await tableOf(date);
      const evidence = result.evidence as Doc;
      expect(evidence).toEqual(expectedEvidence(raw, table));
      if (table !== null) {
        measured++;
        expect(table.as_of <= date).toBe(true);
        expect(table.as_of).toBe(asOfs.filter((a) => a <= date).pop());
      }
      // Calibrated in place with the table's calibrator of the snapshot's signal; raw kept.
      const calibration = result.calibration as Record<string, Doc>;
      expect(calibration.as_of).toBe(table?.as_of ?? null);
      expect(calibration.confidence.raw).toBe(raw.confidence);
      const signal = raw.signal as 'BUY' | 'SELL' | 'HOLD' | null;
      const calibrator = table && signal ? table.probabilities.confidence[signal].calibrator : null;
      const expected = calibrator && typeof raw.confidence === 'number' ? calibrate(calibrator, raw.confidence) : null;
      expect(result.confidence).toBe(expected);
      expect(calibration.confidence.probability).toBe(expected);
      if (expected !== null) calibrated++;
      // The enhanced signal's confidence: the table's calibrator of the snapshot's enhanced signal; raw kept.
      const enhanced = raw.enhanced_signal as Doc | null;
      const presented = result.enhanced_signal as Doc | null;
      if (enhanced) {
        const enhancedCalibrator = table?.probabilities.enhanced_confidence?.[enhanced.signal as 'BUY' | 'SELL' | 'HOLD'].calibrator ?? null;
        const expectedEnhanced = enhancedCalibrator && typeof enhanced.confidence === 'number' ? calibrate(enhancedCalibrator, enhanced.confidence) : null;
        expect(presented).toEqual({ ...enhanced, confidence: expectedEnhanced, raw_confidence: enhanced.confidence });
        expect(calibration.enhanced_confidence).toMatchObject({ raw: enhanced.confidence, probability: expectedEnhanced });
        if (expectedEnhanced === null) expect(calibration.enhanced_confidence.reason).toEqual(expect.any(String));
        else enhancedCalibrated++;
        if (table !== null) expect(table.probabilities.enhanced_confidence).toBeDefined();
      } else {
        expect(presented).toBeNull();
      }
      const patternCalibrator = table?.probabilities.pattern_target.calibrator ?? null;
      const best = raw.best_pattern as Doc | null;
      if (best) {
        expect((result.best_pattern as Doc).raw_confidence).toBe(best.confidence);
        expect((result.best_pattern as Doc).confidence).toBe(patternCalibrator ? calibrate(patternCalibrator, best.confidence as number) : null);
      }
      // Everything else is the stored document's.
      expect(result.risk_parameters).toEqual(raw.risk_parameters);
      expect(result.stage).toEqual(raw.stage);
    }
    expect(measured).toBeGreaterThan(0);
    expect(measured).toBeLessThan(dates.length);
    expect(calibrated).toBeGreaterThan(0);
    expect(enhancedCalibrated).toBeGreaterThan(0);
  });

  it('every symbol\'s latest read carries the latest table\'s evidence for its own state', async () => {
    for (const symbol of symbols) {
      const res = await get(`${RESULT}/${symbol}`);
      const result = res.body.result as Doc;
      const raw = await rawDoc(symbol, result.analysis_date as string);
      expect(result.evidence).toEqual(expectedEvidence(raw, await tableOf(raw.analysis_date as string)));
      expect((result.evidence as Doc).as_of! <= (result.analysis_date as string)).toBe(true);
    }
  });

  it('the demo route serves the same evidence and calibrated confidence, never the stored confidence', async () => {
    const demo = (await get(`${DEMO_ROUTE}/${config.demo.symbol}`, false)).body.result as Doc;
    const partner = (await get(`${RESULT}/${config.demo.symbol}`)).body.result as Doc;
    expect(demo.evidence).toEqual(partner.evidence);
    expect(demo.calibration).toEqual(partner.calibration);
    expect(demo.confidence).toBe(partner.confidence);
    expect(demo).not.toHaveProperty('risk_parameters');
  });

  it('a latest document cached before the tables existed shows them once the cache TTL has passed', async () => {
    expect((cachedBefore.evidence as Doc).status).toBe('not_measured');
    const read = async () => JSON.parse(await cached.partnerResultText(partnerPrincipal, config.demo.symbol)) as Doc;
    clock += 4_999;
    expect(((await read()).evidence as Doc).status).toBe('not_measured');
    clock += 2;
    const after = await read();
    expect((after.evidence as Doc).status).toBe('measured');
    expect((after.evidence as Doc).as_of).toBe(asOfs[asOfs.length - 1]);
  });

  describe('GET /api/v1/analysis/evidence', () => {
    it('without date: the latest table, whole (states and calibrations with reliability deciles)', async () => {
      const res = await get(EVIDENCE);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['error', 'result', 'success', 'timestamp']); // member order is not part of the contract
      const latest = await tableOf(asOfs[asOfs.length - 1]);
      expect(res.body.result).toEqual(JSON.parse(JSON.stringify(latest)));
      const withMetrics = Object.values((res.body.result as unknown as EvidenceTable).probabilities.confidence).find((p) => p.metrics !== null);
      expect(withMetrics?.metrics?.reliability).toHaveLength(10);
    });

    it('with date: the table a snapshot of that date uses (greatest as_of <= date)', async () => {
      for (const date of [asOfs[0], asOfs[1], dates[dates.length - 1]]) {
        const res = await get(`${EVIDENCE}?date=${date}`);
        expect(res.status).toBe(200);
        expect(res.body.result?.as_of).toBe(asOfs.filter((a) => a <= date).pop());
      }
      const between = (await get(`${EVIDENCE}?date=${dates.find((d) => d > asOfs[0] && d < asOfs[1])}`)).body.result;
      expect(between?.as_of).toBe(asOfs[0]);
    });

    it('404 NOT_FOUND before the first table, 400 VALIDATION_FAILED for a malformed date, 401 without a token', async () => {
      const before = await get(`${EVIDENCE}?date=${dates[0]}`);
      expect(before.status).toBe(404);
      expect(before.body.code).toBe('NOT_FOUND');
      expect(before.body.result).toBeNull();
      expect(before.body.details?.[0]).toEqual({ field: 'date', message: expect.stringContaining(asOfs[0]) });
      for (const bad of ['2026-02-30', 'yesterday', '']) {
        const res = await get(`${EVIDENCE}?date=${encodeURIComponent(bad)}`);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
      const anonymous = await get(EVIDENCE, false);
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe('UNAUTHENTICATED');
    });
  });

  describe('GraphQL', () => {
    const FIELDS = `analysisDate confidence
      bestPattern { type confidence rawConfidence }
      evidence { asOf status reason pipelineVersion universe { symbols firstDate lastDate benchmark }
        stage { state n dates hitRate { value ci } meanExcess20d { value ci } meanExcess60d { value ci } }
        signal { state n } sataBucket { state n } bestPattern { state n targetFirst { value ci n placebo } } }
      enhancedSignal { signal score confidence rawConfidence rulesWeight mlWeight weights { rules { weight reason } ml { weight reason } } reasons }
      calibration { asOf confidence { raw probability event method n brier ece reason } enhancedConfidence { raw probability event method n brier ece reason } mlProbabilityUp { raw probability } patternTarget { raw probability } }`;
    const auth = () => ({ authorization: `Bearer ${token}` });

    it('Security.snapshots and analysis carry the REST read\'s evidence and calibration, typed', async () => {
      const res = await graphql<{ security: { snapshots: { nodes: Array<Doc> } } }>(
        `${platform.urls.gateway}/graphql`,
        `query ($s: String!) { security(symbol: $s) { snapshots(first: 100) { nodes { ${FIELDS} } } } }`,
        { s: config.demo.symbol },
        auth(),
      );
      expect(res.body.errors).toBeUndefined();
      const nodes = res.body.data!.security.snapshots.nodes;
      expect(nodes.map((n) => n.analysisDate)).toEqual(dates);
      for (const node of nodes) {
        const rest = (await get(`${RESULT}/${config.demo.symbol}?date=${node.analysisDate as string}`)).body.result as Doc;
        const e = rest.evidence as Record<string, Doc | null>;
        const g = node.evidence as Record<string, Doc | null>;
        expect(g.asOf).toBe(e.as_of);
        expect(g.status).toBe((e.status as unknown) === 'measured' ? 'MEASURED' : 'NOT_MEASURED');
        expect(g.universe).toEqual(e.universe && { symbols: e.universe.symbols, firstDate: e.universe.first_date, lastDate: e.universe.last_date, benchmark: e.universe.benchmark });
        expect(g.stage).toEqual(
          e.stage && {
            state: e.stage.state,
            n: e.stage.n,
            dates: e.stage.dates,
            hitRate: e.stage.hit_rate,
            meanExcess20d: e.stage.mean_excess_20d,
            meanExcess60d: e.stage.mean_excess_60d,
          },
        );
        expect(g.bestPattern?.targetFirst ?? null).toEqual((e.best_pattern?.target_first as Doc | undefined) ?? null);
        expect(node.confidence).toBe(rest.confidence);
        const c = rest.calibration as Record<string, Doc>;
        expect((node.calibration as Record<string, Doc>).confidence).toEqual(c.confidence);
        expect((node.calibration as Record<string, Doc>).enhancedConfidence).toEqual(c.enhanced_confidence);
        const es = rest.enhanced_signal as Doc | null;
        expect(node.enhancedSignal).toEqual(
          es && {
            signal: es.signal,
            score: es.score,
            confidence: es.confidence,
            rawConfidence: es.raw_confidence ?? null,
            rulesWeight: es.rules_weight,
            mlWeight: es.ml_weight,
            weights: es.weights ?? null,
            reasons: es.reasons,
          },
        );
        expect(node.bestPattern).toEqual(rest.best_pattern && { type: (rest.best_pattern as Doc).type, confidence: (rest.best_pattern as Doc).confidence, rawConfidence: (rest.best_pattern as Doc).raw_confidence });
        if (e.as_of !== null) expect((e.as_of as unknown as string) <= (node.analysisDate as string)).toBe(true);
      }
    });

    it('evidenceTable(date): the REST route\'s table; null before the first; partners only', async () => {
      const q = `query ($d: String) { evidenceTable(date: $d) { asOf pipelineVersion universe { symbols } states { output record { state n } }
        probabilities { name signal event n baseRate method metrics { n brier ece reliability { low high n meanPredicted observedRate } } } } }`;
      const res = await graphql<{ evidenceTable: Doc }>(`${platform.urls.gateway}/graphql`, q, { d: dates[dates.length - 1] }, auth());
      expect(res.body.errors).toBeUndefined();
      const t = res.body.data!.evidenceTable as { asOf: string; states: Array<{ output: string; record: { state: string; n: number } }>; probabilities: Array<Doc> };
      const table = (await tableOf(dates[dates.length - 1])) as EvidenceTable;
      expect(t.asOf).toBe(table.as_of);
      expect(t.states).toEqual(
        (['stage', 'signal', 'sata_bucket', 'best_pattern'] as const).flatMap((output) => Object.entries(table.states[output]).map(([state, r]) => ({ output, record: { state, n: r.n } }))),
      );
      expect(t.probabilities.map((p) => [p.name, p.signal, p.n])).toEqual([
        ['confidence', 'BUY', table.probabilities.confidence.BUY.n],
        ['confidence', 'SELL', table.probabilities.confidence.SELL.n],
        ['confidence', 'HOLD', table.probabilities.confidence.HOLD.n],
        ...(['BUY', 'SELL', 'HOLD'] as const).map((signal) => ['enhanced_confidence', signal, table.probabilities.enhanced_confidence?.[signal].n]),
        ['ml_probability_up', null, table.probabilities.ml_probability_up.n],
        ['pattern_target', null, table.probabilities.pattern_target.n],
      ]);
      const none = await graphql(`${platform.urls.gateway}/graphql`, q, { d: dates[0] }, auth());
      expect(none.body).toEqual({ data: { evidenceTable: null } });
      const anonymous = await graphql(`${platform.urls.gateway}/graphql`, q, {});
      expect(anonymous.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    });
  });
});
