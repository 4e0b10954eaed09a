/**
 * The allocation optimizer's shared model: a name of the book (a ranked candidate or a kept prior-book
 * name), the ranking, the plan (settings, caps, ranking and prior book of one request) and the book the
 * steps work on, with the slack constants and the number and note formatting every step uses. The
 * rules are in the optimizer.ts header.
 */
import { finite, type Caps, type NameCapLabel } from './constraints.js';
import { quadraticForm, TRADING_DAYS_PER_YEAR } from './covariance.js';
import { toCents } from './money.js';
import type { AllocationStrategy, RiskSettings } from './risk-settings.js';
import type { Candidate } from './types.js';

/** Relative slack on weight comparisons (float noise only). */
export const EPS = 1e-12;

/** Relative slack on the vol target. */
export const VOL_TOLERANCE = 1e-9;

/** x clamped to [0, 1]. */
export function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

/** A weight in a note: 4 decimals, and 0 for anything that would print as -0.0000. */
export const f4 = (x: number): string => (Math.abs(x) < 5e-5 ? 0 : x).toFixed(4);

/** Integer cents in a note as 0.00 currency units. */
export function money(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const a = Math.abs(cents);
  const whole = Math.floor(a / 100);
  const frac = a - whole * 100;
  return `${sign}${whole}.${frac < 10 ? '0' : ''}${frac}`;
}

/** Symbols in a note, the first `max` of them and how many more. */
export function listSymbols(symbols: readonly string[], max = 10): string {
  if (symbols.length <= max) return symbols.join(', ');
  return `${symbols.slice(0, max).join(', ')} and ${symbols.length - max} more`;
}

/** Code-unit order of symbols (and labels): every tie in the optimizer is broken by it. */
export function bySymbol(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A book name: a ranked candidate or a kept prior-book name. */
export interface Name {
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

export interface Prices {
  entryCents: number;
  stopCents: number;
  riskCents: number;
}

export function pricesOf(c: Candidate): Prices | null {
  const entryCents = toCents(finite(c.entry_price, NaN));
  const stopCents = toCents(finite(c.stop_loss, NaN));
  if (!(entryCents >= 1) || !Number.isFinite(stopCents) || !(stopCents < entryCents)) return null;
  return { entryCents, stopCents, riskCents: entryCents - stopCents };
}

/** A candidate with usable prices as a name of the book, with the ranking figures its strategy gave it. */
export function nameOf(c: Candidate, prices: Prices, rank: Pick<Name, 'score' | 'key' | 'kelly'>): Name {
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

/** The strategy's ranking: the ranked names (the first max_positions scored) and its notes. */
export interface Ranking {
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

/** One request, planned: effective settings, caps, ranking and the book's names with the prior book's sales. */
export interface Plan {
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

/** The book the steps work on: its names, their hard caps, the capped sectors, covariance and prior weights. */
export interface Book {
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

/** Annualised volatility of weights `w` over the book's names (the book has a covariance). */
export function vol(book: Book, w: ArrayLike<number>): number {
  return Math.sqrt(Math.max(0, quadraticForm(book.cov as Float64Array, w)) * TRADING_DAYS_PER_YEAR);
}

/** The first n weights padded to the book's size. */
export function padded(book: Book, w: Float64Array): Float64Array {
  if (w.length === book.names.length) return w;
  const out = new Float64Array(book.names.length);
  out.set(w);
  return out;
}
