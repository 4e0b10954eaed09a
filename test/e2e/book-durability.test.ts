/**
 * Durability of a book's trades, with `npm start`'s built dist/cli/start.js in a child process that is
 * killed with SIGKILL (`kill -9`: no shutdown code runs) while many buys and sells are in flight:
 *
 * - the trade log and the book agree: replaying the log (in `seq` order) from the opening holdings and
 *   cash gives exactly the stored holdings (shares and average cost) and cash, and each trade's
 *   `cash_after` is the replay's cash after it; no trade without its holding change, nor the reverse;
 * - the version is 1 + the number of recorded trade requests (each recorded trade took one version, in
 *   order, with no gap);
 * - every trade answered 200 before the kill is in the log, as answered;
 * - retrying every request with its Idempotency-Key afterwards records each exactly once (the committed
 *   ones are replayed byte for byte), and the replay still holds.
 *
 * On the embedded store on disk, and on PostgreSQL when TEST_DATABASE_URL is set (`npm run test:pg`, CI).
 */
import type { BookResponse, TradePage, TradeRecord, TradeResponse } from '../../subgraphs/allocation/book-types.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { startOrigins, type Origins } from '../helpers/child.js';
import { durableStore } from '../helpers/durable.js';
import { BACKENDS } from '../helpers/db.js';
import { TEST_SECRET } from '../helpers/config.js';
import { graphql, request } from '../helpers/http.js';

const PORTFOLIOS = '/api/v1/portfolios';

/** The analysis (demo market) and allocation origins (test/helpers/child.ts: own process group, scaled deadlines). */
async function start(env: NodeJS.ProcessEnv): Promise<Origins> {
  const child = await startOrigins(['analysis', 'allocation'], env, 90_000);
  if (!child.urls.allocation || !child.urls.analysis) throw new Error(`origin URLs missing in:\n${child.output()}`);
  return child;
}

const cents = (amount: number): number => Math.round(amount * 100);

interface Position {
  shares: number;
  costCents: number;
}

/**
 * The book the log describes: the opening holdings and cash with every trade applied in order (average
 * cost: a sale removes round(cost x sold / held)). Checks each trade's cash_after on the way.
 */
function replay(opening: BookResponse, log: readonly TradeRecord[]): { cashCents: number; positions: Map<string, Position> } {
  const positions = new Map(opening.holdings.map((h) => [h.symbol, { shares: h.shares, costCents: cents(h.cost_total) }]));
  let cashCents = cents(opening.cash);
  for (const t of log) {
    const value = t.shares * cents(t.price);
    const held = positions.get(t.symbol) ?? { shares: 0, costCents: 0 };
    if (t.side === 'BUY') {
      cashCents -= value;
      positions.set(t.symbol, { shares: held.shares + t.shares, costCents: held.costCents + value });
    } else {
      cashCents += value;
      const removed = Math.round((held.costCents * t.shares) / held.shares);
      const left = { shares: held.shares - t.shares, costCents: held.costCents - removed };
      if (left.shares === 0) positions.delete(t.symbol);
      else positions.set(t.symbol, left);
    }
    expect({ seq: t.seq, cash_after: cents(t.cash_after) }).toEqual({ seq: t.seq, cash_after: cashCents });
  }
  return { cashCents, positions };
}

