/**
 * Trace ids: every response carries `x-trace-id`. An incoming `x-trace-id` (1-128 characters of
 * [A-Za-z0-9._-]) is honoured; otherwise the trace-id of a W3C `traceparent`; otherwise a new one.
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
