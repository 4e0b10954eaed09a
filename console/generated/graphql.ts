/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type AllocationStrategy =
  | 'CONFIDENCE_WEIGHTED'
  | 'EQUAL_WEIGHT'
  | 'HYBRID_WEIGHTED'
  | 'KELLY_CRITERION'
  | 'STAGE_WEIGHTED';

/** What kind of instrument a security is */
export type AssetType =
  | 'EQUITY'
  | 'INDEX';

/** A kind of portfolio-level risk */
export type ConcernType =
  | 'BROKEN_SUPPORT'
  | 'CASH_DRAG'
  | 'CORRELATED_PAIR'
  | 'HIGH_VOLATILITY'
  | 'SECTOR_CONCENTRATION'
  | 'STALE_ANALYSIS';

/** spec ConstraintPackV1 */
export type ConstraintPackInput = {
  /** reserved placeholder, recorded only (the covariance is always Ledoit-Wolf shrunk) */
  covarianceModel?: string | null | undefined;
  /** one-way annual turnover cap as a fraction, 0..10; binds against prior_book_weights, otherwise only reported in the diagnostics */
  maxPortfolioTurnoverAnnual?: number | null | undefined;
  schemaVersion: string;
  /** sector label -> max weight 0..1; the DEFAULT key is a per-name cap merged with max_position_size */
  sectorCaps?: Record<string, unknown> | null | undefined;
  /** annualised volatility target as a fraction, 0.0001..2 */
  volTargetAnnual?: number | null | undefined;
};

/** Where the bars came from; SYNTHETIC marks the generated demo market */
export type DataSource =
  | 'IMPORTED'
  | 'SYNTHETIC';

/** MEASURED when an as-of evidence table exists on or before the snapshot date, NOT_MEASURED otherwise */
export type EvidenceStatus =
  | 'MEASURED'
  | 'NOT_MEASURED';

/** Which answer a hunt gives (REST hunt_mode: 'general', 'replace', 'interest') */
export type HuntMode =
  | 'GENERAL'
  | 'INTEREST'
  | 'REPLACE';

/** spec InvestorProfileV1: a questionnaire snapshot stored with the portfolio */
export type InvestorProfileInput = {
  /** ISO 8601 time the questionnaire was answered */
  recordedAt?: string | null | undefined;
  riskQuizAnswers?: Record<string, unknown> | null | undefined;
  schemaVersion: string;
  suggestedPreset?: SuggestedPresetInput | null | undefined;
};

/** Pattern lifecycle: FORMING (not yet confirmed), ACTIVE (confirmed, target not reached), COMPLETED (target reached), FAILED (invalidated) */
export type PatternStatus =
  | 'ACTIVE'
  | 'COMPLETED'
  | 'FAILED'
  | 'FORMING';

/** Chart pattern classifier */
export type PatternType =
  | 'ASCENDING_TRIANGLE'
  | 'BEAR_FLAG'
  | 'BULL_FLAG'
  | 'CUP_AND_HANDLE'
  | 'DESCENDING_TRIANGLE'
  | 'DOUBLE_BOTTOM'
  | 'DOUBLE_TOP'
  | 'HEAD_AND_SHOULDERS'
  | 'INVERSE_HEAD_AND_SHOULDERS'
  | 'RANGE_BREAKOUT'
  | 'SYMMETRICAL_TRIANGLE';

/** spec PolicyExplanationV1 (a client hint: the server replaces it with its own) */
export type PolicyExplanationInput = {
  bullets?: Array<string> | null | undefined;
  mapperVersion?: string | null | undefined;
  presetKey?: string | null | undefined;
  schemaVersion?: string | null | undefined;
};

/** spec PortfolioRequest */
export type PortfolioRequestInput = {
  constraintPack?: ConstraintPackInput | null | undefined;
  /** ISO 4217 currency code; default USD */
  currency?: string | null | undefined;
  description?: string | null | undefined;
  investorProfile?: InvestorProfileInput | null | undefined;
  name: string;
  policyExplanation?: PolicyExplanationInput | null | undefined;
  /** symbol -> fraction 0..1 of total_capital held before; used for rebalance-only blending with the constraint pack's turnover cap */
  priorBookWeights?: Record<string, unknown> | null | undefined;
  /** raw risk-quiz answers, quiz key -> answer string; they choose the preset when there are no risk_settings */
  riskQuizAnswers?: Record<string, unknown> | null | undefined;
  riskSettings?: RiskSettingsInput | null | undefined;
  suggestedPreset?: SuggestedPresetInput | null | undefined;
  /** capital to allocate, 1000..1000000000000 */
  totalCapital: number;
};

/** A rebalance of a book (REST POST /api/v1/portfolios/{id}/rebalance): the optimizer's target from the book's value, with the book as the prior weights */
export type RebalanceInput = {
  constraintPack?: ConstraintPackInput | null | undefined;
  riskSettings?: RiskSettingsInput | null | undefined;
};

