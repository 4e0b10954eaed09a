/**
 * suitability.ts: the verdict (UNSUITABLE, CAUTION, SUITABLE) and each condition behind it, a held
 * ticker judged against the rest of the book, and same-sector alternatives.
 */
import type { Candidate } from '../../../subgraphs/allocation/engine/types.js';
import { bookState, sizeIdea } from '../../../subgraphs/search/engine/book.js';
import { correlation } from '../../../subgraphs/search/engine/returns.js';
import { HIGH_CORRELATION, NEAR_CAP, SUITABLE_FROM, UNSUITABLE_BELOW, suitabilityOf } from '../../../subgraphs/search/engine/suitability.js';
import type { PortfolioView } from '../../../subgraphs/search/engine/types.js';
import { cand, holding, market, noise, portfolio, seriesFromReturns, type CandidateSpec, type PortfolioSpec } from './fixtures.js';

const N = 150;
const r1 = noise(N, 51);
const r2 = noise(N, 52);
const rIndependent = noise(N, 53);
const rWithBook = r1.map((v, k) => v + r2[k] + 0.2 * rIndependent[k]);

/** H1 (Technology) and H2 (Energy), 100 shares at 100 each, $80,000 cash: V = $100,000. */
function book(spec: PortfolioSpec = {}, h1Shares = 100): PortfolioView {
  return portfolio(
    [holding('H1', { shares: h1Shares, entry: 100, stop: 90, sector: 'Technology' }), holding('H2', { shares: 100, entry: 100, stop: 90, sector: 'Energy' })],
    { cash: 80_000, ...spec },
  );
}

const held = [cand('H1', { entry: 100, stop: 90, sector: 'Technology', eligible: true }), cand('H2', { entry: 100, stop: 90, sector: 'Energy', eligible: true })];

/** High quality (~0.94): stage 2 VERY_STRONG, confidence 0.95, win 0.6, RS 20; entry 100, stop 90. */
const good = (symbol: string, spec: CandidateSpec = {}): Candidate =>
  cand(symbol, { stage: 2, strength: 'VERY_STRONG', confidence: 0.95, winProbability: 0.6, relativeStrength: 20, entry: 100, stop: 90, sector: 'Utilities', eligible: true, ...spec });

function marketWith(extra: Candidate[], closes: Record<string, ReturnType<typeof seriesFromReturns>> = {}) {
  return market({ candidates: [...held, ...extra], closes: { H1: seriesFromReturns(r1), H2: seriesFromReturns(r2), ...closes } });
}

