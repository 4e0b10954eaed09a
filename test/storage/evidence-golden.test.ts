/**
 * The measured record of a small fixed store, figure for figure: `refreshEvidence` (every monthly evidence
 * table and Kelly odds table) on a deterministic synthetic market must store exactly the bytes recorded
 * below, so that any change to how the measurement is computed (reading, ordering, sharing work between
 * the two measurements, parallelism) is checked to publish the same figures.
 *
 * The store: 32 equities (four start later, one misses some days), an index with bars and documents (not an
 * equity: left out), snapshot documents every 7th trading day and then daily near the end (the daily ones
 * mostly without a known outcome yet), a few documents of another pipeline version (left out), and the
 * history loaded in two parts with a refresh after each (the second computes only the later months).
 * Documents carry what both measurements read: stage, signals, confidences, probabilities, sata score,
 * best pattern with target and invalidation, suggested stop, price targets, resistance levels and ATR.
 *
 * The recorded hashes are of the stored JSON text with the pipeline version replaced by a placeholder (a new
 * pipeline version alone does not change a figure).
 */
import { createHash } from 'node:crypto';
import { refreshEvidence } from '../../cli/evidence-history.js';
import { PATTERN_TYPES, PIPELINE_VERSION, STAGE_STRENGTHS, type AnalysisDocument } from '../../subgraphs/analysis/engine/document.js';
import type { Bar, SecurityRecord } from '../../subgraphs/analysis/engine/market-types.js';
import { createPrng } from '../../subgraphs/analysis/engine/prng.js';
import * as store from '../../subgraphs/analysis/store.js';
import type { Db } from '../../subgraphs/platform/db.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { weekdays } from '../helpers/dates.js';

const DAYS = 420;
const CUT = 300;
const calendar = weekdays(DAYS, '2021-01-04');
const SYMBOLS = Array.from({ length: 32 }, (_, k) => `E${String(k).padStart(2, '0')}`);
const INDEX = 'IDX';
/** First bar of each late starter; the symbol with gaps has no bar on days where t % 13 === 5. */
const LATE: Record<string, number> = { E20: 60, E21: 80, E22: 100, E23: 120 };
const GAPPY = 'E07';
const SNAPSHOT_DAYS = [...Array.from({ length: Math.floor((390 - 110) / 7) + 1 }, (_, k) => 110 + 7 * k), ...Array.from({ length: 30 }, (_, k) => 390 + k)];

interface Path {
  close: Float64Array;
  high: Float64Array;
  low: Float64Array;
  stage: Int8Array;
}

function pathOf(k: number): Path {
  const rng = createPrng(31, k + 1);
  const close = new Float64Array(DAYS);
  const high = new Float64Array(DAYS);
  const low = new Float64Array(DAYS);
  const stage = new Int8Array(DAYS);
  let s = 1 + rng.int(4);
  let c = 20 + 80 * rng.next();
  for (let t = 0; t < DAYS; t++) {
    if (t % 40 === 0) s = 1 + rng.int(4);
    const drift = s === 2 ? 0.0025 : s === 4 ? -0.002 : 0;
    c *= Math.exp(drift + 0.016 * (2 * rng.next() - 1));
    close[t] = c;
    high[t] = c * (1 + 0.012 * rng.next());
    low[t] = c * (1 - 0.012 * rng.next());
    stage[t] = s;
  }
  return { close, high, low, stage };
}

const paths = new Map([...SYMBOLS, INDEX].map((symbol, k) => [symbol, pathOf(k)]));
const hasBar = (symbol: string, t: number): boolean => t >= (LATE[symbol] ?? 0) && !(symbol === GAPPY && t % 13 === 5);

function barsBetween(from: number, to: number): Bar[] {
  const bars: Bar[] = [];
  for (const [symbol, p] of paths) {
    for (let t = from; t <= to; t++) {
      if (hasBar(symbol, t)) bars.push({ symbol, date: calendar[t], open: p.close[t], high: p.high[t], low: p.low[t], close: p.close[t], volume: 1000 + t });
    }
  }
  return bars;
}

const SIGNALS = ['BUY', 'SELL', 'HOLD'] as const;

