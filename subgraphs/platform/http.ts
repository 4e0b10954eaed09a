/**
 * The HTTP shell every origin shares: Fastify with trace ids, the error shape of DESIGN section 5,
 * `GET /` and `GET /health`, a 404 for unknown routes, body limits, and the origin's GraphQL endpoint.
 * Domain routes plug in as Fastify plugins (rest-compat/); nothing here knows a domain rule.
 *
 * Hostile input stops here, before anything walks it: a request document (JSON body, GraphQL GET
 * `variables`/`extensions`, the GraphQL operation's own brackets) nested deeper than MAX_JSON_DEPTH is
 * refused from its text (json-depth.ts) before JSON.parse or graphql-js parse it; slow clients, oversized heads, bad request lines and foreign charsets are refused
 * in the error shape (http-limits.ts). On /graphql, errors reading the request document answer the
 * GraphQL-over-HTTP way, `{"errors": [...]}`. Every 503 carries Retry-After. CORS and response
 * compression are registered before any route (platform/cors.ts).
 *
 * For people: `/docs` renders the origin's OpenAPI document (platform/reference-page.ts), and a browser
 * opening /graphql gets the GraphQL IDE (platform/ide.ts) when GRAPHQL_IDE is on; Apollo Server's own
 * landing page (which loads Apollo Sandbox from a CDN) is off.
 */
