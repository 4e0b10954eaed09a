/**
 * The five allocation strategies (optimizer.ts header, step 1): the effective settings each reads, the
 * ranking score and the target weighting (equal, stage, confidence softmax, Kelly fraction, hybrid
 * blend softmax), the base softmax temperature, and the HYBRID_WEIGHTED blend opportunity search
 * rates ideas with. Pure.
 */
import { STAGE_LABELS, type StageLabel } from '../../analysis/engine/document.js';
import { type Book, bySymbol, clamp01, EPS, f4, type Name, nameOf, type Plan, pricesOf, type Ranking } from './book-model.js';
import { finite } from './constraints.js';
import type { AllocationStrategy, RiskSettings } from './risk-settings.js';
import type { Candidate } from './types.js';

/** Softmax temperature when the settings give none (CONFIDENCE_WEIGHTED, HYBRID_WEIGHTED). */
export const DEFAULT_SOFTMAX_TEMPERATURE = 0.2;

/** Stage factors when the settings give none (STAGE_WEIGHTED, HYBRID_WEIGHTED); missing keys take these. */
export const DEFAULT_STAGE_WEIGHTS: Readonly<Record<StageLabel, number>> = Object.freeze({
  'STAGE 1': 0.25,
  'STAGE 2': 1,
  'STAGE 3': 0.25,
  'STAGE 4': 0,
});

/** KELLY_CRITERION defaults: reward multiplier on b, and whether f* is halved. */
export const DEFAULT_REWARD_MULTIPLIER = 1;
export const DEFAULT_HALF_KELLY = false;

/** HYBRID_WEIGHTED blend weights (they sum to 1). */
export const HYBRID_BLEND_WEIGHTS = Object.freeze({ stage: 0.35, confidence: 0.35, kelly: 0.2, relative_strength: 0.1 });

/** HYBRID_WEIGHTED: a full-Kelly fraction of this size or more counts as the full Kelly part (1). */
export const HYBRID_FULL_KELLY_EDGE = 0.5;

/** HYBRID_WEIGHTED: relative strength -50..50 maps linearly to 0..1. */
export const HYBRID_RELATIVE_STRENGTH_SPAN = 50;

/** Strategies that weight by a softmax (with a temperature). */
export const SOFTMAX_STRATEGIES: ReadonlySet<AllocationStrategy> = new Set(['CONFIDENCE_WEIGHTED', 'HYBRID_WEIGHTED']);

/** Strategies that read stage_weights. */
const STAGE_STRATEGIES: ReadonlySet<AllocationStrategy> = new Set(['STAGE_WEIGHTED', 'HYBRID_WEIGHTED']);

/** All four stage keys: given finite values, defaults for the rest. */
function fullStageWeights(given: Record<string, number> | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const label of STAGE_LABELS) {
    const v = given ? given[label] : undefined;
    out[label] = typeof v === 'number' && Number.isFinite(v) ? v : DEFAULT_STAGE_WEIGHTS[label];
  }
  return out;
}

/**
 * Fills the nulls the chosen strategy reads: softmax_temperature (CONFIDENCE_WEIGHTED, HYBRID_WEIGHTED),
 * stage_weights with all four `STAGE n` keys (STAGE_WEIGHTED, HYBRID_WEIGHTED; missing keys take the
 * default), reward_multiplier and half_kelly (KELLY_CRITERION). Every other field is left as given.
 */
export function effectiveRiskSettings(settings: RiskSettings): RiskSettings {
  const strategy = settings.allocation_strategy;
  const out: RiskSettings = {
    ...settings,
    stage_weights: settings.stage_weights === null ? null : { ...settings.stage_weights },
  };
  if (SOFTMAX_STRATEGIES.has(strategy) && out.softmax_temperature === null) out.softmax_temperature = DEFAULT_SOFTMAX_TEMPERATURE;
  if (STAGE_STRATEGIES.has(strategy)) out.stage_weights = fullStageWeights(settings.stage_weights);
  if (strategy === 'KELLY_CRITERION') {
    if (out.reward_multiplier === null) out.reward_multiplier = DEFAULT_REWARD_MULTIPLIER;
    if (out.half_kelly === null) out.half_kelly = DEFAULT_HALF_KELLY;
  }
  return out;
}

