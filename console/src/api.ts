/**
 * The console's one way to the platform: a typed operation (console/generated, from
 * console/operations/*.graphql) POSTed as JSON to the gateway's /graphql on this origin, with the
 * signed-in partner's token when there is one. Every call is bounded by a deadline.
 *
 * Each operation goes as the exact text its manifest entry lists (console/generated/
 * persisted-documents.json, bundled), so a gateway with TRUSTED_DOCUMENTS that lists the console's
 * manifest runs it, and a gateway without one runs it as any other query.
 */
import type { TypedDocumentString } from '../generated/graphql.js';
import persistedDocuments from '../generated/persisted-documents.json' with { type: 'json' };

/** One problem with a field, as every tradegraph error carries them (`extensions.details`). */
export interface ErrorDetail {
  field: string;
  message: string;
}

/** A GraphQL error as the gateway answers it: message, registry code and the fields at fault. */
export interface ConsoleError {
  message: string;
  code?: string;
  details: ErrorDetail[];
  /** The field of the operation the error is about (GraphQL `path`), e.g. `security.bars`. */
  path?: string;
}

/** How long one operation may take before the console gives up on it. */
const OPERATION_TIMEOUT_MS = 30_000;

interface WireError {
  message?: unknown;
  path?: unknown;
  extensions?: { code?: unknown; details?: unknown };
}

function toConsoleError(error: WireError): ConsoleError {
  const details = Array.isArray(error.extensions?.details)
    ? (error.extensions.details as unknown[]).flatMap((d) =>
        d && typeof d === 'object' && typeof (d as ErrorDetail).field === 'string' && typeof (d as ErrorDetail).message === 'string'
          ? [{ field: (d as ErrorDetail).field, message: (d as ErrorDetail).message }]
          : [],
      )
    : [];
  return {
    message: typeof error.message === 'string' ? error.message : 'The request failed',
    code: typeof error.extensions?.code === 'string' ? error.extensions.code : undefined,
    details,
    path: Array.isArray(error.path) ? error.path.join('.') : undefined,
  };
}

/** The console's manifest: "sha256:<hex>" -> the text whose SHA-256 that is (what a trusting gateway compares). */
const MANIFEST: Readonly<Record<string, string | undefined>> = persistedDocuments;

/** The JSON body of a GraphQL-over-HTTP POST. */
export interface OperationBody<V> {
  query: string;
  variables: V;
}

/**
 * The request body the console sends for `document`. The text is the manifest's (looked up by the
 * hash the generated document carries), not `toString()`: the generated document is printed
 * differently from the text that was hashed, and a gateway with trusted documents compares the text
 * exactly. The hash is not sent: the full text alone runs with and without trusted documents, and an
 * APQ hash beside it would only register the document in a gateway's cache. A document without a
 * manifest entry goes as its own text.
 */
export function operationBody<R, V>(document: TypedDocumentString<R, V>, variables: V): OperationBody<V> {
  const hash: unknown = document.__meta__?.hash;
  const listed = typeof hash === 'string' ? MANIFEST[hash] : undefined;
  return { query: listed ?? document.toString(), variables };
}

/** What an operation answered: its data (possibly partial) and its errors. */
export interface Answer<R> {
  data: R | null;
  errors: ConsoleError[];
}

/** Where and how long: the endpoint (default /graphql) and the caller's signal (a view that moved on aborts it). */
export interface CallOptions {
  endpoint?: string;
  signal?: AbortSignal;
}

/**
 * Runs `document` with `variables` and returns data and errors as they came (a field the caller may
 * not read answers null with its error beside the rest). Network failures, timeouts and the caller's
 * abort (code CANCELLED) are errors too.
 */
export async function execute<R, V>(document: TypedDocumentString<R, V>, variables: V, token: string | null, options: CallOptions = {}): Promise<Answer<R>> {
  const deadline = AbortSignal.timeout(OPERATION_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(options.endpoint ?? '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(operationBody(document, variables)),
      signal: options.signal ? AbortSignal.any([options.signal, deadline]) : deadline,
    });
  } catch (err) {
    if (options.signal?.aborted) return { data: null, errors: [{ message: 'Cancelled', code: 'CANCELLED', details: [] }] };
    const timedOut = deadline.aborted;
    return { data: null, errors: [{ message: timedOut ? `No answer within ${OPERATION_TIMEOUT_MS / 1000} s` : 'The gateway cannot be reached', code: timedOut ? 'TIMEOUT' : 'NETWORK', details: [] }] };
  }
  let body: { data?: R | null; errors?: WireError[]; error?: unknown; code?: unknown; details?: unknown };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    if (options.signal?.aborted) return { data: null, errors: [{ message: 'Cancelled', code: 'CANCELLED', details: [] }] };
    return { data: null, errors: [{ message: `HTTP ${res.status}: the answer was not JSON`, details: [] }] };
  }
  // A refusal before GraphQL (a rate limit, a body too large) comes in the REST error shape.
  if (typeof body.error === 'string') return { data: null, errors: [toConsoleError({ message: body.error, extensions: { code: body.code, details: body.details } })] };
  const errors = (body.errors ?? []).map(toConsoleError);
  if (!body.data && errors.length === 0) errors.push({ message: `HTTP ${res.status}: no data`, details: [] });
  return { data: body.data ?? null, errors };
}
