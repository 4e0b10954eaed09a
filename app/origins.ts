/**
 * The composition root of the three domain origins (analysis, allocation, search): each one Fastify
 * server with the shared HTTP shell (platform/http), its documented REST paths and its subgraph at
 * /graphql. REST handlers and resolvers both call the domain service; the service decides.
 *
 * Assembled here, per origin: the service, the subgraph, the route plugin (rest-compat/<origin>-routes.ts),
 * the rate limit (platform/rate-limit) and the authenticator (platform/authenticators).
 */
import type { FastifyInstance } from 'fastify';
import { allocationRoutes } from '../rest-compat/allocation-routes.js';
import { analysisRoutes } from '../rest-compat/analysis-routes.js';
import { ALLOCATION_SCHEMAS, ANALYSIS_SCHEMAS, SEARCH_SCHEMAS } from '../rest-compat/schemas.js';
import { searchRoutes } from '../rest-compat/search-routes.js';
import { buildAllocationSubgraph } from '../subgraphs/allocation/graphql/schema.js';
import { PortfolioService } from '../subgraphs/allocation/portfolios.js';
import { AllocationService } from '../subgraphs/allocation/service.js';
import { UniverseCache } from '../subgraphs/allocation/universe.js';
import { buildAnalysisSubgraph } from '../subgraphs/analysis/graphql/schema.js';
import { AnalysisService } from '../subgraphs/analysis/service.js';
import { oidcAuthenticator, partnerAuthenticator, TOKEN_MEMO, type Authenticate } from '../subgraphs/platform/authenticators.js';
import type { Config, PartnerAuthConfig, Subgraph } from '../subgraphs/platform/config.js';
import { requestContext } from '../subgraphs/platform/context.js';
import type { Db } from '../subgraphs/platform/db.js';
import { createOrigin, type HealthPolicy } from '../subgraphs/platform/http.js';
import { VERSION } from '../subgraphs/platform/project.js';
import { callerKey, originRateLimit } from '../subgraphs/platform/rate-limit.js';
import { buildSearchSubgraph } from '../subgraphs/search/graphql/schema.js';
import { SearchService } from '../subgraphs/search/service.js';
import { ideQuery } from './ide-queries.js';

export interface OriginDeps {
  config: Config;
  /** Partner auth with the development secret resolved (platform/dev-secret). */
  partnerAuth: PartnerAuthConfig;
  db: Db;
}

function shell(deps: OriginDeps, origin: Subgraph, authenticate: Authenticate, health: HealthPolicy, root?: () => Record<string, unknown>) {
  return {
    graphqlIde: { enabled: deps.config.graphqlIde, defaultQuery: ideQuery(origin, deps.config.demo.symbol) },
    rateLimit: originRateLimit(deps.config, origin, callerKey(authenticate)),
    trustProxy: deps.config.trustProxy,
    corsOrigins: deps.config.corsOrigins,
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
  const authenticate = partnerAuthenticator(deps.partnerAuth, deps.config.auth.audiences.analysis, () => app?.log, TOKEN_MEMO);
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
    graphql: { schema: subgraph.schema, context: requestContext(authenticate), limits: deps.config.graphqlLimits },
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
  const universes = universeCacheFor(deps);
  const allocation = new AllocationService(deps.db, { universes });
  // A partner's books: created, traded, read and rebalanced over the same candidate universe.
  const portfolios = new PortfolioService(deps.db, { universes });
  let app: FastifyInstance | undefined;
  const authenticate = partnerAuthenticator(deps.partnerAuth, deps.config.auth.audiences.allocation, () => app?.log);
  const subgraph = await buildAllocationSubgraph(allocation, portfolios);
  app = await createOrigin({
    // spec: allocation /health -> status; 503 unavailable.
    ...shell(deps, 'allocation', authenticate, { failWhenDbDown: true, body: () => ({}) }),
    schemas: ALLOCATION_SCHEMAS,
    authChallenge: 'Bearer realm="tradegraph-allocation"',
    graphql: { schema: subgraph.schema, context: requestContext(authenticate), limits: deps.config.graphqlLimits },
  });
  // spec "Allocation service": optimize; DESIGN section 5: the demo body; DESIGN section 8: a partner's books.
  await app.register(allocationRoutes, { allocation, portfolios, authenticate });
  return app;
}

export async function buildSearchOrigin(deps: OriginDeps): Promise<FastifyInstance> {
  const search = new SearchService(deps.db, { universes: universeCacheFor(deps) });
  let app: FastifyInstance | undefined;
  const authenticate = oidcAuthenticator(deps.config, () => app?.log);
  const subgraph = await buildSearchSubgraph(search);
  app = await createOrigin({
    // spec: search /health is a liveness probe -> always 200 with status ("degraded" without a database).
    ...shell(deps, 'search', authenticate, { failWhenDbDown: false, body: () => ({}) }),
    schemas: SEARCH_SCHEMAS,
    authChallenge: 'Bearer realm="tradegraph-search"',
    graphql: { schema: subgraph.schema, context: requestContext(authenticate), limits: deps.config.graphqlLimits },
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
