/** Analysis subgraph resolvers: thin calls into AnalysisService (which owns the access policy). */
import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { LocalDateResolver } from 'graphql-scalars';
import type { RequestContext } from '../../platform/context.js';
import type { AnalysisService, Page } from '../service.js';
import { BarConnection, SecurityConnection, SecurityType, type AssetTypeEnum, type DataSourceEnum } from './types.js';
import type { SecurityRecord } from '../engine/market-types.js';

export function toSecurityType(s: SecurityRecord): SecurityType {
  return Object.assign(new SecurityType(), {
    ...s,
    assetType: s.assetType as AssetTypeEnum,
    dataSource: s.dataSource as DataSourceEnum,
  });
}

function connection<T, N>(page: Page<T>, map: (item: T) => N): { nodes: N[]; pageInfo: { hasNextPage: boolean; endCursor: string | null }; totalCount: number } {
  return { nodes: page.items.map(map), pageInfo: { hasNextPage: page.hasMore, endCursor: page.endCursor }, totalCount: page.total };
}

@Resolver(() => SecurityType)
export class SecurityResolver {
  constructor(private readonly analysis: AnalysisService) {}

  @Query(() => SecurityType, { nullable: true, description: 'A security by ticker (case-insensitive); null when unknown' })
  async security(@Arg('symbol', () => String) symbol: string, @Ctx() ctx: RequestContext): Promise<SecurityType | null> {
    const found = await this.analysis.getSecurity(await ctx.principal(), symbol);
    return found && toSecurityType(found);
  }

  @Query(() => SecurityConnection, { description: 'Securities in symbol order (partners only)' })
  async securities(
    @Ctx() ctx: RequestContext,
    @Arg('sector', () => String, { nullable: true, description: 'GICS sector' }) sector?: string,
    @Arg('first', () => Int, { nullable: true, description: 'Page size, default 50, at most 500' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: 'endCursor of the previous page' }) after?: string,
  ): Promise<SecurityConnection> {
    return connection(await this.analysis.listSecurities(await ctx.principal(), { sector, first, after }), toSecurityType);
  }

  @FieldResolver(() => BarConnection, { description: 'Daily bars, oldest first, within [from, to] (partners only)' })
  async bars(
    @Root() security: SecurityType,
    @Ctx() ctx: RequestContext,
    @Arg('from', () => LocalDateResolver, { nullable: true }) from?: string,
    @Arg('to', () => LocalDateResolver, { nullable: true }) to?: string,
    @Arg('first', () => Int, { nullable: true, description: 'Page size, default 250, at most 2000' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: 'endCursor (a date) of the previous page' }) after?: string,
  ): Promise<BarConnection> {
    return connection(await this.analysis.getBars(await ctx.principal(), security.symbol, { from, to, first, after }), (b) => b);
  }
}
