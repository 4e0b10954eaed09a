/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
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

export type CashHuntQueryVariables = Exact<{
  first?: number | null | undefined;
  page?: number | null | undefined;
  pageSize?: number | null | undefined;
}>;


export type CashHuntQuery = { portfolios: { nodes: Array<{ name: string, cashHunt: { availableCash: number, totalCapital: number, cashAfter: number, analysisDate: string | null, page: number, pageSize: number, totalRecommendations: number, hasMore: boolean, notes: Array<string>, recommendations: Array<{ symbol: string, sector: string, shares: number, entryPrice: number, stopLoss: number, fitScore: number, stage: Stage | null, signal: Signal | null, security: { analysis: { analysisDate: string, stage: Stage | null, signal: Signal | null } | null } }> } }> } };

export type DashboardQueryVariables = Exact<{
  symbol: string;
  first?: number | null | undefined;
  pageSize?: number | null | undefined;
}>;


export type DashboardQuery = { security: { symbol: string, name: string, sector: string | null, analysis: { analysisDate: string, stage: Stage | null, stageStrength: StageStrength | null, signal: Signal | null, confidence: number | null, price: number | null, indicators: { rsi14: number | null, sma50: number | null, sma200: number | null, atrPercent: number | null } | null } | null } | null, allocationStrategies: Array<{ name: AllocationStrategy, description: string }>, huntModes: Array<{ mode: HuntMode, description: string }>, portfolios: { totalCount: number, nodes: Array<{ name: string, totalCapital: number, analysisDate: string | null, allocations: Array<{ symbol: string, shares: number, stage: Stage | null, signal: Signal | null, security: { analysis: { analysisDate: string, stage: Stage | null, signal: Signal | null } | null } }>, cashHunt: { availableCash: number, totalRecommendations: number, recommendations: Array<{ symbol: string, shares: number, stage: Stage | null, signal: Signal | null, fitScore: number }> } }> } };

export type HuntQueryVariables = Exact<{
  first?: number | null | undefined;
  page?: number | null | undefined;
  pageSize?: number | null | undefined;
}>;


export type HuntQuery = { portfolios: { nodes: Array<{ name: string, hunt: { huntMode: HuntMode, analysisDate: string | null, page: number, pageSize: number, totalRecommendations: number, hasMore: boolean, generalAssessment: { totalPositions: number, strongPositions: number, weakPositions: number, portfolioValue: number, availableCash: number, recommendations: Array<{ type: RecommendationType, symbol: string, rating: string, score: number, stage: Stage | null, signal: Signal | null, suggestedShareChange: number, reasons: Array<string> }>, concerns: Array<{ type: ConcernType, symbols: Array<string>, score: number, reasons: Array<string> }> } | null } }> } };

export type OptimizeMutationVariables = Exact<{
  input: PortfolioRequestInput;
}>;


export type OptimizeMutation = { optimizePortfolio: { name: string, totalCapital: number, allocatedCapital: number, remainingCapital: number, positionCount: number, currency: string, analysisDate: string | null, riskSettings: { allocationStrategy: AllocationStrategy, maxPositions: number, maxPositionSize: number, stageWeights: { stage1: number | null, stage2: number | null, stage3: number | null, stage4: number | null } | null }, allocations: Array<{ symbol: string, shares: number, entryPrice: number, stopLoss: number, targetPrice: number | null, stage: Stage | null, stageStrength: StageStrength | null, signal: Signal | null, entryDate: string | null, volatilityStopLossLevels: { atr1x: number, atr2x: number, atr3x: number, hv1sd20d: number | null } | null }>, policyExplanation: { bullets: Array<string> } } };

export type SecurityDetailQueryVariables = Exact<{
  symbol: string;
}>;


