/**
 * A partner's books over GraphQL (DESIGN section 8): Mutation.createPortfolio, recordTrade and
 * rebalancePortfolio, and Portfolio's book fields (version, cash, values, holdings, trade log). The
 * mutations call the same PortfolioService as the REST routes, so the rules are theirs: the same
 * contract (violations named in camelCase, list items by index), the same error codes
 * (VALIDATION_FAILED, INSUFFICIENT_CASH, INSUFFICIENT_SHARES, PRECONDITION_FAILED on a stale
 * expectedVersion, PORTFOLIO_NOT_FOUND for another partner's book), nothing written on a refusal.
 * The real allocation subgraph and, for the holdings' Security, the real gateway over the analysis
 * subgraph; the demo market's bars, real signed partner tokens, PGlite.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { fromCents, toCents } from '../../subgraphs/allocation/engine/money.js';
import { latestSnapshot } from '../../subgraphs/analysis/store.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { DEMO_OPTIMIZE_BODY } from '../../subgraphs/allocation/service.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { storeEdgeOdds } from '../helpers/kelly-odds.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { graphql, type JsonResponse } from '../helpers/http.js';

type Json = Record<string, unknown>;
interface Detail {
  field: string;
  message: string;
}
interface Holding {
  symbol: string;
  security: { symbol: string };
  shares: number;
  costBasis: number;
  costTotal: number;
  price: number | null;
  priceDate: string | null;
  marketValue: number;
  weight: number;
  unrealisedPnl: number;
  entryDate: string;
  daysHeld: number;
  stopLoss: number | null;
  targetPrice: number | null;
}
interface Trade {
  tradeId: string;
  seq: number;
  symbol: string;
  side: 'BUY' | 'SELL';
  shares: number;
  price: number;
  priceSource: string;
  value: number;
  date: string;
  realisedPnl: number | null;
  cashAfter: number;
  version: number;
  origin: string;
}
interface TradePage {
  items: Trade[];
  page: number;
  pageSize: number;
  total: number;
  hasMore: boolean;
}
interface Book {
  id: string;
  name: string;
  currency: string;
  positionCount: number;
  version: number | null;
  source: string | null;
  cash: number | null;
  holdingsValue: number | null;
  totalValue: number | null;
  costTotal: number | null;
  unrealisedPnl: number | null;
  realisedPnl: number | null;
  valuationDate: string | null;
  updatedAt: string | null;
  holdings: Holding[];
  trades: TradePage;
}
interface Rebalance {
  portfolioId: string;
  version: number;
  applied: boolean;
  versionAfter: number | null;
  totalValue: number;
  cashBefore: number;
  cashAfter: number;
  sellValue: number;
  buyValue: number;
  turnover: number;
  orders: Array<{ symbol: string; side: 'BUY' | 'SELL'; shares: number; price: number; value: number }>;
  target: Array<{ symbol: string; shares: number; currentShares: number; price: number; value: number; weight: number }>;
  riskSettings: { maxPositions: number; allocationStrategy: string };
  optimizerDiagnostics: { schemaVersion: string };
  trades: Trade[];
}

const TRADE_FIELDS = 'tradeId seq symbol side shares price priceSource value date realisedPnl cashAfter version origin';
const BOOK_FIELDS = `id name currency positionCount version source cash holdingsValue totalValue costTotal unrealisedPnl realisedPnl valuationDate updatedAt
  holdings { symbol security { symbol } shares costBasis costTotal price priceDate marketValue weight unrealisedPnl entryDate daysHeld stopLoss targetPrice }
  trades { items { ${TRADE_FIELDS} } page pageSize total hasMore }`;
const CREATE = `mutation($input: CreatePortfolioInput!, $key: String) { createPortfolio(input: $input, idempotencyKey: $key) { ${BOOK_FIELDS} } }`;
const READ = `query($id: ID!) { portfolio(id: $id) { ${BOOK_FIELDS} } }`;
const TRADE = `mutation($id: ID!, $input: TradeInput!, $expected: Int, $key: String) {
  recordTrade(portfolioId: $id, input: $input, expectedVersion: $expected, idempotencyKey: $key) { trade { ${TRADE_FIELDS} } portfolio { ${BOOK_FIELDS} } }
}`;
const REBALANCE = `mutation($id: ID!, $input: RebalanceInput, $apply: Boolean, $expected: Int, $key: String) {
  rebalancePortfolio(portfolioId: $id, input: $input, apply: $apply, expectedVersion: $expected, idempotencyKey: $key) {
    portfolioId version applied versionAfter totalValue cashBefore cashAfter sellValue buyValue turnover
    orders { symbol side shares price value priceSource } target { symbol shares currentShares price value weight }
    riskSettings { maxPositions allocationStrategy } optimizerDiagnostics { schemaVersion } trades { ${TRADE_FIELDS} }
  }
}`;

const config = testConfig({ ANALYZE_ON_START: 'false' });
let store: TestDb;
let platform: RunningPlatform;
let token: string;
let otherToken: string;
/** Valid at both origins a gateway query touches (allocation for the book, analysis for its securities). */
let bothToken: string;
/** Equities of the demo market with bars, in symbol order. */
let symbols: string[];
/** Latest close (to the cent) and its date, by symbol. */
const closes = new Map<string, { price: number; date: string }>();

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
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
  const mint = (subject: string, audience: string | string[]) => mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience, subject });
  token = await mint('graph-books', config.auth.audiences.allocation);
  otherToken = await mint('graph-books-2', config.auth.audiences.allocation);
  bothToken = await mint('graph-books', [config.auth.audiences.allocation, config.auth.audiences.analysis]);
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
});

