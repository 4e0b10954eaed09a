/**
 * Partner access tokens and OIDC ID tokens, with real keys and a real JWKS/discovery server (no mocks).
 * Every rejection must be an AppError with status 401 (or 503 when auth is not configured), never a 500.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import {
  bearerToken,
  createOidcTokenVerifier,
  createPartnerTokenVerifier,
  mintPartnerToken,
} from '../../subgraphs/platform/auth.js';
import type { OidcConfig, PartnerAuthConfig } from '../../subgraphs/platform/config.js';
import { AppError } from '../../subgraphs/platform/errors.js';
import { scaled } from '../helpers/time.js';

const ISSUER = 'tradegraph-test';
const AUD_ANALYSIS = 'tradegraph-analysis';
const AUD_ALLOCATION = 'tradegraph-allocation';
const HS_SECRET = 'test-secret-test-secret-test-secret-0123';
const OIDC_CLIENT = 'search-web-client';

interface KeyPair {
  publicKey: CryptoKey;
  privateKey: CryptoKey;
}

let rsKey: KeyPair;
let esKey: KeyPair;
/** A second RS256 key, published nowhere: used to forge tokens with kid 'rs-1'. */
let rogueKey: KeyPair;
let rsPublicJwk: JWK;

let server: http.Server;
let hangingServer: http.Server;
let baseUrl: string;
let hangingUrl: string;
let closedPortUrl: string;
let discoveryHits = 0;
let discoveryAvailable = true;

