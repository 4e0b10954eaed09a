/**
 * The prior book (optimizer.ts header, step 5): which prior names join the book and which are sold,
 * max_positions over the prior names, the turnover cap by blending toward the prior book, and the hard
 * caps on the blend. Pure.
 */
import { type Book, bySymbol, f4, listSymbols, type Name, nameOf, type Plan, type Prices, pricesOf, type Ranking } from './book-model.js';
import { enforceHardCaps } from './water-filling.js';
import type { Candidate, OptimizeInput } from './types.js';

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
 * max_positions over the prior book (optimizer.ts header, step 5): the prior names that can be kept (`unranked`, the
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

/**
 * The book's names and what the prior book sells (optimizer.ts header, step 5): the ranked names, then,
 * when a turnover cap makes the prior book count, its names with a candidate and usable prices that
 * max_positions leaves room for (symbol order); the others are sold.
 */
export function priorBookOf(
  ranking: Ranking,
  priorWeights: OptimizeInput['prior_book_weights'],
  turnoverCap: number | null,
): Omit<Plan, 'eff' | 'caps' | 'ranking'> {
  const names = ranking.ranked.slice();
  const prior = sanitizedPrior(priorWeights);
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
  return { names, prior, blending, sold, soldForLimit, heldBeforeLimit, forcedSales, noCandidateSales, turnoverCap };
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
 * most maxPositions names (optimizer.ts header, step 5). `w` holds the target weights and is changed in place: a
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

/** Step 5: the book's weights (ranked targets, then prior names) after the turnover cap and max_positions. */
export function turnoverStep(book: Book, target: Float64Array, p: Plan): { w: Float64Array; closed: Uint8Array | null; notes: string[] } {
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
