/**
 * Analysis domain use cases and their access policy: the one place these rules live (the REST routes
 * and the GraphQL resolvers only call in here).
 *
 * Market data. Securities and daily bars are licensed: partners read all of them; unauthenticated
 * callers see only the demo symbol's profile and no bars.
 *
 * Analysis snapshots (spec "Analysis service", DESIGN section 5):
 * - Partners (a verified partner access token) read any symbol: the latest stored document by default,
 *   or the snapshot of one calendar date (`date`, YYYY-MM-DD; malformed -> 400 VALIDATION_FAILED). They
 *   get the whole presented document: the spec's fields, the auth-only `risk_parameters` and
 *   `transition_probabilities`, every extra key the pipeline stored, and the snapshot's `evidence` and
 *   `calibration`.
 * - Unauthenticated callers read the demo symbol only, always its latest snapshot (`date` is ignored,
 *   even when malformed), and only the public subset: exactly the PUBLIC_RESULT_KEYS the document has,
 *   then `evidence` and `calibration` (PUBLIC_PRESENTED_KEYS).
 *
 * Presentation (engine/evidence/present.ts; DESIGN section 8 "evidence", "probabilities"). Every read of a
 * snapshot, by any caller and on every route, is the stored document presented with the as-of evidence
 * table its date uses (evidence-states.ts evidenceTableFor: the greatest as-of <= the analysis date):
 * its state records in `evidence`, and every probability the document shows calibrated in place
 * (`confidence`, `ml_signal.probability_up`, pattern confidences; null when not measured), the stored
 * values kept in `calibration.<name>.raw` and each pattern entry's `raw_confidence`. The public subset
 * is cut from the presented document, so a demo caller sees the calibrated (or null) `confidence`, and
 * `calibration` holds raw values of public keys only. The stored document is never changed.
 *
 * Evidence tables (partners only): `evidenceTable(principal, date?)` is the whole table a snapshot
 * dated `date` uses (the latest table without a date); none -> 404 NOT_FOUND.
 *   The REST demo route refuses any other symbol with 403 FORBIDDEN (the route itself serves one symbol,
 *   with or without a token); GraphQL refuses an anonymous caller's other symbols with 401
 *   UNAUTHENTICATED, as it does for their profiles (a token would make them readable).
 * - The REST read route is for partners only: no token -> 401 (an invalid token is refused with 401 by
 *   the origin's authenticator before anything else).
 * - Symbols are trimmed and upper-cased; a malformed one is 400. No stored snapshot for the symbol (or
 *   for the symbol on that date) is 404 ANALYSIS_NOT_FOUND on REST and null on GraphQL.
 *
 * Freshness. The latest document of each symbol is cached in memory as JSON text for
 * `snapshotCacheTtlMs` (default 5 s; 0 turns the cache off), so a read may be up to that old after the
 * pipeline stores a newer snapshot, unless the pipeline calls invalidateSnapshots() after writing (which
 * a process can only do for its own cache: other replicas catch up within the TTL). Concurrent misses
 * for a symbol share one query, and misses within one event-loop turn are fetched in one statement.
 * A cached entry keeps the evidence table read with it and its presented forms (full and public, parsed
 * and as text), so an evidence table stored later (tables are added after every evaluation) shows in the
 * latest read once the entry expires, within the same TTL.
 * Dated (historical) reads are not cached. A security's profile
 * (name, sector) is kept for the same TTL: a frontend's security page asks for it on every view.
 *
 * Validators. The REST reads come as TaggedText: the result's JSON text and its entity tag (textTag:
 * a weak ETag from a SHA-1 of the text; weak because the envelope around it carries a fresh timestamp).
 * A cached latest entry keeps its tags with its texts, so a cached read hashes nothing. A dated read is
 * not immutable: the pipeline may store a snapshot of that date again (upsertSnapshots replaces it), and
 * an evidence table with an as-of on or before the date may be stored after the first read (tables are
 * measured once a month has closed), which changes the presented document. Clients revalidate it.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../platform/db.js';
import { BoundedCache } from '../platform/bounded-cache.js';
import { AppError } from '../platform/errors.js';
import { isPartner, requirePartner, type Principal } from '../platform/principal.js';
import { page, pageSize, parseIsoDate, type Page } from '../platform/validation.js';
import { checkDateParam, invalidSymbol } from './params.js';

export type { Page };
import { PIPELINE_VERSION, PUBLIC_RESULT_KEYS } from './engine/document.js';
import { PRESENTATION_KEYS, presentSnapshot } from './engine/evidence/present.js';
import type { EvidenceTable } from './engine/evidence/state-evidence.js';
import { evidenceTableAt, evidenceTableFor } from './evidence-states.js';
import { upperBound } from './engine/sorted.js';
import { normalizeSymbol } from './engine/symbol.js';
import { GICS_SECTORS, type Bar, type GicsSector, type SecurityRecord } from './engine/market-types.js';
import type { RunModelSummary } from './pipeline.js';
import * as store from './store.js';
import type { StoredSnapshot } from './store.js';

export const BARS_PAGE = { default: 250, max: 2000 } as const;
export const SECURITIES_PAGE = { default: 50, max: 500 } as const;
/** Snapshot history pages are small: one document is tens of kilobytes. */
const SNAPSHOTS_PAGE = { default: 20, max: 100 } as const;
/** How long a symbol's latest document is served from memory (overridable per service). */
const DEFAULT_SNAPSHOT_CACHE_TTL_MS = 5_000;
/** Symbols whose latest document the cache holds at most (the oldest entry makes room). */
const DEFAULT_SNAPSHOT_CACHE_MAX_SYMBOLS = 10_000;

