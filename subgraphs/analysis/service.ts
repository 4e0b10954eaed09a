/**
 * Analysis domain use cases and their access policy. Securities and daily bars are licensed market
 * data: partners read all of them; unauthenticated callers see only the demo symbol's profile (the
 * public subset the demo route gives) and no bars.
 */
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { requirePartner, type Principal } from '../platform/principal.js';
import { pageSize, parseIsoDate } from '../platform/validation.js';
import { normalizeSymbol } from './engine/symbol.js';
import { GICS_SECTORS, type Bar, type GicsSector, type SecurityRecord } from './engine/market-types.js';
import * as store from './store.js';

export const BARS_PAGE = { default: 250, max: 2000 } as const;
export const SECURITIES_PAGE = { default: 50, max: 500 } as const;

export interface Page<T> {
  items: T[];
  total: number;
  hasMore: boolean;
  endCursor: string | null;
}

export class AnalysisService {
  constructor(
    private readonly db: Db,
    readonly demoSymbol: string,
  ) {}

  /** A normalised ticker, or 400. */
  symbol(raw: string): string {
    const symbol = normalizeSymbol(raw);
    if (!symbol) throw new AppError('VALIDATION_FAILED', 'symbol is not a valid ticker', [{ field: 'symbol', message: 'expected a ticker such as AAPL or BRK.B' }]);
    return symbol;
  }

  /** A GICS sector name (any case), or 400. */
  sector(raw: string): GicsSector {
    const found = GICS_SECTORS.find((s) => s.toLowerCase() === raw.trim().toLowerCase());
    if (!found) throw new AppError('VALIDATION_FAILED', 'sector is not a GICS sector', [{ field: 'sector', message: `expected one of: ${GICS_SECTORS.join(', ')}` }]);
    return found;
  }

  /** A security's profile; null when unknown. Anonymous callers: the demo symbol only. */
  async getSecurity(principal: Principal, rawSymbol: string): Promise<SecurityRecord | null> {
    const symbol = this.symbol(rawSymbol);
    if (symbol !== this.demoSymbol) requirePartner(principal, `security ${symbol}`);
    return store.findSecurity(this.db, symbol);
  }

  async listSecurities(principal: Principal, options: { sector?: string | null; first?: number | null; after?: string | null }): Promise<Page<SecurityRecord>> {
    requirePartner(principal, 'the securities list');
    const sector = options.sector ? this.sector(options.sector) : undefined;
    const limit = pageSize(options.first, 'first', SECURITIES_PAGE.default, SECURITIES_PAGE.max);
    const after = options.after ? this.symbol(options.after) : undefined;
    const { items, total } = await store.listSecurities(this.db, { sector, after, limit: limit + 1 });
    return page(items, limit, total, (s) => s.symbol);
  }

  /** Daily bars of a symbol, oldest first, paginated by date cursor. Partners only. */
  async getBars(
    principal: Principal,
    rawSymbol: string,
    options: { from?: string | null; to?: string | null; first?: number | null; after?: string | null },
  ): Promise<Page<Bar>> {
    const symbol = this.symbol(rawSymbol);
    requirePartner(principal, 'daily bars');
    const from = options.from ? parseIsoDate(options.from, 'from') : undefined;
    const to = options.to ? parseIsoDate(options.to, 'to') : undefined;
    if (from && to && from > to) throw new AppError('VALIDATION_FAILED', 'from must not be after to', [{ field: 'from', message: 'after to' }]);
    const after = options.after ? parseIsoDate(options.after, 'after') : undefined;
    const limit = pageSize(options.first, 'first', BARS_PAGE.default, BARS_PAGE.max);
    const { items, total } = await store.listBars(this.db, symbol, { from, to, after, limit: limit + 1 });
    return page(items, limit, total, (b) => b.date);
  }
}

/** Cuts a fetched `limit + 1` rows to `limit` and says whether more follow. */
function page<T>(rows: T[], limit: number, total: number, cursor: (row: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  return { items, total, hasMore: rows.length > limit, endCursor: items.length ? cursor(items[items.length - 1]) : null };
}
