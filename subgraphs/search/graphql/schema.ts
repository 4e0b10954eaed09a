/** The search subgraph: hunt modes and pagination limits (hunt and cash hunt arrive with portfolios). */
import { Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { buildSubgraph, type Subgraph } from '../../platform/graphql.js';
import type { SearchService } from '../service.js';

@ObjectType({ description: 'A mode of the hunt operation' })
export class HuntModeInfo {
  @Field(() => String, { description: 'Value of hunt_mode in responses: general, replace or interest' })
  mode!: string;

  @Field(() => String, { nullable: true, description: 'Query parameter that selects this mode' })
  parameter!: string | null;

  @Field(() => String)
  description!: string;
}

@ObjectType({ description: 'Pagination of hunt and cash hunt' })
export class SearchPagination {
  @Field(() => Int)
  defaultPage!: number;

  @Field(() => Int)
  defaultPageSize!: number;

  @Field(() => Int)
  maxPageSize!: number;
}

@Resolver()
export class SearchInfoResolver {
  constructor(private readonly search: SearchService) {}

  @Query(() => [HuntModeInfo])
  huntModes(): HuntModeInfo[] {
    return this.search.huntModes().map((m) => ({ ...m }));
  }

  @Query(() => SearchPagination)
  searchPagination(): SearchPagination {
    return { ...this.search.pagination() };
  }
}

export function buildSearchSubgraph(search: SearchService): Promise<Subgraph> {
  return buildSubgraph({ resolvers: [[SearchInfoResolver, new SearchInfoResolver(search)]] });
}
