/**
 * A local OpenID Connect issuer for tests: an HTTP server on port 0 that serves its discovery document
 * (`/.well-known/openid-configuration`) and JWKS (`/jwks.json`), and signs real RS256 ID tokens with the
 * private key whose public half it publishes. Point OIDC_ISSUER at `issuer.url`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';

export interface TestIssuer {
  url: string;
  /** An RS256 ID token from this issuer (default: 1 h, audience `audience`). */
  idToken(options: { subject: string; audience?: string | string[]; expiresIn?: string | number; claims?: Record<string, unknown> }): Promise<string>;
  /** A token signed by a key the issuer does not publish (same kid): a forgery. */
  forgedToken(options: { subject: string; audience?: string | string[] }): Promise<string>;
  close(): Promise<void>;
}

export const TEST_OIDC_AUDIENCE = 'tradegraph-search-test';
const KID = 'test-rs-1';

export async function startTestIssuer(audience: string = TEST_OIDC_AUDIENCE): Promise<TestIssuer> {
  const key = await generateKeyPair('RS256');
  const rogue = await generateKeyPair('RS256');
  const jwks = { keys: [{ ...(await exportJWK(key.publicKey)), kid: KID, alg: 'RS256', use: 'sig' }] };
  let url = '';
  const server = http.createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') return json(200, { issuer: url, jwks_uri: `${url}/jwks.json`, id_token_signing_alg_values_supported: ['RS256'] });
    if (req.url === '/jwks.json') return json(200, jwks);
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sign = (privateKey: CryptoKey, o: { subject: string; audience?: string | string[]; expiresIn?: string | number; claims?: Record<string, unknown> }) =>
    mintPartnerToken({ privateKey, alg: 'RS256', kid: KID, issuer: url, audience: o.audience ?? audience, subject: o.subject, expiresIn: o.expiresIn, claims: o.claims });
  return {
    url,
    idToken: (o) => sign(key.privateKey, o),
    forgedToken: (o) => sign(rogue.privateKey, o),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
