/**
 * The optimize request's derived schema and compiled validator (subgraphs/allocation/request/): every
 * field of the request classes is published with its rules, optional fields accept null, the x-
 * keywords are the rules module's, and the validator reports one detail per field in the caller's
 * naming. The demo body comparison of the service reports each differing field.
 */
import { AllocationService, DEMO_OPTIMIZE_BODY } from '../../../subgraphs/allocation/service.js';
import { fieldsOf, RiskSettingsInput } from '../../../subgraphs/allocation/request/classes.js';
import { REQUEST_RULES } from '../../../subgraphs/allocation/request/rules.js';
import { requestSchemas, type JsonSchema } from '../../../subgraphs/allocation/request/schema.js';
import { bodyOfInput, validateRequestBody } from '../../../subgraphs/allocation/request/validator.js';
import type { FieldNaming } from '../../../subgraphs/platform/param-table.js';
import { DEFAULT_RISK_SETTINGS } from '../../../subgraphs/allocation/engine/risk-settings.js';
import { AppError } from '../../../subgraphs/platform/errors.js';
import type { Db } from '../../../subgraphs/platform/db.js';

const schemas = requestSchemas();
const byId = new Map(schemas.map((s) => [s.$id as string, s]));
const properties = (id: string) => (byId.get(id)?.properties ?? {}) as Record<string, JsonSchema>;

function violations(body: unknown, naming: FieldNaming = 'rest'): Array<{ field?: string; message: string }> {
  try {
    validateRequestBody(body, naming);
    return [];
  } catch (err) {
    if (err instanceof AppError) return err.details;
    throw err;
  }
}

