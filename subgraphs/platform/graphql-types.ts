/** GraphQL object types every subgraph shares (value types, so `@shareable` in each). */
import { Directive, Field, ObjectType } from 'type-graphql';

@Directive('@shareable')
@ObjectType({ description: 'Cursor pagination state' })
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Pass as `after` to get the next page' })
  endCursor!: string | null;
}
