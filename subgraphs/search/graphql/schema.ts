/**
 * The search subgraph: `Query.hunt` and `Query.cashHunt`, the same two operations as fields of
 * `Portfolio` (the allocation subgraph's entity), and the hunt modes and pagination limits. Resolvers
 * are thin: SearchService applies every rule (token, ownership, validation, pagination); the answers
 * are the REST responses with camelCase names and a `security` reference beside every symbol of a
 * recommendation or idea. The arguments are checked by the parameter tables of ../params.ts (the REST
 * query parameters' own), under their GraphQL names.
 */
import { Arg, Ctx, Field, FieldResolver, ID, Int, ObjectType, Query, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../../platform/context.js';
import { buildSubgraph, type Subgraph } from '../../platform/graphql.js';
import type { CashHuntResponse, HuntResponse, SearchService } from '../service.js';
import type { CashHuntParams, HuntParams } from '../params.js';
import { CashHuntType, HuntModeEnum, HuntType, PortfolioRef } from './types.js';
import type { HuntMode } from '../engine/pagination.js';

@ObjectType({ description: 'A mode of the hunt operation' })
export class HuntModeInfo {
  @Field(() => HuntModeEnum, { description: 'Value of huntMode in responses' })
  mode!: HuntMode;

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

const camel = (key: string): string => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * A REST answer with camelCase keys, at every depth; every object with a `symbol` string (an idea, a
 * recommendation, a suitability analysis) also gets `security: { symbol }`, the Security reference.
 */
function toGraphql(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toGraphql);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[camel(k)] = toGraphql(v);
  if (typeof out.symbol === 'string') out.security = { symbol: out.symbol };
  return out;
}

const huntOf = (r: HuntResponse): HuntType => toGraphql(r) as HuntType;
const cashHuntOf = (r: CashHuntResponse): CashHuntType => toGraphql(r) as CashHuntType;

const PAGE_DESCRIPTION = '1-based page, default 1';
const PAGE_SIZE_DESCRIPTION = 'Items per page, default 6, at most 50';

@Resolver()
export class SearchInfoResolver {
  constructor(private readonly search: SearchService) {}

  @Query(() => [HuntModeInfo])
  huntModes(): HuntModeInfo[] {
    return this.search.huntModes().map((m) => ({ ...m }));
  }

  @Query(() => SearchPagination)
  searchPagination(): SearchPagination {
    const p = this.search.pagination();
    return { defaultPage: p.defaultPage, defaultPageSize: p.defaultPageSize, maxPageSize: p.maxPageSize };
  }
}

/** Shared by the root queries and the Portfolio fields: token, budget, then the service. */
async function hunt(search: SearchService, ctx: RequestContext, params: HuntParams): Promise<HuntType> {
  const principal = await ctx.principal();
  await ctx.limitExpensive();
  return huntOf(await search.hunt(principal, { naming: 'graphql', args: params }));
}

async function cashHunt(search: SearchService, ctx: RequestContext, params: CashHuntParams): Promise<CashHuntType> {
  const principal = await ctx.principal();
  await ctx.limitExpensive();
  return cashHuntOf(await search.cashHunt(principal, { naming: 'graphql', args: params }));
}

@Resolver()
export class HuntResolver {
  constructor(private readonly search: SearchService) {}

  @Query(() => HuntType, {
    description: 'REST GET /api/v1/portfolios/hunt: general assessment, or replacements (symbolReplace), or suitability (symbolInterest) for one of your portfolios',
  })
  async hunt(
    @Arg('portfolioId', () => ID) portfolioId: string,
    @Ctx() ctx: RequestContext,
    @Arg('symbolReplace', () => String, { nullable: true, description: 'A held ticker: replacement mode' }) symbolReplace?: string,
    @Arg('symbolInterest', () => String, { nullable: true, description: 'A ticker: suitability mode (not with symbolReplace)' }) symbolInterest?: string,
    @Arg('page', () => Int, { nullable: true, description: PAGE_DESCRIPTION }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true, description: PAGE_SIZE_DESCRIPTION }) pageSize?: number,
  ): Promise<HuntType> {
    return hunt(this.search, ctx, { portfolioId, symbolReplace, symbolInterest, page, pageSize });
  }

  @Query(() => CashHuntType, { description: 'REST GET /api/v1/portfolios/cash-hunt: new positions for the remaining cash of one of your portfolios' })
  async cashHunt(
    @Arg('portfolioId', () => ID) portfolioId: string,
    @Ctx() ctx: RequestContext,
    @Arg('page', () => Int, { nullable: true, description: PAGE_DESCRIPTION }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true, description: PAGE_SIZE_DESCRIPTION }) pageSize?: number,
  ): Promise<CashHuntType> {
    return cashHunt(this.search, ctx, { portfolioId, page, pageSize });
  }
}

@Resolver(() => PortfolioRef)
export class PortfolioSearchResolver {
  constructor(private readonly search: SearchService) {}

  @FieldResolver(() => HuntType, { description: 'Hunt over this portfolio (same rules as Query.hunt)' })
  async hunt(
    @Root() portfolio: PortfolioRef,
    @Ctx() ctx: RequestContext,
    @Arg('symbolReplace', () => String, { nullable: true }) symbolReplace?: string,
    @Arg('symbolInterest', () => String, { nullable: true }) symbolInterest?: string,
    @Arg('page', () => Int, { nullable: true, description: PAGE_DESCRIPTION }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true, description: PAGE_SIZE_DESCRIPTION }) pageSize?: number,
  ): Promise<HuntType> {
    return hunt(this.search, ctx, { portfolioId: portfolio.id, symbolReplace, symbolInterest, page, pageSize });
  }

  @FieldResolver(() => CashHuntType, { description: 'Cash hunt over this portfolio (same rules as Query.cashHunt)' })
  async cashHunt(
    @Root() portfolio: PortfolioRef,
    @Ctx() ctx: RequestContext,
    @Arg('page', () => Int, { nullable: true, description: PAGE_DESCRIPTION }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true, description: PAGE_SIZE_DESCRIPTION }) pageSize?: number,
  ): Promise<CashHuntType> {
    return cashHunt(this.search, ctx, { portfolioId: portfolio.id, page, pageSize });
  }
}

export function buildSearchSubgraph(search: SearchService): Promise<Subgraph> {
  return buildSubgraph({
    resolvers: [
      [SearchInfoResolver, new SearchInfoResolver(search)],
      [HuntResolver, new HuntResolver(search)],
      [PortfolioSearchResolver, new PortfolioSearchResolver(search)],
    ],
    orphanedTypes: [PortfolioRef],
    referenceResolvers: {
      // Only the key: the hunt fields read the portfolio (and check it is the caller's) when asked.
      Portfolio: { __resolveReference: (ref: { id: string }) => ({ id: ref.id }) },
    },
  });
}
