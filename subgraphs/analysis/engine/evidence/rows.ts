/**
 * Evaluation rows: one snapshot's outputs on one date, with the outcome it is measured on (forward excess
 * returns by horizon) and the baseline scores known on that date. Pure: no I/O, no clock, no randomness.
 *
 * From a stored document (document.ts):
 * - stage 1-4 from `stage` ("STAGE 2"), `stage_strength`; rules `signal` and `confidence`;
 *   `enhanced_signal.signal` and `.score`; `ml_signal.signal` and `.probability_up`;
 *   sata_score from `indicators.sata_score`, else `stage_detail.sata_score`;
 *   `pattern_signal.direction` and `.net_confidence` (the pattern score, -1..1).
 * - The best pattern's target and stop as signed distances from the snapshot's price:
 *   target = price_target / price - 1, stop = invalidation_level / price - 1. The pattern counts for the
 *   target table only when the two lie on opposite sides of the price (a target already passed, or a
 *   pattern without both levels, has no open trade to measure), so `bestPattern` is null otherwise.
 * A missing part is null; nothing is filled in.
 */
import type { AnalysisDocument, PatternDirection, PatternSignal, PatternType, Signal, StageNumber, StageStrength } from '../document.js';
import { baselinesAt, missingBaselines, type Baselines } from './baselines.js';
import type { CloseSeries, ForwardTable } from './forward.js';

/** A pattern's open trade from the snapshot's close: signed relative distances of target and stop. */
export interface PatternTarget {
  type: PatternType;
  direction: PatternDirection;
  /** price_target / price - 1 (positive for a bullish pattern). */
  target: number;
  /** invalidation_level / price - 1 (of the opposite sign). */
  stop: number;
}

/** What one snapshot said (see the file comment). */
export interface SnapshotOutputs {
  symbol: string;
  /** YYYY-MM-DD, the snapshot's analysis date. */
  date: string;
  stage: StageNumber | null;
  stageStrength: StageStrength | null;
  signal: Signal | null;
  /** Rules confidence, 0..1. */
  confidence: number | null;
  enhancedSignal: Signal | null;
  /** Blended score, -1..1. */
  enhancedScore: number | null;
  mlSignal: Signal | null;
  /** Model probability that the forward excess return is positive. */
  mlProbability: number | null;
  sataScore: number | null;
  patternDirection: PatternSignal['direction'] | null;
  /** Pattern signal net confidence, -1..1. */
  patternScore: number | null;
  bestPattern: PatternTarget | null;
}

/** A snapshot with its outcome and baselines. */
export interface EvaluationRow extends SnapshotOutputs {
  /** Forward excess return by horizon in trading days; NaN (or a missing key) when unknown. */
  forwardExcess: Readonly<Record<number, number>>;
  baselines: Baselines;
}

const STAGE_NUMBERS: Record<string, StageNumber> = { 'STAGE 1': 1, 'STAGE 2': 2, 'STAGE 3': 3, 'STAGE 4': 4 };

/** `value` when it is a finite number, else null. */
export function finiteOrNull(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The best pattern's open trade, or null (see the file comment). */
export function patternTarget(doc: Pick<AnalysisDocument, 'best_pattern' | 'price'>): PatternTarget | null {
  const pattern = doc.best_pattern;
  const price = doc.price;
  if (pattern === null || price === null || !(price > 0)) return null;
  if (pattern.price_target === null || pattern.invalidation_level === null) return null;
  const target = pattern.price_target / price - 1;
  const stop = pattern.invalidation_level / price - 1;
  if (!Number.isFinite(target) || !Number.isFinite(stop) || !(target * stop < 0)) return null;
  return { type: pattern.type, direction: pattern.direction, target, stop };
}

/** The outputs of a stored document. */
export function outputsFromDocument(doc: AnalysisDocument): SnapshotOutputs {
  return {
    symbol: doc.symbol,
    date: doc.analysis_date,
    stage: doc.stage === null ? null : (STAGE_NUMBERS[doc.stage] ?? null),
    stageStrength: doc.stage_strength,
    signal: doc.signal,
    confidence: finiteOrNull(doc.confidence),
    enhancedSignal: doc.enhanced_signal?.signal ?? null,
    enhancedScore: finiteOrNull(doc.enhanced_signal?.score),
    mlSignal: doc.ml_signal?.signal ?? null,
    mlProbability: finiteOrNull(doc.ml_signal?.probability_up),
    sataScore: finiteOrNull(doc.indicators?.sata_score ?? doc.stage_detail?.sata_score),
    patternDirection: doc.pattern_signal?.direction ?? null,
    patternScore: finiteOrNull(doc.pattern_signal?.net_confidence),
    bestPattern: patternTarget(doc),
  };
}

/**
 * Joins outputs with their forward excess returns (from `forward`, which must have been built for the
 * outputs' dates) and with baselines from each symbol's closes (all NaN for a symbol without closes).
 */
export function buildRows(outputs: readonly SnapshotOutputs[], forward: ForwardTable, closes: readonly CloseSeries[]): EvaluationRow[] {
  const bySymbol = new Map(closes.map((series) => [series.symbol, series]));
  return outputs.map((out) => {
    const series = bySymbol.get(out.symbol);
    return {
      ...out,
      forwardExcess: forward.excessByHorizon(out.symbol, out.date),
      baselines: series === undefined ? missingBaselines() : baselinesAt(series, out.date),
    };
  });
}
