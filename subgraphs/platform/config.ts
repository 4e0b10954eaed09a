/**
 * Configuration from environment variables. Every variable is documented in README.md ("Configuration").
 * loadConfig is pure (env in, typed config out) and fails fast with every problem listed.
 */
import os from 'node:os';
import type { JWK } from 'jose';
import { DEFAULT_GRAPHQL_LIMITS, type GraphqlLimits } from './graphql-limits.js';
import path from 'node:path';

export type AppEnv = 'production' | 'development' | 'test';
export type Origin = 'analysis' | 'allocation' | 'search' | 'gateway';
export const ORIGINS: readonly Origin[] = ['analysis', 'allocation', 'search', 'gateway'];
export type Subgraph = Exclude<Origin, 'gateway'>;
export const SUBGRAPHS: readonly Subgraph[] = ['analysis', 'allocation', 'search'];

/** Per-caller request budgets, applied by platform/rate-limit. */
export interface RateLimitConfig {
  enabled: boolean;
  /** Requests per window per caller, unless the origin or the partner has its own. */
  max: number;
  /** Expensive operations (optimize, hunt, cash hunt) per window per caller, on top of the request budget. */
  expensiveMax: number;
  windowMs: number;
  /** Partner `sub` -> requests per window. */
  perPartner: Record<string, number>;
  redisUrl: string | undefined;
  /** A Redis command slower than this opens the breaker (REDIS_COMMAND_TIMEOUT_MS when omitted). */
  redisCommandTimeoutMs?: number;
  /** How long the open breaker waits before probing Redis again (REDIS_BREAKER_COOLDOWN_MS when omitted). */
  redisBreakerCooldownMs?: number;
}

/** Partner access tokens (analysis and allocation origins). */
export interface PartnerAuthConfig {
  issuer: string;
  audiences: { analysis: string; allocation: string };
  /** HS256 shared secret; accepted only outside production. */
  hs256Secret: string | undefined;
  /** JWKS URL for RS256/ES256 keys (required in production). */
  jwksUrl: string | undefined;
  algorithms: string[];
  clockToleranceSeconds: number;
  /** Public keys trusted without a JWKS URL (development identity key only, platform/dev-secret.ts). */
  localKeys?: JWK[];
}

/** OIDC ID tokens (search origin). */
export interface OidcConfig {
  issuer: string | undefined;
  /** Defaults to the issuer's discovery document (`/.well-known/openid-configuration`). */
  jwksUrl: string | undefined;
  audiences: string[];
  /** false only outside production: the search origin then serves unauthenticated callers. */
  enforce: boolean;
  clockToleranceSeconds: number;
  /** Public keys used instead of the issuer's JWKS (development identity key only, platform/dev-secret.ts). */
  localKeys?: JWK[];
}

export interface DemoConfig {
  symbol: string;
  seed: number;
  symbolCount: number;
  years: number;
  endDate: string;
  /** Load the synthetic demo market on start when the store has no securities. */
  loadOnStart: boolean;
}

export interface AnalysisConfig {
  /** Worker threads of the analysis pipeline (0 = inline). */
  workers: number;
  /** On start, analyse the last `onStartDays` trading days when the latest one has no snapshots. */
  analyzeOnStart: boolean;
  onStartDays: number;
  /**
   * On start, make sure every Nth trading day of the whole calendar has snapshots, then measure the
   * evidence tables and Kelly odds on them (cli/evidence-history.ts); 0 turns it off.
   */
  historyEvery: number;
  /** How long a latest snapshot may be served from memory before it is read again. */
  cacheTtlMs: number;
}

export interface AllocationConfig {
  /**
   * How long an allocation origin trusts its candidate universe before asking the store whether the
   * newest snapshots changed (0: ask on every optimize).
   */
  universeTtlMs: number;
}

/**
 * Which browser origins may call the origins (CORS_ORIGINS): any, a list of exact origins, or (the
 * development default) any http://localhost and http://127.0.0.1 origin, whatever its port.
 */
export type CorsOrigins = { kind: 'any' } | { kind: 'exact'; origins: readonly string[] } | { kind: 'loopback' };

