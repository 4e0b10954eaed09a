/**
 * The search parameter tables (subgraphs/search/params.ts): the checked values, and the violations in
 * the wording REST and GraphQL share (400 VALIDATION_FAILED, one detail per bad parameter).
 */
import { checkCashHuntParams, checkHuntParams, CASH_HUNT_PARAMS, HUNT_PARAMS } from '../../../subgraphs/search/params.js';
import { querystringSchema, queryAjv } from '../../../subgraphs/platform/param-table.js';
import { AppError } from '../../../subgraphs/platform/errors.js';

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

it('reads REST text and GraphQL numbers alike; the mode follows the symbol given', () => {
  expect(checkHuntParams({ portfolioId: ID, page: '007', pageSize: '50' }, 'rest')).toEqual({ portfolioId: ID, mode: 'general', symbol: null, page: 7, pageSize: 50 });
  expect(checkHuntParams({ portfolioId: ID, symbolInterest: ' brk.b ', page: 2 }, 'graphql')).toEqual({ portfolioId: ID, mode: 'interest', symbol: 'BRK.B', page: 2, pageSize: 6 });
  expect(checkHuntParams({ portfolioId: ID.toUpperCase(), symbolReplace: 'acme', symbolInterest: null }, 'graphql')).toMatchObject({ mode: 'replace', symbol: 'ACME' });
  expect(checkCashHuntParams({ portfolioId: ID, page: '2147483647' }, 'rest')).toMatchObject({ page: 2147483647, pageSize: 6 });
});

it('every violation at once, named as REST names them', () => {
  expect(detailsOf(() => checkHuntParams({ portfolioId: 'x', page: '0', pageSize: '99', symbolInterest: '$$' }, 'rest', ['foo']))).toEqual([
    { field: 'foo', message: 'unknown parameter; this operation takes portfolio_id, symbol_replace, symbol_interest, page, page_size' },
    { field: 'portfolio_id', message: 'portfolio_id must be the id of one of your portfolios (a UUID)' },
    { field: 'symbol_interest', message: 'symbol_interest must be a ticker symbol (letters and digits, e.g. AAPL or BRK.B)' },
    { field: 'page', message: 'page must be an integer from 1 to 2147483647' },
    { field: 'page_size', message: 'page_size must be an integer from 1 to 50' },
  ]);
});

it('required, repeated, both symbols and non-decimal integers, named as GraphQL names them', () => {
  expect(detailsOf(() => checkHuntParams({ portfolioId: '', symbolReplace: 'ACME', symbolInterest: 'ACME', pageSize: 1.5 }, 'graphql'))).toEqual([
    { field: 'portfolioId', message: 'portfolioId is required' },
    { field: 'pageSize', message: 'pageSize must be an integer from 1 to 50' },
    { field: 'symbolInterest', message: 'give symbolReplace (replacement) or symbolInterest (suitability), not both' },
  ]);
  expect(detailsOf(() => checkCashHuntParams({ page: ['1', '1'], pageSize: '1e1' }, 'rest'))).toEqual([
    { field: 'portfolio_id', message: 'portfolio_id is required' },
    { field: 'page', message: 'page must be given once' },
    { field: 'page_size', message: 'page_size must be an integer from 1 to 50' },
  ]);
});

it('the route schema is the one the checks use: a table change shows in both', () => {
  const hunt = queryAjv().compile(querystringSchema(HUNT_PARAMS));
  expect(hunt({ portfolio_id: ID, page_size: 50 })).toBe(true);
  expect(hunt({ portfolio_id: ID, page_size: 51 })).toBe(false);
  expect(hunt({ portfolio_id: ID, symbol_replace: 'A', symbol_interest: 'B' })).toBe(false);
  expect(hunt({ portfolio_id: ID, foo: '1' })).toBe(false);
  const cash = queryAjv().compile(querystringSchema(CASH_HUNT_PARAMS));
  expect(cash({ portfolio_id: ID, symbol_replace: 'A' })).toBe(false);
  expect(cash({ page: 1 })).toBe(false);
});
