/**
 * Money in the allocation domain: prices and amounts are decimals of whole cents; arithmetic that must
 * be exact (shares x price, sums, the remaining capital) runs on integer cents.
 */

/** An amount as integer cents (nearest). */
export const toCents = (amount: number): number => Math.round(amount * 100);

/** Integer cents as an amount: the shortest decimal of that many cents, never -0. */
export const fromCents = (cents: number): number => (cents === 0 ? 0 : cents / 100);

/** Rounds to whole cents, half away from zero on the decimal value (1.005 -> 1.01, despite its binary form). */
export function roundCents(v: number): number {
  return Math.round((v + Math.sign(v) * Number.EPSILON * Math.abs(v)) * 100) / 100;
}
