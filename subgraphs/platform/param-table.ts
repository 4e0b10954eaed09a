/**
 * Parameter tables of the REST reads: one declaration per request (its parameters, each with the JSON
 * Schema of its value and the wording of its violations) from which come the route's published
 * OpenAPI parameters (/openapi.json), the server-side checks of REST query values and GraphQL
 * arguments alike (one validator per table, compiled once with Ajv), and the TypeScript types of the
 * raw and checked values (inferred from each parameter's schema: an `integer` is a number, a `string`
 * a string; a `required` parameter or one with a `default` is always present in the checked values).
 * The tables themselves live with their domains: analysis/params.ts, search/params.ts.
 *
 * Where the checks run: a REST query goes to ParamChecker.checkQuery as the shell parsed it (REST
 * names; what the table does not name is an unknown parameter), GraphQL arguments to checkArgs (keys);
 * services call check() with either, so the two origins share one path. A table's `default`s are the
 * checked values of absent parameters.
 *
 * What a schema validates: the query as the HTTP shell parses it, one property per parameter, a string,
 * or an array of strings when the parameter is repeated (so a repeat fails a scalar schema's `type`).
 * GraphQL arguments are checked as the same object under the REST names (already typed by GraphQL).
 *
 * The product's `x-` keywords (published in the parameter schemas; QUERY_KEYWORDS implements them for
 * Ajv, so anyone can validate a query against /openapi.json exactly as the server does):
 *   x-query-pattern    on a non-string schema: the text a query value must match to be read as that
 *                      type (e.g. `^[0-9]{1,10}$` for an integer: no sign, exponent or spaces); a value
 *                      that does not match stays text and fails `type`
 *   x-calendar-date    a real calendar date (2026-02-30 is refused), beyond `pattern`
 *   x-exclusive-with   the parameter may not be given together with any of the named ones
 *   x-ignored          the parameter is accepted, whatever its value, and has no effect
 * and, on the operation:
 *   x-unknown-query-parameters    'refused' (400 naming each) or 'ignored'
 *   x-repeated-query-parameters   'refused' (a parameter of the table given twice is a 400) or 'ignored'
 */
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, KeywordDefinition, ValidateFunction } from 'ajv';
import { AppError, type ErrorDetail } from './errors.js';
import { isCalendarDate } from './validation.js';

/** How violation details name fields: REST names (snake_case) or GraphQL ones (camelCase). */
export type FieldNaming = 'rest' | 'graphql';

/** A JSON Schema object as published (read-only). */
export type JsonSchema = { readonly [keyword: string]: unknown };

export interface ParamDef<Key extends string = string> {
  /** The GraphQL argument name, also the key of the TypeScript values. */
  readonly key: Key;
  /** The REST query parameter name. */
  readonly name: string;
  readonly required?: boolean;
  /** What the parameter means (published as the parameter's description). */
  readonly description: string;
  /** JSON Schema of one value (after x-query-pattern reading). */
  readonly schema: JsonSchema;
  /** The detail message of a value the schema refuses, for the field as named. */
  readonly invalid?: (field: string) => string;
  /** The detail message of a repeated parameter (default: "<field> must be given once"). */
  readonly repeated?: (field: string) => string;
  /** x-exclusive-with: the parameters (keys) this one may not be given with, and the detail when it is. */
  readonly exclusiveWith?: { readonly keys: readonly NoInfer<Key>[]; readonly message: (names: Readonly<Record<Key, string>>) => string };
}

export interface ParamTable<Key extends string = string, Defs extends readonly ParamDef<Key>[] = readonly ParamDef<Key>[]> {
  readonly params: Defs;
  /** Parameters the table does not name: refused (400) or ignored. */
  readonly unknown: 'refused' | 'ignored';
  /** A parameter of the table given twice: refused (400; the default) or ignored (its schema takes arrays). */
  readonly repeated?: 'refused' | 'ignored';
  /** The error's message from its details (default: each "<field>: <message>", joined with "; "). */
  readonly summary?: (details: readonly ErrorDetail[]) => string;
}