export type SecurityDetailQuery = { security: { symbol: string, name: string, sector: string | null, subIndustry: string | null, assetType: AssetType, dataSource: DataSource, analysis: { analysisDate: string, producedAt: string, stage: Stage | null, stageStrength: StageStrength | null, signal: Signal | null, signalReasons: Array<string> | null, confidence: number | null, price: number | null, volume: number | null, marketRegime: string | null, supportLevels: Array<number> | null, resistanceLevels: Array<number> | null, indicators: { sma50: number | null, sma200: number | null, ema20: number | null, rsi14: number | null, atr14: number | null, atrPercent: number | null, relativeVolume: number | null, historicalVolatility20: number | null, volatilityTrend: string | null, isHighVolatility: boolean | null, mansfieldRs: number | null, sataScore: number | null, bollinger: { upper: number, middle: number, lower: number, bandwidth: number } | null, macd: { macd: number, signal: number, histogram: number } | null } | null, stageDetail: { stage: number, label: Stage, subStage: string, weeksInStage: number, strength: StageStrength, weekEnding: string, ma30w: number, ma30wSlopePercent: number, sataScore: number, sata: Array<{ name: string, met: boolean, detail: string }> } | null, bestPattern: { type: PatternType, status: PatternStatus | null, startDate: string | null, endDate: string | null, confidence: number | null, priceTarget: number | null, direction: string | null, keyPoints: Array<{ label: string, date: string | null, price: number | null }> | null } | null, patternSignal: { direction: string | null, netConfidence: number | null, patternCount: number | null } | null, priceTargets: Array<{ source: string | null, basis: string | null, direction: string | null, price: number | null, distancePercent: number | null, confidence: number | null }> | null, mlSignal: { signal: Signal, probabilityUp: number | null, confidence: number | null, model: { version: string, horizonDays: number, trainedThrough: string, oosAuc: number | null, oosSamples: number } } | null, enhancedSignal: { signal: Signal, score: number, confidence: number | null, reasons: Array<string>, weights: { rules: { weight: number, reason: string }, ml: { weight: number, reason: string } } | null } | null, riskParameters: { entryPrice: number, suggestedStop: number | null, stopMethod: string | null, suggestedTarget: number | null, rewardRiskRatio: number | null, volatilityStopLossLevels: { atr1x: number, atr2x: number, atr3x: number, hv1sd20d: number | null } | null } | null, transitionProbabilities: { currentStage: Stage, sampleSize: number, estimatedThrough: string, nextWeek: { stage1: number, stage2: number, stage3: number, stage4: number } } | null, evidence: { asOf: string | null, status: EvidenceStatus } | null, calibration: { asOf: string | null, confidence: { raw: number | null, probability: number | null } } | null } | null } | null };


