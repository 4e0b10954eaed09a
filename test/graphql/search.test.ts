/**
 * The opportunity-search subgraph (DESIGN section 6; spec "Opportunity-search service"): Query.hunt in
 * its three modes, Query.cashHunt, and the same two operations as fields of `Portfolio` (the allocation
 * subgraph's entity). The rules are the REST routes', because both call SearchService: an OIDC ID token
 * whose `sub` owns the portfolio, UNAUTHENTICATED / AUTH_NOT_CONFIGURED, every violation listed (in
 * camelCase here), another caller's portfolio refused exactly like an unknown one, pages that add up to
 * the whole list. Every recommendation and idea references `Security`, so one gateway operation
 * (issue item 7) joins a portfolio, its hunt and its cash hunt with each name's latest analysis.
 *
 * One token for the whole graph: partner tokens (analysis, allocation) and ID tokens (search) are both
 * verified against the local test issuer (AUTH_JWKS_URL = its JWKS, AUTH_ISSUER = OIDC_ISSUER = its
 * URL, RS256), so a single RS256 token with the three audiences and one `sub` is accepted everywhere.
 *
 * The book is built from half of the equities' snapshots; the other half is analysed afterwards, so the
 * portfolio has names it does not hold to hunt for (replacements, cash-hunt ideas, a ticker of interest).
 * A book created from holdings (createPortfolio) and sold from (recordTrade) is hunted in the same
 * operations' answers: its hunt and cash hunt follow its version.
 */
import { randomUUID } from 'node:crypto';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { latestSnapshot } from '../../subgraphs/analysis/store.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import type { Config } from '../../subgraphs/platform/config.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { graphql, request, type JsonResponse } from '../helpers/http.js';
import { startTestIssuer, TEST_OIDC_AUDIENCE, type TestIssuer } from '../helpers/oidc.js';

type Json = Record<string, unknown>;
type GraphqlError = { message: string; extensions?: Record<string, unknown> };
type GraphqlResponse<T> = JsonResponse<{ data?: T; errors?: GraphqlError[] }>;
type Detail = { field: string; message: string };
type Analysis = { symbol: string; analysisDate: string; stage: string | null; signal: string | null; price: number | null };
type Named = { symbol: string; security: { symbol: string; analysis?: Analysis | null } };

const OWNER = 'hunter-1';
const OTHER = 'hunter-2';

let issuer: TestIssuer;
let store: TestDb;
let platform: RunningPlatform;
/** A search origin on the same store with OIDC_ISSUER set but no OIDC_AUDIENCES. */
let unconfigured: RunningPlatform;
let config: Config;
/** An ID token for the search origin only (audience: the OIDC client). */
let idToken: string;
/** The one token every subgraph accepts: audiences analysis, allocation and search; sub OWNER. */
let everywhere: string;
/** OTHER's token, valid everywhere too. */
let otherToken: string;
/** OWNER's portfolio, built through the gateway with `everywhere`. */
let portfolioId: string;
let otherPortfolioId: string;
let holdings: string[];
/** Equities analysed only after the book was built: eligible names the portfolio does not hold. */
let lateSymbols: string[];

