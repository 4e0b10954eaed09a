/**
 * The parameters of the opportunity-search reads, declared once (spec "Opportunity-search service";
 * DESIGN section 5): GET /api/v1/portfolios/hunt and GET /api/v1/portfolios/cash-hunt, and their
 * GraphQL twins Query.hunt / Query.cashHunt and Portfolio.hunt / Portfolio.cashHunt. The route schemas
 * (what /openapi.json publishes), SearchService's checks (REST and GraphQL, one wording) and the types
 * below all come from these tables (machinery: platform/param-table.ts).
 *
 * Rules: portfolio_id required, a UUID; page an integer 1..2^31-1 (GraphQL's largest Int), page_size
 * 1..50, written as decimal digits on REST; symbol_replace and symbol_interest tickers (any case,
 * surrounding spaces ignored), not both (x-exclusive-with); nothing unknown, nothing repeated.
 * Whether the portfolio is the caller's, the replaced symbol held and the symbol of interest analysed
 * are data checks (SearchService), not parameter rules.
 */
import { TICKER_INPUT_PATTERN } from '../analysis/params.js';
import { normalizeSymbol } from '../analysis/engine/symbol.js';
import { ParamChecker, paramTable, type CheckedParams, type FieldNaming, type GivenParams, type RawParams } from '../platform/param-table.js';
import { UUID_RE } from '../platform/validation.js';
import { PAGINATION, type HuntMode } from './engine/pagination.js';

/** Decimal digits, at most 10 (no sign, exponent, point or spaces): how REST writes page and page_size. */
const DIGITS = '^[0-9]{1,10}$';

/** An integer parameter min..max, `fallback` when absent (its schema's default: the checked value). */
const integerParam = <const Key extends string>(key: Key, name: string, min: number, max: number, fallback: number, description: string) => ({
  key,
  name,
  description,
  schema: { type: 'integer', minimum: min, maximum: max, default: fallback, 'x-query-pattern': DIGITS } as const,
  invalid: (field: string) => `${field} must be an integer from ${min} to ${max}`,
});

const PORTFOLIO_ID = {
  key: 'portfolioId',
  name: 'portfolio_id',
  required: true,
  description: 'portfolio_id of an optimize response (yours)',
  // UUID_RE is case-insensitive (flag i); a JSON Schema pattern has no flags.
  schema: { type: 'string', pattern: UUID_RE.source.replaceAll('0-9a-f', '0-9a-fA-F') },
  invalid: (field: string) => `${field} must be the id of one of your portfolios (a UUID)`,
} as const;

const PAGE = integerParam('page', 'page', 1, PAGINATION.maxPage, PAGINATION.defaultPage, '1-based page; past the end: an empty page');
const PAGE_SIZE = integerParam('pageSize', 'page_size', 1, PAGINATION.maxPageSize, PAGINATION.defaultPageSize, `items per page, 1..${PAGINATION.maxPageSize}`);

const ticker = (field: string) => `${field} must be a ticker symbol (letters and digits, e.g. AAPL or BRK.B)`;
const TICKER_SCHEMA = { type: 'string', pattern: TICKER_INPUT_PATTERN } as const;

/** GET /api/v1/portfolios/hunt: the mode follows the symbol parameter given (none: general). */
export const HUNT_PARAMS = paramTable({
  unknown: 'refused',
  params: [
    PORTFOLIO_ID,
    { key: 'symbolReplace', name: 'symbol_replace', description: 'a held ticker: replacement mode (hunt_mode replace)', schema: TICKER_SCHEMA, invalid: ticker },
    {
      key: 'symbolInterest',
      name: 'symbol_interest',
      description: 'a ticker: suitability mode (hunt_mode interest)',
      schema: TICKER_SCHEMA,
      invalid: ticker,
      exclusiveWith: { keys: ['symbolReplace'], message: (n) => `give ${n.symbolReplace} (replacement) or ${n.symbolInterest} (suitability), not both` },
    },
    PAGE,
    PAGE_SIZE,
  ],
});

/** GET /api/v1/portfolios/cash-hunt. */
export const CASH_HUNT_PARAMS = paramTable({ unknown: 'refused', params: [PORTFOLIO_ID, PAGE, PAGE_SIZE] });

/** Raw parameters by key: GraphQL arguments. */
export type HuntParams = RawParams<typeof HUNT_PARAMS>;
export type CashHuntParams = RawParams<typeof CASH_HUNT_PARAMS>;

/** The parameters of each operation as its origin gives them: the REST query or the GraphQL arguments. */
export type HuntRequest = GivenParams<typeof HUNT_PARAMS>;
export type CashHuntRequest = GivenParams<typeof CASH_HUNT_PARAMS>;

/** Checked parameters of either operation (cash hunt: mode general, no symbol). */
export interface SearchParams {
  portfolioId: string;
  mode: HuntMode;
  symbol: string | null;
  page: number;
  pageSize: number;
}

const huntChecker = new ParamChecker(HUNT_PARAMS);
const cashHuntChecker = new ParamChecker(CASH_HUNT_PARAMS);

/** How violation details name hunt's parameters (cash hunt's are a subset). */
export const HUNT_FIELD_NAMES: Readonly<Record<FieldNaming, Readonly<Record<keyof HuntParams, string>>>> = {
  rest: huntChecker.fieldNames('rest'),
  graphql: huntChecker.fieldNames('graphql'),
};

/** A ticker the schema accepted, normalised (the pattern and normalizeSymbol accept the same text). */
const symbolOf = (value: string | undefined): string | null => (value === undefined ? null : normalizeSymbol(value));

/** Hunt's parameters checked together: every violation listed (400 VALIDATION_FAILED). */
export function checkHuntParams(given: HuntRequest): SearchParams {
  const v: CheckedParams<typeof HUNT_PARAMS> = huntChecker.check(given);
  const replace = symbolOf(v.symbolReplace);
  const interest = symbolOf(v.symbolInterest);
  return { portfolioId: v.portfolioId, mode: replace ? 'replace' : interest ? 'interest' : 'general', symbol: replace ?? interest, page: v.page, pageSize: v.pageSize };
}

/** Cash hunt's parameters checked together. */
export function checkCashHuntParams(given: CashHuntRequest): SearchParams {
  const v = cashHuntChecker.check(given);
  return { portfolioId: v.portfolioId, mode: 'general', symbol: null, page: v.page, pageSize: v.pageSize };
}
