/**
 * The allocation requests at the services' door: the request classes (request/classes.ts, the single
 * source of the contracts) and their compiled validators (request/validator.ts), re-exported; the domain
 * request the optimize service stores and the engine reads (`toPortfolioRequest` of a validated body);
 * and the book requests as the book service reads them (`validateCreatePortfolioBody`,
 * `validateTradeBody`, `validateRebalanceBody`: validated, then normalised: the currency defaulted, only
 * the risk settings a client set with their stage keys canonical, the constraint pack with every field).
 * GraphQL inputs reach the same validators as the REST bodies they stand for (`bodyOf...Input`).
 */
import type { CreatePortfolioBody, HoldingBody, RebalanceBody, TradeBody } from './book-types.js';
import type { RiskSettings } from './engine/risk-settings.js';
import type { ConstraintPack } from './engine/types.js';
import type { ErrorDetail } from '../platform/errors.js';
import type { FieldNaming } from '../platform/param-table.js';
import {
  ConstraintPackInput,
  CreatePortfolioInput,
  DEFAULT_CURRENCY,
  fieldsOf,
  PortfolioRequestInput,
  RebalanceInput,
  RiskSettingsInput,
  TradeInput,
  type DtoClass,
  type RequestBody,
} from './request/classes.js';
import { isPlainObject, priorBookKey, stageKey } from './request/rules.js';
import { bodyOfInput, validateCreatePortfolioRequest, validateRebalanceRequest, validateTradeRequest } from './request/validator.js';

export * from './request/classes.js';
export { COST_BASIS_DECIMALS, MAX_HOLDINGS, MAX_MAP_ENTRIES, MAX_POSITIONS_LIMIT, MAX_SHARES, MAX_TOTAL_CAPITAL } from './request/rules.js';
export { bookRequestSchemas, requestSchemas } from './request/schema.js';
export { addRequestKeywords, bodyOfInput, namedPath, validateRequestBody } from './request/validator.js';

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

// ---------------------------------------------------------------------------------------------------------
// The book requests
// ---------------------------------------------------------------------------------------------------------

/** A validated constraint pack with every field (null when not sent). */
const constraintPackOf = (pack: unknown): ConstraintPack | null => (isPlainObject(pack) ? (filled(ConstraintPackInput, pack) as unknown as ConstraintPack) : null);

/** A validated risk_settings object as the fields a client set (stage keys canonical), or null. */
const settingsOf = (settings: unknown): Partial<RiskSettings> | null => (isPlainObject(settings) ? riskSettingsOf(settings) : null);

/** A holding with only the fields sent (null as omitted). */
function holdingOf(holding: Record<string, unknown>): HoldingBody {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(holding)) if (value !== null && value !== undefined) out[key] = value;
  return out as unknown as HoldingBody;
}

/**
 * A new book's body (REST POST /api/v1/portfolios, or a GraphQL input's bodyOfCreatePortfolioInput)
 * if it keeps the contract, normalised; otherwise 400 VALIDATION_FAILED listing `extra` and every
 * violation (`holdings[2].cost_basis`, GraphQL `holdings[2].costBasis`). The store's checks (known
 * symbols, no symbol twice, no entry date in the future) are the book service's.
 */
export function validateCreatePortfolioBody(body: unknown, naming: FieldNaming, extra: readonly ErrorDetail[] = []): CreatePortfolioBody {
  const valid = validateCreatePortfolioRequest(body, naming, extra);
  return {
    name: valid.name,
    currency: valid.currency ?? DEFAULT_CURRENCY,
    cash: valid.cash,
    holdings: valid.holdings.map((h) => holdingOf(h as unknown as Record<string, unknown>)),
    risk_settings: settingsOf(valid.risk_settings),
    constraint_pack: constraintPackOf(valid.constraint_pack),
  };
}

/** A trade's body if it keeps the contract (price and date null when not sent); otherwise 400 VALIDATION_FAILED. */
export function validateTradeBody(body: unknown, naming: FieldNaming, extra: readonly ErrorDetail[] = []): TradeBody {
  const valid = validateTradeRequest(body, naming, extra);
  return { symbol: valid.symbol, side: valid.side, shares: valid.shares, price: valid.price ?? null, date: valid.date ?? null };
}

/** A rebalance's body if it keeps the contract (no body at all: the empty request); otherwise 400 VALIDATION_FAILED. */
export function validateRebalanceBody(body: unknown, naming: FieldNaming, extra: readonly ErrorDetail[] = []): RebalanceBody {
  const valid = validateRebalanceRequest(body, naming, extra);
  return { risk_settings: settingsOf(valid.risk_settings), constraint_pack: constraintPackOf(valid.constraint_pack) };
}

/** Mutation.createPortfolio's input as the REST body it stands for. */
export const bodyOfCreatePortfolioInput = (input: CreatePortfolioInput): Record<string, unknown> => bodyOfInput(input, CreatePortfolioInput);
/** Mutation.recordTrade's input as the REST body it stands for. */
export const bodyOfTradeInput = (input: TradeInput): Record<string, unknown> => bodyOfInput(input, TradeInput);
/** Mutation.rebalancePortfolio's input (optional) as the REST body it stands for ({} without one). */
export const bodyOfRebalanceInput = (input: RebalanceInput | null | undefined): Record<string, unknown> => (input ? bodyOfInput(input, RebalanceInput) : {});
