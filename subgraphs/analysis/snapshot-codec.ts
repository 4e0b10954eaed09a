/**
 * The stored form of an analysis document (`analysis_snapshots.doc_packed`): the document's JSON text as
 * PostgreSQL prints a jsonb value, deflated against a preset dictionary of typical documents.
 *
 * Readers get back exactly the text `doc::text` gave when documents were stored as jsonb (keys in jsonb
 * order, ", " and ": " separators, numbers as numeric prints them), so every answer that splices or
 * parses the text is unchanged. The document's keys, its fixed English phrases and its nested shapes
 * repeat in every snapshot: the dictionary holds them once, and a demo snapshot's 13 KB of text take about
 * 2 KB (as jsonb with PostgreSQL's own compression, pglz, which sees one value at a time, about 6 KB).
 *
 * Layout: one format byte, then the deflate stream (raw, no header). Format 1: deflate (any level) with
 * SNAPSHOT_DICTIONARY_1. A format's dictionary never changes once stored data uses it: a better one is
 * a new format byte beside the old.
 */
import zlib from 'node:zlib';
import { SNAPSHOT_DICTIONARY_1 } from './snapshot-dictionary.js';

const FORMAT_DEFLATE_DICT_1 = 1;
const DICTIONARY_1 = Buffer.from(SNAPSHOT_DICTIONARY_1, 'utf8');
/**
 * zlib level, measured on 3,000 demo documents (13.3 KB of text each): 3 gives 1,984 B at 163 us per
 * document, 6 gives 1,794 B (-10%) at 247 us, 1 gives 2,380 B at 139 us, 9 is no smaller than 6 to speak
 * of. About 90 us of each call is fixed (the stream and its dictionary), whatever the level. Any level
 * reads back the same way: it is not part of the format.
 */
const LEVEL = 3;

/**
 * The stored bytes of a document given as a value (JSON.stringify semantics) or as JSON text. A value may
 * come with `number`, applied to each number as a JSON.stringify replacer rounding numbers would be: the
 * bytes are those of the text JSON.stringify(doc, replacer) gives, without writing and parsing that text.
 */
export function encodeSnapshotDoc(doc: unknown, number?: NumberRule): Buffer {
  const value = typeof doc === 'string' ? (JSON.parse(doc) as unknown) : doc;
  const body = withText(value, typeof doc === 'string' ? undefined : number, (bytes) =>
    zlib.deflateRawSync(bytes, { level: LEVEL, dictionary: DICTIONARY_1 }),
  );
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
  return withText(value, number, (bytes) => bytes.toString(wide ? 'utf8' : 'latin1'));
}

/** A replacer's rule for numbers: the number JSON.stringify(value, replacer) writes instead of `n`. */
export type NumberRule = (n: number) => number;

type Writable = { toJSON?: (key: string) => unknown };

/**
 * The text is written as UTF-8 straight into one buffer, kept from one document to the next, and handed
 * to `use` (which must not keep it): no string is built per value, nor one for the whole text. A toJSON()
 * may itself call jsonbText: it writes after the text written so far, and leaves it as it was.
 */
let buf: Buffer = Buffer.allocUnsafe(64 * 1024);
let view: DataView = new DataView(buf.buffer, buf.byteOffset, buf.length);
let pos = 0;
/** Whether the text has a byte above 0x7f (else it is ASCII, and latin1 decodes it). */
let wide = false;
let rule: NumberRule | undefined;
/**
 * Whether no toJSON() is inherited by plain objects and arrays (none ever is, short of one put on
 * Object.prototype or Array.prototype): then only a plain object whose own keys hold "toJSON" needs the look.
 */
let plain = true;
const BUFFER_KEPT = 1024 * 1024;

