/**
 * Risk profile: which risk settings and constraint pack a portfolio request ends up with, and the audit
 * lines (policy explanation) that say why. Pure: no I/O, no clock.
 *
 * Risk quiz (`risk_quiz_answers`): six questions, each answered with one of five strings scored 0..4
 * (listed in `RISK_QUIZ`, lowest risk first). Answers are trimmed and case-insensitive. Unknown keys,
 * unknown answers and non-string answers are rejected together (VALIDATION_FAILED, one detail per bad
 * key, field `risk_quiz_answers.<key>`, listing the allowed values); at least one answer is required.
 * Keys may be left out: the score is the mean of the answered items (0..4), mapped to a preset by
 * `QUIZ_PRESET_THRESHOLDS` (even fifths of the range):
 *   mean < 0.8 conservative, < 1.6 moderate, < 2.4 balanced, < 3.2 growth, otherwise aggressive.
 *
 * Presets (`PRESETS`): full risk settings plus a constraint pack (sector caps: every GICS sector and
 * `Unclassified` at one common cap, and `DEFAULT` equal to the preset's max_position_size):
 *
 *   preset        risk/trade  portfolio risk  max position  max positions  strategy             vol target  turnover/yr  sector cap
 *   conservative  0.50%       3.0%            10%           30             EQUAL_WEIGHT         10%         100%         25%
 *   moderate      0.75%       4.0%            15%           25             STAGE_WEIGHTED       14%         200%         30%
 *   balanced      1.00%       5.0%            20%           20             HYBRID_WEIGHTED      18%         300%         35%
 *   growth        1.50%       7.5%            20%           18             CONFIDENCE_WEIGHTED  24%         400%         40%
 *   aggressive    2.00%       10.0%           25%           15             KELLY_CRITERION      30%         600%         50%
 *                                                                          (half_kelly true)
 *
 * Precedence (`resolveRiskProfile`):
 *   1. risk_settings given: its fields over DEFAULT_RISK_SETTINGS (source 'request'); a field that is
 *      undefined, or null where the spec does not allow null, keeps the default. preset_key is
 *      suggested_preset.key when that is a known preset, else null.
 *   2. else risk_quiz_answers given: the mapped preset's settings (source 'quiz').
 *   3. else suggested_preset.key given: that preset (source 'preset'); an unknown key is rejected
 *      (VALIDATION_FAILED, field `suggested_preset.key`, listing the known keys).
 *   4. else DEFAULT_RISK_SETTINGS (source 'defaults').
 *   Quiz answers, when present, are validated whichever source wins (they are stored with the portfolio).
 *   constraint_pack: the request's when given; else the preset's when the settings came from the quiz or
 *   a preset; else null. Strategy-specific nulls (softmax_temperature, reward_multiplier, stage_weights,
 *   half_kelly) are left as they are.
 */
import { GICS_SECTORS } from '../../analysis/engine/market-types.js';
import { AppError, type ErrorDetail } from '../../platform/errors.js';
import { UNCLASSIFIED_SECTOR } from './candidates.js';
import { capsOf, sectorCapsOf, turnoverCapOf, volTargetOf } from './constraints.js';
import { DEFAULT_RISK_SETTINGS, type AllocationStrategy, type RiskSettings } from './risk-settings.js';
import { CONSTRAINT_PACK_SCHEMA_VERSION, DEFAULT_SECTOR_KEY, type ConstraintPack } from './types.js';

export const MAPPER_VERSION = '1.0.0';
export const POLICY_EXPLANATION_SCHEMA_VERSION = '1';

export interface QuizQuestion {
  /** What the question asks. */
  description: string;
  /** Allowed answers, lowest risk first; an answer's score is its index (0..4). */
  answers: readonly string[];
}

