/** GraphQL enums of the allocation subgraph (shared by its input and output types; registered with the request classes). */
export { AllocationStrategyEnum } from '../request/classes.js';
