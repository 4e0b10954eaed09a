/**
 * Measured Kelly odds for suites whose store holds only a few days of snapshots (no outcome can be known
 * yet, so `refreshCandidateOdds` would measure nothing and Kelly would size nothing).
 *
 * `storeEdgeOdds(db)` stores one candidate-odds table, computed by the real engine
 * (engine/kelly-odds.ts) from a made-up history in which trades hit their target 70% of the time against
 * no-edge odds of 30%. The history has no trades in the candidates' own states, so every candidate takes
 * the pooled fit: a positive edge for every trade, and notes that say so. Its as-of date is the day before
 * the store's newest snapshot date.
 */
import { PIPELINE_VERSION } from '../../subgraphs/analysis/engine/document.js';
import { oddsTables, type OddsTrade } from '../../subgraphs/allocation/engine/kelly-odds.js';
import type { Db } from '../../subgraphs/platform/db.js';

export async function storeEdgeOdds(db: Db): Promise<string> {
  const [{ latest }] = await db.query<{ latest: string }>('SELECT max(analysis_date)::text AS latest FROM analysis_snapshots');
  const d = new Date(`${latest}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  const asOf = d.toISOString().slice(0, 10);
  const trades: OddsTrade[] = Array.from({ length: 300 }, (_, i) => ({
    symbol: `HIST${i % 10}`,
    date: '2000-01-03',
    state: 'HISTORY/pattern',
    p0: 0.3,
    hit: i % 10 < 7 ? 1 : 0,
    known: '2000-03-31',
    weight: 1,
  }));
  const [table] = oddsTables(trades, [asOf], PIPELINE_VERSION);
  await db.query('INSERT INTO candidate_odds (pipeline_version, as_of, trades, odds) VALUES ($1, $2::date, $3, $4::jsonb) ON CONFLICT DO NOTHING', [
    PIPELINE_VERSION,
    asOf,
    trades.length,
    JSON.stringify(table),
  ]);
  return asOf;
}
