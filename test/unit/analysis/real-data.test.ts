/**
 * Optional real-data check: the pipeline over the 120 real US stocks of ../shared/market-data
 * (2011-2021), when that folder is beside the project. Skipped without it: the suite never needs it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { AnalysisDocument } from '../../../subgraphs/analysis/engine/document.js';
import { analyzeUniverse, universeFromCsv, type AnalyzeSummary } from '../../../subgraphs/analysis/pipeline.js';
import { PROJECT_ROOT } from '../../../subgraphs/platform/project.js';
import { scaled } from '../../helpers/time.js';

const DIR = path.resolve(PROJECT_ROOT, '../shared/market-data');
const SECURITIES = path.join(DIR, 'securities.csv');
const BARS = path.join(DIR, 'us-equities-daily.csv.gz');
const available = fs.existsSync(SECURITIES) && fs.existsSync(BARS);

(available ? describe : describe.skip)('the pipeline on real daily bars (../shared/market-data)', () => {
  let summary: AnalyzeSummary;
  const docs: AnalysisDocument[] = [];

  beforeAll(async () => {
    const universe = universeFromCsv(fs.readFileSync(SECURITIES, 'utf8'), gunzipSync(fs.readFileSync(BARS)).toString('utf8'), 'TGMI');
    summary = await analyzeUniverse(universe, { workers: 0, producedAt: '2026-11-21T00:00:00.000Z' }, async (rows) => {
      for (const r of rows) docs.push(JSON.parse(r.doc) as AnalysisDocument);
    });
  }, scaled(120_000));

  it('analyses every symbol on the latest day against a computed equal-weight index', () => {
    expect(summary.symbols).toBe(120);
    expect(docs).toHaveLength(120);
    expect(summary.index).toEqual({ symbol: 'TGMI', computed: true });
  });

  it('fills every spec field from the bars for symbols with a full history', () => {
    for (const doc of docs.filter((d) => d.bars_used >= 500)) {
      for (const key of ['stage', 'stage_strength', 'price', 'indicators', 'pattern_signal', 'market_regime', 'sector', 'signal', 'confidence', 'ml_signal', 'enhanced_signal', 'risk_parameters', 'transition_probabilities'] as const) {
        expect({ symbol: doc.symbol, key, value: doc[key] }).not.toEqual({ symbol: doc.symbol, key, value: null });
      }
    }
  });

  it('finds several stages across the universe, and reports the ML model honestly', () => {
    expect(new Set(docs.map((d) => d.stage)).size).toBeGreaterThanOrEqual(3);
    // Out of sample on real prices the model is close to chance; the figure is reported, not assumed.
    expect(summary.model?.oosSamples).toBeGreaterThan(10_000);
    expect(summary.model?.oosAuc).toBeGreaterThan(0.4);
    expect(summary.model?.oosAuc).toBeLessThan(0.65);
  });
});
