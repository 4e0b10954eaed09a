/**
 * The optimize request's rules that plain JSON Schema cannot state, in one place. Each is an `x-`
 * keyword: the derived schema (request/schema.ts) carries it, so the published document names the rule,
 * and the compiled validator (request/validator.ts) runs the implementation below. A client compiling
 * /openapi.json with these implementations refuses exactly what the server refuses.
 *
 *   x-whole-cents       a number with at most two decimals
 *   x-sum-max           the values of a map sum to at most the given number
 *   x-distinct-keys     no two keys of a map are the same after normalisation ("symbol": trimmed and
 *                       upper-cased; "stage": STAGE 1..STAGE 4 in any of the accepted spellings)
 *   x-iso4217           an ISO 4217 currency code
 *   x-iso8601           an ISO 8601 date-time, checked strictly (no 30 February)
 *   x-storable-text     no string or map key anywhere in the document holds a NUL character or an
 *                       unpaired surrogate (text no database column or JSON document can hold)
 *   x-risk-quiz         the risk quiz's answers: known questions, known answers (any case, trimmed), at
 *                       least one (the quiz itself and its scoring: engine/risk-profile.ts)
 *   x-known-preset      a suggested_preset.key the settings come from (no risk_settings, no quiz) names
 *                       a known preset
 *
 * The book requests (a new book from holdings, a trade, a rebalance) add:
 *
 *   x-max-decimals      a number with at most the given number of decimals (a cost basis: 4)
 *   x-calendar-date     a YYYY-MM-DD date that exists (no 30 February), from 1900-01-01 (the platform's rule)
 *
 * Stage keys themselves are a pattern (STAGE_KEY_PATTERN), stated as `propertyNames` in the schema.
 */
import { isISO4217CurrencyCode, isISO8601 } from 'class-validator';
import { AppError } from '../../platform/errors.js';
import { isCalendarDate, MIN_CALENDAR_YEAR } from '../../platform/validation.js';
import { PRESET_KEYS, resolveRiskProfile, RISK_QUIZ, scoreRiskQuiz } from '../engine/risk-profile.js';

/** Largest capital accepted (a sanity bound: beyond it cents stop being exact in a double). */
export const MAX_TOTAL_CAPITAL = 1e12;
/** Most positions a request may ask for (the covariance of the book is n x n). */
export const MAX_POSITIONS_LIMIT = 500;
/** Most entries of a free-form map (sector caps, prior book, stage weights). */
export const MAX_MAP_ENTRIES = 500;
/** Most holdings a new book may list. */
export const MAX_HOLDINGS = 500;
/** Most shares of one holding or one trade (whole shares; a bound that keeps every value exact). */
export const MAX_SHARES = 1e9;
/** Decimals of a cost basis (the average price paid per share). */
export const COST_BASIS_DECIMALS = 4;

/** `STAGE 1`..`STAGE 4`, also `1`..`4`, any case, `_`, `-` or space; group 1 is the stage number. */
export const STAGE_KEY_PATTERN = '^\\s*(?:[Ss][Tt][Aa][Gg][Ee][ _-]?)?([1-4])\\s*$';
const STAGE_KEY = new RegExp(STAGE_KEY_PATTERN);

/** A stage key as the engine reads it (`STAGE 2`), or null for a key that names no stage. */
export function stageKey(key: string): string | null {
  const m = STAGE_KEY.exec(key);
  return m ? `STAGE ${m[1]}` : null;
}

/** A prior book's symbol as the engine keys it. */
export const priorBookKey = (key: string): string => key.trim().toUpperCase();

const KEY_NORMALISERS = {
  symbol: { normalise: priorBookKey, what: 'symbol' },
  stage: { normalise: (key: string) => stageKey(key) ?? key, what: 'stage' },
} as const;
export type DistinctKeys = keyof typeof KEY_NORMALISERS;

