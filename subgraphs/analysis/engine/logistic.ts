/**
 * Evaluation of the logistic model: walk-forward out-of-sample testing and ROC AUC. Pure, exact and
 * deterministic: no I/O, no clock, no randomness. The model, prediction and serialisation are in
 * logistic-model.ts, fitting in logistic-fit.ts; this file re-exports both, so it stays the one import for
 * the logistic model.
 *
 * ROC AUC is the probability that a random positive scores above a random negative, ties counting one half:
 * the Mann-Whitney U statistic of the positives (rank sum of the positives with average ranks for ties, minus
 * nPos(nPos + 1)/2) divided by nPos * nNeg. It is computed as that pair count after sorting each class, which
 * is the same number and exact (U is a multiple of 1/2).
 *
 * Walk-forward. Samples carry a `time` (a trading-day index). Test windows ("folds") of `foldLength` time units
 * start at `firstTestTime` and follow each other until one contains `lastTime`; the last window is cut at
 * `lastTime`. The model of a fold starting at T is fitted only on samples with time <= T - embargo: a label
 * looks `embargo` days ahead, so only those labels are known at T. It then scores every sample whose time lies
 * in the window. Pooled out-of-sample metrics use all folds' test predictions together (accuracy with the
 * threshold P >= 0.5 meaning "predict 1"); the predictions themselves are returned too (`predictions`: each
 * tested sample with its out-of-sample probability, in time order), so that a caller can evaluate the record
 * known by any date, e.g. with an interval over dates. A fold with no training samples (too early) is kept in the list for
 * coverage, with an untrained model, 0 test samples and null metrics; `modelAt` returns null inside it. The
 * `final` model is fitted on every sample with time <= lastTime - embargo and serves dates after the last fold.
 */
import { fitLogistic, type FitOptions } from './logistic-fit.js';
import { allRows, cloneModel, predictProbability, untrainedModel, validateDataset, type Dataset, type LogisticModel } from './logistic-model.js';

export { fitLogistic, type FitOptions } from './logistic-fit.js';
export {
  modelFromJson,
  modelToJson,
  predictProbability,
  type Dataset,
  type LogisticModel,
  type LogisticModelJson,
} from './logistic-model.js';

/** Math functions bound once: inside a vm context (e.g. jest) each global `Math` lookup in a hot loop is slow. */
const { floor, min } = Math;

export interface WalkForwardOptions {
  /** The first fold tests samples with time >= firstTestTime. */
  firstTestTime: number;
  /** Each fold's test window covers `foldLength` time units (integer >= 1). */
  foldLength: number;
  /** Training for a fold starting at T uses only samples with time <= T - embargo (integer >= 0). */
  embargo: number;
  /** Last time unit to cover; folds continue until one contains it, even where no samples exist. */
  lastTime: number;
  /** When more rows are eligible, an evenly strided subset (in time order) of this many rows is fitted. */
  maxTrainSamples?: number;
  fit?: FitOptions;
}

export interface WalkForwardFold {
  /** First time of the test window. */
  testStart: number;
  /** Last time of the test window (inclusive). */
  testEnd: number;
  /** Rows the model was fitted on (after subsampling); 0 means the fold was skipped. */
  trainSamples: number;
  /** Samples scored in the window (0 when skipped). */
  testSamples: number;
  /** Share of test samples classified correctly (P >= 0.5 means 1); null without test samples. */
  accuracy: number | null;
  /** ROC AUC of the window's predictions; null without test samples or when a class is missing. */
  auc: number | null;
  model: LogisticModel;
}

/**
 * Out-of-sample predictions: entry k is sample `sample[k]` of the dataset, scored `probability[k]` by its
 * fold's model (plain arrays, so that the result stays plain data).
 */
export interface OutOfSamplePredictions {
  sample: number[];
  probability: number[];
}

export interface WalkForwardResult {
  /** Consecutive test windows from firstTestTime through lastTime. */
  folds: WalkForwardFold[];
  /** Pooled over all folds' test predictions. */
  oos: { accuracy: number | null; auc: number | null; samples: number };
  /** Every out-of-sample prediction, fold after fold (so in time order, ties by sample index). */
  predictions: OutOfSamplePredictions;
  /** Trained on every sample with time <= lastTime - embargo, for dates after the last fold. */
  final: LogisticModel;
  /** Rows `final` was fitted on (after subsampling); 0 means it is untrained. */
  finalTrainSamples: number;
  /** The options' firstTestTime (so {@link modelAt} is defined even when there are no folds). */
  firstTestTime: number;
}