describe.each(BACKENDS)('a book\'s trades survive kill -9 (%s)', (backend) => {
  const store = durableStore(backend, 'tg-book-durable-');
  let token: string;
  let analysisToken: string;
  const running: Origins[] = [];

  beforeAll(async () => {
    await store.open();
    token = await mintPartnerToken({ secret: TEST_SECRET, issuer: 'tradegraph-dev', audience: 'tradegraph-allocation', subject: 'durable-trader' });
    analysisToken = await mintPartnerToken({ secret: TEST_SECRET, issuer: 'tradegraph-dev', audience: 'tradegraph-analysis', subject: 'durable-trader' });
  });
  afterAll(async () => {
    // The origins' group goes first: the database cannot be dropped while they hold it.
    await Promise.all(running.map((c) => c.kill()));
    await store.close();
  });

  const launch = async () => {
    const child = await start(store.env);
    running.push(child);
    return child;
  };
  const headers = (more: Record<string, string> = {}) => ({ 'content-type': 'application/json', authorization: `Bearer ${token}`, ...more });

  /** The whole trade log, oldest first. */
  async function tradeLog(url: string, id: string): Promise<TradeRecord[]> {
    const items: TradeRecord[] = [];
    for (let page = 1; ; page++) {
      const res = await request<TradePage>(`${url}${PORTFOLIOS}/${id}/trades?page=${page}&page_size=100`, { headers: headers() });
      expect(res.status).toBe(200);
      items.push(...res.body.items);
      if (!res.body.has_more) break;
    }
    return items.sort((a, b) => a.seq - b.seq);
  }

  /** The stored book agrees with its log, and its version counts the recorded requests. */
  async function expectConsistent(url: string, opening: BookResponse): Promise<{ book: BookResponse; log: TradeRecord[] }> {
    const read = await request<BookResponse>(`${url}${PORTFOLIOS}/${opening.portfolio_id}`, { headers: headers() });
    expect(read.status).toBe(200);
    const book = read.body;
    const log = await tradeLog(url, opening.portfolio_id);
    expect(log.map((t) => t.seq)).toEqual(log.map((_, i) => i + 1));
    // One trade per request here: versions 2, 3, ... in log order, and the book's is the last of them.
    expect(log.map((t) => t.version)).toEqual(log.map((_, i) => i + 2));
    expect(book.version).toBe(1 + log.length);
    expect(read.headers.get('etag')).toBe(`"${book.version}"`);

    const { cashCents, positions } = replay(opening, log);
    expect(cents(book.cash)).toBe(cashCents);
    const stored = Object.fromEntries(book.holdings.map((h) => [h.symbol, { shares: h.shares, costCents: cents(h.cost_total) }]));
    expect(stored).toEqual(Object.fromEntries(positions));
    return { book, log };
  }

  it('kill -9 during concurrent buys and sells: the log, the holdings, the cash and the version agree', async () => {
    const first = await launch();
    const listed = await graphql<{ securities: { nodes: Array<{ symbol: string; assetType: string }> } }>(
      `${first.urls.analysis}/graphql`,
      '{ securities(first: 50) { nodes { symbol assetType } } }',
      {},
      { authorization: `Bearer ${analysisToken}` },
    );
    const symbols = (listed.body.data?.securities.nodes ?? []).filter((s) => s.assetType === 'EQUITY').map((s) => s.symbol).slice(0, 4);
    expect(symbols).toHaveLength(4);

    // Plenty of shares and cash: every trade below fits whatever order the server takes them in.
    const created = await request<BookResponse>(`${first.urls.allocation}${PORTFOLIOS}`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({
        name: 'Durable book',
        cash: 500000,
        holdings: symbols.slice(0, 3).map((symbol, i) => ({ symbol, shares: 5000, cost_basis: 20 + i * 1.2345, entry_date: '2026-01-05' })),
      }),
    });
    expect(created.status).toBe(201);
    const opening = created.body;
    const id = opening.portfolio_id;

    // 40 trades: buys and sells of held names and of a fourth, some priced, some at the latest close.
    const trades = Array.from({ length: 40 }, (_, i) => ({
      key: `trade-${backend}-${i}`,
      body: {
        symbol: symbols[i % 4],
        side: i % 3 === 1 ? 'SELL' : 'BUY',
        shares: 1 + ((i * 7) % 23),
        ...(i % 2 === 0 ? { price: Number((10 + i * 0.37).toFixed(2)) } : {}),
      },
    }));
    // Sells only of the three opening names (the fourth may not be held yet when a sell of it arrives).
    for (const t of trades) if (t.body.side === 'SELL' && t.body.symbol === symbols[3]) t.body.symbol = symbols[0];

    const post = (url: string, t: (typeof trades)[number]) =>
      request<TradeResponse>(`${url}${PORTFOLIOS}/${id}/trades`, { method: 'POST', headers: headers({ 'idempotency-key': t.key }), body: JSON.stringify(t.body) });

    const answered = new Map<string, { text: string; trade: TradeRecord }>();
    let killed = false;
    await Promise.all(
      trades.map(async (t) => {
        const res = await post(first.urls.allocation, t).catch(() => null);
        if (res?.status === 200) answered.set(t.key, { text: res.text, trade: res.body.trade });
        else if (res) throw new Error(`trade ${t.key} answered ${res.status}: ${res.text}`);
        // The eighth answer pulls the trigger while the others are in flight.
        if (!killed && answered.size >= 8) {
          killed = true;
          first.signal('SIGKILL');
        }
      }),
    );
    await first.exit;
    expect(answered.size).toBeGreaterThanOrEqual(8);
    expect(answered.size).toBeLessThan(trades.length); // the kill did interrupt some

    const again = await launch();
    const after = await expectConsistent(again.urls.allocation, opening);
    // Every answered trade is in the log as answered (its id, seq, cash after and version).
    const logged = new Map(after.log.map((t) => [t.trade_id, t]));
    for (const { trade } of answered.values()) expect(logged.get(trade.trade_id)).toEqual(trade);

    // Retrying every request with its key: a committed one is replayed as first answered, the rest are recorded now.
    for (const t of trades) {
      const res = await post(again.urls.allocation, t);
      expect(res.status).toBe(200);
      const first200 = answered.get(t.key);
      if (first200) {
        expect(res.headers.get('idempotent-replayed')).toBe('true');
        expect(res.text).toBe(first200.text);
      }
    }
    const final = await expectConsistent(again.urls.allocation, opening);
    expect(final.log).toHaveLength(trades.length); // each request recorded exactly once

    again.signal('SIGINT');
    expect(await again.waitForExit()).toBe(0);
  });
});
