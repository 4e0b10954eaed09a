/** The weight bars' widths of an optimize result. Pure: no DOM. */
import { formatPercent } from '../format.js';

/**
 * The width of each weight's bar as a CSS percentage of the whole account (a full bar is all the
 * capital), so a bar's length is its weight and two books' bars compare. Weights are fractions of the
 * account; one above 1 fills the bar, zero, negative or non-finite weights get an empty bar.
 */
export function barWidths(weights: readonly number[]): string[] {
  return weights.map((w) => (Number.isFinite(w) && w > 0 ? formatPercent(Math.min(w, 1)) : '0%'));
}