/** The risk quiz: question key -> allowed answers (scored 0..4 by position). */
export const RISK_QUIZ = Object.freeze({
  goal: {
    description: 'Main investment goal',
    answers: ['preservation', 'income', 'balanced', 'growth', 'aggressive_growth'],
  },
  horizon: {
    description: 'Investment horizon',
    answers: ['under_1y', '1_3y', '3_5y', '5_10y', 'over_10y'],
  },
  drawdown: {
    description: 'Largest tolerable drawdown, in percent',
    answers: ['5', '10', '20', '30', '50'],
  },
  volatility: {
    description: 'Comfort with price swings',
    answers: ['very_low', 'low', 'medium', 'high', 'very_high'],
  },
  concentration: {
    description: 'Preferred concentration of the book',
    answers: ['very_diversified', 'diversified', 'balanced', 'concentrated', 'very_concentrated'],
  },
  preference: {
    description: 'What matters most',
    answers: ['safety', 'stability', 'balance', 'growth', 'maximum_growth'],
  },
} as const satisfies Record<string, QuizQuestion>);

export type RiskQuizKey = keyof typeof RISK_QUIZ;
export const RISK_QUIZ_KEYS = Object.freeze(Object.keys(RISK_QUIZ) as RiskQuizKey[]);

export const PRESET_KEYS = ['conservative', 'moderate', 'balanced', 'growth', 'aggressive'] as const;
export type RiskPresetKey = (typeof PRESET_KEYS)[number];

/**
 * Upper bounds (exclusive) of the mean quiz score for each preset but the last, in PRESET_KEYS order:
 * mean < 0.8 conservative, < 1.6 moderate, < 2.4 balanced, < 3.2 growth, otherwise aggressive.
 */
export const QUIZ_PRESET_THRESHOLDS = Object.freeze([0.8, 1.6, 2.4, 3.2] as const);

export interface RiskPreset {
  key: RiskPresetKey;
  description: string;
  risk_settings: Readonly<RiskSettings>;
  constraint_pack: Readonly<ConstraintPack>;
}

function settings(
  max_risk_per_trade: number,
  max_portfolio_risk: number,
  max_position_size: number,
  max_positions: number,
  allocation_strategy: AllocationStrategy,
  extra: Partial<RiskSettings> = {},
): RiskSettings {
  return { ...DEFAULT_RISK_SETTINGS, max_risk_per_trade, max_portfolio_risk, max_position_size, max_positions, allocation_strategy, ...extra };
}

