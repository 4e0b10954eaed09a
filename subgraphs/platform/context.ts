/** The GraphQL context every subgraph resolver receives, and how an origin builds it from a request. */
import type { FastifyRequest } from 'fastify';
import type { Principal } from './auth.js';
import type { Authenticate } from './authenticators.js';

export interface RequestContext {
  traceId: string;
  /**
   * Who is calling, verified on first use and memoised: public fields never touch the token, and a
   * field that needs a caller gets 401/503 (as an error with that code) when the token is bad.
   */
  principal(): Promise<Principal>;
  /** Spends one unit of the caller's expensive-operation budget (optimize), or throws 429 RATE_LIMITED. */
  limitExpensive(): Promise<void>;
}

export function lazyPrincipal(authenticate: () => Promise<Principal>): () => Promise<Principal> {
  let cached: Promise<Principal> | undefined;
  return () => (cached ??= authenticate());
}

/** An origin's GraphQL context: the caller is authenticated only when a resolver asks (lazyPrincipal). */
export const requestContext = (authenticate: Authenticate) => async (request: FastifyRequest): Promise<RequestContext> => ({
  traceId: request.traceId,
  principal: lazyPrincipal(() => authenticate(request)),
  limitExpensive: () => request.server.limitExpensive(request),
});
