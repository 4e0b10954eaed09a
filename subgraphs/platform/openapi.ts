/**
 * The origin's OpenAPI 3.1 document (`GET /openapi.json`), built by @fastify/swagger from the route
 * schemas that validate requests, and the error shape every route references as `Error#`.
 *
 * Routes declare what is theirs: operationId, summary, security, parameters, body and the responses
 * they answer themselves. What the HTTP shell (http.ts) does for every route is added here, once, when
 * the document is built (`transformObject`), so no route can forget it:
 *
 * - `servers: [{url: '/'}]`: paths are relative to the origin that serves the document (see SERVERS);
 * - `security: []` on every operation that declares none (public: `/`, `/health`, the demo routes);
 * - operationIds of the shell's own routes (`/`, `/health`: SHELL_OPERATIONS);
 * - response headers (components.headers), named as the server writes them (lower case): `x-trace-id` on
 *   every response; `ratelimit-limit`, `ratelimit-remaining`, `ratelimit-reset` (IETF RateLimit header
 *   fields draft) on every response of a rate-limited route (all but `/` and `/health`, rate-limit.ts);
 *   `retry-after` on 429 and 503; `www-authenticate` on 401;
 * - the refusals any route can meet before its handler runs, in the error shape: 400 (a malformed
 *   request line or URL), 429 (the rate limit, on limited routes), 503 (the server is shutting down, or
 *   the store is down) and `default` (414, 431, 505 and 500, which no route lists);
 * - a description on every response (the generator's "Default Response" says nothing).
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES } from './errors.js';
import { UNLIMITED_PATHS } from './rate-limit.js';

/** The error shape of every non-2xx response (DESIGN section 5), `Error#` in route schemas. */
export const ERROR_SCHEMA = {
  $id: 'Error',
  type: 'object',
  // No description: a response that references it takes its description from its status instead.
  required: ['success', 'error', 'code', 'trace_id', 'details'],
  properties: {
    success: { type: 'boolean', const: false },
    error: { type: 'string', description: 'What went wrong, safe to show' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Registry code (subgraphs/platform/errors.ts)' },
    trace_id: { type: 'string', description: 'Also in the x-trace-id header' },
    details: {
      type: 'array',
      description: 'One entry per violation (every bad field of a 400 VALIDATION_FAILED); entries may carry more keys, e.g. retry_after_seconds on a 429',
      items: { type: 'object', additionalProperties: true, properties: { field: { type: 'string' }, message: { type: 'string' } } },
    },
  },
  additionalProperties: true,
} as const;

/** Where every origin serves its document. */
export const OPENAPI_PATH = '/openapi.json';

export interface OpenApiOptions {
  /** Product name of the origin (the document's title). */
  name: string;
  version: string;
  /** JSON Schemas with an `$id` that this origin's routes reference (components of the document). */
  schemas: readonly object[];
}

/**
 * The document's `servers`: the origin that serves it, as a relative URL. A relative server URL is
 * resolved against the document's own URL (OpenAPI 3.1 section 4.8.5), so the document is right on
 * whatever host, scheme and port (or proxy) a client reached it through, and no public URL has to be
 * configured for it; each origin serves only its own paths, so there is nothing else to list.
 */
const SERVERS = [{ url: '/', description: 'The origin serving this document (each service has its own origin)' }] as const;

/** The shell's own routes (http.ts), which every origin serves: their operationIds and what their 200 means. */
const SHELL_OPERATIONS: Readonly<Record<string, { operationId: string; ok: string }>> = {
  '/': { operationId: 'getServiceInfo', ok: "The service's name, version and status (and fields of its own, e.g. the analysis demo_symbol)" },
  '/health': { operationId: 'getHealth', ok: 'Healthy (status ok), or up without its database where that is allowed (status degraded)' },
};


/** Reusable response headers (components.headers), by component name. Names as the server writes them: lower case (HTTP header names are case-insensitive). */
const RESPONSE_HEADERS = {
  TraceId: {
    name: 'x-trace-id',
    description: "The request's trace id: the caller's own x-trace-id (or the trace id of its traceparent) when valid, else a new one; also trace_id in error bodies",
    required: true,
    schema: { type: 'string' },
  },
  RateLimitLimit: {
    name: 'ratelimit-limit',
    description: "Requests the caller may make per window (IETF RateLimit header fields draft); an expensive operation (optimize, hunt, cash hunt) reports its own lower budget. Sent while rate limiting is on (RATE_LIMIT_ENABLED, the default)",
    required: false,
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitRemaining: {
    name: 'ratelimit-remaining',
    description: 'Requests left in the current window (0 once over budget). Sent while rate limiting is on',
    required: false,
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitReset: {
    name: 'ratelimit-reset',
    description: 'Seconds until the current window ends and the budget is whole again. Sent while rate limiting is on',
    required: false,
    schema: { type: 'integer', minimum: 0 },
  },
  RetryAfter: {
    name: 'retry-after',
    description: 'Seconds to wait before retrying (429: until the window ends; 503: the server\'s estimate)',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  WwwAuthenticate: {
    name: 'www-authenticate',
    description: 'The bearer challenge of the origin, e.g. `Bearer realm="tradegraph-analysis"`',
    required: true,
    schema: { type: 'string' },
  },
} as const;

type HeaderName = keyof typeof RESPONSE_HEADERS;
const headerRef = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/** What a response of each status means when the route does not say more. */
const STATUS_DESCRIPTIONS: Readonly<Record<string, string>> = {
  '200': 'OK',
  '304': 'Not Modified: If-None-Match matched the current ETag; no body',
  '400': 'Bad request: a refused parameter or body (VALIDATION_FAILED lists every violation), or a malformed request line or URL (BAD_REQUEST)',
  '401': 'Unauthenticated: the bearer token is missing, invalid or expired',
  '403': 'Forbidden: the caller may not read this resource',
  '404': 'Not found',
  '413': 'The request body is larger than the server accepts (PAYLOAD_TOO_LARGE)',
  '415': 'The body is not JSON in UTF-8 (UNSUPPORTED_MEDIA_TYPE)',
  '429': 'Too many requests: the caller is over its budget (RATE_LIMITED); retry after Retry-After seconds',
  '500': 'An unexpected server fault (INTERNAL_ERROR); the message never discloses internals',
  '503': 'Unavailable: the store does not answer, the server is shutting down, or a required setting is missing (e.g. AUTH_NOT_CONFIGURED); retry after Retry-After seconds',
  default: 'Any other refusal of the request itself (414 URI_TOO_LONG, 431 HEADERS_TOO_LARGE, 505 HTTP_VERSION_NOT_SUPPORTED) or server fault (500), in the error shape',
};

/** What the shell's refusals mean on a route that does not list them itself. */
const SHELL_REFUSALS: Readonly<Record<string, string>> = {
  '400': 'A malformed request line or URL (BAD_REQUEST: an HTTP/1.1 request without Host, a URL that cannot be decoded)',
  '429': STATUS_DESCRIPTIONS['429'],
  '503': 'Unavailable: the server is shutting down; retry after Retry-After seconds, on another instance',
  default: STATUS_DESCRIPTIONS.default,
};

/** A response in the error shape, as the shell adds it. */
const errorResponse = (status: string) => ({
  description: SHELL_REFUSALS[status],
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

interface Header {
  $ref?: string;
  [key: string]: unknown;
}
interface Response {
  description?: string;
  headers?: Record<string, Header>;
  [key: string]: unknown;
}
interface Operation {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, Response>;
  [key: string]: unknown;
}
interface OpenApiObject {
  paths?: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, unknown>; headers?: Record<string, unknown>; [key: string]: unknown };
  [key: string]: unknown;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The shell's part of one operation (see the file comment); returns the header components it references. */
function completeOperation(path: string, operation: Operation): Set<HeaderName> {
  const shell = SHELL_OPERATIONS[path];
  operation.operationId ??= shell?.operationId;
  operation.security ??= [];
  const used = new Set<HeaderName>();
  const limited = !UNLIMITED_PATHS.has(path);
  const responses = (operation.responses ??= {});
  const shellStatuses = ['400', ...(limited ? ['429'] : []), '503', 'default'];
  for (const status of shellStatuses) responses[status] ??= errorResponse(status);
  for (const [status, response] of Object.entries(responses)) {
    if (!response.description || response.description === 'Default Response') {
      response.description = (status === '200' ? shell?.ok : undefined) ?? STATUS_DESCRIPTIONS[status] ?? STATUS_DESCRIPTIONS[status[0] === '2' ? '200' : 'default'];
    }
    const names: HeaderName[] = ['TraceId'];
    if (limited) names.push('RateLimitLimit', 'RateLimitRemaining', 'RateLimitReset');
    if (status === '429' || status === '503') names.push('RetryAfter');
    if (status === '401') names.push('WwwAuthenticate');
    const headers: Record<string, Header> = {};
    for (const name of names) {
      headers[RESPONSE_HEADERS[name].name] = headerRef(name);
      used.add(name);
    }
    // A route marks a header it always sends with `required: true` beside its schema; the generator
    // copies that into the header's schema (where it is no JSON Schema), so it moves up to the header.
    for (const header of Object.values(response.headers ?? {})) {
      const schema = header.schema as { required?: unknown } | undefined;
      if (schema?.required === true) {
        header.required = true;
        delete schema.required;
      }
    }
    response.headers = { ...headers, ...response.headers };
  }
  return used;
}

/** Completes the generated document: servers, the shell's operations, responses and headers; only the security schemes in use. */
function completeDocument<T extends OpenApiObject>(document: T): T {
  const usedSchemes = new Set<string>();
  const usedHeaders = new Set<HeaderName>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      for (const name of completeOperation(path, operation)) usedHeaders.add(name);
      for (const requirement of operation.security ?? []) for (const scheme of Object.keys(requirement)) usedSchemes.add(scheme);
    }
  }
  const components = (document.components ??= {});
  // Only the headers and security schemes in use (the gateway's REST paths are neither limited nor protected).
  components.headers = Object.fromEntries(
    Object.entries(RESPONSE_HEADERS)
      .filter(([key]) => usedHeaders.has(key as HeaderName))
      .map(([key, { name: _name, ...header }]) => [key, header]),
  );
  const schemes = Object.entries(components.securitySchemes ?? {}).filter(([name]) => usedSchemes.has(name));
  if (schemes.length > 0) components.securitySchemes = Object.fromEntries(schemes);
  else delete components.securitySchemes;
  return Object.assign(document, { servers: SERVERS.map((s) => ({ ...s })) });
}

/** Registers the document's generator and its route; call before the origin's routes. */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
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
    // Built once per process (the generator caches the object), so this runs once per origin.
    transformObject: (generated) =>
      'openapiObject' in generated ? (completeDocument(generated.openapiObject as OpenApiObject) as typeof generated.openapiObject) : generated.swaggerObject,
  });
  for (const schema of [ERROR_SCHEMA, ...options.schemas]) app.addSchema(schema);
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}
