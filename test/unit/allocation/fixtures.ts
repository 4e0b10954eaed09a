/**
 * Deterministic builders for the allocation engine's unit tests: candidates (as engine/candidates.ts would
 * build them from snapshots), daily close series from seeded random walks, and optimize inputs.
 */
import { Prng } from '../../../subgraphs/analysis/engine/prng.js';
import type { AllocationStrategy, RiskSettings } from '../../../subgraphs/allocation/engine/risk-settings.js';
import type {
  Candidate,
  CloseSeries,
  ConstraintPack,
  OptimizeInput,
  SnapshotRowFields,
} from '../../../subgraphs/allocation/engine/types.js';
import { weekdays } from '../../helpers/dates.js';

const STRENGTH_FACTORS = { VERY_STRONG: 1, STRONG: 0.75, MODERATE: 0.5, WEAK: 0.25 } as const;

export interface CandidateSpec {
  sector?: string;
  eligible?: boolean;
  entry?: number;
  stop?: number;
  target?: number | null;
  stage?: 1 | 2 | 3 | 4 | null;
  strength?: keyof typeof STRENGTH_FACTORS;
  confidence?: number;
  winProbability?: number;
  relativeStrength?: number | null;
  analysisDate?: string;
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** A candidate with consistent derived fields (risk/reward, stop distance, strength factor, row). */
export function candidate(symbol: string, spec: CandidateSpec = {}): Candidate {
  const entry = round2(spec.entry ?? 100);
  const stop = round2(spec.stop ?? entry * 0.9);
  const target = spec.target === undefined ? round2(entry + 3 * (entry - stop)) : spec.target === null ? null : round2(spec.target);
  const stage = spec.stage === undefined ? 2 : spec.stage;
  const strength = spec.strength ?? 'STRONG';
  const rr = target !== null && target > entry ? (target - entry) / (entry - stop) : 0;
  const confidence = spec.confidence ?? 0.6;
  const row: SnapshotRowFields = {
    stage: stage === null ? null : `STAGE ${stage}`,
    stage_strength: strength,
    entry_date: spec.analysisDate ?? '2024-06-28',
    signal: 'BUY',
    signal_confidence: confidence,
    signal_reason: 'fixture',
    bb_width: 0.1,
    atr: round2(entry * 0.02),
    atr_percent: 2,
    volatility_trend: 'stable',
    is_high_volatility: false,
    volatility_stop_loss_levels: { atr_2x: round2(entry * 0.96) },
    historical_volatility: 0.25,
    support_levels: [{ price: stop, strength: 3 }],
    resistance_levels: target === null ? [] : [{ price: target, strength: 2 }],
  };
  return {
    symbol,
    sector: spec.sector ?? 'Technology',
    analysis_date: spec.analysisDate ?? '2024-06-28',
    eligible: spec.eligible ?? true,
    exclusion: spec.eligible === false ? 'fixture: not eligible' : null,
    entry_price: entry,
    stop_loss: stop,
    target_price: target,
    target_source: target === null ? null : 'resistance',
    risk_reward_ratio: rr,
    stop_distance: (entry - stop) / entry,
    stage_number: stage,
    strength_factor: STRENGTH_FACTORS[strength],
    confidence,
    win_probability: spec.winProbability ?? 0.5,
    relative_strength: spec.relativeStrength === undefined ? 5 : spec.relativeStrength,
    pattern_signal: null,
    row,
  };
}

const datesCache = new Map<string, readonly string[]>();

/** `n` weekday dates starting at `start` (ISO), oldest first, computed once per (n, start) and shared. */
function sharedTradingDates(n: number, start: string): readonly string[] {
  const key = `${start}/${n}`;
  let dates = datesCache.get(key);
  if (dates === undefined) {
    dates = Object.freeze(weekdays(n, start));
    datesCache.set(key, dates);
  }
  return dates;
}

/** `n` weekday dates starting at `start` (ISO), oldest first. */
export function tradingDates(n: number, start = '2023-01-02'): string[] {
  return sharedTradingDates(n, start).slice();
}

export interface SeriesSpec {
  seed: number;
  days?: number;
  /** Daily volatility of the idiosyncratic part. */
  dailyVol?: number;
  /** Loading on a common market factor (seeded by `marketSeed`). */
  beta?: number;
  marketSeed?: number;
  marketVol?: number;
  start?: number;
  /** Drop these indices (gaps in the series). */
  gaps?: readonly number[];
}

/** A seeded random-walk close series (log-normal steps), deterministic in its spec. */
export function closeSeries(spec: SeriesSpec): CloseSeries {
  const days = spec.days ?? 300;
  const dates = sharedTradingDates(days, '2023-01-02');
  const idio = new Prng(spec.seed, 1);
  const market = new Prng(spec.marketSeed ?? 999, 2);
  const beta = spec.beta ?? 0;
  const marketVol = spec.marketVol ?? 0.01;
  const dailyVol = spec.dailyVol ?? 0.015;
  const closes: number[] = [];
  let price = spec.start ?? 100;
  for (let t = 0; t < days; t++) {
    if (t > 0) price *= Math.exp(beta * marketVol * market.normal() + dailyVol * idio.normal());
    closes.push(price);
  }
  if (!spec.gaps || spec.gaps.length === 0) return { dates, closes };
  const drop = new Set(spec.gaps);
  return { dates: dates.filter((_, i) => !drop.has(i)), closes: closes.filter((_, i) => !drop.has(i)) };
}

/** Closes for every candidate symbol, each with its own seeded walk (seed from the symbol's position). */
export function closesFor(
  symbols: readonly string[],
  spec: Omit<SeriesSpec, 'seed'> & { seedBase?: number; vols?: Readonly<Record<string, number>> } = {},
): Map<string, CloseSeries> {
  const out = new Map<string, CloseSeries>();
  symbols.forEach((symbol, i) => {
    out.set(symbol, closeSeries({ ...spec, seed: (spec.seedBase ?? 1) * 1000 + i, dailyVol: spec.vols?.[symbol] ?? spec.dailyVol }));
  });
  return out;
}

export function settings(strategy: AllocationStrategy, over: Partial<RiskSettings> = {}): RiskSettings {
  return {
    max_risk_per_trade: 0.1,
    max_portfolio_risk: 1,
    max_position_size: 1,
    max_positions: 30,
    allocation_strategy: strategy,
    softmax_temperature: null,
    reward_multiplier: null,
    stage_weights: null,
    half_kelly: null,
    ...over,
  };
}

export function pack(over: Partial<ConstraintPack> = {}): ConstraintPack {
  return {
    schema_version: '1',
    max_portfolio_turnover_annual: null,
    vol_target_annual: null,
    sector_caps: null,
    covariance_model: null,
    ...over,
  };
}

export function input(candidates: readonly Candidate[], over: Partial<OptimizeInput> = {}): OptimizeInput {
  return {
    total_capital: 100_000,
    risk_settings: settings('EQUAL_WEIGHT'),
    constraint_pack: null,
    prior_book_weights: null,
    candidates,
    closes: new Map(),
    ...over,
  };
}

/** A synthetic universe of `n` candidates with varied prices, sectors, stages and confidences. */
export function universe(n: number, seed = 7): Candidate[] {
  const rng = new Prng(seed, 3);
  const sectors = ['Technology', 'Energy', 'Health Care', 'Financials', 'Industrials', 'Utilities', 'Materials', 'Consumer Staples'];
  const strengths = ['VERY_STRONG', 'STRONG', 'MODERATE', 'WEAK'] as const;
  const out: Candidate[] = [];
  for (let i = 0; i < n; i++) {
    const entry = round2(5 + rng.next() * 495);
    const stopPct = 0.03 + rng.next() * 0.15;
    const stage = (1 + rng.int(4)) as 1 | 2 | 3 | 4;
    out.push(
      candidate(`S${String(i).padStart(5, '0')}`, {
        sector: sectors[rng.int(sectors.length)],
        eligible: rng.next() < 0.8,
        entry,
        stop: round2(entry * (1 - stopPct)),
        target: round2(entry * (1 + 0.05 + rng.next() * 0.4)),
        stage,
        strength: strengths[rng.int(4)],
        confidence: Math.round(rng.next() * 1000) / 1000,
        winProbability: 0.35 + rng.next() * 0.35,
        relativeStrength: rng.next() < 0.1 ? null : Math.round((rng.next() * 100 - 50) * 10) / 10,
      }),
    );
  }
  return out;
}
