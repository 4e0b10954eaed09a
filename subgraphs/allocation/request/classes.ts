/**
 * The allocation requests as one set of classes, the single source of their contracts: each class is a
 * GraphQL input type (type-graphql) and carries its rules as class-validator decorators. From that
 * metadata request/schema.ts derives the JSON Schemas published in /openapi.json, and request/validator.ts
 * compiles each root once into the validator its REST route and its GraphQL mutation both use
 * (class-validator's own validate() is not run). Rules JSON Schema cannot state are `x-` keywords of
 * request/rules.ts, attached here with `@rule`.
 *
 * Roots: the optimize request (PortfolioRequestInput, `POST /api/v1/portfolios/optimize`,
 * `Mutation.optimizePortfolio`) and the book requests: a new book from holdings and cash
 * (CreatePortfolioInput, `POST /api/v1/portfolios`, `Mutation.createPortfolio`), a trade (TradeInput,
 * `POST .../trades`, `Mutation.recordTrade`) and a rebalance (RebalanceInput, `POST .../rebalance`,
 * `Mutation.rebalancePortfolio`). The book requests reuse RiskSettingsInput and ConstraintPackInput.
 * Checks that need the store (the symbol is a known security, no symbol twice, no date in the future,
 * enough cash or shares) are the book service's, not the contract's.
 *
 * Properties are camelCase (GraphQL's names); the REST body and the published schema use their
 * snake_case forms (camelToSnake). Free-form maps (stage_weights, sector_caps, prior_book_weights,
 * risk_quiz_answers) keep their keys as sent: they are data, not field names.
 *
 * Decorators apply bottom-up, so each line lists its checks from last to first: the presence and type
 * check sits nearest the property.
 */
import 'reflect-metadata';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsISO4217CurrencyCode,
  IsISO8601,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { JSONObjectResolver } from 'graphql-scalars';
import { Field, Float, getMetadataStorage, InputType, Int, registerEnumType } from 'type-graphql';
import { SYMBOL_MAX_LENGTH, SYMBOL_PATTERN } from '../../analysis/engine/symbol.js';
import { TRADE_SIDES, type CreatePortfolioBody, type HoldingBody, type RebalanceBody, type TradeBody, type TradeSide } from '../book-types.js';
import type { PolicyExplanation } from '../engine/risk-profile.js';
import { ALLOCATION_STRATEGIES, DEFAULT_RISK_SETTINGS, MIN_TOTAL_CAPITAL, type AllocationStrategy, type RiskSettings } from '../engine/risk-settings.js';
import type { ConstraintPack } from '../engine/types.js';
import type { Assert, Same } from '../../platform/type-checks.js';
import {
  CALENDAR_DATE,
  COST_BASIS_DECIMALS,
  DISTINCT_KEYS,
  MAX_DECIMALS,
  MAX_HOLDINGS,
  MAX_MAP_ENTRIES,
  MAX_POSITIONS_LIMIT,
  MAX_SHARES,
  MAX_TOTAL_CAPITAL,
  RISK_QUIZ_ANSWERS,
  STAGE_KEY_PATTERN,
  SUM_MAX,
  WHOLE_CENTS,
  type RequestRule,
} from './rules.js';

/** The strategies (engine/risk-settings.ts) as a GraphQL enum (registered here, beside the input that first uses it). */
export const AllocationStrategyEnum = Object.freeze(Object.fromEntries(ALLOCATION_STRATEGIES.map((s) => [s, s]))) as { readonly [S in AllocationStrategy]: S };
export type AllocationStrategyEnum = AllocationStrategy;
registerEnumType(AllocationStrategyEnum, { name: 'AllocationStrategy' });

/** The sides of a trade as a GraphQL enum. */
export const TradeSideEnum = Object.freeze(Object.fromEntries(TRADE_SIDES.map((s) => [s, s]))) as { readonly [S in TradeSide]: S };
export type TradeSideEnum = TradeSide;
registerEnumType(TradeSideEnum, { name: 'TradeSide', description: 'BUY adds shares and spends cash; SELL removes shares and adds the proceeds' });

/** Currency of a request that names none. */
export const DEFAULT_CURRENCY = 'USD';

const FINITE = { allowNaN: false, allowInfinity: false } as const;

/** An `x-` rule of rules.ts on a property (its schema value as the constraint; null passes). */
function rule<S>(r: RequestRule<S>, value: S) {
  return ValidateBy({
    name: r.keyword,
    constraints: [value],
    validator: {
      validate: (v: unknown) => v === null || v === undefined || r.problem(v, value) === null,
      defaultMessage: (args) => `${args?.property} ${r.problem(args?.value, value) ?? ''}`,
    },
  });
}

