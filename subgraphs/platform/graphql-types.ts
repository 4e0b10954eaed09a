/**
 * GraphQL types more than one subgraph declares: value types (`@shareable` in each), the reference to
 * the analysis subgraph's `Security` entity that other subgraphs' objects point to, the date scalar and
 * the enums every subgraph shows the same way.
 */
import 'reflect-metadata';
import { LocalDateResolver } from 'graphql-scalars';
import { Directive, Field, Float, ObjectType, registerEnumType } from 'type-graphql';
import type { Signal, StageLabel, StageStrength } from '../analysis/engine/document.js';
import type { Assert, Same } from '../allocation/request/classes.js';

@Directive('@shareable')
@ObjectType({ description: 'Cursor pagination state' })
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Pass as `after` to get the next page' })
  endCursor!: string | null;
}

/**
 * A reference to the analysis subgraph's entity: only its key lives in the referring subgraph, and
 * the gateway fetches the rest (the security's profile and analysis) from the analysis subgraph.
 */
@Directive('@key(fields: "symbol", resolvable: false)')
@ObjectType('Security')
export class SecurityReference {
  @Field(() => String)
  symbol!: string;
}

/**
 * The one date scalar of every subgraph: a calendar date `YYYY-MM-DD` (no time, no zone). Every date
 * field and argument of every subgraph uses it, so the supergraph has a single definition and clients
 * map it once (instants, such as `producedAt`, stay ISO 8601 strings).
 */
export const DateScalar = LocalDateResolver;

/*
 * Enums more than one subgraph exposes. Each TS enum's keys are the GraphQL values (UPPER_CASE, as
 * GraphQL spells enum values) and its values are the domain strings the engines and the REST responses
 * use ('STAGE 2'), so a resolver returns the domain value and GraphQL shows the key. The `*Matches*`
 * types below fail `tsc` when an enum and its domain union differ.
 */

export enum StageEnum {
  STAGE_1 = 'STAGE 1',
  STAGE_2 = 'STAGE 2',
  STAGE_3 = 'STAGE 3',
  STAGE_4 = 'STAGE 4',
}
registerEnumType(StageEnum, {
  name: 'Stage',
  description: "Weinstein stage: STAGE_1 basing, STAGE_2 advancing, STAGE_3 topping, STAGE_4 declining (REST: 'STAGE 1' .. 'STAGE 4')",
});

export enum StageStrengthEnum {
  VERY_STRONG = 'VERY_STRONG',
  STRONG = 'STRONG',
  MODERATE = 'MODERATE',
  WEAK = 'WEAK',
}
registerEnumType(StageStrengthEnum, { name: 'StageStrength', description: 'How clearly the bars show the stage' });

export enum SignalEnum {
  BUY = 'BUY',
  SELL = 'SELL',
  HOLD = 'HOLD',
}
registerEnumType(SignalEnum, { name: 'Signal', description: 'A trading signal' });

export type SharedEnumsMatchDomain = [
  Assert<Same<`${StageEnum}`, StageLabel>>,
  Assert<Same<`${StageStrengthEnum}`, StageStrength>>,
  Assert<Same<`${SignalEnum}`, Signal>>,
];

export const STAGE_LABELS: readonly StageLabel[] = Object.values(StageEnum);

/** A domain value that is one of an enum's values, or null (a stored document with another value). */
export function enumValue<E extends string>(values: readonly E[], v: unknown): E | null {
  return typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as E) : null;
}

@Directive('@shareable')
@ObjectType('VolatilityStopLossLevels', { description: 'Stop levels below the entry at 1, 2 and 3 ATR, and one 20-day standard deviation' })
export class VolatilityStopLossLevelsType {
  @Field(() => Float)
  atr1x!: number;

  @Field(() => Float)
  atr2x!: number;

  @Field(() => Float)
  atr3x!: number;

  @Field(() => Float, { nullable: true })
  hv1sd20d!: number | null;
}
