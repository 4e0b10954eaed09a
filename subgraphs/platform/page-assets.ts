/**
 * What the origin's pages for people share (the GraphQL IDE, platform/ide.ts, and the API reference,
 * platform/reference-page.ts): files of pinned npm packages served by the origin itself, each under a
 * URL that carries its content hash (so a browser keeps it for good, and a new version is a new URL),
 * compressed once per process rather than per request, one HTML skeleton, and one
 * Content-Security-Policy that lets a page load and call this origin only.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The pages' policy. Scripts and styles come from this origin only: neither page has an inline script
 * or style element, and GraphiQL, Swagger UI and React set styles through the DOM, which a policy does
 * not restrict. Fonts and icons are data: URLs inside the stylesheets; the only connections go to this
 * origin (/graphql, /openapi.json, "Try it out").
 */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const JS_TYPE = 'application/javascript; charset=utf-8';
export const CSS_TYPE = 'text/css; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';

/** The encodings an asset is kept in besides its own bytes, in order of preference on a tie. */
const ENCODINGS = ['br', 'gzip'] as const;
type Encoding = (typeof ENCODINGS)[number];

/**
 * Brotli quality 9: GraphiQL's 3.5 MB bundle compresses in about half a second, once per process, to
 * within 11% of quality 11 (which takes some nine seconds).
 */
const BROTLI_QUALITY = 9;
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

export interface PageAsset {
  /** `<prefix>/<content hash>/<name>`. */
  url: string;
  type: string;
  body: Buffer;
  /** The body in `encoding`: compressed at the first request that takes it, then kept. */
  encoded(encoding: Encoding): Promise<Buffer>;
}

const require = createRequire(import.meta.url);

/** A file of an installed package, found through its package.json (these packages all export it). */
export function packageFile(pkg: string, file: string): Buffer {
  return fs.readFileSync(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file));
}

export function pageAsset(prefix: string, name: string, type: string, body: Buffer | string): PageAsset {
  const bytes = Buffer.from(body);
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const kept = new Map<Encoding, Promise<Buffer>>();
  const compress = (encoding: Encoding): Promise<Buffer> =>
    encoding === 'br'
      ? brotli(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } })
      : gzip(bytes, { level: zlib.constants.Z_BEST_COMPRESSION });
  return {
    url: `${prefix}/${hash}/${name}`,
    type,
    body: bytes,
    encoded(encoding) {
      let result = kept.get(encoding);
      if (!result) kept.set(encoding, (result = compress(encoding)));
      return result;
    },
  };
}

/** A value built on first use and kept for the process (the origins of one process share it). */
export function once<T>(build: () => T): () => T {
  let value: { built: T } | undefined;
  return () => (value ??= { built: build() }).built;
}

/**
 * The encoding an Accept-Encoding header takes best among br and gzip (`*` standing for both unless
 * named), or null for the asset's own bytes: no header, nothing acceptable, or every q is 0.
 */
function chooseEncoding(header: string | undefined): Encoding | null {
  if (!header) return null;
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    if (name && Number.isFinite(value)) q.set(name, value);
  }
  let best: Encoding | null = null;
  let bestQ = 0;
  for (const encoding of ENCODINGS) {
    const value = q.get(encoding) ?? q.get('*') ?? 0;
    if (value > bestQ) [best, bestQ] = [encoding, value];
  }
  return best;
}

/**
 * GET routes for the assets (hidden from the OpenAPI document), each sent in the encoding the client
 * takes from the copies kept by pageAsset. @fastify/compress is off for them: it would compress the
 * same megabytes again on every request.
 */
export function servePageAssets(app: FastifyInstance, assets: readonly PageAsset[]): void {
  for (const file of assets) {
    app.get(file.url, { schema: { hide: true }, compress: false }, async (request, reply) => {
      const encoding = chooseEncoding(request.headers['accept-encoding']);
      void reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .type(file.type);
      // Added to what is there (CORS varies by Origin).
      const vary = reply.getHeader('vary');
      void reply.header('vary', vary ? `${String(vary)}, Accept-Encoding` : 'Accept-Encoding');
      if (!encoding) return reply.send(file.body);
      return reply.header('content-encoding', encoding).send(await file.encoded(encoding));
    });
  }
}

/** A page's document: its stylesheets in the head, `body` (markup of this origin's own), then its scripts. */
export function htmlPage(page: { title: string; stylesheets: readonly PageAsset[]; body: string; scripts: readonly PageAsset[] }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<link rel="icon" href="data:,">
${page.stylesheets.map((a) => `<link rel="stylesheet" href="${a.url}">\n`).join('')}</head>
<body>
${page.body}
${page.scripts.map((a) => `<script src="${a.url}"></script>\n`).join('')}</body>
</html>
`;
}

/** Sends a page: revalidated on every visit (its asset URLs change with a new version), under PAGE_CSP. */
export function sendPage(reply: FastifyReply, html: string): FastifyReply {
  return reply
    .header('cache-control', 'no-cache')
    .header('content-security-policy', PAGE_CSP)
    .header('x-content-type-options', 'nosniff')
    .type(HTML_TYPE)
    .send(html);
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
