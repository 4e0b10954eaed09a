/**
 * max_positions as a hard limit when a turnover cap blends the book toward a prior book (optimizer
 * header, step 5): the weakest prior names beyond the limit are sold (names without a candidate first,
 * then unscored names, then scored names from the bottom of the ranking), the forced turnover is reported
 * against the cap, and the cap governs the rest: ranked names not held take only the positions the prior
 * book leaves (level 1), or the positions of prior names the cap lets the book sell outright (level 2).
 *
 * Capital 100,000.00, every candidate at entry 100.00 with the stop 10% below, loose caps (fixtures.ts):
 * a weight of 0.01 is 10 shares.
 */
import { optimize, symbolsNeedingCloses } from '../../../subgraphs/allocation/engine/optimizer.js';
import type { Candidate, OptimizeResult } from '../../../subgraphs/allocation/engine/types.js';
import { candidate, input, pack, settings } from './fixtures.js';

const shares = (r: OptimizeResult): Record<string, number> => Object.fromEntries(r.allocations.map((a) => [a.symbol, a.shares]));
const notes = (r: OptimizeResult): string[] => r.diagnostics.binding_notes;
const pad = (i: number): string => String(i).padStart(2, '0');

describe('max_positions with a prior book of 30 names (limit 8)', () => {
  // N0..N5 are new and the best ranked; H00..H19 are held and scored in that order (H00, H01 ranked);
  // H20..H27 are held, not eligible (so not scored) however confident; GONE1, GONE2 are held without a
  // candidate. Each prior name weighs 0.03 (sum 0.9).
  const cands: Candidate[] = [
    ...[0, 1, 2, 3, 4, 5].map((i) => candidate(`N${i}`, { confidence: 0.95 })),
    ...Array.from({ length: 20 }, (_, i) => candidate(`H${pad(i)}`, { confidence: 0.9 - i * 0.01 })),
    ...Array.from({ length: 8 }, (_, i) => candidate(`H${pad(20 + i)}`, { eligible: false, confidence: 0.99 })),
  ];
  const prior: Record<string, number> = { GONE1: 0.03, GONE2: 0.03 };
  for (let i = 0; i < 28; i++) prior[`H${pad(i)}`] = 0.03;
  const run = (cap: number): OptimizeResult =>
    optimize(
      input(cands, {
        risk_settings: settings('EQUAL_WEIGHT', { max_positions: 8 }),
        prior_book_weights: prior,
        constraint_pack: pack({ max_portfolio_turnover_annual: cap }),
      }),
    );
  const strongest = ['H00', 'H01', 'H02', 'H03', 'H04', 'H05', 'H06', 'H07'];

  test('the 20 weakest prior names are sold and the forced turnover is reported against the cap', () => {
    const r = run(0.2);
    expect(r.allocations.length).toBe(8);
    // Sales of 20 + 2 names at 0.03 are 0.33 one-way, above the cap alone: nothing else moves.
    expect(shares(r)).toEqual(Object.fromEntries(strongest.map((s) => [s, 30])));
    expect(r.metrics.turnover).toBeCloseTo(0.33, 12);
    expect(notes(r)).toContain('prior_book_weights: sold GONE1, GONE2 (no candidate with usable prices)');
    expect(notes(r)).toContain(
      'max_positions: the prior book holds 28 names that could be kept, above the limit of 8, so the 20 weakest by EQUAL_WEIGHT ' +
        'rank are sold: H08, H09, H10, H11, H12, H13, H14, H15, H16, H17 and 10 more',
    );
    expect(notes(r)).toContain(
      'max_portfolio_turnover_annual: turnover 0.3300 exceeds cap 0.2000 because max_positions forces the sale of 20 prior names ' +
        '(forced one-way turnover 0.3300, 0.1300 above the cap)',
    );
    expect(notes(r)).toContain(
      'max_positions: prior names hold 8 of 8 positions (2 ranked, 6 winding down), so no ranked name not held enters; ' +
        'N0, N1, N2, N3, N4, N5 wait for a free position',
    );
    expect(notes(r).some((n) => n.startsWith('remaining_capital: ') && n.includes('max_positions'))).toBe(true);
  });

  test('forced sales within the cap leave the rest of the cap to the kept names', () => {
    const r = run(0.5);
    expect(r.allocations.length).toBeLessThanOrEqual(8);
    expect(r.allocations.map((a) => a.symbol).every((s) => strongest.includes(s))).toBe(true);
    // 0.33 forced, 0.17 left: the six unranked kept names wind down toward 0 within it.
    expect(r.metrics.turnover).toBeLessThanOrEqual(0.5 + 1e-9);
    expect(r.metrics.turnover).toBeGreaterThan(0.49);
    expect(notes(r).some((n) => /exceeds cap/.test(n))).toBe(false);
  });

  test('with a vol target only the names that keep a position need closes', () => {
    const base = {
      total_capital: 100_000,
      risk_settings: settings('EQUAL_WEIGHT', { max_positions: 8 }),
      prior_book_weights: prior,
      candidates: cands,
      constraint_pack: pack({ max_portfolio_turnover_annual: 0.2, vol_target_annual: 0.3 }),
    };
    expect(symbolsNeedingCloses(base)).toEqual(['N0', 'N1', 'N2', 'N3', 'N4', 'N5', ...strongest]);
  });
});

