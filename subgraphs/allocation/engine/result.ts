/**
 * The optimizer's response (optimizer.ts header, steps 7-8): allocation rows in cents, the turnover
 * metric, metrics and diagnostics, and the empty result when capital is below one cent. Pure.
 */
import { type Book, f4, type Plan, vol } from './book-model.js';
import { turnoverCapOf, volTargetOf, type Caps } from './constraints.js';
import { fromCents, toCents } from './money.js';
import type { RiskSettings } from './risk-settings.js';
import { SOFTMAX_STRATEGIES } from './strategies.js';
import { type BookMetrics, DIAGNOSTICS_SCHEMA_VERSION, type OptimizeInput, type OptimizerDiagnostics, type OptimizeResult, type PortfolioAllocation, type SnapshotRowFields } from './types.js';
import type { ShareState } from './whole-shares.js';

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

/** Step 7: the rows (book order, zero-share names dropped), their total risk in cents, and a note when the book is empty. */
export function rowsOf(book: Book, st: ShareState, C: number): { allocations: PortfolioAllocation[]; riskCents: number; notes: string[] } {
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
export function bookTurnover(book: Book, p: Plan, st: ShareState, C: number, notes: readonly string[]): { turnover: number | null; notes: string[] } {
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

export interface Outcome {
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
export function resultOf(p: Plan, pack: OptimizeInput['constraint_pack'], o: Outcome): OptimizeResult {
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
  const diagnostics = diagnosticsOf(p.eff, p.caps, pack, { base: o.baseTemperature, effective: o.temperature }, o.notes);
  return { allocations: o.allocations, allocated_capital: fromCents(st.spent), remaining_capital: fromCents(C - st.spent), diagnostics, metrics };
}

/**
 * spec "OptimizerDiagnosticsV1": the effective caps, the pack's vol target and turnover cap (read by
 * constraints.ts), the softmax temperatures (softmax-style strategies only) and the binding notes.
 */
function diagnosticsOf(
  eff: RiskSettings,
  caps: Caps,
  pack: OptimizeInput['constraint_pack'],
  temperature: { base: number | null; effective: number | null },
  notes: string[],
): OptimizerDiagnostics {
  const softmax = SOFTMAX_STRATEGIES.has(eff.allocation_strategy);
  return {
    schema_version: DIAGNOSTICS_SCHEMA_VERSION,
    max_position_size_effective: caps.nameCap,
    max_position_size_from_risk_settings: eff.max_position_size,
    constraint_pack_default_sector_cap: caps.defaultSectorCap,
    vol_target_annual: volTargetOf(pack),
    max_portfolio_turnover_annual: turnoverCapOf(pack),
    softmax_temperature_base: softmax ? temperature.base : null,
    softmax_temperature_effective: softmax ? temperature.effective : null,
    binding_notes: notes,
  };
}

/** The result when total capital is below one cent: no rows, the caps echoed, the notes given. */
export function emptyResult(
  totalCents: number,
  eff: RiskSettings,
  caps: Caps,
  input: OptimizeInput,
  notes: string[],
  eligible: number,
  ranked: number,
): OptimizeResult {
  return {
    allocations: [],
    allocated_capital: 0,
    remaining_capital: fromCents(totalCents),
    diagnostics: diagnosticsOf(eff, caps, input.constraint_pack, { base: eff.softmax_temperature, effective: eff.softmax_temperature }, notes),
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