export interface Config {
  /** Browser origins allowed to read responses (platform/cors.ts); none by default in production. */
  corsOrigins: CorsOrigins;
  /** Limits on every GraphQL operation, subgraphs and gateway alike (platform/graphql-limits). */
  graphqlLimits: GraphqlLimits;
  /** Serve the GraphQL IDE at GET /graphql (GRAPHQL_IDE; default on, off in production). */
  graphqlIde: boolean;
  /** Per-caller request budgets (platform/rate-limit); `perOrigin` overrides `max` for one origin. */
  rateLimit: RateLimitConfig & { perOrigin: Partial<Record<Origin, number>> };
  /** Fastify trustProxy: which proxies' X-Forwarded-For names the client (false: none). */
  trustProxy: boolean | string;
  env: AppEnv;
  host: string;
  ports: Record<Origin, number>;
  dataDir: string;
  databaseUrl: string | undefined;
  /** npm start runs start-up steps with bulk work to do in a child process of their own (START_UP_CHILD; default on). */
  startUpChild: boolean;
  logLevel: string;
  bodyLimitBytes: number;
  /** Deepest nesting of arrays and objects a request document (JSON body, GraphQL variables) may have. */
  maxJsonDepth: number;
  dbHealthTimeoutMs: number;
  /** Longest a request waits on the store (one statement, or a connection from the pool) before 503. */
  dbQueryTimeoutMs: number;
  marketIndexSymbol: string;
  demo: DemoConfig;
  analysis: AnalysisConfig;
  allocation: AllocationConfig;
  auth: PartnerAuthConfig;
  oidc: OidcConfig;
  gateway: {
    /**
     * Where the gateway sends a subgraph's requests instead of the URL its supergraph names
     * (SUBGRAPH_<NAME>_URL); a subgraph without one is routed as the supergraph says.
     */
    subgraphUrls: Partial<Record<Subgraph, string>>;
    subgraphTimeoutMs: number;
    /** The supergraph the gateway serves (SUPERGRAPH_PATH; default the committed schema/supergraph.graphql). */
    supergraphPath: string | undefined;
    /**
     * The manifests of trusted operations (TRUSTED_DOCUMENTS, comma-separated, one per client), each
     * resolved, each file once; when set, the gateway runs only the operations they list.
     */
    trustedDocumentsPaths: readonly string[] | undefined;
    /** Serve the web console at GET /console (CONSOLE; default on, off in production). */
    console: boolean;
    /** npm start runs the gateway origin in a worker thread of its own (GATEWAY_THREAD; default on). */
    thread: boolean;
    /** Identical query fetches in flight share one subgraph request (GATEWAY_DEDUPE; default on). */
    dedupe: boolean;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** Parses the entries of RATE_LIMIT_PARTNERS (`sub=max`); problems are reported by name. */
function parsePartnerBudgets(entries: readonly string[], problems: string[]): Record<string, number> {
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

/**
 * CORS_ORIGINS: `*`, or comma-separated exact origins (`scheme://host[:port]`, no path); unset: the
 * loopback origins outside production, none in production. Problems are reported by name.
 */
function parseCorsOrigins(raw: string | undefined, production: boolean, problems: string[]): CorsOrigins {
  if (raw === undefined) return production ? { kind: 'exact', origins: [] } : { kind: 'loopback' };
  const entries = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (entries.includes('*')) {
    if (entries.length > 1) problems.push('CORS_ORIGINS: * allows every origin and cannot be combined with others');
    return { kind: 'any' };
  }
  const origins: string[] = [];
  for (const entry of entries) {
    let origin: string | undefined;
    try {
      const url = new URL(entry);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === entry) origin = url.origin;
    } catch {
      origin = undefined;
    }
    if (origin === undefined) problems.push(`CORS_ORIGINS: "${entry}" is not an origin (http(s)://host[:port], lower case, no path or trailing slash)`);
    else origins.push(origin);
  }
  return { kind: 'exact', origins };
}

/**
 * SUBGRAPH_<NAME>_URL of each subgraph that has one (blank is unset): where a gateway routes it, and
 * what `schema:compose` writes into a supergraph. Each must be an absolute http(s) URL; problems are
 * reported by variable. The gateway origin and schema:compose both read them here.
 */
export function subgraphUrlsFromEnv(env: NodeJS.ProcessEnv, problems: string[]): Partial<Record<Subgraph, string>> {
  const urls: Partial<Record<Subgraph, string>> = {};
  for (const subgraph of SUBGRAPHS) {
    const variable = `SUBGRAPH_${subgraph.toUpperCase()}_URL`;
    const raw = env[variable]?.trim();
    if (!raw) continue;
    let protocol: string | undefined;
    try {
      protocol = new URL(raw).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol === 'http:' || protocol === 'https:') urls[subgraph] = raw;
    else problems.push(`${variable} must be an http(s) URL (got "${raw}")`);
  }
  return urls;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const str = (name: string, fallback: string): string => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? fallback : v.trim();
  };
  const opt = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = opt(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = opt(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
    if (['0', 'false', 'no', 'off'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const list = (name: string, fallback: string[]): string[] => {
    const raw = opt(name);
    return raw === undefined ? fallback : raw.split(',').map((s) => s.trim()).filter(Boolean);
  };

  const rawEnv = str('APP_ENV', env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development');
  let appEnv: AppEnv = 'development';
  if (rawEnv === 'production' || rawEnv === 'development' || rawEnv === 'test') appEnv = rawEnv;
  else problems.push(`APP_ENV must be production, development or test (got "${rawEnv}")`);
  const production = appEnv === 'production';

  const logLevel = str('LOG_LEVEL', appEnv === 'test' ? 'silent' : 'info');
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const databaseUrl = opt('DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }

  const demoEndDate = str('DEMO_END_DATE', '2026-10-30');
  if (!DATE_RE.test(demoEndDate) || Number.isNaN(Date.parse(demoEndDate))) {
    problems.push(`DEMO_END_DATE must be a date YYYY-MM-DD (got "${demoEndDate}")`);
  }

  const defaultAlgorithms = production ? ['RS256', 'ES256'] : ['HS256', 'RS256', 'ES256'];
  const algorithms = list('AUTH_ALGORITHMS', defaultAlgorithms);
  const allowedAlgorithms = ['HS256', 'RS256', 'ES256', 'PS256'];
  for (const alg of algorithms) {
    if (!allowedAlgorithms.includes(alg)) problems.push(`AUTH_ALGORITHMS: ${alg} is not supported (${allowedAlgorithms.join(', ')})`);
  }
  const hs256Secret = opt('AUTH_HS256_SECRET');
  const jwksUrl = opt('AUTH_JWKS_URL');
  if (production) {
    if (algorithms.includes('HS256')) problems.push('AUTH_ALGORITHMS may not include HS256 in production');
    if (hs256Secret) problems.push('AUTH_HS256_SECRET is for development only; production verifies RS256/ES256 tokens from AUTH_JWKS_URL');
    if (!jwksUrl) problems.push('AUTH_JWKS_URL is required in production');
    if (!opt('AUTH_ISSUER')) problems.push('AUTH_ISSUER is required in production');
  }
  if (hs256Secret && Buffer.byteLength(hs256Secret) < 32) problems.push('AUTH_HS256_SECRET must be at least 32 bytes');

  if (production && /^(1|true|yes|on)$/i.test(opt('TRUST_PROXY') ?? '')) {
    problems.push('TRUST_PROXY=true would let any client choose its address (X-Forwarded-For); name the proxies instead (addresses or CIDRs)');
  }
  const redisUrl = opt('REDIS_URL');
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) problems.push('REDIS_URL must start with redis:// or rediss://');

  const oidcEnforce = bool('OIDC_ENFORCE', true);
  if (production && !oidcEnforce) problems.push('OIDC_ENFORCE=false is not allowed in production');

  const host = str('HOST', '127.0.0.1');
  const ports: Record<Origin, number> = {
    analysis: int('ANALYSIS_PORT', 8081, 0, 65535),
    allocation: int('ALLOCATION_PORT', 8082, 0, 65535),
    search: int('SEARCH_PORT', 8083, 0, 65535),
    gateway: int('GATEWAY_PORT', 4000, 0, 65535),
  };

  const config: Config = {
    corsOrigins: parseCorsOrigins(opt('CORS_ORIGINS'), production, problems),
    graphqlIde: bool('GRAPHQL_IDE', !production),
    env: appEnv,
    host,
    ports,
    dataDir: path.resolve(str('DATA_DIR', './.data')),
    databaseUrl,
    startUpChild: bool('START_UP_CHILD', true),
    logLevel,
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 1_048_576, 1024, 104_857_600),
    maxJsonDepth: int('MAX_JSON_DEPTH', 64, 2, 1000),
    dbHealthTimeoutMs: int('DB_HEALTH_TIMEOUT_MS', 2000, 50, 60_000),
    dbQueryTimeoutMs: int('DB_QUERY_TIMEOUT_MS', 5000, 100, 600_000),
    marketIndexSymbol: str('MARKET_INDEX_SYMBOL', 'TGMI').toUpperCase(),
    demo: {
      symbol: str('DEMO_SYMBOL', 'ACME').toUpperCase(),
      seed: int('DEMO_SEED', 20240614, 0, 2 ** 31 - 1),
      symbolCount: int('DEMO_SYMBOL_COUNT', 500, 11, 20_000),
      years: int('DEMO_YEARS', 3, 1, 30),
      endDate: demoEndDate,
      loadOnStart: bool('DEMO_DATA', true),
    },
    rateLimit: {
      enabled: bool('RATE_LIMIT_ENABLED', true),
      max: int('RATE_LIMIT_MAX', 600, 1, 10_000_000),
      expensiveMax: int('RATE_LIMIT_EXPENSIVE_MAX', 60, 1, 10_000_000),
      windowMs: int('RATE_LIMIT_WINDOW_MS', 60_000, 100, 86_400_000),
      perOrigin: Object.fromEntries(
        ORIGINS.map((o) => [o, opt(`RATE_LIMIT_${o.toUpperCase()}_MAX`) === undefined ? undefined : int(`RATE_LIMIT_${o.toUpperCase()}_MAX`, 1, 1, 10_000_000)]).filter(([, v]) => v !== undefined),
      ) as Partial<Record<Origin, number>>,
      perPartner: parsePartnerBudgets(list('RATE_LIMIT_PARTNERS', []), problems),
      redisUrl,
      redisCommandTimeoutMs: int('REDIS_COMMAND_TIMEOUT_MS', 50, 5, 5000),
      redisBreakerCooldownMs: int('REDIS_BREAKER_COOLDOWN_MS', 2000, 100, 600_000),
    },
    trustProxy: trustProxy(opt('TRUST_PROXY') ?? 'loopback'),
    graphqlLimits: {
      maxTokens: int('GRAPHQL_MAX_TOKENS', DEFAULT_GRAPHQL_LIMITS.maxTokens, 100, 1_000_000),
      maxDepth: int('GRAPHQL_MAX_DEPTH', DEFAULT_GRAPHQL_LIMITS.maxDepth, 2, 100),
      maxAliases: int('GRAPHQL_MAX_ALIASES', DEFAULT_GRAPHQL_LIMITS.maxAliases, 0, 10_000),
      maxDirectives: int('GRAPHQL_MAX_DIRECTIVES', DEFAULT_GRAPHQL_LIMITS.maxDirectives, 0, 10_000),
      maxCost: int('GRAPHQL_MAX_COST', DEFAULT_GRAPHQL_LIMITS.maxCost, 10, 100_000_000),
    },
    analysis: {
      workers: int('ANALYZE_WORKERS', Math.max(1, os.availableParallelism()), 0, 256),
      analyzeOnStart: bool('ANALYZE_ON_START', true),
      onStartDays: int('ANALYZE_ON_START_DAYS', 60, 1, 5000),
      historyEvery: int('ANALYZE_HISTORY_EVERY', 10, 0, 1000),
      cacheTtlMs: int('ANALYSIS_CACHE_TTL_MS', 5000, 0, 3_600_000),
    },
    allocation: {
      universeTtlMs: int('ALLOCATION_UNIVERSE_TTL_MS', 1000, 0, 3_600_000),
    },
    auth: {
      issuer: str('AUTH_ISSUER', 'tradegraph-dev'),
      audiences: {
        analysis: str('AUTH_AUDIENCE_ANALYSIS', 'tradegraph-analysis'),
        allocation: str('AUTH_AUDIENCE_ALLOCATION', 'tradegraph-allocation'),
      },
      hs256Secret,
      jwksUrl,
      algorithms,
      clockToleranceSeconds: int('AUTH_CLOCK_TOLERANCE_SECONDS', 30, 0, 300),
    },
    oidc: {
      issuer: opt('OIDC_ISSUER'),
      jwksUrl: opt('OIDC_JWKS_URL'),
      audiences: list('OIDC_AUDIENCES', []),
      enforce: oidcEnforce,
      clockToleranceSeconds: int('OIDC_CLOCK_TOLERANCE_SECONDS', 30, 0, 300),
    },
    gateway: {
      subgraphUrls: subgraphUrlsFromEnv(env, problems),
      subgraphTimeoutMs: int('SUBGRAPH_TIMEOUT_MS', 5000, 100, 120_000),
      supergraphPath: opt('SUPERGRAPH_PATH') === undefined ? undefined : path.resolve(str('SUPERGRAPH_PATH', '')),
      trustedDocumentsPaths: trustedDocumentsPaths(list('TRUSTED_DOCUMENTS', []), opt('TRUSTED_DOCUMENTS'), problems),
      console: bool('CONSOLE', !production),
      thread: bool('GATEWAY_THREAD', true),
      dedupe: bool('GATEWAY_DEDUPE', true),
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * TRUSTED_DOCUMENTS: a manifest path, or several separated by commas (a deployment has a manifest per
 * client); each resolved, the same file once. A value that names no file is a problem rather than "no
 * list", so a typo cannot switch the list off.
 */
function trustedDocumentsPaths(entries: string[], raw: string | undefined, problems: string[]): readonly string[] | undefined {
  if (raw === undefined) return undefined;
  const paths = [...new Set(entries.map((entry) => path.resolve(entry)))];
  if (paths.length === 0) {
    problems.push(`TRUSTED_DOCUMENTS must be a manifest path or comma-separated paths (got "${raw}")`);
    return undefined;
  }
  return paths;
}

/** TRUST_PROXY: false -> trust no proxy; true -> any; otherwise addresses or CIDRs (default `loopback`). */
function trustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || ['', '0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  return raw;
}
