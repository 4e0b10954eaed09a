/**
 * Hunt and cash hunt on real books: a partner creates a book from holdings and cash on the allocation
 * origin (POST /api/v1/portfolios), records trades (POST /api/v1/portfolios/{id}/trades), and the search
 * origin answers about the book as it stands now. Real HTTP on port 0, partner tokens signed with the
 * test secret, RS256 OIDC ID tokens (same `sub`) from a local issuer, the real pipeline's snapshots of
 * the small demo market. Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 *
 * Prices, stops and sectors come from documented responses (an optimize response's allocations: the
 * newest close as entry_price and the analysis's stop as stop_loss; the created book's holdings), never
 * from search engine internals. What is checked of cash hunt's ideas, with V = cash + holdings at the
 * newest close (what cash hunt reports as total_capital):
 *   - the ideas cost at most the cash, and cash_after is what they leave;
 *   - each idea's risk <= max_risk_per_trade x V and value <= max_position_size x V;
 *   - the holdings' open risk (at their own stop, else their snapshot's) plus the ideas' <= max_portfolio_risk x V;
 *   - each capped sector's holdings plus ideas <= its cap x V;
 *   - no idea for a held name, and no more ideas than free slots.
 * Then a sale changes both answers at once (no wait), a holding with neither a stop nor a snapshot is
 * priced at its latest close with its whole value at risk (and at the new close once new bars and a
 * new analysis run are stored, with the book unchanged), hunt states a holding's entry at the book's
 * cost_basis (4 decimals), a book at max_positions gets no idea, and an optimize book is read and
 * traded the same way.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import type { Config } from '../../subgraphs/platform/config.js';
import { recordRun, upsertBars } from '../../subgraphs/analysis/store.js';
import { seedAnalysis, type SeedResult } from '../helpers/analysis.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';
import { request, type JsonResponse } from '../helpers/http.js';
import { startTestIssuer, TEST_OIDC_AUDIENCE, type TestIssuer } from '../helpers/oidc.js';
import { checkResponse, fetchOpenApi, type OpenApiDocument } from '../helpers/openapi.js';
import { eventually } from '../helpers/time.js';

type Json = Record<string, unknown>;
type Row = Record<string, unknown>;

const HUNT = '/api/v1/portfolios/hunt';
const CASH_HUNT = '/api/v1/portfolios/cash-hunt';
const PORTFOLIOS = '/api/v1/portfolios';

const cents = (x: number) => Math.round(x * 100);
const bySymbol = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The created book's settings: room for four more names, a risk budget the holdings leave room in. */
const RISK = { max_positions: 8, max_position_size: 0.2, max_risk_per_trade: 0.01, max_portfolio_risk: 0.12 };
/** The part of the book kept in cash. */
const CASH_SHARE = 0.3;

