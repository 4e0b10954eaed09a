/**
 * The web console on the gateway origin (CONSOLE; on by default outside production):
 *
 * - `GET /console`: one page whose script and stylesheet are the bundle the build writes to
 *   dist/console (console.js, console.css), served by the gateway itself under CONSOLE_ASSET_PREFIX as
 *   hashed, immutable page assets, under the same self-only Content-Security-Policy as the GraphQL IDE.
 *   The page reaches the platform through this origin's /graphql only. The bundle is read once, when
 *   the origin is built; without it (no build yet) the page answers 503 saying to build, and the
 *   gateway still serves everything else.
 * - `POST /console/dev-token` (APP_ENV=development only, absent otherwise): a development token for
 *   the console's sign-in button, the same token `tradegraph token --audience analysis,allocation,search`
 *   mints (platform/dev-secret.ts), so one token runs the console's operations on all three subgraphs.
 *
 * Every route is registered after the origin's rate limiter, so each counts against the caller's
 * address budget like any other gateway request; none is in the OpenAPI document.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../subgraphs/platform/config.js';
import { DEMO_PARTNER, mintDevelopmentToken, signsDevIdTokens } from '../subgraphs/platform/dev-secret.js';
import { AppError, type ErrorDetail } from '../subgraphs/platform/errors.js';
import { GRAPHQL_PATH, sendError } from '../subgraphs/platform/http.js';
import { CSS_TYPE, escapeHtml, htmlPage, JS_TYPE, pageAsset, sendPage, servePageAssets } from '../subgraphs/platform/page-assets.js';
import { PROJECT_ROOT } from '../subgraphs/platform/project.js';

export const CONSOLE_PATH = '/console';
export const CONSOLE_ASSET_PREFIX = '/console/assets';
export const CONSOLE_DEV_TOKEN_PATH = '/console/dev-token';
/** Where the build writes the console bundle (scripts/build-console.mjs). */
export const CONSOLE_BUNDLE_DIR = path.join(PROJECT_ROOT, 'dist', 'console');
export const CONSOLE_BUNDLE_FILES = { script: 'console.js', stylesheet: 'console.css' } as const;

/** Lifetime of a console development token: an hour, as `tradegraph token` by default. */
export const DEV_TOKEN_TTL_SECONDS = 3600;
/** One token for every origin the console's operations reach. */
const DEV_TOKEN_AUDIENCES = ['analysis', 'allocation', 'search'] as const;
/** A development token's `sub`: what a partner id looks like (letters, digits and . _ : @ -). */
const SUBJECT_RE = /^[A-Za-z0-9._:@-]{1,128}$/;

export interface ConsoleOptions {
  /** Where console.js and console.css are read from (default CONSOLE_BUNDLE_DIR). */
  bundleDir?: string;
}

/** The answer of POST /console/dev-token. */
export interface DevTokenAnswer {
  token: string;
  sub: string;
  /** The token's `aud`. */
  audiences: string[];
  expires_in: number;
}

interface Bundle {
  script: Buffer;
  stylesheet: Buffer;
}

