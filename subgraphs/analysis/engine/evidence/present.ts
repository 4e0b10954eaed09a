/**
 * A stored snapshot as it is read: the stored document with its evidence and its calibrated probabilities
 * (state-evidence.ts). Pure: no I/O, no clock, no randomness; the stored document is never changed (the
 * read path shares parsed documents between requests), changed parts are new objects.
 *
 * Given the stored document and the as-of table a snapshot dated D uses (the one with the greatest
 * as_of <= D, or null when none is stored), the presented document is the stored one plus two keys and
 * calibrated values in place:
 *
 * - `evidence`: { as_of, status, reason, pipeline_version, universe, stage, signal, sata_bucket,
 *   best_pattern }. Each state entry is { state: label, ...StateRecord } for the snapshot's own state
 *   (labels as states.ts: 'STAGE 2 STRONG', 'BUY', '4-6', 'DOUBLE_BOTTOM'). A state the table has no row
 *   for gets n 0, dates 0 and null estimates; a state the snapshot does not have (no stage yet, no best
 *   pattern) is null. Without a table: as_of, pipeline_version and universe null, every state entry
 *   null, status 'not_measured' and a reason.
 * - `calibration`: { as_of, confidence, enhanced_confidence, ml_probability_up, pattern_target }, each { raw, probability,
 *   event, method, n, brier, ece, reason }: raw is the stored value, probability the calibrated one (null
 *   when not measured, `reason` says why; reason is null otherwise), event what it is the chance of,
 *   method and n of the calibrator (n: outcomes it was fitted on), brier and ece its out-of-sample
 *   metrics. The confidence calibrator is the one of the snapshot's rules signal (its event differs by
 *   signal). enhanced_confidence is `enhanced_signal.confidence` by the calibrator of the snapshot's
 *   enhanced signal (the same events); a table stored before that calibrator was measured lacks it, and
 *   the probability is then null with a reason saying so. pattern_target's raw is the best pattern's
 *   confidence.
 * - In place: `confidence` := calibration.confidence.probability; `enhanced_signal.confidence` :=
 *   calibration.enhanced_confidence.probability, the stored value kept in `enhanced_signal.raw_confidence`;
 *   `ml_signal.probability_up` := the
 *   calibrated probability, and `ml_signal.confidence` (|2 p - 1| of the probability) recomputed from it
 *   with the stored value kept in `ml_signal.raw_confidence`; every pattern entry's `confidence`
 *   (detected_patterns, recent_patterns, best_pattern, best_recent_pattern and the price_targets whose
 *   source is 'pattern') := the pattern_target calibrator applied to it, the stored value kept in the
 *   entry's `raw_confidence`. An unmeasured probability is null: the product does not show a number
 *   nothing has measured.
 */
import type { AnalysisDocument } from '../document.js';
import { calibrate } from './calibration.js';
import { outputsFromDocument } from './rows.js';
import {
  MIN_CALIBRATION_OUTCOMES,
  type EvidenceOutput,
  type EvidenceTable,
  type ProbabilityCalibration,
  type StateRecord,
} from './state-evidence.js';
import { PROBABILITY_EVENTS, sataBucket, stageLabel } from './states.js';

/** One state of the snapshot with what followed past snapshots in it. */
export type StateEvidence = { state: string } & StateRecord;

export interface SnapshotEvidence {
  /** The as-of date of the table used (greatest as_of <= the snapshot's date); null without one. */
  as_of: string | null;
  status: 'measured' | 'not_measured';
  /** Why nothing is measured; null when measured. */
  reason: string | null;
  pipeline_version: string | null;
  universe: EvidenceTable['universe'] | null;
  stage: StateEvidence | null;
  signal: StateEvidence | null;
  sata_bucket: StateEvidence | null;
  best_pattern: StateEvidence | null;
}

export interface PresentedProbability {
  /** The stored value; null when the snapshot has none. */
  raw: number | null;
  /** The calibrated probability; null when not measured. */
  probability: number | null;
  /** What the probability is the chance of; null when it depends on a signal the snapshot lacks. */
  event: string | null;
  method: 'isotonic' | 'platt' | null;
  /** Outcomes known by as_of the calibrator was fitted on (0 without a table). */
  n: number;
  /** Out-of-sample Brier score and expected calibration error; null when not measured. */
  brier: number | null;
  ece: number | null;
  /** Why probability is null; null when it is given. */
  reason: string | null;
}