/** What to do with a holding */
export type RecommendationType =
  | 'ADD'
  | 'EXIT'
  | 'HOLD'
  | 'REPLACE'
  | 'TRIM';

/** spec RiskSettings; every omitted field takes the server default (see allocationLimits) */
export type RiskSettingsInput = {
  allocationStrategy?: AllocationStrategy | null | undefined;
  halfKelly?: boolean | null | undefined;
  /** fraction 0..1 of capital at risk across all stops; default 0.05 */
  maxPortfolioRisk?: number | null | undefined;
  /** max weight of a single name, fraction 0..1; default 0.2 */
  maxPositionSize?: number | null | undefined;
  /** maximum number of positions, 1..500; default 30 */
  maxPositions?: number | null | undefined;
  /** fraction 0..1 of capital at risk per position (shares x (entry - stop)); default 0.01 */
  maxRiskPerTrade?: number | null | undefined;
  /** Kelly reward scale, 0.001..100, used with KELLY_CRITERION */
  rewardMultiplier?: number | null | undefined;
  /** softmax temperature of the softmax-style strategies, 0.001..100: higher gives more uniform weights */
  softmaxTemperature?: number | null | undefined;
  /** stage -> factor 0..100 for the stage and hybrid strategies, e.g. {"STAGE 2": 1, "STAGE 1": 0.3}; keys STAGE 1..STAGE 4 (or 1..4, any case, with a space, _ or -) */
  stageWeights?: Record<string, unknown> | null | undefined;
};

/** A trading signal */
export type Signal =
  | 'BUY'
  | 'HOLD'
  | 'SELL';

/** Weinstein stage: STAGE_1 basing, STAGE_2 advancing, STAGE_3 topping, STAGE_4 declining (REST: 'STAGE 1' .. 'STAGE 4') */
export type Stage =
  | 'STAGE_1'
  | 'STAGE_2'
  | 'STAGE_3'
  | 'STAGE_4';

/** How clearly the bars show the stage */
export type StageStrength =
  | 'MODERATE'
  | 'STRONG'
  | 'VERY_STRONG'
  | 'WEAK';

/** Preset key and description from the risk wizard */
export type SuggestedPresetInput = {
  description?: string | null | undefined;
  key?: string | null | undefined;
};

/** BUY adds shares and spends cash; SELL removes shares and adds the proceeds */
export type TradeSide =
  | 'BUY'
  | 'SELL';

export type ConsoleIdeaFragment = { symbol: string, sector: string, fitScore: number, signalQuality: number, stage: Stage | null, signal: Signal | null, shares: number, entryPrice: number, stopLoss: number, targetPrice: number | null, positionValue: number, riskAmount: number, riskRewardRatio: number, percentOfPortfolio: number, correlationToPortfolio: number | null, sectorWeightAfter: number, addedVolatility: number, reasons: Array<string> };

export type ConsoleSearchPaginationQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleSearchPaginationQuery = { searchPagination: { defaultPageSize: number, maxPageSize: number } };

export type ConsoleBooksQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleBooksQuery = { portfolios: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ id: string, name: string, source: string | null, currency: string, totalValue: number | null, cash: number | null, positionCount: number, createdAt: string, updatedAt: string | null }> } };

export type ConsoleBookQueryVariables = Exact<{
  id: string | number;
}>;


export type ConsoleBookQuery = { portfolio: { id: string, name: string, description: string | null, source: string | null, currency: string, version: number | null, cash: number | null, holdingsValue: number | null, totalValue: number | null, costTotal: number | null, unrealisedPnl: number | null, realisedPnl: number | null, valuationDate: string | null, updatedAt: string | null, holdings: Array<{ symbol: string, sector: string | null, shares: number, costBasis: number, costTotal: number, price: number | null, priceDate: string | null, marketValue: number, weight: number, unrealisedPnl: number, unrealisedPnlPct: number | null, daysHeld: number, stopLoss: number | null, targetPrice: number | null, security: { name: string } }> } };

export type ConsoleBookAssessmentQueryVariables = Exact<{
  id: string | number;
  page?: number | null | undefined;
  pageSize?: number | null | undefined;
}>;


export type ConsoleBookAssessmentQuery = { portfolio: { id: string, hunt: { huntMode: HuntMode, analysisDate: string | null, page: number, pageSize: number, totalRecommendations: number, hasMore: boolean, generalAssessment: { totalPositions: number, strongPositions: number, weakPositions: number, portfolioValue: number, availableCash: number, portfolioVolatility: number | null, recommendations: Array<{ type: RecommendationType, symbol: string, sector: string, score: number, rating: string, shares: number, currentPrice: number | null, entryPrice: number, stopLoss: number, unrealizedReturn: number | null, currentWeight: number, stage: Stage | null, signal: Signal | null, suggestedShareChange: number, reasons: Array<string>, replacementCandidates: Array<{ symbol: string, fitScore: number }> }>, concerns: Array<{ type: ConcernType, symbols: Array<string>, score: number, value: number, threshold: number, reasons: Array<string> }> } | null } } };

