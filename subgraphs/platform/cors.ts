/**
 * Browser access to an origin: CORS (@fastify/cors), registered by the HTTP shell (platform/http.ts)
 * before any route.
 *
 * An allowed Origin (config CORS_ORIGINS) gets `Access-Control-Allow-Origin` (its own value,
 * with `Vary: Origin`) and the response headers a client reads; its preflight is answered 204 in the
 * onRequest hook, before the rate limit and authentication, on every path. A disallowed or missing
 * Origin gets no CORS header, and its preflight the 404 of any unknown route. No credentials: tokens
 * travel in the Authorization header.
 *
 * The fast lane (platform/http.ts) applies the same rule through corsHeadersFor().
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { CorsOrigins } from './config.js';

/** Methods a browser may use across origins. */
export const CORS_METHODS = ['GET', 'POST', 'OPTIONS'] as const;
/** Request headers clients send: bearer token, JSON, Apollo's CSRF marker, idempotency and trace ids. */
export const CORS_ALLOWED_HEADERS = ['authorization', 'content-type', 'apollo-require-preflight', 'idempotency-key', 'x-trace-id', 'traceparent'] as const;
/** Response headers a browser script may read. */
export const CORS_EXPOSED_HEADERS = [
  'x-trace-id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
  'ETag',
] as const;
/** How long a browser may reuse a preflight answer, in seconds. */
export const CORS_MAX_AGE_SECONDS = 600;

/** `http://localhost[:port]` or `http://127.0.0.1[:port]`. */
const LOOPBACK_ORIGIN = /^http:\/\/(?:localhost|127\.0\.0\.1)(?::\d{1,5})?$/;

/** Whether a request's Origin header may read the response (no Origin: no CORS at all). */
export function corsOriginAllowed(allowed: CorsOrigins, origin: string | undefined): boolean {
  if (origin === undefined) return false;
  switch (allowed.kind) {
    case 'any':
      return true;
    case 'loopback':
      return LOOPBACK_ORIGIN.test(origin);
    case 'exact':
      return allowed.origins.includes(origin);
  }
}

/** The exposed headers as @fastify/cors writes them on every answer to an allowed Origin. */
const EXPOSED_HEADERS_VALUE = CORS_EXPOSED_HEADERS.join(', ');

/**
 * The CORS headers registerCors() puts on a GET or POST (not a preflight) from `origin`: the allowed
 * origin reflected and the exposed headers; null when the origin may not read the response (it then
 * gets no CORS header). `Vary: Origin` is sent whatever the Origin, and is not part of this answer.
 */
export function corsHeadersFor(allowed: CorsOrigins, origin: string | undefined): ReadonlyArray<readonly [string, string]> | null {
  if (origin === undefined || !corsOriginAllowed(allowed, origin)) return null;
  return [
    ['access-control-allow-origin', origin],
    ['access-control-expose-headers', EXPOSED_HEADERS_VALUE],
  ];
}

export async function registerCors(app: FastifyInstance, allowed: CorsOrigins): Promise<void> {
  await app.register(cors, {
    // Reflects the allowed Origin (and always sends Vary: Origin); false: no CORS headers.
    origin: (origin, callback) => callback(null, corsOriginAllowed(allowed, origin)),
    methods: [...CORS_METHODS],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
    credentials: false,
    hook: 'onRequest',
    // Any OPTIONS from an allowed Origin is answered as a preflight (strict mode would answer a
    // text/plain 400, outside the error shape, when Access-Control-Request-Method is missing).
    strictPreflight: false,
  });
}
