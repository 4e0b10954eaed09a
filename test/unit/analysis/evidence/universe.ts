/**
 * Synthetic universes for the evaluation tests: random-walk closes with optional planted effects, snapshot
 * rows with labels, and the forward returns and baselines computed from those closes by the engine itself.
 */
import type { PatternType, Signal, StageNumber, StageStrength } from '../../../../subgraphs/analysis/engine/document.js';
import { STAGE_STRENGTHS } from '../../../../subgraphs/analysis/engine/document.js';
import { ForwardTable, type CloseSeries } from '../../../../subgraphs/analysis/engine/evidence/forward.js';
import { buildRows, type EvaluationRow, type SnapshotOutputs } from '../../../../subgraphs/analysis/engine/evidence/rows.js';
import { createPrng, type Prng } from '../../../../subgraphs/analysis/engine/prng.js';

export const dayName = (t: number): string => `T${String(t).padStart(5, '0')}`;

const SIGNALS: readonly Signal[] = ['BUY', 'HOLD', 'SELL'];
const DIRECTIONS = ['BULLISH', 'NEUTRAL', 'BEARISH'] as const;

/** Random outputs for a snapshot (no relation to any return). */
export function randomOutputs(rng: Prng, symbol: string, date: string): SnapshotOutputs {
  const signal = rng.pick(SIGNALS);
  return {
    symbol,
    date,
    stage: (1 + rng.int(4)) as StageNumber,
    stageStrength: rng.pick(STAGE_STRENGTHS) as StageStrength,
    signal,
    confidence: rng.next(),
    enhancedSignal: rng.pick(SIGNALS),
    enhancedScore: 2 * rng.next() - 1,
    mlSignal: rng.pick(SIGNALS),
    mlProbability: rng.next(),
    sataScore: rng.int(11),
    patternDirection: rng.pick(DIRECTIONS),
    patternScore: 2 * rng.next() - 1,
    bestPattern: null,
  };
}

export interface UniverseSpec {
  seed: number;
  symbols: number;
  days: number;
  /** First snapshot day and spacing in trading days. */
  firstSnapshot: number;
  step: number;
  /** Daily log-return volatility. */
  vol: number;
}

export interface Universe {
  closes: CloseSeries[];
  rows: EvaluationRow[];
  calendar: string[];
  snapshotDays: number[];
}

/** Closes from daily log returns (returns[0] unused); the first close is `start`. */
export function closesFrom(returns: Float64Array, start: number): Float64Array {
  const close = new Float64Array(returns.length);
  close[0] = start;
  for (let t = 1; t < returns.length; t++) close[t] = close[t - 1] * Math.exp(returns[t]);
  return close;
}

export function snapshotDays(spec: UniverseSpec): number[] {
  const days: number[] = [];
  for (let t = spec.firstSnapshot; t < spec.days; t += spec.step) days.push(t);
  return days;
}

/** Rows joined with forward excess returns (horizons 20 and 60) and baselines from the closes. */
export function assemble(closes: CloseSeries[], outputs: SnapshotOutputs[], calendar: string[], days: number[]): Universe {
  const forward = new ForwardTable(closes, [...new Set(outputs.map((o) => o.date))], { horizons: [20, 60], calendar });
  return { closes, rows: buildRows(outputs, forward, closes), calendar, snapshotDays: days };
}

/** Random walks with random labels: no output carries any information. Some rows carry a random pattern. */
export function nullUniverse(spec: UniverseSpec): Universe {
  const calendar = Array.from({ length: spec.days }, (_, t) => dayName(t));
  const days = snapshotDays(spec);
  const closes: CloseSeries[] = [];
  const outputs: SnapshotOutputs[] = [];
  const patternTypes: PatternType[] = ['DOUBLE_BOTTOM', 'BEAR_FLAG'];
  for (let s = 0; s < spec.symbols; s++) {
    const rng = createPrng(spec.seed, s);
    const vol = spec.vol * (0.6 + 0.8 * rng.next());
    // Log returns with mean -vol^2/2: simple returns have mean 0 whatever the volatility, so no bucket that
    // selects volatile names (e.g. extreme momentum) earns a convexity premium.
    const returns = Float64Array.from({ length: spec.days }, () => vol * rng.normal() - (vol * vol) / 2);
    const symbol = `S${String(s).padStart(3, '0')}`;
    closes.push({ symbol, dates: calendar, close: closesFrom(returns, 20 + 80 * rng.next()) });
    for (const t of days) {
      const out = randomOutputs(rng, symbol, calendar[t]);
      if (rng.next() < 0.3) {
        const type = rng.pick(patternTypes);
        const size = 0.03 + 0.07 * rng.next();
        out.bestPattern = type === 'DOUBLE_BOTTOM' ? { type, direction: 'bullish', target: size, stop: -size / 2 } : { type, direction: 'bearish', target: -size, stop: size / 2 };
      }
      outputs.push(out);
    }
  }
  return assemble(closes, outputs, calendar, days);
}

