/**
 * The server defaults the optimizer form shows beside its fields, so an empty field says what it stands
 * for. The graph's `allocationLimits.defaultRiskSettings` is the source for the common risk limits and
 * the strategy; it answers null for the strategy parameters (the server fills them per strategy while
 * optimizing), so those, and the few other defaults the graph does not expose, are the constants below,
 * each naming the server source it mirrors. Pure: no DOM, no React.
 */
import type { AllocationStrategy, ConsoleRiskSettingsFragment } from '../../generated/graphql.js';

/** Stage labels the stage weights are keyed by (the server also accepts 1..4 in other spellings). */
export const STAGE_KEYS = ['STAGE 1', 'STAGE 2', 'STAGE 3', 'STAGE 4'] as const;
export type StageKey = (typeof STAGE_KEYS)[number];

/**
 * Strategy-parameter defaults: subgraphs/allocation/engine/strategies.ts (DEFAULT_SOFTMAX_TEMPERATURE,
 * DEFAULT_STAGE_WEIGHTS, DEFAULT_REWARD_MULTIPLIER, DEFAULT_HALF_KELLY), documented in
 * docs/ALLOCATION.md section 1. The graph answers these as null in defaultRiskSettings.
 */
export const STRATEGY_PARAMETER_DEFAULTS = Object.freeze({
  softmaxTemperature: 0.2,
  rewardMultiplier: 1,
  halfKelly: false,
  stageWeights: Object.freeze({ 'STAGE 1': 0.25, 'STAGE 2': 1, 'STAGE 3': 0.25, 'STAGE 4': 0 } satisfies Record<StageKey, number>),
});

/** Currency of a request that names none: subgraphs/allocation/request/classes.ts DEFAULT_CURRENCY (the SDL says "default USD"). */
export const DEFAULT_CURRENCY = 'USD';

/** The constraint pack's current version: subgraphs/allocation/engine/types.ts CONSTRAINT_PACK_SCHEMA_VERSION. */
export const CONSTRAINT_PACK_SCHEMA_VERSION = '1';

/** The investor profile's version the form starts with (the server stores any 1-20 character text). */
export const INVESTOR_PROFILE_SCHEMA_VERSION = '1';

/**
 * The one input an anonymous caller may send: subgraphs/allocation/service.ts DEMO_OPTIMIZE_BODY (REST
 * GET /api/v1/demo/optimize-body, which is not on the gateway). Anything else is DEMO_BODY_MISMATCH.
 */
export const DEMO_INPUT = Object.freeze({
  name: 'Demo portfolio',
  totalCapital: 100000,
  riskSettings: Object.freeze({ maxRiskPerTrade: 0.01, maxPortfolioRisk: 0.05, maxPositionSize: 0.2, maxPositions: 10, allocationStrategy: 'KELLY_CRITERION' as AllocationStrategy }),
});

/** Every default the form shows, resolved: the graph's where it has one, else the constants above. */
export interface FormDefaults {
  currency: string;
  minTotalCapital: number | null;
  maxRiskPerTrade: number | null;
  maxPortfolioRisk: number | null;
  maxPositionSize: number | null;
  maxPositions: number | null;
  allocationStrategy: AllocationStrategy | null;
  softmaxTemperature: number;
  rewardMultiplier: number;
  halfKelly: boolean;
  stageWeights: Record<StageKey, number>;
}

/**
 * The defaults from the graph's answer (null before it arrives or when it failed: the common limits then
 * show no default rather than a guessed one).
 */
export function resolveDefaults(graph: { minTotalCapital: number; defaultRiskSettings: ConsoleRiskSettingsFragment } | null): FormDefaults {
  const s = graph?.defaultRiskSettings ?? null;
  const sw = s?.stageWeights ?? null;
  const base = STRATEGY_PARAMETER_DEFAULTS;
  return {
    currency: DEFAULT_CURRENCY,
    minTotalCapital: graph?.minTotalCapital ?? null,
    maxRiskPerTrade: s?.maxRiskPerTrade ?? null,
    maxPortfolioRisk: s?.maxPortfolioRisk ?? null,
    maxPositionSize: s?.maxPositionSize ?? null,
    maxPositions: s?.maxPositions ?? null,
    allocationStrategy: s?.allocationStrategy ?? null,
    softmaxTemperature: s?.softmaxTemperature ?? base.softmaxTemperature,
    rewardMultiplier: s?.rewardMultiplier ?? base.rewardMultiplier,
    halfKelly: s?.halfKelly ?? base.halfKelly,
    stageWeights: {
      'STAGE 1': sw?.stage1 ?? base.stageWeights['STAGE 1'],
      'STAGE 2': sw?.stage2 ?? base.stageWeights['STAGE 2'],
      'STAGE 3': sw?.stage3 ?? base.stageWeights['STAGE 3'],
      'STAGE 4': sw?.stage4 ?? base.stageWeights['STAGE 4'],
    },
  };
}

/** camelCase of a snake_case parameter name (`softmax_temperature` -> `softmaxTemperature`). */
const camel = (name: string): string => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * The strategies that read a risk-settings parameter (`softmaxTemperature`), from the graph's strategy
 * list (`parameters` are snake_case), so the form can say which strategies a field matters for.
 */
export function strategiesUsing(parameter: string, strategies: ReadonlyArray<{ name: AllocationStrategy; parameters: readonly string[] }>): AllocationStrategy[] {
  return strategies.filter((s) => s.parameters.some((p) => camel(p) === parameter)).map((s) => s.name);
}
