/**
 * Development HS256 secret: AUTH_HS256_SECRET when set; otherwise, outside production, a random
 * secret created once under DATA_DIR (mode 0600) and shared by the servers and `tradegraph token`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config, PartnerAuthConfig } from './config.js';

export const DEV_SECRET_FILE = 'dev-hs256-secret';

export function resolvePartnerAuth(config: Config): PartnerAuthConfig {
  if (config.auth.hs256Secret || config.env === 'production' || !config.auth.algorithms.includes('HS256')) return config.auth;
  const file = path.join(config.dataDir, DEV_SECRET_FILE);
  fs.mkdirSync(config.dataDir, { recursive: true });
  if (!fs.existsSync(file)) {
    try {
      fs.writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return { ...config.auth, hs256Secret: fs.readFileSync(file, 'utf8').trim() };
}
