/**
 * The analysis origin's REST reads (spec "Analysis service", DESIGN section 5), as one Fastify plugin:
 *
 *   GET /api/v1/results/analysis/{symbol}[?date=YYYY-MM-DD]   partners (Bearer token); latest or that date
 *   GET /api/v1/demo/results/analysis/{symbol}                no token; the demo symbol only, latest, public subset
 *   GET /api/v1/analysis/evidence[?date=YYYY-MM-DD]           partners; the whole as-of evidence table a snapshot
 *                                                             dated `date` uses (the latest table without a date)
 *
 * All answer the spec's AnalysisResultResponse envelope (the evidence route with a table as `result`):
 *   200  {"success": true, "timestamp": "<server time, ISO 8601>", "result": {...}, "error": null}
 *   4xx/5xx  the platform error shape plus the envelope's fields:
 *        {"success": false, "timestamp": "...", "result": null, "error": "<message>", "code": "...",
 *         "trace_id": "...", "details": [...]}
 *
 * The routes are thin: they authenticate (partner routes only), pass the raw path and query values to
 * AnalysisService (which normalises, validates, presents and applies every access rule) and wrap its
 * answer. The presented document (the stored one with its `evidence`, `calibration` and calibrated
 * probabilities, engine/evidence/present.ts) arrives as JSON text and is spliced into the envelope
 * string as it is.
 *
 * Parameters: declared once in subgraphs/analysis/params.ts, which gives the route schemas below (they
 * only document: /openapi.json) and AnalysisService's checks. Only `date` means anything (on the partner
 * and evidence routes; a malformed or repeated one is 400 VALIDATION_FAILED, after the token); other
 * parameters are ignored. The demo route ignores its query string entirely, `date` included (spec: the
 * date parameter is ignored in demo mode).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../subgraphs/platform/auth.js';
import { AppError, errorBody } from '../subgraphs/platform/errors.js';
import { JSON_TYPE, toHttpError } from '../subgraphs/platform/http.js';
import { errorResponses } from './schemas.js';
import type { AnalysisService } from '../subgraphs/analysis/service.js';
import { ANALYSIS_READ_PARAMS, DEMO_PARAMS, EVIDENCE_PARAMS, ROUTE_QUERY_SCHEMAS, SYMBOL_PATH_SCHEMA } from '../subgraphs/analysis/params.js';
import { documentOnly, operationRules } from '../subgraphs/platform/param-table.js';

const ANALYSIS_RESULT_PATH = '/api/v1/results/analysis/:symbol';
const ANALYSIS_DEMO_PATH = '/api/v1/demo/results/analysis/:symbol';
const EVIDENCE_PATH = '/api/v1/analysis/evidence';

export interface AnalysisRoutesOptions {
  analysis: AnalysisService;
  /** The origin's partner-token authenticator: anonymous without a header, 401 for a bad token. */
  authenticate(request: FastifyRequest): Promise<Principal>;
  /** `realm` of the WWW-Authenticate challenge sent with 401s. */
  realm: string;
}

/** Query values as the shell parses them: a string, an array when repeated. */
type Query = Record<string, string | string[] | undefined>;

/** The 200 envelope around a result that is already JSON text. */
export function successEnvelope(resultJson: string, timestamp: string = new Date().toISOString()): string {
  return `{"success":true,"timestamp":"${timestamp}","result":${resultJson},"error":null}`;
}

/** The error envelope: the platform error shape (DESIGN section 5) with the spec's envelope fields. */
function errorEnvelope(err: AppError, traceId: string, timestamp: string = new Date().toISOString()) {
  const body = errorBody(err, traceId);
  return { success: false as const, timestamp, result: null, error: body.error, code: body.code, trace_id: body.trace_id, details: body.details };
}

export async function analysisRoutes(app: FastifyInstance, options: AnalysisRoutesOptions): Promise<void> {
  const { analysis, authenticate } = options;
  const challenge = `Bearer realm="${options.realm}"`;

  // Errors of these routes (only: this plugin is its own Fastify context) carry the envelope fields.
  app.setErrorHandler((err, request, reply) => {
    const appError = toHttpError(err);
    if (appError.status >= 500) request.log.error({ err }, 'request failed');
    if (appError.status === 401) void reply.header('www-authenticate', challenge);
    return reply.code(appError.status).type(JSON_TYPE).send(errorEnvelope(appError, request.traceId));
  });

  const send = (reply: FastifyReply, resultJson: string) => reply.type(JSON_TYPE).send(successEnvelope(resultJson));

  app.get<{ Params: { symbol: string }; Querystring: Query }>(
    ANALYSIS_RESULT_PATH,
    {
      validatorCompiler: documentOnly,
      schema: {
        summary: 'Latest (or dated) analysis snapshot of a symbol (spec "Analysis service")',
        tags: ['analysis'],
        security: [{ bearer: [] }],
        params: SYMBOL_PATH_SCHEMA,
        querystring: ROUTE_QUERY_SCHEMAS.analysis,
        ...operationRules(ANALYSIS_READ_PARAMS),
        response: { 200: { $ref: 'AnalysisResultResponse#' }, ...errorResponses('AnalysisError#', 400, 401, 404, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(request);
      return send(reply, await analysis.partnerResultText(principal, request.params.symbol, request.query.date));
    },
  );

  app.get<{ Querystring: Query }>(
    EVIDENCE_PATH,
    {
      validatorCompiler: documentOnly,
      schema: {
        summary: 'The as-of evidence table a snapshot dated `date` uses: per-state records and probability calibrations with out-of-sample metrics (DESIGN section 8)',
        description:
          "The table measured with outcomes known by its as_of date, a month's last trading day: the greatest as_of <= `date` (the table a snapshot of that date is presented with), or the latest table without `date`. 404 NOT_FOUND when no table is measured on or before the date.",
        tags: ['analysis'],
        security: [{ bearer: [] }],
        querystring: ROUTE_QUERY_SCHEMAS.evidence,
        ...operationRules(EVIDENCE_PARAMS),
        response: { 200: { $ref: 'EvidenceTableResponse#' }, ...errorResponses('AnalysisError#', 400, 401, 404, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(request);
      return send(reply, await analysis.evidenceTableText(principal, request.query.date));
    },
  );

  app.get<{ Params: { symbol: string } }>(
    ANALYSIS_DEMO_PATH,
    {
      validatorCompiler: documentOnly,
      schema: {
        summary: 'Public subset of the demo symbol\'s latest snapshot (spec "Analysis service" > Demo mode; DESIGN section 5)',
        tags: ['analysis'],
        params: SYMBOL_PATH_SCHEMA,
        querystring: ROUTE_QUERY_SCHEMAS.demo,
        ...operationRules(DEMO_PARAMS),
        response: { 200: { $ref: 'AnalysisResultResponse#' }, ...errorResponses('AnalysisError#', 400, 403, 404, 429, 500, 503) },
      },
    },
    async (request, reply) =>
      send(reply, await analysis.demoResultText(request.params.symbol)),
  );
}