/** One candidate per symbol: with duplicates the later analysis_date wins, then the first given. */
function uniqueCandidates(candidates: readonly Candidate[]): Map<string, Candidate> {
  const map = new Map<string, Candidate>();
  for (const c of candidates) {
    const prev = map.get(c.symbol);
    if (prev === undefined || c.analysis_date > prev.analysis_date) map.set(c.symbol, c);
  }
  return map;
}

function stageWeightOf(c: Candidate, weights: Record<string, number>): number {
  if (c.stage_number === null || c.stage_number === undefined) return 0;
  return Math.max(0, finite(weights[`STAGE ${c.stage_number}`], 0));
}

/**
 * Full Kelly f* = p - (1 - p) / b, b = risk_reward_ratio x rewardMultiplier; -Infinity (no edge) when p is
 * unknown, b <= 0, or p is at or below the no-edge p0 with rewardMultiplier <= 1 (b is rounded to 4
 * decimals, which could otherwise leave f* a hair above 0 at p = p0).
 */
function kellyFraction(c: Candidate, rewardMultiplier: number): number {
  const b = finite(c.risk_reward_ratio, 0) * rewardMultiplier;
  if (!(b > 0)) return -Infinity;
  if (typeof c.win_probability !== 'number' || !Number.isFinite(c.win_probability)) return -Infinity;
  const p0 = c.kelly_odds?.p0;
  if (rewardMultiplier <= 1 && typeof p0 === 'number' && c.win_probability <= p0) return -Infinity;
  const p = clamp01(c.win_probability);
  return p - (1 - p) / b;
}

/**
 * The HYBRID_WEIGHTED blend of a candidate, in [0, 1] (optimizer.ts header, step 1): stage part, confidence, full-Kelly
 * edge and relative strength. A stage weighted 0 (or no stage) gives a stage part of 0; the optimizer
 * leaves such names out before blending, opportunity search rates holdings with it whatever their stage.
 */
export function hybridBlend(c: Candidate, stageWeights: Readonly<Record<string, number>> = DEFAULT_STAGE_WEIGHTS, maxStageWeight?: number): number {
  let max = maxStageWeight;
  if (max === undefined) {
    max = 0;
    for (const label of STAGE_LABELS) max = Math.max(max, Math.max(0, finite(stageWeights[label], 0)));
  }
  const sw = stageWeightOf(c, stageWeights);
  const strength = Math.max(0, finite(c.strength_factor, 0.5));
  const stagePart = clamp01(max > 0 ? (sw / max) * strength : 0);
  const fFull = kellyFraction(c, 1);
  const kellyPart = fFull > 0 ? clamp01(fFull / HYBRID_FULL_KELLY_EDGE) : 0;
  const rs = c.relative_strength;
  const rsPart =
    typeof rs === 'number' && Number.isFinite(rs) ? clamp01((rs + HYBRID_RELATIVE_STRENGTH_SPAN) / (2 * HYBRID_RELATIVE_STRENGTH_SPAN)) : 0.5;
  return (
    HYBRID_BLEND_WEIGHTS.stage * stagePart +
    HYBRID_BLEND_WEIGHTS.confidence * clamp01(finite(c.confidence, 0)) +
    HYBRID_BLEND_WEIGHTS.kelly * kellyPart +
    HYBRID_BLEND_WEIGHTS.relative_strength * rsPart
  );
}

