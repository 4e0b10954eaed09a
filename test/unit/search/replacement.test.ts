/**
 * replacement.ts: candidates for one holding, sized with its freed capital against the rest of the
 * book, ranked by fit.
 */
import fc from 'fast-check';
import { bookState, sizeIdea } from '../../../subgraphs/search/engine/book.js';
import { replacementsFor } from '../../../subgraphs/search/engine/replacement.js';
import { correlation } from '../../../subgraphs/search/engine/returns.js';
import { cand, cents, holding, market, noise, portfolio, seriesFromReturns } from './fixtures.js';

const N = 150;
const rOut = noise(N, 41);
const rKeep = noise(N, 42);

// OUT: 20 shares bought at 80, now at 100 (frees $2,000). KEEP: 10 Energy shares at 100. Both are also
// eligible names of the newest date; neither may come back as a replacement.
const p = portfolio(
  [holding('OUT', { shares: 20, entry: 80, stop: 70, sector: 'Technology' }), holding('KEEP', { shares: 10, entry: 100, stop: 90, sector: 'Energy' })],
  { cash: 10_000 },
);
const eligible = [
  cand('OUT', { entry: 100, stop: 95, stage: 3, eligible: true }),
  cand('KEEP', { entry: 100, stop: 95, sector: 'Energy', eligible: true }),
  cand('AAA', { entry: 30, stop: 29, confidence: 0.9, eligible: true }), // cash-bound: 66 shares
  cand('BBB', { entry: 40, stop: 30, confidence: 0.7, eligible: true, sector: 'Utilities' }), // risk-bound
  cand('TIE2', { entry: 25, stop: 24, confidence: 0.5, eligible: true, sector: 'Materials' }),
  cand('TIE1', { entry: 25, stop: 24, confidence: 0.5, eligible: true, sector: 'Materials' }),
  cand('CLONE', { entry: 50, stop: 48, confidence: 0.6, eligible: true, sector: 'Health Care' }),
  cand('EXP', { entry: 2_500, stop: 2_400, confidence: 1, eligible: true }), // one share is more than $2,000
  cand('NOTE', { entry: 20, stop: 19, eligible: false }), // not eligible: never considered
];
const m = market({
  candidates: eligible,
  closes: { OUT: seriesFromReturns(rOut), KEEP: seriesFromReturns(rKeep), CLONE: seriesFromReturns(rOut) },
});