describe('max_positions with a prior book that fits (limit 5)', () => {
  // H00 is held and ranked; X1, X2 are held and ranked last; N0..N7 are new, best first.
  const cands: Candidate[] = [
    candidate('H00', { confidence: 0.95 }),
    ...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => candidate(`N${i}`, { confidence: 0.9 - i * 0.01 })),
    candidate('X1', { confidence: 0.1 }),
    candidate('X2', { confidence: 0.1 }),
  ];
  const run = (cap: number): OptimizeResult =>
    optimize(
      input(cands, {
        risk_settings: settings('EQUAL_WEIGHT', { max_positions: 5 }),
        prior_book_weights: { H00: 0.2, X1: 0.2, X2: 0.2 },
        constraint_pack: pack({ max_portfolio_turnover_annual: cap }),
      }),
    );

  test('level 1: the prior names keep their positions and the best new names take the rest, within the cap', () => {
    // Target 0.2 for H00, N0..N3. N0, N1 get the two free positions; the rest moved is 0.4 one-way, so
    // alpha = 0.1 / 0.4: X1, X2 go to 0.15 and N0, N1 to 0.05.
    const r = run(0.1);
    expect(shares(r)).toEqual({ H00: 200, N0: 50, N1: 50, X1: 150, X2: 150 });
    expect(r.metrics.turnover).toBeCloseTo(0.1, 12);
    expect(notes(r)).toContain(
      'max_positions: prior names hold 3 of 5 positions (1 ranked, 2 winding down), so only 2 ranked names not held enter (N0, N1); ' +
        'N2, N3 wait for a free position',
    );
    expect(notes(r)).toContain('max_portfolio_turnover_annual: target turnover 0.4000 above cap 0.1000; blended toward the prior book with alpha 0.2500');
    expect(notes(r).some((n) => n.startsWith('max_positions: the prior book holds'))).toBe(false);
  });

  test('level 2: when the cap allows selling the unranked prior names outright, their positions go to new names (level 0: a target within the cap is the book)', () => {
    // The level-1 book moves 0.4 <= 0.45: X1, X2 are sold outright (0.2 one-way); N0..N3 share the
    // remaining 0.25 of the cap: alpha = 0.25 / 0.4, so each gets 0.125.
    const r = run(0.45);
    expect(shares(r)).toEqual({ H00: 200, N0: 125, N1: 125, N2: 125, N3: 125 });
    expect(r.metrics.turnover).toBeCloseTo(0.45, 12);
    expect(notes(r)).toContain(
      'max_positions: the prior names outside the ranked book (X1, X2) are sold outright within max_portfolio_turnover_annual, ' +
        'so their positions go to ranked names not held',
    );

    // Level 0: a target within the cap is the book, as without a limit.
    const free = run(1);
    expect(shares(free)).toEqual({ H00: 200, N0: 200, N1: 200, N2: 200, N3: 200 });
    expect(notes(free).filter((n) => n.startsWith('max_positions: '))).toEqual(['max_positions: kept 5 of 11 scored eligible names']);
  });
});
