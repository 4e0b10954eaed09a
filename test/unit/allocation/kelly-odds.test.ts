/**
 * Kelly on measured odds (engine/kelly-odds.ts): a planted edge is found and sized, a state at its no-edge
 * odds and a universe of random walks get (almost) nothing, the tables as of a date do not depend on later
 * bars, and the notes say where p came from. Real computations on synthetic bars; no mocks.
 */
import { Prng } from '../../../subgraphs/analysis/engine/prng.js';
import {
  MIN_POOLED_WINDOWS,
  oddsAsOfDates,
  noEdgeProbability,
  oddsFor,
  oddsTables,
  tableAt,
  tradesOf,
  withOdds,
  type CandidateOddsTable,
  type OddsTrade,
} from '../../../subgraphs/allocation/engine/kelly-odds.js';
import { hybridBlend, optimize } from '../../../subgraphs/allocation/engine/optimizer.js';
import type { Candidate } from '../../../subgraphs/allocation/engine/types.js';
import { candidate, input, settings } from './fixtures.js';
import { weekdays } from '../../helpers/dates.js';

const W = 60;


interface Path {
  symbol: string;
  dates: string[];
  close: Float64Array;
  high: Float64Array;
  low: Float64Array;
}

/**
 * One symbol whose trades (entry 100, stop 90, target 130: p0 = 0.25) start every W + 1 bars and resolve
 * on the next bar as `outcomes` says; flat at 100 otherwise.
 */
function plantedSymbol(outcomes: readonly boolean[], dates: string[]): { path: Path; starts: number[] } {
  const n = outcomes.length * (W + 1) + 1;
  const close = new Float64Array(n).fill(100);
  const high = new Float64Array(n).fill(100);
  const low = new Float64Array(n).fill(100);
  const starts: number[] = [];
  outcomes.forEach((hit, j) => {
    const s = j * (W + 1);
    starts.push(s);
    if (hit) high[s + 1] = 131;
    else low[s + 1] = 89;
  });
  return { path: { symbol: 'X', dates: dates.slice(0, n), close, high, low }, starts };
}

const planted = (symbol: string, strength: 'STRONG' | 'WEAK' | 'MODERATE', outcomes: boolean[], dates: string[]): { trades: OddsTrade[]; last: Candidate } => {
  const { path, starts } = plantedSymbol(outcomes, dates);
  const cands = starts.map((s) => candidate(symbol, { entry: 100, stop: 90, target: 130, strength, analysisDate: path.dates[s] }));
  return { trades: tradesOf(cands, path), last: candidate(symbol, { entry: 100, stop: 90, target: 130, strength, analysisDate: dates[dates.length - 1] }) };
};

/** Outcomes with exactly `rate` of them hits, spread evenly. */
const evenly = (count: number, rate: number): boolean[] => Array.from({ length: count }, (_, i) => Math.floor((i + 1) * rate) > Math.floor(i * rate));

