/**
 * The book requests' contracts (subgraphs/allocation/request/, exported by dto.ts): a new book from
 * holdings and cash, a trade, a rebalance. Every rule of the classes is enforced by the compiled
 * validator, every violation is listed (one per field) in the caller's naming, list items by index
 * (`holdings[2].cost_basis` / `holdings[2].costBasis`), unknown fields are refused, and the derived
 * schemas publish the same rules. GraphQL inputs map to the same REST bodies.
 */
import {
  bodyOfCreatePortfolioInput,
  bodyOfRebalanceInput,
  bodyOfTradeInput,
  bookRequestSchemas,
  requestSchemas,
  validateCreatePortfolioBody,
  validateRebalanceBody,
  validateTradeBody,
  type CreatePortfolioInput,
  type RebalanceInput,
  type TradeInput,
} from '../../../subgraphs/allocation/dto.js';
import { ALL_REQUEST_RULES, isCalendarDate, REQUEST_RULES } from '../../../subgraphs/allocation/request/rules.js';
import type { JsonSchema } from '../../../subgraphs/allocation/request/schema.js';
import { addRequestKeywords, validateRequestBody } from '../../../subgraphs/allocation/request/validator.js';
import { AppError } from '../../../subgraphs/platform/errors.js';
import { isCalendarDate as paramIsCalendarDate } from '../../../subgraphs/platform/param-table.js';
import { isCalendarDate as platformIsCalendarDate } from '../../../subgraphs/platform/validation.js';
import type { FieldNaming } from '../../../subgraphs/platform/param-table.js';
import Ajv2020 from 'ajv/dist/2020.js';

type Detail = { field?: string; message: string };
type Validate = (body: unknown, naming: FieldNaming) => unknown;

/** The details of the refusal (or [] when the body is accepted). */
function violations(validate: Validate, body: unknown, naming: FieldNaming = 'rest'): Detail[] {
  try {
    validate(body, naming);
    return [];
  } catch (err) {
    if (err instanceof AppError) {
      expect(err.code).toBe('VALIDATION_FAILED');
      expect(err.status).toBe(400);
      return err.details;
    }
    throw err;
  }
}
const fields = (validate: Validate, body: unknown, naming: FieldNaming = 'rest') => violations(validate, body, naming).map((d) => d.field).sort();

const holding = { symbol: 'AAPL', shares: 10, cost_basis: 150.1234 };
const book = { name: 'my book', cash: 2500.5, holdings: [holding] };
const trade = { symbol: 'AAPL', side: 'BUY', shares: 3 };

