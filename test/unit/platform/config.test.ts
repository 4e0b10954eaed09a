/** Configuration: documented defaults, and every bad value refused at start with its variable named. */
import path from 'node:path';
import { ConfigError, loadConfig } from '../../../subgraphs/platform/config.js';

const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
};

it('has the documented defaults', () => {
  const c = loadConfig({});
  expect(c.env).toBe('development');
  expect(c.ports).toEqual({ analysis: 8081, allocation: 8082, search: 8083, gateway: 4000 });
  expect(c.host).toBe('127.0.0.1');
  expect(c.dataDir).toMatch(/\.data$/);
  expect(c.databaseUrl).toBeUndefined();
  expect(c.logLevel).toBe('info');
  expect(c.bodyLimitBytes).toBe(1_048_576);
  expect(c.demo).toEqual({ symbol: 'ACME', seed: 20240614, symbolCount: 500, years: 3, endDate: '2026-10-30', loadOnStart: true });
  expect(c.marketIndexSymbol).toBe('TGMI');
  expect(c.auth).toEqual(expect.objectContaining({ issuer: 'tradegraph-dev', algorithms: ['HS256', 'RS256', 'ES256'], clockToleranceSeconds: 30 }));
  expect(c.auth.audiences).toEqual({ analysis: 'tradegraph-analysis', allocation: 'tradegraph-allocation' });
  expect(c.oidc).toEqual({ issuer: undefined, jwksUrl: undefined, audiences: [], enforce: true, clockToleranceSeconds: 30 });
  // The gateway routes to the URLs its supergraph names unless SUBGRAPH_<NAME>_URL overrides one.
  expect(c.gateway.subgraphUrls).toEqual({});
  expect(c.gateway.supergraphPath).toBeUndefined();
  expect(c.gateway.trustedDocumentsPaths).toBeUndefined();
  expect(c.graphqlIde).toBe(true);
});

it('reads the gateway settings: subgraph overrides, supergraph file, trusted documents; the IDE follows the environment', () => {
  const c = loadConfig({ SUBGRAPH_SEARCH_URL: 'http://s:1/graphql', SUPERGRAPH_PATH: 'deploy/supergraph.graphql', TRUSTED_DOCUMENTS: 'deploy/manifest.json' });
  expect(c.gateway.subgraphUrls).toEqual({ search: 'http://s:1/graphql' });
  expect(c.gateway.supergraphPath).toBe(path.resolve('deploy/supergraph.graphql'));
  expect(c.gateway.trustedDocumentsPaths).toEqual([path.resolve('deploy/manifest.json')]);
  expect(problemsOf({ SUBGRAPH_SEARCH_URL: 'x' })).toEqual(expect.arrayContaining([expect.stringContaining('SUBGRAPH_SEARCH_URL')]));
  expect(loadConfig({ GRAPHQL_IDE: 'false' }).graphqlIde).toBe(false);
});

it('reads ports, store and demo settings from the environment', () => {
  const c = loadConfig({ ANALYSIS_PORT: '9001', DATABASE_URL: 'postgres://u@db:5432/tg', DATA_DIR: '/var/lib/tg', DEMO_SYMBOL: 'abc', OIDC_AUDIENCES: 'a, b ,,c', LOG_LEVEL: 'debug' });
  expect(c.ports.analysis).toBe(9001);
  expect(c.gateway.subgraphUrls.analysis).toBeUndefined();
  expect(c.databaseUrl).toBe('postgres://u@db:5432/tg');
  expect(c.dataDir).toBe('/var/lib/tg');
  expect(c.demo.symbol).toBe('ABC');
  expect(c.oidc.audiences).toEqual(['a', 'b', 'c']);
  expect(c.logLevel).toBe('debug');
});

it('lists every bad value at once, naming the variable', () => {
  const problems = problemsOf({ ANALYSIS_PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', DEMO_END_DATE: '2026-13-01', OIDC_ENFORCE: 'maybe', AUTH_HS256_SECRET: 'short' });
  expect(problems).toEqual(
    expect.arrayContaining([
      expect.stringContaining('ANALYSIS_PORT'),
      expect.stringContaining('LOG_LEVEL'),
      expect.stringContaining('DATABASE_URL'),
      expect.stringContaining('DEMO_END_DATE'),
      expect.stringContaining('OIDC_ENFORCE'),
      'AUTH_HS256_SECRET must be at least 32 bytes',
    ]),
  );
});

it('production requires a JWKS URL and an issuer, and refuses HS256 and a disabled OIDC check', () => {
  expect(problemsOf({ APP_ENV: 'production', AUTH_HS256_SECRET: 'x'.repeat(40), OIDC_ENFORCE: 'false', AUTH_ALGORITHMS: 'HS256,RS256' })).toEqual(
    expect.arrayContaining([
      'AUTH_ALGORITHMS may not include HS256 in production',
      expect.stringContaining('AUTH_HS256_SECRET is for development only'),
      'AUTH_JWKS_URL is required in production',
      'AUTH_ISSUER is required in production',
      'OIDC_ENFORCE=false is not allowed in production',
    ]),
  );
  const prod = loadConfig({ APP_ENV: 'production', AUTH_JWKS_URL: 'https://idp.example/jwks.json', AUTH_ISSUER: 'https://idp.example/' });
  expect(prod.auth.algorithms).toEqual(['RS256', 'ES256']);
  expect(prod.graphqlIde).toBe(false);
  expect(loadConfig({ APP_ENV: 'production', AUTH_JWKS_URL: 'https://idp.example/jwks.json', AUTH_ISSUER: 'https://idp.example/', GRAPHQL_IDE: 'true' }).graphqlIde).toBe(true);
});

it('refuses an unknown signing algorithm', () => {
  expect(problemsOf({ AUTH_ALGORITHMS: 'none' })).toEqual([expect.stringContaining('none is not supported')]);
});

describe('CORS_ORIGINS', () => {
  it('defaults to the loopback origins outside production and to none in production', () => {
    expect(loadConfig({}).corsOrigins).toEqual({ kind: 'loopback' });
    expect(loadConfig({ APP_ENV: 'test' }).corsOrigins).toEqual({ kind: 'loopback' });
    const prod = loadConfig({ APP_ENV: 'production', AUTH_JWKS_URL: 'https://idp.example/jwks.json', AUTH_ISSUER: 'https://idp.example/' });
    expect(prod.corsOrigins).toEqual({ kind: 'exact', origins: [] });
  });

  it('reads exact origins, comma-separated, and * for any', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://app.example, http://localhost:3000 ,,https://b.example:8443' }).corsOrigins).toEqual({
      kind: 'exact',
      origins: ['https://app.example', 'http://localhost:3000', 'https://b.example:8443'],
    });
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual({ kind: 'any' });
  });

  it('refuses values that are not origins, naming each', () => {
    expect(problemsOf({ CORS_ORIGINS: 'https://app.example/, app.example, ftp://x.example, https://a.example/path' })).toEqual([
      expect.stringContaining('CORS_ORIGINS: "https://app.example/"'),
      expect.stringContaining('CORS_ORIGINS: "app.example"'),
      expect.stringContaining('CORS_ORIGINS: "ftp://x.example"'),
      expect.stringContaining('CORS_ORIGINS: "https://a.example/path"'),
    ]);
    expect(problemsOf({ CORS_ORIGINS: '*, https://app.example' })).toEqual([expect.stringContaining('CORS_ORIGINS: * ')]);
  });
});