beforeAll(async () => {
  issuer = await startTestIssuer();
  config = testConfig({
    ANALYZE_ON_START: 'false',
    // Partner tokens from the test issuer's JWKS (RS256) ...
    AUTH_ISSUER: issuer.url,
    AUTH_JWKS_URL: `${issuer.url}/jwks.json`,
    AUTH_ALGORITHMS: 'RS256',
    // ... and ID tokens from the same issuer.
    OIDC_ISSUER: issuer.url,
    OIDC_AUDIENCES: TEST_OIDC_AUDIENCE,
    // Every request sees the newest snapshots (the second seeding below).
    ALLOCATION_UNIVERSE_TTL_MS: '0',
    ANALYSIS_CACHE_TTL_MS: '0',
  });
  store = await openTestDb('pglite');
  platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
  const equities = (await store.db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' ORDER BY symbol")).map((r) => r.symbol);
  const early = equities.filter((_, i) => i % 2 === 0);
  lateSymbols = equities.filter((_, i) => i % 2 === 1);
  await seedAnalysis(store.db, { symbols: early, days: 1 });

  const audiences = [config.auth.audiences.analysis, config.auth.audiences.allocation, TEST_OIDC_AUDIENCE];
  idToken = await issuer.idToken({ subject: OWNER });
  everywhere = await issuer.idToken({ subject: OWNER, audience: audiences });
  otherToken = await issuer.idToken({ subject: OTHER, audience: audiences });

  const optimize = async (token: string, name: string) => {
    const res = await graphql<{ optimizePortfolio: { id: string; allocations: Array<{ symbol: string }> } }>(
      gateway(),
      'mutation($input: PortfolioRequestInput!) { optimizePortfolio(input: $input) { id allocations { symbol } } }',
      // Small positions leave cash (and risk room) for the cash hunt.
      { input: { name, totalCapital: 100000, riskSettings: { maxPositionSize: 0.05 } } },
      auth(token),
    );
    expect(res.body.errors).toBeUndefined();
    return res.body.data!.optimizePortfolio;
  };
  const book = await optimize(everywhere, 'hunted book');
  portfolioId = book.id;
  holdings = book.allocations.map((a) => a.symbol);
  otherPortfolioId = (await optimize(otherToken, 'someone else')).id;
  await seedAnalysis(store.db, { symbols: lateSymbols, days: 1 });

  unconfigured = await startPlatform(testConfig({ ANALYZE_ON_START: 'false', DEMO_DATA: 'false', OIDC_ISSUER: issuer.url }), ['search'], { db: store.db });
});
afterAll(async () => {
  await unconfigured?.close();
  await platform?.close();
  await store?.drop();
  await issuer?.close();
});

const search = () => `${platform.urls.search}/graphql`;
const gateway = () => `${platform.urls.gateway}/graphql`;
const auth = (t: string) => ({ authorization: `Bearer ${t}` });

// ---------------------------------------------------------------------------------------------------------
// Selections: every field of the search types
// ---------------------------------------------------------------------------------------------------------

const IDEA = `symbol security { symbol } sector fitScore signalQuality stage signal shares entryPrice stopLoss targetPrice
  positionValue riskAmount riskRewardRatio percentOfPortfolio correlationToPortfolio sectorWeightAfter addedVolatility reasons`;
const HUNT = `portfolioId portfolioName huntMode page pageSize totalRecommendations hasMore analysisDate
  generalAssessment {
    totalPositions strongPositions weakPositions portfolioValue availableCash portfolioVolatility
    recommendations {
      type symbol security { symbol } sector score rating shares currentPrice entryPrice stopLoss unrealizedReturn currentWeight
      stage signal suggestedShareChange replacementCandidates { ${IDEA} } reasons
    }
    concerns { type symbols score value threshold reasons }
  }
  replacementAnalysis { symbol sector shares currentPrice freedCapital rating reasons candidates { ${IDEA} } notes }
  suitabilityAnalysis {
    symbol security { symbol } verdict fitScore signalQuality stage signal eligible alreadyHeld analysisDate suggestedShares suggestedValue
    fundableFromCash entryPrice stopLoss targetPrice riskAmount sectorEffect { sector weightBefore weightAfter cap }
    correlationToPortfolio mostCorrelatedHolding { symbol correlation } portfolioVolatilityBefore portfolioVolatilityAfter
    volTargetAnnual reasons alternatives { ${IDEA} }
  }`;
const CASH_HUNT = `portfolioId portfolioName availableCash totalCapital page pageSize totalRecommendations hasMore cashAfter notes analysisDate
  recommendations { ${IDEA} }`;

const HUNT_QUERY = `query($id: ID!, $symbolReplace: String, $symbolInterest: String, $page: Int, $pageSize: Int) {
  hunt(portfolioId: $id, symbolReplace: $symbolReplace, symbolInterest: $symbolInterest, page: $page, pageSize: $pageSize) { ${HUNT} }
}`;
const CASH_HUNT_QUERY = `query($id: ID!, $page: Int, $pageSize: Int) { cashHunt(portfolioId: $id, page: $page, pageSize: $pageSize) { ${CASH_HUNT} } }`;

interface HuntVars {
  id: string;
  symbolReplace?: string;
  symbolInterest?: string;
  page?: number;
  pageSize?: number;
}

const hunt = (vars: HuntVars, token = idToken, url = search()): Promise<GraphqlResponse<{ hunt: Json }>> => graphql<{ hunt: Json }>(url, HUNT_QUERY, { ...vars }, auth(token));
const cashHunt = (vars: { id: string; page?: number; pageSize?: number }, token = idToken, url = search()): Promise<GraphqlResponse<{ cashHunt: Json }>> =>
  graphql<{ cashHunt: Json }>(url, CASH_HUNT_QUERY, { ...vars }, auth(token));

async function huntData(vars: HuntVars): Promise<Json> {
  const res = await hunt(vars);
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.hunt;
}

async function cashHuntData(vars: { id: string; page?: number; pageSize?: number }): Promise<Json> {
  const res = await cashHunt(vars);
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.cashHunt;
}

/** The REST answer for the same parameters (snake_case), with its keys in camelCase and its enum values as GraphQL shows them. */
async function restCamel(path: 'hunt' | 'cash-hunt', params: Record<string, string | number>): Promise<Json> {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
  const res = await request<Json>(`${platform.urls.search}/api/v1/portfolios/${path}?${query}`, { headers: auth(idToken) });
  expect(res.status).toBe(200);
  return camelKeys(res.body) as Json;
}

function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (typeof value === 'string') return /^STAGE \d$/.test(value) ? value.replace(' ', '_') : value;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), k === 'hunt_mode' && typeof v === 'string' ? v.toUpperCase() : camelKeys(v)]),
  );
}

