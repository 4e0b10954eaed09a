/**
 * How hunt and cash hunt learn a book's current version. On the embedded store (PGlite), which this
 * process alone writes, the book service notes each version once its trade has committed and search
 * takes it from there: after a trade through the allocation origin (or through another book service on
 * the same store) the next hunt and cash hunt show the sale, and the store is asked only for the book's
 * holdings (one statement that carries their version), never for the version alone; a repeated
 * question asks the store nothing about the book. On PostgreSQL (when TEST_DATABASE_URL is set) other
 * processes write too: every call reads the version, and a trade recorded over another connection pool
 * (another process's) shows in the next answers.
 *
 * Real origins on port 0, partner tokens signed with the test secret, OIDC ID tokens (same `sub`) from
 * a local issuer, the real pipeline's snapshots of the small demo market. The store the origins use is
 * the real one behind a pass-through that records the statements naming the book's id.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { PortfolioService } from '../../subgraphs/allocation/portfolios.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import type { Config } from '../../subgraphs/platform/config.js';
import { openPostgres } from '../../subgraphs/platform/db.js';
import { seedAnalysis } from '../helpers/analysis.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { BACKENDS, openTestDb, recordingDb, type RecordingDb, type TestDb } from '../helpers/db.js';
import { request, type JsonResponse } from '../helpers/http.js';
import { startTestIssuer, TEST_OIDC_AUDIENCE, type TestIssuer } from '../helpers/oidc.js';

type Json = Record<string, unknown>;
type Row = Record<string, unknown>;

const HUNT = '/api/v1/portfolios/hunt';
const CASH_HUNT = '/api/v1/portfolios/cash-hunt';
const PORTFOLIOS = '/api/v1/portfolios';

/** A statement that reads the book's version alone (not with its holdings). */
const versionOnly = (sql: string) => /\bversion\b/.test(sql) && !/portfolio_holdings/.test(sql);
const holdingsRead = (sql: string) => /portfolio_holdings/.test(sql);