export type ConsoleBookReplacementQueryVariables = Exact<{
  id: string | number;
  symbol: string;
  pageSize?: number | null | undefined;
}>;


export type ConsoleBookReplacementQuery = { portfolio: { id: string, hunt: { analysisDate: string | null, totalRecommendations: number, hasMore: boolean, replacementAnalysis: { symbol: string, sector: string, shares: number, currentPrice: number | null, freedCapital: number, rating: string, reasons: Array<string>, notes: Array<string>, candidates: Array<{ symbol: string, sector: string, fitScore: number, signalQuality: number, stage: Stage | null, signal: Signal | null, shares: number, entryPrice: number, stopLoss: number, targetPrice: number | null, positionValue: number, riskAmount: number, riskRewardRatio: number, percentOfPortfolio: number, correlationToPortfolio: number | null, sectorWeightAfter: number, addedVolatility: number, reasons: Array<string> }> } | null } } };

export type ConsoleBookSuitabilityQueryVariables = Exact<{
  id: string | number;
  symbol: string;
  pageSize?: number | null | undefined;
}>;


export type ConsoleBookSuitabilityQuery = { portfolio: { id: string, hunt: { totalRecommendations: number, hasMore: boolean, suitabilityAnalysis: { symbol: string, verdict: string, fitScore: number, signalQuality: number, stage: Stage | null, signal: Signal | null, eligible: boolean, alreadyHeld: boolean, analysisDate: string, suggestedShares: number, suggestedValue: number, fundableFromCash: boolean, entryPrice: number, stopLoss: number, targetPrice: number | null, riskAmount: number, correlationToPortfolio: number | null, portfolioVolatilityBefore: number | null, portfolioVolatilityAfter: number | null, volTargetAnnual: number | null, reasons: Array<string>, security: { name: string }, sectorEffect: { sector: string, weightBefore: number, weightAfter: number, cap: number | null }, mostCorrelatedHolding: { symbol: string, correlation: number } | null, alternatives: Array<{ symbol: string, sector: string, fitScore: number, signalQuality: number, stage: Stage | null, signal: Signal | null, shares: number, entryPrice: number, stopLoss: number, targetPrice: number | null, positionValue: number, riskAmount: number, riskRewardRatio: number, percentOfPortfolio: number, correlationToPortfolio: number | null, sectorWeightAfter: number, addedVolatility: number, reasons: Array<string> }> } | null } } };

export type ConsoleCashHuntQueryVariables = Exact<{
  id: string | number;
  page?: number | null | undefined;
  pageSize?: number | null | undefined;
}>;


export type ConsoleCashHuntQuery = { portfolio: { id: string, cashHunt: { availableCash: number, totalCapital: number, cashAfter: number, page: number, pageSize: number, totalRecommendations: number, hasMore: boolean, notes: Array<string>, analysisDate: string | null, recommendations: Array<{ symbol: string, sector: string, fitScore: number, signalQuality: number, stage: Stage | null, signal: Signal | null, shares: number, entryPrice: number, stopLoss: number, targetPrice: number | null, positionValue: number, riskAmount: number, riskRewardRatio: number, percentOfPortfolio: number, correlationToPortfolio: number | null, sectorWeightAfter: number, addedVolatility: number, reasons: Array<string> }> } } };

export type ConsoleRebalancePreviewMutationVariables = Exact<{
  id: string | number;
  input?: RebalanceInput | null | undefined;
}>;


export type ConsoleRebalancePreviewMutation = { rebalancePortfolio: { portfolioId: string, version: number, applied: boolean, totalValue: number, cashBefore: number, cashAfter: number, sellValue: number, buyValue: number, turnover: number, analysisDate: string | null, notes: Array<string>, orders: Array<{ symbol: string, side: TradeSide, shares: number, price: number, value: number, priceSource: string }>, target: Array<{ symbol: string, shares: number, currentShares: number, price: number, value: number, weight: number }>, optimizerDiagnostics: { bindingNotes: Array<string> } } };

export type ConsoleOptimizerSetupQueryVariables = Exact<{ [key: string]: never; }>;


