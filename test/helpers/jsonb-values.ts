/**
 * Values for checking jsonb's text form (snapshot-codec.ts) byte for byte: the strings, numbers and key
 * orders where writing it could go wrong, and a plain writer of the same text to compare with.
 */
import fc from 'fast-check';

/** Characters that are escaped, that take more than one UTF-8 byte, or that are neither (ASCII edges). */
const CHARS = ['a', 'Z', ' ', '~', '/', '"', '\\', '\n', '\t', '\r', '\b', '\f', '\u0001', '\u001f', '\u007f', '\u0080', 'é', '中', '\u2028', '\ud83d\ude00'];

/** Strings jsonb holds (no \u0000, no lone surrogate), mostly short, often plain ASCII. */
export const jsonbString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'x', 'y', ' ', '-', '.', '1', 'Z'), maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
);

/** Keys from small alphabets, so that keys of equal length (sorted by their bytes) are common. */
export const jsonbKey = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', 'B', '_', '1', '9'), maxLength: 3 }),
  fc.string({ unit: fc.constantFrom('a', 'é', 'ｚ', '\ud83d\ude00', '"', '\n'), maxLength: 2 }),
  fc.constantFrom('toJSON', '10', '9', '', 'price', 'prices'),
);

/** Numbers: any double (NaN, the infinities, -0, subnormals), integers, and decimals of up to 20 places. */
export const jsonbNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.tuple(fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }), fc.integer({ min: 0, max: 20 })).map(([m, k]) => m / 10 ** k),
  fc.tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: 1, max: 17 })).map(([x, digits]) => Number(x.toPrecision(digits))),
  fc.constantFrom(-0, 5e-324, 1e-7, 1.5e-7, 9.999999e-7, 0.000001, 1e15, 1e15 - 1, 999999999999999.9, 99999.99995, 214748.3648, 2 ** 53, 1e21, 1.2345e25, 0.1 + 0.2),
);

/** JSON-like values at any depth, with what JSON.stringify leaves out or rewrites here and there. */
export const jsonbValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    jsonbNumber,
    jsonbString,
    fc.array(fc.oneof({ weight: 6, arbitrary: tie('value') }, { weight: 1, arbitrary: fc.constant(undefined) }), { maxLength: 6 }),
    fc.dictionary(jsonbKey, fc.oneof({ weight: 6, arbitrary: tie('value') }, { weight: 1, arbitrary: fc.constant(undefined) }), { maxKeys: 8 }),
    tie('value').map((v) => ({ toJSON: () => v })),
    jsonbNumber.map((n) => Object(n) as unknown),
    fc.date({ noInvalidDate: true }),
  ),
})).value;

/**
 * The text PostgreSQL prints for `<JSON.stringify(value, replacer)>::jsonb::text`, written the plain
 * way: JSON.stringify for everything JSON.stringify decides, then keys sorted by UTF-8 length and bytes,
 * numbers' exponents written out, and text jsonb refuses refused.
 */
export function referenceJsonbText(value: unknown, replacer?: (key: string, value: unknown) => unknown): string {
  const text = JSON.stringify(value, replacer as (this: unknown, key: string, value: unknown) => unknown);
  return text === undefined ? 'null' : print(JSON.parse(text) as unknown);
}

function print(v: unknown): string {
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return writtenOut(JSON.stringify(v));
  if (typeof v === 'string') return quoted(v);
  if (Array.isArray(v)) return `[${v.map(print).join(', ')}]`;
  const record = v as Record<string, unknown>;
  const keys = Object.keys(record).sort((a, b) => {
    const x = Buffer.from(a, 'utf8');
    const y = Buffer.from(b, 'utf8');
    return x.length - y.length || Buffer.compare(x, y);
  });
  return `{${keys.map((k) => `${quoted(k)}: ${print(record[k])}`).join(', ')}}`;
}

function quoted(s: string): string {
  if (s.includes('\u0000') || /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)) throw new Error('jsonb refuses this text');
  return JSON.stringify(s);
}

/** 1.5e-7 as 0.00000015, 1e+21 as 1000000000000000000000. */
function writtenOut(s: string): string {
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(s);
  if (!m) return s;
  const digits = m[2] + (m[3] ?? '');
  const point = 1 + Number(m[4]);
  const body = point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? digits + '0'.repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return m[1] + body;
}