function listen(srv: http.Server): Promise<string> {
  return new Promise((resolve) => {
    srv.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(srv.address() as AddressInfo).port}`));
  });
}

function close(srv: http.Server): Promise<void> {
  srv.closeAllConnections();
  return new Promise((resolve) => srv.close(() => resolve()));
}

beforeAll(async () => {
  rsKey = await generateKeyPair('RS256');
  esKey = await generateKeyPair('ES256');
  rogueKey = await generateKeyPair('RS256');
  rsPublicJwk = { ...(await exportJWK(rsKey.publicKey)), kid: 'rs-1', alg: 'RS256', use: 'sig' };
  const jwks = {
    keys: [rsPublicJwk, { ...(await exportJWK(esKey.publicKey)), kid: 'es-1', alg: 'ES256', use: 'sig' }],
  };

  server = http.createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/jwks.json') return json(200, jwks);
    if (req.url === '/.well-known/openid-configuration') {
      discoveryHits += 1;
      if (!discoveryAvailable) return json(503, { error: 'unavailable' });
      return json(200, { issuer: baseUrl, jwks_uri: `${baseUrl}/jwks.json` });
    }
    if (req.url === '/broken-jwks.json') {
      res.writeHead(500, { 'content-type': 'text/plain' });
      return res.end('internal error at /srv/keys');
    }
    json(404, { error: 'not found' });
  });
  baseUrl = await listen(server);

  // Accepts connections and never answers: exercises the fetch timeout.
  hangingServer = http.createServer(() => undefined);
  hangingUrl = await listen(hangingServer);

  // A port that was just free: nothing listens there.
  const probe = http.createServer();
  closedPortUrl = await listen(probe);
  await close(probe);
});

afterAll(async () => {
  await Promise.all([close(server), close(hangingServer)]);
});

// ---------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------

const now = () => Math.floor(Date.now() / 1000);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function devConfig(overrides: Partial<PartnerAuthConfig> = {}): PartnerAuthConfig {
  return {
    issuer: ISSUER,
    audiences: { analysis: AUD_ANALYSIS, allocation: AUD_ALLOCATION },
    hs256Secret: HS_SECRET,
    jwksUrl: `${baseUrl}/jwks.json`,
    algorithms: ['HS256', 'RS256', 'ES256'],
    clockToleranceSeconds: 30,
    ...overrides,
  };
}

/** Production-style: asymmetric only, no shared secret. */
function prodConfig(overrides: Partial<PartnerAuthConfig> = {}): PartnerAuthConfig {
  return devConfig({ hs256Secret: undefined, algorithms: ['RS256', 'ES256'], ...overrides });
}

function oidcConfig(overrides: Partial<OidcConfig> = {}): OidcConfig {
  return {
    issuer: baseUrl,
    jwksUrl: undefined,
    audiences: [OIDC_CLIENT, 'another-client'],
    enforce: true,
    clockToleranceSeconds: 30,
    ...overrides,
  };
}

const analysisVerifier = (config: PartnerAuthConfig = devConfig()) => createPartnerTokenVerifier(config, AUD_ANALYSIS);

const hsToken = (overrides: { claims?: Record<string, unknown>; expiresIn?: string | number; issuedIn?: number; issuer?: string; audience?: string } = {}) =>
  mintPartnerToken({ secret: HS_SECRET, issuer: ISSUER, audience: AUD_ANALYSIS, subject: 'partner-42', ...overrides });

const rsToken = (overrides: { kid?: string; privateKey?: CryptoKey; issuer?: string; audience?: string; issuedIn?: number } = {}) =>
  mintPartnerToken({
    privateKey: rsKey.privateKey,
    alg: 'RS256',
    kid: 'rs-1',
    issuer: ISSUER,
    audience: AUD_ANALYSIS,
    subject: 'partner-rs',
    ...overrides,
  });

/** Awaits a promise that must reject and returns the rejection. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

/** Asserts an AppError with the given status/code and a short message that leaks nothing from jose. */
async function expectAuthFailure(promise: Promise<unknown>, status = 401, code = 'UNAUTHENTICATED'): Promise<AppError> {
  const err = await rejectionOf(promise);
  expect(err).toBeInstanceOf(AppError);
  const appError = err as AppError;
  expect(appError.status).not.toBe(500);
  expect(appError.status).toBe(status);
  expect(appError.code).toBe(code);
  expect(appError.message.length).toBeLessThan(80);
  expect(appError.message).not.toMatch(/jose|JWS|JWK|claim|fetch|ECONN|127\.0\.0\.1|BEGIN|\n/i);
  expect(appError.details).toEqual([]);
  return appError;
}

// ---------------------------------------------------------------------------------------------------------
// bearerToken
// ---------------------------------------------------------------------------------------------------------

describe('bearerToken', () => {
  test('returns undefined when the header is absent and the token for "Bearer <token>"', () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('bearer abc.def-_~+/ghi==')).toBe('abc.def-_~+/ghi==');
  });

  test.each(['Basic x', 'Bearer', 'Bearer ', 'Bearer a b', '', 'Token abc', 'Bearer a,b'])('rejects malformed header %j with 401', (header) => {
    let thrown: unknown;
    try {
      bearerToken(header);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).status).toBe(401);
    expect((thrown as AppError).code).toBe('UNAUTHENTICATED');
  });
});

// ---------------------------------------------------------------------------------------------------------
// Partner access tokens
// ---------------------------------------------------------------------------------------------------------

describe('partner token verifier', () => {
  test('accepts a valid HS256 token (partnerId = sub)', async () => {
    const principal = await analysisVerifier().verify(await hsToken());
    expect(principal.kind).toBe('partner');
    expect(principal.partnerId).toBe('partner-42');
    expect(principal.claims.iss).toBe(ISSUER);
    expect(principal.claims.aud).toBe(AUD_ANALYSIS);
  });

  test('accepts a valid RS256 token via the JWKS', async () => {
    const principal = await analysisVerifier(prodConfig()).verify(await rsToken());
    expect(principal).toMatchObject({ kind: 'partner', partnerId: 'partner-rs' });
  });

  test('accepts a valid ES256 token via the JWKS', async () => {
    const token = await mintPartnerToken({
      privateKey: esKey.privateKey,
      alg: 'ES256',
      kid: 'es-1',
      issuer: ISSUER,
      audience: AUD_ALLOCATION,
      subject: 'partner-es',
    });
    const principal = await createPartnerTokenVerifier(prodConfig(), AUD_ALLOCATION).verify(token);
    expect(principal).toMatchObject({ kind: 'partner', partnerId: 'partner-es' });
  });

  test('accepts a private-key JWK for minting', async () => {
    const privateJwk = await exportJWK((await generateKeyPair('RS256', { extractable: true })).privateKey);
    const token = await mintPartnerToken({ privateKey: privateJwk, alg: 'RS256', kid: 'x', issuer: ISSUER, audience: AUD_ANALYSIS, subject: 's' });
    expect(token.split('.')).toHaveLength(3);
  });

  test('rejects an expired token with 401', async () => {
    const err = await expectAuthFailure(analysisVerifier().verify(await hsToken({ expiresIn: -3600 })));
    expect(err.message).toBe('Access token expired');
  });

  test('rejects a token that is not yet valid (nbf beyond tolerance) with 401', async () => {
    await expectAuthFailure(analysisVerifier().verify(await hsToken({ claims: { nbf: now() + 600 } })));
  });

  test('accepts a token within the clock tolerance (exp just past, nbf just ahead)', async () => {
    const verifier = analysisVerifier(devConfig({ clockToleranceSeconds: 30 }));
    await expect(verifier.verify(await hsToken({ expiresIn: -10 }))).resolves.toMatchObject({ kind: 'partner' });
    await expect(verifier.verify(await hsToken({ claims: { nbf: now() + 10 } }))).resolves.toMatchObject({ kind: 'partner' });
    // The same tokens fail without tolerance.
    const strict = analysisVerifier(devConfig({ clockToleranceSeconds: 0 }));
    await expectAuthFailure(strict.verify(await hsToken({ expiresIn: -10 })));
  });

  // iat in the future beyond AUTH_CLOCK_TOLERANCE_SECONDS: minted ahead of time, or by a clock that is wrong.
  test('rejects a token issued in the future beyond the clock tolerance (iat) with 401, HS256 and RS256', async () => {
    const err = await expectAuthFailure(analysisVerifier().verify(await hsToken({ issuedIn: 600 })));
    expect(err.message).toBe('Access token is issued in the future');
    await expectAuthFailure(analysisVerifier(prodConfig()).verify(await rsToken({ issuedIn: 600 })));
    await expectAuthFailure(analysisVerifier(devConfig({ clockToleranceSeconds: 30 })).verify(await hsToken({ issuedIn: 45 })));
  });

  test('accepts a token issued slightly in the future, within the clock tolerance', async () => {
    const verifier = analysisVerifier(devConfig({ clockToleranceSeconds: 30 }));
    await expect(verifier.verify(await hsToken({ issuedIn: 10 }))).resolves.toMatchObject({ kind: 'partner', partnerId: 'partner-42' });
    await expect(analysisVerifier(prodConfig()).verify(await rsToken({ issuedIn: 10 }))).resolves.toMatchObject({ kind: 'partner' });
    // The same token fails without tolerance; one without iat at all is still accepted (iat is optional).
    await expectAuthFailure(analysisVerifier(devConfig({ clockToleranceSeconds: 0 })).verify(await hsToken({ issuedIn: 10 })));
    const noIat = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setAudience(AUD_ANALYSIS).setSubject('p').setExpirationTime('1h').sign(new TextEncoder().encode(HS_SECRET));
    await expect(verifier.verify(noIat)).resolves.toMatchObject({ kind: 'partner', partnerId: 'p' });
  });

  test('rejects a wrong issuer with 401', async () => {
    await expectAuthFailure(analysisVerifier().verify(await hsToken({ issuer: 'someone-else' })));
    await expectAuthFailure(analysisVerifier(prodConfig()).verify(await rsToken({ issuer: 'someone-else' })));
  });

  test('rejects a wrong audience (allocation token on analysis) with 401', async () => {
    await expectAuthFailure(analysisVerifier().verify(await hsToken({ audience: AUD_ALLOCATION })));
    await expectAuthFailure(analysisVerifier(prodConfig()).verify(await rsToken({ audience: AUD_ALLOCATION })));
  });

  test('rejects a tampered payload with 401', async () => {
    for (const token of [await hsToken(), await rsToken()]) {
      const [header, , signature] = token.split('.');
      const forged = `${header}.${b64({ iss: ISSUER, aud: AUD_ANALYSIS, sub: 'admin', exp: now() + 3600 })}.${signature}`;
      await expectAuthFailure(analysisVerifier().verify(forged));
    }
  });

  test('rejects a token signed by another key with the same kid with 401', async () => {
    await expectAuthFailure(analysisVerifier(prodConfig()).verify(await rsToken({ privateKey: rogueKey.privateKey })));
  });

  test('rejects an HS256 token signed with a different secret with 401', async () => {
    const token = await mintPartnerToken({ secret: 'another-secret-another-secret-0123456', issuer: ISSUER, audience: AUD_ANALYSIS, subject: 'p' });
    await expectAuthFailure(analysisVerifier().verify(token));
  });

  test('rejects alg "none" with 401, even if the allowlist names it', async () => {
    const unsecured = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: ISSUER, aud: AUD_ANALYSIS, sub: 'p', exp: now() + 3600 })}.`;
    await expectAuthFailure(analysisVerifier().verify(unsecured));
    await expectAuthFailure(analysisVerifier(devConfig({ algorithms: ['none', 'HS256', 'RS256'] })).verify(unsecured));
  });

  test('rejects an unknown kid with 401', async () => {
    await expectAuthFailure(analysisVerifier(prodConfig()).verify(await rsToken({ kid: 'rs-unknown' })));
  });

  test('rejects HS/RS confusion: HS256 signed with the RS256 public key (PEM and JWK) with 401', async () => {
    const pem = await exportSPKI(rsKey.publicKey);
    const secrets = [pem, JSON.stringify(rsPublicJwk), JSON.stringify(await exportJWK(rsKey.publicKey))];
    const verifiers = [
      // HS256 allowed, JWKS configured, no shared secret.
      analysisVerifier(devConfig({ hs256Secret: undefined })),
      // HS256 allowed, JWKS configured and a shared secret as well.
      analysisVerifier(devConfig()),
      // Production-style: HS256 not allowed.
      analysisVerifier(prodConfig()),
    ];
    for (const secret of secrets) {
      for (const kid of [undefined, 'rs-1']) {
        const token = await new SignJWT({})
          .setProtectedHeader(kid ? { alg: 'HS256', kid } : { alg: 'HS256' })
          .setIssuer(ISSUER)
          .setAudience(AUD_ANALYSIS)
          .setSubject('attacker')
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(new TextEncoder().encode(secret));
        for (const verifier of verifiers) await expectAuthFailure(verifier.verify(token));
      }
    }
  });

  test('rejects a token without exp with 401', async () => {
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setAudience(AUD_ANALYSIS).setSubject('p').setIssuedAt().sign(new TextEncoder().encode(HS_SECRET));
    await expectAuthFailure(analysisVerifier().verify(token));
  });

  test('rejects a token without sub (or with an empty sub) with 401', async () => {
    const key = new TextEncoder().encode(HS_SECRET);
    const noSub = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setAudience(AUD_ANALYSIS).setExpirationTime('1h').sign(key);
    await expectAuthFailure(analysisVerifier().verify(noSub));
    const emptySub = await new SignJWT({ sub: '' }).setProtectedHeader({ alg: 'HS256' }).setIssuer(ISSUER).setAudience(AUD_ANALYSIS).setExpirationTime('1h').sign(key);
    await expectAuthFailure(analysisVerifier().verify(emptySub));
  });

  test('rejects HS256 when HS256 is not in the allowlist (production-style) with 401', async () => {
    await expectAuthFailure(analysisVerifier(prodConfig()).verify(await hsToken()));
    // Even when a secret is (mis)configured, the allowlist wins.
    await expectAuthFailure(analysisVerifier(prodConfig({ hs256Secret: HS_SECRET })).verify(await hsToken()));
  });

  test('rejects an RS256 token when no JWKS URL is configured with 401', async () => {
    await expectAuthFailure(analysisVerifier(devConfig({ jwksUrl: undefined })).verify(await rsToken()));
  });

  test('rejects garbage tokens with 401', async () => {
    for (const token of ['', 'not-a-jwt', 'a.b.c', `${b64({ alg: 'RS256' })}.e30`, 'x'.repeat(20_000)]) {
      await expectAuthFailure(analysisVerifier().verify(token));
    }
  });

  test('JWKS endpoint unreachable (closed port) -> 401 within a bounded time, cause reported server-side only', async () => {
    const causes: unknown[] = [];
    const verifier = createPartnerTokenVerifier(prodConfig({ jwksUrl: `${closedPortUrl}/jwks.json` }), AUD_ANALYSIS, {
      fetchTimeoutMs: 1000,
      onKeySourceError: (err) => causes.push(err),
    });
    const started = Date.now();
    const err = await expectAuthFailure(verifier.verify(await rsToken()));
    expect(Date.now() - started).toBeLessThan(scaled(3000));
    expect(err.message).toBe('Unable to verify access token');
    expect(causes).toHaveLength(1);
  });

  test('JWKS endpoint that never answers -> 401 after the fetch timeout', async () => {
    const verifier = createPartnerTokenVerifier(prodConfig({ jwksUrl: `${hangingUrl}/jwks.json` }), AUD_ANALYSIS, { fetchTimeoutMs: 300 });
    const started = Date.now();
    await expectAuthFailure(verifier.verify(await rsToken()));
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(scaled(3000));
  });

  test('JWKS endpoint answering 500 -> 401', async () => {
    const verifier = createPartnerTokenVerifier(prodConfig({ jwksUrl: `${baseUrl}/broken-jwks.json` }), AUD_ANALYSIS);
    await expectAuthFailure(verifier.verify(await rsToken()));
  });
});

