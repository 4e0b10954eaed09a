/**
 * The search parameter tables (subgraphs/search/params.ts): the checked values, and the violations in
 * the wording REST and GraphQL share (400 VALIDATION_FAILED, one detail per bad parameter); and the
 * search origin's published query parameters (its /openapi.json, real origin on port 0) are the tables'.
 */
import { checkCashHuntParams, checkHuntParams, CASH_HUNT_PARAMS, HUNT_PARAMS } from '../../../subgraphs/search/params.js';
import { operationRules, ParamChecker, querystringSchema, queryAjv, type JsonSchema, type RestQuery } from '../../../subgraphs/platform/param-table.js';
import { AppError } from '../../../subgraphs/platform/errors.js';
import { startPlatform, type RunningPlatform } from '../../../cli/platform.js';
import { testConfig } from '../../helpers/config.js';
import { openTestDb, type TestDb } from '../../helpers/db.js';
import { fetchOpenApi } from '../../helpers/openapi.js';

const ID = '0a6282b9-7356-4004-84f5-aa294e284f98';

const detailsOf = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(e.message).toBe((e.details ?? []).map((d) => `${d.field}: ${d.message}`).join('; '));
    return e.details;
  }
  throw new Error('accepted');
};

const rest = (query: RestQuery) => ({ naming: 'rest' as const, query });
const graphql = <Args>(args: Args) => ({ naming: 'graphql' as const, args });

it('reads REST text and GraphQL numbers alike; the mode follows the symbol given; absent pages take the table defaults', () => {
  expect(checkHuntParams(rest({ portfolio_id: ID, page: '007', page_size: '50' }))).toEqual({ portfolioId: ID, mode: 'general', symbol: null, page: 7, pageSize: 50 });
  expect(checkHuntParams(graphql({ portfolioId: ID, symbolInterest: ' brk.b ', page: 2 }))).toEqual({ portfolioId: ID, mode: 'interest', symbol: 'BRK.B', page: 2, pageSize: 6 });
  expect(checkHuntParams(graphql({ portfolioId: ID.toUpperCase(), symbolReplace: 'acme', symbolInterest: null }))).toMatchObject({ mode: 'replace', symbol: 'ACME' });
  expect(checkCashHuntParams(rest({ portfolio_id: ID, page: '2147483647' }))).toMatchObject({ page: 2147483647, pageSize: 6 });
  expect(checkCashHuntParams(rest({ portfolio_id: ID }))).toEqual({ portfolioId: ID, mode: 'general', symbol: null, page: 1, pageSize: 6 });
});

it('the checked values are typed from the table: required and defaulted parameters always there, the others optional', () => {
  const checked = new ParamChecker(HUNT_PARAMS).checkQuery({ portfolio_id: ID, symbol_interest: 'acme' });
  const typed: { portfolioId: string; page: number; pageSize: number; symbolReplace?: string; symbolInterest?: string } = checked;
  // @ts-expect-error page is a number
  const page: string = checked.page;
  // @ts-expect-error symbolReplace may be absent
  const replace: string = checked.symbolReplace;
  expect({ typed, page, replace }).toEqual({ typed: { portfolioId: ID, symbolInterest: 'acme', page: 1, pageSize: 6 }, page: 1, replace: undefined });
});

it('every violation at once, named as REST names them; a GraphQL name in a REST query is unknown', () => {
  expect(detailsOf(() => checkHuntParams(rest({ portfolio_id: 'x', page: '0', page_size: '99', symbol_interest: '$$', foo: '1' })))).toEqual([
    { field: 'foo', message: 'unknown parameter; this operation takes portfolio_id, symbol_replace, symbol_interest, page, page_size' },
    { field: 'portfolio_id', message: 'portfolio_id must be the id of one of your portfolios (a UUID)' },
    { field: 'symbol_interest', message: 'symbol_interest must be a ticker symbol (letters and digits, e.g. AAPL or BRK.B)' },
    { field: 'page', message: 'page must be an integer from 1 to 2147483647' },
    { field: 'page_size', message: 'page_size must be an integer from 1 to 50' },
  ]);
  expect(detailsOf(() => checkCashHuntParams(rest({ portfolio_id: ID, pageSize: '10', symbol_replace: 'ACME' })))).toEqual([
    { field: 'pageSize', message: 'unknown parameter; this operation takes portfolio_id, page, page_size' },
    { field: 'symbol_replace', message: 'unknown parameter; this operation takes portfolio_id, page, page_size' },
  ]);
});