export type ConsoleOptimizerSetupQuery = { allocationStrategies: Array<{ name: AllocationStrategy, description: string, parameters: Array<string> }>, allocationLimits: { minTotalCapital: number, defaultCurrency: string, constraintPackSchemaVersion: string, defaultRiskSettings: { maxRiskPerTrade: number, maxPortfolioRisk: number, maxPositionSize: number, maxPositions: number, allocationStrategy: AllocationStrategy, softmaxTemperature: number | null, rewardMultiplier: number | null, halfKelly: boolean | null, stageWeights: { stage1: number | null, stage2: number | null, stage3: number | null, stage4: number | null } | null }, strategyParameterDefaults: { softmaxTemperature: number, rewardMultiplier: number, halfKelly: boolean, stageWeights: { stage1: number | null, stage2: number | null, stage3: number | null, stage4: number | null } }, demoRequest: { name: string, totalCapital: number, riskSettings: { maxRiskPerTrade: number, maxPortfolioRisk: number, maxPositionSize: number, maxPositions: number, allocationStrategy: AllocationStrategy, softmaxTemperature: number | null, rewardMultiplier: number | null, halfKelly: boolean | null, stageWeights: { stage1: number | null, stage2: number | null, stage3: number | null, stage4: number | null } | null } } } };

export type ConsoleRiskSettingsFragment = { maxRiskPerTrade: number, maxPortfolioRisk: number, maxPositionSize: number, maxPositions: number, allocationStrategy: AllocationStrategy, softmaxTemperature: number | null, rewardMultiplier: number | null, halfKelly: boolean | null, stageWeights: { stage1: number | null, stage2: number | null, stage3: number | null, stage4: number | null } | null };

export type ConsoleOptimizeMutationVariables = Exact<{
  input: PortfolioRequestInput;
  idempotencyKey?: string | null | undefined;
  withSecurity: boolean;
}>;


export type ConsoleOptimizeMutation = { optimizePortfolio: { id: string, name: string, description: string | null, currency: string, createdAt: string, analysisDate: string | null, totalCapital: number, allocatedCapital: number, remainingCapital: number, positionCount: number, allocations: Array<{ symbol: string, shares: number, entryPrice: number, stopLoss: number, targetPrice: number | null, positionValue: number, percentOfAccount: number, riskAmount: number, riskRewardRatio: number, stage: Stage | null, security?: { name: string, sector: string | null } }>, riskSettings: { maxRiskPerTrade: number, maxPortfolioRisk: number, maxPositionSize: number, maxPositions: number, allocationStrategy: AllocationStrategy, softmaxTemperature: number | null, rewardMultiplier: number | null, halfKelly: boolean | null, stageWeights: { stage1: number | null, stage2: number | null, stage3: number | null, stage4: number | null } | null }, constraintPack: { schemaVersion: string, maxPortfolioTurnoverAnnual: number | null, volTargetAnnual: number | null, sectorCaps: Record<string, unknown> | null, covarianceModel: string | null } | null, optimizerDiagnostics: { schemaVersion: string, maxPositionSizeEffective: number, maxPositionSizeFromRiskSettings: number, constraintPackDefaultSectorCap: number | null, volTargetAnnual: number | null, maxPortfolioTurnoverAnnual: number | null, softmaxTemperatureBase: number | null, softmaxTemperatureEffective: number | null, bindingNotes: Array<string> } | null, policyExplanation: { schemaVersion: string, mapperVersion: string, presetKey: string | null, bullets: Array<string> } } };

export type ConsoleSecurityQueryVariables = Exact<{
  symbol: string;
  date?: string | null | undefined;
  partner: boolean;
}>;


export type ConsoleSecurityQuery = { security: { symbol: string, name: string, sector: string | null, assetType: AssetType, dataSource: DataSource, latest?: { analysisDate: string } | null, oldest?: { nodes: Array<{ analysisDate: string }> }, analysis: { analysisDate: string, price: number | null, stage: Stage | null, stageStrength: StageStrength | null, supportLevels: Array<number> | null, resistanceLevels: Array<number> | null, signal: Signal | null, signalReasons: Array<string> | null, confidence: number | null, stageDetail: { subStage: string, weeksInStage: number, weekEnding: string, ma10w: number | null, ma30w: number, sataScore: number } | null, indicators: { sma10w: number | null, sma30w: number | null, sataScore: number | null } | null, detectedPatterns: Array<{ type: PatternType, status: PatternStatus | null, direction: string | null, startDate: string | null, endDate: string | null, confidence: number | null, rawConfidence: number | null, priceTarget: number | null, breakoutLevel: number | null, invalidationLevel: number | null, keyPoints: Array<{ label: string, date: string | null, price: number | null }> | null }> | null, bestPattern: { type: PatternType, status: PatternStatus | null, direction: string | null, startDate: string | null, endDate: string | null, confidence: number | null, rawConfidence: number | null, priceTarget: number | null, breakoutLevel: number | null, invalidationLevel: number | null, keyPoints: Array<{ label: string, date: string | null, price: number | null }> | null } | null, enhancedSignal: { signal: Signal, score: number, confidence: number | null, reasons: Array<string> } | null, priceTargets: Array<{ source: string | null, basis: string | null, direction: string | null, price: number | null, distancePercent: number | null, confidence: number | null }> | null, evidence: { asOf: string | null, status: EvidenceStatus, reason: string | null, universe: { symbols: number, firstDate: string, lastDate: string, benchmark: string } | null, stage: { state: string, n: number, dates: number, hitRate: { value: number | null, ci: Array<number> | null }, meanExcess20d: { value: number | null, ci: Array<number> | null }, meanExcess60d: { value: number | null, ci: Array<number> | null }, targetFirst: { value: number | null, ci: Array<number> | null, n: number, placebo: number | null } | null } | null, signal: { state: string, n: number, dates: number, hitRate: { value: number | null, ci: Array<number> | null }, meanExcess20d: { value: number | null, ci: Array<number> | null }, meanExcess60d: { value: number | null, ci: Array<number> | null }, targetFirst: { value: number | null, ci: Array<number> | null, n: number, placebo: number | null } | null } | null, sataBucket: { state: string, n: number, dates: number, hitRate: { value: number | null, ci: Array<number> | null }, meanExcess20d: { value: number | null, ci: Array<number> | null }, meanExcess60d: { value: number | null, ci: Array<number> | null }, targetFirst: { value: number | null, ci: Array<number> | null, n: number, placebo: number | null } | null } | null, bestPattern: { state: string, n: number, dates: number, hitRate: { value: number | null, ci: Array<number> | null }, meanExcess20d: { value: number | null, ci: Array<number> | null }, meanExcess60d: { value: number | null, ci: Array<number> | null }, targetFirst: { value: number | null, ci: Array<number> | null, n: number, placebo: number | null } | null } | null } | null } | null } | null };

