/**
 * The optimize request at the service's door: the request classes (request/classes.ts, the single source
 * of the contract) and their compiled validator (request/validator.ts), re-exported, and the domain
 * request the service stores and the engine reads (`toPortfolioRequest` of a validated body).
 */
import type { RiskSettings } from './engine/risk-settings.js';
import { DEFAULT_CURRENCY, fieldsOf, PortfolioRequestInput, RiskSettingsInput, type DtoClass, type RequestBody } from './request/classes.js';
import { isPlainObject, priorBookKey, stageKey } from './request/rules.js';

export * from './request/classes.js';
export { MAX_MAP_ENTRIES, MAX_POSITIONS_LIMIT, MAX_TOTAL_CAPITAL } from './request/rules.js';
export { bodyOfInput, namedPath, validateRequestBody } from './request/validator.js';

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
