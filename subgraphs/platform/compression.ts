/**
 * Response compression: @fastify/compress, registered by the HTTP shell (platform/http.ts), and the
 * pre-compressed bodies of the routes that answer the same bytes to many callers.
 *
 * br or gzip, as Accept-Encoding asks, for responses of at least COMPRESS_THRESHOLD_BYTES; none
 * without Accept-Encoding. Request bodies are never decompressed (the body limit counts what arrives).
 * Routes that answer the same bytes to many callers (the cached analysis reads, the demo optimize) encode
 * their bodies themselves with responseCoding() and SplicedBody, on the fast lane and on their Fastify
 * route alike: the constant part of such a body is compressed once, and only the few bytes written per
 * response (the envelope's timestamp) are appended, stored, per response. The plugin leaves a reply that
 * already has a Content-Encoding alone.
 */
import compress from '@fastify/compress';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import zlib from 'node:zlib';

/** Smaller responses are sent as they are (compression would gain little and cost CPU). */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/** Brotli's settings, here and in the plugin: quality 4 (11 costs far more CPU for a few percent). */
const BROTLI_QUALITY = 4;

export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    encodings: ['br', 'gzip'],
    threshold: COMPRESS_THRESHOLD_BYTES,
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
  });
}

/** A body's content coding: compressed with br or gzip, or sent as it is. */
export type ContentCoding = 'br' | 'gzip' | 'identity';

/** Accept-Encoding's q-values for br and gzip (`*` stands for a coding not listed; `x-gzip` is gzip). */
function acceptedQualities(header: string): { br: number; gzip: number; mentioned: boolean } {
  let br: number | undefined;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of header.split(',')) {
    const semi = part.indexOf(';');
    const name = (semi < 0 ? part : part.slice(0, semi)).trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    if (semi >= 0) {
      const param = /(?:^|;)\s*q\s*=\s*([^\s;]*)/i.exec(part.slice(semi));
      if (param) q = Math.min(1, Number.parseFloat(param[1]) || 0);
    }
    if (name === 'br') br ??= q;
    else if (name === 'gzip' || name === 'x-gzip') gzip ??= q;
    else if (name === '*') any ??= q;
  }
  return { br: br ?? any ?? 0, gzip: gzip ?? any ?? 0, mentioned: br !== undefined || gzip !== undefined || any !== undefined };
}

/**
 * The coding of a `length`-byte response to a request with these headers, under the plugin's rules:
 * identity without Accept-Encoding, with X-No-Compression, or under COMPRESS_THRESHOLD_BYTES; otherwise
 * the acceptable one (q > 0) of br and gzip with the higher q-value, br on a tie. undefined when neither
 * is acceptable although the header names one of them or `*`: the plugin's own reading decides then
 * (the fast lane leaves such a request to Fastify).
 */
export function responseCoding(headers: IncomingHttpHeaders, length: number): ContentCoding | undefined {
  const header = headers['accept-encoding'];
  if (header === undefined || headers['x-no-compression'] !== undefined || length < COMPRESS_THRESHOLD_BYTES) return 'identity';
  const q = acceptedQualities(header);
  if (q.br === 0 && q.gzip === 0) return q.mentioned ? undefined : 'identity';
  return q.br >= q.gzip ? 'br' : 'gzip';
}

/** A Vary value with accept-encoding added, as the plugin adds it to a compressed reply's. */
export function varyWithAcceptEncoding(vary: string | undefined): string {
  if (vary === undefined || vary === '') return 'accept-encoding';
  return vary.includes('accept-encoding') ? vary : `${vary}, accept-encoding`;
}

/**
 * Marks a reply whose body the route encoded in `coding` (Content-Encoding, and Vary as the plugin
 * sets it); the plugin then leaves the reply alone. Nothing for identity.
 */
export function markEncoded(reply: FastifyReply, coding: ContentCoding): FastifyReply {
  if (coding === 'identity') return reply;
  const vary = reply.getHeader('vary');
  return reply.header('content-encoding', coding).header('vary', varyWithAcceptEncoding(vary === undefined ? undefined : Array.isArray(vary) ? vary.join(', ') : String(vary)));
}

/** Stored-block and trailer sizes of the gzip tail written per response. */
const STORED_HEADER = 5;
const GZIP_TRAILER = 8;
/** Longest suffix one stored block (deflate) or one 4-nibble uncompressed meta-block (brotli) holds. */
const MAX_SUFFIX = 0xffff;

