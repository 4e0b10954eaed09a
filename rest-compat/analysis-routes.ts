/**
 * The analysis origin's REST reads (spec "Analysis service", DESIGN section 5), as one Fastify plugin:
 *
 *   GET /api/v1/results/analysis/{symbol}[?date=YYYY-MM-DD]   partners (Bearer token); latest or that date
 *   GET /api/v1/demo/results/analysis/{symbol}                no token; the demo symbol only, latest, public subset
 *   GET /api/v1/analysis/evidence[?date=YYYY-MM-DD]           partners; the whole as-of evidence table a snapshot
 *                                                             dated `date` uses (the latest table without a date)
 *
 * All answer the spec's AnalysisResultResponse envelope (the evidence route with a table as `result`):
 *   200  {"success": true, "result": {...}, "error": null, "timestamp": "<server time, ISO 8601>"}
 *        (the timestamp last: everything before it is the same on every read of a result, so it is
 *        encoded and compressed once per result, cors.ts SplicedBody, and only the timestamp is
 *        written per response, on the fast lane and the Fastify route alike)
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
 *
 * Caching. Every 200 carries an `ETag` (weak: a hash of the result text, made once per cached latest
 * text by AnalysisService; the envelope's timestamp is the only other difference) and a `Cache-Control`:
 *   partner read, latest or dated, and evidence   private, no-cache   (the answer depends on the token;
 *       a new analysis day changes the latest read, and a dated read or table changes when the pipeline
 *       stores that date again or a later-measured evidence table applies to it: service.ts), so clients
 *       keep it and revalidate every time
 *   demo read                                     public, max-age=60  (the same for every caller; it
 *       changes once an analysis day lands, so a minute of reuse by browsers and shared caches is fine)
 * A request whose If-None-Match matches the tag (weak comparison, lists, `*`) gets 304 with no body and
 * the same ETag and Cache-Control. Errors carry neither (they never reach the tag).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../subgraphs/platform/auth.js';
import { AppError, errorBody } from '../subgraphs/platform/errors.js';
import type { IncomingMessage } from 'node:http';
import { JSON_TYPE, toHttpError, type FastLaneAnswer } from '../subgraphs/platform/http.js';
import { markEncoded, responseCoding, SplicedBody } from '../subgraphs/platform/compression.js';
import type { PartnerAuthenticate } from '../subgraphs/platform/authenticators.js';
import { callerKeyOf } from '../subgraphs/platform/rate-limit.js';
import { errorResponses } from './schemas.js';
import type { AnalysisService, TaggedText } from '../subgraphs/analysis/service.js';
import { ANALYSIS_READ_PARAMS, DEMO_PARAMS, EVIDENCE_PARAMS, ROUTE_QUERY_SCHEMAS, SYMBOL_PATH_SCHEMA } from '../subgraphs/analysis/params.js';
import { documentOnly, operationRules } from '../subgraphs/platform/param-table.js';

const ANALYSIS_RESULT_PATH = '/api/v1/results/analysis/:symbol';
const ANALYSIS_DEMO_PATH = '/api/v1/demo/results/analysis/:symbol';
const EVIDENCE_PATH = '/api/v1/analysis/evidence';

export interface AnalysisRoutesOptions {
  analysis: AnalysisService;
  /**
   * The origin's partner-token authenticator: anonymous without a header, 401 for a bad token; with
   * `known`, the fast lane takes a token it already trusts without waiting for a promise.
   */
  authenticate: ((request: FastifyRequest) => Promise<Principal>) & Partial<Pick<PartnerAuthenticate, 'known'>>;
  /** `realm` of the WWW-Authenticate challenge sent with 401s. */
  realm: string;
}

/** Query values as the shell parses them: a string, an array when repeated. */
type Query = Record<string, string | string[] | undefined>;

/** Per result: the 200 envelope up to its timestamp, encoded (and compressed) once (a cached result is the same object on every read). */
const envelopes = new WeakMap<TaggedText, SplicedBody>();

/** The envelope's bytes before its timestamp, for `result`. */
function envelopeOf(result: TaggedText): SplicedBody {
  let body = envelopes.get(result);
  if (body === undefined) {
    body = new SplicedBody(Buffer.from(`{"success":true,"result":${result.text},"error":null,"timestamp":"`, 'utf8'));
    envelopes.set(result, body);
  }
  return body;
}

