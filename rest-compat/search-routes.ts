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
 * past it). 400 VALIDATION_FAILED lists every bad parameter (the rules: the tables HUNT_PARAMS and
 * CASH_HUNT_PARAMS of subgraphs/search/params.ts) and the data checks that follow (an unknown portfolio
 * or another caller's, a symbol_replace not held, a symbol_interest without analysis: SearchService).
 *
 * Handlers are thin: the query goes to SearchService as the shell parsed it (REST names; strings, or
 * arrays when repeated); the service checks it against the table. The query schemas here come from the
 * same tables and only document (/openapi.json).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../subgraphs/platform/auth.js';
import type { SearchService } from '../subgraphs/search/service.js';
import { CASH_HUNT_PARAMS, HUNT_PARAMS } from '../subgraphs/search/params.js';
import { documentOnly, operationRules, querystringSchema } from '../subgraphs/platform/param-table.js';
import { errorResponses } from './schemas.js';

export const HUNT_PATH = '/api/v1/portfolios/hunt';
export const CASH_HUNT_PATH = '/api/v1/portfolios/cash-hunt';

export interface SearchRoutesOptions {
  search: SearchService;
  /** The origin's OIDC authenticator: 401/503 per the spec's rules (its challenge is the origin's `authChallenge`). */
  authenticate(request: FastifyRequest): Promise<Principal>;
}

/** Query values as the shell parses them: a string, an array when repeated. */
type Query = Record<string, string | string[] | undefined>;

export async function searchRoutes(app: FastifyInstance, options: SearchRoutesOptions): Promise<void> {
  const { search, authenticate } = options;
  // The token first (401/503 before anything is read), then the expensive-operation budget (429; routes
  // marked `expensive`, see rate-limit.ts).
  const guard = async (request: FastifyRequest) => {
    await authenticate(request);
  };
  app.get<{ Querystring: Query }>(
    HUNT_PATH,
    {
      onRequest: guard,
      config: { expensive: true },
      validatorCompiler: documentOnly,
      schema: {
        operationId: 'huntPortfolio',
        summary: 'Assess a portfolio, rank replacements for a holding, or judge a ticker of interest (spec "Opportunity-search service")',
        tags: ['search'],
        security: [{ oidc: [] }],
        querystring: querystringSchema(HUNT_PARAMS),
        ...operationRules(HUNT_PARAMS),
        response: { 200: { $ref: 'HuntResponse#', description: 'One page of the hunt in its mode (general, replace or interest)' }, ...errorResponses('Error#', 400, 401, 429, 500, 503) },
      },
    },
    async (request) => search.hunt(await authenticate(request), { naming: 'rest', query: request.query }),
  );

  app.get<{ Querystring: Query }>(
    CASH_HUNT_PATH,
    {
      onRequest: guard,
      config: { expensive: true },
      validatorCompiler: documentOnly,
      schema: {
        operationId: 'cashHuntPortfolio',
        summary: 'New positions for the portfolio remaining cash, within its risk settings (spec "Opportunity-search service")',
        tags: ['search'],
        security: [{ oidc: [] }],
        querystring: querystringSchema(CASH_HUNT_PARAMS),
        ...operationRules(CASH_HUNT_PARAMS),
        response: { 200: { $ref: 'CashHuntResponse#', description: 'One page of new positions for the remaining cash' }, ...errorResponses('Error#', 400, 401, 429, 500, 503) },
      },
    },
    async (request) => search.cashHunt(await authenticate(request), { naming: 'rest', query: request.query }),
  );
}
