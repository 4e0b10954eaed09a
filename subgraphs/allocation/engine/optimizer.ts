/**
 * The allocation optimizer: candidates, risk settings, an optional constraint pack, an optional prior book
 * and daily closes in; whole-share LONG positions and diagnostics out. Pure and deterministic: no clock, no
 * randomness, no I/O; the order candidates are given in does not matter (every ranking tie is broken by
 * symbol, every sum runs in rank or symbol order).
 *
 * Weights are fractions of total capital. Money is handled in integer cents: entry and stop prices are
 * cents already, total capital is rounded to the cent.
 *
 * 1. Ranking and strategy weights (the effective settings are `effectiveRiskSettings(risk_settings)`)
 *    One candidate per symbol (with duplicates the later analysis_date wins, then the first given). Only
 *    `eligible` candidates with a usable entry (>= 1 cent) and a stop below the entry are scored.
 *    Each strategy gives a ranking score and target weights for the ranked names:
 *    - EQUAL_WEIGHT: equal weights; ranked by confidence (which names to keep when max_positions binds).
 *    - STAGE_WEIGHTED: score = stage_weights[stage] x strength_factor; weights proportional to the score.
 *      A name whose stage weighs 0 (default STAGE 4), or that has no stage, gets nothing.
 *    - CONFIDENCE_WEIGHTED: score = confidence; weights = softmax(confidence / T).
 *    - KELLY_CRITERION: f* = p - (1 - p) / b, p = win_probability (the measured chance of the target before
 *      the stop for past candidates in the same state, engine/kelly-odds.ts), b = risk_reward_ratio x
 *      reward_multiplier; half_kelly halves f*. No edge, no position: p unknown (odds not measured), f* <= 0
 *      or b <= 0 gets nothing (notes say how many and why). Each ranked name gets a note with its p, the
 *      no-edge p0 and where p came from (state, trades, as-of date). Score = f*. The
 *      fractions are absolute: if the ranked names' fractions sum above 1 they are scaled to sum to 1,
 *      otherwise the rest stays cash (note). No name is ever given more than its own f* (also when
 *      re-spending leftover cash), so caps never push Kelly money into other names beyond their edge.
 *    - HYBRID_WEIGHTED: weights = softmax(blend / T) with blend in [0, 1]:
 *        0.35 x stage part (stage_weights[stage] / max stage weight x strength_factor)
 *      + 0.35 x confidence
 *      + 0.20 x Kelly edge (full Kelly f* with b = risk_reward_ratio and the same measured p, divided by
 *        0.5, clamped to [0, 1]; 0 when p is unknown; a note says where p came from)
 *      + 0.10 x relative strength ((RS + 50) / 100 clamped to [0, 1]; unknown RS = 0.5).
 *      As in STAGE_WEIGHTED, a name whose stage weighs 0 (or that has no stage) gets nothing.
 *    Softmax subtracts the largest input first; it never changes the order, so the ranked set does not
 *    depend on T. Ranking: score descending, then symbol ascending; the top max_positions are kept
 *    ("max_positions" note with how many were kept of how many scored).
 * 2. Caps, by water-filling (the caps are read from the settings and pack by constraints.ts). Per-name cap c_i = min(max_position_size, sector_caps.DEFAULT when given,
 *    max_risk_per_trade / stop_distance_i) (per-trade risk: shares x (entry - stop) <= max_risk_per_trade x
 *    capital, i.e. w_i x stop_distance_i <= max_risk_per_trade; stop_distance = (entry - stop) / entry in
 *    cents). Every other sector_caps key caps the weight sum of the names whose sector label equals it
 *    exactly. Water-filling: the unfrozen names share the unplaced weight in proportion to their target
 *    weights (as rest x (t_i / sum t), so softmax weights that underflow to subnormals cannot overflow);
 *    names above their cap are frozen at it; sectors above their cap are frozen with the cap shared among
 *    their names in proportion to target weights (within name caps); repeat until neither a name nor a
 *    sector is above its cap (the sectors are checked also when the name caps leave nothing to share).
 *    What no name can take stays cash ("caps" note). Every cap that bound gets a note with
 *    the spec field name as prefix and the weight it wanted (the weight water-filling gave it just before
 *    the cap bound). A sector_caps key that matches no name in the book gets a note.
 * 3. Total risk: sum(w_i x stop_distance_i) <= max_portfolio_risk, else every weight is scaled down by
 *    the same factor ("max_portfolio_risk" note).
 * 4. Vol target (constraint_pack.vol_target_annual): sigma = sqrt(252 x w' S w), S the Ledoit-Wolf
 *    covariance (covariance.ts) of the book names' daily returns over the last 252 common dates. Vol is
 *    only measured when a vol target is set: without one the closes are ignored (none are asked for) and
 *    metrics.expected_volatility_annual and metrics.covariance_shrinkage are null. If sigma
 *    is above the target: CONFIDENCE_WEIGHTED and HYBRID_WEIGHTED first raise the temperature, re-running
 *    steps 1-3: if T = base x MAX_TEMPERATURE_RAISE_FACTOR (10) meets the target, 40 bisection steps on
 *    [base, 10 x base] give the smallest temperature found that meets it; otherwise the temperature with
 *    the lower vol of the two ends is kept. Then, if still above (or for the other strategies), all weights
 *    are scaled by target / sigma. A name of the book without closes, or fewer than 20 common returns,
 *    makes vol unmeasurable: a note says so and the target is not applied.
 * 5. Turnover (constraint_pack.max_portfolio_turnover_annual with a prior book that has a positive weight).
 *    One-way turnover = half the sum over all symbols of |w_new - w_prior|. Prior names with a candidate
 *    (eligible or not) and usable prices join the book after the ranked names (by symbol) and can be kept;
 *    the others are sold (note), and their sale counts toward turnover first.
 *    max_positions is a hard limit on the book's names, also here:
 *    a. The prior names that can be kept (ranked or not) hold at most max_positions positions: beyond that
 *       the weakest are sold (note naming them). Weakest by the strategy's own order: ranked names are
 *       the strongest, then the scored names beyond max_positions in rank order, then names the strategy
 *       does not score (ineligible, no positive score) by symbol; prior names without a candidate are sold
 *       before any of these (above) and hold no position. These sales are forced: they count toward
 *       turnover first, and when the forced sales alone exceed the cap the turnover note says by how much
 *       and that max_positions forces them.
 *    b. If the book (ranked names plus kept prior names) still has more names than max_positions and the
 *       target is above the cap (so blending would keep them all): every kept prior name keeps its
 *       position, and the ranked names not held take the positions left, best-ranked first; the others
 *       get a target of 0 and buy nothing (note: they wait for a free position; "max_positions" holds back
 *       leftover cash). If that book is within the cap without blending (its unranked prior names would be
 *       sold in full anyway), those prior names are sold outright now (counting toward turnover first)
 *       and their positions go to the next best-ranked names (note). (When the target itself is within the
 *       cap nothing is blended: the prior names outside it are sold and the book is the ranked names.)
 *    The cap then governs the rest of the book: if the target's turnover is above the cap,
 *    w = prior + alpha x (target - prior) over the book (outright-sold names stay at 0), alpha = (cap -
 *    one-way turnover of the forced and outright sales) / (one-way turnover of the rest), clamped to
 *    [0, 1]. Then the hard caps (name, the Kelly fraction of a ranked KELLY_CRITERION name, sector,
 *    capital, total risk, vol) are re-applied to the blend; they only bind when the prior book itself
 *    breaks one, and then a note says the turnover exceeded the cap because of it (and, when the forced
 *    sales alone exceed the cap, because of them: the sales of prior names without a candidate, or the
 *    max_positions sales with their one-way turnover and its excess over the cap). A turnover cap without
 *    a prior book: only a note (turnover is not limited on a first optimize). A prior book without a
 *    turnover cap: ignored for sizing (note); the turnover against it is still reported in the metrics.
 *    So the book never holds more than max_positions names, and with a prior book of at most
 *    max_positions keepable names no sale is forced and the turnover stays within the cap (up to the
 *    notes on hard caps, sales of names without a candidate and rounding).
 *    `symbolsNeedingCloses` returns exactly the book names when a vol target is set (the ranked names, plus
 *    the keepable prior names within max_positions when blending applies), and no names otherwise.
 * 6. Whole shares: shares = floor(w x capital / entry) (with a slack of 1e-12 relative, at most 0.001 share;
 *    for a name being reduced toward its target while blending: rounded up, never above the prior
 *    holding, so rounding does not add turnover). Shares are then trimmed if rounding broke a cap (name,
 *    per-trade, Kelly fraction, sector, capital, total risk, vol); the vol trim repeatedly takes from the
 *    name whose share adds the most variance as many shares as bring the book within the target (solved
 *    from the quadratic), or as many as still lower vol when that name alone cannot. Leftover cash is
 *    spent greedily: passes over the ranked names in rank order, each buying as many shares as every
 *    constraint allows (a position under max_positions (5b), cash, name cap, sector cap, per-trade risk,
 *    total risk, vol target, turnover cap when blending, the Kelly fraction for KELLY_CRITERION), until a
 *    pass buys nothing. The vol check keeps
 *    S w up to date, so each check is O(book); when the spend stops, S w is recomputed exactly and the
 *    spend resumes if that leaves room, all within MAX_GREEDY_PASSES passes. A last note says whether the
 *    remaining cash is less than one more share of any ranked name, which constraints hold it back, or
 *    that the spend stopped at MAX_GREEDY_PASSES. When blending and the whole-share book's turnover is
 *    above the cap without an earlier note: "whole-share rounding" when the excess is at most one share
 *    per book name, otherwise a note that the whole-share caps bind.
 * 7. Rows: best-ranked first, then kept prior names by symbol; zero-share rows dropped. position_value =
 *    shares x entry, risk_amount = shares x (entry - stop), exact in cents; percent_of_account rounded to
 *    6 decimals.
 *    Money out: every money figure (entry_price, stop_loss, target_price, position_value, risk_amount,
 *    allocated_capital, remaining_capital, total_risk_amount) is a whole number of cents divided by 100:
 *    the double nearest that 2-decimal value, which prints as the shortest decimal (398.8, never
 *    398.79999999999995). allocated_capital is the spent cents / 100 and remaining_capital is (total
 *    cents minus spent cents) / 100, with total cents = round(total_capital * 100), so the two are exact
 *    in cents: their cents add up to the total cents. Their float sum can still miss total_capital in the
 *    last binary digit; clients compare money in cents (Math.round(x * 100)), never as float sums.
 * 8. Diagnostics echo the effective caps, the pack's vol target and turnover cap, the base and effective
 *    temperatures (null for strategies without one) and the notes. Without a constraint pack the first
 *    note is NO_CONSTRAINT_PACK_NOTE. Infeasible inputs (nothing eligible, caps that leave nothing,
 *    capital below one share) give an empty or partial book with notes saying why; nothing here throws.
 * Notes print weights with 4 decimals and money with 2, so they are deterministic.
 */