/** The keys of a table's parameters. */
export type ParamKey<T extends ParamTable> = T['params'][number]['key'];

/** The raw values of a table's parameters by key, as GraphQL arguments give them (null: not given). */
export type RawParams<T extends ParamTable> = { [K in ParamKey<T>]?: unknown };

/** A query as the HTTP shell parses it: REST names, a string each, an array of strings when repeated. */
export type RestQuery = Readonly<Record<string, unknown>>;

/** A request's parameters as its origin gives them: the REST query, or the GraphQL arguments. */
export type GivenParams<T extends ParamTable> = { readonly naming: 'rest'; readonly query: RestQuery } | { readonly naming: 'graphql'; readonly args: RawParams<T> };

/** The TypeScript type of a value its schema accepted. */
type ValueOf<S> = S extends { readonly type: 'integer' | 'number' } ? number : S extends { readonly type: 'string' } ? string : S extends { readonly type: 'boolean' } ? boolean : unknown;

/** Whether a parameter is always in the checked values: required, or defaulted by its schema. */
type AlwaysPresent<D> = D extends { readonly required: true } ? true : D extends { readonly schema: { readonly default: unknown } } ? true : false;

/** The checked values of a table's parameters, by key (absent optional ones left out). */
export type CheckedParams<T extends ParamTable> = {
  -readonly [D in T['params'][number] as AlwaysPresent<D> extends true ? D['key'] : never]: ValueOf<D['schema']>;
} & {
  -readonly [D in T['params'][number] as AlwaysPresent<D> extends true ? never : D['key']]?: ValueOf<D['schema']>;
};

/** Declares a table keeping its keys' and schemas' literal types (the checked values' types come from them). */
export function paramTable<const Key extends string, const Defs extends readonly ParamDef<Key>[]>(table: ParamTable<Key, Defs & readonly ParamDef<Key>[]>): ParamTable<Key, Defs> {
  return table;
}

/**
 * The validatorCompiler of routes whose parameters their service checks (one wording for REST and
 * GraphQL, from the tables): Fastify validates nothing; the route schemas only document (/openapi.json).
 */
export const documentOnly = (): ((data: unknown) => true) => () => true;

const QUERY_PATTERN = 'x-query-pattern';
const CALENDAR_DATE = 'x-calendar-date';
const EXCLUSIVE_WITH = 'x-exclusive-with';

/** A real calendar date YYYY-MM-DD from 1900-01-01 (the platform's date rule, validation.ts). */
export { isCalendarDate };

/** Ajv implementations of the product's x- keywords (see the header). */
export const QUERY_KEYWORDS: readonly KeywordDefinition[] = [
  // Read before validation (readQueryValue); nothing left to check on the value.
  { keyword: QUERY_PATTERN, schemaType: 'string' },
  { keyword: 'x-ignored', schemaType: 'boolean' },
  { keyword: CALENDAR_DATE, type: 'string', schemaType: 'boolean', errors: false, validate: (on: boolean, data: string) => !on || isCalendarDate(data) },
  {
    keyword: EXCLUSIVE_WITH,
    schemaType: 'array',
    errors: false,
    validate: (others: string[], _data: unknown, _schema: unknown, cxt?: { parentData?: unknown }) => {
      const query = cxt?.parentData as Record<string, unknown> | undefined;
      return !others.some((o) => query !== undefined && Object.prototype.hasOwnProperty.call(query, o));
    },
  },
];

type Ajv = InstanceType<typeof Ajv2020.default>;

/** Ajv as the product validates queries: JSON Schema 2020-12 (OpenAPI 3.1), every error, the x- keywords. */
export function queryAjv(): Ajv {
  const ajv = new Ajv2020.default({ allErrors: true, strict: true, validateFormats: false });
  for (const keyword of QUERY_KEYWORDS) ajv.addKeyword(keyword);
  return ajv;
}

