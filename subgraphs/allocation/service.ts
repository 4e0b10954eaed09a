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
 *      settings, the positions and the trace id in one transaction.
 */
import { createHash, randomUUID } from 'node:crypto';
import { unavailable, type Db } from '../platform/db.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { isPartner, type Principal, requirePartner } from '../platform/principal.js';
import { page, type Page, pageSize, UUID_RE } from '../platform/validation.js';
import { snakeToCamel, toPortfolioRequest, validateInput, type FieldNaming, type PortfolioRequest, type PortfolioRequestInput } from './dto.js';
import { fromCents, toCents } from './engine/money.js';
import { effectiveRiskSettings, optimize, symbolsNeedingCloses } from './engine/optimizer.js';
import { DEFAULT_RISK_SETTINGS, MIN_TOTAL_CAPITAL, STRATEGY_INFO, type RiskSettings, type StrategyInfo } from './engine/risk-settings.js';
import { buildPolicyExplanation, resolveRiskProfile, type PolicyExplanation } from './engine/risk-profile.js';
import type { ConstraintPack, OptimizeResult, OptimizerDiagnostics, PortfolioAllocation } from './engine/types.js';
import * as store from './store.js';
import { UniverseCache, type Universe } from './universe.js';

/**
 * The one body an anonymous caller may send (spec "Allocation service" rule 1; DESIGN section 5): served
 * at GET /api/v1/demo/optimize-body and printed in the README.
 */
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
  /** Unknown fields the REST body mapping found (reported with the other violations). */
  unknownFields?: ErrorDetail[];
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
  /** The demo body's engine result per universe (it depends on nothing else). */
  private readonly demoResults = new WeakMap<Universe, OptimizeResult>();

  constructor(
    private readonly db: Db,
    options: AllocationServiceOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.universes = options.universes ?? new UniverseCache(db, options.universeTtlMs ?? 1000);
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

  // -------------------------------------------------------------------------------------------------------
  // Optimize
  // -------------------------------------------------------------------------------------------------------

  async optimize(principal: Principal, input: PortfolioRequestInput | null, options: OptimizeOptions): Promise<OptimizeOutcome> {
    const demo = !isPartner(principal);
    const key = demo ? null : idempotencyKey(options.idempotencyKey);
    const valid = await validateInput(input, options.naming, [...(options.unknownFields ?? []), ...(key?.problem ? [key.problem] : [])]);
    if (demo) {
      const mismatches = demoMismatches(valid, options.naming);
      if (mismatches.length) {
        throw new AppError(
          'DEMO_BODY_MISMATCH',
          'Without a bearer token only the demo body is accepted (GET /api/v1/demo/optimize-body); send a partner token for any other request',
          mismatches,
        );
      }
    }
    const request = toPortfolioRequest(valid);
    const profile = resolveRiskProfile(request);
    const settings = effectiveRiskSettings(profile.risk_settings);

    const requestHash = demo ? '' : hashRequest(request);
    const idemKey = key?.value ?? null;
    if (idemKey !== null) {
      const first = await store.findByIdempotencyKey(this.db, partnerIdOf(principal), idemKey);
      if (first) return replay(first, requestHash);
    }

    const universe = await this.universes.get();
    const base = {
      total_capital: request.total_capital,
      risk_settings: settings,
      constraint_pack: profile.constraint_pack,
      prior_book_weights: request.prior_book_weights,
      candidates: universe.candidates,
    };
    let result = demo ? this.demoResults.get(universe) : undefined;
    if (!result) {
      result = optimize({ ...base, closes: await this.universes.closesFor(universe, symbolsNeedingCloses(base)) });
      if (demo) this.demoResults.set(universe, result);
    }

    let allocations = result.allocations;
    let allocatedCents = toCents(result.allocated_capital);
    const diagnostics: OptimizerDiagnostics = { ...result.diagnostics, binding_notes: [...result.diagnostics.binding_notes] };
    if (demo && allocations.length > DEMO_MAX_ROWS) {
      const hidden = allocations.slice(DEMO_MAX_ROWS).map((a) => a.symbol);
      allocations = allocations.slice(0, DEMO_MAX_ROWS);
      allocatedCents = allocations.reduce((sum, a) => sum + toCents(a.position_value), 0);
      diagnostics.binding_notes = demoNotes(diagnostics.binding_notes, hidden);
    }
    const totalCents = toCents(request.total_capital);
    const id = randomUUID();
    const response: PortfolioResponse = {
      portfolio_id: demo ? `demo-${id}` : id,
      name: request.name,
      description: request.description,
      total_capital: request.total_capital,
      allocated_capital: fromCents(allocatedCents),
      remaining_capital: fromCents(totalCents - allocatedCents),
      position_count: allocations.length,
      allocations,
      created_at: this.now().toISOString(),
      currency: request.currency,
      risk_settings: settings,
      trace_id: options.traceId,
      optimizer_diagnostics: diagnostics,
      policy_explanation: buildPolicyExplanation(profile),
      constraint_pack: profile.constraint_pack,
      investor_profile: request.investor_profile,
      analysis_date: universe.analysisDate,
    };
    const responseText = JSON.stringify(response);
    if (demo) return { response, responseText, replayed: false, persisted: false };

    const partnerId = partnerIdOf(principal);
    const written = await this.db.transaction(async (tx) =>
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
        allocations.map((a, i) => ({
          rank: i + 1,
          symbol: a.symbol,
          sector: universe.bySymbol.get(a.symbol)?.sector ?? null,
          shares: a.shares,
          entryPrice: a.entry_price,
          stopLoss: a.stop_loss,
          targetPrice: a.target_price,
          positionValue: a.position_value,
          riskAmount: a.risk_amount,
          weight: a.percent_of_account,
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

  // -------------------------------------------------------------------------------------------------------
  // Reads (partners only, their own portfolios)
  // -------------------------------------------------------------------------------------------------------

  /** The caller's portfolio as stored (JSON text); 404 for an unknown id and for another partner's (existence is not revealed). */
  async portfolioText(principal: Principal, id: string): Promise<string> {
    const partnerId = requirePartner(principal, 'reading portfolios').partnerId;
    const found = UUID_RE.test(id) ? await store.findPortfolio(this.db, partnerId, id.toLowerCase()) : null;
    if (!found) throw new AppError('PORTFOLIO_NOT_FOUND', `No portfolio ${JSON.stringify(id)} among yours`, [{ field: 'id', message: 'not found' }]);
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
function idempotencyKey(value: string | null | undefined): { value: string | null; problem?: ErrorDetail } {
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
function canonicalJson(value: unknown): string {
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
 * How a validated request differs from the demo body: fields the demo body lacks, fields it has with
 * another value, fields it has that are missing. Named in the caller's field naming.
 */
function demoMismatches(input: PortfolioRequestInput, naming: FieldNaming): ErrorDetail[] {
  const name = (snake: string) => (naming === 'rest' ? snake : snake.split('.').map(snakeToCamel).join('.'));
  const out: ErrorDetail[] = [];
  const expect = (field: string, actual: unknown, wanted: unknown) => {
    if (actual !== wanted) out.push({ field: name(field), message: `the demo body has ${JSON.stringify(wanted)}${actual === undefined || actual === null ? ' (missing)' : ` (got ${JSON.stringify(actual)})`}` });
  };
  expect('name', input.name, DEMO_OPTIMIZE_BODY.name);
  expect('total_capital', input.totalCapital, DEMO_OPTIMIZE_BODY.total_capital);
  const extra = (field: string, value: unknown) => {
    if (value !== undefined && value !== null) out.push({ field: name(field), message: 'not part of the demo body' });
  };
  extra('description', input.description);
  extra('currency', input.currency);
  extra('risk_quiz_answers', input.riskQuizAnswers);
  extra('suggested_preset', input.suggestedPreset);
  extra('investor_profile', input.investorProfile);
  extra('constraint_pack', input.constraintPack);
  extra('prior_book_weights', input.priorBookWeights);
  extra('policy_explanation', input.policyExplanation);
  const rs = input.riskSettings;
  if (!rs) {
    out.push({ field: name('risk_settings'), message: `the demo body has ${JSON.stringify(DEMO_OPTIMIZE_BODY.risk_settings)} (missing)` });
    return out;
  }
  const wanted = DEMO_OPTIMIZE_BODY.risk_settings;
  expect('risk_settings.max_risk_per_trade', rs.maxRiskPerTrade, wanted.max_risk_per_trade);
  expect('risk_settings.max_portfolio_risk', rs.maxPortfolioRisk, wanted.max_portfolio_risk);
  expect('risk_settings.max_position_size', rs.maxPositionSize, wanted.max_position_size);
  expect('risk_settings.max_positions', rs.maxPositions, wanted.max_positions);
  expect('risk_settings.allocation_strategy', rs.allocationStrategy, wanted.allocation_strategy);
  extra('risk_settings.softmax_temperature', rs.softmaxTemperature);
  extra('risk_settings.reward_multiplier', rs.rewardMultiplier);
  extra('risk_settings.stage_weights', rs.stageWeights);
  extra('risk_settings.half_kelly', rs.halfKelly);
  return out;
}
