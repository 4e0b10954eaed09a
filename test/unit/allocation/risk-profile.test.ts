/** Risk profile: quiz scoring and validation, presets, precedence of the request's inputs, policy explanation. */
import { GICS_SECTORS } from '../../../subgraphs/analysis/engine/market-types.js';
import { AppError } from '../../../subgraphs/platform/errors.js';
import {
  buildPolicyExplanation,
  formatPercent,
  MAPPER_VERSION,
  POLICY_EXPLANATION_SCHEMA_VERSION,
  PRESET_KEYS,
  PRESETS,
  presetForScore,
  QUIZ_PRESET_THRESHOLDS,
  resolveRiskProfile,
  RISK_QUIZ,
  RISK_QUIZ_KEYS,
  scoreRiskQuiz,
  type RiskProfile,
} from '../../../subgraphs/allocation/engine/risk-profile.js';
import { ALLOCATION_STRATEGIES, DEFAULT_RISK_SETTINGS } from '../../../subgraphs/allocation/engine/risk-settings.js';
import type { ConstraintPack } from '../../../subgraphs/allocation/engine/types.js';

/** The AppError `fn` throws (fails the test when it does not throw one). */
function appErrorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected an AppError');
}

/** Every key answered with the answer of the same index. */
function allAt(index: number): Record<string, string> {
  return Object.fromEntries(RISK_QUIZ_KEYS.map((k) => [k, RISK_QUIZ[k].answers[index]]));
}

const PACK: ConstraintPack = {
  schema_version: '1',
  max_portfolio_turnover_annual: 1.5,
  vol_target_annual: 0.12,
  sector_caps: { Energy: 0.2, DEFAULT: 0.08, 'Information Technology': 0.3 },
  covariance_model: null,
};

describe('risk quiz definition', () => {
  it('has the six spec keys with five distinct lower-case answers each', () => {
    expect(RISK_QUIZ_KEYS).toEqual(['goal', 'horizon', 'drawdown', 'volatility', 'concentration', 'preference']);
    for (const k of RISK_QUIZ_KEYS) {
      const answers = RISK_QUIZ[k].answers;
      expect(answers).toHaveLength(5);
      expect(new Set(answers).size).toBe(5);
      for (const a of answers) expect(a).toBe(a.trim().toLowerCase());
      expect(RISK_QUIZ[k].description.length).toBeGreaterThan(0);
    }
  });

  it('lists the documented answers', () => {
    expect(RISK_QUIZ.goal.answers).toEqual(['preservation', 'income', 'balanced', 'growth', 'aggressive_growth']);
    expect(RISK_QUIZ.horizon.answers).toEqual(['under_1y', '1_3y', '3_5y', '5_10y', 'over_10y']);
    expect(RISK_QUIZ.drawdown.answers).toEqual(['5', '10', '20', '30', '50']);
    expect(RISK_QUIZ.volatility.answers).toEqual(['very_low', 'low', 'medium', 'high', 'very_high']);
    expect(RISK_QUIZ.concentration.answers).toEqual(['very_diversified', 'diversified', 'balanced', 'concentrated', 'very_concentrated']);
    expect(RISK_QUIZ.preference.answers).toEqual(['safety', 'stability', 'balance', 'growth', 'maximum_growth']);
  });
});