export interface SnapshotCalibration {
  as_of: string | null;
  confidence: PresentedProbability;
  enhanced_confidence: PresentedProbability;
  ml_probability_up: PresentedProbability;
  pattern_target: PresentedProbability;
}

/** The keys presentation adds to a stored document. */
export const PRESENTATION_KEYS = ['evidence', 'calibration'] as const;

type Json = Readonly<Record<string, unknown>>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const finiteOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const NO_TABLE =
  "no evidence table is measured on or before this snapshot's date (no earlier snapshot's outcome was known by then, or the store's tables have not been computed yet)";

function emptyRecord(state: string): StateEvidence {
  const none = { value: null, ci: null };
  return { state, n: 0, dates: 0, hit_rate: none, mean_excess_20d: none, mean_excess_60d: none };
}

/** The snapshot's state label of each output (states.ts labels); null where it has no such state. */
export function snapshotStates(doc: AnalysisDocument): Record<EvidenceOutput, string | null> {
  const out = outputsFromDocument(doc);
  const type = isObject(doc.best_pattern) ? doc.best_pattern.type : null;
  return {
    stage: stageLabel(out),
    signal: out.signal,
    sata_bucket: sataBucket(out.sataScore),
    best_pattern: typeof type === 'string' ? type : null,
  };
}

function evidenceOf(doc: AnalysisDocument, table: EvidenceTable | null): SnapshotEvidence {
  if (table === null) {
    return { as_of: null, status: 'not_measured', reason: NO_TABLE, pipeline_version: null, universe: null, stage: null, signal: null, sata_bucket: null, best_pattern: null };
  }
  const labels = snapshotStates(doc);
  const entry = (output: EvidenceOutput): StateEvidence | null => {
    const label = labels[output];
    if (label === null) return null;
    const record = table.states[output]?.[label];
    return record === undefined ? emptyRecord(label) : { state: label, ...record };
  };
  return {
    as_of: table.as_of,
    status: 'measured',
    reason: null,
    pipeline_version: table.pipeline_version,
    universe: table.universe,
    stage: entry('stage'),
    signal: entry('signal'),
    sata_bucket: entry('sata_bucket'),
    best_pattern: entry('best_pattern'),
  };
}

/** A calibrated value and its description; `what` names the raw value in reasons. */
function presentProbability(raw: number | null, calibration: ProbabilityCalibration | null, event: string | null, what: string, why: string | null): PresentedProbability {
  const metrics = calibration?.metrics ?? null;
  const result = (probability: number | null, reason: string | null): PresentedProbability => ({
    raw,
    probability,
    event: calibration?.event ?? event,
    method: calibration?.method ?? null,
    n: calibration?.n ?? 0,
    brier: finiteOrNull(metrics?.brier),
    ece: finiteOrNull(metrics?.ece),
    reason,
  });
  if (why !== null) return result(null, why);
  if (calibration === null || calibration.calibrator === null) {
    const n = calibration?.n ?? 0;
    return result(null, `only ${n} outcomes to calibrate the ${what} were known by the table's as-of date; a calibrator needs at least ${MIN_CALIBRATION_OUTCOMES}`);
  }
  if (raw === null) return result(null, `the snapshot has no ${what}`);
  const p = calibrate(calibration.calibrator, raw);
  return Number.isFinite(p) ? result(p, null) : result(null, `the calibrator gives no value for ${what} ${raw}`);
}

const isSignal = (v: unknown): v is 'BUY' | 'SELL' | 'HOLD' => v === 'BUY' || v === 'SELL' || v === 'HOLD';

function enhancedConfidenceOf(doc: AnalysisDocument, table: EvidenceTable | null): PresentedProbability {
  const enhanced: unknown = doc.enhanced_signal;
  const signal = isObject(enhanced) ? enhanced.signal : null;
  const known = isSignal(signal);
  const calibrators = table?.probabilities.enhanced_confidence;
  const why =
    table === null
      ? NO_TABLE
      : !isObject(enhanced)
        ? 'the snapshot has no enhanced signal'
        : !known
          ? 'the snapshot has no enhanced signal, whose calibrator the enhanced confidence needs'
          : calibrators === undefined
            ? `the evidence table of ${table.as_of} predates the enhanced signal's confidence calibrator (it was stored before that probability was measured)`
            : null;
  return presentProbability(
    finiteOrNull(isObject(enhanced) ? enhanced.confidence : null),
    known && calibrators !== undefined ? calibrators[signal] : null,
    known ? PROBABILITY_EVENTS[signal] : null,
    `enhanced confidence of ${known ? signal : 'a signal'}`,
    why,
  );
}

