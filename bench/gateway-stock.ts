/**
 * The stock stack bench:gateway measures against: @apollo/gateway inside Apollo Server's standalone
 * HTTP server, default settings, over the committed supergraph, forwarding the caller's Authorization
 * (the one change a federated deployment needs for authenticated subgraphs).
 *
 * In the bench's process (startStockGateway), or as a process of its own:
 *   node dist/bench/gateway-stock.js '<subgraph URLs as JSON>'   prints `stock gateway <url>` when listening
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { ApolloGateway, RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { SUPERGRAPH_FILE } from '../gateway/gateway.js';

interface StockContext {
  authorization?: string;
}

export interface StockGateway {
  url: string;
  stop(): Promise<void>;
}

/** Starts the stock stack on 127.0.0.1 (any port), routing each subgraph to `subgraphUrls[name]`. */
export async function startStockGateway(subgraphUrls: Record<string, string>): Promise<StockGateway> {
  const supergraphSdl = fs.readFileSync(SUPERGRAPH_FILE, 'utf8');
  const stock = new ApolloServer<StockContext>({
    gateway: new ApolloGateway({
      supergraphSdl,
      buildService: ({ name, url }) =>
        new (class extends RemoteGraphQLDataSource<StockContext> {
          override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<StockContext>) {
            if (context.authorization) request.http?.headers.set('authorization', context.authorization);
          }
        })({ url: subgraphUrls[name] ?? url }),
    }),
  });
  const { url } = await startStandaloneServer(stock, {
    listen: { host: '127.0.0.1', port: 0 },
    context: async ({ req }) => ({ authorization: req.headers.authorization }),
  });
  return { url, stop: () => stock.stop() };
}

export const STOCK_READY = /^stock gateway (http:\/\/\S+)/m;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.env.APOLLO_TELEMETRY_DISABLED ??= 'true';
  startStockGateway(JSON.parse(process.argv[2] ?? '{}') as Record<string, string>).then(
    (stock) => {
      console.log(`stock gateway ${stock.url}`);
      const stop = () => void stock.stop().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