/**
 * ROC AUC via the Mann-Whitney U statistic with average ranks for ties; NaN when a class is missing.
 * Label 1 is positive, 0 negative (any other non-zero label counts as positive); samples whose score is NaN
 * are ignored.
 */
export function rocAuc(scores: ArrayLike<number>, labels: ArrayLike<number>): number {
  const n = scores.length;
  if (labels.length !== n) throw new RangeError(`${n} scores but ${labels.length} labels`);
  let nPos = 0;
  let nNeg = 0;
  for (let i = 0; i < n; i++) {
    if (scores[i] !== scores[i]) continue;
    if (labels[i] !== 0) nPos++;
    else nNeg++;
  }
  if (nPos === 0 || nNeg === 0) return NaN;
  const pos = new Float64Array(nPos);
  const neg = new Float64Array(nNeg);
  for (let i = 0, ip = 0, ineg = 0; i < n; i++) {
    const s = scores[i];
    if (s !== s) continue;
    // `+ 0` turns -0 into +0 so the sort order agrees with the comparisons below.
    if (labels[i] !== 0) pos[ip++] = s + 0;
    else neg[ineg++] = s + 0;
  }
  pos.sort();
  neg.sort();
  // U = sum over positives of (#negatives below + half the #negatives equal). Both pointers only move forward.
  let below = 0;
  let belowOrEqual = 0;
  let u = 0;
  for (let i = 0; i < nPos; i++) {
    const s = pos[i];
    while (below < nNeg && neg[below] < s) below++;
    if (belowOrEqual < below) belowOrEqual = below;
    while (belowOrEqual < nNeg && neg[belowOrEqual] <= s) belowOrEqual++;
    u += below + 0.5 * (belowOrEqual - below);
  }
  return u / (nPos * nNeg);
}

/**
 * What a walk-forward evaluation fits and tests, before any fit: the samples in time order (ties by index) and,
 * per fold, the number of time-ordered samples it trains on and the range it tests. Every fit is a function of
 * its training count alone ({@link fitWalkForward}), so the fits can run in any order, on any thread, and give
 * the same models; {@link walkForwardFolds} then scores the folds in order.
 */
export interface WalkForwardPlan {
  /** Sample indices sorted by time, ties by index. */
  order: Int32Array;
  folds: Array<{ testStart: number; testEnd: number; trainCount: number; testFrom: number; testTo: number }>;
  /** Training count of the final model (every sample with time <= lastTime - embargo). */
  finalCount: number;
  maxTrainSamples?: number;
  fit?: FitOptions;
  firstTestTime: number;
}

/** Validates the options and plans the folds (see the file comment). Throws RangeError on malformed options. */
export function planWalkForward(data: Dataset, options: WalkForwardOptions): WalkForwardPlan {
  validateDataset(data);
  const { firstTestTime, foldLength, embargo, lastTime, maxTrainSamples } = options;
  if (!Number.isSafeInteger(firstTestTime)) throw new RangeError(`firstTestTime must be an integer, got ${firstTestTime}`);
  if (!Number.isSafeInteger(lastTime)) throw new RangeError(`lastTime must be an integer, got ${lastTime}`);
  if (!Number.isSafeInteger(foldLength) || foldLength < 1) {
    throw new RangeError(`foldLength must be an integer >= 1, got ${foldLength}`);
  }
  if (!Number.isSafeInteger(embargo) || embargo < 0) throw new RangeError(`embargo must be an integer >= 0, got ${embargo}`);
  if (maxTrainSamples !== undefined && (!Number.isSafeInteger(maxTrainSamples) || maxTrainSamples < 1)) {
    throw new RangeError(`maxTrainSamples must be an integer >= 1, got ${maxTrainSamples}`);
  }
  const { n, time } = data;
  // Samples in time order (ties by index): every training set and every test window is a contiguous range.
  const order = timeOrder(time);
  /** Number of samples with time <= t. */
  const countThrough = (t: number): number => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (time[order[mid]] <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const folds: WalkForwardPlan['folds'] = [];
  for (let testStart = firstTestTime; testStart <= lastTime; testStart += foldLength) {
    const testEnd = min(testStart + foldLength - 1, lastTime);
    folds.push({ testStart, testEnd, trainCount: countThrough(testStart - embargo), testFrom: countThrough(testStart - 1), testTo: countThrough(testEnd) });
  }
  return { order, folds, finalCount: countThrough(lastTime - embargo), maxTrainSamples, fit: options.fit, firstTestTime };
}

/**
 * Indices 0..n-1 sorted by time, ties by index: a stable counting sort when the times span a range not much
 * larger than n (sample times are trading-day indices), else a comparison sort. Both give the same order.
 */
function timeOrder(time: Int32Array): Int32Array {
  const n = time.length;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < n; i++) {
    if (time[i] < lo) lo = time[i];
    if (time[i] > hi) hi = time[i];
  }
  if (n === 0 || hi - lo > 4 * n + 1024) return allRows(n).sort((a, b) => time[a] - time[b] || a - b);
  const starts = new Int32Array(hi - lo + 2);
  for (let i = 0; i < n; i++) starts[time[i] - lo + 1]++;
  for (let k = 1; k < starts.length; k++) starts[k] += starts[k - 1];
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[starts[time[i] - lo]++] = i;
  return order;
}

