/**
 * Analysis snapshots over GraphQL: the analysis subgraph directly and through the real gateway, with
 * and without a partner token. The rules are the REST read's (they live in AnalysisService): partners
 * get the whole document and any date; callers without a token get the demo symbol only, always the
 * latest snapshot, public fields only (spec "Analysis service" > Demo mode; DESIGN sections 5 and 6).
 * Expected values are the stored documents' own (read back through the store) and the REST answers.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { PIPELINE_VERSION } from '../../subgraphs/analysis/engine/document.js';
import { presentSnapshot } from '../../subgraphs/analysis/engine/evidence/present.js';
import { evidenceTableFor } from '../../subgraphs/analysis/evidence-states.js';
import { PUBLIC_PRESENTED_KEYS } from '../../subgraphs/analysis/service.js';
import { runAnalysis } from '../../subgraphs/analysis/pipeline.js';
import { latestSnapshot, snapshotOn, upsertSecurities, upsertSnapshots } from '../../subgraphs/analysis/store.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { seedAnalysis, type SeedResult } from '../helpers/analysis.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { graphql, request } from '../helpers/http.js';

type Doc = Record<string, unknown>;

let store: TestDb;
let platform: RunningPlatform;
let seed: SeedResult;
let token: string;
let other: string;
const config = testConfig({ ANALYZE_ON_START: 'false', DEMO_SYMBOL_COUNT: '12' });
const DEMO = config.demo.symbol;

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
  seed = await seedAnalysis(store.db);
  other = seed.symbols.find((s) => s !== DEMO) as string;
  token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'partner-9' });
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
});

const subgraph = () => `${platform.urls.analysis}/graphql`;
const gateway = () => `${platform.urls.gateway}/graphql`;
const withToken = () => ({ authorization: `Bearer ${token}` });

/** The stored document as a read presents it (with the evidence table of its date; DESIGN section 8). */
async function stored(symbol: string, date?: string): Promise<Doc> {
  const row = date ? await snapshotOn(store.db, symbol, date) : await latestSnapshot(store.db, symbol);
  if (!row) throw new Error(`no stored snapshot for ${symbol}`);
  return presentSnapshot(JSON.parse(row.docText) as Doc, await evidenceTableFor(store.db, row.analysisDate));
}
const publicSubset = (doc: Doc): Doc => Object.fromEntries(PUBLIC_PRESENTED_KEYS.filter((k) => k in doc).map((k) => [k, doc[k]]));

const STAGE_VALUES = '{ stage1 stage2 stage3 stage4 }';
const INDICATORS = `indicators { sma10 sma20 sma50 sma150 sma200 ema10 ema20 ema50 ema150 ema200 sma10w sma30w ema10w ema30w rsi14 atr14 atrPercent
  bollinger { upper middle lower bandwidth } macd { macd signal histogram } volumeSma20 volumeSma50 relativeVolume
  historicalVolatility20 historicalVolatility60 volatilityTrend isHighVolatility mansfieldRs sataScore }`;
const STAGE_DETAIL = `stageDetail { stage label subStage weeksInStage strength weekEnding ma30w ma30wSlopePercent ma10w priceVsMa30wPercent
  mansfieldRs mansfieldRsTrend breakoutVolumeRatio sataScore sata { name met detail } reasons }`;
const ML_SIGNAL = `mlSignal { signal probabilityUp confidence rawConfidence model { model version features horizonDays trainedThrough trainSamples
  oosAccuracy oosAuc oosSamples oosDates oosThrough oosAucCi { low high level blockLength } } }`;
const ENHANCED_SIGNAL = 'enhancedSignal { signal score confidence rawConfidence rulesWeight mlWeight weights { rules { weight reason } ml { weight reason } } reasons }';
const RISK_PARAMETERS = `riskParameters { entryPrice atrStop supportStop suggestedStop stopMethod minStopDistancePercent riskPerShare riskPerSharePercent
  suggestedTarget rewardRiskRatio sharesPer100kAt1pctRisk positionSizeHint volatilityStopLossLevels { atr1x atr2x atr3x hv1sd20d }
  atr atrPercent historicalVolatility volatilityTrend isHighVolatility }`;