describe('a new book (CreatePortfolioRequest)', () => {
  it('accepts a valid body, normalised: currency defaulted, nulls dropped from holdings, settings as sent with canonical stage keys', () => {
    expect(
      validateCreatePortfolioBody(
        {
          name: 'b',
          cash: 0,
          holdings: [{ ...holding, entry_date: '2024-02-29', stop_loss: 140.25, target_price: null }, { symbol: 'BRK.B', shares: 1, cost_basis: 0 }],
          risk_settings: { max_positions: 5, stage_weights: { stage_2: 1 }, half_kelly: null },
          constraint_pack: { schema_version: '1', sector_caps: { Energy: 0.2 } },
        },
        'rest',
      ),
    ).toEqual({
      name: 'b',
      currency: 'USD',
      cash: 0,
      holdings: [{ ...holding, entry_date: '2024-02-29', stop_loss: 140.25 }, { symbol: 'BRK.B', shares: 1, cost_basis: 0 }],
      risk_settings: { max_positions: 5, stage_weights: { 'STAGE 2': 1 } },
      constraint_pack: { schema_version: '1', max_portfolio_turnover_annual: null, vol_target_annual: null, sector_caps: { Energy: 0.2 }, covariance_model: null },
    });
    // A book of cash alone, a currency, nulls for every optional field.
    expect(validateCreatePortfolioBody({ name: 'cash', currency: 'EUR', cash: 100, holdings: [], risk_settings: null, constraint_pack: null }, 'rest')).toEqual({
      name: 'cash',
      currency: 'EUR',
      cash: 100,
      holdings: [],
      risk_settings: null,
      constraint_pack: null,
    });
  });

  it('refuses each rule of the top-level fields, naming the field', () => {
    const v = validateCreatePortfolioBody;
    expect(fields(v, { ...book, name: '' })).toEqual(['name']);
    expect(fields(v, { ...book, name: 'x'.repeat(201) })).toEqual(['name']);
    expect(fields(v, { ...book, name: 7 })).toEqual(['name']);
    expect(fields(v, { ...book, currency: 'usd' })).toEqual(['currency']);
    expect(fields(v, { ...book, currency: 'XYZ' })).toEqual(['currency']);
    expect(fields(v, { ...book, cash: -0.01 })).toEqual(['cash']);
    expect(fields(v, { ...book, cash: 1.005 })).toEqual(['cash']);
    expect(fields(v, { ...book, cash: 1e12 + 1 })).toEqual(['cash']);
    expect(fields(v, { ...book, cash: '100' })).toEqual(['cash']);
    expect(fields(v, { ...book, holdings: 'AAPL' })).toEqual(['holdings']);
    expect(fields(v, { ...book, holdings: Array.from({ length: 501 }, () => holding) })).toEqual(['holdings']);
    expect(fields(v, { ...book, risk_settings: { max_positions: 0 } })).toEqual(['risk_settings.max_positions']);
    expect(fields(v, { ...book, constraint_pack: { sector_caps: {} } })).toEqual(['constraint_pack.schema_version']);
    expect(fields(v, { name: 'b' })).toEqual(['cash', 'holdings']);
    expect(violations(v, { name: 'b' }).map((d) => d.message).sort()).toEqual(['cash is required', 'holdings is required']);
    expect(fields(v, { ...book, name: 'a\u0000b' })).toEqual(['name']);
    expect(violations(v, [book])).toEqual([{ field: 'body', message: 'expected a JSON object' }]);
    expect(violations(v, null)).toEqual([{ field: 'body', message: 'expected a JSON object' }]);
  });

  it('refuses each rule of a holding, naming it by its index', () => {
    const v = validateCreatePortfolioBody;
    const at = (h: Record<string, unknown>) => fields(v, { ...book, holdings: [holding, { ...holding, ...h }] });
    expect(at({ symbol: 'aapl' })).toEqual(['holdings[1].symbol']);
    expect(at({ symbol: 'TOOLONGSYMBOL' })).toEqual(['holdings[1].symbol']);
    expect(at({ symbol: ' AAPL' })).toEqual(['holdings[1].symbol']);
    expect(at({ shares: 0 })).toEqual(['holdings[1].shares']);
    expect(at({ shares: 1.5 })).toEqual(['holdings[1].shares']);
    expect(at({ shares: 1e9 + 1 })).toEqual(['holdings[1].shares']);
    expect(at({ cost_basis: -1 })).toEqual(['holdings[1].cost_basis']);
    expect(at({ cost_basis: 1.00001 })).toEqual(['holdings[1].cost_basis']);
    expect(at({ entry_date: '2024-02-30' })).toEqual(['holdings[1].entry_date']);
    expect(at({ entry_date: '2024-2-3' })).toEqual(['holdings[1].entry_date']);
    // Year 0 passed once and the store refused it (500); the platform's rule starts at 1900.
    expect(at({ entry_date: '0000-01-01' })).toEqual(['holdings[1].entry_date']);
    expect(at({ entry_date: '1899-12-31' })).toEqual(['holdings[1].entry_date']);
    expect(at({ entry_date: '1900-01-01' })).toEqual([]);
    expect(at({ entry_date: '2024-02-03T00:00:00Z' })).toEqual(['holdings[1].entry_date']);
    expect(at({ stop_loss: 0 })).toEqual(['holdings[1].stop_loss']);
    expect(at({ stop_loss: 10.001 })).toEqual(['holdings[1].stop_loss']);
    expect(at({ target_price: -5 })).toEqual(['holdings[1].target_price']);
    expect(at({ note: 'x' })).toEqual(['holdings[1].note']);
    expect(fields(v, { ...book, holdings: [holding, 'AAPL'] })).toEqual(['holdings[1]']);
    expect(fields(v, { ...book, holdings: [{ symbol: 'AAPL' }] })).toEqual(['holdings[0].cost_basis', 'holdings[0].shares']);
    expect(violations(v, { ...book, holdings: [{ ...holding, cost_basis: 1.00001 }] })).toEqual([
      { field: 'holdings[0].cost_basis', message: 'holdings[0].cost_basis must have at most 4 decimals' },
    ]);
    expect(violations(v, { ...book, holdings: [{ ...holding, entry_date: '2023-02-29' }] })).toEqual([
      { field: 'holdings[0].entry_date', message: 'holdings[0].entry_date must be a calendar date YYYY-MM-DD from 1900-01-01 that exists' },
    ]);
    expect(violations(v, { ...book, holdings: [{ ...holding, stop_loss: 0 }] })).toEqual([{ field: 'holdings[0].stop_loss', message: 'holdings[0].stop_loss must be greater than 0' }]);
  });

  it('lists every violation at once, one per field, in the caller\'s naming', () => {
    const body = {
      name: '',
      cash: -1,
      extra: true,
      holdings: [
        { symbol: 'ok', shares: 0, cost_basis: 1.23456, entry_date: '2024-13-01', stop_loss: 0, target_price: 0.001, lots: 1 },
        holding,
        { ...holding, shares: 'ten' },
      ],
      risk_settings: { max_risk_per_trade: 2 },
    };
    const rest = violations(validateCreatePortfolioBody, body);
    expect(rest.map((d) => d.field).sort()).toEqual([
      'cash', 'extra', 'holdings[0].cost_basis', 'holdings[0].entry_date', 'holdings[0].lots', 'holdings[0].shares', 'holdings[0].stop_loss',
      'holdings[0].symbol', 'holdings[0].target_price', 'holdings[2].shares', 'name', 'risk_settings.max_risk_per_trade',
    ]);
    for (const d of rest) expect(d.message.startsWith(`${d.field!} `)).toBe(true);
    expect(rest.find((d) => d.field === 'extra')?.message).toBe('extra is not a known field');
    expect(rest.find((d) => d.field === 'holdings[0].lots')?.message).toBe('holdings[0].lots is not a known field');
    expect(fields(validateCreatePortfolioBody, body, 'graphql')).toEqual([
      'cash', 'extra', 'holdings[0].costBasis', 'holdings[0].entryDate', 'holdings[0].lots', 'holdings[0].shares', 'holdings[0].stopLoss',
      'holdings[0].symbol', 'holdings[0].targetPrice', 'holdings[2].shares', 'name', 'riskSettings.maxRiskPerTrade',
    ]);
  });

  it('names unstorable text at its exact place, list index included', () => {
    expect(violations(validateCreatePortfolioBody, { ...book, holdings: [holding, { ...holding, symbol: 'A\uD800' }] }, 'graphql').map((d) => d.field)).toEqual([
      'holdings[1].symbol',
      'holdings[1].symbol',
    ]);
  });
});