export type ConsolePatternFragment = { type: PatternType, status: PatternStatus | null, direction: string | null, startDate: string | null, endDate: string | null, confidence: number | null, rawConfidence: number | null, priceTarget: number | null, breakoutLevel: number | null, invalidationLevel: number | null, keyPoints: Array<{ label: string, date: string | null, price: number | null }> | null };

export type ConsoleStateEvidenceFragment = { state: string, n: number, dates: number, hitRate: { value: number | null, ci: Array<number> | null }, meanExcess20d: { value: number | null, ci: Array<number> | null }, meanExcess60d: { value: number | null, ci: Array<number> | null }, targetFirst: { value: number | null, ci: Array<number> | null, n: number, placebo: number | null } | null };

export type ConsoleSecurityBarsQueryVariables = Exact<{
  symbol: string;
  from?: string | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleSecurityBarsQuery = { security: { symbol: string, bars: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ date: string, open: number, high: number, low: number, close: number, volume: number }> } } | null };

export type ConsoleSecuritySnapshotsQueryVariables = Exact<{
  symbol: string;
  from?: string | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type ConsoleSecuritySnapshotsQuery = { security: { symbol: string, snapshots: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ analysisDate: string, stage: Stage | null, stageStrength: StageStrength | null }> } } | null };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const ConsoleIdeaFragmentDoc = new TypedDocumentString(`
    fragment ConsoleIdea on SearchIdea {
  symbol
  sector
  fitScore
  signalQuality
  stage
  signal
  shares
  entryPrice
  stopLoss
  targetPrice
  positionValue
  riskAmount
  riskRewardRatio
  percentOfPortfolio
  correlationToPortfolio
  sectorWeightAfter
  addedVolatility
  reasons
}
    `, {"fragmentName":"ConsoleIdea"}) as unknown as TypedDocumentString<ConsoleIdeaFragment, unknown>;
export const ConsoleRiskSettingsFragmentDoc = new TypedDocumentString(`
    fragment ConsoleRiskSettings on RiskSettingsType {
  maxRiskPerTrade
  maxPortfolioRisk
  maxPositionSize
  maxPositions
  allocationStrategy
  softmaxTemperature
  rewardMultiplier
  stageWeights {
    stage1
    stage2
    stage3
    stage4
  }
  halfKelly
}
    `, {"fragmentName":"ConsoleRiskSettings"}) as unknown as TypedDocumentString<ConsoleRiskSettingsFragment, unknown>;
export const ConsolePatternFragmentDoc = new TypedDocumentString(`
    fragment ConsolePattern on Pattern {
  type
  status
  direction
  startDate
  endDate
  confidence
  rawConfidence
  priceTarget
  breakoutLevel
  invalidationLevel
  keyPoints {
    label
    date
    price
  }
}
    `, {"fragmentName":"ConsolePattern"}) as unknown as TypedDocumentString<ConsolePatternFragment, unknown>;
export const ConsoleStateEvidenceFragmentDoc = new TypedDocumentString(`
    fragment ConsoleStateEvidence on StateEvidence {
  state
  n
  dates
  hitRate {
    value
    ci
  }
  meanExcess20d {
    value
    ci
  }
  meanExcess60d {
    value
    ci
  }
  targetFirst {
    value
    ci
    n
    placebo
  }
}
    `, {"fragmentName":"ConsoleStateEvidence"}) as unknown as TypedDocumentString<ConsoleStateEvidenceFragment, unknown>;