describe('scoreRiskQuiz', () => {
  const paths = RISK_QUIZ_KEYS.flatMap((k) => RISK_QUIZ[k].answers.map((a, i) => [k, a, i] as const));
  it.each(paths)('%s = %s scores %d', (key, answer, index) => {
    const r = scoreRiskQuiz({ [key]: answer });
    expect(r.scores).toEqual({ [key]: index });
    expect(r.answers).toEqual({ [key]: answer });
    expect(r.score).toBe(index);
    expect(r.preset_key).toBe(PRESET_KEYS[index]);
  });

  it('maps every all-same answer set to the matching preset', () => {
    for (let i = 0; i < 5; i++) expect(scoreRiskQuiz(allAt(i)).preset_key).toBe(PRESET_KEYS[i]);
  });

  it('averages over the answered items only', () => {
    const r = scoreRiskQuiz({ goal: 'growth', drawdown: '5' }); // (3 + 0) / 2
    expect(r.score).toBe(1.5);
    expect(r.preset_key).toBe('moderate');
    expect(Object.keys(r.answers)).toEqual(['goal', 'drawdown']);
  });

  it('is case-insensitive and trims', () => {
    const r = scoreRiskQuiz({ goal: '  Aggressive_Growth ', horizon: 'OVER_10Y', drawdown: ' 50' });
    expect(r.score).toBe(4);
    expect(r.answers).toEqual({ goal: 'aggressive_growth', horizon: 'over_10y', drawdown: '50' });
  });

  it('lists every bad key and answer together, with the allowed values', () => {
    const err = appErrorOf(() => scoreRiskQuiz({ goal: 'yolo', horizon: '3_5y', age: '40', drawdown: 20 as unknown as string, volatility: '' }));
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.status).toBe(400);
    expect(err.details.map((d) => d.field)).toEqual(['risk_quiz_answers.age', 'risk_quiz_answers.drawdown', 'risk_quiz_answers.goal', 'risk_quiz_answers.volatility']);
    const byField = Object.fromEntries(err.details.map((d) => [d.field, d.message]));
    expect(byField['risk_quiz_answers.goal']).toContain('preservation, income, balanced, growth, aggressive_growth');
    expect(byField['risk_quiz_answers.goal']).toContain("'yolo'");
    expect(byField['risk_quiz_answers.age']).toContain('goal, horizon, drawdown, volatility, concentration, preference');
    expect(byField['risk_quiz_answers.drawdown']).toContain('must be a string');
    expect(byField['risk_quiz_answers.volatility']).toContain('very_low, low, medium, high, very_high');
  });

  it('rejects null answers', () => {
    const err = appErrorOf(() => scoreRiskQuiz({ goal: null as unknown as string }));
    expect(err.details.map((d) => d.field)).toEqual(['risk_quiz_answers.goal']);
  });

  it('needs at least one answer', () => {
    const err = appErrorOf(() => scoreRiskQuiz({}));
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.details).toEqual([{ field: 'risk_quiz_answers', message: expect.stringContaining('at least one answer') }]);
  });

  it('rejects a non-object', () => {
    expect(appErrorOf(() => scoreRiskQuiz(['growth'] as unknown as Record<string, string>)).details[0].field).toBe('risk_quiz_answers');
  });
});

describe('quiz thresholds', () => {
  it('are even fifths of the 0..4 range', () => {
    expect(QUIZ_PRESET_THRESHOLDS).toEqual([0.8, 1.6, 2.4, 3.2]);
  });

  it.each([
    [0, 'conservative'],
    [0.79, 'conservative'],
    [0.8, 'moderate'],
    [1.59, 'moderate'],
    [1.6, 'balanced'],
    [2.39, 'balanced'],
    [2.4, 'growth'],
    [3.19, 'growth'],
    [3.2, 'aggressive'],
    [4, 'aggressive'],
  ] as const)('mean %d -> %s', (score, preset) => {
    expect(presetForScore(score)).toBe(preset);
  });

  it('applies the thresholds to mixed answers', () => {
    // 0+0+1+1+1 = 3/5 = 0.6 -> conservative; 1+1+1+1+0 = 4/5 = 0.8 -> moderate
    expect(scoreRiskQuiz({ goal: 'preservation', horizon: 'under_1y', drawdown: '10', volatility: 'low', concentration: 'diversified' }).preset_key).toBe('conservative');
    expect(scoreRiskQuiz({ goal: 'income', horizon: '1_3y', drawdown: '10', volatility: 'low', concentration: 'very_diversified' }).preset_key).toBe('moderate');
    // 2+2+3+2+3+2 = 14/6 = 2.33 -> balanced; 3+3+2+3+2+3 = 16/6 = 2.67 -> growth; 3+3+3+3+4+4 = 20/6 = 3.33 -> aggressive
    expect(scoreRiskQuiz({ ...allAt(2), drawdown: '30', concentration: 'concentrated' }).preset_key).toBe('balanced');
    expect(scoreRiskQuiz({ ...allAt(3), drawdown: '20', concentration: 'balanced' }).preset_key).toBe('growth');
    expect(scoreRiskQuiz({ ...allAt(3), concentration: 'very_concentrated', preference: 'maximum_growth' }).preset_key).toBe('aggressive');
  });
});

