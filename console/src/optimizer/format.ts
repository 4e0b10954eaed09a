/** Figures of an optimize result as the view prints them, and the weight bars' widths. Pure: no DOM. */

/** An amount in the book's currency (a code Intl does not know prints as `1,234.50 XYZ`). */
export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency, maximumFractionDigits: 2 }).format(amount);
  } catch {
    return `${new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount)} ${currency}`;
  }
}

/** A price per share (two decimals, no currency sign: the table's header names the currency). */
export function formatPrice(price: number): string {
  return new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(price);
}

/** A 0-1 fraction as a percentage with `digits` decimals (`0.2` -> `20.00%`). */
export function formatFraction(fraction: number, digits = 2): string {
  return `${(fraction * 100).toFixed(digits)}%`;
}

/**
 * The width of each weight's bar as a CSS percentage of the whole account (a full bar is all the
 * capital), so a bar's length is its weight and two books' bars compare. Weights are fractions of the
 * account; one above 1 fills the bar, zero, negative or non-finite weights get an empty bar.
 */
export function barWidths(weights: readonly number[]): string[] {
  return weights.map((w) => (Number.isFinite(w) && w > 0 ? `${(Math.min(w, 1) * 100).toFixed(1)}%` : '0%'));
}