/** The one Ajv the tables compile with (each table's validator is compiled once, when it is declared). */
let sharedAjv: Ajv | undefined;

const patterns = new Map<string, RegExp>();

/**
 * A raw query value as its schema reads it: text matching the schema's x-query-pattern becomes the
 * schema's type (an integer); anything else (other text, a repeat, a GraphQL number) is left as it is.
 */
export function readQueryValue(schema: JsonSchema, value: unknown): unknown {
  const pattern = schema[QUERY_PATTERN];
  if (typeof value !== 'string' || typeof pattern !== 'string') return value;
  let re = patterns.get(pattern);
  if (!re) patterns.set(pattern, (re = new RegExp(pattern, 'u')));
  if (!re.test(value)) return value;
  return schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
}

/**
 * The JSON Schema of one parameter as published: its value schema, x-exclusive-with, and a description
 * that also states, in words, the rules its x- keywords carry.
 */
function publishedParam<Key extends string>(p: ParamDef<Key>, table: ParamTable<Key>): JsonSchema {
  const nameOf = (key: Key) => table.params.find((q) => q.key === key)?.name ?? key;
  const rules = [
    p.schema[QUERY_PATTERN] !== undefined ? 'Written in decimal digits (no sign, point, exponent or spaces).' : '',
    p.schema[CALENDAR_DATE] === true ? 'A real calendar date (2026-02-30 is refused).' : '',
    p.exclusiveWith ? `Not together with ${p.exclusiveWith.keys.map(nameOf).join(', ')}.` : '',
    (table.repeated ?? 'refused') === 'refused' ? 'Given at most once.' : '',
  ].filter(Boolean);
  return {
    ...p.schema,
    ...(p.exclusiveWith ? { [EXCLUSIVE_WITH]: p.exclusiveWith.keys.map(nameOf) } : {}),
    description: [`${p.description}.`, ...rules].join(' '),
  };
}

/** The route's querystring schema (Fastify; @fastify/swagger publishes it as the operation's parameters). */
export function querystringSchema(table: ParamTable): JsonSchema {
  const required = table.params.filter((p) => p.required).map((p) => p.name);
  return {
    type: 'object',
    ...(required.length ? { required } : {}),
    properties: Object.fromEntries(table.params.map((p) => [p.name, publishedParam(p, table)])),
    additionalProperties: table.unknown === 'ignored',
  };
}

/** The operation-level x- keys of a table (spread into the route schema; published on the operation). */
export function operationRules(table: ParamTable): JsonSchema {
  return { 'x-unknown-query-parameters': table.unknown, 'x-repeated-query-parameters': table.repeated ?? 'refused' };
}

/**
 * A table's checker: compiled once; each check returns the typed values or throws 400 VALIDATION_FAILED
 * with a detail per unknown parameter, per bad parameter (required, given twice, or its own message)
 * and per cross-parameter rule broken, in that order.
 */
export class ParamChecker<T extends ParamTable> {
  private readonly validate: ValidateFunction;
  private readonly table: ParamTable<ParamKey<T>>;

  constructor(table: T, ajv: Ajv = (sharedAjv ??= queryAjv())) {
    this.table = table as ParamTable<ParamKey<T>>;
    this.validate = ajv.compile(querystringSchema(table));
  }

  /** How details name each parameter: REST query parameters or GraphQL arguments. */
  fieldNames(naming: FieldNaming): Readonly<Record<ParamKey<T>, string>> {
    return Object.fromEntries(this.table.params.map((p) => [p.key, naming === 'rest' ? p.name : p.key])) as Record<ParamKey<T>, string>;
  }

  /** Names of the table's parameters, as REST writes them. */
  get names(): string[] {
    return this.table.params.map((p) => p.name);
  }