describe('PRESETS', () => {
  it('has the five keys in order of increasing risk', () => {
    expect(Object.keys(PRESETS)).toEqual([...PRESET_KEYS]);
    expect(PRESET_KEYS).toEqual(['conservative', 'moderate', 'balanced', 'growth', 'aggressive']);
    for (let i = 1; i < PRESET_KEYS.length; i++) {
      const lo = PRESETS[PRESET_KEYS[i - 1]];
      const hi = PRESETS[PRESET_KEYS[i]];
      expect(hi.risk_settings.max_risk_per_trade).toBeGreaterThan(lo.risk_settings.max_risk_per_trade);
      expect(hi.risk_settings.max_portfolio_risk).toBeGreaterThan(lo.risk_settings.max_portfolio_risk);
      expect(hi.risk_settings.max_position_size).toBeGreaterThanOrEqual(lo.risk_settings.max_position_size);
      expect(hi.risk_settings.max_positions).toBeLessThan(lo.risk_settings.max_positions);
      expect(hi.constraint_pack.vol_target_annual!).toBeGreaterThan(lo.constraint_pack.vol_target_annual!);
    }
  });

  it.each(PRESET_KEYS)('%s is a valid full RiskSettings and ConstraintPack', (key) => {
    const p = PRESETS[key];
    expect(p.key).toBe(key);
    expect(p.description.length).toBeGreaterThan(10);
    const s = p.risk_settings;
    expect(Object.keys(s).sort()).toEqual(Object.keys(DEFAULT_RISK_SETTINGS).sort());
    for (const f of ['max_risk_per_trade', 'max_portfolio_risk', 'max_position_size'] as const) {
      expect(s[f]).toBeGreaterThan(0);
      expect(s[f]).toBeLessThanOrEqual(1);
    }
    expect(s.max_risk_per_trade).toBeLessThanOrEqual(s.max_portfolio_risk);
    expect(Number.isInteger(s.max_positions)).toBe(true);
    expect(s.max_positions).toBeGreaterThan(0);
    expect(s.max_position_size * s.max_positions).toBeGreaterThanOrEqual(1);
    expect(ALLOCATION_STRATEGIES).toContain(s.allocation_strategy);
    const c = p.constraint_pack;
    expect(c.schema_version).toBe('1');
    expect(c.covariance_model).toBeNull();
    expect(c.vol_target_annual!).toBeGreaterThanOrEqual(0.1);
    expect(c.vol_target_annual!).toBeLessThanOrEqual(0.3);
    expect(c.max_portfolio_turnover_annual!).toBeGreaterThan(0);
    expect(c.sector_caps!.DEFAULT).toBe(s.max_position_size);
    for (const v of Object.values(c.sector_caps!)) {
      expect(v).toBeGreaterThan(0);
      expect(v).toBeLessThanOrEqual(1);
    }
    for (const sector of [...GICS_SECTORS, 'Unclassified']) expect(c.sector_caps![sector]).toBeGreaterThanOrEqual(s.max_position_size);
    expect(Object.keys(c.sector_caps!)).toHaveLength(GICS_SECTORS.length + 2);
  });

  it('documented values of the ends', () => {
    expect(PRESETS.conservative.risk_settings).toMatchObject({ max_risk_per_trade: 0.005, max_portfolio_risk: 0.03, max_position_size: 0.1, max_positions: 30, allocation_strategy: 'EQUAL_WEIGHT' });
    expect(PRESETS.aggressive.risk_settings).toMatchObject({ max_risk_per_trade: 0.02, max_portfolio_risk: 0.1, max_position_size: 0.25, max_positions: 15, allocation_strategy: 'KELLY_CRITERION', half_kelly: true });
  });

  it('cannot be mutated', () => {
    expect(() => {
      (PRESETS.balanced.risk_settings as { max_positions: number }).max_positions = 1;
    }).toThrow(TypeError);
    expect(() => {
      PRESETS.balanced.constraint_pack.sector_caps!.Energy = 1;
    }).toThrow(TypeError);
  });
});