const TRANSITIONS = `transitionProbabilities { currentStage nextWeek ${STAGE_VALUES} sampleSize
  matrix { stage1 ${STAGE_VALUES} stage2 ${STAGE_VALUES} stage3 ${STAGE_VALUES} stage4 ${STAGE_VALUES} }
  counts { stage1 ${STAGE_VALUES} stage2 ${STAGE_VALUES} stage3 ${STAGE_VALUES} stage4 ${STAGE_VALUES} }
  totalTransitions estimatedThrough symbols }`;

/**
 * A document part as the typed GraphQL field shows it: keys in camelCase at every depth (a `STAGE n` key
 * as stageN), a stage label as its enum value (STAGE_2).
 */
function typed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(typed);
  if (typeof value === 'string') return /^STAGE \d$/.test(value) ? value.replace(' ', '_') : value;
  if (value === null || typeof value !== 'object') return value ?? null;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [/^STAGE \d$/.test(k) ? `stage${k.slice(6)}` : k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), typed(v)]),
  );
}

const SNAPSHOT_FIELDS = `
  symbol analysisDate analysisTimestamp producedAt pipelineVersion dataSource
  stage stageStrength ${STAGE_DETAIL} price volume ${INDICATORS}
  detectedPatterns { type status startDate endDate confidence priceTarget direction breakoutLevel invalidationLevel keyPoints { label date price } confidenceParts { geometry volume trend } }
  bestPattern { type status startDate endDate confidence priceTarget direction }
  patternSignal { direction netConfidence bullishConfidence bearishConfidence patternCount }
  recentPatterns { type } bestRecentPattern { type } recentPatternSignal { direction netConfidence }
  priceTargets { source basis direction price distancePercent confidence }
  supportLevels resistanceLevels marketRegime sector signal signalReasons confidence
  ${ML_SIGNAL} ${ENHANCED_SIGNAL} ${RISK_PARAMETERS} ${TRANSITIONS} document`;

interface Snapshot {
  symbol: string;
  analysisDate: string;
  analysisTimestamp: string | null;
  producedAt: string;
  pipelineVersion: string;
  dataSource: string | null;
  stage: string | null;
  stageStrength: string | null;
  stageDetail: unknown;
  price: number | null;
  volume: number | null;
  indicators: unknown;
  detectedPatterns: Array<Record<string, unknown>> | null;
  bestPattern: Record<string, unknown> | null;
  patternSignal: Record<string, unknown> | null;
  recentPatterns: Array<{ type: string }> | null;
  bestRecentPattern: { type: string } | null;
  recentPatternSignal: Record<string, unknown> | null;
  priceTargets: Array<Record<string, unknown>> | null;
  supportLevels: number[] | null;
  resistanceLevels: number[] | null;
  marketRegime: string | null;
  sector: string | null;
  signal: string | null;
  signalReasons: string[] | null;
  confidence: number | null;
  mlSignal: unknown;
  enhancedSignal: unknown;
  riskParameters: unknown;
  transitionProbabilities: unknown;
  document: Doc;
}

const ANALYSIS = `query ($symbol: String!, $date: String) { analysis(symbol: $symbol, date: $date) { ${SNAPSHOT_FIELDS} } }`;

