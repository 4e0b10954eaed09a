/**
 * The caps a portfolio's risk settings and constraint pack set, read in one place. The optimizer sizes
 * a new book with them and opportunity search sizes and checks ideas against a stored book with them,
 * so a change to a cap rule is made here once. Pure: plain data in, plain data out.
 *
 * - Per-name cap = min(max_position_size, sector_caps.DEFAULT when the pack gives it). It is labelled
 *   by the constraint that sets it: `sector_caps.DEFAULT` only when that key is strictly below
 *   max_position_size, otherwise `max_position_size`.
 * - Sector caps: every other `sector_caps` key caps the weight sum of the names whose sector label
 *   equals it exactly (the lookup is by label; `DEFAULT` is never a sector).
 * - Per-trade risk budget max_risk_per_trade: a name's loss at its stop, as a fraction of capital;
 *   with stop distance d = (entry - stop) / entry it caps the name's weight at max_risk_per_trade / d.
 * - Total risk budget max_portfolio_risk: the sum of the names' losses at their stops.
 * - max_positions: the most names a book holds (a whole number, at least 0).
 * - The pack's vol target (vol_target_annual) and one-way turnover cap (max_portfolio_turnover_annual):
 *   null when not set.
 * Fractions are of total capital (or portfolio value). A value that is not a finite number counts as 0
 * (no room), and a cap is never negative; a pack key whose value is not a finite number is ignored.
 * Request validation admits only fractions in 0..1 and max_positions >= 1, where these guards change
 * nothing.
 */
import type { RiskSettings } from './risk-settings.js';
import { DEFAULT_SECTOR_KEY, type ConstraintPack } from './types.js';

/** The constraint that sets a name's weight cap. */
export type NameCapLabel = 'max_position_size' | 'sector_caps.DEFAULT' | 'max_risk_per_trade';

export interface Caps {
  /** max_position_size from the settings (not finite: 0; never below 0). */
  maxPositionSize: number;
  /** sector_caps.DEFAULT, null when the pack has none (or it is not a finite number). */
  defaultSectorCap: number | null;
  /** min(maxPositionSize, defaultSectorCap): the most one name may weigh. */
  nameCap: number;
  /** Which constraint sets nameCap. */
  nameCapLabel: 'max_position_size' | 'sector_caps.DEFAULT';
  /** Loss at the stop allowed per name, as a fraction of capital. */
  maxRiskPerTrade: number;
  /** Loss at the stops allowed over the book, as a fraction of capital. */
  maxPortfolioRisk: number;
  /** Most names in a book (whole, at least 0). */
  maxPositions: number;
}

export interface SectorCap {
  label: string;
  cap: number;
}

/** x when it is a finite number, else the fallback (every engine step reads untrusted numbers through it). */
export function finite(x: unknown, fallback: number): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : fallback;
}

function nonNegativeOrNull(x: unknown): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? Math.max(0, x) : null;
}

/** The caps of `settings` under `pack` (null or absent: no pack, so only the settings apply). */
export function capsOf(settings: RiskSettings, pack: ConstraintPack | null | undefined): Caps {
  const maxPositionSize = Math.max(0, finite(settings.max_position_size, 0));
  const defaultSectorCap = nonNegativeOrNull(pack?.sector_caps?.[DEFAULT_SECTOR_KEY]);
  const byDefault = defaultSectorCap !== null && defaultSectorCap < maxPositionSize;
  return {
    maxPositionSize,
    defaultSectorCap,
    nameCap: defaultSectorCap !== null ? Math.min(maxPositionSize, defaultSectorCap) : maxPositionSize,
    nameCapLabel: byDefault ? 'sector_caps.DEFAULT' : 'max_position_size',
    maxRiskPerTrade: Math.max(0, finite(settings.max_risk_per_trade, 0)),
    maxPortfolioRisk: Math.max(0, finite(settings.max_portfolio_risk, 0)),
    maxPositions: Math.max(0, Math.floor(finite(settings.max_positions, 0))),
  };
}

/** The pack's cap for the sector labelled `label` (null when it has none; `DEFAULT` is not a sector). */
export function sectorCapFor(pack: ConstraintPack | null | undefined, label: string): number | null {
  if (label === DEFAULT_SECTOR_KEY) return null;
  return nonNegativeOrNull(pack?.sector_caps?.[label]);
}

/** Every sector cap of the pack, by label in code-unit order (`DEFAULT` and non-numbers left out). */
export function sectorCapsOf(pack: ConstraintPack | null | undefined): SectorCap[] {
  const given = pack?.sector_caps;
  if (given === null || given === undefined) return [];
  const out: SectorCap[] = [];
  for (const label of Object.keys(given).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const cap = sectorCapFor(pack, label);
    if (cap !== null) out.push({ label, cap });
  }
  return out;
}

/**
 * A name's weight cap: the per-name cap, or the per-trade risk budget over its stop distance d when
 * that is lower (no per-trade limit when d <= 0).
 */
export function nameWeightCap(caps: Caps, stopDistance: number): { cap: number; by: NameCapLabel } {
  const perTrade = stopDistance > 0 ? caps.maxRiskPerTrade / stopDistance : Infinity;
  return perTrade < caps.nameCap ? { cap: perTrade, by: 'max_risk_per_trade' } : { cap: caps.nameCap, by: caps.nameCapLabel };
}

/** constraint_pack.vol_target_annual (never below 0), null when the pack sets none. */
export function volTargetOf(pack: ConstraintPack | null | undefined): number | null {
  return nonNegativeOrNull(pack?.vol_target_annual);
}

/** constraint_pack.max_portfolio_turnover_annual (never below 0), null when the pack sets none. */
export function turnoverCapOf(pack: ConstraintPack | null | undefined): number | null {
  return nonNegativeOrNull(pack?.max_portfolio_turnover_annual);
}
