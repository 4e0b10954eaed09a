/** The GraphQL context every subgraph resolver receives. */
import type { Principal } from './auth.js';

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
