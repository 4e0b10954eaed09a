/**
 * The allocation requests' validators: Ajv compiles the derived schemas (request/schema.ts) once, with
 * the `x-` keywords of request/rules.ts, and every REST body and every GraphQL input (mapped to the same
 * snake_case body) goes through the validator of its root: PortfolioRequest (optimize),
 * CreatePortfolioRequest, TradeRequest, RebalanceRequest. Violations come back as error details in the
 * caller's own field naming (snake_case for REST, camelCase for GraphQL), one per field: its first
 * failed rule. A problem inside a free-form map or a list of values is reported at the map's or list's
 * field, except unstorable text, reported at the exact key or value; an item of a list of objects is
 * named by its index (`holdings[2].cost_basis`, GraphQL `holdings[2].costBasis`).
 */
import Ajv2020, { type ErrorObject, type KeywordDefinition, type ValidateFunction } from 'ajv/dist/2020.js';
import { AppError, type ErrorDetail } from '../../platform/errors.js';
import type { FieldNaming } from '../../platform/param-table.js';
import {
  ALL_REQUEST_CLASSES,
  CreatePortfolioInput,
  fieldsOf,
  PortfolioRequestInput,
  RebalanceInput,
  snakeToCamel,
  TradeInput,
  type CreatePortfolioRequestBody,
  type DtoClass,
  type RebalanceRequestBody,
  type RequestBody,
  type RequestField,
  type TradeRequestBody,
} from './classes.js';
import { ALL_REQUEST_RULES, isPlainObject, STORABLE_TEXT, type PathStep } from './rules.js';
import { bookRequestSchemas, requestSchemas } from './schema.js';

const RULES = new Map(ALL_REQUEST_RULES.map((r) => [r.keyword as string, r]));
const NAMES: ReadonlyMap<DtoClass, string> = new Map(ALL_REQUEST_CLASSES);

let ajv: Ajv2020.default | null = null;
const compiled = new Map<DtoClass, ValidateFunction>();
/** The compiled validator of a root request class (compiled on first use, then reused). */
export function validatorOf(root: DtoClass): ValidateFunction {
  let validate = compiled.get(root);
  if (!validate) {
    if (!ajv) {
      // verbose: a failed rule's error carries its value and schema value, to word the message.
      ajv = new Ajv2020.default({ allErrors: true, verbose: true, strict: true, validateFormats: false });
      addRequestKeywords(ajv);
      for (const schema of [...requestSchemas(), ...bookRequestSchemas()]) ajv.addSchema(schema);
    }
    const id = NAMES.get(root);
    validate = id === undefined ? undefined : ajv.getSchema(id);
    if (!validate) throw new Error(`no request schema for ${root.name}`);
    compiled.set(root, validate);
  }
  return validate;
}

/** The compiled validator of PortfolioRequest. */
export const requestValidator = (): ValidateFunction => validatorOf(PortfolioRequestInput);

/** The `x-` keywords of request/rules.ts on an Ajv instance (a client compiling /openapi.json does the same). */
export function addRequestKeywords(ajv: { addKeyword(definition: KeywordDefinition): unknown }): void {
  for (const r of ALL_REQUEST_RULES) {
    ajv.addKeyword({ keyword: r.keyword, type: r.type, errors: false, validate: (schemaValue: unknown, data: unknown) => r.problem(data, schemaValue as never) === null });
  }
}


