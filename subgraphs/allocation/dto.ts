/**
 * The optimize request as one set of classes: each is both a GraphQL input type (type-graphql) and a
 * class-validator DTO, so `POST /api/v1/portfolios/optimize` and `Mutation.optimizePortfolio` check
 * exactly the same rules (spec "PortfolioRequest", "RiskSettings", "ConstraintPackV1", "Limits").
 *
 * Properties are camelCase (GraphQL's names). A REST body arrives in the spec's snake_case:
 * `restBodyToInput` maps its keys (only keys already in canonical snake_case; anything else is an
 * unknown field) and `validateInput` reports every violation with the caller's own field names.
 * Free-form maps (stage_weights, sector_caps, prior_book_weights, risk_quiz_answers) keep their keys
 * as sent: they are data, not field names.
 */
import 'reflect-metadata';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsISO8601,
  Matches,
  IsIn,
  IsInt,
  IsISO4217CurrencyCode,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateNested,
  validate,
  type ValidationError,
  type ValidationOptions,
} from 'class-validator';
import { JSONObjectResolver } from 'graphql-scalars';
import { Field, Float, InputType, Int } from 'type-graphql';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { ALLOCATION_STRATEGIES, MIN_TOTAL_CAPITAL, type AllocationStrategy, type RiskSettings } from './engine/risk-settings.js';
import type { ConstraintPack } from './engine/types.js';
import { AllocationStrategyEnum } from './graphql/enums.js';

/** Largest capital accepted (a sanity bound: beyond it cents stop being exact in a double). */
export const MAX_TOTAL_CAPITAL = 1e12;
/** Most positions a request may ask for (the covariance of the book is n x n). */
export const MAX_POSITIONS_LIMIT = 500;
/** Most entries of a free-form map (sector caps, prior book, stage weights, quiz answers). */
export const MAX_MAP_ENTRIES = 500;

const FINITE = { allowNaN: false, allowInfinity: false } as const;

// ---------------------------------------------------------------------------------------------------------
// Validators for the free-form maps
// ---------------------------------------------------------------------------------------------------------

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why a map is invalid, or null. */
type MapCheck = (value: Record<string, unknown>) => string | null;

function mapOf(name: string, check: MapCheck, options?: ValidationOptions) {
  return ValidateBy(
    {
      name,
      validator: {
        validate: (value: unknown) => value === null || value === undefined || (isPlainObject(value) && check(value) === null),
        defaultMessage: (args) =>
          isPlainObject(args?.value) ? `${args?.property} ${check(args.value)}` : `${args?.property} must be an object (a JSON map)`,
      },
    },
    options,
  );
}

const entries = (value: Record<string, unknown>): [string, unknown][] => Object.entries(value);

/**
 * An amount with at most two decimals (whole cents). Not class-validator's `maxDecimalPlaces`: it
 * reads decimals from the number's text and throws on exponent forms such as 3e-323.
 */
function wholeCents(options?: ValidationOptions) {
  return ValidateBy(
    {
      name: 'wholeCents',
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'number') return false;
          const cents = value * 100;
          // Within the rounding of the multiplication itself (a few ulps of the product).
          return Math.abs(cents - Math.round(cents)) <= Math.max(1e-6, Math.abs(cents) * Number.EPSILON * 4);
        },
        defaultMessage: (args) => `${args?.property} must have at most two decimals (whole cents)`,
      },
    },
    options,
  );
}

/** A prior book's symbol as the engine keys it. */
const priorBookKey = (key: string): string => key.trim().toUpperCase();

