/**
 * What the origin's pages for people share (the GraphQL IDE, platform/ide.ts, and the API reference,
 * platform/reference-page.ts): files of pinned npm packages served by the origin itself, each under a
 * URL that carries its content hash (so a browser keeps it for good, and a new version is a new URL),
 * and one Content-Security-Policy that lets a page load and call this origin only.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * The pages' policy. Scripts and styles come from this origin only: neither page has an inline script
 * or style element, and GraphiQL, Swagger UI and React set styles through the DOM, which a policy does
 * not restrict. Fonts and icons are data: URLs inside the stylesheets; the only connections go to this
 * origin (/graphql, /openapi.json, "Try it out").
 */
export const PAGE_CSP = [
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
export const HTML_TYPE = 'text/html; charset=utf-8';

export interface PageAsset {
  /** `<prefix>/<content hash>/<name>`. */
  url: string;
  type: string;
  body: Buffer;
}

const require = createRequire(import.meta.url);

/** A file of an installed package, found through its package.json (which every package exports). */
export function packageFile(pkg: string, file: string): Buffer {
  return fs.readFileSync(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file));
}

export function pageAsset(prefix: string, name: string, type: string, body: Buffer | string): PageAsset {
  const bytes = Buffer.from(body);
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  return { url: `${prefix}/${hash}/${name}`, type, body: bytes };
}

/** GET routes for the assets (hidden from the OpenAPI document); compression applies as to any route. */
export function servePageAssets(app: FastifyInstance, assets: readonly PageAsset[]): void {
  for (const file of assets) {
    app.get(file.url, { schema: { hide: true } }, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=31536000, immutable').type(file.type).send(file.body),
    );
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
