/**
 * assessment.ts: one recommendation per holding (EXIT, REPLACE, TRIM, ADD, HOLD), their order, the
 * strong/weak counts, and every concern at its threshold (and not below it).
 */
import type { Candidate, CloseSeries, SnapshotRowFields } from '../../../subgraphs/allocation/engine/types.js';
import {
  CASH_DRAG_THRESHOLD,
  CORRELATED_PAIR_THRESHOLD,
  DRIFT_TOLERANCE,
  HIGH_VOLATILITY_THRESHOLD,
  REPLACE_MARGIN,
  STALE_BOOK_DAYS,
  daysBetween,
  generalAssessment,
} from '../../../subgraphs/search/engine/assessment.js';
import { bookState, qualityOf, sizeIdea } from '../../../subgraphs/search/engine/book.js';
import { replacementsFor } from '../../../subgraphs/search/engine/replacement.js';
import { correlation } from '../../../subgraphs/search/engine/returns.js';
import type { Concern, GeneralAssessment, Holding, HuntRecommendation, MarketView, PortfolioView } from '../../../subgraphs/search/engine/types.js';
import { cand, holding, market, noise, portfolio, seriesFromReturns, type CandidateSpec, type PortfolioSpec } from './fixtures.js';

const round4 = (x: number): number => Math.round(x * 1e4) / 1e4;

interface PosSpec extends CandidateSpec {
  shares?: number;
  /** The newest close (the candidate's entry price); default 100. */
  price?: number;
  /** Bought at (default: the price) with this stop (default 80% of the bought price). */
  boughtAt?: number;
  boughtStop?: number;
  support?: number | null;
  heldSector?: string | null;
  row?: Partial<SnapshotRowFields>;
  over?: Partial<Candidate>;
  /** No analysis snapshot for the holding. */
  noSnapshot?: boolean;
}

interface Pos {
  h: Holding;
  c: Candidate | null;
}

/** A holding and its latest candidate (stage 1 BUY, NEUTRAL, unless told otherwise). */
function pos(symbol: string, spec: PosSpec = {}): Pos {
  const price = spec.price ?? 100;
  const bought = spec.boughtAt ?? price;
  const h = holding(symbol, {
    shares: spec.shares ?? 10,
    entry: bought,
    stop: spec.boughtStop ?? Math.round(bought * 80) / 100,
    support: spec.support ?? null,
    sector: spec.heldSector === undefined ? (spec.sector ?? 'Technology') : spec.heldSector,
  });
  const c = spec.noSnapshot
    ? null
    : cand(symbol, { stage: 1, entry: price, stop: Math.round(price * 95) / 100, ...spec, eligible: spec.eligible ?? false }, spec.row ?? {}, spec.over ?? {});
  return { h, c };
}

interface Scene {
  portfolio: PortfolioView;
  market: MarketView;
  result: GeneralAssessment;
}

function assess(positions: Pos[], options: PortfolioSpec & { eligible?: Candidate[]; closes?: Record<string, CloseSeries>; marketDate?: string } = {}): Scene {
  const p = portfolio(
    positions.map((x) => x.h),
    options,
  );
  const m = market({
    candidates: [...positions.flatMap((x) => (x.c ? [x.c] : [])), ...(options.eligible ?? [])],
    closes: options.closes,
    analysisDate: options.marketDate,
  });
  return { portfolio: p, market: m, result: generalAssessment(p, m) };
}

function rec(result: GeneralAssessment, symbol: string): HuntRecommendation {
  const r = result.recommendations.find((x) => x.symbol === symbol);
  if (!r) throw new Error(`no recommendation for ${symbol}`);
  return r;
}

const concerns = (result: GeneralAssessment, type: Concern['type']): Concern[] => result.concerns.filter((c) => c.type === type);

/** A strong replacement: stage 2 VERY_STRONG BUY, eligible, no returns. */
const replacement = (symbol: string, confidence: number, spec: CandidateSpec = {}): Candidate =>
  cand(symbol, { stage: 2, strength: 'VERY_STRONG', confidence, entry: 50, stop: 47, sector: 'Energy', eligible: true, ...spec });