/** The answer without its `security` references (what REST has). */
function withoutSecurity(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecurity);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'security').map(([k, v]) => [k, withoutSecurity(v)]));
}

/** Every object in `value` that has a `security`, at any depth. */
function referencing(value: unknown, out: Named[] = []): Named[] {
  if (Array.isArray(value)) for (const v of value) referencing(v, out);
  else if (value !== null && typeof value === 'object') {
    if ('security' in value) out.push(value as Named);
    for (const v of Object.values(value)) referencing(v, out);
  }
  return out;
}

const general = (h: Json) => h.generalAssessment as { recommendations: Array<Named & { replacementCandidates: Named[] }>; totalPositions: number };
const replacement = (h: Json) => h.replacementAnalysis as { symbol: string; candidates: Named[] };
const suitability = (h: Json) => h.suitabilityAnalysis as Named & { alreadyHeld: boolean; alternatives: Named[]; verdict: string };
const ideas = (c: Json) => c.recommendations as Named[];

const errorOf = (res: GraphqlResponse<unknown>): GraphqlError => {
  expect(res.body.errors?.length).toBeGreaterThan(0);
  return res.body.errors![0];
};
const fieldsOf = (error: GraphqlError) => (error.extensions?.details as Detail[]).map((d) => d.field).sort();

// ---------------------------------------------------------------------------------------------------------

