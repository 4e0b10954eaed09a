/**
 * The optimize request at the service's door: the request classes (request/classes.ts, the single source
 * of the contract), their validator (request/validator.ts) and the domain request the service stores and
 * the engine reads. `restBodyToInput` turns a REST body into the classes' instance (as GraphQL delivers
 * it) and `validateInput` checks such an instance; both run the one compiled validator.
 */
import { AppError, type ErrorDetail } from '../platform/errors.js';
import type { RiskSettings } from './engine/risk-settings.js';
import { DEFAULT_CURRENCY, fieldsOf, PortfolioRequestInput, RiskSettingsInput, type DtoClass, type RequestBody } from './request/classes.js';
import { priorBookKey, stageKey } from './request/rules.js';
import { bodyOfInput, validateRequestBody, type FieldNaming } from './request/validator.js';

export * from './request/classes.js';
export { MAX_MAP_ENTRIES, MAX_POSITIONS_LIMIT, MAX_TOTAL_CAPITAL } from './request/rules.js';
export { bodyOfInput, namedPath, validateRequestBody, type FieldNaming } from './request/validator.js';

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A REST body (snake_case keys) as a request-class instance. Only a class's own fields, by their
 * snake_case names, are copied; every other key (`totalCapital`, `constructor`, `__proto__`, a typo) is
 * an unknown field, returned for the violation list. A non-object body yields no instance.
 */
export function restBodyToInput(body: unknown): { input: PortfolioRequestInput | null; unknown: ErrorDetail[] } {
  const unknown: ErrorDetail[] = [];
  if (!isPlainObject(body)) return { input: null, unknown };
  const convert = (cls: DtoClass, value: Record<string, unknown>, path: string): object => {
    const instance = new cls() as Record<string, unknown>;
    const fields = fieldsOf(cls);
    for (const [key, raw] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      const known = fields.find((f) => f.name === key);
      if (known === undefined) {
        unknown.push({ field, message: `${field} is not a known field` });
        continue;
      }
      instance[known.prop] = known.nested && isPlainObject(raw) ? convert(known.nested, raw, field) : raw;
    }
    return instance;
  };
  return { input: convert(PortfolioRequestInput, body, '') as PortfolioRequestInput, unknown };
}

/**
 * A request-class instance checked by the compiled validator, violations worded with the caller's
 * field names after `extra`; throws 400 VALIDATION_FAILED listing them all, or returns the valid body.
 */
export async function validateInput(input: PortfolioRequestInput | null, naming: FieldNaming, extra: ErrorDetail[] = []): Promise<RequestBody> {
  if (input === null) throw new AppError('VALIDATION_FAILED', 'The request body must be a JSON object (PortfolioRequest)', [{ field: 'body', message: 'expected a JSON object' }]);
  return validateRequestBody(bodyOfInput(input), naming, extra);
}

// The domain request: the spec's snake_case PortfolioRequest with every field present (null when not
// sent), the currency defaulted, only the risk settings a client set, and map keys as the engine reads them.

type Filled<T> = { [K in keyof T]-?: FilledValue<T[K]> };
type FilledValue<V> = V extends undefined ? never : V extends readonly unknown[] ? V : V extends object ? Filled<V> : V;
export type PortfolioRequest = Omit<Filled<RequestBody>, 'currency' | 'risk_settings'> & {
  currency: string;
  risk_settings: Partial<RiskSettings> | null;
};

/** Every field of the class, null where not sent; nested classes likewise. */
function filled(cls: DtoClass, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fieldsOf(cls)) {
    const v = value[field.name];
    out[field.name] = v === undefined || v === null ? null : field.nested && isPlainObject(v) ? filled(field.nested, v) : v;
  }
  return out;
}

/** The fields a client set, stage keys canonical. */
function riskSettingsOf(settings: Record<string, unknown>): Partial<RiskSettings> {
  const out: Record<string, unknown> = {};
  for (const field of fieldsOf(RiskSettingsInput)) {
    const v = settings[field.name];
    if (v !== undefined && v !== null) out[field.name] = v;
  }
  const weights = out.stage_weights as Record<string, number> | undefined;
  if (weights) out.stage_weights = Object.fromEntries(Object.entries(weights).map(([k, v]) => [stageKey(k) ?? k, v]));
  return out as Partial<RiskSettings>;
}

/** A validated body as the domain request. */
export function toPortfolioRequest(body: RequestBody): PortfolioRequest {
  const request = filled(PortfolioRequestInput, body as Record<string, unknown>);
  const weights = body.prior_book_weights;
  return {
    ...request,
    currency: body.currency ?? DEFAULT_CURRENCY,
    risk_settings: body.risk_settings ? riskSettingsOf(body.risk_settings as Record<string, unknown>) : null,
    prior_book_weights: weights ? Object.fromEntries(Object.entries(weights).map(([k, v]) => [priorBookKey(k), v])) : null,
  } as PortfolioRequest;
}
