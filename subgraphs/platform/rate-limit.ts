/**
 * Rate limits per caller on every origin (@fastify/rate-limit, fixed windows).
 *
 * - Caller: a verified partner's `sub` (analysis, allocation), a verified OIDC subject (search), or the
 *   client address for everyone else (anonymous calls, bad tokens, the gateway, which does not verify
 *   tokens itself; the subgraphs behind it count partners by `sub` again).
 * - Budget: RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS, per origin RATE_LIMIT_<ORIGIN>_MAX, per
 *   partner RATE_LIMIT_PARTNERS (`sub=max,...`, which wins over the origin's).
 * - Store: in memory by default (one process); with REDIS_URL in Redis, so replicas of an origin share
 *   one budget. If Redis is down, stalled or slower than 200 ms, the request is let through (the
 *   origin stays available) and the error is logged; the start waits at most 1.5 s for Redis.
 * - Over budget: 429 RATE_LIMITED in the error shape, with `Retry-After` and the `RateLimit-Limit`,
 *   `RateLimit-Remaining` and `RateLimit-Reset` headers (IETF RateLimit header fields draft); those
 *   three headers are on every limited response. `GET /` and `GET /health` are never limited.
 * - Expensive operations (optimize, over REST or GraphQL) also spend a second, lower budget per caller,
 *   RATE_LIMIT_EXPENSIVE_MAX per window, in the same store: `app.limitExpensive(request, reply?)`
 *   spends one unit or throws 429 RATE_LIMITED (with the headers when a reply is given).
 */
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Config, Origin } from './config.js';
import { AppError } from './errors.js';

export interface RateLimitConfig {
  enabled: boolean;
  /** Requests per window per caller, unless the origin or the partner has its own. */
  max: number;
  /** Expensive operations (optimize) per window per caller, on top of the request budget. */
  expensiveMax: number;
  windowMs: number;
  /** Partner `sub` -> requests per window. */
  perPartner: Record<string, number>;
  redisUrl: string | undefined;
}

export interface OriginRateLimit {
  config: RateLimitConfig;
  /** This origin's budget per caller (RATE_LIMIT_<ORIGIN>_MAX, else RATE_LIMIT_MAX). */
  max: number;
  /** Keys of the shared store are prefixed with it (one budget per origin, shared by its replicas). */
  namespace: string;
  /** `partner:<sub>`, `oidc:<sub>` or `ip:<address>`. */
  callerKey(request: FastifyRequest): Promise<string>;
}

/** An origin's settings from the configuration: its own budget, or the common one. */
export function originRateLimit(config: Pick<Config, 'rateLimit'>, origin: Origin, callerKey: (request: FastifyRequest) => Promise<string>): OriginRateLimit {
  return { config: config.rateLimit, max: config.rateLimit.perOrigin[origin] ?? config.rateLimit.max, namespace: origin, callerKey };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Spends one unit of the caller's expensive-operation budget, or throws 429 RATE_LIMITED. */
    limitExpensive(request: FastifyRequest, reply?: FastifyReply): Promise<void>;
  }
}

const PARTNER_PREFIX = 'partner:';
/** A Redis command slower than this fails, and the request it counts is let through. */
const REDIS_COMMAND_TIMEOUT_MS = 200;
/** The start waits at most this long for Redis. */
const REDIS_CONNECT_WAIT_MS = 1500;

/** The address key: IPv6 callers by their /64 (one host can hold a whole /64), IPv4 by address. */
export function addressKey(ip: string): string {
  return `ip:${normalizeIP(ip, 64)}`;
}
const UNLIMITED_PATHS = new Set(['/', '/health']);

/** Parses the entries of RATE_LIMIT_PARTNERS (`sub=max`); problems are reported by name. */
export function parsePartnerBudgets(entries: readonly string[], problems: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of entries) {
    const at = entry.lastIndexOf('=');
    const sub = at > 0 ? entry.slice(0, at).trim() : '';
    const max = Number(at > 0 ? entry.slice(at + 1) : NaN);
    if (!sub || !Number.isInteger(max) || max < 1) problems.push(`RATE_LIMIT_PARTNERS: "${entry}" is not sub=requests (a positive integer)`);
    else out[sub] = max;
  }
  return out;
}

export async function registerRateLimit(app: FastifyInstance, options: OriginRateLimit): Promise<void> {
  const windowMs = options.config.windowMs;
  /** The 429 of either budget, in the error shape. */
  const rateLimited = (what: string, limitName: string, max: number, retryText: string, retrySeconds: number) =>
    new AppError('RATE_LIMITED', `Too many ${what}: at most ${max} per ${Math.round(windowMs / 1000)} s; retry in ${retryText}`, [
      { field: 'rate_limit', message: `${limitName} ${max}, window ${windowMs} ms`, retry_after_seconds: retrySeconds },
    ]);
  if (!options.config.enabled) {
    app.decorate('limitExpensive', async () => undefined);
    return;
  }
  const redis = options.config.redisUrl
    ? new Redis(options.config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 1000, commandTimeout: REDIS_COMMAND_TIMEOUT_MS, lazyConnect: true })
    : undefined;
  if (redis) {
    redis.on('error', (err: Error) => app.log.warn({ err }, 'rate-limit store (Redis) error; requests are let through meanwhile'));
    app.addHook('onClose', async () => {
      redis.disconnect();
    });
    // Connected before the first request is counted; a Redis that is down at start is retried in the
    // background while requests are let through.
    const connected = redis.connect().then(
      () => true,
      (err: unknown) => {
        app.log.warn({ err }, 'rate-limit store (Redis) not reachable at start');
        return false;
      },
    );
    // A Redis that accepts the connection but never answers must not hold the start either.
    await Promise.race([connected, new Promise((resolve) => setTimeout(resolve, REDIS_CONNECT_WAIT_MS).unref())]);
  }
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: options.config.windowMs,
    max: async (_request, key) => (key.startsWith(PARTNER_PREFIX) ? (options.config.perPartner[key.slice(PARTNER_PREFIX.length)] ?? options.max) : options.max),
    keyGenerator: (request) => options.callerKey(request),
    allowList: (request) => (request.method === 'GET' || request.method === 'HEAD') && UNLIMITED_PATHS.has(request.url.split('?')[0]),
    redis,
    nameSpace: `tradegraph:${options.namespace}:`,
    skipOnError: true,
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => rateLimited('requests', 'limit', context.max, context.after, Math.ceil(context.ttl / 1000)),
  });
  // Its own counters (a child of the store), shared by every route and resolver of the origin.
  const expensive = app.createRateLimit({ max: options.config.expensiveMax, keyGenerator: (request) => options.callerKey(request) });
  app.decorate('limitExpensive', async (request: FastifyRequest, reply?: FastifyReply) => {
    const state = await expensive(request);
    if (state.isAllowed) return; // (an allow-listed caller: none today)
    if (reply) {
      void reply.header('ratelimit-limit', String(state.max));
      void reply.header('ratelimit-remaining', String(state.remaining));
      void reply.header('ratelimit-reset', String(state.ttlInSeconds));
    }
    if (!state.isExceeded) return;
    if (reply) void reply.header('retry-after', String(state.ttlInSeconds));
    throw rateLimited('expensive requests (optimize)', 'expensive-operation limit', state.max, `${state.ttlInSeconds} s`, state.ttlInSeconds);
  });
}
