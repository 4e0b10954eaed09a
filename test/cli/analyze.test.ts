/**
 * `tradegraph analyze` against a real on-disk PGlite store: it stores one snapshot per symbol per
 * requested trading day, idempotently, records the run, and rejects bad arguments without writing.
 */
import { run } from '../../cli/tradegraph.js';
import { ensureRecentAnalysis, missingRecentDates, runAnalysis } from '../../subgraphs/analysis/pipeline.js';
import { AnalysisService } from '../../subgraphs/analysis/service.js';
import { latestRun, latestSnapshot } from '../../subgraphs/analysis/store.js';
import { captureCliOutput, generateQuietly, scratchStore } from '../helpers/cli.js';

const { config, inStore } = scratchStore('tg-analyze-');
const cli = captureCliOutput();

const count = () => inStore(async (db) => (await db.query<{ n: number; dates: number }>('SELECT count(*)::int AS n, count(DISTINCT analysis_date)::int AS dates FROM analysis_snapshots'))[0]);

beforeAll(async () => {
  await generateQuietly(config, ['--symbols', '12', '--years', '2', '--end-date', '2026-10-30']);
});

it('analyses the latest trading day by default', async () => {
  expect(await run(['analyze', '--workers', '0'], config)).toBe(0);
  expect(await count()).toEqual({ n: 12, dates: 1 });
  expect(cli.out.join('\n')).toMatch(/Stored 12 snapshots for 12 symbols, 2026-10-30\.\.2026-10-30 \(1 trading day\(s\)\)/);
  const acme = await inStore((db) => latestSnapshot(db, 'ACME'));
  expect(acme?.analysisDate).toBe('2026-10-30');
  expect(JSON.parse(acme?.docText ?? '{}')).toMatchObject({ symbol: 'ACME', analysis_date: '2026-10-30', stage: expect.stringMatching(/^STAGE [1-4]$/) });
});

it('stores every trading day of --from/--to, and running it again changes nothing but the production time', async () => {
  expect(await run(['analyze', '--from', '2026-10-19', '--to', '2026-10-30', '--workers', '0'], config)).toBe(0);
  expect(await count()).toEqual({ n: 12 * 10, dates: 10 });
  const first = await inStore((db) => latestSnapshot(db, 'ACME'));
  expect(await run(['analyze', '--from', '2026-10-19', '--to', '2026-10-30', '--workers', '0'], config)).toBe(0);
  expect(await count()).toEqual({ n: 12 * 10, dates: 10 });
  const again = await inStore((db) => latestSnapshot(db, 'ACME'));
  const strip = (text: string | undefined) => {
    const { analysis_timestamp: _a, timestamp: _t, ...rest } = JSON.parse(text ?? '{}') as Record<string, unknown>;
    return rest;
  };
  expect(strip(again?.docText)).toEqual(strip(first?.docText));
  const runRecord = await inStore((db) => latestRun(db));
  expect(runRecord).toMatchObject({ fromDate: '2026-10-19', toDate: '2026-10-30', symbols: 12, snapshots: 120 });
  // Two years of history hold a walk-forward model; the service reports its out-of-sample figures.
  const latest = await inStore((db) => new AnalysisService(db, config.demo.symbol).latestRun());
  expect(latest?.model?.folds).toBeGreaterThanOrEqual(1);
  expect(latest?.model?.oosSamples).toBeGreaterThan(0);
  expect(latest?.model?.oosAuc).toBeGreaterThan(0);
  expect(latest?.model?.oosAuc).toBeLessThan(1);
  expect(cli.out.join('\n')).toMatch(/ML model: \d+ walk-forward folds, out-of-sample accuracy \d+\.\d%, AUC 0\.\d{3}/);
});

it('rejects bad arguments and empty ranges, writing nothing', async () => {
  const before = await count();
  await expect(run(['analyze', '--from', '2026-13-01'], config)).rejects.toThrow(/--from must be a date/);
  await expect(run(['analyze', '--workers', 'many'], config)).rejects.toThrow(/--workers must be an integer/);
  await expect(run(['analyze', '--from', '2026-10-30', '--to', '2026-10-01', '--workers', '0'], config)).rejects.toThrow(/must not be after/);
  await expect(run(['analyze', '--from', '2030-01-01', '--to', '2030-02-01', '--workers', '0'], config)).rejects.toThrow(/no trading days/);
  expect(await count()).toEqual(before);
});

it('the start-up step fills whatever the last N trading days lack, then has nothing to do', async () => {
  // The runs above stored the last 10 trading days; asking for 15 analyses the 5 older ones as well.
  const summary = await inStore((db) => ensureRecentAnalysis(db, config.marketIndexSymbol, 15, { workers: 0 }));
  expect(summary).toMatchObject({ dates: 15, symbols: 12, snapshots: 180, toDate: '2026-10-30' });
  expect(await count()).toEqual({ n: 12 * 15, dates: 15 });
  expect(await inStore((db) => ensureRecentAnalysis(db, config.marketIndexSymbol, 15, { workers: 0 }))).toBeNull();
  // A day that lost one symbol's snapshot is analysed again, from that day on.
  await inStore((db) => db.query("DELETE FROM analysis_snapshots WHERE symbol = 'ACME' AND analysis_date = '2026-10-26'"));
  expect(await inStore((db) => missingRecentDates(db, 15))).toEqual(['2026-10-26', '2026-10-27', '2026-10-28', '2026-10-29', '2026-10-30']);
  const refill = await inStore((db) => ensureRecentAnalysis(db, config.marketIndexSymbol, 15, { workers: 0 }));
  expect(refill).toMatchObject({ fromDate: '2026-10-26', toDate: '2026-10-30', dates: 5 });
  expect(await count()).toEqual({ n: 12 * 15, dates: 15 });
});

it('documents exactly the days given, leaving out the ones that are not trading days, and refuses a list with none or one with a range', async () => {
  const before = await count();
  // 2026-09-05 is a Saturday; the repeat and the order do not matter.
  const summary = await inStore((db) => runAnalysis(db, config.marketIndexSymbol, { workers: 0, dates: ['2026-09-15', '2026-09-05', '2026-09-01', '2026-09-15'] }));
  expect(summary).toMatchObject({ fromDate: '2026-09-01', toDate: '2026-09-15', dates: 2, snapshots: 24, every: null, chosen: true });
  expect(await inStore((db) => db.query("SELECT analysis_date::text AS d, count(*)::int AS n FROM analysis_snapshots WHERE analysis_date BETWEEN '2026-09-01' AND '2026-09-15' GROUP BY 1 ORDER BY 1"))).toEqual([
    { d: '2026-09-01', n: 12 },
    { d: '2026-09-15', n: 12 },
  ]);
  expect(await count()).toEqual({ n: before.n + 24, dates: before.dates + 2 });
  await expect(inStore((db) => runAnalysis(db, config.marketIndexSymbol, { workers: 0, dates: ['2026-09-05', '2031-01-01'] }))).rejects.toThrow(/none of the 2 date\(s\) asked for is a trading day/);
  await expect(inStore((db) => runAnalysis(db, config.marketIndexSymbol, { workers: 0, dates: ['2026-09-02'], from: '2026-09-01' }))).rejects.toThrow(/either the days to analyse or a range/);
  expect(await count()).toEqual({ n: before.n + 24, dates: before.dates + 2 });
});
