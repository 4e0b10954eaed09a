/**
 * GraphQL errors in the error-code registry's terms (DESIGN section 5): which AppError a thrown value
 * stands for, and the formatError every GraphQL endpoint (subgraphs and gateway) answers with.
 */
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { isConnectionError, unavailable } from './db.js';
import { AppError, ERROR_CODES, type ErrorCode, type ErrorDetail } from './errors.js';

/** The AppError a thrown value stands for (unwrapping GraphQL's wrapper), or null for anything else. */
export function knownError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  // A GraphQL error's message may repeat the caller's input: only its cause can be a connection error.
  if (err instanceof GraphQLError) return err.originalError ? knownError(err.originalError) : null;
  if (isConnectionError(err)) return unavailable();
  // graphql-js wraps a thrown value that is not an Error of its realm (NonErrorThrown, `thrownValue`).
  const thrown = (err as { thrownValue?: unknown } | null)?.thrownValue;
  if (thrown !== undefined && thrown !== err) return knownError(thrown);
  return null;
}

const APOLLO_CODES: Partial<Record<string, ErrorCode>> = {
  GRAPHQL_PARSE_FAILED: 'GRAPHQL_PARSE_FAILED',
  GRAPHQL_VALIDATION_FAILED: 'GRAPHQL_VALIDATION_FAILED',
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  BAD_REQUEST: 'BAD_REQUEST',
  PERSISTED_QUERY_NOT_SUPPORTED: 'BAD_REQUEST',
  OPERATION_RESOLUTION_FAILURE: 'BAD_REQUEST',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  INVALID_GRAPHQL: 'BAD_REQUEST', // @apollo/gateway: no operation to run (several without operationName, unknown name)
};

/** How much of a subgraph's `details` is relayed: entries, and characters per text. */
const RELAYED_DETAILS_MAX = 20;
const RELAYED_TEXT_MAX = 500;

/**
 * A subgraph's `details` as the registry's shape, `{field?, message}` strings only: another team's
 * subgraph may put anything there (objects, stack traces, whole records), and none of it is read.
 * Entries without a message text are dropped; counts and lengths are capped.
 */
function relayedDetails(details: unknown): ErrorDetail[] {
  if (!Array.isArray(details)) return [];
  const cap = (text: string) => text.slice(0, RELAYED_TEXT_MAX);
  const out: ErrorDetail[] = [];
  for (const entry of details as unknown[]) {
    if (out.length === RELAYED_DETAILS_MAX) break;
    const { field, message } = (entry !== null && typeof entry === 'object' ? entry : {}) as { field?: unknown; message?: unknown };
    if (typeof message !== 'string') continue;
    out.push(typeof field === 'string' ? { field: cap(field), message: cap(message) } : { message: cap(message) });
  }
  return out;
}

/**
 * An error a subgraph reported (in a 200 answer, as @apollo/gateway relays it, or in a refusal, a 4xx,
 * as the gateway's subgraph client does; extensions.serviceName names the subgraph), kept as the
 * federation convention keeps it: its message, path and serviceName, its code when the registry has it
 * (GRAPHQL_VALIDATION_FAILED too: a custom scalar's literal in the caller's query is checked only by
 * the subgraph, so it may be the caller's mistake), else DOWNSTREAM_SERVICE_ERROR with the subgraph's
 * own code (if it gave one) as `downstreamCode`, and its details reduced to the registry's shape
 * (relayedDetails). The platform's subgraphs mask their internals before answering; another team's
 * subgraph answers for its own messages. Its other extensions (a stack trace, say) are dropped.
 */
function subgraphError(formatted: GraphQLFormattedError, serviceName: string): GraphQLFormattedError {
  const own = formatted.extensions?.code;
  const details = relayedDetails(formatted.extensions?.details);
  const registered = typeof own === 'string' && own in ERROR_CODES;
  const extensions = registered
    ? { code: own, details, serviceName }
    : { code: 'DOWNSTREAM_SERVICE_ERROR', details, serviceName, ...(typeof own === 'string' && own !== '' ? { downstreamCode: own } : {}) };
  return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions };
}

/**
 * GraphQL errors in the registry's terms: AppErrors keep their code and details, GraphQL request
 * errors keep their standard code, a subgraph's errors relayed by the gateway keep their message,
 * everything else is masked (no message, path or stack of internals).
 */
export function formatGraphqlError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  // First: a subgraph's message is its own, whatever it looks like (never read as a store error here).
  const serviceName = formatted.extensions?.serviceName;
  if (typeof serviceName === 'string') return subgraphError(formatted, serviceName);
  const original = unwrapResolverError(error);
  const http = knownError(original);
  if (http) {
    return {
      message: http.message,
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: http.code, details: http.details },
    };
  }
  // A registry error the gateway raised for a subgraph call (SERVICE_UNAVAILABLE, a relayed refusal).
  const relayed = String(formatted.extensions?.code ?? '');
  if (relayed in ERROR_CODES) {
    const details = Array.isArray(formatted.extensions?.details) ? formatted.extensions.details : [];
    return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code: relayed, details } };
  }
  // Entity lookups (_entities) naming a type this subgraph does not resolve: the caller's mistake.
  if (original instanceof Error && /^The _entities resolver tried to load an entity for type/.test(original.message)) {
    return { message: 'Unknown entity type in representations', path: formatted.path, extensions: { code: 'BAD_USER_INPUT', details: [] } };
  }
  const code = APOLLO_CODES[relayed];
  if (code) return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code } };
  return { message: 'Internal server error', path: formatted.path, extensions: { code: 'INTERNAL_ERROR' } };
}
