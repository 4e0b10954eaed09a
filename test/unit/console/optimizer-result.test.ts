/** The optimizer result's plain words: binding notes by constraint, the defaults shown, the weight bars. */
import { resolveDefaults, strategiesUsing, type AllocationLimitsAnswer } from '../../../console/src/optimizer/defaults.js';
import { barWidths } from '../../../console/src/optimizer/format.js';
import { constraintLabel, groupBindingNotes, splitNote, tokenWords } from '../../../console/src/optimizer/notes.js';

describe('binding notes', () => {
  /** The strategy names as the graph's allocationStrategies answers them. */
  const STRATEGIES = ['EQUAL_WEIGHT', 'STAGE_WEIGHTED', 'CONFIDENCE_WEIGHTED', 'KELLY_CRITERION', 'HYBRID_WEIGHTED'];

  it('groups the notes by what bound, in the order the server wrote them, keeping its text', () => {
    const groups = groupBindingNotes([
      'HYBRID_WEIGHTED: the Kelly part uses the measured chance of target before stop per state (as of 2026-09-30)',
      'sector_caps.DEFAULT: capped SWIY at 0.1000 (wanted 0.2734)',
      'sector_caps.DEFAULT: capped CIM at 0.1000 (wanted 0.2232)',
      'sector_caps.Real Estate: capped the sector at 0.2000',
      'max_positions: 12 ranked names, 10 kept',
      'caps: 0.2000 of capital cannot be placed within the caps and stays cash',
      'remaining_capital: 50152.19 held back by sector_caps.DEFAULT',
      'a note without a prefix',
    ], STRATEGIES);
    expect(groups.map((g) => [g.constraint, g.label, g.notes.length])).toEqual([
      ['HYBRID_WEIGHTED', 'Strategy HYBRID_WEIGHTED', 1],
      ['sector_caps.DEFAULT', 'Sector caps: DEFAULT (per-name cap)', 2],
      ['sector_caps.Real Estate', 'Sector caps: Real Estate', 1],
      ['max_positions', 'Max positions', 1],
      ['caps', 'Caps', 1],
      ['remaining_capital', 'Remaining capital', 1],
      ['', 'Other', 1],
    ]);
    expect(groups[1]!.notes).toEqual(['capped SWIY at 0.1000 (wanted 0.2734)', 'capped CIM at 0.1000 (wanted 0.2232)']);
  });

  it('names the request fields a note can start with by their form labels', () => {
    expect(constraintLabel('max_position_size')).toBe('Max position size');
    expect(constraintLabel('vol_target_annual')).toBe('Volatility target');
    expect(constraintLabel('max_portfolio_turnover_annual')).toBe('Annual turnover cap');
    expect(constraintLabel('prior_book_weights')).toBe('Prior book weights');
    expect(constraintLabel('constraint_pack')).toBe('Constraint pack');
  });

  it('names a strategy from the names the graph gives, not from a list of its own', () => {
    expect(constraintLabel('KELLY_CRITERION', STRATEGIES)).toBe('Strategy KELLY_CRITERION');
    // A strategy the server adds later is a strategy as soon as the graph lists it.
    expect(constraintLabel('RISK_PARITY', [...STRATEGIES, 'RISK_PARITY'])).toBe('Strategy RISK_PARITY');
    // Before the graph answers, the note still groups and reads as words.
    expect(constraintLabel('KELLY_CRITERION')).toBe('Kelly criterion');
  });

  it('groups and names any other leading token by the token itself', () => {
    expect(constraintLabel('demo')).toBe('Demo');
    expect(constraintLabel('candidates')).toBe('Candidates');
    expect(constraintLabel('ledoitWolf')).toBe('Ledoit wolf');
    expect(constraintLabel('somethingNew.part')).toBe('Something new: part');
    expect(tokenWords('remaining_capital')).toBe('Remaining capital');
    const groups = groupBindingNotes(['liquidity_floor: 2 names below the floor', 'liquidity_floor: ACME dropped', 'caps: 0.1 stays cash']);
    expect(groups.map((g) => [g.constraint, g.label, g.notes])).toEqual([
      ['liquidity_floor', 'Liquidity floor', ['2 names below the floor', 'ACME dropped']],
      ['caps', 'Caps', ['0.1 stays cash']],
    ]);
  });

  it('does not take a sentence with a colon for a prefix', () => {
    expect(splitNote('Note this: two words')).toEqual({ constraint: '', text: 'Note this: two words' });
  });
});