/** The typed fields a partner gets are the stored document's values, renamed. */
function expectTypedFieldsMatch(s: Snapshot, doc: Doc): void {
  expect(s.analysisDate).toBe(doc.analysis_date);
  expect(s.analysisTimestamp).toBe(doc.analysis_timestamp ?? null);
  expect(s.stage).toBe(typed(doc.stage ?? null));
  expect(s.stageStrength).toBe(doc.stage_strength ?? null);
  expect(s.price).toBe(doc.price ?? null);
  expect(s.volume).toBe(doc.volume ?? null);
  expect(s.indicators).toEqual(typed(doc.indicators ?? null));
  expect(s.supportLevels).toEqual(doc.support_levels ?? null);
  expect(s.resistanceLevels).toEqual(doc.resistance_levels ?? null);
  expect(s.marketRegime).toBe(doc.market_regime ?? null);
  expect(s.sector).toBe(doc.sector ?? null);
  expect(s.signal).toBe(doc.signal ?? null);
  expect(s.confidence).toBe(doc.confidence ?? null);
  expect(s.mlSignal).toEqual(typed(doc.ml_signal ?? null));
  expect(s.enhancedSignal).toEqual(typed(doc.enhanced_signal ?? null));
  const patterns = (doc.detected_patterns ?? []) as Array<Record<string, unknown>>;
  expect(s.detectedPatterns?.map((p) => p.type)).toEqual(patterns.map((p) => p.type));
  patterns.forEach((p, i) => {
    const g = s.detectedPatterns![i];
    expect(g).toEqual(
      expect.objectContaining({
        status: typeof p.status === 'string' ? p.status.toUpperCase() : null,
        startDate: p.start_date ?? null,
        endDate: p.end_date ?? null,
        confidence: p.confidence ?? null,
        priceTarget: p.price_target ?? null,
        direction: p.direction ?? null,
        breakoutLevel: p.breakout_level ?? null,
        invalidationLevel: p.invalidation_level ?? null,
        keyPoints: (p.key_points as unknown[] | undefined) ?? null,
        confidenceParts: p.confidence_parts ?? null,
      }),
    );
  });
  const best = doc.best_pattern as Record<string, unknown> | null;
  expect(s.bestPattern?.type ?? null).toBe(best?.type ?? null);
  const signal = doc.pattern_signal as Record<string, unknown> | null;
  if (signal) {
    expect(s.patternSignal).toEqual({
      direction: signal.direction,
      netConfidence: signal.net_confidence,
      bullishConfidence: signal.bullish_confidence,
      bearishConfidence: signal.bearish_confidence,
      patternCount: signal.pattern_count ?? null,
    });
  }
  const targets = (doc.price_targets ?? []) as Array<Record<string, unknown>>;
  expect(s.priceTargets?.map((t) => t.price)).toEqual(targets.map((t) => t.price));
  expect(s.priceTargets?.map((t) => t.distancePercent)).toEqual(targets.map((t) => t.distance_percent));
}

