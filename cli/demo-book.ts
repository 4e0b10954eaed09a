/**
 * The demo book: a sample portfolio created on start, next to the synthetic demo market, so that a new
 * user's first `cash-hunt` (and hunt, trades, rebalance) has a real book to work on.
 *
 * - Owner: the development partner `partner-1` (the `sub` of the README's token examples); id
 *   {@link DEMO_PORTFOLIO_ID}, fixed so the README's examples can name it; name "Demo book", USD.
 * - Holdings: five equities of the synthetic market, the alphabetically first of each of five sectors
 *   (Health Care, Financials, Consumer Staples, Industrials, Energy; other sectors fill in on a small
 *   market), never the demo symbol (ACME stays unheld, an example of a name a partner might add) or the
 *   index. Each was bought 120, 90, 60, 60 and 40 trading days before the last bar (the entry date) at
 *   that day's close (the cost basis, to the cent), for about 14,000 at the latest close, and has a stop
 *   loss 4% under the latest close (a trailing stop: the book's open risk is about 2.8% of its value, so
 *   the default 5% total-risk budget leaves room for new ideas).
 * - Cash: 3/7 of the holdings' value at the latest close, to the dollar: about 30% of the total value.
 * - Created once: when the book exists (whatever happened to it since: trades, rebalances), nothing is
 *   done, also when another process on the same store creates it at the same moment (the insert's
 *   unique violation means it is there); when the store has no synthetic market (an imported market, or the analysis origin has not
 *   loaded it yet), nothing is done either and a later start tries again.
 *
 * It goes through PortfolioService.create like any POST /api/v1/portfolios, so it is a book like any
 * other (source 'holdings', version 1, no trades).
 */
import type { CreatePortfolioBody, HoldingBody } from '../subgraphs/allocation/book-types.js';
import { PortfolioService } from '../subgraphs/allocation/portfolios.js';
import type { PartnerPrincipal } from '../subgraphs/platform/auth.js';
import type { Db } from '../subgraphs/platform/db.js';
import { DEMO_PARTNER } from '../subgraphs/platform/dev-secret.js';

/** The demo book's id (GET /api/v1/portfolios/00000000-0000-4000-8000-00000000d3e0, cash-hunt?portfolio_id=...). */
export const DEMO_PORTFOLIO_ID = '00000000-0000-4000-8000-00000000d3e0';

/**
 * The partner that owns the demo book: mint its tokens with `tradegraph token --sub partner-1`. Defined
 * with the development credentials, where the console's development token takes it as its subject.
 */
export const DEMO_PORTFOLIO_PARTNER = DEMO_PARTNER;

export const DEMO_PORTFOLIO_NAME = 'Demo book';

/** Sectors the holdings are drawn from, in order (one holding each). */
const SECTORS = ['Health Care', 'Financials', 'Consumer Staples', 'Industrials', 'Energy'];

/** Trading days before the last bar at which each holding was bought. */
const LOOKBACKS = [120, 90, 60, 60, 40];

/** What each holding is worth at the latest close, about (whole shares below it). */
const POSITION_VALUE = 14_000;

/** Cash as a share of the holdings' value: 3/7 of it is 30% of the total. */
const CASH_PER_HOLDINGS_VALUE = 3 / 7;

/** The stop loss under the latest close. */
const STOP_BELOW_CLOSE = 0.04;

export interface DemoEquity {
  symbol: string;
  sector: string | null;
  /** Closes newest first (at least 1 + the largest lookback), with their dates. */
  bars: ReadonlyArray<{ date: string; close: number }>;
}

const cents = (v: number): number => Math.round(v * 100) / 100;

/**
 * The demo book's body from the equities of the market (pure): null when fewer than five have enough
 * history on the market's last day. `today` (UTC, YYYY-MM-DD) drops an entry date that would be later.
 */