import type { StageLabel } from '../../analysis/engine/document.js';
import {
  MIN_ALIGNED_RETURNS,
  TRADING_DAYS_PER_YEAR,
  VOL_WINDOW_DAYS,
  alignedReturns,
  ledoitWolf,
  quadraticForm,
} from './covariance.js';
import { capsOf, nameWeightCap, sectorCapsOf, type Caps, type NameCapLabel } from './constraints.js';
import { fromCents, toCents } from './money.js';
import type { AllocationStrategy, RiskSettings } from './risk-settings.js';
import {
  DIAGNOSTICS_SCHEMA_VERSION,
  type BookMetrics,
  type Candidate,
  type CloseSeries,
  type OptimizeInput,
  type OptimizeResult,
  type OptimizerDiagnostics,
  type PortfolioAllocation,
  type SnapshotRowFields,
} from './types.js';

export { VOL_WINDOW_DAYS } from './covariance.js';

/** Softmax temperature when the settings give none (CONFIDENCE_WEIGHTED, HYBRID_WEIGHTED). */
export const DEFAULT_SOFTMAX_TEMPERATURE = 0.2;
/** Stage factors when the settings give none (STAGE_WEIGHTED, HYBRID_WEIGHTED); missing keys take these. */
export const DEFAULT_STAGE_WEIGHTS: Readonly<Record<StageLabel, number>> = Object.freeze({
  'STAGE 1': 0.25,
  'STAGE 2': 1,
  'STAGE 3': 0.25,
  'STAGE 4': 0,
});
const STAGE_LABELS: readonly StageLabel[] = ['STAGE 1', 'STAGE 2', 'STAGE 3', 'STAGE 4'];
/** KELLY_CRITERION defaults. */
export const DEFAULT_REWARD_MULTIPLIER = 1;
export const DEFAULT_HALF_KELLY = false;
/** The vol target may raise the softmax temperature up to this multiple of the base. */
export const MAX_TEMPERATURE_RAISE_FACTOR = 10;
/** Bisection steps when searching the temperature that meets the vol target. */
export const TEMPERATURE_BISECTION_STEPS = 40;
/** HYBRID_WEIGHTED blend weights (they sum to 1). */
export const HYBRID_BLEND_WEIGHTS = Object.freeze({ stage: 0.35, confidence: 0.35, kelly: 0.2, relative_strength: 0.1 });
/** HYBRID_WEIGHTED: a full-Kelly fraction of this size or more counts as the full Kelly part (1). */
export const HYBRID_FULL_KELLY_EDGE = 0.5;
/** HYBRID_WEIGHTED: relative strength -50..50 maps linearly to 0..1. */
export const HYBRID_RELATIVE_STRENGTH_SPAN = 50;
/** Upper bound on the leftover-cash passes (each pass that buys nothing ends the spend earlier). */
export const MAX_GREEDY_PASSES = 100;
/** The first binding note when the request has no constraint pack. */
export const NO_CONSTRAINT_PACK_NOTE = 'constraint_pack: none supplied, so only risk_settings were used';

const SOFTMAX_STRATEGIES: ReadonlySet<AllocationStrategy> = new Set(['CONFIDENCE_WEIGHTED', 'HYBRID_WEIGHTED']);
const STAGE_STRATEGIES: ReadonlySet<AllocationStrategy> = new Set(['STAGE_WEIGHTED', 'HYBRID_WEIGHTED']);
/** Relative slack on weight comparisons (float noise only). */
const EPS = 1e-12;
/** Relative slack on the vol target. */
const VOL_TOLERANCE = 1e-9;

// ---------------------------------------------------------------------------------------------------
// Settings

function finite(x: unknown, fallback: number): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : fallback;
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

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

// ---------------------------------------------------------------------------------------------------
// Formatting

const f4 = (x: number): string => (Math.abs(x) < 5e-5 ? 0 : x).toFixed(4);

function money(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const a = Math.abs(cents);
  const whole = Math.floor(a / 100);
  const frac = a - whole * 100;
  return `${sign}${whole}.${frac < 10 ? '0' : ''}${frac}`;
}

function listSymbols(symbols: readonly string[], max = 10): string {
  if (symbols.length <= max) return symbols.join(', ');
  return `${symbols.slice(0, max).join(', ')} and ${symbols.length - max} more`;
}