export interface AnalysisServiceOptions {
  /** Milliseconds a latest document stays cached; 0 reads the store every time. Default 5000. */
  snapshotCacheTtlMs?: number;
  snapshotCacheMaxSymbols?: number;
  /** Clock for the cache (milliseconds); tests pass a fake one. */
  now?: () => number;
}

/** A JSON object as the caller may see it (never mutated: shared between requests while cached). */
export type JsonObject = Readonly<Record<string, unknown>>;

/** A recorded run as served: the stored record with its model figures typed, without the internals. */
export type AnalysisRunView = Omit<store.AnalysisRunRecord, 'model' | 'transitions'> & { model: RunModelSummary | null };

/** One snapshot as one caller may see it. */
export interface SnapshotView {
  symbol: string;
  analysisDate: string;
  producedAt: string;
  pipelineVersion: string;
  /** 'full' for partners; 'public' (the demo subset) for unauthenticated callers. */
  scope: 'full' | 'public';
  /** The result object exactly as the REST read returns it to this caller. */
  document: JsonObject;
  /**
   * `data_source` of the stored document ('synthetic' or 'imported'). Shown to every caller, so
   * synthetic data is labelled wherever it appears (the security's own `dataSource` is public too).
   */
  dataSource: string | null;
}


/** A REST result as JSON text with its entity tag (textTag). */
export interface TaggedText {
  text: string;
  /** `W/"<base64url SHA-1 of text>"`: equal texts, equal tags. */
  etag: string;
}

/** The weak entity tag of a result text (see the file comment: the envelope's timestamp differs per response). */
export function textTag(text: string): string {
  return `W/"${createHash('sha1').update(text).digest('base64url')}"`;
}

const tagged = (text: string): TaggedText => ({ text, etag: textTag(text) });

export interface SnapshotPageOptions {
  from?: string | null;
  to?: string | null;
  first?: number | null;
  after?: string | null;
}

export class AnalysisService {
  private readonly latest: LatestSnapshotCache;
  /** Security profiles read within the TTL (bounded like the latest documents). */
  private readonly profiles: BoundedCache<string, { expires: number; value: Promise<SecurityRecord | null> }>;
  private readonly clock: () => number;

