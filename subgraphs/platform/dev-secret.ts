/**
 * Development credentials, so `npm start` works without an identity provider (never in production):
 *
 * - HS256 secret for partner access tokens: AUTH_HS256_SECRET when set; otherwise a random secret
 *   created once under DATA_DIR (`dev-hs256-secret`, mode 0600), shared by the servers and
 *   `tradegraph token`.
 * - A development identity key (APP_ENV=development only): an ES256 key pair created once under
 *   DATA_DIR (`dev-identity-key.json`, mode 0600). With OIDC_ISSUER unset, the search origin verifies
 *   ID tokens against its public half (issuer AUTH_ISSUER, audience OIDC_AUDIENCES or
 *   `tradegraph-search`); with AUTH_JWKS_URL unset, the partner origins accept ES256 tokens it signed
 *   as well. `tradegraph token --audience search` (alone or with the partner audiences) signs with it,
 *   so one development token can serve a gateway query over all three subgraphs.
 *
 * mintDevelopmentToken is the one place such tokens are signed: `tradegraph token` and the console's
 * POST /console/dev-token (gateway/console.ts) both call it.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { JWK } from 'jose';
import { mintPartnerToken } from './auth.js';
import type { Config, OidcConfig, PartnerAuthConfig } from './config.js';

export const DEV_SECRET_FILE = 'dev-hs256-secret';
export const DEV_IDENTITY_KEY_FILE = 'dev-identity-key.json';
/** The audience of development ID tokens when OIDC_AUDIENCES is empty. */
export const DEV_SEARCH_AUDIENCE = 'tradegraph-search';
export const DEV_IDENTITY_KID = 'dev-identity-1';
/**
 * The development partner that owns the demo book (cli/demo-book.ts): the subject of the console's
 * development token, `tradegraph token`'s default `--sub`, and the `sub` of the README's token examples.
 */
export const DEMO_PARTNER = 'partner-1';

/** Writes `file` under DATA_DIR once (mode 0600; a concurrent writer wins) and returns its text. */
function once(config: Config, file: string, create: () => string): string {
  const full = path.join(config.dataDir, file);
  fs.mkdirSync(config.dataDir, { recursive: true });
  if (!fs.existsSync(full)) {
    try {
      fs.writeFileSync(full, create(), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return fs.readFileSync(full, 'utf8').trim();
}

/** Whether the development identity key applies to this configuration. */
export function usesDevIdentity(config: Config): boolean {
  return config.env === 'development';
}

/**
 * Whether the development identity key signs ID tokens (and the search origin trusts it): development
 * with no identity provider configured (OIDC_ISSUER unset).
 */
export function signsDevIdTokens(config: Config): boolean {
  return usesDevIdentity(config) && config.oidc.issuer === undefined;
}

/** The development identity key pair (created on first use). */
export function devIdentityKey(config: Config): { privateJwk: JWK; publicJwk: JWK } {
  const text = once(config, DEV_IDENTITY_KEY_FILE, () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return JSON.stringify(privateKey.export({ format: 'jwk' }));
  });
  const privateJwk = { ...(JSON.parse(text) as JWK), kid: DEV_IDENTITY_KID, alg: 'ES256' };
  const { d: _private, ...publicJwk } = privateJwk;
  return { privateJwk, publicJwk: { ...publicJwk, use: 'sig' } };
}

export function resolvePartnerAuth(config: Config): PartnerAuthConfig {
  let auth = config.auth;
  if (usesDevIdentity(config) && !auth.jwksUrl && auth.algorithms.includes('ES256')) {
    auth = { ...auth, localKeys: [devIdentityKey(config).publicJwk] };
  }
  if (auth.hs256Secret || config.env === 'production' || !auth.algorithms.includes('HS256')) return auth;
  return { ...auth, hs256Secret: once(config, DEV_SECRET_FILE, () => randomBytes(32).toString('base64url')) };
}

/** The OIDC settings the search origin uses: the configured ones, or in development the identity key's. */
export function resolveOidc(config: Config): OidcConfig {
  if (!signsDevIdTokens(config)) return config.oidc;
  return {
    ...config.oidc,
    issuer: config.auth.issuer,
    audiences: config.oidc.audiences.length ? config.oidc.audiences : [DEV_SEARCH_AUDIENCE],
    localKeys: [devIdentityKey(config).publicJwk],
  };
}

/** A development token this configuration cannot sign; the message says where tokens come from instead. */
export class DevTokenUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DevTokenUnavailable';
  }
}

export interface DevTokenRequest {
  subject: string;
  /**
   * `analysis`, `allocation` or `search` (the audience that origin checks), or any other audience
   * string; several make one token for a gateway query that reaches several origins.
   */
  audiences: readonly string[];
  /** Lifetime: seconds, or a time span such as `10m` or `1h` (default 1 h). */
  ttl?: number | string;
}

export interface DevToken {
  token: string;
  /** The token's `aud`: the audiences asked for, origin names replaced by their configured audiences. */
  audiences: string[];
  alg: 'HS256' | 'ES256';
}

/**
 * Signs a development token. Partner audiences alone: HS256 with the development secret. With
 * `search`: an ES256 ID token signed by the development identity key (ID tokens are never HS256), which
 * the partner origins trust too, so one token serves all three; that needs APP_ENV=development and
 * OIDC_ISSUER unset. Throws DevTokenUnavailable when this configuration signs no such token.
 */
export async function mintDevelopmentToken(config: Config, request: DevTokenRequest): Promise<DevToken> {
  const auth = resolvePartnerAuth(config);
  const forSearch = request.audiences.includes('search');
  const named = (a: string): string | undefined =>
    a === 'analysis' ? auth.audiences.analysis : a === 'allocation' ? auth.audiences.allocation : a === 'search' ? resolveOidc(config).audiences[0] : a;
  const audiences = request.audiences.map(named).filter((a): a is string => typeof a === 'string' && a.length > 0);
  if (audiences.length === 0) throw new DevTokenUnavailable('a token needs at least one audience');
  const common = {
    issuer: auth.issuer,
    audience: audiences.length === 1 ? (audiences[0] as string) : audiences,
    subject: request.subject,
    expiresIn: request.ttl ?? '1h',
  };
  if (forSearch) {
    if (!signsDevIdTokens(config)) {
      throw new DevTokenUnavailable(
        'ID tokens (audience search) are signed with the development identity key only with APP_ENV=development and OIDC_ISSUER unset; otherwise they come from your identity provider',
      );
    }
    const { privateJwk } = devIdentityKey(config);
    return { token: await mintPartnerToken({ ...common, privateKey: privateJwk, alg: 'ES256', kid: DEV_IDENTITY_KID }), audiences, alg: 'ES256' };
  }
  if (!auth.hs256Secret) {
    throw new DevTokenUnavailable('HS256 development tokens need an HS256 secret, which this configuration has not (production uses your identity provider)');
  }
  return { token: await mintPartnerToken({ ...common, secret: auth.hs256Secret }), audiences, alg: 'HS256' };
}