export interface PlantedSpec extends UniverseSpec {
  /** Daily log drift of names labelled stage 2 (stage labels hold for `epoch` days). */
  stage2Drift: number;
  epoch: number;
  /** Every `patternEvery` days from the first snapshot, each symbol's snapshot carries a BULL_FLAG (+5% / -5%). */
  patternEvery: number;
  /** Share of those detections whose next days run to the target (the others run to the stop). */
  hitShare: number;
}

export interface PlantedUniverse extends Universe {
  /** Planted outcome of each detection, by `${symbol} ${date}`. */
  planted: Map<string, boolean>;
}

/** One percent and a fifth per day for six days: the target (+5%) is passed on day 5, or the stop (-5%). */
const RUN = Math.log(1.012);
const RUN_DAYS = 6;

/**
 * Random walks where (1) a name labelled stage 2 drifts up by `stage2Drift` per day for as long as the label
 * holds, and (2) BULL_FLAG detections are followed by a six-day run to the target for exactly
 * round(hitShare x n) of them and to the stop for the rest. Every other output is random.
 */
export function plantedUniverse(spec: PlantedSpec): PlantedUniverse {
  const calendar = Array.from({ length: spec.days }, (_, t) => dayName(t));
  const days = snapshotDays(spec);
  const detectionDays = days.filter((t) => (t - spec.firstSnapshot) % spec.patternEvery === 0 && t + RUN_DAYS < spec.days);
  // Exactly round(hitShare x n) hits, in a seeded random order over (symbol, day).
  const total = spec.symbols * detectionDays.length;
  const order = createPrng(spec.seed, 10_000);
  const slots = Array.from({ length: total }, (_, k) => k);
  for (let k = total - 1; k > 0; k--) {
    const j = order.int(k + 1);
    [slots[k], slots[j]] = [slots[j], slots[k]];
  }
  const hit = new Uint8Array(total);
  for (let k = 0; k < Math.round(spec.hitShare * total); k++) hit[slots[k]] = 1;

  const closes: CloseSeries[] = [];
  const outputs: SnapshotOutputs[] = [];
  const planted = new Map<string, boolean>();
  for (let s = 0; s < spec.symbols; s++) {
    const rng = createPrng(spec.seed, s);
    const symbol = `S${String(s).padStart(3, '0')}`;
    const epochs = Math.ceil((spec.days - spec.firstSnapshot) / spec.epoch);
    const stageOf = Array.from({ length: epochs }, () => (1 + rng.int(4)) as StageNumber);
    const stageAt = (t: number): StageNumber | null => (t < spec.firstSnapshot ? null : stageOf[Math.floor((t - spec.firstSnapshot) / spec.epoch)]);
    const returns = new Float64Array(spec.days);
    for (let t = 1; t < spec.days; t++) returns[t] = spec.vol * rng.normal() + (stageAt(t - 1) === 2 ? spec.stage2Drift : 0);
    detectionDays.forEach((t, k) => {
      const up = hit[s * detectionDays.length + k] === 1;
      for (let d = 1; d <= RUN_DAYS; d++) returns[t + d] = up ? RUN : -RUN;
      planted.set(`${symbol} ${calendar[t]}`, up);
    });
    closes.push({ symbol, dates: calendar, close: closesFrom(returns, 50) });
    for (const t of days) {
      const out = randomOutputs(rng, symbol, calendar[t]);
      out.stage = stageAt(t);
      if (planted.has(`${symbol} ${calendar[t]}`)) out.bestPattern = { type: 'BULL_FLAG', direction: 'bullish', target: 0.05, stop: -0.05 };
      outputs.push(out);
    }
  }
  return { ...assemble(closes, outputs, calendar, days), planted };
}
