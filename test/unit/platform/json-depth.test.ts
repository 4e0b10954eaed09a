/**
 * The depth scan that guards every request document (platform/json-depth.ts): brackets outside strings
 * count, brackets inside strings never do, escapes are honoured, and a hostile text stops the scan at the
 * first bracket past the limit, without recursion however deep it goes. The GraphQL variant also skips
 * `#` comments and block strings.
 */
import { DEFAULT_MAX_JSON_DEPTH, graphqlDepth, isTooDeep, jsonDepth, tooDeep } from '../../../subgraphs/platform/json-depth.js';

const nested = (levels: number, inner = '1') => `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`;
const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

it.each([
  ['1', 0],
  ['"text"', 0],
  ['null', 0],
  ['{}', 1],
  ['[]', 1],
  ['{"a":[1]}', 2],
  ['[{"a":{}},[[]]]', 3],
  ['{"a":1,"b":{"c":2},"d":[3]}', 2],
])('%s nests %i deep', (text, depth) => {
  expect(jsonDepth(text)).toBe(depth);
});

it('ignores brackets inside strings, keys included', () => {
  expect(jsonDepth('{"[[[[": "{{{{ ]]]] }}}}"}')).toBe(1);
  expect(jsonDepth(`{"q": "${'['.repeat(10_000)}"}`)).toBe(1);
});

it('honours escaped quotes and escaped backslashes inside strings', () => {
  // "a\"[[" is one string: the escaped quote does not end it.
  expect(jsonDepth('["a\\"[[[", 1]')).toBe(1);
  // "a\\" ends at its second quote (the backslash is escaped), so the brackets after it count.
  expect(jsonDepth('["a\\\\", [[1]]]')).toBe(3);
  expect(jsonDepth('["\\u005b\\u005b"]')).toBe(1);
});

it('never goes below zero on stray closers', () => {
  expect(jsonDepth(']]]}}}[[1]]')).toBe(2);
});

it('stops at the first level past the limit and reports limit + 1', () => {
  expect(jsonDepth(nested(1000), 64)).toBe(65);
  expect(jsonDepth(arrays(100_000), 64)).toBe(65);
});

it('measures 100,000 levels without recursing (no stack overflow)', () => {
  expect(jsonDepth(arrays(100_000))).toBe(100_000);
  expect(jsonDepth(nested(100_000))).toBe(100_000);
});

it('accepts a document exactly at the limit and refuses one level more', () => {
  expect(DEFAULT_MAX_JSON_DEPTH).toBe(64);
  expect(isTooDeep(nested(64), 64)).toBe(false);
  expect(isTooDeep(nested(65), 64)).toBe(true);
  expect(isTooDeep(arrays(64), 64)).toBe(false);
  expect(isTooDeep(arrays(65), 64)).toBe(true);
});

it('refuses with 400 REQUEST_TOO_DEEP naming the limit and where the document was', () => {
  const err = tooDeep(64, 'variables');
  expect(err.code).toBe('REQUEST_TOO_DEEP');
  expect(err.status).toBe(400);
  expect(err.message).toContain('64');
  expect(err.details).toEqual([{ field: 'variables', message: expect.stringContaining('MAX_JSON_DEPTH') }]);
});

describe('graphqlDepth', () => {
  it.each([
    ['{ __typename }', 1],
    ['query Q($v: [[Int]] = [[1]]) { a { b(x: {y: [1]}) { c } } }', 4],
    ['{ a(s: "{{{{[[[[") }', 1],
    ['{ a(s: "esc \\" {{{{") }', 1],
    ['{ a(s: """ block "quoted" {{{{ \\""" still {{{{ """) }', 1],
    ['{ a } # {{{{ " [[[[\n{ b }', 1],
    ['{ a(s: "unterminated\n{ b }', 2],
  ])('%s nests %i deep', (text, depth) => {
    expect(graphqlDepth(text)).toBe(depth);
  });

  it('measures 100,000 levels without recursing, and stops past the limit', () => {
    expect(graphqlDepth(`${'{a'.repeat(100_000)}${'}'.repeat(100_000)}`)).toBe(100_000);
    expect(graphqlDepth(`{ a(l: ${'['.repeat(100_000)}) }`, 64)).toBe(65);
  });
});