function bySymbol(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------
// Ranking

/** A book name: a ranked candidate or a kept prior-book name. */
interface Name {
  cand: Candidate;
  symbol: string;
  sector: string;
  entryCents: number;
  stopCents: number;
  /** Cents lost per share at the stop. */
  riskCents: number;
  /** riskCents / entryCents. */
  d: number;
  /** Ranking score (strategy specific). */
  score: number;
  /** Softmax input or raw weight. */
  key: number;
  /** KELLY_CRITERION: the name's (half-)Kelly fraction, a ceiling on its weight; otherwise Infinity. */
  kelly: number;
}

interface Ranking {
  ranked: Name[];
  /** Every scored name in rank order (ranked is its first max_positions). */
  scored: Name[];
  /** The effective max_positions (a whole number, at least 0). */
  maxPositions: number;
  eligible: number;
  notes: string[];
  /** Unique candidates by symbol (only built when a prior book needs a lookup). */
  lookup: Map<string, Candidate>;
}

interface Prices {
  entryCents: number;
  stopCents: number;
  riskCents: number;
}

function pricesOf(c: Candidate): Prices | null {
  const entryCents = toCents(finite(c.entry_price, NaN));
  const stopCents = toCents(finite(c.stop_loss, NaN));
  if (!(entryCents >= 1) || !Number.isFinite(stopCents) || !(stopCents < entryCents)) return null;
  return { entryCents, stopCents, riskCents: entryCents - stopCents };
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
 * The HYBRID_WEIGHTED blend of a candidate, in [0, 1] (header, step 1): stage part, confidence, full-Kelly
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

/** A candidate with usable prices as a name of the book, with the ranking figures its strategy gave it. */
function nameOf(c: Candidate, prices: Prices, rank: Pick<Name, 'score' | 'key' | 'kelly'>): Name {
  return {
    cand: c,
    symbol: c.symbol,
    sector: c.sector,
    entryCents: prices.entryCents,
    stopCents: prices.stopCents,
    riskCents: prices.riskCents,
    d: prices.riskCents / prices.entryCents,
    ...rank,
  };
}

function rankUniverse(candidates: readonly Candidate[], eff: RiskSettings, maxPositions: number): Ranking {
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

// ---------------------------------------------------------------------------------------------------
// Context shared by the steps

interface Book {
  strategy: AllocationStrategy;
  /** Ranked names first (rank order), then kept prior names (symbol order). */
  names: Name[];
  /** How many of `names` are ranked. */
  k: number;
  maxPortfolioRisk: number;
  /** Hard per-name cap min(max_position_size, DEFAULT, max_risk_per_trade / d) and which constraint set it. */
  hardCap: Float64Array;
  hardCapBy: NameCapLabel[];
  /** Capped sectors present in the book, sorted; sectorOf[i] indexes them or is -1. */
  sectorLabels: string[];
  sectorCap: number[];
  sectorOf: Int32Array;
  /** Ledoit-Wolf covariance over `names` (daily returns), null when unmeasurable. */
  cov: Float64Array | null;
  volTarget: number | null;
  /** Prior weight per book name (0 when not held); null without a prior book. */
  prior: Float64Array | null;
  /** Sum of the prior weights of prior names that must be sold (no candidate). */
  forcedSales: number;
}

function vol(book: Book, w: ArrayLike<number>): number {
  return Math.sqrt(Math.max(0, quadraticForm(book.cov as Float64Array, w)) * TRADING_DAYS_PER_YEAR);
}

/** The first n weights padded to the book's size. */
function padded(book: Book, w: Float64Array): Float64Array {
  if (w.length === book.names.length) return w;
  const out = new Float64Array(book.names.length);
  out.set(w);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Steps 1-3: target weights of the ranked names

interface Target {
  /** Weights of the ranked names (rank order). */
  w: Float64Array;
  notes: string[];
}

function rawWeights(book: Book, temperature: number): Float64Array {
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

interface FillResult {
  w: Float64Array;
  /** Weight a name had when its name cap froze it (NaN when it never bound). */
  nameWanted: Float64Array;
  /** Sector weight sum when the sector cap froze it (NaN when it never bound). */
  sectorWanted: Float64Array;
}

/** Shares `amount` over names in proportion to t, within caps (no sectors). */
function fillCapped(t: number[], cap: number[], amount: number): number[] {
  const n = t.length;
  const w = new Array<number>(n).fill(0);
  const frozen = new Array<boolean>(n).fill(false);
  for (let iter = 0; iter <= n; iter++) {
    let placed = 0;
    let tsum = 0;
    for (let i = 0; i < n; i++) {
      if (frozen[i]) placed += w[i];
      else tsum += t[i];
    }
    const rest = amount - placed;
    if (!(tsum > 0) || rest <= 0) {
      for (let i = 0; i < n; i++) if (!frozen[i]) w[i] = 0;
      break;
    }
    let violated = false;
    for (let i = 0; i < n; i++) {
      if (frozen[i]) continue;
      w[i] = rest * (t[i] / tsum);
      if (w[i] > cap[i] * (1 + EPS)) violated = true;
    }
    if (!violated) break;
    for (let i = 0; i < n; i++) {
      if (!frozen[i] && w[i] > cap[i] * (1 + EPS)) {
        w[i] = cap[i];
        frozen[i] = true;
      }
    }
  }
  return w;
}

/**
 * Water-filling of the total sum(t) over the ranked names under name caps `cap` and the sector caps.
 * Each round the unfrozen names share what is not yet placed in proportion to t; names above their cap
 * freeze at it, and sectors above their cap freeze with the cap shared among their names (checked also
 * in a round where nothing is left to share). The share of the unfrozen names only grows from round to
 * round, so whatever broke a cap would break it again. Ends when a round changes neither.
 */
function waterFill(book: Book, t: Float64Array, cap: Float64Array): FillResult {
  const k = t.length;
  const S = book.sectorLabels.length;
  const w = new Float64Array(k);
  const frozen = new Uint8Array(k);
  const nameWanted = new Float64Array(k).fill(NaN);
  const sectorWanted = new Float64Array(S).fill(NaN);
  const sectorFrozen = new Uint8Array(S);
  let total = 0;
  for (let i = 0; i < k; i++) total += t[i];
  for (let iter = 0; iter <= k + S + 1; iter++) {
    let placed = 0;
    let tsum = 0;
    for (let i = 0; i < k; i++) {
      if (frozen[i]) placed += w[i];
      else tsum += t[i];
    }
    const rest = total - placed;
    let changed = false;
    if (!(tsum > 0) || rest <= 0) {
      // Nothing left to share: the unfrozen names get nothing, but the sectors are still checked.
      for (let i = 0; i < k; i++) if (!frozen[i]) w[i] = 0;
    } else {
      // rest x (t / tsum), not (rest / tsum) x t: tsum can be subnormal and rest / tsum overflow.
      for (let i = 0; i < k; i++) if (!frozen[i]) w[i] = rest * (t[i] / tsum);
      for (let i = 0; i < k; i++) {
        if (!frozen[i] && w[i] > cap[i] * (1 + EPS)) {
          nameWanted[i] = w[i];
          w[i] = cap[i];
          frozen[i] = 1;
          changed = true;
        }
      }
      if (changed) continue;
    }
    if (S > 0) {
      const sums = new Float64Array(S);
      for (let i = 0; i < k; i++) {
        const s = book.sectorOf[i];
        if (s >= 0) sums[s] += w[i];
      }
      for (let s = 0; s < S; s++) {
        if (sectorFrozen[s] || !(sums[s] > book.sectorCap[s] * (1 + EPS) + EPS)) continue;
        sectorWanted[s] = sums[s];
        sectorFrozen[s] = 1;
        changed = true;
        const members: number[] = [];
        for (let i = 0; i < k; i++) if (book.sectorOf[i] === s) members.push(i);
        const shared = fillCapped(
          members.map((i) => t[i]),
          members.map((i) => cap[i]),
          book.sectorCap[s],
        );
        members.forEach((i, j) => {
          w[i] = shared[j];
          frozen[i] = 1;
        });
      }
    }
    if (!changed) break;
  }
  return { w, nameWanted, sectorWanted };
}

function targetWeights(book: Book, temperature: number): Target {
  const k = book.k;
  const notes: string[] = [];
  const t = rawWeights(book, temperature);
  const cap = new Float64Array(k);
  for (let i = 0; i < k; i++) cap[i] = Math.min(book.hardCap[i], book.names[i].kelly);
  const { w, nameWanted, sectorWanted } = waterFill(book, t, cap);

  for (let i = 0; i < k; i++) {
    if (Number.isNaN(nameWanted[i]) || book.names[i].kelly < book.hardCap[i]) continue;
    if (w[i] < cap[i] * (1 - 1e-9)) continue; // a sector cap took it lower; the sector note covers it
    const by = book.hardCapBy[i];
    const tail = by === 'max_risk_per_trade' ? `; stop distance ${f4(book.names[i].d)}` : '';
    notes.push(`${by}: capped ${book.names[i].symbol} at ${f4(cap[i])} (wanted ${f4(nameWanted[i])}${tail})`);
  }
  for (let s = 0; s < book.sectorLabels.length; s++) {
    if (Number.isNaN(sectorWanted[s])) continue;
    notes.push(`sector_caps.${book.sectorLabels[s]}: capped at ${f4(book.sectorCap[s])} (wanted ${f4(sectorWanted[s])})`);
  }
  let tsum = 0;
  let wsum = 0;
  for (let i = 0; i < k; i++) {
    tsum += t[i];
    wsum += w[i];
  }
  if (tsum - wsum > 1e-9) notes.push(`caps: ${f4(tsum - wsum)} of capital cannot be placed within the caps and stays cash`);

  // Step 3: total risk.
  let risk = 0;
  for (let i = 0; i < k; i++) risk += w[i] * book.names[i].d;
  if (risk > book.maxPortfolioRisk * (1 + EPS) + EPS) {
    const scale = book.maxPortfolioRisk / risk;
    for (let i = 0; i < k; i++) w[i] *= scale;
    notes.push(`max_portfolio_risk: total risk ${f4(risk)} above ${f4(book.maxPortfolioRisk)}; every weight scaled by ${f4(scale)}`);
  }
  return { w, notes };
}

// ---------------------------------------------------------------------------------------------------
// Step 5 support: hard caps on any book weights

/** Re-applies the hard caps to `w` (in place, only ever lowering weights); returns what bound. */
function enforceHardCaps(book: Book, w: Float64Array): string[] {
  const n = book.names.length;
  const bound: string[] = [];
  const cappedBy = new Map<string, string[]>();
  for (let i = 0; i < n; i++) {
    // A ranked KELLY_CRITERION name is also capped at its own Kelly fraction (Infinity otherwise).
    const kelly = book.names[i].kelly;
    const cap = Math.min(book.hardCap[i], kelly);
    if (w[i] > cap * (1 + EPS)) {
      w[i] = cap;
      const by = kelly < book.hardCap[i] ? 'KELLY_CRITERION' : book.hardCapBy[i];
      const list = cappedBy.get(by) ?? [];
      list.push(book.names[i].symbol);
      cappedBy.set(by, list);
    }
  }
  for (const by of [...cappedBy.keys()].sort(bySymbol)) bound.push(`${by} (${listSymbols(cappedBy.get(by) as string[])})`);
  const sums = new Float64Array(book.sectorLabels.length);
  for (let i = 0; i < n; i++) if (book.sectorOf[i] >= 0) sums[book.sectorOf[i]] += w[i];
  for (let s = 0; s < book.sectorLabels.length; s++) {
    if (sums[s] > book.sectorCap[s] * (1 + EPS) + EPS) {
      const scale = book.sectorCap[s] / sums[s];
      for (let i = 0; i < n; i++) if (book.sectorOf[i] === s) w[i] *= scale;
      bound.push(`sector_caps.${book.sectorLabels[s]}`);
    }
  }
  const scaleAll = (factor: number): void => {
    for (let i = 0; i < n; i++) w[i] *= factor;
  };
  let gross = 0;
  for (let i = 0; i < n; i++) gross += w[i];
  if (gross > 1 + EPS) {
    scaleAll(1 / gross);
    bound.push('total_capital');
  }
  let risk = 0;
  for (let i = 0; i < n; i++) risk += w[i] * book.names[i].d;
  if (risk > book.maxPortfolioRisk * (1 + EPS) + EPS) {
    scaleAll(book.maxPortfolioRisk / risk);
    bound.push('max_portfolio_risk');
  }
  if (book.cov !== null && book.volTarget !== null) {
    const sigma = vol(book, w);
    if (sigma > book.volTarget * (1 + VOL_TOLERANCE)) {
      scaleAll(book.volTarget / sigma);
      bound.push('vol_target_annual');
    }
  }
  return bound;
}

/** (start + the sum of |w - prior| over the names not in `skip`) / 2: one-way turnover against the prior book. */
function halfMoved(book: Book, w: ArrayLike<number>, start: number, skip: Uint8Array | null): number {
  const prior = book.prior as Float64Array;
  let sum = start;
  for (let i = 0; i < book.names.length; i++) if (skip === null || skip[i] === 0) sum += Math.abs(w[i] - prior[i]);
  return sum / 2;
}

function turnoverOf(book: Book, w: ArrayLike<number>): number {
  return halfMoved(book, w, book.forcedSales, null);
}

// ---------------------------------------------------------------------------------------------------
// Step 5: turnover cap and max_positions over a prior book

interface Slots {
  /** Ranked names left without a position by max_positions (their target is 0; they buy nothing). */
  closed: Uint8Array;
  /** Kept prior names sold outright (level 2): they stay at 0 and their sale counts toward the cap first. */
  soldOutright: Uint8Array;
  /** Sum of the prior weights of `soldOutright`. */
  soldOutrightWeight: number;
  notes: string[];
}

/** Half the sum of |w - prior| over the names not in `skip`, without the forced sales. */
function movedOneWay(book: Book, w: ArrayLike<number>, skip: Uint8Array | null): number {
  return halfMoved(book, w, 0, skip);
}

/**
 * Which ranked names the prior book does not hold may take a position, so that the blended book holds at
 * most maxPositions names (header, step 5). `w` holds the target weights and is changed in place: a
 * closed name's target and an outright-sold name's weight become 0. `budget` is the cap less the one-way
 * turnover of the forced sales.
 * - Level 0: the book has at most maxPositions names, or the target itself is within the cap (then the
 *   prior names outside it are sold in full and the book is the ranked names): nothing to do.
 * - Level 1: every prior name still held keeps its position; the ranked names not held take the
 *   positions left, best-ranked first (only names with a positive target need one).
 * - Level 2: when that level-1 book is within the cap without blending (so its prior names outside the
 *   ranked book would be sold in full anyway), those prior names are sold outright now and their
 *   positions go to the next best-ranked names; the cap governs the rest with what their sale leaves.
 */
function fitToMaxPositions(book: Book, w: Float64Array, cap: number, budget: number, maxPositions: number): Slots {
  const n = book.names.length;
  const k = book.k;
  const prior = book.prior as Float64Array;
  const slots: Slots = { closed: new Uint8Array(n), soldOutright: new Uint8Array(n), soldOutrightWeight: 0, notes: [] };
  if (n <= maxPositions || turnoverOf(book, w) <= cap + 1e-9) return slots;

  // Ranked names not held, in rank order: those with a positive target first (only they are wanted; the
  // others are closed too unless a position is left over, so the leftover spend cannot add a name).
  let heldRanked = 0;
  const wanted: number[] = [];
  const unwanted: number[] = [];
  for (let i = 0; i < k; i++) {
    if (prior[i] > 0) heldRanked++;
    else (w[i] > 0 ? wanted : unwanted).push(i);
  }
  const newNames = [...wanted, ...unwanted];
  const wound = n - k;
  const open = (free: number): void => {
    newNames.forEach((i, j) => {
      slots.closed[i] = j < free ? 0 : 1;
    });
  };
  open(Math.max(0, maxPositions - heldRanked - wound));
  const level1 = Float64Array.from(w, (x, i) => (slots.closed[i] ? 0 : x));
  if (wound > 0 && movedOneWay(book, level1, null) <= budget + 1e-12) {
    for (let i = k; i < n; i++) {
      slots.soldOutright[i] = 1;
      slots.soldOutrightWeight += prior[i];
    }
    open(Math.max(0, maxPositions - heldRanked));
    const soldSymbols = book.names.slice(k).map((nm) => nm.symbol);
    slots.notes.push(
      `max_positions: the prior names outside the ranked book (${listSymbols(soldSymbols)}) are sold outright within ` +
        `max_portfolio_turnover_annual, so their positions go to ranked names not held`,
    );
  }
  for (let i = 0; i < n; i++) if (slots.closed[i] || slots.soldOutright[i]) w[i] = 0;
  const entering = wanted.filter((i) => !slots.closed[i]).map((i) => book.names[i].symbol);
  const waiting = wanted.filter((i) => slots.closed[i]).map((i) => book.names[i].symbol);
  if (waiting.length > 0) {
    const winding = slots.soldOutrightWeight > 0 ? 0 : wound;
    slots.notes.push(
      `max_positions: prior names hold ${heldRanked + winding} of ${maxPositions} positions ` +
        `(${heldRanked} ranked, ${winding} winding down), so ` +
        (entering.length === 0 ? 'no ranked name not held enters' : `only ${entering.length} ranked names not held enter (${listSymbols(entering)})`) +
        `; ${listSymbols(waiting)} wait for a free position`,
    );
  }
  return slots;
}

/** Step 5 with a prior book and a turnover cap: forced sales, max_positions, blending and the hard caps. */
function capTurnover(book: Book, w: Float64Array, p: Plan): { notes: string[]; closed: Uint8Array | null } {
  const notes: string[] = [];
  const cap = p.turnoverCap as number;
  const maxPositions = p.ranking.maxPositions;
  if (p.sold.length > 0) notes.push(`prior_book_weights: sold ${listSymbols(p.sold)} (no candidate with usable prices)`);
  if (p.soldForLimit.length > 0) {
    notes.push(
      `max_positions: the prior book holds ${p.heldBeforeLimit} names that could be kept, above the limit of ${maxPositions}, ` +
        `so the ${p.soldForLimit.length} weakest by ${p.eff.allocation_strategy} rank are sold: ${listSymbols(p.soldForLimit)}`,
    );
  }
  const slots = fitToMaxPositions(book, w, cap, cap - p.forcedSales / 2, maxPositions);
  notes.push(...slots.notes);
  const forced = p.forcedSales + slots.soldOutrightWeight;
  const prior = book.prior as Float64Array;
  const n = book.names.length;
  const tau = turnoverOf(book, w);
  if (tau > cap + 1e-9) {
    const rest = movedOneWay(book, w, slots.soldOutright);
    const budget = cap - forced / 2;
    const alpha = budget <= 0 || !(rest > 0) ? 0 : Math.min(1, budget / rest);
    for (let i = 0; i < n; i++) if (!slots.soldOutright[i]) w[i] = prior[i] + alpha * (w[i] - prior[i]);
    notes.push(
      `max_portfolio_turnover_annual: target turnover ${f4(tau)} above cap ${f4(cap)}; ` +
        `blended toward the prior book with alpha ${f4(alpha)}`,
    );
    const broken = enforceHardCaps(book, w);
    if (broken.length > 0) notes.push(`prior_book_weights: the blended book broke ${broken.join(', ')}; the hard caps win`);
    const after = turnoverOf(book, w);
    if (after > cap + 1e-9) {
      const why: string[] = [];
      if (broken.length > 0) why.push('the prior book breaks hard caps');
      if (p.noCandidateSales > 0 && p.noCandidateSales / 2 > cap + 1e-9) {
        why.push('sales of prior names without a candidate exceed it alone');
      }
      if (p.soldForLimit.length > 0 && p.forcedSales / 2 > cap + 1e-9) {
        why.push(
          `max_positions forces the sale of ${p.soldForLimit.length} prior names ` +
            `(forced one-way turnover ${f4(p.forcedSales / 2)}, ${f4(p.forcedSales / 2 - cap)} above the cap)`,
        );
      }
      const because = why.length > 0 ? why.join(' and ') : 'the hard caps bind';
      notes.push(`max_portfolio_turnover_annual: turnover ${f4(after)} exceeds cap ${f4(cap)} because ${because}`);
    }
  }
  return { notes, closed: slots.closed.some((x) => x === 1) ? slots.closed : null };
}

// ---------------------------------------------------------------------------------------------------
// Book construction (shared with symbolsNeedingCloses)

interface Plan {
  eff: RiskSettings;
  caps: Caps;
  ranking: Ranking;
  names: Name[];
  /** Prior weights (positive, finite) by symbol; null when there is no prior book. */
  prior: Map<string, number> | null;
  blending: boolean;
  /** Prior names sold because they have no candidate with usable prices (symbol order). */
  sold: string[];
  /** Prior names sold because the prior book holds more names than max_positions (symbol order). */
  soldForLimit: string[];
  /** How many names the prior book holds that could be kept (before the max_positions sale). */
  heldBeforeLimit: number;
  /** Sum of the prior weights of `sold` plus `soldForLimit`. */
  forcedSales: number;
  /** Sum of the prior weights of `sold` alone. */
  noCandidateSales: number;
  turnoverCap: number | null;
}

function sanitizedPrior(prior: Readonly<Record<string, number>> | null): Map<string, number> | null {
  if (prior === null || prior === undefined) return null;
  const out = new Map<string, number>();
  for (const symbol of Object.keys(prior).sort(bySymbol)) {
    const v = prior[symbol];
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) out.set(symbol, v);
  }
  return out.size > 0 ? out : null;
}

function priorName(c: Candidate, prices: Prices): Name {
  return nameOf(c, prices, { score: -Infinity, key: 0, kelly: Infinity });
}

/**
 * max_positions over the prior book (header, step 5): the prior names that can be kept (`unranked`, the
 * ones with a candidate and usable prices that are not ranked) and the `heldRanked` ranked names the
 * prior book holds may hold at most maxPositions positions. Beyond that the weakest are sold: strength
 * is the optimizer's own order of the candidates, i.e. the position in the full scored order (ranked
 * names first, then the scored names beyond max_positions), and names the strategy does not score
 * (ineligible, no positive score) come last, by symbol. Ranked names are never the weakest: they come
 * before every unranked name. Returns the kept unranked names (symbol order) and the sold ones.
 */
function sellBeyondMaxPositions(
  ranking: Ranking,
  unranked: readonly Name[],
  heldRanked: number,
): { kept: Name[]; sold: Name[] } {
  const room = Math.max(0, ranking.maxPositions - heldRanked);
  if (unranked.length <= room) return { kept: unranked.slice(), sold: [] };
  const rankOf = new Map<string, number>();
  ranking.scored.forEach((nm, i) => rankOf.set(nm.symbol, i));
  const strongestFirst = unranked
    .slice()
    .sort((a, b) => (rankOf.get(a.symbol) ?? Infinity) - (rankOf.get(b.symbol) ?? Infinity) || bySymbol(a.symbol, b.symbol));
  const bySym = (a: Name, b: Name): number => bySymbol(a.symbol, b.symbol);
  return { kept: strongestFirst.slice(0, room).sort(bySym), sold: strongestFirst.slice(room).sort(bySym) };
}

function plan(input: Omit<OptimizeInput, 'closes'>): Plan {
  const eff = effectiveRiskSettings(input.risk_settings);
  const caps = capsOf(eff, input.constraint_pack);
  const ranking = rankUniverse(input.candidates, eff, caps.maxPositions);
  const names = ranking.ranked.slice();
  const prior = sanitizedPrior(input.prior_book_weights);
  const cap = input.constraint_pack?.max_portfolio_turnover_annual;
  const turnoverCap = typeof cap === 'number' && Number.isFinite(cap) ? Math.max(0, cap) : null;
  const blending = prior !== null && turnoverCap !== null;
  const sold: string[] = [];
  const soldForLimit: string[] = [];
  let heldBeforeLimit = 0;
  let noCandidateSales = 0;
  let forcedSales = 0;
  if (blending) {
    const inBook = new Set(names.map((n) => n.symbol));
    const unranked: Name[] = [];
    let heldRanked = 0;
    for (const [symbol, p] of prior) {
      if (inBook.has(symbol)) {
        heldRanked++;
        continue;
      }
      const c = ranking.lookup.get(symbol);
      const prices = c === undefined ? null : pricesOf(c);
      if (c === undefined || prices === null) {
        sold.push(symbol);
        noCandidateSales += p;
        continue;
      }
      unranked.push(priorName(c, prices));
    }
    heldBeforeLimit = heldRanked + unranked.length;
    const fit = sellBeyondMaxPositions(ranking, unranked, heldRanked);
    names.push(...fit.kept);
    forcedSales = noCandidateSales;
    for (const nm of fit.sold) {
      soldForLimit.push(nm.symbol);
      forcedSales += prior.get(nm.symbol) as number;
    }
  }
  return { eff, caps, ranking, names, prior, blending, sold, soldForLimit, heldBeforeLimit, forcedSales, noCandidateSales, turnoverCap };
}

/**
 * The symbols whose daily closes optimize() needs. Only a vol target reads closes, so without one: none.
 * With one: the ranked names (rank order), then, when a turnover cap makes the prior book count, the
 * prior names that can be kept within max_positions (symbol order). Cheap: one scoring pass and a sort.
 */
export function symbolsNeedingCloses(input: Omit<OptimizeInput, 'closes'>): string[] {
  const target = input.constraint_pack?.vol_target_annual;
  if (!(typeof target === 'number' && Number.isFinite(target))) return [];
  return plan(input).names.map((n) => n.symbol);
}

// ---------------------------------------------------------------------------------------------------
// Covariance of the book

interface Measured {
  cov: Float64Array | null;
  shrinkage: number | null;
  /** Why vol is unmeasurable (null when measured or the book is empty). */
  reason: string | null;
}

function measure(names: readonly Name[], closes: ReadonlyMap<string, CloseSeries>): Measured {
  if (names.length === 0) return { cov: null, shrinkage: null, reason: null };
  const missing: string[] = [];
  const series: CloseSeries[] = [];
  for (const n of names) {
    const s = closes.get(n.symbol);
    if (s === undefined) missing.push(n.symbol);
    else series.push(s);
  }
  if (missing.length > 0) {
    return { cov: null, shrinkage: null, reason: `no closes for ${listSymbols(missing.slice().sort(bySymbol))}` };
  }
  const { returns } = alignedReturns(series, VOL_WINDOW_DAYS);
  if (returns.length < MIN_ALIGNED_RETURNS) {
    return {
      cov: null,
      shrinkage: null,
      reason: `only ${returns.length} aligned daily returns, at least ${MIN_ALIGNED_RETURNS} needed`,
    };
  }
  const { covariance, shrinkage } = ledoitWolf(returns);
  return { cov: covariance, shrinkage, reason: null };
}

// ---------------------------------------------------------------------------------------------------
// Step 6: whole shares

interface ShareState {
  shares: number[];
  /** Position value in cents. */
  value: number[];
  spent: number;
  riskSum: number;
  sectorSum: number[];
  /** S v / C per name (daily covariance times weights), null without a vol target in force. */
  sw: Float64Array | null;
  /** w' S w. */
  q: number;
  /** Sum over all symbols of |value - prior value| in cents (including sold prior names). */
  turnoverAbs: number;
}

interface Limits {
  C: number;
  nameLimit: number[];
  nameLimitLabel: NameCapLabel[];
  maxSharesTrade: number[];
  kellyLimit: number[];
  sectorLimit: number[];
  riskLimit: number;
  volQ: number;
  /** 2 x cap x C in cents (the cap on sum |value - prior value|), Infinity when not blending. */
  turnoverAbsCap: number;
  priorValue: number[];
  /** Ranked names max_positions leaves without a position (1), null when there are none. */
  closed: Uint8Array | null;
}

const floorCents = (x: number): number => Math.floor(x + 1e-6);

function recomputeVol(book: Book, st: ShareState, C: number): void {
  if (st.sw === null) return;
  const n = book.names.length;
  const cov = book.cov as Float64Array;
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) w[i] = st.value[i] / C;
  let q = 0;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += cov[i * n + j] * w[j];
    st.sw[i] = s;
    q += w[i] * s;
  }
  st.q = q;
}

/** Applies a change of `delta` shares of name i, keeping every running sum. */
function applyShares(book: Book, lim: Limits, st: ShareState, i: number, delta: number): void {
  if (delta === 0) return;
  const nm = book.names[i];
  const dv = delta * nm.entryCents;
  const before = st.value[i];
  st.shares[i] += delta;
  st.value[i] += dv;
  st.spent += dv;
  st.riskSum += delta * nm.riskCents;
  const s = book.sectorOf[i];
  if (s >= 0) st.sectorSum[s] += dv;
  if (Number.isFinite(lim.turnoverAbsCap)) {
    st.turnoverAbs += Math.abs(st.value[i] - lim.priorValue[i]) - Math.abs(before - lim.priorValue[i]);
  }
  if (st.sw !== null) {
    const n = book.names.length;
    const cov = book.cov as Float64Array;
    const dw = dv / lim.C;
    for (let j = 0; j < n; j++) st.sw[j] += cov[j * n + i] * dw;
    let q = 0;
    for (let j = 0; j < n; j++) q += (st.value[j] / lim.C) * st.sw[j];
    st.q = q;
  }
}

/** w'Sw after adding k shares of name i (from the running S w). */
function qAfter(book: Book, lim: Limits, st: ShareState, i: number, k: number): number {
  const n = book.names.length;
  const a = (k * book.names[i].entryCents) / lim.C;
  return st.q + 2 * a * (st.sw as Float64Array)[i] + a * a * (book.cov as Float64Array)[i * n + i];
}

/**
 * How many more shares of name i every constraint allows, and (when none) which constraints block it.
 */
function allowance(book: Book, lim: Limits, st: ShareState, i: number): { k: number; blockers: string[] } {
  const nm = book.names[i];
  const e = nm.entryCents;
  const blockers: string[] = [];
  const limits: Array<[number, string]> = [];
  if (lim.closed !== null && lim.closed[i] === 1) limits.push([0, 'max_positions']);
  limits.push([Math.floor((lim.C - st.spent) / e), 'cash']);
  limits.push([Math.floor((lim.nameLimit[i] - st.value[i]) / e), lim.nameLimitLabel[i]]);
  limits.push([lim.maxSharesTrade[i] - st.shares[i], 'max_risk_per_trade']);
  if (Number.isFinite(lim.kellyLimit[i])) limits.push([Math.floor((lim.kellyLimit[i] - st.value[i]) / e), 'KELLY_CRITERION']);
  const s = book.sectorOf[i];
  if (s >= 0) limits.push([Math.floor((lim.sectorLimit[s] - st.sectorSum[s]) / e), `sector_caps.${book.sectorLabels[s]}`]);
  limits.push([Math.floor((lim.riskLimit - st.riskSum) / nm.riskCents), 'max_portfolio_risk']);
  if (Number.isFinite(lim.turnoverAbsCap)) {
    const D = lim.priorValue[i] - st.value[i];
    const room = Math.max(0, lim.turnoverAbsCap - st.turnoverAbs);
    limits.push([Math.floor(((D > 0 ? 2 * D : 0) + room) / e), 'max_portfolio_turnover_annual']);
  }
  let k = Infinity;
  for (const [v] of limits) k = Math.min(k, v);
  if (st.sw !== null && Number.isFinite(lim.volQ)) {
    let kv = volAllowance(book, lim, st, i, Number.isFinite(k) && k > 0 ? k : 1);
    if (!(kv >= 0)) kv = 0;
    limits.push([kv, 'vol_target_annual']);
    k = Math.min(k, kv);
  }
  k = Math.max(0, k);
  if (k === 0) for (const [v, label] of limits) if (v <= 0) blockers.push(label);
  return { k, blockers };
}

/** Largest k <= upTo with w'Sw after k more shares of i within the vol target. */
function volAllowance(book: Book, lim: Limits, st: ShareState, i: number, upTo: number): number {
  if (st.q > lim.volQ) return 0;
  const n = book.names.length;
  const a = book.names[i].entryCents / lim.C;
  const sii = (book.cov as Float64Array)[i * n + i];
  const b = (st.sw as Float64Array)[i];
  const room = lim.volQ - st.q;
  let kmax: number;
  if (sii > 0) {
    // a^2 sii k^2 + 2 a b k - room <= 0
    const disc = b * b + sii * room;
    kmax = disc < 0 ? 0 : (-b + Math.sqrt(disc)) / (a * sii);
  } else {
    kmax = b > 0 ? room / (2 * a * b) : Infinity;
  }
  let kv = Math.min(upTo, Math.floor(kmax));
  if (!(kv >= 0)) kv = 0;
  while (kv > 0 && qAfter(book, lim, st, i, kv) > lim.volQ) kv--;
  return kv;
}

/** Lowers shares until every hard cap holds in cents (rounding can overshoot by a share). */
function trimShares(book: Book, lim: Limits, st: ShareState): void {
  const n = book.names.length;
  for (let i = 0; i < n; i++) {
    const e = book.names[i].entryCents;
    const maxShares = Math.min(
      Math.floor(lim.nameLimit[i] / e),
      lim.maxSharesTrade[i],
      Number.isFinite(lim.kellyLimit[i]) ? Math.floor(lim.kellyLimit[i] / e) : Infinity,
    );
    if (st.shares[i] > maxShares) applyShares(book, lim, st, i, Math.max(0, maxShares) - st.shares[i]);
  }
  // Sector, capital and total risk: take from the lowest-ranked holders first.
  const trim = (member: (i: number) => boolean, excess: () => number, perShare: (i: number) => number): void => {
    for (let i = n - 1; i >= 0 && excess() > 0; i--) {
      if (!member(i) || st.shares[i] === 0) continue;
      const cut = Math.min(st.shares[i], Math.ceil(excess() / perShare(i)));
      applyShares(book, lim, st, i, -cut);
    }
  };
  for (let s = 0; s < book.sectorLabels.length; s++) {
    trim(
      (i) => book.sectorOf[i] === s,
      () => st.sectorSum[s] - lim.sectorLimit[s],
      (i) => book.names[i].entryCents,
    );
  }
  trim(
    () => true,
    () => st.spent - lim.C,
    (i) => book.names[i].entryCents,
  );
  trim(
    () => true,
    () => st.riskSum - lim.riskLimit,
    (i) => book.names[i].riskCents,
  );
  if (st.sw !== null && Number.isFinite(lim.volQ)) {
    recomputeVol(book, st, lim.C);
    // Take shares from the name whose share adds the most variance: as many as bring w'Sw within the
    // target, or (when this name alone cannot) as many as still lower it; then choose again.
    const cov = book.cov as Float64Array;
    while (st.q > lim.volQ) {
      let best = -1;
      let bestGain = 0;
      for (let i = 0; i < n; i++) {
        if (st.shares[i] === 0) continue;
        const gain = st.sw[i] * book.names[i].entryCents;
        if (gain > bestGain) {
          bestGain = gain;
          best = i;
        }
      }
      if (best < 0) break;
      // Removing m shares: w'Sw - 2 a b m + a^2 sii m^2 with a = entry / C, b = (S w)_best.
      const a = book.names[best].entryCents / lim.C;
      const b = st.sw[best];
      const sii = cov[best * n + best];
      const excess = st.q - lim.volQ;
      const disc = b * b - sii * excess;
      let m = disc >= 0 ? Math.ceil(excess / (a * (b + Math.sqrt(disc)))) : sii > 0 ? Math.floor(b / (a * sii)) : st.shares[best];
      if (!(m >= 1)) m = 1;
      m = Math.min(m, st.shares[best]);
      while (m > 1 && qAfter(book, lim, st, best, -(m - 1)) <= lim.volQ) m--;
      applyShares(book, lim, st, best, -m);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Money

/** Integer cents as currency units: the double nearest the 2-decimal value (-0 never escapes). */

/** A price as whole cents in currency units (null when absent or not finite). */
function centsPrice(x: number | null): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? fromCents(toCents(x)) : null;
}

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/** The snapshot fields a row repeats, copied key by key (nothing else of the row object leaks). */
function rowFields(r: SnapshotRowFields): SnapshotRowFields {
  return {
    stage: r.stage,
    stage_strength: r.stage_strength,
    entry_date: r.entry_date,
    signal: r.signal,
    signal_confidence: r.signal_confidence,
    signal_reason: r.signal_reason,
    bb_width: r.bb_width,
    atr: r.atr,
    atr_percent: r.atr_percent,
    volatility_trend: r.volatility_trend,
    is_high_volatility: r.is_high_volatility,
    volatility_stop_loss_levels: r.volatility_stop_loss_levels,
    historical_volatility: r.historical_volatility,
    support_levels: r.support_levels,
    resistance_levels: r.resistance_levels,
  };
}

// ---------------------------------------------------------------------------------------------------
// optimize

function emptyResult(
  totalCents: number,
  eff: RiskSettings,
  caps: Caps,
  input: OptimizeInput,
  notes: string[],
  eligible: number,
  ranked: number,
): OptimizeResult {
  const pack = input.constraint_pack;
  const softmax = SOFTMAX_STRATEGIES.has(eff.allocation_strategy);
  return {
    allocations: [],
    allocated_capital: 0,
    remaining_capital: fromCents(totalCents),
    diagnostics: {
      schema_version: DIAGNOSTICS_SCHEMA_VERSION,
      max_position_size_effective: caps.nameCap,
      max_position_size_from_risk_settings: eff.max_position_size,
      constraint_pack_default_sector_cap: caps.defaultSectorCap,
      vol_target_annual: pack?.vol_target_annual ?? null,
      max_portfolio_turnover_annual: pack?.max_portfolio_turnover_annual ?? null,
      softmax_temperature_base: softmax ? eff.softmax_temperature : null,
      softmax_temperature_effective: softmax ? eff.softmax_temperature : null,
      binding_notes: notes,
    },
    metrics: {
      eligible_count: eligible,
      ranked_count: ranked,
      total_risk_amount: 0,
      total_risk_fraction: 0,
      expected_volatility_annual: null,
      covariance_shrinkage: null,
      turnover: null,
      target_gross_weight: 0,
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// The steps of optimize (header numbering)

/** The first notes: NO_CONSTRAINT_PACK_NOTE when the request has no constraint pack. */
function packNotes(pack: OptimizeInput['constraint_pack']): string[] {
  return pack === null || pack === undefined ? [NO_CONSTRAINT_PACK_NOTE] : [];
}

/** Step 1: the softmax temperature a softmax strategy starts from (null for the others), with a note when the settings' one is unusable. */
function baseTemperatureOf(eff: RiskSettings): { base: number | null; notes: string[] } {
  if (!SOFTMAX_STRATEGIES.has(eff.allocation_strategy)) return { base: null, notes: [] };
  const t = eff.softmax_temperature;
  if (typeof t === 'number' && Number.isFinite(t) && t > 0) return { base: t, notes: [] };
  return {
    base: DEFAULT_SOFTMAX_TEMPERATURE,
    notes: [`softmax_temperature: ${String(t)} is not a positive number; ${DEFAULT_SOFTMAX_TEMPERATURE} used`],
  };
}

/** Step 1, KELLY_CRITERION: whether the ranked names' Kelly fractions are scaled to 1 or leave cash. */
function kellySumNotes(p: Plan): string[] {
  if (p.eff.allocation_strategy !== 'KELLY_CRITERION' || p.ranking.ranked.length === 0) return [];
  let sum = 0;
  for (let i = 0; i < p.ranking.ranked.length; i++) sum += p.names[i].key;
  if (sum > 1 + EPS) return [`KELLY_CRITERION: Kelly fractions of the ranked names sum to ${f4(sum)}; scaled to sum to 1`];
  if (sum < 1 - 1e-9) return [`KELLY_CRITERION: Kelly fractions of the ranked names sum to ${f4(sum)}; the other ${f4(1 - sum)} stays cash`];
  return [];
}

/**
 * Step 2 (and 4, 5) inputs: the book's names with their hard caps, the capped sectors present in the
 * book (a note for each sector cap no name uses), the covariance when a vol target is set, and the
 * prior weights.
 */
function bookOf(
  p: Plan,
  pack: OptimizeInput['constraint_pack'],
  closes: ReadonlyMap<string, CloseSeries>,
): { book: Book; measured: Measured; notes: string[] } {
  const notes: string[] = [];
  const names = p.names;
  const n = names.length;
  const k = p.ranking.ranked.length;
  const hardCap = new Float64Array(n);
  const hardCapBy: NameCapLabel[] = [];
  for (let i = 0; i < n; i++) {
    const { cap, by } = nameWeightCap(p.caps, names[i].d);
    hardCap[i] = cap;
    hardCapBy.push(by);
  }
  const bookSectors = new Set(names.map((nm) => nm.sector));
  const sectorLabels: string[] = [];
  const sectorCap: number[] = [];
  for (const { label, cap } of sectorCapsOf(pack)) {
    if (!bookSectors.has(label)) {
      if (k > 0) notes.push(`sector_caps.${label}: no name in the book has this sector label; cap unused`);
      continue;
    }
    sectorLabels.push(label);
    sectorCap.push(cap);
  }
  const sectorIndex = new Map(sectorLabels.map((s, i) => [s, i]));
  const sectorOf = new Int32Array(n);
  for (let i = 0; i < n; i++) sectorOf[i] = sectorIndex.get(names[i].sector) ?? -1;

  const volTargetRaw = pack?.vol_target_annual;
  const volTarget = typeof volTargetRaw === 'number' && Number.isFinite(volTargetRaw) ? Math.max(0, volTargetRaw) : null;
  const measured: Measured = volTarget !== null ? measure(names, closes) : { cov: null, shrinkage: null, reason: null };

  const prior = new Float64Array(n);
  if (p.prior !== null) for (let i = 0; i < n; i++) prior[i] = p.prior.get(names[i].symbol) ?? 0;

  const book: Book = {
    strategy: p.eff.allocation_strategy,
    names,
    k,
    maxPortfolioRisk: p.caps.maxPortfolioRisk,
    hardCap,
    hardCapBy,
    sectorLabels,
    sectorCap,
    sectorOf,
    cov: measured.cov,
    volTarget,
    prior: p.prior !== null ? prior : null,
    forcedSales: p.forcedSales,
  };
  return { book, measured, notes };
}

/**
 * Steps 1-4: the ranked names' target weights within the caps and the total risk, then the vol target:
 * a softmax strategy first raises its temperature (bisection), then every weight is scaled down.
 */
function targetWithinVol(book: Book, measured: Measured, baseTemperature: number | null): { w: Float64Array; temperature: number; notes: string[] } {
  const k = book.k;
  const volTarget = book.volTarget;
  let temperature = baseTemperature ?? 1;
  let target = targetWeights(book, temperature);
  const volNotes: string[] = [];
  if (volTarget !== null && k > 0) {
    if (measured.cov === null) {
      if (measured.reason !== null) volNotes.push(`vol_target_annual: volatility unmeasurable (${measured.reason}); target not applied`);
    } else {
      const sigma0 = vol(book, padded(book, target.w));
      let sigma = sigma0;
      if (sigma0 > volTarget * (1 + VOL_TOLERANCE)) {
        if (baseTemperature !== null) {
          const tMax = baseTemperature * MAX_TEMPERATURE_RAISE_FACTOR;
          const atMax = targetWeights(book, tMax);
          const sigmaMax = vol(book, padded(book, atMax.w));
          if (sigmaMax <= volTarget * (1 + VOL_TOLERANCE)) {
            let lo = baseTemperature;
            let hi = tMax;
            let best = atMax;
            for (let step = 0; step < TEMPERATURE_BISECTION_STEPS; step++) {
              const mid = (lo + hi) / 2;
              const tw = targetWeights(book, mid);
              if (vol(book, padded(book, tw.w)) <= volTarget * (1 + VOL_TOLERANCE)) {
                hi = mid;
                best = tw;
              } else lo = mid;
            }
            temperature = hi;
            target = best;
            sigma = vol(book, padded(book, target.w));
            volNotes.push(
              `vol_target_annual: softmax temperature raised from ${f4(baseTemperature)} to ${f4(temperature)} ` +
                `(vol ${f4(sigma0)} -> ${f4(sigma)}, target ${f4(volTarget)})`,
            );
          } else if (sigmaMax < sigma0) {
            temperature = tMax;
            target = atMax;
            sigma = sigmaMax;
            volNotes.push(
              `vol_target_annual: softmax temperature raised from ${f4(baseTemperature)} to the maximum ${f4(tMax)} ` +
                `(vol ${f4(sigma0)} -> ${f4(sigma)}, still above target ${f4(volTarget)})`,
            );
          } else {
            volNotes.push(
              `vol_target_annual: raising the softmax temperature to ${f4(tMax)} does not lower vol ` +
                `(${f4(sigmaMax)} vs ${f4(sigma0)}); temperature kept at ${f4(baseTemperature)}`,
            );
          }
        }
        if (sigma > volTarget * (1 + VOL_TOLERANCE)) {
          const scale = sigma > 0 ? volTarget / sigma : 0;
          for (let i = 0; i < k; i++) target.w[i] *= scale;
          volNotes.push(
            `vol_target_annual: gross exposure scaled by ${f4(scale)} (vol ${f4(sigma)} -> ${f4(volTarget)}, target ${f4(volTarget)})`,
          );
        }
      }
    }
  }
  return { w: target.w, temperature, notes: [...target.notes, ...volNotes] };
}

/** Step 5: the book's weights (ranked targets, then prior names) after the turnover cap and max_positions. */
function turnoverStep(book: Book, target: Float64Array, p: Plan): { w: Float64Array; closed: Uint8Array | null; notes: string[] } {
  const notes: string[] = [];
  const w = new Float64Array(book.names.length);
  w.set(target);
  if (p.turnoverCap !== null && p.prior === null) {
    notes.push('max_portfolio_turnover_annual: no prior book, so turnover is not limited on a first optimize');
  }
  if (p.prior !== null && p.turnoverCap === null) {
    notes.push('prior_book_weights: ignored for sizing because the constraint pack sets no max_portfolio_turnover_annual');
  }
  let closed: Uint8Array | null = null;
  if (p.blending) {
    const blend = capTurnover(book, w, p);
    notes.push(...blend.notes);
    closed = blend.closed;
  }
  return { w, closed, notes };
}

/**
 * Step 6: whole shares of the weights `w` in `C` cents of capital: rounded, trimmed back within every
 * hard cap, then leftover cash spent in passes over the ranked names; with the note on what is left.
 */
function wholeShares(book: Book, p: Plan, C: number, w: Float64Array, closed: Uint8Array | null): { st: ShareState; leftoverNote: string } {
  const names = book.names;
  const n = names.length;
  const k = book.k;
  const prior = book.prior ?? new Float64Array(n);
  const kellyOn = book.strategy === 'KELLY_CRITERION';
  const lim: Limits = {
    C,
    nameLimit: names.map(() => floorCents(p.caps.nameCap * C)),
    nameLimitLabel: names.map(() => p.caps.nameCapLabel),
    maxSharesTrade: names.map((nm) => Math.floor(floorCents(p.caps.maxRiskPerTrade * C) / nm.riskCents)),
    kellyLimit: names.map((nm, i) => (kellyOn && i < k ? floorCents(nm.kelly * C) : Infinity)),
    sectorLimit: book.sectorCap.map((c) => floorCents(c * C)),
    riskLimit: floorCents(book.maxPortfolioRisk * C),
    volQ:
      book.volTarget !== null && book.cov !== null
        ? (book.volTarget * (1 + VOL_TOLERANCE)) ** 2 / TRADING_DAYS_PER_YEAR
        : Infinity,
    turnoverAbsCap: p.blending ? 2 * (p.turnoverCap as number) * C * (1 + 1e-9) + 1e-6 : Infinity,
    priorValue: names.map((_, i) => prior[i] * C),
    closed,
  };
  const st: ShareState = {
    shares: new Array<number>(n).fill(0),
    value: new Array<number>(n).fill(0),
    spent: 0,
    riskSum: 0,
    sectorSum: new Array<number>(book.sectorLabels.length).fill(0),
    sw: lim.volQ < Infinity ? new Float64Array(n) : null,
    q: 0,
    turnoverAbs: p.blending ? p.forcedSales * C + lim.priorValue.reduce((a, b) => a + b, 0) : 0,
  };
  for (let i = 0; i < n; i++) {
    const e = names[i].entryCents;
    const x = (w[i] * C) / e;
    // Relative slack too (at most 0.001 share): a weight a hair below a whole share (e.g. a cap shared
    // with a name whose softmax weight is ~1e-13 of it) still buys that share; trimShares restores caps.
    let s = Math.floor(x + Math.min(1e-3, Math.max(1e-9, x * EPS)));
    if (p.blending && w[i] < prior[i]) s = Math.min(Math.ceil(x - 1e-9), Math.floor((prior[i] * C) / e + 1e-9));
    if (s > 0) {
      // Without the vol update per share: S w is recomputed once below.
      const sw = st.sw;
      st.sw = null;
      applyShares(book, lim, st, i, s);
      st.sw = sw;
    }
  }
  recomputeVol(book, st, C);
  trimShares(book, lim, st);

  // Passes until one buys nothing; S w is then recomputed exactly (the running sums drift) and, if
  // that frees room, spending resumes, so the leftover note below reads the state the spend ended on.
  let passes = 0;
  let settled = false;
  while (!settled && passes < MAX_GREEDY_PASSES) {
    for (; passes < MAX_GREEDY_PASSES; ) {
      passes++;
      let boughtThisPass = false;
      for (let i = 0; i < k; i++) {
        const { k: more } = allowance(book, lim, st, i);
        if (more > 0) {
          applyShares(book, lim, st, i, more);
          boughtThisPass = true;
        }
      }
      if (!boughtThisPass) break;
    }
    recomputeVol(book, st, C);
    settled = !names.slice(0, k).some((_, i) => allowance(book, lim, st, i).k > 0);
  }
  return { st, leftoverNote: leftoverNote(book, lim, st) };
}

/** Step 6's last note: why the remaining cash was not spent. */
function leftoverNote(book: Book, lim: Limits, st: ShareState): string {
  const names = book.names;
  const k = book.k;
  const leftover = lim.C - st.spent;
  if (k === 0) return `remaining_capital: ${money(leftover)} uninvested because no name is ranked`;
  const blockers = new Set<string>();
  let affordable = 0;
  let canBuy = 0;
  for (let i = 0; i < k; i++) {
    if (names[i].entryCents > leftover) continue;
    affordable++;
    const a = allowance(book, lim, st, i);
    if (a.k > 0) canBuy++;
    for (const b of a.blockers) if (b !== 'cash') blockers.add(b);
  }
  if (affordable === 0) return `remaining_capital: ${money(leftover)} is less than the price of one more share of any ranked name`;
  if (canBuy > 0 || blockers.size === 0) {
    return (
      `remaining_capital: ${money(leftover)} uninvested because the leftover-cash spend stopped at ` +
      `MAX_GREEDY_PASSES (${MAX_GREEDY_PASSES}) with ${canBuy} ranked names still able to buy`
    );
  }
  return (
    `remaining_capital: ${money(leftover)} held back by ${orderBlockers([...blockers]).join(', ')} ` +
    `(one more share of any affordable ranked name would break them)`
  );
}

/** Step 7: the rows (book order, zero-share names dropped), their total risk in cents, and a note when the book is empty. */
function rowsOf(book: Book, st: ShareState, C: number): { allocations: PortfolioAllocation[]; riskCents: number; notes: string[] } {
  const allocations: PortfolioAllocation[] = [];
  let riskCents = 0;
  for (let i = 0; i < book.names.length; i++) {
    const shares = st.shares[i];
    if (shares <= 0) continue;
    const nm = book.names[i];
    const c = nm.cand;
    const valueCents = shares * nm.entryCents;
    const rowRiskCents = shares * nm.riskCents;
    riskCents += rowRiskCents;
    allocations.push({
      symbol: nm.symbol,
      shares,
      position_type: 'LONG',
      entry_price: fromCents(nm.entryCents),
      position_value: fromCents(valueCents),
      risk_amount: fromCents(rowRiskCents),
      percent_of_account: round6(valueCents / C),
      stop_loss: fromCents(nm.stopCents),
      target_price: centsPrice(c.target_price),
      risk_reward_ratio: c.risk_reward_ratio,
      confidence: c.confidence,
      ...rowFields(c.row),
    });
  }
  const notes = allocations.length === 0 && book.k > 0 ? ['book: empty; no ranked name could buy a whole share within the constraints'] : [];
  return { allocations, riskCents, notes };
}

/**
 * Step 8 (metrics): one-way turnover of the whole-share book against the prior book (null without one),
 * with a note when blending and it is above the cap without an earlier turnover note in `notes`.
 */
function bookTurnover(book: Book, p: Plan, st: ShareState, C: number, notes: readonly string[]): { turnover: number | null; notes: string[] } {
  if (p.prior === null) return { turnover: null, notes: [] };
  const names = book.names;
  const n = names.length;
  const inBook = new Set<string>();
  let sum = 0;
  for (let i = 0; i < n; i++) {
    inBook.add(names[i].symbol);
    sum += Math.abs(st.value[i] / C - (p.prior.get(names[i].symbol) ?? 0));
  }
  for (const [symbol, pw] of p.prior) if (!inBook.has(symbol)) sum += pw;
  const turnover = sum / 2;
  const cap = p.turnoverCap as number;
  if (!(p.blending && turnover > cap + 1e-9 && !notes.some((s) => s.startsWith('max_portfolio_turnover_annual: turnover')))) {
    return { turnover, notes: [] };
  }
  // One share of a name is entry / (2 C) of one-way turnover: rounding explains at most that per name.
  let oneShareEach = 0;
  for (let i = 0; i < n; i++) oneShareEach += names[i].entryCents / (2 * C);
  return {
    turnover,
    notes: [
      turnover - cap <= oneShareEach + 1e-9
        ? `max_portfolio_turnover_annual: whole-share rounding leaves turnover at ${f4(turnover)} (cap ${f4(cap)})`
        : `max_portfolio_turnover_annual: turnover ${f4(turnover)} exceeds cap ${f4(cap)} because the whole-share caps bind`,
    ],
  };
}

interface Outcome {
  book: Book;
  st: ShareState;
  C: number;
  allocations: PortfolioAllocation[];
  riskCents: number;
  shrinkage: number | null;
  turnover: number | null;
  targetGross: number;
  baseTemperature: number | null;
  temperature: number;
  notes: string[];
}

/** Step 8: the response: rows, capital, metrics and diagnostics. */
function resultOf(p: Plan, pack: OptimizeInput['constraint_pack'], o: Outcome): OptimizeResult {
  const { book, st, C } = o;
  let expectedVol: number | null = null;
  if (book.cov !== null) {
    const wf = new Float64Array(book.names.length);
    for (let i = 0; i < book.names.length; i++) wf[i] = st.value[i] / C;
    expectedVol = vol(book, wf);
  }
  const metrics: BookMetrics = {
    eligible_count: p.ranking.eligible,
    ranked_count: book.k,
    total_risk_amount: fromCents(o.riskCents),
    total_risk_fraction: o.riskCents / C,
    expected_volatility_annual: expectedVol,
    covariance_shrinkage: o.shrinkage,
    turnover: o.turnover,
    target_gross_weight: o.targetGross,
  };
  const softmax = SOFTMAX_STRATEGIES.has(p.eff.allocation_strategy);
  const diagnostics: OptimizerDiagnostics = {
    schema_version: DIAGNOSTICS_SCHEMA_VERSION,
    max_position_size_effective: p.caps.nameCap,
    max_position_size_from_risk_settings: p.eff.max_position_size,
    constraint_pack_default_sector_cap: p.caps.defaultSectorCap,
    vol_target_annual: pack?.vol_target_annual ?? null,
    max_portfolio_turnover_annual: pack?.max_portfolio_turnover_annual ?? null,
    softmax_temperature_base: softmax ? o.baseTemperature : null,
    softmax_temperature_effective: softmax ? o.temperature : null,
    binding_notes: o.notes,
  };
  return { allocations: o.allocations, allocated_capital: fromCents(st.spent), remaining_capital: fromCents(C - st.spent), diagnostics, metrics };
}

function sum(w: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i];
  return s;
}

/** Builds the whole-share book (see the module comment for every rule): the header's steps in order. */
export function optimize(input: OptimizeInput): OptimizeResult {
  const p = plan(input);
  const pack = input.constraint_pack;
  const C = toCents(finite(input.total_capital, 0));
  if (!(C >= 1)) {
    const notes = [...packNotes(pack), 'total_capital: not a positive amount, so the book is empty'];
    return emptyResult(Number.isFinite(C) ? C : 0, p.eff, p.caps, input, notes, p.ranking.eligible, 0);
  }
  const temperature = baseTemperatureOf(p.eff); // 1. ranking (in plan) and strategy settings
  const { book, measured, notes: sectorNotes } = bookOf(p, pack, input.closes); // 2. caps of the book's names and sectors
  const target = targetWithinVol(book, measured, temperature.base); // 1-4. target weights, caps, total risk, vol target
  const turnover = turnoverStep(book, target.w, p); // 5. turnover and max_positions over a prior book
  const shares = wholeShares(book, p, C, turnover.w, turnover.closed); // 6. whole shares and leftover cash
  const rows = rowsOf(book, shares.st, C); // 7. rows
  const notes = [
    ...packNotes(pack),
    ...temperature.notes,
    ...p.ranking.notes,
    ...kellySumNotes(p),
    ...sectorNotes,
    ...target.notes,
    ...turnover.notes,
    shares.leftoverNote,
    ...rows.notes,
  ];
  const held = bookTurnover(book, p, shares.st, C, notes); // 8. metrics and diagnostics
  return resultOf(p, pack, {
    book,
    st: shares.st,
    C,
    allocations: rows.allocations,
    riskCents: rows.riskCents,
    shrinkage: measured.shrinkage,
    turnover: held.turnover,
    targetGross: sum(turnover.w),
    baseTemperature: temperature.base,
    temperature: target.temperature,
    notes: [...notes, ...held.notes],
  });
}

const BLOCKER_ORDER = [
  'max_positions',
  'max_position_size',
  'sector_caps.DEFAULT',
  'max_risk_per_trade',
  'sector_caps.',
  'max_portfolio_risk',
  'vol_target_annual',
  'max_portfolio_turnover_annual',
  'KELLY_CRITERION',
];

function orderBlockers(blockers: string[]): string[] {
  const rank = (b: string): number => {
    const exact = BLOCKER_ORDER.indexOf(b);
    if (exact >= 0) return exact;
    return b.startsWith('sector_caps.') ? BLOCKER_ORDER.indexOf('sector_caps.') : BLOCKER_ORDER.length;
  };
  return blockers.sort((a, b) => rank(a) - rank(b) || bySymbol(a, b));
}