function documentOf(symbol: string, t: number, k: number): AnalysisDocument {
  const p = paths.get(symbol) as Path;
  const rng = createPrng(57, t * 100 + k);
  const price = p.close[t];
  const stage = p.stage[t];
  const bullish = stage === 2 || (stage === 1 && rng.next() < 0.3);
  const signal = bullish && rng.next() < 0.7 ? 'BUY' : stage === 4 && rng.next() < 0.6 ? 'SELL' : SIGNALS[rng.int(3)];
  const enhanced = rng.next() < 0.85 ? { signal: rng.next() < 0.8 ? signal : SIGNALS[rng.int(3)], confidence: Math.round(rng.next() * 1000) / 1000, score: 2 * rng.next() - 1 } : null;
  const patternType = PATTERN_TYPES[rng.int(PATTERN_TYPES.length)];
  const up = rng.next() < 0.6;
  const withPattern = rng.next() < 0.45;
  const best = withPattern
    ? {
        type: patternType,
        direction: up ? 'bullish' : 'bearish',
        confidence: Math.round(rng.next() * 100) / 100,
        price_target: price * (up ? 1.04 + 0.08 * rng.next() : 0.92 + 0.04 * rng.next()),
        invalidation_level: price * (up ? 0.95 - 0.03 * rng.next() : 1.04 + 0.03 * rng.next()),
      }
    : null;
  const atr = price * (0.015 + 0.01 * rng.next());
  return {
    symbol,
    sector: 'Industrials',
    analysis_date: calendar[t],
    price,
    stage: `STAGE ${stage}`,
    stage_strength: rng.next() < 0.1 ? null : rng.next() < 0.9 ? 'STRONG' : STAGE_STRENGTHS[rng.int(STAGE_STRENGTHS.length)],
    signal,
    confidence: Math.round(rng.next() * 1000) / 1000,
    signal_reasons: ['reason'],
    enhanced_signal: enhanced,
    ml_signal: rng.next() < 0.9 ? { signal: SIGNALS[rng.int(3)], probability_up: 0.3 + 0.4 * rng.next() + (stage === 2 ? 0.05 : 0) } : null,
    indicators: { sata_score: rng.int(11), atr_14: atr, atr_percent: (100 * atr) / price },
    stage_detail: { label: `STAGE ${stage}`, sata_score: rng.int(11), mansfield_rs: rng.next() - 0.5 },
    pattern_signal: { direction: up ? 'BULLISH' : 'BEARISH', net_confidence: 2 * rng.next() - 1 },
    best_pattern: best,
    risk_parameters: rng.next() < 0.9 ? { suggested_stop: price * (0.97 - 0.04 * rng.next()), atr, atr_percent: (100 * atr) / price, min_stop_distance_percent: 2 } : null,
    price_targets: withPattern && up && rng.next() < 0.7 ? [{ source: 'pattern', direction: 'bullish', price: best?.price_target, confidence: best?.confidence }] : [],
    support_resistance: rng.next() < 0.15 ? { support: [{ price: price * 0.95, strength: 0.5 }], resistance: [{ price: price * (1.02 + 0.1 * rng.next()), strength: 0.6 }] } : null,
  } as unknown as AnalysisDocument;
}

function snapshotsBetween(from: number, to: number): store.SnapshotRow[] {
  const rows: store.SnapshotRow[] = [];
  for (const t of SNAPSHOT_DAYS) {
    if (t < from || t > to) continue;
    [...SYMBOLS, INDEX].forEach((symbol, k) => {
      if (!hasBar(symbol, t) || t < (LATE[symbol] ?? 0) + 30) return;
      rows.push({ symbol, analysisDate: calendar[t], doc: documentOf(symbol, t, k), producedAt: '2026-01-01T00:00:00Z', pipelineVersion: PIPELINE_VERSION });
    });
  }
  // Another pipeline version on a day off the grid: computed by other code, left out.
  for (const t of [from + 3, to - 2]) {
    if (SNAPSHOT_DAYS.includes(t)) continue;
    rows.push({ symbol: 'E01', analysisDate: calendar[t], doc: documentOf('E01', t, 1), producedAt: '2026-01-01T00:00:00Z', pipelineVersion: 'older-version' });
  }
  return rows;
}