/** The JSON Schema of a free-form map's keys and values (`propertyNames`, `maxProperties`, `additionalProperties`). */
export interface MapEntries {
  keys?: string;
  maxEntries?: number;
  values: { type: 'number'; minimum: number; maximum: number } | { type: 'string'; maxLength: number };
}
export const MAP_ENTRIES = 'mapEntries';

/** A free-form map's entries, recorded as metadata for the derived schema (the compiled validator checks them). */
function mapOf(entries: MapEntries) {
  return ValidateBy({ name: MAP_ENTRIES, constraints: [entries], validator: { validate: () => true } });
}

const docs = new WeakMap<object, Map<string, string>>();
/**
 * A field's description in the published JSON Schema, for a field whose @Field has none (a field with
 * an @Field description has that one text in both the SDL and the JSON Schema).
 */
function doc(text: string): PropertyDecorator {
  return (prototype, prop) => {
    const fields = docs.get(prototype) ?? new Map<string, string>();
    fields.set(String(prop), text);
    docs.set(prototype, fields);
  };
}
/** The @doc text of a field, if any. */
export const docOf = (cls: DtoClass, prop: string): string | undefined => docs.get(cls.prototype)?.get(prop);

const FRACTION = { type: 'number', minimum: 0, maximum: 1 } as const;

// Bounds stated both in a decorator and in its field's description (one number, two uses).
const DEFAULTS = DEFAULT_RISK_SETTINGS;
/** Softmax temperature and Kelly reward scale. */
const SCALE = { min: 0.001, max: 100 } as const;
/** A stage weight's factor. */
const STAGE_FACTOR_MAX = 100;
/** One-way annual turnover cap. */
const TURNOVER = { min: 0, max: 10 } as const;
/** Annualised volatility target. */
const VOL_TARGET = { min: 0.0001, max: 2 } as const;
/** Keys that are not blank. */
const NON_BLANK = '\\S';

@InputType({ description: 'spec RiskSettings; every omitted field takes the server default (see allocationLimits)' })
export class RiskSettingsInput {
  @Field(() => Float, { nullable: true, description: `fraction 0..1 of capital at risk per position (shares x (entry - stop)); default ${DEFAULTS.max_risk_per_trade}` })
  @IsOptional() @Max(1) @Min(0) @IsNumber(FINITE)
  maxRiskPerTrade?: number | null;

  @Field(() => Float, { nullable: true, description: `fraction 0..1 of capital at risk across all stops; default ${DEFAULTS.max_portfolio_risk}` })
  @IsOptional() @Max(1) @Min(0) @IsNumber(FINITE)
  maxPortfolioRisk?: number | null;

  @Field(() => Float, { nullable: true, description: `max weight of a single name, fraction 0..1; default ${DEFAULTS.max_position_size}` })
  @IsOptional() @Max(1) @Min(0) @IsNumber(FINITE)
  maxPositionSize?: number | null;

  @Field(() => Int, { nullable: true, description: `maximum number of positions, 1..${MAX_POSITIONS_LIMIT}; default ${DEFAULTS.max_positions}` })
  @IsOptional() @Max(MAX_POSITIONS_LIMIT) @Min(1) @IsInt()
  maxPositions?: number | null;

  @doc(`how capital is weighted across eligible names; default ${DEFAULTS.allocation_strategy}`)
  @Field(() => AllocationStrategyEnum, { nullable: true })
  @IsOptional() @IsIn(ALLOCATION_STRATEGIES as unknown as string[])
  allocationStrategy?: AllocationStrategy | null;

  @Field(() => Float, { nullable: true, description: `softmax temperature of the softmax-style strategies, ${SCALE.min}..${SCALE.max}: higher gives more uniform weights` })
  @IsOptional() @Max(SCALE.max) @Min(SCALE.min) @IsNumber(FINITE)
  softmaxTemperature?: number | null;

  @Field(() => Float, { nullable: true, description: `Kelly reward scale, ${SCALE.min}..${SCALE.max}, used with KELLY_CRITERION` })
  @IsOptional() @Max(SCALE.max) @Min(SCALE.min) @IsNumber(FINITE)
  rewardMultiplier?: number | null;

