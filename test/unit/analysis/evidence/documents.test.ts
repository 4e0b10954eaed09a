/**
 * Evaluation rows from real analysis documents (subgraphs/analysis/engine/evidence/rows.ts): documents built
 * by the engine from the synthetic market, weekly, turned into outputs, joined with forward returns and
 * baselines, evaluated and reported end to end; and the mapping of each document field by hand.
 */
import type { AnalysisDocument } from '../../../../subgraphs/analysis/engine/document.js';
import { evaluate } from '../../../../subgraphs/analysis/engine/evidence/evaluate.js';
import { ForwardTable } from '../../../../subgraphs/analysis/engine/evidence/forward.js';
import { renderReport } from '../../../../subgraphs/analysis/engine/evidence/report.js';
import { buildRows, outputsFromDocument, patternTarget, type SnapshotOutputs } from '../../../../subgraphs/analysis/engine/evidence/rows.js';
import { prepareSymbol } from '../../../../subgraphs/analysis/engine/prepared.js';
import { buildDocument, type UniverseState } from '../../../../subgraphs/analysis/engine/snapshot.js';
import { generateSyntheticMarket } from '../../../../subgraphs/analysis/engine/synthetic-market.js';

const market = generateSyntheticMarket({ seed: 7, symbolCount: 12, years: 3, endDate: '2025-12-31', indexSymbol: 'TGMI' });
const all = [...market.series()];
const index = all[0];
const equities = all.slice(1);
const state: UniverseState = { regimeAt: () => null, transitions: null, mlModelAt: () => null };
const time = Int32Array.from(market.calendar, (_, i) => i);
const weekly = market.calendar.map((_, i) => i).filter((i) => i >= 300 && i % 5 === 0);

const documents: AnalysisDocument[] = [];
for (const bars of equities) {
  const prepared = prepareSymbol({ symbol: bars.symbol, sector: null, dataSource: 'synthetic', bars, benchmark: index.close, time });
  for (const i of weekly) documents.push(buildDocument(prepared, i, state, '2026-01-01T00:00:00.000Z'));
}

describe('rows from engine documents', () => {
  const outputs = documents.map(outputsFromDocument);

  it('reads every output the documents carry', () => {
    expect(outputs).toHaveLength(12 * weekly.length);
    expect(new Set(outputs.map((o) => o.stage))).toEqual(new Set([1, 2, 3, 4]));
    expect(outputs.every((o) => o.signal !== null && o.confidence !== null && o.sataScore !== null && o.stageStrength !== null)).toBe(true);
    expect(outputs.every((o) => o.patternDirection !== null && o.patternScore !== null)).toBe(true);
    // No ML model was given: no ML outputs, and the enhanced signal still comes from the rules.
    expect(outputs.every((o) => o.mlSignal === null && o.mlProbability === null)).toBe(true);
    const withPattern = outputs.filter((o) => o.bestPattern !== null);
    expect(withPattern.length).toBeGreaterThan(20);
    for (const o of withPattern) expect((o.bestPattern?.target as number) * (o.bestPattern?.stop as number)).toBeLessThan(0);
  });

  it('evaluates and reports them end to end, with "n too small" wherever a figure has no support', () => {
    const forward = new ForwardTable(equities, [...new Set(outputs.map((o) => o.date))], { calendar: market.calendar });
    const rows = buildRows(outputs, forward, equities);
    const e = evaluate(rows, { bars: equities, calendar: market.calendar, replicates: 200 });
    expect(e.samplingStep).toBe(5);
    const h20 = e.byHorizon[0];
    // Every symbol trades every day: each snapshot with 20 days after it has a 20-day excess return.
    expect(h20.rows).toBe(12 * weekly.filter((i) => i + 20 < market.calendar.length).length);
    expect(h20.mlAuc).toMatchObject({ n: 0, auc: null, ci: null });
    const report = renderReport(e, { universe: 'Synthetic market, seed 7, 12 symbols.' });
    expect(report).toContain('## 20-day forward excess return');
    expect(report).toContain('## Pattern targets against a placebo');
    expect(report).toMatch(/\| STAGE 2 \| \d+ \| \d+ \| [+-]?\d+\.\d\d% \|/);
    expect(report).toContain('| 0 | 0 | 0 | n too small | n too small |'); // the ML AUC row
    expect(report).not.toMatch(/NaN|undefined|Infinity|null/);
  });
});

describe('outputsFromDocument', () => {
  const base = documents.find((d) => d.best_pattern !== null && patternTarget(d) !== null) as AnalysisDocument;

  it('maps each field, and drops a pattern whose target and stop are not on opposite sides of the price', () => {
    const doc: AnalysisDocument = {
      ...base,
      symbol: 'ACME',
      analysis_date: '2025-06-02',
      stage: 'STAGE 3',
      stage_strength: 'WEAK',
      signal: 'SELL',
      confidence: 0.61,
      price: 50,
      indicators: base.indicators === null ? null : { ...base.indicators, sata_score: 4 },
      pattern_signal: { direction: 'BEARISH', net_confidence: -0.4, bullish_confidence: 0.1, bearish_confidence: 0.5, pattern_count: 2 },
      best_pattern: { ...(base.best_pattern as NonNullable<AnalysisDocument['best_pattern']>), type: 'DOUBLE_TOP', direction: 'bearish', price_target: 45, invalidation_level: 52 },
      enhanced_signal: base.enhanced_signal === null ? null : { ...base.enhanced_signal, signal: 'HOLD', score: -0.2 },
    };
    const expected: Partial<SnapshotOutputs> = {
      symbol: 'ACME',
      date: '2025-06-02',
      stage: 3,
      stageStrength: 'WEAK',
      signal: 'SELL',
      confidence: 0.61,
      enhancedSignal: 'HOLD',
      enhancedScore: -0.2,
      mlSignal: null,
      mlProbability: null,
      sataScore: 4,
      patternDirection: 'BEARISH',
      patternScore: -0.4,
    };
    const out = outputsFromDocument(doc);
    expect(out).toMatchObject(expected);
    expect(out.bestPattern?.type).toBe('DOUBLE_TOP');
    expect(out.bestPattern?.target).toBeCloseTo(-0.1, 14);
    expect(out.bestPattern?.stop).toBeCloseTo(0.04, 14);
    const passed = { ...doc, best_pattern: { ...(doc.best_pattern as NonNullable<AnalysisDocument['best_pattern']>), price_target: 55 } };
    expect(outputsFromDocument(passed).bestPattern).toBeNull();
    expect(outputsFromDocument({ ...doc, stage: null, indicators: null, stage_detail: null, pattern_signal: null, best_pattern: null })).toMatchObject({
      stage: null,
      sataScore: null,
      patternDirection: null,
      patternScore: null,
      bestPattern: null,
    });
  });
});
