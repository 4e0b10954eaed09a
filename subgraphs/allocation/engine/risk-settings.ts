/**
 * Risk settings and strategies as the spec defines them (spec: "RiskSettings", "Limits"): the domain
 * type the engine reads. The request class (request/classes.ts) and the GraphQL output type are checked
 * against it at compile time, so a field added on one side only fails `tsc`.
 */

export const ALLOCATION_STRATEGIES = ['EQUAL_WEIGHT', 'STAGE_WEIGHTED', 'CONFIDENCE_WEIGHTED', 'KELLY_CRITERION', 'HYBRID_WEIGHTED'] as const;
export type AllocationStrategy = (typeof ALLOCATION_STRATEGIES)[number];

export interface StrategyInfo {
  name: AllocationStrategy;
  description: string;
  /** RiskSettings fields this strategy reads beyond the common ones. */
  parameters: string[];
}

export const STRATEGY_INFO: readonly StrategyInfo[] = [
  { name: 'EQUAL_WEIGHT', description: 'Equal capital to every eligible candidate, within the caps', parameters: [] },
  { name: 'STAGE_WEIGHTED', description: 'Weights by Weinstein stage factor times stage strength', parameters: ['stage_weights'] },
  { name: 'CONFIDENCE_WEIGHTED', description: 'Softmax of signal confidence; higher temperature gives more uniform weights', parameters: ['softmax_temperature'] },
  {
    name: 'KELLY_CRITERION',
    description: 'Kelly fraction f* = p - (1 - p) / b from win probability and reward/risk; negative edge gets nothing',
    parameters: ['reward_multiplier', 'half_kelly'],
  },
  {
    name: 'HYBRID_WEIGHTED',
    description: 'Softmax of a blended score of stage, confidence, Kelly edge and relative strength',
    parameters: ['softmax_temperature', 'stage_weights'],
  },
];

/** The effective risk settings (spec "RiskSettings"): a field with a default is always set, the others are null when not sent. */
export interface RiskSettings {
  /** Fraction of capital at risk per position (shares x (entry - stop)). */
  max_risk_per_trade: number;
  /** Fraction of capital at risk across all stops. */
  max_portfolio_risk: number;
  /** Max weight of one name. */
  max_position_size: number;
  /** Most positions in the book. */
  max_positions: number;
  allocation_strategy: AllocationStrategy;
  /** Softmax temperature of the softmax-style strategies. */
  softmax_temperature: number | null;
  /** Kelly reward scale. */
  reward_multiplier: number | null;
  /** Stage label (`STAGE 1`..`STAGE 4`) -> factor. */
  stage_weights: Record<string, number> | null;
  /** Half-Kelly sizing for the Kelly strategy. */
  half_kelly: boolean | null;
}

/**
 * Defaults the server applies when risk_settings (or a field of it) is omitted. The spec fixes the
 * first four; it leaves the strategy open, and the product default is HYBRID_WEIGHTED (it uses every
 * signal the analysis produces; see README "Allocation").
 */
const DEFAULTS = {
  max_risk_per_trade: 0.01,
  max_portfolio_risk: 0.05,
  max_position_size: 0.2,
  max_positions: 30,
  allocation_strategy: 'HYBRID_WEIGHTED',
  softmax_temperature: null,
  reward_multiplier: null,
  stage_weights: null,
  half_kelly: null,
} as const satisfies RiskSettings;

export const DEFAULT_RISK_SETTINGS: Readonly<RiskSettings> = Object.freeze(DEFAULTS);

/** spec "Limits": total_capital minimum. */
export const MIN_TOTAL_CAPITAL = 1000;