function pack(vol_target_annual: number, max_portfolio_turnover_annual: number, sectorCap: number, perNameCap: number): ConstraintPack {
  const sector_caps: Record<string, number> = {};
  for (const s of GICS_SECTORS) sector_caps[s] = sectorCap;
  sector_caps[UNCLASSIFIED_SECTOR] = sectorCap;
  sector_caps[DEFAULT_SECTOR_KEY] = perNameCap;
  return { schema_version: CONSTRAINT_PACK_SCHEMA_VERSION, max_portfolio_turnover_annual, vol_target_annual, sector_caps, covariance_model: null };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

export const PRESETS: Readonly<Record<RiskPresetKey, RiskPreset>> = deepFreeze({
  conservative: {
    key: 'conservative',
    description: 'Capital preservation: small risk per trade, many equal-weight names, low volatility target',
    risk_settings: settings(0.005, 0.03, 0.1, 30, 'EQUAL_WEIGHT'),
    constraint_pack: pack(0.1, 1, 0.25, 0.1),
  },
  moderate: {
    key: 'moderate',
    description: 'Steady growth with limited drawdowns: weights by stage quality, moderate volatility target',
    risk_settings: settings(0.0075, 0.04, 0.15, 25, 'STAGE_WEIGHTED'),
    constraint_pack: pack(0.14, 2, 0.3, 0.15),
  },
  balanced: {
    key: 'balanced',
    description: 'Balanced risk and return: the server defaults for risk, blended score weighting',
    risk_settings: settings(0.01, 0.05, 0.2, 20, 'HYBRID_WEIGHTED'),
    constraint_pack: pack(0.18, 3, 0.35, 0.2),
  },
  growth: {
    key: 'growth',
    description: 'Growth: larger risk budget, confidence-weighted, fewer names',
    risk_settings: settings(0.015, 0.075, 0.2, 18, 'CONFIDENCE_WEIGHTED'),
    constraint_pack: pack(0.24, 4, 0.4, 0.2),
  },
  aggressive: {
    key: 'aggressive',
    description: 'Maximum growth: half-Kelly sizing, concentrated book, high volatility target',
    risk_settings: settings(0.02, 0.1, 0.25, 15, 'KELLY_CRITERION', { half_kelly: true }),
    constraint_pack: pack(0.3, 6, 0.5, 0.25),
  },
});

export function isPresetKey(value: unknown): value is RiskPresetKey {
  return typeof value === 'string' && (PRESET_KEYS as readonly string[]).includes(value);
}

export interface QuizResult {
  /** Normalised answers (trimmed, lower case) of the answered keys, in RISK_QUIZ_KEYS order. */
  answers: Partial<Record<RiskQuizKey, string>>;
  /** Score of each answered key (0..4). */
  scores: Partial<Record<RiskQuizKey, number>>;
  /** Mean of the answered items' scores (0..4). */
  score: number;
  preset_key: RiskPresetKey;
}

/** The preset a mean quiz score (0..4) maps to (see QUIZ_PRESET_THRESHOLDS). */
export function presetForScore(score: number): RiskPresetKey {
  const i = QUIZ_PRESET_THRESHOLDS.findIndex((t) => score < t);
  return PRESET_KEYS[i === -1 ? PRESET_KEYS.length - 1 : i];
}

/** Validates and scores quiz answers; throws VALIDATION_FAILED listing every bad key. */
export function scoreRiskQuiz(raw: Record<string, unknown>): QuizResult {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new AppError('VALIDATION_FAILED', 'risk_quiz_answers must be an object', [
      { field: 'risk_quiz_answers', message: `must be an object with keys ${RISK_QUIZ_KEYS.join(', ')}` },
    ]);
  }
  const details: ErrorDetail[] = [];
  const answers: Partial<Record<RiskQuizKey, string>> = {};
  const scores: Partial<Record<RiskQuizKey, number>> = {};
  for (const key of Object.keys(raw).sort()) {
    const field = `risk_quiz_answers.${key}`;
    if (!Object.prototype.hasOwnProperty.call(RISK_QUIZ, key)) {
      details.push({ field, message: `unknown quiz key; known keys: ${RISK_QUIZ_KEYS.join(', ')}` });
      continue;
    }
    const question = RISK_QUIZ[key as RiskQuizKey];
    const value = raw[key];
    const allowed = question.answers.join(', ');
    if (typeof value !== 'string') {
      details.push({ field, message: `must be a string, one of: ${allowed}`, allowed: [...question.answers] });
      continue;
    }
    const answer = value.trim().toLowerCase();
    const index = (question.answers as readonly string[]).indexOf(answer);
    if (index === -1) {
      details.push({ field, message: `unknown answer '${value}'; allowed: ${allowed}`, allowed: [...question.answers] });
      continue;
    }
    answers[key as RiskQuizKey] = answer;
    scores[key as RiskQuizKey] = index;
  }
  if (details.length > 0) throw new AppError('VALIDATION_FAILED', 'Invalid risk quiz answers', details);
  const answered = RISK_QUIZ_KEYS.filter((k) => scores[k] !== undefined);
  if (answered.length === 0) {
    throw new AppError('VALIDATION_FAILED', 'Invalid risk quiz answers', [
      { field: 'risk_quiz_answers', message: `at least one answer is required; keys: ${RISK_QUIZ_KEYS.join(', ')}` },
    ]);
  }
  const ordered: Partial<Record<RiskQuizKey, string>> = {};
  const orderedScores: Partial<Record<RiskQuizKey, number>> = {};
  for (const k of answered) {
    ordered[k] = answers[k];
    orderedScores[k] = scores[k];
  }
  const score = answered.reduce((s, k) => s + (scores[k] as number), 0) / answered.length;
  return { answers: ordered, scores: orderedScores, score, preset_key: presetForScore(score) };
}

