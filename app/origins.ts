/**
 * The three domain origins: each one Fastify server with the shared HTTP shell (platform/http), its
 * documented REST paths and its subgraph at /graphql. REST handlers and resolvers both call the
 * domain service; the service decides. Each origin's REST paths are in rest-compat/<origin>-routes.ts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AllocationService } from '../subgraphs/allocation/service.js';
import { UniverseCache } from '../subgraphs/allocation/universe.js';
import { buildAllocationSubgraph } from '../subgraphs/allocation/graphql/schema.js';
import { AnalysisService } from '../subgraphs/analysis/service.js';
import { analysisRoutes } from '../rest-compat/analysis-routes.js';
import { buildAnalysisSubgraph } from '../subgraphs/analysis/graphql/schema.js';
import {
  bearerToken,
  createOidcTokenVerifier,
  createPartnerTokenVerifier,
  type Principal,
} from '../subgraphs/platform/auth.js';
import type { Config, PartnerAuthConfig, Subgraph } from '../subgraphs/platform/config.js';
import { addressKey, originRateLimit } from '../subgraphs/platform/rate-limit.js';
import { resolveOidc } from '../subgraphs/platform/dev-secret.js';
import { ALLOCATION_SCHEMAS, ANALYSIS_SCHEMAS, SEARCH_SCHEMAS } from '../rest-compat/schemas.js';
import { searchRoutes } from '../rest-compat/search-routes.js';
import { allocationRoutes } from '../rest-compat/allocation-routes.js';
import { lazyPrincipal, type RequestContext } from '../subgraphs/platform/context.js';
import type { Db } from '../subgraphs/platform/db.js';
import { createOrigin, type HealthPolicy } from '../subgraphs/platform/http.js';
import { VERSION } from '../subgraphs/platform/project.js';
import { SearchService } from '../subgraphs/search/service.js';
import { buildSearchSubgraph } from '../subgraphs/search/graphql/schema.js';

export interface OriginDeps {
  config: Config;
  /** Partner auth with the development secret resolved (platform/dev-secret). */
  partnerAuth: PartnerAuthConfig;
  db: Db;
}

export type Authenticate = (request: FastifyRequest) => Promise<Principal>;

/** Where an origin reports that its token keys (JWKS, discovery) could not be fetched. */
type KeySourceLog = { warn(obj: object, msg: string): void };
const keySourceError = (log: () => KeySourceLog | undefined) => (err: unknown) =>
  log()?.warn({ err }, 'token keys could not be fetched (JWKS or OIDC discovery); callers get 401');

/**
 * Partner access tokens: no header -> anonymous (demo rules apply); a bad token -> 401.
 * With `memo`, verified tokens are remembered (see memoizeVerifier).
 */
function partnerAuthenticator(deps: OriginDeps, audience: string, log: () => KeySourceLog | undefined, memo?: TokenMemoOptions): Authenticate {
  const verifier = createPartnerTokenVerifier(deps.partnerAuth, audience, { onKeySourceError: keySourceError(log) });
  const verify = memo ? memoizeVerifier((token) => verifier.verify(token), memo) : (token: string) => verifier.verify(token);
  return oncePerRequest(async (request) => {
    const token = bearerToken(request.headers.authorization);
    return token === undefined ? { kind: 'anonymous' } : verify(token);
  });
}

/** One verification per request, however many places (rate limiter, handler, resolvers) ask. */
function oncePerRequest(authenticate: Authenticate): Authenticate {
  const seen = new WeakMap<FastifyRequest, Promise<Principal>>();
  return (request) => {
    let principal = seen.get(request);
    if (!principal) {
      principal = authenticate(request);
      seen.set(request, principal);
    }
    return principal;
  };
}

/** The rate-limit caller: a verified partner or OIDC subject, else the client address. */
const callerKey = (authenticate: Authenticate) => async (request: FastifyRequest): Promise<string> => {
  const principal = await authenticate(request).catch(() => null);
  if (principal?.kind === 'partner') return `partner:${principal.partnerId}`;
  if (principal?.kind === 'oidc') return `oidc:${principal.subject}`;
  return addressKey(request.ip);
};


