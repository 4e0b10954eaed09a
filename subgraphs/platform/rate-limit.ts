/**
 * Rate limits per caller on every origin (@fastify/rate-limit, fixed windows).
 *
 * - Caller: a verified partner's `sub` (analysis, allocation), a verified OIDC subject (search), or the
 *   client address for everyone else (anonymous calls, bad tokens, the gateway, which does not verify
 *   tokens itself; the subgraphs behind it count partners by `sub` again).
 * - Budget: RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS, per origin RATE_LIMIT_<ORIGIN>_MAX, per
 *   partner RATE_LIMIT_PARTNERS (`sub=max,...`, which wins over the origin's).
 * - Store: in memory by default (one process); with REDIS_URL in Redis, so replicas of an origin share
 *   one budget (keys `tradegraph:<origin>:<caller>`, and `tradegraph:<origin>:expensive:<caller>` for
 *   the expensive budget). A circuit breaker stands in front of Redis: a command that has not answered
 *   within REDIS_COMMAND_TIMEOUT_MS, or a connection error, opens it; while it is open every process
 *   counts in its own memory (starting from the last counts it saw in Redis), so budgets keep applying
 *   per process and no request waits for Redis. After REDIS_BREAKER_COOLDOWN_MS a request starts one
 *   PING in the background (half-open); when it answers in time, counting goes back to Redis. Each trip
 *   is logged once (warn), and so is each recovery (info). The start waits at most 1.5 s for Redis.
 * - Headers: `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (IETF RateLimit header
 *   fields draft) always describe the counter that was actually applied (Redis's or this process's).
 * - Over budget: 429 RATE_LIMITED in the error shape, with `Retry-After` and those headers.
 *   `GET /` and `GET /health` are never limited.
 * - Expensive operations (optimize, hunt, cash hunt; REST or GraphQL) also spend a second, lower
 *   budget per caller, RATE_LIMIT_EXPENSIVE_MAX per window, in the same store:
 *   `app.limitExpensive(request, reply?)` spends one unit or throws 429 RATE_LIMITED. With a reply (REST)
 *   it sets that budget's headers, so a route that calls it after the request budget (a `preParsing`
 *   hook) answers with the expensive budget's headers. Without a reply (a GraphQL resolver) the 429 error
 *   carries `extensions.http` (status 429, `Retry-After`, the budget's headers), which Apollo Server
 *   applies to the HTTP response.
 */
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Principal } from './auth.js';
import type { Authenticate } from './authenticators.js';
import { BoundedCache } from './bounded-cache.js';
import type { Config, Origin, RateLimitConfig } from './config.js';
import { AppError } from './errors.js';

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
  interface FastifyContextConfig {
    /** The route is an expensive operation: it spends the expensive budget too (see spendOnExpensiveRoutes). */
    expensive?: boolean;
  }
}

const PARTNER_PREFIX = 'partner:';
/** A Redis command that has not answered within this opens the breaker (only that request waits this long). */
export const REDIS_COMMAND_TIMEOUT_MS = 50;
/** How long the breaker stays open before a background PING probes Redis again. */
export const REDIS_BREAKER_COOLDOWN_MS = 2000;
/** The start waits at most this long for Redis. */
const REDIS_CONNECT_WAIT_MS = 1500;
/** Callers whose in-memory counters one process keeps (least recently counted dropped first). */
const MEMORY_COUNTERS = 50_000;

/** The address key: IPv6 callers by their /64 (one host can hold a whole /64), IPv4 by address. */
export function addressKey(ip: string): string {
  // Without a colon it is not IPv6, and normalizeIP would only lower-case it: skip its IPv6 test.
  if (typeof ip === 'string' && !ip.includes(':')) return `ip:${ip.toLowerCase()}`;
  return `ip:${normalizeIP(ip, 64)}`;
}

/** The rate-limit caller of a principal (null: a refused token) calling from `ip`. */
export function callerKeyOf(principal: Principal | null, ip: string): string {
  if (principal?.kind === 'partner') return `${PARTNER_PREFIX}${principal.partnerId}`;
  if (principal?.kind === 'oidc') return `oidc:${principal.subject}`;
  return addressKey(ip);
}

/** The rate-limit caller: a verified partner or OIDC subject, else the client address. */
export const callerKey = (authenticate: Authenticate) => async (request: FastifyRequest): Promise<string> => {
  let principal: Principal | null;
  try {
    principal = await authenticate(request);
  } catch {
    principal = null;
  }
  return callerKeyOf(principal, request.ip);
};

/** Paths whose GET and HEAD are never counted (probes and the service document). */
export const UNLIMITED_PATHS: ReadonlySet<string> = new Set(['/', '/health']);