async function load(db: Db, from: number, to: number): Promise<void> {
  if (from === 0) {
    const securities: SecurityRecord[] = [
      { symbol: INDEX, name: 'Index', sector: null, subIndustry: null, assetType: 'INDEX', dataSource: 'synthetic' },
      ...SYMBOLS.map((symbol) => ({ symbol, name: symbol, sector: 'Industrials' as const, subIndustry: null, assetType: 'EQUITY' as const, dataSource: 'synthetic' as const })),
    ];
    await store.upsertSecurities(db, securities);
  }
  await store.upsertBars(db, barsBetween(from, to));
  await db.transaction((tx) => store.upsertSnapshots(tx, snapshotsBetween(from, to)).then(() => undefined));
}

const digest = (text: string): string => createHash('sha256').update(text.split(PIPELINE_VERSION).join('<version>')).digest('hex').slice(0, 16);

/** As-of date -> hash of the stored evidence table, and of the stored Kelly odds table. */
async function stored(db: Db): Promise<{ tables: Record<string, string>; odds: Record<string, string> }> {
  const tables = await db.query<{ as_of: string; text: string }>('SELECT as_of::text AS as_of, evidence::text AS text FROM evidence_tables WHERE pipeline_version = $1 ORDER BY as_of', [PIPELINE_VERSION]);
  const odds = await db.query<{ as_of: string; text: string; trades: number }>(
    'SELECT as_of::text AS as_of, odds::text AS text, trades FROM candidate_odds WHERE pipeline_version = $1 ORDER BY as_of',
    [PIPELINE_VERSION],
  );
  return {
    tables: Object.fromEntries(tables.map((r) => [r.as_of, digest(r.text)])),
    odds: Object.fromEntries(odds.map((r) => [r.as_of, `${r.trades} ${digest(r.text)}`])),
  };
}

/** After the first refresh (bars and snapshots through day CUT). */
const GOLDEN_FIRST = {
  tables: {
    '2021-07-30': '458c50dcbe97c9c4',
    '2021-08-31': '61e6cc9393de65bd',
    '2021-09-30': 'd7fead46b3586479',
    '2021-10-29': '30717890b52f5fd6',
    '2021-11-30': 'cccc68496ab35797',
    '2021-12-31': '5447d481603a3bc9',
    '2022-01-31': '4fe07ad34234cde5',
  },
  odds: {
    '2021-08-31': '7 de841fb983a6a671',
    '2021-09-30': '39 a833637e4c0bd431',
    '2021-10-29': '71 622c6e20e856dba5',
    '2021-11-30': '90 10ebaccd76b1ab28',
    '2021-12-31': '113 1b26a23923b0a285',
    '2022-01-31': '142 14baaddf0a21e87b',
  },
};
/** After the second (the whole history): the first part's tables unchanged, the later months added. */
const GOLDEN = {
  tables: {
    ...GOLDEN_FIRST.tables,
    '2022-02-28': '852ca4ed192bdebb',
    '2022-03-31': 'bf81da7ee42780b1',
    '2022-04-29': 'fd4faa926a81f6ff',
    '2022-05-31': '6c5e440fe10ecb6f',
    '2022-06-30': 'bbce570c3697498c',
    '2022-07-29': 'a45f18710d80cd06',
  },
  odds: {
    ...GOLDEN_FIRST.odds,
    '2022-02-28': '162 50d0a8e268e5e819',
    '2022-03-31': '205 98697b746ed97362',
    '2022-04-29': '245 1534970c91dfe779',
    '2022-05-31': '283 38d984bf2649ff50',
    '2022-06-30': '307 f708f20c4df0d6a8',
    '2022-07-29': '333 0fa433c50b4a50c1',
  },
};

describe('the measured record of a fixed store', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb('pglite');
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('stores exactly the recorded evidence and Kelly odds tables, in two refreshes as the history grows', async () => {
    await load(t.db, 0, CUT);
    const first = await refreshEvidence(t.db);
    const afterFirst = await stored(t.db);
    await load(t.db, CUT + 1, DAYS - 1);
    const second = await refreshEvidence(t.db);
    const afterSecond = await stored(t.db);
    expect({ first: [first.tables, first.odds], second: [second.tables, second.odds] }).toEqual({
      first: [Object.keys(GOLDEN_FIRST.tables).length, Object.keys(GOLDEN_FIRST.odds).length],
      second: [Object.keys(GOLDEN.tables).length - Object.keys(GOLDEN_FIRST.tables).length, Object.keys(GOLDEN.odds).length - Object.keys(GOLDEN_FIRST.odds).length],
    });
    expect(afterFirst).toEqual(GOLDEN_FIRST);
    expect(afterSecond).toEqual(GOLDEN);
  });
});