const subgraph = () => `${platform.urls.allocation}/graphql`;
const gateway = () => `${platform.urls.gateway}/graphql`;
const auth = (t: string = token) => ({ authorization: `Bearer ${t}` });

/** Rows of every book table: a refusal must leave them all as they were. */
async function counts(): Promise<Record<string, number>> {
  const n = async (table: string) => (await store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
  return { portfolios: await n('portfolios'), holdings: await n('portfolio_holdings'), trades: await n('portfolio_trades'), requests: await n('portfolio_requests') };
}

/** The first error's code and detail fields (sorted), or the test fails when the call succeeded. */
function refusal(res: JsonResponse<{ data?: unknown; errors?: Array<{ extensions?: Json }> }>): { code: unknown; fields: string[]; details: Detail[] } {
  const error = res.body.errors?.[0];
  expect(error).toBeDefined();
  const details = (error?.extensions?.details as Detail[] | undefined) ?? [];
  return { code: error?.extensions?.code, fields: details.map((d) => d.field).sort(), details };
}

const newBook = (over: Json = {}): Json => ({
  name: 'Graph book',
  cash: 20000,
  holdings: [
    { symbol: symbols[0], shares: 40, costBasis: 61.2525, entryDate: '2025-03-14' },
    { symbol: symbols[1], shares: 15, costBasis: 120.5, stopLoss: 100, targetPrice: 180 },
  ],
  ...over,
});

async function createBook(over: Json = {}, t = token): Promise<Book> {
  const res = await graphql<{ createPortfolio: Book }>(subgraph(), CREATE, { input: newBook(over) }, auth(t));
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.createPortfolio;
}
async function readBook(id: string, t = token): Promise<Book> {
  const res = await graphql<{ portfolio: Book }>(subgraph(), READ, { id }, auth(t));
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.portfolio;
}
const sharesOf = (b: Book) => Object.fromEntries(b.holdings.map((h) => [h.symbol, h.shares]));
const cents = (x: number) => toCents(x);

describe('createPortfolio', () => {
  it('creates a book from holdings and cash, valued at the latest closes, with the book fields of Portfolio', async () => {
    const before = await counts();
    const book = await createBook();
    const [a, b] = [symbols[0], symbols[1]];
    expect(book).toMatchObject({ name: 'Graph book', currency: 'USD', version: 1, source: 'holdings', cash: 20000, realisedPnl: 0 });
    expect(book.holdings.map((h) => h.symbol).sort()).toEqual([a, b].sort());
    const bySymbol = new Map(book.holdings.map((h) => [h.symbol, h]));
    const ha = bySymbol.get(a)!;
    expect(ha).toMatchObject({ security: { symbol: a }, shares: 40, costBasis: 61.2525, costTotal: fromCents(Math.round(40 * 61.2525 * 100)), entryDate: '2025-03-14', stopLoss: null });
    expect(ha.price).toBe(closes.get(a)!.price);
    expect(ha.priceDate).toBe(closes.get(a)!.date);
    expect(ha.daysHeld).toBe(Math.round((Date.parse(`${closes.get(a)!.date}T00:00:00Z`) - Date.parse('2025-03-14T00:00:00Z')) / 86_400_000));
    expect(bySymbol.get(b)).toMatchObject({ security: { symbol: b }, shares: 15, costBasis: 120.5, costTotal: 1807.5, stopLoss: 100, targetPrice: 180 });
    for (const h of book.holdings) {
      expect(cents(h.marketValue)).toBe(cents(h.shares * h.price!));
      expect(cents(h.unrealisedPnl)).toBe(cents(h.marketValue) - cents(h.costTotal));
      expect(h.weight).toBeCloseTo(h.marketValue / book.totalValue!, 6);
    }
    expect(cents(book.holdingsValue!)).toBe(book.holdings.reduce((s, h) => s + cents(h.marketValue), 0));
    expect(cents(book.totalValue!)).toBe(cents(book.holdingsValue!) + cents(20000));
    expect(cents(book.costTotal!)).toBe(book.holdings.reduce((s, h) => s + cents(h.costTotal), 0));
    expect(book.valuationDate).toBe([closes.get(a)!.date, closes.get(b)!.date].sort().at(-1));
    expect(book.trades).toEqual({ items: [], page: 1, pageSize: 20, total: 0, hasMore: false });
    // Stored: one book, its two holdings, its cash.
    expect(await counts()).toMatchObject({ portfolios: before.portfolios + 1, holdings: before.holdings + 2 });
    const [row] = await store.db.query<{ cash: string; version: string; source: string }>('SELECT cash::text AS cash, version::text AS version, source FROM portfolios WHERE id = $1::uuid', [book.id]);
    expect(row).toEqual({ cash: '20000.00', version: '1', source: 'holdings' });
    // Read back: the same book.
    expect(await readBook(book.id)).toEqual(book);
  });

  it('refuses a bad input with every violation named in camelCase (list items by index), writing nothing', async () => {
    const before = await counts();
    const res = await graphql(
      subgraph(),
      CREATE,
      {
        input: {
          name: '',
          cash: -5,
          currency: 'usd',
          holdings: [
            { symbol: symbols[0], shares: 0, costBasis: 1.23456 },
            { symbol: symbols[1], shares: 3, costBasis: 10, entryDate: '2025-02-30', stopLoss: 0 },
          ],
          riskSettings: { maxPositions: 0 },
        },
      },
      auth(),
    );
    expect(res.body.data).toBeNull();
    const r = refusal(res);
    expect(r.code).toBe('VALIDATION_FAILED');
    expect(r.fields).toEqual(['cash', 'currency', 'holdings[0].costBasis', 'holdings[0].shares', 'holdings[1].entryDate', 'holdings[1].stopLoss', 'name', 'riskSettings.maxPositions']);
    // The store's checks: an unknown symbol, named at its place.
    const unknown = await graphql(subgraph(), CREATE, { input: newBook({ holdings: [{ symbol: 'ZZZZZ', shares: 1, costBasis: 1 }] }) }, auth());
    expect(refusal(unknown)).toMatchObject({ code: 'VALIDATION_FAILED', fields: ['holdings[0].symbol'] });
    expect(await counts()).toEqual(before);
  });

  it('answers a retry with the same idempotencyKey with the first book; another input under that key is refused', async () => {
    const vars = { input: newBook({ name: 'keyed' }), key: 'graph-book-key-1' };
    const a = await graphql<{ createPortfolio: Book }>(subgraph(), CREATE, vars, auth());
    const before = await counts();
    const b = await graphql<{ createPortfolio: Book }>(subgraph(), CREATE, vars, auth());
    expect(b.body.data!.createPortfolio.id).toBe(a.body.data!.createPortfolio.id);
    expect(await counts()).toEqual(before);
    const other = await graphql(subgraph(), CREATE, { ...vars, input: newBook({ name: 'keyed', cash: 1 }) }, auth());
    expect(refusal(other).code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await counts()).toEqual(before);
  });

  it('needs a partner: anonymous is UNAUTHENTICATED and writes nothing', async () => {
    const before = await counts();
    const res = await graphql(subgraph(), CREATE, { input: newBook() });
    expect(refusal(res).code).toBe('UNAUTHENTICATED');
    expect(await counts()).toEqual(before);
  });
});

describe('Portfolio book fields', () => {
  it('resolve each holding\'s Security through the gateway (the analysis subgraph\'s entity)', async () => {
    const book = await createBook({ name: 'joined book' });
    const res = await graphql<{ portfolio: { id: string; version: number; holdings: Array<{ symbol: string; shares: number; security: { symbol: string; name: string; analysis: { analysisDate: string; price: number } | null } }> } }>(
      gateway(),
      'query($id: ID!) { portfolio(id: $id) { id version holdings { symbol shares security { symbol name analysis { analysisDate price } } } } }',
      { id: book.id },
      auth(bothToken),
    );
    expect(res.body.errors).toBeUndefined();
    const p = res.body.data!.portfolio;
    expect(p.version).toBe(1);
    expect(p.holdings.map((h) => [h.symbol, h.shares])).toEqual(book.holdings.map((h) => [h.symbol, h.shares]));
    for (const h of p.holdings) {
      expect(h.security.symbol).toBe(h.symbol);
      expect(typeof h.security.name).toBe('string');
      const doc = JSON.parse((await latestSnapshot(store.db, h.symbol))!.docText) as Json;
      expect(h.security.analysis).toMatchObject({ analysisDate: doc.analysis_date, price: doc.price });
    }
  });

  it('are an optimize result\'s book too; a demo result (not stored) has none', async () => {
    const made = await graphql<{ optimizePortfolio: { id: string; allocations: Array<{ symbol: string; shares: number }> } & Partial<Book> }>(
      subgraph(),
      'mutation($input: PortfolioRequestInput!) { optimizePortfolio(input: $input) { id allocations { symbol shares } version source cash holdings { symbol shares } trades { total } } }',
      { input: { name: 'optimized', totalCapital: 100000 } },
      auth(),
    );
    expect(made.body.errors).toBeUndefined();
    const p = made.body.data!.optimizePortfolio;
    expect(p).toMatchObject({ version: 1, source: 'optimize', trades: { total: 0 } });
    expect(Object.fromEntries(p.holdings!.map((h) => [h.symbol, h.shares]))).toEqual(Object.fromEntries(p.allocations.map((a) => [a.symbol, a.shares])));

    const demoInput = {
      name: DEMO_OPTIMIZE_BODY.name,
      totalCapital: DEMO_OPTIMIZE_BODY.total_capital,
      riskSettings: {
        maxRiskPerTrade: DEMO_OPTIMIZE_BODY.risk_settings.max_risk_per_trade,
        maxPortfolioRisk: DEMO_OPTIMIZE_BODY.risk_settings.max_portfolio_risk,
        maxPositionSize: DEMO_OPTIMIZE_BODY.risk_settings.max_position_size,
        maxPositions: DEMO_OPTIMIZE_BODY.risk_settings.max_positions,
        allocationStrategy: DEMO_OPTIMIZE_BODY.risk_settings.allocation_strategy,
      },
    };
    const demo = await graphql<{ optimizePortfolio: Json }>(
      subgraph(),
      'mutation($input: PortfolioRequestInput!) { optimizePortfolio(input: $input) { id positionCount version cash holdings { symbol } trades { total items { seq } } } }',
      { input: demoInput },
    );
    expect(demo.body.errors).toBeUndefined();
    expect(demo.body.data!.optimizePortfolio).toMatchObject({ version: null, cash: null, holdings: [], trades: { total: 0, items: [] } });
  });

  it('are visible to the book\'s partner only: another partner gets PORTFOLIO_NOT_FOUND', async () => {
    const book = await createBook({ name: 'private book' });
    const theirs = await graphql(subgraph(), 'query($id: ID!) { portfolio(id: $id) { id cash holdings { symbol } } }', { id: book.id }, auth(otherToken));
    expect(refusal(theirs).code).toBe('PORTFOLIO_NOT_FOUND');
    const entities = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Portfolio { id version cash } } }';
    const own = await graphql<{ _entities: Json[] }>(subgraph(), entities, { r: [{ __typename: 'Portfolio', id: book.id }] }, auth());
    expect(own.body.data!._entities).toEqual([{ id: book.id, version: 1, cash: 20000 }]);
    expect(refusal(await graphql(subgraph(), entities, { r: [{ __typename: 'Portfolio', id: book.id }] }, auth(otherToken))).code).toBe('PORTFOLIO_NOT_FOUND');
  });
});

