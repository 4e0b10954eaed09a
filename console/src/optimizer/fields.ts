/**
 * The optimizer form's controls by the field path the server names in an error's details, so a refused
 * request marks the control at fault. Validation details name fields in camelCase relative to the input
 * (`riskSettings.maxPositions`, `constraintPack.sectorCaps`, `riskQuizAnswers.goal`); REST bodies and the
 * binding notes use snake_case (`risk_settings.max_positions`), and GraphQL's own variable errors say
 * `input.riskSettings.maxPositions`: all of them map to the same control. Pure: no DOM, no React.
 */
/**
 * One problem with a field, as errors carry them (the same shape as api.ts's ErrorDetail, declared here
 * so that this module and its tests do not load the fetch layer).
 */
export interface ErrorDetail {
  field: string;
  message: string;
}

/** Every control (or group of controls) of the form, by its field path in the input. */
export const CONTROL_PATHS = [
  'name',
  'description',
  'totalCapital',
  'currency',
  'riskSettings',
  'riskSettings.maxRiskPerTrade',
  'riskSettings.maxPortfolioRisk',
  'riskSettings.maxPositionSize',
  'riskSettings.maxPositions',
  'riskSettings.allocationStrategy',
  'riskSettings.softmaxTemperature',
  'riskSettings.rewardMultiplier',
  'riskSettings.stageWeights',
  'riskSettings.halfKelly',
  'constraintPack',
  'constraintPack.schemaVersion',
  'constraintPack.maxPortfolioTurnoverAnnual',
  'constraintPack.volTargetAnnual',
  'constraintPack.sectorCaps',
  'constraintPack.covarianceModel',
  'priorBookWeights',
  'riskQuizAnswers',
  'suggestedPreset',
  'suggestedPreset.key',
  'suggestedPreset.description',
  'investorProfile',
  'investorProfile.schemaVersion',
  'investorProfile.recordedAt',
  'investorProfile.riskQuizAnswers',
  'investorProfile.suggestedPreset',
  'investorProfile.suggestedPreset.key',
  'investorProfile.suggestedPreset.description',
  'policyExplanation',
  'policyExplanation.schemaVersion',
  'policyExplanation.mapperVersion',
  'policyExplanation.presetKey',
  'policyExplanation.bullets',
] as const;
export type ControlPath = (typeof CONTROL_PATHS)[number];

const KNOWN: ReadonlySet<string> = new Set(CONTROL_PATHS);

/** The DOM id of a control (`riskSettings.maxPositions` -> `opt-riskSettings-maxPositions`). */
export function controlId(path: ControlPath): string {
  return `opt-${path.replace(/\./g, '-')}`;
}

/** The id of the element that holds a control's error messages (its aria-describedby target). */
export function problemId(path: ControlPath): string {
  return `${controlId(path)}-problem`;
}

/** camelCase of a snake_case name (`softmax_temperature` -> `softmaxTemperature`). */
export const snakeToCamel = (s: string): string => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * A detail's field as path segments in the input's camelCase naming: a leading `input` or `$input` is
 * dropped (GraphQL's variable errors), snake_case segments become camelCase, list indexes are dropped.
 */
export function fieldSegments(field: string): string[] {
  const segments = field
    .trim()
    .replace(/\[\d+\]/g, '')
    .split('.')
    .filter((s) => s.length > 0);
  if (segments[0] === 'input' || segments[0] === '$input') segments.shift();
  return segments.map((s, i) => (i === 0 || KNOWN.has([...segments.slice(0, i).map(snakeToCamel), snakeToCamel(s)].join('.')) ? snakeToCamel(s) : s));
}

/**
 * The control a detail's field is about: the longest known path the field starts with, so a map entry
 * (`riskQuizAnswers.goal`) or a list item (`policyExplanation.bullets[2]`) marks its group. Null when no
 * control matches (`body`, a field the form does not have): the error list still names it.
 */
export function controlForField(field: string): ControlPath | null {
  const segments = fieldSegments(field);
  for (let n = segments.length; n > 0; n--) {
    const path = segments.slice(0, n).join('.');
    if (KNOWN.has(path)) return path as ControlPath;
  }
  return null;
}

/** The map key a detail names under a map control (`riskQuizAnswers.goal` -> `goal`), or null. */
function entryKeyOf(field: string, control: ControlPath): string | null {
  const rest = fieldSegments(field).slice(control.split('.').length);
  return rest.length > 0 ? rest.join('.') : null;
}

/**
 * The map key a validation message names when its field is the whole map: the validator writes
 * `constraintPack.sectorCaps entry "Energy" must not be greater than 1` (the key as JSON).
 */
export function entryKeyInMessage(message: string): string | null {
  const m = /^\S+ entry ("(?:[^"\\]|\\.)*")/.exec(message);
  if (!m?.[1]) return null;
  try {
    const key: unknown = JSON.parse(m[1]);
    return typeof key === 'string' ? key : null;
  } catch {
    return null;
  }
}