import { ApolloServer, HeaderMap, type ApolloServerOptionsWithGateway, type ApolloServerPlugin, type BaseContext } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import Fastify, { LogController, type ConnectionError, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import type { FastifyBaseLogger } from 'fastify';
import type { AppEnv, CorsOrigins } from './config.js';
import { registerCompression, responseCoding, varyWithAcceptEncoding, type ContentCoding } from './compression.js';
import { corsHeadersFor, registerCors } from './cors.js';
import type { Db } from './db.js';
import { checkOperationCost, DEFAULT_GRAPHQL_LIMITS, limitRules, serviceSdlRule, type GraphqlLimits } from './graphql-limits.js';
import { AppError, errorBody, toAppError, type ErrorCode } from './errors.js';
import { formatGraphqlError, knownError } from './graphql-errors.js';
import { registerIde, wantsIde, type GraphqlIdeOptions } from './ide.js';
import { registerOpenApi } from './openapi.js';
import { registerReferencePage } from './reference-page.js';
import {
  answerOnSocket,
  charsetRefusal,
  clientErrorRefusal,
  requestLineRefusal,
  retryAfterSeconds,
  serverTimeouts,
  DEFAULT_RETRY_AFTER_SECONDS,
  type ServerTimeouts,
} from './http-limits.js';
import { DEFAULT_MAX_JSON_DEPTH, graphqlDepth, isTooDeep, tooDeep } from './json-depth.js';
import { registerRateLimit, type OriginRateLimit } from './rate-limit.js';
import { traceIdFrom, traceIdFromRawHead } from './trace.js';

type GatewayInterface = ApolloServerOptionsWithGateway<BaseContext>['gateway'];

declare module 'fastify' {
  interface FastifyRequest {
    traceId: string;
  }
  interface FastifyInstance {
    /** The origin's fast lane: answers a route's cached hits before Fastify (see FastLane). */
    fastLane: FastLane;
  }
}

export interface HealthPolicy {
  /** Fields of a healthy 200 body (besides `status`). */
  body(): Record<string, unknown>;
  /** true: 503 when the database does not answer (readiness). false: always 200 (liveness). */
  failWhenDbDown: boolean;
}

export interface GraphqlMount<Ctx extends BaseContext> {
  /** A subgraph schema, or (gateway origin) the federated gateway. */
  schema?: GraphQLSchema;
  gateway?: GatewayInterface;
  /** Builds the per-request context (callers are identified lazily, when a field needs them). */
  context(request: FastifyRequest): Promise<Ctx>;
  /** Depth, alias, directive, token and cost limits (DEFAULT_GRAPHQL_LIMITS when omitted). */
  limits?: GraphqlLimits;
  /** Apollo Server plugins of this endpoint only (the gateway's trusted documents, say). */
  plugins?: readonly ApolloServerPlugin<BaseContext>[];
  /** Apollo Server's persisted-query (APQ) settings; its default in-memory cache when omitted. */
  persistedQueries?: ApolloServerOptionsWithGateway<BaseContext>['persistedQueries'];
}

export interface OriginOptions<Ctx extends BaseContext> {
  /** Product name of the origin, reported by `GET /`. */
  name: string;
  version: string;
  env: AppEnv;
  logLevel: string;
  bodyLimitBytes: number;
  db?: Db;
  dbHealthTimeoutMs: number;
  /** Extra fields of `GET /`. */
  root?: () => Record<string, unknown>;
  health: HealthPolicy;
  graphql?: GraphqlMount<Ctx>;
  /** Per-caller request budgets; none when omitted. */
  rateLimit?: OriginRateLimit;
  /** Fastify trustProxy (whose X-Forwarded-For names the client); default false. */
  trustProxy?: boolean | string;
  /** JSON Schemas with an `$id` that this origin's routes reference (also components of /openapi.json). */
  schemas?: readonly object[];
  /** `WWW-Authenticate` challenge sent with every 401 of its REST routes (e.g. `Bearer realm="..."`). */
  authChallenge?: string;
  /** Deepest nesting of a request document (MAX_JSON_DEPTH); DEFAULT_MAX_JSON_DEPTH when omitted. */
  maxJsonDepth?: number;
  /** Client deadlines; DEFAULT_SERVER_TIMEOUTS for whatever is omitted (tests shorten them). */
  timeouts?: Partial<ServerTimeouts>;
  /** Browser origins that may read responses (CORS_ORIGINS); none when omitted. */
  corsOrigins?: CorsOrigins;
  /** The GraphQL IDE at GET /graphql (config GRAPHQL_IDE); off when omitted. */
  graphqlIde?: GraphqlIdeOptions;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Status and body of a non-2xx response, from whatever was thrown. */
export function toHttpError(err: unknown): AppError {
  const known = knownError(err);
  if (known) return known;
  const fe = err as Partial<FastifyError> & { statusCode?: number };
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('MALFORMED_JSON', 'The request body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than this server accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type; send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('BAD_REQUEST', 'Content-Length does not match the body');
    default:
      break;
  }
  if (fe.validation) {
    return new AppError(
      'VALIDATION_FAILED',
      'The request is invalid',
      fe.validation.map((v) => ({ field: v.instancePath || (v.params as { missingProperty?: string })?.missingProperty, message: v.message ?? 'invalid' })),
    );
  }
  // JSON syntax errors from the body parser (and prototype-poisoning refusals) arrive as 400s.
  if (fe.statusCode === 400 && (err instanceof SyntaxError || /JSON|prototype/i.test(fe.message ?? ''))) {
    return new AppError('MALFORMED_JSON', 'The request body is not valid JSON');
  }
  if (fe.statusCode === 400) return new AppError('BAD_REQUEST', 'Bad request');
  return toAppError(err);
}

export const GRAPHQL_PATH = '/graphql';

/**
 * Refusals of the request document itself (its JSON, size, media type, charset, depth). On /graphql
 * they answer the GraphQL-over-HTTP way; every other refusal there (rate limit, shutdown, the HTTP-level
 * ones such as 414) keeps the error shape, as on every other path.
 */
const DOCUMENT_ERRORS: ReadonlySet<ErrorCode> = new Set(['MALFORMED_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'REQUEST_TOO_DEEP', 'BAD_REQUEST']);

/** `{"errors": [...]}` with the registry code: a GraphQL client reads it like any request error. */
export function graphqlErrorBody(err: AppError): { errors: GraphQLFormattedError[] } {
  return { errors: [{ message: err.message, extensions: { code: err.code, details: err.details } }] };
}

export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  if (err.status === 503) void reply.header('retry-after', String(retryAfterSeconds(err.code)));
  const graphqlDocument = reply.request.routeOptions.url === GRAPHQL_PATH && DOCUMENT_ERRORS.has(err.code);
  return reply.code(err.status).type(JSON_TYPE).send(graphqlDocument ? graphqlErrorBody(err) : errorBody(err, reply.request.traceId));
}

/** Refusals of hostile input made before any route ran: one info line each (no stack, no body). */
const LOGGED_REFUSALS: ReadonlySet<ErrorCode> = new Set(['REQUEST_TOO_DEEP', 'URI_TOO_LONG', 'HTTP_VERSION_NOT_SUPPORTED']);

function logRefusal(log: FastifyBaseLogger, err: AppError): void {
  log.info({ code: err.code, status: err.status }, `request refused: ${err.message}`);
}

/**
 * Operations a graph cannot run are the client's error: a root type the schema lacks (a mutation or
 * subscription here), or an operation the gateway cannot pick (several without operationName, an
 * unknown operationName). Errors that are masked as INTERNAL_ERROR are logged with their cause.
 */
function requestErrorsPlugin(log: FastifyBaseLogger): ApolloServerPlugin<BaseContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, schema }) {
          if (operation && !schema.getRootType(operation.operation)) {
            throw new GraphQLError(`This graph has no ${operation.operation} operations`, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
          }
        },
        async didEncounterErrors({ errors, response }) {
          for (const error of errors) {
            if (error.extensions?.code === 'INVALID_GRAPHQL' && response.http) response.http.status = 400;
            else if (formatGraphqlError(error.toJSON(), error).extensions?.code === 'INTERNAL_ERROR') {
              log.error({ err: unwrapResolverError(error) }, 'GraphQL error masked as INTERNAL_ERROR');
            }
          }
        },
      };
    },
  };
}

