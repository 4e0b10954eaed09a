/**
 * GraphQL object types more than one subgraph declares: value types (`@shareable` in each), and the
 * reference to the analysis subgraph's `Security` entity that other subgraphs' objects point to.
 */
import 'reflect-metadata';
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
