/** The one-paragraph report of an analysis run, printed by `tradegraph analyze` and by `npm start`. */
import type { AnalyzeSummary } from '../subgraphs/analysis/pipeline.js';

export function formatAnalyzeSummary(s: AnalyzeSummary): string {
  const ml = s.model
    ? `ML model: ${s.model.folds} walk-forward folds, out-of-sample accuracy ${pct(s.model.oosAccuracy)}, AUC ${s.model.oosAuc?.toFixed(3) ?? 'n/a'} over ${s.model.oosSamples} samples`
    : 'ML model: not enough history for an out-of-sample model (ml_signal is null)';
  const symbols = s.symbols === s.universeSymbols ? `${s.symbols} symbols` : `${s.symbols} of the universe's ${s.universeSymbols} symbols`;
  const days = s.chosen ? `${s.dates} chosen trading day(s)` : s.every === null ? `${s.dates} trading day(s)` : `${s.dates} date(s): ${s.every === 'week' ? "each week's last trading day" : `every ${ordinal(s.every)}trading day`}`;
  return [
    `Stored ${s.snapshots} snapshots for ${symbols}, ${s.fromDate}..${s.toDate} (${days}), ${s.workers || 'no'} worker thread(s).`,
    `Index: ${s.index.symbol}${s.index.computed ? ' (equal-weight, computed from the universe)' : ''}; ${s.transitions} weekly stage transitions counted.`,
    ml,
    `Timings: prepare ${s.timings.prepareMs} ms, train ${s.timings.trainMs} ms, analyse and store ${s.timings.analyzeMs} ms.`,
  ].join('\n');
}

const pct = (x: number | null): string => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);

/** "5th ", "21st ", "2nd " (with the space before the noun); 1 gives "" ("every trading day"). */
export function ordinal(n: number): string {
  if (n === 1) return '';
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th';
  return `${n}${suffix} `;
}
