/**
 * GraphQL types of no domain that more than one subgraph declares: the page info (`@shareable` in each),
 * the reference to the analysis subgraph's `Security` entity that other subgraphs' objects point to, and
 * the date scalar. (Types of the analysis domain that other subgraphs show are in analysis/graphql/:
 * enums.ts and shared-types.ts.)
 */
import 'reflect-metadata';
import { LocalDateResolver } from 'graphql-scalars';
import { Directive, Field, ObjectType } from 'type-graphql';

@Directive('@shareable')
@ObjectType({ description: 'Cursor pagination state' })
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Pass as `after` to get the next page' })
  endCursor!: string | null;
}

/**
 * A reference to the analysis subgraph's entity: only its key lives in the referring subgraph, and
 * the gateway fetches the rest (the security's profile and analysis) from the analysis subgraph.
 */
@Directive('@key(fields: "symbol", resolvable: false)')
@ObjectType('Security')
export class SecurityReference {
  @Field(() => String)
  symbol!: string;
}

/**
 * The one date scalar of every subgraph: a calendar date `YYYY-MM-DD` (no time, no zone). Every date
 * field and argument of every subgraph uses it, so the supergraph has a single definition and clients
 * map it once (instants, such as `producedAt`, stay ISO 8601 strings).
 */
export const DateScalar = LocalDateResolver;