function withText<T>(value: unknown, number: NumberRule | undefined, use: (bytes: Buffer) => T): T {
  const start = pos;
  const outerRule = rule;
  const outerWide = wide;
  const outerPlain = plain;
  rule = number;
  wide = false;
  plain = !('toJSON' in Array.prototype);
  try {
    if (!put(value, '')) putAscii('null');
    return use(buf.subarray(start, pos));
  } finally {
    pos = start;
    rule = outerRule;
    wide = outerWide;
    plain = outerPlain;
    if (start === 0 && buf.length > BUFFER_KEPT) setBuffer(Buffer.allocUnsafe(64 * 1024)); // after a very large text
  }
}

/** Room for `n` more bytes at `pos`. */
function room(n: number): void {
  if (pos + n <= buf.length) return;
  const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, pos + n));
  buf.copy(bigger, 0, 0, pos);
  setBuffer(bigger);
}

function setBuffer(b: Buffer): void {
  buf = b;
  view = new DataView(b.buffer, b.byteOffset, b.length);
}

/** Appends text known to be ASCII. */
function putAscii(s: string): void {
  room(s.length);
  const b = buf;
  let p = pos;
  for (let i = 0; i < s.length; i++) b[p++] = s.charCodeAt(i);
  pos = p;
}

/** Appends bytes. */
function putBytes(bytes: Uint8Array): void {
  room(bytes.length);
  const b = buf;
  let p = pos;
  for (let i = 0; i < bytes.length; i++) b[p++] = bytes[i];
  pos = p;
}

/**
 * Bytes kept as 32-bit words (little-endian, the last one padded), copied four at a time: a key's prefix
 * is written for every member of every object, more than half of a document's bytes.
 */
interface Words {
  words: Int32Array;
  length: number;
}

function words(text: string): Words {
  const bytes = Buffer.from(text, 'utf8');
  const padded = Buffer.alloc(Math.ceil(bytes.length / 4) * 4);
  bytes.copy(padded);
  const out = new Int32Array(padded.length / 4);
  for (let j = 0; j < out.length; j++) out[j] = padded.readInt32LE(j * 4);
  return { words: out, length: bytes.length };
}

/** Appends the bytes (and writes up to three bytes of padding past them, inside the buffer, which later writes overwrite). */
function putWords({ words, length }: Words): void {
  room(length + 3);
  const v = view;
  const p = pos;
  for (let j = 0; j < words.length; j++) v.setInt32(p + 4 * j, words[j], true);
  pos = p + length;
}

const QUOTE_BYTE = 34;
const COMMA_BYTE = 44;
const SPACE_BYTE = 32;
const NULL_BYTES = Buffer.from('null');
const TRUE_BYTES = Buffer.from('true');
const FALSE_BYTES = Buffer.from('false');

/**
 * Appends the value's text, or nothing and false where JSON.stringify leaves the value out (undefined, a
 * function, a symbol). `key` is the key toJSON() is given (an array's index as a number).
 */
function put(value: unknown, key: string | number): boolean {
  switch (typeof value) {
    case 'string':
      putString(value);
      return true;
    case 'number':
      putNumber(rule === undefined ? value : rule(value));
      return true;
    case 'boolean':
      putBytes(value ? TRUE_BYTES : FALSE_BYTES);
      return true;
    case 'object':
      if (value === null) {
        putBytes(NULL_BYTES);
        return true;
      }
      return putObject(value, key);
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      return false; // undefined, function, symbol
  }
}