export interface RiskProfileRequest {
  risk_settings?: Partial<RiskSettings> | null;
  risk_quiz_answers?: Record<string, string> | null;
  suggested_preset?: { key?: string | null; [k: string]: unknown } | null;
  constraint_pack?: ConstraintPack | null;
}

export type RiskProfileSource = 'request' | 'quiz' | 'preset' | 'defaults';

export interface RiskProfile {
  risk_settings: RiskSettings;
  constraint_pack: ConstraintPack | null;
  preset_key: string | null;
  source: RiskProfileSource;
}

const REQUIRED_SETTINGS = ['max_risk_per_trade', 'max_portfolio_risk', 'max_position_size', 'max_positions', 'allocation_strategy'] as const;
const NULLABLE_SETTINGS = ['softmax_temperature', 'reward_multiplier', 'stage_weights', 'half_kelly'] as const;

function cloneSettings(s: Readonly<RiskSettings>): RiskSettings {
  return { ...s, stage_weights: s.stage_weights ? { ...s.stage_weights } : s.stage_weights };
}

function clonePack(p: Readonly<ConstraintPack>): ConstraintPack {
  return { ...p, sector_caps: p.sector_caps ? { ...p.sector_caps } : p.sector_caps };
}

/** suggested_preset.key trimmed and lower-cased; null when absent or empty; the raw value when not a string. */
function suggestedKey(req: RiskProfileRequest): unknown {
  const key = req.suggested_preset?.key;
  if (key === undefined || key === null) return null;
  if (typeof key !== 'string') return key;
  const k = key.trim().toLowerCase();
  return k === '' ? null : k;
}

/** Effective risk settings, constraint pack and preset of a portfolio request (see the header for the rules). */
export function resolveRiskProfile(req: RiskProfileRequest): RiskProfile {
  const quiz = req.risk_quiz_answers != null ? scoreRiskQuiz(req.risk_quiz_answers) : null;
  const requestPack = req.constraint_pack != null ? clonePack(req.constraint_pack) : null;

  if (req.risk_settings != null) {
    const given = req.risk_settings;
    const merged = cloneSettings(DEFAULT_RISK_SETTINGS);
    const out = merged as unknown as Record<string, unknown>;
    for (const f of REQUIRED_SETTINGS) if (given[f] !== undefined && given[f] !== null) out[f] = given[f];
    for (const f of NULLABLE_SETTINGS) if (given[f] !== undefined) out[f] = given[f];
    if (merged.stage_weights) merged.stage_weights = { ...merged.stage_weights };
    const key = suggestedKey(req);
    return { risk_settings: merged, constraint_pack: requestPack, preset_key: isPresetKey(key) ? key : null, source: 'request' };
  }

  if (quiz !== null) {
    const preset = PRESETS[quiz.preset_key];
    return { risk_settings: cloneSettings(preset.risk_settings), constraint_pack: requestPack ?? clonePack(preset.constraint_pack), preset_key: preset.key, source: 'quiz' };
  }

  const key = suggestedKey(req);
  if (key !== null) {
    if (!isPresetKey(key)) {
      throw new AppError('VALIDATION_FAILED', 'Unknown risk preset', [
        { field: 'suggested_preset.key', message: `unknown preset ${JSON.stringify(req.suggested_preset?.key)}; known presets: ${PRESET_KEYS.join(', ')}`, allowed: [...PRESET_KEYS] },
      ]);
    }
    const preset = PRESETS[key];
    return { risk_settings: cloneSettings(preset.risk_settings), constraint_pack: requestPack ?? clonePack(preset.constraint_pack), preset_key: preset.key, source: 'preset' };
  }

  return { risk_settings: cloneSettings(DEFAULT_RISK_SETTINGS), constraint_pack: requestPack, preset_key: null, source: 'defaults' };
}

/** spec "PolicyExplanationV1". */
export interface PolicyExplanation {
  schema_version: string;
  mapper_version: string;
  preset_key: string | null;
  bullets: string[];
}

