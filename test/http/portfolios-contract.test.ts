/**
 * A partner's books over REST against the HTTP contract: DESIGN section 8 "portfolios" (the spec leaves
 * the portfolio read service unspecified: "Its endpoints are not shown"), with the spec's "Errors" and
 * "Authentication" and DESIGN section 5 (error shape, Idempotency-Key). Routes:
 *
 *   POST /api/v1/portfolios, POST /api/v1/portfolios/import (text/csv), GET /api/v1/portfolios/{id},
 *   GET .../{id}/optimization, GET and POST .../{id}/trades, POST .../{id}/rebalance[?apply=true]
 *
 * Real HTTP on port 0, real signed partner tokens, the demo market's bars and the real pipeline's
 * snapshots. Every JSON response is checked against the origin's /openapi.json. Every refusal is checked
 * to write nothing (rows counted before and after). Runs on PGlite, and on PostgreSQL when
 * TEST_DATABASE_URL is set.
 */
import fc from 'fast-check';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import type { BookResponse as Book, RebalanceResponse as Rebalance, TradePage, TradeRecord as Trade } from '../../subgraphs/allocation/book-types.js';
import { fromCents, toCents } from '../../subgraphs/allocation/engine/money.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { storeEdgeOdds } from '../helpers/kelly-odds.js';
import { checkResponse, fetchOpenApi, templateFor, type OpenApiDocument } from '../helpers/openapi.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';
import { expectErrorShape, request, type JsonResponse } from '../helpers/http.js';

type Json = Record<string, unknown>;
interface Detail {
  field?: string;
  message: string;
}
const PORTFOLIOS = '/api/v1/portfolios';
const IMPORT = '/api/v1/portfolios/import';
const NOBODY = '00000000-0000-4000-8000-000000000000';

/** A book's shares by symbol. */
const sharesOf = (b: Book) => Object.fromEntries(b.holdings.map((h) => [h.symbol, h.shares]));
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

