/**
 * Allocation use cases: optimize a portfolio (partners: persisted, idempotent; anonymous callers: the
 * fixed demo body only, two rows, nothing stored) and read a partner's own portfolios. REST handlers
 * and GraphQL resolvers call these methods and nothing else; every rule lives here or in the engine.
 *
 * Optimize, step by step:
 *   1. validate the request (dto.ts; every violation listed) and, for anonymous callers, check it is
 *      the demo body (DEMO_BODY_MISMATCH lists each difference);
 *   2. settings: risk_settings over the defaults, or the risk quiz's / suggested preset's settings and
 *      constraint pack (engine/risk-profile.ts), then the chosen strategy's own defaults;
 *   3. a partner's Idempotency-Key already used: the first result is returned as stored (a different
 *      request under the same key is 400 IDEMPOTENCY_KEY_REUSED);
 *   4. the universe: every symbol's snapshot on the newest analysis date as a candidate (cached until
 *      that set of snapshots changes), daily closes of the names the book may hold;
 *   5. the engine (engine/optimizer.ts) builds the whole-share book and its diagnostics;
 *   6. the response, with the server's policy_explanation, is stored with the request, the effective
 *      settings and the trace id in one transaction, together with the book it describes: the positions
 *      as holdings and the remaining capital as cash, at version 1 (a book to trade and rebalance like
 *      any other; portfolios.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { unavailable, type Db } from '../platform/db.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { isPartner, type Principal, requirePartner } from '../platform/principal.js';
import { page, type Page, pageSize, UUID_RE } from '../platform/validation.js';
import { bodyOfInput, DEFAULT_CURRENCY, namedPath, toPortfolioRequest, validateRequestBody, type PortfolioRequest, type PortfolioRequestInput, type RequestBody } from './dto.js';
import type { FieldNaming } from '../platform/param-table.js';
import { fromCents, toCents } from './engine/money.js';
import { effectiveRiskSettings, optimize, symbolsNeedingCloses } from './engine/optimizer.js';
import { DEFAULT_RISK_SETTINGS, MIN_TOTAL_CAPITAL, STRATEGY_INFO, type RiskSettings, type StrategyInfo } from './engine/risk-settings.js';
import { buildPolicyExplanation, resolveRiskProfile, type PolicyExplanation } from './engine/risk-profile.js';
import { DEFAULT_HALF_KELLY, DEFAULT_REWARD_MULTIPLIER, DEFAULT_SOFTMAX_TEMPERATURE, DEFAULT_STAGE_WEIGHTS } from './engine/strategies.js';
import { CONSTRAINT_PACK_SCHEMA_VERSION, type ConstraintPack, type OptimizeInput, type OptimizeResult, type OptimizerDiagnostics, type PortfolioAllocation } from './engine/types.js';
import * as store from './store.js';
import { UniverseCache, type Universe } from './universe.js';

/**
 * The one body an anonymous caller may send (spec "Allocation service" rule 1; DESIGN section 5): served
 * at GET /api/v1/demo/optimize-body and printed in the README.
 */
/** AllocationService.limits(): the defaults of a request and the demo request (domain names). */
export interface AllocationLimitsInfo {
  min_total_capital: number;
  default_risk_settings: Readonly<RiskSettings>;
  strategy_parameter_defaults: {
    softmax_temperature: number;
    reward_multiplier: number;
    stage_weights: typeof DEFAULT_STAGE_WEIGHTS;
    half_kelly: boolean;
  };
  default_currency: string;
  constraint_pack_schema_version: string;
  demo_body: { name: string; total_capital: number; risk_settings: RiskSettings };
}

export const DEMO_OPTIMIZE_BODY = Object.freeze({
  name: 'Demo portfolio',
  total_capital: 100000,
  risk_settings: Object.freeze({
    max_risk_per_trade: 0.01,
    max_portfolio_risk: 0.05,
    max_position_size: 0.2,
    max_positions: 10,
    allocation_strategy: 'KELLY_CRITERION' as const,
  }),
});

/**
 * The demo body as published (GET /api/v1/demo/optimize-body sends this text), as bytes: a request
 * whose body is exactly these bytes is the demo body without parsing it (the REST fast lane).
 */
export const DEMO_OPTIMIZE_BODY_BYTES: Buffer = Buffer.from(JSON.stringify(DEMO_OPTIMIZE_BODY), 'utf8');