describe.each(BACKENDS)('hunt and cash hunt follow a book’s version, on %s', (backend) => {
  let issuer: TestIssuer;
  let config: Config;
  let store: TestDb;
  let recorder: RecordingDb;
  let platform: RunningPlatform;
  let partnerToken: string;
  let idToken: string;
  /** The book's writer that is not the allocation origin: another service on the same store (PGlite), another connection pool (PostgreSQL). */
  let other: { service: PortfolioService; close(): Promise<void> };
  let symbols: string[];

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const search = (path: string): Promise<JsonResponse<Json>> => request<Json>(`${platform.urls.search}${path}`, { headers: bearer(idToken) });
  const hunt = (id: string) => search(`${HUNT}?portfolio_id=${id}&page_size=50`);
  const cashHunt = (id: string) => search(`${CASH_HUNT}?portfolio_id=${id}&page_size=50`);
  const post = (path: string, body: unknown) =>
    request<Json>(`${platform.urls.allocation}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(partnerToken) },
      body: JSON.stringify(body),
    });
  const sharesIn = (res: JsonResponse<Json>) =>
    new Map(((res.body.general_assessment as Json).recommendations as Row[]).map((r) => [r.symbol as string, r.shares as number]));

  beforeAll(async () => {
    issuer = await startTestIssuer();
    config = testConfig({ ANALYZE_ON_START: 'false', OIDC_ISSUER: issuer.url, OIDC_AUDIENCES: TEST_OIDC_AUDIENCE });
    store = await openTestDb(backend);
    recorder = recordingDb(store.db);
    platform = await startPlatform(config, ['analysis', 'allocation', 'search'], { db: recorder.db });
    const equities = await store.db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' ORDER BY symbol");
    symbols = equities.map((r) => r.symbol);
    await seedAnalysis(store.db, { symbols, days: 1 });
    partnerToken = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.allocation, subject: 'partner-1' });
    idToken = await issuer.idToken({ subject: 'partner-1' });
    if (backend === 'postgres') {
      const pool = await openPostgres(store.url as string);
      other = { service: new PortfolioService(pool), close: () => pool.close() };
    } else {
      other = { service: new PortfolioService(recorder.db), close: async () => undefined };
    }
  });
  afterAll(async () => {
    await other?.close();
    await platform?.close();
    await store?.drop();
    await issuer?.close();
  });

  it('a trade shows in the next hunt and cash hunt; on the embedded store the version comes from the book service, not the store', async () => {
    const held = symbols.slice(0, 3);
    const created = await post(PORTFOLIOS, {
      name: 'Followed book',
      cash: 40_000,
      holdings: held.map((symbol) => ({ symbol, shares: 100, cost_basis: 10 })),
      risk_settings: { max_positions: 8 },
    });
    expect(created.status).toBe(201);
    const id = created.body.portfolio_id as string;
    recorder.watch(id);

    // First answers: the book is read from the store.
    const first = await hunt(id);
    expect(first.status).toBe(200);
    expect(sharesIn(first).get(held[0])).toBe(100);
    expect((await cashHunt(id)).body.available_cash).toBe(40_000);
    expect(recorder.take().filter(holdingsRead)).toHaveLength(1);

    // The same questions again: the answers kept; PGlite asks the store nothing about the book,
    // PostgreSQL reads the version on each call.
    expect((await hunt(id)).status).toBe(200);
    expect((await cashHunt(id)).status).toBe(200);
    const repeated = recorder.take();
    if (backend === 'pglite') expect(repeated).toEqual([]);
    else expect(repeated.filter(versionOnly)).toHaveLength(2);

    // A sale through the allocation origin.
    const sold = await post(`${PORTFOLIOS}/${id}/trades`, { symbol: held[0], side: 'SELL', shares: 40 });
    expect(sold.status).toBe(200);
    expect((sold.body.portfolio as Json).version).toBe(2);
    const cashAfter = (sold.body.trade as Json).cash_after as number;
    expect(cashAfter).toBeGreaterThan(40_000);
    recorder.take();

    const afterSale = await hunt(id);
    expect(afterSale.status).toBe(200);
    expect(sharesIn(afterSale).get(held[0])).toBe(60);
    expect((afterSale.body.general_assessment as Json).available_cash).toBe(cashAfter);
    const cashAfterSale = await cashHunt(id);
    expect(cashAfterSale.status).toBe(200);
    expect(cashAfterSale.body.available_cash).toBe(cashAfter);
    const reads = recorder.take();
    // The holdings are read once, in one statement with their version, and kept for cash hunt too.
    expect(reads.filter(holdingsRead)).toHaveLength(1);
    if (backend === 'pglite') expect(reads.filter(versionOnly)).toEqual([]);
    else expect(reads.filter(versionOnly)).toHaveLength(2);

    // A sale by the other writer: another book service on the same embedded store (as the demo book's
    // and the CLI's are), or another process's connections to the same PostgreSQL database.
    const principal = { kind: 'partner' as const, partnerId: 'partner-1', claims: {} };
    const again = await other.service.trade(principal, id, { symbol: held[1], side: 'SELL', shares: 100 }, { traceId: 'other-writer', naming: 'rest' });
    expect(again.response.portfolio.version).toBe(3);
    recorder.take();

    const afterOther = await hunt(id);
    expect(afterOther.status).toBe(200);
    expect(sharesIn(afterOther).has(held[1])).toBe(false);
    expect(sharesIn(afterOther).get(held[0])).toBe(60);
    const cashAfterOther = await cashHunt(id);
    expect(cashAfterOther.body.available_cash).toBe(again.response.trade.cash_after);
    const otherReads = recorder.take();
    expect(otherReads.filter(holdingsRead)).toHaveLength(1);
    if (backend === 'pglite') expect(otherReads.filter(versionOnly)).toEqual([]);
    else expect(otherReads.filter(versionOnly)).toHaveLength(2);
  });

  it('a refused trade changes nothing: the answers stay, after one version read', async () => {
    const held = symbols.slice(0, 2);
    const created = await post(PORTFOLIOS, { name: 'Refused sale', cash: 1_000, holdings: held.map((symbol) => ({ symbol, shares: 10, cost_basis: 10 })) });
    expect(created.status).toBe(201);
    const id = created.body.portfolio_id as string;
    const before = await hunt(id);
    expect(before.status).toBe(200);
    const refused = await post(`${PORTFOLIOS}/${id}/trades`, { symbol: held[0], side: 'SELL', shares: 11 });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('INSUFFICIENT_SHARES');
    recorder.watch(id);
    const after = await hunt(id);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    // The failed write may have committed before failing, as far as the book service knows: the version
    // is read once more (on PGlite too), the holdings are not; then PGlite knows the book again.
    const reads = recorder.take();
    expect(reads.filter(holdingsRead)).toEqual([]);
    expect(reads.filter(versionOnly)).toHaveLength(1);
    expect((await hunt(id)).body).toEqual(before.body);
    expect(recorder.take().filter(versionOnly)).toHaveLength(backend === 'pglite' ? 0 : 1);
  });
});
