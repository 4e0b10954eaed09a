/** Configuration for tests: every origin on port 0, a small demo market, a known HS256 secret. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../subgraphs/platform/config.js';

export const TEST_SECRET = 'test-secret-0123456789abcdef-0123456789abcdef';

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    APP_ENV: 'test',
    HOST: '127.0.0.1',
    ANALYSIS_PORT: '0',
    ALLOCATION_PORT: '0',
    SEARCH_PORT: '0',
    GATEWAY_PORT: '0',
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-test-')),
    DEMO_SYMBOL_COUNT: '22',
    DEMO_YEARS: '1',
    AUTH_HS256_SECRET: TEST_SECRET,
    LOG_LEVEL: 'silent',
    // The sampled history behind evidence costs seconds per start; the suites that need it turn it on.
    ANALYZE_HISTORY_EVERY: '0',
    // Suites fire many requests from one address; the rate-limit tests set their own budgets.
    RATE_LIMIT_MAX: '1000000',
    RATE_LIMIT_EXPENSIVE_MAX: '1000000',
    ...env,
  });
}

/**
 * A production configuration that starts without an identity provider to reach: RS256/ES256 only, an
 * issuer, a JWKS URL on a closed port, no demo data and no start-up analysis.
 */
export const PRODUCTION_ENV: Readonly<Record<string, string>> = {
  APP_ENV: 'production',
  AUTH_HS256_SECRET: '',
  AUTH_ISSUER: 'https://issuer.example',
  AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks.json',
  DEMO_DATA: 'false',
  ANALYZE_ON_START: 'false',
};
