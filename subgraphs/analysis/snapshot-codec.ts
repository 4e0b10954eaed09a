/**
 * The stored form of an analysis document (`analysis_snapshots.doc_packed`): the document's JSON text as
 * PostgreSQL prints a jsonb value, deflated against a preset dictionary of typical documents.
 *
 * Readers get back exactly the text `doc::text` gave when documents were stored as jsonb (keys in jsonb
 * order, ", " and ": " separators, numbers as numeric prints them), so every answer that splices or
 * parses the text is unchanged. The document's keys, its fixed English phrases and its nested shapes
 * repeat in every snapshot: the dictionary holds them once, and a snapshot takes about 1.3 KB instead of
 * the 5.8 KB jsonb with PostgreSQL's own compression (pglz, which sees one value at a time) took.
 *
 * Layout: one format byte, then the deflate stream (raw, no header). Format 1: deflate level 6 with
 * SNAPSHOT_DICTIONARY_1. A format's dictionary never changes once stored data uses it: a better one is
 * a new format byte beside the old.
 */
import zlib from 'node:zlib';
import { SNAPSHOT_DICTIONARY_1 } from './snapshot-dictionary.js';

const FORMAT_DEFLATE_DICT_1 = 1;
const DICTIONARY_1 = Buffer.from(SNAPSHOT_DICTIONARY_1, 'utf8');
/** zlib level: 6 measured 1.3 KB at ~110 us per document, 1 gave 1.7 KB at ~75 us, 9 no smaller than 6. */
const LEVEL = 6;

/**
 * The stored bytes of a document given as a value (JSON.stringify semantics) or as JSON text. A value may
 * come with `number`, applied to each number as a JSON.stringify replacer rounding numbers would be: the
 * bytes are those of the text JSON.stringify(doc, replacer) gives, without writing and parsing that text.
 */
export function encodeSnapshotDoc(doc: unknown, number?: NumberRule): Buffer {
  const text = typeof doc === 'string' ? jsonbText(JSON.parse(doc) as unknown) : jsonbText(doc, number);
  const body = zlib.deflateRawSync(Buffer.from(text, 'utf8'), { level: LEVEL, dictionary: DICTIONARY_1 });
  const out = Buffer.allocUnsafe(body.length + 1);
  out[0] = FORMAT_DEFLATE_DICT_1;
  body.copy(out, 1);
  return out;
}

/** The document's JSON text (jsonb's text form) from its stored bytes. */
export function decodeSnapshotDoc(bytes: Uint8Array): string {
  if (bytes.length === 0 || bytes[0] !== FORMAT_DEFLATE_DICT_1) {
    throw new Error(`Unknown stored snapshot format ${bytes.length === 0 ? '(empty)' : bytes[0]}`);
  }
  return zlib.inflateRawSync(bytes.subarray(1), { dictionary: DICTIONARY_1 }).toString('utf8');
}

// ---------------------------------------------------------------------------------------------------------
// jsonb's text form, computed here instead of by a round trip through the database
// ---------------------------------------------------------------------------------------------------------

/**
 * The text PostgreSQL prints for `<JSON.stringify(value)>::jsonb::text`: object keys sorted by byte length
 * then bytes (a later duplicate key wins, as JSON.parse keeps it), ", " and ": " between items, strings
 * escaped as JSON.stringify escapes them (which is what jsonb prints), numbers as numeric prints the
 * digits JSON.stringify wrote (never in exponent form). Values JSON.stringify drops or writes as null
 * (undefined, functions, NaN, Infinity) are dropped or null here too, and toJSON() is honoured. Text jsonb
 * refuses (a \u0000 escape, a lone surrogate) is refused here with the same meaning.
 */
export function jsonbText(value: unknown, number?: NumberRule): string {
  return write(value, '', number) ?? 'null';
}

/** A replacer's rule for numbers: the number JSON.stringify(value, replacer) writes instead of `n`. */
export type NumberRule = (n: number) => number;

type Writable = { toJSON?: (key: string) => unknown };

/** The value's text, or undefined where JSON.stringify leaves it out (undefined, a function, a symbol). */
function write(input: unknown, key: string, number: NumberRule | undefined): string | undefined {
  let value = input;
  if (value !== null && typeof value === 'object' && typeof (value as Writable).toJSON === 'function') value = (value as Writable).toJSON?.(key);
  switch (typeof value) {
    case 'string':
      return stringText(value);
    case 'number':
      return numericText(number === undefined ? value : number(value));
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      break;
    default:
      return undefined; // undefined, function, symbol
  }
  if (value === null) return 'null';
  // A replacer sees a Number object as an object: JSON.stringify writes its value as it is.
  if (value instanceof Number || value instanceof String || value instanceof Boolean) return write(value.valueOf(), key, undefined);
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ', ' : '') + (write(value[i], String(i), number) ?? 'null');
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const order = keyOrder(Object.keys(record));
  let text = '{';
  let first = true;
  for (let i = 0; i < order.keys.length; i++) {
    const k = order.keys[i];
    const item = write(record[k], k, number);
    if (item === undefined) continue; // left out, as JSON.stringify leaves it out
    text += (first ? '' : ', ') + order.prefixes[i] + item;
    first = false;
  }
  return `${text}}`;
}

/** An object shape's keys in jsonb order, each with its printed prefix (`"key": `). */
interface KeyOrder {
  keys: string[];
  prefixes: string[];
}

/**
 * Documents repeat a few dozen object shapes: each shape's key order is worked out once and found again
 * by walking its keys, in the object's own order, down a tree of maps (no string is built per object).
 */