describe.each(BACKENDS)('portfolios REST contract on %s', (backend) => {
  const config = testConfig({ ANALYZE_ON_START: 'false' });
  let store: TestDb;
  let platform: RunningPlatform;
  let openapi: OpenApiDocument;
  let token: string;
  let otherToken: string;
  /** Equities of the demo market with bars, in symbol order. */
  let symbols: string[];
  /** Latest close (to the cent) and its date, by symbol. */
  const closes = new Map<string, { price: number; date: string }>();

  const mint = (over: Partial<Parameters<typeof mintPartnerToken>[0]> = {}) =>
    mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'partner-books', ...over });
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${token}` });

  const call = async <T = Json>(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = auth()): Promise<JsonResponse<T>> => {
    const res = await request<T>(`${platform.urls.allocation}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    // Every response fits the origin's own OpenAPI document.
    if (templateFor(openapi, path) && res.headers.get('content-type')?.includes('json')) checkResponse(openapi, method, path, res.status, res.body);
    return res;
  };
  const upload = async (csv: string, query = '', headers: Record<string, string> = {}): Promise<JsonResponse<Json>> => {
    const path = `${IMPORT}${query}`;
    const res = await request<Json>(`${platform.urls.allocation}${path}`, { method: 'POST', headers: { ...auth(), 'content-type': 'text/csv', ...headers }, body: csv });
    if (res.headers.get('content-type')?.includes('json')) checkResponse(openapi, 'POST', path, res.status, res.body);
    return res;
  };
  const create = (body: unknown, headers: Record<string, string> = {}) => call<Book>('POST', PORTFOLIOS, body, { ...auth(), ...headers });
  const getBook = (id: string, headers = auth()) => call<Book>('GET', `${PORTFOLIOS}/${id}`, undefined, headers);
  const trade = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    call<{ trade: Trade; portfolio: Book }>('POST', `${PORTFOLIOS}/${id}/trades`, body, { ...auth(), ...headers });
  const rebalance = (id: string, body: unknown, query = '', headers: Record<string, string> = {}) =>
    call<Rebalance>('POST', `${PORTFOLIOS}/${id}/rebalance${query}`, body, { ...auth(), ...headers });

  const fields = (res: JsonResponse<unknown>) => ((res.body as unknown as Json).details as Detail[]).map((d) => d.field);
  /** Rows of every book table: a refusal must leave them all as they were. */
  const counts = async () => {
    const n = async (table: string) => (await store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
    return { portfolios: await n('portfolios'), holdings: await n('portfolio_holdings'), trades: await n('portfolio_trades'), requests: await n('portfolio_requests') };
  };
  /** A book's header row as stored. */
  const stored = async (id: string) =>
    (await store.db.query<{ cash: string; version: string }>('SELECT cash::text AS cash, version::text AS version FROM portfolios WHERE id = $1::uuid', [id]))[0];

  const newBook = (over: Json = {}): Json => ({
    name: 'Core book',
    cash: 20000,
    holdings: [
      { symbol: symbols[0], shares: 40, cost_basis: 61.25, entry_date: '2025-03-14' },
      { symbol: symbols[1], shares: 15, cost_basis: 120.5, stop_loss: 100, target_price: 180 },
    ],
    ...over,
  });
  const makeBook = async (over: Json = {}): Promise<Book> => {
    const res = await create(newBook(over));
    expect(res.status).toBe(201);
    return res.body;
  };

  beforeAll(async () => {
    store = await openTestDb(backend);
    platform = await startPlatform(config, ['analysis', 'allocation'], { db: store.db });
    openapi = await fetchOpenApi(platform.urls.allocation as string);
    const equities = await store.db.query<{ symbol: string }>(
      "SELECT s.symbol FROM securities s WHERE s.asset_type = 'EQUITY' AND EXISTS (SELECT 1 FROM bars b WHERE b.symbol = s.symbol) ORDER BY s.symbol",
    );
    symbols = equities.map((r) => r.symbol);
    for (const symbol of symbols) {
      const [bar] = await store.db.query<{ date: string; close: number }>('SELECT date::text AS date, close FROM bars WHERE symbol = $1 ORDER BY date DESC LIMIT 1', [symbol]);
      closes.set(symbol, { price: fromCents(toCents(Number(bar.close))), date: bar.date });
    }
    // Rebalance runs the optimizer on the stored snapshots (and Kelly odds), as optimize does.
    await seedAnalysis(store.db, { symbols, days: 1 });
    await storeEdgeOdds(store.db);
    token = await mint();
    otherToken = await mint({ subject: 'partner-books-2' });
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
  });

  describe('create (POST /api/v1/portfolios; DESIGN section 8 "portfolios")', () => {
    it('answers 201 with the book valued at the latest closes, Location and ETag "1"; GET Location reads the same book', async () => {
      const before = await counts();
      const res = await create(newBook());
      expect(res.status).toBe(201);
      const book = res.body;
      expect(res.headers.get('etag')).toBe('"1"');
      expect(res.headers.get('location')).toBe(`${PORTFOLIOS}/${book.portfolio_id}`);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(book).toMatchObject({ name: 'Core book', currency: 'USD', source: 'holdings', version: 1, cash: 20000, position_count: 2, realised_pnl: 0 });
      expect(book.trades).toEqual({ items: [], page: 1, page_size: 20, total: 0, has_more: false });
      // The spec's RiskSettings defaults, filled in.
      expect(book.risk_settings).toMatchObject({ max_risk_per_trade: 0.01, max_portfolio_risk: 0.05, max_position_size: 0.2, max_positions: 30 });

      let holdingsValue = 0;
      for (const h of book.holdings) {
        const close = closes.get(h.symbol)!;
        expect(h.price).toBe(close.price);
        expect(h.price_date).toBe(close.date);
        expect(toCents(h.market_value)).toBe(h.shares * toCents(close.price));
        expect(toCents(h.unrealised_pnl)).toBe(toCents(h.market_value) - toCents(h.cost_total));
        holdingsValue += toCents(h.market_value);
      }
      const [first, second] = [book.holdings.find((h) => h.symbol === symbols[0])!, book.holdings.find((h) => h.symbol === symbols[1])!];
      expect(first).toMatchObject({ shares: 40, cost_basis: 61.25, cost_total: 2450, entry_date: '2025-03-14', stop_loss: null, target_price: null });
      expect(first.days_held).toBe(Math.max(0, daysBetween('2025-03-14', first.price_date!)));
      expect(second).toMatchObject({ shares: 15, cost_basis: 120.5, cost_total: 1807.5, stop_loss: 100, target_price: 180 });
      expect(toCents(book.holdings_value)).toBe(holdingsValue);
      expect(toCents(book.total_value)).toBe(holdingsValue + toCents(20000));
      expect(toCents(book.cost_total)).toBe(245000 + 180750);
      for (const h of book.holdings) expect(h.weight).toBeCloseTo(h.market_value / book.total_value, 6);
      // Largest market value first.
      expect(book.holdings.map((h) => h.market_value)).toEqual([...book.holdings.map((h) => h.market_value)].sort((a, b) => b - a));
      expect(book.valuation_date).toBe([closes.get(symbols[0])!.date, closes.get(symbols[1])!.date].sort().at(-1));

      const after = await counts();
      expect(after).toEqual({ ...before, portfolios: before.portfolios + 1, holdings: before.holdings + 2 });

      const read = await call<Book>('GET', res.headers.get('location')!);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(book);
      expect(read.headers.get('etag')).toBe('"1"');
      expect(read.headers.get('cache-control')).toBe('private, no-cache');
    });

    it('a book of cash only, in another currency', async () => {
      const res = await create({ name: 'Cash', currency: 'EUR', cash: 1234.56, holdings: [] });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ currency: 'EUR', cash: 1234.56, holdings_value: 0, total_value: 1234.56, position_count: 0, holdings: [], valuation_date: null });
    });

    it.each<[string, (s: string[]) => unknown, string[]]>([
      ['no name', (s) => ({ cash: 100, holdings: [{ symbol: s[0], shares: 1, cost_basis: 1 }] }), ['name']],
      ['negative cash', () => newBook({ cash: -1 }), ['cash']],
      ['cash in fractions of a cent', () => newBook({ cash: 10.001 }), ['cash']],
      ['cash as a string', () => newBook({ cash: '100' }), ['cash']],
      ['no holdings list', () => ({ name: 'x', cash: 100 }), ['holdings']],
      ['holdings not a list', () => newBook({ holdings: { a: 1 } }), ['holdings']],
      [
        'a bad cell in each of three holdings',
        (s) =>
          newBook({
            holdings: [
              { symbol: s[0], shares: 0, cost_basis: 10 },
              { symbol: s[1], shares: 5, cost_basis: 10.00001 },
              { symbol: s[2], shares: 5, cost_basis: 10, entry_date: '2025-02-30' },
            ],
          }),
        ['holdings[0].shares', 'holdings[1].cost_basis', 'holdings[2].entry_date'],
      ],
      ['fractional shares', (s) => newBook({ holdings: [{ symbol: s[0], shares: 1.5, cost_basis: 10 }] }), ['holdings[0].shares']],
      ['a stop of zero and a target in fractions of a cent', (s) => newBook({ holdings: [{ symbol: s[0], shares: 1, cost_basis: 10, stop_loss: 0, target_price: 20.005 }] }), ['holdings[0].stop_loss', 'holdings[0].target_price']],
      ['a holding without a symbol', () => newBook({ holdings: [{ shares: 1, cost_basis: 10 }] }), ['holdings[0].symbol']],
      ['unknown fields, top level and in a holding', (s) => newBook({ leverage: 2, holdings: [{ symbol: s[0], shares: 1, cost_basis: 1, price: 3 }] }), ['leverage', 'holdings[0].price']],
      ['an unknown currency', () => newBook({ currency: 'XYZ' }), ['currency']],
      ['bad risk settings', () => newBook({ risk_settings: { max_positions: 0, allocation_strategy: 'MOMENTUM' } }), ['risk_settings.max_positions', 'risk_settings.allocation_strategy']],
      ['a camelCase key on REST', () => newBook({ costBasis: 1 }), ['costBasis']],
      ['an array body', () => [newBook()], ['body']],
    ])('%s is 400 VALIDATION_FAILED naming it, and writes nothing', async (_name, body, expected) => {
      const before = await counts();
      const res = await create(body(symbols));
      expect(res.status).toBe(400);
      expectErrorShape(res.body as unknown as Json, 'VALIDATION_FAILED');
      expect(fields(res).sort()).toEqual([...expected].sort());
      expect(await counts()).toEqual(before);
    });

    it('an unknown symbol, a symbol twice and a future entry date are 400 naming the holding, and write nothing', async () => {
      const before = await counts();
      const unknown = await create(newBook({ holdings: [{ symbol: symbols[0], shares: 1, cost_basis: 1 }, { symbol: 'ZZZZ', shares: 1, cost_basis: 1 }] }));
      expect(unknown.status).toBe(400);
      expectErrorShape(unknown.body as unknown as Json, 'VALIDATION_FAILED');
      expect(fields(unknown)).toEqual(['holdings[1].symbol']);

      const twice = await create(newBook({ holdings: [{ symbol: symbols[0], shares: 1, cost_basis: 1 }, { symbol: symbols[0], shares: 2, cost_basis: 1 }] }));
      expect(twice.status).toBe(400);
      expect(fields(twice)).toEqual(['holdings[1].symbol']);

      const future = await create(newBook({ holdings: [{ symbol: symbols[0], shares: 1, cost_basis: 1, entry_date: '2999-01-01' }] }));
      expect(future.status).toBe(400);
      expect(fields(future)).toEqual(['holdings[0].entry_date']);
      expect(await counts()).toEqual(before);
    });

    it('401 without a token or with a bad one; malformed JSON 400; a non-JSON body 415; nothing written', async () => {
      const before = await counts();
      const anonymous = await call('POST', PORTFOLIOS, newBook(), {});
      expect(anonymous.status).toBe(401);
      expectErrorShape(anonymous.body, 'UNAUTHENTICATED');
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
      expect((await call('POST', PORTFOLIOS, newBook(), { authorization: 'Bearer nope' })).status).toBe(401);
      const malformed = await create('{"name": ');
      expect(malformed.status).toBe(400);
      expectErrorShape(malformed.body as unknown as Json, 'MALFORMED_JSON');
      // The CSV parser serves the upload route only: every other route stays JSON-only.
      for (const type of ['text/plain', 'text/csv']) {
        const res = await request<Json>(`${platform.urls.allocation}${PORTFOLIOS}`, { method: 'POST', headers: { ...auth(), 'content-type': type }, body: 'symbol,shares,cost_basis\n' });
        expect(res.status).toBe(415);
        expectErrorShape(res.body, 'UNSUPPORTED_MEDIA_TYPE');
      }
      expect(await counts()).toEqual(before);
    });

    it('Idempotency-Key: a retry answers the first book, another body under the key is 400', async () => {
      const before = await counts();
      const first = await create(newBook({ name: 'keyed' }), { 'idempotency-key': 'create-1' });
      const again = await create(newBook({ name: 'keyed' }), { 'idempotency-key': 'create-1' });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('location')).toBe(first.headers.get('location'));
      expect((await counts()).portfolios).toBe(before.portfolios + 1);
      const reused = await create(newBook({ name: 'keyed', cash: 1 }), { 'idempotency-key': 'create-1' });
      expect(reused.status).toBe(400);
      expectErrorShape(reused.body as unknown as Json, 'IDEMPOTENCY_KEY_REUSED');
      expect((await counts()).portfolios).toBe(before.portfolios + 1);
    });
  });

  describe('read (GET /api/v1/portfolios/{id} and /optimization; DESIGN section 8 "portfolios")', () => {
    it("another partner's id, an unknown id and a malformed one are 404 alike; no token is 401", async () => {
      const book = await makeBook();
      const other = { authorization: `Bearer ${otherToken}` };
      const theirs = await getBook(book.portfolio_id, other);
      expect(theirs.status).toBe(404);
      expectErrorShape(theirs.body as unknown as Json, 'PORTFOLIO_NOT_FOUND');
      const nobody = await getBook(NOBODY, other);
      expect(nobody.status).toBe(404);
      expect((theirs.body as unknown as Json).error).toBe(String((nobody.body as unknown as Json).error).replace(NOBODY, book.portfolio_id));
      expect((await getBook('not-a-uuid')).status).toBe(404);
      expect((await getBook(book.portfolio_id, {})).status).toBe(401);
      // Nor can the other partner trade on it, read its trades or rebalance it.
      for (const res of [
        await trade(book.portfolio_id, { symbol: symbols[0], side: 'SELL', shares: 1 }, other),
        await call('GET', `${PORTFOLIOS}/${book.portfolio_id}/trades`, undefined, other),
        await rebalance(book.portfolio_id, {}, '', other),
        await call('GET', `${PORTFOLIOS}/${book.portfolio_id}/optimization`, undefined, other),
      ]) {
        expect(res.status).toBe(404);
        expectErrorShape(res.body as unknown as Json, 'PORTFOLIO_NOT_FOUND');
      }
      expect((await getBook(book.portfolio_id)).body.version).toBe(1);
    });

    it('an optimized book reads as a book; its stored result is at /optimization; a created book has none', async () => {
      const optimized = await call<Json>('POST', '/api/v1/portfolios/optimize', { name: 'Optimized', total_capital: 100000, risk_settings: { max_positions: 4 } });
      expect(optimized.status).toBe(200);
      const id = optimized.body.portfolio_id as string;
      const result = await call('GET', `${PORTFOLIOS}/${id}/optimization`);
      expect(result.status).toBe(200);
      expect(result.text).toBe(optimized.text);

      const book = await getBook(id);
      expect(book.status).toBe(200);
      expect(book.body).toMatchObject({ portfolio_id: id, source: 'optimize', version: 1, cash: optimized.body.remaining_capital });
      const allocations = optimized.body.allocations as Array<{ symbol: string; shares: number; stop_loss: number }>;
      expect(Object.fromEntries(book.body.holdings.map((h) => [h.symbol, h.shares]))).toEqual(Object.fromEntries(allocations.map((a) => [a.symbol, a.shares])));
      for (const a of allocations) expect(book.body.holdings.find((h) => h.symbol === a.symbol)!.stop_loss).toBe(a.stop_loss);

      const created = await makeBook();
      const none = await call('GET', `${PORTFOLIOS}/${created.portfolio_id}/optimization`);
      expect(none.status).toBe(404);
      expectErrorShape(none.body, 'PORTFOLIO_NOT_FOUND');
    });
  });

  describe('trades (POST /api/v1/portfolios/{id}/trades; DESIGN section 8 "portfolios")', () => {
    it('a buy and a sale change shares and cash in one step each, with the version and the ETag', async () => {
      const book = await makeBook();
      const [a, b] = [symbols[0], symbols[1]];
      const buy = await trade(book.portfolio_id, { symbol: a, side: 'BUY', shares: 10, price: 50.25, date: '2025-06-02' });
      expect(buy.status).toBe(200);
      expect(buy.headers.get('etag')).toBe('"2"');
      expect(buy.body.trade).toMatchObject({ seq: 1, symbol: a, side: 'BUY', shares: 10, price: 50.25, price_source: 'given', value: 502.5, date: '2025-06-02', realised_pnl: null, cash_after: 19497.5, version: 2, origin: 'trade' });
      expect(buy.body.trade.trade_id).toEqual(expect.any(String));
      const afterBuy = buy.body.portfolio;
      expect(afterBuy).toMatchObject({ version: 2, cash: 19497.5 });
      const held = afterBuy.holdings.find((h) => h.symbol === a)!;
      // Average cost: 40 x 61.25 + 10 x 50.25.
      expect(held).toMatchObject({ shares: 50, cost_total: 2952.5, cost_basis: 59.05, entry_date: '2025-03-14' });
      expect(afterBuy.trades.items.map((t) => t.seq)).toEqual([1]);

      // A sale at the latest close (no price): realised P&L on the average cost; a full sale removes the holding.
      const close = closes.get(b)!.price;
      const sale = await trade(book.portfolio_id, { symbol: b, side: 'SELL', shares: 15 }, { 'if-match': '"2"' });
      expect(sale.status).toBe(200);
      expect(sale.headers.get('etag')).toBe('"3"');
      expect(sale.body.trade).toMatchObject({ seq: 2, side: 'SELL', shares: 15, price: close, price_source: 'close', version: 3 });
      expect(toCents(sale.body.trade.realised_pnl!)).toBe(15 * toCents(close) - 180750);
      expect(toCents(sale.body.trade.cash_after)).toBe(toCents(19497.5) + 15 * toCents(close));
      expect(sale.body.portfolio.holdings.map((h) => h.symbol)).toEqual([a]);
      expect(sale.body.portfolio.realised_pnl).toBe(sale.body.trade.realised_pnl);
      expect(sale.body.portfolio.trades.items.map((t) => t.seq)).toEqual([2, 1]);

      // A part sale removes the cost pro rata.
      const part = await trade(book.portfolio_id, { symbol: a, side: 'SELL', shares: 20, price: 70 });
      expect(part.status).toBe(200);
      expect(toCents(part.body.trade.realised_pnl!)).toBe(20 * 7000 - Math.round((295250 * 20) / 50));
      expect(part.body.portfolio.holdings[0]).toMatchObject({ symbol: a, shares: 30, cost_total: fromCents(295250 - Math.round((295250 * 20) / 50)) });

      // A buy of a new symbol opens a position dated the trade.
      const open = await trade(book.portfolio_id, { symbol: symbols[2], side: 'BUY', shares: 3, price: 10, date: '2025-07-01' });
      expect(open.status).toBe(200);
      expect(open.body.portfolio.holdings.find((h) => h.symbol === symbols[2])).toMatchObject({ shares: 3, cost_basis: 10, cost_total: 30, entry_date: '2025-07-01' });

      const read = await getBook(book.portfolio_id);
      expect(read.body).toEqual(open.body.portfolio);
      expect(read.headers.get('etag')).toBe('"5"');
      expect(await stored(book.portfolio_id)).toEqual({ cash: String(open.body.portfolio.cash.toFixed(2)), version: '5' });
    });

    it('a buy beyond the cash is 400 INSUFFICIENT_CASH, a sale beyond the shares 400 INSUFFICIENT_SHARES; nothing changes', async () => {
      const book = await makeBook({ cash: 1000 });
      const before = await counts();
      const dear = await trade(book.portfolio_id, { symbol: symbols[0], side: 'BUY', shares: 11, price: 100 });
      expect(dear.status).toBe(400);
      expectErrorShape(dear.body as unknown as Json, 'INSUFFICIENT_CASH');
      // Exactly the cash is fine afterwards; first the refusals.
      const short = await trade(book.portfolio_id, { symbol: symbols[0], side: 'SELL', shares: 41 });
      expect(short.status).toBe(400);
      expectErrorShape(short.body as unknown as Json, 'INSUFFICIENT_SHARES');
      const notHeld = await trade(book.portfolio_id, { symbol: symbols[3], side: 'SELL', shares: 1 });
      expect(notHeld.status).toBe(400);
      expectErrorShape(notHeld.body as unknown as Json, 'INSUFFICIENT_SHARES');
      expect(await counts()).toEqual(before);
      expect((await getBook(book.portfolio_id)).body).toEqual(book);

      const all = await trade(book.portfolio_id, { symbol: symbols[0], side: 'BUY', shares: 10, price: 100 });
      expect(all.status).toBe(200);
      expect(all.body.portfolio.cash).toBe(0);
    });

    it.each<[string, (s: string[]) => unknown, string[]]>([
      ['an unknown side', (s) => ({ symbol: s[0], side: 'HOLD', shares: 1 }), ['side']],
      ['fractional shares', (s) => ({ symbol: s[0], side: 'BUY', shares: 0.5 }), ['shares']],
      ['zero shares', (s) => ({ symbol: s[0], side: 'BUY', shares: 0 }), ['shares']],
      ['a price of zero', (s) => ({ symbol: s[0], side: 'BUY', shares: 1, price: 0 }), ['price']],
      ['a price in fractions of a cent', (s) => ({ symbol: s[0], side: 'BUY', shares: 1, price: 1.001 }), ['price']],
      ['a malformed date', (s) => ({ symbol: s[0], side: 'BUY', shares: 1, date: '06/02/2025' }), ['date']],
      ['no symbol, an unknown field', () => ({ side: 'BUY', shares: 1, fee: 1 }), ['symbol', 'fee']],
      ['a symbol the store does not know', () => ({ symbol: 'ZZZZ', side: 'BUY', shares: 1, price: 1 }), ['symbol']],
      ['a date in the future', (s) => ({ symbol: s[0], side: 'BUY', shares: 1, price: 1, date: '2999-01-01' }), ['date']],
    ])('%s is 400 VALIDATION_FAILED naming it; nothing changes', async (_name, body, expected) => {
      const book = await makeBook();
      const before = await counts();
      const res = await trade(book.portfolio_id, body(symbols));
      expect(res.status).toBe(400);
      expectErrorShape(res.body as unknown as Json, 'VALIDATION_FAILED');
      expect(fields(res).sort()).toEqual([...expected].sort());
      expect(await counts()).toEqual(before);
      expect(await stored(book.portfolio_id)).toEqual({ cash: '20000.00', version: '1' });
    });

    it('a price-less trade on a date before any close is 400 on price', async () => {
      const book = await makeBook();
      const res = await trade(book.portfolio_id, { symbol: symbols[0], side: 'BUY', shares: 1, date: '1990-01-02' });
      expect(res.status).toBe(400);
      expect(fields(res)).toEqual(['price']);
    });

    it('Idempotency-Key: the same trade again answers the first response and changes nothing; another trade under the key is 400', async () => {
      const book = await makeBook();
      const body = { symbol: symbols[0], side: 'BUY', shares: 2, price: 10 };
      const first = await trade(book.portfolio_id, body, { 'idempotency-key': 'trade-1' });
      expect(first.status).toBe(200);
      const before = await counts();
      const again = await trade(book.portfolio_id, body, { 'idempotency-key': 'trade-1' });
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('etag')).toBe('"2"');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(await counts()).toEqual(before);
      expect(await stored(book.portfolio_id)).toEqual({ cash: '19980.00', version: '2' });

      const reused = await trade(book.portfolio_id, { ...body, shares: 3 }, { 'idempotency-key': 'trade-1' });
      expect(reused.status).toBe(400);
      expectErrorShape(reused.body as unknown as Json, 'IDEMPOTENCY_KEY_REUSED');
      expect(await counts()).toEqual(before);
      // Keys are per book: the same key on another book is a new request.
      const other = await makeBook();
      const elsewhere = await trade(other.portfolio_id, body, { 'idempotency-key': 'trade-1' });
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.headers.get('idempotent-replayed')).toBeNull();
      const bad = await trade(book.portfolio_id, body, { 'idempotency-key': 'with space' });
      expect(bad.status).toBe(400);
      expect(fields(bad)).toContain('Idempotency-Key');
    });

    it('If-Match: a stale version is 412 and writes nothing; the current one, a weak tag, a list and * are accepted', async () => {
      const book = await makeBook();
      const body = { symbol: symbols[0], side: 'SELL', shares: 1, price: 60 };
      expect((await trade(book.portfolio_id, body, { 'if-match': '"1"' })).status).toBe(200);
      const before = await counts();
      const stale = await trade(book.portfolio_id, body, { 'if-match': '"1"' });
      expect(stale.status).toBe(412);
      expectErrorShape(stale.body as unknown as Json, 'PRECONDITION_FAILED');
      expect((stale.body as unknown as Json).details).toEqual([{ field: 'If-Match', message: expect.stringMatching(/version 2/) }]);
      expect(await counts()).toEqual(before);
      expect(await stored(book.portfolio_id)).toEqual({ cash: '20060.00', version: '2' });

      expect((await trade(book.portfolio_id, body, { 'if-match': 'W/"2"' })).status).toBe(200);
      expect((await trade(book.portfolio_id, body, { 'if-match': '"1", "3"' })).status).toBe(200);
      const star = await trade(book.portfolio_id, body, { 'if-match': '*' });
      expect(star.status).toBe(200);
      expect(star.headers.get('etag')).toBe('"5"');
    });

    it('two concurrent trades on one version with If-Match: exactly one 200 and one 412', async () => {
      for (let round = 0; round < 3; round++) {
        const book = await makeBook();
        const [x, y] = await Promise.all([
          trade(book.portfolio_id, { symbol: symbols[0], side: 'SELL', shares: 1, price: 60 }, { 'if-match': '"1"' }),
          trade(book.portfolio_id, { symbol: symbols[1], side: 'BUY', shares: 1, price: 60 }, { 'if-match': '"1"' }),
        ]);
        expect([x.status, y.status].sort()).toEqual([200, 412]);
        const loser = x.status === 412 ? x : y;
        expectErrorShape(loser.body as unknown as Json, 'PRECONDITION_FAILED');
        const trades = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolio_trades WHERE portfolio_id = $1::uuid', [book.portfolio_id]);
        expect(trades[0].n).toBe(1);
        expect((await stored(book.portfolio_id)).version).toBe('2');
      }
    });

    it('without If-Match, concurrent trades all land, one after another (versions 2..n+1, cash exact)', async () => {
      const book = await makeBook();
      const all = await Promise.all(Array.from({ length: 4 }, () => trade(book.portfolio_id, { symbol: symbols[0], side: 'BUY', shares: 1, price: 25 })));
      expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(all.map((r) => r.body.trade.version).sort()).toEqual([2, 3, 4, 5]);
      expect(await stored(book.portfolio_id)).toEqual({ cash: '19900.00', version: '5' });
    });

    it('the trade log pages newest first (GET .../trades?page=&page_size=)', async () => {
      const book = await makeBook();
      for (let i = 0; i < 5; i++) expect((await trade(book.portfolio_id, { symbol: symbols[0], side: 'BUY', shares: 1, price: 10 + i })).status).toBe(200);
      const path = (q: string) => `${PORTFOLIOS}/${book.portfolio_id}/trades${q}`;
      const first = await call<TradePage>('GET', path('?page_size=2'));
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ page: 1, page_size: 2, total: 5, has_more: true });
      expect(first.body.items.map((t) => t.seq)).toEqual([5, 4]);
      expect(first.body.items.map((t) => t.price)).toEqual([14, 13]);
      const last = await call<TradePage>('GET', path('?page=3&page_size=2'));
      expect(last.body).toMatchObject({ page: 3, total: 5, has_more: false });
      expect(last.body.items.map((t) => t.seq)).toEqual([1]);
      const past = await call<TradePage>('GET', path('?page=9&page_size=2'));
      expect(past.body).toMatchObject({ items: [], has_more: false, total: 5 });
      const defaults = await call<TradePage>('GET', path(''));
      expect(defaults.body).toMatchObject({ page: 1, page_size: 20, total: 5, has_more: false });
      expect(defaults.body).toEqual((await getBook(book.portfolio_id)).body.trades);

      for (const [q, field] of [['?page_size=101', 'page_size'], ['?page=0', 'page'], ['?page=x', 'page'], ['?limit=5', 'limit'], ['?page=1&page=2', 'page']] as const) {
        const bad = await call('GET', path(q));
        expect(bad.status).toBe(400);
        expectErrorShape(bad.body, 'VALIDATION_FAILED');
        expect(fields(bad)).toEqual([field]);
      }
      expect((await call('GET', path(''), undefined, {})).status).toBe(401);
      expect((await call('GET', `${PORTFOLIOS}/${NOBODY}/trades`)).status).toBe(404);
    });
  });

  describe('CSV upload (POST /api/v1/portfolios/import; DESIGN section 8 "portfolios")', () => {
    it('creates a book of the file and the query cash: 201, Location, ETag', async () => {
      const csv = `\uFEFFSymbol,Description,Shares,Cost_Basis,Entry_Date\r\n${symbols[0]},first,"1,200",12.3456,2025-01-02\r\n${symbols[1]},second,7,$30.10,\r\n`;
      const res = await upload(csv, '?name=Broker%20export&cash=2500.5&currency=EUR');
      expect(res.status).toBe(201);
      const book = res.body as unknown as Book;
      expect(res.headers.get('etag')).toBe('"1"');
      expect(res.headers.get('location')).toBe(`${PORTFOLIOS}/${book.portfolio_id}`);
      expect(book).toMatchObject({ name: 'Broker export', source: 'import', currency: 'EUR', cash: 2500.5, position_count: 2, version: 1 });
      expect(book.holdings.find((h) => h.symbol === symbols[0])).toMatchObject({ shares: 1200, cost_basis: 12.3456, cost_total: fromCents(toCents(1200 * 12.3456)), entry_date: '2025-01-02' });
      expect(book.holdings.find((h) => h.symbol === symbols[1])).toMatchObject({ shares: 7, cost_basis: 30.1, cost_total: 210.7 });
      expect((await getBook(book.portfolio_id)).body).toEqual(book);
    });

    it('bad lines are 400 with a detail per line and column; nothing is written', async () => {
      const before = await counts();
      const csv = `symbol,shares,cost_basis,entry_date\n${symbols[0]},ten,5,\n${symbols[1]},3,-1,2025-13-01\n${symbols[2]},4,5,\n`;
      const res = await upload(csv, '?name=Bad');
      expect(res.status).toBe(400);
      expectErrorShape(res.body, 'VALIDATION_FAILED');
      expect(fields(res).sort()).toEqual(['line 2: shares', 'line 3: cost_basis', 'line 3: entry_date']);
      // A file that parses but names an unknown symbol is refused whole too.
      const unknown = await upload(`symbol,shares,cost_basis\n${symbols[0]},1,1\nZZZZ,1,1\n`, '?name=Unknown');
      expect(unknown.status).toBe(400);
      expectErrorShape(unknown.body, 'VALIDATION_FAILED');
      expect(fields(unknown)).toHaveLength(1);
      expect(fields(unknown)[0]).toMatch(/ZZZZ|line 3|symbol/);
      const header = await upload('ticker,qty\nA,1\n', '?name=NoHeader');
      expect(header.status).toBe(400);
      expect(fields(header)).toEqual(['header']);
      expect(await counts()).toEqual(before);
    });

    it('bad query parameters are 400 naming each; nothing is written', async () => {
      const before = await counts();
      const csv = `symbol,shares,cost_basis\n${symbols[0]},1,1\n`;
      const cash = await upload(csv, '?name=x&cash=-5');
      expect(cash.status).toBe(400);
      expect(fields(cash)).toEqual(['cash']);
      const unknown = await upload(csv, '?name=x&leverage=2');
      expect(unknown.status).toBe(400);
      expect(fields(unknown)).toEqual(['leverage']);
      const currency = await upload(csv, '?name=x&currency=XYZ');
      expect(currency.status).toBe(400);
      expect(fields(currency)).toEqual(['currency']);
      // The file's problems and the parameters' are listed together.
      const both = await upload(`symbol,shares,cost_basis\n${symbols[0]},x,1\n`, '?name=x&cash=abc');
      expect(both.status).toBe(400);
      expect(fields(both).sort()).toEqual(['cash', 'line 2: shares']);
      expect(await counts()).toEqual(before);
    });

    it('any other content type is 415, a charset other than UTF-8 too; no token is 401 first', async () => {
      const before = await counts();
      const csv = `symbol,shares,cost_basis\n${symbols[0]},1,1\n`;
      for (const type of ['application/json', 'text/plain', 'text/csv; charset=utf-16']) {
        const res = await upload(type === 'application/json' ? JSON.stringify({ csv }) : csv, '?name=x', { 'content-type': type });
        expect(res.status).toBe(415);
        expectErrorShape(res.body, 'UNSUPPORTED_MEDIA_TYPE');
      }
      const none = await request<Json>(`${platform.urls.allocation}${IMPORT}?name=x`, { method: 'POST', headers: auth() });
      expect(none.status).toBe(415);
      const anonymous = await request<Json>(`${platform.urls.allocation}${IMPORT}?name=x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(anonymous.status).toBe(401);
      expect(await counts()).toEqual(before);
    });

    it('a body over the origin limit is 413', async () => {
      const line = `${symbols[0]},1,1\n`;
      const big = `symbol,shares,cost_basis\n${line.repeat(Math.ceil(config.bodyLimitBytes / line.length) + 1)}`;
      const res = await upload(big, '?name=big');
      expect(res.status).toBe(413);
      expectErrorShape(res.body, 'PAYLOAD_TOO_LARGE');
    });

    it('Idempotency-Key: the same upload again answers the first book', async () => {
      const csv = `symbol,shares,cost_basis\n${symbols[0]},2,3\n`;
      const first = await upload(csv, '?name=once', { 'idempotency-key': 'upload-1' });
      const again = await upload(csv, '?name=once', { 'idempotency-key': 'upload-1' });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    });
  });

  describe('rebalance (POST /api/v1/portfolios/{id}/rebalance; DESIGN section 8 "portfolios")', () => {
    /** The target holdings (shares > 0) by symbol. */
    const targetOf = (r: Rebalance) => Object.fromEntries(r.target.filter((t) => t.shares > 0).map((t) => [t.symbol, t.shares]));
    /** Orders and target agree: current + orders = target, sells first, cash figures exact and never negative. */
    function expectConsistent(r: Rebalance, book: Book): void {
      expect(r.portfolio_id).toBe(book.portfolio_id);
      expect(r.version).toBe(book.version);
      expect(r.cash_before).toBe(book.cash);
      const sides = r.orders.map((o) => o.side);
      expect(sides).toEqual([...sides].sort((a, b) => (a === b ? 0 : a === 'SELL' ? -1 : 1)));
      const after = { ...sharesOf(book) };
      let sells = 0;
      let buys = 0;
      for (const o of r.orders) {
        expect(Number.isInteger(o.shares) && o.shares > 0).toBe(true);
        expect(toCents(o.value)).toBe(o.shares * toCents(o.price));
        expect(o.price).toBe(closes.get(o.symbol)!.price);
        after[o.symbol] = (after[o.symbol] ?? 0) + (o.side === 'BUY' ? o.shares : -o.shares);
        expect(after[o.symbol]).toBeGreaterThanOrEqual(0);
        if (o.side === 'BUY') buys += toCents(o.value);
        else sells += toCents(o.value);
      }
      for (const [symbol, shares] of Object.entries(after)) if (shares === 0) delete after[symbol];
      expect(after).toEqual(targetOf(r));
      for (const t of r.target) expect(t.current_shares).toBe(sharesOf(book)[t.symbol] ?? 0);
      expect(toCents(r.sell_value)).toBe(sells);
      expect(toCents(r.buy_value)).toBe(buys);
      expect(toCents(r.cash_after)).toBe(toCents(r.cash_before) + sells - buys);
      expect(r.cash_after).toBeGreaterThanOrEqual(0);
      expect(r.turnover).toBeCloseTo((r.sell_value + r.buy_value) / (2 * r.total_value), 6);
    }

    it('without apply it only answers the orders: nothing changes', async () => {
      const book = await makeBook({ cash: 60000 });
      const before = await counts();
      const res = await rebalance(book.portfolio_id, {});
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBeNull();
      expect(res.body).toMatchObject({ applied: false, version_after: null, trades: [] });
      expect(res.body.orders.length).toBeGreaterThan(0);
      expectConsistent(res.body, book);
      expect(await counts()).toEqual(before);
      expect((await getBook(book.portfolio_id)).body).toEqual(book);
      // No body at all is the same request.
      const bare = await request<Json>(`${platform.urls.allocation}${PORTFOLIOS}/${book.portfolio_id}/rebalance?apply=false`, { method: 'POST', headers: auth() });
      expect(bare.status).toBe(200);
      expect((bare.body as unknown as Rebalance).orders).toEqual(res.body.orders);
    });

    it('with apply=true the book ends exactly at the target, cash == cash_after, version +1 once', async () => {
      const book = await makeBook({ cash: 60000 });
      const res = await rebalance(book.portfolio_id, { risk_settings: { max_positions: 5 } }, '?apply=true', { 'if-match': '"1"' });
      expect(res.status).toBe(200);
      const r = res.body;
      expectConsistent(r, book);
      expect(r).toMatchObject({ applied: true, version: 1, version_after: 2 });
      expect(res.headers.get('etag')).toBe('"2"');
      expect(r.trades.map((t) => [t.symbol, t.side, t.shares, t.price])).toEqual(r.orders.map((o) => [o.symbol, o.side, o.shares, o.price]));
      for (const t of r.trades) expect(t).toMatchObject({ origin: 'rebalance', version: 2 });
      const after = (await getBook(book.portfolio_id)).body;
      expect(sharesOf(after)).toEqual(targetOf(r));
      expect(after.cash).toBe(r.cash_after);
      expect(after.version).toBe(2);
      expect(after.trades.total).toBe(r.orders.length);
    });

    it('max_positions is a hard limit of the target', async () => {
      const book = await makeBook({ cash: 80000 });
      for (const max of [1, 3]) {
        const res = await rebalance(book.portfolio_id, { risk_settings: { max_positions: max } });
        expect(res.status).toBe(200);
        expect(Object.keys(targetOf(res.body)).length).toBeLessThanOrEqual(max);
        expectConsistent(res.body, book);
      }
    });

    it('If-Match stale is 412; Idempotency-Key replays an applied rebalance; bad bodies and apply values are 400; nothing written', async () => {
      const book = await makeBook({ cash: 50000 });
      expect((await trade(book.portfolio_id, { symbol: symbols[0], side: 'SELL', shares: 1, price: 60 })).status).toBe(200);
      const before = await counts();
      const stale = await rebalance(book.portfolio_id, {}, '?apply=true', { 'if-match': '"1"' });
      expect(stale.status).toBe(412);
      expectErrorShape(stale.body as unknown as Json, 'PRECONDITION_FAILED');
      for (const [body, query, field] of [
        [{ risk_settings: { max_positions: 0 } }, '', 'risk_settings.max_positions'],
        [{ strategy: 'x' }, '', 'strategy'],
        [{}, '?apply=yes', 'apply'],
        [{}, '?apply=true&dry=1', 'dry'],
      ] as const) {
        const res = await rebalance(book.portfolio_id, body, query);
        expect(res.status).toBe(400);
        expectErrorShape(res.body as unknown as Json, 'VALIDATION_FAILED');
        expect(fields(res)).toEqual([field]);
      }
      expect(await counts()).toEqual(before);

      const first = await rebalance(book.portfolio_id, {}, '?apply=true', { 'idempotency-key': 'rebalance-1' });
      expect(first.status).toBe(200);
      const applied = await counts();
      const again = await rebalance(book.portfolio_id, {}, '?apply=true', { 'idempotency-key': 'rebalance-1' });
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await counts()).toEqual(applied);
      const reused = await rebalance(book.portfolio_id, { risk_settings: { max_positions: 2 } }, '?apply=true', { 'idempotency-key': 'rebalance-1' });
      expect(reused.status).toBe(400);
      expectErrorShape(reused.body as unknown as Json, 'IDEMPOTENCY_KEY_REUSED');
      expect(await counts()).toEqual(applied);
    });
  });

  describe('bounds: amounts within MAX_TOTAL_CAPITAL (1e12), dates from 1900-01-01, the last page published as enforced', () => {
    const refused = async (res: JsonResponse<unknown>, field: string, before: Awaited<ReturnType<typeof counts>>) => {
      const seen = { status: res.status, fields: res.status === 400 ? fields(res) : res.body };
      expect(seen).toEqual({ status: 400, fields: [field] });
      expectErrorShape(res.body as unknown as Json, 'VALIDATION_FAILED');
      expect(await counts()).toEqual(before);
    };

    it('a trade worth more than 1e12 is a 400 naming shares (or price), before anything is locked or written', async () => {
      // 1e9 shares that cost nothing: enough to sell, once the store overflowed (500).
      const book = await makeBook({ cash: 0, holdings: [{ symbol: symbols[0], shares: 1e9, cost_basis: 0 }] });
      const before = await counts();
      await refused(await trade(book.portfolio_id, { symbol: symbols[0], side: 'SELL', shares: 1e9, price: 1e12 }), 'shares', before);
      await refused(await trade(book.portfolio_id, { symbol: symbols[0], side: 'SELL', shares: 1e6, price: 1e9 }), 'shares', before);
      await refused(await trade(book.portfolio_id, { symbol: symbols[0], side: 'BUY', shares: 1e9, price: 1e12 }), 'shares', before);
      const message = ((await trade(book.portfolio_id, { symbol: symbols[0], side: 'SELL', shares: 1e6, price: 1e9 })).body as unknown as Json).details as Detail[];
      expect(message[0].message).toMatch(/worth more than 1000000000000\.00/);
      expect(await stored(book.portfolio_id)).toEqual({ cash: '0.00', version: '1' });
    });

    it('sales may not take the cash past 1e12: the one that would is a 400 and changes nothing', async () => {
      const book = await makeBook({ cash: 999_999_000_000, holdings: [{ symbol: symbols[0], shares: 1e6, cost_basis: 0 }] });
      const ok = await trade(book.portfolio_id, { symbol: symbols[0], side: 'SELL', shares: 1000, price: 1000 });
      expect(ok.status).toBe(200);
      expect(ok.body.portfolio.cash).toBe(1e12);
      const before = await counts();
      await refused(await trade(book.portfolio_id, { symbol: symbols[0], side: 'SELL', shares: 1, price: 0.01 }), 'price', before);
      await refused(await trade(book.portfolio_id, { symbol: symbols[0], side: 'SELL', shares: 2, price: 0.01 }), 'shares', before);
      expect(await stored(book.portfolio_id)).toEqual({ cash: '1000000000000.00', version: '2' });
    });

    it('a new book costing more than 1e12 (a holding, or all with the cash) is a 400, nothing written', async () => {
      const before = await counts();
      await refused(await create(newBook({ cash: 0, holdings: [{ symbol: symbols[0], shares: 1e9, cost_basis: 1e12 }] })), 'holdings[0].cost_basis', before);
      await refused(await create(newBook({ cash: 1e12, holdings: [{ symbol: symbols[0], shares: 1, cost_basis: 0.01 }] })), 'cash', before);
    });

    it('a rebalance of a book worth more than 1e12 at the latest closes is a 400, before the optimizer runs', async () => {
      const book = await makeBook({ cash: 999_999_999_999, holdings: [{ symbol: symbols[0], shares: 1e9, cost_basis: 0 }] });
      expect(book.total_value).toBeGreaterThan(1e12);
      const before = await counts();
      await refused(await rebalance(book.portfolio_id, {}), 'total_value', before);
      await refused(await rebalance(book.portfolio_id, {}, '?apply=true'), 'total_value', before);
    });

    it('year 0 (once a 500 from the store) and any date before 1900 are a 400 on create, trade and upload', async () => {
      const book = await makeBook();
      const before = await counts();
      for (const date of ['0000-01-01', '1899-12-31']) {
        await refused(await create(newBook({ holdings: [{ symbol: symbols[0], shares: 1, cost_basis: 1, entry_date: date }] })), 'holdings[0].entry_date', before);
        await refused(await trade(book.portfolio_id, { symbol: symbols[0], side: 'BUY', shares: 1, price: 1, date }), 'date', before);
        await refused(await trade(book.portfolio_id, { symbol: symbols[0], side: 'BUY', shares: 1, date }), 'date', before);
        await refused(await upload(`symbol,shares,cost_basis,entry_date\n${symbols[0]},1,1,${date}\n`, '?name=Old'), 'line 2: entry_date', before);
      }
    });

    it('the trade log\'s last page is the one /openapi.json publishes (1000000), and the refusal states the range', async () => {
      const op = openapi.paths['/api/v1/portfolios/{id}/trades'].get as unknown as { parameters: Array<{ name: string; schema: { maximum: number } }> };
      const published = op.parameters.find((p) => p.name === 'page')?.schema.maximum;
      expect(published).toBe(1_000_000);
      const book = await makeBook();
      const path = (page: number) => `${PORTFOLIOS}/${book.portfolio_id}/trades?page=${page}`;
      expect((await call<TradePage>('GET', path(published as number))).body).toMatchObject({ page: 1_000_000, items: [], has_more: false });
      const past = await call('GET', path((published as number) + 1));
      expect(past.status).toBe(400);
      expect((past.body.details as Detail[])[0]).toEqual({ field: 'page', message: expect.stringContaining('from 1 to 1000000') });
    });
  });

  describe('property: cash + sum(shares x price at trade) is conserved through any trade sequence (DESIGN section 8 "portfolios")', () => {
    it('random short sequences of buys and sales, some refused', async () => {
      const pool = symbols.slice(0, 3);
      const step = fc.record({
        symbol: fc.constantFrom(...pool),
        side: fc.constantFrom('BUY' as const, 'SELL' as const),
        shares: fc.integer({ min: 1, max: 60 }),
        cents: fc.integer({ min: 1, max: 20_000 }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 5_000_00 }), async (steps, cashCents) => {
          const book = await makeBook({ cash: fromCents(cashCents), holdings: [{ symbol: pool[0], shares: 20, cost_basis: 50 }] });
          // The model: cash and shares in integer cents/units; a refused trade changes nothing.
          let cash = cashCents;
          const shares: Record<string, number> = { [pool[0]]: 20 };
          let invariant = cash + Object.entries(shares).reduce((sum, [, n]) => sum + n * 5000, 0);
          const markedAt: Record<string, number> = { [pool[0]]: 5000 };
          for (const s of steps) {
            const res = await trade(book.portfolio_id, { symbol: s.symbol, side: s.side, shares: s.shares, price: fromCents(s.cents) });
            const value = s.shares * s.cents;
            const held = shares[s.symbol] ?? 0;
            if (s.side === 'BUY' && value > cash) {
              expect(res.status).toBe(400);
              expectErrorShape(res.body as unknown as Json, 'INSUFFICIENT_CASH');
              continue;
            }
            if (s.side === 'SELL' && s.shares > held) {
              expect(res.status).toBe(400);
              expectErrorShape(res.body as unknown as Json, 'INSUFFICIENT_SHARES');
              continue;
            }
            expect(res.status).toBe(200);
            // Revalue the symbol's position at this trade's price: the trade itself moves value between cash and shares only.
            invariant += held * (s.cents - (markedAt[s.symbol] ?? s.cents));
            markedAt[s.symbol] = s.cents;
            cash += s.side === 'BUY' ? -value : value;
            shares[s.symbol] = held + (s.side === 'BUY' ? s.shares : -s.shares);
            const after = res.body.portfolio;
            expect(toCents(after.cash)).toBe(cash);
            expect(toCents(res.body.trade.cash_after)).toBe(cash);
            const markedValue = Object.entries(shares).reduce((sum, [symbol, n]) => sum + n * (markedAt[symbol] ?? 0), 0);
            expect(cash + markedValue).toBe(invariant);
          }
          const final = (await getBook(book.portfolio_id)).body;
          expect(toCents(final.cash)).toBe(cash);
          expect(sharesOf(final)).toEqual(Object.fromEntries(Object.entries(shares).filter(([, n]) => n > 0)));
          const log = await call<TradePage>('GET', `${PORTFOLIOS}/${book.portfolio_id}/trades?page_size=100`);
          // Replaying the log from the opening figures gives the same cash.
          const replayed = log.body.items.reduce((c, t) => c + (t.side === 'BUY' ? -1 : 1) * t.shares * toCents(t.price), cashCents);
          expect(replayed).toBe(cash);
        }),
        { numRuns: 5 },
      );
    });
  });
});