describe('suitabilityOf: verdict', () => {
  it('UNSUITABLE when the long rule rejects the ticker (the reason names the exclusion)', () => {
    const c = good('BAD', { eligible: false });
    const s = suitabilityOf(book(), marketWith([c]), c);
    expect(s.verdict).toBe('UNSUITABLE');
    expect(s.eligible).toBe(false);
    expect(s.reasons).toContain('not a long candidate: fixture: not eligible');
  });

  it('UNSUITABLE when not one share fits the name limits of its own', () => {
    // One share ($25,000) is above 20% of V = $100,000.
    const c = good('PRICY', { entry: 25_000, stop: 24_000 });
    const s = suitabilityOf(book(), marketWith([c]), c);
    expect(s.verdict).toBe('UNSUITABLE');
    expect(s.suggested_shares).toBe(0);
    expect(s.fundable_from_cash).toBe(false);
    expect(s.reasons.join(' ')).toContain('max_position_size');
  });

  it('CAUTION (not UNSUITABLE) when the book has no room for it now', () => {
    // The holdings' $2,000 of open risk uses up a 2% max_portfolio_risk; the name's own limits allow 100 shares.
    const c = good('FULL');
    const s = suitabilityOf(book({ risk: { max_portfolio_risk: 0.02 } }), marketWith([c]), c);
    expect(s.fit_score).toBeGreaterThanOrEqual(SUITABLE_FROM);
    expect(s.suggested_shares).toBe(0);
    expect(s.fundable_from_cash).toBe(false);
    expect(s.verdict).toBe('CAUTION');
    expect(s.reasons.join(' ')).toContain('max_portfolio_risk');
    // Fit and effects are measured at the size of the name's own limits.
    expect(s.sector_effect.weight_after).toBe(0.1);
  });

  it('UNSUITABLE when the fit score is below 0.3', () => {
    const c = good('LOW', { strength: 'WEAK', confidence: 0, relativeStrength: -50, target: null });
    const s = suitabilityOf(book(), marketWith([c]), c);
    expect(s.fit_score).toBeLessThan(UNSUITABLE_BELOW);
    expect(s.verdict).toBe('UNSUITABLE');
    expect(s.reasons.join(' ')).toContain(`is below ${UNSUITABLE_BELOW}`);
  });

  it('CAUTION when the fit score is below 0.5 (and nothing else)', () => {
    // Quality 0.505, unmeasurable correlation (-0.125): fit 0.38.
    const c = good('MID', { strength: 'MODERATE', confidence: 0.8, relativeStrength: 0, target: null });
    const s = suitabilityOf(book(), marketWith([c]), c);
    expect(s.fit_score).toBeGreaterThanOrEqual(UNSUITABLE_BELOW);
    expect(s.fit_score).toBeLessThan(SUITABLE_FROM);
    expect(s.verdict).toBe('CAUTION');
    expect(s.reasons).toContain(`fit score ${s.fit_score.toFixed(2)} is below ${SUITABLE_FROM}`);
  });

  it('CAUTION when the correlation with the book is at least 0.7', () => {
    const c = good('CORR');
    const m = marketWith([c], { CORR: seriesFromReturns(rWithBook) });
    const s = suitabilityOf(book(), m, c);
    expect(s.correlation_to_portfolio!).toBeGreaterThanOrEqual(HIGH_CORRELATION);
    expect(s.fit_score).toBeGreaterThanOrEqual(SUITABLE_FROM);
    expect(s.verdict).toBe('CAUTION');
    expect(s.reasons.join(' ')).toContain(`is at least ${HIGH_CORRELATION}`);
    // The most correlated holding is the one with the highest correlation.
    const rhos = ['H1', 'H2'].map((h) => ({ symbol: h, correlation: correlation(m.returns.returns('CORR')!, m.returns.returns(h)!)! }));
    const best = rhos.sort((a, b) => b.correlation - a.correlation)[0];
    expect(s.most_correlated_holding).toEqual({ symbol: best.symbol, correlation: Math.round(best.correlation * 1e4) / 1e4 });
  });

  it('CAUTION when the sector ends at 90% of its cap or more; SUITABLE below that', () => {
    const c = good('TECH', { sector: 'Technology' });
    const withCap = (cap: number) => suitabilityOf(book({ pack: { sector_caps: { Technology: cap } } }), marketWith([c]), c);
    // Technology holds 10%. The name's own limits give 100 shares ($10,000, the 1% risk limit): 20% after,
    // whatever the cap; the suggestion stays within the cap.
    const atCap = withCap(0.18);
    expect(atCap.sector_effect).toEqual({ sector: 'Technology', weight_before: 0.1, weight_after: 0.2, cap: 0.18 });
    expect(atCap.suggested_shares).toBe(80);
    expect(atCap.verdict).toBe('CAUTION');
    expect(atCap.reasons.join(' ')).toContain('18.0% cap');
    // Cap 22%: 20% after is at least 90% of it (19.8%).
    const near = withCap(0.22);
    expect(near.sector_effect.weight_after).toBe(0.2);
    expect(near.sector_effect.weight_after).toBeGreaterThanOrEqual(NEAR_CAP * 0.22);
    expect(near.suggested_shares).toBe(100);
    expect(near.fit_score).toBeGreaterThanOrEqual(SUITABLE_FROM);
    expect(near.verdict).toBe('CAUTION');
    expect(near.reasons.join(' ')).toContain('22.0% cap');
    // Cap 23%: 90% of it is 20.7%, above the 20% after.
    const under = withCap(0.23);
    expect(under.sector_effect.weight_after).toBeLessThan(NEAR_CAP * 0.23);
    expect(under.verdict).toBe('SUITABLE');
  });

  it("CAUTION when the book's volatility after would be above the vol target", () => {
    const c = good('IND');
    const m = marketWith([c], { IND: seriesFromReturns(rIndependent) });
    const free = suitabilityOf(book(), m, c);
    expect(free.verdict).toBe('SUITABLE');
    const after = free.portfolio_volatility_after!;
    expect(after).toBeGreaterThan(0);
    const over = suitabilityOf(book({ pack: { vol_target_annual: after * 0.99 } }), m, c);
    expect(over.verdict).toBe('CAUTION');
    expect(over.vol_target_annual).toBe(after * 0.99);
    expect(over.reasons.join(' ')).toContain('above the');
    expect(suitabilityOf(book({ pack: { vol_target_annual: after * 1.01 } }), m, c).verdict).toBe('SUITABLE');
  });

  it('SUITABLE otherwise, with the sizing figures', () => {
    const c = good('IND');
    const m = marketWith([c], { IND: seriesFromReturns(rIndependent) });
    const s = suitabilityOf(book(), m, c);
    expect(s.verdict).toBe('SUITABLE');
    expect(s.reasons[s.reasons.length - 1]).toBe('eligible, room under every cap, and it fits the portfolio');
    expect(Math.abs(s.correlation_to_portfolio!)).toBeLessThan(HIGH_CORRELATION);
    // 1% of $100,000 at $10 of risk a share.
    expect(s.suggested_shares).toBe(100);
    expect(s.suggested_value).toBe(10_000);
    expect(s.risk_amount).toBe(1_000);
    expect(s.fundable_from_cash).toBe(true);
    expect(s.already_held).toBe(false);
    expect(s.sector_effect).toEqual({ sector: 'Utilities', weight_before: 0, weight_after: 0.1, cap: null });
    expect(s.portfolio_volatility_before).toBe(Math.round(bookState(book(), m).volatility! * 1e6) / 1e6);
    // Not fundable from $15,000 of cash: with 20% per trade and 50% per name, V = $35,000 allows 175
    // shares ($17,500; the size ignores cash).
    const poor = suitabilityOf(book({ cash: 15_000, risk: { max_risk_per_trade: 0.2, max_position_size: 0.5, max_portfolio_risk: 1 } }), m, c);
    expect(poor.suggested_shares).toBe(175);
    expect(poor.fundable_from_cash).toBe(false);
  });
});