  @Field(() => JSONObjectResolver, {
    nullable: true,
    description: `stage -> factor 0..${STAGE_FACTOR_MAX} for the stage and hybrid strategies, e.g. {"STAGE 2": 1, "STAGE 1": 0.3}; keys STAGE 1..STAGE 4 (or 1..4, any case, with a space, _ or -)`,
  })
  @IsOptional() @rule(DISTINCT_KEYS, 'stage') @mapOf({ keys: STAGE_KEY_PATTERN, values: { type: 'number', minimum: 0, maximum: STAGE_FACTOR_MAX } }) @IsObject()
  stageWeights?: Record<string, number> | null;

  @doc('half-Kelly sizing for the Kelly strategy')
  @Field(() => Boolean, { nullable: true })
  @IsOptional() @IsBoolean()
  halfKelly?: boolean | null;
}

@InputType({ description: 'spec ConstraintPackV1' })
export class ConstraintPackInput {
  @doc('version of this object, currently "1"')
  @Field(() => String)
  @MaxLength(20) @MinLength(1) @IsString() @IsDefined()
  schemaVersion!: string;

  @Field(() => Float, {
    nullable: true,
    description: `one-way annual turnover cap as a fraction, ${TURNOVER.min}..${TURNOVER.max}; binds against prior_book_weights, otherwise only reported in the diagnostics`,
  })
  @IsOptional() @Max(TURNOVER.max) @Min(TURNOVER.min) @IsNumber(FINITE)
  maxPortfolioTurnoverAnnual?: number | null;

  @Field(() => Float, { nullable: true, description: `annualised volatility target as a fraction, ${VOL_TARGET.min}..${VOL_TARGET.max}` })
  @IsOptional() @Max(VOL_TARGET.max) @Min(VOL_TARGET.min) @IsNumber(FINITE)
  volTargetAnnual?: number | null;

  @Field(() => JSONObjectResolver, { nullable: true, description: 'sector label -> max weight 0..1; the DEFAULT key is a per-name cap merged with max_position_size' })
  @IsOptional() @mapOf({ keys: NON_BLANK, maxEntries: MAX_MAP_ENTRIES, values: FRACTION }) @IsObject()
  sectorCaps?: Record<string, number> | null;

  @Field(() => String, { nullable: true, description: 'reserved placeholder, recorded only (the covariance is always Ledoit-Wolf shrunk)' })
  @IsOptional() @MaxLength(50) @IsString()
  covarianceModel?: string | null;
}

@InputType({ description: 'Preset key and description from the risk wizard' })
export class SuggestedPresetInput {
  @doc('preset key')
  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(50) @IsString()
  key?: string | null;

  @doc('preset description')
  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(500) @IsString()
  description?: string | null;
}

/** Raw quiz answers: at most 50, each a string of at most 200 characters. */
const QUIZ_ANSWERS: MapEntries = { maxEntries: 50, values: { type: 'string', maxLength: 200 } };

@InputType({ description: 'spec InvestorProfileV1: a questionnaire snapshot stored with the portfolio' })
export class InvestorProfileInput {
  @doc('version of this object')
  @Field(() => String)
  @MaxLength(20) @MinLength(1) @IsString() @IsDefined()
  schemaVersion!: string;

  @Field(() => String, { nullable: true, description: 'ISO 8601 time the questionnaire was answered' })
  @IsOptional() @IsISO8601({ strict: true }) @IsString()
  recordedAt?: string | null;

  @doc('quiz key -> answer string, as answered (stored with the portfolio, not scored)')
  @Field(() => JSONObjectResolver, { nullable: true })
  @IsOptional() @mapOf(QUIZ_ANSWERS) @IsObject()
  riskQuizAnswers?: Record<string, string> | null;

  @doc('preset key and description from the risk wizard')
  @Field(() => SuggestedPresetInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  suggestedPreset?: SuggestedPresetInput | null;
}

@InputType({ description: 'spec PolicyExplanationV1 (a client hint: the server replaces it with its own)' })
export class PolicyExplanationInput {
  @doc('version of this object')
  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(20) @IsString()
  schemaVersion?: string | null;

  @doc('version of the risk-quiz mapper')
  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(20) @IsString()
  mapperVersion?: string | null;

  @doc('risk preset the settings came from')
  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(50) @IsString()
  presetKey?: string | null;