describe('Kelly on measured odds', () => {
  const dates = weekdays(40 * (W + 1) + 2, '2015-01-02');
  // Per state 10 symbols x 40 non-overlapping trades: STRONG hits 60% (p0 0.25), WEAK exactly 25%, MODERATE 10%.
  const groups = { STRONG: 0.6, WEAK: 0.25, MODERATE: 0.1 } as const;
  const trades: OddsTrade[] = [];
  const latest: Candidate[] = [];
  for (const [strength, rate] of Object.entries(groups) as Array<[keyof typeof groups, number]>) {
    for (let k = 0; k < 10; k++) {
      const r = planted(`${strength.slice(0, 3)}${k}`, strength, evenly(40, rate), dates);
      trades.push(...r.trades);
      latest.push(r.last);
    }
  }
  const calendar = dates;
  const schedule = oddsAsOfDates(calendar);
  const tables = oddsTables(trades, schedule, 'test');
  const table = tables[tables.length - 1];

  it('finds the planted edge: the state hit far above p0 gets p above p0; the state at p0 does not', () => {
    expect(noEdgeProbability(latest[0])).toBeCloseTo(0.25, 12);
    expect(table.states['STAGE 2 STRONG/resistance'].hit_rate).toBeGreaterThan(0.55);
    const strong = oddsFor(table, latest.find((c) => c.symbol === 'STR0') as Candidate);
    const weak = oddsFor(table, latest.find((c) => c.symbol === 'WEA0') as Candidate);
    expect(strong.source).toBe('state');
    expect(strong.p as number).toBeGreaterThan(0.5);
    expect(weak.source).toBe('state');
    expect(weak.p as number).toBeLessThanOrEqual(0.25);
    expect(weak.p as number).toBeGreaterThan(0.2);
  });

  it('sizes only the state with an edge, and its notes name the state, n and the as-of date', () => {
    const cands = latest.map((c) => withOdds(c, table));
    const r = optimize(input(cands, { risk_settings: settings('KELLY_CRITERION', { max_positions: 40, max_position_size: 0.2, max_risk_per_trade: 1, max_portfolio_risk: 1 }) }));
    const held = r.allocations.map((a) => a.symbol);
    expect(held.length).toBeGreaterThan(0);
    for (const s of held) expect(s.startsWith('STR')).toBe(true);
    const notes = r.diagnostics.binding_notes;
    const named = notes.find((n) => n.startsWith(`KELLY_CRITERION: ${held[0]} p=`)) as string;
    expect(named).toMatch(/vs no-edge 0\.2500/);
    const n = table.states['STAGE 2 STRONG/resistance'].n;
    expect(n).toBeGreaterThan(300);
    expect(named).toContain(`p from STAGE 2 STRONG/resistance (n=${n}, ${n} non-overlapping, as of ${table.as_of})`);
    expect(notes).toContain('KELLY_CRITERION: 20 eligible names have no positive edge (measured p at or below the no-edge p0, f* <= 0) and get nothing');
  });

  it('HYBRID uses the same p for its Kelly part and says so', () => {
    const cands = latest.map((c) => withOdds(c, table));
    const r = optimize(input(cands, { risk_settings: settings('HYBRID_WEIGHTED', { max_positions: 40 }) }));
    expect(r.diagnostics.binding_notes.some((n) => n.startsWith(`HYBRID_WEIGHTED: the Kelly part uses the measured chance of target before stop per state (as of ${table.as_of})`))).toBe(true);
  });

  it('a measured p at the no-edge p0 is no edge, also when the rounded reward-to-risk leaves f* a hair above 0', () => {
    // entry 100, stop 97, target 105: p0 = 3 / 8 exactly, b = 5 / 3 rounded up to 1.6667, so p0 - (1 - p0) / b > 0.
    const base = candidate('EDGE0', { entry: 100, stop: 97, target: 105 });
    const atP0 = withOdds({ ...base, risk_reward_ratio: 1.6667 }, table);
    const odds = { ...(atP0.kelly_odds as NonNullable<Candidate['kelly_odds']>), p: 0.375 };
    expect(odds.p0).toBe(0.375);
    const c: Candidate = { ...atP0, win_probability: 0.375, kelly_odds: odds };
    expect(0.375 - 0.625 / 1.6667).toBeGreaterThan(0);
    expect(hybridBlend(c)).toBe(hybridBlend({ ...c, win_probability: null }));
    const r = optimize(input([c], { risk_settings: settings('KELLY_CRITERION') }));
    expect(r.allocations).toEqual([]);
  });

  it('without measured odds Kelly gives no position and says the odds are not measured', () => {
    const cands = latest.map((c) => withOdds(c, null));
    const r = optimize(input(cands, { risk_settings: settings('KELLY_CRITERION') }));
    expect(r.allocations).toEqual([]);
    expect(r.diagnostics.binding_notes).toContain(
      'KELLY_CRITERION: 30 eligible names have no measured win odds (the win odds are not measured yet (run `tradegraph evaluate`)), so no edge and no position',
    );
  });

  it('a small state uses the pooled odds and its note says why; too little history leaves p unknown', () => {
    const lone = planted('LONE', 'STRONG', evenly(3, 1), dates).last;
    const moved = { ...lone, row: { ...lone.row, stage: 'STAGE 1' as const } };
    const odds = oddsFor(table, moved);
    expect(odds.source).toBe('pooled');
    expect(odds.reason).toBe('STAGE 1 STRONG/resistance has no trades with a known outcome');
    const early = tables.find((t) => (t.pooled?.windows ?? 0) < MIN_POOLED_WINDOWS) as CandidateOddsTable;
    expect(early).toBeDefined();
    expect(oddsFor(early, latest[0]).p).toBeNull();
  });

  it('scores every trade out of sample with the table in force on its date', () => {
    const m = table.metrics;
    expect(m).not.toBeNull();
    expect(m?.n).toBeGreaterThan(0);
    expect(m?.n).toBeLessThan(trades.length); // the first trades had no table yet
    expect(m?.brier).toBeLessThan(m?.brier_no_edge as number); // the planted states beat the no-edge reference
  });
});