describe.each(BACKENDS)('hunt and cash hunt on books created from holdings, on %s', (backend) => {
  let issuer: TestIssuer;
  let config: Config;
  let store: TestDb;
  let platform: RunningPlatform;
  let openapi: OpenApiDocument;
  let seed: SeedResult;
  let partnerToken: string;
  let idToken: string;
  /** An optimize book over the whole demo market: its allocations give each name's close, stop and sector. */
  let optimized: Json;
  /** symbol -> the optimize allocation (entry_price = the newest close, stop_loss = the analysis's stop). */
  let quotes: Map<string, Row>;
  /** An equity with bars and no analysis snapshot. */
  let unanalysed: string;

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const search = async (path: string): Promise<JsonResponse<Json>> => {
    const res = await request<Json>(`${platform.urls.search}${path}`, { headers: bearer(idToken) });
    checkResponse(openapi, 'GET', path, res.status, res.body);
    return res;
  };
  const hunt = (id: string) => search(`${HUNT}?portfolio_id=${id}&page_size=50`);
  const cashHunt = (id: string) => search(`${CASH_HUNT}?portfolio_id=${id}&page_size=50`);
  const post = (path: string, body: unknown) =>
    request<Json>(`${platform.urls.allocation}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(partnerToken) },
      body: JSON.stringify(body),
    });
  const create = async (body: Json): Promise<Json> => {
    const res = await post(PORTFOLIOS, body);
    if (res.status !== 201) throw new Error(`create ${JSON.stringify(body)}: ${res.status} ${res.text}`);
    return res.body;
  };
  const sell = async (id: string, symbol: string, shares: number): Promise<Json> => {
    const res = await post(`${PORTFOLIOS}/${id}/trades`, { symbol, side: 'SELL', shares });
    if (res.status !== 200) throw new Error(`sell ${symbol}: ${res.status} ${res.text}`);
    return res.body;
  };
  const quote = (symbol: string) => quotes.get(symbol) as Row;
  /** A holding's stop for risk: its own, else its snapshot's (the optimize allocation's stop of the same name). */
  const stopOf = (h: Row) => (h.stop_loss === null ? (quote(h.symbol as string).stop_loss as number) : (h.stop_loss as number));

  beforeAll(async () => {
    issuer = await startTestIssuer();
    config = testConfig({ ANALYZE_ON_START: 'false', OIDC_ISSUER: issuer.url, OIDC_AUDIENCES: TEST_OIDC_AUDIENCE });
    store = await openTestDb(backend);
    platform = await startPlatform(config, ['analysis', 'allocation', 'search'], { db: store.db });
    openapi = await fetchOpenApi(platform.urls.search as string);
    const equities = await store.db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' ORDER BY symbol");
    seed = await seedAnalysis(store.db, { symbols: equities.map((r) => r.symbol), days: 1 });
    // One equity keeps its bars but loses its analysis: a holding of it has no snapshot.
    unanalysed = equities[equities.length - 1].symbol;
    await store.db.query('DELETE FROM analysis_snapshots WHERE symbol = $1', [unanalysed]);
    partnerToken = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'partner-1' });
    idToken = await issuer.idToken({ subject: 'partner-1' });
    const res = await post(`${PORTFOLIOS}/optimize`, { name: 'Whole market', total_capital: 250000 });
    if (res.status !== 200) throw new Error(`optimize: ${res.status} ${res.text}`);
    optimized = res.body;
    quotes = new Map((optimized.allocations as Row[]).map((a) => [a.symbol as string, a]));
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
    await issuer?.close();
  });

  /** Holdings of the first `n` optimized names (symbol order), each about `weight` of a 100,000 book, bought 5% lower. */
  const holdingsOf = (symbols: string[], weight: number, ownStop: (i: number) => boolean) =>
    symbols.map((symbol, i) => {
      const close = quote(symbol).entry_price as number;
      return {
        symbol,
        shares: Math.max(1, Math.floor((100_000 * weight) / close)),
        cost_basis: Math.round(close * 95) / 100,
        ...(ownStop(i) ? { stop_loss: Math.round(close * 93) / 100 } : {}),
      };
    });
  const cashFor = (holdings: Array<{ symbol: string; shares: number }>, share: number) => {
    const value = holdings.reduce((s, h) => s + h.shares * cents(quote(h.symbol).entry_price as number), 0);
    return Math.round((value * share) / (1 - share)) / 100;
  };

  it('optimized the demo market into enough names to build books from', () => {
    expect(quotes.size).toBeGreaterThanOrEqual(6);
    expect(quotes.has(unanalysed)).toBe(false);
    expect(seed.latestDate).toBe(optimized.analysis_date);
  });

  it('cash hunt on a created book with 30% cash: ideas within the cash and every risk setting; a sale changes hunt and cash hunt at once', async () => {
    const names = [...quotes.keys()].sort(bySymbol).slice(0, 4);
    // Three holdings with their own stop (7% under the close), the fourth without one.
    const holdings = holdingsOf(names, 0.175, (i) => i < 3);
    const cash = cashFor(holdings, CASH_SHARE);
    const cappedSector = quote(names[0]).sector as string;
    const book = await create({
      name: 'Real book',
      cash,
      holdings,
      risk_settings: RISK,
      constraint_pack: { schema_version: '1', sector_caps: { [cappedSector]: 0.3 } },
    });
    const id = book.portfolio_id as string;
    expect(book).toMatchObject({ source: 'holdings', version: 1, cash });

    // V: cash plus the holdings at the newest close.
    const held = book.holdings as Row[];
    const V = cents(cash) + held.reduce((s, h) => s + (h.shares as number) * cents(quote(h.symbol as string).entry_price as number), 0);
    expect(cents(cash) / V).toBeGreaterThan(0.28);
    expect(cents(cash) / V).toBeLessThan(0.32);

    const res = await cashHunt(id);
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({ portfolio_id: id, portfolio_name: 'Real book', available_cash: cash });
    expect(cents(b.total_capital as number)).toBe(V);
    const ideas = b.recommendations as Row[];
    expect(ideas.length).toBeGreaterThan(0);
    expect(ideas.length).toBeLessThanOrEqual(RISK.max_positions - held.length);

    const sectorValue = new Map<string, number>();
    let openRisk = 0;
    for (const h of held) {
      const price = cents(quote(h.symbol as string).entry_price as number);
      openRisk += (h.shares as number) * Math.max(0, price - cents(stopOf(h)));
      const sector = (h.sector as string | null) ?? (quote(h.symbol as string).sector as string);
      sectorValue.set(sector, (sectorValue.get(sector) ?? 0) + (h.shares as number) * price);
    }
    expect(openRisk).toBeLessThan(RISK.max_portfolio_risk * V); // the book leaves room, so the ideas must fit it
    let spent = 0;
    const heldSymbols = new Set(names);
    for (const idea of ideas) {
      expect(heldSymbols.has(idea.symbol as string)).toBe(false);
      const value = cents(idea.position_value as number);
      const risk = cents(idea.risk_amount as number);
      expect(value).toBe((idea.shares as number) * cents(idea.entry_price as number));
      expect(risk).toBe((idea.shares as number) * (cents(idea.entry_price as number) - cents(idea.stop_loss as number)));
      expect(risk).toBeLessThanOrEqual(RISK.max_risk_per_trade * V);
      expect(value).toBeLessThanOrEqual(RISK.max_position_size * V);
      spent += value;
      openRisk += risk;
      sectorValue.set(idea.sector as string, (sectorValue.get(idea.sector as string) ?? 0) + value);
    }
    expect(spent).toBeLessThanOrEqual(cents(cash));
    expect(cents(b.cash_after as number)).toBe(cents(cash) - spent);
    expect(openRisk).toBeLessThanOrEqual(RISK.max_portfolio_risk * V);
    expect(sectorValue.get(cappedSector) ?? 0).toBeLessThanOrEqual(0.3 * V);

    // The general hunt reads the same book: one recommendation per holding, the cash, the cost basis.
    const before = await hunt(id);
    expect(before.status).toBe(200);
    const ga = before.body.general_assessment as Json;
    expect((ga.recommendations as Row[]).map((r) => r.symbol as string).sort(bySymbol)).toEqual(names);
    expect(ga.available_cash).toBe(cash);
    expect(cents(ga.portfolio_value as number)).toBe(V);
    for (const r of ga.recommendations as Row[]) {
      const h = held.find((x) => x.symbol === r.symbol) as Row;
      expect(r.shares).toBe(h.shares);
      expect(r.entry_price).toBe(h.cost_basis);
      // The stop risk is measured at: the holding's own, else its snapshot's.
      expect(r.stop_loss).toBe(stopOf(h));
    }

    // Sell the whole first holding and part of the second: both answers change on the next call.
    const [gone, trimmed] = names;
    const sold = await sell(id, gone, holdings[0].shares);
    const trade = sold.trade as Json;
    const part = Math.max(1, Math.floor(holdings[1].shares / 2));
    const after = await sell(id, trimmed, part);
    const cashNow = (after.trade as Json).cash_after as number;
    expect(cents(cashNow)).toBe(cents(cash) + holdings[0].shares * cents(trade.price as number) + part * cents((after.trade as Json).price as number));
    expect((after.portfolio as Json).version).toBe(3);

    const huntAfter = await hunt(id);
    expect(huntAfter.status).toBe(200);
    const gaAfter = huntAfter.body.general_assessment as Json;
    expect(gaAfter.available_cash).toBe(cashNow);
    const recsAfter = gaAfter.recommendations as Row[];
    expect(recsAfter.map((r) => r.symbol)).not.toContain(gone);
    expect(recsAfter).toHaveLength(3);
    expect(recsAfter.find((r) => r.symbol === trimmed)?.shares).toBe(holdings[1].shares - part);
    // The sold name can no longer be replaced: it is not held.
    const replace = await search(`${HUNT}?portfolio_id=${id}&symbol_replace=${gone}`);
    expect(replace.status).toBe(400);

    const cashAfterSale = await cashHunt(id);
    expect(cashAfterSale.status).toBe(200);
    expect(cashAfterSale.body.available_cash).toBe(cashNow);
    expect(cents(cashAfterSale.body.available_cash as number)).toBeGreaterThan(cents(cash));
    const spentAfter = (cashAfterSale.body.recommendations as Row[]).reduce((s, r) => s + cents(r.position_value as number), 0);
    expect(spentAfter).toBeLessThanOrEqual(cents(cashNow));
    expect((cashAfterSale.body.recommendations as Row[]).length).toBeLessThanOrEqual(RISK.max_positions - 3);
  });

  it('a holding with neither a stop nor a snapshot: priced at its latest close, its whole value counted as open risk', async () => {
    const [name] = [...quotes.keys()].sort(bySymbol);
    const own = holdingsOf([name], 0.3, () => true)[0];
    const bare = { symbol: unanalysed, shares: 40, cost_basis: 12.5 };
    const risk = { ...RISK, max_portfolio_risk: 0.2 };
    const book = await create({ name: 'Unanalysed holding', cash: 50_000, holdings: [own, bare], risk_settings: risk });
    const id = book.portfolio_id as string;
    const held = book.holdings as Row[];
    const x = held.find((h) => h.symbol === unanalysed) as Row;
    expect(x.stop_loss).toBeNull();
    expect(x.price).not.toBeNull(); // it has bars: the book values it at its latest close
    const xValue = bare.shares * cents(x.price as number);
    const V = cents(50_000) + own.shares * cents(quote(name).entry_price as number) + xValue;

    const general = await hunt(id);
    expect(general.status).toBe(200);
    const rec = ((general.body.general_assessment as Json).recommendations as Row[]).find((r) => r.symbol === unanalysed) as Row;
    expect(rec).toMatchObject({ type: 'HOLD', rating: 'WEAK', current_price: null, unrealized_return: null, stop_loss: 0, entry_price: 12.5 });
    expect((rec.reasons as string[]).join(' ')).toContain('whole value counts as open risk');
    expect(cents((general.body.general_assessment as Json).portfolio_value as number)).toBe(V);

    const res = await cashHunt(id);
    expect(res.status).toBe(200);
    expect(cents(res.body.total_capital as number)).toBe(V);
    const ideas = res.body.recommendations as Row[];
    expect(ideas.length).toBeGreaterThan(0);
    let openRisk = xValue + own.shares * (cents(quote(name).entry_price as number) - cents(own.stop_loss as number));
    expect(openRisk).toBeLessThan(risk.max_portfolio_risk * V);
    for (const idea of ideas) {
      expect([name, unanalysed]).not.toContain(idea.symbol);
      openRisk += cents(idea.risk_amount as number);
    }
    expect(openRisk).toBeLessThanOrEqual(risk.max_portfolio_risk * V);
  });

  it('a holding without a snapshot follows its latest close: after new bars and a new analysis run, hunt and cash hunt use the new close', async () => {
    const bare = { symbol: unanalysed, shares: 40, cost_basis: 12.5 };
    const cash = 20_000;
    const book = await create({ name: 'New close', cash, holdings: [bare], risk_settings: RISK });
    const id = book.portfolio_id as string;
    const oldClose = (book.holdings as Row[])[0].price as number;
    const valueAt = (close: number) => cents(cash) + bare.shares * cents(close);
    const huntValue = async () => {
      const res = await hunt(id);
      expect(res.status).toBe(200);
      return cents((res.body.general_assessment as Json).portfolio_value as number);
    };
    const cashHuntValue = async () => {
      const res = await cashHunt(id);
      expect(res.status).toBe(200);
      return cents(res.body.total_capital as number);
    };
    // Both answers (and so the book's view search keeps) are made at the old close.
    expect(await huntValue()).toBe(valueAt(oldClose));
    expect(await cashHuntValue()).toBe(valueAt(oldClose));

    // A new bar for the holding, half as high again, then a new analysis run; the book itself is not traded.
    const [last] = await store.db.query<{ date: string }>('SELECT max(date)::text AS date FROM bars WHERE symbol = $1', [unanalysed]);
    const next = new Date(Date.parse(`${last.date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const newClose = Math.round(oldClose * 150) / 100;
    await upsertBars(store.db, [{ symbol: unanalysed, date: next, open: newClose, high: newClose, low: newClose, close: newClose, volume: 1000 }]);
    const now = new Date().toISOString();
    await recordRun(store.db, { startedAt: now, finishedAt: now, pipelineVersion: 'test', fromDate: seed.latestDate, toDate: seed.latestDate, symbols: 0, snapshots: 0, model: null, transitions: null });
    const read = await request<Json>(`${platform.urls.allocation}${PORTFOLIOS}/${id}`, { headers: bearer(partnerToken) });
    expect(read.status).toBe(200);
    expect(read.body.version).toBe(1);
    expect((read.body.holdings as Row[])[0]).toMatchObject({ price: newClose, price_date: next });
    expect(cents(read.body.total_value as number)).toBe(valueAt(newClose));

    // Once the new universe is seen (within the universe TTL), hunt and cash hunt price it at the new close.
    expect(await eventually(async () => (await huntValue()) === valueAt(newClose), 10_000)).toBe(true);
    expect(await cashHuntValue()).toBe(valueAt(newClose));
  });

  it('hunt states each holding at the cost basis the book states (4 decimals)', async () => {
    const [name] = [...quotes.keys()].sort(bySymbol);
    const book = await create({ name: 'Fine cost', cash: 1000, holdings: [{ symbol: name, shares: 3, cost_basis: 61.2549 }] });
    const [h] = book.holdings as Row[];
    // 3 x 61.2549 = 183.7647, stored as 183.76: the book's cost basis is 183.76 / 3 = 61.2533.
    expect(h).toMatchObject({ cost_total: 183.76, cost_basis: 61.2533 });
    const res = await hunt(book.portfolio_id as string);
    expect(res.status).toBe(200);
    const [rec] = (res.body.general_assessment as Json).recommendations as Row[];
    expect(rec.symbol).toBe(name);
    expect(rec.entry_price).toBe(h.cost_basis);
  });

  it('a book at max_positions gets no cash idea, and one after a sale frees a slot', async () => {
    const names = [...quotes.keys()].sort(bySymbol).slice(1, 4);
    const holdings = holdingsOf(names, 0.15, () => true);
    const book = await create({
      name: 'Full slots',
      cash: cashFor(holdings, 0.5),
      holdings,
      risk_settings: { ...RISK, max_positions: 3, max_portfolio_risk: 0.2 },
    });
    const id = book.portfolio_id as string;
    const full = await cashHunt(id);
    expect(full.status).toBe(200);
    expect(full.body.recommendations).toEqual([]);
    expect(full.body.total_recommendations).toBe(0);
    expect(full.body.cash_after).toBe(full.body.available_cash);
    expect((full.body.notes as string[]).some((n) => /max_positions/.test(n) && n.includes('3 of 3'))).toBe(true);

    await sell(id, names[0], holdings[0].shares);
    const freed = await cashHunt(id);
    expect(freed.status).toBe(200);
    const ideas = freed.body.recommendations as Row[];
    expect(ideas).toHaveLength(1);
    // Not a held name (the one sold may come back: it is no longer held).
    expect(names.slice(1)).not.toContain(ideas[0].symbol);
    expect(cents(ideas[0].position_value as number)).toBeLessThanOrEqual(cents(freed.body.available_cash as number));
  });

  it('an optimize book is read as it stands now too: a sale shows in hunt and cash hunt at once', async () => {
    const id = optimized.portfolio_id as string;
    const first = await hunt(id);
    expect(first.status).toBe(200);
    const recs = (first.body.general_assessment as Json).recommendations as Row[];
    expect(recs.map((r) => r.symbol as string).sort(bySymbol)).toEqual([...quotes.keys()].sort(bySymbol));
    // An optimize book's holdings keep the optimizer's entry and stop.
    for (const r of recs) {
      expect(r.entry_price).toBe(quote(r.symbol as string).entry_price);
      expect(r.stop_loss).toBe(quote(r.symbol as string).stop_loss);
    }
    const cashBefore = await cashHunt(id);
    expect(cashBefore.status).toBe(200);
    expect(cashBefore.body.available_cash).toBe(optimized.remaining_capital);
    expect(cashBefore.body.total_capital).toBe(optimized.total_capital);

    const symbol = [...quotes.keys()].sort(bySymbol).at(-1) as string;
    const sold = await sell(id, symbol, quote(symbol).shares as number);
    const cashNow = (sold.trade as Json).cash_after as number;
    const huntAfter = await hunt(id);
    expect(((huntAfter.body.general_assessment as Json).recommendations as Row[]).map((r) => r.symbol)).not.toContain(symbol);
    expect((huntAfter.body.general_assessment as Json).available_cash).toBe(cashNow);
    const cashAfter = await cashHunt(id);
    expect(cashAfter.body.available_cash).toBe(cashNow);
    expect(cents(cashNow)).toBe(cents(optimized.remaining_capital as number) + (quote(symbol).shares as number) * cents((sold.trade as Json).price as number));
  });
});