describe('the derived schema', () => {
  it('publishes the spec components with their snake_case fields in order, unknown fields refused', () => {
    expect(schemas.map((s) => s.$id)).toEqual(['PortfolioRequest', 'RiskSettings', 'ConstraintPackV1', 'InvestorProfileV1', 'PolicyExplanationV1', 'SuggestedPreset']);
    expect(Object.keys(properties('PortfolioRequest'))).toEqual([
      'name', 'description', 'total_capital', 'currency', 'risk_quiz_answers', 'suggested_preset', 'risk_settings', 'investor_profile', 'constraint_pack',
      'prior_book_weights', 'policy_explanation',
    ]);
    expect(Object.keys(properties('RiskSettings'))).toEqual([
      'max_risk_per_trade', 'max_portfolio_risk', 'max_position_size', 'max_positions', 'allocation_strategy', 'softmax_temperature', 'reward_multiplier',
      'stage_weights', 'half_kelly',
    ]);
    expect(Object.keys(properties('ConstraintPackV1'))).toEqual(['schema_version', 'max_portfolio_turnover_annual', 'vol_target_annual', 'sector_caps', 'covariance_model']);
    expect(Object.keys(properties('InvestorProfileV1'))).toEqual(['schema_version', 'recorded_at', 'risk_quiz_answers', 'suggested_preset']);
    expect(Object.keys(properties('PolicyExplanationV1'))).toEqual(['schema_version', 'mapper_version', 'preset_key', 'bullets']);
    expect(Object.keys(properties('SuggestedPreset'))).toEqual(['key', 'description']);
    for (const schema of schemas) expect({ id: schema.$id, additionalProperties: schema.additionalProperties }).toEqual({ id: schema.$id, additionalProperties: false });
    // Concrete types, nullability, bounds and nesting as published.
    expect(properties('PortfolioRequest').name).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
    expect(properties('PortfolioRequest').description).toMatchObject({ type: ['string', 'null'], maxLength: 2000 });
    expect(properties('PortfolioRequest').constraint_pack).toMatchObject({ anyOf: [{ $ref: 'ConstraintPackV1#' }, { type: 'null' }] });
    expect(properties('RiskSettings').max_positions).toMatchObject({ type: ['integer', 'null'], minimum: 1, maximum: 500, default: 30 });
    expect(properties('RiskSettings').softmax_temperature).toMatchObject({ type: ['number', 'null'], minimum: 0.001, maximum: 100 });
    expect(properties('RiskSettings').allocation_strategy).toMatchObject({
      type: ['string', 'null'],
      enum: ['EQUAL_WEIGHT', 'STAGE_WEIGHTED', 'CONFIDENCE_WEIGHTED', 'KELLY_CRITERION', 'HYBRID_WEIGHTED', null],
      default: 'HYBRID_WEIGHTED',
    });
    expect(properties('RiskSettings').half_kelly).toMatchObject({ type: ['boolean', 'null'] });
    expect(properties('ConstraintPackV1').vol_target_annual).toMatchObject({ type: ['number', 'null'], minimum: 0.0001, maximum: 2 });
    expect(properties('ConstraintPackV1').sector_caps).toMatchObject({ type: ['object', 'null'], maxProperties: 500, additionalProperties: { type: 'number', minimum: 0, maximum: 1 } });
    expect(properties('PolicyExplanationV1').bullets).toMatchObject({ type: ['array', 'null'], maxItems: 50, items: { type: 'string', maxLength: 500 } });
    expect(byId.get('PortfolioRequest')?.required).toEqual(['name', 'total_capital']);
    expect(byId.get('ConstraintPackV1')?.required).toEqual(['schema_version']);
  });

  it('lets every optional field be null, and no required one', () => {
    for (const schema of schemas) {
      const required = new Set((schema.required as string[] | undefined) ?? []);
      for (const [name, field] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
        const nullable = (Array.isArray(field.type) && field.type.includes('null')) || (field.anyOf as JsonSchema[] | undefined)?.some((s) => s.type === 'null') === true;
        expect({ field: `${String(schema.$id)}.${name}`, nullable }).toEqual({ field: `${String(schema.$id)}.${name}`, nullable: !required.has(name) });
      }
    }
  });

  it('states the rules from the class metadata, with the x- keywords of the rules module and the defaults', () => {
    const request = properties('PortfolioRequest');
    expect(request.total_capital).toMatchObject({ type: 'number', minimum: 1000, maximum: 1e12, 'x-whole-cents': true });
    expect(request.currency).toMatchObject({ type: ['string', 'null'], pattern: '^[A-Z]{3}$', 'x-iso4217': true, default: 'USD' });
    expect(request.prior_book_weights).toMatchObject({ 'x-sum-max': 1, 'x-distinct-keys': 'symbol', maxProperties: 500 });
    expect(request.risk_quiz_answers).toMatchObject({ 'x-risk-quiz': true, maxProperties: 50 });
    expect(request.risk_settings).toMatchObject({ anyOf: [{ $ref: 'RiskSettings#' }, { type: 'null' }], description: expect.stringMatching(/defaults/) });
    expect(byId.get('PortfolioRequest')).toMatchObject({ 'x-storable-text': true, 'x-known-preset': true });
    expect(properties('InvestorProfileV1').recorded_at).toMatchObject({ 'x-iso8601': 'strict' });
    const risk = properties('RiskSettings');
    expect(risk.stage_weights).toMatchObject({ 'x-distinct-keys': 'stage', propertyNames: { pattern: expect.stringContaining('[1-4]') } });
    expect(risk.allocation_strategy.enum).toContain(null);
    for (const [name, value] of Object.entries(DEFAULT_RISK_SETTINGS)) if (value !== null) expect(risk[name].default).toEqual(value);
    // Every x- keyword used is one of the rules module's, and each is explained in its field's description.
    const used = JSON.stringify(schemas).match(/"x-[a-z0-9-]+"/g) ?? [];
    expect(new Set(used.map((k) => k.slice(1, -1)))).toEqual(new Set(REQUEST_RULES.map((r) => r.keyword)));
    expect(request.total_capital.description).toMatch(/whole cents/);
  });

  it('takes the risk settings fields from the class: the effective settings have exactly those keys', () => {
    expect(Object.keys(DEFAULT_RISK_SETTINGS).sort()).toEqual(fieldsOf(RiskSettingsInput).map((f) => f.name).sort());
  });
});

