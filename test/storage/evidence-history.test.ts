/**
 * The start-up's sampled history (cli/evidence-history.ts) on a PGlite store whose index reaches further
 * back than its equities, and whose equities start on different days:
 * - the grid is the pipeline's (the equities' calendar): one run analyses exactly its documentable dates,
 *   and afterwards nothing is missing, so the next start analyses nothing;
 * - when later bars arrive, only the new grid dates are missing, and the resumed run keeps the same grid;
 * - snapshots of another pipeline version do not count as done.
 */
import { PIPELINE_VERSION } from '../../subgraphs/analysis/engine/document.js';
import type { Bar, SecurityRecord } from '../../subgraphs/analysis/engine/market-types.js';
import { createPrng } from '../../subgraphs/analysis/engine/prng.js';
import { sampleDates } from '../../subgraphs/analysis/pipeline.js';
import * as store from '../../subgraphs/analysis/store.js';
import { MIN_BARS } from '../../subgraphs/analysis/analyze-batch.js';
import { ensureSampledHistory, missingSampleDates } from '../../cli/evidence-history.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { weekdays } from '../helpers/dates.js';

const EVERY = 7;
const INDEX = 'IDX';


const days = weekdays(260, '2019-01-01');
/** The index has bars from the first day; the equities from day 60 (A) and day 75 (B). */
const EQUITY_STARTS: Record<string, number> = { AAA: 60, BBB: 75 };

function barsOf(symbol: string, from: number, to: number): Bar[] {
  const rng = createPrng(5, symbol.charCodeAt(0));
  const bars: Bar[] = [];
  let close = 50;
  for (let t = 0; t < to; t++) {
    const next = close * (1 + 0.01 * (rng.next() - 0.5));
    if (t >= from) bars.push({ symbol, date: days[t], open: close, high: Math.max(close, next) * 1.002, low: Math.min(close, next) * 0.998, close: next, volume: 1000 });
    close = next;
  }
  return bars;
}

async function seed(db: TestDb['db'], to: number): Promise<void> {
  const securities: SecurityRecord[] = [
    { symbol: INDEX, name: 'Index', sector: null, subIndustry: null, assetType: 'INDEX', dataSource: 'synthetic' },
    ...Object.keys(EQUITY_STARTS).map((symbol) => ({ symbol, name: symbol, sector: 'Information Technology' as const, subIndustry: null, assetType: 'EQUITY' as const, dataSource: 'synthetic' as const })),
  ];
  await store.upsertSecurities(db, securities);
  await store.upsertBars(db, barsOf(INDEX, 0, to));
  for (const [symbol, start] of Object.entries(EQUITY_STARTS)) await store.upsertBars(db, barsOf(symbol, start, to));
}

/** The pipeline's grid over the equities' calendar through day `to`, from the first day an equity can be documented. */
function expectedGrid(to: number): string[] {
  const calendar = days.slice(EQUITY_STARTS.AAA, to);
  return sampleDates(calendar, calendar, EVERY).filter((d) => d >= days[EQUITY_STARTS.AAA + MIN_BARS - 1]);
}

async function snapshotDates(db: TestDb['db']): Promise<string[]> {
  return (await store.snapshotDateCounts(db, {})).filter((c) => c.pipelineVersion === PIPELINE_VERSION).map((c) => c.date);
}

describe('the sampled history behind evidence', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb('pglite');
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('analyses the equities grid once; nothing is missing afterwards, and later bars add only new grid dates on the same grid', async () => {
    await seed(t.db, 200);
    expect(await missingSampleDates(t.db, EVERY)).toEqual(expectedGrid(200));
    const first = await ensureSampledHistory(t.db, INDEX, EVERY, { workers: 0 });
    expect(first).not.toBeNull();
    expect(await snapshotDates(t.db)).toEqual(expectedGrid(200));
    expect(await missingSampleDates(t.db, EVERY)).toEqual([]);
    expect(await ensureSampledHistory(t.db, INDEX, EVERY, { workers: 0 })).toBeNull();

    await seed(t.db, 260);
    const added = expectedGrid(260).filter((d) => d > days[199]);
    expect(added.length).toBeGreaterThan(2);
    expect(await missingSampleDates(t.db, EVERY)).toEqual(added);
    await ensureSampledHistory(t.db, INDEX, EVERY, { workers: 0 });
    expect(await snapshotDates(t.db)).toEqual(expectedGrid(260));
    expect(await missingSampleDates(t.db, EVERY)).toEqual([]);
  });

  it('snapshots of another pipeline version do not count as done', async () => {
    const [date] = expectedGrid(260);
    await t.db.query('UPDATE analysis_snapshots SET pipeline_version = $1 WHERE analysis_date = $2::date', ['older-version', date]);
    expect(await missingSampleDates(t.db, EVERY)).toEqual([date]);
  });
});