function calibrationOf(doc: AnalysisDocument, table: EvidenceTable | null): SnapshotCalibration {
  const signal = doc.signal;
  const known = isSignal(signal);
  const noTable = table === null ? NO_TABLE : null;
  const confidence = presentProbability(
    finiteOrNull(doc.confidence),
    table !== null && known ? table.probabilities.confidence[signal] : null,
    known ? PROBABILITY_EVENTS[signal] : null,
    `rules confidence of ${known ? signal : 'a signal'}`,
    noTable ?? (known ? null : 'the snapshot has no rules signal, whose calibrator the confidence needs'),
  );
  const ml = presentProbability(
    finiteOrNull(isObject(doc.ml_signal) ? doc.ml_signal.probability_up : null),
    table?.probabilities.ml_probability_up ?? null,
    PROBABILITY_EVENTS.ml_probability_up,
    'ML probability',
    noTable,
  );
  const pattern = presentProbability(
    finiteOrNull(isObject(doc.best_pattern) ? doc.best_pattern.confidence : null),
    table?.probabilities.pattern_target ?? null,
    PROBABILITY_EVENTS.pattern_target,
    'best pattern confidence',
    noTable,
  );
  return { as_of: table?.as_of ?? null, confidence, enhanced_confidence: enhancedConfidenceOf(doc, table), ml_probability_up: ml, pattern_target: pattern };
}

/** A pattern-like entry with its confidence calibrated and the stored one kept in raw_confidence. */
function calibratedEntry(entry: unknown, map: (raw: number) => number | null): unknown {
  if (!isObject(entry)) return entry;
  const raw = finiteOrNull(entry.confidence);
  return { ...entry, confidence: raw === null ? null : map(raw), raw_confidence: entry.confidence ?? null };
}

/** The presented document (see the file comment). */
export function presentSnapshot<T extends Json>(stored: T, table: EvidenceTable | null): T & { evidence: SnapshotEvidence; calibration: SnapshotCalibration } {
  const doc = stored as unknown as AnalysisDocument;
  const calibration = calibrationOf(doc, table);
  const patternCalibrator = table?.probabilities.pattern_target.calibrator ?? null;
  const pattern = (raw: number): number | null => {
    if (patternCalibrator === null) return null;
    const p = calibrate(patternCalibrator, raw);
    return Number.isFinite(p) ? p : null;
  };
  const out: Record<string, unknown> = { ...stored };
  if ('confidence' in stored) out.confidence = calibration.confidence.probability;
  if (isObject(stored.enhanced_signal)) {
    out.enhanced_signal = { ...stored.enhanced_signal, confidence: calibration.enhanced_confidence.probability, raw_confidence: stored.enhanced_signal.confidence ?? null };
  }
  if (isObject(stored.ml_signal)) {
    const p = calibration.ml_probability_up.probability;
    out.ml_signal = { ...stored.ml_signal, probability_up: p, confidence: p === null ? null : Math.abs(2 * p - 1), raw_confidence: stored.ml_signal.confidence ?? null };
  }
  for (const key of ['detected_patterns', 'recent_patterns'] as const) {
    const list = stored[key];
    if (Array.isArray(list)) out[key] = list.map((e) => calibratedEntry(e, pattern));
  }
  for (const key of ['best_pattern', 'best_recent_pattern'] as const) {
    if (isObject(stored[key])) out[key] = calibratedEntry(stored[key], pattern);
  }
  const targets = stored.price_targets;
  if (Array.isArray(targets)) out.price_targets = targets.map((t) => (isObject(t) && t.source === 'pattern' ? calibratedEntry(t, pattern) : t));
  out.evidence = evidenceOf(doc, table);
  out.calibration = calibration;
  return out as T & { evidence: SnapshotEvidence; calibration: SnapshotCalibration };
}
