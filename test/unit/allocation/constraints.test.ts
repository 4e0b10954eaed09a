/**
 * constraints.ts: the caps read from risk settings and a constraint pack (per-name cap and its label,
 * sector caps by label, risk budgets, max_positions), and that the optimizer and opportunity search
 * size with those same caps.
 */
import { capsOf, nameWeightCap, sectorCapFor, sectorCapsOf, turnoverCapOf, volTargetOf } from '../../../subgraphs/allocation/engine/constraints.js';
import { optimize } from '../../../subgraphs/allocation/engine/optimizer.js';
import { bookState, sizeIdea } from '../../../subgraphs/search/engine/book.js';
import { holding, market, portfolio } from '../search/fixtures.js';
import { candidate, input, pack, settings } from './fixtures.js';

describe('capsOf: the per-name cap', () => {
  it('is max_position_size without a pack, labelled max_position_size', () => {
    const caps = capsOf(settings('EQUAL_WEIGHT', { max_position_size: 0.2 }), null);
    expect(caps.nameCap).toBe(0.2);
    expect(caps.nameCapLabel).toBe('max_position_size');
    expect(caps.defaultSectorCap).toBeNull();
    expect(capsOf(settings('EQUAL_WEIGHT', { max_position_size: 0.2 }), undefined).nameCap).toBe(0.2);
  });

  it('is max_position_size when the pack has sector caps but no DEFAULT key', () => {
    const caps = capsOf(settings('EQUAL_WEIGHT', { max_position_size: 0.2 }), pack({ sector_caps: { Energy: 0.05 } }));
    expect(caps.nameCap).toBe(0.2);
    expect(caps.defaultSectorCap).toBeNull();
  });

  it('is min(max_position_size, sector_caps.DEFAULT): DEFAULT below max_position_size sets it', () => {
    const caps = capsOf(settings('EQUAL_WEIGHT', { max_position_size: 0.2 }), pack({ sector_caps: { DEFAULT: 0.07 } }));
    expect(caps.nameCap).toBe(0.07);
    expect(caps.nameCapLabel).toBe('sector_caps.DEFAULT');
    expect(caps.defaultSectorCap).toBe(0.07);
    expect(caps.maxPositionSize).toBe(0.2);
  });

  it('is min(max_position_size, sector_caps.DEFAULT): DEFAULT above max_position_size does not raise it', () => {
    const caps = capsOf(settings('EQUAL_WEIGHT', { max_position_size: 0.1 }), pack({ sector_caps: { DEFAULT: 0.5 } }));
    expect(caps.nameCap).toBe(0.1);
    expect(caps.nameCapLabel).toBe('max_position_size');
    expect(caps.defaultSectorCap).toBe(0.5);
  });

  it('labels a DEFAULT equal to max_position_size as max_position_size', () => {
    const caps = capsOf(settings('EQUAL_WEIGHT', { max_position_size: 0.1 }), pack({ sector_caps: { DEFAULT: 0.1 } }));
    expect(caps.nameCap).toBe(0.1);
    expect(caps.nameCapLabel).toBe('max_position_size');
  });

  it('ignores a DEFAULT that is not a finite number and never goes below 0', () => {
    const bad = pack({ sector_caps: { DEFAULT: Number.NaN } });
    expect(capsOf(settings('EQUAL_WEIGHT', { max_position_size: 0.3 }), bad).nameCap).toBe(0.3);
    expect(capsOf(settings('EQUAL_WEIGHT', { max_position_size: 0.3 }), pack({ sector_caps: { DEFAULT: -0.2 } })).nameCap).toBe(0);
    expect(capsOf(settings('EQUAL_WEIGHT', { max_position_size: Number.NaN }), null).nameCap).toBe(0);
  });
});

describe('capsOf: budgets and max_positions', () => {
  it('reads the per-trade and total risk budgets', () => {
    const caps = capsOf(settings('KELLY_CRITERION', { max_risk_per_trade: 0.015, max_portfolio_risk: 0.06 }), null);
    expect(caps.maxRiskPerTrade).toBe(0.015);
    expect(caps.maxPortfolioRisk).toBe(0.06);
  });

  it('takes max_positions as a whole number, at least 0', () => {
    expect(capsOf(settings('EQUAL_WEIGHT', { max_positions: 12 }), null).maxPositions).toBe(12);
    expect(capsOf(settings('EQUAL_WEIGHT', { max_positions: 3.7 }), null).maxPositions).toBe(3);
    expect(capsOf(settings('EQUAL_WEIGHT', { max_positions: -2 }), null).maxPositions).toBe(0);
  });
});

