import type { Subgraph } from '../subgraphs/platform/config.js';

/**
 * The operation the GraphQL IDE of each origin opens with: one that runs there without a token. The
 * gateway's is here too, so the IDEs' opening operations have one home; this module imports no domain,
 * so the gateway origin (which loads none) can read it.
 */
export function ideQuery(origin: Subgraph | 'gateway', demoSymbol: string): string {
  switch (origin) {
    case 'gateway':
      return `# The demo symbol's analysis (public fields without a token)\n{\n  security(symbol: "${demoSymbol}") {\n    symbol\n    name\n    analysis {\n      analysisDate\n      stage\n      stageStrength\n      price\n    }\n  }\n}\n`;
    case 'analysis':
      return `# The demo symbol's analysis (public fields without a token)\n{\n  analysis(symbol: "${demoSymbol}") {\n    symbol\n    analysisDate\n    stage\n    stageStrength\n    price\n  }\n}\n`;
    case 'allocation':
      return '{\n  allocationStrategies {\n    name\n    description\n  }\n  allocationLimits {\n    minTotalCapital\n  }\n}\n';
    case 'search':
      return '{\n  huntModes {\n    mode\n    description\n  }\n  searchPagination {\n    maxPageSize\n  }\n}\n';
  }
}