  constructor(
    private readonly db: Db,
    readonly demoSymbol: string,
    options: AnalysisServiceOptions = {},
  ) {
    const ttl = options.snapshotCacheTtlMs ?? DEFAULT_SNAPSHOT_CACHE_TTL_MS;
    if (!Number.isFinite(ttl) || ttl < 0) throw new RangeError(`snapshotCacheTtlMs must be >= 0 (got ${ttl})`);
    this.latest = new LatestSnapshotCache(db, ttl, options.snapshotCacheMaxSymbols ?? DEFAULT_SNAPSHOT_CACHE_MAX_SYMBOLS, options.now ?? Date.now);
    this.profiles = new BoundedCache(options.snapshotCacheMaxSymbols ?? DEFAULT_SNAPSHOT_CACHE_MAX_SYMBOLS);
    this.clock = options.now ?? Date.now;
  }

  /** Milliseconds a latest document may be served from memory. */
  get snapshotCacheTtlMs(): number {
    return this.latest.ttlMs;
  }

  /** A normalised ticker, or 400. */
  symbol(raw: string): string {
    const symbol = normalizeSymbol(raw);
    if (!symbol) throw invalidSymbol();
    return symbol;
  }

  /** A GICS sector name (any case), or 400. */
  sector(raw: string): GicsSector {
    const found = GICS_SECTORS.find((s) => s.toLowerCase() === raw.trim().toLowerCase());
    if (!found) throw new AppError('VALIDATION_FAILED', 'sector is not a GICS sector', [{ field: 'sector', message: `expected one of: ${GICS_SECTORS.join(', ')}` }]);
    return found;
  }

  /** A security's profile; null when unknown. Anonymous callers: the demo symbol only. */
  async getSecurity(principal: Principal, rawSymbol: string): Promise<SecurityRecord | null> {
    const symbol = this.symbol(rawSymbol);
    if (symbol !== this.demoSymbol) requirePartner(principal, `security ${symbol}`);
    const ttl = this.latest.ttlMs;
    if (ttl === 0) return store.findSecurity(this.db, symbol);
    const now = this.clock();
    const hit = this.profiles.get(symbol);
    if (hit && hit.expires > now) return hit.value;
    const value = store.findSecurity(this.db, symbol);
    const entry = { expires: now + ttl, value };
    this.profiles.set(symbol, entry);
    value.catch(() => this.profiles.get(symbol) === entry && this.profiles.delete(symbol));
    return value;
  }

  async listSecurities(principal: Principal, options: { sector?: string | null; first?: number | null; after?: string | null }): Promise<Page<SecurityRecord>> {
    requirePartner(principal, 'the securities list');
    const sector = options.sector ? this.sector(options.sector) : undefined;
    const limit = pageSize(options.first, 'first', SECURITIES_PAGE.default, SECURITIES_PAGE.max);
    const after = options.after ? this.symbol(options.after) : undefined;
    const { items, total } = await store.listSecurities(this.db, { sector, after, limit: limit + 1 });
    return page(items, limit, total, (s) => s.symbol);
  }

  /** Daily bars of a symbol, oldest first, paginated by date cursor. Partners only. */
  async getBars(
    principal: Principal,
    rawSymbol: string,
    options: { from?: string | null; to?: string | null; first?: number | null; after?: string | null },
  ): Promise<Page<Bar>> {
    const symbol = this.symbol(rawSymbol);
    requirePartner(principal, 'daily bars');
    const { limit, ...range } = datePage(options, BARS_PAGE);
    const { items, total } = await store.listBars(this.db, symbol, { ...range, limit: limit + 1 });
    return page(items, limit, total, (b) => b.date);
  }

  // -------------------------------------------------------------------------------------------------------
  // Analysis snapshots
  // -------------------------------------------------------------------------------------------------------

  /**
   * REST read (partners only): the result JSON text, the latest or the one of `date` (the query value
   * as given: a string, an array when repeated; params.ts checks it). 401 / 400 / 404.
   */
  async partnerResultText(principal: Principal, rawSymbol: string, rawDate?: unknown): Promise<string> {
    return (await this.partnerResult(principal, rawSymbol, rawDate)).text;
  }