/** The steps of an Ajv instance path (`/risk_settings/stage_weights/STAGE 9`). */
const stepsOf = (pointer: string): string[] => (pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~')));

/**
 * A path as the caller names it: the leading steps that are fields of the request classes (renamed for
 * GraphQL; an index into a list of objects as `[i]`), then, when `whole`, the rest as sent (`.key`,
 * `[index]`). Without `whole` the path stops at the first step that is not a field (inside a map or a
 * list of values), which is returned as `inside`.
 */
function fieldPath(root: DtoClass, steps: readonly PathStep[], naming: FieldNaming, whole: boolean): { field: string; inside: PathStep[] } {
  let cls: DtoClass | null = root;
  /** The class of the items when the last step was a list of objects (the next step is an index). */
  let items: DtoClass | null = null;
  let field = '';
  let i = 0;
  for (; i < steps.length; i++) {
    const step = steps[i];
    if (items) {
      // Ajv's instance paths are text: an index is its digits.
      if (!/^\d+$/.test(String(step))) break;
      field = `${field}[${String(step)}]`;
      cls = items;
      items = null;
      continue;
    }
    const known: RequestField | undefined = cls && typeof step === 'string' ? fieldsOf(cls).find((f) => f.name === step) : undefined;
    if (!known) break;
    const name = naming === 'rest' ? known.name : known.prop;
    field = field ? `${field}.${name}` : name;
    cls = known.list ? null : known.nested;
    items = known.list ? known.nested : null;
  }
  const inside = steps.slice(i);
  if (whole) for (const step of inside) field = typeof step === 'number' ? `${field}[${step}]` : field ? `${field}.${step}` : step;
  return { field: field || 'body', inside: whole ? [] : inside };
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  number: 'a number',
  integer: 'an integer number',
  string: 'a string',
  boolean: 'a boolean value',
  object: 'an object',
  array: 'an array',
};

/** The message of one Ajv error, for its field (and the map key or list index it was found at). */
function messageOf(error: ErrorObject, field: string, inside: readonly PathStep[]): string {
  const p = error.params as Record<string, unknown>;
  const at = inside.length ? `${field} entry ${inside.map((s) => JSON.stringify(s)).join(' ')}` : field;
  const rule = RULES.get(error.keyword);
  if (rule) return `${at} ${rule.problem(error.data, error.schema as never) ?? 'is invalid'}`;
  switch (error.keyword) {
    case 'type': {
      const types = String(p.type).split(',').filter((t) => t !== 'null');
      return `${at} must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}`;
    }
    case 'minimum':
      return `${at} must not be less than ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return `${at} must be greater than ${String(p.limit)}`;
    case 'maximum':
      return `${at} must not be greater than ${String(p.limit)}`;
    case 'minLength':
      return `${at} must be longer than or equal to ${String(p.limit)} characters`;
    case 'maxLength':
      return `${at} must be shorter than or equal to ${String(p.limit)} characters`;
    case 'maxItems':
      return `${at} must contain at most ${String(p.limit)} elements`;
    case 'maxProperties':
      return `${at} has more than ${String(p.limit)} entries`;
    case 'enum':
      return `${at} must be one of ${(p.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}`;
    case 'pattern':
      return error.propertyName !== undefined
        ? `${at} has a key that is not allowed: ${JSON.stringify(error.propertyName)} (keys must match ${String(p.pattern)})`
        : `${at} must match ${String(p.pattern)}`;
    default:
      return `${at} ${error.message ?? 'is invalid'}`;
  }
}

/** Ajv's errors as details, one per field (its first), then every unstorable text by its exact path. */
function detailsOf(root: DtoClass, errors: readonly ErrorObject[], naming: FieldNaming): ErrorDetail[] {
  const byField = new Map<string, ErrorDetail>();
  const unstorable: ErrorDetail[] = [];
  for (const error of errors) {
    // A null alternative (`anyOf: [{$ref}, {type: null}]`) that did not match says nothing about the value.
    if (error.keyword === 'anyOf' || error.keyword === 'propertyNames' || (error.keyword === 'type' && error.params.type === 'null')) continue;
    const steps = stepsOf(error.instancePath);
    const rule = RULES.get(error.keyword);
    if (rule?.details) {
      // Unstorable text is reported at every place it occurs, after the other violations.
      for (const d of rule.details(error.data, error.schema as never)) {
        const { field } = fieldPath(root, [...steps, ...d.steps], naming, true);
        const detail = { field, message: `${field} ${d.message}` };
        if (rule === STORABLE_TEXT) unstorable.push(detail);
        else if (!byField.has(field)) byField.set(field, detail);
      }
      continue;
    }
    let detail: ErrorDetail;
    if (error.keyword === 'additionalProperties') {
      const { field } = fieldPath(root, [...steps, String(error.params.additionalProperty)], naming, true);
      detail = { field, message: `${field} is not a known field` };
    } else if (error.keyword === 'required') {
      const { field } = fieldPath(root, [...steps, String(error.params.missingProperty)], naming, true);
      detail = { field, message: `${field} is required` };
    } else {
      const { field, inside } = fieldPath(root, steps, naming, false);
      detail = { field, message: messageOf(error, field, inside) };
    }
    if (!byField.has(detail.field!)) byField.set(detail.field!, detail);
  }
  return [...byField.values(), ...unstorable];
}

/**
 * The body if it is a valid instance of the root class's schema; otherwise 400 VALIDATION_FAILED listing
 * `extra` (problems found outside the body) and every violation, named in the caller's field naming.
 */
export function validateBodyOf(root: DtoClass, body: unknown, naming: FieldNaming, extra: readonly ErrorDetail[] = []): unknown {
  const name = NAMES.get(root) ?? root.name;
  if (!isPlainObject(body)) throw new AppError('VALIDATION_FAILED', `The request body must be a JSON object (${name})`, [{ field: 'body', message: 'expected a JSON object' }]);
  const validate = validatorOf(root);
  const details = validate(body) ? [...extra] : [...extra, ...detailsOf(root, validate.errors ?? [], naming)];
  if (details.length) throw new AppError('VALIDATION_FAILED', `The request is invalid: ${details.length} violation(s)`, details);
  return body;
}

/**
 * The body if it is a valid PortfolioRequest; otherwise 400 VALIDATION_FAILED listing `extra` (problems
 * found outside the body) and every violation, named in the caller's field naming.
 */
export function validateRequestBody(body: unknown, naming: FieldNaming, extra: readonly ErrorDetail[] = []): RequestBody {
  return validateBodyOf(PortfolioRequestInput, body, naming, extra) as RequestBody;
}

/** The body if it is a valid CreatePortfolioRequest (the shape only: the store's checks are the service's). */
export const validateCreatePortfolioRequest = (body: unknown, naming: FieldNaming, extra: readonly ErrorDetail[] = []): CreatePortfolioRequestBody =>
  validateBodyOf(CreatePortfolioInput, body, naming, extra) as CreatePortfolioRequestBody;

/** The body if it is a valid TradeRequest. */
export const validateTradeRequest = (body: unknown, naming: FieldNaming, extra: readonly ErrorDetail[] = []): TradeRequestBody =>
  validateBodyOf(TradeInput, body, naming, extra) as TradeRequestBody;

/** The body if it is a valid RebalanceRequest; no body at all (undefined or null) is the empty request. */
export const validateRebalanceRequest = (body: unknown, naming: FieldNaming, extra: readonly ErrorDetail[] = []): RebalanceRequestBody =>
  validateBodyOf(RebalanceInput, body ?? {}, naming, extra) as RebalanceRequestBody;

/**
 * A request-class instance (a GraphQL input, camelCase) as the REST body it stands for: each set field
 * under its snake_case name, nested classes likewise (in lists too), maps and lists of values as they are.
 */
export function bodyOfInput(input: object, cls: DtoClass = PortfolioRequestInput): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const source = input as Record<string, unknown>;
  for (const field of fieldsOf(cls)) {
    const value = source[field.prop];
    if (value === undefined) continue;
    const nested = field.nested;
    if (nested && field.list && Array.isArray(value)) body[field.name] = value.map((item: unknown) => (isPlainObject(item) ? bodyOfInput(item, nested) : item));
    else body[field.name] = nested && isPlainObject(value) ? bodyOfInput(value, nested) : value;
  }
  return body;
}

/** A snake_case field path in the caller's naming (paths of request fields only). */
export const namedPath = (path: string, naming: FieldNaming): string => (naming === 'rest' ? path : path.split('.').map(snakeToCamel).join('.'));