/** Variable sets remembered per document by the cost check (the most recent ones). */
const COST_MEMO_PER_DOCUMENT = 32;

/**
 * Refuses an operation whose estimated cost (with its variables) is above the maximum. An accepted
 * (document, operation, variables) is remembered: Apollo Server hands the same parsed document to
 * every request with the same query text, so a repeated operation skips the estimate (a refusal is
 * always computed again).
 */
function costLimitPlugin(maxCost: number): ApolloServerPlugin<BaseContext> {
  const accepted = new WeakMap<object, Set<string>>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, request }) {
          const key = `${request.operationName ?? ''}|${JSON.stringify(request.variables ?? {})}`;
          const seen = accepted.get(document);
          if (seen?.has(key)) return;
          checkOperationCost(schema, document, request.operationName ?? undefined, request.variables, maxCost);
          const set = seen ?? new Set<string>();
          if (!seen) accepted.set(document, set);
          if (set.size >= COST_MEMO_PER_DOCUMENT) set.delete(set.values().next().value as string);
          set.add(key);
        },
      };
    },
  };
}

export { REQUEST_TIMEOUT_MS } from './http-limits.js';
/** Longest time a close waits for in-flight responses before Node drops what is left. */
export const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Graceful close. Node's server.close() destroys every connection whose response has *ended*, even
 * when the response is still being written (a large body to a slow reader), so the drain happens
 * before it: once closing, new requests on open keep-alive connections get 503 in the error shape,
 * responses carry `connection: close`, and preClose waits until every in-flight response has been
 * handed to the operating system ('finish'), at most DRAIN_TIMEOUT_MS.
 */
function drainOnClose(app: FastifyInstance): Drain {
  let closing = false;
  /** Responses not yet handed to the operating system (nor closed). */
  const inFlight = new Set<ServerResponse>();
  /** Once closing: those the close waits for (the ones in flight when it began), and how it learns they are done. */
  let awaited: { responses: Set<ServerResponse>; done: () => void } | null = null;
  // One listener for every response (no closure or promise per request); 'close' may follow 'finish'.
  function settled(this: ServerResponse): void {
    inFlight.delete(this);
    if (awaited?.responses.delete(this) && awaited.responses.size === 0) awaited.done();
  }
  const track = (res: ServerResponse): void => {
    res.on('finish', settled);
    res.on('close', settled);
    inFlight.add(res);
  };
  app.addHook('onRequest', (_request, reply, done) => {
    track(reply.raw);
    if (!closing) return done();
    sendError(reply, new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry on another instance'));
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    // Any 503 a route sent in its own shape (the analysis envelope) still says when to retry.
    if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) void reply.header('retry-after', String(DEFAULT_RETRY_AFTER_SECONDS));
    done(null, payload);
  });
  app.addHook('preClose', async () => {
    closing = true;
    if (inFlight.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      awaited = { responses: new Set(inFlight), done: resolve };
      timer = setTimeout(resolve, DRAIN_TIMEOUT_MS);
    });
    clearTimeout(timer);
    awaited = null;
  });
  return { track, closing: () => closing };
}

