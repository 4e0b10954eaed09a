/** The SDL of each subgraph as the code defines it today. */
import { buildAllocationSubgraph } from '../subgraphs/allocation/graphql/schema.js';
import { PortfolioService } from '../subgraphs/allocation/portfolios.js';
import { AllocationService } from '../subgraphs/allocation/service.js';
import { buildAnalysisSubgraph } from '../subgraphs/analysis/graphql/schema.js';
import { AnalysisService } from '../subgraphs/analysis/service.js';
import { offlineDb } from '../subgraphs/platform/db.js';
import { buildSearchSubgraph } from '../subgraphs/search/graphql/schema.js';
import { SearchService } from '../subgraphs/search/service.js';
import type { SubgraphSdls } from './registry.js';

export async function codeSdls(): Promise<SubgraphSdls> {
  const db = offlineDb(); // printing a schema runs no resolver
  const [analysis, allocation, search] = await Promise.all([
    buildAnalysisSubgraph(new AnalysisService(db, 'DEMO')),
    buildAllocationSubgraph(new AllocationService(db), new PortfolioService(db)),
    buildSearchSubgraph(new SearchService(db)),
  ]);
  return { analysis: analysis.sdl, allocation: allocation.sdl, search: search.sdl };
}