/** A model fitted for a walk-forward plan and the rows it was fitted on (0: untrained). */
export interface WalkForwardFit {
  model: LogisticModel;
  trainSamples: number;
  /** When asked for, the tests of the plan's folds that use this fit (fold index into plan.folds). */
  tests?: Array<{ fold: number } & FoldTest>;
}

/** One fold's out-of-sample test: the probability of each sample of its window, in time order, and its figures. */
export interface FoldTest {
  probability: Float64Array;
  correct: number;
  /** ROC AUC of the window; null without test samples or when a class is missing. */
  auc: number | null;
}

/** The distinct training counts the plan's folds (and, with `final`, its final model) need fitted, in fold order. */
export function walkForwardFitCounts(plan: WalkForwardPlan, final: boolean): number[] {
  const counts = new Set<number>();
  for (const f of plan.folds) counts.add(f.trainCount);
  if (final) counts.add(plan.finalCount);
  return [...counts];
}

/**
 * The model fitted on the first `count` samples in time order (evenly subsampled down to maxTrainSamples);
 * with `test`, also the tests of the folds it serves, so that they are made where the model is.
 */
export function fitWalkForward(data: Dataset, plan: WalkForwardPlan, count: number, test = false): WalkForwardFit {
  const rows = trainingRows(plan.order, count, plan.maxTrainSamples);
  const model = rows.length === 0 ? untrainedModel(data.d) : fitLogistic(data, rows, plan.fit);
  const fit: WalkForwardFit = { model, trainSamples: rows.length };
  if (test && rows.length > 0) {
    fit.tests = [];
    plan.folds.forEach((f, fold) => {
      if (f.trainCount === count) fit.tests?.push({ fold, ...testWalkForwardFold(data, plan, fold, model) });
    });
  }
  return fit;
}

/** Scores fold `fold`'s test window with `model` (see FoldTest). */
export function testWalkForwardFold(data: Dataset, plan: WalkForwardPlan, fold: number, model: LogisticModel): FoldTest {
  const { d, x, y } = data;
  const { order } = plan;
  const { testFrom: from, testTo: to } = plan.folds[fold];
  const probability = new Float64Array(to - from);
  const labels = new Uint8Array(to - from);
  let correct = 0;
  for (let r = from; r < to; r++) {
    const i = order[r];
    const prob = predictProbability(model, x, i * d);
    probability[r - from] = prob;
    labels[r - from] = y[i];
    if ((prob >= 0.5 ? 1 : 0) === y[i]) correct++;
  }
  return { probability, correct, auc: to > from ? finiteOrNull(rocAuc(probability, labels)) : null };
}

/**
 * Folds, pooled metrics and predictions of a plan, given the fit of every training count it needs (with
 * their tests, or they are made here).
 */
