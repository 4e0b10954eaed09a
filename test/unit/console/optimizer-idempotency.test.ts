/**
 * The optimize request's idempotency key: the page's own randomUUID where the page has it (secure
 * contexts), else a v4 UUID built from getRandomValues (a console on plain HTTP, not loopback).
 */
import { webcrypto } from 'node:crypto';
import { idempotencyKey, type RandomSource } from '../../../console/src/optimizer/idempotency.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A source as a page outside a secure context has it: getRandomValues, no randomUUID. */
const insecure: RandomSource = { getRandomValues: (array) => webcrypto.getRandomValues(array) };

describe('idempotency key', () => {
  it("uses the source's randomUUID when there is one", () => {
    expect(idempotencyKey({ randomUUID: () => 'from-random-uuid', getRandomValues: insecure.getRandomValues })).toBe('from-random-uuid');
  });

  it('builds a v4 UUID from random bytes without randomUUID', () => {
    const keys = Array.from({ length: 50 }, () => idempotencyKey(insecure));
    for (const key of keys) expect(key).toMatch(UUID_V4);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('sets the version and variant bits whatever the bytes are', () => {
    const ones: RandomSource = { getRandomValues: (array) => array.fill(0xff) };
    const zeros: RandomSource = { getRandomValues: (array) => array.fill(0) };
    expect(idempotencyKey(ones)).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(idempotencyKey(zeros)).toBe('00000000-0000-4000-8000-000000000000');
  });
});
