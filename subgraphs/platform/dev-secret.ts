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
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { JWK } from 'jose';
import type { Config, OidcConfig, PartnerAuthConfig } from './config.js';

export const DEV_SECRET_FILE = 'dev-hs256-secret';
export const DEV_IDENTITY_KEY_FILE = 'dev-identity-key.json';
/** The audience of development ID tokens when OIDC_AUDIENCES is empty. */
export const DEV_SEARCH_AUDIENCE = 'tradegraph-search';
export const DEV_IDENTITY_KID = 'dev-identity-1';

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
  if (!usesDevIdentity(config) || config.oidc.issuer !== undefined) return config.oidc;
  return {
    ...config.oidc,
    issuer: config.auth.issuer,
    audiences: config.oidc.audiences.length ? config.oidc.audiences : [DEV_SEARCH_AUDIENCE],
    localKeys: [devIdentityKey(config).publicJwk],
  };
}