describe('Query.hunt and Query.cashHunt on the search origin (DESIGN section 6; spec "Opportunity-search service")', () => {
  it('general mode (no symbol): one recommendation per holding, camelCase, the other analyses null, equal to REST', async () => {
    const first = await huntData({ id: portfolioId });
    expect(first).toMatchObject({ portfolioId, portfolioName: 'hunted book', huntMode: 'GENERAL', page: 1, pageSize: 6, replacementAnalysis: null, suitabilityAnalysis: null });
    expect(first.totalRecommendations).toBe(holdings.length);
    expect(first.hasMore).toBe(holdings.length > 6);
    expect(general(first).recommendations).toHaveLength(Math.min(6, holdings.length));
    expect(general(first).totalPositions).toBe(holdings.length);

    const all = await huntData({ id: portfolioId, pageSize: 50 });
    expect(general(all).recommendations.map((r) => r.symbol).sort()).toEqual([...holdings].sort());
    expect(all.hasMore).toBe(false);
    // The REST answer, camelCased, is the GraphQL answer without its Security references.
    expect(withoutSecurity(all)).toEqual(await restCamel('hunt', { portfolio_id: portfolioId, page_size: 50 }));
  });

  it('replace mode (symbolReplace, any case): ranked candidates the portfolio does not hold, equal to REST', async () => {
    const held = holdings[0];
    const res = await huntData({ id: portfolioId, symbolReplace: held.toLowerCase(), pageSize: 50 });
    expect(res).toMatchObject({ portfolioId, huntMode: 'REPLACE', generalAssessment: null, suitabilityAnalysis: null, page: 1, pageSize: 50, hasMore: false });
    const analysis = replacement(res);
    expect(analysis.symbol).toBe(held);
    expect(analysis.candidates.length).toBeGreaterThan(0);
    expect(res.totalRecommendations).toBe(analysis.candidates.length);
    for (const c of analysis.candidates) expect(holdings).not.toContain(c.symbol);
    expect(withoutSecurity(res)).toEqual(await restCamel('hunt', { portfolio_id: portfolioId, symbol_replace: held, page_size: 50 }));
  });

  it('interest mode (symbolInterest): suitability of a ticker held or not, equal to REST', async () => {
    const outsider = await huntData({ id: portfolioId, symbolInterest: lateSymbols[0] });
    expect(outsider).toMatchObject({ portfolioId, huntMode: 'INTEREST', generalAssessment: null, replacementAnalysis: null });
    expect(suitability(outsider)).toMatchObject({ symbol: lateSymbols[0], alreadyHeld: false });
    expect(['SUITABLE', 'CAUTION', 'UNSUITABLE']).toContain(suitability(outsider).verdict);
    expect(outsider.totalRecommendations).toBeGreaterThanOrEqual(suitability(outsider).alternatives.length);
    expect(withoutSecurity(outsider)).toEqual(await restCamel('hunt', { portfolio_id: portfolioId, symbol_interest: lateSymbols[0] }));

    const own = await huntData({ id: portfolioId, symbolInterest: holdings[0] });
    expect(suitability(own)).toMatchObject({ symbol: holdings[0], alreadyHeld: true });
  });

  it('cashHunt: new positions for the remaining cash, none already held, equal to REST', async () => {
    const res = await cashHuntData({ id: portfolioId, pageSize: 50 });
    expect(res).toMatchObject({ portfolioId, portfolioName: 'hunted book', totalCapital: 100000, page: 1, pageSize: 50, hasMore: false });
    const recs = ideas(res);
    expect(recs.length).toBeGreaterThan(1);
    expect(res.totalRecommendations).toBe(recs.length);
    for (const r of recs) expect(holdings).not.toContain(r.symbol);
    const spentCents = recs.reduce((sum, r) => sum + Math.round((r as unknown as { positionValue: number }).positionValue * 100), 0);
    expect(Math.round((res.cashAfter as number) * 100)).toBe(Math.round((res.availableCash as number) * 100) - spentCents);
    expect(withoutSecurity(res)).toEqual(await restCamel('cash-hunt', { portfolio_id: portfolioId, page_size: 50 }));
    // Default page.
    const first = await cashHuntData({ id: portfolioId });
    expect(first).toMatchObject({ page: 1, pageSize: 6, totalRecommendations: recs.length });
  });

  it.each([
    ['hunt, general', (page: number, pageSize: number) => huntData({ id: portfolioId, page, pageSize }), (h: Json) => general(h).recommendations],
    ['hunt, replace', (page: number, pageSize: number) => huntData({ id: portfolioId, symbolReplace: holdings[0], page, pageSize }), (h: Json) => replacement(h).candidates],
    ['cashHunt', (page: number, pageSize: number) => cashHuntData({ id: portfolioId, page, pageSize }), ideas],
  ])('pagination of %s: the pages of size 2 add up to the pageSize 50 list (spec "Limits")', async (_, fetchPage, items) => {
    const whole = await fetchPage(1, 50);
    const expected = items(whole);
    expect(expected.length).toBeGreaterThan(2); // more than one page
    const seen: Named[] = [];
    for (let page = 1; ; page++) {
      const res = await fetchPage(page, 2);
      expect(res).toMatchObject({ page, pageSize: 2, totalRecommendations: expected.length });
      const got = items(res);
      expect(got.length).toBeLessThanOrEqual(2);
      seen.push(...got);
      expect(res.hasMore).toBe(seen.length < expected.length);
      if (!res.hasMore) break;
    }
    expect(seen).toEqual(expected);
    // A page past the end is valid and empty.
    const past = await fetchPage(Math.ceil(expected.length / 2) + 1, 2);
    expect(items(past)).toEqual([]);
    expect(past.hasMore).toBe(false);
  });

  it('public fields need no token and are not broken by a bad one (authentication is lazy)', async () => {
    for (const headers of [{}, auth('not-a-jwt')] as Array<Record<string, string>>) {
      const res = await graphql(search(), '{ huntModes { mode parameter } searchPagination { defaultPage defaultPageSize maxPageSize } }', {}, headers);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data).toEqual({
        huntModes: [{ mode: 'GENERAL', parameter: null }, { mode: 'REPLACE', parameter: 'symbol_replace' }, { mode: 'INTEREST', parameter: 'symbol_interest' }],
        searchPagination: { defaultPage: 1, defaultPageSize: 6, maxPageSize: 50 },
      });
    }
  });
});