  /** partnerResultText() with its entity tag (kept with the cached latest text). */
  async partnerResult(principal: Principal, rawSymbol: string, rawDate?: unknown): Promise<TaggedText> {
    requirePartner(principal, 'the analysis read');
    const symbol = this.symbol(rawSymbol);
    const date = checkDateParam(rawDate);
    if (date !== undefined) {
      const stored = await store.snapshotOn(this.db, symbol, date);
      if (!stored) throw await this.notFound(symbol, date);
      return tagged(JSON.stringify(await this.present(stored)));
    }
    const entry = await this.latest.get(symbol);
    if (!entry) throw await this.notFound(symbol);
    return fullTagged(entry);
  }

  /**
   * REST demo read (no token needed): the public subset of the demo symbol's latest snapshot, as JSON
   * text with its entity tag (kept with the cached latest text).
   */
  async demoResult(rawSymbol: string): Promise<TaggedText> {
    const symbol = this.symbol(rawSymbol);
    if (symbol !== this.demoSymbol) {
      throw new AppError('FORBIDDEN', `The demo route serves only ${this.demoSymbol}; other symbols need a partner access token`, [
        { field: 'symbol', message: `only ${this.demoSymbol} is available without authentication` },
      ]);
    }
    const entry = await this.latest.get(symbol);
    if (!entry) throw await this.notFound(symbol);
    return publicTagged(entry);
  }

  /**
   * The partner read of a symbol's latest snapshot when it can be answered at once from memory: the
   * cached entry, still fresh, of a symbol given in its normal form; undefined otherwise (not cached,
   * expired, none stored, not a partner: partnerResult() answers those). For the REST fast lane.
   */
  cachedPartnerResult(principal: Principal, symbol: string): TaggedText | undefined {
    if (!isPartner(principal)) return undefined;
    const entry = this.latest.peek(symbol);
    return entry ? fullTagged(entry) : undefined;
  }

  /** demoResult() when it can be answered at once from memory (see cachedPartnerResult); undefined otherwise. */
  cachedDemoResult(symbol: string): TaggedText | undefined {
    if (symbol !== this.demoSymbol) return undefined;
    const entry = this.latest.peek(symbol);
    return entry ? publicTagged(entry) : undefined;
  }

  /** GraphQL read: the caller's view of a snapshot (latest, or of `date` for partners), or null when none is stored. */
  async snapshot(principal: Principal, rawSymbol: string, rawDate?: string | null): Promise<SnapshotView | null> {
    const symbol = this.symbol(rawSymbol);
    if (!isPartner(principal)) {
      // Unauthenticated: the demo symbol's latest snapshot, public subset; the date is ignored.
      if (symbol !== this.demoSymbol) requirePartner(principal, `the analysis of ${symbol}`);
      const entry = await this.latest.get(symbol);
      return entry && view(entry.stored, 'public', presented(entry), publicDoc(entry));
    }
    const date = checkDateParam(rawDate);
    if (date !== undefined) {
      const stored = await store.snapshotOn(this.db, symbol, date);
      return stored && fullView(stored, await this.present(stored));
    }
    const entry = await this.latest.get(symbol);
    return entry && fullView(entry.stored, presented(entry));
  }

  /** GraphQL history (partners only): full snapshots oldest first within [from, to], paginated by date. */
  async snapshots(principal: Principal, rawSymbol: string, options: SnapshotPageOptions): Promise<Page<SnapshotView>> {
    const symbol = this.symbol(rawSymbol);
    requirePartner(principal, 'the analysis history');
    const { limit, ...range } = datePage(options, SNAPSHOTS_PAGE);
    const { items, total } = await store.listSnapshots(this.db, symbol, { ...range, limit: limit + 1 });
    const result = page(items, limit, total, (s) => s.analysisDate);
    const tables = await evidenceTablesFor(this.db, result.items.map((s) => s.analysisDate));
    return { ...result, items: result.items.map((s) => fullView(s, presentStored(s, tables.get(s.analysisDate) ?? null))) };
  }

  /**
   * The whole as-of evidence table a snapshot dated `date` uses (the greatest as-of <= date), or the
   * latest table without a date; null when none is stored. Partners only; 400 for a malformed date.
   */
  async evidenceTableOrNull(principal: Principal, rawDate?: unknown): Promise<EvidenceTable | null> {
    return (await this.findEvidenceTable(principal, rawDate)).table;
  }