function putObject(input: object, key: string | number): boolean {
  if (plain && Object.getPrototypeOf(input) === Object.prototype) {
    // A plain object: it has a toJSON() only if one of its keys is "toJSON".
    const order = keyOrder(Object.keys(input));
    if (!order.toJSON) {
      putMembers(input as Record<string, unknown>, order);
      return true;
    }
  }
  let value: unknown = input;
  if (typeof (input as Writable).toJSON === 'function') {
    value = (input as Writable).toJSON?.(String(key));
    plain = !('toJSON' in Array.prototype);
    if (value === null || typeof value !== 'object') return put(value, key);
  }
  const object = value as object;
  const proto: unknown = Object.getPrototypeOf(object);
  // A replacer sees a Number object as an object: JSON.stringify writes its value as it is. (A plain
  // object or array is none of these: the look is spared them.)
  if (proto !== Object.prototype && proto !== Array.prototype && (object instanceof Number || object instanceof String || object instanceof Boolean)) {
    const outerRule = rule;
    rule = undefined;
    try {
      return put(object.valueOf(), key);
    } finally {
      rule = outerRule;
    }
  }
  if (Array.isArray(object)) {
    room(1);
    buf[pos++] = 0x5b; // [
    for (let i = 0; i < object.length; i++) {
      if (i > 0) {
        room(2);
        buf[pos++] = COMMA_BYTE;
        buf[pos++] = SPACE_BYTE;
      }
      if (!put(object[i], i)) putBytes(NULL_BYTES);
    }
    room(1);
    buf[pos++] = 0x5d; // ]
    return true;
  }
  putMembers(object as Record<string, unknown>, keyOrder(Object.keys(object)));
  return true;
}

function putMembers(record: Record<string, unknown>, order: KeyOrder): void {
  const { keys, prefixes, followers } = order;
  if (order.wide) wide = true;
  room(1);
  buf[pos++] = 0x7b; // {
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const item = record[k];
    const type = typeof item;
    if (type === 'undefined' || type === 'function' || type === 'symbol') continue; // left out, as JSON.stringify leaves it out
    const mark = pos;
    putWords(first ? prefixes[i] : followers[i]);
    if (!put(item, k)) {
      pos = mark; // a toJSON() gave a value JSON.stringify leaves out
      continue;
    }
    first = false;
  }
  room(1);
  buf[pos++] = 0x7d; // }
}

/**
 * An object shape's keys in jsonb order, each with its printed prefix as UTF-8 (`"key": `, and `, "key": `
 * after a member), and whether a key has a byte above 0x7f.
 */
interface KeyOrder {
  keys: string[];
  prefixes: Words[];
  followers: Words[];
  wide: boolean;
  /** Whether a key is "toJSON". */
  toJSON: boolean;
}

/**
 * Documents repeat a few dozen object shapes: each shape's key order is worked out once and found again
 * by walking its keys, in the object's own order, down a tree of maps (no string is built per object).
 * A node remembers the key it was last left by, nearly always the one it is left by next, and compares
 * it (by identity, for property keys are interned) before it asks its map.
 */
interface ShapeNode {
  lastKey: string | undefined;
  lastChild: ShapeNode | undefined;
  next: Map<string, ShapeNode>;
  order: KeyOrder | undefined;
}
const shapeNode = (): ShapeNode => ({ lastKey: undefined, lastChild: undefined, next: new Map(), order: undefined });
let shapes: ShapeNode = shapeNode();
let shapeCount = 0;
const SHAPES_KEPT = 4096;

function keyOrder(keys: string[]): KeyOrder {
  let node = shapes;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (node.lastKey === key) {
      node = node.lastChild as ShapeNode;
      continue;
    }
    let child = node.next.get(key);
    if (!child) {
      child = shapeNode();
      node.next.set(key, child);
    }
    node.lastKey = key;
    node.lastChild = child;
    node = child;
  }
  if (!node.order) {
    const sorted = [...keys].sort(compareKeys);
    const prefixes = sorted.map((k) => `${stringText(k)}: `);
    const order: KeyOrder = {
      keys: sorted,
      prefixes: prefixes.map((p) => words(p)),
      followers: prefixes.map((p) => words(`, ${p}`)),
      wide: !sorted.every((k) => ASCII.test(k)),
      toJSON: sorted.includes('toJSON'),
    };
    if (++shapeCount > SHAPES_KEPT) {
      // Arbitrary JSON with ever new keys: start over rather than grow without bound.
      shapes = shapeNode();
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
 * Appends the string's text. A string of printable ASCII without a quote or a backslash (nearly all of
 * them) is copied as it is, which is what JSON.stringify writes for it; any other is written by
 * stringText.
 */
function putString(s: string): void {
  const n = s.length;
  room(n + 2);
  const b = buf;
  let p = pos;
  b[p++] = QUOTE_BYTE;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === QUOTE_BYTE || c === 0x5c) {
      putWide(stringText(s));
      return;
    }
    b[p++] = c;
  }
  b[p++] = QUOTE_BYTE;
  pos = p;
}