describe('suitabilityOf: a held ticker', () => {
  it('is judged against the rest of the book: suggested shares = allowed in all - held', () => {
    // 40 H1 shares: V = $94,000; the rest of the book allows floor(1% x 94,000 / 10) = 94 H1 shares in all.
    const p = book({}, 40);
    const m = marketWith([]);
    const c = held[0];
    const s = suitabilityOf(p, m, c);
    expect(s.already_held).toBe(true);
    const allowed = sizeIdea(c, bookState(p, m, 'H1'), null).shares;
    expect(allowed).toBe(94);
    expect(s.suggested_shares).toBe(allowed - 40);
    expect(s.suggested_value).toBe(54 * 100);
    expect(s.reasons).toContain('already held: 40 shares; the risk settings allow 94 in all, so 54 more (judged against the rest of the portfolio)');
    // Its correlation is with the rest (H2), never with itself.
    const withRest = correlation(m.returns.returns('H1')!, m.returns.returns('H2')!)!;
    expect(s.correlation_to_portfolio).toBeCloseTo(withRest, 4);
    expect(s.most_correlated_holding?.symbol).toBe('H2');
    // Sector weight after: the rest's Technology (none) plus the allowed total.
    expect(s.sector_effect.weight_before).toBe(Math.round((4_000 / 94_000) * 1e6) / 1e6);
    expect(s.sector_effect.weight_after).toBe(Math.round((9_400 / 94_000) * 1e6) / 1e6);
  });

  it('suggests no more shares when it already holds the allowed total', () => {
    const s = suitabilityOf(book({}, 150), marketWith([]), held[0]);
    expect(s.already_held).toBe(true);
    expect(s.suggested_shares).toBe(0);
    expect(s.fundable_from_cash).toBe(false);
  });
});

describe('suitabilityOf: alternatives', () => {
  const ticker = good('TKR', { sector: 'Technology', confidence: 0.5, strength: 'MODERATE' });
  const eligible = [
    ticker,
    good('ALT2', { sector: 'Technology', confidence: 0.8 }),
    good('ALT1', { sector: 'Technology', confidence: 0.95 }),
    good('ALT3', { sector: 'Technology', confidence: 0.8 }), // ties ALT2: symbol order
    good('LOW', { sector: 'Technology', confidence: 0, strength: 'WEAK', relativeStrength: -50 }),
    good('OTHER', { sector: 'Energy', confidence: 1 }),
  ];
  const m = market({ candidates: [...held, ...eligible], closes: { H1: seriesFromReturns(r1), H2: seriesFromReturns(r2) } });

  it('are not-held names of the same sector with a higher fit, ranked by fit then symbol', () => {
    const s = suitabilityOf(book(), m, ticker);
    expect(s.alternatives.map((a) => a.symbol)).toEqual(['ALT1', 'ALT2', 'ALT3']);
    for (const a of s.alternatives) {
      expect(a.sector).toBe('Technology');
      expect(a.fit_score).toBeGreaterThan(s.fit_score);
    }
    // H1 (held, Technology, eligible) is never an alternative, even when it would fit better.
    expect(s.alternatives.map((a) => a.symbol)).not.toContain('H1');
  });

  it('are sized and scored as the ticker is: their own limits, whatever cash or risk room is left', () => {
    // Plenty of room, little room, none: the same alternatives, the same sizes.
    const roomy = suitabilityOf(book({ cash: 3_000, risk: { max_risk_per_trade: 0.1, max_portfolio_risk: 1 } }), m, ticker);
    expect(roomy.alternatives.length).toBeGreaterThan(0);
    for (const a of roomy.alternatives) {
      expect(a.shares).toBeGreaterThanOrEqual(1);
      expect(a.fit_score).toBeGreaterThan(roomy.fit_score);
      expect(a.reasons.join(' ')).toMatch(/limited by (max_position_size|max_risk_per_trade)/);
    }
    const none = suitabilityOf(book({ cash: 0, risk: { max_portfolio_risk: 1 } }), m, ticker);
    expect(none.alternatives.map((a) => a.symbol)).toEqual(['ALT1', 'ALT2', 'ALT3']);
    for (const a of none.alternatives) expect(a.shares).toBeGreaterThan(0);
    // The book's open risk spent: the ticker has no room now, and the better alternatives are still named.
    const spent = suitabilityOf(book({ cash: 3_000, risk: { max_portfolio_risk: 0.0001 } }), m, ticker);
    expect(spent.suggested_shares).toBe(0);
    expect(spent.alternatives.map((a) => a.symbol)).toEqual(none.alternatives.map((a) => a.symbol));
  });
});
