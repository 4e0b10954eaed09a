/**
 * GET /api/v1/portfolios/hunt and GET /api/v1/portfolios/cash-hunt against the HTTP contract: spec
 * "Opportunity-search service", "Opportunity-search service responses" (HuntResponse, CashHuntResponse),
 * "Authentication" (rules for the opportunity-search service), "Errors", "Limits"; DESIGN section 4
 * (Search) and section 5 (error shape, search tokens, both symbol parameters, hunt_mode values,
 * page/page_size out of range, rate limits). Real HTTP on port 0; portfolios built by real optimize
 * calls with a partner token, read back with real RS256 OIDC ID tokens (same `sub`) from a local issuer;
 * the real pipeline's snapshots of the small demo market. Every response is checked against the search
 * origin's /openapi.json. Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 *
 * Assertions use the stored documents and the optimize responses, never engine numbers.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { latestSnapshot, upsertSnapshots } from '../../subgraphs/analysis/store.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import type { Config } from '../../subgraphs/platform/config.js';
import { seedAnalysis, storedSnapshotTexts, type SeedResult } from '../helpers/analysis.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { BACKENDS, openTestDb, type TestDb } from '../helpers/db.js';
import { expectErrorShape, request, type JsonResponse } from '../helpers/http.js';
import { startTestIssuer, TEST_OIDC_AUDIENCE, type TestIssuer } from '../helpers/oidc.js';
import { checkResponse, fetchOpenApi, type OpenApiDocument } from '../helpers/openapi.js';

type Json = Record<string, unknown>;
type Row = Record<string, unknown>;
interface Detail {
  field?: string;
  message: string;
}

const HUNT = '/api/v1/portfolios/hunt';
const CASH_HUNT = '/api/v1/portfolios/cash-hunt';
const OPTIMIZE = '/api/v1/portfolios/optimize';

/** spec "Opportunity-search service responses": every field of HuntResponse and CashHuntResponse. */
const HUNT_RESPONSE_KEYS = [
  'portfolio_id', 'portfolio_name', 'hunt_mode', 'general_assessment', 'replacement_analysis', 'suitability_analysis', 'page', 'page_size',
  'total_recommendations', 'has_more',
];
const CASH_HUNT_RESPONSE_KEYS = [
  'portfolio_id', 'portfolio_name', 'available_cash', 'total_capital', 'recommendations', 'page', 'page_size', 'total_recommendations', 'has_more',
];
/** spec "HuntResponse": general_assessment's fields. */
const GENERAL_ASSESSMENT_KEYS = ['total_positions', 'strong_positions', 'weak_positions', 'recommendations', 'concerns'];