describe('authentication: OIDC ID tokens, as on REST (DESIGN section 5)', () => {
  const cases: Array<[string, () => Promise<Record<string, string>>]> = [
    ['no Authorization header', async () => ({})],
    ['a header that is not Bearer', async () => ({ authorization: 'Basic dXNlcjpwYXNz' })],
    ['a token that is not a JWT', async () => auth('not-a-jwt')],
    ['a forged ID token (signed by a key the issuer does not publish)', async () => auth(await issuer.forgedToken({ subject: OWNER }))],
    ['an expired ID token', async () => auth(await issuer.idToken({ subject: OWNER, expiresIn: -3600 }))],
    ['an HS256 token with the right issuer, audience and sub (ID tokens are asymmetric only)', async () => auth(await mintPartnerToken({ secret: TEST_SECRET, issuer: issuer.url, audience: TEST_OIDC_AUDIENCE, subject: OWNER }))],
    ['an ID token for another audience (a partner audience only)', async () => auth(await issuer.idToken({ subject: OWNER, audience: config.auth.audiences.allocation }))],
  ];

  it.each(cases)('%s: UNAUTHENTICATED in extensions.code (HTTP 200, data null), and 401 on REST', async (_, headers) => {
    const h = await headers();
    for (const [query, vars] of [[HUNT_QUERY, { id: portfolioId }], [CASH_HUNT_QUERY, { id: portfolioId }]] as const) {
      const res = await graphql(search(), query, vars, h);
      expect(res.status).toBe(200);
      expect(res.body.data).toBeNull();
      expect(errorOf(res).extensions?.code).toBe('UNAUTHENTICATED');
      expect(res.text).not.toMatch(/stack|\.ts:\d+|JWS|JWT[A-Z]|hunted book/);
    }
    const rest = await request<Json>(`${platform.urls.search}/api/v1/portfolios/hunt?portfolio_id=${portfolioId}`, { headers: h });
    expect(rest.status).toBe(401);
    expect(rest.body.code).toBe('UNAUTHENTICATED');
  });

  it('AUTH_NOT_CONFIGURED while no OIDC audiences are configured, even for a valid token (503 on REST); public fields still work', async () => {
    const url = `${unconfigured.urls.search}/graphql`;
    for (const headers of [auth(idToken), {}]) {
      const h = await graphql(url, HUNT_QUERY, { id: portfolioId }, headers);
      expect(h.status).toBe(200);
      expect(errorOf(h).extensions?.code).toBe('AUTH_NOT_CONFIGURED');
      const c = await graphql(url, CASH_HUNT_QUERY, { id: portfolioId }, headers);
      expect(errorOf(c).extensions?.code).toBe('AUTH_NOT_CONFIGURED');
    }
    const rest = await request<Json>(`${unconfigured.urls.search}/api/v1/portfolios/cash-hunt?portfolio_id=${portfolioId}`, { headers: auth(idToken) });
    expect(rest.status).toBe(503);
    expect(rest.body.code).toBe('AUTH_NOT_CONFIGURED');
    const modes = await graphql(url, '{ huntModes { mode } }');
    expect(modes.body.errors).toBeUndefined();
  });
});

