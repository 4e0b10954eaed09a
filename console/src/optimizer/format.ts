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
 * The width of each weight's bar as a CSS percentage, relative to the largest weight (which fills its
 * cell), so small books of capped names still show their differences; the cell's text gives the
 * exact weight. Zero, negative or non-finite weights get an empty bar.
 */
export function barWidths(weights: readonly number[]): string[] {
  const max = Math.max(0, ...weights.filter((w) => Number.isFinite(w)));
  return weights.map((w) => (max > 0 && Number.isFinite(w) && w > 0 ? `${((w / max) * 100).toFixed(1)}%` : '0%'));
}
