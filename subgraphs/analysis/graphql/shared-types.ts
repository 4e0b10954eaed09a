/**
 * Object types of the analysis domain that another subgraph declares too (`@shareable` in each): the
 * allocation subgraph repeats a snapshot's stop levels on every position. Like the shared enums
 * (enums.ts), they are declared once here and imported where they are shown.
 */
import 'reflect-metadata';
import { Directive, Field, Float, ObjectType } from 'type-graphql';

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
