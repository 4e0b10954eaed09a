/**
 * Books on a real store (PGlite always, PostgreSQL too when TEST_DATABASE_URL is set): the portfolio
 * service creates, trades, imports and rebalances in transactions that write everything or nothing;
 * optimistic concurrency (If-Match / expectedVersion) and Idempotency-Key; optimize writes a book the
 * same service trades; the migration turns an optimize result stored before books into one.
 *
 * The store holds the test config's small demo market and one day of the real pipeline's snapshots. The
 * service's clock is fixed to the day after the last bar, so "today" and the latest closes are known.
 */
import { ALL_MIGRATIONS } from '../../app/migrations.js';
import { PortfolioService } from '../../subgraphs/allocation/portfolios.js';
import { AllocationService } from '../../subgraphs/allocation/service.js';
import { findPortfolioHoldings, portfolioVersion } from '../../subgraphs/allocation/store.js';
import { UniverseCache } from '../../subgraphs/allocation/universe.js';
import { ensureDemoMarket } from '../../subgraphs/analysis/market-data.js';
import type { BookResponse, RebalanceResponse } from '../../subgraphs/allocation/book-types.js';
import type { Principal } from '../../subgraphs/platform/auth.js';
import type { Db } from '../../subgraphs/platform/db.js';
import { AppError } from '../../subgraphs/platform/errors.js';
import { migrate } from '../../subgraphs/platform/migrations.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { testConfig } from '../helpers/config.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';

const partner = (sub: string): Principal => ({ kind: 'partner', partnerId: sub, claims: { sub } });
const ALICE = partner('alice');
const BOB = partner('bob');
const W = { traceId: 'trace-test', naming: 'rest' as const };
const cents = (x: number): number => Math.round(x * 100);

/** The code and details of what `run` throws (fails the test when it does not throw an AppError). */
async function refusal(run: () => Promise<unknown>): Promise<{ code: string; fields: string[]; messages: string[] }> {
  try {
    await run();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { code: err.code, fields: err.details.map((d) => d.field ?? ''), messages: err.details.map((d) => d.message) };
  }
  throw new Error('expected a refusal');
}

/** Every row of the book tables, to compare before and after a refusal. */
async function tables(db: Db): Promise<string> {
  const parts = await Promise.all(
    [
      'SELECT id, partner_id, cash, version, updated_at FROM portfolios ORDER BY id',
      'SELECT * FROM portfolio_holdings ORDER BY portfolio_id, symbol',
      'SELECT * FROM portfolio_trades ORDER BY portfolio_id, seq',
      'SELECT * FROM portfolio_requests ORDER BY portfolio_id, idempotency_key',
    ].map((sql) => db.query(sql)),
  );
  return JSON.stringify(parts);
}