/** The envelope's bytes after the prefix: the timestamp and the closing. */
const envelopeSuffix = (timestamp: string): Buffer => Buffer.from(`${timestamp}"}`, 'latin1');

/**
 * The 200 envelope around a result that is already JSON text, as bytes:
 * `{"success":true,"result":<text>,"error":null,"timestamp":"<timestamp>"}`. Only the timestamp is
 * written per response.
 */
export function successEnvelope(result: TaggedText, timestamp: string = new Date().toISOString()): Buffer {
  return envelopeOf(result).encode('identity', envelopeSuffix(timestamp));
}

/**
 * The 200 envelope as a request with these headers gets it: its coding (cors.ts responseCoding; undefined:
 * the compression plugin decides, on the identity bytes) and its bytes in that coding. The fast lane
 * and the Fastify route send these same bytes.
 */
function encodedEnvelope(headers: IncomingMessage['headers'], result: TaggedText): { coding: ReturnType<typeof responseCoding>; body: Buffer } {
  const prefix = envelopeOf(result);
  const suffix = envelopeSuffix(new Date().toISOString());
  const coding = responseCoding(headers, prefix.identityLength(suffix.length));
  return { coding, body: prefix.encode(coding ?? 'identity', suffix) };
}

/** Cache-Control of the partner reads (latest, dated, evidence) and of the demo read; see the file comment. */
export const PARTNER_CACHE_CONTROL = 'private, no-cache';
export const DEMO_CACHE_CONTROL = 'public, max-age=60';

/**
 * Whether an If-None-Match header matches `etag` (RFC 9110 13.1.2: `*`, or a comma-separated list of
 * entity tags compared weakly, i.e. with any `W/` prefix ignored).
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const raw of header.split(',')) {
    const tag = raw.trim();
    if (tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === opaque) return true;
  }
  return false;
}

/** Response headers of the 200s and 304s, for the OpenAPI document (always sent: `required`, platform/openapi.ts). */
const CACHE_HEADERS = (cacheControl: string) => ({
  etag: { type: 'string', required: true, description: 'Weak entity tag of the result; send it back in If-None-Match to revalidate' },
  'cache-control': { type: 'string', enum: [cacheControl], required: true, description: `Always \`${cacheControl}\` on this route` },
});

