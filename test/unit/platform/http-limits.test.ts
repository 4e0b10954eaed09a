/**
 * The shell's HTTP-level rules (platform/http-limits.ts) as pure functions: which charsets are refused,
 * how Node's parser errors map to registry codes, the raw response written on a refused socket, the
 * timeouts in force and the Retry-After of each 503. The same rules over real sockets are in
 * test/http/hostile-input.test.ts and test/http/slow-clients.test.ts.
 */
import { AppError, ERROR_CODES } from '../../../subgraphs/platform/errors.js';
import {
  charsetRefusal,
  clientErrorRefusal,
  DEFAULT_SERVER_TIMEOUTS,
  MAX_URL_BYTES,
  rawErrorResponse,
  retryAfterSeconds,
  serverTimeouts,
} from '../../../subgraphs/platform/http-limits.js';

describe('charsetRefusal', () => {
  it.each([
    'application/json; charset=utf-16',
    'application/json;charset=UTF-16',
    'application/json; charset="utf-16le"',
    'application/json; CHARSET=latin1',
    'application/json; charset=us-ascii',
    'text/plain; charset=ISO-8859-1',
    'application/json; charset=',
  ])('refuses %s with 415 UNSUPPORTED_MEDIA_TYPE', (contentType) => {
    const err = charsetRefusal(contentType);
    expect(err?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(err?.status).toBe(415);
  });

  it.each([undefined, 'application/json', 'application/json; charset=utf-8', 'application/json; Charset="UTF-8"', 'application/json; boundary=x'])(
    'accepts %s',
    (contentType) => expect(charsetRefusal(contentType)).toBeNull(),
  );
});

describe('clientErrorRefusal', () => {
  const t = serverTimeouts();
  const packet = (text: string) => Buffer.from(text, 'latin1');

  it.each([
    ['ERR_HTTP_REQUEST_TIMEOUT', undefined, 'REQUEST_TIMEOUT'],
    ['HPE_INVALID_VERSION', packet('GET / HTTP/1.7\r\n'), 'HTTP_VERSION_NOT_SUPPORTED'],
    ['HPE_INVALID_METHOD', packet('GARBAGE\r\n\r\n'), 'BAD_REQUEST'],
    ['HPE_INVALID_CONSTANT', packet('GET / XTTP/1.1\r\n'), 'BAD_REQUEST'],
    ['HPE_HEADER_OVERFLOW', packet(`GET / HTTP/1.1\r\nx-big: ${'a'.repeat(20_000)}`), 'HEADERS_TOO_LARGE'],
    ['HPE_HEADER_OVERFLOW', packet(`GET /${'a'.repeat(20_000)}`), 'URI_TOO_LONG'],
    ['HPE_HEADER_OVERFLOW', packet(`GET /${'a'.repeat(MAX_URL_BYTES + 10)} HTTP/1.1\r\nhost: x\r\n`), 'URI_TOO_LONG'],
    ['HPE_HEADER_OVERFLOW', packet('a'.repeat(20_000)), 'HEADERS_TOO_LARGE'],
  ] as const)('%s -> %s', (code, rawPacket, expected) => {
    const err = clientErrorRefusal({ code, rawPacket }, t);
    expect(err?.code).toBe(expected);
    expect(err?.status).toBe(ERROR_CODES[expected]);
  });

  it('answers nobody on a connection the client reset', () => {
    expect(clientErrorRefusal({ code: 'ECONNRESET' }, t)).toBeNull();
  });
});

it('writes a whole HTTP/1.1 response in the error shape, with the trace id and connection: close', () => {
  const text = rawErrorResponse(new AppError('HEADERS_TOO_LARGE', 'too large'), 'trace-1');
  const [head, body] = text.split('\r\n\r\n');
  expect(head.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
  expect(head).toContain('\r\nx-trace-id: trace-1');
  expect(head).toContain('\r\nconnection: close');
  expect(head).toContain(`\r\ncontent-length: ${Buffer.byteLength(body)}`);
  expect(JSON.parse(body)).toEqual({ success: false, error: 'too large', code: 'HEADERS_TOO_LARGE', trace_id: 'trace-1', details: [] });
  expect(rawErrorResponse(new AppError('SERVICE_UNAVAILABLE', 'down'), 't')).toContain('\r\nretry-after: 5\r\n');
});

it('keeps the documented timeouts unless told otherwise, the headers deadline never past the request one', () => {
  expect(DEFAULT_SERVER_TIMEOUTS).toEqual({ requestMs: 30_000, headersMs: 30_000, keepAliveMs: 72_000, checkIntervalMs: 1_000 });
  expect(serverTimeouts({ requestMs: 2000 })).toEqual({ requestMs: 2000, headersMs: 2000, keepAliveMs: 72_000, checkIntervalMs: 1_000 });
  expect(serverTimeouts({ headersMs: 500 }).headersMs).toBe(500);
});

it('gives every 503 code a Retry-After in seconds', () => {
  const unavailable = Object.entries(ERROR_CODES).filter(([, status]) => status === 503).map(([code]) => code as keyof typeof ERROR_CODES);
  expect(unavailable.sort()).toEqual(['AUTH_NOT_CONFIGURED', 'SERVICE_UNAVAILABLE', 'STORAGE_FULL']);
  for (const code of unavailable) expect(retryAfterSeconds(code)).toBeGreaterThan(0);
  expect(retryAfterSeconds('SERVICE_UNAVAILABLE')).toBe(5);
  expect(retryAfterSeconds('STORAGE_FULL')).toBe(60);
  expect(retryAfterSeconds(undefined)).toBe(5);
});
