/**
 * Price universes for the ML edge-gate tests, run through the real load pass (prepared series, features,
 * labels) and walk-forward training of the product.
 *
 * Each stock's daily log return is a shared market factor (1%/day) plus its own noise (1.5%/day) plus a
 * planted trend: the stock is in an up or a down regime (switching with probability 1/60 a day) and
 * drifts `trend` per day in its direction. With trend 0 the closes are pure random walks and nothing
 * predicts the forward excess return; with trend > 0 past returns and the distance to the moving
 * averages predict it, more strongly the larger the trend. The index is the equal-weight index the
 * pipeline computes when the store has none.
 */
import type { BarSeries, SecurityRecord } from '../../../subgraphs/analysis/engine/market-types.js';
import { createPrng } from '../../../subgraphs/analysis/engine/prng.js';
import { trainSignalModel, type SignalModel } from '../../../subgraphs/analysis/engine/signal-model.js';
import { AnalysisBatch } from '../../../subgraphs/analysis/analyze-batch.js';
import { buildUniverse, symbolInputs, type Universe } from '../../../subgraphs/analysis/pipeline.js';
import { barsFromCloses } from './price-paths.js';

export interface PriceUniverseSpec {
  seed: number;
  symbols: number;
  days: number;
  /** Daily drift of each stock's regime (0: random walks). */
  trend: number;
}

export const INDEX_SYMBOL = 'EWX';

/** The securities and full bar series of a universe (see the file comment). */
export function priceUniverse(spec: PriceUniverseSpec): { securities: SecurityRecord[]; series: Map<string, BarSeries> } {
  const marketRng = createPrng(spec.seed, 1);
  const market = Float64Array.from({ length: spec.days }, () => 0.01 * marketRng.normal());
  const securities: SecurityRecord[] = [];
  const series = new Map<string, BarSeries>();
  for (let k = 0; k < spec.symbols; k++) {
    const symbol = `S${String(k).padStart(3, '0')}`;
    const rng = createPrng(spec.seed, 100 + k);
    const closes = new Float64Array(spec.days);
    const volumes = new Float64Array(spec.days);
    let regime = rng.next() < 0.5 ? 1 : -1;
    let price = 50 + 100 * rng.next();
    for (let t = 0; t < spec.days; t++) {
      if (rng.next() < 1 / 60) regime = -regime;
      const r = market[t] + 0.015 * rng.normal() + spec.trend * regime;
      if (t > 0) price *= Math.exp(r);
      closes[t] = price;
      volumes[t] = Math.round(1_000_000 * Math.exp(0.3 * rng.normal()));
    }
    const bars = barsFromCloses(closes, volumes, 0.006, spec.seed * 1000 + k);
    securities.push({ symbol, name: symbol, sector: null, subIndustry: null, assetType: 'EQUITY', dataSource: 'synthetic' });
    series.set(symbol, { symbol, dates: bars.dates, open: bars.open, high: bars.high, low: bars.low, close: bars.close, volume: bars.volume });
  }
  return { securities, series };
}

/** The universe as known at `date` (every series cut after it; all of it when null). */
export function universeThrough(u: { securities: SecurityRecord[]; series: Map<string, BarSeries> }, date: string | null): Universe {
  const cut = new Map<string, BarSeries>();
  for (const [symbol, s] of u.series) {
    const n = date === null ? s.dates.length : s.dates.filter((d) => d <= date).length;
    cut.set(symbol, { symbol, dates: s.dates.slice(0, n), open: s.open.slice(0, n), high: s.high.slice(0, n), low: s.low.slice(0, n), close: s.close.slice(0, n), volume: s.volume.slice(0, n) });
  }
  return buildUniverse(u.securities, cut, INDEX_SYMBOL);
}

/** The product's load pass and walk-forward training on a universe (records for `servedTimes`, or every window). */
export function trainOn(universe: Universe, servedTimes?: readonly number[]): SignalModel | null {
  const loaded = new AnalysisBatch().load(symbolInputs(universe));
  return trainSignalModel(loaded.samples, universe.calendar, servedTimes);
}
