/**
 * Hive Gateway (@graphql-hive/gateway) over the platform's supergraph: the same graph as the gateway
 * origin, served by another router. The CI test test/gateway/hive-gateway.test.ts runs it against the
 * three subgraphs and checks that the example operations answer exactly as through the gateway origin.
 *
 *   npm run schema:compose -- --out supergraph.graphql     # routed to SUBGRAPH_<NAME>_URL
 *   npx hive-gateway supergraph supergraph.graphql --port 4000 -c gateway/hive/gateway.config.ts
 *
 * Without a file argument it serves SUPERGRAPH_PATH, else the committed schema/supergraph.graphql
 * (run from the project root). Hive Gateway polls a supergraph file and takes a new version by itself.
 */
/**
 * The caller's headers every subgraph reads: the partner or ID token, and the trace context (the
 * subgraphs take the trace id from X-Trace-Id, else from the W3C traceparent). Nothing else of the
 * caller's is passed on, as with the gateway origin.
 */
export const PROPAGATED_HEADERS = ['authorization', 'traceparent', 'x-trace-id'] as const;

/**
 * What `defineConfig` from '@graphql-hive/gateway' would return, written without importing it: its
 * types widen graphql's error extensions for the whole program (`http.headers` as a record), which
 * the gateway origin sets as Apollo Server's Map.
 */
export const gatewayConfig = {
  supergraph: process.env.SUPERGRAPH_PATH ?? 'schema/supergraph.graphql',
  propagateHeaders: {
    fromClientToSubgraphs: ({ request }: { request: Request }): Record<string, string | null> =>
      Object.fromEntries(PROPAGATED_HEADERS.map((name) => [name, request.headers.get(name)])),
  },
};