  @doc('client hint: short audit lines (the response carries the server-built explanation instead)')
  @Field(() => [String], { nullable: true })
  @IsOptional() @MaxLength(500, { each: true }) @ArrayMaxSize(50) @IsString({ each: true }) @IsArray()
  bullets?: string[] | null;
}

@InputType({ description: 'spec PortfolioRequest' })
export class PortfolioRequestInput {
  @doc('portfolio display name')
  @Field(() => String)
  @MaxLength(200) @MinLength(1) @IsString() @IsDefined()
  name!: string;

  @doc('free text')
  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(2000) @IsString()
  description?: string | null;

  @Field(() => Float, { description: `capital to allocate, ${MIN_TOTAL_CAPITAL}..${MAX_TOTAL_CAPITAL}` })
  @rule(WHOLE_CENTS, true) @Max(MAX_TOTAL_CAPITAL) @Min(MIN_TOTAL_CAPITAL) @IsNumber(FINITE) @IsDefined()
  totalCapital!: number;

  @Field(() => String, { nullable: true, description: `ISO 4217 currency code; default ${DEFAULT_CURRENCY}` })
  @IsOptional() @IsISO4217CurrencyCode() @Matches(/^[A-Z]{3}$/) @IsString()
  currency?: string | null;

  @Field(() => JSONObjectResolver, { nullable: true, description: 'raw risk-quiz answers, quiz key -> answer string; they choose the preset when there are no risk_settings' })
  @IsOptional() @rule(RISK_QUIZ_ANSWERS, true) @mapOf(QUIZ_ANSWERS) @IsObject()
  riskQuizAnswers?: Record<string, string> | null;