/** Vary of a compressed fast-lane answer: CORS's Origin, then the compression plugin's accept-encoding. */
const VARY_ENCODED = varyWithAcceptEncoding('Origin');

/** What the fast lane needs of the drain: to count its responses as in flight, and to know when closing began. */
interface Drain {
  track(res: ServerResponse): void;
  closing(): boolean;
}

// ---------------------------------------------------------------------------------------------------------
// The fast lane: cached answers before Fastify
// ---------------------------------------------------------------------------------------------------------

/** A request as a fast-lane route sees it. */
export interface FastLaneRequest {
  raw: IncomingMessage;
  /** The path after the route's prefix (undecoded; the route checks its form). */
  rest: string;
  /** The query string without its `?` ('' when none). */
  query: string;
  /** The trace id the response carries (x-trace-id), as the shell would give it. */
  traceId: string;
  /** The caller's address as the rate limiter keys anonymous callers (the socket's: no forwarding header was sent). */
  ip: string;
}

/** A fast-lane route's answer; the shell adds x-trace-id, the budget's RateLimit-* headers, Vary and the body's type and length. */
export interface FastLaneAnswer {
  status: 200 | 304;
  /** The rate-limit caller (`partner:<sub>`, `ip:<address>`: rate-limit.ts callerKeyOf). */
  caller: string;
  /** The route is an expensive operation: it spends the expensive budget too. */
  expensive: boolean;
  /** The route's own headers, lower-case names. */
  headers: ReadonlyArray<readonly [string, string]>;
  /** JSON bytes (sent with JSON_TYPE), or null (a 304). */
  body: Buffer | null;
  /**
   * The body's coding, chosen by cors.ts responseCoding() for this request (the shell adds
   * Content-Encoding and Vary as the compression plugin would). Without it, a request with
   * Accept-Encoding whose body the plugin could compress goes to Fastify.
   */
  coding?: ContentCoding;
  /** Called when the shell hands the request to Fastify after all (a budget it cannot settle at once): undo what the route consumed. */
  restore?: () => void;
}

/**
 * A fast-lane route: the answer for a request it can serve from memory exactly as its Fastify route
 * would, or null (the request then goes to Fastify, untouched: a route that read the body puts it back).
 * It must not change anything before it answers: the shell may still hand the request to Fastify.
 */
export type FastLaneRoute = (request: FastLaneRequest) => FastLaneAnswer | null | Promise<FastLaneAnswer | null>;

/** Counts one request against the caller's budgets at once, or says the full path must (see rate-limit.ts countAtOnce). */
export type CountAtOnce = (caller: string, expensive: boolean) => ReadonlyArray<readonly [string, string]> | null;

/**
 * The fast lane answers the hot, cacheable hits of a few routes (a partner's latest analysis read, the
 * demo read, the demo optimize) straight on Node's request, before Fastify routes it: no hook chain,
 * no reply object, no per-request serialisation, the bytes prepared once per cached document. Every
 * other request, and every request the lane is not sure about, goes to Fastify as before, so the
 * answers are the same as the full path's, header for header (test/http/fast-lane.test.ts compares
 * them). The shell's own rules are checked here first, and a request any of them would act on is left
 * to Fastify:
 *   - only GET and POST to a registered prefix; HEAD and anything else go to Fastify;
 *   - a server that is closing (the drain answers 503), debug logging (request lines are logged);
 *   - an X-Forwarded-For header (with a trusted proxy it names the caller the budget counts);
 *   - an Origin header the CORS rule refuses (corsHeadersFor), a request line or Host the shell refuses
 *     (requestLineRefusal);
 *   - an Accept-Encoding the route did not settle (FastLaneAnswer.coding) for a body the compression
 *     plugin could compress;
 *   - a budget that Redis counts, or that this request would exceed (the limiter answers 429).
 * What the lane does send: the route's headers, x-trace-id (traceIdFrom, as genReqId), the budget's
 * RateLimit-* headers (the expensive budget's on an expensive route, as its preParsing hook leaves them),
 * the CORS headers of an allowed Origin, `Vary: Origin` (CORS sends it whatever the Origin) with
 * accept-encoding added to a compressed body's, Content-Encoding, the JSON type and the length. Its
 * responses are in flight for the drain like any other.
 */