interface ShapeNode {
  next: Map<string, ShapeNode>;
  order?: KeyOrder;
}
let shapes: ShapeNode = { next: new Map() };
let shapeCount = 0;
const SHAPES_KEPT = 4096;

function keyOrder(keys: string[]): KeyOrder {
  let node = shapes;
  for (const key of keys) {
    let child = node.next.get(key);
    if (!child) {
      child = { next: new Map() };
      node.next.set(key, child);
    }
    node = child;
  }
  if (!node.order) {
    const sorted = [...keys].sort(compareKeys);
    const order = { keys: sorted, prefixes: sorted.map((k) => `${stringText(k)}: `) };
    if (++shapeCount > SHAPES_KEPT) {
      // Arbitrary JSON with ever new keys: start over rather than grow without bound.
      shapes = { next: new Map() };
      shapeCount = 0;
      return order;
    }
    node.order = order;
  }
  return node.order;
}

const ASCII = /^[\x00-\x7f]*$/;

/** jsonb's key order: shorter (in UTF-8 bytes) first, then byte order. */
function compareKeys(a: string, b: string): number {
  if (ASCII.test(a) && ASCII.test(b)) {
    if (a.length !== b.length) return a.length - b.length;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ba.length !== bb.length ? ba.length - bb.length : Buffer.compare(ba, bb);
}

/**
 * JSON.stringify's escaping is jsonb's (\", \\, \b \f \n \r \t, other controls as \u00xx). It writes
 * \u0000 and lone surrogates as \u escapes too, which jsonb refuses: those are looked for only when a \u
 * escape appears.
 */
function stringText(s: string): string {
  const text = JSON.stringify(s);
  if (text.includes('\\u')) refuseString(s);
  return text;
}

/** jsonb cannot hold \u0000 nor a surrogate that is not half of a pair: the database refused them. */
function refuseString(s: string): void {
  if (s.includes('\u0000')) throw new Error('unsupported Unicode escape sequence: \\u0000 cannot be converted to text');
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      throw new Error('invalid input syntax for type json: Unicode high surrogate must not follow a high surrogate or end the text');
    }
    if (c >= 0xdc00 && c <= 0xdfff) throw new Error('invalid input syntax for type json: Unicode low surrogate must follow a high surrogate');
  }
}

/**
 * The text numeric prints for the digits JSON.stringify writes: the same digits, written out in full
 * where JavaScript uses an exponent (1e-7 is 0.0000001, 1.5e+21 is 1500000000000000000000). NaN and the
 * infinities are null, as JSON.stringify writes them.
 */
export function numericText(n: number): string {
  if (!Number.isFinite(n)) return 'null';
  const s = String(n); // -0 prints as "0", as in JSON.stringify
  const e = s.indexOf('e');
  if (e < 0) return s;
  const negative = s[0] === '-';
  const mantissa = s.slice(negative ? 1 : 0, e);
  const exponent = Number(s.slice(e + 1));
  const point = mantissa.indexOf('.');
  const digits = point < 0 ? mantissa : mantissa.slice(0, point) + mantissa.slice(point + 1);
  const intLength = (point < 0 ? mantissa.length : point) + exponent;
  let text: string;
  if (intLength <= 0) text = `0.${'0'.repeat(-intLength)}${digits}`;
  else if (intLength >= digits.length) text = digits + '0'.repeat(intLength - digits.length);
  else text = `${digits.slice(0, intLength)}.${digits.slice(intLength)}`;
  return negative ? `-${text}` : text;
}

// ---------------------------------------------------------------------------------------------------------
// Members of an object's JSON text, without parsing the rest
// ---------------------------------------------------------------------------------------------------------

/**
 * The raw text of each wanted member of a JSON object's text (valid JSON, e.g. jsonb's text form), by key;
 * other members are skipped over without being parsed. A member of jsonb text is itself in jsonb's text
 * form. A key given twice keeps its last value, as JSON.parse and jsonb keep it.
 */
export function jsonMembers(text: string, wanted: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  let i = skipSpace(text, text.indexOf('{') + 1);
  while (i < text.length && text.charCodeAt(i) !== CLOSE_BRACE) {
    const keyEnd = stringEnd(text, i);
    const rawKey = text.slice(i, keyEnd);
    const key = rawKey.includes('\\') ? (JSON.parse(rawKey) as string) : rawKey.slice(1, -1);
    i = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    const end = valueEnd(text, i);
    if (wanted.has(key)) out.set(key, text.slice(i, end));
    i = skipSpace(text, end);
    if (text.charCodeAt(i) === COMMA) i = skipSpace(text, i + 1);
  }
  return out;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

function skipSpace(text: string, from: number): number {
  let i = from;
  for (let c = text.charCodeAt(i); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(++i));
  return i;
}

/** The index just past the string that opens at `from` (a quote). */
function stringEnd(text: string, from: number): number {
  let at = from + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) throw new SyntaxError('Unterminated string in JSON');
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

/** The index just past the value that starts at `from`. */
function valueEnd(text: string, from: number): number {
  const first = text.charCodeAt(from);
  if (first === QUOTE) return stringEnd(text, from);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = stringEnd(text, i) - 1;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return i + 1;
    }
    throw new SyntaxError('Unterminated object or array in JSON');
  }
  let i = from;
  for (let c = text.charCodeAt(i); i < text.length && c !== COMMA && c !== CLOSE_BRACE && c !== CLOSE_BRACKET && c !== 32 && c !== 10 && c !== 13 && c !== 9; c = text.charCodeAt(++i));
  return i;
}

/** Keys in jsonb's order (shorter first, then by bytes). */
export function jsonbKeyOrder(keys: readonly string[]): string[] {
  return [...keys].sort(compareKeys);
}