export interface TokenMemoOptions {
  /** Longest time a verified token is trusted without checking its signature again. */
  maxAgeMs: number;
  /** Tokens remembered at most (the oldest makes room). */
  maxTokens: number;
  now?: () => number;
}

/** The token memo of the read-heavy origins (analysis, search): a caller's repeated reads cost one signature check a minute. */
export const TOKEN_MEMO: TokenMemoOptions = { maxAgeMs: 60_000, maxTokens: 10_000 };

/**
 * Remembers verified tokens by their exact text, so repeated requests with one token skip the
 * signature check (tens of microseconds, most of a cached read's cost). A remembered token is trusted
 * until the earlier of its own `exp` and `maxAgeMs` after it was verified; then it is verified in full
 * again. Only successes are remembered: a refused token is checked again on every request. The price:
 * a signing key withdrawn from the JWKS keeps its already-verified tokens valid for up to `maxAgeMs`.
 */
export function memoizeVerifier<P extends Principal>(verify: (token: string) => Promise<P>, options: TokenMemoOptions): (token: string) => Promise<P> {
  const now = options.now ?? Date.now;
  const known = new Map<string, { principal: P; until: number }>();
  return async (token) => {
    const hit = known.get(token);
    if (hit) {
      if (now() < hit.until) return hit.principal;
      known.delete(token);
    }
    const principal = await verify(token);
    const claims = 'claims' in principal ? principal.claims : {};
    const exp = typeof claims.exp === 'number' ? claims.exp * 1000 : 0;
    const until = Math.min(exp, now() + options.maxAgeMs);
    if (until > now()) {
      known.set(token, { principal, until });
      if (known.size > options.maxTokens) {
        const oldest = known.keys().next().value;
        if (oldest !== undefined) known.delete(oldest);
      }
    }
    return principal;
  };
}

/**
 * OIDC ID tokens (search): the verifier applies the production/non-production rules; verified tokens
 * are remembered like the analysis origin's (TOKEN_MEMO), a missing one is checked every time.
 */
function oidcAuthenticator(deps: OriginDeps, log: () => KeySourceLog | undefined): Authenticate {
  const verifier = createOidcTokenVerifier(resolveOidc(deps.config), deps.config.env, { onKeySourceError: keySourceError(log) });
  const verify = memoizeVerifier((token: string) => verifier.verify(token), TOKEN_MEMO);
  return oncePerRequest(async (request) => {
    const token = bearerToken(request.headers.authorization);
    return token === undefined || token === '' ? verifier.verify(token) : verify(token);
  });
}

function shell(deps: OriginDeps, origin: Subgraph, authenticate: Authenticate, health: HealthPolicy, root?: () => Record<string, unknown>) {
  return {
    rateLimit: originRateLimit(deps.config, origin, callerKey(authenticate)),
    trustProxy: deps.config.trustProxy,
    name: `tradegraph-${origin}`,
    version: VERSION,
    env: deps.config.env,
    logLevel: deps.config.logLevel,
    bodyLimitBytes: deps.config.bodyLimitBytes,
    maxJsonDepth: deps.config.maxJsonDepth,
    db: deps.db,
    dbHealthTimeoutMs: deps.config.dbHealthTimeoutMs,
    health,
    root,
  };
}

const contextFor = (authenticate: Authenticate) => async (request: FastifyRequest): Promise<RequestContext> => ({
  traceId: request.traceId,
  principal: lazyPrincipal(() => authenticate(request)),
  limitExpensive: () => request.server.limitExpensive(request),
});

export interface AnalysisOriginOptions {
  /**
   * Serve this service instance instead of a new one: whoever writes snapshots in this process keeps it
   * to call invalidateSnapshots(), or builds it with its own cache TTL.
   */
  service?: AnalysisService;
}

/** The analysis service each analysis origin serves (the pipeline invalidates its cache through it). */
const analysisServices = new WeakMap<FastifyInstance, AnalysisService>();

export function analysisServiceOf(app: FastifyInstance): AnalysisService | undefined {
  return analysisServices.get(app);
}

