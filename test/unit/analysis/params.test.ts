/**
 * The analysis parameter table (subgraphs/analysis/params.ts) and the x- keywords (param-table.ts): the
 * published ticker pattern accepts exactly the text normalizeSymbol accepts, x-calendar-date real calendar
 * dates only (concrete cases), and `date` is refused in today's wording (400 VALIDATION_FAILED).
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

it('x-calendar-date: real calendar dates YYYY-MM-DD only', () => {
  const cases: Array<[string, boolean]> = [
    ['2024-02-29', true], // leap year
    ['2023-02-29', false],
    ['2000-02-29', true], // divisible by 400
    ['1900-02-29', false], // divisible by 100, not 400
    ['2026-02-30', false],
    ['2026-04-31', false],
    ['2026-12-31', true],
    ['2026-13-01', false],
    ['2026-00-10', false],
    ['2026-01-00', false],
    ['9999-12-31', true],
    ['1900-01-01', true],
    ['1899-12-31', false],
    ['0100-01-01', false],
    // The platform's calendar-date rule starts at 1900-01-01 (PostgreSQL has no year 0).
    ['0000-01-01', false],
    ['0099-12-31', false],
    ['2026-1-5', false],
    ['20260105', false],
    [' 2026-01-05', false],
    ['2026-01-05T00:00:00Z', false],
    ['\uff12\uff10\uff12\uff16-01-05', false], // full-width digits
    ['', false],
  ];
  for (const [date, real] of cases) expect({ date, real: isCalendarDate(date) }).toEqual({ date, real });
  const validate = queryAjv().compile(ROUTE_QUERY_SCHEMAS.evidence);
  for (const [date, real] of cases) expect({ date, published: validate({ date }) }).toEqual({ date, published: real });
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
