/**
 * The allocation requests' JSON Schemas, derived from the request classes (request/classes.ts): their
 * class-validator metadata gives each field's type and rules, their `@doc` (or else type-graphql)
 * metadata its description, nothing is written twice. One component per class under the spec's name
 * (PortfolioRequest, RiskSettings, ConstraintPackV1, InvestorProfileV1, PolicyExplanationV1,
 * SuggestedPreset; for the books CreatePortfolioRequest, TradeRequest, RebalanceRequest, NewHolding);
 * nested classes are `$ref`s to them (a list of them: `items` is the `$ref`). Rules plain JSON Schema
 * cannot state are the `x-` keywords of request/rules.ts, each explained in its field's description.
 *
 * Every optional field accepts null (the server treats null as omitted); unknown fields are refused.
 * A decorator this module does not know is an error at startup, so no rule can go unpublished.
 */
import { getMetadataStorage } from 'class-validator';
import { getMetadataStorage as graphqlMetadata } from 'type-graphql';
import { DEFAULT_RISK_SETTINGS } from '../engine/risk-settings.js';
import {
  ALL_REQUEST_CLASSES,
  BOOK_REQUEST_CLASSES,
  CreatePortfolioInput,
  DEFAULT_CURRENCY,
  docOf,
  fieldsOf,
  HoldingInput,
  MAP_ENTRIES,
  PortfolioRequestInput,
  REQUEST_CLASSES,
  RiskSettingsInput,
  type DtoClass,
  type MapEntries,
} from './classes.js';
import { ALL_REQUEST_RULES, KNOWN_PRESET, STORABLE_TEXT } from './rules.js';

export type JsonSchema = { [keyword: string]: unknown };
type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/** Defaults the server applies to omitted fields, published as `default`. */
const DEFAULTS = new Map<DtoClass, Readonly<Record<string, unknown>>>([
  [RiskSettingsInput, DEFAULT_RISK_SETTINGS],
  [PortfolioRequestInput, { currency: DEFAULT_CURRENCY }],
  [CreatePortfolioInput, { currency: DEFAULT_CURRENCY }],
]);

/** The `x-` keywords by name, with what each means. */
const RULES = new Map(ALL_REQUEST_RULES.map((r) => [r.keyword, r]));

/** What a class-validator decorator (by its metadata name) says in JSON Schema; `items` for `each`. */
const KEYWORDS: Readonly<Record<string, (constraints: unknown[]) => JsonSchema>> = {
  isNumber: () => ({ type: 'number' }),
  isInt: () => ({ type: 'integer' }),
  isString: () => ({ type: 'string' }),
  isBoolean: () => ({ type: 'boolean' }),
  isObject: () => ({ type: 'object' }),
  isArray: () => ({ type: 'array' }),
  min: ([limit]) => ({ minimum: limit }),
  isPositive: () => ({ exclusiveMinimum: 0 }),
  max: ([limit]) => ({ maximum: limit }),
  minLength: ([limit]) => ({ minLength: limit }),
  maxLength: ([limit]) => ({ maxLength: limit }),
  arrayMaxSize: ([limit]) => ({ maxItems: limit }),
  isIn: ([values]) => ({ enum: [...(values as unknown[])] }),
  matches: ([pattern]) => {
    if (!(pattern instanceof RegExp) || pattern.flags !== '') throw new Error('@Matches needs a RegExp without flags to be published');
    return { pattern: pattern.source };
  },
  isIso8601: ([options]) => {
    if ((options as { strict?: boolean } | undefined)?.strict !== true) throw new Error('@IsISO8601 is published as x-iso8601 "strict" only');
    return { 'x-iso8601': 'strict' };
  },
  isISO4217CurrencyCode: () => ({ 'x-iso4217': true }),
  [MAP_ENTRIES]: ([entries]) => {
    const { keys, maxEntries, values } = entries as MapEntries;
    return { ...(keys ? { propertyNames: { pattern: keys } } : {}), ...(maxEntries ? { maxProperties: maxEntries } : {}), additionalProperties: { ...values } };
  },
};

function keywordsOf(meta: ValidationMetadata): JsonSchema {
  const name = meta.name ?? meta.type;
  if (RULES.has(name as `x-${string}`)) return { [name]: meta.constraints[0] };
  const convert = KEYWORDS[name];
  if (!convert) throw new Error(`the request schema cannot publish @${name} (${String((meta.target as DtoClass).name)}.${meta.propertyName})`);
  return convert(meta.constraints ?? []);
}