/** A map of label -> fraction 0..1 (sector caps, prior book weights). */
const fractionMap = (what: string, sumMax?: number, normalize?: (key: string) => string): MapCheck => (value) => {
  const list = entries(value);
  if (normalize) {
    const seen = new Map<string, string>();
    const clashes: string[] = [];
    for (const [k] of list) {
      const n = normalize(k);
      const first = seen.get(n);
      if (first !== undefined) clashes.push(`${JSON.stringify(first)} and ${JSON.stringify(k)}`);
      else seen.set(n, k);
    }
    if (clashes.length) return `names the same ${what} twice (${clashes.join('; ')})`;
  }
  if (list.length > MAX_MAP_ENTRIES) return `has ${list.length} entries; at most ${MAX_MAP_ENTRIES}`;
  const bad = list.filter(([k, v]) => k.trim() === '' || typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1);
  if (bad.length) return `must map each ${what} to a fraction from 0 to 1 (bad: ${bad.map(([k]) => JSON.stringify(k)).join(', ')})`;
  if (sumMax !== undefined) {
    const sum = list.reduce((s, [, v]) => s + (v as number), 0);
    if (sum > sumMax + 1e-9) return `fractions sum to ${sum.toFixed(6)}; at most ${sumMax}`;
  }
  return null;
};

/** `STAGE 1`..`STAGE 4` (also `1`..`4`, any case, `_` or space) -> the canonical label; null otherwise. */
function stageKey(key: string): string | null {
  const m = /^\s*(?:stage[ _-]?)?([1-4])\s*$/i.exec(key);
  return m ? `STAGE ${m[1]}` : null;
}

const stageWeightMap: MapCheck = (value) => {
  const list = entries(value);
  const badKeys = list.filter(([k]) => stageKey(k) === null).map(([k]) => JSON.stringify(k));
  if (badKeys.length) return `keys must be stages STAGE 1..STAGE 4 (bad: ${badKeys.join(', ')})`;
  const seen = new Set(list.map(([k]) => stageKey(k)));
  if (seen.size !== list.length) return 'names a stage more than once';
  const bad = list.filter(([, v]) => typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 100);
  if (bad.length) return `values must be numbers from 0 to 100 (bad: ${bad.map(([k]) => JSON.stringify(k)).join(', ')})`;
  return null;
};

const stringMap: MapCheck = (value) => {
  const list = entries(value);
  if (list.length > 50) return `has ${list.length} entries; at most 50`;
  const bad = list.filter(([, v]) => typeof v !== 'string' || v.length > 200);
  return bad.length ? `values must be strings of at most 200 characters (bad: ${bad.map(([k]) => JSON.stringify(k)).join(', ')})` : null;
};

// ---------------------------------------------------------------------------------------------------------
// The DTOs
//
// Decorators apply bottom-up, so each line lists its checks from last to first: the presence and type
// check sits nearest the property and runs first, and validation stops at a field's first failure (a
// string where a number belongs gets one message, "must be a number", not a range complaint too).
// ---------------------------------------------------------------------------------------------------------

@InputType({ description: 'spec RiskSettings; every omitted field takes the server default (see allocationLimits)' })
export class RiskSettingsInput {
  @Field(() => Float, { nullable: true, description: 'Fraction 0..1 of capital at risk per trade (default 0.01)' })
  @IsOptional() @Max(1) @Min(0) @IsNumber(FINITE)
  maxRiskPerTrade?: number | null;

  @Field(() => Float, { nullable: true, description: 'Fraction 0..1 of capital at risk in total (default 0.05)' })
  @IsOptional() @Max(1) @Min(0) @IsNumber(FINITE)
  maxPortfolioRisk?: number | null;

  @Field(() => Float, { nullable: true, description: 'Max weight of one name, 0..1 (default 0.2)' })
  @IsOptional() @Max(1) @Min(0) @IsNumber(FINITE)
  maxPositionSize?: number | null;

  @Field(() => Int, { nullable: true, description: `Maximum number of positions, 1..${MAX_POSITIONS_LIMIT} (default 30)` })
  @IsOptional() @Max(MAX_POSITIONS_LIMIT) @Min(1) @IsInt()
  maxPositions?: number | null;

