/**
 * Bearer-token authentication for the origins.
 *
 * - Partner access tokens (analysis and allocation origins): HS256 with a shared secret (development only)
 *   or RS256/ES256/PS256 against a remote JWKS. The key source is chosen from the token's `alg`, so an
 *   HS256 token is never checked against a public key (HS/RS algorithm confusion).
 * - OIDC ID tokens (search origin): asymmetric algorithms only, keys from the configured JWKS URL or the
 *   issuer's discovery document, audience from an allow-list.
 * - In development only, both may trust the local development identity key (`localKeys`,
 *   platform/dev-secret.ts) instead of a JWKS URL.
 *
 * Both refuse a token whose `iat` (issued at) lies in the future by more than the clock tolerance
 * (AUTH_CLOCK_TOLERANCE_SECONDS / OIDC_CLOCK_TOLERANCE_SECONDS), as they do for `nbf` and `exp`: a
 * token minted ahead of time (or by an issuer whose clock is wrong) is not accepted early. `iat` stays
 * optional.
 *
 * Every failure becomes an AppError with a short, safe message (401 UNAUTHENTICATED, or 503
 * AUTH_NOT_CONFIGURED when the server itself is not set up); no jose error, stack or key material ever
 * reaches a client. Key-source failures (JWKS or discovery endpoint down) can be observed server-side
 * through the optional `onKeySourceError` hook.
 */
import { SignJWT, createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type {
  CryptoKey,
  FlattenedJWSInput,
  JWK,
  JWTHeaderParameters,
  JWTPayload,
  JWTVerifyGetKey,
  KeyObject,
} from 'jose';
import type { AppEnv, OidcConfig, PartnerAuthConfig } from './config.js';
import { AppError } from './errors.js';

export interface PartnerPrincipal {
  kind: 'partner';
  /** The token's `sub` claim. */
  partnerId: string;
  claims: JWTPayload;
}

export interface OidcPrincipal {
  kind: 'oidc';
  /** The ID token's `sub` claim. */
  subject: string;
  claims: JWTPayload;
}

export interface AnonymousPrincipal {
  kind: 'anonymous';
}

export type Principal = PartnerPrincipal | OidcPrincipal | AnonymousPrincipal;

/** Options shared by both verifiers. */
export interface VerifierOptions {
  /** Upper bound for one JWKS or discovery-document fetch, in milliseconds (default 5000). */
  fetchTimeoutMs?: number;
  /**
   * Called with the underlying error when the key source (JWKS or discovery endpoint) fails, so the
   * caller can log it. The client only ever sees a 401 with a generic message.
   */
  onKeySourceError?: (error: unknown) => void;
}

const DEFAULT_FETCH_TIMEOUT_MS = 5000;
/** Tokens longer than this are rejected before any parsing (cheap guard against oversized headers). */
const MAX_TOKEN_LENGTH = 16 * 1024;
const SYMMETRIC_ALGORITHMS: readonly string[] = ['HS256'];
const ASYMMETRIC_ALGORITHMS: readonly string[] = ['RS256', 'ES256', 'PS256'];
/** OIDC ID tokens are always signed with the provider's private key. */
const OIDC_ALGORITHMS: string[] = ['RS256', 'ES256', 'PS256'];
/** RFC 6750 `b64token`. */
const BEARER_RE = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

const unauthenticated = (message: string): AppError => new AppError('UNAUTHENTICATED', message);

/**
 * Extracts the token from an Authorization header: undefined when the header is absent; AppError 401 when
 * it is present but not `Bearer <token>`.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = BEARER_RE.exec(authorization.trim());
  if (!match) throw unauthenticated('Authorization header must be "Bearer <token>"');
  return match[1];
}

// ---------------------------------------------------------------------------------------------------------
// Key sources and error mapping
// ---------------------------------------------------------------------------------------------------------

/** Internal marker: the key source (not the token) failed. Never leaves this module. */
class KeySourceError extends Error {
  constructor(readonly reason: unknown) {
    super('key source unavailable');
    this.name = 'KeySourceError';
  }
}

/** jose errors that describe the token (unknown kid), not the key source. */
function isTokenKeyMismatch(err: unknown): boolean {
  return err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys;
}

function fetchTimeout(options: VerifierOptions | undefined): number {
  const ms = options?.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  return Number.isFinite(ms) && ms > 0 ? Math.ceil(ms) : DEFAULT_FETCH_TIMEOUT_MS;
}

/**
 * Wraps a key resolver so that failures of the key source itself (network, timeout, bad JWKS body) are
 * tagged as KeySourceError, while "no key with this kid" stays a token problem.
 */
function taggingResolver(resolve: () => Promise<JWTVerifyGetKey>): JWTVerifyGetKey {
  return async (header: JWTHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    try {
      const getKey = await resolve();
      return (await getKey(header, token)) as CryptoKey;
    } catch (err) {
      if (err instanceof KeySourceError || isTokenKeyMismatch(err)) throw err;
      throw new KeySourceError(err);
    }
  };
}

/**
 * Maps any verification failure to a safe AppError. `label` names the token in messages
 * ('access token' or 'ID token').
 */
function toAuthError(err: unknown, label: string, options: VerifierOptions | undefined): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof KeySourceError) {
    try {
      options?.onKeySourceError?.(err.reason);
    } catch {
      // A failing log hook must not change the response.
    }
    return unauthenticated(`Unable to verify ${label}`);
  }
  if (err instanceof errors.JWTExpired) return unauthenticated(`${capitalize(label)} expired`);
  return unauthenticated(`Invalid or expired ${label}`);
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Reads the protected header's `alg` without trusting anything else in the token. */
function headerAlgorithm(token: string, label: string): string {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) throw unauthenticated(`Invalid ${label}`);
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    throw unauthenticated(`Invalid ${label}`);
  }
  if (typeof alg !== 'string' || alg.length === 0) throw unauthenticated(`Invalid ${label}`);
  return alg;
}

