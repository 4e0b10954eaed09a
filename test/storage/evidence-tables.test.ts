/**
 * Stored as-of evidence tables (subgraphs/analysis/evidence-states.ts) on PGlite (and PostgreSQL when
 * TEST_DATABASE_URL is set), over a synthetic market whose stage-2 names drift up, stored as bars and
 * snapshot documents:
 * - a refresh stores one table per completed month from the first known outcome, finds the stage-2 edge,
 *   gives n with null figures where the history is short, and a second refresh computes nothing;
 * - no look-ahead: after bars (extreme ones) and snapshots are appended after D, a refresh adds only later
 *   tables, the earlier ones and `evidenceTableFor(D)` are byte-identical, and a store that held the whole
 *   history from the start stores the same bytes for every as-of date <= D; the table a snapshot dated D
 *   uses counts only outcomes whose window ends by D.
 */
import type { AnalysisDocument } from '../../subgraphs/analysis/engine/document.js';
import { PIPELINE_VERSION } from '../../subgraphs/analysis/engine/document.js';
import type { Bar, SecurityRecord } from '../../subgraphs/analysis/engine/market-types.js';
import { createPrng } from '../../subgraphs/analysis/engine/prng.js';
import { evidenceTableFor, refreshEvidenceTables } from '../../subgraphs/analysis/evidence-states.js';
import * as store from '../../subgraphs/analysis/store.js';
import type { Db } from '../../subgraphs/platform/db.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';
import { plantedUniverse, type PlantedUniverse } from '../unit/analysis/evidence/universe.js';
import { weekdays } from '../helpers/dates.js';

const DAYS = 720;
const CUT = 560;
const REPLICATES = 100;


const calendar = weekdays(DAYS, '2020-01-01');
const D = calendar[CUT];
const u: PlantedUniverse = plantedUniverse({
  seed: 8,
  symbols: 30,
  days: DAYS,
  firstSnapshot: 260,
  step: 5,
  vol: 0.015,
  stage2Drift: 0.003,
  epoch: 60,
  patternEvery: 20,
  hitShare: 0.7,
});
const dayIndex = new Map(u.calendar.map((name, t) => [name, t]));

/** Closes after CUT: each day halves or doubles (a leak of these would change every figure). */
function extremeClose(symbol: string, closes: ArrayLike<number>): Float64Array {
  const out = Float64Array.from(closes);
  const rng = createPrng(77, symbol.charCodeAt(1) * 100 + symbol.charCodeAt(3));
  for (let t = CUT + 1; t < out.length; t++) out[t] = out[t - 1] * (rng.next() < 0.5 ? 0.5 : 2);
  return out;
}