/** A fraction as a percentage with two decimals (0.0075 -> "0.75%"). */
export function formatPercent(fraction: number): string {
  const s = (fraction * 100).toFixed(2);
  return `${s === '-0.00' ? '0.00' : s}%`;
}

function formatNumber(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Math.round(v * 1e6) / 1e6);
}

const SOURCE_LINES: Record<RiskProfileSource, (preset: string | null) => string> = {
  request: (p) => `settings source: request risk_settings over server defaults${p ? ` (suggested preset '${p}' recorded)` : ''}`,
  quiz: (p) => `settings source: risk quiz mapped to preset '${p}' (mapper ${MAPPER_VERSION})`,
  preset: (p) => `settings source: suggested preset '${p}'`,
  defaults: () => 'settings source: server defaults (no risk_settings, quiz answers or preset supplied)',
};

/**
 * Audit lines of a resolved profile, one per field in a fixed order: source, strategy, the four risk
 * limits (the per-name line shows the sector_caps.DEFAULT merge), sector caps, volatility target,
 * turnover cap, the reserved covariance model when one was supplied, and a closing line when no
 * constraint pack applies. Deterministic (sector caps are listed by name).
 */
export function buildPolicyExplanation(profile: RiskProfile): PolicyExplanation {
  const s = profile.risk_settings;
  const p = profile.constraint_pack;
  const bullets: string[] = [SOURCE_LINES[profile.source](profile.preset_key)];

  const params: string[] = [];
  if (s.softmax_temperature !== null && s.softmax_temperature !== undefined) params.push(`softmax_temperature ${formatNumber(s.softmax_temperature)}`);
  if (s.reward_multiplier !== null && s.reward_multiplier !== undefined) params.push(`reward_multiplier ${formatNumber(s.reward_multiplier)}`);
  if (s.half_kelly !== null && s.half_kelly !== undefined) params.push(`half_kelly ${s.half_kelly}`);
  if (s.stage_weights) {
    const w = Object.keys(s.stage_weights)
      .sort()
      .map((k) => `${k}=${formatNumber((s.stage_weights as Record<string, number>)[k])}`);
    params.push(`stage_weights ${w.join(', ')}`);
  }
  bullets.push(`allocation_strategy: ${s.allocation_strategy}${params.length ? ` (${params.join('; ')})` : ''}`);
  bullets.push(`max_risk_per_trade: ${formatPercent(s.max_risk_per_trade)} of capital per position (shares x (entry - stop))`);
  bullets.push(`max_portfolio_risk: ${formatPercent(s.max_portfolio_risk)} of capital across all stops`);

  const caps = capsOf(s, p);
  bullets.push(
    caps.defaultSectorCap === null
      ? `max_position_size: ${formatPercent(s.max_position_size)} per name`
      : `max_position_size: ${formatPercent(s.max_position_size)} per name; sector_caps.DEFAULT ${formatPercent(caps.defaultSectorCap)} -> per-name cap ${formatPercent(caps.nameCap)}`,
  );
  bullets.push(`max_positions: ${s.max_positions}`);

  const sectors = sectorCapsOf(p);
  bullets.push(sectors.length === 0 ? 'no sector caps' : `sector_caps: ${sectors.map(({ label, cap }) => `${label} ${formatPercent(cap)}`).join(', ')}`);
  const volTarget = volTargetOf(p);
  const turnoverCap = turnoverCapOf(p);
  bullets.push(`vol_target_annual: ${volTarget !== null ? formatPercent(volTarget) : 'none'}`);
  bullets.push(`max_portfolio_turnover_annual: ${turnoverCap !== null ? `${formatPercent(turnoverCap)} one-way` : 'none'}`);
  if (p?.covariance_model != null) bullets.push(`covariance_model '${p.covariance_model}' recorded; the covariance is always Ledoit-Wolf shrunk`);
  if (p === null) bullets.push('no constraint pack supplied; only risk_settings apply');

  return { schema_version: POLICY_EXPLANATION_SCHEMA_VERSION, mapper_version: MAPPER_VERSION, preset_key: profile.preset_key, bullets };
}
