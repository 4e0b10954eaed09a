/**
 * The optimizer form's state (every control's text as typed) and the PortfolioRequestInput it stands
 * for. An empty field is left out of the input, and an object with no field set is left out whole, so
 * the server's defaults apply; nothing is checked here beyond turning text into the types the input
 * needs (the server's validation names every problem). Pure: no DOM, no React.
 */
import type { AllocationStrategy, ConstraintPackInput, InvestorProfileInput, PolicyExplanationInput, PortfolioRequestInput, RiskSettingsInput, SuggestedPresetInput } from '../../generated/graphql.js';
import { CONTROL_PATHS, controlForField, type ErrorDetail } from './fields.js';
import { INVESTOR_PROFILE_SCHEMA_VERSION, STAGE_KEYS, stageWeightsByKey, type AllocationLimitsAnswer, type StageKey } from './defaults.js';

/** One editable row of a map (sector -> cap, symbol -> fraction, quiz key -> answer). */
export interface MapRow {
  key: string;
  value: string;
}

export interface PresetFields {
  key: string;
  description: string;
}

/** Every control's text. `halfKelly` and `allocationStrategy` are '' for "the server's default". */
export interface OptimizerForm {
  name: string;
  description: string;
  totalCapital: string;
  currency: string;
  riskSettings: {
    maxRiskPerTrade: string;
    maxPortfolioRisk: string;
    maxPositionSize: string;
    maxPositions: string;
    allocationStrategy: AllocationStrategy | '';
    softmaxTemperature: string;
    rewardMultiplier: string;
    stageWeights: Record<StageKey, string>;
    halfKelly: '' | 'true' | 'false';
  };
  constraintPack: {
    schemaVersion: string;
    maxPortfolioTurnoverAnnual: string;
    volTargetAnnual: string;
    sectorCaps: MapRow[];
    covarianceModel: string;
  };
  priorBookWeights: MapRow[];
  riskQuizAnswers: MapRow[];
  suggestedPreset: PresetFields;
  investorProfile: {
    schemaVersion: string;
    recordedAt: string;
    riskQuizAnswers: MapRow[];
    suggestedPreset: PresetFields;
  };
  policyExplanation: {
    schemaVersion: string;
    mapperVersion: string;
    presetKey: string;
    /** One bullet per line. */
    bullets: string;
  };
}

const noStages = (): Record<StageKey, string> => ({ 'STAGE 1': '', 'STAGE 2': '', 'STAGE 3': '', 'STAGE 4': '' });

/**
 * A blank form: only the schema versions are filled (they are required once their object is sent); the
 * constraint pack's is the graph's current one ('' until the graph has answered).
 */
export function emptyForm(constraintPackSchemaVersion: string): OptimizerForm {
  return {
    name: '',
    description: '',
    totalCapital: '',
    currency: '',
    riskSettings: { maxRiskPerTrade: '', maxPortfolioRisk: '', maxPositionSize: '', maxPositions: '', allocationStrategy: '', softmaxTemperature: '', rewardMultiplier: '', stageWeights: noStages(), halfKelly: '' },
    constraintPack: { schemaVersion: constraintPackSchemaVersion, maxPortfolioTurnoverAnnual: '', volTargetAnnual: '', sectorCaps: [], covarianceModel: '' },
    priorBookWeights: [],
    riskQuizAnswers: [],
    suggestedPreset: { key: '', description: '' },
    investorProfile: { schemaVersion: INVESTOR_PROFILE_SCHEMA_VERSION, recordedAt: '', riskQuizAnswers: [], suggestedPreset: { key: '', description: '' } },
    policyExplanation: { schemaVersion: '', mapperVersion: '', presetKey: '', bullets: '' },
  };
}

/** The limits a form is built from: the pack's version and the demo request. */
export type FormLimits = Pick<AllocationLimitsAnswer, 'constraintPackSchemaVersion' | 'demoRequest'>;

/** The text of a value the graph gave ('' for none, so the field is left out). */
export const textOf = (v: number | string | null | undefined): string => (v === null || v === undefined ? '' : String(v));