const ALLOCATION_LIMITS: AllocationLimitsInfo = Object.freeze({
  min_total_capital: MIN_TOTAL_CAPITAL,
  default_risk_settings: DEFAULT_RISK_SETTINGS,
  strategy_parameter_defaults: {
    softmax_temperature: DEFAULT_SOFTMAX_TEMPERATURE,
    reward_multiplier: DEFAULT_REWARD_MULTIPLIER,
    stage_weights: DEFAULT_STAGE_WEIGHTS,
    half_kelly: DEFAULT_HALF_KELLY,
  },
  default_currency: DEFAULT_CURRENCY,
  constraint_pack_schema_version: CONSTRAINT_PACK_SCHEMA_VERSION,
  demo_body: {
    name: DEMO_OPTIMIZE_BODY.name,
    total_capital: DEMO_OPTIMIZE_BODY.total_capital,
    risk_settings: { softmax_temperature: null, reward_multiplier: null, stage_weights: null, half_kelly: null, ...DEMO_OPTIMIZE_BODY.risk_settings },
  },
});

/** spec "Limits": allocation rows in demo mode. */
export const DEMO_MAX_ROWS = 2;
export const PORTFOLIOS_PAGE = { default: 20, max: 100 } as const;

/** spec "PortfolioResponse", plus the server-built policy_explanation and the analysis date it used. */
export interface PortfolioResponse {
  portfolio_id: string;
  name: string;
  description: string | null;
  total_capital: number;
  allocated_capital: number;
  remaining_capital: number;
  position_count: number;
  allocations: PortfolioAllocation[];
  created_at: string;
  currency: string;
  risk_settings: RiskSettings;
  trace_id: string;
  optimizer_diagnostics: OptimizerDiagnostics | null;
  policy_explanation: PolicyExplanation;
  constraint_pack: ConstraintPack | null;
  investor_profile: PortfolioRequest['investor_profile'];
  /** Date of the analysis snapshots the book was built from (null when none are stored). */
  analysis_date: string | null;
}

export interface OptimizeOptions {
  traceId: string;
  /** Idempotency-Key header (partners only; ignored for the demo, which stores nothing). */
  idempotencyKey?: string | null;
  /** How violation details name fields: the spec's snake_case (REST) or camelCase (GraphQL). */
  naming: FieldNaming;
}

export interface OptimizeOutcome {
  response: PortfolioResponse;
  /** The response as JSON text (for a replay: exactly the stored text). */
  responseText: string;
  /** True when an Idempotency-Key matched an earlier request and its stored result was returned. */
  replayed: boolean;
  persisted: boolean;
}

export interface AllocationServiceOptions {
  now?: () => Date;
  /** How long the candidate universe is used before the store is asked whether it changed (default 1 s; 0: every optimize). */
  universeTtlMs?: number;
  /** The candidate universe to use, shared with other services of the process (default: one of its own). */
  universes?: UniverseCache;
}

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

export class AllocationService {
  private readonly now: () => Date;
  private readonly universes: UniverseCache;
  /** The demo answer per universe (it depends on nothing else). */
  private readonly demoAnswers = new WeakMap<Universe, DemoAnswer>();
  private lastIso = { ms: Number.NaN, text: '' };

  constructor(
    private readonly db: Db,
    options: AllocationServiceOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.universes = options.universes ?? new UniverseCache(db, options.universeTtlMs ?? 1000);
  }

  /** `now()` as ISO 8601; the text is formatted once per millisecond (many demo answers share one). */
  private isoNow(): string {
    const ms = this.now().getTime();
    if (ms !== this.lastIso.ms) this.lastIso = { ms, text: new Date(ms).toISOString() };
    return this.lastIso.text;
  }

  strategies(): readonly StrategyInfo[] {
    return STRATEGY_INFO;
  }

  defaultRiskSettings(): Readonly<RiskSettings> {
    return DEFAULT_RISK_SETTINGS;
  }

  minTotalCapital(): number {
    return MIN_TOTAL_CAPITAL;
  }

  demoBody(): typeof DEMO_OPTIMIZE_BODY {
    return DEMO_OPTIMIZE_BODY;
  }

  /**
   * What a client needs to fill a request form: the smallest capital, every default the server applies
   * to an empty field (risk limits, the strategies' parameters, currency, the constraint pack's
   * version) and the one request accepted without a token, its unset risk settings null.
   */
  limits(): AllocationLimitsInfo {
    return ALLOCATION_LIMITS;
  }

  // -------------------------------------------------------------------------------------------------------
  // Optimize
  // -------------------------------------------------------------------------------------------------------