/** The bundle's two files, or the names of those missing. */
function readBundle(dir: string): { bundle: Bundle } | { missing: string[] } {
  const read = (name: string): Buffer | undefined => {
    try {
      return fs.readFileSync(path.join(dir, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  };
  const script = read(CONSOLE_BUNDLE_FILES.script);
  const stylesheet = read(CONSOLE_BUNDLE_FILES.stylesheet);
  if (script && stylesheet) return { bundle: { script, stylesheet } };
  const found: Array<[string, Buffer | undefined]> = [
    [CONSOLE_BUNDLE_FILES.script, script],
    [CONSOLE_BUNDLE_FILES.stylesheet, stylesheet],
  ];
  return { missing: found.filter(([, bytes]) => !bytes).map(([name]) => name) };
}

/** The page's root element: the settings the console reads (console/src/session.tsx) as data attributes. */
function consoleRoot(config: Config, devTokenUrl: string | undefined): string {
  const attributes: Array<[string, string]> = [
    ['id', 'console'],
    ['data-endpoint', GRAPHQL_PATH],
    ['data-demo-symbol', config.demo.symbol],
    ...(devTokenUrl ? [['data-dev-token', devTokenUrl] as [string, string]] : []),
  ];
  return `<div ${attributes.map(([name, value]) => `${name}="${escapeHtml(value)}"`).join(' ')}><noscript>The tradegraph console needs JavaScript; the GraphQL API is at ${GRAPHQL_PATH}.</noscript></div>`;
}

/**
 * The development token's subject from the request body: none, `{}` or `{"sub": null}` name the demo
 * book's owner; otherwise `sub` must be a partner id, and no other field is accepted.
 */
export function devTokenSubject(body: unknown): string {
  if (body === undefined || body === null) return DEMO_PARTNER;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('VALIDATION_FAILED', 'The request body must be a JSON object', [{ field: 'body', message: 'expected a JSON object such as {"sub": "partner-1"}' }]);
  }
  const details: ErrorDetail[] = Object.keys(body)
    .filter((key) => key !== 'sub')
    .map((key) => ({ field: key, message: 'unknown field (only sub is accepted)' }));
  const sub = (body as { sub?: unknown }).sub;
  if (sub !== undefined && sub !== null && (typeof sub !== 'string' || !SUBJECT_RE.test(sub))) {
    details.push({ field: 'sub', message: 'expected 1 to 128 characters of letters, digits and . _ : @ -' });
  }
  if (details.length > 0) throw new AppError('VALIDATION_FAILED', 'The development token request is invalid', details);
  return typeof sub === 'string' ? sub : DEMO_PARTNER;
}

/**
 * Registers the console's routes on the gateway origin: the page and its assets, or a 503 in their
 * place when the bundle is missing; and the development token endpoint in development.
 */
export function registerConsole(app: FastifyInstance, config: Config, options: ConsoleOptions = {}): void {
  // In development the identity key signs the token every origin accepts; elsewhere there is no such
  // key, no endpoint, and the page offers only a pasted token.
  const devTokenUrl = signsDevIdTokens(config) ? CONSOLE_DEV_TOKEN_PATH : undefined;
  const dir = options.bundleDir ?? CONSOLE_BUNDLE_DIR;
  const read = readBundle(dir);
  let answer: (reply: FastifyReply) => FastifyReply;
  if ('bundle' in read) {
    const stylesheet = pageAsset(CONSOLE_ASSET_PREFIX, CONSOLE_BUNDLE_FILES.stylesheet, CSS_TYPE, read.bundle.stylesheet);
    const script = pageAsset(CONSOLE_ASSET_PREFIX, CONSOLE_BUNDLE_FILES.script, JS_TYPE, read.bundle.script);
    servePageAssets(app, [stylesheet, script]);
    const page = htmlPage({ title: 'tradegraph console', stylesheets: [stylesheet], body: consoleRoot(config, devTokenUrl), scripts: [script] });
    answer = (reply) => sendPage(reply, page);
  } else {
    app.log.warn({ dir, missing: read.missing }, 'console bundle not built: /console answers 503 until `npm run build` and a restart');
    // The files are named, not where they were looked for (no server path reaches a client).
    const notBuilt = new AppError(
      'SERVICE_UNAVAILABLE',
      'The console is not built: run `npm run build`, then restart the gateway',
      read.missing.map((name) => ({ field: 'console', message: `bundle file ${name} is missing` })),
    );
    answer = (reply) => sendError(reply, notBuilt);
  }
  app.get(CONSOLE_PATH, { schema: { hide: true } }, async (_request, reply) => answer(reply));
  app.get(`${CONSOLE_PATH}/`, { schema: { hide: true } }, async (_request, reply) => answer(reply));

  if (devTokenUrl) {
    app.post(CONSOLE_DEV_TOKEN_PATH, { schema: { hide: true } }, async (request, reply) => {
      const sub = devTokenSubject(request.body);
      const minted = await mintDevelopmentToken(config, { subject: sub, audiences: DEV_TOKEN_AUDIENCES, ttl: DEV_TOKEN_TTL_SECONDS });
      const body: DevTokenAnswer = { token: minted.token, sub, audiences: minted.audiences, expires_in: DEV_TOKEN_TTL_SECONDS };
      return reply.header('cache-control', 'no-store').send(body);
    });
  }
}