describe('recordTrade', () => {
  it('records a buy and a sale: shares and cash move together, the version steps, the trade log pages newest first', async () => {
    const book = await createBook({ name: 'traded' });
    const a = symbols[0];
    const buy = await graphql<{ recordTrade: { trade: Trade; portfolio: Book } }>(
      subgraph(),
      TRADE,
      { id: book.id, input: { symbol: a, side: 'BUY', shares: 10, price: 50, date: closes.get(a)!.date }, expected: 1 },
      auth(),
    );
    expect(buy.body.errors).toBeUndefined();
    const bought = buy.body.data!.recordTrade;
    expect(bought.trade).toMatchObject({ seq: 1, symbol: a, side: 'BUY', shares: 10, price: 50, priceSource: 'given', value: 500, realisedPnl: null, cashAfter: 19500, version: 2, origin: 'trade' });
    expect(bought.portfolio).toMatchObject({ id: book.id, version: 2, cash: 19500 });
    expect(sharesOf(bought.portfolio)[a]).toBe(50);
    expect(bought.portfolio.trades.items.map((t) => t.tradeId)).toEqual([bought.trade.tradeId]);

    // A sale at the latest close (no price given): average cost, realised P&L, cash back.
    const held = bought.portfolio.holdings.find((h) => h.symbol === a)!;
    const sell = await graphql<{ recordTrade: { trade: Trade; portfolio: Book } }>(subgraph(), TRADE, { id: book.id, input: { symbol: a, side: 'SELL', shares: 20 }, expected: 2 }, auth());
    expect(sell.body.errors).toBeUndefined();
    const sold = sell.body.data!.recordTrade;
    expect(sold.trade).toMatchObject({ seq: 2, side: 'SELL', shares: 20, priceSource: 'close', version: 3 });
    const removed = Math.round((cents(held.costTotal) * 20) / 50);
    expect(cents(sold.trade.realisedPnl!)).toBe(cents(sold.trade.value) - removed);
    expect(cents(sold.trade.cashAfter)).toBe(cents(19500) + cents(sold.trade.value));
    expect(sold.portfolio).toMatchObject({ version: 3, cash: sold.trade.cashAfter, realisedPnl: sold.trade.realisedPnl });
    expect(sharesOf(sold.portfolio)[a]).toBe(30);

    // The log, a page at a time, newest first.
    const page = await graphql<{ portfolio: { trades: TradePage } }>(
      subgraph(),
      'query($id: ID!) { portfolio(id: $id) { trades(page: 2, pageSize: 1) { items { seq } page pageSize total hasMore } } }',
      { id: book.id },
      auth(),
    );
    expect(page.body.data!.portfolio.trades).toEqual({ items: [{ seq: 1 }], page: 2, pageSize: 1, total: 2, hasMore: false });
    const tooBig = await graphql(subgraph(), 'query($id: ID!) { portfolio(id: $id) { trades(pageSize: 101) { total } } }', { id: book.id }, auth());
    expect(refusal(tooBig)).toMatchObject({ code: 'VALIDATION_FAILED', fields: ['pageSize'] });
  });

  it('refuses a stale expectedVersion with PRECONDITION_FAILED, writing nothing', async () => {
    const book = await createBook({ name: 'stale' });
    const a = symbols[0];
    const first = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: a, side: 'SELL', shares: 1 }, expected: 1 }, auth());
    expect(first.body.errors).toBeUndefined();
    const before = await counts();
    const stale = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: a, side: 'SELL', shares: 1 }, expected: 1 }, auth());
    expect(stale.body.data).toBeNull();
    const r = refusal(stale);
    expect(r.code).toBe('PRECONDITION_FAILED');
    expect(r.details).toEqual([{ field: 'expectedVersion', message: expect.stringContaining('version 2') }]);
    expect(await counts()).toEqual(before);
    expect(await readBook(book.id)).toMatchObject({ version: 2 });
    // Without expectedVersion there is no precondition.
    const free = await graphql<{ recordTrade: { trade: Trade } }>(subgraph(), TRADE, { id: book.id, input: { symbol: a, side: 'SELL', shares: 1 } }, auth());
    expect(free.body.data!.recordTrade.trade.version).toBe(3);
  });

  it('refuses no cash, no shares and a bad input with their codes, writing nothing', async () => {
    const book = await createBook({ name: 'limits', cash: 100 });
    const [a, b] = [symbols[0], symbols[1]];
    const before = await counts();
    const noCash = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: a, side: 'BUY', shares: 1000, price: 10 } }, auth());
    expect(refusal(noCash).code).toBe('INSUFFICIENT_CASH');
    const noShares = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: b, side: 'SELL', shares: 16 } }, auth());
    expect(refusal(noShares).code).toBe('INSUFFICIENT_SHARES');
    const notHeld = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: symbols[2], side: 'SELL', shares: 1 } }, auth());
    expect(refusal(notHeld).code).toBe('INSUFFICIENT_SHARES');
    const bad = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: 'aapl', side: 'BUY', shares: 0, price: 1.001, date: '2025-13-01' } }, auth());
    expect(refusal(bad)).toMatchObject({ code: 'VALIDATION_FAILED', fields: ['date', 'price', 'shares', 'symbol'] });
    const future = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: a, side: 'BUY', shares: 1, price: 1, date: '2999-01-01' } }, auth());
    expect(refusal(future)).toMatchObject({ code: 'VALIDATION_FAILED', fields: ['date'] });
    expect(await counts()).toEqual(before);
    expect(await readBook(book.id)).toMatchObject({ version: 1, cash: 100 });
  });

  it('refuses a trade worth more than 1e12 with VALIDATION_FAILED naming shares (or price), writing nothing', async () => {
    const book = await createBook({ name: 'bounds', cash: 0, holdings: [{ symbol: symbols[0], shares: 1e9, costBasis: 0 }] });
    const before = await counts();
    const big = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: symbols[0], side: 'SELL', shares: 1e6, price: 1e9 } }, auth());
    expect(refusal(big)).toMatchObject({ code: 'VALIDATION_FAILED', fields: ['shares'] });
    const dear = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: symbols[0], side: 'SELL', shares: 1, price: 1e12 } }, auth());
    expect(dear.body.errors).toBeUndefined();
    const over = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: symbols[0], side: 'SELL', shares: 1, price: 0.01 } }, auth());
    expect(refusal(over)).toMatchObject({ code: 'VALIDATION_FAILED', fields: ['price'] });
    const old = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: symbols[0], side: 'SELL', shares: 1, date: '0000-01-01' } }, auth());
    expect(refusal(old)).toMatchObject({ code: 'VALIDATION_FAILED', fields: ['date'] });
    expect((await counts()).trades).toBe(before.trades + 1);
    expect(await readBook(book.id)).toMatchObject({ version: 2, cash: 1e12 });
  });

  it('positionCount is the book\'s count now: a full sale takes it down (the opening figures stay as they were)', async () => {
    const book = await createBook({ name: 'counted' });
    expect(book.positionCount).toBe(2);
    const sold = await graphql<{ recordTrade: { portfolio: Book } }>(subgraph(), TRADE, { id: book.id, input: { symbol: symbols[1], side: 'SELL', shares: 15 } }, auth());
    expect(sold.body.data!.recordTrade.portfolio.positionCount).toBe(1);
    const read = await graphql<{ portfolio: { positionCount: number; totalCapital: number; allocatedCapital: number; remainingCapital: number } }>(
      subgraph(),
      'query($id: ID!) { portfolio(id: $id) { positionCount totalCapital allocatedCapital remainingCapital } }',
      { id: book.id },
      auth(),
    );
    expect(read.body.data!.portfolio).toEqual({ positionCount: 1, totalCapital: 20000 + 40 * 61.2525 + 15 * 120.5, allocatedCapital: 40 * 61.2525 + 15 * 120.5, remainingCapital: 20000 });
    const list = await graphql<{ portfolios: { nodes: Array<{ id: string; positionCount: number }> } }>(subgraph(), '{ portfolios(first: 100) { nodes { id positionCount } } }', {}, auth());
    expect(list.body.data!.portfolios.nodes.find((n) => n.id === book.id)).toEqual({ id: book.id, positionCount: 1 });
  });

  it('answers a retry with the same idempotencyKey with the first trade, changing nothing more', async () => {
    const book = await createBook({ name: 'keyed trades' });
    const vars = { id: book.id, input: { symbol: symbols[1], side: 'SELL', shares: 5, price: 130 }, key: 'graph-trade-1' };
    const a = await graphql<{ recordTrade: { trade: Trade } }>(subgraph(), TRADE, vars, auth());
    expect(a.body.errors).toBeUndefined();
    const before = await counts();
    const b = await graphql<{ recordTrade: { trade: Trade; portfolio: Book } }>(subgraph(), TRADE, vars, auth());
    expect(b.body.data!.recordTrade.trade).toEqual(a.body.data!.recordTrade.trade);
    expect(await counts()).toEqual(before);
    expect(await readBook(book.id)).toMatchObject({ version: 2 });
    const other = await graphql(subgraph(), TRADE, { ...vars, input: { ...vars.input, shares: 6 } }, auth());
    expect(refusal(other).code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('refuses another partner\'s book as not found, and an anonymous caller, writing nothing', async () => {
    const book = await createBook({ name: 'not yours' });
    const before = await counts();
    const theirs = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: symbols[0], side: 'SELL', shares: 1 } }, auth(otherToken));
    expect(refusal(theirs).code).toBe('PORTFOLIO_NOT_FOUND');
    const nobody = await graphql(subgraph(), TRADE, { id: '00000000-0000-4000-8000-000000000000', input: { symbol: symbols[0], side: 'SELL', shares: 1 } }, auth());
    expect(refusal(nobody).code).toBe('PORTFOLIO_NOT_FOUND');
    const anonymous = await graphql(subgraph(), TRADE, { id: book.id, input: { symbol: symbols[0], side: 'SELL', shares: 1 } });
    expect(refusal(anonymous).code).toBe('UNAUTHENTICATED');
    expect(await counts()).toEqual(before);
  });
});