describe('validation: every violation listed, fields named in camelCase (spec "Opportunity-search service")', () => {
  const unknownId = randomUUID();
  const cases: Array<[string, string[], () => Promise<GraphqlResponse<unknown>>]> = [
    ['symbolReplace and symbolInterest together', ['symbolInterest'], () => hunt({ id: portfolioId, symbolReplace: holdings[0], symbolInterest: lateSymbols[0] })],
    ['pageSize 51', ['pageSize'], () => hunt({ id: portfolioId, pageSize: 51 })],
    ['pageSize 0', ['pageSize'], () => hunt({ id: portfolioId, pageSize: 0 })],
    ['page 0', ['page'], () => hunt({ id: portfolioId, page: 0 })],
    ['page 0, pageSize 51 and both symbols at once', ['page', 'pageSize', 'symbolInterest'], () => hunt({ id: portfolioId, page: 0, pageSize: 51, symbolReplace: holdings[0], symbolInterest: lateSymbols[0] })],
    ['a portfolioId that is not a UUID', ['portfolioId'], () => hunt({ id: 'my-portfolio' })],
    ['an unknown portfolio', ['portfolioId'], () => hunt({ id: unknownId })],
    ['another caller\'s portfolio', ['portfolioId'], () => hunt({ id: otherPortfolioId })],
    ['a symbolReplace that is not a ticker', ['symbolReplace'], () => hunt({ id: portfolioId, symbolReplace: '../etc' })],
    ['a symbolReplace the portfolio does not hold', ['symbolReplace'], () => hunt({ id: portfolioId, symbolReplace: lateSymbols[0] })],
    ['a symbolInterest without analysis', ['symbolInterest'], () => hunt({ id: portfolioId, symbolInterest: 'ZZZZ' })],
    ['cashHunt: pageSize 51 and page 0', ['page', 'pageSize'], () => cashHunt({ id: portfolioId, page: 0, pageSize: 51 })],
    ['cashHunt: an unknown portfolio', ['portfolioId'], () => cashHunt({ id: unknownId })],
    ['cashHunt: another caller\'s portfolio', ['portfolioId'], () => cashHunt({ id: otherPortfolioId })],
  ];

  it.each(cases)('%s: VALIDATION_FAILED naming %j', async (_, fields, run) => {
    const res = await run();
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    const error = errorOf(res);
    expect(error.extensions?.code).toBe('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual(fields);
    // No REST parameter name in a GraphQL answer.
    for (const d of error.extensions?.details as Detail[]) expect(d.message).not.toMatch(/symbol_replace|symbol_interest|page_size/);
  });

  it('both symbols: the message names both GraphQL arguments; an upper-case portfolioId is the same portfolio', async () => {
    const both = errorOf(await hunt({ id: portfolioId, symbolReplace: holdings[0], symbolInterest: lateSymbols[0] }));
    expect((both.extensions?.details as Detail[])[0].message).toMatch(/symbolReplace.*symbolInterest/);
    const upper = await huntData({ id: portfolioId.toUpperCase() });
    expect(upper.portfolioId).toBe(portfolioId);
  });

  it('another caller\'s portfolio is refused exactly like an unknown id; its owner reads it', async () => {
    const theirs = errorOf(await hunt({ id: otherPortfolioId }));
    const unknown = errorOf(await hunt({ id: unknownId }));
    const neutral = (e: GraphqlError) => JSON.parse(JSON.stringify(e).split(otherPortfolioId).join('ID').split(unknownId).join('ID')) as unknown;
    expect(neutral(theirs)).toEqual(neutral(unknown));
    const cashTheirs = errorOf(await cashHunt({ id: otherPortfolioId }));
    const cashUnknown = errorOf(await cashHunt({ id: unknownId }));
    expect(neutral(cashTheirs)).toEqual(neutral(cashUnknown));
    // The owner (any token of theirs with the search audience) does read it.
    const own = await hunt({ id: otherPortfolioId }, otherToken);
    expect(own.body.errors).toBeUndefined();
    expect(own.body.data!.hunt.portfolioName).toBe('someone else');
  });
});

describe('Portfolio entity fields on the search subgraph (_entities)', () => {
  const ENTITIES = `query($r: [_Any!]!) { _entities(representations: $r) { ... on Portfolio { id hunt { huntMode portfolioId totalRecommendations } cashHunt { portfolioId totalRecommendations } } } }`;
  const rep = (id: string) => ({ r: [{ __typename: 'Portfolio', id }] });

  it('resolves hunt and cashHunt of the owner\'s portfolio, as Query.hunt and Query.cashHunt do', async () => {
    const res = await graphql<{ _entities: Json[] }>(search(), ENTITIES, rep(portfolioId), auth(idToken));
    expect(res.body.errors).toBeUndefined();
    const h = await huntData({ id: portfolioId });
    const c = await cashHuntData({ id: portfolioId });
    expect(res.body.data!._entities).toEqual([
      { id: portfolioId, hunt: { huntMode: 'GENERAL', portfolioId, totalRecommendations: h.totalRecommendations }, cashHunt: { portfolioId, totalRecommendations: c.totalRecommendations } },
    ]);
    expect(c.totalRecommendations).toBeGreaterThan(0);
  });

  it('gives another sub the same validation error as Query.hunt (and an unknown id too); no token is UNAUTHENTICATED', async () => {
    const theirs = await graphql<{ _entities: Json[] }>(search(), ENTITIES, rep(otherPortfolioId), auth(idToken));
    const error = errorOf(theirs);
    expect(error.extensions?.code).toBe('VALIDATION_FAILED');
    expect(fieldsOf(error)).toEqual(['portfolioId']);
    expect(error.message).toBe(errorOf(await hunt({ id: otherPortfolioId })).message);
    expect(JSON.stringify(theirs.body.data)).not.toContain('someone else');
    const unknown = errorOf(await graphql(search(), ENTITIES, rep(randomUUID()), auth(idToken)));
    expect(unknown.extensions?.code).toBe('VALIDATION_FAILED');
    const anonymous = errorOf(await graphql(search(), ENTITIES, rep(portfolioId)));
    expect(anonymous.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('security references (Security @key symbol)', () => {
  it('every recommendation and idea in every mode exposes security { symbol } equal to its symbol', async () => {
    const seen = new Map<string, number>();
    const check = async (query: string, vars: Json) => {
      // __typename everywhere, so the count below is per GraphQL type.
      const typed = query.replace(/security \{ symbol \}/g, '__typename security { symbol }');
      const res = await graphql(search(), typed, vars, auth(idToken));
      expect(res.body.errors).toBeUndefined();
      for (const o of referencing(res.body.data)) {
        expect(o.security).toEqual({ symbol: o.symbol });
        const type = (o as unknown as { __typename: string }).__typename;
        seen.set(type, (seen.get(type) ?? 0) + 1);
      }
    };
    await check(HUNT_QUERY, { id: portfolioId, pageSize: 50 });
    await check(HUNT_QUERY, { id: portfolioId, symbolReplace: holdings[0], pageSize: 50 });
    await check(HUNT_QUERY, { id: portfolioId, symbolInterest: lateSymbols[0], pageSize: 50 });
    await check(CASH_HUNT_QUERY, { id: portfolioId, pageSize: 50 });
    expect(seen.get('HuntRecommendation')).toBe(holdings.length);
    expect(seen.get('SuitabilityAnalysis')).toBe(1);
    expect(seen.get('SearchIdea')).toBeGreaterThan(0);
  });
});

describe('through the gateway (issue item 7): one operation, one token, three subgraphs', () => {
  const ANALYSIS = 'security { symbol analysis { symbol analysisDate stage signal price } }';
  const JOINED = `query($id: ID!) {
    portfolio(id: $id) {
      id name
      allocations { symbol ${ANALYSIS} }
      cashHunt(pageSize: 50) { ${CASH_HUNT.replace(/security \{ symbol \}/g, ANALYSIS)} }
      hunt(pageSize: 50) {
        huntMode totalRecommendations
        generalAssessment { recommendations { symbol type ${ANALYSIS} replacementCandidates { symbol ${ANALYSIS} } } }
      }
    }
  }`;
  type Joined = {
    portfolio: {
      id: string;
      name: string;
      allocations: Named[];
      cashHunt: Json & { recommendations: Named[] };
      hunt: { huntMode: string; totalRecommendations: number; generalAssessment: { recommendations: Array<Named & { type: string; replacementCandidates: Named[] }> } };
    };
  };

  /** The analysis a gateway join should give for `symbol`: its latest stored snapshot. */
  const expectLatestAnalysis = async (row: Named) => {
    expect(row.security.symbol).toBe(row.symbol);
    const snapshot = await latestSnapshot(store.db, row.symbol);
    expect(snapshot).not.toBeNull();
    const doc = JSON.parse(snapshot!.docText) as Json;
    const label = (v: unknown, key: string) => (v !== null && typeof v === 'object' ? (v as Json)[key] : v) ?? null;
    expect(row.security.analysis).toEqual({
      symbol: row.symbol,
      analysisDate: snapshot!.analysisDate,
      stage: camelKeys(label(doc.stage, 'stage')),
      signal: label(doc.signal, 'signal'),
      price: doc.price,
    });
  };

  it('portfolio -> allocations, cashHunt and hunt, each name joined with its latest analysis; cashHunt equal to Query.cashHunt', async () => {
    const res = await graphql<Joined>(gateway(), JOINED, { id: portfolioId }, auth(everywhere));
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const p = res.body.data!.portfolio;
    expect(p).toMatchObject({ id: portfolioId, name: 'hunted book' });

    expect(p.allocations.map((a) => a.symbol)).toEqual(holdings);
    for (const a of p.allocations) await expectLatestAnalysis(a);

    expect(p.cashHunt.recommendations.length).toBeGreaterThan(0);
    for (const r of p.cashHunt.recommendations) await expectLatestAnalysis(r);
    // The search origin's own answer for the same portfolio, field for field (analysis aside).
    const direct = await cashHuntData({ id: portfolioId, pageSize: 50 });
    const stripAnalysis = (v: unknown) => JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'analysis' ? undefined : x))) as unknown;
    expect(stripAnalysis(p.cashHunt)).toEqual(direct);

    expect(p.hunt.huntMode).toBe('GENERAL');
    const recs = p.hunt.generalAssessment.recommendations;
    expect(recs.map((r) => r.symbol).sort()).toEqual([...holdings].sort());
    for (const r of recs) {
      await expectLatestAnalysis(r);
      for (const c of r.replacementCandidates) await expectLatestAnalysis(c);
    }
    const directHunt = await huntData({ id: portfolioId, pageSize: 50 });
    expect(recs.map((r) => [r.symbol, r.type])).toEqual(general(directHunt).recommendations.map((r) => [r.symbol, (r as unknown as { type: string }).type]));
  });

  it('Query.hunt and Query.cashHunt through the gateway equal the search origin\'s answers', async () => {
    for (const vars of [{ id: portfolioId }, { id: portfolioId, symbolReplace: holdings[0] }, { id: portfolioId, symbolInterest: lateSymbols[0] }]) {
      const viaGateway = await hunt(vars, everywhere, gateway());
      expect(viaGateway.body.errors).toBeUndefined();
      expect(viaGateway.body.data).toEqual((await hunt(vars)).body.data);
    }
    const viaGateway = await cashHunt({ id: portfolioId }, everywhere, gateway());
    expect(viaGateway.body.data).toEqual((await cashHunt({ id: portfolioId })).body.data);
  });

  it('the joined fields keep the search rules: another sub cannot reach the portfolio, a search-only token cannot read it through allocation', async () => {
    const theirs = await graphql(gateway(), JOINED, { id: portfolioId }, auth(otherToken));
    expect(errorOf(theirs).extensions?.code).toBe('PORTFOLIO_NOT_FOUND');
    const searchOnly = await graphql(gateway(), JOINED, { id: portfolioId }, auth(idToken));
    expect(errorOf(searchOnly).extensions?.code).toBe('UNAUTHENTICATED');
    // Query.hunt through the gateway for another sub's portfolio: the search validation error, relayed.
    const relayed = errorOf(await hunt({ id: otherPortfolioId }, everywhere, gateway()));
    expect(relayed.extensions?.code).toBe('VALIDATION_FAILED');
    expect(fieldsOf(relayed)).toEqual(['portfolioId']);
  });
});

describe('a book created and traded through the gateway: hunt and cashHunt read it as it stands now', () => {
  type Book = {
    id: string;
    version: number;
    cash: number;
    cashHunt: { availableCash: number; totalCapital: number; recommendations: Array<{ symbol: string; positionValue: number }> };
    hunt: { generalAssessment: { availableCash: number; recommendations: Array<{ symbol: string; shares: number; entryPrice: number; stopLoss: number }> } };
  };
  const BOOK = `id version cash
    cashHunt(pageSize: 50) { availableCash totalCapital recommendations { symbol positionValue } }
    hunt(pageSize: 50) { generalAssessment { availableCash recommendations { symbol shares entryPrice stopLoss } } }`;

  it('createPortfolio answers with the new book\'s hunt and cash hunt; after recordTrade (a sale) both change in the same answer', async () => {
    const [sold, kept] = holdings;
    const created = await graphql<{ createPortfolio: Book }>(
      gateway(),
      `mutation($input: CreatePortfolioInput!) { createPortfolio(input: $input) { ${BOOK} } }`,
      { input: { name: 'created book', cash: 50000, holdings: [{ symbol: sold, shares: 100, costBasis: 10.5 }, { symbol: kept, shares: 50, costBasis: 20.25 }] } },
      auth(everywhere),
    );
    expect(created.body.errors).toBeUndefined();
    const book = created.body.data!.createPortfolio;
    expect(book).toMatchObject({ version: 1, cash: 50000 });
    const before = book.hunt.generalAssessment;
    expect(before.availableCash).toBe(50000);
    expect(before.recommendations.map((r) => [r.symbol, r.shares, r.entryPrice]).sort()).toEqual(
      [
        [sold, 100, 10.5],
        [kept, 50, 20.25],
      ].sort(),
    );
    expect(book.cashHunt.availableCash).toBe(50000);
    expect(book.cashHunt.recommendations.length).toBeGreaterThan(0);
    expect(book.cashHunt.recommendations.map((r) => r.symbol)).not.toContain(sold);
    expect(book.cashHunt.recommendations.reduce((s, r) => s + Math.round(r.positionValue * 100), 0)).toBeLessThanOrEqual(5_000_000);

    const traded = await graphql<{ recordTrade: { trade: { price: number; cashAfter: number }; portfolio: Book } }>(
      gateway(),
      `mutation($id: ID!, $input: TradeInput!) { recordTrade(portfolioId: $id, input: $input, expectedVersion: 1) { trade { price cashAfter } portfolio { ${BOOK} } } }`,
      { id: book.id, input: { symbol: sold, side: 'SELL', shares: 100 } },
      auth(everywhere),
    );
    expect(traded.body.errors).toBeUndefined();
    const { trade, portfolio } = traded.body.data!.recordTrade;
    expect(Math.round(trade.cashAfter * 100)).toBe(5_000_000 + 100 * Math.round(trade.price * 100));
    expect(portfolio).toMatchObject({ id: book.id, version: 2, cash: trade.cashAfter });
    expect(portfolio.hunt.generalAssessment.availableCash).toBe(trade.cashAfter);
    expect(portfolio.hunt.generalAssessment.recommendations.map((r) => r.symbol)).toEqual([kept]);
    expect(portfolio.cashHunt.availableCash).toBe(trade.cashAfter);
    // Query.cashHunt on the search origin gives the same answer at once.
    const direct = await cashHunt({ id: book.id, pageSize: 50 });
    expect(direct.body.data?.cashHunt.availableCash).toBe(trade.cashAfter);
  });
});