const describeRules = (schema: JsonSchema): string[] =>
  Object.entries(schema).flatMap(([keyword, value]) => {
    const r = RULES.get(keyword as `x-${string}`);
    return r ? [r.describe(value as never)] : [];
  });

function classSchema(cls: DtoClass, id: string, ids: ReadonlyMap<DtoClass, string>): JsonSchema {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const descriptions = graphqlMetadata();
  const described = (prop: string) => descriptions.fields.find((f) => f.target === cls && f.name === prop)?.description;
  const defaults = DEFAULTS.get(cls) ?? {};
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of fieldsOf(cls)) {
    let schema: JsonSchema = {};
    const items: JsonSchema = {};
    let optional = false;
    for (const meta of metadata.filter((m) => m.propertyName === field.prop)) {
      if (meta.type === 'conditionalValidation') optional = true;
      else if (meta.type === 'isDefined') required.push(field.name);
      else if (meta.type === 'nestedValidation') continue;
      else if (meta.each) Object.assign(items, keywordsOf(meta));
      else Object.assign(schema, keywordsOf(meta));
    }
    if (Object.keys(items).length) schema.items = items;
    // @IsIn alone: the type is its values' (all of one JSON type).
    if (schema.type === undefined && Array.isArray(schema.enum)) schema = { type: [...new Set(schema.enum.map((v) => typeof v))].join(), ...schema };
    if (field.nested && field.list) {
      schema.items = { $ref: `${ids.get(field.nested)}#` };
      if (optional) schema.type = [schema.type, 'null'];
    } else if (field.nested) {
      const ref = { $ref: `${ids.get(field.nested)}#` };
      schema = optional ? { anyOf: [ref, { type: 'null' }] } : { allOf: [ref] };
    } else if (optional) {
      schema.type = [schema.type, 'null'];
      if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
    }
    const text = [docOf(cls, field.prop) ?? described(field.prop), ...describeRules(schema)].filter(Boolean).join('; ');
    properties[field.name] = {
      ...schema,
      ...(defaults[field.name] !== undefined && defaults[field.name] !== null ? { default: defaults[field.name] } : {}),
      ...(text ? { description: text } : {}),
    };
  }
  const description = descriptions.inputTypes.find((t) => t.target === cls)?.description;
  return {
    $id: id,
    type: 'object',
    ...(description ? { description } : {}),
    ...(required.length ? { required } : {}),
    properties,
    additionalProperties: false,
  };
}

let derived: readonly JsonSchema[] | null = null;

/** The rules of a whole document, on its root: each as its keyword and the sentence describing it. */
function withDocumentRules(schema: JsonSchema, rules: ReadonlyArray<typeof STORABLE_TEXT | typeof KNOWN_PRESET>): JsonSchema {
  return {
    ...schema,
    ...Object.fromEntries(rules.map((r) => [r.keyword, true])),
    description: `${String(schema.description ?? '')}; ${rules.map((r) => r.describe(true)).join('; ')}. Unknown fields are refused; every optional field may be null (the same as omitted)`,
  };
}

/** Every request class's published name (a `$ref` may point into the other document's components). */
const IDS: ReadonlyMap<DtoClass, string> = new Map(ALL_REQUEST_CLASSES);

/**
 * The request's component schemas, PortfolioRequest first (derived once). The request itself also
 * carries the rules of the whole document: `x-storable-text` (no string or key anywhere in it may hold
 * a NUL or an unpaired surrogate) and `x-known-preset`.
 */
export function requestSchemas(): readonly JsonSchema[] {
  if (!derived) {
    derived = REQUEST_CLASSES.map(([cls, id], i) => {
      const schema = classSchema(cls, id, IDS);
      return i > 0 ? schema : withDocumentRules(schema, [STORABLE_TEXT, KNOWN_PRESET]);
    });
  }
  return derived;
}

let derivedBooks: readonly JsonSchema[] | null = null;

/**
 * The book requests' own component schemas (derived once): CreatePortfolioRequest, TradeRequest,
 * RebalanceRequest (each carrying `x-storable-text` for its whole document) and NewHolding. They nest
 * RiskSettings and ConstraintPackV1 of requestSchemas(), so a document publishing these publishes those.
 */
export function bookRequestSchemas(): readonly JsonSchema[] {
  if (!derivedBooks) {
    derivedBooks = BOOK_REQUEST_CLASSES.map(([cls, id]) => {
      const schema = classSchema(cls, id, IDS);
      return cls === HoldingInput ? schema : withDocumentRules(schema, [STORABLE_TEXT]);
    });
  }
  return derivedBooks;
}