/** A JSON object (not null, not an array). */
export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One `x-` keyword: the JSON type it applies to, what it means (for the schema's description), and
 * its check (why the value breaks it, or null).
 */
export interface RequestRule<S> {
  keyword: `x-${string}`;
  type: 'number' | 'string' | 'object';
  describe(schemaValue: S): string;
  problem(value: unknown, schemaValue: S): string | null;
  /** The violations by path below the value (default: one, `problem`, at the value itself). */
  details?(value: unknown, schemaValue: S): RuleDetail[];
}

/** A violation of a rule at a path below the value it applies to. */
export interface RuleDetail {
  steps: PathStep[];
  message: string;
}

/** An amount with at most two decimals, within the rounding of the multiplication itself. */
export const WHOLE_CENTS: RequestRule<true> = {
  keyword: 'x-whole-cents',
  type: 'number',
  describe: () => 'at most two decimals (whole cents)',
  problem: (value) => {
    if (typeof value !== 'number') return null;
    const cents = value * 100;
    const whole = Math.abs(cents - Math.round(cents)) <= Math.max(1e-6, Math.abs(cents) * Number.EPSILON * 4);
    return whole ? null : 'must have at most two decimals (whole cents)';
  },
};

export const SUM_MAX: RequestRule<number> = {
  keyword: 'x-sum-max',
  type: 'object',
  describe: (max) => `the values sum to at most ${max}`,
  problem: (value, max) => {
    if (!isPlainObject(value)) return null;
    const numbers = Object.values(value);
    if (!numbers.every((v) => typeof v === 'number')) return null; // the value schema reports those
    const sum = (numbers as number[]).reduce((s, v) => s + v, 0);
    return sum > max + 1e-9 ? `fractions sum to ${sum.toFixed(6)}; at most ${max}` : null;
  },
};

export const DISTINCT_KEYS: RequestRule<DistinctKeys> = {
  keyword: 'x-distinct-keys',
  type: 'object',
  describe: (kind) => (kind === 'symbol' ? 'each symbol at most once, keys compared trimmed and upper-cased' : 'each stage at most once, whatever its spelling'),
  problem: (value, kind) => {
    if (!isPlainObject(value)) return null;
    const { normalise, what } = KEY_NORMALISERS[kind];
    const seen = new Map<string, string>();
    const clashes: string[] = [];
    for (const key of Object.keys(value)) {
      const n = normalise(key);
      const first = seen.get(n);
      if (first !== undefined) clashes.push(`${JSON.stringify(first)} and ${JSON.stringify(key)}`);
      else seen.set(n, key);
    }
    if (!clashes.length) return null;
    return kind === 'stage' ? 'names a stage more than once' : `names the same ${what} twice (${clashes.join('; ')})`;
  },
};

export const ISO_4217: RequestRule<true> = {
  keyword: 'x-iso4217',
  type: 'string',
  describe: () => 'an ISO 4217 currency code',
  problem: (value) => (typeof value !== 'string' || isISO4217CurrencyCode(value) ? null : 'must be an ISO 4217 currency code'),
};

export const ISO_8601: RequestRule<'strict'> = {
  keyword: 'x-iso8601',
  type: 'string',
  describe: () => 'an ISO 8601 date-time (checked strictly: the date must exist)',
  problem: (value) => (typeof value !== 'string' || isISO8601(value, { strict: true }) ? null : 'must be an ISO 8601 date-time'),
};

/** A NUL character or half a surrogate pair: text no database column or JSON document can hold. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const UNSTORABLE_TEXT_MESSAGE = 'contains a NUL character or an unpaired surrogate';

/** One step of a path into a document: an object key or an array index. */
export type PathStep = string | number;

/** A path as a chain back to the root (sharing every prefix: a walk 100,000 levels deep stays linear). */
interface PathLink {
  parent: PathLink | null;
  step: PathStep;
}
function stepsOf(link: PathLink | null): PathStep[] {
  const steps: PathStep[] = [];
  for (let at = link; at !== null; at = at.parent) steps.push(at.step);
  return steps.reverse();
}

/**
 * The string values and object keys of the document that cannot be stored, by path, in document
 * order (a bad key just before what it holds), the first `limit` of them (all by default). The walk
 * keeps its own stack (no recursion), so however deep the document nests it cannot overflow.
 */
export function unstorableText(document: unknown, limit = Infinity): PathStep[][] {
  const out: PathStep[][] = [];
  type Frame = { value: unknown; path: PathLink | null; badKey: boolean };
  const stack: Frame[] = [{ value: document, path: null, badKey: false }];
  for (let frame = stack.pop(); frame !== undefined && out.length < limit; frame = stack.pop()) {
    const { value, path, badKey } = frame;
    if (badKey) out.push(stepsOf(path));
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) out.push(stepsOf(path));
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const children: Frame[] = Array.isArray(value)
      ? value.map((item, i) => ({ value: item, path: { parent: path, step: i }, badKey: false }))
      : Object.entries(value).map(([key, item]) => ({ value: item, path: { parent: path, step: key }, badKey: UNSTORABLE.test(key) }));
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

export const STORABLE_TEXT: RequestRule<true> = {
  keyword: 'x-storable-text',
  type: 'object',
  describe: () => 'no string or key anywhere in it holds a NUL character or an unpaired surrogate',
  problem: (value) => (unstorableText(value, 1).length > 0 ? UNSTORABLE_TEXT_MESSAGE : null),
  details: (value) => unstorableText(value).map((steps) => ({ steps, message: UNSTORABLE_TEXT_MESSAGE })),
};

/** The details of a check that throws VALIDATION_FAILED naming fields under `prefix` (its own wording kept). */
function detailsOfCheck(check: () => unknown, prefix: string): RuleDetail[] {
  try {
    check();
    return [];
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'VALIDATION_FAILED') throw err;
    const below = (field: string) => (field === prefix ? [] : (prefix ? field.slice(prefix.length + 1) : field).split('.'));
    return err.details.map((d) => ({ steps: below(d.field ?? prefix), message: d.message }));
  }
}

const quizDetails = (value: unknown): RuleDetail[] => (isPlainObject(value) ? detailsOfCheck(() => scoreRiskQuiz(value), 'risk_quiz_answers') : []);
export const RISK_QUIZ_ANSWERS: RequestRule<true> = {
  keyword: 'x-risk-quiz',
  type: 'object',
  describe: () =>
    `risk quiz answers, at least one: ${Object.entries(RISK_QUIZ)
      .map(([key, q]) => `${key} (${q.answers.join(', ')})`)
      .join('; ')}; answers in any case, surrounding spaces ignored`,
  problem: (value) => quizDetails(value)[0]?.message ?? null,
  details: quizDetails,
};

/** The suggested preset's violations when the settings would come from it (no risk_settings, no quiz). */
function presetDetails(body: unknown): RuleDetail[] {
  if (!isPlainObject(body) || body.risk_settings != null || body.risk_quiz_answers != null) return [];
  const preset = body.suggested_preset;
  if (!isPlainObject(preset) || typeof preset.key !== 'string') return [];
  return detailsOfCheck(() => resolveRiskProfile({ suggested_preset: { key: preset.key as string } }), '');
}
export const KNOWN_PRESET: RequestRule<true> = {
  keyword: 'x-known-preset',
  type: 'object',
  describe: () =>
    `without risk_settings and risk_quiz_answers the settings come from suggested_preset.key, which must then be a known preset (${PRESET_KEYS.join(', ')}; any case, surrounding spaces ignored)`,
  problem: (value) => presetDetails(value)[0]?.message ?? null,
  details: presetDetails,
};

/** A number with at most `decimals` decimals, within the rounding of the multiplication itself. */
export const MAX_DECIMALS: RequestRule<number> = {
  keyword: 'x-max-decimals',
  type: 'number',
  describe: (decimals) => `at most ${decimals} decimals`,
  problem: (value, decimals) => {
    if (typeof value !== 'number') return null;
    const scaled = value * 10 ** decimals;
    const whole = Math.abs(scaled - Math.round(scaled)) <= Math.max(1e-6, Math.abs(scaled) * Number.EPSILON * 4);
    return whole ? null : `must have at most ${decimals} decimals`;
  },
};

/** A `YYYY-MM-DD` date that exists, from 1900-01-01: the platform's date rule (platform/validation.ts). */
export { isCalendarDate };
export const CALENDAR_DATE: RequestRule<true> = {
  keyword: 'x-calendar-date',
  type: 'string',
  describe: () => `a calendar date YYYY-MM-DD from ${MIN_CALENDAR_YEAR}-01-01 (the day must exist)`,
  problem: (value) => (typeof value !== 'string' || isCalendarDate(value) ? null : `must be a calendar date YYYY-MM-DD from ${MIN_CALENDAR_YEAR}-01-01 that exists`),
};

/** Every `x-` keyword of the request schema. */
export const REQUEST_RULES: ReadonlyArray<RequestRule<never>> = [WHOLE_CENTS, SUM_MAX, DISTINCT_KEYS, ISO_4217, ISO_8601, STORABLE_TEXT, RISK_QUIZ_ANSWERS, KNOWN_PRESET] as ReadonlyArray<
  RequestRule<never>
>;

/** The `x-` keywords only the book requests use. */
export const BOOK_REQUEST_RULES: ReadonlyArray<RequestRule<never>> = [MAX_DECIMALS, CALENDAR_DATE] as ReadonlyArray<RequestRule<never>>;

/** Every `x-` keyword of every request schema (what a validator of the published document registers). */
export const ALL_REQUEST_RULES: ReadonlyArray<RequestRule<never>> = [...REQUEST_RULES, ...BOOK_REQUEST_RULES];