// ---------------------------------------------------------------------------------------------------------
// Counters: Redis behind a circuit breaker, this process's memory as the fallback
// ---------------------------------------------------------------------------------------------------------

/** One request counted in a fixed window: the count so far and the time left in the window. */
export interface Count {
  current: number;
  ttlMs: number;
  /** Which counter answered: Redis (shared by the replicas) or this process's memory. */
  store: 'redis' | 'memory';
}

/** Where trips and recoveries are reported (a Fastify logger fits). */
export interface CounterLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface Counters {
  /** Counts one request against `key` in a window of `windowMs`; never fails, never waits long (in memory: at once). */
  count(key: string, windowMs: number): Count | Promise<Count>;
  /**
   * Counts one request against each of `budgets` (key and max) at once, in this process's memory, when
   * every one has room for it; null, counting nothing, when one has not or when Redis counts (the full
   * path then counts and refuses). For the shell's fast lane, which must not wait.
   */
  countAtOnce(budgets: ReadonlyArray<{ key: string; max: number }>, windowMs: number): Count[] | null;
  /** Whether Redis is counting right now (false without REDIS_URL, or while the breaker is open). */
  shared(): boolean;
  close(): void;
}

/** Fixed windows in memory: the fallback, and the only store without Redis. */
class MemoryCounters {
  private readonly windows = new BoundedCache<string, { count: number; resetAt: number }>(MEMORY_COUNTERS);

  count(key: string, windowMs: number): Count {
    const now = Date.now();
    // get() has made a live window the most recently used already; only a new window is stored.
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { current: window.count, ttlMs: window.resetAt - now, store: 'memory' };
  }

  /** See Counters.countAtOnce. */
  countAtOnce(budgets: ReadonlyArray<{ key: string; max: number }>, windowMs: number): Count[] | null {
    const now = Date.now();
    for (const { key, max } of budgets) {
      const window = this.windows.get(key);
      if ((window && window.resetAt > now ? window.count : 0) + 1 > max) return null;
    }
    return budgets.map(({ key }) => this.count(key, windowMs));
  }

  /** Remembers a count Redis returned, so a fallback continues from it instead of from zero. */
  observe(key: string, current: number, ttlMs: number): void {
    this.windows.set(key, { count: current, resetAt: Date.now() + ttlMs });
  }
}

class RedisTimeout extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisTimeout';
  }
}

/**
 * Settles with `promise`, or rejects after `ms`. The deadline is checked once more after the event loop
 * has read its sockets (setImmediate runs after the poll phase): an answer that did arrive in time, but
 * whose callback was queued behind a busy event loop, is not mistaken for a stalled Redis.
 */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new RedisTimeout(ms));
      });
    }, ms);
    promise.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** INCR with the window's expiry set by the first request of a window; returns the count and the time left. */
