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
 * subgraphs take the trace id from X-Trace-Id, else from the W3C traceparent). Of the caller's own
 * headers, nothing else is passed on, as with the gateway origin.
 */
export const PROPAGATED_HEADERS = ['authorization', 'traceparent', 'x-trace-id'] as const;

/** What Hive Gateway's Node server puts in the request's context: the Node request, with its socket. */
interface NodeServerContext {
  req?: { socket?: { remoteAddress?: string } };
}

/**
 * The headers a subgraph gets for a caller: PROPAGATED_HEADERS, and the caller's address as
 * X-Forwarded-For, as the gateway origin sends it (subgraphs that trust the gateway's address count
 * anonymous callers by it). The address is the peer of the connection: unlike the gateway origin,
 * which follows TRUST_PROXY, Hive Gateway behind a proxy of its own sends the proxy's address (a
 * caller's own X-Forwarded-For is never passed on, since anyone can write one).
 */
export function subgraphHeaders({ request, context }: { request: Request; context?: NodeServerContext }): Record<string, string | null> {
  const headers: Record<string, string | null> = Object.fromEntries(PROPAGATED_HEADERS.map((name) => [name, request.headers.get(name)]));
  headers['x-forwarded-for'] = context?.req?.socket?.remoteAddress ?? null;
  return headers;
}

/**
 * What `defineConfig` from '@graphql-hive/gateway' would return, written without importing it: its
 * types widen graphql's error extensions for the whole program (`http.headers` as a record), which
 * the gateway origin sets as Apollo Server's Map.
 */
export const gatewayConfig = {
  supergraph: process.env.SUPERGRAPH_PATH ?? 'schema/supergraph.graphql',
  propagateHeaders: { fromClientToSubgraphs: subgraphHeaders },
};