// ---------------------------------------------------------------------------------------------------------
// OIDC ID tokens
// ---------------------------------------------------------------------------------------------------------

describe('OIDC token verifier', () => {
  const idToken = (overrides: { audience?: string; issuer?: string; expiresIn?: number; issuedIn?: number; kid?: string } = {}) =>
    mintPartnerToken({
      privateKey: rsKey.privateKey,
      alg: 'RS256',
      kid: 'rs-1',
      issuer: baseUrl,
      audience: OIDC_CLIENT,
      subject: 'user-7',
      claims: { email: 'user7@example.com' },
      ...overrides,
    });

  test('accepts a valid ID token with keys from the discovery document (fetched once)', async () => {
    const hitsBefore = discoveryHits;
    const verifier = createOidcTokenVerifier(oidcConfig(), 'production');
    const principal = await verifier.verify(await idToken());
    expect(principal).toMatchObject({ kind: 'oidc', subject: 'user-7' });
    expect(principal.kind === 'oidc' && principal.claims.email).toBe('user7@example.com');
    await verifier.verify(await idToken({ audience: 'another-client' }));
    expect(discoveryHits - hitsBefore).toBe(1);
  });

  test('accepts an ES256 ID token with keys from a configured JWKS URL (no discovery)', async () => {
    const hitsBefore = discoveryHits;
    const verifier = createOidcTokenVerifier(oidcConfig({ jwksUrl: `${baseUrl}/jwks.json` }), 'production');
    const token = await mintPartnerToken({ privateKey: esKey.privateKey, alg: 'ES256', kid: 'es-1', issuer: baseUrl, audience: OIDC_CLIENT, subject: 'u' });
    await expect(verifier.verify(token)).resolves.toMatchObject({ kind: 'oidc', subject: 'u' });
    expect(discoveryHits).toBe(hitsBefore);
  });

  test('retries discovery after a failed fetch', async () => {
    const verifier = createOidcTokenVerifier(oidcConfig(), 'production');
    discoveryAvailable = false;
    try {
      const err = await expectAuthFailure(verifier.verify(await idToken()));
      expect(err.message).toBe('Unable to verify ID token');
    } finally {
      discoveryAvailable = true;
    }
    await expect(verifier.verify(await idToken())).resolves.toMatchObject({ kind: 'oidc' });
  });

  test('rejects an audience that is not in the list with 401', async () => {
    await expectAuthFailure(createOidcTokenVerifier(oidcConfig(), 'production').verify(await idToken({ audience: 'some-other-app' })));
  });

  test('rejects a missing token with 401', async () => {
    const verifier = createOidcTokenVerifier(oidcConfig(), 'production');
    await expectAuthFailure(verifier.verify(undefined));
    await expectAuthFailure(verifier.verify(''));
  });

  test('no audiences (or no issuer) configured -> 503 AUTH_NOT_CONFIGURED, whatever the token', async () => {
    const token = await idToken();
    const noAudiences = createOidcTokenVerifier(oidcConfig({ audiences: [] }), 'production');
    await expectAuthFailure(noAudiences.verify(token), 503, 'AUTH_NOT_CONFIGURED');
    await expectAuthFailure(noAudiences.verify(undefined), 503, 'AUTH_NOT_CONFIGURED');
    const noIssuer = createOidcTokenVerifier(oidcConfig({ issuer: undefined }), 'development');
    const err = await expectAuthFailure(noIssuer.verify(token), 503, 'AUTH_NOT_CONFIGURED');
    expect(err.message).toBe('Authentication is not configured on this server');
  });

  test('enforce=false -> anonymous for any input (outside production only)', async () => {
    const verifier = createOidcTokenVerifier(oidcConfig({ enforce: false, audiences: [], issuer: undefined }), 'development');
    await expect(verifier.verify(undefined)).resolves.toEqual({ kind: 'anonymous' });
    await expect(verifier.verify('garbage')).resolves.toEqual({ kind: 'anonymous' });
    await expect(verifier.verify(await idToken())).resolves.toEqual({ kind: 'anonymous' });
    // Defence in depth: production never serves anonymous callers, whatever the flag says.
    const production = createOidcTokenVerifier(oidcConfig({ enforce: false }), 'production');
    await expectAuthFailure(production.verify(undefined));
  });

  test('rejects a wrong issuer with 401', async () => {
    await expectAuthFailure(createOidcTokenVerifier(oidcConfig(), 'production').verify(await idToken({ issuer: 'https://evil.example' })));
  });

  // iat in the future beyond OIDC_CLOCK_TOLERANCE_SECONDS.
  test('rejects an ID token issued in the future beyond the clock tolerance (iat) with 401; within it, accepts it', async () => {
    const verifier = createOidcTokenVerifier(oidcConfig({ jwksUrl: `${baseUrl}/jwks.json`, clockToleranceSeconds: 30 }), 'production');
    const err = await expectAuthFailure(verifier.verify(await idToken({ issuedIn: 600 })));
    expect(err.message).toBe('ID token is issued in the future');
    await expectAuthFailure(verifier.verify(await idToken({ issuedIn: 45 })));
    await expect(verifier.verify(await idToken({ issuedIn: 10 }))).resolves.toMatchObject({ kind: 'oidc', subject: 'user-7' });
    const strict = createOidcTokenVerifier(oidcConfig({ jwksUrl: `${baseUrl}/jwks.json`, clockToleranceSeconds: 0 }), 'production');
    await expectAuthFailure(strict.verify(await idToken({ issuedIn: 10 })));
  });

  test('rejects an expired ID token with 401', async () => {
    await expectAuthFailure(createOidcTokenVerifier(oidcConfig(), 'production').verify(await idToken({ expiresIn: -3600 })));
  });

  test('rejects an HS256-signed ID token with 401 (shared secret or RS256 public key as secret)', async () => {
    const verifier = createOidcTokenVerifier(oidcConfig(), 'production');
    for (const secret of ['some-shared-secret-some-shared-secret', await exportSPKI(rsKey.publicKey)]) {
      const token = await mintPartnerToken({ secret, issuer: baseUrl, audience: OIDC_CLIENT, subject: 'user-7', kid: 'rs-1' });
      await expectAuthFailure(verifier.verify(token));
    }
  });
});