/**
 * The form holding exactly the graph's demo request (the only input the server accepts without a token);
 * its null risk settings are not part of it, so their fields stay empty.
 */
export function demoForm(limits: FormLimits): OptimizerForm {
  const form = emptyForm(limits.constraintPackSchemaVersion);
  const demo = limits.demoRequest;
  const r = demo.riskSettings;
  const stages = stageWeightsByKey(r.stageWeights);
  return {
    ...form,
    name: demo.name,
    totalCapital: textOf(demo.totalCapital),
    riskSettings: {
      maxRiskPerTrade: textOf(r.maxRiskPerTrade),
      maxPortfolioRisk: textOf(r.maxPortfolioRisk),
      maxPositionSize: textOf(r.maxPositionSize),
      maxPositions: textOf(r.maxPositions),
      allocationStrategy: r.allocationStrategy,
      softmaxTemperature: textOf(r.softmaxTemperature),
      rewardMultiplier: textOf(r.rewardMultiplier),
      stageWeights: Object.fromEntries(STAGE_KEYS.map((k) => [k, textOf(stages[k])])) as Record<StageKey, string>,
      halfKelly: r.halfKelly === null ? '' : r.halfKelly ? 'true' : 'false',
    },
  };
}

/**
 * The form once the graph's limits arrive: a form still blank becomes the demo request (the form opens
 * with it); an edited one is kept, with the constraint pack's version filled if it had none yet.
 */
export function withLimits(form: OptimizerForm, limits: FormLimits): OptimizerForm {
  if (JSON.stringify(form) === JSON.stringify(emptyForm(''))) return demoForm(limits);
  if (form.constraintPack.schemaVersion !== '') return form;
  return { ...form, constraintPack: { ...form.constraintPack, schemaVersion: limits.constraintPackSchemaVersion } };
}

/** What the form stands for: the input, and the fields whose text is not of the type the input needs. */
export interface Conversion {
  input: PortfolioRequestInput;
  problems: ErrorDetail[];
}

/**
 * Builds the PortfolioRequestInput. Text is trimmed; empty text leaves its field out. A number field
 * whose text is not a number, or an integer field whose text is not an integer, is a problem named by
 * its field path (as the server would name it), and the field is left out.
 */