  /** Optimize a request given as the request classes' instance (GraphQL input; null: not an object). */
  async optimize(principal: Principal, input: PortfolioRequestInput | null, options: OptimizeOptions): Promise<OptimizeOutcome> {
    return this.optimizeBody(principal, input === null ? null : bodyOfInput(input), options);
  }

  /** Optimize a request given as its REST body (snake_case JSON, anything a client sent). */
  async optimizeBody(principal: Principal, body: unknown, options: OptimizeOptions): Promise<OptimizeOutcome> {
    const demo = !isPartner(principal);
    // The demo body exactly as published is valid and matches itself: nothing to validate or compare.
    if (demo && isExactJson(body, DEMO_OPTIMIZE_BODY)) return this.demoAnswerFor(body as RequestBody, options);
    const key = demo ? null : idempotencyKey(options.idempotencyKey);
    const valid = validateRequestBody(body, options.naming, key?.problem ? [key.problem] : []);
    if (demo) return this.demo(valid, options);

    const request = toPortfolioRequest(valid);
    const requestHash = hashRequest(request);
    const idemKey = key?.value ?? null;
    if (idemKey !== null) {
      const first = await store.findByIdempotencyKey(this.db, partnerIdOf(principal), idemKey);
      if (first) return replay(first, requestHash);
    }
    const universe = await this.universes.get();
    const { profile, settings, result } = await this.book(request, universe);
    const id = randomUUID();
    const response = responseOf({ id, request, profile, settings, universe, createdAt: this.now().toISOString(), traceId: options.traceId }, fullBook(result));
    const allocations = response.allocations;
    const responseText = JSON.stringify(response);

    const partnerId = partnerIdOf(principal);
    const written = await this.db.transaction((tx) =>
      store.insertPortfolio(
        tx,
        {
          id,
          partnerId,
          name: request.name,
          currency: request.currency,
          totalCapital: request.total_capital,
          allocatedCapital: response.allocated_capital,
          remainingCapital: response.remaining_capital,
          positionCount: response.position_count,
          analysisDate: universe.analysisDate,
          createdAt: response.created_at,
          traceId: options.traceId,
          idempotencyKey: idemKey,
          requestHash,
          request,
          effectiveSettings: { risk_settings: settings, constraint_pack: profile.constraint_pack, preset_key: profile.preset_key, source: profile.source },
          responseText,
        },
        // The book's holdings: bought at the entry price on the analysis date, with the optimizer's stop and target.
        allocations.map((a, i) => ({
          symbol: a.symbol,
          position: i + 1,
          shares: a.shares,
          costTotal: fromCents(a.shares * toCents(a.entry_price)),
          entryDate: universe.analysisDate ?? response.created_at.slice(0, 10),
          stopLoss: a.stop_loss > 0 ? a.stop_loss : null,
          targetPrice: a.target_price !== null && a.target_price > 0 ? a.target_price : null,
          sector: universe.bySymbol.get(a.symbol)?.sector ?? null,
          supportAtEntry: supportBelow(a.support_levels, a.entry_price),
        })),
      ),
    );
    if (!written) {
      // A concurrent request with the same key committed first: its result is the answer.
      const first = idemKey === null ? null : await store.findByIdempotencyKey(this.db, partnerId, idemKey);
      if (!first) throw unavailable();
      return replay(first, requestHash);
    }
    return { response, responseText, replayed: false, persisted: true };
  }

  /** The engine's book for a request on a universe, with the settings it used. */
  private async book(request: PortfolioRequest, universe: Universe) {
    const profile = resolveRiskProfile(request);
    const settings = effectiveRiskSettings(profile.risk_settings);
    const result = await optimizeOn(this.universes, universe, {
      total_capital: request.total_capital,
      risk_settings: settings,
      constraint_pack: profile.constraint_pack,
      prior_book_weights: request.prior_book_weights,
    });
    return { profile, settings, result };
  }

  /**
   * An anonymous optimize: the demo body only (DEMO_BODY_MISMATCH lists each difference). Its answer
   * depends on the universe alone, so it is built once per universe, serialised with placeholders for
   * the id, the time and the trace id, and each call fills those into the stored text.
   */
  private async demo(valid: RequestBody, options: OptimizeOptions): Promise<OptimizeOutcome> {
    const mismatches = demoDifferences(valid, DEMO_OPTIMIZE_BODY, options.naming);
    if (mismatches.length) {
      throw new AppError(
        'DEMO_BODY_MISMATCH',
        'Without a bearer token only the demo body is accepted (GET /api/v1/demo/optimize-body); send a partner token for any other request',
        mismatches,
      );
    }
    return this.demoAnswerFor(valid, options);
  }

