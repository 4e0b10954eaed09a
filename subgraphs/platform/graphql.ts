/**
 * Builds an Apollo Federation 2 subgraph from type-graphql classes:
 *   buildSchema -> printSchemaWithDirectives -> buildSubgraphSchema,
 * with one federation `@link` import list for every subgraph. Resolver instances come from the
 * caller (constructed with their service), so resolvers stay thin and testable.
 */
import 'reflect-metadata';
import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { parse, type GraphQLSchema } from 'graphql';
import { buildSchema, createResolversMap, type ContainerType, type NonEmptyArray } from 'type-graphql';

export const FEDERATION_VERSION = 'v2.7';
export const FEDERATION_IMPORTS = ['@key', '@shareable', '@external', '@requires', '@provides', '@inaccessible'] as const;
const LINK = `extend schema @link(url: "https://specs.apollo.dev/federation/${FEDERATION_VERSION}", import: [${FEDERATION_IMPORTS.map((d) => `"${d}"`).join(', ')}])`;

/** A resolver class and the instance that serves it. */
export type ResolverBinding = readonly [abstract new (...args: never[]) => object, object];

/** typeName -> fieldName -> resolver (the shape buildSubgraphSchema takes). */
type ResolverMap = Record<string, Record<string, unknown>>;

/** `__resolveReference` of an entity: gets the key fields, returns the entity or null. */
export type ReferenceResolver<Ref, Ctx> = (reference: Ref, context: Ctx) => unknown;

export interface SubgraphDefinition {
  resolvers: NonEmptyArray<ResolverBinding>;
  /** Entity reference resolvers: `{ Security: { __resolveReference(ref, ctx) {...} } }`. */
  referenceResolvers?: Record<string, { __resolveReference: ReferenceResolver<never, never> }>;
  /** Types no resolver returns but the subgraph must still declare. */
  orphanedTypes?: Function[];
}

export interface Subgraph {
  schema: GraphQLSchema;
  /** The subgraph SDL as a registry stores it (the committed `schema/<name>.graphql`). */
  sdl: string;
}

export async function buildSubgraph(definition: SubgraphDefinition): Promise<Subgraph> {
  const instances = new Map<unknown, object>(definition.resolvers.map(([cls, instance]) => [cls, instance]));
  const container: ContainerType = {
    get(someClass) {
      const instance = instances.get(someClass);
      if (!instance) throw new Error(`No resolver instance bound for ${(someClass as { name?: string }).name}`);
      return instance;
    },
  };
  const classes = definition.resolvers.map(([cls]) => cls) as unknown as NonEmptyArray<Function>;
  const typeSchema = await buildSchema({
    resolvers: classes,
    orphanedTypes: definition.orphanedTypes,
    container,
    validate: { forbidUnknownValues: false },
    emitSchemaFile: false,
  });
  const typeDefs = parse(`${LINK}\n${printSchemaWithDirectives(typeSchema)}`);
  const resolvers = createResolversMap(typeSchema) as ResolverMap;
  for (const [typeName, fields] of Object.entries(definition.referenceResolvers ?? {})) {
    resolvers[typeName] = { ...resolvers[typeName], ...fields };
  }
  const schema = buildSubgraphSchema({ typeDefs, resolvers: resolvers as Parameters<typeof buildSubgraphSchema>[0] extends { resolvers?: infer R } ? R : never });
  return { schema, sdl: printSubgraphSchema(schema) };
}
