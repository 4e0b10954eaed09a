/**
 * The allocation origin's REST routes (spec "Allocation service"; DESIGN section 5), as one Fastify plugin:
 *
 *   POST /api/v1/portfolios/optimize     PortfolioRequest -> PortfolioResponse
 *        with a partner Bearer token: the full book, persisted; `Idempotency-Key` makes retries safe
 *        (the replay carries `Idempotent-Replayed: true`);
 *        without a token: only the demo body, at most two rows, nothing stored;
 *        400 VALIDATION_FAILED (every violation listed) / DEMO_BODY_MISMATCH / IDEMPOTENCY_KEY_REUSED,
 *        401 for a bad token, 429 past the caller's expensive-operation budget, 503 when the store is down.
 *   GET  /api/v1/demo/optimize-body      the demo body, as an anonymous caller must send it
 *   GET  /api/v1/portfolios/{id}         a partner's own stored result (404 for any other id)
 *
 * Handlers are thin: they hand the body to AllocationService. The body schema in /openapi.json is the
 * one the service's request validator is compiled from (subgraphs/allocation/request/), and GraphQL input
 * goes through the same validator, so REST and GraphQL refuse exactly the same inputs. Fastify's own
 * body validation is off here: the service reports every violation in the product's error shape.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../subgraphs/platform/auth.js';
import { JSON_TYPE } from '../subgraphs/platform/http.js';
import { documentOnly } from '../subgraphs/platform/param-table.js';
import type { AllocationService } from '../subgraphs/allocation/service.js';
import { errorResponses } from './schemas.js';

export const OPTIMIZE_PATH = '/api/v1/portfolios/optimize';
const DEMO_BODY_PATH = '/api/v1/demo/optimize-body';
const PORTFOLIO_PATH = '/api/v1/portfolios/:id';

export interface AllocationRoutesOptions {
  allocation: AllocationService;
  /** The origin's partner-token authenticator: anonymous without a header, 401 for a bad token (its challenge is the origin's `authChallenge`). */
  authenticate(request: FastifyRequest): Promise<Principal>;
}

export async function allocationRoutes(app: FastifyInstance, options: AllocationRoutesOptions): Promise<void> {
  const { allocation, authenticate } = options;

  const sendJson = (reply: FastifyReply, text: string) => reply.type(JSON_TYPE).send(text);
  // Bodies are JSON only: without Fastify's text/plain parser, other types are 415 UNSUPPORTED_MEDIA_TYPE.
  app.removeContentTypeParser('text/plain');

  app.post<{ Body: unknown; Headers: { 'idempotency-key'?: string } }>(
    OPTIMIZE_PATH,
    {
      // A bad token is 401 before the body is even parsed (the authenticator remembers the answer);
      // then the caller's expensive-operation budget is spent (429 past it; see rate-limit.ts).
      onRequest: async (request) => {
        await authenticate(request);
      },
      config: { expensive: true },
      // Documents the body; the service's compiled request validator checks it (see the header comment).
      validatorCompiler: documentOnly,
      schema: {
        operationId: 'optimizePortfolio',
        summary: 'Build a whole-share portfolio from capital and risk settings (spec "Allocation service")',
        tags: ['allocation'],
        security: [{ bearer: [] }, {}],
        headers: {
          type: 'object',
          properties: { 'idempotency-key': { type: 'string', description: 'Partners: a retried request with the same key returns the first result (1-255 visible ASCII characters)' } },
        },
        body: { $ref: 'PortfolioRequest#' },
        response: {
          200: {
            $ref: 'PortfolioResponse#',
            description: 'The optimized book (partners: persisted, readable at /api/v1/portfolios/{id}; demo: at most two rows, not stored)',
            headers: { 'idempotent-replayed': { type: 'string', enum: ['true'], description: 'Present on the replay of an earlier request with the same Idempotency-Key' } },
          },
          ...errorResponses('Error#', 400, 401, 413, 415, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(request);
      const outcome = await allocation.optimizeBody(principal, request.body, {
        traceId: request.traceId,
        idempotencyKey: request.headers['idempotency-key'],
        naming: 'rest',
      });
      if (outcome.replayed) void reply.header('idempotent-replayed', 'true');
      return sendJson(reply, outcome.responseText);
    },
  );

  app.get(
    DEMO_BODY_PATH,
    {
      schema: {
        operationId: 'getDemoOptimizeBody',
        summary: 'The one optimize body accepted without a bearer token (DESIGN section 5)',
        tags: ['allocation'],
        response: { 200: { $ref: 'PortfolioRequest#', description: 'The demo body, to send as it is' }, ...errorResponses('Error#', 429, 500) },
      },
    },
    async (_request, reply) => sendJson(reply, JSON.stringify(allocation.demoBody())),
  );

  app.get<{ Params: { id: string } }>(
    PORTFOLIO_PATH,
    {
      schema: {
        operationId: 'getPortfolio',
        summary: "A stored optimize result, the caller's own only",
        tags: ['allocation'],
        security: [{ bearer: [] }],
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', description: 'portfolio_id of an optimize response' } } },
        response: { 200: { $ref: 'PortfolioResponse#', description: 'The stored result, as the optimize answered it' }, ...errorResponses('Error#', 401, 404, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(request);
      return sendJson(reply, await allocation.portfolioText(principal, request.params.id));
    },
  );
}