const COUNT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`;

interface CountCommand {
  tradegraphCount(key: string, windowMs: number): Promise<[number, number]>;
}

export interface BreakerTimings {
  commandTimeoutMs: number;
  cooldownMs: number;
}

/**
 * Redis behind a circuit breaker. Closed: every count goes to Redis, bounded by the command timeout.
 * A timeout or a connection error opens it: counts go to memory at once. After the cool-down, one count
 * starts a background PING (half-open); its answer in time closes the breaker again.
 */
class BreakerCounters implements Counters {
  private readonly memory = new MemoryCounters();
  private open = false;
  private openedAt = 0;
  private probing = false;
  private closing = false;

  constructor(
    private readonly redis: Redis,
    private readonly log: CounterLog,
    private readonly timings: BreakerTimings,
  ) {
    redis.defineCommand('tradegraphCount', { numberOfKeys: 1, lua: COUNT_SCRIPT });
    redis.on('error', (err: Error) => this.trip(err));
    redis.on('close', () => this.trip(new Error('connection to Redis closed')));
  }

  shared(): boolean {
    return !this.open;
  }

  /** Redis counts (or will again): the fast lane leaves every request to the full path. */
  countAtOnce(): null {
    return null;
  }

  async count(key: string, windowMs: number): Promise<Count> {
    if (this.open) {
      this.probeAfterCooldown();
      return this.memory.count(key, windowMs);
    }
    try {
      const [current, ttlMs] = await withDeadline((this.redis as unknown as CountCommand).tradegraphCount(key, windowMs), this.timings.commandTimeoutMs);
      this.memory.observe(key, current, ttlMs);
      return { current, ttlMs, store: 'redis' };
    } catch (err) {
      this.trip(err);
      return this.memory.count(key, windowMs);
    }
  }

  /** Opens the breaker; logs once per trip (a connection that keeps failing reports nothing new). */
  trip(err: unknown): void {
    if (this.closing || this.open) return;
    this.open = true;
    this.openedAt = Date.now();
    this.log.warn({ err }, 'rate-limit store (Redis) unhealthy: each process counts in its own memory until it recovers');
  }

  private probeAfterCooldown(): void {
    if (this.probing || this.closing || Date.now() - this.openedAt < this.timings.cooldownMs) return;
    this.probing = true;
    withDeadline(this.redis.ping(), this.timings.commandTimeoutMs).then(
      () => {
        this.probing = false;
        if (this.closing || !this.open) return;
        this.open = false;
        this.log.info({}, 'rate-limit store (Redis) recovered: budgets are shared again');
      },
      () => {
        this.probing = false;
        this.openedAt = Date.now();
      },
    );
  }

  close(): void {
    this.closing = true;
    this.redis.disconnect();
  }
}

class LocalCounters implements Counters {
  private readonly memory = new MemoryCounters();

  count(key: string, windowMs: number): Count {
    return this.memory.count(key, windowMs);
  }

  countAtOnce(budgets: ReadonlyArray<{ key: string; max: number }>, windowMs: number): Count[] | null {
    return this.memory.countAtOnce(budgets, windowMs);
  }

  shared(): boolean {
    return false;
  }

  close(): void {}
}

/**
 * The counters of one origin: in memory without a Redis URL; with one, Redis behind the breaker,
 * connected before the first count (at most REDIS_CONNECT_WAIT_MS; a Redis that is not reachable then
 * is retried in the background, with the breaker open meanwhile).
 */
export async function openCounters(redisUrl: string | undefined, log: CounterLog, timings: Partial<BreakerTimings> = {}): Promise<Counters> {
  if (!redisUrl) return new LocalCounters();
  const commandTimeoutMs = timings.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS;
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    // A backstop only: the breaker gives up on a command long before (see withDeadline).
    commandTimeout: Math.max(1000, commandTimeoutMs * 10),
  });
  const counters = new BreakerCounters(redis, log, { commandTimeoutMs, cooldownMs: timings.cooldownMs ?? REDIS_BREAKER_COOLDOWN_MS });
  const connected = redis.connect().then(
    () => true,
    (err: unknown) => {
      counters.trip(err);
      return false;
    },
  );
  // A Redis that accepts the connection but never answers must not hold the start either.
  await Promise.race([connected, new Promise((resolve) => setTimeout(resolve, REDIS_CONNECT_WAIT_MS).unref())]);
  return counters;
}

/** The callback store @fastify/rate-limit calls for the request budget, counting in `counters` under `prefix`. */
function counterStore(counters: Counters, prefix: string) {
  return class CounterStore {
    incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
      const answer = (count: Count) => callback(null, { current: count.current, ttl: count.ttlMs });
      const counted = counters.count(`${prefix}${key}`, timeWindow);
      if (counted instanceof Promise) void counted.then(answer);
      else answer(counted);
    }

    /**
     * A route with a budget of its own (none today) counts under its method and URL. The plugin passes
     * the merged limiter settings, with the route's options as `routeInfo`.
     */
    child(settings: object): CounterStore {
      const info = (settings as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo;
      const route = `${String(info?.method ?? '*')} ${String(info?.url ?? '*')}`;
      const Child = counterStore(counters, `${prefix}route:${route}:`);
      return new Child();
    }
  };
}

// ---------------------------------------------------------------------------------------------------------
// The plugin
// ---------------------------------------------------------------------------------------------------------

/** The `RateLimit-*` header values of a count against `max`. */
function budgetHeaders(max: number, count: Count): Array<[string, string]> {
  return [
    ['ratelimit-limit', String(max)],
    ['ratelimit-remaining', String(Math.max(0, max - count.current))],
    ['ratelimit-reset', String(Math.ceil(count.ttlMs / 1000))],
  ];
}

/** The same headers on a reply (without building the list: this runs on every expensive request). */
function setBudgetHeaders(reply: FastifyReply, max: number, count: Count): void {
  void reply
    .header('ratelimit-limit', String(max))
    .header('ratelimit-remaining', String(Math.max(0, max - count.current)))
    .header('ratelimit-reset', String(Math.ceil(count.ttlMs / 1000)));
}

/**
 * A 429 RATE_LIMITED that also tells Apollo Server how to answer over HTTP: a resolver that throws it
 * makes the GraphQL response a 429 with these headers (graphql-js copies an error's `extensions` onto
 * the GraphQLError that wraps it; Apollo applies `extensions.http`).
 */
export class RateLimitedError extends AppError {
  readonly extensions: { http: { status: number; headers: Map<string, string> } };

  constructor(message: string, details: AppError['details'], headers: Array<[string, string]>) {
    super('RATE_LIMITED', message, details);
    this.extensions = { http: { status: 429, headers: new Map(headers) } };
  }
}

export async function registerRateLimit(app: FastifyInstance, options: OriginRateLimit): Promise<void> {
  const windowMs = options.config.windowMs;
  const limitText = (what: string, max: number, retryText: string) => `Too many ${what}: at most ${max} per ${Math.round(windowMs / 1000)} s; retry in ${retryText}`;
  const limitDetails = (limitName: string, max: number, retrySeconds: number) => [
    { field: 'rate_limit', message: `${limitName} ${max}, window ${windowMs} ms`, retry_after_seconds: retrySeconds },
  ];
  if (!options.config.enabled) {
    app.decorate('limitExpensive', async () => undefined);
    return;
  }
  const counters = await openCounters(options.config.redisUrl, app.log, {
    commandTimeoutMs: options.config.redisCommandTimeoutMs,
    cooldownMs: options.config.redisBreakerCooldownMs,
  });
  app.addHook('onClose', async () => counters.close());
  const namespace = `tradegraph:${options.namespace}:`;
  const maxOf = (key: string): number => (key.startsWith(PARTNER_PREFIX) ? (options.config.perPartner[key.slice(PARTNER_PREFIX.length)] ?? options.max) : options.max);
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: windowMs,
    // A plain number when no partner has a budget of its own (the plugin then asks nothing per request).
    max: Object.keys(options.config.perPartner).length === 0
      ? options.max
      : (_request, key) => maxOf(key),
    keyGenerator: (request) => options.callerKey(request),
    allowList: (request) => (request.method === 'GET' || request.method === 'HEAD') && UNLIMITED_PATHS.has(request.url.split('?')[0]),
    store: counterStore(counters, namespace),
    // The store never fails (it falls back to memory), so the headers always come from a real count.
    skipOnError: false,
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => {
      const retrySeconds = Math.ceil(context.ttl / 1000);
      return new AppError('RATE_LIMITED', limitText('requests', context.max, context.after), limitDetails('limit', context.max, retrySeconds));
    },
  });

  // Its own counters in the same store, shared by every route and resolver of the origin.
  const expensiveMax = options.config.expensiveMax;
  const expensivePrefix = `${namespace}expensive:`;
  app.decorate('limitExpensive', async (request: FastifyRequest, reply?: FastifyReply) => {
    const counted = counters.count(`${expensivePrefix}${await options.callerKey(request)}`, windowMs);
    const count = counted instanceof Promise ? await counted : counted;
    if (reply) setBudgetHeaders(reply, expensiveMax, count);
    if (count.current <= expensiveMax) return;
    const headers = budgetHeaders(expensiveMax, count);
    const retrySeconds = Math.ceil(count.ttlMs / 1000);
    if (reply) void reply.header('retry-after', String(retrySeconds));
    throw new RateLimitedError(
      limitText('expensive requests (optimize, hunt, cash hunt)', expensiveMax, `${retrySeconds} s`),
      limitDetails('expensive-operation limit', expensiveMax, retrySeconds),
      [...headers, ['retry-after', String(retrySeconds)]],
    );
  });
  spendOnExpensiveRoutes(app);

  // The fast lane's count (platform/http.ts FastLane): the same counters and keys as the limiter's
  // (its store prefixes the caller with the namespace) and the expensive budget's, the headers of the
  // budget the full path leaves on the response (an expensive route's preParsing hook sets its own last).
  app.fastLane.setCounter((caller, expensive) => {
    const request = { key: `${namespace}${caller}`, max: maxOf(caller) };
    if (!expensive) {
      const counted = counters.countAtOnce([request], windowMs);
      return counted && budgetHeaders(request.max, counted[0]);
    }
    const counted = counters.countAtOnce([request, { key: `${expensivePrefix}${caller}`, max: expensiveMax }], windowMs);
    return counted && budgetHeaders(expensiveMax, counted[1]);
  });
}

/**
 * A route marked `config: { expensive: true }` spends the expensive budget in a `preParsing` hook: after
 * the request budget (the limiter's onRequest hook) and the route's own onRequest (authentication), before
 * the body is read, so its RateLimit-* headers are the ones the response carries. Only those routes get it.
 */
function spendOnExpensiveRoutes(app: FastifyInstance): void {
  const spend = (request: FastifyRequest, reply: FastifyReply): Promise<void> => app.limitExpensive(request, reply);
  app.addHook('onRoute', (route) => {
    if (!route.config?.expensive) return;
    const own = route.preParsing === undefined ? [] : Array.isArray(route.preParsing) ? route.preParsing : [route.preParsing];
    route.preParsing = [...own, spend];
  });
}
