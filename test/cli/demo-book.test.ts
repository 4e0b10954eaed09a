/**
 * The demo book (cli/demo-book.ts) on a real on-disk store holding the synthetic market: created once
 * for partner-1 under its fixed id with five holdings of five sectors (never the demo symbol or the
 * index) bought at the close 120/90/60/60/40 trading days before the last bar, stops 4% under the latest
 * close and cash at 30% of the value; a second call changes nothing (nor after a trade); a store without
 * a synthetic market gets no book. On PostgreSQL (TEST_DATABASE_URL), a process that finds no book but
 * loses the insert to another one that created it meanwhile takes it as there (null), not as a crash.
 */
import { DEMO_PORTFOLIO_ID, DEMO_PORTFOLIO_PARTNER, ensureDemoBook } from '../../cli/demo-book.js';
import { PortfolioService } from '../../subgraphs/allocation/portfolios.js';
import type { PartnerPrincipal } from '../../subgraphs/platform/auth.js';
import { ALL_MIGRATIONS } from '../../app/migrations.js';
import { migrate } from '../../subgraphs/platform/migrations.js';
import { generateQuietly, scratchStore } from '../helpers/cli.js';
import { testConfig } from '../helpers/config.js';
import { createPostgresDatabase } from '../helpers/db.js';
import { eventually, scaled } from '../helpers/time.js';
import { openPostgres } from '../../subgraphs/platform/db.js';
import pg from 'pg';

const { config, inStore } = scratchStore('tg-demo-book-');
const empty = scratchStore('tg-demo-book-empty-');
const partner: PartnerPrincipal = { kind: 'partner', partnerId: DEMO_PORTFOLIO_PARTNER, claims: { sub: DEMO_PORTFOLIO_PARTNER } };
const exclude = ['ACME', 'TGMI'];
const now = () => new Date('2026-11-26T12:00:00Z');

beforeAll(async () => {
  await generateQuietly(config, ['--symbols', '22', '--years', '1']);
});

it('creates the documented book once, for partner-1 under its fixed id', async () => {
  const report = await inStore((db) => ensureDemoBook(db, { exclude, now }));
  expect(report).toMatchObject({ portfolioId: DEMO_PORTFOLIO_ID, partnerId: 'partner-1' });
  await inStore(async (db) => {
    const book = await new PortfolioService(db, { now }).book(partner, DEMO_PORTFOLIO_ID);
    expect(book).toMatchObject({ name: 'Demo book', currency: 'USD', source: 'holdings', version: 1, position_count: 5 });
    expect(report?.symbols.sort()).toEqual(book.holdings.map((h) => h.symbol).sort());

    const securities = await db.query<{ symbol: string; sector: string }>('SELECT symbol, sector FROM securities');
    const sectorOf = new Map(securities.map((s) => [s.symbol, s.sector]));
    const sectors = book.holdings.map((h) => sectorOf.get(h.symbol));
    expect(new Set(sectors).size).toBe(5);
    expect(sectors.sort()).toEqual(['Consumer Staples', 'Energy', 'Financials', 'Health Care', 'Industrials']);
    for (const h of book.holdings) {
      expect(exclude).not.toContain(h.symbol);
      const bars = await db.query<{ date: string; close: number }>('SELECT date::text AS date, close FROM bars WHERE symbol = $1 ORDER BY date DESC LIMIT 121', [h.symbol]);
      const back = bars.findIndex((b) => b.date === h.entry_date);
      expect([120, 90, 60, 40]).toContain(back);
      expect(h.cost_basis).toBe(Math.round(Number(bars[back].close) * 100) / 100);
      expect(h.price).toBe(Math.round(Number(bars[0].close) * 100) / 100);
      expect(h.stop_loss).toBe(Math.round((h.price as number) * 0.96 * 100) / 100);
      expect(h.market_value).toBeGreaterThan(13_000);
      expect(h.market_value).toBeLessThanOrEqual(14_000);
    }
    // Cash is 30% of the value (the holdings' value to the dollar), the open risk at the stops under 5%.
    expect(Math.abs(book.cash - (book.holdings_value * 3) / 7)).toBeLessThanOrEqual(0.5);
    expect(book.cash / book.total_value).toBeCloseTo(0.3, 3);
    const risk = book.holdings.reduce((s, h) => s + h.shares * ((h.price as number) - (h.stop_loss as number)), 0);
    expect(risk / book.total_value).toBeLessThan(0.03);
  });
});

it('does nothing when the book exists, whatever happened to it since', async () => {
  const traded = await inStore(async (db) => {
    const service = new PortfolioService(db, { now });
    const book = await service.book(partner, DEMO_PORTFOLIO_ID);
    const symbol = book.holdings[0].symbol;
    await service.trade(partner, DEMO_PORTFOLIO_ID, { symbol, side: 'SELL', shares: 1 }, { traceId: 't', naming: 'rest' });
    return service.book(partner, DEMO_PORTFOLIO_ID);
  });
  expect(traded.version).toBe(2);
  expect(await inStore((db) => ensureDemoBook(db, { exclude, now }))).toBeNull();
  const after = await inStore((db) => new PortfolioService(db, { now }).book(partner, DEMO_PORTFOLIO_ID));
  expect(after).toEqual(traded);
});

it('creates nothing on a store without a synthetic market', async () => {
  const report = await empty.inStore(async (db) => {
    await migrate(db, ALL_MIGRATIONS);
    return ensureDemoBook(db, { exclude, now });
  });
  expect(report).toBeNull();
  expect(await empty.inStore(async (db) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolios'))[0].n)).toBe(0);
});

const onPostgres = process.env.TEST_DATABASE_URL ? it : it.skip;

onPostgres('on PostgreSQL, losing the insert to another process that created it meanwhile is "already there" (null), not a crash', async () => {
  const database = await createPostgresDatabase();
  const db = await openPostgres(database.url);
  const other = new pg.Client({ connectionString: database.url });
  await other.connect();
  try {
    await generateQuietly(testConfig({ DATABASE_URL: database.url }), ['--symbols', '22', '--years', '1']);
    // The other process's book, inserted in a transaction it has not committed yet: invisible to the
    // check, so this process plans the book and its insert waits on the id, then fails when that commits.
    expect(await ensureDemoBook(db, { exclude, now })).toMatchObject({ portfolioId: DEMO_PORTFOLIO_ID });
    await other.query('CREATE TEMP TABLE theirs AS SELECT * FROM portfolios WHERE id = $1::uuid', [DEMO_PORTFOLIO_ID]);
    await other.query('DELETE FROM portfolios WHERE id = $1::uuid', [DEMO_PORTFOLIO_ID]);
    await other.query('BEGIN');
    await other.query('INSERT INTO portfolios SELECT * FROM theirs');
    const ours = ensureDemoBook(db, { exclude, now });
    const waiting = () =>
      other
        .query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
        .then((r) => r.rows[0].n > 0);
    expect(await eventually(waiting, scaled(10_000), 20)).toBe(true);
    await other.query('COMMIT');
    expect(await ours).toBeNull();
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolios WHERE id = $1::uuid', [DEMO_PORTFOLIO_ID]))[0].n).toBe(1);
  } finally {
    await other.end();
    await db.close();
    await database.drop();
  }
});