  /**
   * An anonymous optimize of the demo body exactly as published: what optimizeBody() answers an
   * anonymous caller sending DEMO_OPTIMIZE_BODY_BYTES, without a body to read (the REST fast lane).
   */
  async publishedDemo(options: OptimizeOptions): Promise<OptimizeOutcome> {
    return this.demoAnswerFor(DEMO_OPTIMIZE_BODY as RequestBody, options);
  }

  /** The demo answer for a body that is the demo body (validated, or exactly the published one). */
  private async demoAnswerFor(valid: RequestBody, options: OptimizeOptions): Promise<OptimizeOutcome> {
    const universe = await this.universes.get();
    let answer = this.demoAnswers.get(universe);
    if (!answer) {
      const request = toPortfolioRequest(valid);
      const { profile, settings, result } = await this.book(request, universe);
      answer = demoAnswer(responseOf({ id: DEMO_ID, request, profile, settings, universe, createdAt: DEMO_TIME, traceId: DEMO_TRACE }, demoBook(result)));
      this.demoAnswers.set(universe, answer);
    }
    return new DemoOutcome(answer, `demo-${randomUUID()}`, this.isoNow(), options.traceId);
  }

  // -------------------------------------------------------------------------------------------------------
  // Reads (partners only, their own portfolios)
  // -------------------------------------------------------------------------------------------------------

  /** The caller's portfolio as stored (JSON text); 404 for an unknown id and for another partner's (existence is not revealed). */
  async portfolioText(principal: Principal, id: string): Promise<string> {
    const partnerId = requirePartner(principal, 'reading portfolios').partnerId;
    const found = await store.findPortfolio(this.db, partnerId, portfolioIdOf(id));
    if (!found) throw portfolioNotFound(id);
    return found.responseText;
  }

  /** The caller's portfolio (same rules as portfolioText). */
  async portfolio(principal: Principal, id: string): Promise<PortfolioResponse> {
    return JSON.parse(await this.portfolioText(principal, id)) as PortfolioResponse;
  }

  /** The caller's portfolios, newest first. */
  async portfolios(principal: Principal, options: { first?: number | null; after?: string | null }): Promise<Page<PortfolioResponse>> {
    const partnerId = requirePartner(principal, 'listing portfolios').partnerId;
    const limit = pageSize(options.first, 'first', PORTFOLIOS_PAGE.default, PORTFOLIOS_PAGE.max);
    const after = options.after ? decodeCursor(options.after) : undefined;
    const { items, total } = await store.listPortfolios(this.db, partnerId, { after, limit: limit + 1 });
    const result = page(items, limit, total, encodeCursor);
    return { ...result, items: result.items.map((p) => JSON.parse(p.responseText) as PortfolioResponse) };
  }
}

// ---------------------------------------------------------------------------------------------------------

/** 404 PORTFOLIO_NOT_FOUND for an id that is none of the caller's books (whether it exists or not is not said). */
export function portfolioNotFound(id: string): AppError {
  return new AppError('PORTFOLIO_NOT_FOUND', `No portfolio ${JSON.stringify(id)} among yours`, [{ field: 'id', message: 'not found' }]);
}

/** A portfolio id as stored (a UUID, lower case); anything that is not a UUID is no book: PORTFOLIO_NOT_FOUND. */
export function portfolioIdOf(id: string): string {
  if (!UUID_RE.test(id)) throw portfolioNotFound(id);
  return id.toLowerCase();
}

/**
 * The optimizer on a universe: its candidates, and the closes of the names the settings need (loaded
 * through the cache). Optimize and rebalance both build their books here.
 */
export async function optimizeOn(universes: UniverseCache, universe: Universe, input: Omit<OptimizeInput, 'candidates' | 'closes'>): Promise<OptimizeResult> {
  const base = { ...input, candidates: universe.candidates };
  return optimize({ ...base, closes: await universes.closesFor(universe, symbolsNeedingCloses(base)) });
}

/**
 * The demo shows two rows of the book, so notes about the rest go: notes naming a hidden position, and
 * the whole-book remaining-cash and max_positions notes (their figures are the full book's).
 */
