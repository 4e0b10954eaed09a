/**
 * The analysis pipeline on real worker threads (the compiled pipeline, in a child process: under the test
 * runner the sources run inline): the same universe gives the same documents and the same model with the
 * batches inline, on 1 worker and on 2. With 2 workers the symbols, the walk-forward fold fits and the
 * served models' records are spread over both threads, so this checks that the training shards are combined
 * in a fixed order; the larger records are built from a date-pair table filled by both threads in shared memory, the
 * others pass over their rows, and the universe has both. Each run also reports every phase's CPU time beside its wall time, and documents asked
 * for in their stored form (encoded in the workers) are the bytes the store makes of their text.
 */
import path from 'node:path';
import { runModuleScript } from '../../helpers/child.js';
import { PROJECT_ROOT } from '../../../subgraphs/platform/project.js';

const PIPELINE_JS = path.join(PROJECT_ROOT, 'dist', 'subgraphs', 'analysis', 'pipeline.js');
const MARKET_JS = path.join(PROJECT_ROOT, 'dist', 'subgraphs', 'analysis', 'engine', 'synthetic-market.js');
const SIGNAL_MODEL_JS = path.join(PROJECT_ROOT, 'dist', 'subgraphs', 'analysis', 'engine', 'signal-model.js');
const BATCH_JS = path.join(PROJECT_ROOT, 'dist', 'subgraphs', 'analysis', 'analyze-batch.js');
const CODEC_JS = path.join(PROJECT_ROOT, 'dist', 'subgraphs', 'analysis', 'snapshot-codec.js');

// 40 symbols x 3 years: the walk-forward has several folds, and a year of weekly dates is served by
// several of them, each with its own record: the later ones with a date-pair table (more predictions than
// dates^2), the others without.
const SCRIPT = `
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
const { analyzeUniverse, buildUniverse, symbolInputs } = await import(pathToFileURL(${JSON.stringify(PIPELINE_JS)}).href);
const { generateSyntheticMarket } = await import(pathToFileURL(${JSON.stringify(MARKET_JS)}).href);
const { fitSignalFold, planSignalModel, recordTable, signalModelFolds, trainSignalModel } = await import(pathToFileURL(${JSON.stringify(SIGNAL_MODEL_JS)}).href);
const { AnalysisBatch } = await import(pathToFileURL(${JSON.stringify(BATCH_JS)}).href);
const { encodeSnapshotDoc } = await import(pathToFileURL(${JSON.stringify(CODEC_JS)}).href);
const market = generateSyntheticMarket({ seed: 11, symbolCount: 40, years: 3, endDate: '2026-10-30', indexSymbol: 'TGMI' });
const series = new Map();
for (const s of market.series()) series.set(s.symbol, s);
const u = buildUniverse(market.securities, series, 'TGMI');
const from = u.calendar[u.calendar.length - 252];
const out = {};
let text = [];
for (const workers of [0, 1, 2]) {
  const rows = [];
  const summary = await analyzeUniverse(u, { workers, from, every: 'week', producedAt: '2026-11-01T00:00:00.000Z' }, async (chunk) => { rows.push(...chunk); });
  rows.sort((a, b) => (a.symbol + a.analysisDate < b.symbol + b.analysisDate ? -1 : 1));
  text = rows;
  const docs = createHash('sha256');
  for (const r of rows) docs.update(r.symbol + r.analysisDate + r.doc);
  // The documents quote the model of their date with its record; the first one also names the model's summary.
  const models = createHash('sha256');
  for (const r of rows) models.update(JSON.stringify(JSON.parse(r.doc).signals?.ml ?? null));
  out[workers] = { docs: docs.digest('hex'), models: models.digest('hex'), count: rows.length, workers: summary.workers, model: summary.model, cpu: summary.cpu, timings: summary.timings };
}
// The stored form, encoded in the workers: the bytes the store would make of the text.
const packed = [];
await analyzeUniverse(u, { workers: 2, from, every: 'week', packed: true, producedAt: '2026-11-01T00:00:00.000Z' }, async (chunk) => { packed.push(...chunk); });
packed.sort((a, b) => (a.symbol + a.analysisDate < b.symbol + b.analysisDate ? -1 : 1));
const stored = createHash('sha256');
for (const r of packed) stored.update(r.symbol + r.analysisDate + r.doc).update(r.packed);
const expected = createHash('sha256');
for (const r of text) expected.update(r.symbol + r.analysisDate).update(encodeSnapshotDoc(r.doc));
out.packed = { count: packed.length, same: stored.digest('hex') === expected.digest('hex') };
// The engine's own single-threaded training on the same samples, for the model's out-of-sample figures.
const loaded = new AnalysisBatch().load(symbolInputs(u));
const engine = trainSignalModel(loaded.samples, u.calendar, [u.calendar.length - 1]);
out.engineOos = engine?.oos ?? null;
// Which served records have a date-pair table.
const plan = planSignalModel(loaded.samples, u.calendar);
const fits = new Map(plan.fitCounts.map((count) => [count, fitSignalFold(loaded.samples, plan, count)]));
const served = u.calendar.flatMap((d, t) => (d >= from ? [t] : []));
const folds = signalModelFolds(loaded.samples, plan, fits, served);
out.tables = folds.recordThroughs.map((through) => recordTable(folds.history, through, u.calendar, 2) !== null);
console.log(JSON.stringify(out));
`;

interface Run {
  docs: string;
  models: string;
  count: number;
  workers: number;
  model: { folds: number; oosAccuracy: number | null; oosAuc: number | null; oosSamples: number } | null;
  cpu: { prepareMs: number; trainMs: number; analyzeMs: number };
  timings: { prepareMs: number; trainMs: number; analyzeMs: number };
}

it('gives the same documents and model inline, on 1 worker thread and on 2', async () => {
  const run = await runModuleScript(SCRIPT, { ms: 60_000 });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const out = JSON.parse(run.stdout) as Record<'0' | '1' | '2', Run> & {
    engineOos: { accuracy: number | null; auc: number | null; samples: number } | null;
    packed: { count: number; same: boolean };
    tables: boolean[];
  };
  expect(out.tables).toContain(true);
  expect(out.tables).toContain(false);
  expect(out.packed).toEqual({ count: out[0].count, same: true });
  expect(out[0].count).toBeGreaterThan(40 * 50);
  expect([out[0].workers, out[1].workers, out[2].workers]).toEqual([0, 1, 2]);
  for (const k of ['1', '2'] as const) {
    expect(out[k].docs).toBe(out[0].docs);
    expect(out[k].models).toBe(out[0].models);
    expect(out[k].model).toEqual(out[0].model);
  }
  expect(out[0].model?.folds).toBeGreaterThan(4);
  const m = out[2].model;
  expect(m && { accuracy: m.oosAccuracy, auc: m.oosAuc, samples: m.oosSamples }).toEqual(out.engineOos);
  for (const k of ['0', '1', '2'] as const) {
    for (const phase of ['prepareMs', 'trainMs', 'analyzeMs'] as const) expect(out[k].cpu[phase]).toBeGreaterThanOrEqual(0);
  }
});