describe('analysis subgraph with a partner token', () => {
  it('Query.analysis: the latest snapshot, every typed field from the stored document, and the whole document', async () => {
    const res = await graphql<{ analysis: Snapshot }>(subgraph(), ANALYSIS, { symbol: ` ${other.toLowerCase()} ` }, withToken());
    expect(res.body.errors).toBeUndefined();
    const s = res.body.data!.analysis;
    const doc = await stored(other);
    expect(s.symbol).toBe(other);
    expect(s.analysisDate).toBe(seed.latestDate);
    expect(s.document).toEqual(doc);
    expectTypedFieldsMatch(s, doc);
    // auth-only and extra keys are there for partners
    expect(s.riskParameters).toEqual(typed(doc.risk_parameters));
    expect(s.transitionProbabilities).toEqual(typed(doc.transition_probabilities));
    expect(s.stageDetail).toEqual(typed(doc.stage_detail ?? null));
    expect(s.signalReasons).toEqual(doc.signal_reasons ?? null);
    expect(s.dataSource).toBe(doc.data_source ?? null);
    expect(s.pipelineVersion).toEqual(expect.any(String));
    expect(Number.isNaN(Date.parse(s.producedAt))).toBe(false);
  });

  it('Query.analysis with date: that date\'s snapshot', async () => {
    const date = seed.dates[0];
    const res = await graphql<{ analysis: Snapshot }>(subgraph(), ANALYSIS, { symbol: other, date }, withToken());
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.analysis.analysisDate).toBe(date);
    expect(res.body.data!.analysis.document).toEqual(await stored(other, date));
  });

  it('null for an unknown symbol or a date without a snapshot; VALIDATION_FAILED for a malformed date or symbol', async () => {
    expect((await graphql(subgraph(), ANALYSIS, { symbol: 'ZZZZ' }, withToken())).body).toEqual({ data: { analysis: null } });
    expect((await graphql(subgraph(), ANALYSIS, { symbol: other, date: '2000-01-03' }, withToken())).body).toEqual({ data: { analysis: null } });
    const badDate = await graphql(subgraph(), ANALYSIS, { symbol: other, date: '2026-02-30' }, withToken());
    expect(badDate.body.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
    const badSymbol = await graphql(subgraph(), ANALYSIS, { symbol: 'AC$ME' }, withToken());
    expect(badSymbol.body.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
  });

  it('Security.analysis agrees with Query.analysis', async () => {
    const res = await graphql<{ security: { symbol: string; analysis: Snapshot }; analysis: Snapshot }>(
      subgraph(),
      `query ($s: String!, $d: String) { security(symbol: $s) { symbol analysis(date: $d) { ${SNAPSHOT_FIELDS} } } analysis(symbol: $s, date: $d) { ${SNAPSHOT_FIELDS} } }`,
      { s: other, d: seed.dates[1] },
      withToken(),
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.security.analysis).toEqual(res.body.data!.analysis);
    expect(res.body.data!.analysis.analysisDate).toBe(seed.dates[1]);
  });

  it('Security.snapshots: the history oldest first, paginated by date', async () => {
    type Page = { security: { snapshots: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Array<{ analysisDate: string; price: number; document: Doc }> } } };
    const query = `query ($s: String!, $after: String, $from: LocalDate, $to: LocalDate) { security(symbol: $s) {
      snapshots(first: 2, after: $after, from: $from, to: $to) { totalCount pageInfo { hasNextPage endCursor } nodes { analysisDate price document } } } }`;
    const dates: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const res: Awaited<ReturnType<typeof graphql<Page>>> = await graphql<Page>(subgraph(), query, { s: other, after }, withToken());
      expect(res.body.errors).toBeUndefined();
      const conn: Page['security']['snapshots'] = res.body.data!.security.snapshots;
      expect(conn.totalCount).toBe(seed.dates.length);
      expect(conn.nodes.length).toBeLessThanOrEqual(2);
      for (const n of conn.nodes) {
        const doc = await stored(other, n.analysisDate);
        expect(n.document).toEqual(doc);
        expect(n.price).toBe(doc.price);
      }
      dates.push(...conn.nodes.map((n) => n.analysisDate));
      after = conn.pageInfo.hasNextPage ? conn.pageInfo.endCursor : null;
      if (after) expect(after).toBe(conn.nodes[conn.nodes.length - 1].analysisDate);
      pages++;
    } while (after && pages < 10);
    expect(dates).toEqual(seed.dates);
    expect(pages).toBe(Math.ceil(seed.dates.length / 2));

    const ranged = await graphql<Page>(subgraph(), query, { s: other, from: seed.dates[1], to: seed.dates[2] }, withToken());
    expect(ranged.body.data!.security.snapshots.totalCount).toBe(2);
    expect(ranged.body.data!.security.snapshots.nodes.map((n) => n.analysisDate)).toEqual([seed.dates[1], seed.dates[2]]);
  });

  it('Security.snapshots validates its arguments', async () => {
    const first0 = await graphql(subgraph(), `{ security(symbol: "${other}") { snapshots(first: 0) { totalCount } } }`, {}, withToken());
    expect(first0.body.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
    const tooMany = await graphql(subgraph(), `{ security(symbol: "${other}") { snapshots(first: 101) { totalCount } } }`, {}, withToken());
    expect(tooMany.body.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
    const reversed = await graphql(subgraph(), `{ security(symbol: "${other}") { snapshots(from: "${seed.latestDate}", to: "${seed.dates[0]}") { totalCount } } }`, {}, withToken());
    expect(reversed.body.errors?.[0].extensions?.code).toBe('VALIDATION_FAILED');
  });

  it('a security without snapshots has analysis null and an empty history', async () => {
    await upsertSecurities(store.db, [{ symbol: 'NOGQ', name: 'No Analysis Corp', sector: 'Utilities', subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' }]);
    const res = await graphql<{ security: { analysis: null; snapshots: { totalCount: number; nodes: unknown[]; pageInfo: { hasNextPage: boolean; endCursor: null } } } }>(
      subgraph(),
      '{ security(symbol: "NOGQ") { analysis { price } snapshots { totalCount nodes { analysisDate } pageInfo { hasNextPage endCursor } } } }',
      {},
      withToken(),
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.security).toEqual({ analysis: null, snapshots: { totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: null } } });
  });
});

describe('analysis subgraph without a token (demo rules)', () => {
  it('the demo symbol: latest, public fields only, document = the demo route\'s result', async () => {
    const res = await graphql<{ analysis: Snapshot }>(subgraph(), ANALYSIS, { symbol: 'acme' });
    expect(res.body.errors).toBeUndefined();
    const s = res.body.data!.analysis;
    const full = await stored(DEMO);
    expect(s.analysisDate).toBe(seed.latestDate);
    expect(s.document).toEqual(publicSubset(full));
    expectTypedFieldsMatch(s, full);
    expect(s.riskParameters).toBeNull();
    expect(s.transitionProbabilities).toBeNull();
    expect(s.stageDetail).toBeNull();
    expect(s.signalReasons).toBeNull();
    // Synthetic data stays labelled for every caller.
    expect(s.dataSource).toBe(full.data_source ?? null);

    const demo = await request<{ result: Doc }>(`${platform.urls.analysis}/api/v1/demo/results/analysis/${DEMO}`);
    expect(s.document).toEqual(demo.body.result);
  });

  it('date is ignored: always the latest', async () => {
    for (const date of [seed.dates[0], 'not-a-date']) {
      const res = await graphql<{ analysis: Snapshot }>(subgraph(), ANALYSIS, { symbol: DEMO, date });
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data!.analysis.analysisDate).toBe(seed.latestDate);
    }
  });

  it('Security.analysis of the demo symbol is the same public view', async () => {
    const res = await graphql<{ security: { analysis: Snapshot }; analysis: Snapshot }>(
      subgraph(),
      `{ security(symbol: "${DEMO}") { analysis(date: "${seed.dates[0]}") { ${SNAPSHOT_FIELDS} } } analysis(symbol: "${DEMO}") { ${SNAPSHOT_FIELDS} } }`,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.security.analysis).toEqual(res.body.data!.analysis);
  });

  it('any other symbol needs a partner token (UNAUTHENTICATED), and so does the history', async () => {
    const res = await graphql(subgraph(), ANALYSIS, { symbol: other });
    expect(res.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
    expect(res.body.data).toEqual({ analysis: null });
    const history = await graphql(subgraph(), `{ security(symbol: "${DEMO}") { snapshots { totalCount } } }`);
    expect(history.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('an invalid token is refused (UNAUTHENTICATED), not treated as anonymous', async () => {
    const res = await graphql(subgraph(), ANALYSIS, { symbol: DEMO }, { authorization: 'Bearer not-a-jwt' });
    expect(res.body.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('through the gateway', () => {
  type List = { securities: { nodes: Array<{ symbol: string; analysis: { analysisDate: string; price: number | null; stage: string | null; riskParameters: unknown; document: Doc } | null }> } };

  it('securities with their analysis in one query agree with the REST read', async () => {
    const res = await graphql<List>(
      gateway(),
      `{ securities(first: 500) { nodes { symbol analysis { analysisDate price stage ${RISK_PARAMETERS} document } } } }`,
      {},
      withToken(),
    );
    expect(res.body.errors).toBeUndefined();
    const nodes = res.body.data!.securities.nodes;
    const analysed = nodes.filter((n) => n.analysis);
    expect(analysed.map((n) => n.symbol).sort()).toEqual([...seed.symbols].sort());
    for (const node of analysed) {
      const rest = await request<{ result: Doc }>(`${platform.urls.analysis}/api/v1/results/analysis/${node.symbol}`, { headers: withToken() });
      expect(rest.status).toBe(200);
      expect(node.analysis!.document).toEqual(rest.body.result);
      expect(node.analysis!.price).toBe(rest.body.result.price);
      expect(node.analysis!.stage).toBe(typed(rest.body.result.stage));
      expect(node.analysis!.analysisDate).toBe(rest.body.result.analysis_date);
      expect(node.analysis!.riskParameters).toEqual(typed(rest.body.result.risk_parameters));
    }
  });

  it('without a token the gateway gives the demo route\'s public view', async () => {
    const res = await graphql<{ security: { analysis: { document: Doc; riskParameters: unknown } } }>(
      gateway(),
      `{ security(symbol: "${DEMO}") { analysis { document riskParameters { entryPrice } } } }`,
    );
    expect(res.body.errors).toBeUndefined();
    const demo = await request<{ result: Doc }>(`${platform.urls.analysis}/api/v1/demo/results/analysis/${DEMO}`);
    expect(res.body.data!.security.analysis).toEqual({ document: demo.body.result, riskParameters: null });
  });
});

describe('analysisRun: the latest pipeline run and its model figures (public)', () => {
  const RUN = '{ analysisRun { fromDate toDate symbols snapshots pipelineVersion model { folds oosAccuracy oosAuc oosSamples trainSamplesLastFold } } }';

  it('is null before the pipeline has recorded a run, then reports the run through the gateway without a token', async () => {
    expect((await graphql(gateway(), RUN)).body).toEqual({ data: { analysisRun: null } });
    const summary = await runAnalysis(store.db, config.marketIndexSymbol, { workers: 0 });
    const res = await graphql<{ analysisRun: { toDate: string; symbols: number; snapshots: number; pipelineVersion: string; model: unknown } }>(gateway(), RUN);
    expect(res.body.data?.analysisRun).toEqual({
      fromDate: summary.toDate,
      toDate: summary.toDate,
      symbols: summary.symbols,
      snapshots: summary.snapshots,
      pipelineVersion: PIPELINE_VERSION,
      // One year of demo history is shorter than the first walk-forward window: no model yet, and it says so.
      model: null,
    });
  });
});

describe('a stored document whose nested enum field holds a value the enum lacks', () => {
  it('shows that part as null, without an error, and the rest of the snapshot as stored', async () => {
    const symbol = 'ODDQ';
    const row = await latestSnapshot(store.db, other);
    const doc = JSON.parse(row!.docText) as Doc;
    const withValue = (key: string, field: string, value: string): void => {
      expect(doc[key]).toEqual(expect.any(Object)); // the seeded document has the part, so the test changes it
      doc[key] = { ...(doc[key] as Doc), [field]: value };
    };
    withValue('stage_detail', 'strength', 'EXTREME');
    withValue('ml_signal', 'signal', 'STRONG_BUY');
    withValue('enhanced_signal', 'signal', 'STRONG_SELL');
    withValue('transition_probabilities', 'current_stage', 'STAGE 5');
    await upsertSecurities(store.db, [{ symbol, name: 'Odd Values Corp', sector: 'Utilities', subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' }]);
    try {
      await upsertSnapshots(store.db, [{ symbol, analysisDate: row!.analysisDate, doc: JSON.stringify({ ...doc, symbol }), producedAt: row!.producedAt, pipelineVersion: row!.pipelineVersion }]);
      const res = await graphql<{ analysis: Snapshot }>(subgraph(), ANALYSIS, { symbol, date: row!.analysisDate }, withToken());
      expect(res.body.errors).toBeUndefined();
      const s = res.body.data!.analysis;
      expect(s).toMatchObject({ stageDetail: null, mlSignal: null, enhancedSignal: null, transitionProbabilities: null });
      const shown = await stored(symbol, row!.analysisDate);
      expect(s.document).toEqual(shown);
      expect(s.riskParameters).toEqual(typed(shown.risk_parameters));
      expect(s.stage).toBe(typed(shown.stage));
    } finally {
      await store.db.query('DELETE FROM securities WHERE symbol = $1', [symbol]);
    }
  });
});
