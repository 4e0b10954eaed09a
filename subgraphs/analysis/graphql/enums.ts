/**
 * Enums of the analysis domain shared by every subgraph (stage, stage strength, signal), and the
 * check that turns a stored string into one of an enum's domain values.
 */
import 'reflect-metadata';
import { registerEnumType } from 'type-graphql';
import type { Assert, Same } from '../../platform/type-checks.js';
import type { Signal, StageLabel, StageStrength } from '../engine/document.js';

/*
 * Enums of the analysis domain that all three subgraphs expose (allocation and search repeat a
 * snapshot's stage and signal). Each TS enum's keys are the GraphQL values (UPPER_CASE, as
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

/** A domain value that is one of an enum's values, or null (a stored document with another value). */
export function enumValue<E extends string>(values: readonly E[], v: unknown): E | null {
  return typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as E) : null;
}