describe.each(BACKENDS)('books on %s', (backend) => {
  let store: TestDb;
  let db: Db;
  let service: PortfolioService;
  let symbols: string[];
  let today: string;
  /** Latest close (cents) and its date per symbol. */
  const latest = new Map<string, { cents: number; date: string }>();

  beforeAll(async () => {
    const config = testConfig();
    store = await openTestDb(backend);
    db = store.db;
    await ensureDemoMarket(db, { seed: config.demo.seed, symbolCount: config.demo.symbolCount, years: config.demo.years, endDate: config.demo.endDate, indexSymbol: config.marketIndexSymbol });
    const equities = await db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' ORDER BY symbol");
    symbols = equities.map((r) => r.symbol);
    await seedAnalysis(db, { symbols, days: 1 });
    const rows = await db.query<{ symbol: string; date: string; close: number }>(
      'SELECT DISTINCT ON (symbol) symbol, date::text AS date, close FROM bars ORDER BY symbol, date DESC',
    );
    for (const r of rows) latest.set(r.symbol, { cents: cents(r.close), date: r.date });
    const last = rows.reduce((m, r) => (r.date > m ? r.date : m), '');
    const now = new Date(`${last}T15:00:00Z`);
    now.setUTCDate(now.getUTCDate() + 1);
    today = now.toISOString().slice(0, 10);
    service = new PortfolioService(db, { now: () => now, universes: new UniverseCache(db, 0) });
  }, 300_000);

  afterAll(async () => {
    await store?.drop();
  });

  const create = (body: Record<string, unknown>, principal = ALICE, key?: string) => service.create(principal, body, { ...W, idempotencyKey: key });
  const [A, B, C] = [0, 1, 2];
  const sym = (i: number) => symbols[i];

  test('a book created from holdings and cash is stored whole and valued at the latest closes', async () => {
    const out = await create({
      name: 'Real book',
      cash: 5000.5,
      holdings: [
        { symbol: sym(A), shares: 10, cost_basis: 12.3456, entry_date: '2024-01-02', stop_loss: 9.5 },
        { symbol: sym(B), shares: 3, cost_basis: 40 },
      ],
    });
    const book = out.response;
    expect(out.replayed).toBe(false);
    expect(book).toMatchObject({ name: 'Real book', currency: 'USD', source: 'holdings', version: 1, cash: 5000.5, position_count: 2 });
    const a = book.holdings.find((h) => h.symbol === sym(A))!;
    const b = book.holdings.find((h) => h.symbol === sym(B))!;
    // cost_total = round(10 x 12.3456, cents); market value = shares x latest close.
    expect(a).toMatchObject({ shares: 10, cost_total: 123.46, entry_date: '2024-01-02', stop_loss: 9.5, target_price: null, price_date: latest.get(sym(A))!.date });
    expect(cents(a.market_value)).toBe(10 * latest.get(sym(A))!.cents);
    expect(b.entry_date).toBe(today);
    expect(b.days_held).toBe(0);
    expect(cents(book.total_value)).toBe(cents(5000.5) + 10 * latest.get(sym(A))!.cents + 3 * latest.get(sym(B))!.cents);
    expect(book.holdings.map((h) => h.market_value)).toEqual([...book.holdings.map((h) => h.market_value)].sort((x, y) => y - x));
    expect(book.risk_settings.max_positions).toBe(30);
    expect(book.trades).toEqual({ items: [], page: 1, page_size: 20, total: 0, has_more: false });
    const stored = await findPortfolioHoldings(db, book.portfolio_id);
    expect(stored).toMatchObject({ partnerId: 'alice', version: 1, cash: 5000.5 });
    expect(stored!.positions.map((p) => [p.symbol, p.shares, p.costTotal, p.stopLoss])).toEqual([
      [sym(A), 10, 123.46, 9.5],
      [sym(B), 3, 120, null],
    ]);
    // The cost per share search reads is the book's cost_basis: 123.46 / 10 to 4 decimals, not to the cent.
    expect(a.cost_basis).toBe(12.346);
    expect(stored!.positions.map((p) => [p.symbol, p.entryPrice])).toEqual([
      [sym(A), a.cost_basis],
      [sym(B), b.cost_basis],
    ]);
    expect(await portfolioVersion(db, book.portfolio_id)).toEqual({ partnerId: 'alice', version: 1 });
    // Another partner's book does not exist for them.
    expect((await refusal(() => service.book(BOB, book.portfolio_id))).code).toBe('PORTFOLIO_NOT_FOUND');
  });

  test('a refused book writes nothing and names every bad field', async () => {
    const before = await tables(db);
    const r = await refusal(() =>
      create({
        name: 'Bad',
        cash: 10,
        holdings: [
          { symbol: 'NOPE', shares: 1, cost_basis: 1 },
          { symbol: sym(A), shares: 1, cost_basis: 1, entry_date: '2999-01-01' },
          { symbol: sym(A), shares: 2, cost_basis: 1 },
        ],
      }),
    );
    expect(r.code).toBe('VALIDATION_FAILED');
    expect(r.fields).toEqual(['holdings[0].symbol', 'holdings[1].entry_date', 'holdings[2].symbol']);
    expect((await refusal(() => create({ name: 'Bad', cash: -1, holdings: [] }))).fields).toContain('cash');
    expect(await tables(db)).toBe(before);
  });

  test('trades move shares and cash together, are logged, and a full sale closes the holding', async () => {
    const { response: book } = await create({ name: 'Trading', cash: 1000, holdings: [{ symbol: sym(A), shares: 10, cost_basis: 10 }] });
    const id = book.portfolio_id;
    const price = latest.get(sym(B))!.cents;
    const buy = await service.trade(ALICE, id, { symbol: sym(B), side: 'BUY', shares: 2 }, { ...W, ifMatch: '"1"' });
    expect(buy.response.trade).toMatchObject({ seq: 1, side: 'BUY', shares: 2, price_source: 'close', date: today, realised_pnl: null, version: 2, origin: 'trade' });
    expect(cents(buy.response.trade.price)).toBe(price);
    expect(cents(buy.response.trade.cash_after)).toBe(100000 - 2 * price);
    expect(buy.response.portfolio.version).toBe(2);
    const opened = buy.response.portfolio.holdings.find((h) => h.symbol === sym(B))!;
    expect(opened).toMatchObject({ shares: 2, entry_date: today });
    expect(cents(opened.cost_total)).toBe(2 * price);
    const [row] = await db.query<{ position: number }>('SELECT position FROM portfolio_holdings WHERE portfolio_id = $1::uuid AND symbol = $2', [id, sym(B)]);
    expect(row.position).toBe(2);

    // Sell 4 of 10 at 12.50: cost removed round(100.00 x 4/10) = 40.00 -> realised 50.00 - 40.00.
    const sell = await service.trade(ALICE, id, { symbol: sym(A), side: 'SELL', shares: 4, price: 12.5, date: '2024-03-01' }, W);
    expect(sell.response.trade).toMatchObject({ seq: 2, price: 12.5, price_source: 'given', realised_pnl: 10, value: 50, date: '2024-03-01', version: 3 });
    expect(sell.response.portfolio.holdings.find((h) => h.symbol === sym(A))).toMatchObject({ shares: 6, cost_total: 60, cost_basis: 10 });
    const all = await service.trade(ALICE, id, { symbol: sym(A), side: 'SELL', shares: 6, price: 9 }, W);
    expect(all.response.trade.realised_pnl).toBe(-6);
    expect(all.response.portfolio.holdings.map((h) => h.symbol)).toEqual([sym(B)]);
    expect(all.response.portfolio.realised_pnl).toBe(4);
    expect(cents(all.response.portfolio.cash)).toBe(100000 - 2 * price + 5000 + 5400);
    const page = await service.trades(ALICE, id, { page: 1, pageSize: 2, naming: 'rest' });
    expect(page.items.map((t) => t.seq)).toEqual([3, 2]);
    expect(page).toMatchObject({ total: 3, has_more: true, page_size: 2 });
  });

  test('a buy beyond the cash, a sale beyond the shares, a stale version and a future date write nothing', async () => {
    const { response: book } = await create({ name: 'Refusals', cash: 100, holdings: [{ symbol: sym(A), shares: 5, cost_basis: 10 }] });
    const id = book.portfolio_id;
    const before = await tables(db);
    const cash = await refusal(() => service.trade(ALICE, id, { symbol: sym(A), side: 'BUY', shares: 1, price: 100.01 }, W));
    expect(cash).toMatchObject({ code: 'INSUFFICIENT_CASH', fields: ['price'] });
    const many = await refusal(() => service.trade(ALICE, id, { symbol: sym(A), side: 'BUY', shares: 11, price: 10 }, W));
    expect(many).toMatchObject({ code: 'INSUFFICIENT_CASH', fields: ['shares'] });
    const shares = await refusal(() => service.trade(ALICE, id, { symbol: sym(A), side: 'SELL', shares: 6, price: 10 }, W));
    expect(shares).toMatchObject({ code: 'INSUFFICIENT_SHARES', fields: ['shares'] });
    const none = await refusal(() => service.trade(ALICE, id, { symbol: sym(C), side: 'SELL', shares: 1 }, W));
    expect(none.code).toBe('INSUFFICIENT_SHARES');
    const stale = await refusal(() => service.trade(ALICE, id, { symbol: sym(A), side: 'SELL', shares: 1 }, { ...W, ifMatch: '"7", W/"8"' }));
    expect(stale).toMatchObject({ code: 'PRECONDITION_FAILED', fields: ['If-Match'], messages: ['the book is at version 1'] });
    const staleGraphql = await refusal(() => service.trade(ALICE, id, { symbol: sym(A), side: 'SELL', shares: 1 }, { ...W, naming: 'graphql', expectedVersion: 2 }));
    expect(staleGraphql).toMatchObject({ code: 'PRECONDITION_FAILED', fields: ['expectedVersion'] });
    expect((await refusal(() => service.trade(ALICE, id, { symbol: sym(A), side: 'SELL', shares: 1, date: '2999-01-01' }, W))).fields).toEqual(['date']);
    expect((await refusal(() => service.trade(ALICE, id, { symbol: 'NOPE', side: 'BUY', shares: 1 }, W))).fields).toEqual(['symbol']);
    expect((await refusal(() => service.trade(BOB, id, { symbol: sym(A), side: 'SELL', shares: 1 }, W))).code).toBe('PORTFOLIO_NOT_FOUND');
    expect(await tables(db)).toBe(before);
    // The weak tag of the current version and * both match.
    expect((await service.trade(ALICE, id, { symbol: sym(A), side: 'SELL', shares: 1, price: 10 }, { ...W, ifMatch: 'W/"1"' })).response.portfolio.version).toBe(2);
    expect((await service.trade(ALICE, id, { symbol: sym(A), side: 'SELL', shares: 1, price: 10 }, { ...W, ifMatch: '*' })).response.portfolio.version).toBe(3);
  });

  test('two trades sent on the same version: one is recorded, the other is 412 and writes nothing', async () => {
    const { response: book } = await create({ name: 'Race', cash: 0, holdings: [{ symbol: sym(A), shares: 5, cost_basis: 10 }] });
    const sale = (shares: number) => service.trade(ALICE, book.portfolio_id, { symbol: sym(A), side: 'SELL', shares, price: 11 }, { ...W, ifMatch: '"1"' });
    const results = await Promise.allSettled([sale(1), sale(2)]);
    const ok = results.filter((r) => r.status === 'fulfilled');
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(1);
    expect(failed).toHaveLength(1);
    expect((failed[0].reason as AppError).code).toBe('PRECONDITION_FAILED');
    const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolio_trades WHERE portfolio_id = $1::uuid', [book.portfolio_id]);
    expect(n).toBe(1);
    expect((await service.book(ALICE, book.portfolio_id)).version).toBe(2);
  });

  test('a retried trade with the same Idempotency-Key answers as the first and records nothing new', async () => {
    const { response: book } = await create({ name: 'Retry', cash: 1000, holdings: [] });
    const body = { symbol: sym(A), side: 'BUY', shares: 3, price: 20 };
    const first = await service.trade(ALICE, book.portfolio_id, body, { ...W, idempotencyKey: 'k-1', ifMatch: '"1"' });
    // The retry carries the now stale If-Match: it is still the same request, answered as it was.
    const again = await service.trade(ALICE, book.portfolio_id, { ...body }, { ...W, idempotencyKey: 'k-1', ifMatch: '"1"' });
    expect(again.replayed).toBe(true);
    expect(again.response).toEqual(first.response);
    expect((await service.book(ALICE, book.portfolio_id)).cash).toBe(940);
    const reused = await refusal(() => service.trade(ALICE, book.portfolio_id, { ...body, shares: 4 }, { ...W, idempotencyKey: 'k-1' }));
    expect(reused).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', fields: ['Idempotency-Key'] });
    // A new book with a key: the retry is the same book.
    const made = await create({ name: 'Keyed', cash: 1, holdings: [] }, ALICE, 'create-1');
    const remade = await create({ name: 'Keyed', cash: 1, holdings: [] }, ALICE, 'create-1');
    expect(remade.replayed).toBe(true);
    expect(remade.response.portfolio_id).toBe(made.response.portfolio_id);
    expect((await refusal(() => create({ name: 'Other', cash: 1, holdings: [] }, ALICE, 'create-1'))).code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  test('an import lists every bad line, writes nothing, and then creates a book from the file', async () => {
    const before = await tables(db);
    const bad = await refusal(() => service.importCsv(ALICE, `symbol,shares,cost_basis\nNOPE,1,1\n${sym(A)},x,1\n`, { name: 'Imported', cash: '100' }, W));
    expect(bad.code).toBe('VALIDATION_FAILED');
    expect(bad.fields).toEqual(expect.arrayContaining(['line 3: shares']));
    expect((await refusal(() => service.importCsv(ALICE, `symbol,shares,cost_basis\nNOPE,1,1\n`, { name: 'Imported', cash: '100' }, W))).fields).toEqual(['line 2: symbol']);
    expect((await refusal(() => service.importCsv(ALICE, `symbol,shares,cost_basis\n`, { name: 'Imported', cash: 'lots' }, W))).fields).toEqual(['cash']);
    expect(await tables(db)).toBe(before);
    const ok = await service.importCsv(ALICE, `Symbol,Shares,Cost_Basis,Entry_Date\n${sym(A)},4,"1,000.25",2024-02-01\n`, { name: 'Imported', cash: '250.75' }, W);
    expect(ok.response).toMatchObject({ source: 'import', cash: 250.75, holdings: [{ symbol: sym(A), shares: 4, cost_total: 4001, entry_date: '2024-02-01' }] });
  });

  test('optimize writes a book the portfolio service trades and search reads', async () => {
    const allocation = new AllocationService(db, { universes: new UniverseCache(db, 0) });
    const out = await allocation.optimizeBody(ALICE, { name: 'Optimized', total_capital: 100000, risk_settings: { max_positions: 5, allocation_strategy: 'EQUAL_WEIGHT' } }, W);
    const id = out.response.portfolio_id;
    const book = await service.book(ALICE, id);
    expect(book).toMatchObject({ source: 'optimize', version: 1, cash: out.response.remaining_capital, position_count: out.response.position_count });
    expect(book.risk_settings).toEqual(out.response.risk_settings);
    expect(await service.optimizeResultText(ALICE, id)).toBe(out.responseText);
    const stored = await findPortfolioHoldings(db, id);
    expect(stored!.positions.map((p) => [p.symbol, p.shares, p.entryPrice, p.stopLoss])).toEqual(
      out.response.allocations.map((a) => [a.symbol, a.shares, a.entry_price, a.stop_loss]),
    );
    expect(out.response.allocations.length).toBeGreaterThan(0);
    {
      const first = out.response.allocations[0];
      const sold = await service.trade(ALICE, id, { symbol: first.symbol, side: 'SELL', shares: first.shares }, W);
      expect(sold.response.portfolio.holdings.map((h) => h.symbol)).not.toContain(first.symbol);
      expect((await findPortfolioHoldings(db, id))!.version).toBe(2);
    }
    // A created book has no optimize result.
    const { response: created } = await create({ name: 'No result', cash: 1, holdings: [] });
    expect((await refusal(() => service.optimizeResultText(ALICE, created.portfolio_id))).code).toBe('PORTFOLIO_NOT_FOUND');
  });

  test('a rebalance ends exactly at its target, sells before buys, cash never negative; applied it is one version', async () => {
    const { response: book } = await create({
      name: 'To rebalance',
      cash: 30000,
      holdings: symbols.slice(0, 4).map((symbol, i) => ({ symbol, shares: 10 + i, cost_basis: 20 })),
    });
    const id = book.portfolio_id;
    const body = { risk_settings: { max_positions: 3, allocation_strategy: 'EQUAL_WEIGHT' } };
    const plan = (await service.rebalance(ALICE, id, body, { ...W, apply: false })).response;
    checkPlan(book, plan, 3);
    // Four holdings and at most three names: at least one holding is sold.
    expect(plan.orders.some((o) => o.side === 'SELL')).toBe(true);
    // The optimizer was given the book as its prior weights.
    expect(plan.optimizer_diagnostics.binding_notes).toContain('prior_book_weights: ignored for sizing because the constraint pack sets no max_portfolio_turnover_annual');
    expect(plan.risk_settings).toMatchObject({ max_positions: 3, allocation_strategy: 'EQUAL_WEIGHT', max_risk_per_trade: 0.01 });
    expect(plan).toMatchObject({ applied: false, version: 1, version_after: null, trades: [] });
    expect((await service.book(ALICE, id)).version).toBe(1);

    const stale = await refusal(() => service.rebalance(ALICE, id, body, { ...W, apply: true, ifMatch: '"2"' }));
    expect(stale.code).toBe('PRECONDITION_FAILED');
    const applied = await service.rebalance(ALICE, id, body, { ...W, apply: true, ifMatch: '"1"', idempotencyKey: 'rb-1' });
    expect(applied.response).toMatchObject({ applied: true, version: 1, version_after: plan.orders.length ? 2 : 1 });
    expect(applied.response.orders).toEqual(plan.orders);
    expect(applied.response.trades.map((t) => [t.symbol, t.side, t.shares, t.origin, t.version])).toEqual(
      plan.orders.map((o) => [o.symbol, o.side, o.shares, 'rebalance', applied.response.version_after]),
    );
    const after = await service.book(ALICE, id);
    expect(Object.fromEntries(after.holdings.map((h) => [h.symbol, h.shares]))).toEqual(Object.fromEntries(plan.target.map((t) => [t.symbol, t.shares])));
    expect(after.cash).toBe(plan.cash_after);
    const replay = await service.rebalance(ALICE, id, body, { ...W, apply: true, ifMatch: '"1"', idempotencyKey: 'rb-1' });
    expect(replay.replayed).toBe(true);
    expect(replay.response).toEqual(applied.response);
    expect((await service.book(ALICE, id)).version).toBe(after.version);
  });

  test('a rebalance plans a holding with no close stored at its average cost, and its order says so (price_source cost)', async () => {
    // A security like the first one, with bars to create the book on; then its bars go.
    const copy = (table: string) =>
      db.query(`INSERT INTO ${table} SELECT (jsonb_populate_record(t, jsonb_build_object('symbol', 'ZZNC'))).* FROM ${table} t WHERE t.symbol = $1`, [sym(A)]);
    await copy('securities');
    await copy('bars');
    const book = (await create({ name: 'No close', cash: 1000, holdings: [{ symbol: 'ZZNC', shares: 8, cost_basis: 12.5 }, { symbol: sym(B), shares: 2, cost_basis: 30 }] })).response;
    await db.query("DELETE FROM bars WHERE symbol = 'ZZNC'");
    const plan = (await service.rebalance(ALICE, book.portfolio_id, {}, { ...W, apply: false })).response;
    expect(plan.notes).toContain('ZZNC: no close stored, so it is valued and traded at its cost basis');
    // Not in the optimizer's target (no snapshot): sold whole, at 12.50 a share, from its cost.
    expect(plan.orders.find((o) => o.symbol === 'ZZNC')).toEqual({ symbol: 'ZZNC', side: 'SELL', shares: 8, price: 12.5, value: 100, price_source: 'cost' });
    for (const o of plan.orders.filter((x) => x.symbol !== 'ZZNC')) expect(o.price_source).toBe('close');
    // Applied, the sale is recorded with the price and the source it was planned with.
    const applied = (await service.rebalance(ALICE, book.portfolio_id, {}, { ...W, apply: true })).response;
    expect(applied.trades.find((t) => t.symbol === 'ZZNC')).toMatchObject({ side: 'SELL', shares: 8, price: 12.5, price_source: 'cost', realised_pnl: 0 });
    expect((await service.book(ALICE, book.portfolio_id)).holdings.map((h) => h.symbol)).not.toContain('ZZNC');
  });

  function checkPlan(book: BookResponse, plan: RebalanceResponse, maxPositions: number): void {
    expect(plan.target.length).toBeLessThanOrEqual(maxPositions);
    const sides = plan.orders.map((o) => o.side);
    expect(sides).toEqual([...sides].sort((a, b) => (a === 'SELL' ? 0 : 1) - (b === 'SELL' ? 0 : 1)));
    const shares = new Map(book.holdings.map((h) => [h.symbol, h.shares]));
    let cash = cents(book.cash);
    for (const o of plan.orders) {
      cash += (o.side === 'SELL' ? 1 : -1) * o.shares * cents(o.price);
      expect(cash).toBeGreaterThanOrEqual(0);
      const n = (shares.get(o.symbol) ?? 0) + (o.side === 'SELL' ? -o.shares : o.shares);
      if (n === 0) shares.delete(o.symbol);
      else shares.set(o.symbol, n);
    }
    expect(cash).toBe(cents(plan.cash_after));
    expect(Object.fromEntries(shares)).toEqual(Object.fromEntries(plan.target.map((t) => [t.symbol, t.shares])));
    expect(plan.turnover).toBeCloseTo((plan.sell_value + plan.buy_value) / (2 * plan.total_value), 5);
    for (const h of book.holdings) if (!plan.target.some((t) => t.symbol === h.symbol)) expect(plan.orders).toContainEqual(expect.objectContaining({ symbol: h.symbol, side: 'SELL', shares: h.shares }));
  }
});

describe.each(BACKENDS)('the books migration on %s', (backend) => {
  test('an optimize result stored before books becomes a book: holdings, cash, version 1', async () => {
    const store = await openTestDb(backend, { migrate: false });
    try {
      await migrate(store.db, ALL_MIGRATIONS.filter((m) => m.version <= 2026120202));
      const id = '00000000-0000-4000-8000-000000000001';
      await store.db.query(
        `INSERT INTO portfolios (id, partner_id, name, currency, total_capital, allocated_capital, remaining_capital, position_count, analysis_date,
                                 created_at, trace_id, request_hash, request, effective_settings, response)
         VALUES ($1::uuid, 'alice', 'Old', 'USD', 10000, 2500.5, 7499.5, 2, '2024-05-31', '2024-06-01T10:00:00Z', 't', 'h', '{}', '{}', '{}')`,
        [id],
      );
      await store.db.query(
        `INSERT INTO portfolio_positions (portfolio_id, rank, symbol, sector, shares, entry_price, stop_loss, target_price, position_value, risk_amount, weight, support_at_entry)
         VALUES ($1::uuid, 1, 'BBB', 'Energy', 10, 150.05, 140, 180, 1500.5, 100.5, 0.15, 145),
                ($1::uuid, 2, 'AAA', NULL, 20, 50, 45, NULL, 1000, 100, 0.1, NULL)`,
        [id],
      );
      await migrate(store.db, ALL_MIGRATIONS);
      const [p] = await store.db.query(`SELECT cash::float8 AS cash, version::int AS version, source, updated_at = created_at AS same FROM portfolios WHERE id = $1::uuid`, [id]);
      expect(p).toEqual({ cash: 7499.5, version: 1, source: 'optimize', same: true });
      const holdings = await findPortfolioHoldings(store.db, id);
      expect(holdings!.positions.map((x) => [x.symbol, x.shares, x.costTotal, x.entryDate, x.stopLoss, x.targetPrice, x.sector, x.supportAtEntry])).toEqual([
        ['BBB', 10, 1500.5, '2024-05-31', 140, 180, 'Energy', 145],
        ['AAA', 20, 1000, '2024-05-31', 45, null, null, null],
      ]);
      const [gone] = await store.db.query<{ t: string | null }>("SELECT to_regclass('portfolio_positions')::text AS t");
      expect(gone.t).toBeNull();
    } finally {
      await store.drop();
    }
  }, 60_000);
});