/**
 * A response body of a constant prefix followed by a short suffix written per response (the envelope's
 * timestamp), encoded without compressing the prefix again: the prefix is compressed once per coding,
 * up to a flush that ends on a byte boundary, and each response appends its suffix uncompressed.
 *   - gzip: the gzip header and the prefix deflated with a sync flush (no final block), kept with the
 *     prefix's CRC-32; per response a final stored block holding the suffix, the CRC-32 continued over
 *     the suffix and the total length (RFC 1951 3.2.4, RFC 1952 2.3).
 *   - br: the prefix compressed with a flush (the encoder pads to a byte boundary with an empty metadata
 *     block); per response an uncompressed meta-block holding the suffix (ISLAST 0, four length nibbles,
 *     ISUNCOMPRESSED 1, zero padding to the byte) and the final empty meta-block (ISLAST 1, ISLASTEMPTY 1)
 *     (RFC 7932 9.2).
 * The suffix costs 5 + 8 bytes (gzip) or 4 bytes (br) more than compressing it would; the prefix is
 * compressed as the plugin would (zlib's default level, brotli quality 4).
 */
export class SplicedBody {
  private gzipHead: { bytes: Buffer; crc: number } | undefined;
  private brHead: Buffer | undefined;

  constructor(readonly prefix: Buffer) {
    if (prefix.length === 0) throw new Error('a spliced body needs a prefix');
  }

  /** The body's length as it is (the plugin's threshold counts these bytes). */
  identityLength(suffixLength: number): number {
    return this.prefix.length + suffixLength;
  }

  /** The body with `suffix` after the prefix, in `coding`. */
  encode(coding: ContentCoding, suffix: Buffer): Buffer {
    if (coding === 'identity') return Buffer.concat([this.prefix, suffix], this.prefix.length + suffix.length);
    if (suffix.length > MAX_SUFFIX) throw new Error(`a spliced suffix holds at most ${MAX_SUFFIX} bytes`);
    return coding === 'gzip' ? this.gzip(suffix) : this.br(suffix);
  }

  private gzip(suffix: Buffer): Buffer {
    const head = (this.gzipHead ??= {
      bytes: zlib.gzipSync(this.prefix, { finishFlush: zlib.constants.Z_SYNC_FLUSH }),
      crc: zlib.crc32(this.prefix),
    });
    const out = Buffer.allocUnsafe(head.bytes.length + STORED_HEADER + suffix.length + GZIP_TRAILER);
    let at = head.bytes.copy(out, 0);
    out[at++] = 0x01; // BFINAL 1, BTYPE 00 (stored); the sync flush left the stream on a byte boundary
    out.writeUInt16LE(suffix.length, at);
    out.writeUInt16LE(~suffix.length & 0xffff, at + 2);
    at += 4;
    at += suffix.copy(out, at);
    // (zlib.crc32 of no bytes gives 0, not the value it continues)
    out.writeUInt32LE((suffix.length === 0 ? head.crc : zlib.crc32(suffix, head.crc)) >>> 0, at);
    out.writeUInt32LE((this.prefix.length + suffix.length) >>> 0, at + 4);
    return out;
  }

  private br(suffix: Buffer): Buffer {
    const head = (this.brHead ??= zlib.brotliCompressSync(this.prefix, {
      finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: this.prefix.length },
    }));
    const block = suffix.length === 0 ? 0 : 3 + suffix.length;
    const out = Buffer.allocUnsafe(head.length + block + 1);
    let at = head.copy(out, 0);
    if (suffix.length > 0) {
      // Bits from the lowest: ISLAST 0, MNIBBLES 00 (four), MLEN-1 in 16 bits, ISUNCOMPRESSED 1, 4 zero bits.
      const bits = ((suffix.length - 1) << 3) | (1 << 19);
      out[at++] = bits & 0xff;
      out[at++] = (bits >>> 8) & 0xff;
      out[at++] = (bits >>> 16) & 0xff;
      at += suffix.copy(out, at);
    }
    out[at] = 0x03; // ISLAST 1, ISLASTEMPTY 1
    return out;
  }
}

/** A whole body in `coding`, compressed as the plugin compresses (for bodies with no constant prefix kept). */
export function encodeWhole(body: Buffer, coding: ContentCoding): Buffer {
  if (coding === 'identity') return body;
  return coding === 'gzip' ? zlib.gzipSync(body) : zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
}
