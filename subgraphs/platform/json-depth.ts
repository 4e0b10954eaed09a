/**
 * How deeply a JSON text nests, found without parsing it: one pass over the characters, counting the
 * brackets (`{` `[` up, `}` `]` down) that stand outside strings. The scan is iterative and stops at
 * the first bracket past the limit, so a hostile document (100,000 levels in 200 KB) costs one linear
 * pass and never reaches JSON.parse or anything recursive that walks its result.
 *
 * Depth counts arrays and objects: `1` and `"x"` are 0, `{}` and `[]` are 1, `{"a":[1]}` is 2.
 * The text need not be valid JSON: validity is JSON.parse's business, run only after this says yes.
 * graphqlDepth measures a GraphQL document the same way (its parser, graphql-js, recurses too).
 */
import { AppError } from './errors.js';

/** Default of MAX_JSON_DEPTH (config.maxJsonDepth). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACE = 0x7d; // }
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACKET = 0x5d; // ]

/**
 * Index of the last character of the string or comment that starts at `i` in `text`, or `i` itself when
 * none starts there. Brackets inside what it skips do not count; a bracket never starts one.
 */
type SkipToken = (text: string, i: number) => number;

/**
 * The scan both measures share: the deepest nesting of brackets outside what `skipToken` skips, or
 * `maxDepth + 1` as soon as the text goes past `maxDepth` (the rest is not scanned). Unbalanced closers
 * never make the depth negative.
 */
function bracketDepth(text: string, maxDepth: number, skipToken: SkipToken): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > maxDepth) return deepest;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0) depth--;
    } else {
      i = skipToken(text, i);
    }
  }
  return deepest;
}

/** A JSON string: it ends at its unescaped quote (unterminated, at the end of the text). */
function skipJsonString(text: string, i: number): number {
  if (text.charCodeAt(i) !== QUOTE) return i;
  for (i++; i < text.length; i++) {
    const s = text.charCodeAt(i);
    if (s === BACKSLASH) i++; // the escaped character cannot end the string
    else if (s === QUOTE) break;
  }
  return i;
}

/**
 * The deepest nesting of `text`, or `maxDepth + 1` as soon as the text goes past `maxDepth` (the rest
 * is not scanned). Unbalanced closers never make the depth negative.
 */
export function jsonDepth(text: string, maxDepth: number = Number.MAX_SAFE_INTEGER): number {
  return bracketDepth(text, maxDepth, skipJsonString);
}

const HASH = 0x23; // #
const LF = 0x0a;
const CR = 0x0d;

/** Index just past the `"""` that closes a GraphQL block string opened before `from` (`\"""` does not close it). */
function blockStringEnd(text: string, from: number): number {
  for (let i = text.indexOf('"""', from); i !== -1; i = text.indexOf('"""', i + 1)) {
    if (text.charCodeAt(i - 1) !== BACKSLASH) return i + 3;
  }
  return text.length;
}

/** A GraphQL `#` comment (to the end of its line), block string (`"""..."""`) or string. */
function skipGraphqlToken(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === HASH) {
    while (i + 1 < text.length && text.charCodeAt(i + 1) !== LF && text.charCodeAt(i + 1) !== CR) i++;
  } else if (c === QUOTE && text.startsWith('"""', i)) {
    i = blockStringEnd(text, i + 3) - 1;
  } else if (c === QUOTE) {
    // A GraphQL string ends at its quote, or (unterminated, a syntax error) at the end of its line.
    for (i++; i < text.length; i++) {
      const s = text.charCodeAt(i);
      if (s === QUOTE || s === LF || s === CR) break;
      if (s === BACKSLASH) i++;
    }
  }
  return i;
}

/**
 * The same measure for a GraphQL document (the `query` of a request): selection sets, list and object
 * values nest with the same brackets; strings, block strings (`"""..."""`) and `#` comments are skipped.
 * graphql-js parses recursively, so a document is measured before it is parsed.
 */
export function graphqlDepth(text: string, maxDepth: number = Number.MAX_SAFE_INTEGER): number {
  return bracketDepth(text, maxDepth, skipGraphqlToken);
}

/** How many times `char` occurs in `text`, counted up to `limit + 1` at most. */
function occurrences(text: string, char: string, limit: number): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1 && n <= limit; i = text.indexOf(char, i + 1)) n++;
  return n;
}

/**
 * true when `text` nests arrays and objects deeper than `maxDepth`. A text with no more than `maxDepth`
 * opening brackets in all (strings included) cannot nest deeper, which a few indexOf calls tell without
 * the character-by-character scan: most request bodies are answered that way.
 */
export function isTooDeep(text: string, maxDepth: number): boolean {
  const braces = occurrences(text, '{', maxDepth);
  if (braces <= maxDepth && braces + occurrences(text, '[', maxDepth - braces) <= maxDepth) return false;
  return jsonDepth(text, maxDepth) > maxDepth;
}

/** The 400 REQUEST_TOO_DEEP refusal; `field` names where the document was (`body`, `variables`, `query`, ...). */
export function tooDeep(maxDepth: number, field = 'body'): AppError {
  return new AppError('REQUEST_TOO_DEEP', `The request document nests deeper than ${maxDepth} levels`, [
    { field, message: `${field} nests brackets deeper than ${maxDepth} levels (MAX_JSON_DEPTH)` },
  ]);
}