  @doc('preset key and description from the risk wizard')
  @Field(() => SuggestedPresetInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  suggestedPreset?: SuggestedPresetInput | null;

  @doc('risk limits and strategy; omitted fields (or all of it) take the server defaults')
  @Field(() => RiskSettingsInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  riskSettings?: RiskSettingsInput | null;

  @doc('questionnaire snapshot, stored with the portfolio')
  @Field(() => InvestorProfileInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  investorProfile?: InvestorProfileInput | null;

  @doc('machine-readable constraints, stored with the portfolio')
  @Field(() => ConstraintPackInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  constraintPack?: ConstraintPackInput | null;

  @Field(() => JSONObjectResolver, {
    nullable: true,
    description: "symbol -> fraction 0..1 of total_capital held before; used for rebalance-only blending with the constraint pack's turnover cap",
  })
  @IsOptional() @rule(SUM_MAX, 1) @rule(DISTINCT_KEYS, 'symbol') @mapOf({ keys: NON_BLANK, maxEntries: MAX_MAP_ENTRIES, values: FRACTION }) @IsObject()
  priorBookWeights?: Record<string, number> | null;

  @doc('client hint; the response carries the server-built explanation instead')
  @Field(() => PolicyExplanationInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  policyExplanation?: PolicyExplanationInput | null;
}

// ---------------------------------------------------------------------------------------------------------
// The book requests: a new book from holdings and cash, a trade, a rebalance
// ---------------------------------------------------------------------------------------------------------

/** A `YYYY-MM-DD` date as sent (the pattern; x-calendar-date checks the day exists). */
const DATE_FORM = /^\d{4}-\d{2}-\d{2}$/;

@InputType({ description: 'One holding of a new book: whole shares of a known security and what they cost' })
export class HoldingInput {
  @Field(() => String, { description: 'ticker of a known security, as the analysis origin spells it (upper case, e.g. AAPL, BRK.B)' })
  @Matches(SYMBOL_PATTERN) @MaxLength(SYMBOL_MAX_LENGTH) @IsString() @IsDefined()
  symbol!: string;

  @Field(() => Int, { description: `whole shares held, 1..${MAX_SHARES}` })
  @Max(MAX_SHARES) @Min(1) @IsInt() @IsDefined()
  shares!: number;

  @Field(() => Float, { description: `average price paid per share, >= 0` })
  @rule(MAX_DECIMALS, COST_BASIS_DECIMALS) @Max(MAX_TOTAL_CAPITAL) @Min(0) @IsNumber(FINITE) @IsDefined()
  costBasis!: number;

  @Field(() => String, { nullable: true, description: 'date the position was opened, not in the future; default the day the book is created' })
  @IsOptional() @rule(CALENDAR_DATE, true) @Matches(DATE_FORM) @IsString()
  entryDate?: string | null;

  @Field(() => Float, { nullable: true, description: 'protective stop per share, > 0 (without one, risk uses the latest analysis stop)' })
  @IsOptional() @rule(WHOLE_CENTS, true) @Max(MAX_TOTAL_CAPITAL) @IsPositive() @IsNumber(FINITE)
  stopLoss?: number | null;

  @Field(() => Float, { nullable: true, description: 'price target per share, > 0' })
  @IsOptional() @rule(WHOLE_CENTS, true) @Max(MAX_TOTAL_CAPITAL) @IsPositive() @IsNumber(FINITE)
  targetPrice?: number | null;
}

@InputType({ description: 'A new book from holdings and cash (REST POST /api/v1/portfolios)' })
export class CreatePortfolioInput {
  @doc('book display name')
  @Field(() => String)
  @MaxLength(200) @MinLength(1) @IsString() @IsDefined()
  name!: string;

  @Field(() => String, { nullable: true, description: `ISO 4217 currency code; default ${DEFAULT_CURRENCY}` })
  @IsOptional() @IsISO4217CurrencyCode() @Matches(/^[A-Z]{3}$/) @IsString()
  currency?: string | null;

  @Field(() => Float, { description: `cash held besides the holdings, 0..${MAX_TOTAL_CAPITAL}` })
  @rule(WHOLE_CENTS, true) @Max(MAX_TOTAL_CAPITAL) @Min(0) @IsNumber(FINITE) @IsDefined()
  cash!: number;

  @Field(() => [HoldingInput], { description: `the holdings, 0..${MAX_HOLDINGS}, each symbol at most once (their order is the book's order)` })
  @ArrayMaxSize(MAX_HOLDINGS) @ValidateNested({ each: true }) @IsArray() @IsDefined()
  holdings!: HoldingInput[];

  @doc('the limits hunt, cash hunt and rebalance apply to this book; omitted fields (or all of it) take the server defaults')
  @Field(() => RiskSettingsInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  riskSettings?: RiskSettingsInput | null;

  @doc('machine-readable constraints (sector caps, turnover), stored with the book')
  @Field(() => ConstraintPackInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  constraintPack?: ConstraintPackInput | null;
}

@InputType({ description: 'A trade to record (REST POST /api/v1/portfolios/{id}/trades): no margin, no short sale' })
export class TradeInput {
  @Field(() => String, { description: 'ticker of a known security (a SELL: one the book holds)' })
  @Matches(SYMBOL_PATTERN) @MaxLength(SYMBOL_MAX_LENGTH) @IsString() @IsDefined()
  symbol!: string;

  @doc('BUY or SELL')
  @Field(() => TradeSideEnum)
  @IsIn(TRADE_SIDES as unknown as string[]) @IsDefined()
  side!: TradeSide;

  @Field(() => Int, { description: `whole shares, 1..${MAX_SHARES}` })
  @Max(MAX_SHARES) @Min(1) @IsInt() @IsDefined()
  shares!: number;

  @Field(() => Float, { nullable: true, description: "price per share, > 0; default the symbol's close on the trade date (or the last one before it)" })
  @IsOptional() @rule(WHOLE_CENTS, true) @Max(MAX_TOTAL_CAPITAL) @IsPositive() @IsNumber(FINITE)
  price?: number | null;

  @Field(() => String, { nullable: true, description: "trade date, not in the future; default today (UTC)" })
  @IsOptional() @rule(CALENDAR_DATE, true) @Matches(DATE_FORM) @IsString()
  date?: string | null;
}

@InputType({ description: "A rebalance of a book (REST POST /api/v1/portfolios/{id}/rebalance): the optimizer's target from the book's value, with the book as the prior weights" })
export class RebalanceInput {
  @doc("limits and strategy (allocation_strategy) for this rebalance; omitted fields take the book's settings")
  @Field(() => RiskSettingsInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  riskSettings?: RiskSettingsInput | null;

  @doc("constraints for this rebalance; default the book's constraint pack")
  @Field(() => ConstraintPackInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  constraintPack?: ConstraintPackInput | null;
}

// ---------------------------------------------------------------------------------------------------------
// The classes as a model: field names in both spellings, nested classes, and the snake_case shape types
// ---------------------------------------------------------------------------------------------------------

export type DtoClass = new () => object;

/** The published name of each class's schema (the spec's names), the request itself first. */
export const REQUEST_CLASSES: ReadonlyArray<readonly [DtoClass, string]> = [
  [PortfolioRequestInput, 'PortfolioRequest'],
  [RiskSettingsInput, 'RiskSettings'],
  [ConstraintPackInput, 'ConstraintPackV1'],
  [InvestorProfileInput, 'InvestorProfileV1'],
  [PolicyExplanationInput, 'PolicyExplanationV1'],
  [SuggestedPresetInput, 'SuggestedPreset'],
];
/** The book requests' own components (they nest RiskSettings and ConstraintPackV1 of the optimize request), roots first. */
export const BOOK_REQUEST_CLASSES: ReadonlyArray<readonly [DtoClass, string]> = [
  [CreatePortfolioInput, 'CreatePortfolioRequest'],
  [TradeInput, 'TradeRequest'],
  [RebalanceInput, 'RebalanceRequest'],
  [HoldingInput, 'NewHolding'],
];
/** Every request class by its published name. */
export const ALL_REQUEST_CLASSES: ReadonlyArray<readonly [DtoClass, string]> = [...REQUEST_CLASSES, ...BOOK_REQUEST_CLASSES];
const DTO_CLASSES: ReadonlySet<unknown> = new Set(ALL_REQUEST_CLASSES.map(([cls]) => cls));

export const snakeToCamel = (key: string): string => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
export const camelToSnake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * One field of a class: its property (camelCase), its REST name (snake_case), its class when it nests
 * one, and whether it is a list of them (`holdings`).
 */
export interface RequestField {
  prop: string;
  name: string;
  nested: DtoClass | null;
  list: boolean;
}

/** The class a field nests, as its GraphQL type says (`@Field(() => RiskSettingsInput)`, `[HoldingInput]`), or null. */
function nestedClassOf(cls: DtoClass, prop: string): { nested: DtoClass | null; list: boolean } {
  const field = getMetadataStorage().fields.find((f) => f.target === cls && f.name === prop);
  const type: unknown = field?.getType();
  return DTO_CLASSES.has(type) ? { nested: type as DtoClass, list: field?.typeOptions.array === true } : { nested: null, list: false };
}

const fieldTables = new Map<DtoClass, readonly RequestField[]>();
/** A class's fields in declaration order (class fields exist on every instance: ES2022). */
export function fieldsOf(cls: DtoClass): readonly RequestField[] {
  let fields = fieldTables.get(cls);
  if (!fields) {
    fields = Object.keys(new cls()).map((prop) => ({ prop, name: camelToSnake(prop), ...nestedClassOf(cls, prop) }));
    fieldTables.set(cls, fields);
  }
  return fields;
}

type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;
/** A class's shape with snake_case keys, nested classes included (in lists too; maps are kept). */
export type SnakeShape<T> = T extends readonly (infer E)[]
  ? SnakeShape<E>[]
  : T extends object
    ? { [K in keyof T as K extends string ? SnakeCase<K> : K]: SnakeShape<T[K]> }
    : T;
/** The REST body of optimize (spec "PortfolioRequest"), as the validator accepts it. */
export type RequestBody = SnakeShape<PortfolioRequestInput>;
/** The REST bodies of the book requests, as their validators accept them. */
export type CreatePortfolioRequestBody = SnakeShape<CreatePortfolioInput>;
export type TradeRequestBody = SnakeShape<TradeInput>;
export type RebalanceRequestBody = SnakeShape<RebalanceInput>;

// The request classes against the engine's domain types: the same fields (snake_case) with the same
// value types, null aside. A field added, renamed or retyped on one side only fails `tsc` here.

/** Every field of T, set and not null. */
export type FieldTypes<T> = { [K in keyof T]-?: NonNullable<T[K]> };
export type RequestClassesMatchDomain = [
  Assert<Same<FieldTypes<SnakeShape<RiskSettingsInput>>, FieldTypes<RiskSettings>>>,
  Assert<Same<FieldTypes<SnakeShape<ConstraintPackInput>>, FieldTypes<ConstraintPack>>>,
  Assert<Same<FieldTypes<SnakeShape<PolicyExplanationInput>>, FieldTypes<PolicyExplanation>>>,
  // The book requests against book-types.ts (their nested settings and pack are checked above).
  Assert<Same<FieldTypes<Omit<CreatePortfolioRequestBody, 'holdings' | 'risk_settings' | 'constraint_pack'>>, FieldTypes<Omit<CreatePortfolioBody, 'holdings' | 'risk_settings' | 'constraint_pack'>>>>,
  Assert<Same<keyof CreatePortfolioRequestBody, keyof CreatePortfolioBody>>,
  Assert<Same<SnakeShape<HoldingInput>, HoldingBody>>,
  Assert<Same<TradeRequestBody, TradeBody>>,
  Assert<Same<keyof RebalanceRequestBody, keyof RebalanceBody>>,
];
