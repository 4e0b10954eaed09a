/**
 * The shell's limits on the HTTP exchange itself, before a route sees a request, and the refusals
 * that enforce them (every one in the error shape with an `x-trace-id`):
 *
 * - Timeouts (ServerTimeouts): headers and the whole request must arrive within `requestMs`
 *   (REQUEST_TIMEOUT_MS, 30 s); Node checks every `checkIntervalMs` (1 s), so a slow client is cut
 *   at most a second past its deadline, with 408 REQUEST_TIMEOUT when no response has started.
 *   An idle keep-alive connection closes after `keepAliveMs` (72 s, beyond the 60 s idle timeout of
 *   common load balancers, so the balancer is the one that closes first).
 * - Refusals Node makes while parsing (its `clientError` event): 431 HEADERS_TOO_LARGE (request line
 *   and headers over Node's 16 KiB), 414 URI_TOO_LONG (a request line over MAX_URL_BYTES that ran
 *   into that limit), 505 HTTP_VERSION_NOT_SUPPORTED, 400 BAD_REQUEST (anything else unparseable),
 *   408 REQUEST_TIMEOUT. Written as a raw HTTP/1.1 response, `connection: close`, then the socket goes.
 * - Refusals of a parsed request (requestLineRefusal): a URL over MAX_URL_BYTES (414), an HTTP version
 *   other than 1.0 and 1.1 (505), an HTTP/1.1 request without Host (400).
 * - A body declared in a charset other than UTF-8 (charsetRefusal): 415, never read as UTF-8.
 * - Every 503 says when to retry (retryAfterSeconds).
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, errorBody, type ErrorCode } from './errors.js';

/** How long a client may take, and how often Node looks. All in milliseconds. */
export interface ServerTimeouts {
  /** The whole request (headers and body) must have arrived within this (Node's requestTimeout). */
  requestMs: number;
  /** The request line and headers must have arrived within this (Node's headersTimeout); at most requestMs. */
  headersMs: number;
  /** An idle keep-alive connection is closed after this (Node's keepAliveTimeout). */
  keepAliveMs: number;
  /** How often Node checks the two deadlines above (connectionsCheckingInterval). */
  checkIntervalMs: number;
}

/** Longest time a request may take to arrive in full. */
export const REQUEST_TIMEOUT_MS = 30_000;

export const DEFAULT_SERVER_TIMEOUTS: Readonly<ServerTimeouts> = {
  requestMs: REQUEST_TIMEOUT_MS,
  headersMs: REQUEST_TIMEOUT_MS,
  keepAliveMs: 72_000,
  checkIntervalMs: 1_000,
};

/** The timeouts in force: the defaults with any override, the headers deadline never past the request's. */
export function serverTimeouts(overrides: Partial<ServerTimeouts> = {}): ServerTimeouts {
  const t = { ...DEFAULT_SERVER_TIMEOUTS, ...overrides };
  return { ...t, headersMs: Math.min(t.headersMs, t.requestMs) };
}

/** Longest request target (path and query) accepted, in bytes; longer ones get 414 URI_TOO_LONG. */
export const MAX_URL_BYTES = 8192;

/** Seconds a client should wait before retrying a 503, by code (any other 503 gets DEFAULT_RETRY_AFTER_SECONDS). */
export const RETRY_AFTER_SECONDS: Partial<Record<ErrorCode, number>> = {
  SERVICE_UNAVAILABLE: 5,
  STORAGE_FULL: 60,
  AUTH_NOT_CONFIGURED: 60,
};
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

export function retryAfterSeconds(code: ErrorCode | undefined): number {
  return (code && RETRY_AFTER_SECONDS[code]) ?? DEFAULT_RETRY_AFTER_SECONDS;
}

const METHOD_PREFIX = /^[A-Z]{3,16} /;

/**
 * Whether Node's header overflow happened in the request line: the packet starts a request and its
 * first line is longer than MAX_URL_BYTES, or has no end in the packet (then the line alone filled
 * Node's limit). A long URL that arrived in several pieces is reported as 431 instead.
 */
function requestLineOverflowed(raw: unknown): boolean {
  if (!Buffer.isBuffer(raw)) return false;
  const head = raw.subarray(0, MAX_URL_BYTES + 32).toString('latin1');
  if (!METHOD_PREFIX.test(head)) return false;
  const end = head.indexOf('\r\n');
  return end === -1 || end > MAX_URL_BYTES;
}

/** A refusal from Node's parser (`clientError`) in the registry's terms; null when there is no one to answer. */
export function clientErrorRefusal(err: { code?: string; rawPacket?: unknown }, timeouts: ServerTimeouts): AppError | null {
  switch (err.code) {
    case 'ECONNRESET':
      return null;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT', `The request did not arrive in full within ${timeouts.requestMs / 1000} s`);
    case 'HPE_HEADER_OVERFLOW':
      return requestLineOverflowed(err.rawPacket)
        ? new AppError('URI_TOO_LONG', `The request target is longer than ${MAX_URL_BYTES} bytes`)
        : new AppError('HEADERS_TOO_LARGE', 'The request headers are larger than this server accepts');
    case 'HPE_INVALID_VERSION':
      return new AppError('HTTP_VERSION_NOT_SUPPORTED', 'Only HTTP/1.0 and HTTP/1.1 are supported');
    default:
      return new AppError('BAD_REQUEST', 'The request is not valid HTTP');
  }
}

/** A whole HTTP/1.1 error response, for a socket Fastify never got a request from. */
export function rawErrorResponse(err: AppError, traceId: string): string {
  const body = JSON.stringify(errorBody(err, traceId));
  return [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? 'Error'}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(body)}`,
    `x-trace-id: ${traceId}`,
    ...(err.status === 503 ? [`retry-after: ${retryAfterSeconds(err.code)}`] : []),
    'connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Answers on a socket Node refused, as Node itself would: only when nothing of a response has been
 * written to it yet (a slow upload's handler has not answered), then the connection is destroyed.
 */
export function answerOnSocket(socket: Duplex, err: AppError, traceId: string): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) socket.write(rawErrorResponse(err, traceId));
  socket.destroy();
}

/** A parsed request the shell refuses before routing: too long a URL, an unsupported version, no Host. */
export function requestLineRefusal(raw: IncomingMessage): AppError | null {
  if (raw.httpVersionMajor !== 1) return new AppError('HTTP_VERSION_NOT_SUPPORTED', 'Only HTTP/1.0 and HTTP/1.1 are supported');
  if ((raw.url ?? '').length > MAX_URL_BYTES) return new AppError('URI_TOO_LONG', `The request target is longer than ${MAX_URL_BYTES} bytes`);
  if (raw.httpVersionMinor === 1 && raw.headers.host === undefined) return new AppError('BAD_REQUEST', 'An HTTP/1.1 request needs a Host header');
  return null;
}

/**
 * 415 for a body declared in any charset but UTF-8 (`charset=utf-16`, `charset="ISO-8859-1"`, any
 * case): the body would otherwise be read as UTF-8 and mean something else. No charset is UTF-8.
 */
export function charsetRefusal(contentType: string | undefined): AppError | null {
  if (!contentType || !contentType.includes(';')) return null;
  for (const param of contentType.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').trim().toLowerCase();
    if (charset !== 'utf-8') {
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported charset; send the body as UTF-8', [
        { field: 'content-type', message: `charset ${JSON.stringify(charset.slice(0, 40))} is not supported; use utf-8` },
      ]);
    }
  }
  return null;
}
