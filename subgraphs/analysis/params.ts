/**
 * The parameters of the analysis reads, declared once (spec "Analysis service"; DESIGN section 5):
 *   GET /api/v1/results/analysis/{symbol}[?date=]   and GraphQL Query.analysis(symbol, date),
 *                                                   Security.analysis(date)
 *   GET /api/v1/analysis/evidence[?date=]           and GraphQL Query.evidenceTable(date)
 *   GET /api/v1/demo/results/analysis/{symbol}      (its query string, `date` included, is ignored)
 * The route schemas (what /openapi.json publishes), AnalysisService's checks of `date` (REST and
 * GraphQL, one wording) and the types come from these tables (machinery: platform/param-table.ts).
 *
 * Rules: `date` a real calendar date YYYY-MM-DD (x-calendar-date: 2026-02-30 is refused), given at
 * most once; other query parameters are ignored. The path symbol is a ticker: any case, surrounding
 * spaces ignored (TICKER_INPUT_PATTERN, the text normalizeSymbol accepts).
 */
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { SYMBOL_PATTERN } from './engine/symbol.js';
import { ParamChecker, paramTable, querystringSchema, type JsonSchema, type RawParams } from '../platform/param-table.js';

/**
 * The raw text of a ticker as a JSON Schema pattern: SYMBOL_PATTERN in either case with surrounding
 * white space (what normalizeSymbol trims and upper-cases; its ASCII-only classes refuse the rest).
 */
export const TICKER_INPUT_PATTERN: string = SYMBOL_PATTERN.source.replaceAll('A-Z', 'A-Za-z').replace(/^\^/, '^\\s*').replace(/\$$/, '\\s*$');

/** The path parameters of the two symbol routes. */
export const SYMBOL_PATH_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['symbol'],
  properties: { symbol: { type: 'string', pattern: TICKER_INPUT_PATTERN, description: 'Ticker, any case; surrounding whitespace ignored' } },
};

const DATE_SCHEMA = { type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', 'x-calendar-date': true } as const;
const DATE_REPEATED = 'date must be given at most once, as YYYY-MM-DD';
const DATE_INVALID = 'expected a calendar date YYYY-MM-DD';

/** The wording of a bad `date` (platform parseIsoDate's, and the query string's for a repeat). */
const dateSummary = (details: readonly ErrorDetail[]): string =>
  details.some((d) => d.message === DATE_REPEATED) ? 'The query string is invalid' : 'date must be a date YYYY-MM-DD';

const dateTable = (description: string) =>
  paramTable({
    unknown: 'ignored',
    summary: dateSummary,
    params: [{ key: 'date', name: 'date', description, schema: DATE_SCHEMA, invalid: () => DATE_INVALID, repeated: () => DATE_REPEATED }],
  });

/** GET /api/v1/results/analysis/{symbol}: query. */
export const ANALYSIS_READ_PARAMS = dateTable('Calendar date YYYY-MM-DD of a historical slice; omitted: the latest');
/** GET /api/v1/analysis/evidence: query. */
export const EVIDENCE_PARAMS = dateTable('Calendar date YYYY-MM-DD; omitted: the latest table');
/** GET /api/v1/demo/results/analysis/{symbol}: query (accepted and ignored). */
export const DEMO_PARAMS = paramTable({
  unknown: 'ignored',
  repeated: 'ignored',
  params: [{ key: 'date', name: 'date', description: 'Ignored: the demo route always serves the latest snapshot', schema: { 'x-ignored': true } }],
});

export type DateParams = RawParams<typeof ANALYSIS_READ_PARAMS>;

const readChecker = new ParamChecker(ANALYSIS_READ_PARAMS);
const evidenceChecker = new ParamChecker(EVIDENCE_PARAMS);

/** Which read's `date` is checked (the rule is the same; the published descriptions differ). */
export type DateRead = 'analysis' | 'evidence';

/**
 * `date` as given (REST: a string, an array when repeated; GraphQL: a string or null), checked:
 * undefined when absent, else the calendar date; 400 VALIDATION_FAILED naming `date` otherwise.
 */
export function checkDateParam(value: unknown, read: DateRead = 'analysis'): string | undefined {
  return (read === 'analysis' ? readChecker : evidenceChecker).checkQuery({ date: value }).date;
}

/** The query-string schemas of the three routes (Fastify; published as their parameters). */
export const ROUTE_QUERY_SCHEMAS = {
  analysis: querystringSchema(ANALYSIS_READ_PARAMS),
  evidence: querystringSchema(EVIDENCE_PARAMS),
  demo: querystringSchema(DEMO_PARAMS),
} as const;

/** A malformed symbol: the same 400 wherever a symbol is read. */
export function invalidSymbol(): AppError {
  return new AppError('VALIDATION_FAILED', 'symbol is not a valid ticker', [{ field: 'symbol', message: 'expected a ticker such as AAPL or BRK.B' }]);
}