export class FastLane {
  private readonly routes: Array<{ method: 'GET' | 'POST'; prefix: string; exact: boolean; route: FastLaneRoute }> = [];
  private countAtOnce: CountAtOnce = () => [];
  /** Responses the lane has sent (the rest went to Fastify). */
  served = 0;

  constructor(
    private readonly enabled: boolean,
    private readonly drain: () => Drain | undefined,
    private readonly corsOrigins: CorsOrigins = { kind: 'exact', origins: [] },
  ) {}

  /** `path` ending in `/` is a prefix (the rest of the path is the route's parameter); otherwise the exact path. */
  add(method: 'GET' | 'POST', path: string, route: FastLaneRoute): void {
    this.routes.push({ method, prefix: path, exact: !path.endsWith('/'), route });
  }

  /** The rate limiter's at-once count (rate-limit.ts); without a limiter nothing is counted. */
  setCounter(count: CountAtOnce): void {
    this.countAtOnce = count;
  }

  /**
   * Serves `req` when a lane route can; otherwise (now or after the route looked) hands it to `fallback`
   * (Fastify's handler). Returns nothing: the request is always answered by one or the other.
   */
  handle(req: IncomingMessage, res: ServerResponse, fallback: (req: IncomingMessage, res: ServerResponse) => void): void {
    const match = this.enabled ? this.match(req) : null;
    if (!match) return fallback(req, res);
    const traceId = traceIdFrom(req.headers);
    let answer: FastLaneAnswer | null | Promise<FastLaneAnswer | null>;
    try {
      answer = match.route({ raw: req, rest: match.rest, query: match.query, traceId, ip: req.socket.remoteAddress ?? '' });
    } catch {
      return fallback(req, res);
    }
    if (answer === null) return fallback(req, res);
    if (!(answer instanceof Promise)) return this.send(answer, match.cors, traceId, req, res, fallback);
    answer.then(
      (a) => (a === null ? fallback(req, res) : this.send(a, match.cors, traceId, req, res, fallback)),
      () => fallback(req, res),
    );
  }

  private match(req: IncomingMessage): { route: FastLaneRoute; rest: string; query: string; cors: ReadonlyArray<readonly [string, string]> | null } | null {
    const method = req.method;
    if ((method !== 'GET' && method !== 'POST') || this.routes.length === 0) return null;
    const headers = req.headers;
    if (headers['x-forwarded-for'] !== undefined || requestLineRefusal(req)) return null;
    // An allowed Origin gets the CORS module's headers; a refused one is left to Fastify.
    const cors = headers.origin === undefined ? null : corsHeadersFor(this.corsOrigins, headers.origin);
    if (headers.origin !== undefined && cors === null) return null;
    if (this.drain()?.closing() !== false) return null;
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    for (const r of this.routes) {
      if (r.method !== method) continue;
      if (r.exact ? path !== r.prefix : !path.startsWith(r.prefix)) continue;
      const rest = r.exact ? '' : path.slice(r.prefix.length);
      if (!r.exact && (rest === '' || rest.includes('/'))) continue;
      return { route: r.route, rest, query: q < 0 ? '' : url.slice(q + 1), cors };
    }
    return null;
  }

  private send(
    answer: FastLaneAnswer,
    cors: ReadonlyArray<readonly [string, string]> | null,
    traceId: string,
    req: IncomingMessage,
    res: ServerResponse,
    fallback: (req: IncomingMessage, res: ServerResponse) => void,
  ): void {
    const drain = this.drain();
    // A body the route did not encode, which the compression plugin might: Fastify's path decides.
    const unsettled = answer.body !== null && answer.coding === undefined && responseCoding(req.headers, answer.body.length) !== 'identity';
    const budget = drain && !unsettled && !drain.closing() && !res.headersSent && !res.destroyed ? this.countAtOnce(answer.caller, answer.expensive) : null;
    if (!drain || budget === null) {
      answer.restore?.();
      return fallback(req, res);
    }
    drain.track(res);
    this.served++;
    const head: string[] = [];
    for (const [name, value] of answer.headers) head.push(name, value);
    for (const [name, value] of budget) head.push(name, value);
    if (cors !== null) for (const [name, value] of cors) head.push(name, value);
    const coding = answer.body === null || answer.coding === 'identity' ? undefined : answer.coding;
    head.push('vary', coding === undefined ? 'Origin' : VARY_ENCODED, 'x-trace-id', traceId);
    if (coding !== undefined) head.push('content-encoding', coding);
    if (answer.body !== null) head.push('content-type', JSON_TYPE, 'content-length', String(answer.body.length));
    res.writeHead(answer.status, head);
    res.end(answer.body ?? undefined);
    // A body the route read in full still has its end to deliver; Node reads the next request after it.
    if (!req.readableEnded) req.resume();
  }
}

