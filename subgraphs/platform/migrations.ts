/**
 * Versioned migrations, applied at start in one transaction under an advisory lock (so replicas
 * starting together on PostgreSQL apply them once). Each domain owns its tables and lists its
 * migrations in its own `migrations.ts`; versions are global (YYYYMMDDNN) and never edited once
 * released: an applied migration whose SQL changed is refused by checksum.
 */
import { createHash } from 'node:crypto';
import type { Db } from './db.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export interface MigrationResult {
  applied: Array<Pick<Migration, 'version' | 'name'>>;
  current: number;
}

const LOCK_KEY = 7_420_113; // arbitrary, stable: pg_advisory_xact_lock key for migrations

const checksum = (sql: string) => createHash('sha256').update(sql).digest('hex');

export function orderMigrations(lists: Migration[][]): Migration[] {
  const all = lists.flat().sort((a, b) => a.version - b.version);
  for (let i = 1; i < all.length; i++) {
    if (all[i].version === all[i - 1].version) {
      throw new Error(`Duplicate migration version ${all[i].version} (${all[i - 1].name}, ${all[i].name})`);
    }
  }
  return all;
}

export async function migrate(db: Db, migrations: Migration[]): Promise<MigrationResult> {
  return db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await tx.exec(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version bigint PRIMARY KEY,
         name text NOT NULL,
         checksum text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const rows = await tx.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    const done = new Map(rows.map((r) => [r.version, r]));
    const applied: MigrationResult['applied'] = [];
    for (const m of migrations) {
      const prior = done.get(m.version);
      if (prior) {
        if (prior.checksum !== checksum(m.sql)) {
          throw new Error(`Migration ${m.version} (${m.name}) was changed after it was applied; add a new migration instead`);
        }
        continue;
      }
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, checksum(m.sql)]);
      applied.push({ version: m.version, name: m.name });
    }
    const current = migrations.length ? migrations[migrations.length - 1].version : 0;
    return { applied, current };
  });
}