describe('generalAssessment: recommendations', () => {
  it('EXIT when the stop is hit: sell everything, score 1 - quality', () => {
    const a = pos('AAA', { stage: 2, price: 79.99, boughtAt: 100, boughtStop: 80, shares: 12 });
    const { result } = assess([a]);
    const r = rec(result, 'AAA');
    expect(r.type).toBe('EXIT');
    expect(r.suggested_share_change).toBe(-12);
    expect(r.score).toBe(round4(1 - qualityOf(a.c!)));
    expect(r.rating).toBe('WEAK');
    expect(r.current_price).toBe(79.99);
    expect(r.unrealized_return).toBe(Math.round((79.99 / 100 - 1) * 1e6) / 1e6);
  });

  it('EXIT in stage 4 even above the stop', () => {
    const a = pos('AAA', { stage: 4, price: 120, boughtAt: 100, shares: 5 });
    const r = rec(assess([a]).result, 'AAA');
    expect(r.type).toBe('EXIT');
    expect(r.suggested_share_change).toBe(-5);
    expect(r.score).toBe(round4(1 - qualityOf(a.c!)));
  });

  it('REPLACE a weak holding when a replacement fits by at least 0.05 more, with the 3 best attached', () => {
    // Stage 3 (weak, quality ~0.46); four eligible replacements of quality ~0.82..0.87 (no returns, empty rest).
    const w = pos('WWW', { stage: 3, shares: 10, price: 100 });
    const eligible = [replacement('R4', 0.8), replacement('R2', 0.9), replacement('R1', 0.95), replacement('R3', 0.85)];
    const scene = assess([w], { eligible });
    const r = rec(scene.result, 'WWW');
    expect(r.type).toBe('REPLACE');
    expect(r.suggested_share_change).toBe(-10);
    expect(r.score).toBe(round4(1 - qualityOf(w.c!)));
    expect(r.replacement_candidates.map((i) => i.symbol)).toEqual(['R1', 'R2', 'R3']);
    expect(r.replacement_candidates).toEqual(replacementsFor(scene.portfolio, scene.market, 'WWW').candidates.slice(0, 3));
    expect(r.replacement_candidates[0].fit_score).toBeGreaterThanOrEqual(qualityOf(w.c!) + REPLACE_MARGIN);
    // Sized with the freed capital ($1,000).
    for (const i of r.replacement_candidates) expect(i.position_value).toBeLessThanOrEqual(1000);
  });

  it('TRIM (not REPLACE) when the best replacement is less than 0.05 better', () => {
    // Weak through a SELL signal with a high quality (~0.87): nothing fits 0.05 better.
    const w = pos('WWW', { stage: 2, strength: 'VERY_STRONG', confidence: 0.9, relativeStrength: 20, shares: 7, row: { signal: 'SELL' } });
    const eligible = [replacement('R1', 0.95), replacement('R2', 0.8)];
    const r = rec(assess([w], { eligible }).result, 'WWW');
    expect(qualityOf(eligible[0]) - qualityOf(w.c!)).toBeLessThan(REPLACE_MARGIN);
    expect(r.type).toBe('TRIM');
    expect(r.suggested_share_change).toBe(-3); // half of 7, rounded down
    expect(r.score).toBe(round4(1 - qualityOf(w.c!)));
    expect(r.replacement_candidates).toEqual([]);
  });

  it('TRIM a weak holding without any replacement: half, at least one share', () => {
    const one = pos('ONE', { stage: 3, shares: 1 });
    const six = pos('SIX', { stage: 3, shares: 6 });
    const { result } = assess([one, six]);
    expect(rec(result, 'ONE').type).toBe('TRIM');
    expect(rec(result, 'ONE').suggested_share_change).toBe(-1);
    expect(rec(result, 'SIX').suggested_share_change).toBe(-3);
    expect(rec(result, 'SIX').reasons.join(' ')).toContain('no replacement can be bought');
  });

  it('REPLACE decides on the margin: 0.051 better replaces, 0.049 better trims', () => {
    // Holding: stage 2 WEAK strength, confidence 0.02, RS -50, no target: quality 0.0945, weak (bearish pattern).
    const w = pos('WWW', { stage: 2, strength: 'WEAK', confidence: 0.02, relativeStrength: -50, target: null, over: { pattern_signal: { direction: 'BEARISH', net_confidence: 1 } } });
    const alt = (rs: number): Candidate => cand('ALT', { stage: 2, strength: 'WEAK', confidence: 0.02, relativeStrength: rs, target: null, eligible: true, entry: 50, stop: 45, sector: 'Energy' });
    expect(qualityOf(w.c!)).toBe(0.0945);
    expect(qualityOf(alt(1))).toBe(0.1455);
    expect(qualityOf(alt(-1))).toBe(0.1435);
    expect(rec(assess([w], { eligible: [alt(1)] }).result, 'WWW').type).toBe('REPLACE');
    expect(rec(assess([w], { eligible: [alt(-1)] }).result, 'WWW').type).toBe('TRIM');
  });

  // Regression (assessment.ts, REPLACE test): both figures are 4-decimal values; compared as a float
  // sum, a replacement exactly 0.05 better was "not better by at least 0.05" for about a quarter of the
  // quality values (0.0945 + 0.05 > 0.1445 in doubles).
  it('REPLACE when the best replacement is exactly 0.05 better (quality 0.0945, fit 0.1445)', () => {
    const w = pos('WWW', { stage: 2, strength: 'WEAK', confidence: 0.02, relativeStrength: -50, target: null, over: { pattern_signal: { direction: 'BEARISH', net_confidence: 1 } } });
    const alt = cand('ALT', { stage: 2, strength: 'WEAK', confidence: 0.02, relativeStrength: 0, target: null, eligible: true, entry: 50, stop: 45, sector: 'Energy' });
    const scene = assess([w], { eligible: [alt] });
    expect(replacementsFor(scene.portfolio, scene.market, 'WWW').candidates[0].fit_score).toBe(0.1445);
    expect(rec(scene.result, 'WWW').type).toBe('REPLACE');
  });

  it('TRIM a holding that drifted more than 10% above the per-name cap back to the cap', () => {
    // V = $100,000, cap 20%: 2,500 shares at 10 weigh 25%; sell $5,000 = 500 shares.
    const drift = pos('DDD', { shares: 2500, price: 10 });
    const { result } = assess([drift], { cash: 75_000 });
    const r = rec(result, 'DDD');
    expect(r.type).toBe('TRIM');
    expect(r.suggested_share_change).toBe(-500);
    expect(r.score).toBe(round4((0.25 - 0.2) / 0.2));
    expect(r.current_weight).toBe(0.25);
    expect(DRIFT_TOLERANCE).toBe(0.1);
  });

  it('no drift TRIM at 10% above the cap or below; the cap is min(max_position_size, DEFAULT)', () => {
    // 22% = 20% x 1.1 exactly: not more than 10% above.
    expect(rec(assess([pos('DDD', { shares: 2200, price: 10 })], { cash: 78_000 }).result, 'DDD').type).toBe('HOLD');
    // 22.01%: trimmed by the excess, rounded up to whole shares ($2,010 -> 201 shares).
    const just = rec(assess([pos('DDD', { shares: 2201, price: 10 })], { cash: 77_990 }).result, 'DDD');
    expect(just.type).toBe('TRIM');
    expect(just.suggested_share_change).toBe(-201);
    // With DEFAULT 10%, 15% is drift: sell back to $10,000 (rounding the excess up to whole shares).
    const tight = rec(assess([pos('DDD', { shares: 1500, price: 10 })], { cash: 85_000, pack: { sector_caps: { DEFAULT: 0.1 } } }).result, 'DDD');
    expect(tight.type).toBe('TRIM');
    expect(tight.suggested_share_change).toBe(-500);
    expect(tight.score).toBe(0.5);
  });

  it('ADD a strong BUY with room: the shares sizeIdea allows with the cash, score = quality', () => {
    // 10 shares at 100 ($1,000 of $100,000); stop 96 (risk 4/share): the 20% name cap leaves 190 shares.
    const s = pos('SSS', { stage: 2, shares: 10, price: 100, stop: 96, boughtStop: 90 });
    const scene = assess([s], { cash: 99_000 });
    const r = rec(scene.result, 'SSS');
    expect(r.rating).toBe('STRONG');
    expect(r.type).toBe('ADD');
    expect(r.suggested_share_change).toBe(190);
    expect(sizeIdea(s.c!, bookState(scene.portfolio, scene.market), 99_000 * 100, { shares: 10, riskCents: 10 * (100 - 90) * 100 })).toEqual({ shares: 190, bound: 'max_position_size' });
    expect(r.score).toBe(qualityOf(s.c!));
    expect(r.reasons.join(' ')).toContain('max_position_size');
  });

  // Regression (book.ts sizeIdea, used by ADD): the max_risk_per_trade limit once subtracted the held
  // shares at the candidate's *new* stop, not "the name's open risk" (shares x (price - the stop they were
  // bought with)). Held: 10 shares at 100 bought with stop 80 ($200 open risk); new stop 94 (risk 6):
  // (1,000 - 200) / 6 = 133 more shares, not (1,000 - 60) / 6 = 156.
  it('ADDs share the cash and the risk room, best quality first, so together they fit', () => {
    // Five strong BUY holdings of different quality ($1,000 each), $1,500 of cash (V = $6,500) and a 50%
    // name cap: alone, each could add 15 shares (the cash binds before the per-trade risk's 18).
    const holdings = [0.95, 0.9, 0.85, 0.8, 0.75].map((confidence, i) =>
      pos(`S${i}`, { stage: 2, strength: 'VERY_STRONG', confidence, shares: 10, price: 100, stop: 97, boughtStop: 99, sector: ['Energy', 'Utilities', 'Materials', 'Energy', 'Utilities'][i] }),
    );
    const { result, portfolio: pf, market: mk } = assess(holdings, { cash: 1_500, risk: { max_position_size: 0.5 } });
    const adds = result.recommendations.filter((r) => r.type === 'ADD');
    expect(adds.length).toBeGreaterThan(0);
    const spent = adds.reduce((sum, r) => sum + r.suggested_share_change * Math.round((r.current_price as number) * 100), 0);
    expect(spent).toBeLessThanOrEqual(1_500 * 100);
    expect(adds.length).toBeLessThan(5);
    // The best-quality holding is served first: it gets what it would get alone.
    const best = holdings[0];
    const alone = sizeIdea(best.c!, bookState(pf, mk), 1_500 * 100, { shares: 10, riskCents: 10 * (100 - 99) * 100 });
    expect(alone.shares).toBeGreaterThan(0);
    expect(rec(result, 'S0').suggested_share_change).toBe(alone.shares);
    // Those left without room say so.
    for (const r of result.recommendations.filter((x) => x.type === 'HOLD' && x.rating === 'STRONG')) {
      expect(r.reasons.join(' ')).toMatch(/after the better-rated additions/);
    }
  });

  it('ADD counts the open risk of the held shares at the stop they were bought with', () => {
    const s = pos('SSS', { stage: 2, shares: 10, price: 100, stop: 94, boughtStop: 80 });
    const r = rec(assess([s], { cash: 99_000 }).result, 'SSS');
    expect(r.type).toBe('ADD');
    expect(r.suggested_share_change).toBe(Math.floor((1_000 - 10 * (100 - 80)) / 6));
  });

  it('HOLD a strong BUY without room, a strong HOLD signal, and a neutral holding', () => {
    // At the 20% cap exactly: no room to add, not drifted.
    const full = pos('FULL', { stage: 2, shares: 2000, price: 10 });
    const strongHold = pos('SHLD', { stage: 2, row: { signal: 'HOLD' }, over: { confidence: 0.7 } });
    const neutral = pos('NEUT', { stage: 1 });
    const { result } = assess([full, strongHold, neutral], { cash: 78_000 });
    expect(rec(result, 'FULL').type).toBe('HOLD');
    expect(rec(result, 'FULL').rating).toBe('STRONG');
    expect(rec(result, 'FULL').suggested_share_change).toBe(0);
    expect(rec(result, 'FULL').reasons.join(' ')).toContain('no room to add');
    expect(rec(result, 'SHLD').rating).toBe('STRONG');
    expect(rec(result, 'SHLD').type).toBe('HOLD');
    expect(rec(result, 'NEUT').type).toBe('HOLD');
    expect(rec(result, 'NEUT').score).toBe(qualityOf(neutral.c!));
  });

  it('HOLD a holding without analysis (weak, score 0)', () => {
    const { result } = assess([pos('GONE', { noSnapshot: true, shares: 4, boughtAt: 25 })]);
    const r = rec(result, 'GONE');
    expect(r.type).toBe('HOLD');
    expect(r.rating).toBe('WEAK');
    expect(r.score).toBe(0);
    expect(r.suggested_share_change).toBe(0);
    expect(r.current_price).toBeNull();
    expect(r.unrealized_return).toBeNull();
    expect(r.stage).toBeNull();
    expect(r.reasons.join(' ')).toContain('hold until the symbol is analysed again');
  });

  it('a holding without a stop of its own: the snapshot\'s stop (reported and used for the stop hit), else 0', () => {
    // A book created from holdings: AAA has no stop, its snapshot suggests 95 (price 100); BBB has
    // neither a stop nor a snapshot; CCC has no stop and closed at 90, below its snapshot's stop 92.
    const a = pos('AAA', { stage: 2, price: 100, boughtAt: 80 });
    const b = pos('BBB', { noSnapshot: true, boughtAt: 25 });
    const c = pos('CCC', { stage: 2, price: 90, boughtAt: 100, over: { stop_loss: 92 } });
    for (const x of [a, b, c]) x.h = { ...x.h, stop_loss: null };
    const { result } = assess([a, b, c]);
    expect(rec(result, 'AAA')).toMatchObject({ stop_loss: 95, entry_price: 80 });
    expect(rec(result, 'AAA').type).not.toBe('EXIT');
    expect(rec(result, 'AAA').reasons.join(' ')).toContain("no stop of its own: risk measured at the analysis's suggested stop 95");
    expect(rec(result, 'BBB')).toMatchObject({ stop_loss: 0, type: 'HOLD' });
    expect(rec(result, 'BBB').reasons.join(' ')).toContain('no stop and no analysis: its whole value counts as open risk');
    expect(rec(result, 'CCC')).toMatchObject({ type: 'EXIT', stop_loss: 92, rating: 'WEAK' });
  });

  it('a holding with a cost basis of 0 has no unrealized return (not Infinity)', () => {
    const a = pos('AAA', { stage: 2, price: 100, boughtAt: 0, boughtStop: 50 });
    const r = rec(assess([a]).result, 'AAA');
    expect(r.entry_price).toBe(0);
    expect(r.unrealized_return).toBeNull();
    expect(r.current_price).toBe(100);
  });

  it('orders by action (EXIT, REPLACE, TRIM, ADD, HOLD), then score descending, then symbol; counts strong and weak', () => {
    const positions = [
      pos('H2', { stage: 1, confidence: 0.6 }), // HOLD, neutral
      pos('H1', { stage: 1, confidence: 0.6 }), // HOLD, same score: symbol order
      pos('H0', { stage: 1, confidence: 0.9 }), // HOLD, higher score first
      pos('A1', { stage: 2, shares: 1 }), // ADD
      pos('E2', { stage: 4, confidence: 0.9 }), // EXIT, lower score (1 - quality)
      pos('E1', { stage: 4, confidence: 0.1 }), // EXIT, higher score
      pos('T1', { stage: 3, strength: 'VERY_STRONG', confidence: 1, relativeStrength: 50 }), // weak, nothing better: TRIM
      pos('R1', { stage: 3, confidence: 0.1, relativeStrength: -50 }), // weak, low quality: REPLACE
      pos('NO', { noSnapshot: true }), // HOLD, score 0
    ];
    const eligible = [replacement('ZZZ', 0.5)];
    const { result } = assess(positions, { eligible });
    expect(result.recommendations.map((r) => `${r.type}:${r.symbol}`)).toEqual([
      'EXIT:E1',
      'EXIT:E2',
      'REPLACE:R1',
      'TRIM:T1',
      'ADD:A1',
      'HOLD:H0',
      'HOLD:H1',
      'HOLD:H2',
      'HOLD:NO',
    ]);
    expect(result.total_positions).toBe(9);
    expect(result.strong_positions).toBe(1); // A1
    expect(result.weak_positions).toBe(5); // E1, E2, T1, R1, NO
    expect(result.available_cash).toBe(100_000);
    expect(result.portfolio_value).toBe(100_000 + 8 * 1_000 + 100);
  });
});