const cents = (x: number) => Math.round(x * 100);
const bySymbol = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** A query string; `raw` pairs are appended as they are (repeated or empty parameters). */
function query(params: Record<string, string | number>, raw: string[] = []): string {
  const parts = [new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString(), ...raw].filter(Boolean);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Ranked by fit_score descending, ties by symbol (engine/book.ts byFit). */
function expectRankedByFit(ideas: Row[]): void {
  for (let i = 1; i < ideas.length; i++) {
    const a = ideas[i - 1];
    const b = ideas[i];
    const ordered = (a.fit_score as number) > (b.fit_score as number) || (a.fit_score === b.fit_score && bySymbol(a.symbol as string, b.symbol as string) < 0);
    expect({ pair: [a.symbol, b.symbol], ordered }).toEqual({ pair: [a.symbol, b.symbol], ordered: true });
  }
}

/** An idea's figures agree with its shares, to the cent. */
function expectConsistentIdea(idea: Row): void {
  expect(Number.isInteger(idea.shares)).toBe(true);
  expect(idea.shares as number).toBeGreaterThanOrEqual(1);
  expect(cents(idea.position_value as number)).toBe((idea.shares as number) * cents(idea.entry_price as number));
  expect(cents(idea.risk_amount as number)).toBe((idea.shares as number) * (cents(idea.entry_price as number) - cents(idea.stop_loss as number)));
  expect(idea.stop_loss as number).toBeLessThan(idea.entry_price as number);
}

/** Concerns: score descending, then type, then symbols (engine/assessment.ts). */
function expectConcernOrder(concerns: Row[]): void {
  const keys = concerns.map((c) => [-(c.score as number), c.type as string, (c.symbols as string[]).join(',')] as const);
  const sorted = [...keys].sort((x, y) => x[0] - y[0] || bySymbol(x[1], y[1]) || bySymbol(x[2], y[2]));
  expect(keys).toEqual(sorted);
}

describe.each(BACKENDS)('opportunity-search REST contract on %s', (backend) => {
  let issuer: TestIssuer;
  let config: Config;
  let store: TestDb;
  let platform: RunningPlatform;
  let openapi: OpenApiDocument;
  let seed: SeedResult;
  let partnerToken: string;
  let idToken: string;
  let otherIdToken: string;
  /** Optimize responses of the portfolios the tests read (all partner-1's). */
  const books: Record<'full' | 'filled' | 'cash' | 'slots' | 'weak', Json> = {} as never;

  const search = () => platform.urls.search as string;

  /** A GET on a search origin; every JSON answer is checked against that origin's OpenAPI document. */
  const get = async (base: string, doc: OpenApiDocument, path: string, headers: Record<string, string> = {}): Promise<JsonResponse<Json>> => {
    const res = await request<Json>(`${base}${path}`, { headers });
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    // Issue "Production hardening" item 6: every response fits the origin's own OpenAPI document.
    checkResponse(doc, 'GET', path, res.status, res.body);
    return res;
  };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const hunt = (q: string, token: string | null = idToken) => get(search(), openapi, `${HUNT}${q}`, token ? bearer(token) : {});
  const cashHunt = (q: string, token: string | null = idToken) => get(search(), openapi, `${CASH_HUNT}${q}`, token ? bearer(token) : {});
  const idOf = (book: Json) => book.portfolio_id as string;
  const held = (book: Json) => (book.allocations as Row[]).map((a) => a.symbol as string);
  const portfolioCount = async () => (await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolios'))[0].n;
  const fields = (res: JsonResponse<Json>) => (res.body.details as Detail[]).map((d) => d.field);

  const optimize = async (body: Json): Promise<Json> => {
    const res = await request<Json>(`${platform.urls.allocation}${OPTIMIZE}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(partnerToken) },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`optimize ${JSON.stringify(body)}: ${res.status} ${res.text}`);
    return res.body;
  };

  beforeAll(async () => {
    issuer = await startTestIssuer();
    config = testConfig({
      ANALYZE_ON_START: 'false',
      OIDC_ISSUER: issuer.url,
      OIDC_AUDIENCES: TEST_OIDC_AUDIENCE,
      // The weak-holdings tests rewrite snapshots; search must see them on the next request.
      ALLOCATION_UNIVERSE_TTL_MS: '0',
    });
    store = await openTestDb(backend);
    platform = await startPlatform(config, ['analysis', 'allocation', 'search'], { db: store.db });
    openapi = await fetchOpenApi(search());
    const equities = await store.db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' ORDER BY symbol");
    seed = await seedAnalysis(store.db, { symbols: equities.map((r) => r.symbol), days: 1 });
    partnerToken = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'partner-1' });
    idToken = await issuer.idToken({ subject: 'partner-1' });
    otherIdToken = await issuer.idToken({ subject: 'partner-2' });

    // Every eligible name of the demo market, under the RiskSettings defaults.
    books.full = await optimize({ name: 'Full book', total_capital: 250000 });
    // max_positions filled: no slot for cash hunt.
    books.filled = await optimize({ name: 'Five names', total_capital: 100000, risk_settings: { max_positions: 5 } });
    // A turnover cap from a one-name prior book leaves most of the capital in cash and eligible names unheld.
    const top = held(books.full)[0];
    const cashBook = (over: Json = {}): Json => ({
      name: 'Mostly cash',
      total_capital: 10000,
      prior_book_weights: { [top]: 0.2 },
      constraint_pack: { schema_version: '1', max_portfolio_turnover_annual: 0.02 },
      ...over,
    });
    books.cash = await optimize(cashBook());
    books.slots = await optimize(cashBook({ name: 'Few slots', risk_settings: { max_positions: 6 } }));
    books.weak = await optimize({ name: 'To be weakened', total_capital: 100000, risk_settings: { max_positions: 5 } });
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
    await issuer?.close();
  });

  it('seeded every equity of the demo market and built the books the tests read', () => {
    expect(seed.symbols.length).toBeGreaterThan(5);
    expect(held(books.full).length).toBeGreaterThan(6); // more holdings than the default page
    expect(held(books.filled)).toHaveLength(5);
    expect(held(books.cash).length).toBeLessThan(30);
    expect(books.cash.remaining_capital as number).toBeGreaterThan(0);
  });

  describe('hunt modes (spec "Opportunity-search service", "HuntResponse"; DESIGN section 5 "hunt_mode values")', () => {
    it('general mode: general_assessment with counts consistent with its recommendations, the other analyses null', async () => {
      const res = await hunt(query({ portfolio_id: idOf(books.full), page_size: 50 }));
      expect(res.status).toBe(200);
      const b = res.body;
      expect(Object.keys(b)).toEqual(expect.arrayContaining(HUNT_RESPONSE_KEYS));
      expect(b).toMatchObject({ portfolio_id: idOf(books.full), portfolio_name: 'Full book', hunt_mode: 'general', page: 1, page_size: 50, has_more: false });
      expect(b.replacement_analysis).toBeNull();
      expect(b.suitability_analysis).toBeNull();
      expect(b.analysis_date).toBe(seed.latestDate);
      const ga = b.general_assessment as Json;
      expect(Object.keys(ga)).toEqual(expect.arrayContaining(GENERAL_ASSESSMENT_KEYS));
      const recs = ga.recommendations as Row[];
      // One recommendation per holding; the counts are those of the ratings.
      expect(recs.map((r) => r.symbol).sort()).toEqual([...held(books.full)].sort());
      expect(ga.total_positions).toBe(recs.length);
      expect(b.total_recommendations).toBe(recs.length);
      expect(ga.strong_positions).toBe(recs.filter((r) => r.rating === 'STRONG').length);
      expect(ga.weak_positions).toBe(recs.filter((r) => r.rating === 'WEAK').length);
      expect((ga.strong_positions as number) + (ga.weak_positions as number)).toBeLessThanOrEqual(ga.total_positions as number);
      // Each recommendation describes the stored holding.
      const allocations = new Map((books.full.allocations as Row[]).map((a) => [a.symbol as string, a]));
      for (const r of recs) {
        const a = allocations.get(r.symbol as string) as Row;
        expect(r.shares).toBe(a.shares);
        expect(r.entry_price).toBe(a.entry_price);
        expect(r.stop_loss).toBe(a.stop_loss);
        expect(['EXIT', 'REPLACE', 'TRIM', 'ADD', 'HOLD']).toContain(r.type);
        if (r.type === 'HOLD') expect(r.suggested_share_change).toBe(0);
        if (r.type === 'EXIT' || r.type === 'REPLACE') expect(r.suggested_share_change).toBe(-(r.shares as number));
        if (r.type === 'TRIM') expect(r.suggested_share_change as number).toBeLessThan(0);
        if (r.type === 'ADD') expect(r.suggested_share_change as number).toBeGreaterThan(0);
        if (r.type !== 'REPLACE') expect(r.replacement_candidates).toEqual([]);
      }
      // Ordered by action (EXIT, REPLACE, TRIM, ADD, HOLD), then score, then symbol (engine/assessment.ts).
      const order = ['EXIT', 'REPLACE', 'TRIM', 'ADD', 'HOLD'];
      const keys = recs.map((r) => [order.indexOf(r.type as string), -(r.score as number), r.symbol as string] as const);
      const sorted = [...keys].sort((x, y) => x[0] - y[0] || x[1] - y[1] || bySymbol(x[2], y[2]));
      expect(keys).toEqual(sorted);
      // A weak holding without a better replacement is halved (at least one share).
      for (const r of recs.filter((x) => x.type === 'TRIM' && x.rating === 'WEAK')) {
        expect(r.suggested_share_change).toBe(-Math.max(1, Math.floor((r.shares as number) / 2)));
      }
      // The book at the newest prices (its own analysis date): the optimize response's capital and cash.
      expect(cents(ga.available_cash as number)).toBe(cents(books.full.remaining_capital as number));
      expect(cents(ga.portfolio_value as number)).toBe(cents(books.full.total_capital as number));
      expectConcernOrder(ga.concerns as Row[]);
    });

    it('general mode: an ADD fits the available cash and the per-name cap', async () => {
      const book = books.cash;
      const res = await hunt(query({ portfolio_id: idOf(book), page_size: 50 }));
      expect(res.status).toBe(200);
      const recs = (res.body.general_assessment as Json).recommendations as Row[];
      const adds = recs.filter((r) => r.type === 'ADD');
      expect(adds.length).toBeGreaterThan(0);
      const rs = book.risk_settings as Json;
      const V = book.total_capital as number;
      for (const r of adds) {
        expect(r).toMatchObject({ rating: 'STRONG', signal: 'BUY' });
        const change = r.suggested_share_change as number;
        expect(Number.isInteger(change)).toBe(true);
        expect(change * cents(r.current_price as number)).toBeLessThanOrEqual(cents(book.remaining_capital as number));
        expect(((r.shares as number) + change) * cents(r.current_price as number)).toBeLessThanOrEqual(Math.round((rs.max_position_size as number) * V * 100));
      }
    });

    it('replace mode (symbol_replace, a held ticker): candidates not held, whole shares, ranked by fit_score then symbol', async () => {
      const symbol = held(books.filled)[0];
      const res = await hunt(query({ portfolio_id: idOf(books.filled), symbol_replace: symbol, page_size: 50 }));
      expect(res.status).toBe(200);
      const b = res.body;
      expect(Object.keys(b)).toEqual(expect.arrayContaining(HUNT_RESPONSE_KEYS));
      expect(b).toMatchObject({ portfolio_id: idOf(books.filled), portfolio_name: 'Five names', hunt_mode: 'replace', general_assessment: null, suitability_analysis: null });
      const ra = b.replacement_analysis as Json;
      const row = (books.filled.allocations as Row[])[0];
      expect(ra).toMatchObject({ symbol, shares: row.shares });
      // Selling the holding at its newest close (the book's entry: same analysis date) frees its value.
      expect(cents(ra.freed_capital as number)).toBe(cents(row.position_value as number));
      const candidates = ra.candidates as Row[];
      expect(candidates.length).toBeGreaterThan(0);
      expect(b.total_recommendations).toBe(candidates.length);
      const holdings = new Set(held(books.filled));
      for (const c of candidates) {
        expect(holdings.has(c.symbol as string)).toBe(false);
        expectConsistentIdea(c);
        // Sized with the freed capital as its budget.
        expect(cents(c.position_value as number)).toBeLessThanOrEqual(cents(ra.freed_capital as number));
      }
      expect(new Set(candidates.map((c) => c.symbol)).size).toBe(candidates.length);
      expectRankedByFit(candidates);
    });

    it('replace mode takes the ticker in any case (it is normalised)', async () => {
      const symbol = held(books.filled)[0];
      const res = await hunt(query({ portfolio_id: idOf(books.filled), symbol_replace: symbol.toLowerCase() }));
      expect(res.status).toBe(200);
      expect((res.body.replacement_analysis as Json).symbol).toBe(symbol);
    });

    it('interest mode (symbol_interest): a verdict for an unheld long candidate, and for a held one', async () => {
      const portfolio = idOf(books.cash);
      const unheld = ((await cashHunt(query({ portfolio_id: portfolio }))).body.recommendations as Row[])[0].symbol as string;
      const res = await hunt(query({ portfolio_id: portfolio, symbol_interest: unheld, page_size: 50 }));
      expect(res.status).toBe(200);
      const b = res.body;
      expect(Object.keys(b)).toEqual(expect.arrayContaining(HUNT_RESPONSE_KEYS));
      expect(b).toMatchObject({ hunt_mode: 'interest', general_assessment: null, replacement_analysis: null });
      const sa = b.suitability_analysis as Json;
      expect(sa).toMatchObject({ symbol: unheld, eligible: true, already_held: false, analysis_date: seed.latestDate });
      expect(['SUITABLE', 'CAUTION', 'UNSUITABLE']).toContain(sa.verdict);
      const doc = JSON.parse((await latestSnapshot(store.db, unheld))!.docText) as Json;
      expect(cents(sa.entry_price as number)).toBe(cents(doc.price as number));
      expect(sa.stage).toBe(doc.stage);
      // The alternatives are this page of the paginated list; each is a same-sector, unheld name that fits better.
      const alternatives = sa.alternatives as Row[];
      expect(b.total_recommendations).toBe(alternatives.length);
      for (const alt of alternatives) {
        expect(alt.sector).toBe((sa.sector_effect as Json).sector);
        expect(held(books.cash)).not.toContain(alt.symbol);
        expect(alt.fit_score as number).toBeGreaterThan(sa.fit_score as number);
      }
      expectRankedByFit(alternatives);

      const mine = held(books.cash)[0];
      const own = await hunt(query({ portfolio_id: portfolio, symbol_interest: mine }));
      expect(own.status).toBe(200);
      expect(own.body.suitability_analysis).toMatchObject({ symbol: mine, already_held: true });
    });

    it('interest mode: a stage 3 or 4, or SELL, ticker is UNSUITABLE with the reason', async () => {
      // Found from the stored documents, not from engine numbers.
      const rows = await storedSnapshotTexts(store.db, 'analysis_date = $1', [seed.latestDate]);
      const docs = rows.map((r) => ({ symbol: r.symbol, doc: JSON.parse(r.doc) as { stage?: unknown; signal?: unknown } }));
      const declining = docs.filter((d) => d.doc.stage === 'STAGE 3' || d.doc.stage === 'STAGE 4');
      expect(declining.length).toBeGreaterThan(0);
      for (const { symbol, doc } of declining.slice(0, 3)) {
        const res = await hunt(query({ portfolio_id: idOf(books.cash), symbol_interest: symbol }));
        expect(res.status).toBe(200);
        const sa = res.body.suitability_analysis as Json;
        expect(sa).toMatchObject({ symbol, verdict: 'UNSUITABLE', eligible: false, stage: doc.stage });
        const stage = (doc.stage as string).toLowerCase();
        expect((sa.reasons as string[]).some((r) => r.startsWith('not a long candidate') && r.includes(stage))).toBe(true);
      }
      // A SELL signal on a stage 2 name: the stored document says so, and the verdict follows.
      const sell = docs.find((d) => d.doc.stage === 'STAGE 2');
      expect(sell).toBeDefined();
      const row = (await latestSnapshot(store.db, sell!.symbol))!;
      const original = JSON.parse(row.docText) as Json;
      const selling = { ...original, signal: 'SELL', enhanced_signal: original.enhanced_signal && typeof original.enhanced_signal === 'object' ? { ...(original.enhanced_signal as Json), signal: 'SELL' } : 'SELL' };
      await upsertSnapshots(store.db, [{ symbol: sell!.symbol, analysisDate: row.analysisDate, doc: JSON.stringify(selling), producedAt: new Date(Date.now() + 1000).toISOString(), pipelineVersion: row.pipelineVersion }]);
      try {
        const res = await hunt(query({ portfolio_id: idOf(books.cash), symbol_interest: sell!.symbol }));
        expect(res.status).toBe(200);
        const sa = res.body.suitability_analysis as Json;
        expect(sa).toMatchObject({ verdict: 'UNSUITABLE', eligible: false, signal: 'SELL' });
        expect((sa.reasons as string[]).some((r) => r.startsWith('not a long candidate') && r.includes('SELL'))).toBe(true);
      } finally {
        await upsertSnapshots(store.db, [{ symbol: sell!.symbol, analysisDate: row.analysisDate, doc: row.docText, producedAt: row.producedAt, pipelineVersion: row.pipelineVersion }]);
      }
    });
  });

  describe('cash hunt (spec "Opportunity-search service": cash-hunt, "CashHuntResponse")', () => {
    it('deploys the portfolio remaining capital into unheld names, whole shares, within the cash and the risk settings', async () => {
      const book = books.cash;
      const res = await cashHunt(query({ portfolio_id: idOf(book), page_size: 50 }));
      expect(res.status).toBe(200);
      const b = res.body;
      expect(Object.keys(b)).toEqual(expect.arrayContaining(CASH_HUNT_RESPONSE_KEYS));
      expect(b).toMatchObject({ portfolio_id: idOf(book), portfolio_name: 'Mostly cash', page: 1, page_size: 50, has_more: false });
      expect(b.available_cash).toBe(book.remaining_capital);
      expect(b.total_capital).toBe(book.total_capital);
      const recs = b.recommendations as Row[];
      expect(recs.length).toBeGreaterThan(0);
      expect(b.total_recommendations).toBe(recs.length);
      const holdings = new Set(held(book));
      const rs = book.risk_settings as Json;
      const V = book.total_capital as number; // positions at the book's own prices plus cash
      let spent = 0;
      let risk = (book.allocations as Row[]).reduce((sum, a) => sum + cents(a.risk_amount as number), 0);
      for (const r of recs) {
        expect(holdings.has(r.symbol as string)).toBe(false);
        expectConsistentIdea(r);
        // spec: "respect the portfolio's risk settings".
        expect(cents(r.position_value as number)).toBeLessThanOrEqual(Math.round((rs.max_position_size as number) * V * 100));
        expect(cents(r.risk_amount as number)).toBeLessThanOrEqual(Math.round((rs.max_risk_per_trade as number) * V * 100));
        spent += cents(r.position_value as number);
        risk += cents(r.risk_amount as number);
      }
      expect(new Set(recs.map((r) => r.symbol)).size).toBe(recs.length);
      expect(spent).toBeLessThanOrEqual(cents(b.available_cash as number));
      expect(risk).toBeLessThanOrEqual(Math.round((rs.max_portfolio_risk as number) * V * 100));
      expect(recs.length).toBeLessThanOrEqual((rs.max_positions as number) - holdings.size);
      expect(cents(b.cash_after as number)).toBe(cents(b.available_cash as number) - spent);
      // Buying order is the ranking (fit_score, then symbol).
      expectRankedByFit(recs);
    });

    it('never recommends more names than max_positions leaves free', async () => {
      const book = books.slots;
      const slots = ((book.risk_settings as Json).max_positions as number) - held(book).length;
      expect(slots).toBeGreaterThan(0);
      const res = await cashHunt(query({ portfolio_id: idOf(book), page_size: 50 }));
      expect(res.status).toBe(200);
      const recs = res.body.recommendations as Row[];
      // More names would fit the cash (the same book without the position limit takes more) ...
      const unlimited = await cashHunt(query({ portfolio_id: idOf(books.cash), page_size: 50 }));
      expect((unlimited.body.recommendations as Row[]).length).toBeGreaterThan(slots);
      // ... but only the free slots are filled.
      expect(recs).toHaveLength(slots);
      expect(res.body.total_recommendations).toBe(slots);
      for (const r of recs) expect(held(book)).not.toContain(r.symbol);
      expect((res.body.notes as string[]).some((n) => /max_positions/.test(n))).toBe(true);
    });

    it('respects the constraint pack: the per-name DEFAULT cap and a sector cap, holdings included (DESIGN section 4 "Search")', async () => {
      // Cap the sector of the first name cash hunt buys for the uncapped book below what it bought there.
      const uncapped = await cashHunt(query({ portfolio_id: idOf(books.cash), page_size: 50 }));
      const first = (uncapped.body.recommendations as Row[])[0];
      const sector = first.sector as string;
      const sectorCap = Math.floor((first.sector_weight_after as number) * 50) / 100; // about half of it
      const defaultCap = 0.15;
      const book = await optimize({
        name: 'Capped',
        total_capital: 10000,
        prior_book_weights: { [held(books.full)[0]]: 0.1 },
        constraint_pack: { schema_version: '1', max_portfolio_turnover_annual: 0.02, sector_caps: { DEFAULT: defaultCap, [sector]: sectorCap } },
      });
      const res = await cashHunt(query({ portfolio_id: idOf(book), page_size: 50 }));
      expect(res.status).toBe(200);
      const recs = res.body.recommendations as Row[];
      expect(recs.length).toBeGreaterThan(0);
      const V = book.total_capital as number;
      const nameCap = Math.min(defaultCap, (book.risk_settings as Json).max_position_size as number);
      // The holdings' sectors as hunt reports them.
      const holdings = (((await hunt(query({ portfolio_id: idOf(book), page_size: 50 }))).body.general_assessment as Json).recommendations as Row[]);
      const values = new Map<string, number>();
      for (const h of holdings) values.set(h.sector as string, (values.get(h.sector as string) ?? 0) + (h.shares as number) * cents(h.current_price as number));
      for (const r of recs) {
        expectConsistentIdea(r);
        expect(cents(r.position_value as number)).toBeLessThanOrEqual(Math.round(nameCap * V * 100));
        values.set(r.sector as string, (values.get(r.sector as string) ?? 0) + cents(r.position_value as number));
      }
      expect(values.get(sector) ?? 0).toBeLessThanOrEqual(Math.round(sectorCap * V * 100));
    });

    it('a portfolio whose positions fill max_positions gets no recommendations and a note saying why', async () => {
      const book = books.filled;
      const res = await cashHunt(query({ portfolio_id: idOf(book) }));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ recommendations: [], total_recommendations: 0, has_more: false, page: 1 });
      expect(res.body.available_cash).toBe(book.remaining_capital);
      expect(res.body.available_cash as number).toBeGreaterThan(0); // cash there is, room there is not
      expect(res.body.cash_after).toBe(res.body.available_cash);
      expect((res.body.notes as string[]).some((n) => /max_positions/.test(n) && n.includes('5 of 5'))).toBe(true);
    });
  });

  describe('weak holdings: newer snapshots make a holding weak (DESIGN section 4 "Search": recommendations and concerns)', () => {
    it('stage 4 and a hit stop give EXIT, a topping stage REPLACE or TRIM, a missing newest snapshot STALE_ANALYSIS; restored, the answer is the first one again', async () => {
      const book = books.weak;
      const id = idOf(book);
      const before = await hunt(query({ portfolio_id: id, page_size: 50 }));
      expect(before.status).toBe(200);

      const positions = await store.db.query<{ symbol: string; shares: number; stop_loss: number; support_at_entry: number | null }>(
        'SELECT symbol, shares::int AS shares, stop_loss::float8 AS stop_loss, support_at_entry::float8 AS support_at_entry FROM portfolio_holdings WHERE portfolio_id = $1::uuid ORDER BY position',
        [id],
      );
      expect(positions).toHaveLength(5);
      // The holding whose stop is hit: one with a support under its entry, so that support breaks too.
      const stopped = positions.find((p) => p.support_at_entry !== null) ?? positions[0];
      const rest = positions.filter((p) => p !== stopped);
      const [declining, topping, stale] = rest.map((p) => p.symbol);

      const newDate = nextDay(seed.latestDate);
      const current = await storedSnapshotTexts(store.db, 'analysis_date = $1', [seed.latestDate]);
      const stoppedPrice = Math.round(Math.min(stopped.stop_loss, stopped.support_at_entry ?? Infinity) * 0.9 * 100) / 100;
      const producedAt = new Date().toISOString();
      const rows = current
        .filter((r) => r.symbol !== stale) // the stale holding keeps only its older snapshot
        .map((r) => {
          const doc: Json = { ...(JSON.parse(r.doc) as Json), analysis_date: newDate };
          if (r.symbol === declining) doc.stage = 'STAGE 4';
          if (r.symbol === topping) doc.stage = 'STAGE 3';
          if (r.symbol === stopped.symbol) doc.price = stoppedPrice;
          return { symbol: r.symbol, analysisDate: newDate, doc: JSON.stringify(doc), producedAt, pipelineVersion: r.pipeline_version };
        });
      await upsertSnapshots(store.db, rows);
      try {
        const res = await hunt(query({ portfolio_id: id, page_size: 50 }));
        expect(res.status).toBe(200);
        expect(res.body.analysis_date).toBe(newDate);
        const ga = res.body.general_assessment as Json;
        const recs = ga.recommendations as Row[];
        const rec = (symbol: string) => recs.find((r) => r.symbol === symbol) as Row;
        expect(recs).toHaveLength(5);

        // Stage 4: EXIT, sell everything.
        expect(rec(declining)).toMatchObject({ type: 'EXIT', rating: 'WEAK', stage: 'STAGE 4', suggested_share_change: -(rec(declining).shares as number) });
        expect((rec(declining).reasons as string[]).some((r) => /stage 4/i.test(r))).toBe(true);
        // A close below the stop: EXIT, and the support under the entry is broken.
        expect(rec(stopped.symbol)).toMatchObject({ type: 'EXIT', rating: 'WEAK', current_price: stoppedPrice, suggested_share_change: -stopped.shares });
        expect((rec(stopped.symbol).reasons as string[]).some((r) => /stop/.test(r))).toBe(true);
        const concerns = ga.concerns as Row[];
        if (stopped.support_at_entry !== null) {
          expect(concerns).toContainEqual(expect.objectContaining({ type: 'BROKEN_SUPPORT', symbols: [stopped.symbol], value: stoppedPrice, threshold: stopped.support_at_entry }));
        }
        // Stage 3: weak; REPLACE when the best replacement fits by REPLACE_MARGIN (0.05) more than its quality, else TRIM.
        const t = rec(topping);
        expect(t.rating).toBe('WEAK');
        expect(['REPLACE', 'TRIM']).toContain(t.type);
        const quality = Math.round((1 - (t.score as number)) * 1e4) / 1e4;
        const replacements = ((await hunt(query({ portfolio_id: id, symbol_replace: topping, page_size: 3 }))).body.replacement_analysis as Json).candidates as Row[];
        if (t.type === 'REPLACE') {
          expect(t.suggested_share_change).toBe(-(t.shares as number));
          expect(t.replacement_candidates).toEqual(replacements);
          expect(replacements[0].fit_score as number).toBeGreaterThanOrEqual(quality + 0.05 - 1e-4);
        } else {
          expect(t.suggested_share_change).toBe(-Math.max(1, Math.floor((t.shares as number) / 2)));
          expect(t.replacement_candidates).toEqual([]);
          if (replacements.length) expect(replacements[0].fit_score as number).toBeLessThan(quality + 0.05 + 1e-4);
        }
        // The holding without a snapshot on the newest date: STALE_ANALYSIS, one day behind.
        expect(concerns).toContainEqual(expect.objectContaining({ type: 'STALE_ANALYSIS', symbols: [stale], value: 1 }));
        expect(concerns.filter((c) => c.type === 'STALE_ANALYSIS' && (c.symbols as string[]).length > 0).map((c) => c.symbols)).toEqual([[stale]]);
        expectConcernOrder(concerns);
        // Counts and order follow: the exits first.
        expect(ga.weak_positions as number).toBeGreaterThanOrEqual(3);
        expect(ga.weak_positions).toBe(recs.filter((r) => r.rating === 'WEAK').length);
        expect(recs.slice(0, 2).map((r) => r.type)).toEqual(['EXIT', 'EXIT']);
        // Replace mode on the declining holding tells the same story.
        const replace = await hunt(query({ portfolio_id: id, symbol_replace: declining }));
        expect(replace.body.replacement_analysis).toMatchObject({ symbol: declining, rating: 'WEAK' });
        // Cash hunt never proposes a name the book holds, weak or not.
        const cash = await cashHunt(query({ portfolio_id: idOf(books.cash), page_size: 50 }));
        for (const r of cash.body.recommendations as Row[]) expect(held(books.cash)).not.toContain(r.symbol);
      } finally {
        await store.db.query('DELETE FROM analysis_snapshots WHERE analysis_date = $1', [newDate]);
      }
      const after = await hunt(query({ portfolio_id: id, page_size: 50 }));
      expect(after.text).toBe(before.text);
    });
  });

  describe('pagination (spec "Limits": page default 1, page_size default 6, maximum 50; DESIGN section 5 "page/page_size out of range")', () => {
    const routes = [
      ['hunt (general)', HUNT],
      ['cash-hunt', CASH_HUNT],
    ] as const;

    it.each(routes)('%s: page 1 and page_size 6 by default', async (_name, path) => {
      const book = path === HUNT ? books.full : books.cash;
      const res = await get(search(), openapi, `${path}${query({ portfolio_id: idOf(book) })}`, bearer(idToken));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page: 1, page_size: 6 });
      const items = (path === HUNT ? (res.body.general_assessment as Json).recommendations : res.body.recommendations) as Row[];
      expect(items).toHaveLength(Math.min(6, res.body.total_recommendations as number));
      expect(res.body.has_more).toBe((res.body.total_recommendations as number) > 6);
    });

    /** The paginated list of each kind of answer. */
    const lists = {
      'general recommendations': { path: HUNT, book: 'full', extra: {}, items: (b: Json) => (b.general_assessment as Json).recommendations as Row[], rest: (b: Json) => ({ ...(b.general_assessment as Json), recommendations: null }) },
      'replacement candidates': { path: HUNT, book: 'cash', extra: 'replace', items: (b: Json) => (b.replacement_analysis as Json).candidates as Row[], rest: (b: Json) => ({ ...(b.replacement_analysis as Json), candidates: null }) },
      'cash-hunt recommendations': { path: CASH_HUNT, book: 'cash', extra: {}, items: (b: Json) => b.recommendations as Row[], rest: (b: Json) => ({ ...b, recommendations: null, page: null, has_more: null, page_size: null }) },
    } as const;

    it.each(Object.keys(lists) as Array<keyof typeof lists>)('%s: the pages, in order, are the page_size=50 list; has_more until the last; total constant', async (kind) => {
      const l = lists[kind];
      const book = books[l.book];
      const params: Record<string, string | number> = { portfolio_id: idOf(book) };
      if (l.extra === 'replace') params.symbol_replace = held(book)[0];
      const full = await get(search(), openapi, `${l.path}${query({ ...params, page_size: 50 })}`, bearer(idToken));
      expect(full.status).toBe(200);
      const all = l.items(full.body);
      const total = full.body.total_recommendations as number;
      expect(all).toHaveLength(total);
      expect(total).toBeGreaterThan(3); // several pages of 2 and 3
      for (const size of [2, 3]) {
        const pages: Row[][] = [];
        const pageCount = Math.ceil(total / size);
        for (let page = 1; page <= pageCount; page++) {
          const res = await get(search(), openapi, `${l.path}${query({ ...params, page, page_size: size })}`, bearer(idToken));
          expect(res.status).toBe(200);
          expect(res.body).toMatchObject({ page, page_size: size, total_recommendations: total, has_more: page < pageCount });
          expect(l.items(res.body).length).toBe(page < pageCount ? size : total - size * (pageCount - 1));
          // What is not paginated is the same on every page.
          expect(l.rest(res.body)).toEqual(l.rest(full.body));
          pages.push(l.items(res.body));
        }
        expect(pages.flat()).toEqual(all);
        // Past the end: 200, an empty page, nothing more.
        const past = await get(search(), openapi, `${l.path}${query({ ...params, page: pageCount + 1, page_size: size })}`, bearer(idToken));
        expect(past.status).toBe(200);
        expect(l.items(past.body)).toEqual([]);
        expect(past.body).toMatchObject({ page: pageCount + 1, total_recommendations: total, has_more: false });
      }
    });

    it.each(routes)('%s: page_size 50 is accepted, page 1000 of a short list is an empty page', async (_name, path) => {
      const book = path === HUNT ? books.full : books.cash;
      const max = await get(search(), openapi, `${path}${query({ portfolio_id: idOf(book), page_size: 50 })}`, bearer(idToken));
      expect(max.status).toBe(200);
      expect(max.body.page_size).toBe(50);
      const far = await get(search(), openapi, `${path}${query({ portfolio_id: idOf(book), page: 1000 })}`, bearer(idToken));
      expect(far.status).toBe(200);
      expect(far.body).toMatchObject({ page: 1000, has_more: false });
    });

    it.each(routes)('%s: any page >= 1 is in range (DESIGN section 5: page >= 1): page 1000001 is an empty page, not a 400', async (_name, path) => {
      const book = path === HUNT ? books.full : books.cash;
      const res = await get(search(), openapi, `${path}${query({ portfolio_id: idOf(book), page: 1000001 })}`, bearer(idToken));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ page: 1000001, has_more: false });
    });

    const bad: Array<[string, Record<string, string>, string[]]> = [
      ['page_size 51', { page_size: '51' }, ['page_size']],
      ['page_size 0', { page_size: '0' }, ['page_size']],
      ['page 0', { page: '0' }, ['page']],
      ['page -1', { page: '-1' }, ['page']],
      ['page 1.5', { page: '1.5' }, ['page']],
      ['page_size 1.5', { page_size: '1.5' }, ['page_size']],
      ['page abc', { page: 'abc' }, ['page']],
      ['page_size abc', { page_size: 'abc' }, ['page_size']],
      ['page empty', { page: '' }, ['page']],
      ['page_size empty', { page_size: '' }, ['page_size']],
      ['page 1e2', { page: '1e2' }, ['page']],
      ['both out of range', { page: '0', page_size: '51' }, ['page', 'page_size']],
    ];
    it.each(routes.flatMap(([name, path]) => bad.map(([what, params, expected]) => [name, what, path, params, expected] as const)))(
      '%s: %s is 400 VALIDATION_FAILED naming the field',
      async (_name, _what, path, params, expected) => {
        const book = path === HUNT ? books.full : books.cash;
        const res = await get(search(), openapi, `${path}${query({ portfolio_id: idOf(book), ...params })}`, bearer(idToken));
        expect(res.status).toBe(400);
        expectErrorShape(res.body, 'VALIDATION_FAILED', res.headers.get('x-trace-id') ?? undefined);
        expect(fields(res).sort()).toEqual([...expected].sort());
      },
    );
  });

  describe('validation (spec "Errors": 400 for hunt and cash-hunt, e.g. unknown portfolio; DESIGN section 5 error shape)', () => {
    const UNKNOWN_ID = '3f2b8a4e-9c1d-4e5f-8a7b-6c5d4e3f2a1b';
    /** [name, route, query (a function of the books), the fields the details name] */
    const cases: Array<[string, string, () => string, string[]]> = [
      ['hunt: no portfolio_id', HUNT, () => query({}), ['portfolio_id']],
      ['hunt: an empty portfolio_id', HUNT, () => query({ portfolio_id: '' }), ['portfolio_id']],
      ['hunt: a malformed portfolio_id', HUNT, () => query({ portfolio_id: 'not-a-uuid' }), ['portfolio_id']],
      ['hunt: an unknown portfolio', HUNT, () => query({ portfolio_id: UNKNOWN_ID }), ['portfolio_id']],
      ['hunt: both symbol_replace and symbol_interest', HUNT, () => query({ portfolio_id: idOf(books.filled), symbol_replace: held(books.filled)[0], symbol_interest: held(books.filled)[1] }), ['symbol_interest|symbol_replace']],
      ['hunt: symbol_replace not held', HUNT, () => query({ portfolio_id: idOf(books.filled), symbol_replace: held(books.full).find((s) => !held(books.filled).includes(s)) as string }), ['symbol_replace']],
      ['hunt: symbol_interest without stored analysis', HUNT, () => query({ portfolio_id: idOf(books.filled), symbol_interest: 'ZZZZZ' }), ['symbol_interest']],
      ['hunt: symbol_replace a path', HUNT, () => query({ portfolio_id: idOf(books.filled), symbol_replace: '../etc' }), ['symbol_replace']],
      ['hunt: symbol_interest with SQL', HUNT, () => query({ portfolio_id: idOf(books.filled), symbol_interest: "A'; DROP TABLE portfolios; --" }), ['symbol_interest']],
      ['hunt: symbol_interest with a quote', HUNT, () => query({ portfolio_id: idOf(books.filled), symbol_interest: "A'" }), ['symbol_interest']],
      ['hunt: symbol_interest in unicode', HUNT, () => query({ portfolio_id: idOf(books.filled), symbol_interest: 'ÄPPL' }), ['symbol_interest']],
      ['hunt: symbol_replace with a dotless i', HUNT, () => query({ portfolio_id: idOf(books.filled), symbol_replace: 'acmı' }), ['symbol_replace']],
      ['hunt: an empty symbol_replace', HUNT, () => query({ portfolio_id: idOf(books.filled), symbol_replace: '' }), ['symbol_replace']],
      ['hunt: a too-long symbol_interest', HUNT, () => query({ portfolio_id: idOf(books.filled), symbol_interest: 'ABCDEFGHIJK' }), ['symbol_interest']],
      ['hunt: portfolio_id twice', HUNT, () => query({}, [`portfolio_id=${idOf(books.filled)}`, `portfolio_id=${idOf(books.filled)}`]), ['portfolio_id']],
      ['hunt: page twice', HUNT, () => query({ portfolio_id: idOf(books.filled) }, ['page=1', 'page=1']), ['page']],
      ['hunt: page_size twice', HUNT, () => query({ portfolio_id: idOf(books.filled) }, ['page_size=6', 'page_size=6']), ['page_size']],
      ['hunt: symbol_replace twice', HUNT, () => query({ portfolio_id: idOf(books.filled) }, [`symbol_replace=${held(books.filled)[0]}`, `symbol_replace=${held(books.filled)[0]}`]), ['symbol_replace']],
      ['hunt: an unknown parameter (symbol_replce)', HUNT, () => query({ portfolio_id: idOf(books.filled), symbol_replce: held(books.filled)[0] }), ['symbol_replce']],
      ['hunt: a camelCase parameter (pageSize)', HUNT, () => query({ portfolio_id: idOf(books.filled), pageSize: 10 }), ['pageSize']],
      ['hunt: every violation at once', HUNT, () => query({ portfolio_id: 'x', page: '0', page_size: '99', symbol_interest: '$$', foo: '1' }), ['foo', 'page', 'page_size', 'portfolio_id', 'symbol_interest']],
      ['cash-hunt: no portfolio_id', CASH_HUNT, () => query({}), ['portfolio_id']],
      ['cash-hunt: a malformed portfolio_id', CASH_HUNT, () => query({ portfolio_id: '1; DROP TABLE portfolios' }), ['portfolio_id']],
      ['cash-hunt: an unknown portfolio', CASH_HUNT, () => query({ portfolio_id: UNKNOWN_ID }), ['portfolio_id']],
      ['cash-hunt: portfolio_id twice', CASH_HUNT, () => query({}, [`portfolio_id=${idOf(books.cash)}`, `portfolio_id=${UNKNOWN_ID}`]), ['portfolio_id']],
      ['cash-hunt: page twice', CASH_HUNT, () => query({ portfolio_id: idOf(books.cash) }, ['page=1', 'page=2']), ['page']],
      ['cash-hunt: a hunt parameter (symbol_replace)', CASH_HUNT, () => query({ portfolio_id: idOf(books.cash), symbol_replace: held(books.cash)[0] }), ['symbol_replace']],
      ['cash-hunt: an unknown parameter', CASH_HUNT, () => query({ portfolio_id: idOf(books.cash), limit: 5 }), ['limit']],
    ];

    it.each(cases)('%s', async (_name, path, q, expected) => {
      const before = await portfolioCount();
      const res = await get(search(), openapi, `${path}${q()}`, bearer(idToken));
      expect(res.status).toBe(400);
      expectErrorShape(res.body, 'VALIDATION_FAILED', res.headers.get('x-trace-id') ?? undefined);
      const named = fields(res);
      if (expected[0] === 'symbol_interest|symbol_replace') {
        // Which of the two is named is the product's choice; one of them, and nothing else, is.
        expect(named.length).toBeGreaterThan(0);
        for (const f of named) expect(['symbol_interest', 'symbol_replace']).toContain(f);
      } else {
        expect([...named].sort()).toEqual([...expected].sort());
      }
      for (const d of res.body.details as Detail[]) expect(d.message.length).toBeGreaterThan(0);
      expect(await portfolioCount()).toBe(before);
    });

    it.each([
      ['hunt', HUNT],
      ['cash-hunt', CASH_HUNT],
    ])('%s: another partner\'s portfolio is the same 400 as an unknown one', async (_name, path) => {
      const id = idOf(books.cash);
      // The owner asks first, so the answer is kept in memory: the owner is still checked on every call.
      expect((await get(search(), openapi, `${path}${query({ portfolio_id: id })}`, bearer(idToken))).status).toBe(200);
      const theirs = await get(search(), openapi, `${path}${query({ portfolio_id: id })}`, bearer(otherIdToken));
      expect(theirs.status).toBe(400);
      expectErrorShape(theirs.body, 'VALIDATION_FAILED');
      const nobody = await get(search(), openapi, `${path}${query({ portfolio_id: UNKNOWN_ID })}`, bearer(otherIdToken));
      expect(nobody.status).toBe(400);
      expect(theirs.body.error).toBe(String(nobody.body.error).replace(UNKNOWN_ID, id));
      expect(JSON.stringify(theirs.body.details)).toBe(JSON.stringify(nobody.body.details).replace(UNKNOWN_ID, id));
      // The owner reads it.
      expect((await get(search(), openapi, `${path}${query({ portfolio_id: id })}`, bearer(idToken))).status).toBe(200);
    });

    it('the portfolio id is case-insensitive (a UUID)', async () => {
      const id = idOf(books.cash);
      const res = await cashHunt(query({ portfolio_id: id.toUpperCase() }));
      expect(res.status).toBe(200);
      expect(res.body.portfolio_id).toBe(id);
    });
  });

  describe('authentication (spec "Authentication": opportunity-search rules 1-3, "Errors": 401 and 503; DESIGN section 5 "search tokens")', () => {
    const routes = [
      ['hunt', HUNT],
      ['cash-hunt', CASH_HUNT],
    ] as const;
    const target = () => query({ portfolio_id: idOf(books.cash) });
    /** Another issuer's real RS256 ID token, same kid and audience: not the configured issuer. */
    let otherIssuer: TestIssuer;
    beforeAll(async () => {
      otherIssuer = await startTestIssuer();
    });
    afterAll(async () => otherIssuer?.close());
    const unsignedToken = () => {
      const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const now = Math.floor(Date.now() / 1000);
      return `${part({ alg: 'none', typ: 'JWT' })}.${part({ iss: issuer.url, aud: TEST_OIDC_AUDIENCE, sub: 'partner-1', iat: now, exp: now + 3600 })}.`;
    };

    it.each(routes)('%s: no token is 401 with a WWW-Authenticate challenge', async (_name, path) => {
      const res = await get(search(), openapi, `${path}${target()}`);
      expect(res.status).toBe(401);
      expectErrorShape(res.body, 'UNAUTHENTICATED', res.headers.get('x-trace-id') ?? undefined);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    });

    const badTokens: Array<[string, () => Promise<string>]> = [
      ['a malformed header (Basic)', async () => 'Basic dXNlcjpwYXNz'],
      ['a malformed header (Bearer without a token)', async () => 'Bearer'],
      ['a token that is not a JWT', async () => 'Bearer not-a-jwt'],
      ['an expired ID token', async () => `Bearer ${await issuer.idToken({ subject: 'partner-1', expiresIn: -600 })}`],
      ['a forged signature', async () => `Bearer ${await issuer.forgedToken({ subject: 'partner-1' })}`],
      ['a wrong audience', async () => `Bearer ${await issuer.idToken({ subject: 'partner-1', audience: 'some-other-service' })}`],
      ['a partner HS256 access token', async () => `Bearer ${partnerToken}`],
      ['an unsigned token (alg none)', async () => `Bearer ${unsignedToken()}`],
      ['an ID token from another issuer', async () => `Bearer ${await otherIssuer.idToken({ subject: 'partner-1' })}`],
      [
        'an HS256 token claiming the issuer and audience',
        async () => `Bearer ${await mintPartnerToken({ secret: TEST_SECRET, issuer: issuer.url, audience: TEST_OIDC_AUDIENCE, subject: 'partner-1' })}`,
      ],
    ];
    it.each(routes.flatMap(([name, path]) => badTokens.map(([what, token]) => [name, what, path, token] as const)))('%s: %s is 401', async (_name, _what, path, token) => {
      const res = await get(search(), openapi, `${path}${target()}`, { authorization: await token() });
      expect(res.status).toBe(401);
      expectErrorShape(res.body, 'UNAUTHENTICATED');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
      expect(res.text).not.toContain(idOf(books.cash)); // nothing of the portfolio leaks
    });

    it.each(routes)('%s: the token is checked before the query (401 even with bad parameters)', async (_name, path) => {
      for (const q of [query({}), query({ portfolio_id: 'x', page: '0', page_size: '99', foo: 'bar' })]) {
        const none = await get(search(), openapi, `${path}${q}`);
        expect(none.status).toBe(401);
        const forged = await get(search(), openapi, `${path}${q}`, bearer(await issuer.forgedToken({ subject: 'partner-1' })));
        expect(forged.status).toBe(401);
      }
    });

    it('GET / and /health of the search origin are public', async () => {
      const health = await get(search(), openapi, '/health');
      expect(health.status).toBe(200);
      expect(typeof health.body.status).toBe('string');
      const root = await get(search(), openapi, '/');
      expect(root.status).toBe(200);
      expect(root.body).toMatchObject({ name: expect.any(String), version: expect.any(String), status: expect.any(String) });
    });

    describe('audiences not configured (rule 2; DESIGN section 5: no audiences configured -> 503)', () => {
      let bare: RunningPlatform;
      let doc: OpenApiDocument;
      beforeAll(async () => {
        bare = await startPlatform(testConfig({ ANALYZE_ON_START: 'false', OIDC_ISSUER: issuer.url, OIDC_AUDIENCES: '' }), ['search'], { db: store.db });
        doc = await fetchOpenApi(bare.urls.search as string);
      });
      afterAll(async () => bare?.close());

      it.each(routes)('%s is 503 AUTH_NOT_CONFIGURED, with or without a valid token; /health stays 200', async (_name, path) => {
        const url = bare.urls.search as string;
        for (const headers of [{}, bearer(idToken)]) {
          const res = await get(url, doc, `${path}${target()}`, headers);
          expect(res.status).toBe(503);
          expectErrorShape(res.body, 'AUTH_NOT_CONFIGURED');
          expect(res.text).not.toContain(idOf(books.cash));
        }
        const health = await get(url, doc, '/health');
        expect(health.status).toBe(200);
        expect(typeof health.body.status).toBe('string');
      });
    });

    describe('OIDC_ENFORCE=false outside production (rule 3; service.ts: callers are not identified)', () => {
      let open: RunningPlatform;
      let doc: OpenApiDocument;
      beforeAll(async () => {
        open = await startPlatform(testConfig({ ANALYZE_ON_START: 'false', OIDC_ENFORCE: 'false', ALLOCATION_UNIVERSE_TTL_MS: '0' }), ['search'], { db: store.db });
        doc = await fetchOpenApi(open.urls.search as string);
      });
      afterAll(async () => open?.close());

      it('hunt and cash-hunt answer without a token, and any portfolio id is readable (the same answer its owner gets)', async () => {
        const url = open.urls.search as string;
        for (const [path, q] of [
          [HUNT, query({ portfolio_id: idOf(books.full) })],
          [HUNT, query({ portfolio_id: idOf(books.filled), symbol_replace: held(books.filled)[0] })],
          [CASH_HUNT, query({ portfolio_id: idOf(books.cash) })],
        ] as const) {
          const anonymous = await get(url, doc, `${path}${q}`);
          expect(anonymous.status).toBe(200);
          const owner = await get(search(), openapi, `${path}${q}`, bearer(idToken));
          expect(anonymous.text).toBe(owner.text);
          // Another caller's token changes nothing either: nobody is identified.
          const other = await get(url, doc, `${path}${q}`, bearer(otherIdToken));
          expect(other.status).toBe(200);
        }
        // The query is still validated.
        const bad = await get(url, doc, `${HUNT}${query({ portfolio_id: 'x' })}`);
        expect(bad.status).toBe(400);
        expectErrorShape(bad.body, 'VALIDATION_FAILED');
      });
    });
  });

  describe('rate limits (DESIGN section 5 "rate limits": per caller, 429 with Retry-After; spec "Errors": 429)', () => {
    let limited: RunningPlatform;
    let doc: OpenApiDocument;
    beforeAll(async () => {
      limited = await startPlatform(
        testConfig({ ANALYZE_ON_START: 'false', OIDC_ISSUER: issuer.url, OIDC_AUDIENCES: TEST_OIDC_AUDIENCE, RATE_LIMIT_EXPENSIVE_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' }),
        ['search'],
        { db: store.db },
      );
      doc = await fetchOpenApi(limited.urls.search as string);
    });
    afterAll(async () => limited?.close());

    it('hunt and cash-hunt spend one expensive budget per caller; the third call is 429 RATE_LIMITED with Retry-After', async () => {
      const url = limited.urls.search as string;
      const q = query({ portfolio_id: idOf(books.cash) });
      // Refused tokens are refused before the budget is spent.
      for (let i = 0; i < 3; i++) expect((await get(url, doc, `${HUNT}${q}`, bearer(await issuer.forgedToken({ subject: 'partner-1' })))).status).toBe(401);
      expect((await get(url, doc, `${HUNT}${q}`, bearer(idToken))).status).toBe(200);
      expect((await get(url, doc, `${CASH_HUNT}${q}`, bearer(idToken))).status).toBe(200);
      for (const path of [HUNT, CASH_HUNT]) {
        const res = await get(url, doc, `${path}${q}`, bearer(idToken));
        expect(res.status).toBe(429);
        expectErrorShape(res.body, 'RATE_LIMITED', res.headers.get('x-trace-id') ?? undefined);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(res.headers.get('ratelimit-limit')).toBe('2');
        expect(res.headers.get('ratelimit-remaining')).toBe('0');
      }
      // Another caller (another subject) has a budget of its own; the probes are never limited.
      const other = await get(url, doc, `${HUNT}${q}`, bearer(otherIdToken));
      expect(other.status).toBe(400); // its own budget; partner-1's portfolio is not among its own
      expect((await get(url, doc, '/health')).status).toBe(200);
    });
  });

  describe('determinism (DESIGN section 4 "Search": deterministic ranking, stable pagination)', () => {
    it.each([
      ['general', () => `${HUNT}${query({ portfolio_id: idOf(books.full), page_size: 50 })}`],
      ['replace', () => `${HUNT}${query({ portfolio_id: idOf(books.cash), symbol_replace: held(books.cash)[0], page: 2, page_size: 3 })}`],
      ['interest', () => `${HUNT}${query({ portfolio_id: idOf(books.cash), symbol_interest: held(books.full)[0] })}`],
      ['cash-hunt', () => `${CASH_HUNT}${query({ portfolio_id: idOf(books.cash), page_size: 50 })}`],
    ])('%s: the same request twice gives byte-identical bodies', async (_name, path) => {
      const first = await get(search(), openapi, path(), bearer(idToken));
      const again = await get(search(), openapi, path(), bearer(idToken));
      expect(first.status).toBe(200);
      expect(again.text).toBe(first.text);
      // A fresh token of the same subject reads the same portfolio the same way.
      const fresh = await get(search(), openapi, path(), bearer(await issuer.idToken({ subject: 'partner-1', expiresIn: '10m' })));
      expect(fresh.text).toBe(first.text);
    });
  });

  describe('the OpenAPI document of the search origin (spec "Opportunity-search service responses")', () => {
    it('documents both routes with every status of the spec and the responses with every spec field', () => {
      for (const path of [HUNT, CASH_HUNT]) {
        expect(Object.keys(openapi.paths[path].get.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '429', '500', '503']));
      }
      const schemas = (openapi.components?.schemas ?? {}) as Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
      const component = (name: string) => Object.values(schemas).find((s) => (s as { $id?: string }).$id === name) ?? schemas[name];
      expect(Object.keys(component('HuntResponse')?.properties ?? {})).toEqual(expect.arrayContaining(HUNT_RESPONSE_KEYS));
      expect(component('HuntResponse')?.required).toEqual(expect.arrayContaining(HUNT_RESPONSE_KEYS));
      expect(Object.keys(component('CashHuntResponse')?.properties ?? {})).toEqual(expect.arrayContaining(CASH_HUNT_RESPONSE_KEYS));
      expect(component('CashHuntResponse')?.required).toEqual(expect.arrayContaining(CASH_HUNT_RESPONSE_KEYS));
      expect(Object.keys(component('GeneralAssessment')?.properties ?? {})).toEqual(expect.arrayContaining(GENERAL_ASSESSMENT_KEYS));
    });

    it('checkResponse refuses a hunt answer without a spec field (so the checks above mean something)', async () => {
      const res = await hunt(query({ portfolio_id: idOf(books.filled) }));
      for (const key of HUNT_RESPONSE_KEYS) {
        const rest: Json = { ...res.body };
        delete rest[key];
        expect(() => checkResponse(openapi, 'GET', HUNT, 200, rest)).toThrow();
      }
      const cash = await cashHunt(query({ portfolio_id: idOf(books.filled) }));
      for (const key of CASH_HUNT_RESPONSE_KEYS) {
        const rest: Json = { ...cash.body };
        delete rest[key];
        expect(() => checkResponse(openapi, 'GET', CASH_HUNT, 200, rest)).toThrow();
      }
    });
  });
});
