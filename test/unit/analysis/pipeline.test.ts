/**
 * The analysis pipeline end to end without a database: a small synthetic universe in, documents out.
 * Every field of the spec's AnalysisLatestResult is computed from bars, nothing reads ahead of its
 * date, and the same input gives the same output.
 */
import { AUTH_ONLY_RESULT_KEYS, PUBLIC_RESULT_KEYS, type AnalysisDocument } from '../../../subgraphs/analysis/engine/document.js';
import type { BarSeries, SecurityRecord } from '../../../subgraphs/analysis/engine/market-types.js';
import { generateSyntheticMarket } from '../../../subgraphs/analysis/engine/synthetic-market.js';
import {
  analyzeUniverse,
  buildUniverse,
  equalWeightIndex,
  requestedDates,
  type AnalyzeSummary,
  type Universe,
} from '../../../subgraphs/analysis/pipeline.js';

const PRODUCED_AT = '2026-11-01T06:00:00.000Z';
const market = generateSyntheticMarket({ seed: 20240614, symbolCount: 24, years: 3, endDate: '2026-10-30', indexSymbol: 'TGMI' });
const allSeries = new Map<string, BarSeries>();
for (const s of market.series()) allSeries.set(s.symbol, s);

/** The universe as it was known at `date`: every series cut after it. */
function universeAt(date: string | null, securities: readonly SecurityRecord[] = market.securities): Universe {
  const cut = new Map<string, BarSeries>();
  for (const [symbol, s] of allSeries) {
    const n = date === null ? s.dates.length : s.dates.filter((d) => d <= date).length;
    cut.set(symbol, { symbol, dates: s.dates.slice(0, n), open: s.open.slice(0, n), high: s.high.slice(0, n), low: s.low.slice(0, n), close: s.close.slice(0, n), volume: s.volume.slice(0, n) });
  }
  return buildUniverse(securities, cut, 'TGMI');
}

async function run(u: Universe, from?: string, to?: string): Promise<{ summary: AnalyzeSummary; docs: Map<string, AnalysisDocument> }> {
  const docs = new Map<string, AnalysisDocument>();
  const summary = await analyzeUniverse(u, { from, to, workers: 0, producedAt: PRODUCED_AT }, async (rows) => {
    for (const r of rows) docs.set(`${r.symbol}@${r.analysisDate}`, JSON.parse(r.doc) as AnalysisDocument);
  });
  return { summary, docs };
}

const calendar = market.calendar;
const last = calendar[calendar.length - 1];
const fiveBack = calendar[calendar.length - 5];

let full: Awaited<ReturnType<typeof run>>;
beforeAll(async () => {
  full = await run(universeAt(null), fiveBack, last);
});