/** One control's problems: the messages to show beside it, and the map keys named (rows to mark). */
export interface ControlProblems {
  messages: string[];
  entryKeys: string[];
}

/** The details of a refused request grouped by the control each is about (unmatched ones are left out). */
export function problemsByControl(details: readonly ErrorDetail[]): Map<ControlPath, ControlProblems> {
  const out = new Map<ControlPath, ControlProblems>();
  for (const detail of details) {
    const control = controlForField(detail.field);
    if (!control) continue;
    const entry = out.get(control) ?? { messages: [], entryKeys: [] };
    entry.messages.push(detail.message);
    const key = entryKeyOf(detail.field, control) ?? entryKeyInMessage(detail.message);
    if (key !== null && !entry.entryKeys.includes(key)) entry.entryKeys.push(key);
    out.set(control, entry);
  }
  return out;
}

/**
 * The field details of an error: its own, or, for GraphQL's variable coercion errors (which carry none),
 * the path its message names (`Variable "$input" got invalid value "x" at "input.totalCapital"; ...`).
 */
export function detailsOf(error: { message: string; details: readonly ErrorDetail[] }): ErrorDetail[] {
  if (error.details.length > 0) return [...error.details];
  const at = /Variable "\$input" got invalid value .* at "([^"]+)"/.exec(error.message);
  return at?.[1] ? [{ field: at[1], message: error.message }] : [];
}

/** Each control's visible label: the form's labels and the binding notes' plain words share them. */
export const LABELS: Readonly<Record<ControlPath, string>> = {
  name: 'Name',
  description: 'Description',
  totalCapital: 'Total capital',
  currency: 'Currency',
  riskSettings: 'Risk settings',
  'riskSettings.maxRiskPerTrade': 'Max risk per trade',
  'riskSettings.maxPortfolioRisk': 'Max portfolio risk',
  'riskSettings.maxPositionSize': 'Max position size',
  'riskSettings.maxPositions': 'Max positions',
  'riskSettings.allocationStrategy': 'Allocation strategy',
  'riskSettings.softmaxTemperature': 'Softmax temperature',
  'riskSettings.rewardMultiplier': 'Reward multiplier',
  'riskSettings.stageWeights': 'Stage weights',
  'riskSettings.halfKelly': 'Half Kelly',
  constraintPack: 'Constraint pack',
  'constraintPack.schemaVersion': 'Schema version',
  'constraintPack.maxPortfolioTurnoverAnnual': 'Annual turnover cap',
  'constraintPack.volTargetAnnual': 'Volatility target',
  'constraintPack.sectorCaps': 'Sector caps',
  'constraintPack.covarianceModel': 'Covariance model',
  priorBookWeights: 'Prior book weights',
  riskQuizAnswers: 'Risk quiz answers',
  suggestedPreset: 'Suggested preset',
  'suggestedPreset.key': 'Preset key',
  'suggestedPreset.description': 'Preset description',
  investorProfile: 'Investor profile',
  'investorProfile.schemaVersion': 'Profile schema version',
  'investorProfile.recordedAt': 'Answered at',
  'investorProfile.riskQuizAnswers': 'Profile quiz answers',
  'investorProfile.suggestedPreset': 'Profile preset',
  'investorProfile.suggestedPreset.key': 'Profile preset key',
  'investorProfile.suggestedPreset.description': 'Profile preset description',
  policyExplanation: 'Policy explanation',
  'policyExplanation.schemaVersion': 'Explanation schema version',
  'policyExplanation.mapperVersion': 'Mapper version',
  'policyExplanation.presetKey': 'Explanation preset key',
  'policyExplanation.bullets': 'Explanation bullets',
};