export const ConsoleSearchPaginationDocument = new TypedDocumentString(`
    query ConsoleSearchPagination {
  searchPagination {
    defaultPageSize
    maxPageSize
  }
}
    `, {"hash":"sha256:aac560ebb34b0655234942ded2d0fcf6176f098a3a4993efc096ca423e5f998d"}) as unknown as TypedDocumentString<ConsoleSearchPaginationQuery, ConsoleSearchPaginationQueryVariables>;
export const ConsoleBooksDocument = new TypedDocumentString(`
    query ConsoleBooks($first: Int, $after: String) {
  portfolios(first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    nodes {
      id
      name
      source
      currency
      totalValue
      cash
      positionCount
      createdAt
      updatedAt
    }
  }
}
    `, {"hash":"sha256:efc83a0108e9b08bd8ce6e34d66bcd74ac8aae48a2551fb427f8001ab9fc20fb"}) as unknown as TypedDocumentString<ConsoleBooksQuery, ConsoleBooksQueryVariables>;
export const ConsoleBookDocument = new TypedDocumentString(`
    query ConsoleBook($id: ID!) {
  portfolio(id: $id) {
    id
    name
    description
    source
    currency
    version
    cash
    holdingsValue
    totalValue
    costTotal
    unrealisedPnl
    realisedPnl
    valuationDate
    updatedAt
    holdings {
      symbol
      sector
      shares
      costBasis
      costTotal
      price
      priceDate
      marketValue
      weight
      unrealisedPnl
      unrealisedPnlPct
      daysHeld
      stopLoss
      targetPrice
      security {
        name
      }
    }
  }
}
    `, {"hash":"sha256:21f487c08b9074a02e3c65344c49f664d0d5cbe2b324aceee1c3504d71e28ad1"}) as unknown as TypedDocumentString<ConsoleBookQuery, ConsoleBookQueryVariables>;
export const ConsoleBookAssessmentDocument = new TypedDocumentString(`
    query ConsoleBookAssessment($id: ID!, $page: Int, $pageSize: Int) {
  portfolio(id: $id) {
    id
    hunt(page: $page, pageSize: $pageSize) {
      huntMode
      analysisDate
      page
      pageSize
      totalRecommendations
      hasMore
      generalAssessment {
        totalPositions
        strongPositions
        weakPositions
        portfolioValue
        availableCash
        portfolioVolatility
        recommendations {
          type
          symbol
          sector
          score
          rating
          shares
          currentPrice
          entryPrice
          stopLoss
          unrealizedReturn
          currentWeight
          stage
          signal
          suggestedShareChange
          replacementCandidates {
            symbol
            fitScore
          }
          reasons
        }
        concerns {
          type
          symbols
          score
          value
          threshold
          reasons
        }
      }
    }
  }
}
    `, {"hash":"sha256:84a14b569c40c60e4a6404cad3648787f2dd59723754c4963838339733634369"}) as unknown as TypedDocumentString<ConsoleBookAssessmentQuery, ConsoleBookAssessmentQueryVariables>;
