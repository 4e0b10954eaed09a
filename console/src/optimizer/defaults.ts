/**
 * The server defaults the optimizer form shows beside its fields, so an empty field says what it stands
 * for. Every one is read from the graph's `allocationLimits` (the common risk limits, the strategy
 * parameters' defaults, the currency, the constraint pack's version and the demo request): the console
 * keeps no copy of a server rule, so before the graph answers, or when it failed, a default is shown as
 * unknown rather than guessed. Pure: no DOM, no React.
 */
import type { AllocationStrategy, ConsoleOptimizerSetupQuery } from '../../generated/graphql.js';
import { snakeToCamel } from './fields.js';

/** The graph's answer the form reads its defaults and its demo request from. */
export type AllocationLimitsAnswer = ConsoleOptimizerSetupQuery['allocationLimits'];

/** Stage labels the form's stage-weight fields are keyed by (the spelling the form sends). */
export const STAGE_KEYS = ['STAGE 1', 'STAGE 2', 'STAGE 3', 'STAGE 4'] as const;
export type StageKey = (typeof STAGE_KEYS)[number];

/** The investor profile's version the form starts with (the server stores any 1-20 character text). */
export const INVESTOR_PROFILE_SCHEMA_VERSION = '1';

/** Every default the form shows; null where the graph has not answered. */
export interface FormDefaults {
  currency: string | null;
  minTotalCapital: number | null;
  maxRiskPerTrade: number | null;
  maxPortfolioRisk: number | null;
  maxPositionSize: number | null;
  maxPositions: number | null;
  allocationStrategy: AllocationStrategy | null;
  softmaxTemperature: number | null;
  rewardMultiplier: number | null;
  halfKelly: boolean | null;
  stageWeights: Record<StageKey, number | null>;
}

type StageWeights = { stage1: number | null; stage2: number | null; stage3: number | null; stage4: number | null };

/** The graph's stage weights (a field per stage) keyed by the form's stage labels. */
export function stageWeightsByKey(w: StageWeights | null | undefined): Record<StageKey, number | null> {
  return { 'STAGE 1': w?.stage1 ?? null, 'STAGE 2': w?.stage2 ?? null, 'STAGE 3': w?.stage3 ?? null, 'STAGE 4': w?.stage4 ?? null };
}

/**
 * The defaults from the graph's answer. `defaultRiskSettings` answers null for the strategy parameters
 * (the optimizer fills them per strategy), so those come from `strategyParameterDefaults`.
 */
export function resolveDefaults(graph: AllocationLimitsAnswer | null): FormDefaults {
  const s = graph?.defaultRiskSettings ?? null;
  const p = graph?.strategyParameterDefaults ?? null;
  const set = stageWeightsByKey(s?.stageWeights);
  const base = stageWeightsByKey(p?.stageWeights);
  return {
    currency: graph?.defaultCurrency ?? null,
    minTotalCapital: graph?.minTotalCapital ?? null,
    maxRiskPerTrade: s?.maxRiskPerTrade ?? null,
    maxPortfolioRisk: s?.maxPortfolioRisk ?? null,
    maxPositionSize: s?.maxPositionSize ?? null,
    maxPositions: s?.maxPositions ?? null,
    allocationStrategy: s?.allocationStrategy ?? null,
    softmaxTemperature: s?.softmaxTemperature ?? p?.softmaxTemperature ?? null,
    rewardMultiplier: s?.rewardMultiplier ?? p?.rewardMultiplier ?? null,
    halfKelly: s?.halfKelly ?? p?.halfKelly ?? null,
    stageWeights: Object.fromEntries(STAGE_KEYS.map((k) => [k, set[k] ?? base[k]])) as Record<StageKey, number | null>,
  };
}

/**
 * The strategies that read a risk-settings parameter (`softmaxTemperature`), from the graph's strategy
 * list (`parameters` are snake_case), so the form can say which strategies a field matters for.
 */
export function strategiesUsing(parameter: string, strategies: ReadonlyArray<{ name: AllocationStrategy; parameters: readonly string[] }>): AllocationStrategy[] {
  return strategies.filter((s) => s.parameters.some((p) => snakeToCamel(p) === parameter)).map((s) => s.name);
}
