/**
 * mintDevelopmentToken (platform/dev-secret.ts), the one signer of development tokens behind
 * `tradegraph token` and the console's POST /console/dev-token: which key signs what, that every origin
 * the token names accepts it, and where no development token exists; and the CONSOLE setting.
 */
import { createOidcTokenVerifier, createPartnerTokenVerifier } from '../../../subgraphs/platform/auth.js';
import { ConfigError, loadConfig } from '../../../subgraphs/platform/config.js';
import { DEMO_PARTNER, DevTokenUnavailable, mintDevelopmentToken, resolveOidc, resolvePartnerAuth, signsDevIdTokens } from '../../../subgraphs/platform/dev-secret.js';
import { DEMO_PORTFOLIO_PARTNER } from '../../../cli/demo-book.js';
import { PRODUCTION_ENV, testConfig } from '../../helpers/config.js';

const ALL = ['analysis', 'allocation', 'search'];
const header = (token: string) => JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('mintDevelopmentToken', () => {
  const dev = testConfig({ APP_ENV: 'development', AUTH_HS256_SECRET: '' });
  const test = testConfig();

  it('in development signs one ES256 token that the search origin and both partner origins accept', async () => {
    const minted = await mintDevelopmentToken(dev, { subject: DEMO_PARTNER, audiences: ALL, ttl: 3600 });
    expect(minted.alg).toBe('ES256');
    expect(header(minted.token)).toMatchObject({ alg: 'ES256', kid: 'dev-identity-1' });
    expect(minted.audiences).toEqual([dev.auth.audiences.analysis, dev.auth.audiences.allocation, 'tradegraph-search']);
    await expect(createOidcTokenVerifier(resolveOidc(dev), dev.env).verify(minted.token)).resolves.toMatchObject({ subject: DEMO_PARTNER });
    for (const audience of [dev.auth.audiences.analysis, dev.auth.audiences.allocation]) {
      const principal = await createPartnerTokenVerifier(resolvePartnerAuth(dev), audience).verify(minted.token);
      expect(principal.partnerId).toBe(DEMO_PARTNER);
      expect((principal.claims.exp as number) - (principal.claims.iat as number)).toBe(3600);
    }
  });

  it('signs partner audiences alone with the HS256 secret, for an hour unless told', async () => {
    const minted = await mintDevelopmentToken(test, { subject: 'partner-3', audiences: ['allocation'] });
    expect(minted).toMatchObject({ alg: 'HS256', audiences: [test.auth.audiences.allocation] });
    const principal = await createPartnerTokenVerifier(test.auth, test.auth.audiences.allocation).verify(minted.token);
    expect((principal.claims.exp as number) - (principal.claims.iat as number)).toBe(3600);
    await expect(createPartnerTokenVerifier(test.auth, test.auth.audiences.analysis).verify(minted.token)).rejects.toThrow();
  });

  it('signs no ID token outside development, nor once an identity provider is configured', async () => {
    const withIdp = testConfig({ APP_ENV: 'development', OIDC_ISSUER: 'https://idp.example', OIDC_AUDIENCES: 'web' });
    for (const config of [test, withIdp]) {
      expect(signsDevIdTokens(config)).toBe(false);
      await expect(mintDevelopmentToken(config, { subject: 'p', audiences: ALL })).rejects.toThrow(DevTokenUnavailable);
    }
    expect(signsDevIdTokens(dev)).toBe(true);
  });

  it('signs nothing without an audience, nor HS256 where there is no secret', async () => {
    await expect(mintDevelopmentToken(test, { subject: 'p', audiences: [] })).rejects.toThrow(/at least one audience/);
    const production = testConfig(PRODUCTION_ENV);
    await expect(mintDevelopmentToken(production, { subject: 'p', audiences: ['analysis'] })).rejects.toThrow(/identity provider/);
  });

  it("the console's default subject is the demo book's owner", () => {
    expect(DEMO_PARTNER).toBe(DEMO_PORTFOLIO_PARTNER);
  });
});

describe('CONSOLE', () => {
  const production = { APP_ENV: 'production', AUTH_JWKS_URL: 'https://idp.example/jwks.json', AUTH_ISSUER: 'https://idp.example/' };

  it('is on by default outside production and off in production, unless set', () => {
    expect(loadConfig({}).gateway.console).toBe(true);
    expect(loadConfig({ APP_ENV: 'test' }).gateway.console).toBe(true);
    expect(loadConfig({ CONSOLE: 'false' }).gateway.console).toBe(false);
    expect(loadConfig(production).gateway.console).toBe(false);
    expect(loadConfig({ ...production, CONSOLE: 'true' }).gateway.console).toBe(true);
  });

  it('reports a value that is not a boolean by name', () => {
    expect(() => loadConfig({ CONSOLE: 'maybe' })).toThrow(ConfigError);
    try {
      loadConfig({ CONSOLE: 'maybe' });
    } catch (err) {
      expect((err as ConfigError).problems).toEqual(['CONSOLE must be true or false (got "maybe")']);
    }
  });
});
