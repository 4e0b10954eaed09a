/**
 * Whole shares (optimizer.ts header, step 6): weights rounded to whole shares in integer cents, trimmed
 * back within every hard cap, leftover cash spent greedily over the ranked names, and the note on the
 * cash that is left. Pure (the share state is local to one call).
 */
import { type Book, bySymbol, EPS, money, type Plan, VOL_TOLERANCE } from './book-model.js';
import type { NameCapLabel } from './constraints.js';
import { TRADING_DAYS_PER_YEAR } from './covariance.js';

/** Upper bound on the leftover-cash passes (each pass that buys nothing ends the spend earlier). */
export const MAX_GREEDY_PASSES = 100;

/** The whole-share book being built: shares and the running sums every limit check reads. */
export interface ShareState {
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

/** Every limit in cents (or shares) of one whole-share pass. */
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

/** S w and w'S w recomputed exactly from the shares held (the running sums drift). */
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

/**
 * Step 6: whole shares of the weights `w` in `C` cents of capital: rounded, trimmed back within every
 * hard cap, then leftover cash spent in passes over the ranked names; with the note on what is left.
 */
export function wholeShares(book: Book, p: Plan, C: number, w: Float64Array, closed: Uint8Array | null): { st: ShareState; leftoverNote: string } {
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