export function rankUniverse(candidates: readonly Candidate[], eff: RiskSettings, maxPositions: number): Ranking {
  const strategy = eff.allocation_strategy;
  const lookup = uniqueCandidates(candidates);
  const stageWeights = eff.stage_weights ?? fullStageWeights(null);
  let maxStageWeight = 0;
  for (const label of STAGE_LABELS) maxStageWeight = Math.max(maxStageWeight, Math.max(0, finite(stageWeights[label], 0)));
  const rewardMultiplier = finite(eff.reward_multiplier, DEFAULT_REWARD_MULTIPLIER);
  const half = eff.half_kelly === true;

  let eligible = 0;
  let badPrices = 0;
  let negativeEdge = 0;
  const unknownReasons = new Map<string, number>();
  let zeroStage = 0;
  const scored: Name[] = [];
  for (const c of lookup.values()) {
    if (!c.eligible) continue;
    eligible++;
    const prices = pricesOf(c);
    if (prices === null) {
      badPrices++;
      continue;
    }
    const confidence = clamp01(finite(c.confidence, 0));
    const strength = Math.max(0, finite(c.strength_factor, 0.5));
    let score: number;
    let key: number;
    let kelly = Infinity;
    switch (strategy) {
      case 'EQUAL_WEIGHT':
        score = confidence;
        key = 1;
        break;
      case 'STAGE_WEIGHTED': {
        const sw = stageWeightOf(c, stageWeights);
        if (!(sw > 0) || !(strength > 0)) {
          zeroStage++;
          continue;
        }
        score = sw * strength;
        key = score;
        break;
      }
      case 'CONFIDENCE_WEIGHTED':
        score = confidence;
        key = confidence;
        break;
      case 'KELLY_CRITERION': {
        if (typeof c.win_probability !== 'number') {
          const why = c.kelly_odds?.reason ?? 'the win odds are not measured';
          unknownReasons.set(why, (unknownReasons.get(why) ?? 0) + 1);
          continue;
        }
        let f = kellyFraction(c, rewardMultiplier);
        if (half) f /= 2;
        if (!(f > 0)) {
          negativeEdge++;
          continue;
        }
        score = f;
        key = f;
        kelly = f;
        break;
      }
      case 'HYBRID_WEIGHTED':
      default: {
        const sw = stageWeightOf(c, stageWeights);
        if (!(sw > 0)) {
          zeroStage++;
          continue;
        }
        const blend = hybridBlend(c, stageWeights, maxStageWeight);
        score = blend;
        key = blend;
        break;
      }
    }
    scored.push(nameOf(c, prices, { score, key, kelly }));
  }
  scored.sort((a, b) => (a.score !== b.score ? b.score - a.score : bySymbol(a.symbol, b.symbol)));

  const notes: string[] = [];
  if (eligible === 0) notes.push('candidates: no eligible candidates, so the book is empty');
  if (badPrices > 0) notes.push(`candidates: ${badPrices} eligible names skipped because their entry or stop price is unusable`);
  for (const [why, count] of [...unknownReasons].sort(([a], [b]) => bySymbol(a, b))) {
    notes.push(`KELLY_CRITERION: ${count} eligible names have no measured win odds (${why}), so no edge and no position`);
  }
  if (negativeEdge > 0) {
    notes.push(`KELLY_CRITERION: ${negativeEdge} eligible names have no positive edge (measured p at or below the no-edge p0, f* <= 0) and get nothing`);
  }
  if (zeroStage > 0) {
    notes.push(`stage_weights: ${zeroStage} eligible names are in a stage weighted 0 (or have no stage) and get nothing`);
  }
  if (eligible > 0 && scored.length === 0 && badPrices < eligible) {
    notes.push(`candidates: no eligible name has a positive ${strategy} score, so the book is empty`);
  }
  let ranked = scored;
  if (scored.length > maxPositions) {
    ranked = scored.slice(0, maxPositions);
    notes.push(
      maxPositions === 0
        ? 'max_positions: 0, so the book is empty'
        : `max_positions: kept ${maxPositions} of ${scored.length} scored eligible names`,
    );
  }
  if (strategy === 'KELLY_CRITERION') for (const name of ranked) notes.push(kellyNote(name, rewardMultiplier));
  if (strategy === 'HYBRID_WEIGHTED' && eligible > 0) notes.push(hybridOddsNote(lookup.values()));
  return { ranked, scored, maxPositions, eligible, notes, lookup };
}

/** Where a ranked Kelly name's p came from, e.g. "AAPL p=0.4100 vs no-edge 0.3800 ... from STAGE 2 STRONG/pattern (n=412, ...)". */
function kellyNote(name: Name, rewardMultiplier: number): string {
  const c = name.cand;
  const o = c.kelly_odds;
  const b = finite(c.risk_reward_ratio, 0) * rewardMultiplier;
  const head = `KELLY_CRITERION: ${c.symbol} p=${f4(c.win_probability as number)} vs no-edge ${o?.p0 == null ? 'unknown' : f4(o.p0)}, b=${f4(b)}, f*=${f4(name.kelly)}`;
  if (!o || o.source === null) return `${head}; p given with the candidate (not measured here)`;
  const where = o.source === 'state' ? `${o.state}` : `the pooled odds of all states (${o.reason})`;
  return `${head}; p from ${where} (n=${o.n}, ${Math.round(o.windows)} non-overlapping, as of ${o.as_of})`;
}

