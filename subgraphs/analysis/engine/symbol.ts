/** Ticker-symbol validation. Pure; no I/O. */

/**
 * A normalised ticker: 1-6 upper-case letters/digits starting with a letter, optionally followed by a
 * class or series suffix of 1-3 letters/digits after `.` or `-` (AAPL, BRK.B, BF-B, TGMI).
 */
export const SYMBOL_PATTERN: RegExp = /^[A-Z][A-Z0-9]{0,5}(?:[.-][A-Z0-9]{1,3})?$/;

/** Longest symbol accepted (the pattern allows at most 6 + 1 + 3 characters). */
export const SYMBOL_MAX_LENGTH = 10;

/** Anything outside printable ASCII; such input is rejected before upper-casing (e.g. 'ß' -> 'SS', 'ı' -> 'I'). */
const NON_ASCII_OR_CONTROL = /[^\x21-\x7E]/;

/**
 * Trims and upper-cases `raw` and returns it when it is a valid symbol, else null.
 * Rejects empty input, inner whitespace, non-ASCII letters, path or SQL meta-characters and anything
 * longer than {@link SYMBOL_MAX_LENGTH}.
 */
export function normalizeSymbol(raw: string): string | null {
  if (typeof raw !== 'string') return null; // defensive: callers may pass untyped JSON values
  const trimmed = raw.trim();
  if (trimmed.length === 0 || trimmed.length > SYMBOL_MAX_LENGTH) return null;
  if (NON_ASCII_OR_CONTROL.test(trimmed)) return null;
  const upper = trimmed.toUpperCase();
  return SYMBOL_PATTERN.test(upper) ? upper : null;
}
