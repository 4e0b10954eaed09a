/**
 * The candidate universe: every symbol's snapshot on the newest analysis date, as engine candidates
 * (engine/candidates.ts), and the daily closes the engines ask for. Allocation builds books from it;
 * opportunity search ranks holdings and ideas against it.
 *
 * Each candidate carries Kelly's measured odds (kelly-odds-store.ts): the odds table in force on the
 * analysis date (greatest as_of <= it), or none while no table is measured (then Kelly's p is null and
 * Kelly gives no position).
 *
 * Building a universe costs one read of every newest snapshot, so it is kept until the store's set of
 * newest snapshots or of odds tables changes: two cheap version queries (analysis store `universeVersion`,
 * `candidateOddsVersion`) tell, asked at most once per `ttlMs`. Closes are loaded the first time a symbol's are needed and kept with the
 * universe they belong to (through its analysis date, so a result depends only on the snapshots and the
 * bars up to their date). Whatever a service derives from a universe it keeps in a WeakMap keyed by the
 * universe object, so it goes when the universe does.
 */
import type { Db } from '../platform/db.js';
import { listCloses, snapshotsOn, universeVersion } from '../analysis/store.js';
import { candidatesFrom } from './engine/candidates.js';
import { attachCandidateOdds, candidateOddsVersion } from './kelly-odds-store.js';
import type { Candidate, CloseSeries } from './engine/types.js';

/** Calendar days of closes loaded for a symbol (covers the 252-trading-day covariance window). */
export const CLOSES_LOOKBACK_DAYS = 380;

export interface Universe {
  /** The store version it was built from (opaque). */
  key: string;
  /** The newest analysis date (null while nothing has been analysed). */
  analysisDate: string | null;
  /** Every newest snapshot with a usable price, eligible or not, by symbol. */
  candidates: Candidate[];
  bySymbol: ReadonlyMap<string, Candidate>;
}

export class UniverseCache {
  private current: { key: string; universe: Promise<Universe>; checkedAt: number } | null = null;
  private readonly closes = new WeakMap<Universe, Map<string, CloseSeries>>();

  constructor(
    private readonly db: Db,
    /** How long a universe is used before the store is asked whether it changed (0: every call). */
    private readonly ttlMs: number = 1000,
  ) {}

  /** The universe of the newest snapshots (built once per store version). */
  async get(): Promise<Universe> {
    const started = Date.now();
    const fresh = this.current;
    if (fresh && started - fresh.checkedAt < this.ttlMs) return fresh.universe;
    const version = await universeVersion(this.db);
    const key = JSON.stringify({ ...version, odds: await candidateOddsVersion(this.db) });
    const cached = this.current;
    if (cached && cached.key === key) {
      cached.checkedAt = started;
      return cached.universe;
    }
    const universe = this.build(key, version.analysisDate);
    const entry = { key, universe, checkedAt: started };
    this.current = entry;
    universe.catch(() => {
      if (this.current === entry) this.current = null;
    });
    return universe;
  }

  /** Daily closes of `symbols` through the universe's analysis date (empty series for symbols without bars). */
  async closesFor(universe: Universe, symbols: readonly string[]): Promise<Map<string, CloseSeries>> {
    let known = this.closes.get(universe);
    if (!known) {
      known = new Map();
      this.closes.set(universe, known);
    }
    const missing = [...new Set(symbols)].filter((s) => !known.has(s));
    if (missing.length && universe.analysisDate) {
      const from = shiftDays(universe.analysisDate, -CLOSES_LOOKBACK_DAYS);
      const loaded = await listCloses(this.db, missing, from, universe.analysisDate);
      for (const symbol of missing) known.set(symbol, loaded.get(symbol) ?? EMPTY_SERIES);
    }
    return new Map(symbols.map((s) => [s, known.get(s) ?? EMPTY_SERIES]));
  }

  private async build(key: string, analysisDate: string | null): Promise<Universe> {
    const candidates = analysisDate === null ? [] : await attachCandidateOdds(this.db, candidatesFrom(await snapshotsOn(this.db, analysisDate)));
    return { key, analysisDate, candidates, bySymbol: new Map(candidates.map((c) => [c.symbol, c])) };
  }
}

const EMPTY_SERIES: CloseSeries = Object.freeze({ dates: [], closes: [] });

export function shiftDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
