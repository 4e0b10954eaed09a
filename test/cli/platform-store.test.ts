/**
 * What a first start leaves of the embedded store's write-ahead log, and the step times it reports: the
 * start-up steps write the demo market and the analysis, and the platform checkpoints before the origins
 * listen, so pg_wal holds about a segment instead of the whole log of the start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startPlatform } from '../../cli/platform.js';
import { testConfig } from '../helpers/config.js';

const walBytes = (dataDir: string): number => {
  const wal = path.join(dataDir, 'pglite', 'pg_wal');
  return fs.readdirSync(wal).reduce((n, f) => n + (/^[0-9A-F]{24}$/.test(f) ? fs.statSync(path.join(wal, f)).size : 0), 0);
};

test('a first start leaves about a megabyte of write-ahead log and reports each step it ran', async () => {
  const config = testConfig();
  try {
    const platform = await startPlatform(config, ['analysis']);
    try {
      expect(platform.demo?.bars).toBeGreaterThan(0);
      expect(platform.timings.map((t) => t.step)).toEqual(['migrations', 'demo market', 'analysis', 'store settled']);
      expect(walBytes(config.dataDir)).toBeLessThanOrEqual(2 * 1024 * 1024);
    } finally {
      await platform.close();
    }
  } finally {
    fs.rmSync(config.dataDir, { recursive: true, force: true });
  }
});