describe('resolveRiskProfile', () => {
  it('uses server defaults when nothing is given', () => {
    for (const req of [{}, { risk_settings: null, risk_quiz_answers: null, suggested_preset: null, constraint_pack: null }, { suggested_preset: { key: null } }, { suggested_preset: { key: '  ' } }]) {
      const p = resolveRiskProfile(req);
      expect(p).toEqual({ risk_settings: { ...DEFAULT_RISK_SETTINGS }, constraint_pack: null, preset_key: null, source: 'defaults' });
    }
  });

  it('merges request risk_settings over the defaults', () => {
    const p = resolveRiskProfile({ risk_settings: { max_positions: 12, allocation_strategy: 'KELLY_CRITERION', reward_multiplier: 1.5 } });
    expect(p.source).toBe('request');
    expect(p.preset_key).toBeNull();
    expect(p.constraint_pack).toBeNull();
    expect(p.risk_settings).toEqual({ ...DEFAULT_RISK_SETTINGS, max_positions: 12, allocation_strategy: 'KELLY_CRITERION', reward_multiplier: 1.5 });
  });

  it('keeps the default for a required field sent as null, and does not fill strategy nulls', () => {
    const p = resolveRiskProfile({ risk_settings: { max_risk_per_trade: null as unknown as number, softmax_temperature: null } });
    expect(p.risk_settings.max_risk_per_trade).toBe(0.01);
    expect(p.risk_settings.softmax_temperature).toBeNull();
    expect(p.risk_settings.half_kelly).toBeNull();
  });

  it('request settings win over quiz and preset; a known suggested preset is recorded, an unknown one is dropped', () => {
    const known = resolveRiskProfile({ risk_settings: { max_positions: 5 }, risk_quiz_answers: allAt(4), suggested_preset: { key: 'Growth', description: 'x' } });
    expect(known.source).toBe('request');
    expect(known.preset_key).toBe('growth');
    expect(known.risk_settings.max_positions).toBe(5);
    expect(known.risk_settings.max_risk_per_trade).toBe(DEFAULT_RISK_SETTINGS.max_risk_per_trade);
    expect(known.constraint_pack).toBeNull();
    const unknown = resolveRiskProfile({ risk_settings: {}, suggested_preset: { key: 'yolo' } });
    expect(unknown.preset_key).toBeNull();
    expect(unknown.source).toBe('request');
  });

  it('still validates quiz answers when request settings win', () => {
    const err = appErrorOf(() => resolveRiskProfile({ risk_settings: {}, risk_quiz_answers: { goal: 'nope' } }));
    expect(err.details[0].field).toBe('risk_quiz_answers.goal');
  });

  it('maps quiz answers to the preset settings and pack, ignoring a suggested preset', () => {
    const p = resolveRiskProfile({ risk_quiz_answers: allAt(0), suggested_preset: { key: 'aggressive' } });
    expect(p.source).toBe('quiz');
    expect(p.preset_key).toBe('conservative');
    expect(p.risk_settings).toEqual(PRESETS.conservative.risk_settings);
    expect(p.constraint_pack).toEqual(PRESETS.conservative.constraint_pack);
  });

  it('uses a known suggested preset (case-insensitive)', () => {
    const p = resolveRiskProfile({ suggested_preset: { key: ' Aggressive ', description: 'from the wizard' } });
    expect(p.source).toBe('preset');
    expect(p.preset_key).toBe('aggressive');
    expect(p.risk_settings).toEqual(PRESETS.aggressive.risk_settings);
    expect(p.constraint_pack).toEqual(PRESETS.aggressive.constraint_pack);
  });

  it('rejects an unknown or non-string suggested preset key, listing the known keys', () => {
    const err = appErrorOf(() => resolveRiskProfile({ suggested_preset: { key: 'yolo' } }));
    expect(err.code).toBe('VALIDATION_FAILED');
    expect(err.details).toHaveLength(1);
    expect(err.details[0].field).toBe('suggested_preset.key');
    expect(err.details[0].message).toContain('conservative, moderate, balanced, growth, aggressive');
    expect(appErrorOf(() => resolveRiskProfile({ suggested_preset: { key: 3 as unknown as string } })).details[0].field).toBe('suggested_preset.key');
  });

  it("the request's constraint pack wins whatever the settings source", () => {
    for (const req of [{}, { risk_settings: {} }, { risk_quiz_answers: allAt(3) }, { suggested_preset: { key: 'moderate' } }]) {
      expect(resolveRiskProfile({ ...req, constraint_pack: PACK }).constraint_pack).toEqual(PACK);
    }
  });

  it('returns copies: mutating a result changes neither the presets nor the inputs', () => {
    const fromPreset = resolveRiskProfile({ suggested_preset: { key: 'balanced' } });
    fromPreset.risk_settings.max_positions = 1;
    fromPreset.constraint_pack!.sector_caps!.Energy = 1;
    expect(PRESETS.balanced.risk_settings.max_positions).toBe(20);
    expect(PRESETS.balanced.constraint_pack.sector_caps!.Energy).toBe(0.35);
    const pack = { ...PACK, sector_caps: { ...PACK.sector_caps } };
    const fromRequest = resolveRiskProfile({ constraint_pack: pack, risk_settings: { stage_weights: { 'STAGE 2': 1 } } });
    fromRequest.constraint_pack!.sector_caps!.Energy = 0.9;
    fromRequest.risk_settings.stage_weights!['STAGE 2'] = 5;
    expect(pack.sector_caps.Energy).toBe(0.2);
    const defaults = resolveRiskProfile({});
    defaults.risk_settings.max_positions = 2;
    expect(DEFAULT_RISK_SETTINGS.max_positions).toBe(30);
  });
});

