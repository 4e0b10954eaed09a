/**
 * The idempotency key of an optimize request: a random UUID (v4), so a retry after no answer stores one
 * book. `crypto.randomUUID` exists only in secure contexts (HTTPS or loopback); a console opened over
 * plain HTTP on another host still has `crypto.getRandomValues`, so the key is built from its bytes
 * there. Pure apart from the random source it is given: no DOM.
 */

/** The part of Web Crypto the key needs (`globalThis.crypto` in a page). */
export interface RandomSource {
  randomUUID?: () => string;
  getRandomValues<T extends Uint8Array>(array: T): T;
}

/** A v4 UUID from the source's own `randomUUID` when it has one, else from 16 random bytes. */
export function idempotencyKey(source: RandomSource): string {
  if (typeof source.randomUUID === 'function') return source.randomUUID();
  const bytes = source.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
