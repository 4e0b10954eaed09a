/**
 * GraphQL errors in the error-code registry's terms (DESIGN section 5): which AppError a thrown value
 * stands for, and the formatError every GraphQL endpoint (subgraphs and gateway) answers with.
 */
import { unwrapResolverError } from '@apollo/server/errors';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { isConnectionError, unavailable } from './db.js';
import { AppError, ERROR_CODES, type ErrorCode } from './errors.js';

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

/**
 * GraphQL errors in the registry's terms: AppErrors keep their code and details, GraphQL request
 * errors keep their standard code, everything else is masked (no message, path or stack of internals).
 */
export function formatGraphqlError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
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
  // A subgraph's error relayed by the gateway already carries a registry code (masked at its source).
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