function demoNotes(notes: readonly string[], hidden: readonly string[]): string[] {
  const names = hidden.map((symbol) => new RegExp(`(^|[^A-Z0-9.])${symbol.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Z0-9.])`));
  const kept = notes.filter((note) => !/^(remaining_capital|max_positions)\b/.test(note) && !names.some((re) => re.test(note)));
  return [...kept, `demo: showing the ${DEMO_MAX_ROWS} best-ranked positions of the book; counts, capital and notes reflect these rows only`];
}


/** The highest support level strictly below the entry, or null. */
function supportBelow(levels: PortfolioAllocation['support_levels'], entry: number): number | null {
  let best: number | null = null;
  for (const l of levels ?? []) if (l.price < entry && (best === null || l.price > best)) best = l.price;
  return best;
}

const partnerIdOf = (principal: Principal): string => requirePartner(principal, 'optimize').partnerId;


/** The Idempotency-Key, or the violation to report with the body's (a repeated header arrives joined by ", "). */
export function idempotencyKey(value: string | null | undefined): { value: string | null; problem?: ErrorDetail } {
  if (value === undefined || value === null) return { value: null };
  if (IDEMPOTENCY_KEY_RE.test(value)) return { value };
  const message = /, /.test(value)
    ? 'Idempotency-Key must be sent once'
    : 'Idempotency-Key must be 1 to 255 visible ASCII characters';
  return { value: null, problem: { field: 'Idempotency-Key', message } };
}

function replay(first: store.StoredPortfolio, requestHash: string): OptimizeOutcome {
  if (first.requestHash !== requestHash) {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different optimize request; use a new key for a new request', [
      { field: 'Idempotency-Key', message: `already used for portfolio ${first.id}` },
    ]);
  }
  return { response: JSON.parse(first.responseText) as PortfolioResponse, responseText: first.responseText, replayed: true, persisted: true };
}

/** JSON with object keys sorted, so equal requests hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const hashRequest = (request: PortfolioRequest): string => createHash('sha256').update(canonicalJson(request)).digest('hex');

function encodeCursor(cursor: store.PortfolioCursor): string {
  return Buffer.from(`${cursor.createdAt}|${cursor.id}`, 'utf8').toString('base64url');
}

function decodeCursor(text: string): store.PortfolioCursor {
  const [createdAt, id] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  const exact = createdAt !== undefined && !Number.isNaN(Date.parse(createdAt)) && new Date(createdAt).toISOString() === createdAt;
  if (!exact || !id || !UUID_RE.test(id)) {
    throw new AppError('VALIDATION_FAILED', 'after must be an endCursor from a previous page', [{ field: 'after', message: 'not a cursor' }]);
  }
  return { createdAt, id };
}

/**
 * How a valid body differs from the demo body, field by field: a value it has otherwise, a field it
 * lacks, a field it has that the demo body does not (null counts as not sent). Objects of the demo body
 * are compared field by field; anything else as a whole. Named in the caller's field naming.
 */
function demoDifferences(actual: unknown, demo: unknown, naming: FieldNaming, path = ''): ErrorDetail[] {
  if (sameJson(actual, demo)) return [];
  const field = (key: string) => (path ? `${path}.${key}` : key);
  if (isJsonObject(demo) && isJsonObject(actual)) {
    const out: ErrorDetail[] = [];
    for (const [key, wanted] of Object.entries(demo)) out.push(...demoDifferences(actual[key], wanted, naming, field(key)));
    for (const [key, value] of Object.entries(actual)) {
      if (!(key in demo) && value !== null && value !== undefined) out.push({ field: namedPath(field(key), naming), message: 'not part of the demo body' });
    }
    return out;
  }
  const missing = actual === undefined || actual === null;
  return [{ field: namedPath(path, naming), message: `the demo body has ${JSON.stringify(demo)}${missing ? ' (missing)' : ` (got ${JSON.stringify(actual)})`}` }];
}

/** Whether two JSON values are equal, fields that are null or absent on either side counting as the same. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const key in x) if (Object.prototype.hasOwnProperty.call(x, key) && !sameJson(x[key] ?? null, y[key] ?? null)) return false;
  for (const key in y) if (Object.prototype.hasOwnProperty.call(y, key) && !(key in x) && y[key] !== null && y[key] !== undefined) return false;
  return true;
}

/** Whether two JSON values are the same document: the same keys (none null-tolerant), the same values. */
function isExactJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, key) || !isExactJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

const isJsonObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a response is built from besides the book. */
interface ResponseParts {
  id: string;
  request: PortfolioRequest;
  profile: ReturnType<typeof resolveRiskProfile>;
  settings: RiskSettings;
  universe: Universe;
  createdAt: string;
  traceId: string;
}

