/**
 * Bar storage throughput: the store's bulk path (column arrays through unnest, 20,000 rows per
 * statement) against a baseline of one parameterised INSERT per bar, both inside one transaction,
 * measured side by side on the same backend in the same run.
 *
 *   npm run bench:bulk-insert                        # embedded PGlite
 *   DATABASE_URL=postgres://... npm run bench:bulk-insert
 */
import { performance } from 'node:perf_hooks';
import { upsertBars, upsertSecurities } from '../subgraphs/analysis/store.js';
import { generateSyntheticMarket } from '../subgraphs/analysis/engine/synthetic-market.js';
import type { BarSeries } from '../subgraphs/analysis/engine/market-types.js';
import { ALL_MIGRATIONS } from '../app/migrations.js';
import { openDb, type Db } from '../subgraphs/platform/db.js';
import { migrate } from '../subgraphs/platform/migrations.js';

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 40);

async function fresh(): Promise<Db> {
  const db = await openDb({ databaseUrl: process.env.DATABASE_URL });
  await migrate(db, ALL_MIGRATIONS);
  await db.exec('TRUNCATE bars, securities CASCADE');
  return db;
}

async function timed(label: string, series: BarSeries[], write: (db: Db, s: BarSeries[]) => Promise<void>, securities: Parameters<typeof upsertSecurities>[1]) {
  const db = await fresh();
  await upsertSecurities(db, securities);
  const rows = series.reduce((n, s) => n + s.dates.length, 0);
  const t0 = performance.now();
  await write(db, series);
  const ms = performance.now() - t0;
  const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM bars');
  if (n !== rows) throw new Error(`${label}: wrote ${n} of ${rows} rows`);
  await db.close();
  return { label, rows, ms, perSecond: rows / (ms / 1000) };
}

async function main(): Promise<void> {
  const market = generateSyntheticMarket({ seed: 7, symbolCount: SYMBOLS, years: 3, endDate: '2026-10-30', indexSymbol: 'TGMI' });
  const series = [...market.series()];
  const baseline = await timed('row-by-row INSERT (baseline)', series, (db, all) =>
    db.transaction(async (tx) => {
      for (const s of all) {
        for (let i = 0; i < s.dates.length; i++) {
          await tx.query('INSERT INTO bars (symbol, date, open, high, low, close, volume) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
            s.symbol, s.dates[i], s.open[i], s.high[i], s.low[i], s.close[i], Math.round(s.volume[i]),
          ]);
        }
      }
    }), market.securities);
  const bulk = await timed('store.upsertBars (unnest)', series, (db, all) =>
    db.transaction(async (tx) => {
      for (const s of all) await upsertBars(tx, s);
    }), market.securities);

  const backend = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite (in memory)';
  console.log(`bar writes on ${backend}: ${SYMBOLS + 1} symbols x ${market.calendar.length} days`);
  for (const r of [baseline, bulk]) console.log(`  ${r.label.padEnd(32)} ${r.rows} rows in ${r.ms.toFixed(0)} ms = ${Math.round(r.perSecond).toLocaleString('en-US')} rows/s`);
  console.log(`  ratio bulk / baseline: ${(bulk.perSecond / baseline.perSecond).toFixed(1)}x`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