describe('rebalancePortfolio', () => {
  it('gives the orders that end at the target (sells first, cash never negative) and, applied, records them', async () => {
    const book = await createBook({ name: 'rebalanced', cash: 30000 });
    const input = { riskSettings: { maxPositions: 4, allocationStrategy: 'EQUAL_WEIGHT' } };
    const before = await counts();
    const res = await graphql<{ rebalancePortfolio: Rebalance }>(subgraph(), REBALANCE, { id: book.id, input }, auth());
    expect(res.body.errors).toBeUndefined();
    const plan = res.body.data!.rebalancePortfolio;
    expect(plan).toMatchObject({ portfolioId: book.id, version: 1, applied: false, versionAfter: null, trades: [], riskSettings: { maxPositions: 4, allocationStrategy: 'EQUAL_WEIGHT' } });
    expect(plan.orders.length).toBeGreaterThan(0);
    expect(plan.target.length).toBeLessThanOrEqual(4);
    // Sells before buys; the orders move the current book exactly to the target; cash never negative.
    const sides = plan.orders.map((o) => o.side);
    expect(sides).toEqual([...sides].sort((x, y) => (x === y ? 0 : x === 'SELL' ? -1 : 1)));
    const end = { ...sharesOf(book) };
    let cash = cents(plan.cashBefore);
    for (const o of plan.orders) {
      expect(cents(o.value)).toBe(cents(o.shares * o.price));
      end[o.symbol] = (end[o.symbol] ?? 0) + (o.side === 'BUY' ? o.shares : -o.shares);
      cash += o.side === 'BUY' ? -cents(o.value) : cents(o.value);
      expect(cash).toBeGreaterThanOrEqual(0);
    }
    expect(cash).toBe(cents(plan.cashAfter));
    const held = Object.fromEntries(Object.entries(end).filter(([, n]) => n !== 0));
    expect(held).toEqual(Object.fromEntries(plan.target.filter((t) => t.shares > 0).map((t) => [t.symbol, t.shares])));
    for (const t of plan.target) expect(t.currentShares).toBe(sharesOf(book)[t.symbol] ?? 0);
    // Not applied: nothing written (the optimizer's run changes no book).
    expect(await counts()).toEqual(before);
    expect(await readBook(book.id)).toMatchObject({ version: 1 });

    // Applied on a stale version: refused, nothing written.
    const stale = await graphql(subgraph(), REBALANCE, { id: book.id, input, apply: true, expected: 7 }, auth());
    expect(refusal(stale)).toMatchObject({ code: 'PRECONDITION_FAILED', fields: ['expectedVersion'] });
    expect(await counts()).toEqual(before);

    const applied = await graphql<{ rebalancePortfolio: Rebalance }>(subgraph(), REBALANCE, { id: book.id, input, apply: true, expected: 1, key: 'graph-rebalance-1' }, auth());
    expect(applied.body.errors).toBeUndefined();
    const done = applied.body.data!.rebalancePortfolio;
    expect(done).toMatchObject({ applied: true, version: 1, versionAfter: 2 });
    expect(done.trades.map((t) => [t.symbol, t.side, t.shares, t.origin, t.version])).toEqual(done.orders.map((o) => [o.symbol, o.side, o.shares, 'rebalance', 2]));
    const after = await readBook(book.id);
    expect(after).toMatchObject({ version: 2, cash: done.cashAfter });
    expect(sharesOf(after)).toEqual(Object.fromEntries(done.target.filter((t) => t.shares > 0).map((t) => [t.symbol, t.shares])));
    // A retry of the applied rebalance answers the same, recording nothing more.
    const mid = await counts();
    const replay = await graphql<{ rebalancePortfolio: Rebalance }>(subgraph(), REBALANCE, { id: book.id, input, apply: true, expected: 1, key: 'graph-rebalance-1' }, auth());
    expect(replay.body.data!.rebalancePortfolio).toEqual(done);
    expect(await counts()).toEqual(mid);
  });

  it('refuses a bad input in camelCase, another partner\'s book as not found', async () => {
    const book = await createBook({ name: 'rebalance refusals' });
    const before = await counts();
    const bad = await graphql(subgraph(), REBALANCE, { id: book.id, input: { riskSettings: { maxPositions: 0, maxRiskPerTrade: 2 } } }, auth());
    expect(refusal(bad)).toMatchObject({ code: 'VALIDATION_FAILED', fields: ['riskSettings.maxPositions', 'riskSettings.maxRiskPerTrade'] });
    const theirs = await graphql(subgraph(), REBALANCE, { id: book.id, apply: true }, auth(otherToken));
    expect(refusal(theirs).code).toBe('PORTFOLIO_NOT_FOUND');
    expect(await counts()).toEqual(before);
  });
});
