/**
 * The embedded store on disk gives back its write-ahead log: single-user PostgreSQL never checkpoints by
 * itself, so a bulk write leaves its whole log in pg_wal until db.checkpoint(), which deletes what is no
 * longer needed, including the segments an older store kept renamed ahead of the log for reuse.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPglite } from '../../subgraphs/platform/db.js';

const walBytes = (dir: string): number => {
  const wal = path.join(dir, 'pglite', 'pg_wal');
  return fs.readdirSync(wal).reduce((n, f) => n + (/^[0-9A-F]{24}$/.test(f) ? fs.statSync(path.join(wal, f)).size : 0), 0);
};

test('a checkpoint after a bulk write shrinks pg_wal to a few segments, also when segments were kept ahead of the log', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-wal-'));
  try {
    const db = await openPglite(dir);
    try {
      await db.exec(`CREATE TABLE filler (x text); INSERT INTO filler SELECT repeat(md5(g::text), 30) FROM generate_series(1, 5000) AS g`);
      const before = walBytes(dir);
      expect(before).toBeGreaterThan(4 * 1024 * 1024);
      // What a store opened with wal_recycle on left behind: old segments renamed ahead of the log.
      const wal = path.join(dir, 'pglite', 'pg_wal');
      const [{ current }] = await db.query<{ current: string }>('SELECT pg_walfile_name(pg_current_wal_insert_lsn()) AS current');
      const ahead = `${current.slice(0, 16)}${(parseInt(current.slice(16), 16) + 40).toString(16).toUpperCase().padStart(8, '0')}`;
      fs.writeFileSync(path.join(wal, ahead), Buffer.alloc(1024 * 1024));

      await db.checkpoint?.();
      expect(walBytes(dir)).toBeLessThanOrEqual(2 * 1024 * 1024); // new stores have 1 MB segments
      expect(fs.existsSync(path.join(wal, ahead))).toBe(false);
      // The store goes on writing and keeps what it wrote.
      await db.exec('INSERT INTO filler SELECT md5(g::text) FROM generate_series(1, 1000) AS g');
    } finally {
      await db.close();
    }
    const again = await openPglite(dir);
    try {
      expect(await again.query('SELECT count(*)::int AS n FROM filler')).toEqual([{ n: 6000 }]);
    } finally {
      await again.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