describe('buildPolicyExplanation', () => {
  it('formats fractions as percentages with two decimals', () => {
    expect(formatPercent(0.0075)).toBe('0.75%');
    expect(formatPercent(0.2)).toBe('20.00%');
    expect(formatPercent(3)).toBe('300.00%');
    expect(formatPercent(-0)).toBe('0.00%');
  });

  it('defaults: one line per field and the no-pack line', () => {
    const e = buildPolicyExplanation(resolveRiskProfile({}));
    expect(e).toEqual({
      schema_version: POLICY_EXPLANATION_SCHEMA_VERSION,
      mapper_version: MAPPER_VERSION,
      preset_key: null,
      bullets: [
        'settings source: server defaults (no risk_settings, quiz answers or preset supplied)',
        'allocation_strategy: HYBRID_WEIGHTED',
        'max_risk_per_trade: 1.00% of capital per position (shares x (entry - stop))',
        'max_portfolio_risk: 5.00% of capital across all stops',
        'max_position_size: 20.00% per name',
        'max_positions: 30',
        'no sector caps',
        'vol_target_annual: none',
        'max_portfolio_turnover_annual: none',
        'no constraint pack supplied; only risk_settings apply',
      ],
    });
    expect(MAPPER_VERSION).toBe('1.0.0');
    expect(POLICY_EXPLANATION_SCHEMA_VERSION).toBe('1');
  });

  it('request settings with a pack: DEFAULT merge, sorted sector caps, vol target and turnover', () => {
    const profile = resolveRiskProfile({
      risk_settings: { max_position_size: 0.15, allocation_strategy: 'KELLY_CRITERION', half_kelly: true, reward_multiplier: 2 },
      suggested_preset: { key: 'growth' },
      constraint_pack: PACK,
    });
    expect(buildPolicyExplanation(profile).bullets).toEqual([
      "settings source: request risk_settings over server defaults (suggested preset 'growth' recorded)",
      'allocation_strategy: KELLY_CRITERION (reward_multiplier 2; half_kelly true)',
      'max_risk_per_trade: 1.00% of capital per position (shares x (entry - stop))',
      'max_portfolio_risk: 5.00% of capital across all stops',
      'max_position_size: 15.00% per name; sector_caps.DEFAULT 8.00% -> per-name cap 8.00%',
      'max_positions: 30',
      'sector_caps: Energy 20.00%, Information Technology 30.00%',
      'vol_target_annual: 12.00%',
      'max_portfolio_turnover_annual: 150.00% one-way',
    ]);
    expect(buildPolicyExplanation(profile).preset_key).toBe('growth');
  });

  it('quiz and preset sources name the preset; stage weights are listed sorted', () => {
    const quiz = buildPolicyExplanation(resolveRiskProfile({ risk_quiz_answers: allAt(4) }));
    expect(quiz.preset_key).toBe('aggressive');
    expect(quiz.bullets[0]).toBe("settings source: risk quiz mapped to preset 'aggressive' (mapper 1.0.0)");
    expect(quiz.bullets[1]).toBe('allocation_strategy: KELLY_CRITERION (half_kelly true)');
    expect(quiz.bullets[4]).toBe('max_position_size: 25.00% per name; sector_caps.DEFAULT 25.00% -> per-name cap 25.00%');
    expect(quiz.bullets[6]).toMatch(/^sector_caps: Communication Services 50\.00%, .*Unclassified 50\.00%, Utilities 50\.00%$/);
    expect(quiz.bullets).not.toContain('no constraint pack supplied; only risk_settings apply');
    const preset = buildPolicyExplanation(resolveRiskProfile({ suggested_preset: { key: 'moderate' } }));
    expect(preset.bullets[0]).toBe("settings source: suggested preset 'moderate'");
    const weights = buildPolicyExplanation(resolveRiskProfile({ risk_settings: { stage_weights: { 'STAGE 2': 1, 'STAGE 1': 0.35 }, softmax_temperature: 0.5 } }));
    expect(weights.bullets[1]).toBe('allocation_strategy: HYBRID_WEIGHTED (softmax_temperature 0.5; stage_weights STAGE 1=0.35, STAGE 2=1)');
  });

  it('a pack with only a DEFAULT cap and null limits reads as no sector caps and none', () => {
    const pack: ConstraintPack = { schema_version: '1', max_portfolio_turnover_annual: null, vol_target_annual: null, sector_caps: { DEFAULT: 0.3 }, covariance_model: 'ledoit_wolf' };
    const bullets = buildPolicyExplanation(resolveRiskProfile({ constraint_pack: pack })).bullets;
    expect(bullets.slice(4)).toEqual([
      'max_position_size: 20.00% per name; sector_caps.DEFAULT 30.00% -> per-name cap 20.00%',
      'max_positions: 30',
      'no sector caps',
      'vol_target_annual: none',
      'max_portfolio_turnover_annual: none',
      "covariance_model 'ledoit_wolf' recorded; the covariance is always Ledoit-Wolf shrunk",
    ]);
  });

  it('is deterministic whatever the key order of the sector caps', () => {
    const a: RiskProfile = resolveRiskProfile({ constraint_pack: { ...PACK, sector_caps: { Energy: 0.2, Utilities: 0.1 } } });
    const b: RiskProfile = resolveRiskProfile({ constraint_pack: { ...PACK, sector_caps: { Utilities: 0.1, Energy: 0.2 } } });
    expect(buildPolicyExplanation(a)).toEqual(buildPolicyExplanation(b));
  });
});
