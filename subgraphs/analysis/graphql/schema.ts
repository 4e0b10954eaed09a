/** The analysis subgraph: owns `Security @key(fields: "symbol")` and its analysis snapshots. */
import type { RequestContext } from '../../platform/context.js';
import { buildSubgraph, type Subgraph } from '../../platform/graphql.js';
import type { AnalysisService } from '../service.js';
import { AnalysisSnapshotResolver, SecurityResolver, toSecurityType } from './resolvers.js';

export function buildAnalysisSubgraph(analysis: AnalysisService): Promise<Subgraph> {
  return buildSubgraph({
    resolvers: [
      [SecurityResolver, new SecurityResolver(analysis)],
      [AnalysisSnapshotResolver, new AnalysisSnapshotResolver(analysis)],
    ],
    referenceResolvers: {
      Security: {
        async __resolveReference(ref: { symbol: string }, ctx: RequestContext) {
          const found = await analysis.getSecurity(await ctx.principal(), ref.symbol);
          return found && toSecurityType(found);
        },
      },
    },
  });
}
