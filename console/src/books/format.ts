/**
 * How the books view writes figures: money in whole cents with thousands separators (the books keep
 * money in cents), fractions as percentages, signed P&L, and a dash for what the platform does not
 * know (null). Pure, so the same text is tested without a browser.
 */

/** What the view shows for a figure the platform answered null (no close, no stop, unmeasurable). */
export const MISSING = '—';

const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 29861 -> "29,861.00"; null -> "—". */
export function formatMoney(value: number | null | undefined): string {
  return value == null || !Number.isFinite(value) ? MISSING : money.format(value);
}

/** A P&L with its sign always written: 12.5 -> "+12.50", -3 -> "-3.00", 0 -> "0.00". */
export function formatSignedMoney(value: number | null | undefined): string {
  if (value == null || !Number.isFinite(value)) return MISSING;
  const cents = Math.round(value * 100);
  const text = money.format(Math.abs(cents) / 100);
  return cents > 0 ? `+${text}` : cents < 0 ? `-${text}` : text;
}

/** Whole shares with separators: 1200 -> "1,200". */
export function formatShares(value: number | null | undefined): string {
  return value == null || !Number.isFinite(value) ? MISSING : whole.format(value);
}

/** A share change with its sign: 5 -> "+5", -88 -> "-88", 0 -> "0". */
export function formatShareChange(value: number): string {
  return value > 0 ? `+${whole.format(value)}` : value < 0 ? `-${whole.format(-value)}` : '0';
}

/** A fraction 0..1 as a percentage: 0.1412 -> "14.1%" (digits: decimals shown). */
export function formatPercent(fraction: number | null | undefined, digits = 1): string {
  if (fraction == null || !Number.isFinite(fraction)) return MISSING;
  return `${(fraction * 100).toFixed(digits)}%`;
}

/** A signed fractional return: -0.325 -> "-32.5%", 0.04 -> "+4.0%". */
export function formatSignedPercent(fraction: number | null | undefined, digits = 1): string {
  if (fraction == null || !Number.isFinite(fraction)) return MISSING;
  const shown = Number((fraction * 100).toFixed(digits));
  const text = `${Math.abs(shown).toFixed(digits)}%`;
  return shown > 0 ? `+${text}` : shown < 0 ? `-${text}` : text;
}

/** A score or correlation with fixed decimals: 0.61234 -> "0.61"; null -> "—". */
export function formatScore(value: number | null | undefined, digits = 2): string {
  return value == null || !Number.isFinite(value) ? MISSING : value.toFixed(digits);
}

/** How a signed figure reads: good above zero, bad below, neutral at zero or unknown (a CSS class). */
export function tone(value: number | null | undefined): 'good' | 'bad' | 'neutral' {
  if (value == null || !Number.isFinite(value) || value === 0) return 'neutral';
  return value > 0 ? 'good' : 'bad';
}

/** An ISO instant as day and minute in UTC, the platform's clock: "2026-11-26T10:22:24.512Z" -> "2026-11-26 10:22 UTC". */
export function formatInstant(iso: string | null | undefined): string {
  if (!iso) return MISSING;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const utc = date.toISOString();
  return `${utc.slice(0, 10)} ${utc.slice(11, 16)} UTC`;
}

/** An enum value as words: "SECTOR_CONCENTRATION" -> "Sector concentration", "STAGE_2" -> "Stage 2". */
export function humanize(value: string | null | undefined): string {
  if (!value) return MISSING;
  const words = value.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The tone of a verdict or rating word: SUITABLE/STRONG good, UNSUITABLE/WEAK bad, the rest neutral. */
export function verdictTone(word: string): 'good' | 'bad' | 'neutral' {
  switch (word.toUpperCase()) {
    case 'SUITABLE':
    case 'STRONG':
      return 'good';
    case 'UNSUITABLE':
    case 'WEAK':
      return 'bad';
    default:
      return 'neutral';
  }
}