  @Field(() => AllocationStrategyEnum, { nullable: true })
  @IsOptional() @IsIn(ALLOCATION_STRATEGIES as unknown as string[], { message: `allocation_strategy must be one of ${ALLOCATION_STRATEGIES.join(', ')}` })
  allocationStrategy?: AllocationStrategy | null;

  @Field(() => Float, { nullable: true, description: 'Softmax temperature (> 0, at most 100); higher gives more uniform weights' })
  @IsOptional() @Max(100) @Min(0.001) @IsNumber(FINITE)
  softmaxTemperature?: number | null;

  @Field(() => Float, { nullable: true, description: 'Kelly reward scale (> 0, at most 100)' })
  @IsOptional() @Max(100) @Min(0.001) @IsNumber(FINITE)
  rewardMultiplier?: number | null;

  @Field(() => JSONObjectResolver, { nullable: true, description: 'Stage -> factor, e.g. {"STAGE 2": 1, "STAGE 1": 0.3}' })
  @IsOptional() @mapOf('stageWeights', stageWeightMap)
  stageWeights?: Record<string, number> | null;

  @Field(() => Boolean, { nullable: true })
  @IsOptional() @IsBoolean()
  halfKelly?: boolean | null;
}

@InputType({ description: 'spec ConstraintPackV1' })
export class ConstraintPackInput {
  @Field(() => String)
  @MaxLength(20) @MinLength(1) @IsString() @IsDefined({ message: 'schemaVersion is required' })
  schemaVersion!: string;

  @Field(() => Float, { nullable: true, description: 'One-way annual turnover cap as a fraction (0..10)' })
  @IsOptional() @Max(10) @Min(0) @IsNumber(FINITE)
  maxPortfolioTurnoverAnnual?: number | null;

  @Field(() => Float, { nullable: true, description: 'Annualised volatility target as a fraction (0..2]' })
  @IsOptional() @Max(2) @Min(0.0001) @IsNumber(FINITE)
  volTargetAnnual?: number | null;

  @Field(() => JSONObjectResolver, { nullable: true, description: 'Sector label -> max weight 0..1; DEFAULT caps every single name' })
  @IsOptional() @mapOf('sectorCaps', fractionMap('sector'))
  sectorCaps?: Record<string, number> | null;

  @Field(() => String, { nullable: true, description: 'Reserved; the covariance is always Ledoit-Wolf shrunk' })
  @IsOptional() @MaxLength(50) @IsString()
  covarianceModel?: string | null;
}

@InputType({ description: 'Preset key and description from the risk wizard' })
export class SuggestedPresetInput {
  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(50) @IsString()
  key?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(500) @IsString()
  description?: string | null;
}

@InputType({ description: 'spec InvestorProfileV1: a questionnaire snapshot stored with the portfolio' })
export class InvestorProfileInput {
  @Field(() => String)
  @MaxLength(20) @MinLength(1) @IsString() @IsDefined({ message: 'schemaVersion is required' })
  schemaVersion!: string;

  @Field(() => String, { nullable: true, description: 'ISO 8601' })
  @IsOptional() @IsISO8601({ strict: true }, { message: 'recordedAt must be an ISO 8601 date-time' }) @IsString()
  recordedAt?: string | null;

  @Field(() => JSONObjectResolver, { nullable: true })
  @IsOptional() @mapOf('riskQuizAnswers', stringMap)
  riskQuizAnswers?: Record<string, string> | null;

  @Field(() => SuggestedPresetInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  suggestedPreset?: SuggestedPresetInput | null;
}

@InputType({ description: 'spec PolicyExplanationV1 (a client hint: the server replaces it with its own)' })
export class PolicyExplanationInput {
  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(20) @IsString()
  schemaVersion?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(20) @IsString()
  mapperVersion?: string | null;

  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(50) @IsString()
  presetKey?: string | null;

  @Field(() => [String], { nullable: true })
  @IsOptional() @MaxLength(500, { each: true }) @ArrayMaxSize(50) @IsString({ each: true }) @IsArray()
  bullets?: string[] | null;
}

@InputType({ description: 'spec PortfolioRequest' })
export class PortfolioRequestInput {
  @Field(() => String)
  @MaxLength(200) @MinLength(1) @IsString() @IsDefined({ message: 'name is required' })
  name!: string;

