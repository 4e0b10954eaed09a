/**
 * Response encoding shared by the fast lane and the Fastify routes (platform/cors.ts): a spliced body's
 * gzip and br bytes (the prefix compressed once, the suffix appended per response) decode with zlib to
 * prefix + suffix, for any prefix and any suffix a stored block holds; Accept-Encoding is read with its
 * q-values; and the token memo answers a token it still trusts at once (authenticators.ts).
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { COMPRESS_THRESHOLD_BYTES, responseCoding, SplicedBody, varyWithAcceptEncoding } from '../../../subgraphs/platform/compression.js';
import { memoizeVerifier } from '../../../subgraphs/platform/authenticators.js';
import type { PartnerPrincipal } from '../../../subgraphs/platform/auth.js';

describe('SplicedBody', () => {
  const json = Buffer.from(`{"success":true,"result":${JSON.stringify({ rows: Array.from({ length: 400 }, (_, i) => ({ i, label: `row ${i}` })) })},"error":null,"timestamp":"`);
  const prefixes: Array<[string, Buffer]> = [
    ['one byte', Buffer.from('{')],
    ['JSON', json],
    ['incompressible', crypto.randomBytes(70_000)],
  ];
  const suffixes = [0, 1, 26, 0xffff].map((n) => crypto.randomBytes(n));

  it.each(prefixes)('gzip and br of a %s prefix decode to prefix + suffix', (_name, prefix) => {
    const body = new SplicedBody(prefix);
    for (const suffix of suffixes) {
      const whole = Buffer.concat([prefix, suffix]);
      expect(body.encode('identity', suffix).equals(whole)).toBe(true);
      expect(zlib.gunzipSync(body.encode('gzip', suffix)).equals(whole)).toBe(true);
      expect(zlib.brotliDecompressSync(body.encode('br', suffix)).equals(whole)).toBe(true);
    }
  });

  it('appends only the suffix per response: the compressed prefix is the same bytes every time', () => {
    const body = new SplicedBody(json);
    const a = body.encode('gzip', Buffer.from('2026-01-01T00:00:00.000Z"}'));
    const b = body.encode('gzip', Buffer.from('2026-12-31T23:59:59.999Z"}'));
    expect(a.length).toBe(b.length);
    expect(a.subarray(0, a.length - 26 - 8).equals(b.subarray(0, b.length - 26 - 8))).toBe(true);
    expect(a.length).toBeLessThan(json.length / 3);
    expect(() => body.encode('br', Buffer.alloc(0x10000))).toThrow();
  });
});

describe('responseCoding', () => {
  const big = COMPRESS_THRESHOLD_BYTES;
  const coding = (acceptEncoding: string | undefined, length = big, extra: Record<string, string> = {}) =>
    responseCoding(acceptEncoding === undefined ? extra : { 'accept-encoding': acceptEncoding, ...extra }, length);

  it('follows q-values, prefers br on a tie, and leaves small bodies and refusals as they are', () => {
    expect(coding(undefined)).toBe('identity');
    expect(coding('gzip, deflate, br, zstd')).toBe('br');
    expect(coding('gzip')).toBe('gzip');
    expect(coding('x-gzip')).toBe('gzip');
    expect(coding('gzip;q=0, br')).toBe('br');
    expect(coding('br;q=0.5, gzip')).toBe('gzip');
    expect(coding('br;q=0, *')).toBe('gzip');
    expect(coding('*')).toBe('br');
    expect(coding('identity')).toBe('identity');
    expect(coding('deflate, zstd')).toBe('identity');
    expect(coding('gzip', big - 1)).toBe('identity');
    expect(coding('gzip', big, { 'x-no-compression': '1' })).toBe('identity');
    // Neither acceptable although named: the compression plugin reads it itself.
    expect(coding('gzip;q=0, br;q=0')).toBeUndefined();
  });

  it('adds accept-encoding to Vary once', () => {
    expect(varyWithAcceptEncoding(undefined)).toBe('accept-encoding');
    expect(varyWithAcceptEncoding('Origin')).toBe('Origin, accept-encoding');
    expect(varyWithAcceptEncoding('Origin, accept-encoding')).toBe('Origin, accept-encoding');
  });
});

describe('memoizeVerifier.known', () => {
  it('answers a remembered token at once until it is due for a full check, and nothing else', async () => {
    let now = 1_000_000_000_000;
    const principal: PartnerPrincipal = { kind: 'partner', partnerId: 'p', claims: { sub: 'p', exp: now / 1000 + 3600 } };
    const verify = memoizeVerifier(async (token) => {
      if (token !== 'good') throw new Error('refused');
      return principal;
    }, { maxAgeMs: 60_000, maxTokens: 10, now: () => now });
    expect(verify.known('good')).toBeUndefined();
    await verify('good');
    expect(verify.known('good')).toBe(principal);
    await expect(verify('bad')).rejects.toThrow();
    expect(verify.known('bad')).toBeUndefined();
    now += 60_000;
    expect(verify.known('good')).toBeUndefined();
  });
});