export function walkForwardFolds(
  data: Dataset,
  plan: WalkForwardPlan,
  fits: ReadonlyMap<number, WalkForwardFit>,
): Pick<WalkForwardResult, 'folds' | 'oos' | 'predictions'> {
  const { y } = data;
  const { order } = plan;
  const fitOf = (count: number) => {
    const fit = fits.get(count);
    if (fit === undefined) throw new RangeError(`no fit for training count ${count}`);
    return fit;
  };
  const folds: WalkForwardFold[] = [];
  const pooledScores: number[] = [];
  const pooledLabels: number[] = [];
  const pooledSamples: number[] = [];
  let previousCount = -1;
  plan.folds.forEach((f, k) => {
    const fit = fitOf(f.trainCount);
    // A fold that trains on the same rows as the one before gets its own copy of the model.
    const model = f.trainCount === previousCount ? cloneModel(fit.model) : fit.model;
    previousCount = f.trainCount;
    const { trainSamples } = fit;
    const fold: WalkForwardFold = { testStart: f.testStart, testEnd: f.testEnd, trainSamples, testSamples: 0, accuracy: null, auc: null, model };
    if (trainSamples > 0) {
      const test = fit.tests?.find((t) => t.fold === k) ?? testWalkForwardFold(data, plan, k, fit.model);
      const from = f.testFrom;
      const to = f.testTo;
      for (let r = from; r < to; r++) {
        const i = order[r];
        pooledScores.push(test.probability[r - from]);
        pooledLabels.push(y[i]);
        pooledSamples.push(i);
      }
      fold.testSamples = to - from;
      if (to > from) {
        fold.accuracy = test.correct / (to - from);
        fold.auc = test.auc;
      }
    }
    folds.push(fold);
  });

  let pooledCorrect = 0;
  for (let k = 0; k < pooledScores.length; k++) {
    if ((pooledScores[k] >= 0.5 ? 1 : 0) === pooledLabels[k]) pooledCorrect++;
  }
  const samples = pooledScores.length;
  return {
    folds,
    oos: {
      accuracy: samples > 0 ? pooledCorrect / samples : null,
      auc: samples > 0 ? finiteOrNull(rocAuc(pooledScores, pooledLabels)) : null,
      samples,
    },
    predictions: { sample: pooledSamples, probability: pooledScores },
  };
}

/** Walk-forward evaluation; see the file comment for the fold rules. Throws RangeError on malformed options. */
export function walkForward(data: Dataset, options: WalkForwardOptions): WalkForwardResult {
  const plan = planWalkForward(data, options);
  const fits = new Map(walkForwardFitCounts(plan, true).map((count) => [count, fitWalkForward(data, plan, count)] as const));
  const finalFit = fits.get(plan.finalCount) as WalkForwardFit;
  const result = walkForwardFolds(data, plan, fits);
  const lastFold = plan.folds[plan.folds.length - 1];
  return {
    ...result,
    // The final model is its own copy when it trains on the last fold's rows.
    final: lastFold !== undefined && lastFold.trainCount === plan.finalCount ? cloneModel(finalFit.model) : finalFit.model,
    finalTrainSamples: finalFit.trainSamples,
    firstTestTime: plan.firstTestTime,
  };
}

/**
 * The first `count` rows of `order`, or, when there are more than `limit`, the evenly strided subset
 * order[floor(j * count / limit)] for j = 0 .. limit - 1 (computed with integers only).
 */
function trainingRows(order: Int32Array, count: number, limit: number | undefined): Int32Array {
  if (limit === undefined || count <= limit) return order.slice(0, count);
  const rows = new Int32Array(limit);
  const stride = floor(count / limit);
  const extra = count % limit;
  let position = 0;
  let carry = 0;
  for (let j = 0; j < limit; j++) {
    rows[j] = order[position];
    position += stride;
    carry += extra;
    if (carry >= limit) {
      carry -= limit;
      position++;
    }
  }
  return rows;
}

function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

/**
 * The model that is out-of-sample for `time`: the fold whose window contains it (or the final model after the
 * last fold); null before firstTestTime, and null where that model is untrained (no training samples).
 */
export function modelAt(result: WalkForwardResult, time: number): LogisticModel | null {
  if (!(time >= result.firstTestTime)) return null;
  const { folds } = result;
  if (folds.length === 0 || time > folds[folds.length - 1].testEnd) {
    return result.finalTrainSamples > 0 ? result.final : null;
  }
  let lo = 0;
  let hi = folds.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (folds[mid].testStart <= time) lo = mid;
    else hi = mid - 1;
  }
  const fold = folds[lo];
  return fold.trainSamples > 0 ? fold.model : null;
}