describe('replacementsFor', () => {
  const r = replacementsFor(p, m, 'OUT');

  it('frees shares x the newest close', () => {
    expect(r.freed_capital).toBe(2_000);
    expect(r.current_price).toBe(100);
    expect(r.shares).toBe(20);
    expect(r.sector).toBe('Technology');
    expect(r.rating).toBe('WEAK'); // stage 3
    expect(r.reasons.join(' ')).toContain('topping');
  });

  it('never proposes a held symbol, nor an ineligible one', () => {
    const symbols = r.candidates.map((c) => c.symbol);
    expect(symbols).not.toContain('OUT');
    expect(symbols).not.toContain('KEEP');
    expect(symbols).not.toContain('NOTE');
    expect([...symbols].sort()).toEqual(['AAA', 'BBB', 'CLONE', 'TIE1', 'TIE2']);
  });

  it('sizes every candidate with the freed capital as its budget, against the rest of the book', () => {
    const rest = bookState(p, m, 'OUT');
    expect(rest.valueCents).toBe(bookState(p, m).valueCents);
    for (const idea of r.candidates) {
      expect(cents(idea.position_value)).toBeLessThanOrEqual(cents(2_000));
      const c = eligible.find((x) => x.symbol === idea.symbol)!;
      expect(idea.shares).toBe(sizeIdea(c, rest, cents(2_000)).shares);
      expect(idea.shares).toBeGreaterThanOrEqual(1);
    }
    const aaa = r.candidates.find((c) => c.symbol === 'AAA')!;
    expect(aaa.shares).toBe(66); // floor(2,000 / 30)
    expect(aaa.reasons.join(' ')).toContain('limited by cash');
    // BBB: 1% of V = $130 of risk at $10 a share: 13 shares, under the $2,000.
    const bbb = r.candidates.find((c) => c.symbol === 'BBB')!;
    expect(bbb.shares).toBe(13);
    expect(bbb.reasons.join(' ')).toContain('limited by max_risk_per_trade');
  });

  it('measures correlation with the remaining holdings, not the one sold', () => {
    const clone = r.candidates.find((c) => c.symbol === 'CLONE')!;
    const withKeep = correlation(m.returns.returns('CLONE')!, m.returns.returns('KEEP')!)!;
    expect(clone.correlation_to_portfolio).toBeCloseTo(withKeep, 4);
    expect(Math.abs(clone.correlation_to_portfolio!)).toBeLessThan(0.5);
  });

  it('ranks by fit score descending, ties by symbol', () => {
    const fits = r.candidates.map((c) => c.fit_score);
    for (let i = 1; i < fits.length; i++) expect(fits[i]).toBeLessThanOrEqual(fits[i - 1]);
    const t1 = r.candidates.findIndex((c) => c.symbol === 'TIE1');
    const t2 = r.candidates.findIndex((c) => c.symbol === 'TIE2');
    expect(r.candidates[t1].fit_score).toBe(r.candidates[t2].fit_score);
    expect(t2).toBe(t1 + 1);
    // The order does not depend on the eligible list's order.
    const reversed = market({ candidates: eligible, eligible: [...m.eligible].reverse(), closes: { OUT: seriesFromReturns(rOut), KEEP: seriesFromReturns(rKeep), CLONE: seriesFromReturns(rOut) } });
    expect(replacementsFor(p, reversed, 'OUT').candidates).toEqual(r.candidates);
  });

  it('any window of the ranking equals that window of the whole ranking (only its end is computed), property', () => {
    // A universe of 40 names with random quality parts, correlations and sectors.
    const names = Array.from({ length: 40 }, (_, i) => `N${String(i).padStart(2, '0')}`);
    fc.assert(
      fc.property(
        fc.array(fc.record({ confidence: fc.double({ min: 0, max: 1, noNaN: true }), rs: fc.integer({ min: -60, max: 60 }), seed: fc.integer({ min: 1, max: 1e6 }), sector: fc.constantFrom('Energy', 'Utilities', 'Technology') }), { minLength: 40, maxLength: 40 }),
        fc.integer({ min: 0, max: 45 }),
        fc.integer({ min: 1, max: 12 }),
        (specs, offset, limit) => {
          const cands = specs.map((x, i) => cand(names[i], { entry: 20 + i, stop: 18 + i, confidence: x.confidence, relativeStrength: x.rs, eligible: true, sector: x.sector }));
          const closes = Object.fromEntries([...specs.map((x, i) => [names[i], seriesFromReturns(noise(N, x.seed))]), ['OUT', seriesFromReturns(rOut)], ['KEEP', seriesFromReturns(rKeep)]]);
          const mk = market({ candidates: [...eligible.slice(0, 2), ...cands], closes });
          const whole = replacementsFor(p, mk, 'OUT');
          const part = replacementsFor(p, mk, 'OUT', { offset, limit });
          expect(part.total_candidates).toBe(whole.total_candidates);
          expect(part.candidates).toEqual(whole.candidates.slice(offset, offset + limit));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('leaves out names that cannot take one share, with a note', () => {
    expect(r.candidates.map((c) => c.symbol)).not.toContain('EXP');
    expect(r.notes[0]).toBe('6 eligible names are not held; 5 can be bought with the freed capital of 2000');
    expect(r.notes).toContain('1 left out: not one share fits the freed capital and the risk settings');
  });

  it('throws a RangeError for a symbol the portfolio does not hold', () => {
    expect(() => replacementsFor(p, m, 'AAA')).toThrow(RangeError);
    expect(() => replacementsFor(p, m, 'AAA')).toThrow('AAA is not held');
  });

  it('values a holding without a snapshot at its bought price', () => {
    const q = portfolio([holding('GONE', { shares: 10, entry: 50, stop: 45 })], { cash: 1_000 });
    const g = replacementsFor(q, m, 'GONE');
    expect(g.current_price).toBeNull();
    expect(g.freed_capital).toBe(500);
    expect(g.rating).toBe('WEAK');
    for (const idea of g.candidates) expect(cents(idea.position_value)).toBeLessThanOrEqual(cents(500));
  });
});