const securities: SecurityRecord[] = u.closes.map((s) => ({ symbol: s.symbol, name: s.symbol, sector: 'Industrials', subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' }));
const closes = new Map(u.closes.map((s) => [s.symbol, extremeClose(s.symbol, s.close)]));

function barsBetween(from: number, to: number): Bar[] {
  const bars: Bar[] = [];
  for (const [symbol, close] of closes) {
    for (let t = from; t <= to; t++) bars.push({ symbol, date: calendar[t], open: close[t], high: close[t], low: close[t], close: close[t], volume: 1000 });
  }
  return bars;
}

function documentOf(row: (typeof u.rows)[number]): store.SnapshotRow {
  const t = dayIndex.get(row.date) as number;
  const price = (closes.get(row.symbol) as Float64Array)[t];
  const pattern = row.bestPattern;
  const doc = {
    symbol: row.symbol,
    analysis_date: calendar[t],
    price,
    stage: row.stage === null ? null : `STAGE ${row.stage}`,
    stage_strength: row.stageStrength,
    signal: row.signal,
    confidence: row.confidence,
    enhanced_signal: null,
    ml_signal: { signal: row.mlSignal, probability_up: row.mlProbability },
    indicators: { sata_score: row.sataScore },
    stage_detail: null,
    pattern_signal: null,
    best_pattern:
      pattern === null
        ? null
        : { type: pattern.type, direction: pattern.direction, confidence: 0.6, price_target: price * (1 + pattern.target), invalidation_level: price * (1 + pattern.stop) },
  } as unknown as AnalysisDocument;
  return { symbol: row.symbol, analysisDate: calendar[t], doc, producedAt: '2026-01-01T00:00:00Z', pipelineVersion: PIPELINE_VERSION };
}

const docsBetween = (from: number, to: number): store.SnapshotRow[] =>
  u.rows.filter((r) => (dayIndex.get(r.date) as number) >= from && (dayIndex.get(r.date) as number) <= to).map(documentOf);

async function load(db: Db, from: number, to: number): Promise<void> {
  if (from === 0) await store.upsertSecurities(db, securities);
  await store.upsertBars(db, barsBetween(from, to));
  await db.transaction((tx) => store.upsertSnapshots(tx, docsBetween(from, to)).then(() => undefined));
}

async function storedTexts(db: Db): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const asOf of await store.evidenceTableDates(db, PIPELINE_VERSION)) out.set(asOf, (await store.evidenceTableText(db, PIPELINE_VERSION, asOf)) as string);
  return out;
}

/** Month ends the calendar has passed, up to position `last`. */
function monthEnds(last: number): string[] {
  return calendar.filter((d, t) => t < last && d.slice(0, 7) !== calendar[t + 1].slice(0, 7));
}

describe.each(BACKENDS)('evidence tables on %s', (backend) => {
  let first: TestDb;
  let whole: TestDb;
  let before: Map<string, string>;
  afterAll(async () => {
    await first?.drop();
    await whole?.drop();
  });

  it('stores one table per completed month from the first known outcome, with the planted stage-2 edge; a second refresh computes nothing', async () => {
    first = await openTestDb(backend);
    const db = first.db;
    await load(db, 0, CUT);
    expect(await evidenceTableFor(db, D)).toBeNull();
    const result = await refreshEvidenceTables(db, { replicates: REPLICATES, batch: 5 });
    const firstKnown = calendar[260 + 20];
    const expected = monthEnds(CUT).filter((d) => d >= firstKnown);
    expect(result).toEqual({ computed: expected, skipped: 0 });
    before = await storedTexts(db);
    expect([...before.keys()]).toEqual(expected);

    const latest = await evidenceTableFor(db, D);
    expect(latest?.as_of).toBe(expected[expected.length - 1]);
    const stage2 = Object.entries(latest?.states.stage ?? {}).filter(([label]) => label.startsWith('STAGE 2 '));
    expect(stage2.length).toBe(4);
    for (const [, record] of stage2) expect(record.mean_excess_20d.ci?.[0]).toBeGreaterThan(0);
    const pooled = stage2.reduce((s, [, r]) => s + (r.mean_excess_20d.value as number) * r.n, 0) / stage2.reduce((s, [, r]) => s + r.n, 0);
    expect(pooled).toBeGreaterThan(0.005);

    // The first month: n with null figures.
    const early = await evidenceTableFor(db, expected[0]);
    const records = Object.values(early?.states.stage ?? {});
    expect(records.reduce((s, r) => s + r.n, 0)).toBeGreaterThan(0);
    for (const r of records) expect([r.dates < 10, r.mean_excess_20d]).toEqual([true, { value: null, ci: null }]);
    expect(early?.probabilities.pattern_target).toMatchObject({ n: 0, calibrator: null, metrics: null });

    expect(await refreshEvidenceTables(db, { replicates: REPLICATES })).toEqual({ computed: [], skipped: expected.length });
    expect(await storedTexts(db)).toEqual(before);
  });

  it('appending bars and snapshots after D adds only later tables; the earlier ones and the table for D keep every byte', async () => {
    const db = first.db;
    const forD = JSON.stringify(await evidenceTableFor(db, D));
    await load(db, CUT + 1, DAYS - 1);
    const result = await refreshEvidenceTables(db, { replicates: REPLICATES });
    const all = monthEnds(DAYS - 1).filter((d) => d >= calendar[280]);
    expect(result).toEqual({ computed: all.filter((d) => !before.has(d)), skipped: before.size });
    expect(result.computed.every((d) => d > D)).toBe(true);
    const after = await storedTexts(db);
    for (const [asOf, text] of before) expect([asOf, after.get(asOf) === text]).toEqual([asOf, true]);
    expect(JSON.stringify(await evidenceTableFor(db, D))).toBe(forD);

    // The table a snapshot dated D uses counts only outcomes whose 20-day window ends by its as-of date <= D.
    const table = await evidenceTableFor(db, D);
    const asOfIndex = calendar.indexOf(table?.as_of as string);
    expect(asOfIndex).toBeLessThanOrEqual(CUT);
    const known = u.rows.filter((r) => (dayIndex.get(r.date) as number) + 20 <= asOfIndex).length;
    expect(Object.values(table?.states.signal ?? {}).reduce((s, r) => s + r.n, 0)).toBe(known);
  });

  it('a store holding the whole history from the start stores the same bytes for every as-of date <= D', async () => {
    whole = await openTestDb(backend);
    await load(whole.db, 0, DAYS - 1);
    await refreshEvidenceTables(whole.db, { replicates: REPLICATES });
    const full = await storedTexts(whole.db);
    const later = await storedTexts(first.db);
    expect([...full.keys()]).toEqual([...later.keys()]);
    for (const [asOf, text] of before) expect([asOf, full.get(asOf) === text]).toEqual([asOf, true]);
    // Later tables too: the same inputs give the same bytes whichever refresh computed them.
    const last = [...full.keys()].at(-1) as string;
    expect(full.get(last)).toBe(later.get(last));
  });
});
