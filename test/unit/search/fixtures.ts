/**
 * Builders for the opportunity-search engine's unit tests: a stored portfolio (PortfolioView) with
 * holdings, the default risk settings and an optional constraint pack, and a market (MarketView) with
 * candidates, the eligible list in symbol order and a ReturnsIndex built from close series the way the
 * service builds it (buildCalendar through the analysis date, then ReturnsIndex.add per symbol).
 *
 * Candidates come from the allocation fixtures (`candidate(symbol, spec)`); `withRow` adjusts the
 * snapshot fields (signal, pattern signal, volatility) that search reads and the allocation builder fixes.
 */
import { DEFAULT_RISK_SETTINGS, type RiskSettings } from '../../../subgraphs/allocation/engine/risk-settings.js';
import type { Candidate, CloseSeries, ConstraintPack, SnapshotRowFields } from '../../../subgraphs/allocation/engine/types.js';
import { ReturnsIndex, buildCalendar } from '../../../subgraphs/search/engine/returns.js';
import type { Holding, MarketView, PortfolioView } from '../../../subgraphs/search/engine/types.js';
import { candidate, pack, tradingDates, type CandidateSpec } from '../allocation/fixtures.js';

export { candidate, closeSeries, pack, tradingDates } from '../allocation/fixtures.js';
export type { CandidateSpec } from '../allocation/fixtures.js';

/** The allocation fixtures' default snapshot date: the newest analysis date of these markets. */
export const ANALYSIS_DATE = '2024-06-28';

export interface HoldingSpec {
  shares?: number;
  entry?: number;
  /** The holding's own stop (null: none; default 90% of the entry). */
  stop?: number | null;
  target?: number | null;
  support?: number | null;
  /** The symbol's latest close in the store (default null: none). */
  lastClose?: number | null;
  /** The sector stored with the position (null: none stored). */
  sector?: string | null;
}

export function holding(symbol: string, spec: HoldingSpec = {}): Holding {
  const entry = spec.entry ?? 100;
  return {
    symbol,
    sector: spec.sector === undefined ? 'Technology' : spec.sector,
    shares: spec.shares ?? 10,
    entry_price: entry,
    last_close: spec.lastClose ?? null,
    stop_loss: spec.stop === undefined ? Math.round(entry * 90) / 100 : spec.stop,
    target_price: spec.target === undefined ? null : spec.target,
    support_at_entry: spec.support === undefined ? null : spec.support,
  };
}

export interface PortfolioSpec {
  cash?: number;
  version?: number;
  analysisDate?: string | null;
  risk?: Partial<RiskSettings>;
  /** A constraint pack (fields over the allocation fixtures' empty pack), or null (the default) for none. */
  pack?: Partial<ConstraintPack> | null;
}

export function portfolio(holdings: readonly Holding[], spec: PortfolioSpec = {}): PortfolioView {
  return {
    id: 'p-1',
    name: 'test book',
    version: spec.version ?? 1,
    available_cash: spec.cash ?? 100_000,
    analysis_date: spec.analysisDate === undefined ? ANALYSIS_DATE : spec.analysisDate,
    risk_settings: { ...DEFAULT_RISK_SETTINGS, ...(spec.risk ?? {}) },
    constraint_pack: spec.pack === undefined || spec.pack === null ? null : pack(spec.pack),
    holdings: holdings.slice(),
  };
}

/** A candidate with some snapshot fields overridden (and, optionally, candidate fields). */
export function withRow(c: Candidate, row: Partial<SnapshotRowFields>, over: Partial<Candidate> = {}): Candidate {
  return { ...c, ...over, row: { ...c.row, ...row } };
}

/** `candidate(symbol, spec)` with the given snapshot fields and candidate fields. */
export function cand(symbol: string, spec: CandidateSpec = {}, row: Partial<SnapshotRowFields> = {}, over: Partial<Candidate> = {}): Candidate {
  return withRow(candidate(symbol, spec), row, over);
}

export interface MarketSpec {
  /** Every symbol's latest candidate (eligible or not). */
  candidates?: readonly Candidate[];
  closes?: ReadonlyMap<string, CloseSeries> | Readonly<Record<string, CloseSeries>>;
  /** The newest analysis date (default ANALYSIS_DATE); the calendar runs through it. */
  analysisDate?: string | null;
  /** The calendar's last date when it differs from the analysis date. */
  through?: string;
  /** The eligible list as given (default: the eligible candidates in symbol order). */
  eligible?: readonly Candidate[];
}

const bySymbol = (a: Candidate, b: Candidate): number => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0);

export function market(spec: MarketSpec = {}): MarketView {
  const candidates = spec.candidates ?? [];
  const lookup = new Map(candidates.map((c) => [c.symbol, c]));
  const closes: Map<string, CloseSeries> =
    spec.closes instanceof Map ? new Map(spec.closes) : new Map(Object.entries((spec.closes ?? {}) as Record<string, CloseSeries>));
  const analysisDate = spec.analysisDate === undefined ? ANALYSIS_DATE : spec.analysisDate;
  const through = spec.through ?? analysisDate;
  const index = new ReturnsIndex(through === null ? [] : buildCalendar(closes.values(), through));
  for (const [symbol, series] of closes) index.add(symbol, series);
  return {
    analysis_date: analysisDate,
    candidate: (symbol) => lookup.get(symbol),
    eligible: spec.eligible ?? candidates.filter((c) => c.eligible).sort(bySymbol),
    returns: index,
  };
}

/** A close series whose daily returns are exactly `returns` (up to float rounding), on weekdays from `start`. */
export function seriesFromReturns(returns: readonly number[], startPrice = 100, start = '2023-01-02'): CloseSeries {
  const dates = tradingDates(returns.length + 1, start);
  const closes = [startPrice];
  for (const r of returns) closes.push(closes[closes.length - 1] * (1 + r));
  return { dates, closes };
}

/** A deterministic pseudo-random return sequence in [-amp, amp] (a small LCG: independent of the analysis PRNG). */
export function noise(n: number, seed: number, amp = 0.02): number[] {
  let s = (seed * 2654435761) >>> 0 || 1;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out.push(((s / 4294967296) * 2 - 1) * amp);
  }
  return out;
}

export { pearson } from '../../reference/statistics.js';

/** sqrt(252 x population variance), NaN counted as 0. */
export function annualVol(x: ArrayLike<number>): number {
  const v = Array.from(x, (r) => (Number.isNaN(r) ? 0 : r));
  const n = v.length;
  const m = v.reduce((a, b) => a + b, 0) / n;
  return Math.sqrt((v.reduce((a, b) => a + (b - m) ** 2, 0) / n) * 252);
}

/** Integer cents. */
export const cents = (x: number): number => Math.round(x * 100);