describe('analyzeUniverse on a synthetic universe', () => {
  it('stores one document per equity per requested date', () => {
    expect(full.summary.symbols).toBe(24);
    expect(full.summary.dates).toBe(5);
    expect(full.summary.snapshots).toBe(120);
    expect(full.docs.size).toBe(120);
    expect(full.summary.index).toEqual({ symbol: 'TGMI', computed: false });
  });

  it('computes every AnalysisLatestResult field from the bars (3 years of history support all of them)', () => {
    for (const doc of full.docs.values()) {
      for (const key of [...PUBLIC_RESULT_KEYS, ...AUTH_ONLY_RESULT_KEYS]) expect(doc).toHaveProperty(key);
      // best_pattern / best_recent_pattern are null exactly when no pattern was found.
      expect(doc.best_pattern === null).toBe((doc.detected_patterns ?? []).length === 0);
      expect(doc.best_recent_pattern === null).toBe((doc.recent_patterns ?? []).length === 0);
      const required: (keyof AnalysisDocument)[] = [
        'stage', 'stage_strength', 'price', 'volume', 'indicators', 'detected_patterns', 'pattern_signal', 'price_targets',
        'support_levels', 'resistance_levels', 'recent_patterns', 'recent_pattern_signal', 'market_regime', 'sector', 'signal',
        'confidence', 'ml_signal', 'enhanced_signal', 'analysis_date', 'analysis_timestamp', 'timestamp', 'risk_parameters',
        'transition_probabilities',
      ];
      for (const key of required) expect({ key, value: doc[key] }).not.toEqual({ key, value: null });
      for (const [name, value] of Object.entries(doc.indicators ?? {})) expect({ name, value }).not.toEqual({ name, value: null });
      expect(doc.stage).toMatch(/^STAGE [1-4]$/);
      expect(['VERY_STRONG', 'STRONG', 'MODERATE', 'WEAK']).toContain(doc.stage_strength);
      expect(doc.indicators?.sata_score).toBeGreaterThanOrEqual(0);
      expect(doc.indicators?.sata_score).toBeLessThanOrEqual(10);
      expect(doc.confidence).toBeGreaterThanOrEqual(0);
      expect(doc.confidence).toBeLessThanOrEqual(1);
      expect(doc.analysis_timestamp).toBe(PRODUCED_AT);
    }
  });

  it('quotes the bars of its date and the security it belongs to', () => {
    const doc = full.docs.get(`ACME@${last}`) as AnalysisDocument;
    const acme = allSeries.get('ACME') as BarSeries;
    expect(doc.price).toBeCloseTo(acme.close[acme.close.length - 1], 4);
    expect(doc.volume).toBe(acme.volume[acme.volume.length - 1]);
    expect(doc.sector).toBe('Information Technology');
    expect(doc.data_source).toBe('synthetic');
    expect(doc.analysis_date).toBe(last);
  });

  it('finds the demo symbol in its stage-2 advance', () => {
    expect(full.docs.get(`ACME@${last}`)?.stage).toBe('STAGE 2');
  });

  it('conditions transition probabilities on the current stage, with rows that sum to 1', () => {
    for (const doc of full.docs.values()) {
      const t = doc.transition_probabilities;
      if (!t) throw new Error('missing transition probabilities');
      expect(t.current_stage).toBe(doc.stage);
      // Stored probabilities keep 6 significant digits, so a row sums to 1 within rounding.
      expect(Object.values(t.next_week).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
      expect(t.sample_size).toBeGreaterThan(0);
      expect(t.estimated_through <= doc.analysis_date).toBe(true);
    }
  });

  it('reports a walk-forward model with out-of-sample figures', () => {
    const model = full.summary.model;
    expect(model).not.toBeNull();
    expect(model?.folds).toBeGreaterThanOrEqual(4);
    expect(model?.oosSamples).toBeGreaterThan(1000);
    expect(model?.oosAuc).toBeGreaterThan(0);
    expect(model?.oosAuc).toBeLessThan(1);
    const ml = full.docs.get(`ACME@${last}`)?.ml_signal;
    expect((ml?.model.trained_through ?? '9999') < last).toBe(true);
    expect(ml?.probability_up).toBeGreaterThan(0);
    expect(ml?.probability_up).toBeLessThan(1);
  });

  it('gives the ML vote weight only when its out-of-sample AUC interval is above 0.5, and says why in every document', () => {
    for (const doc of full.docs.values()) {
      const e = doc.enhanced_signal;
      const model = doc.ml_signal?.model;
      if (!e || !model) throw new Error('missing signals');
      expect(model).toHaveProperty('oos_auc_ci');
      expect(model.oos_dates).toBeGreaterThanOrEqual(0);
      expect((model.oos_through ?? '') <= model.trained_through).toBe(true);
      const low = model.oos_auc_ci?.low ?? null;
      const expected = low !== null && low > 0.5 ? Math.min(0.5, Math.round(4 * (low - 0.5) * 1e4) / 1e4) : 0;
      expect(e.ml_weight).toBeCloseTo(expected, 4);
      expect(e.weights?.ml.weight).toBe(e.ml_weight);
      expect(e.weights?.rules.weight).toBe(e.rules_weight);
      expect(e.weights?.ml.reason).toMatch(new RegExp(`^ml: out-of-sample AUC .*: weight ${e.ml_weight}$`));
      if (e.ml_weight === 0) expect(e.weights?.ml.reason).toMatch(/(interval includes 0\.5|interval below 0\.5|no interval|no out-of-sample)/);
    }
  });

  it('is deterministic', async () => {
    const again = await run(universeAt(null), last, last);
    expect(again.docs.get(`ACME@${last}`)).toEqual(full.docs.get(`ACME@${last}`));
  });
});

describe('no look-ahead', () => {
  // Three symbols miss every 7th bar, so the 20-bar label window spans more than 20 calendar days.
  const gapped = new Set(market.securities.slice(3, 6).map((s) => s.symbol));
  const withGaps = (u: Universe): Universe => ({
    ...u,
    equities: u.equities.map((e) => {
      if (!gapped.has(e.security.symbol)) return e;
      const keep = e.bars.dates.map((_, i) => i % 7 !== 3);
      const pick = (a: Float64Array) => a.filter((_, i) => keep[i]);
      const b = e.bars;
      return { ...e, bars: { ...b, dates: b.dates.filter((_, i) => keep[i]), open: pick(b.open), high: pick(b.high), low: pick(b.low), close: pick(b.close), volume: pick(b.volume) } };
    }),
  });
  const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();
  const from = calendar[calendar.length - 30];
  const recent = calendar.slice(-30, -1);
  // A Friday, a Wednesday, the day before the last, and the oldest date of the range.
  const dates = [recent.filter((d) => weekday(d) === 5)[1], recent.filter((d) => weekday(d) === 3)[2], recent[recent.length - 1], from];

  it.each(dates)('a document for %s is the same whether or not later bars exist (every symbol, with gaps)', async (date) => {
    const fullRun = await run(withGaps(universeAt(null)), from, last);
    const past = await run(withGaps(universeAt(date)), date, date);
    expect(past.docs.size).toBeGreaterThanOrEqual(21); // a gapped symbol has no document on a day it has no bar
    for (const [key, doc] of past.docs) expect({ key, doc }).toEqual({ key, doc: fullRun.docs.get(key) });
  });
});

describe('universe and dates', () => {
  it('computes an equal-weight index when the store has no index security', () => {
    const equitiesOnly = market.securities.filter((s) => s.assetType === 'EQUITY');
    const u = universeAt(null, equitiesOnly);
    expect(u.index.computed).toBe(true);
    expect(u.index.bars.close[0]).toBe(1000);
    const a = allSeries.get(equitiesOnly[0].symbol) as BarSeries;
    const b = allSeries.get(equitiesOnly[1].symbol) as BarSeries;
    const two = equalWeightIndex('EW', calendar.slice(0, 3), [a, b]);
    const r1 = (a.close[1] / a.close[0] - 1 + b.close[1] / b.close[0] - 1) / 2;
    const r2 = (a.close[2] / a.close[1] - 1 + b.close[2] / b.close[1] - 1) / 2;
    expect(two.close[2]).toBeCloseTo(1000 * (1 + r1) * (1 + r2), 9);
  });

  it('defaults to the latest trading day and rejects empty or inverted ranges', () => {
    expect(requestedDates(calendar)).toEqual([last]);
    expect(requestedDates(calendar, fiveBack)).toHaveLength(5);
    expect(() => requestedDates(calendar, last, fiveBack)).toThrow(/must not be after/);
    expect(() => requestedDates(calendar, '2030-01-01', '2030-02-01')).toThrow(/no trading days/);
    expect(() => requestedDates([])).toThrow(/no bars/);
  });
});
