/**
 * The opportunity-search origin's REST routes (spec "Opportunity-search service"; DESIGN section 5), as
 * one Fastify plugin:
 *
 *   GET /api/v1/portfolios/hunt?portfolio_id=...[&symbol_replace=T | &symbol_interest=T][&page=1&page_size=6]
 *        -> HuntResponse: hunt_mode general (no symbol), replace or interest
 *   GET /api/v1/portfolios/cash-hunt?portfolio_id=...[&page=1&page_size=6]
 *        -> CashHuntResponse
 *
 * Both need an OIDC ID token (401 missing or invalid, 503 AUTH_NOT_CONFIGURED while no audiences are
 * configured), checked before anything else; then the caller's expensive-operation budget is spent (429
 * past it). 400 VALIDATION_FAILED lists every bad parameter: unknown or repeated ones, a missing
 * portfolio_id, both symbol parameters, page < 1, page_size outside 1..50, an unknown portfolio (or
 * another caller's), a symbol_replace not held, a symbol_interest without analysis.
 *
 * Handlers are thin: the query values go to SearchService as they came (strings, or arrays when
 * repeated); the service checks them. The query schemas document the parameters in /openapi.json.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../subgraphs/platform/auth.js';
import { CASH_HUNT_QUERY_PARAMS, HUNT_QUERY_PARAMS, type SearchService } from '../subgraphs/search/service.js';
import { PAGINATION } from '../subgraphs/search/engine/pagination.js';
import { errorResponses } from './schemas.js';

export const HUNT_PATH = '/api/v1/portfolios/hunt';
export const CASH_HUNT_PATH = '/api/v1/portfolios/cash-hunt';

export interface SearchRoutesOptions {
  search: SearchService;
  /** The origin's OIDC authenticator: 401/503 per the spec's rules (its challenge is the origin's `authChallenge`). */
  authenticate(request: FastifyRequest): Promise<Principal>;
}

type Query = Record<string, string | string[] | undefined>;

const PAGE_PARAMS = {
  page: { type: 'integer', minimum: 1, maximum: PAGINATION.maxPage, default: PAGINATION.defaultPage, description: '1-based page; past the end: an empty page' },
  page_size: { type: 'integer', minimum: 1, maximum: PAGINATION.maxPageSize, default: PAGINATION.defaultPageSize, description: `items per page, 1..${PAGINATION.maxPageSize}` },
} as const;

const PORTFOLIO_ID = { type: 'string', description: 'portfolio_id of an optimize response (yours)' } as const;

const unknownParams = (query: Query, known: readonly string[]): string[] => Object.keys(query).filter((k) => !known.includes(k)).sort();

export async function searchRoutes(app: FastifyInstance, options: SearchRoutesOptions): Promise<void> {
  const { search, authenticate } = options;
  // The token first (401/503 before anything is read), then the expensive-operation budget (429; routes
  // marked `expensive`, see rate-limit.ts).
  const guard = async (request: FastifyRequest) => {
    await authenticate(request);
  };
  // The service validates the query (one wording for REST and GraphQL); the schema documents it.
  const documentOnly = () => () => true;

  app.get<{ Querystring: Query }>(
    HUNT_PATH,
    {
      onRequest: guard,
      config: { expensive: true },
      validatorCompiler: documentOnly,
      schema: {
        summary: 'Assess a portfolio, rank replacements for a holding, or judge a ticker of interest (spec "Opportunity-search service")',
        tags: ['search'],
        security: [{ oidc: [] }],
        querystring: {
          type: 'object',
          required: ['portfolio_id'],
          properties: {
            portfolio_id: PORTFOLIO_ID,
            symbol_replace: { type: 'string', description: 'a held ticker: replacement mode (hunt_mode replace)' },
            symbol_interest: { type: 'string', description: 'a ticker: suitability mode (hunt_mode interest); not with symbol_replace' },
            ...PAGE_PARAMS,
          },
          additionalProperties: false,
        },
        response: { 200: { $ref: 'HuntResponse#' }, ...errorResponses('Error#', 400, 401, 429, 500, 503) },
      },
    },
    async (request) => {
      const q = request.query;
      return search.hunt(
        await authenticate(request),
        { portfolioId: q.portfolio_id, symbolReplace: q.symbol_replace, symbolInterest: q.symbol_interest, page: q.page, pageSize: q.page_size },
        { naming: 'rest', unknownParams: unknownParams(q, HUNT_QUERY_PARAMS) },
      );
    },
  );

  app.get<{ Querystring: Query }>(
    CASH_HUNT_PATH,
    {
      onRequest: guard,
      config: { expensive: true },
      validatorCompiler: documentOnly,
      schema: {
        summary: 'New positions for the portfolio remaining cash, within its risk settings (spec "Opportunity-search service")',
        tags: ['search'],
        security: [{ oidc: [] }],
        querystring: {
          type: 'object',
          required: ['portfolio_id'],
          properties: { portfolio_id: PORTFOLIO_ID, ...PAGE_PARAMS },
          additionalProperties: false,
        },
        response: { 200: { $ref: 'CashHuntResponse#' }, ...errorResponses('Error#', 400, 401, 429, 500, 503) },
      },
    },
    async (request) => {
      const q = request.query;
      return search.cashHunt(
        await authenticate(request),
        { portfolioId: q.portfolio_id, page: q.page, pageSize: q.page_size },
        { naming: 'rest', unknownParams: unknownParams(q, CASH_HUNT_QUERY_PARAMS) },
      );
    },
  );
}