describe('a trade (TradeRequest)', () => {
  it('accepts BUY and SELL, price and date optional (null when not sent)', () => {
    expect(validateTradeBody(trade, 'rest')).toEqual({ ...trade, price: null, date: null });
    expect(validateTradeBody({ symbol: 'BF-B', side: 'SELL', shares: 1e9, price: 0.01, date: '2026-01-31' }, 'rest')).toEqual({
      symbol: 'BF-B',
      side: 'SELL',
      shares: 1e9,
      price: 0.01,
      date: '2026-01-31',
    });
    expect(validateTradeBody({ ...trade, price: null, date: null }, 'graphql')).toEqual({ ...trade, price: null, date: null });
  });

  it('refuses each rule, naming the field in the caller\'s naming', () => {
    const v = validateTradeBody;
    expect(fields(v, { ...trade, symbol: 'aapl' })).toEqual(['symbol']);
    expect(fields(v, { ...trade, side: 'SHORT' })).toEqual(['side']);
    expect(violations(v, { ...trade, side: 'buy' })).toEqual([{ field: 'side', message: 'side must be one of BUY, SELL' }]);
    expect(fields(v, { ...trade, shares: 0 })).toEqual(['shares']);
    expect(fields(v, { ...trade, shares: 2.5 })).toEqual(['shares']);
    expect(fields(v, { ...trade, shares: 1e9 + 1 })).toEqual(['shares']);
    expect(fields(v, { ...trade, price: 0 })).toEqual(['price']);
    expect(fields(v, { ...trade, price: 10.005 })).toEqual(['price']);
    expect(fields(v, { ...trade, price: '10' })).toEqual(['price']);
    expect(fields(v, { ...trade, date: '2026-02-29' })).toEqual(['date']);
    expect(fields(v, { ...trade, date: '20260101' })).toEqual(['date']);
    expect(fields(v, { ...trade, date: '0000-01-01' })).toEqual(['date']);
    expect(fields(v, { ...trade, at: 'now' })).toEqual(['at']);
    expect(fields(v, {})).toEqual(['shares', 'side', 'symbol']);
    expect(fields(v, { symbol: 1, side: 'X', shares: -1, price: -1, date: 'today', extra: 1 }, 'graphql')).toEqual(['date', 'extra', 'price', 'shares', 'side', 'symbol']);
    expect(violations(v, 'BUY AAPL')).toEqual([{ field: 'body', message: 'expected a JSON object' }]);
  });
});

