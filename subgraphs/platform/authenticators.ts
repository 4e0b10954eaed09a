/**
 * The origins' request authenticators: from a request's Authorization header to the caller (Principal),
 * with the token verifiers of auth.ts behind them.
 *
 * - Partner access tokens (analysis, allocation): no header -> anonymous (demo rules apply); a bad
 *   token -> 401.
 * - OIDC ID tokens (search): the verifier applies the production/non-production rules, with the
 *   development identity key resolved (dev-secret.ts resolveOidc).
 * - Each request is verified once, however many places (rate limiter, handler, resolvers) ask.
 * - Verified tokens can be remembered (memoizeVerifier): the read-heavy origins (analysis, search) use
 *   TOKEN_MEMO.
 * - A key source (JWKS, OIDC discovery) that cannot be fetched is reported to the origin's log.
 */
import type { FastifyRequest } from 'fastify';
import { bearerToken, createOidcTokenVerifier, createPartnerTokenVerifier, type AnonymousPrincipal, type Principal } from './auth.js';
import type { Config, PartnerAuthConfig } from './config.js';
import { resolveOidc } from './dev-secret.js';

export type Authenticate = (request: FastifyRequest) => Promise<Principal>;

/**
 * A partner authenticator that can also answer at once, without a promise, for a token it already
 * verified and still trusts (the REST fast lane); undefined means "ask the authenticator".
 */
export interface PartnerAuthenticate extends Authenticate {
  known(authorization: string | undefined): Principal | undefined;
}

/** A memoised verifier, with a synchronous look-up of the tokens it still trusts. */
export interface MemoizedVerifier<P extends Principal> {
  (token: string): Promise<P>;
  /** The principal of a remembered token still within its time, or undefined (then call the verifier). */
  known(token: string): P | undefined;
}

/** Where an origin reports that its token keys (JWKS, discovery) could not be fetched. */
export type KeySourceLog = { warn(obj: object, msg: string): void };
const keySourceError = (log: () => KeySourceLog | undefined) => (err: unknown) =>
  log()?.warn({ err }, 'token keys could not be fetched (JWKS or OIDC discovery); callers get 401');

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
export function memoizeVerifier<P extends Principal>(verify: (token: string) => Promise<P>, options: TokenMemoOptions): MemoizedVerifier<P> {
  const now = options.now ?? Date.now;
  const known = new Map<string, { principal: P; until: number }>();
  const lookUp = (token: string): P | undefined => {
    const hit = known.get(token);
    if (hit === undefined) return undefined;
    if (now() < hit.until) return hit.principal;
    known.delete(token);
    return undefined;
  };
  const memoized = async (token: string): Promise<P> => {
    const hit = lookUp(token);
    if (hit !== undefined) return hit;
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
  return Object.assign(memoized, { known: lookUp });
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

/** The caller without an Authorization header, settled once: nothing to verify, nothing to remember. */
const ANONYMOUS: Promise<Principal> = Promise.resolve(Object.freeze<AnonymousPrincipal>({ kind: 'anonymous' }));

/**
 * Partner access tokens for one audience: no header -> anonymous (demo rules apply); a bad token -> 401.
 * `partnerAuth` has the development secret resolved (dev-secret.ts resolvePartnerAuth). With `memo`,
 * verified tokens are remembered (see memoizeVerifier).
 */
export function partnerAuthenticator(partnerAuth: PartnerAuthConfig, audience: string, log: () => KeySourceLog | undefined, memo?: TokenMemoOptions): PartnerAuthenticate {
  const verifier = createPartnerTokenVerifier(partnerAuth, audience, { onKeySourceError: keySourceError(log) });
  const memoized = memo ? memoizeVerifier((token) => verifier.verify(token), memo) : undefined;
  const verify = memoized ?? ((token: string) => verifier.verify(token));
  const withHeader = oncePerRequest(async (request) => {
    const token = bearerToken(request.headers.authorization);
    return token === undefined ? ANONYMOUS : verify(token);
  });
  // Most demo traffic sends no header: it is anonymous at once, without the per-request memo.
  const authenticate: Authenticate = (request) => (request.headers.authorization === undefined ? ANONYMOUS : withHeader(request));
  const known = (authorization: string | undefined): Principal | undefined => {
    if (memoized === undefined || authorization === undefined) return undefined;
    let token: string | undefined;
    try {
      token = bearerToken(authorization);
    } catch {
      return undefined; // a malformed header: the authenticator answers it (401)
    }
    return token === undefined ? undefined : memoized.known(token);
  };
  return Object.assign(authenticate, { known });
}

/**
 * OIDC ID tokens (search): the verifier applies the production/non-production rules; verified tokens
 * are remembered like the analysis origin's (TOKEN_MEMO), a missing one is checked every time.
 */
export function oidcAuthenticator(config: Config, log: () => KeySourceLog | undefined): Authenticate {
  const verifier = createOidcTokenVerifier(resolveOidc(config), config.env, { onKeySourceError: keySourceError(log) });
  const verify = memoizeVerifier((token: string) => verifier.verify(token), TOKEN_MEMO);
  return oncePerRequest(async (request) => {
    const token = bearerToken(request.headers.authorization);
    return token === undefined || token === '' ? verifier.verify(token) : verify(token);
  });
}
