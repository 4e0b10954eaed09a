/**
 * The three domain origins: each one Fastify server with the shared HTTP shell (platform/http), its
 * documented REST paths and its subgraph at /graphql. REST handlers and resolvers both call the
 * domain service; the service decides.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AllocationService } from '../subgraphs/allocation/service.js';
import { buildAllocationSubgraph } from '../subgraphs/allocation/graphql/schema.js';
import { AnalysisService } from '../subgraphs/analysis/service.js';
import { buildAnalysisSubgraph } from '../subgraphs/analysis/graphql/schema.js';
import {
  bearerToken,
  createOidcTokenVerifier,
  createPartnerTokenVerifier,
  type Principal,
} from '../subgraphs/platform/auth.js';
import type { Config, PartnerAuthConfig, Subgraph } from '../subgraphs/platform/config.js';
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

/** Partner access tokens: no header -> anonymous (demo rules apply); a bad token -> 401. */
function partnerAuthenticator(deps: OriginDeps, audience: string, log: () => KeySourceLog | undefined): Authenticate {
  const verifier = createPartnerTokenVerifier(deps.partnerAuth, audience, { onKeySourceError: keySourceError(log) });
  return async (request) => {
    const token = bearerToken(request.headers.authorization);
    return token === undefined ? { kind: 'anonymous' } : verifier.verify(token);
  };
}

/** OIDC ID tokens (search): the verifier applies the production/non-production rules. */
function oidcAuthenticator(deps: OriginDeps, log: () => KeySourceLog | undefined): Authenticate {
  const verifier = createOidcTokenVerifier(deps.config.oidc, deps.config.env, { onKeySourceError: keySourceError(log) });
  return async (request) => verifier.verify(bearerToken(request.headers.authorization));
}

function shell(deps: OriginDeps, origin: Subgraph, health: HealthPolicy, root?: () => Record<string, unknown>) {
  return {
    name: `tradegraph-${origin}`,
    version: VERSION,
    env: deps.config.env,
    logLevel: deps.config.logLevel,
    bodyLimitBytes: deps.config.bodyLimitBytes,
    db: deps.db,
    dbHealthTimeoutMs: deps.config.dbHealthTimeoutMs,
    health,
    root,
  };
}

const contextFor = (authenticate: Authenticate) => async (request: FastifyRequest): Promise<RequestContext> => ({
  traceId: request.traceId,
  principal: lazyPrincipal(() => authenticate(request)),
});

export async function buildAnalysisOrigin(deps: OriginDeps): Promise<FastifyInstance> {
  const analysis = new AnalysisService(deps.db, deps.config.demo.symbol);
  let app: FastifyInstance | undefined;
  const authenticate = partnerAuthenticator(deps, deps.config.auth.audiences.analysis, () => app?.log);
  const subgraph = await buildAnalysisSubgraph(analysis);
  app = await createOrigin({
    ...shell(
      deps,
      'analysis',
      // spec "Common to all three services": analysis /health -> status, version, timestamp; 503 unavailable.
      { failWhenDbDown: true, body: () => ({ version: VERSION, timestamp: new Date().toISOString() }) },
      () => ({ demo_symbol: analysis.demoSymbol }),
    ),
    graphql: { schema: subgraph.schema, context: contextFor(authenticate) },
  });
  return app;
}

export async function buildAllocationOrigin(deps: OriginDeps): Promise<FastifyInstance> {
  const allocation = new AllocationService();
  let app: FastifyInstance | undefined;
  const authenticate = partnerAuthenticator(deps, deps.config.auth.audiences.allocation, () => app?.log);
  const subgraph = await buildAllocationSubgraph(allocation);
  app = await createOrigin({
    // spec: allocation /health -> status; 503 unavailable.
    ...shell(deps, 'allocation', { failWhenDbDown: true, body: () => ({}) }),
    graphql: { schema: subgraph.schema, context: contextFor(authenticate) },
  });
  return app;
}

export async function buildSearchOrigin(deps: OriginDeps): Promise<FastifyInstance> {
  const search = new SearchService();
  let app: FastifyInstance | undefined;
  const authenticate = oidcAuthenticator(deps, () => app?.log);
  const subgraph = await buildSearchSubgraph(search);
  app = await createOrigin({
    // spec: search /health is a liveness probe -> always 200 with status ("degraded" without a database).
    ...shell(deps, 'search', { failWhenDbDown: false, body: () => ({}) }),
    graphql: { schema: subgraph.schema, context: contextFor(authenticate) },
  });
  // Never silently: a disabled check is announced at every start.
  if (!deps.config.oidc.enforce) app.log.warn('OIDC_ENFORCE=false: the search origin does not check ID tokens (non-production only)');
  return app;
}

export const ORIGIN_BUILDERS: Record<Subgraph, (deps: OriginDeps) => Promise<FastifyInstance>> = {
  analysis: buildAnalysisOrigin,
  allocation: buildAllocationOrigin,
  search: buildSearchOrigin,
};