  @Field(() => String, { nullable: true })
  @IsOptional() @MaxLength(2000) @IsString()
  description?: string | null;

  @Field(() => Float, { description: `At least ${MIN_TOTAL_CAPITAL}` })
  @wholeCents() @Max(MAX_TOTAL_CAPITAL) @Min(MIN_TOTAL_CAPITAL) @IsNumber(FINITE) @IsDefined({ message: 'totalCapital is required' })
  totalCapital!: number;

  @Field(() => String, { nullable: true, description: 'ISO 4217 code, default USD' })
  @IsOptional() @IsISO4217CurrencyCode() @Matches(/^[A-Z]{3}$/, { message: 'currency must be three upper-case letters' }) @IsString()
  currency?: string | null;

  @Field(() => JSONObjectResolver, { nullable: true, description: 'Raw quiz answers (goal, horizon, drawdown, volatility, concentration, preference)' })
  @IsOptional() @mapOf('riskQuizAnswers', stringMap)
  riskQuizAnswers?: Record<string, string> | null;

  @Field(() => SuggestedPresetInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  suggestedPreset?: SuggestedPresetInput | null;

  @Field(() => RiskSettingsInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  riskSettings?: RiskSettingsInput | null;

  @Field(() => InvestorProfileInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  investorProfile?: InvestorProfileInput | null;

  @Field(() => ConstraintPackInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  constraintPack?: ConstraintPackInput | null;

  @Field(() => JSONObjectResolver, { nullable: true, description: 'Symbol -> fraction of total_capital held before; the fractions sum to at most 1' })
  @IsOptional() @mapOf('priorBookWeights', fractionMap('symbol', 1, priorBookKey))
  priorBookWeights?: Record<string, number> | null;

  @Field(() => PolicyExplanationInput, { nullable: true })
  @IsOptional() @ValidateNested() @IsObject()
  policyExplanation?: PolicyExplanationInput | null;
}

// ---------------------------------------------------------------------------------------------------------
// REST body -> DTO, validation, DTO -> domain request
// ---------------------------------------------------------------------------------------------------------

type DtoClass = new () => object;
/** Properties holding a nested DTO, by class. */
const NESTED: ReadonlyMap<DtoClass, Readonly<Record<string, DtoClass>>> = new Map<DtoClass, Record<string, DtoClass>>([
  [
    PortfolioRequestInput,
    {
      suggestedPreset: SuggestedPresetInput,
      riskSettings: RiskSettingsInput,
      investorProfile: InvestorProfileInput,
      constraintPack: ConstraintPackInput,
      policyExplanation: PolicyExplanationInput,
    },
  ],
  [InvestorProfileInput, { suggestedPreset: SuggestedPresetInput }],
]);

export const snakeToCamel = (key: string): string => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
export const camelToSnake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A class's fields by their REST (snake_case) name. Class fields exist on every instance (ES2022). */
const restFields = new Map<DtoClass, ReadonlyMap<string, string>>();
function restFieldsOf(cls: DtoClass): ReadonlyMap<string, string> {
  let fields = restFields.get(cls);
  if (!fields) {
    fields = new Map(Object.keys(new cls()).map((prop) => [camelToSnake(prop), prop]));
    restFields.set(cls, fields);
  }
  return fields;
}

/**
 * A REST body (snake_case keys) as a DTO instance. Only a class's own fields, by their snake_case
 * names, are copied; every other key (`totalCapital`, `constructor`, `__proto__`, a typo) is an unknown
 * field, returned for the violation list. A non-object body yields no instance.
 */
export function restBodyToInput(body: unknown): { input: PortfolioRequestInput | null; unknown: ErrorDetail[] } {
  const unknown: ErrorDetail[] = [];
  if (!isPlainObject(body)) return { input: null, unknown };
  const convert = (cls: DtoClass, value: Record<string, unknown>, path: string): object => {
    const instance = new cls() as Record<string, unknown>;
    const fields = restFieldsOf(cls);
    const nested = NESTED.get(cls) ?? {};
    for (const [key, raw] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      const prop = fields.get(key);
      if (prop === undefined) {
        unknown.push({ field, message: `${field} is not a known field` });
        continue;
      }
      const child = nested[prop];
      instance[prop] = child && isPlainObject(raw) ? convert(child, raw, field) : raw;
    }
    return instance;
  };
  return { input: convert(PortfolioRequestInput, body, '') as PortfolioRequestInput, unknown };
}

/** Field naming of violation details: the spec's snake_case (REST) or GraphQL's camelCase. */
export type FieldNaming = 'rest' | 'graphql';

function flatten(errors: readonly ValidationError[], naming: FieldNaming, parent = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const name = naming === 'rest' ? camelToSnake(e.property) : e.property;
    const field = parent ? `${parent}.${name}` : name;
    for (const [rule, message] of Object.entries(e.constraints ?? {})) {
      const text = rule === 'whitelistValidation' ? `${field} is not a known field` : message.replaceAll(e.property, field);
      out.push({ field, message: text });
    }
    if (e.children?.length) out.push(...flatten(e.children, naming, field));
  }
  return out;
}

/** A NUL character or half a surrogate pair: text no database column or JSON document can hold. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Every string value and map key of the input that cannot be stored, by field path, in document order.
 * The walk keeps its own stack (no recursion), so however deep the input nests it cannot overflow.
 */
function unstorableText(value: unknown, naming: FieldNaming, path: string, out: ErrorDetail[]): ErrorDetail[] {
  const problem = (field: string) => out.push({ field: field || 'body', message: `${field || 'body'} contains a NUL character or an unpaired surrogate` });
  // badKey: the map key that leads to this value cannot be stored (reported just before the value's own problems).
  const stack: Array<{ value: unknown; path: string; badKey: boolean }> = [{ value, path, badKey: false }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const { value: current, path: at, badKey } = frame;
    if (badKey) problem(at);
    if (typeof current === 'string') {
      if (UNSTORABLE.test(current)) problem(at);
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    const children: Array<{ value: unknown; path: string; badKey: boolean }> = [];
    if (Array.isArray(current)) {
      current.forEach((item, i) => children.push({ value: item, path: `${at}[${i}]`, badKey: false }));
    } else {
      // DTO instances name fields by property; free-form maps by their own keys (data, kept as sent).
      const dto = isDto(current);
      for (const [key, item] of Object.entries(current)) {
        const name = dto && naming === 'rest' ? camelToSnake(key) : key;
        const field = at ? `${at}.${name}` : name;
        children.push({ value: item, path: field, badKey: !dto && UNSTORABLE.test(key) });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

const DTO_CLASSES: ReadonlySet<unknown> = new Set([PortfolioRequestInput, RiskSettingsInput, ConstraintPackInput, SuggestedPresetInput, InvestorProfileInput, PolicyExplanationInput]);
const isDto = (value: object): boolean => DTO_CLASSES.has(value.constructor);

/**
 * Every violation of the DTO rules (unknown fields and unstorable text included), worded with the
 * caller's field names; throws 400 VALIDATION_FAILED listing them all, or returns the input unchanged.
 * Each field reports its first failed rule only.
 */
export async function validateInput(input: PortfolioRequestInput | null, naming: FieldNaming, extra: ErrorDetail[] = []): Promise<PortfolioRequestInput> {
  if (input === null) throw new AppError('VALIDATION_FAILED', 'The request body must be a JSON object (PortfolioRequest)', [{ field: 'body', message: 'expected a JSON object' }]);
  const errors = await validate(input, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: false,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
  });
  const details = [...extra, ...flatten(errors, naming), ...unstorableText(input, naming, '', [])];
  if (details.length) throw new AppError('VALIDATION_FAILED', `The request is invalid: ${details.length} violation(s)`, details);
  return input;
}

// The domain request: the spec's snake_case PortfolioRequest, as the service stores and the engine reads it.

export interface PortfolioRequest {
  name: string;
  description: string | null;
  total_capital: number;
  currency: string;
  risk_quiz_answers: Record<string, string> | null;
  suggested_preset: { key: string | null; description: string | null } | null;
  risk_settings: Partial<RiskSettings> | null;
  investor_profile: {
    schema_version: string;
    recorded_at: string | null;
    risk_quiz_answers: Record<string, string> | null;
    suggested_preset: { key: string | null; description: string | null } | null;
  } | null;
  constraint_pack: ConstraintPack | null;
  prior_book_weights: Record<string, number> | null;
  /** The client's hint as sent (the response carries the server's own). */
  policy_explanation: { schema_version: string | null; mapper_version: string | null; preset_key: string | null; bullets: string[] | null } | null;
}

const preset = (p: SuggestedPresetInput | null | undefined) => (p ? { key: p.key ?? null, description: p.description ?? null } : null);

/** Only the fields a client set, stage keys canonical. */
function riskSettingsOf(r: RiskSettingsInput): Partial<RiskSettings> {
  const out: Partial<RiskSettings> = {};
  if (r.maxRiskPerTrade != null) out.max_risk_per_trade = r.maxRiskPerTrade;
  if (r.maxPortfolioRisk != null) out.max_portfolio_risk = r.maxPortfolioRisk;
  if (r.maxPositionSize != null) out.max_position_size = r.maxPositionSize;
  if (r.maxPositions != null) out.max_positions = r.maxPositions;
  if (r.allocationStrategy != null) out.allocation_strategy = r.allocationStrategy;
  if (r.softmaxTemperature != null) out.softmax_temperature = r.softmaxTemperature;
  if (r.rewardMultiplier != null) out.reward_multiplier = r.rewardMultiplier;
  if (r.halfKelly != null) out.half_kelly = r.halfKelly;
  if (r.stageWeights != null) out.stage_weights = Object.fromEntries(Object.entries(r.stageWeights).map(([k, v]) => [stageKey(k) ?? k, v]));
  return out;
}

/** A validated DTO as the domain request. */
export function toPortfolioRequest(input: PortfolioRequestInput): PortfolioRequest {
  const pack = input.constraintPack;
  const profile = input.investorProfile;
  const hint = input.policyExplanation;
  return {
    name: input.name,
    description: input.description ?? null,
    total_capital: input.totalCapital,
    currency: input.currency ?? 'USD',
    risk_quiz_answers: input.riskQuizAnswers ?? null,
    suggested_preset: preset(input.suggestedPreset),
    risk_settings: input.riskSettings ? riskSettingsOf(input.riskSettings) : null,
    investor_profile: profile
      ? { schema_version: profile.schemaVersion, recorded_at: profile.recordedAt ?? null, risk_quiz_answers: profile.riskQuizAnswers ?? null, suggested_preset: preset(profile.suggestedPreset) }
      : null,
    constraint_pack: pack
      ? {
          schema_version: pack.schemaVersion,
          max_portfolio_turnover_annual: pack.maxPortfolioTurnoverAnnual ?? null,
          vol_target_annual: pack.volTargetAnnual ?? null,
          sector_caps: pack.sectorCaps ?? null,
          covariance_model: pack.covarianceModel ?? null,
        }
      : null,
    prior_book_weights: input.priorBookWeights ? Object.fromEntries(Object.entries(input.priorBookWeights).map(([k, v]) => [priorBookKey(k), v])) : null,
    policy_explanation: hint
      ? { schema_version: hint.schemaVersion ?? null, mapper_version: hint.mapperVersion ?? null, preset_key: hint.presetKey ?? null, bullets: hint.bullets ?? null }
      : null,
  };
}