export function toRequestInput(form: OptimizerForm): Conversion {
  const problems: ErrorDetail[] = [];
  const text = (v: string): string | undefined => (v.trim() === '' ? undefined : v.trim());
  const num = (field: string, v: string, integer = false): number | undefined => {
    const t = text(v);
    if (t === undefined) return undefined;
    const n = Number(t);
    if (!Number.isFinite(n)) problems.push({ field, message: `${field}: "${t}" is not a number` });
    else if (integer && !Number.isInteger(n)) problems.push({ field, message: `${field}: "${t}" is not a whole number` });
    else return n;
    return undefined;
  };
  const numberMap = (field: string, rows: readonly MapRow[]): Record<string, number> | undefined => {
    const out: Record<string, number> = {};
    for (const row of rows) {
      if (row.key.trim() === '' && row.value.trim() === '') continue;
      const n = num(`${field}.${row.key.trim()}`, row.value);
      if (n !== undefined) out[row.key.trim()] = n;
      else if (text(row.value) === undefined) problems.push({ field: `${field}.${row.key.trim()}`, message: `${field}: "${row.key.trim()}" has no value` });
    }
    return Object.keys(out).length > 0 ? out : undefined;
  };
  const stringMap = (rows: readonly MapRow[]): Record<string, string> | undefined => {
    const out: Record<string, string> = {};
    for (const row of rows) if (row.key.trim() !== '' || row.value.trim() !== '') out[row.key.trim()] = row.value.trim();
    return Object.keys(out).length > 0 ? out : undefined;
  };
  const preset = (p: PresetFields): SuggestedPresetInput | undefined => compact({ key: text(p.key), description: text(p.description) });

  const r = form.riskSettings;
  const stageWeights: Record<string, number> = {};
  for (const stage of STAGE_KEYS) {
    const n = num(`riskSettings.stageWeights.${stage}`, r.stageWeights[stage]);
    if (n !== undefined) stageWeights[stage] = n;
  }
  const riskSettings: RiskSettingsInput | undefined = compact({
    maxRiskPerTrade: num('riskSettings.maxRiskPerTrade', r.maxRiskPerTrade),
    maxPortfolioRisk: num('riskSettings.maxPortfolioRisk', r.maxPortfolioRisk),
    maxPositionSize: num('riskSettings.maxPositionSize', r.maxPositionSize),
    maxPositions: num('riskSettings.maxPositions', r.maxPositions, true),
    allocationStrategy: r.allocationStrategy === '' ? undefined : r.allocationStrategy,
    softmaxTemperature: num('riskSettings.softmaxTemperature', r.softmaxTemperature),
    rewardMultiplier: num('riskSettings.rewardMultiplier', r.rewardMultiplier),
    stageWeights: Object.keys(stageWeights).length > 0 ? stageWeights : undefined,
    halfKelly: r.halfKelly === '' ? undefined : r.halfKelly === 'true',
  });

  // An object whose only field is its schema version says nothing: it is sent once another field is set.
  const c = form.constraintPack;
  const packFields = compact({
    maxPortfolioTurnoverAnnual: num('constraintPack.maxPortfolioTurnoverAnnual', c.maxPortfolioTurnoverAnnual),
    volTargetAnnual: num('constraintPack.volTargetAnnual', c.volTargetAnnual),
    sectorCaps: numberMap('constraintPack.sectorCaps', c.sectorCaps),
    covarianceModel: text(c.covarianceModel),
  });
  const constraintPack: ConstraintPackInput | undefined = packFields && { schemaVersion: c.schemaVersion.trim(), ...packFields };

  const p = form.investorProfile;
  const profileFields = compact({ recordedAt: text(p.recordedAt), riskQuizAnswers: stringMap(p.riskQuizAnswers), suggestedPreset: preset(p.suggestedPreset) });
  const investorProfile: InvestorProfileInput | undefined = profileFields && { schemaVersion: p.schemaVersion.trim(), ...profileFields };

  const e = form.policyExplanation;
  const bullets = e.bullets.split('\n').map((b) => b.trim()).filter((b) => b.length > 0);
  const policyExplanation: PolicyExplanationInput | undefined = compact({
    schemaVersion: text(e.schemaVersion),
    mapperVersion: text(e.mapperVersion),
    presetKey: text(e.presetKey),
    bullets: bullets.length > 0 ? bullets : undefined,
  });

  const totalCapital = num('totalCapital', form.totalCapital);
  if (totalCapital === undefined && text(form.totalCapital) === undefined) problems.push({ field: 'totalCapital', message: 'totalCapital is required' });
  const input: PortfolioRequestInput = {
    name: form.name.trim(),
    totalCapital: totalCapital ?? 0,
    ...compact({
      description: text(form.description),
      currency: text(form.currency),
      riskSettings,
      constraintPack,
      priorBookWeights: numberMap('priorBookWeights', form.priorBookWeights),
      riskQuizAnswers: stringMap(form.riskQuizAnswers),
      suggestedPreset: preset(form.suggestedPreset),
      investorProfile,
      policyExplanation,
    }),
  };
  return { input, problems: inFormOrder(problems) };
}

/** Problems in the order their controls appear in the form (a stable sort). */
function inFormOrder(problems: ErrorDetail[]): ErrorDetail[] {
  const rank = (p: ErrorDetail): number => {
    const control = controlForField(p.field);
    return control ? CONTROL_PATHS.indexOf(control) : CONTROL_PATHS.length;
  };
  return problems.map((p, i) => ({ p, i })).sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i).map(({ p }) => p);
}

/** The object without its undefined fields, or undefined when none is left. */
function compact<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } | undefined {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return Object.keys(out).length > 0 ? (out as { [K in keyof T]?: Exclude<T[K], undefined> }) : undefined;
}
