/**
 * A synthetic universe with a planted cross-sectional edge: each name's daily log return leans against its
 * own last month, r_t = vol x e_t - kappa x (r_{t-1} + .. + r_{t-21}) / 21, so last month's losers tend to
 * beat last month's winners over the next month (a 1-month reversal, known at the snapshot's date). Every
 * snapshot output is random (universe.ts randomOutputs); forward excess returns and baselines are computed
 * from the closes by the engine itself (universe.ts assemble).
 */
import type { CloseSeries } from '../../../../subgraphs/analysis/engine/evidence/forward.js';
import type { SnapshotOutputs } from '../../../../subgraphs/analysis/engine/evidence/rows.js';
import { createPrng } from '../../../../subgraphs/analysis/engine/prng.js';
import { assemble, closesFrom, dayName, randomOutputs, snapshotDays, type Universe, type UniverseSpec } from './universe.js';

export interface ReversalSpec extends UniverseSpec {
  /** Strength of the pull against the last 21 days' return (0: random walks). */
  kappa: number;
}

export function reversalUniverse(spec: ReversalSpec): Universe {
  const calendar = Array.from({ length: spec.days }, (_, t) => dayName(t));
  const days = snapshotDays(spec);
  const closes: CloseSeries[] = [];
  const outputs: SnapshotOutputs[] = [];
  for (let s = 0; s < spec.symbols; s++) {
    const rng = createPrng(spec.seed, s);
    const vol = spec.vol * (0.6 + 0.8 * rng.next());
    const returns = new Float64Array(spec.days);
    let month = 0; // r_{t-1} + .. + r_{t-21}
    for (let t = 1; t < spec.days; t++) {
      returns[t] = vol * rng.normal() - (vol * vol) / 2 - (spec.kappa * month) / 21;
      month += returns[t] - (t > 21 ? returns[t - 21] : 0);
    }
    const symbol = `S${String(s).padStart(3, '0')}`;
    closes.push({ symbol, dates: calendar, close: closesFrom(returns, 20 + 80 * rng.next()) });
    for (const t of days) outputs.push(randomOutputs(rng, symbol, calendar[t]));
  }
  return assemble(closes, outputs, calendar, days);
}
