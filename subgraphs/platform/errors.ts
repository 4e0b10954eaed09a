/**
 * The one error-code registry. Every non-2xx response on every origin (REST and GraphQL) carries one of
 * these codes, with the HTTP status it maps to. Add a code here before using it anywhere else.
 *
 * Wire shape (DESIGN section 5):
 *   {"success": false, "error": "<message>", "code": "<UPPER_SNAKE>", "trace_id": "...", "details": [...]}
 */
export const ERROR_CODES = {
  BAD_REQUEST: 400,
  // GraphQL request errors keep the codes GraphQL clients already know (Apollo Server's).
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  BAD_USER_INPUT: 400,
  VALIDATION_FAILED: 400,
  MALFORMED_JSON: 400,
  /** An unauthenticated optimize whose body is not the documented demo body (spec "Allocation service" rule 1). */
  DEMO_BODY_MISMATCH: 400,
  /** An Idempotency-Key the partner already used for a different request (optimize, a new book, a trade, a rebalance). */
  IDEMPOTENCY_KEY_REUSED: 400,
  /** A buy that costs more than the book's cash (there is no margin). */
  INSUFFICIENT_CASH: 400,
  /** A sale of more shares than the book holds (there are no short positions). */
  INSUFFICIENT_SHARES: 400,
  /** A GraphQL operation above a depth, alias, directive or cost limit (platform/graphql-limits). */
  QUERY_LIMIT_EXCEEDED: 400,
  /** A request document (JSON body or GraphQL variables) nested deeper than MAX_JSON_DEPTH. */
  REQUEST_TOO_DEEP: 400,
  /**
   * An automatic persisted query (extensions.persistedQuery) whose hash the server does not know: Apollo
   * clients then resend it with its query text. Answered with HTTP 200, as Apollo Server does (clients
   * read the code, not the status).
   */
  PERSISTED_QUERY_NOT_FOUND: 200,
  /**
   * An operation that is not in the gateway's manifest of trusted documents (TRUSTED_DOCUMENTS), as
   * Apollo Router's safelist and Hive's persisted documents refuse it.
   */
  PERSISTED_QUERY_NOT_IN_LIST: 400,
  /**
   * An error a subgraph reported with no code or one outside this registry, relayed by the gateway as the
   * federation convention does: its message, `serviceName`, and its own code as `downstreamCode`.
   */
  DOWNSTREAM_SERVICE_ERROR: 502,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  /** No stored analysis snapshot for the symbol (or for the symbol on the requested date). */
  ANALYSIS_NOT_FOUND: 404,
  /** No portfolio with that id among the caller's own (someone else's is reported the same way). */
  PORTFOLIO_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** The request did not arrive in full within the server's request or header timeout. */
  REQUEST_TIMEOUT: 408,
  /** A write to a book sent with If-Match (GraphQL: expectedVersion) on a version that is no longer current. */
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  /** A request target longer than the server accepts. */
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  /** Request headers larger than the server accepts. */
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  /** An HTTP version other than 1.0 and 1.1. */
  HTTP_VERSION_NOT_SUPPORTED: 505,
  SERVICE_UNAVAILABLE: 503,
  /** The embedded store's disk is full: writes are refused until space is freed (reads still work). */
  STORAGE_FULL: 503,
  AUTH_NOT_CONFIGURED: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** One entry of `details`: which input was wrong and why. */
export interface ErrorDetail {
  field?: string;
  message: string;
  [key: string]: unknown;
}

/** An error a client caused or may retry; its message is safe to show. Anything else is masked as 500. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[];

  constructor(code: ErrorCode, message: string, details: ErrorDetail[] = []) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CODES[code];
    this.details = details;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** The body every origin sends with a non-2xx status. */
export interface ErrorBody {
  success: false;
  error: string;
  code: ErrorCode;
  trace_id: string;
  details: ErrorDetail[];
}

export function errorBody(err: AppError, traceId: string): ErrorBody {
  return { success: false, error: err.message, code: err.code, trace_id: traceId, details: err.details };
}

/** Masks anything that is not an AppError: the message of an unexpected error never reaches a client. */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  return new AppError('INTERNAL_ERROR', 'Internal server error');
}
