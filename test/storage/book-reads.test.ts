/**
 * How a book is read (PGlite always, PostgreSQL too when TEST_DATABASE_URL is set): one statement
 * brings the book, its holdings with their latest closes and page 1 of its trade log, the same rows the
 * reads one by one brought; and PortfolioService.book answers a repeat read from the answer it kept
 * after one small statement (the book's version and closes), so the next read shows any change to what
 * the answer depends on at once: a trade (also one recorded by another service), a new or removed bar of
 * a holding (no analysis run needed), a new day for a book whose holdings have no close; and another
 * partner still gets PORTFOLIO_NOT_FOUND.
 *
 * A tiny market written straight into the store (three securities, five bars each); the services' clock
 * is set by the test. The store is the real one behind a pass-through that records the statements
 * naming the book's id.
 */
import { PortfolioService } from '../../subgraphs/allocation/portfolios.js';
import * as store from '../../subgraphs/allocation/store.js';
import { latestCloses, upsertBars, upsertSecurities } from '../../subgraphs/analysis/store.js';
import type { Principal } from '../../subgraphs/platform/auth.js';
import { AppError } from '../../subgraphs/platform/errors.js';
import { BACKENDS, openTestDb, recordingDb, type RecordingDb, type TestDb } from '../helpers/db.js';

const partner = (sub: string): Principal => ({ kind: 'partner', partnerId: sub, claims: { sub } });
const ALICE = partner('alice');
const BOB = partner('bob');
const W = { traceId: 'trace-test', naming: 'rest' as const };
const SYMBOLS = ['BRA', 'BRB', 'BRC'];
const DATES = ['2026-01-05', '2026-01-06', '2026-01-07', '2026-01-08', '2026-01-09'];