/** Appends any text as UTF-8. */
function putWide(text: string): void {
  room(text.length * 3);
  const n = buf.write(text, pos, 'utf8');
  if (n !== text.length) wide = true;
  pos += n;
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

/** 10 ** k for k = 0..22 (each exact as a double). */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);
/** The most digits a decimal may have to be the only one of at most as many digits to give its double. */
const EXACT = 1e15;
const DECIMALS_TRIED = 17;

/**
 * Appends the number's text: numericText(n), the shortest decimal that reads back as n, written out in
 * full. Integers below 1e15, and numbers that are m / 10^k for an integer m below 1e15 (which rounding
 * to k decimals gives), have their digits written here without a string:
 * - m / 10^k === n says the double nearest the decimal d = m·10^-k is n (both m and 10^k are exact, and
 *   division rounds to nearest), so d reads back as n;
 * - two different decimals of at most 15 significant digits never give the same double (15 digits always
 *   survive a trip through a double), so no other decimal of as few digits as d reads back as n, and the
 *   first (smallest) k that works is no longer than any other: d is JavaScript's shortest digits.
 * Any other number (NaN, the infinities, a double that is not such a decimal) is written by numericText.
 */
function putNumber(n: number): void {
  const negative = n < 0;
  const a = negative ? -n : n;
  if (a < EXACT) {
    if (Number.isInteger(a)) return putDecimal(negative, a, 0); // -0 prints as "0"
    // Most numbers are rounded to four decimals: k = 4 is tried first (it works whenever a smaller k
    // does, giving its digits with trailing zeros), then the trailing zeros are dropped.
    if (a < 1e5) {
      const m = Math.round(a * 1e4);
      if (m / 1e4 === a) {
        let digits = m | 0;
        let k = 4;
        for (let q = (digits / 10) | 0; q * 10 === digits; q = (digits / 10) | 0) {
          digits = q;
          k--;
        }
        return putDecimal(negative, digits, k);
      }
    }
    for (let k = a < 1e5 ? 5 : 1; k <= DECIMALS_TRIED; k++) {
      const p = POW10[k];
      const m = Math.round(a * p);
      if (m / p === a) {
        if (m < EXACT && m % 10 !== 0) return putDecimal(negative, m, k);
        break;
      }
    }
  }
  putAscii(numericText(n));
}

/** Appends ±m·10^-k (m an integer below 1e15, not a multiple of 10 when k > 0) in plain decimal. */
function putDecimal(negative: boolean, m: number, k: number): void {
  let digits = 1;
  while (digits < 16 && m >= POW10[digits]) digits++;
  const width = digits > k ? digits : k + 1; // 0.00123: leading zeros up to the units
  const length = (negative ? 1 : 0) + width + (k > 0 ? 1 : 0);
  room(length);
  const b = buf;
  let p = pos + length;
  // In two halves of eight digits, each small enough for integer arithmetic (% on a double is slow).
  const high = m < 1e8 ? 0 : Math.floor(m / 1e8);
  let rest = (m - high * 1e8) | 0;
  for (let i = 0; i < width; i++) {
    if (i === 8) rest = high | 0;
    if (i === k && k > 0) b[--p] = 0x2e; // .
    const q = (rest / 10) | 0;
    b[--p] = 0x30 + rest - q * 10;
    rest = q;
  }
  if (negative) b[--p] = 0x2d; // -
  pos += length;
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