/** The response for a book (its rows, the cents they allocate, its diagnostics). */
function responseOf(parts: ResponseParts, book: { allocations: PortfolioAllocation[]; allocatedCents: number; diagnostics: OptimizerDiagnostics }): PortfolioResponse {
  const { request, profile } = parts;
  return {
    portfolio_id: parts.id,
    name: request.name,
    description: request.description,
    total_capital: request.total_capital,
    allocated_capital: fromCents(book.allocatedCents),
    remaining_capital: fromCents(toCents(request.total_capital) - book.allocatedCents),
    position_count: book.allocations.length,
    allocations: book.allocations,
    created_at: parts.createdAt,
    currency: request.currency,
    risk_settings: parts.settings,
    trace_id: parts.traceId,
    optimizer_diagnostics: book.diagnostics,
    policy_explanation: buildPolicyExplanation(profile),
    constraint_pack: profile.constraint_pack,
    investor_profile: request.investor_profile,
    analysis_date: parts.universe.analysisDate,
  };
}

/** A partner's whole book. */
const fullBook = (result: OptimizeResult) => ({
  allocations: result.allocations,
  allocatedCents: toCents(result.allocated_capital),
  diagnostics: { ...result.diagnostics, binding_notes: [...result.diagnostics.binding_notes] },
});

/** The demo's rows of a book: the best DEMO_MAX_ROWS, counts, capital and notes reflecting only them. */
function demoBook(result: OptimizeResult) {
  const book = fullBook(result);
  if (book.allocations.length <= DEMO_MAX_ROWS) return book;
  const hidden = book.allocations.slice(DEMO_MAX_ROWS).map((a) => a.symbol);
  const allocations = book.allocations.slice(0, DEMO_MAX_ROWS);
  return {
    allocations,
    allocatedCents: allocations.reduce((sum, a) => sum + toCents(a.position_value), 0),
    diagnostics: { ...book.diagnostics, binding_notes: demoNotes(book.diagnostics.binding_notes, hidden) },
  };
}

/** Placeholders of the demo answer's per-call fields (no response text can contain a NUL otherwise). */
const DEMO_ID = '\u0000portfolio_id';
const DEMO_TIME = '\u0000created_at';
const DEMO_TRACE = '\u0000trace_id';

/** The demo response, and its JSON text cut where the id, the time and the trace id go (in that order). */
interface DemoAnswer {
  response: PortfolioResponse;
  text: readonly [string, string, string, string];
}

function demoAnswer(response: PortfolioResponse): DemoAnswer {
  const text = JSON.stringify(response);
  const [beforeId, afterId] = splitOnce(text, JSON.stringify(DEMO_ID));
  const [beforeTime, afterTime] = splitOnce(afterId, JSON.stringify(DEMO_TIME));
  const [beforeTrace, rest] = splitOnce(afterTime, JSON.stringify(DEMO_TRACE));
  return { response, text: [beforeId, beforeTime, beforeTrace, rest] };
}

/**
 * One demo call's outcome: the stored text with this call's id, time and trace id filled in; the
 * response object is built only when asked for (GraphQL), REST sends the text. (A class: an object
 * literal with a getter costs a runtime call per request.)
 */
class DemoOutcome implements OptimizeOutcome {
  readonly responseText: string;
  readonly replayed = false;
  readonly persisted = false;
  private built: PortfolioResponse | undefined;

  constructor(
    private readonly answer: DemoAnswer,
    private readonly id: string,
    private readonly createdAt: string,
    private readonly traceId: string,
  ) {
    const [beforeId, beforeTime, beforeTrace, rest] = answer.text;
    // The id (a UUID) and the time (ISO 8601) need no JSON escaping; the trace id is the client's text.
    this.responseText = `${beforeId}"${id}"${beforeTime}"${createdAt}"${beforeTrace}${JSON.stringify(traceId)}${rest}`;
  }

  get response(): PortfolioResponse {
    return (this.built ??= { ...this.answer.response, portfolio_id: this.id, created_at: this.createdAt, trace_id: this.traceId });
  }
}

function splitOnce(text: string, marker: string): [string, string] {
  const at = text.indexOf(marker);
  if (at < 0 || text.indexOf(marker, at + marker.length) >= 0) throw new Error(`the demo response must hold ${marker} exactly once`);
  return [text.slice(0, at), text.slice(at + marker.length)];
}
