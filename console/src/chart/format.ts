/**
 * How the security view writes the figures it was given. A figure the answer did not carry reads
 * "not measured" (never a zero or a made-up value); intervals are written beside their value.
 */

export const NOT_MEASURED = 'not measured';

/** A measured figure with its interval, as the evidence answers it. */
export interface Estimate {
  value: number | null;
  ci: readonly number[] | null;
}

/** A price with two decimals, or "—" when absent. */
export function formatPrice(price: number | null | undefined): string {
  return price === null || price === undefined || !Number.isFinite(price) ? '—' : price.toFixed(2);
}

/** A fraction as a percentage (0.125 -> "12.5%"); `signed` adds "+" to positive values (excess returns). */
export function formatFraction(value: number, signed = false): string {
  const pct = (value * 100).toFixed(1);
  return `${signed && value > 0 ? '+' : ''}${pct}%`;
}

/**
 * A fraction with its 95% interval, e.g. "54.2% (95% CI 51.0% to 57.3%)"; "not measured" when the
 * answer carried no value. The interval is written only when it came with the value.
 */
export function formatEstimate(estimate: Estimate | null | undefined, signed = false): string {
  if (!estimate || estimate.value === null || !Number.isFinite(estimate.value)) return NOT_MEASURED;
  const value = formatFraction(estimate.value, signed);
  const ci = estimate.ci;
  if (!ci || ci.length !== 2 || !ci.every((x) => Number.isFinite(x))) return value;
  return `${value} (95% CI ${formatFraction(ci[0], signed)} to ${formatFraction(ci[1], signed)})`;
}

/** A calibrated probability, 0..1, as a percentage; "not measured" when null. */
export function formatProbability(p: number | null | undefined): string {
  return p === null || p === undefined || !Number.isFinite(p) ? NOT_MEASURED : formatFraction(p);
}

/** An API enum value as words: "STAGE_2" -> "Stage 2", "VERY_STRONG" -> "Very strong". */
export function humanize(value: string | null | undefined): string {
  if (!value) return '—';
  const words = value.toLowerCase().split('_').join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
