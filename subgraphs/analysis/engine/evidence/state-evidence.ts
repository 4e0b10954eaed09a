/**
 * The evidence a snapshot carries: per state (stage, rules signal, sata bucket, best pattern type) the
 * measured forward excess returns of past snapshots in that state, and per probability the calibrator that
 * maps its raw value to a measured chance, with out-of-sample calibration metrics. Types and constants only.
 *
 * An "as-of table" is the evidence measured with outcomes known by one date A (no look-ahead): a forward
 * h-day excess return of a snapshot at calendar position i counts when calendar[i + h] <= A, a pattern
 * target / stop outcome (window W = DEFAULT_PATTERN_WINDOW) when calendar[i + W] <= A. As-of dates are the
 * last trading day of each calendar month of the store's calendar, from the first month in which any
 * outcome is known. A snapshot dated D uses the table with the greatest as_of <= D. A table for A is a
 * deterministic function of the snapshots and bars dated <= A (fixed seed): it never changes once computed.
 */
import type { Calibrator, ReliabilityRow } from './calibration.js';

export type { Calibrator, ReliabilityRow } from './calibration.js';

export const EVIDENCE_OUTPUTS = ['stage', 'signal', 'sata_bucket', 'best_pattern'] as const;
export type EvidenceOutput = (typeof EVIDENCE_OUTPUTS)[number];

/** A figure with its 95% interval; both null when there are too few outcomes (n is still given). */
export interface Estimate {
  value: number | null;
  ci: [number, number] | null;
}

export interface StateRecord {
  /** Snapshots in this state whose 20-day outcome is known by as_of. */
  n: number;
  /** Distinct dates among them. */
  dates: number;
  /** Share with 20-day excess return > 0. */
  hit_rate: Estimate;
  /** Mean forward 20-day return in excess of the equal-weight universe. */
  mean_excess_20d: Estimate;
  /** Same at 60 days (its own n may be smaller; null stats when too few). */
  mean_excess_60d: Estimate;
  /** best_pattern only: share of trades whose target came before the stop, with the placebo share. */
  target_first?: Estimate & { n: number; placebo: number | null };
}

/**
 * State labels: stage 'STAGE 2 STRONG' (stage + strength; 'STAGE 2' when strength unknown),
 * signal 'BUY' | 'SELL' | 'HOLD' (rules signal), sata_bucket '0-3' | '4-6' | '7-10' (evaluate.ts buckets),
 * best_pattern: the best pattern's type.
 */
export const PROBABILITY_NAMES = ['confidence', 'enhanced_confidence', 'ml_probability_up', 'pattern_target'] as const;
export type ProbabilityName = (typeof PROBABILITY_NAMES)[number];

export interface ProbabilityCalibration {
  /** What the probability is the chance of, in words. */
  event: string;
  /** Outcomes known by as_of the calibrator was fitted on. */
  n: number;
  base_rate: number | null;
  method: 'isotonic' | 'platt' | null;
  /** Null when n < MIN_CALIBRATION_OUTCOMES. */
  calibrator: Calibrator | null;
  /** Out-of-sample (walk-forward: each month's rows scored by the calibrator of the month before). */
  metrics: { n: number; brier: number; ece: number; reliability: ReliabilityRow[] } | null;
}

export interface EvidenceTable {
  as_of: string;
  pipeline_version: string;
  universe: { symbols: number; first_date: string; last_date: string; benchmark: 'equal-weight' };
  states: Record<EvidenceOutput, Record<string, StateRecord>>;
  /**
   * confidence: one calibrator per rules signal (its event differs by signal); enhanced_confidence: one per
   * enhanced (blended) signal, with the same events, scored by `enhanced_signal.confidence`. Tables stored
   * before enhanced_confidence was measured lack the key (readers treat it as not measured).
   */
  probabilities: {
    confidence: Record<'BUY' | 'SELL' | 'HOLD', ProbabilityCalibration>;
    enhanced_confidence?: Record<'BUY' | 'SELL' | 'HOLD', ProbabilityCalibration>;
    ml_probability_up: ProbabilityCalibration;
    pattern_target: ProbabilityCalibration;
  };
}

/** Fewest known outcomes a calibrator is fitted on; below it the calibrator is null. */
export const MIN_CALIBRATION_OUTCOMES = 200;
/** Horizons (trading days) of the state records' excess returns. */
export const EVIDENCE_HORIZONS = [20, 60] as const;
