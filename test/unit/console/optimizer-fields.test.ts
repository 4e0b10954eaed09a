/** Which form control an error detail is about, in each naming the server uses. */
import { controlForField, controlId, CONTROL_PATHS, detailsOf, entryKeyInMessage, LABELS, problemId, problemsByControl } from '../../../console/src/optimizer/fields.js';

describe('controlForField', () => {
  it.each([
    ['totalCapital', 'totalCapital'],
    ['riskSettings.maxPositions', 'riskSettings.maxPositions'],
    ['risk_settings.max_positions', 'riskSettings.maxPositions'],
    ['input.riskSettings.maxPositions', 'riskSettings.maxPositions'],
    ['constraint_pack.sector_caps', 'constraintPack.sectorCaps'],
    ['constraintPack.sectorCaps.Energy', 'constraintPack.sectorCaps'],
    ['riskQuizAnswers.goal', 'riskQuizAnswers'],
    ['riskSettings.stageWeights.STAGE 2', 'riskSettings.stageWeights'],
    ['investorProfile.suggestedPreset.key', 'investorProfile.suggestedPreset.key'],
    ['investor_profile.risk_quiz_answers.horizon', 'investorProfile.riskQuizAnswers'],
    ['policyExplanation.bullets[3]', 'policyExplanation.bullets'],
    ['riskSettings.unknownThing', 'riskSettings'],
  ])('%s -> %s', (field, control) => {
    expect(controlForField(field)).toBe(control);
  });

  it('answers null for fields the form has no control for', () => {
    expect(controlForField('body')).toBeNull();
    expect(controlForField('')).toBeNull();
    expect(controlForField('idempotencyKey')).toBeNull();
  });
});

describe('problemsByControl', () => {
  it('groups the details of a refused request by control, with the map keys they name', () => {
    const found = problemsByControl([
      { field: 'totalCapital', message: 'totalCapital must not be less than 1000' },
      { field: 'riskSettings.maxPositions', message: 'riskSettings.maxPositions must not be less than 1' },
      { field: 'constraintPack.sectorCaps', message: 'constraintPack.sectorCaps entry "Energy" must not be greater than 1' },
      { field: 'riskQuizAnswers.goal', message: "riskQuizAnswers.goal unknown answer 'nope'" },
      { field: 'body', message: 'not a form field' },
    ]);
    expect([...found.keys()]).toEqual(['totalCapital', 'riskSettings.maxPositions', 'constraintPack.sectorCaps', 'riskQuizAnswers']);
    expect(found.get('riskSettings.maxPositions')).toEqual({ messages: ['riskSettings.maxPositions must not be less than 1'], entryKeys: [] });
    expect(found.get('constraintPack.sectorCaps')?.entryKeys).toEqual(['Energy']);
    expect(found.get('riskQuizAnswers')?.entryKeys).toEqual(['goal']);
  });
});

describe('entryKeyInMessage', () => {
  it('reads the JSON key the validator names, and nothing from other messages', () => {
    expect(entryKeyInMessage('priorBookWeights entry "BRK.B" must not be greater than 1')).toBe('BRK.B');
    expect(entryKeyInMessage('constraintPack.sectorCaps entry "Real \\"Estate\\"" must be a number')).toBe('Real "Estate"');
    expect(entryKeyInMessage('totalCapital must not be less than 1000')).toBeNull();
  });
});

describe('detailsOf', () => {
  it("keeps an error's own details", () => {
    expect(detailsOf({ message: 'x', details: [{ field: 'name', message: 'name is required' }] })).toEqual([{ field: 'name', message: 'name is required' }]);
  });
  it("reads the path of GraphQL's variable coercion errors, which carry no details", () => {
    const message = 'Variable "$input" got invalid value 2.5 at "input.riskSettings.maxPositions"; Int cannot represent non-integer value: 2.5';
    const details = detailsOf({ message, details: [] });
    expect(details).toEqual([{ field: 'input.riskSettings.maxPositions', message }]);
    expect(controlForField(details[0]!.field)).toBe('riskSettings.maxPositions');
    expect(detailsOf({ message: 'Authentication required', details: [] })).toEqual([]);
  });
});

describe('control ids and labels', () => {
  it('gives every control a distinct id, a problem id and a label', () => {
    const ids = CONTROL_PATHS.map(controlId);
    expect(new Set(ids).size).toBe(CONTROL_PATHS.length);
    expect(controlId('riskSettings.maxPositions')).toBe('opt-riskSettings-maxPositions');
    expect(problemId('riskSettings.maxPositions')).toBe('opt-riskSettings-maxPositions-problem');
    for (const path of CONTROL_PATHS) expect(LABELS[path]).toMatch(/\S/);
  });
});