export const CashHuntDocument = {"__meta__":{"hash":"sha256:b74791b567d77db34ef2c190ab76f74dc4fa5ade47c499275cb5ac0cff39c245"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"CashHunt"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"page"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"pageSize"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"portfolios"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"cashHunt"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"page"},"value":{"kind":"Variable","name":{"kind":"Name","value":"page"}}},{"kind":"Argument","name":{"kind":"Name","value":"pageSize"},"value":{"kind":"Variable","name":{"kind":"Name","value":"pageSize"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"availableCash"}},{"kind":"Field","name":{"kind":"Name","value":"totalCapital"}},{"kind":"Field","name":{"kind":"Name","value":"cashAfter"}},{"kind":"Field","name":{"kind":"Name","value":"analysisDate"}},{"kind":"Field","name":{"kind":"Name","value":"page"}},{"kind":"Field","name":{"kind":"Name","value":"pageSize"}},{"kind":"Field","name":{"kind":"Name","value":"totalRecommendations"}},{"kind":"Field","name":{"kind":"Name","value":"hasMore"}},{"kind":"Field","name":{"kind":"Name","value":"notes"}},{"kind":"Field","name":{"kind":"Name","value":"recommendations"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"symbol"}},{"kind":"Field","name":{"kind":"Name","value":"sector"}},{"kind":"Field","name":{"kind":"Name","value":"shares"}},{"kind":"Field","name":{"kind":"Name","value":"entryPrice"}},{"kind":"Field","name":{"kind":"Name","value":"stopLoss"}},{"kind":"Field","name":{"kind":"Name","value":"fitScore"}},{"kind":"Field","name":{"kind":"Name","value":"stage"}},{"kind":"Field","name":{"kind":"Name","value":"signal"}},{"kind":"Field","name":{"kind":"Name","value":"security"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"analysis"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"analysisDate"}},{"kind":"Field","name":{"kind":"Name","value":"stage"}},{"kind":"Field","name":{"kind":"Name","value":"signal"}}]}}]}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<CashHuntQuery, CashHuntQueryVariables>;
export const DashboardDocument = {"__meta__":{"hash":"sha256:73f4eb6df8010b8f9667d12583a1c8c6dfd1d6b7928a5b8354e61842d0c83ca2"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Dashboard"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"symbol"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"pageSize"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"security"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"symbol"},"value":{"kind":"Variable","name":{"kind":"Name","value":"symbol"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"symbol"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"sector"}},{"kind":"Field","name":{"kind":"Name","value":"analysis"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"analysisDate"}},{"kind":"Field","name":{"kind":"Name","value":"stage"}},{"kind":"Field","name":{"kind":"Name","value":"stageStrength"}},{"kind":"Field","name":{"kind":"Name","value":"signal"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"indicators"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rsi14"}},{"kind":"Field","name":{"kind":"Name","value":"sma50"}},{"kind":"Field","name":{"kind":"Name","value":"sma200"}},{"kind":"Field","name":{"kind":"Name","value":"atrPercent"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"allocationStrategies"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"description"}}]}},{"kind":"Field","name":{"kind":"Name","value":"huntModes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"mode"}},{"kind":"Field","name":{"kind":"Name","value":"description"}}]}},{"kind":"Field","name":{"kind":"Name","value":"portfolios"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"totalCapital"}},{"kind":"Field","name":{"kind":"Name","value":"analysisDate"}},{"kind":"Field","name":{"kind":"Name","value":"allocations"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"symbol"}},{"kind":"Field","name":{"kind":"Name","value":"shares"}},{"kind":"Field","name":{"kind":"Name","value":"stage"}},{"kind":"Field","name":{"kind":"Name","value":"signal"}},{"kind":"Field","name":{"kind":"Name","value":"security"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"analysis"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"analysisDate"}},{"kind":"Field","name":{"kind":"Name","value":"stage"}},{"kind":"Field","name":{"kind":"Name","value":"signal"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"cashHunt"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"pageSize"},"value":{"kind":"Variable","name":{"kind":"Name","value":"pageSize"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"availableCash"}},{"kind":"Field","name":{"kind":"Name","value":"totalRecommendations"}},{"kind":"Field","name":{"kind":"Name","value":"recommendations"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"symbol"}},{"kind":"Field","name":{"kind":"Name","value":"shares"}},{"kind":"Field","name":{"kind":"Name","value":"stage"}},{"kind":"Field","name":{"kind":"Name","value":"signal"}},{"kind":"Field","name":{"kind":"Name","value":"fitScore"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<DashboardQuery, DashboardQueryVariables>;
export const HuntDocument = {"__meta__":{"hash":"sha256:287d92994f9993071b9386834f11cac803fd28481f94b52ec13ac9d53d1823f9"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Hunt"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"page"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"pageSize"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"portfolios"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"hunt"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"page"},"value":{"kind":"Variable","name":{"kind":"Name","value":"page"}}},{"kind":"Argument","name":{"kind":"Name","value":"pageSize"},"value":{"kind":"Variable","name":{"kind":"Name","value":"pageSize"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"huntMode"}},{"kind":"Field","name":{"kind":"Name","value":"analysisDate"}},{"kind":"Field","name":{"kind":"Name","value":"page"}},{"kind":"Field","name":{"kind":"Name","value":"pageSize"}},{"kind":"Field","name":{"kind":"Name","value":"totalRecommendations"}},{"kind":"Field","name":{"kind":"Name","value":"hasMore"}},{"kind":"Field","name":{"kind":"Name","value":"generalAssessment"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalPositions"}},{"kind":"Field","name":{"kind":"Name","value":"strongPositions"}},{"kind":"Field","name":{"kind":"Name","value":"weakPositions"}},{"kind":"Field","name":{"kind":"Name","value":"portfolioValue"}},{"kind":"Field","name":{"kind":"Name","value":"availableCash"}},{"kind":"Field","name":{"kind":"Name","value":"recommendations"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"symbol"}},{"kind":"Field","name":{"kind":"Name","value":"rating"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"stage"}},{"kind":"Field","name":{"kind":"Name","value":"signal"}},{"kind":"Field","name":{"kind":"Name","value":"suggestedShareChange"}},{"kind":"Field","name":{"kind":"Name","value":"reasons"}}]}},{"kind":"Field","name":{"kind":"Name","value":"concerns"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"symbols"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"reasons"}}]}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<HuntQuery, HuntQueryVariables>;
export const OptimizeDocument = {"__meta__":{"hash":"sha256:b72c6f6c03a26deaa3be0dbb7e8208d7b74ad012e4d533d53b12fb55de7b1445"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"Optimize"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"PortfolioRequestInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"optimizePortfolio"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"totalCapital"}},{"kind":"Field","name":{"kind":"Name","value":"allocatedCapital"}},{"kind":"Field","name":{"kind":"Name","value":"remainingCapital"}},{"kind":"Field","name":{"kind":"Name","value":"positionCount"}},{"kind":"Field","name":{"kind":"Name","value":"currency"}},{"kind":"Field","name":{"kind":"Name","value":"analysisDate"}},{"kind":"Field","name":{"kind":"Name","value":"riskSettings"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"allocationStrategy"}},{"kind":"Field","name":{"kind":"Name","value":"maxPositions"}},{"kind":"Field","name":{"kind":"Name","value":"maxPositionSize"}},{"kind":"Field","name":{"kind":"Name","value":"stageWeights"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"stage1"}},{"kind":"Field","name":{"kind":"Name","value":"stage2"}},{"kind":"Field","name":{"kind":"Name","value":"stage3"}},{"kind":"Field","name":{"kind":"Name","value":"stage4"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"allocations"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"symbol"}},{"kind":"Field","name":{"kind":"Name","value":"shares"}},{"kind":"Field","name":{"kind":"Name","value":"entryPrice"}},{"kind":"Field","name":{"kind":"Name","value":"stopLoss"}},{"kind":"Field","name":{"kind":"Name","value":"targetPrice"}},{"kind":"Field","name":{"kind":"Name","value":"stage"}},{"kind":"Field","name":{"kind":"Name","value":"stageStrength"}},{"kind":"Field","name":{"kind":"Name","value":"signal"}},{"kind":"Field","name":{"kind":"Name","value":"entryDate"}},{"kind":"Field","name":{"kind":"Name","value":"volatilityStopLossLevels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"atr1x"}},{"kind":"Field","name":{"kind":"Name","value":"atr2x"}},{"kind":"Field","name":{"kind":"Name","value":"atr3x"}},{"kind":"Field","name":{"kind":"Name","value":"hv1sd20d"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"policyExplanation"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"bullets"}}]}}]}}]}}]} as unknown as DocumentNode<OptimizeMutation, OptimizeMutationVariables>;
export const SecurityDetailDocument = {"__meta__":{"hash":"sha256:4c64a5cc573ad46e09ac9dfee5150b2e59b742c204ffe2f8f44c20103fa82d12"},"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"SecurityDetail"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"symbol"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"security"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"symbol"},"value":{"kind":"Variable","name":{"kind":"Name","value":"symbol"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"symbol"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"sector"}},{"kind":"Field","name":{"kind":"Name","value":"subIndustry"}},{"kind":"Field","name":{"kind":"Name","value":"assetType"}},{"kind":"Field","name":{"kind":"Name","value":"dataSource"}},{"kind":"Field","name":{"kind":"Name","value":"analysis"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"analysisDate"}},{"kind":"Field","name":{"kind":"Name","value":"producedAt"}},{"kind":"Field","name":{"kind":"Name","value":"stage"}},{"kind":"Field","name":{"kind":"Name","value":"stageStrength"}},{"kind":"Field","name":{"kind":"Name","value":"signal"}},{"kind":"Field","name":{"kind":"Name","value":"signalReasons"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"volume"}},{"kind":"Field","name":{"kind":"Name","value":"marketRegime"}},{"kind":"Field","name":{"kind":"Name","value":"supportLevels"}},{"kind":"Field","name":{"kind":"Name","value":"resistanceLevels"}},{"kind":"Field","name":{"kind":"Name","value":"indicators"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"sma50"}},{"kind":"Field","name":{"kind":"Name","value":"sma200"}},{"kind":"Field","name":{"kind":"Name","value":"ema20"}},{"kind":"Field","name":{"kind":"Name","value":"rsi14"}},{"kind":"Field","name":{"kind":"Name","value":"atr14"}},{"kind":"Field","name":{"kind":"Name","value":"atrPercent"}},{"kind":"Field","name":{"kind":"Name","value":"bollinger"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"upper"}},{"kind":"Field","name":{"kind":"Name","value":"middle"}},{"kind":"Field","name":{"kind":"Name","value":"lower"}},{"kind":"Field","name":{"kind":"Name","value":"bandwidth"}}]}},{"kind":"Field","name":{"kind":"Name","value":"macd"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"macd"}},{"kind":"Field","name":{"kind":"Name","value":"signal"}},{"kind":"Field","name":{"kind":"Name","value":"histogram"}}]}},{"kind":"Field","name":{"kind":"Name","value":"relativeVolume"}},{"kind":"Field","name":{"kind":"Name","value":"historicalVolatility20"}},{"kind":"Field","name":{"kind":"Name","value":"volatilityTrend"}},{"kind":"Field","name":{"kind":"Name","value":"isHighVolatility"}},{"kind":"Field","name":{"kind":"Name","value":"mansfieldRs"}},{"kind":"Field","name":{"kind":"Name","value":"sataScore"}}]}},{"kind":"Field","name":{"kind":"Name","value":"stageDetail"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"stage"}},{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"subStage"}},{"kind":"Field","name":{"kind":"Name","value":"weeksInStage"}},{"kind":"Field","name":{"kind":"Name","value":"strength"}},{"kind":"Field","name":{"kind":"Name","value":"weekEnding"}},{"kind":"Field","name":{"kind":"Name","value":"ma30w"}},{"kind":"Field","name":{"kind":"Name","value":"ma30wSlopePercent"}},{"kind":"Field","name":{"kind":"Name","value":"sataScore"}},{"kind":"Field","name":{"kind":"Name","value":"sata"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"met"}},{"kind":"Field","name":{"kind":"Name","value":"detail"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"bestPattern"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"startDate"}},{"kind":"Field","name":{"kind":"Name","value":"endDate"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"}},{"kind":"Field","name":{"kind":"Name","value":"priceTarget"}},{"kind":"Field","name":{"kind":"Name","value":"direction"}},{"kind":"Field","name":{"kind":"Name","value":"keyPoints"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"label"}},{"kind":"Field","name":{"kind":"Name","value":"date"}},{"kind":"Field","name":{"kind":"Name","value":"price"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"patternSignal"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"direction"}},{"kind":"Field","name":{"kind":"Name","value":"netConfidence"}},{"kind":"Field","name":{"kind":"Name","value":"patternCount"}}]}},{"kind":"Field","name":{"kind":"Name","value":"priceTargets"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"basis"}},{"kind":"Field","name":{"kind":"Name","value":"direction"}},{"kind":"Field","name":{"kind":"Name","value":"price"}},{"kind":"Field","name":{"kind":"Name","value":"distancePercent"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"}}]}},{"kind":"Field","name":{"kind":"Name","value":"mlSignal"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"signal"}},{"kind":"Field","name":{"kind":"Name","value":"probabilityUp"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"}},{"kind":"Field","name":{"kind":"Name","value":"model"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"version"}},{"kind":"Field","name":{"kind":"Name","value":"horizonDays"}},{"kind":"Field","name":{"kind":"Name","value":"trainedThrough"}},{"kind":"Field","name":{"kind":"Name","value":"oosAuc"}},{"kind":"Field","name":{"kind":"Name","value":"oosSamples"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"enhancedSignal"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"signal"}},{"kind":"Field","name":{"kind":"Name","value":"score"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"}},{"kind":"Field","name":{"kind":"Name","value":"weights"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rules"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"weight"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}}]}},{"kind":"Field","name":{"kind":"Name","value":"ml"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"weight"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"reasons"}}]}},{"kind":"Field","name":{"kind":"Name","value":"riskParameters"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"entryPrice"}},{"kind":"Field","name":{"kind":"Name","value":"suggestedStop"}},{"kind":"Field","name":{"kind":"Name","value":"stopMethod"}},{"kind":"Field","name":{"kind":"Name","value":"suggestedTarget"}},{"kind":"Field","name":{"kind":"Name","value":"rewardRiskRatio"}},{"kind":"Field","name":{"kind":"Name","value":"volatilityStopLossLevels"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"atr1x"}},{"kind":"Field","name":{"kind":"Name","value":"atr2x"}},{"kind":"Field","name":{"kind":"Name","value":"atr3x"}},{"kind":"Field","name":{"kind":"Name","value":"hv1sd20d"}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"transitionProbabilities"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"currentStage"}},{"kind":"Field","name":{"kind":"Name","value":"nextWeek"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"stage1"}},{"kind":"Field","name":{"kind":"Name","value":"stage2"}},{"kind":"Field","name":{"kind":"Name","value":"stage3"}},{"kind":"Field","name":{"kind":"Name","value":"stage4"}}]}},{"kind":"Field","name":{"kind":"Name","value":"sampleSize"}},{"kind":"Field","name":{"kind":"Name","value":"estimatedThrough"}}]}},{"kind":"Field","name":{"kind":"Name","value":"evidence"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"asOf"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"Field","name":{"kind":"Name","value":"calibration"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"asOf"}},{"kind":"Field","name":{"kind":"Name","value":"confidence"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"raw"}},{"kind":"Field","name":{"kind":"Name","value":"probability"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<SecurityDetailQuery, SecurityDetailQueryVariables>;