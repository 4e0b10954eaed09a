/**
 * A small, fast, seeded pseudo-random number generator. Pure: no I/O, no global state, no Math.random.
 *
 * Generator: sfc32 (Chris Doty-Humphrey's "small fast chaotic" 32-bit generator; 128-bit state, passes
 * PractRand/BigCrush). Seeding: seed and stream are each hashed to 32 bits with murmur3's fmix32 finaliser
 * (injective over 0 <= value < 2^32) and become two of the state words, a third mixes both, the counter starts
 * at 1, and the first outputs are discarded. Distinct (seed, stream) pairs therefore start from distinct
 * states and give statistically independent sequences, so a consumer can give each entity (a symbol, a sector,
 * the market) its own stream and make its output independent of the order entities are generated in.
 *
 * Not cryptographically secure; meant for simulations and tests.
 */

const TWO_POW_32 = 4294967296;
const SEED_SALT = 0x9e3779b9;
const STREAM_SALT = 0x7f4a7c15;
/**
 * Math functions bound once: under a vm context (e.g. jest) every global `Math` lookup is slow, and these
 * sit in the hottest loops.
 */
const { floor, log, sqrt, imul } = Math;

/** murmur3 fmix32: a full-avalanche 32-bit integer hash. */
function fmix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Folds any safe integer (negative or wider than 32 bits) into a 32-bit hash. */
function hashInteger(value: number, salt: number): number {
  const lo = value >>> 0;
  const hi = floor(value / TWO_POW_32) >>> 0;
  return fmix32(fmix32(lo ^ salt) ^ imul(hi ^ 0x5bd1e995, 0x27d4eb2f));
}

/**
 * Hashes (seed, stream) to a 32-bit value. Exposed so callers can derive per-entity sub-seeds or
 * deterministic choices without instantiating a generator.
 */
export function deriveSeed(seed: number, stream = 0): number {
  assertSafeInteger(seed, 'seed');
  assertSafeInteger(stream, 'stream');
  const s = hashInteger(seed, SEED_SALT);
  const k = hashInteger(stream, STREAM_SALT);
  return fmix32(s ^ imul(k, 0x2545f491) ^ (k >>> 7));
}

function assertSafeInteger(value: number, label: string): void {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${label} must be a safe integer, got ${String(value)}`);
  }
}

/** A seeded sfc32 generator with uniform, normal and exponential draws. */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  /** Second value of the last polar-method pair, valid while hasSpare is true. */
  private spareNormal = 0;
  private hasSpare = false;

  /** `seed` and `stream` are safe integers; see {@link createPrng}. */
  constructor(seed: number, stream = 0) {
    assertSafeInteger(seed, 'seed');
    assertSafeInteger(stream, 'stream');
    const s = hashInteger(seed, SEED_SALT);
    const k = hashInteger(stream, STREAM_SALT);
    this.a = s | 0;
    this.b = k | 0;
    this.c = fmix32(s ^ imul(k, 0x2545f491) ^ (k >>> 7)) | 0;
    this.d = 1;
    for (let i = 0; i < 16; i++) this.nextUint32();
  }

  /** Next raw 32-bit unsigned integer. */
  nextUint32(): number {
    const a = this.a;
    const b = this.b;
    const c = this.c;
    const d = this.d;
    const t = (((a + b) | 0) + d) | 0;
    this.d = (d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / TWO_POW_32;
  }

  /** Uniform in [min, max). */
  uniform(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Uniform integer in [0, n) for a positive integer n. */
  int(n: number): number {
    return floor(this.next() * n);
  }

  /** Uniform integer in [min, max] (both inclusive). */
  intBetween(min: number, max: number): number {
    return min + floor(this.next() * (max - min + 1));
  }

  /** Picks one element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[floor(this.next() * items.length)];
  }

  /** Standard normal N(0, 1) by the Marsaglia polar method (pairs cached). */
  normal(): number {
    if (this.hasSpare) {
      this.hasSpare = false;
      return this.spareNormal;
    }
    let u: number;
    let v: number;
    let s: number;
    do {
      u = 2 * this.next() - 1;
      v = 2 * this.next() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const m = sqrt((-2 * log(s)) / s);
    this.spareNormal = v * m;
    this.hasSpare = true;
    return u * m;
  }

  /** Exponential with mean 1. */
  exponential(): number {
    return -log(1 - this.next());
  }
}

/**
 * A generator for stream `stream` of `seed`. Equal (seed, stream) pairs give identical sequences;
 * distinct stream ids give independent ones. Throws RangeError unless both are safe integers.
 */
export function createPrng(seed: number, stream = 0): Prng {
  return new Prng(seed, stream);
}