export async function buildAnalysisOrigin(deps: OriginDeps, options: AnalysisOriginOptions = {}): Promise<FastifyInstance> {
  const analysis = options.service ?? new AnalysisService(deps.db, deps.config.demo.symbol, { snapshotCacheTtlMs: deps.config.analysis.cacheTtlMs });
  let app: FastifyInstance | undefined;
  const authenticate = partnerAuthenticator(deps, deps.config.auth.audiences.analysis, () => app?.log, TOKEN_MEMO);
  const subgraph = await buildAnalysisSubgraph(analysis);
  app = await createOrigin({
    ...shell(
      deps,
      'analysis',
      authenticate,
      // spec "Common to all three services": analysis /health -> status, version, timestamp; 503 unavailable.
      { failWhenDbDown: true, body: () => ({ version: VERSION, timestamp: new Date().toISOString() }) },
      () => ({ demo_symbol: analysis.demoSymbol }),
    ),
    schemas: ANALYSIS_SCHEMAS,
    graphql: { schema: subgraph.schema, context: contextFor(authenticate), limits: deps.config.graphqlLimits },
  });
  // spec "Analysis service": the read route and (DESIGN section 5) the demo route.
  await app.register(analysisRoutes, { analysis, authenticate, realm: 'tradegraph-analysis' });
  analysisServices.set(app, analysis);
  return app;
}

/**
 * The candidate universe of a store, one per process: the allocation and search origins of `npm start`
 * read every newest snapshot (and the closes they need) once between them, not once each.
 */
const universeCaches = new WeakMap<Db, Map<number, UniverseCache>>();
function universeCacheFor(deps: OriginDeps): UniverseCache {
  const ttlMs = deps.config.allocation.universeTtlMs;
  let byTtl = universeCaches.get(deps.db);
  if (!byTtl) universeCaches.set(deps.db, (byTtl = new Map()));
  let cache = byTtl.get(ttlMs);
  if (!cache) byTtl.set(ttlMs, (cache = new UniverseCache(deps.db, ttlMs)));
  return cache;
}

export async function buildAllocationOrigin(deps: OriginDeps): Promise<FastifyInstance> {
  const allocation = new AllocationService(deps.db, { universes: universeCacheFor(deps) });
  let app: FastifyInstance | undefined;
  const authenticate = partnerAuthenticator(deps, deps.config.auth.audiences.allocation, () => app?.log);
  const subgraph = await buildAllocationSubgraph(allocation);
  app = await createOrigin({
    // spec: allocation /health -> status; 503 unavailable.
    ...shell(deps, 'allocation', authenticate, { failWhenDbDown: true, body: () => ({}) }),
    schemas: ALLOCATION_SCHEMAS,
    authChallenge: 'Bearer realm="tradegraph-allocation"',
    graphql: { schema: subgraph.schema, context: contextFor(authenticate), limits: deps.config.graphqlLimits },
  });
  // spec "Allocation service": optimize; DESIGN section 5: the demo body; a partner's stored results.
  await app.register(allocationRoutes, { allocation, authenticate });
  return app;
}

export async function buildSearchOrigin(deps: OriginDeps): Promise<FastifyInstance> {
  const search = new SearchService(deps.db, { universes: universeCacheFor(deps) });
  let app: FastifyInstance | undefined;
  const authenticate = oidcAuthenticator(deps, () => app?.log);
  const subgraph = await buildSearchSubgraph(search);
  app = await createOrigin({
    // spec: search /health is a liveness probe -> always 200 with status ("degraded" without a database).
    ...shell(deps, 'search', authenticate, { failWhenDbDown: false, body: () => ({}) }),
    schemas: SEARCH_SCHEMAS,
    authChallenge: 'Bearer realm="tradegraph-search"',
    graphql: { schema: subgraph.schema, context: contextFor(authenticate), limits: deps.config.graphqlLimits },
  });
  // spec "Opportunity-search service": hunt and cash hunt over the caller's stored portfolios.
  await app.register(searchRoutes, { search, authenticate });
  // Never silently: a disabled check is announced at every start.
  if (!deps.config.oidc.enforce) app.log.warn('OIDC_ENFORCE=false: the search origin does not check ID tokens (non-production only)');
  return app;
}

export const ORIGIN_BUILDERS: Record<Subgraph, (deps: OriginDeps) => Promise<FastifyInstance>> = {
  analysis: buildAnalysisOrigin,
  allocation: buildAllocationOrigin,
  search: buildSearchOrigin,
};