export function planDemoBook(equities: readonly DemoEquity[], today: string): CreatePortfolioBody | null {
  const deepest = Math.max(...LOOKBACKS);
  const lastDate = equities.reduce((d, e) => (e.bars.length && e.bars[0].date > d ? e.bars[0].date : d), '');
  const usable = equities
    .filter((e) => e.bars.length > deepest && e.bars[0].date === lastDate)
    .sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
  const picked: DemoEquity[] = [];
  const sectorsInOrder = [...SECTORS, ...[...new Set(usable.map((e) => e.sector ?? ''))].filter((s) => !SECTORS.includes(s)).sort()];
  for (const sector of sectorsInOrder) {
    if (picked.length === LOOKBACKS.length) break;
    const first = usable.find((e) => (e.sector ?? '') === sector);
    if (first) picked.push(first);
  }
  if (picked.length < LOOKBACKS.length) return null;

  let holdingsValue = 0;
  const holdings = picked.map((e, i): HoldingBody => {
    const last = cents(e.bars[0].close);
    const entry = e.bars[LOOKBACKS[i]];
    const shares = Math.max(1, Math.floor(POSITION_VALUE / last));
    holdingsValue += shares * last;
    return {
      symbol: e.symbol,
      shares,
      cost_basis: cents(entry.close),
      ...(entry.date <= today ? { entry_date: entry.date } : {}),
      stop_loss: cents(last * (1 - STOP_BELOW_CLOSE)),
    };
  });
  return { name: DEMO_PORTFOLIO_NAME, currency: 'USD', cash: Math.round(holdingsValue * CASH_PER_HOLDINGS_VALUE), holdings };
}

/** The store's synthetic equities (not `exclude`) with their newest closes. */
async function demoEquities(db: Db, exclude: readonly string[]): Promise<DemoEquity[]> {
  const securities = await db.query<{ symbol: string; sector: string | null }>(
    `SELECT symbol, sector FROM securities WHERE asset_type = 'EQUITY' AND data_source = 'synthetic' ORDER BY symbol COLLATE "C"`,
  );
  // The first two of each sector are plenty (one is picked; the other stands in when its history is short).
  const perSector = new Map<string, number>();
  const chosen = securities.filter((s) => {
    if (exclude.includes(s.symbol)) return false;
    const n = perSector.get(s.sector ?? '') ?? 0;
    perSector.set(s.sector ?? '', n + 1);
    return n < 2;
  });
  const depth = Math.max(...LOOKBACKS) + 1;
  const out: DemoEquity[] = [];
  for (const s of chosen) {
    const bars = await db.query<{ date: string; close: number }>(
      'SELECT date::text AS date, close FROM bars WHERE symbol = $1 ORDER BY date DESC LIMIT $2',
      [s.symbol, depth],
    );
    out.push({ symbol: s.symbol, sector: s.sector, bars: bars.map((b) => ({ date: b.date, close: Number(b.close) })) });
  }
  return out;
}

export interface DemoBookReport {
  portfolioId: string;
  partnerId: string;
  symbols: string[];
  cash: number;
  totalValue: number;
}

/** A PostgreSQL unique violation (SQLSTATE 23505), as both drivers report it. */
function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

/**
 * Creates the demo book unless it exists or the store has no synthetic market (null then).
 * `exclude`: symbols never held (the demo symbol and the market index).
 */
export async function ensureDemoBook(db: Db, options: { exclude: readonly string[]; now?: () => Date }): Promise<DemoBookReport | null> {
  const exists = await db.query('SELECT 1 FROM portfolios WHERE id = $1::uuid', [DEMO_PORTFOLIO_ID]);
  if (exists.length > 0) return null;
  const now = options.now ?? (() => new Date());
  const body = planDemoBook(await demoEquities(db, options.exclude), now().toISOString().slice(0, 10));
  if (body === null) return null;
  const principal: PartnerPrincipal = { kind: 'partner', partnerId: DEMO_PORTFOLIO_PARTNER, claims: { sub: DEMO_PORTFOLIO_PARTNER } };
  let response;
  try {
    ({ response } = await new PortfolioService(db, { now }).create(principal, body, {
      traceId: 'demo-book',
      naming: 'rest',
      source: 'holdings',
      id: DEMO_PORTFOLIO_ID,
    }));
  } catch (err) {
    // Another process on the same store created it between the check and the insert: it is there.
    if (isUniqueViolation(err)) return null;
    throw err;
  }
  return {
    portfolioId: response.portfolio_id,
    partnerId: DEMO_PORTFOLIO_PARTNER,
    symbols: response.holdings.map((h) => h.symbol),
    cash: response.cash,
    totalValue: response.total_value,
  };
}
