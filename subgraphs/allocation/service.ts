/** Allocation domain use cases. */
import { DEFAULT_RISK_SETTINGS, MIN_TOTAL_CAPITAL, STRATEGY_INFO, type RiskSettings, type StrategyInfo } from './engine/risk-settings.js';

export class AllocationService {
  strategies(): readonly StrategyInfo[] {
    return STRATEGY_INFO;
  }

  defaultRiskSettings(): Readonly<RiskSettings> {
    return DEFAULT_RISK_SETTINGS;
  }

  minTotalCapital(): number {
    return MIN_TOTAL_CAPITAL;
  }
}