/**
 * Node's refusals before Fastify has a request (clientError): the error shape with a trace id from the
 * raw head, one info line, `connection: close`.
 */
function clientErrorHandler(timeouts: ServerTimeouts) {
  return function (this: FastifyInstance, err: ConnectionError, socket: Duplex): void {
    const refusal = socket.destroyed ? null : clientErrorRefusal(err, timeouts);
    if (!refusal) {
      socket.destroy();
      return;
    }
    const traceId = traceIdFromRawHead((err as { rawPacket?: unknown }).rawPacket);
    this.log.info({ trace_id: traceId, code: refusal.code, status: refusal.status, reason: err.code }, `request refused: ${refusal.message}`);
    answerOnSocket(socket, refusal, traceId);
  };
}

/**
 * JSON bodies: UTF-8 only, depth checked on the text before JSON.parse (so nothing recursive ever
 * sees a deep document), then Fastify's own parser (prototype poisoning refused). Plain text: UTF-8 only.
 */
function bodyParsers(app: FastifyInstance, maxDepth: number): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    const refusal = charsetRefusal(request.headers['content-type']) ?? (isTooDeep(text, maxDepth) ? tooDeep(maxDepth) : null);
    if (refusal) return done(refusal, undefined);
    return parseJson(request, text, done);
  });
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (request, body, done) => {
    const refusal = charsetRefusal(request.headers['content-type']);
    return refusal ? done(refusal, undefined) : done(null, body);
  });
}

