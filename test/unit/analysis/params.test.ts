/**
 * The analysis parameter table (subgraphs/analysis/params.ts) and the x- keywords (param-table.ts): the
 * published ticker pattern accepts exactly the text normalizeSymbol accepts, x-calendar-date exactly the
 * dates parseIsoDate accepts, and `date` is refused in today's wording (400 VALIDATION_FAILED).
 */
import fc from 'fast-check';
import { normalizeSymbol } from '../../../subgraphs/analysis/engine/symbol.js';
import { checkDateParam, ROUTE_QUERY_SCHEMAS, TICKER_INPUT_PATTERN } from '../../../subgraphs/analysis/params.js';
import { isCalendarDate, queryAjv } from '../../../subgraphs/platform/param-table.js';
import { AppError } from '../../../subgraphs/platform/errors.js';
import { parseIsoDate } from '../../../subgraphs/platform/validation.js';

const tickerText = fc.oneof(
  fc.string({ unit: fc.constantFrom('A', 'b', 'Z', 'q', '0', '9', '.', '-', ' ', '\t', '\u00a0', 'ı', 'ß', 'Ä', '$', '/'), maxLength: 14 }),
  fc.constantFrom('AAPL', ' brk.b ', 'BF-B', 'acmı', 'ABCDEFGHIJK', 'ABCDEF.GHI', 'ABCDEFG', '1ACME', 'A..B', 'A.', '\ufeffACME\u3000', 'ACME\n'),
);

it('TICKER_INPUT_PATTERN accepts exactly what normalizeSymbol accepts', () => {
  const pattern = new RegExp(TICKER_INPUT_PATTERN, 'u');
  fc.assert(
    fc.property(tickerText, (text) => {
      expect({ text, pattern: pattern.test(text) }).toEqual({ text, pattern: normalizeSymbol(text) !== null });
    }),
    { numRuns: 2000 },
  );
});

it('x-calendar-date accepts exactly the dates parseIsoDate accepts', () => {
  const accepts = (d: string) => {
    try {
      parseIsoDate(d, 'date');
      return true;
    } catch {
      return false;
    }
  };
  const dates = fc.tuple(fc.integer({ min: 0, max: 10000 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 })).map(
    ([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
  );
  fc.assert(fc.property(fc.oneof(dates, fc.string({ maxLength: 12 })), (d) => expect(isCalendarDate(d)).toBe(accepts(d))), { numRuns: 2000 });
});

it('the published date schema refuses a repeat, a malformed and an impossible date, and ignores other parameters', () => {
  const validate = queryAjv().compile(ROUTE_QUERY_SCHEMAS.analysis);
  expect(validate({ date: '2024-02-29', other: 'x' })).toBe(true);
  expect(validate({})).toBe(true);
  for (const date of ['2023-02-29', '2026-1-5', '', ['2024-01-02', '2024-01-03']]) expect(validate({ date })).toBe(false);
  const demo = queryAjv().compile(ROUTE_QUERY_SCHEMAS.demo);
  for (const date of ['garbage', ['a', 'b'], '']) expect(demo({ date })).toBe(true);
});

const errorOf = (f: () => unknown): AppError => {
  try {
    f();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('no error');
};

it('checkDateParam: the date, undefined when absent, the platform wording for a bad date and the query wording for a repeat', () => {
  expect(checkDateParam('2024-02-29')).toBe('2024-02-29');
  expect(checkDateParam(undefined)).toBeUndefined();
  expect(checkDateParam(null, 'evidence')).toBeUndefined();
  const bad = errorOf(() => checkDateParam('2026-02-30'));
  expect(bad).toBeInstanceOf(AppError);
  expect({ code: bad.code, message: bad.message, details: bad.details }).toEqual({
    code: 'VALIDATION_FAILED',
    message: 'date must be a date YYYY-MM-DD',
    details: [{ field: 'date', message: 'expected a calendar date YYYY-MM-DD' }],
  });
  expect(errorOf(() => parseIsoDate('2026-02-30', 'date'))).toEqual(bad);
  const twice = errorOf(() => checkDateParam(['2024-01-02', '2024-01-03'], 'evidence'));
  expect({ code: twice.code, message: twice.message, details: twice.details }).toEqual({
    code: 'VALIDATION_FAILED',
    message: 'The query string is invalid',
    details: [{ field: 'date', message: 'date must be given at most once, as YYYY-MM-DD' }],
  });
});
