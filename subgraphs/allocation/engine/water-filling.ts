/**
 * The optimizer's caps on weights (optimizer.ts header, steps 2-3): the book's hard per-name caps and
 * capped sectors from constraints.ts, water-filling of the strategy weights under them, the total-risk
 * scale, and the hard caps re-applied to any weights (step 5). Pure.
 */
import { type Book, bySymbol, EPS, f4, listSymbols, type Plan, vol, VOL_TOLERANCE } from './book-model.js';
import { type NameCapLabel, nameWeightCap, sectorCapsOf, volTargetOf } from './constraints.js';
import { rawWeights } from './strategies.js';
import type { OptimizeInput } from './types.js';

/**
 * Step 2 (and 4, 5) inputs: the book's names with their hard caps, the capped sectors present in the
 * book (a note for each sector cap no name uses), the covariance `cov` (null without a vol target or
 * when unmeasurable) and the prior weights.
 */
export function bookOf(p: Plan, pack: OptimizeInput['constraint_pack'], cov: Float64Array | null): { book: Book; notes: string[] } {
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
    cov,
    volTarget: volTargetOf(pack),
    prior: p.prior !== null ? prior : null,
    forcedSales: p.forcedSales,
  };
  return { book, notes };
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

export interface Target {
  /** Weights of the ranked names (rank order). */
  w: Float64Array;
  notes: string[];
}

/** Steps 2-3: the ranked names' target weights at `temperature`, water-filled under the caps, then within the total risk. */
export function targetWeights(book: Book, temperature: number): Target {
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

/** Re-applies the hard caps to `w` (in place, only ever lowering weights); returns what bound. */
export function enforceHardCaps(book: Book, w: Float64Array): string[] {
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