describe('a rebalance (RebalanceRequest)', () => {
  it('accepts no body, an empty one, or settings and a pack (normalised as for a new book)', () => {
    expect(validateRebalanceBody(undefined, 'rest')).toEqual({ risk_settings: null, constraint_pack: null });
    expect(validateRebalanceBody(null, 'rest')).toEqual({ risk_settings: null, constraint_pack: null });
    expect(validateRebalanceBody({}, 'rest')).toEqual({ risk_settings: null, constraint_pack: null });
    expect(validateRebalanceBody({ risk_settings: { allocation_strategy: 'EQUAL_WEIGHT', max_positions: 4, softmax_temperature: null } }, 'rest')).toEqual({
      risk_settings: { allocation_strategy: 'EQUAL_WEIGHT', max_positions: 4 },
      constraint_pack: null,
    });
  });

  it('refuses each rule, unknown fields included, in the caller\'s naming', () => {
    const v = validateRebalanceBody;
    expect(fields(v, { risk_settings: { allocation_strategy: 'YOLO' } })).toEqual(['risk_settings.allocation_strategy']);
    expect(fields(v, { risk_settings: { allocation_strategy: 'YOLO' } }, 'graphql')).toEqual(['riskSettings.allocationStrategy']);
    expect(fields(v, { constraint_pack: { schema_version: '1', max_portfolio_turnover_annual: 11 } }, 'graphql')).toEqual(['constraintPack.maxPortfolioTurnoverAnnual']);
    expect(fields(v, { strategy: 'EQUAL_WEIGHT' })).toEqual(['strategy']);
    expect(fields(v, { risk_settings: 'aggressive' })).toEqual(['risk_settings']);
    expect(violations(v, [])).toEqual([{ field: 'body', message: 'expected a JSON object' }]);
  });
});

