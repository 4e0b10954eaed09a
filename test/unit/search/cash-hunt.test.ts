/**
 * cash-hunt.ts: slots, the ranking, and the fill under cash, sector caps and risk limits, checked on
 * constructed cases and as properties over random universes and portfolios (limits recomputed here in
 * integer cents from the inputs).
 */
import fc from 'fast-check';
import { Prng } from '../../../subgraphs/analysis/engine/prng.js';
import type { Candidate, CloseSeries } from '../../../subgraphs/allocation/engine/types.js';
import { bookState, ideaFor, sizeIdea } from '../../../subgraphs/search/engine/book.js';
import { cashHunt } from '../../../subgraphs/search/engine/cash-hunt.js';
import type { CashHuntResult, Holding, MarketView, PortfolioView } from '../../../subgraphs/search/engine/types.js';
import { cand, cents, closeSeries, holding, market, portfolio } from './fixtures.js';

/** An eligible stage 2 BUY. */
const buy = (symbol: string, entry: number, stop: number, sector = 'Technology', confidence = 0.6): Candidate =>
  cand(symbol, { entry, stop, sector, confidence, eligible: true, stage: 2 });

describe('cashHunt: constructed cases', () => {
  it('has no recommendations without a free slot (a max_positions note)', () => {
    const p = portfolio([holding('H1'), holding('H2')], { cash: 50_000, risk: { max_positions: 2 } });
    const r = cashHunt(p, market({ candidates: [buy('AAA', 10, 9)] }));
    expect(r.recommendations).toEqual([]);
    expect(r.cash_after).toBe(50_000);
    expect(r.available_cash).toBe(50_000);
    expect(r.notes).toHaveLength(1);
    expect(r.notes[0]).toMatch(/^max_positions: the portfolio holds 2 of 2 positions/);
  });

  it('has no recommendations without cash', () => {
    const r = cashHunt(portfolio([holding('H1')], { cash: 0 }), market({ candidates: [buy('AAA', 10, 9)] }));
    expect(r.recommendations).toEqual([]);
    expect(r.cash_after).toBe(0);
    expect(r.notes).toEqual(['no cash is available']);
  });

  it('fills in fit order until the cash runs out, keeping the ranking fit score', () => {
    // Empty book of $10,000: 20% per name ($2,000), 1% per trade ($100 of risk), 5% open risk ($500).
    const p = portfolio([], { cash: 10_000 });
    const candidates = [
      buy('AAA', 100, 99, 'Technology', 0.9), // 20 shares ($2,000, name cap)
      buy('BBB', 50, 49, 'Energy', 0.8), // 40 shares
      buy('CCC', 25, 24.5, 'Utilities', 0.7), // 80 shares
      buy('DDD', 10, 9.9, 'Materials', 0.6), // 200 shares
      buy('EEE', 20, 19.9, 'Financials', 0.5), // 100 shares: $2,000 again
      buy('FFF', 5, 4.99, 'Industrials', 0.4), // what is left: $0
    ];
    const m = market({ candidates });
    const r = cashHunt(p, m);
    expect(r.recommendations.map((i) => [i.symbol, i.shares])).toEqual([
      ['AAA', 20],
      ['BBB', 40],
      ['CCC', 80],
      ['DDD', 200],
      ['EEE', 100],
    ]);
    expect(r.cash_after).toBe(0);
    expect(r.notes).toContain('1 ranked names skipped: earlier picks used the cash, sector or risk room they needed');
    // The fit score is the ranking's (sized alone with all the cash).
    const book = bookState(p, m);
    for (const pick of r.recommendations) {
      const c = candidates.find((x) => x.symbol === pick.symbol)!;
      expect(pick.fit_score).toBe(ideaFor(c, book, m, sizeIdea(c, book, book.cashCents)).fit_score);
    }
  });

  it("sizes each pick against what the earlier picks left: a later pick gets the cash that's left", () => {
    const p = portfolio([], { cash: 3_000, risk: { max_position_size: 1, max_risk_per_trade: 1, max_portfolio_risk: 1 } });
    const r = cashHunt(p, market({ candidates: [buy('AAA', 100, 90, 'Technology', 0.9), buy('BBB', 7, 6, 'Energy', 0.5)] }));
    // AAA takes all the cash it can ($3,000 = 30 shares); BBB gets nothing, so it is skipped.
    expect(r.recommendations.map((i) => [i.symbol, i.shares])).toEqual([['AAA', 30]]);
    const r2 = cashHunt({ ...p, available_cash: 3_050 }, market({ candidates: [buy('AAA', 100, 90, 'Technology', 0.9), buy('BBB', 7, 6, 'Energy', 0.5)] }));
    expect(r2.recommendations.map((i) => [i.symbol, i.shares])).toEqual([
      ['AAA', 30],
      ['BBB', 7],
    ]);
    expect(r2.cash_after).toBe(1);
    expect(r2.recommendations[1].reasons.join(' ')).toContain('limited by cash');
  });

  it('stops at the free slots', () => {
    const p = portfolio([holding('H1', { shares: 1 })], { cash: 100_000, risk: { max_positions: 3 } });
    const r = cashHunt(p, market({ candidates: ['AAA', 'BBB', 'CCC', 'DDD'].map((s, i) => buy(s, 10, 9, `S${i}`)) }));
    expect(r.recommendations).toHaveLength(2);
    expect(r.notes).toContain('max_positions: 2 free slots filled');
  });

  it('respects a sector cap across picks', () => {
    // V = $100,000, Technology cap 15%: the first Technology pick takes $15,000 (its name cap is 20%),
    // the second finds the sector full.
    const p = portfolio([], { cash: 100_000, pack: { sector_caps: { Technology: 0.15 } } });
    const r = cashHunt(p, market({ candidates: [buy('AAA', 100, 99.5, 'Technology', 0.9), buy('BBB', 100, 99.5, 'Technology', 0.8), buy('CCC', 100, 99.5, 'Energy', 0.5)] }));
    expect(r.recommendations.map((i) => [i.symbol, i.shares])).toEqual([
      ['AAA', 150],
      ['CCC', 200],
    ]);
    expect(r.recommendations[0].sector_weight_after).toBe(0.15);
  });

  it('respects the open-risk limit across picks', () => {
    // $100,000, 5% open risk ($5,000), 1% per trade ($1,000): risk 10 a share gives 100 shares per pick;
    // the sixth pick finds no risk room.
    const p = portfolio([], { cash: 100_000, risk: { max_position_size: 1 } });
    const candidates = ['A1', 'A2', 'A3', 'A4', 'A5', 'A6'].map((s, i) => buy(s, 20, 10, `S${i}`, 0.9 - i * 0.05));
    const r = cashHunt(p, market({ candidates }));
    expect(r.recommendations.map((i) => i.shares)).toEqual([100, 100, 100, 100, 100]);
    expect(r.recommendations.reduce((s, i) => s + i.risk_amount, 0)).toBe(5_000);
  });

  it('leaves out held names and names that cannot take one share', () => {
    const p = portfolio([holding('HELD', { shares: 1 })], { cash: 500 });
    const r = cashHunt(p, market({ candidates: [buy('HELD', 10, 9), buy('PRICY', 1_000, 900), buy('OK', 10, 9.9)] }));
    expect(r.recommendations.map((i) => i.symbol)).toEqual(['OK']);
    expect(r.notes[0]).toBe('2 eligible names are not held; 1 bought for 100 of 500 cash');
    expect(r.notes).toContain('1 left out: not one share fits the cash and the risk settings');
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties.

const SECTORS = ['Technology', 'Energy', 'Utilities', 'Health Care'] as const;

const candArb = fc.record({
  entryCents: fc.integer({ min: 50, max: 60_000 }),
  stopPct: fc.integer({ min: 1, max: 40 }),
  sector: fc.constantFrom(...SECTORS),
  stage: fc.constantFrom<1 | 2>(1, 2),
  confidence: fc.integer({ min: 0, max: 1000 }).map((v) => v / 1000),
  win: fc.integer({ min: 200, max: 800 }).map((v) => v / 1000),
  rs: fc.option(fc.integer({ min: -500, max: 500 }).map((v) => v / 10)),
  returns: fc.option(fc.record({ days: fc.constantFrom(40, 80), vol: fc.integer({ min: 3, max: 40 }).map((v) => v / 1000), beta: fc.integer({ min: 0, max: 15 }).map((v) => v / 10) }), { freq: 2 }),
});

const holdingArb = fc.record({
  shares: fc.integer({ min: 1, max: 400 }),
  entryCents: fc.integer({ min: 100, max: 50_000 }),
  stopPct: fc.integer({ min: 1, max: 15 }),
  move: fc.option(fc.integer({ min: -30, max: 60 }), { freq: 3 }),
  sector: fc.constantFrom(...SECTORS),
  eligible: fc.boolean(),
  returns: fc.boolean(),
  /** A book created from holdings may carry no stop: its snapshot's stop counts, else 0. */
  ownStop: fc.boolean(),
});

const scenarioArb = fc.record({
  universe: fc.array(candArb, { minLength: 1, maxLength: 12 }),
  holdings: fc.array(holdingArb, { maxLength: 5 }),
  cashCents: fc.oneof({ weight: 1, arbitrary: fc.integer({ min: 0, max: 10_000 }) }, { weight: 6, arbitrary: fc.integer({ min: 1_000_000, max: 50_000_000 }) }),
  rpt: fc.integer({ min: 1, max: 200 }).map((v) => v / 1000),
  mpr: fc.integer({ min: 5, max: 1000 }).map((v) => v / 1000),
  mps: fc.integer({ min: 2, max: 100 }).map((v) => v / 100),
  /** max_positions = holdings + this (at least 1): some runs have no free slot. */
  extraSlots: fc.integer({ min: -1, max: 8 }),
  /** Sector caps (sometimes a DEFAULT per-name cap) on about half the sectors, in half the runs. */
  caps: fc.option(
    fc
      .array(fc.option(fc.integer({ min: 0, max: 40 }).map((v) => v / 100)), { minLength: SECTORS.length + 1, maxLength: SECTORS.length + 1 })
      .map((vs) => Object.fromEntries([...SECTORS, 'DEFAULT'].flatMap((k, i) => (vs[i] === null ? [] : [[k, vs[i]]]))) as Record<string, number>),
    { freq: 2 },
  ),
  seed: fc.integer({ min: 1, max: 1_000_000 }),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

const maxPositionsOf = (s: Scenario): number => Math.max(1, s.holdings.length + s.extraSlots);

interface Built {
  portfolio: PortfolioView;
  market: MarketView;
  candidates: Candidate[];
  closes: Map<string, CloseSeries>;
  /** The newest price (cents) of each holding. */
  priceCents: number[];
}

function build(s: Scenario): Built {
  const closes = new Map<string, CloseSeries>();
  const candidates: Candidate[] = s.universe.map((u, i) => {
    const symbol = `U${String(i).padStart(2, '0')}`;
    if (u.returns) closes.set(symbol, closeSeries({ seed: s.seed + i, days: u.returns.days, dailyVol: u.returns.vol, beta: u.returns.beta, marketSeed: s.seed }));
    const stop = Math.min(u.entryCents - 1, Math.round(u.entryCents * (1 - u.stopPct / 100)));
    return cand(symbol, {
      entry: u.entryCents / 100,
      stop: stop / 100,
      sector: u.sector,
      stage: u.stage,
      confidence: u.confidence,
      winProbability: u.win,
      relativeStrength: u.rs,
      eligible: true,
    });
  });
  const holdings: Holding[] = [];
  const priceCents: number[] = [];
  s.holdings.forEach((h, i) => {
    const symbol = `H${i}`;
    holdings.push(holding(symbol, { shares: h.shares, entry: h.entryCents / 100, stop: h.ownStop ? Math.round(h.entryCents * (1 - h.stopPct / 100)) / 100 : null, sector: h.sector }));
    if (h.returns) closes.set(symbol, closeSeries({ seed: s.seed + 100 + i, days: 80, marketSeed: s.seed, beta: 1 }));
    if (h.move === null) {
      priceCents.push(h.entryCents);
      return;
    }
    const price = Math.max(2, Math.round(h.entryCents * (1 + h.move / 100)));
    priceCents.push(price);
    // A held name may be eligible too: it must never be recommended.
    candidates.push(cand(symbol, { entry: price / 100, stop: (price - 1) / 100, sector: h.sector, eligible: h.eligible }));
  });
  const p = portfolio(holdings, {
    cash: s.cashCents / 100,
    risk: { max_risk_per_trade: s.rpt, max_portfolio_risk: s.mpr, max_position_size: s.mps, max_positions: maxPositionsOf(s) },
    pack: s.caps === null ? null : { sector_caps: s.caps },
  });
  return { portfolio: p, market: market({ candidates, closes }), candidates, closes, priceCents };
}

function ok(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

/** Every fill invariant, recomputed from the inputs in integer cents. */
function checkFill(s: Scenario, b: Built, r: CashHuntResult): void {
  const p = b.portfolio;
  const slots = Math.max(0, maxPositionsOf(s) - p.holdings.length);
  let V = s.cashCents;
  let openRisk = 0;
  const sectorValue = new Map<string, number>();
  p.holdings.forEach((h, i) => {
    const value = h.shares * b.priceCents[i];
    V += value;
    // Its own stop, else its snapshot's (the candidate's: price - 1 cent), else 0: the whole value at risk.
    const snapshot = b.candidates.find((c) => c.symbol === h.symbol);
    const stop = h.stop_loss !== null ? cents(h.stop_loss) : snapshot ? cents(snapshot.stop_loss) : 0;
    openRisk += h.shares * Math.max(0, b.priceCents[i] - stop);
    sectorValue.set(h.sector as string, (sectorValue.get(h.sector as string) ?? 0) + value);
  });
  ok(cents(r.portfolio_value) === V, `portfolio value ${r.portfolio_value}, expected ${V / 100}`);
  const startSector = new Map(sectorValue);
  const startRisk = openRisk;
  const nameCap = Math.min(s.mps, s.caps?.DEFAULT ?? 1);
  const slack = (x: number): number => x + 1e-6 * Math.max(1, Math.abs(x)); // the engine's 1e-9-share float slack

  ok(r.recommendations.length <= slots, `${r.recommendations.length} picks for ${slots} slots`);
  const held = new Set(p.holdings.map((h) => h.symbol));
  const seen = new Set<string>();
  let spent = 0;
  for (const pick of r.recommendations) {
    const c = b.candidates.find((x) => x.symbol === pick.symbol);
    ok(c !== undefined && c.eligible, `${pick.symbol} is not an eligible candidate`);
    ok(!held.has(pick.symbol), `${pick.symbol} is held`);
    ok(!seen.has(pick.symbol), `${pick.symbol} picked twice`);
    seen.add(pick.symbol);
    ok(Number.isInteger(pick.shares) && pick.shares >= 1, `${pick.symbol}: ${pick.shares} shares`);
    const entry = cents(c!.entry_price);
    const value = pick.shares * entry;
    const risk = pick.shares * (entry - cents(c!.stop_loss));
    ok(cents(pick.position_value) === value, `${pick.symbol}: position value`);
    ok(cents(pick.risk_amount) === risk, `${pick.symbol}: risk amount`);
    ok(risk <= slack(s.rpt * V), `${pick.symbol}: per-trade risk ${risk} > ${s.rpt} x ${V}`);
    ok(value <= slack(nameCap * V), `${pick.symbol}: value ${value} above the name cap ${nameCap} x ${V}`);
    spent += value;
    ok(spent <= s.cashCents, `spent ${spent} of ${s.cashCents} cash`);
    openRisk += risk;
    sectorValue.set(c!.sector, (sectorValue.get(c!.sector) ?? 0) + value);
  }
  ok(cents(r.cash_after) === s.cashCents - spent, `cash_after ${r.cash_after}, expected ${(s.cashCents - spent) / 100}`);
  ok(cents(r.available_cash) === s.cashCents, 'available cash');
  // Total open risk: within the limit when it started within it; no risk added when it started above.
  const riskLimit = s.mpr * V;
  if (startRisk <= riskLimit) ok(openRisk <= slack(riskLimit), `open risk ${openRisk} > ${riskLimit}`);
  else ok(openRisk === startRisk, `open risk added above the limit (${startRisk} > ${riskLimit})`);
  // Sector caps.
  for (const [sector, cap] of Object.entries(s.caps ?? {})) {
    if (sector === 'DEFAULT') continue;
    const start = startSector.get(sector) ?? 0;
    const end = sectorValue.get(sector) ?? 0;
    if (start <= cap * V) ok(end <= slack(cap * V), `${sector}: ${end} above its cap ${cap} x ${V}`);
    else ok(end === start, `${sector}: bought above its cap`);
  }
}

/** The eligible list in another order (the engine is documented to receive it in symbol order). */
function shuffled(m: MarketView, seed: number): MarketView {
  const rng = new Prng(seed, 5);
  const a = m.eligible.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return { ...m, eligible: a };
}

describe('cashHunt: properties', () => {
  it('respects cash, slots, per-trade and total risk, name and sector caps after every pick', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const b = build(s);
        checkFill(s, b, cashHunt(b.portfolio, b.market));
      }),
      { numRuns: 200 },
    );
  });

  it('ranks picks by the ranking fit score, descending', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const b = build(s);
        const r = cashHunt(b.portfolio, b.market);
        for (let i = 1; i < r.recommendations.length; i++) {
          const a = r.recommendations[i - 1];
          const c = r.recommendations[i];
          ok(a.fit_score > c.fit_score || (a.fit_score === c.fit_score && a.symbol < c.symbol), `${a.symbol} before ${c.symbol}`);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('is deterministic and independent of the order of the eligible list', () => {
    fc.assert(
      fc.property(scenarioArb, fc.integer({ min: 1, max: 1_000_000 }), (s, shuffleSeed) => {
        const b = build(s);
        const first = cashHunt(b.portfolio, b.market);
        expect(cashHunt(b.portfolio, b.market)).toEqual(first);
        expect(cashHunt(b.portfolio, shuffled(b.market, shuffleSeed))).toEqual(first);
      }),
      { numRuns: 100 },
    );
  });
});