/**
 * `iat`, when present, must not lie in the future beyond the clock tolerance (jose checks it only with
 * `maxTokenAge`, which would make `iat` required; it already refuses a non-numeric `iat`).
 */
function requireIssuedInPast(payload: JWTPayload, toleranceSeconds: number, label: string): void {
  if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + toleranceSeconds) {
    throw unauthenticated(`${capitalize(label)} is issued in the future`);
  }
}

/** `sub` must be a non-empty string (jose only checks that it is present). */
function requireSubject(payload: JWTPayload, label: string): string {
  if (typeof payload.sub !== 'string' || payload.sub.length === 0) throw unauthenticated(`Invalid ${label}`);
  return payload.sub;
}

// ---------------------------------------------------------------------------------------------------------
// Partner access tokens
// ---------------------------------------------------------------------------------------------------------

export interface PartnerTokenVerifier {
  verify(token: string): Promise<PartnerPrincipal>;
}

/**
 * Verifies partner access tokens for one audience (the analysis or allocation origin).
 * HS256 tokens are checked only against `config.hs256Secret`, asymmetric tokens only against the JWKS at
 * `config.jwksUrl`; an algorithm outside `config.algorithms` (and `none`, always) is rejected up front.
 */
export function createPartnerTokenVerifier(
  config: PartnerAuthConfig,
  audience: string,
  options?: VerifierOptions,
): PartnerTokenVerifier {
  const label = 'access token';
  const allowed = new Set(config.algorithms.filter((a) => SYMMETRIC_ALGORITHMS.includes(a) || ASYMMETRIC_ALGORITHMS.includes(a)));
  const secret = config.hs256Secret ? new TextEncoder().encode(config.hs256Secret) : undefined;
  const asymmetricAllowed = [...allowed].filter((a) => ASYMMETRIC_ALGORITHMS.includes(a));
  const timeoutDuration = fetchTimeout(options);

  let remote: JWTVerifyGetKey | undefined;
  /** The JWKS resolver, created on first use; jose caches keys and refetches on an unknown kid. */
  const local = config.localKeys?.length ? createLocalJWKSet({ keys: config.localKeys }) : undefined;
  const jwks = (): JWTVerifyGetKey => {
    if (!config.jwksUrl && local) return local;
    if (!remote) {
      if (!config.jwksUrl) throw unauthenticated(`Invalid ${label}`);
      let url: URL;
      try {
        url = new URL(config.jwksUrl);
      } catch (err) {
        throw new KeySourceError(err);
      }
      const resolver = createRemoteJWKSet(url, { timeoutDuration });
      remote = taggingResolver(async () => resolver);
    }
    return remote;
  };

  const claimOptions = {
    issuer: config.issuer,
    audience,
    requiredClaims: ['exp', 'sub'],
    clockTolerance: config.clockToleranceSeconds,
  };

  return {
    async verify(token: string): Promise<PartnerPrincipal> {
      try {
        const alg = headerAlgorithm(token, label);
        if (!allowed.has(alg)) throw unauthenticated(`Invalid ${label}`);

        let payload: JWTPayload;
        if (SYMMETRIC_ALGORITHMS.includes(alg)) {
          // HS256: only ever the shared secret, never a JWKS key.
          if (!secret) throw unauthenticated(`Invalid ${label}`);
          ({ payload } = await jwtVerify(token, secret, { ...claimOptions, algorithms: ['HS256'] }));
        } else {
          // Asymmetric: only ever the JWKS (or the development identity key), asymmetric algorithms only.
          if (!config.jwksUrl && !local) throw unauthenticated(`Invalid ${label}`);
          ({ payload } = await jwtVerify(token, jwks(), { ...claimOptions, algorithms: asymmetricAllowed }));
        }
        requireIssuedInPast(payload, config.clockToleranceSeconds, label);
        return { kind: 'partner', partnerId: requireSubject(payload, label), claims: payload };
      } catch (err) {
        throw toAuthError(err, label, options);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// OIDC ID tokens
// ---------------------------------------------------------------------------------------------------------

export interface OidcTokenVerifier {
  verify(token: string | undefined): Promise<OidcPrincipal | AnonymousPrincipal>;
}

/** The discovery document URL for an issuer (OIDC Discovery 1.0, section 4: drop a trailing slash). */
function discoveryUrl(issuer: string): URL {
  return new URL(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
}

/** Fetches the issuer's discovery document and returns its `jwks_uri`, bounded by `timeoutMs`. */
async function discoverJwksUri(issuer: string, timeoutMs: number): Promise<URL> {
  const response = await fetch(discoveryUrl(issuer), {
    headers: { accept: 'application/json' },
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (response.status !== 200) throw new Error(`discovery document: HTTP ${response.status}`);
  const doc: unknown = await response.json();
  if (typeof doc !== 'object' || doc === null) throw new Error('discovery document: not a JSON object');
  const { issuer: docIssuer, jwks_uri: jwksUri } = doc as Record<string, unknown>;
  if (docIssuer !== issuer) throw new Error('discovery document: issuer does not match the configured issuer');
  if (typeof jwksUri !== 'string') throw new Error('discovery document: jwks_uri missing');
  const url = new URL(jwksUri);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('discovery document: jwks_uri must be http(s)');
  return url;
}

/**
 * Verifies OIDC ID tokens for the search origin.
 * - `enforce` false (never in production): every caller is anonymous.
 * - No issuer or no audiences configured: 503 AUTH_NOT_CONFIGURED, whatever the token.
 * - Missing or invalid token: 401.
 */
export function createOidcTokenVerifier(config: OidcConfig, env: AppEnv, options?: VerifierOptions): OidcTokenVerifier {
  const label = 'ID token';
  // config.ts already forbids enforce=false in production; never trust it there regardless.
  const enforce = config.enforce || env === 'production';
  const timeoutDuration = fetchTimeout(options);

  /** Resolves the JWKS resolver once; a failed discovery is forgotten so the next call retries. */
  let pending: Promise<JWTVerifyGetKey> | undefined;
  const resolveJwks = (issuer: string): Promise<JWTVerifyGetKey> => {
    if (!pending) {
      pending = (async () => {
        if (config.localKeys?.length) return createLocalJWKSet({ keys: config.localKeys });
        const url = config.jwksUrl ? new URL(config.jwksUrl) : await discoverJwksUri(issuer, timeoutDuration);
        return createRemoteJWKSet(url, { timeoutDuration });
      })();
      pending.catch(() => {
        pending = undefined;
      });
    }
    return pending;
  };

  return {
    async verify(token: string | undefined): Promise<OidcPrincipal | AnonymousPrincipal> {
      if (!enforce) return { kind: 'anonymous' };
      const issuer = config.issuer;
      if (issuer === undefined || config.audiences.length === 0) {
        throw new AppError('AUTH_NOT_CONFIGURED', 'Authentication is not configured on this server');
      }
      if (token === undefined || token === '') throw unauthenticated('Authentication required');
      try {
        const alg = headerAlgorithm(token, label);
        if (!OIDC_ALGORITHMS.includes(alg)) throw unauthenticated(`Invalid ${label}`);
        const { payload } = await jwtVerify(token, taggingResolver(() => resolveJwks(issuer)), {
          algorithms: OIDC_ALGORITHMS,
          issuer,
          audience: config.audiences,
          requiredClaims: ['exp', 'sub'],
          clockTolerance: config.clockToleranceSeconds,
        });
        requireIssuedInPast(payload, config.clockToleranceSeconds, label);
        return { kind: 'oidc', subject: requireSubject(payload, label), claims: payload };
      } catch (err) {
        throw toAuthError(err, label, options);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Minting (development tooling and tests)
// ---------------------------------------------------------------------------------------------------------

export interface MintOptions {
  /** HS256 shared secret. Exactly one of `secret` and `privateKey` is required. */
  secret?: string;
  privateKey?: CryptoKey | KeyObject | JWK;
  /** Defaults to HS256 with `secret`, RS256 with `privateKey`. */
  alg?: 'HS256' | 'RS256' | 'ES256';
  kid?: string;
  issuer: string;
  /** One service's audience, or several (a token a gateway caller uses for fields of several origins). */
  audience: string | string[];
  subject: string;
  /** A jose duration string ('1h', '15m') or seconds from now (negative for an already expired token). Default '1h'. */
  expiresIn?: string | number;
  /** Seconds from now for `iat` (positive: issued in the future, to test clock skew). Default 0. */
  issuedIn?: number;
  /** Extra claims; the registered claims above take precedence. */
  claims?: Record<string, unknown>;
}

/** Signs a partner access token (iat, iss, aud, sub, exp) with an HS256 secret or an asymmetric private key. */
export async function mintPartnerToken(options: MintOptions): Promise<string> {
  const { secret, privateKey, kid, issuer, audience, subject, expiresIn = '1h', issuedIn = 0, claims = {} } = options;
  if ((secret === undefined) === (privateKey === undefined)) {
    throw new TypeError('mintPartnerToken: pass exactly one of secret and privateKey');
  }
  const alg = options.alg ?? (secret !== undefined ? 'HS256' : 'RS256');
  if ((alg === 'HS256') !== (secret !== undefined)) {
    throw new TypeError('mintPartnerToken: HS256 requires secret; RS256/ES256 require privateKey');
  }

  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ ...claims })
    .setProtectedHeader(kid === undefined ? { alg, typ: 'JWT' } : { alg, kid, typ: 'JWT' })
    .setIssuedAt(now + issuedIn)
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject(subject)
    .setExpirationTime(typeof expiresIn === 'number' ? now + expiresIn : expiresIn);

  if (secret !== undefined) return jwt.sign(new TextEncoder().encode(secret));
  return jwt.sign(privateKey as CryptoKey | KeyObject | JWK);
}