describe('GraphQL inputs', () => {
  it('map to the REST bodies they stand for (list items and nested settings included, unset fields left out)', () => {
    const input = {
      name: 'g',
      currency: undefined,
      cash: 10,
      holdings: [{ symbol: 'AAPL', shares: 2, costBasis: 3.5, entryDate: undefined, stopLoss: 3 }],
      riskSettings: { maxPositions: 3, stageWeights: { stage_1: 1 } },
    } as unknown as CreatePortfolioInput;
    const body = bodyOfCreatePortfolioInput(input);
    expect(body).toEqual({ name: 'g', cash: 10, holdings: [{ symbol: 'AAPL', shares: 2, cost_basis: 3.5, stop_loss: 3 }], risk_settings: { max_positions: 3, stage_weights: { stage_1: 1 } } });
    expect(validateCreatePortfolioBody(body, 'graphql').holdings).toEqual([{ symbol: 'AAPL', shares: 2, cost_basis: 3.5, stop_loss: 3 }]);
    expect(bodyOfTradeInput({ symbol: 'AAPL', side: 'SELL', shares: 1, price: null } as TradeInput)).toEqual({ symbol: 'AAPL', side: 'SELL', shares: 1, price: null });
    expect(bodyOfRebalanceInput(null)).toEqual({});
    expect(bodyOfRebalanceInput({ constraintPack: { schemaVersion: '1' } } as RebalanceInput)).toEqual({ constraint_pack: { schema_version: '1' } });
  });
});

