/**
 * How the whole console writes figures and words, in one place so every view reads the same:
 * money and prices with two decimals and thousands separators, fractions as percentages with one
 * decimal (a sign only where a figure is a change, and never on what rounds to zero), whole shares,
 * instants in UTC, enum values as words, and a dash for what the platform answered null. Figures the
 * platform could not measure read "not measured". Pure (no DOM), so the text is tested without a browser.
 */

/** What a view shows for a figure the platform answered null (no close, no stop, no sector). */
export const MISSING = '—';

/** What a view shows for a figure the platform could not measure (never a zero or a made-up value). */
export const NOT_MEASURED = 'not measured';

/** Decimals a percentage is written with unless a caller asks for more (weights, returns, rates). */
const PERCENT_DIGITS = 1;

const twoDecimals = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

function known(value: number | null | undefined): value is number {
  return value != null && Number.isFinite(value);
}

/** An amount with two decimals and separators, no currency sign (a header or unit names it): 29861 -> "29,861.00". */
export function formatMoney(value: number | null | undefined): string {
  return known(value) ? twoDecimals.format(value) : MISSING;
}

/**
 * An amount in a named currency, two decimals always: (199847.81, "USD") -> "$199,847.81". A code Intl
 * does not know is written after the amount: (12.5, "XQQ") -> "12.50 XQQ".
 */
export function formatCurrency(value: number | null | undefined, currency: string): string {
  if (!known(value)) return MISSING;
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
  } catch {
    return `${twoDecimals.format(value)} ${currency}`;
  }
}

/** A change in money with its sign always written: 12.5 -> "+12.50", -3 -> "-3.00", -0.001 -> "0.00". */
export function formatSignedMoney(value: number | null | undefined): string {
  if (!known(value)) return MISSING;
  const cents = Math.round(value * 100);
  const text = twoDecimals.format(Math.abs(cents) / 100);
  return cents > 0 ? `+${text}` : cents < 0 ? `-${text}` : text;
}

/** A price per share: the money rule (two decimals, separators, no currency sign): 1234.5 -> "1,234.50". */
export const formatPrice = formatMoney;

/** Whole shares with separators: 1200 -> "1,200". */
export function formatShares(value: number | null | undefined): string {
  return known(value) ? whole.format(value) : MISSING;
}

/** A change in shares with its sign: 5 -> "+5", -88 -> "-88", 0 -> "0". */
export function formatShareChange(value: number | null | undefined): string {
  if (!known(value)) return MISSING;
  const shares = Math.round(value);
  return shares > 0 ? `+${whole.format(shares)}` : shares < 0 ? `-${whole.format(-shares)}` : '0';
}

/** A fraction as a percentage: 0.1412 -> "14.1%"; `digits` decimals (0.249977, 2 -> "25.00%"). */
export function formatPercent(fraction: number | null | undefined, digits = PERCENT_DIGITS): string {
  return known(fraction) ? `${(fraction * 100).toFixed(digits)}%` : MISSING;
}

/** A fraction that is a change, with its sign: 0.04 -> "+4.0%", -0.325 -> "-32.5%", -0.0001 -> "0.0%". */
export function formatSignedPercent(fraction: number | null | undefined, digits = PERCENT_DIGITS): string {
  if (!known(fraction)) return MISSING;
  const shown = Number((fraction * 100).toFixed(digits));
  const text = `${Math.abs(shown).toFixed(digits)}%`;
  return shown > 0 ? `+${text}` : shown < 0 ? `-${text}` : text;
}

/** A calibrated probability 0..1 as a percentage: 0.615 -> "61.5%"; null -> "not measured". */
export function formatProbability(p: number | null | undefined): string {
  return known(p) ? formatPercent(p) : NOT_MEASURED;
}

/** A score or correlation with fixed decimals: 0.61234 -> "0.61"; null -> "—". */
export function formatScore(value: number | null | undefined, digits = 2): string {
  return known(value) ? value.toFixed(digits) : MISSING;
}

/** How a signed figure reads: good above zero, bad below, neutral at zero or unknown (a CSS class). */
export function tone(value: number | null | undefined): 'good' | 'bad' | 'neutral' {
  if (!known(value) || value === 0) return 'neutral';
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

/** An API enum value as words: "SECTOR_CONCENTRATION" -> "Sector concentration", "STAGE_2" -> "Stage 2". */
export function humanize(value: string | null | undefined): string {
  if (!value) return MISSING;
  const words = value.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