/** A 200 schema (the envelope) and the 304 answered to a matching If-None-Match, both with their cache headers. */
function cachedResponses(ref: string, description: string, cacheControl: string): Record<number, unknown> {
  const headers = CACHE_HEADERS(cacheControl);
  return {
    200: { $ref: ref, description, headers },
    304: { type: 'null', description: 'Not Modified: If-None-Match matched the current ETag; no body', headers },
  };
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

  /** The 200 envelope, or 304 when the caller already holds this result (If-None-Match). */
  const send = (request: FastifyRequest, reply: FastifyReply, result: TaggedText, cacheControl: string) => {
    void reply.header('etag', result.etag).header('cache-control', cacheControl);
    const condition = request.headers['if-none-match'];
    if (ifNoneMatchMatches(condition, result.etag)) return reply.code(304).send();
    const { coding, body } = encodedEnvelope(request.headers, result);
    return markEncoded(reply, coding ?? 'identity').type(JSON_TYPE).send(body);
  };

  /** The fast lane's answer for a result held in memory: the same headers and bytes as send(). */
  const laneAnswer = (raw: IncomingMessage, result: TaggedText, cacheControl: string, caller: string): FastLaneAnswer => {
    const headers: FastLaneAnswer['headers'] = [
      ['etag', result.etag],
      ['cache-control', cacheControl],
    ];
    if (ifNoneMatchMatches(raw.headers['if-none-match'], result.etag)) return { status: 304, caller, expensive: false, headers, body: null };
    const { coding, body } = encodedEnvelope(raw.headers, result);
    return { status: 200, caller, expensive: false, headers, body, coding };
  };

  app.get<{ Params: { symbol: string }; Querystring: Query }>(
    ANALYSIS_RESULT_PATH,
    {
      validatorCompiler: documentOnly,
      schema: {
        operationId: 'getLatestAnalysis',
        summary: 'Latest (or dated) analysis snapshot of a symbol (spec "Analysis service")',
        tags: ['analysis'],
        security: [{ bearer: [] }],
        params: SYMBOL_PATH_SCHEMA,
        querystring: ROUTE_QUERY_SCHEMAS.analysis,
        ...operationRules(ANALYSIS_READ_PARAMS),
        response: { ...cachedResponses('AnalysisPartnerResultResponse#', 'The whole presented snapshot: the spec\'s fields, the auth-only ones, the stored extra keys, evidence and calibration', PARTNER_CACHE_CONTROL), ...errorResponses('AnalysisError#', 400, 401, 404, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(request);
      return send(request, reply, await analysis.partnerResult(principal, request.params.symbol, request.query.date), PARTNER_CACHE_CONTROL);
    },
  );

  app.get<{ Querystring: Query }>(
    EVIDENCE_PATH,
    {
      validatorCompiler: documentOnly,
      schema: {
        operationId: 'getEvidenceTable',
        summary: 'The as-of evidence table a snapshot dated `date` uses: per-state records and probability calibrations with out-of-sample metrics (DESIGN section 8)',
        description:
          "The table measured with outcomes known by its as_of date, a month's last trading day: the greatest as_of <= `date` (the table a snapshot of that date is presented with), or the latest table without `date`. 404 NOT_FOUND when no table is measured on or before the date.",
        tags: ['analysis'],
        security: [{ bearer: [] }],
        querystring: ROUTE_QUERY_SCHEMAS.evidence,
        ...operationRules(EVIDENCE_PARAMS),
        response: { ...cachedResponses('EvidenceTableResponse#', 'The evidence table in the analysis envelope', PARTNER_CACHE_CONTROL), ...errorResponses('AnalysisError#', 400, 401, 404, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(request);
      return send(request, reply, await analysis.evidenceTableResult(principal, request.query.date), PARTNER_CACHE_CONTROL);
    },
  );

  app.get<{ Params: { symbol: string } }>(
    ANALYSIS_DEMO_PATH,
    {
      validatorCompiler: documentOnly,
      schema: {
        operationId: 'getDemoAnalysis',
        summary: 'Public subset of the demo symbol\'s latest snapshot (spec "Analysis service" > Demo mode; DESIGN section 5)',
        tags: ['analysis'],
        params: SYMBOL_PATH_SCHEMA,
        querystring: ROUTE_QUERY_SCHEMAS.demo,
        ...operationRules(DEMO_PARAMS),
        response: { ...cachedResponses('AnalysisResultResponse#', 'The public subset of the demo symbol\'s latest presented snapshot', DEMO_CACHE_CONTROL), ...errorResponses('AnalysisError#', 400, 403, 404, 429, 500, 503) },
      },
    },
    async (request, reply) => send(request, reply, await analysis.demoResult(request.params.symbol), DEMO_CACHE_CONTROL),
  );

  // The fast lane (platform/http.ts FastLane): a latest read whose result the service holds in memory,
  // asked for by its symbol's normal form with no query (a partner) or any query (the demo route ignores
  // it), is answered before Fastify; anything else takes the routes above. A token the authenticator
  // already trusts is taken at once (`known`); otherwise the authenticator, which reads only the
  // request's headers (and remembers verified tokens), is handed Node's request.
  const headersOf = (raw: IncomingMessage) => raw as unknown as FastifyRequest;
  const partnerAnswer = (raw: IncomingMessage, principal: Principal, rest: string, ip: string): FastLaneAnswer | null => {
    const result = analysis.cachedPartnerResult(principal, rest);
    return result === undefined ? null : laneAnswer(raw, result, PARTNER_CACHE_CONTROL, callerKeyOf(principal, ip));
  };
  app.fastLane.add('GET', routePrefix(ANALYSIS_RESULT_PATH), ({ raw, rest, query, ip }) => {
    if (query !== '' || raw.headers.authorization === undefined || ip === '') return null;
    const known = authenticate.known?.(raw.headers.authorization);
    if (known !== undefined) return partnerAnswer(raw, known, rest, ip);
    return authenticate(headersOf(raw)).then((principal) => partnerAnswer(raw, principal, rest, ip));
  });
  app.fastLane.add('GET', routePrefix(ANALYSIS_DEMO_PATH), ({ raw, rest, ip }) => {
    if (raw.headers.authorization !== undefined || ip === '') return null;
    const result = analysis.cachedDemoResult(rest);
    return result === undefined ? null : laneAnswer(raw, result, DEMO_CACHE_CONTROL, callerKeyOf(null, ip));
  });
}

/** `/a/b/:symbol` -> `/a/b/`: the fast lane's prefix of a route with one trailing parameter. */
function routePrefix(path: string): string {
  return path.slice(0, path.lastIndexOf('/') + 1);
}
