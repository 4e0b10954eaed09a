/**
 * The HTTP shell every origin shares: Fastify with trace ids, the error shape of DESIGN section 5,
 * `GET /` and `GET /health`, a 404 for unknown routes, body limits, and the origin's GraphQL endpoint.
 * Domain routes plug in as Fastify plugins (rest-compat/); nothing here knows a domain rule.
 */
import { ApolloServer, HeaderMap, type ApolloServerOptionsWithGateway, type ApolloServerPlugin, type BaseContext } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import swagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import type { FastifyBaseLogger } from 'fastify';
import type { AppEnv } from './config.js';
import { isConnectionError, unavailable, type Db } from './db.js';
import { checkOperationCost, DEFAULT_GRAPHQL_LIMITS, limitRules, serviceSdlRule, type GraphqlLimits } from './graphql-limits.js';
import { AppError, ERROR_CODES, errorBody, toAppError, type ErrorCode } from './errors.js';
import { registerRateLimit, type OriginRateLimit } from './rate-limit.js';
import { traceIdFrom } from './trace.js';

type GatewayInterface = ApolloServerOptionsWithGateway<BaseContext>['gateway'];

declare module 'fastify' {
  interface FastifyRequest {
    traceId: string;
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
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** The AppError a thrown value stands for (unwrapping GraphQL's wrapper), or null for anything else. */
function knownError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  // A GraphQL error's message may repeat the caller's input: only its cause can be a connection error.
  if (err instanceof GraphQLError) return err.originalError ? knownError(err.originalError) : null;
  if (isConnectionError(err)) return unavailable();
  // graphql-js wraps a thrown value that is not an Error of its realm (NonErrorThrown, `thrownValue`).
  const thrown = (err as { thrownValue?: unknown } | null)?.thrownValue;
  if (thrown !== undefined && thrown !== err) return knownError(thrown);
  return null;
}

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

export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  return reply.code(err.status).type(JSON_TYPE).send(errorBody(err, reply.request.traceId));
}

const APOLLO_CODES: Partial<Record<string, ErrorCode>> = {
  GRAPHQL_PARSE_FAILED: 'GRAPHQL_PARSE_FAILED',
  GRAPHQL_VALIDATION_FAILED: 'GRAPHQL_VALIDATION_FAILED',
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  BAD_REQUEST: 'BAD_REQUEST',
  PERSISTED_QUERY_NOT_FOUND: 'BAD_REQUEST',
  PERSISTED_QUERY_NOT_SUPPORTED: 'BAD_REQUEST',
  OPERATION_RESOLUTION_FAILURE: 'BAD_REQUEST',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  INVALID_GRAPHQL: 'BAD_REQUEST', // @apollo/gateway: no operation to run (several without operationName, unknown name)
};

/**
 * GraphQL errors in the registry's terms: AppErrors keep their code and details, GraphQL request
 * errors keep their standard code, everything else is masked (no message, path or stack of internals).
 */
export function formatGraphqlError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  const http = knownError(original);
  if (http) {
    return {
      message: http.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: http.code, details: http.details },
    };
  }
  // A subgraph's error relayed by the gateway already carries a registry code (masked at its source).
  const relayed = String(formatted.extensions?.code ?? '');
  if (relayed in ERROR_CODES) {
    const details = Array.isArray(formatted.extensions?.details) ? formatted.extensions.details : [];
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code: relayed, details } };
  }
  // Entity lookups (_entities) naming a type this subgraph does not resolve: the caller's mistake.
  if (original instanceof Error && /^The _entities resolver tried to load an entity for type/.test(original.message)) {
    return { message: 'Unknown entity type in representations', path: formatted.path, extensions: { code: 'BAD_USER_INPUT', details: [] } };
  }
  const code = APOLLO_CODES[relayed];
  if (code) return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code } };
  return { message: 'Internal server error', path: formatted.path, extensions: { code: 'INTERNAL_ERROR' } };
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

/** Longest time a request may take to arrive in full. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Longest time a close waits for in-flight responses before Node drops what is left. */
export const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Graceful close. Node's server.close() destroys every connection whose response has *ended*, even
 * when the response is still being written (a large body to a slow reader), so the drain happens
 * before it: once closing, new requests on open keep-alive connections get 503 in the error shape,
 * responses carry `connection: close`, and preClose waits until every in-flight response has been
 * handed to the operating system ('finish'), at most DRAIN_TIMEOUT_MS.
 */