export const ConsoleBookReplacementDocument = new TypedDocumentString(`
    query ConsoleBookReplacement($id: ID!, $symbol: String!, $pageSize: Int) {
  portfolio(id: $id) {
    id
    hunt(symbolReplace: $symbol, pageSize: $pageSize) {
      analysisDate
      totalRecommendations
      hasMore
      replacementAnalysis {
        symbol
        sector
        shares
        currentPrice
        freedCapital
        rating
        reasons
        candidates {
          ...ConsoleIdea
        }
        notes
      }
    }
  }
}
    fragment ConsoleIdea on SearchIdea {
  symbol
  sector
  fitScore
  signalQuality
  stage
  signal
  shares
  entryPrice
  stopLoss
  targetPrice
  positionValue
  riskAmount
  riskRewardRatio
  percentOfPortfolio
  correlationToPortfolio
  sectorWeightAfter
  addedVolatility
  reasons
}`, {"hash":"sha256:514763d4897dcfe5e78cdbada7ada5ba996301b29a1e736c0801d0fe8da6f124"}) as unknown as TypedDocumentString<ConsoleBookReplacementQuery, ConsoleBookReplacementQueryVariables>;
export const ConsoleBookSuitabilityDocument = new TypedDocumentString(`
    query ConsoleBookSuitability($id: ID!, $symbol: String!, $pageSize: Int) {
  portfolio(id: $id) {
    id
    hunt(symbolInterest: $symbol, pageSize: $pageSize) {
      totalRecommendations
      hasMore
      suitabilityAnalysis {
        symbol
        security {
          name
        }
        verdict
        fitScore
        signalQuality
        stage
        signal
        eligible
        alreadyHeld
        analysisDate
        suggestedShares
        suggestedValue
        fundableFromCash
        entryPrice
        stopLoss
        targetPrice
        riskAmount
        sectorEffect {
          sector
          weightBefore
          weightAfter
          cap
        }
        correlationToPortfolio
        mostCorrelatedHolding {
          symbol
          correlation
        }
        portfolioVolatilityBefore
        portfolioVolatilityAfter
        volTargetAnnual
        reasons
        alternatives {
          ...ConsoleIdea
        }
      }
    }
  }
}
    fragment ConsoleIdea on SearchIdea {
  symbol
  sector
  fitScore
  signalQuality
  stage
  signal
  shares
  entryPrice
  stopLoss
  targetPrice
  positionValue
  riskAmount
  riskRewardRatio
  percentOfPortfolio
  correlationToPortfolio
  sectorWeightAfter
  addedVolatility
  reasons
}`, {"hash":"sha256:57c0f92b3e83d06f341171669f5a55c509e3817b8f4b8c7967ceb8742792ba8e"}) as unknown as TypedDocumentString<ConsoleBookSuitabilityQuery, ConsoleBookSuitabilityQueryVariables>;
export const ConsoleCashHuntDocument = new TypedDocumentString(`
    query ConsoleCashHunt($id: ID!, $page: Int, $pageSize: Int) {
  portfolio(id: $id) {
    id
    cashHunt(page: $page, pageSize: $pageSize) {
      availableCash
      totalCapital
      cashAfter
      page
      pageSize
      totalRecommendations
      hasMore
      notes
      analysisDate
      recommendations {
        ...ConsoleIdea
      }
    }
  }
}
    fragment ConsoleIdea on SearchIdea {
  symbol
  sector
  fitScore
  signalQuality
  stage
  signal
  shares
  entryPrice
  stopLoss
  targetPrice
  positionValue
  riskAmount
  riskRewardRatio
  percentOfPortfolio
  correlationToPortfolio
  sectorWeightAfter
  addedVolatility
  reasons
}`, {"hash":"sha256:3ba870bc4868010472b7d45a35d2b08aef4d3c6b518f65d77fd325772fcc5d91"}) as unknown as TypedDocumentString<ConsoleCashHuntQuery, ConsoleCashHuntQueryVariables>;
export const ConsoleRebalancePreviewDocument = new TypedDocumentString(`
    mutation ConsoleRebalancePreview($id: ID!, $input: RebalanceInput) {
  rebalancePortfolio(portfolioId: $id, apply: false, input: $input) {
    portfolioId
    version
    applied
    totalValue
    cashBefore
    cashAfter
    sellValue
    buyValue
    turnover
    analysisDate
    notes
    orders {
      symbol
      side
      shares
      price
      value
      priceSource
    }
    target {
      symbol
      shares
      currentShares
      price
      value
      weight
    }
    optimizerDiagnostics {
      bindingNotes
    }
  }
}
    `, {"hash":"sha256:1ba997b16724e80c7a905f4db7b6529e4e4388e72c170a63fe2c9d42cf00de70"}) as unknown as TypedDocumentString<ConsoleRebalancePreviewMutation, ConsoleRebalancePreviewMutationVariables>;