describe('generalAssessment: concerns', () => {
  it('SECTOR_CONCENTRATION above 35% without a cap, not at it', () => {
    // Two Technology names of $17,500 each of V = $100,000: 35% exactly.
    const at = assess([pos('T1', { shares: 175 }), pos('T2', { shares: 175 })], { cash: 65_000 });
    expect(concerns(at.result, 'SECTOR_CONCENTRATION')).toEqual([]);
    const above = assess([pos('T2', { shares: 180 }), pos('T1', { shares: 180 }), pos('E1', { shares: 10, sector: 'Energy' })], { cash: 63_000 });
    const c = concerns(above.result, 'SECTOR_CONCENTRATION');
    expect(c).toHaveLength(1);
    expect(c[0].symbols).toEqual(['T1', 'T2']);
    expect(c[0].value).toBe(0.36);
    expect(c[0].threshold).toBe(0.35);
    expect(c[0].score).toBe(round4((0.36 - 0.35) / 0.35));
  });

  it('SECTOR_CONCENTRATION above the sector cap when there is one (the DEFAULT key is not a sector)', () => {
    const caps = { pack: { sector_caps: { Technology: 0.3, DEFAULT: 0.2 } } };
    expect(concerns(assess([pos('T1', { shares: 150 }), pos('T2', { shares: 150 })], { cash: 70_000, ...caps }).result, 'SECTOR_CONCENTRATION')).toEqual([]);
    const above = concerns(assess([pos('T1', { shares: 160 }), pos('T2', { shares: 150 })], { cash: 69_000, ...caps }).result, 'SECTOR_CONCENTRATION');
    expect(above).toHaveLength(1);
    expect(above[0].threshold).toBe(0.3);
    expect(above[0].score).toBe(round4((0.31 - 0.3) / 0.3));
    expect(above[0].reasons[0]).toContain('cap');
    // A cap above 35% lets the sector go above 35%.
    const loose = assess([pos('T1', { shares: 200 }), pos('T2', { shares: 200 })], { cash: 60_000, pack: { sector_caps: { Technology: 0.5 } } });
    expect(concerns(loose.result, 'SECTOR_CONCENTRATION')).toEqual([]);
  });

  it('CORRELATED_PAIR exactly when the measured correlation is at least 0.8', () => {
    const N = 150;
    const x = noise(N, 21);
    const z = noise(N, 22);
    const outcomes: Array<{ rho: number; fired: boolean }> = [];
    for (let t = 0.6; t <= 0.9; t += 0.005) {
      const y = x.map((v, k) => v + t * z[k]);
      const scene = assess([pos('AAA'), pos('BBB', { sector: 'Energy' })], { closes: { AAA: seriesFromReturns(x), BBB: seriesFromReturns(y) } });
      const rho = correlation(scene.market.returns.returns('AAA')!, scene.market.returns.returns('BBB')!)!;
      const pair = concerns(scene.result, 'CORRELATED_PAIR');
      expect(pair.length === 1).toBe(rho >= CORRELATED_PAIR_THRESHOLD);
      if (pair.length) {
        expect(pair[0].symbols).toEqual(['AAA', 'BBB']);
        expect(pair[0].score).toBe(round4(rho));
        expect(pair[0].threshold).toBe(0.8);
      }
      outcomes.push({ rho, fired: pair.length === 1 });
    }
    // The grid crosses the threshold closely on both sides.
    expect(outcomes.some((o) => o.fired && o.rho < 0.805)).toBe(true);
    expect(outcomes.some((o) => !o.fired && o.rho > 0.795)).toBe(true);
  });

  it('HIGH_VOLATILITY for a holding at 60% historical volatility or flagged, not below', () => {
    const { result } = assess([
      pos('AT', { row: { historical_volatility: 0.6 } }),
      pos('BELOW', { row: { historical_volatility: 0.5999 } }),
      pos('FLAG', { row: { historical_volatility: null, is_high_volatility: true } }),
      pos('HUGE', { row: { historical_volatility: 1.7 } }),
    ]);
    const hv = concerns(result, 'HIGH_VOLATILITY');
    expect(hv.map((c) => c.symbols[0]).sort()).toEqual(['AT', 'FLAG', 'HUGE']);
    const by = (s: string): Concern => hv.find((c) => c.symbols[0] === s)!;
    expect(by('AT').score).toBe(0.6);
    expect(by('AT').threshold).toBe(HIGH_VOLATILITY_THRESHOLD);
    expect(by('FLAG').score).toBe(0.6);
    expect(by('FLAG').value).toBe(0);
    expect(by('HUGE').score).toBe(1);
    expect(by('HUGE').value).toBe(1.7);
  });

  it("HIGH_VOLATILITY for the book when its volatility is above the pack's vol target", () => {
    const closes = { AAA: seriesFromReturns(noise(120, 31, 0.03)) };
    const base = assess([pos('AAA', { shares: 500 })], { cash: 50_000, closes });
    const vol = bookState(base.portfolio, base.market).volatility!;
    expect(vol).toBeGreaterThan(0.05);
    expect(base.result.portfolio_volatility).toBe(Math.round(vol * 1e6) / 1e6);
    const book = (target: number): Concern[] =>
      concerns(assess([pos('AAA', { shares: 500 })], { cash: 50_000, closes, pack: { vol_target_annual: target } }).result, 'HIGH_VOLATILITY').filter(
        (c) => c.symbols.length === 0,
      );
    const above = book(vol * 0.999);
    expect(above).toHaveLength(1);
    expect(above[0].score).toBe(round4(Math.min(1, vol / (vol * 0.999) - 1)));
    expect(above[0].threshold).toBe(vol * 0.999);
    expect(book(vol * 1.001)).toEqual([]);
    expect(book(vol / 3)[0].score).toBe(1);
  });

  it('STALE_ANALYSIS for a holding with an older snapshot (days / 30) or none (1)', () => {
    const { result } = assess([pos('OLD', { analysisDate: '2024-06-18' }), pos('NEW'), pos('NONE', { noSnapshot: true })]);
    const stale = concerns(result, 'STALE_ANALYSIS').filter((c) => c.symbols.length);
    expect(stale.map((c) => c.symbols[0]).sort()).toEqual(['NONE', 'OLD']);
    const old = stale.find((c) => c.symbols[0] === 'OLD')!;
    expect(old.value).toBe(10);
    expect(old.score).toBe(round4(10 / 30));
    expect(stale.find((c) => c.symbols[0] === 'NONE')!.score).toBe(1);
    expect(daysBetween('2024-05-01', '2024-06-28')).toBe(58);
    expect(concerns(assess([pos('ANCIENT', { analysisDate: '2024-04-01' })]).result, 'STALE_ANALYSIS')[0].score).toBe(1);
  });

  it('STALE_ANALYSIS for a book built 7 or more days before the newest analysis (days / 90)', () => {
    const book = (date: string | null): Concern[] => concerns(assess([pos('AAA')], { analysisDate: date }).result, 'STALE_ANALYSIS');
    expect(STALE_BOOK_DAYS).toBe(7);
    const seven = book('2024-06-21');
    expect(seven).toHaveLength(1);
    expect(seven[0].symbols).toEqual([]);
    expect(seven[0].value).toBe(7);
    expect(seven[0].score).toBe(round4(7 / 90));
    expect(book('2024-06-22')).toEqual([]);
    expect(book(null)).toEqual([]);
    expect(book('2023-06-28')[0].score).toBe(1);
  });

  it('BROKEN_SUPPORT for a close below the support under the entry, score 10 x the fraction below', () => {
    const { result } = assess([pos('BRK', { price: 95, boughtAt: 110, support: 100 }), pos('AT', { price: 100, boughtAt: 110, support: 100 })]);
    const broken = concerns(result, 'BROKEN_SUPPORT');
    expect(broken).toHaveLength(1);
    expect(broken[0].symbols).toEqual(['BRK']);
    expect(broken[0].score).toBe(0.5);
    expect(broken[0].value).toBe(95);
    expect(broken[0].threshold).toBe(100);
    expect(concerns(assess([pos('DEEP', { price: 50, boughtAt: 110, boughtStop: 40, support: 100 })]).result, 'BROKEN_SUPPORT')[0].score).toBe(1);
  });

  it('CASH_DRAG above 10% cash, not at it; score = the cash fraction', () => {
    // $9,000 of positions.
    const at = assess([pos('AAA', { shares: 90 })], { cash: 1_000 });
    expect(concerns(at.result, 'CASH_DRAG')).toEqual([]);
    const above = assess([pos('AAA', { shares: 90 })], { cash: 1_000.12 });
    const drag = concerns(above.result, 'CASH_DRAG');
    expect(drag).toHaveLength(1);
    expect(drag[0].threshold).toBe(CASH_DRAG_THRESHOLD);
    expect(drag[0].value).toBe(Math.round((100_012 / 1_000_012) * 1e6) / 1e6);
    expect(drag[0].score).toBe(round4(100_012 / 1_000_012));
    expect(drag[0].symbols).toEqual([]);
  });

  it('orders concerns by score descending, then type, then symbols', () => {
    const { result } = assess(
      [
        pos('T1', { shares: 200 }), // Technology 40% (score 0.1429)
        pos('T2', { shares: 200, analysisDate: '2024-06-25' }), // stale 3 days: 0.1
        pos('S2', { analysisDate: '2024-06-25', sector: 'Energy' }), // stale 3 days: 0.1 (same score: symbols)
        pos('HV', { sector: 'Utilities', row: { historical_volatility: 0.7 } }), // 0.7
        pos('BS', { sector: 'Utilities', price: 99, boughtAt: 110, support: 100 }), // broken 1%: 0.1 (type order)
      ],
      { cash: 57_010 }, // V = $100,000
    );
    const keys = result.concerns.map((c) => `${c.type}:${c.symbols.join(',')}:${c.score}`);
    expect(keys).toEqual([
      'HIGH_VOLATILITY:HV:0.7',
      'CASH_DRAG::0.5701',
      'SECTOR_CONCENTRATION:T1,T2:' + round4((0.4 - 0.35) / 0.35),
      'BROKEN_SUPPORT:BS:0.1',
      'STALE_ANALYSIS:S2:0.1',
      'STALE_ANALYSIS:T2:0.1',
    ]);
    const sorted = [...result.concerns].sort((a, b) => b.score - a.score || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0) || a.symbols.join(',').localeCompare(b.symbols.join(',')));
    expect(result.concerns).toEqual(sorted);
  });
});