function drainOnClose(app: FastifyInstance): void {
  let closing = false;
  const inFlight = new Set<Promise<void>>();
  app.addHook('onRequest', async (_request, reply) => {
    const res = reply.raw;
    const done = new Promise<void>((resolve) => {
      res.once('finish', resolve);
      res.once('close', resolve);
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
    if (closing) return sendError(reply, new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down; retry on another instance'));
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) void reply.header('connection', 'close');
  });
  app.addHook('preClose', async () => {
    closing = true;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_TIMEOUT_MS)));
    await Promise.race([Promise.all(inFlight), deadline]);
    clearTimeout(timer);
  });
}

export async function createOrigin<Ctx extends BaseContext>(options: OriginOptions<Ctx>): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: options.logLevel },
    logController: new LogController({
      disableRequestLogging: options.logLevel !== 'debug' && options.logLevel !== 'trace',
      requestIdLogLabel: 'trace_id',
    }),
    bodyLimit: options.bodyLimitBytes,
    trustProxy: options.trustProxy ?? false,
    genReqId: (req) => traceIdFrom(req.headers),
    // A request whose body never finishes (slowloris) cannot hold the server, nor its shutdown.
    requestTimeout: REQUEST_TIMEOUT_MS,
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

  app.decorateRequest('traceId', '');
  app.addHook('onRequest', async (request, reply) => {
    request.traceId = request.id;
    void reply.header('x-trace-id', request.id);
  });
  drainOnClose(app);

  app.setErrorHandler((err, request, reply) => {
    const appError = toHttpError(err);
    if (appError.status >= 500) request.log.error({ err }, 'request failed');
    if (appError.status === 401 && options.authChallenge) void reply.header('www-authenticate', options.authChallenge);
    return sendError(reply, appError);
  });
  // Before any route: the limiter attaches itself to the routes registered after it.
  if (options.rateLimit) await registerRateLimit(app, options.rateLimit);
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new AppError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`)),
  );

  // The OpenAPI 3.1 document comes from the route schemas that validate requests. Responses are
  // written with JSON.stringify, not compiled from those schemas, so documenting them changes nothing.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.name, version: options.version, description: 'REST paths of this origin (spec: http-interfaces.md); GraphQL at /graphql' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'partner access token' },
          oidc: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'OpenID Connect ID token (opportunity search)' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  for (const schema of [ERROR_SCHEMA, ...(options.schemas ?? [])]) app.addSchema(schema);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

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
    let dbUp = true;
    if (options.db) {
      try {
        await options.db.ping(options.dbHealthTimeoutMs);
      } catch (err) {
        dbUp = false;
        request.log.warn({ err }, 'health: database unreachable');
      }
    }
    if (dbUp) return { status: 'ok', ...options.health.body() };
    if (!options.health.failWhenDbDown) return { status: 'degraded', ...options.health.body() };
    const err = new AppError('SERVICE_UNAVAILABLE', 'The database is unreachable', [{ message: 'database ping failed' }]);
    return reply.code(503).send({ ...errorBody(err, request.traceId), status: 'unavailable', ...options.health.body() });
  });

  if (options.graphql) await mountGraphql(app, options.graphql, options.env);
  return app;
}

/** The error shape of every non-2xx response (DESIGN section 5), `Error#` in route schemas. */
export const ERROR_SCHEMA = {
  $id: 'Error',
  type: 'object',
  required: ['success', 'error', 'code', 'trace_id', 'details'],
  properties: {
    success: { type: 'boolean', const: false },
    error: { type: 'string', description: 'What went wrong, safe to show' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Registry code (subgraphs/platform/errors.ts)' },
    trace_id: { type: 'string', description: 'Also in the x-trace-id header' },
    details: { type: 'array', items: { type: 'object', additionalProperties: true, properties: { field: { type: 'string' }, message: { type: 'string' } } } },
  },
  additionalProperties: true,
} as const;

async function mountGraphql<Ctx extends BaseContext>(app: FastifyInstance, mount: GraphqlMount<Ctx>, env: AppEnv): Promise<void> {
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
      ...(mount.schema ? [ApolloServerPluginInlineTraceDisabled()] : []),
    ],
    validationRules: [...limitRules(limits), ...(env === 'production' && mount.schema ? [serviceSdlRule] : [])],
    parseOptions: { maxTokens: limits.maxTokens },
    allowBatchedHttpRequests: false,
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

  app.route({
    method: ['GET', 'POST'],
    url: '/graphql',
    schema: { hide: true },
    handler: async (request, reply) => {
      const headers = new HeaderMap();
      for (const [key, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      }
      const url = new URL(request.url, 'http://localhost');
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