export async function createOrigin<Ctx extends BaseContext>(options: OriginOptions<Ctx>): Promise<FastifyInstance> {
  const timeouts = serverTimeouts(options.timeouts);
  const maxJsonDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  // The fast lane sits in front of Fastify's handler on the server itself (see FastLane).
  let drain: Drain | undefined;
  const corsOrigins = options.corsOrigins ?? { kind: 'exact', origins: [] };
  const lane = new FastLane(options.logLevel !== 'debug' && options.logLevel !== 'trace', () => drain, corsOrigins);
  const app = Fastify({
    serverFactory: (handler, opts) => {
      // What Fastify does for its own HTTP/1 server (lib/server.js), with the lane in front of its handler.
      const server = http.createServer(opts.http ?? {}, (req, res) => lane.handle(req, res, handler));
      server.keepAliveTimeout = timeouts.keepAliveMs;
      server.requestTimeout = timeouts.requestMs;
      server.setTimeout(Number(opts.connectionTimeout ?? 0));
      return server;
    },
    logger: { level: options.logLevel },
    logController: new LogController({
      disableRequestLogging: options.logLevel !== 'debug' && options.logLevel !== 'trace',
      requestIdLogLabel: 'trace_id',
    }),
    bodyLimit: options.bodyLimitBytes,
    trustProxy: options.trustProxy ?? false,
    genReqId: (req) => traceIdFrom(req.headers),
    // A request whose head or body never finishes (slowloris) cannot hold the server, nor its shutdown:
    // Node checks the deadlines every checkIntervalMs (its default, 30 s, let them overrun by as much).
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      requestTimeout: timeouts.requestMs,
      headersTimeout: timeouts.headersMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
      // A missing Host is refused in the error shape (requestLineRefusal), not with Node's bare 400.
      requireHostHeader: false,
    },
    clientErrorHandler: clientErrorHandler(timeouts),
    // Shutdown is graceful (see drainOnClose); idle keep-alive connections are closed by server.close().
    forceCloseConnections: false,
    return503OnClosing: false,
    // URLs Fastify cannot decode (e.g. GET /%ZZ) get the error shape and a trace id like every other 4xx.
    frameworkErrors: (_error, request, reply) => {
      const res = reply as unknown as FastifyReply;
      void res.header('x-trace-id', request.id);
      void res.code(400).type(JSON_TYPE).send(errorBody(new AppError('BAD_REQUEST', 'The request URL is malformed'), request.id));
    },
  });

  app.decorate('fastLane', lane);
  app.decorateRequest('traceId', '');
  // Hooks on every request take `done` (no promise per request); one that answers does not call it.
  app.addHook('onRequest', (request, reply, done) => {
    request.traceId = request.id;
    void reply.header('x-trace-id', request.id);
    const refusal = requestLineRefusal(request.raw);
    if (!refusal) return done();
    logRefusal(request.log, refusal);
    sendError(reply.header('connection', 'close'), refusal);
  });
  // CORS before the drain and the rate limit: a preflight is answered here (no budget, no token), and
  // every later answer, errors included, carries the CORS headers. Compression wraps every route's reply.
  await registerCors(app, corsOrigins);
  await registerCompression(app);
  drain = drainOnClose(app);

  bodyParsers(app, maxJsonDepth);

  app.setErrorHandler((err, request, reply) => {
    // The client went away before its request had arrived (a slow upload cut at its deadline, logged
    // then as a 408): nobody to answer, and no server fault to log.
    if (request.raw.readableAborted) {
      request.log.debug('request aborted before it arrived in full');
      return sendError(reply, new AppError('BAD_REQUEST', 'The request was aborted before it arrived in full'));
    }
    const appError = toHttpError(err);
    if (appError.status >= 500) request.log.error({ err }, 'request failed');
    else if (LOGGED_REFUSALS.has(appError.code)) logRefusal(request.log, appError);
    if (appError.status === 401 && options.authChallenge) void reply.header('www-authenticate', options.authChallenge);
    return sendError(reply, appError);
  });
  // Before any route: the limiter attaches itself to the routes registered after it.
  if (options.rateLimit) await registerRateLimit(app, options.rateLimit);
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );

  await registerOpenApi(app, { name: options.name, version: options.version, schemas: options.schemas ?? [] });
  registerReferencePage(app, { name: options.name });

  app.get(
    '/',
    { schema: { summary: 'Name, version and status of the service', response: { 200: { type: 'object', required: ['name', 'version', 'status'], properties: { name: { type: 'string' }, version: { type: 'string' }, status: { type: 'string' } }, additionalProperties: true } } } },
    async () => ({ name: options.name, version: options.version, status: 'ok', ...(options.root?.() ?? {}) }),
  );

  const healthSchema = {
    summary: 'Health probe',
    response: {
      200: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok', 'degraded'] } }, additionalProperties: true },
      503: { $ref: 'Error#' },
    },
  };
  app.get('/health', { schema: healthSchema }, async (request, reply) => {
    let pingError: unknown;
    if (options.db) {
      try {
        await options.db.ping(options.dbHealthTimeoutMs);
      } catch (err) {
        pingError = err ?? new Error('ping failed');
        request.log.warn({ err }, 'health: database unreachable');
      }
    }
    if (pingError === undefined) return { status: 'ok', ...options.health.body() };
    if (!options.health.failWhenDbDown) return { status: 'degraded', ...options.health.body() };
    const err =
      pingError instanceof AppError && pingError.code === 'STORAGE_FULL'
        ? new AppError('STORAGE_FULL', 'The storage is full: writes are refused until space is freed', [{ message: 'write probe failed' }])
        : new AppError('SERVICE_UNAVAILABLE', 'The database is unreachable', [{ message: 'database ping failed' }]);
    void reply.header('retry-after', String(retryAfterSeconds(err.code)));
    return reply.code(503).send({ ...errorBody(err, request.traceId), status: 'unavailable', ...options.health.body() });
  });

  if (options.graphql) await mountGraphql(app, options, options.graphql, maxJsonDepth);
  return app;
}

/** GraphQL GET parameters that carry JSON, read by Apollo Server with JSON.parse. */
const JSON_SEARCH_PARAMS = ['variables', 'extensions'] as const;

