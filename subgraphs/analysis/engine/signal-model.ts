/**
 * The ML signal's model: logistic regression on the features of features.ts, trained on the stored
 * history of every symbol with a walk-forward split and evaluated only out of sample.
 *
 * Walk-forward: the first test window starts one year (252 trading days) after the first day with
 * features; then the model is retrained every quarter (63 trading days). A window starting at day T
 * is predicted by a model trained only on samples whose label's last bar is on or before T (see the
 * sample time in features.ts, which also covers symbols with gaps). Training sets are capped at 100,000 samples by an even
 * stride. Fold boundaries do not depend on how much history follows, so the model used for any date is
 * the same whether or not later bars exist. Snapshots dated before the first window get no ML signal.
 *
 * Each model's summary reports the out-of-sample accuracy (threshold 0.5) and AUC measured on the
 * earlier windows whose outcomes were all known when it was trained (test-sample-weighted means of the
 * per-window figures), so a snapshot never quotes a metric that needed later prices. The first windows
 * have no such history: their metrics are null, and the enhanced signal then gives the ML vote no weight.
 * The run summary reports the pooled out-of-sample figures over every window.
 */
import type { MlModelSummary } from './document.js';
import { FEATURE_COUNT, FEATURE_NAMES, FEATURE_WARMUP, HORIZON_DAYS, type SampleSet } from './features.js';
import { modelFromJson, modelToJson, walkForward, type LogisticModelJson } from './logistic.js';
import type { MlModelChoice } from './snapshot.js';

export const MODEL_VERSION = '1';
export const FIRST_TEST_OFFSET = 252;
export const FOLD_LENGTH = 63;
export const MAX_TRAIN_SAMPLES = 100_000;
export const L2_PENALTY = 1.0;

/** A trained walk-forward model family in plain JSON (crosses worker threads, stored per run). */
export interface SignalModel {
  version: string;
  features: string[];
  horizonDays: number;
  firstTestTime: number;
  folds: Array<{
    testStart: number;
    testEnd: number;
    trainSamples: number;
    trainedThrough: string;
    testSamples: number;
    accuracy: number | null;
    auc: number | null;
    model: LogisticModelJson;
  }>;
  oos: { accuracy: number | null; auc: number | null; samples: number };
}

/** Trains the walk-forward family on all symbols' samples; null when the history is too short. */
export function trainSignalModel(samples: SampleSet, calendar: readonly string[]): SignalModel | null {
  const lastTime = calendar.length - 1;
  const firstTestTime = FEATURE_WARMUP + FIRST_TEST_OFFSET;
  if (samples.n === 0 || firstTestTime > lastTime) return null;
  const result = walkForward(
    { n: samples.n, d: FEATURE_COUNT, x: samples.x, y: samples.y, time: samples.time },
    { firstTestTime, foldLength: FOLD_LENGTH, embargo: HORIZON_DAYS, lastTime, maxTrainSamples: MAX_TRAIN_SAMPLES, fit: { l2: L2_PENALTY } },
  );
  const folds = result.folds
    .filter((f) => f.trainSamples > 0)
    .map((f) => ({
      testStart: f.testStart,
      testEnd: f.testEnd,
      trainSamples: f.trainSamples,
      trainedThrough: calendar[Math.max(0, f.testStart - HORIZON_DAYS)],
      testSamples: f.testSamples,
      accuracy: f.accuracy,
      auc: f.auc,
      model: modelToJson(f.model),
    }));
  if (folds.length === 0) return null;
  return { version: MODEL_VERSION, features: [...FEATURE_NAMES], horizonDays: HORIZON_DAYS, firstTestTime, folds, oos: result.oos };
}

const round = (x: number | null): number | null => (x === null || !Number.isFinite(x) ? null : Math.round(x * 10000) / 10000);

/** For a universe time index, the fold model that is out of sample there (binary search), with its summary. */
export function signalModelLookup(model: SignalModel | null): (time: number) => MlModelChoice | null {
  if (!model) return () => null;
  const choices = model.folds.map((f) => {
    const known = priorMetrics(model, f.testStart);
    const summary: MlModelSummary = {
      model: 'logistic_regression',
      version: model.version,
      features: model.features,
      horizon_days: model.horizonDays,
      trained_through: f.trainedThrough,
      train_samples: f.trainSamples,
      oos_accuracy: round(known.accuracy),
      oos_auc: round(known.auc),
      oos_samples: known.samples,
    };
    return { testStart: f.testStart, testEnd: f.testEnd, choice: { model: modelFromJson(f.model), summary } };
  });
  return (time) => {
    let lo = 0;
    let hi = choices.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = choices[mid];
      if (time < c.testStart) hi = mid - 1;
      else if (time > c.testEnd) lo = mid + 1;
      else return c.choice;
    }
    return null;
  };
}

/** Out-of-sample figures of the windows whose labels were all known at `time` (weighted by test samples). */
export function priorMetrics(model: SignalModel, time: number): { accuracy: number | null; auc: number | null; samples: number } {
  let samples = 0;
  let accuracy = 0;
  let aucWeight = 0;
  let auc = 0;
  for (const f of model.folds) {
    if (f.testEnd + model.horizonDays > time || f.testSamples === 0 || f.accuracy === null) continue;
    samples += f.testSamples;
    accuracy += f.accuracy * f.testSamples;
    if (f.auc !== null && Number.isFinite(f.auc)) {
      auc += f.auc * f.testSamples;
      aucWeight += f.testSamples;
    }
  }
  return { accuracy: samples > 0 ? accuracy / samples : null, auc: aucWeight > 0 ? auc / aucWeight : null, samples };
}