describe('sector caps', () => {
  const p = pack({ sector_caps: { Technology: 0.25, DEFAULT: 0.1, 'Health Care': 0.15, Energy: Number.POSITIVE_INFINITY } });

  it('looks a cap up by its exact label', () => {
    expect(sectorCapFor(p, 'Technology')).toBe(0.25);
    expect(sectorCapFor(p, 'Health Care')).toBe(0.15);
    expect(sectorCapFor(p, 'technology')).toBeNull();
    expect(sectorCapFor(p, 'Utilities')).toBeNull();
  });

  it('never treats DEFAULT as a sector, nor a value that is not finite as a cap', () => {
    expect(sectorCapFor(p, 'DEFAULT')).toBeNull();
    expect(sectorCapFor(p, 'Energy')).toBeNull();
  });

  it('has no sector caps without a pack or without sector_caps', () => {
    expect(sectorCapFor(null, 'Technology')).toBeNull();
    expect(sectorCapFor(undefined, 'Technology')).toBeNull();
    expect(sectorCapsOf(null)).toEqual([]);
    expect(sectorCapsOf(pack())).toEqual([]);
  });

  it('lists the sector caps by label, without DEFAULT', () => {
    expect(sectorCapsOf(p)).toEqual([
      { label: 'Health Care', cap: 0.15 },
      { label: 'Technology', cap: 0.25 },
    ]);
  });
});

describe('vol target and turnover cap', () => {
  it('reads them from the pack, null when the pack sets none', () => {
    expect(volTargetOf(pack({ vol_target_annual: 0.12 }))).toBe(0.12);
    expect(turnoverCapOf(pack({ max_portfolio_turnover_annual: 0.4 }))).toBe(0.4);
    expect(volTargetOf(pack())).toBeNull();
    expect(turnoverCapOf(pack())).toBeNull();
    expect(volTargetOf(null)).toBeNull();
    expect(turnoverCapOf(undefined)).toBeNull();
  });

  it('never gives a negative target or cap', () => {
    expect(volTargetOf(pack({ vol_target_annual: -1 }))).toBe(0);
    expect(turnoverCapOf(pack({ max_portfolio_turnover_annual: Number.NaN }))).toBeNull();
  });
});

describe('nameWeightCap', () => {
  const caps = capsOf(settings('EQUAL_WEIGHT', { max_position_size: 0.2, max_risk_per_trade: 0.01 }), pack({ sector_caps: { DEFAULT: 0.15 } }));

  it('is the per-name cap when the stop is close enough', () => {
    // 0.01 / 0.05 = 0.2 > 0.15
    expect(nameWeightCap(caps, 0.05)).toEqual({ cap: 0.15, by: 'sector_caps.DEFAULT' });
  });

  it('is the per-trade budget over the stop distance when that is lower', () => {
    // 0.01 / 0.1 = 0.1 < 0.15
    const { cap, by } = nameWeightCap(caps, 0.1);
    expect(cap).toBeCloseTo(0.1, 15);
    expect(by).toBe('max_risk_per_trade');
  });

  it('has no per-trade limit for a stop distance of 0', () => {
    expect(nameWeightCap(caps, 0)).toEqual({ cap: 0.15, by: 'sector_caps.DEFAULT' });
  });
});

describe('the optimizer and opportunity search size with the same caps', () => {
  const c = candidate('AAA', { entry: 100, stop: 90, sector: 'Technology' });

  it('the optimizer reports and applies min(max_position_size, DEFAULT)', () => {
    const r = optimize(
      input([c], {
        risk_settings: settings('EQUAL_WEIGHT', { max_position_size: 0.3 }),
        constraint_pack: pack({ sector_caps: { DEFAULT: 0.12 } }),
      }),
    );
    expect(r.diagnostics.max_position_size_effective).toBe(0.12);
    expect(r.diagnostics.constraint_pack_default_sector_cap).toBe(0.12);
    expect(r.allocations[0].shares).toBe(120); // 0.12 x 100,000 / 100
  });

  it('opportunity search sizes a name to the same cap', () => {
    const p = portfolio([], { cash: 100_000, risk: { max_position_size: 0.3, max_risk_per_trade: 1, max_portfolio_risk: 1 }, pack: { sector_caps: { DEFAULT: 0.12 } } });
    const book = bookState(p, market({ candidates: [c] }));
    expect(book.nameCap).toBe(0.12);
    expect(sizeIdea(c, book, null)).toEqual({ shares: 120, bound: 'max_position_size' });
  });

  it('the optimizer caps a sector by its label, as search does', () => {
    const cands = [candidate('AAA', { sector: 'Energy' }), candidate('BBB', { sector: 'Energy' }), candidate('CCC', { sector: 'Utilities' })];
    const r = optimize(
      input(cands, {
        risk_settings: settings('EQUAL_WEIGHT', { max_position_size: 0.5 }),
        constraint_pack: pack({ sector_caps: { Energy: 0.2 } }),
      }),
    );
    const energy = r.allocations.filter((a) => a.symbol !== 'CCC').reduce((sum, a) => sum + a.position_value, 0);
    expect(energy).toBe(20_000);
    // Search: with 10,000 of Energy held, an Energy idea gets the other 10,000 of the 20% cap, bound by it.
    const p = portfolio([holding('AAA', { sector: 'Energy', shares: 100, entry: 100 })], {
      cash: 90_000,
      risk: { max_position_size: 0.5, max_risk_per_trade: 1, max_portfolio_risk: 1 },
      pack: { sector_caps: { Energy: 0.2 } },
    });
    const book = bookState(p, market({ candidates: cands }));
    expect(sizeIdea(cands[1], book, null)).toEqual({ shares: 100, bound: 'sector_cap' });
    expect(sizeIdea(cands[2], book, null).bound).not.toBe('sector_cap');
  });
});