/** HYBRID_WEIGHTED: where the Kelly part's p came from (one note for the run). */
function hybridOddsNote(candidates: Iterable<Candidate>): string {
  let measured = 0;
  let unknown = 0;
  let asOf: string | null = null;
  let reason: string | null = null;
  for (const c of candidates) {
    if (!c.eligible) continue;
    if (typeof c.win_probability === 'number') {
      measured++;
      asOf = c.kelly_odds?.as_of ?? asOf;
    } else {
      unknown++;
      reason = reason ?? c.kelly_odds?.reason ?? 'the win odds are not measured';
    }
  }
  if (measured === 0) return `HYBRID_WEIGHTED: the Kelly part is 0 for every name: ${reason}`;
  const tail = unknown > 0 ? `; ${unknown} eligible names without measured odds get a Kelly part of 0` : '';
  return `HYBRID_WEIGHTED: the Kelly part uses the measured chance of target before stop per state${asOf ? ` (as of ${asOf})` : ''}${tail}`;
}

/** Step 1: the softmax temperature a softmax strategy starts from (null for the others), with a note when the settings' one is unusable. */
export function baseTemperatureOf(eff: RiskSettings): { base: number | null; notes: string[] } {
  if (!SOFTMAX_STRATEGIES.has(eff.allocation_strategy)) return { base: null, notes: [] };
  const t = eff.softmax_temperature;
  if (typeof t === 'number' && Number.isFinite(t) && t > 0) return { base: t, notes: [] };
  return {
    base: DEFAULT_SOFTMAX_TEMPERATURE,
    notes: [`softmax_temperature: ${String(t)} is not a positive number; ${DEFAULT_SOFTMAX_TEMPERATURE} used`],
  };
}

/** Step 1, KELLY_CRITERION: whether the ranked names' Kelly fractions are scaled to 1 or leave cash. */
export function kellySumNotes(p: Plan): string[] {
  if (p.eff.allocation_strategy !== 'KELLY_CRITERION' || p.ranking.ranked.length === 0) return [];
  let sum = 0;
  for (let i = 0; i < p.ranking.ranked.length; i++) sum += p.names[i].key;
  if (sum > 1 + EPS) return [`KELLY_CRITERION: Kelly fractions of the ranked names sum to ${f4(sum)}; scaled to sum to 1`];
  if (sum < 1 - 1e-9) return [`KELLY_CRITERION: Kelly fractions of the ranked names sum to ${f4(sum)}; the other ${f4(1 - sum)} stays cash`];
  return [];
}

export function rawWeights(book: Book, temperature: number): Float64Array {
  const k = book.k;
  const t = new Float64Array(k);
  if (k === 0) return t;
  switch (book.strategy) {
    case 'EQUAL_WEIGHT':
      t.fill(1 / k);
      break;
    case 'CONFIDENCE_WEIGHTED':
    case 'HYBRID_WEIGHTED': {
      let max = -Infinity;
      for (let i = 0; i < k; i++) max = Math.max(max, book.names[i].key);
      let sum = 0;
      for (let i = 0; i < k; i++) {
        t[i] = Math.exp((book.names[i].key - max) / temperature);
        sum += t[i];
      }
      for (let i = 0; i < k; i++) t[i] /= sum;
      break;
    }
    case 'KELLY_CRITERION': {
      let sum = 0;
      for (let i = 0; i < k; i++) sum += book.names[i].key;
      const scale = sum > 1 ? 1 / sum : 1;
      for (let i = 0; i < k; i++) t[i] = book.names[i].key * scale;
      break;
    }
    case 'STAGE_WEIGHTED':
    default: {
      let sum = 0;
      for (let i = 0; i < k; i++) sum += book.names[i].key;
      for (let i = 0; i < k; i++) t[i] = book.names[i].key / sum;
      break;
    }
  }
  return t;
}