  /** evidenceTableOrNull(), with 404 NOT_FOUND (saying which tables are stored) instead of null. */
  async evidenceTable(principal: Principal, rawDate?: unknown): Promise<EvidenceTable> {
    const { table, date, dates } = await this.findEvidenceTable(principal, rawDate);
    if (table) return table;
    const stored = dates.length ? `the stored tables run from ${dates[0]} to ${dates[dates.length - 1]}` : 'no evidence table is stored yet (tradegraph evaluate computes them)';
    throw new AppError('NOT_FOUND', date === undefined ? 'No evidence table is stored' : `No evidence table as of ${date}`, [
      { field: 'date', message: date === undefined ? stored : `no table measured on or before ${date}; ${stored}` },
    ]);
  }

  /** The REST form of evidenceTable(): the table as JSON text with its entity tag. */
  async evidenceTableResult(principal: Principal, rawDate?: unknown): Promise<TaggedText> {
    return tagged(JSON.stringify(await this.evidenceTable(principal, rawDate)));
  }

  private async findEvidenceTable(principal: Principal, rawDate?: unknown): Promise<{ table: EvidenceTable | null; date?: string; dates: string[] }> {
    requirePartner(principal, 'the evidence tables');
    const date = checkDateParam(rawDate, 'evidence');
    const dates = await store.evidenceTableDates(this.db, PIPELINE_VERSION);
    const asOf = date === undefined ? dates[dates.length - 1] : dates[upperBound(dates, date) - 1];
    return { table: asOf === undefined ? null : await evidenceTableAt(this.db, asOf), date, dates };
  }

  /** A stored snapshot presented with the evidence table of its date. */
  private async present(stored: StoredSnapshot): Promise<JsonObject> {
    return presentStored(stored, await evidenceTableFor(this.db, stored.analysisDate));
  }

  /**
   * The latest pipeline run and its ML model's walk-forward out-of-sample figures. Public: it describes
   * the method, not licensed market data.
   */
  async latestRun(): Promise<AnalysisRunView | null> {
    const run = await store.latestRun(this.db);
    if (!run) return null;
    const m = run.model as Partial<RunModelSummary> | null;
    const model =
      m && typeof m.folds === 'number'
        ? { folds: m.folds, oosAccuracy: m.oosAccuracy ?? null, oosAuc: m.oosAuc ?? null, oosSamples: m.oosSamples ?? 0, trainSamplesLastFold: m.trainSamplesLastFold ?? 0 }
        : null;
    const { id: _id, transitions: _transitions, model: _stored, ...record } = run;
    return { ...record, model };
  }

  /**
   * Forgets cached latest documents (of `symbols`, or all). The pipeline calls it after storing new
   * snapshots; a query already running when it is called is not cached.
   */
  invalidateSnapshots(symbols?: readonly string[]): void {
    this.latest.invalidate(symbols);
    if (symbols) for (const s of symbols) this.profiles.delete(s);
    else this.profiles.clear();
  }