// ---------------------------------------------------------------------------------------------------------

/** Random walks (no drift) with highs and lows; weekly candidates with a 5% stop and a 10-20% target. */
function nullUniverse(seed: number, symbols = 30, days = 1300): { trades: OddsTrade[]; latest: Candidate[]; calendar: string[]; paths: Map<string, Path>; cands: Map<string, Candidate[]> } {
  const calendar = weekdays(days, '2015-01-02');
  const trades: OddsTrade[] = [];
  const latest: Candidate[] = [];
  const paths = new Map<string, Path>();
  const candsBy = new Map<string, Candidate[]>();
  for (let k = 0; k < symbols; k++) {
    const rng = new Prng(seed, k);
    const close = new Float64Array(days);
    const high = new Float64Array(days);
    const low = new Float64Array(days);
    let price = 50 + 50 * rng.next();
    for (let t = 0; t < days; t++) {
      const prev = price;
      price *= Math.exp(0.015 * rng.normal() - 0.5 * 0.015 ** 2);
      close[t] = price;
      high[t] = Math.max(prev, price) * (1 + 0.005 * Math.abs(rng.normal()));
      low[t] = Math.min(prev, price) * (1 - 0.005 * Math.abs(rng.normal()));
    }
    const path = { symbol: `N${k}`, dates: calendar, close, high, low };
    const symbol = `N${k}`;
    paths.set(symbol, path);
    const cands: Candidate[] = [];
    for (let t = 0; t < days; t += 5) {
      const entry = Math.round(close[t] * 100) / 100;
      const strength = (['STRONG', 'WEAK', 'MODERATE'] as const)[(k + t) % 3];
      const targetMultiple = [2, 3, 4][(t / 5) % 3];
      cands.push(candidate(symbol, { entry, stop: entry * 0.95, target: entry * (1 + 0.05 * targetMultiple), strength, analysisDate: calendar[t] }));
    }
    candsBy.set(symbol, cands);
    trades.push(...tradesOf(cands, path));
    latest.push(cands[cands.length - 1]);
  }
  return { trades, latest, calendar, paths, cands: candsBy };
}

describe('null universe (random walks)', () => {
  it.each([1, 2, 3])('Kelly allocates (almost) nothing, seed %i', (seed) => {
    const u = nullUniverse(seed);
    const tables = oddsTables(u.trades, oddsAsOfDates(u.calendar), 'test');
    const table = tableAt(tables, u.calendar[u.calendar.length - 1]) as CandidateOddsTable;
    expect(table.pooled?.windows).toBeGreaterThan(MIN_POOLED_WINDOWS);
    // Timeouts count as misses, so the pooled hit rate is below the no-edge reference.
    expect(table.pooled?.hit_rate as number).toBeLessThan((table.pooled?.mean_p0 as number) + 0.02);
    const r = optimize(input(u.latest.map((c) => withOdds(c, table)), { risk_settings: settings('KELLY_CRITERION', { max_positions: 30 }) }));
    expect(r.allocated_capital / 100_000).toBeLessThan(0.05);
  });
});

describe('no look-ahead', () => {
  it('tables as of D are identical with and without the bars (and snapshots) after D', () => {
    const u = nullUniverse(7, 12, 900);
    const cut = u.calendar[600];
    const fullTables = oddsTables(u.trades, oddsAsOfDates(u.calendar), 'test');
    const calendarCut = u.calendar.filter((d) => d <= cut);
    const tradesCut: OddsTrade[] = [];
    for (const [symbol, path] of u.paths) {
      const n = calendarCut.length;
      const p = { symbol, dates: path.dates.slice(0, n), close: path.close.slice(0, n), high: path.high.slice(0, n), low: path.low.slice(0, n) };
      tradesCut.push(...tradesOf((u.cands.get(symbol) as Candidate[]).filter((c) => c.analysis_date <= cut), p));
    }
    const cutTables = oddsTables(tradesCut, oddsAsOfDates(calendarCut), 'test');
    expect(cutTables.length).toBeGreaterThan(5);
    expect(fullTables.length).toBeGreaterThan(cutTables.length);
    expect(fullTables.slice(0, cutTables.length)).toEqual(cutTables);
    expect(JSON.stringify(tableAt(fullTables, cut))).toBe(JSON.stringify(tableAt(cutTables, cut)));
  });
});
