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
 *
 * Where the steps live: this file plans a request and runs the steps in order (`optimize`); the caps are
 * read from the settings and pack by constraints.ts; strategies.ts ranks and weights (step 1), water-filling.ts
 * water-fills under the caps and total risk (2-3), vol-target.ts measures the covariance and applies the
 * vol target (4), turnover.ts handles the prior book (5), whole-shares.ts rounds to shares and spends the
 * leftover cash (6), result.ts writes rows, metrics and diagnostics (7-8); book-model.ts holds the types
 * and formatting they share.
 */
import type { Plan } from './book-model.js';
import { bookOf } from './water-filling.js';
import { capsOf, finite, turnoverCapOf, volTargetOf } from './constraints.js';
import { toCents } from './money.js';
import { bookTurnover, emptyResult, resultOf, rowsOf } from './result.js';
import { baseTemperatureOf, effectiveRiskSettings, kellySumNotes, rankUniverse } from './strategies.js';
import { priorBookOf, turnoverStep } from './turnover.js';
import { DEFAULT_RISK_SETTINGS, type RiskSettings } from './risk-settings.js';
import type { ConstraintPack, OptimizeInput, OptimizeResult } from './types.js';
import { measureFor, targetWithinVol } from './vol-target.js';
import { wholeShares } from './whole-shares.js';

export { DEFAULT_SOFTMAX_TEMPERATURE, DEFAULT_STAGE_WEIGHTS, effectiveRiskSettings, hybridBlend } from './strategies.js';
export { MAX_TEMPERATURE_RAISE_FACTOR } from './vol-target.js';

/** The first binding note when the request has no constraint pack. */
/**
 * A stored book's settings as they apply now: its stored `effective_settings` document
 * ({risk_settings, constraint_pack, ...}, as optimize, create and rebalance write it) with every default
 * filled (DEFAULT_RISK_SETTINGS, then effectiveRiskSettings), and its constraint pack (null: none). Hunt,
 * cash hunt, the book and rebalance all read a book's settings through this one function.
 */
export function storedBookSettings(effectiveSettings: unknown): { risk_settings: RiskSettings; constraint_pack: ConstraintPack | null } {
  const stored = (effectiveSettings !== null && typeof effectiveSettings === 'object' ? effectiveSettings : {}) as {
    risk_settings?: Partial<RiskSettings> | null;
    constraint_pack?: ConstraintPack | null;
  };
  return {
    risk_settings: effectiveRiskSettings({ ...DEFAULT_RISK_SETTINGS, ...(stored.risk_settings ?? {}) } as RiskSettings),
    constraint_pack: stored.constraint_pack ?? null,
  };
}

export const NO_CONSTRAINT_PACK_NOTE = 'constraint_pack: none supplied, so only risk_settings were used';

/** Step 1 and the book's names: the effective settings, the caps, the ranking and the prior book (step 5). */
function plan(input: Omit<OptimizeInput, 'closes'>): Plan {
  const eff = effectiveRiskSettings(input.risk_settings);
  const caps = capsOf(eff, input.constraint_pack);
  const ranking = rankUniverse(input.candidates, eff, caps.maxPositions);
  return { eff, caps, ranking, ...priorBookOf(ranking, input.prior_book_weights, turnoverCapOf(input.constraint_pack)) };
}

/**
 * The symbols whose daily closes optimize() needs. Only a vol target reads closes, so without one: none.
 * With one: the ranked names (rank order), then, when a turnover cap makes the prior book count, the
 * prior names that can be kept within max_positions (symbol order). Cheap: one scoring pass and a sort.
 */
export function symbolsNeedingCloses(input: Omit<OptimizeInput, 'closes'>): string[] {
  if (volTargetOf(input.constraint_pack) === null) return [];
  return plan(input).names.map((n) => n.symbol);
}

/** The first notes: NO_CONSTRAINT_PACK_NOTE when the request has no constraint pack. */
function packNotes(pack: OptimizeInput['constraint_pack']): string[] {
  return pack === null || pack === undefined ? [NO_CONSTRAINT_PACK_NOTE] : [];
}

function sumOf(w: ArrayLike<number>): number {
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
  const measured = measureFor(p.names, input.closes, volTargetOf(pack)); // 4. covariance, when a vol target is set
  const { book, notes: sectorNotes } = bookOf(p, pack, measured.cov); // 2. caps of the book's names and sectors
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
  const held = bookTurnover(book, p, shares.st, C, notes); // 5. one-way turnover of the whole-share book against the prior book (a metric)
  return resultOf(p, pack, {
    book,
    st: shares.st,
    C,
    allocations: rows.allocations,
    riskCents: rows.riskCents,
    shrinkage: measured.shrinkage,
    turnover: held.turnover,
    targetGross: sumOf(turnover.w),
    baseTemperature: temperature.base,
    temperature: target.temperature,
    notes: [...notes, ...held.notes],
  });
}
