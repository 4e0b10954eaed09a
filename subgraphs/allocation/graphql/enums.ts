/** GraphQL enums of the allocation subgraph (shared by its input and output types). */
import { registerEnumType } from 'type-graphql';

export enum AllocationStrategyEnum {
  EQUAL_WEIGHT = 'EQUAL_WEIGHT',
  STAGE_WEIGHTED = 'STAGE_WEIGHTED',
  CONFIDENCE_WEIGHTED = 'CONFIDENCE_WEIGHTED',
  KELLY_CRITERION = 'KELLY_CRITERION',
  HYBRID_WEIGHTED = 'HYBRID_WEIGHTED',
}
registerEnumType(AllocationStrategyEnum, { name: 'AllocationStrategy' });
