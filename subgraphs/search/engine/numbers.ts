/** Rounding, percentages and symbol order shared by the search engines (answers carry 4 or 6 decimals). */
export const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;
export const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
/** A fraction as a percentage with one decimal, for reasons and notes: 0.1234 -> "12.3%". */
export const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
/** Code-unit order of tickers (the tie-break of every ranking), independent of the locale. */
export const bySymbol = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
