/** The optimizer form's text -> PortfolioRequestInput: empty fields left out, types converted, nothing else judged. */
import { demoForm, emptyForm, toRequestInput, withLimits, type FormLimits, type OptimizerForm } from '../../../console/src/optimizer/form.js';

/** A graph answer's limits: the pack's version and a demo request (null: not part of it). */
const LIMITS: FormLimits = {
  constraintPackSchemaVersion: '7',
  demoRequest: {
    name: 'Demo book',
    totalCapital: 50000,
    riskSettings: { maxRiskPerTrade: 0.02, maxPortfolioRisk: 0.06, maxPositionSize: 0.25, maxPositions: 8, allocationStrategy: 'STAGE_WEIGHTED', softmaxTemperature: null, rewardMultiplier: null, stageWeights: null, halfKelly: null },
  },
};

function form(edit: (f: OptimizerForm) => void): OptimizerForm {
  const f = emptyForm('1');
  edit(f);
  return f;
}

describe('toRequestInput', () => {
  it('sends only name and capital when nothing else is filled, so every server default applies', () => {
    const { input, problems } = toRequestInput(form((f) => { f.name = ' Core '; f.totalCapital = '250000'; }));
    expect(problems).toEqual([]);
    expect(input).toEqual({ name: 'Core', totalCapital: 250000 });
  });

  it("is exactly the graph's demo request for the demo form (the one input accepted without a token), its nulls left out", () => {
    expect(toRequestInput(demoForm(LIMITS))).toEqual({
      input: { name: 'Demo book', totalCapital: 50000, riskSettings: { maxRiskPerTrade: 0.02, maxPortfolioRisk: 0.06, maxPositionSize: 0.25, maxPositions: 8, allocationStrategy: 'STAGE_WEIGHTED' } },
      problems: [],
    });
  });

  it('carries a strategy parameter the demo request sets', () => {
    const r = LIMITS.demoRequest.riskSettings;
    const limits: FormLimits = { ...LIMITS, demoRequest: { ...LIMITS.demoRequest, riskSettings: { ...r, softmaxTemperature: 0.4, halfKelly: false, stageWeights: { stage1: null, stage2: 0.9, stage3: null, stage4: null } } } };
    expect(toRequestInput(demoForm(limits)).input.riskSettings).toEqual({ ...toRequestInput(demoForm(LIMITS)).input.riskSettings, softmaxTemperature: 0.4, halfKelly: false, stageWeights: { 'STAGE 2': 0.9 } });
  });

  it('converts every filled field of the whole request to its type', () => {
    const { input, problems } = toRequestInput(
      form((f) => {
        f.name = 'Full';
        f.description = 'every field';
        f.totalCapital = '1e5';
        f.currency = 'EUR';
        f.riskSettings = {
          maxRiskPerTrade: '0.02',
          maxPortfolioRisk: '0.1',
          maxPositionSize: '.25',
          maxPositions: '12',
          allocationStrategy: 'STAGE_WEIGHTED',
          softmaxTemperature: '0.5',
          rewardMultiplier: '2',
          stageWeights: { 'STAGE 1': '0.3', 'STAGE 2': '1', 'STAGE 3': '', 'STAGE 4': '0' },
          halfKelly: 'true',
        };
        f.constraintPack = { schemaVersion: '1', maxPortfolioTurnoverAnnual: '2', volTargetAnnual: '0.15', sectorCaps: [{ key: 'DEFAULT', value: '0.1' }, { key: ' Energy ', value: '0.2' }, { key: '', value: '' }], covarianceModel: 'ledoit_wolf' };
        f.priorBookWeights = [{ key: 'ACME', value: '0.4' }];
        f.riskQuizAnswers = [{ key: 'goal', value: 'growth' }];
        f.suggestedPreset = { key: 'balanced', description: '' };
        f.investorProfile = { schemaVersion: '1', recordedAt: '2026-11-20T09:30:00Z', riskQuizAnswers: [{ key: 'horizon', value: '5_10y' }], suggestedPreset: { key: '', description: 'from the wizard' } };
        f.policyExplanation = { schemaVersion: '1', mapperVersion: '1.0.0', presetKey: 'balanced', bullets: 'one\n\n  two  \n' };
      }),
    );
    expect(problems).toEqual([]);
    expect(input).toEqual({
      name: 'Full',
      description: 'every field',
      totalCapital: 100000,
      currency: 'EUR',
      riskSettings: {
        maxRiskPerTrade: 0.02,
        maxPortfolioRisk: 0.1,
        maxPositionSize: 0.25,
        maxPositions: 12,
        allocationStrategy: 'STAGE_WEIGHTED',
        softmaxTemperature: 0.5,
        rewardMultiplier: 2,
        stageWeights: { 'STAGE 1': 0.3, 'STAGE 2': 1, 'STAGE 4': 0 },
        halfKelly: true,
      },
      constraintPack: { schemaVersion: '1', maxPortfolioTurnoverAnnual: 2, volTargetAnnual: 0.15, sectorCaps: { DEFAULT: 0.1, Energy: 0.2 }, covarianceModel: 'ledoit_wolf' },
      priorBookWeights: { ACME: 0.4 },
      riskQuizAnswers: { goal: 'growth' },
      suggestedPreset: { key: 'balanced' },
      investorProfile: { schemaVersion: '1', recordedAt: '2026-11-20T09:30:00Z', riskQuizAnswers: { horizon: '5_10y' }, suggestedPreset: { description: 'from the wizard' } },
      policyExplanation: { schemaVersion: '1', mapperVersion: '1.0.0', presetKey: 'balanced', bullets: ['one', 'two'] },
    });
  });

  it('leaves out a constraint pack or investor profile whose only field is the prefilled schema version', () => {
    const { input } = toRequestInput(form((f) => { f.name = 'x'; f.totalCapital = '5000'; }));
    expect(input).not.toHaveProperty('constraintPack');
    expect(input).not.toHaveProperty('investorProfile');
    expect(emptyForm('1').constraintPack.schemaVersion).toBe('1');
    expect(demoForm(LIMITS).constraintPack.schemaVersion).toBe('7');
  });

  it('sends a half Kelly of "no" as false, and the server default as nothing', () => {
    expect(toRequestInput(form((f) => { f.totalCapital = '5000'; f.riskSettings.halfKelly = 'false'; })).input.riskSettings).toEqual({ halfKelly: false });
    expect(toRequestInput(form((f) => { f.totalCapital = '5000'; })).input).not.toHaveProperty('riskSettings');
  });

  it('leaves values the server judges to the server (out of range, blank name, blank schema version)', () => {
    const { input, problems } = toRequestInput(
      form((f) => {
        f.totalCapital = '500';
        f.riskSettings.maxRiskPerTrade = '2';
        f.constraintPack.schemaVersion = '';
        f.constraintPack.volTargetAnnual = '9';
      }),
    );
    expect(problems).toEqual([]);
    expect(input).toEqual({ name: '', totalCapital: 500, riskSettings: { maxRiskPerTrade: 2 }, constraintPack: { schemaVersion: '', volTargetAnnual: 9 } });
  });

  it('names each field whose text is not of its type, by the path the server would use', () => {
    const { problems } = toRequestInput(
      form((f) => {
        f.totalCapital = '';
        f.riskSettings.maxPositions = '2.5';
        f.riskSettings.maxRiskPerTrade = 'one percent';
        f.riskSettings.stageWeights['STAGE 2'] = 'x';
        f.constraintPack.sectorCaps = [{ key: 'Energy', value: 'high' }, { key: 'Utilities', value: '' }];
        f.priorBookWeights = [{ key: 'ACME', value: '1/2' }];
      }),
    );
    expect(problems.map((p) => p.field)).toEqual([
      'totalCapital',
      'riskSettings.maxRiskPerTrade',
      'riskSettings.maxPositions',
      'riskSettings.stageWeights.STAGE 2',
      'constraintPack.sectorCaps.Energy',
      'constraintPack.sectorCaps.Utilities',
      'priorBookWeights.ACME',
    ]);
    expect(problems.find((p) => p.field === 'riskSettings.maxPositions')?.message).toMatch(/not a whole number/);
  });
});

describe('withLimits', () => {
  it('opens a blank form with the demo request once the graph answers', () => {
    expect(withLimits(emptyForm(''), LIMITS)).toEqual(demoForm(LIMITS));
  });

  it('keeps a form edited before the answer, filling only the constraint pack version it lacked', () => {
    const edited = form((f) => { f.name = 'Mine'; f.constraintPack.schemaVersion = ''; });
    expect(withLimits(edited, LIMITS)).toEqual({ ...edited, constraintPack: { ...edited.constraintPack, schemaVersion: '7' } });
    const typed = form((f) => { f.name = 'Mine'; f.constraintPack.schemaVersion = '2'; });
    expect(withLimits(typed, LIMITS)).toBe(typed);
  });
});
