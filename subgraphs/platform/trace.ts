/**
 * Trace ids: every response carries `x-trace-id`. An incoming `x-trace-id` (1-128 characters of
 * [A-Za-z0-9._-]) is honoured; otherwise the trace-id of a W3C `traceparent`; otherwise a new one.
 * Requests Node refuses before Fastify sees them get theirs from the raw request head (traceIdFromRawHead).
 */
import { randomUUID } from 'node:crypto';

const TRACE_ID_RE = /^[A-Za-z0-9._-]{1,128}$/;
const TRACEPARENT_RE = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

type HeaderValue = string | string[] | undefined;
const first = (v: HeaderValue): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * 32 hex digits (the W3C trace-id form) with 122 random bits: a v4 UUID without its dashes. randomUUID
 * draws from a pre-filled entropy buffer, which costs a fraction of a randomBytes call per request.
 */
export function newTraceId(): string {
  return randomUUID().replace(/-/g, '');
}

export function traceIdFrom(headers: Record<string, HeaderValue>): string {
  const explicit = first(headers['x-trace-id'])?.trim();
  if (explicit && TRACE_ID_RE.test(explicit)) return explicit;
  const parent = first(headers.traceparent)?.trim().toLowerCase();
  const match = parent ? TRACEPARENT_RE.exec(parent) : null;
  if (match && !/^0+$/.test(match[1])) return match[1];
  return newTraceId();
}

/** Bytes of a raw request head searched for trace headers (Node's whole header limit). */
const RAW_HEAD_SCAN_BYTES = 16 * 1024;

/**
 * The trace id of a request Node refused before parsing its headers (clientError): the `x-trace-id`
 * or `traceparent` lines among the raw bytes received, when they are there, else a new id.
 */
export function traceIdFromRawHead(raw: unknown): string {
  if (!Buffer.isBuffer(raw)) return newTraceId();
  const headers: Record<string, string> = {};
  for (const line of raw.subarray(0, RAW_HEAD_SCAN_BYTES).toString('latin1').split('\r\n').slice(1)) {
    if (line === '') break;
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    if (colon > 0 && (name === 'x-trace-id' || name === 'traceparent') && !(name in headers)) headers[name] = line.slice(colon + 1);
  }
  return traceIdFrom(headers);
}