it('required, repeated, both symbols and non-decimal integers, named as GraphQL names them', () => {
  expect(detailsOf(() => checkHuntParams(graphql({ portfolioId: '', symbolReplace: 'ACME', symbolInterest: 'ACME', pageSize: 1.5 })))).toEqual([
    { field: 'portfolioId', message: 'portfolioId is required' },
    { field: 'pageSize', message: 'pageSize must be an integer from 1 to 50' },
    { field: 'symbolInterest', message: 'give symbolReplace (replacement) or symbolInterest (suitability), not both' },
  ]);
  expect(detailsOf(() => checkCashHuntParams(rest({ page: ['1', '1'], page_size: '1e1' })))).toEqual([
    { field: 'portfolio_id', message: 'portfolio_id is required' },
    { field: 'page', message: 'page must be given once' },
    { field: 'page_size', message: 'page_size must be an integer from 1 to 50' },
  ]);
});

describe('the search origin publishes the tables', () => {
  let store: TestDb;
  let platform: RunningPlatform;
  let paths: Record<string, Record<string, Record<string, unknown>>>;

  beforeAll(async () => {
    store = await openTestDb('pglite');
    platform = await startPlatform(testConfig({ DEMO_DATA: 'false', ANALYZE_ON_START: 'false' }), ['search'], { db: store.db });
    paths = (await fetchOpenApi(platform.urls.search as string)).paths as unknown as typeof paths;
  });
  afterAll(async () => {
    await platform?.close();
    await store?.drop();
  });

  interface Parameter {
    in: string;
    name: string;
    required?: boolean;
    description?: string;
    schema: JsonSchema;
  }

  /** The operation's published query parameters as the one object schema the checks compile. */
  const publishedQuery = (path: string): JsonSchema => {
    const operation = paths[path].get;
    const params = (operation.parameters as Parameter[]).filter((p) => p.in === 'query');
    const required = params.filter((p) => p.required).map((p) => p.name);
    return {
      type: 'object',
      ...(required.length ? { required } : {}),
      properties: Object.fromEntries(params.map((p) => [p.name, { ...p.schema, description: p.description ?? p.schema.description }])),
      additionalProperties: operation['x-unknown-query-parameters'] !== 'refused',
    };
  };

  it.each([
    ['/api/v1/portfolios/hunt', HUNT_PARAMS],
    ['/api/v1/portfolios/cash-hunt', CASH_HUNT_PARAMS],
  ] as const)('%s: the published parameters and operation rules are the table the checks compile', (path, table) => {
    expect(publishedQuery(path)).toEqual(querystringSchema(table));
    expect(paths[path].get).toMatchObject(operationRules(table));
  });

  it('queries the published hunt schema refuses, the checks refuse, and the other way round', () => {
    const validate = queryAjv().compile(publishedQuery('/api/v1/portfolios/hunt'));
    const accepts = (query: Record<string, unknown>) => {
      try {
        checkHuntParams(rest(query));
        return true;
      } catch {
        return false;
      }
    };
    for (const query of [
      { portfolio_id: ID, page_size: 50 },
      { portfolio_id: ID, page_size: 51 },
      { portfolio_id: ID, symbol_replace: 'A', symbol_interest: 'B' },
      { portfolio_id: ID, foo: '1' },
      { page: 1 },
    ]) {
      expect({ query, published: validate(query) }).toEqual({ query, published: accepts(query) });
    }
  });
});