  /** 404 that says what is stored, so a caller can tell a missing date from a symbol without analysis. */
  private async notFound(symbol: string, date?: string): Promise<AppError> {
    if (date === undefined) return new AppError('ANALYSIS_NOT_FOUND', `No stored analysis for ${symbol}`, [{ field: 'symbol', message: `no stored analysis for ${symbol}` }]);
    const range = await store.snapshotDateRange(this.db, symbol);
    const details = range.count
      ? [{ field: 'date', message: `no snapshot on ${date}; ${symbol} has ${range.count} snapshots from ${range.first} to ${range.last}` }]
      : [{ field: 'symbol', message: `no stored analysis for ${symbol}` }];
    return new AppError('ANALYSIS_NOT_FOUND', `No stored analysis for ${symbol} on ${date}`, details);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Views and the public subset
// ---------------------------------------------------------------------------------------------------------

/**
 * A cached latest snapshot with the evidence table of its date, read with it; the presented forms are
 * made on first use and kept with the entry.
 */
interface LatestEntry {
  stored: StoredSnapshot;
  table: EvidenceTable | null;
  presented?: JsonObject;
  text?: TaggedText;
  publicDoc?: JsonObject;
  publicText?: TaggedText;
}

/** A stored snapshot presented with a table (present.ts). */
const presentStored = (stored: StoredSnapshot, table: EvidenceTable | null): JsonObject => presentSnapshot(JSON.parse(stored.docText) as JsonObject, table);

const presented = (entry: LatestEntry): JsonObject => (entry.presented ??= presentStored(entry.stored, entry.table));
const fullTagged = (entry: LatestEntry): TaggedText => (entry.text ??= tagged(JSON.stringify(presented(entry))));

/** Keys of the public subset, in order: the spec's public keys, then the presentation's. */
export const PUBLIC_PRESENTED_KEYS: readonly string[] = [...PUBLIC_RESULT_KEYS, ...PRESENTATION_KEYS];

/** The public subset of a presented document: exactly the PUBLIC_PRESENTED_KEYS it has, in that order. */
export function publicSubset(doc: JsonObject): JsonObject {
  const out: Record<string, unknown> = {};
  for (const key of PUBLIC_PRESENTED_KEYS) if (Object.prototype.hasOwnProperty.call(doc, key)) out[key] = doc[key];
  return out;
}

const publicDoc = (entry: LatestEntry): JsonObject => (entry.publicDoc ??= publicSubset(presented(entry)));
const publicTagged = (entry: LatestEntry): TaggedText => (entry.publicText ??= tagged(JSON.stringify(publicDoc(entry))));

/**
 * The evidence table of each date (the greatest as-of <= it): one read of the stored as-of dates when
 * there are several dates, then one (memoised) table per distinct as-of.
 */
async function evidenceTablesFor(db: Db, dates: readonly string[]): Promise<Map<string, EvidenceTable | null>> {
  const distinct = [...new Set(dates)];
  const out = new Map<string, EvidenceTable | null>();
  if (distinct.length <= 1) {
    for (const d of distinct) out.set(d, await evidenceTableFor(db, d));
    return out;
  }
  const asOfs = await store.evidenceTableDates(db, PIPELINE_VERSION);
  const tables = new Map<string, Promise<EvidenceTable | null>>();
  const pending = distinct.map((d): [string, Promise<EvidenceTable | null> | null] => {
    const a = asOfs[upperBound(asOfs, d) - 1];
    if (a === undefined) return [d, null];
    if (!tables.has(a)) tables.set(a, evidenceTableAt(db, a));
    return [d, tables.get(a) ?? null];
  });
  for (const [d, table] of pending) out.set(d, table === null ? null : await table);
  return out;
}

function view(stored: StoredSnapshot, scope: SnapshotView['scope'], full: JsonObject, document: JsonObject): SnapshotView {
  const source = full.data_source;
  return {
    symbol: stored.symbol,
    analysisDate: stored.analysisDate,
    producedAt: stored.producedAt,
    pipelineVersion: stored.pipelineVersion,
    scope,
    document,
    dataSource: typeof source === 'string' ? source : null,
  };
}

const fullView = (stored: StoredSnapshot, doc: JsonObject): SnapshotView => view(stored, 'full', doc, doc);

// ---------------------------------------------------------------------------------------------------------
// The latest-snapshot cache
// ---------------------------------------------------------------------------------------------------------

/**
 * Latest snapshot per symbol (or "none stored"), kept `ttlMs` from the moment its query started.
 * - Single flight: concurrent misses for one symbol wait for the same query.
 * - Batching: misses within one event-loop turn are read in one statement (a GraphQL list of
 *   securities with their analysis costs one query, not one per security).
 * - invalidate() forgets entries, and a query that was running when it was called is not cached.
 * - Bounded: past `maxSymbols` entries the oldest is dropped.
 */
class LatestSnapshotCache {
  /** Per symbol: the read (`settled`: its result, once it is cached). */
  private readonly entries = new Map<string, { expires: number; value: Promise<LatestEntry | null>; settled: LatestEntry | null }>();
  private readonly inflight = new Map<string, Promise<LatestEntry | null>>();
  private batch = new Map<string, Array<{ resolve(v: LatestEntry | null): void; reject(e: unknown): void }>>();
  private generation = 0;

  constructor(
    private readonly db: Db,
    readonly ttlMs: number,
    private readonly maxSymbols: number,
    private readonly now: () => number,
  ) {}

  get(symbol: string): Promise<LatestEntry | null> {
    const hit = this.entries.get(symbol);
    if (hit) {
      if (hit.expires > this.now()) return hit.value;
      this.entries.delete(symbol);
    }
    const running = this.inflight.get(symbol);
    if (running) return running;

    const startedAt = this.now();
    const generation = this.generation;
    const value = this.load(symbol);
    this.inflight.set(symbol, value);
    value.then(
      (settled) => {
        if (this.inflight.get(symbol) === value) this.inflight.delete(symbol);
        if (this.ttlMs > 0 && generation === this.generation) this.remember(symbol, { expires: startedAt + this.ttlMs, value, settled });
      },
      () => {
        if (this.inflight.get(symbol) === value) this.inflight.delete(symbol);
      },
    );
    return value;
  }

  /** The cached entry of a symbol with a stored snapshot, when fresh; undefined otherwise (nothing is read). */
  peek(symbol: string): LatestEntry | undefined {
    const hit = this.entries.get(symbol);
    return hit && hit.settled !== null && hit.expires > this.now() ? hit.settled : undefined;
  }

  invalidate(symbols?: readonly string[]): void {
    this.generation++;
    if (!symbols) {
      this.entries.clear();
      this.inflight.clear();
      return;
    }
    for (const s of symbols) {
      this.entries.delete(s);
      this.inflight.delete(s);
    }
  }

  private remember(symbol: string, entry: { expires: number; value: Promise<LatestEntry | null>; settled: LatestEntry | null }): void {
    this.entries.delete(symbol);
    this.entries.set(symbol, entry);
    if (this.entries.size > this.maxSymbols) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  /** Queues the symbol for the next batched read (after the current event-loop turn). */
  private load(symbol: string): Promise<LatestEntry | null> {
    return new Promise((resolve, reject) => {
      if (this.batch.size === 0) setImmediate(() => void this.flush());
      const waiting = this.batch.get(symbol);
      if (waiting) waiting.push({ resolve, reject });
      else this.batch.set(symbol, [{ resolve, reject }]);
    });
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = new Map();
    const symbols = [...batch.keys()];
    try {
      const rows = symbols.length === 1 ? [await store.latestSnapshot(this.db, symbols[0])].filter((r) => r !== null) : await store.latestSnapshots(this.db, symbols);
      const bySymbol = new Map(rows.map((r) => [r.symbol, r]));
      const tables = await evidenceTablesFor(this.db, rows.map((r) => r.analysisDate));
      for (const [symbol, waiters] of batch) {
        const stored = bySymbol.get(symbol);
        const entry: LatestEntry | null = stored ? { stored, table: tables.get(stored.analysisDate) ?? null } : null;
        for (const w of waiters) w.resolve(entry);
      }
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
    }
  }
}

/** A page of a date-ordered history: [from, to] (400 when inverted), an `after` date cursor, a page size. */
function datePage(
  options: { from?: string | null; to?: string | null; first?: number | null; after?: string | null },
  sizes: { default: number; max: number },
): { from?: string; to?: string; after?: string; limit: number } {
  const from = options.from ? parseIsoDate(options.from, 'from') : undefined;
  const to = options.to ? parseIsoDate(options.to, 'to') : undefined;
  if (from && to && from > to) throw new AppError('VALIDATION_FAILED', 'from must not be after to', [{ field: 'from', message: 'after to' }]);
  const after = options.after ? parseIsoDate(options.after, 'after') : undefined;
  return { from, to, after, limit: pageSize(options.first, 'first', sizes.default, sizes.max) };
}

/** Cuts a fetched `limit + 1` rows to `limit` and says whether more follow. */
