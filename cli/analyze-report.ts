/** The one-paragraph report of an analysis run, printed by `tradegraph analyze` and by `npm start`. */
import type { AnalyzeSummary } from '../subgraphs/analysis/pipeline.js';

export function formatAnalyzeSummary(s: AnalyzeSummary): string {
  const ml = s.model
    ? `ML model: ${s.model.folds} walk-forward folds, out-of-sample accuracy ${pct(s.model.oosAccuracy)}, AUC ${s.model.oosAuc?.toFixed(3) ?? 'n/a'} over ${s.model.oosSamples} samples`
    : 'ML model: not enough history for an out-of-sample model (ml_signal is null)';
  return [
    `Stored ${s.snapshots} snapshots for ${s.symbols} symbols, ${s.fromDate}..${s.toDate} (${s.dates} trading day(s)), ${s.workers || 'no'} worker thread(s).`,
    `Index: ${s.index.symbol}${s.index.computed ? ' (equal-weight, computed from the universe)' : ''}; ${s.transitions} weekly stage transitions counted.`,
    ml,
    `Timings: prepare ${s.timings.prepareMs} ms, train ${s.timings.trainMs} ms, analyse and store ${s.timings.analyzeMs} ms.`,
  ].join('\n');
}

const pct = (x: number | null): string => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);