async function notFound(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe.each(BACKENDS)('book reads on %s', (backend) => {
  let testDb: TestDb;
  let recorder: RecordingDb;
  let now: Date;
  /** The service under test (keeps books), another one writing to the same store, and a fresh one per read (keeps nothing). */
  let service: PortfolioService;
  let other: PortfolioService;
  const fresh = (principal: Principal, id: string) => new PortfolioService(testDb.db, { now: () => now }).book(principal, id);

  beforeAll(async () => {
    testDb = await openTestDb(backend);
    await upsertSecurities(
      testDb.db,
      SYMBOLS.map((symbol) => ({ symbol, name: symbol, sector: 'Energy', subIndustry: null, assetType: 'EQUITY', dataSource: 'imported' })),
    );
    await upsertBars(
      testDb.db,
      SYMBOLS.flatMap((symbol, s) => DATES.map((date, d) => ({ symbol, date, open: 10, high: 12, low: 9, close: 10 + s + d / 4 + 0.013, volume: 1000 }))),
    );
    now = new Date('2026-01-12T15:00:00Z');
    recorder = recordingDb(testDb.db);
    service = new PortfolioService(recorder.db, { now: () => now });
    other = new PortfolioService(testDb.db, { now: () => now });
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  const create = async (holdings: Array<{ symbol: string; shares: number; cost_basis: number }>) =>
    (await other.create(ALICE, { name: 'Read book', cash: 5_000, holdings }, W)).response.portfolio_id;

  it('one statement reads the book with the same rows the reads one by one do', async () => {
    const id = await create([
      { symbol: 'BRA', shares: 10, cost_basis: 9.5 },
      { symbol: 'BRB', shares: 7, cost_basis: 11.25 },
      { symbol: 'BRC', shares: 3, cost_basis: 12 },
    ]);
    await other.trade(ALICE, id, { symbol: 'BRA', side: 'SELL', shares: 4 }, W);
    await other.trade(ALICE, id, { symbol: 'BRB', side: 'BUY', shares: 2, price: 11.5 }, W);
    await other.trade(ALICE, id, { symbol: 'BRC', side: 'SELL', shares: 3, price: 13 }, W);
    await other.trade(ALICE, id, { symbol: 'BRA', side: 'BUY', shares: 1, date: '2026-01-07' }, W);
    const db = testDb.db;
    const read = await store.findBook(db, 'alice', id, 3);
    const holdings = await store.listHoldings(db, id);
    expect(read).toEqual({
      header: await store.findBookHeader(db, 'alice', id),
      holdings,
      closes: await latestCloses(db, holdings.map((h) => h.symbol)),
      trades: await store.listTrades(db, id, { offset: 0, limit: 3 }),
      closesStamp: (await store.bookStamp(db, 'alice', id))?.closesStamp,
    });
    expect(read?.trades.total).toBe(4);
    expect(read?.trades.realisedPnl).not.toBe(0);
    expect(await store.findBook(db, 'bob', id, 3)).toBeNull();
    expect(await store.bookStamp(db, 'bob', id)).toBeNull();
  });

  it('a repeat read asks the store one small statement and answers the kept book; every change shows in the next read', async () => {
    const id = await create([
      { symbol: 'BRA', shares: 10, cost_basis: 9.5 },
      { symbol: 'BRB', shares: 7, cost_basis: 11.25 },
    ]);
    recorder.watch(id);
    const first = await service.book(ALICE, id);
    expect(recorder.take()).toHaveLength(1);
    expect(first).toEqual(await fresh(ALICE, id));
    const again = await service.book(ALICE, id);
    const statements = recorder.take();
    expect(statements).toHaveLength(1);
    expect(statements[0]).not.toMatch(/portfolio_trades/);
    expect(again).toBe(first);

    // A trade by another service: the version moved.
    await other.trade(ALICE, id, { symbol: 'BRA', side: 'SELL', shares: 4 }, W);
    const traded = await service.book(ALICE, id);
    expect(traded.version).toBe(2);
    expect(traded).toEqual(await fresh(ALICE, id));

    // A new bar of a holding, with no analysis run: valued at it at once.
    await upsertBars(testDb.db, [{ symbol: 'BRB', date: '2026-01-12', open: 20, high: 20, low: 20, close: 20.07, volume: 1 }]);
    const repriced = await service.book(ALICE, id);
    expect(repriced.holdings.find((h) => h.symbol === 'BRB')).toMatchObject({ price: 20.07, price_date: '2026-01-12' });
    expect(repriced).toEqual(await fresh(ALICE, id));

    // The bar goes again: back at the close before it.
    await testDb.db.query("DELETE FROM bars WHERE symbol = 'BRB' AND date = '2026-01-12'");
    const back = await service.book(ALICE, id);
    expect(back).toEqual(traded);

    // Someone else's id stays unknown, kept or not.
    expect(await notFound(() => service.book(BOB, id))).toBe('PORTFOLIO_NOT_FOUND');
    expect(await service.book(ALICE, id)).toBe(back);
  });

  it('a book with no close left counts its days held to today, so a new day shows', async () => {
    await upsertSecurities(testDb.db, [{ symbol: 'BRZ', name: 'BRZ', sector: 'Energy', subIndustry: null, assetType: 'EQUITY', dataSource: 'imported' }]);
    await upsertBars(testDb.db, [{ symbol: 'BRZ', date: '2026-01-09', open: 5, high: 5, low: 5, close: 5, volume: 1 }]);
    const id = await create([{ symbol: 'BRZ', shares: 10, cost_basis: 5 }]);
    await testDb.db.query("DELETE FROM bars WHERE symbol = 'BRZ'");
    const today = await service.book(ALICE, id);
    expect(today.valuation_date).toBeNull();
    expect(today.holdings[0].days_held).toBe(0);
    now = new Date('2026-01-14T15:00:00Z');
    const later = await service.book(ALICE, id);
    expect(later.holdings[0].days_held).toBe(2);
    expect(later).toEqual(await fresh(ALICE, id));
  });
});
