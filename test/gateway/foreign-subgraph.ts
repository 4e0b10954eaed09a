/**
 * A subgraph the platform does not own: another team's "inventory" service, a real @apollo/subgraph
 * schema in Apollo Server's standalone HTTP server on port 0. Its resolvers fail the ways such a
 * service fails: a GraphQLError with its own code, one with a registry code, a plain Error (Apollo
 * Server answers INTERNAL_SERVER_ERROR with the message), and an error with no code at all. Every error
 * it answers carries its stack trace.
 *
 * It serves every field from the start; a supergraph may know only some of them (INVENTORY_V1_SDL)
 * or all (INVENTORY_V2_SDL), as when the team ships a field and the supergraph is composed again.
 */
import { composeServices } from '@apollo/composition';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { GraphQLError, parse } from 'graphql';

const LINK = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@shareable"])';

/** The inventory subgraph as first composed. */
export const INVENTORY_V1_SDL = `${LINK}
type Query {
  inventoryNote: String
  stock(sku: String!): Int
  restock: Int
  reserved: Int
  legacyCount: Int
}`;

/** The same subgraph with one more field (`warehouse`). */
export const INVENTORY_V2_SDL = INVENTORY_V1_SDL.replace('type Query {', 'type Query {\n  warehouse: String');

const resolvers = {
  Query: {
    inventoryNote: () => 'inventory answers',
    warehouse: () => 'north',
    stock: () => {
      throw new GraphQLError('inventory offline', { extensions: { code: 'INVENTORY_DOWN' } });
    },
    restock: () => {
      throw new Error('restock queue jammed');
    },
    reserved: () => {
      throw new GraphQLError('reservations are for staff only', { extensions: { code: 'FORBIDDEN' } });
    },
    legacyCount: () => {
      throw new Error('legacy backend said no');
    },
  },
};

export interface ForeignSubgraph {
  url: string;
  stop(): Promise<void>;
}

export async function startInventorySubgraph(): Promise<ForeignSubgraph> {
  const server = new ApolloServer({
    schema: buildSubgraphSchema({ typeDefs: parse(INVENTORY_V2_SDL), resolvers }),
    plugins: [ApolloServerPluginInlineTraceDisabled()],
    // Its errors carry their stack traces (as a service in development mode sends them), whatever NODE_ENV
    // says: the gateway must drop them.
    includeStacktraceInErrorResponses: true,
    // A service that is not Apollo Server may send an error without any code: this one does for legacyCount.
    formatError: (formatted) => {
      if (formatted.message !== 'legacy backend said no') return formatted;
      const { code: _code, ...rest } = formatted.extensions ?? {};
      return { ...formatted, extensions: rest };
    },
  });
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  return { url, stop: () => server.stop() };
}

/** A supergraph of the given subgraphs (name, routing URL, SDL), or the composition errors thrown. */
export function composeSupergraph(subgraphs: ReadonlyArray<{ name: string; url: string; sdl: string }>): string {
  const result = composeServices(subgraphs.map((s) => ({ name: s.name, url: s.url, typeDefs: parse(s.sdl) })));
  if (result.errors) throw new Error(`composition failed: ${result.errors.map((e) => e.message).join('; ')}`);
  return result.supergraphSdl;
}