/**
 * What Apollo Server would parse, measured first: a GET's `variables`/`extensions` (JSON) and the
 * operation (`query`, GET or POST), whose brackets graphql-js walks recursively. Deeper than maxDepth:
 * 400 REQUEST_TOO_DEEP. (A POST body's own depth was checked by its parser.)
 */
function checkDocumentDepth(request: FastifyRequest, search: URLSearchParams, maxDepth: number): void {
  if (request.method === 'GET') {
    for (const name of JSON_SEARCH_PARAMS) {
      for (const value of search.getAll(name)) if (isTooDeep(value, maxDepth)) throw tooDeep(maxDepth, name);
    }
  }
  const queries = request.method === 'GET' ? search.getAll('query') : [(request.body as { query?: unknown } | null | undefined)?.query];
  for (const query of queries) {
    if (typeof query === 'string' && graphqlDepth(query, maxDepth) > maxDepth) throw tooDeep(maxDepth, 'query');
  }
}

async function mountGraphql<Ctx extends BaseContext>(app: FastifyInstance, origin: OriginOptions<Ctx>, mount: GraphqlMount<Ctx>, maxJsonDepth: number): Promise<void> {
  const env = origin.env;
  const executor = mount.gateway ? { gateway: mount.gateway } : mount.schema ? { schema: mount.schema } : null;
  if (!executor) throw new Error('A GraphQL mount needs a schema or a gateway');
  const limits = mount.limits ?? DEFAULT_GRAPHQL_LIMITS;
  const apollo = new ApolloServer<Ctx>({
    ...executor,
    // Subgraphs send no inline traces (ftv1) unless a deployment turns usage reporting on. No type or
    // field carries a cache hint, so the cache-control plugin (which wraps every resolver to compute a
    // policy that is always "no cache") is off: Cache-Control headers are the same without it.
    plugins: [
      requestErrorsPlugin(app.log),
      costLimitPlugin(limits.maxCost),
      ApolloServerPluginCacheControlDisabled(),
      // Its landing page loads Apollo Sandbox from a CDN; browsers get the origin's own IDE instead.
      ApolloServerPluginLandingPageDisabled(),
      ...(mount.schema ? [ApolloServerPluginInlineTraceDisabled()] : []),
      ...(mount.plugins ?? []),
    ],
    validationRules: [...limitRules(limits), ...(env === 'production' && mount.schema ? [serviceSdlRule] : [])],
    parseOptions: { maxTokens: limits.maxTokens },
    allowBatchedHttpRequests: false,
    ...(mount.persistedQueries !== undefined ? { persistedQueries: mount.persistedQueries } : {}),
    introspection: env !== 'production',
    // No "Did you mean ...?" field suggestions in production errors (they disclose the schema).
    hideSchemaDetailsFromClientErrors: env === 'production',
    includeStacktraceInErrorResponses: false,
    csrfPrevention: true,
    formatError: formatGraphqlError,
    // The process owns shutdown (Fastify onClose stops Apollo); Apollo's own handlers would re-raise the signal.
    stopOnTerminationSignals: false,
  });
  await apollo.start();
  app.addHook('onClose', async () => apollo.stop());
  const ide = origin.graphqlIde?.enabled
    ? registerIde(app, { title: `${origin.name} GraphQL IDE`, endpoint: GRAPHQL_PATH, defaultQuery: origin.graphqlIde.defaultQuery })
    : null;

  app.route({
    method: ['GET', 'POST'],
    url: GRAPHQL_PATH,
    schema: { hide: true },
    handler: async (request, reply) => {
      const url = new URL(request.url, 'http://localhost');
      if (ide && wantsIde(request, url.searchParams)) return ide(reply);
      const headers = new HeaderMap();
      for (const [key, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      }
      checkDocumentDepth(request, url.searchParams, maxJsonDepth);
      const response = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: request.method.toUpperCase(), headers, search: url.search, body: request.body },
        context: () => mount.context(request),
      });
      for (const [key, value] of response.headers) void reply.header(key, value);
      reply.code(response.status ?? 200);
      if (response.body.kind === 'complete') return reply.send(response.body.string);
      const chunks: string[] = [];
      for await (const chunk of response.body.asyncIterator) chunks.push(chunk);
      return reply.send(chunks.join(''));
    },
  });
}
