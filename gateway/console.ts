/**
 * The web console on the gateway origin (CONSOLE; on by default outside production):
 *
 * - `GET /console`: one page whose script and stylesheet are the bundle the build writes to
 *   dist/console-bundle (console.js, console.css; a directory of its own, which tsc never writes), served
 *   by the gateway itself under CONSOLE_ASSET_PREFIX as hashed, immutable page assets, under the same
 *   self-only Content-Security-Policy as the GraphQL IDE. The page reaches the platform through this
 *   origin's /graphql only. The bundle is read once, when the origin is built; without it (no build
 *   yet) the page answers 503 saying to build, and the gateway still serves everything else.
 * - `POST /console/dev-token`: a development token for the console's sign-in button, the same token
 *   `tradegraph token --audience analysis,allocation,search` mints (platform/dev-secret.ts), so one
 *   token runs the console's operations on all three subgraphs. It mints a token for any `sub`, so it is
 *   for the developer at this machine only:
 *   - it exists (and the page names it in `data-dev-token`) only with APP_ENV=development, OIDC_ISSUER
 *     unset, and the gateway listening on a loopback interface (HOST 127.0.0.0/8, ::1 or localhost).
 *     `HOST=0.0.0.0` without APP_ENV (development by default) has no such endpoint: the page offers a
 *     pasted token instead;
 *   - each request must come from this machine, directly: a loopback peer address (the socket's, never
 *     a forwarded header), no forwarding header at all (a proxy on this machine makes every client's
 *     peer loopback), a Host of `127.0.0.1`, `localhost` or `[::1]` (any port: a web page reaching the
 *     port through DNS rebinding sends its own host name), and an Origin, when sent, of one of those
 *     hosts (a page of another site posting across origins). Anything else is refused with 403
 *     FORBIDDEN in the error shape before its body is read, and nothing is minted. 403 rather than 404:
 *     the endpoint does exist on this gateway, and a developer who opened the console as
 *     http://my-machine.local:4000 learns why sign-in is refused instead of being told it is absent.
 *
 * Every route is registered after the origin's rate limiter, so each counts against the caller's
 * address budget like any other gateway request; none is in the OpenAPI document.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../subgraphs/platform/config.js';
import { DEMO_PARTNER, mintDevelopmentToken, signsDevIdTokens } from '../subgraphs/platform/dev-secret.js';
import { AppError, type ErrorDetail } from '../subgraphs/platform/errors.js';
import { GRAPHQL_PATH, sendError } from '../subgraphs/platform/http.js';
import { CSS_TYPE, escapeHtml, htmlPage, JS_TYPE, pageAsset, sendPage, servePageAssets } from '../subgraphs/platform/page-assets.js';
import { PROJECT_ROOT } from '../subgraphs/platform/project.js';

const CONSOLE_PATH = '/console';
const CONSOLE_ASSET_PREFIX = '/console/assets';
const CONSOLE_DEV_TOKEN_PATH = '/console/dev-token';
/**
 * Where the build writes the console bundle (scripts/build-console.mjs's OUT_DIR): not dist/console,
 * where tsc emits the console's modules that the server's tests import.
 */
export const CONSOLE_BUNDLE_DIR = path.join(PROJECT_ROOT, 'dist', 'console-bundle');
const CONSOLE_BUNDLE_FILES = { script: 'console.js', stylesheet: 'console.css' } as const;

/** Lifetime of a console development token: an hour, as `tradegraph token` by default. */
const DEV_TOKEN_TTL_SECONDS = 3600;
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

/** Loopback addresses: 127.0.0.0/8 and ::1 (an IPv4-mapped ::ffff:127.x.y.z matches the former). */
const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Whether an address (or HOST's `localhost`) is a loopback one. */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  if (bare.toLowerCase() === 'localhost') return true;
  const family = net.isIP(bare);
  return family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

/** This machine's loopback as a host and optional port: 127.0.0.1, localhost or [::1], any port. */
const LOCAL_HOST = String.raw`(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?`;
/** A Host header naming this machine's loopback. */
const LOCAL_HOST_RE = new RegExp(`^${LOCAL_HOST}$`, 'i');
/** An Origin header of a page served from one of those hosts. */
const LOCAL_ORIGIN_RE = new RegExp(`^https?://${LOCAL_HOST}$`, 'i');
/** Headers a proxy adds: their presence means the socket's peer is the proxy, not the client. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip'] as const;

/**
 * Refuses (403 FORBIDDEN) a development token request that does not come directly from this machine:
 * see the module comment. Each failed condition is a detail, named by what was checked.
 */
function refuseUnlessLocal(request: FastifyRequest): void {
  const details: ErrorDetail[] = [];
  if (!isLoopback(request.socket.remoteAddress)) details.push({ field: 'peer', message: 'the connection does not come from a loopback address' });
  const forwarded = FORWARDING_HEADERS.filter((name) => request.headers[name] !== undefined);
  if (forwarded.length > 0) details.push({ field: 'forwarded', message: `the request came through a proxy (${forwarded.join(', ')})` });
  if (!LOCAL_HOST_RE.test(request.headers.host ?? '')) details.push({ field: 'host', message: 'the Host header must be 127.0.0.1, localhost or [::1]' });
  const origin = request.headers.origin;
  if (origin !== undefined && !LOCAL_ORIGIN_RE.test(origin)) details.push({ field: 'origin', message: 'the Origin header must be a page of 127.0.0.1, localhost or [::1]' });
  if (details.length > 0) {
    throw new AppError('FORBIDDEN', 'Development tokens are issued only to requests made directly on this machine (http://127.0.0.1, localhost or [::1])', details);
  }
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
function devTokenSubject(body: unknown): string {
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
  // key, no endpoint, and the page offers only a pasted token. A gateway listening beyond this machine
  // has none either: the endpoint mints a token for any partner.
  const devTokenUrl = signsDevIdTokens(config) && isLoopback(config.host) ? CONSOLE_DEV_TOKEN_PATH : undefined;
  if (signsDevIdTokens(config) && !devTokenUrl) {
    app.log.info({ host: config.host }, 'console development sign-in is off: HOST is not a loopback interface (paste a token instead)');
  }
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
    // Checked on request, before the body is read: the listening interface alone does not stop a
    // local proxy or a page that rebinds its own host name to 127.0.0.1.
    const onRequest = async (request: FastifyRequest): Promise<void> => refuseUnlessLocal(request);
    app.post(CONSOLE_DEV_TOKEN_PATH, { schema: { hide: true }, onRequest }, async (request, reply) => {
      const sub = devTokenSubject(request.body);
      const minted = await mintDevelopmentToken(config, { subject: sub, audiences: DEV_TOKEN_AUDIENCES, ttl: DEV_TOKEN_TTL_SECONDS });
      const body: DevTokenAnswer = { token: minted.token, sub, audiences: minted.audiences, expires_in: DEV_TOKEN_TTL_SECONDS };
      return reply.header('cache-control', 'no-store').send(body);
    });
  }
}