  /** The parameters as either origin gives them (see checkQuery and checkArgs). */
  check(given: GivenParams<T>): CheckedParams<T> {
    return given.naming === 'rest' ? this.checkQuery(given.query) : this.checkArgs(given.args);
  }

  /**
   * A REST query as the shell parsed it: each table parameter by its REST name; any other name is an
   * unknown parameter (refused or ignored as the table says). Details name the REST parameters.
   */
  checkQuery(query: RestQuery): CheckedParams<T> {
    const raw: Partial<Record<ParamKey<T>, unknown>> = {};
    for (const p of this.table.params) if (Object.prototype.hasOwnProperty.call(query, p.name)) raw[p.key] = query[p.name];
    const known = new Set(this.names);
    const unknown = this.table.unknown === 'refused' ? Object.keys(query).filter((name) => !known.has(name)).sort() : [];
    return this.checkValues(raw, 'rest', unknown);
  }

  /** GraphQL arguments, by key (null: not given). Details name the arguments. */
  checkArgs(args: RawParams<T>): CheckedParams<T> {
    return this.checkValues(args, 'graphql', []);
  }

  /** The values read (x-query-pattern applied; absent ones: their schema's default, else left out). */
  private checkValues(raw: Readonly<Partial<Record<ParamKey<T>, unknown>>>, naming: FieldNaming, unknownParams: readonly string[]): CheckedParams<T> {
    const instance: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    const read: Record<string, unknown> = {};
    for (const p of this.table.params) {
      const value = raw[p.key];
      if (value === undefined || value === null) {
        if (p.schema.default !== undefined) read[p.key] = p.schema.default;
        continue;
      }
      read[p.key] = instance[p.name] = readQueryValue(p.schema, value);
    }
    for (const name of unknownParams) Object.defineProperty(instance, name, { value: true, enumerable: true });
    // The schema accepted every value: each has its schema's type, which is what CheckedParams<T> says.
    if (this.validate(instance)) return read as CheckedParams<T>;
    throw this.violations(this.validate.errors ?? [], raw, naming);
  }

  private violations(errors: readonly ErrorObject[], raw: Readonly<Partial<Record<ParamKey<T>, unknown>>>, naming: FieldNaming): AppError {
    const unknown = new Set<string>();
    const missing = new Set<string>();
    const bad = new Set<string>();
    const crossed = new Set<string>();
    for (const e of errors) {
      const at = e.instancePath.slice(1).replace(/~1/g, '/').replace(/~0/g, '~');
      if (e.keyword === 'additionalProperties') unknown.add(String((e.params as { additionalProperty: string }).additionalProperty));
      else if (e.keyword === 'required') missing.add(String((e.params as { missingProperty: string }).missingProperty));
      else if (e.keyword === EXCLUSIVE_WITH) crossed.add(at);
      else bad.add(at);
    }
    const names = this.fieldNames(naming);
    const details: ErrorDetail[] = [...unknown].sort().map((field) => ({ field, message: `unknown parameter; this operation takes ${this.names.join(', ')}` }));
    for (const p of this.table.params) {
      const field = names[p.key];
      const value = raw[p.key];
      if (missing.has(p.name) || (bad.has(p.name) && p.required && value === '')) details.push({ field, message: `${field} is required` });
      else if (bad.has(p.name)) details.push({ field, message: Array.isArray(value) ? (p.repeated?.(field) ?? `${field} must be given once`) : (p.invalid?.(field) ?? `${field} is invalid`) });
    }
    for (const p of this.table.params) if (crossed.has(p.name) && p.exclusiveWith) details.push({ field: names[p.key], message: p.exclusiveWith.message(names) });
    const summary = this.table.summary ?? ((all) => all.map((d) => `${d.field}: ${d.message}`).join('; '));
    return new AppError('VALIDATION_FAILED', summary(details), details);
  }
}