describe('defaults', () => {
  const noParameters = { softmaxTemperature: null, rewardMultiplier: null, halfKelly: null, stageWeights: null };
  const graph: AllocationLimitsAnswer = {
    minTotalCapital: 1000,
    defaultCurrency: 'EUR',
    constraintPackSchemaVersion: '3',
    defaultRiskSettings: { maxRiskPerTrade: 0.01, maxPortfolioRisk: 0.05, maxPositionSize: 0.2, maxPositions: 30, allocationStrategy: 'HYBRID_WEIGHTED', ...noParameters },
    strategyParameterDefaults: { softmaxTemperature: 0.3, rewardMultiplier: 1.5, halfKelly: true, stageWeights: { stage1: 0.1, stage2: 0.9, stage3: 0.2, stage4: 0 } },
    demoRequest: { name: 'Demo', totalCapital: 100000, riskSettings: { maxRiskPerTrade: 0.01, maxPortfolioRisk: 0.05, maxPositionSize: 0.2, maxPositions: 10, allocationStrategy: 'KELLY_CRITERION', ...noParameters } },
  };
  it("takes every default from the graph: the common limits, the currency, and the strategy parameters' from strategyParameterDefaults", () => {
    const d = resolveDefaults(graph);
    expect(d).toMatchObject({ minTotalCapital: 1000, maxRiskPerTrade: 0.01, maxPositions: 30, allocationStrategy: 'HYBRID_WEIGHTED', softmaxTemperature: 0.3, rewardMultiplier: 1.5, halfKelly: true, currency: 'EUR' });
    expect(d.stageWeights).toEqual({ 'STAGE 1': 0.1, 'STAGE 2': 0.9, 'STAGE 3': 0.2, 'STAGE 4': 0 });
  });
  it('prefers a strategy parameter the default risk settings do give', () => {
    const d = resolveDefaults({ ...graph, defaultRiskSettings: { ...graph.defaultRiskSettings, softmaxTemperature: 0.5, stageWeights: { stage1: 0.5, stage2: null, stage3: null, stage4: null } } });
    expect(d.softmaxTemperature).toBe(0.5);
    expect(d.stageWeights['STAGE 1']).toBe(0.5);
    expect(d.stageWeights['STAGE 2']).toBe(0.9);
  });
  it('shows no default, rather than a guessed one, before the graph answers', () => {
    const d = resolveDefaults(null);
    expect(d).toMatchObject({ currency: null, minTotalCapital: null, maxPositions: null, allocationStrategy: null, softmaxTemperature: null, rewardMultiplier: null, halfKelly: null });
    expect(Object.values(d.stageWeights)).toEqual([null, null, null, null]);
  });
  it('says which strategies read a parameter, from the graph (snake_case parameter names)', () => {
    const strategies = [
      { name: 'CONFIDENCE_WEIGHTED' as const, parameters: ['softmax_temperature'] },
      { name: 'KELLY_CRITERION' as const, parameters: ['reward_multiplier', 'half_kelly'] },
      { name: 'HYBRID_WEIGHTED' as const, parameters: ['softmax_temperature', 'stage_weights'] },
    ];
    expect(strategiesUsing('softmaxTemperature', strategies)).toEqual(['CONFIDENCE_WEIGHTED', 'HYBRID_WEIGHTED']);
    expect(strategiesUsing('halfKelly', strategies)).toEqual(['KELLY_CRITERION']);
    expect(strategiesUsing('maxPositions', strategies)).toEqual([]);
  });
});

describe('figures', () => {
  it('scales the weight bars to the whole account, so a bar is as long as its weight', () => {
    expect(barWidths([0.2, 0.1, 0, 0.05])).toEqual(['20.0%', '10.0%', '0%', '5.0%']);
    // A book of one small name: its bar stays small, it does not fill the cell.
    expect(barWidths([0.04])).toEqual(['4.0%']);
    expect(barWidths([1, 1.2, -0.1])).toEqual(['100.0%', '100.0%', '0%']);
    expect(barWidths([])).toEqual([]);
    expect(barWidths([0, Number.NaN])).toEqual(['0%', '0%']);
  });
});