export const ConsoleOptimizerSetupDocument = new TypedDocumentString(`
    query ConsoleOptimizerSetup {
  allocationStrategies {
    name
    description
    parameters
  }
  allocationLimits {
    minTotalCapital
    defaultRiskSettings {
      ...ConsoleRiskSettings
    }
    strategyParameterDefaults {
      softmaxTemperature
      rewardMultiplier
      halfKelly
      stageWeights {
        stage1
        stage2
        stage3
        stage4
      }
    }
    defaultCurrency
    constraintPackSchemaVersion
    demoRequest {
      name
      totalCapital
      riskSettings {
        ...ConsoleRiskSettings
      }
    }
  }
}
    fragment ConsoleRiskSettings on RiskSettingsType {
  maxRiskPerTrade
  maxPortfolioRisk
  maxPositionSize
  maxPositions
  allocationStrategy
  softmaxTemperature
  rewardMultiplier
  stageWeights {
    stage1
    stage2
    stage3
    stage4
  }
  halfKelly
}`, {"hash":"sha256:9b33c1453a6e015206e6ef7d6dc26c2ac26962e0da69d98fb3a4bdb4a883c45d"}) as unknown as TypedDocumentString<ConsoleOptimizerSetupQuery, ConsoleOptimizerSetupQueryVariables>;
export const ConsoleOptimizeDocument = new TypedDocumentString(`
    mutation ConsoleOptimize($input: PortfolioRequestInput!, $idempotencyKey: String, $withSecurity: Boolean!) {
  optimizePortfolio(input: $input, idempotencyKey: $idempotencyKey) {
    id
    name
    description
    currency
    createdAt
    analysisDate
    totalCapital
    allocatedCapital
    remainingCapital
    positionCount
    allocations {
      symbol
      shares
      entryPrice
      stopLoss
      targetPrice
      positionValue
      percentOfAccount
      riskAmount
      riskRewardRatio
      stage
      security @include(if: $withSecurity) {
        name
        sector
      }
    }
    riskSettings {
      ...ConsoleRiskSettings
    }
    constraintPack {
      schemaVersion
      maxPortfolioTurnoverAnnual
      volTargetAnnual
      sectorCaps
      covarianceModel
    }
    optimizerDiagnostics {
      schemaVersion
      maxPositionSizeEffective
      maxPositionSizeFromRiskSettings
      constraintPackDefaultSectorCap
      volTargetAnnual
      maxPortfolioTurnoverAnnual
      softmaxTemperatureBase
      softmaxTemperatureEffective
      bindingNotes
    }
    policyExplanation {
      schemaVersion
      mapperVersion
      presetKey
      bullets
    }
  }
}
    fragment ConsoleRiskSettings on RiskSettingsType {
  maxRiskPerTrade
  maxPortfolioRisk
  maxPositionSize
  maxPositions
  allocationStrategy
  softmaxTemperature
  rewardMultiplier
  stageWeights {
    stage1
    stage2
    stage3
    stage4
  }
  halfKelly
}`, {"hash":"sha256:6f18fc06904f9190bc4c4cff49b427e999374bffa5d6c7957e7bec2da430ea22"}) as unknown as TypedDocumentString<ConsoleOptimizeMutation, ConsoleOptimizeMutationVariables>;
export const ConsoleSecurityDocument = new TypedDocumentString(`
    query ConsoleSecurity($symbol: String!, $date: String, $partner: Boolean!) {
  security(symbol: $symbol) {
    symbol
    name
    sector
    assetType
    dataSource
    latest: analysis @include(if: $partner) {
      analysisDate
    }
    oldest: snapshots(first: 1) @include(if: $partner) {
      nodes {
        analysisDate
      }
    }
    analysis(date: $date) {
      analysisDate
      price
      stage
      stageStrength
      stageDetail {
        subStage
        weeksInStage
        weekEnding
        ma10w
        ma30w
        sataScore
      }
      indicators {
        sma10w
        sma30w
        sataScore
      }
      detectedPatterns {
        ...ConsolePattern
      }
      bestPattern {
        ...ConsolePattern
      }
      supportLevels
      resistanceLevels
      signal
      signalReasons
      confidence
      enhancedSignal {
        signal
        score
        confidence
        reasons
      }
      priceTargets {
        source
        basis
        direction
        price
        distancePercent
        confidence
      }
      evidence {
        asOf
        status
        reason
        universe {
          symbols
          firstDate
          lastDate
          benchmark
        }
        stage {
          ...ConsoleStateEvidence
        }
        signal {
          ...ConsoleStateEvidence
        }
        sataBucket {
          ...ConsoleStateEvidence
        }
        bestPattern {
          ...ConsoleStateEvidence
        }
      }
    }
  }
}
    fragment ConsolePattern on Pattern {
  type
  status
  direction
  startDate
  endDate
  confidence
  rawConfidence
  priceTarget
  breakoutLevel
  invalidationLevel
  keyPoints {
    label
    date
    price
  }
}
fragment ConsoleStateEvidence on StateEvidence {
  state
  n
  dates
  hitRate {
    value
    ci
  }
  meanExcess20d {
    value
    ci
  }
  meanExcess60d {
    value
    ci
  }
  targetFirst {
    value
    ci
    n
    placebo
  }
}`, {"hash":"sha256:e7419a0c800b85d21d6015a9a95d4696dd0f5e7189b884836f9606ec7b5bb2d8"}) as unknown as TypedDocumentString<ConsoleSecurityQuery, ConsoleSecurityQueryVariables>;
export const ConsoleSecurityBarsDocument = new TypedDocumentString(`
    query ConsoleSecurityBars($symbol: String!, $from: LocalDate, $first: Int, $after: String) {
  security(symbol: $symbol) {
    symbol
    bars(from: $from, first: $first, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        date
        open
        high
        low
        close
        volume
      }
    }
  }
}
    `, {"hash":"sha256:0621a01dd24a52220447f555634cbe6e49749fe45ff35bba7c16f906bc21510b"}) as unknown as TypedDocumentString<ConsoleSecurityBarsQuery, ConsoleSecurityBarsQueryVariables>;
export const ConsoleSecuritySnapshotsDocument = new TypedDocumentString(`
    query ConsoleSecuritySnapshots($symbol: String!, $from: LocalDate, $first: Int, $after: String) {
  security(symbol: $symbol) {
    symbol
    snapshots(from: $from, first: $first, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        analysisDate
        stage
        stageStrength
      }
    }
  }
}
    `, {"hash":"sha256:3b22c417b8b1304aaa59e71d36d53f7783525b06314317b15e19dfa09abb6898"}) as unknown as TypedDocumentString<ConsoleSecuritySnapshotsQuery, ConsoleSecuritySnapshotsQueryVariables>;