describe('the compiled validator', () => {
  it('accepts the demo body and a body of nulls, refuses what the rules module refuses', () => {
    expect(violations(DEMO_OPTIMIZE_BODY)).toEqual([]);
    expect(violations({ name: 'x', total_capital: 1000, currency: null, risk_settings: { max_positions: null, half_kelly: null }, constraint_pack: null })).toEqual([]);
    expect(violations({ name: 'x', total_capital: 1000.001 }).map((d) => d.field)).toEqual(['total_capital']);
    expect(violations({ name: 'x', total_capital: 1000, currency: 'XYZ' }).map((d) => d.field)).toEqual(['currency']);
    expect(violations({ name: 'x', total_capital: 1000, prior_book_weights: { a: 0.6, B: 0.5 } }).map((d) => d.field)).toEqual(['prior_book_weights']);
  });

  it('reports one detail per field, its first failed rule, in the caller\'s naming', () => {
    const body = { name: 'x', total_capital: 'lots', risk_settings: { max_positions: 2.5, stage_weights: { 'STAGE 2': 1, stage_2: 2 } }, extra: 1 };
    const rest = violations(body);
    expect(rest.map((d) => d.field).sort()).toEqual(['extra', 'risk_settings.max_positions', 'risk_settings.stage_weights', 'total_capital']);
    expect(rest.find((d) => d.field === 'total_capital')?.message).toBe('total_capital must be a number');
    expect(rest.find((d) => d.field === 'extra')?.message).toBe('extra is not a known field');
    expect(rest.find((d) => d.field === 'risk_settings.stage_weights')?.message).toMatch(/once/);
    const graphql = violations(body, 'graphql').map((d) => d.field).sort();
    expect(graphql).toEqual(['extra', 'riskSettings.maxPositions', 'riskSettings.stageWeights', 'totalCapital']);
  });

  it('maps a GraphQL input (camelCase, unset fields undefined) to the REST body it stands for', () => {
    const input = { name: 'x', totalCapital: 1000, currency: undefined, riskSettings: { maxPositions: 3, stageWeights: { stage_1: 1 } } };
    expect(bodyOfInput(input)).toEqual({ name: 'x', total_capital: 1000, risk_settings: { max_positions: 3, stage_weights: { stage_1: 1 } } });
  });

  it('names quiz answers and unstorable text at their exact place', () => {
    const details = violations({ name: 'a\u0000', total_capital: 1000, risk_quiz_answers: { goal: 'lottery' }, prior_book_weights: { 'B\uD800': 0.1 } });
    expect(details.map((d) => d.field)).toEqual(['risk_quiz_answers.goal', 'name', 'prior_book_weights.B\uD800']);
  });
});

describe('the demo body comparison', () => {
  // The comparison runs before anything is read, so no store is needed.
  const service = new AllocationService({} as Db);
  const anonymous = { kind: 'anonymous' as const };
  const mismatches = async (body: unknown, naming: FieldNaming = 'rest') => {
    try {
      await service.optimizeBody(anonymous as never, body, { traceId: 't', naming });
    } catch (err) {
      if (err instanceof AppError && err.code === 'DEMO_BODY_MISMATCH') return err.details.map((d) => d.field).sort();
      throw err;
    }
    throw new Error('the body was taken as the demo body');
  };

  it('reports each differing field path, deep ones included, null counting as not sent', async () => {
    const demo = DEMO_OPTIMIZE_BODY;
    expect(await mismatches({ ...demo, total_capital: 100001 })).toEqual(['total_capital']);
    expect(await mismatches({ ...demo, description: 'mine', risk_settings: { ...demo.risk_settings, max_positions: 5, half_kelly: true } })).toEqual([
      'description',
      'risk_settings.half_kelly',
      'risk_settings.max_positions',
    ]);
    expect(await mismatches({ name: demo.name, total_capital: demo.total_capital })).toEqual(['risk_settings']);
    expect(await mismatches({ ...demo, risk_settings: { ...demo.risk_settings, max_risk_per_trade: null } }, 'graphql')).toEqual(['riskSettings.maxRiskPerTrade']);
  });
});