describe('the derived schemas', () => {
  const schemas = bookRequestSchemas();
  const byId = new Map(schemas.map((s) => [s.$id as string, s]));
  const props = (id: string) => (byId.get(id)?.properties ?? {}) as Record<string, JsonSchema>;

  it('publish the book components with their rules, unknown fields refused, nesting the optimize components', () => {
    expect(schemas.map((s) => s.$id)).toEqual(['CreatePortfolioRequest', 'TradeRequest', 'RebalanceRequest', 'NewHolding']);
    expect(Object.keys(props('CreatePortfolioRequest'))).toEqual(['name', 'currency', 'cash', 'holdings', 'risk_settings', 'constraint_pack']);
    expect(Object.keys(props('NewHolding'))).toEqual(['symbol', 'shares', 'cost_basis', 'entry_date', 'stop_loss', 'target_price']);
    expect(Object.keys(props('TradeRequest'))).toEqual(['symbol', 'side', 'shares', 'price', 'date']);
    expect(Object.keys(props('RebalanceRequest'))).toEqual(['risk_settings', 'constraint_pack']);
    for (const s of schemas) expect(s.additionalProperties).toBe(false);
    expect(byId.get('CreatePortfolioRequest')?.required).toEqual(['name', 'cash', 'holdings']);
    expect(byId.get('NewHolding')?.required).toEqual(['symbol', 'shares', 'cost_basis']);
    expect(byId.get('TradeRequest')?.required).toEqual(['symbol', 'side', 'shares']);
    expect(props('CreatePortfolioRequest').holdings).toMatchObject({ type: 'array', maxItems: 500, items: { $ref: 'NewHolding#' } });
    expect(props('CreatePortfolioRequest').cash).toMatchObject({ type: 'number', minimum: 0, maximum: 1e12, 'x-whole-cents': true });
    expect(props('CreatePortfolioRequest').currency).toMatchObject({ default: 'USD', 'x-iso4217': true });
    expect(props('CreatePortfolioRequest').risk_settings).toMatchObject({ anyOf: [{ $ref: 'RiskSettings#' }, { type: 'null' }] });
    expect(props('NewHolding').cost_basis).toMatchObject({ type: 'number', minimum: 0, 'x-max-decimals': 4 });
    expect(props('NewHolding').entry_date).toMatchObject({ type: ['string', 'null'], pattern: '^\\d{4}-\\d{2}-\\d{2}$', 'x-calendar-date': true });
    expect(props('NewHolding').stop_loss).toMatchObject({ type: ['number', 'null'], exclusiveMinimum: 0, 'x-whole-cents': true });
    expect(props('TradeRequest').side).toMatchObject({ type: 'string', enum: ['BUY', 'SELL'] });
    expect(props('TradeRequest').shares).toMatchObject({ type: 'integer', minimum: 1, maximum: 1e9 });
    for (const id of ['CreatePortfolioRequest', 'TradeRequest', 'RebalanceRequest']) expect(byId.get(id)).toMatchObject({ 'x-storable-text': true });
    // Every x- keyword used is a rule of the rules module, each described beside the field.
    const used = new Set((JSON.stringify(schemas).match(/"x-[a-z0-9-]+"/g) ?? []).map((k) => k.slice(1, -1)));
    for (const keyword of used) expect(ALL_REQUEST_RULES.map((r) => r.keyword)).toContain(keyword);
    expect(props('NewHolding').cost_basis.description).toMatch(/at most 4 decimals/);
  });

  it('let every optional field be null, and no required one', () => {
    for (const schema of schemas) {
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [name, field] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
        const nullable = (Array.isArray(field.type) && field.type.includes('null')) || (field.anyOf as JsonSchema[] | undefined)?.some((s) => s.type === 'null') === true;
        expect({ field: `${String(schema.$id)}.${name}`, nullable }).toEqual({ field: `${String(schema.$id)}.${name}`, nullable: !required.has(name) });
      }
    }
  });

  it('refuse exactly what the validators refuse when a client compiles them with the rules module', () => {
    const ajv = new Ajv2020.default({ allErrors: true, strict: true, validateFormats: false });
    addRequestKeywords(ajv);
    for (const s of [...requestSchemas(), ...schemas]) ajv.addSchema(s);
    const cases: Array<[string, Validate, unknown]> = [
      ['CreatePortfolioRequest', validateCreatePortfolioBody, book],
      ['CreatePortfolioRequest', validateCreatePortfolioBody, { ...book, holdings: [{ ...holding, cost_basis: 0.00001 }] }],
      ['CreatePortfolioRequest', validateCreatePortfolioBody, { ...book, holdings: [{ ...holding, entry_date: '2025-02-29' }] }],
      ['CreatePortfolioRequest', validateCreatePortfolioBody, { ...book, cash: 0.001 }],
      ['CreatePortfolioRequest', validateCreatePortfolioBody, { ...book, name: '\u0000' }],
      ['TradeRequest', validateTradeBody, trade],
      ['TradeRequest', validateTradeBody, { ...trade, price: 0 }],
      ['TradeRequest', validateTradeBody, { ...trade, date: '2025-04-31' }],
      ['RebalanceRequest', validateRebalanceBody, {}],
      ['RebalanceRequest', validateRebalanceBody, { risk_settings: { max_positions: 501 } }],
    ];
    for (const [id, validate, body] of cases) {
      const published = ajv.getSchema(id)!(body);
      expect({ id, body, published }).toEqual({ id, body, published: violations(validate, body).length === 0 });
    }
  });

  it('leave the optimize request and its rules as they were', () => {
    expect(requestSchemas().map((s) => s.$id)).toEqual(['PortfolioRequest', 'RiskSettings', 'ConstraintPackV1', 'InvestorProfileV1', 'PolicyExplanationV1', 'SuggestedPreset']);
    expect(JSON.stringify(requestSchemas())).not.toMatch(/x-max-decimals|x-calendar-date|NewHolding/);
    expect(REQUEST_RULES.map((r) => r.keyword)).not.toContain('x-max-decimals');
    expect(() => validateRequestBody({ name: 'x', total_capital: 1000, holdings: [] }, 'rest')).toThrow(AppError);
  });
});

describe('the rules module\'s calendar date', () => {
  it('is the platform\'s one rule: a YYYY-MM-DD day that exists, from 1900-01-01', () => {
    expect(isCalendarDate).toBe(platformIsCalendarDate);
    expect(isCalendarDate).toBe(paramIsCalendarDate);
    for (const ok of ['2024-02-29', '2000-02-29', '1900-01-01', '9999-12-31', '2026-11-30']) expect({ ok, valid: isCalendarDate(ok) }).toEqual({ ok, valid: true });
    for (const bad of ['0000-01-01', '0001-01-01', '1899-12-31', '1900-02-29', '2023-02-29', '2026-04-31', '2026-00-10', '2026-13-01', '2026-1-01', '26-01-01', '2026-01-01T00:00:00Z', ' 2026-01-01', '']) {
      expect({ bad, valid: isCalendarDate(bad) }).toEqual({ bad, valid: false });
    }
  });
});
