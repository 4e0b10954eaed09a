/**
 * Candidates: one stored analysis snapshot (the symbol's latest) -> one `Candidate`, the optimizer's view
 * of a symbol. Pure: no I/O, no clock; the same document always gives the same candidate.
 *
 * The service loads only the keys in `CANDIDATE_SOURCE_KEYS` of each latest snapshot.
 *
 * A document without a usable price (null, not finite, or below half a cent) gives `null`: there is
 * nothing to size. Every other document gives a candidate, eligible or not. Ineligible candidates are
 * still returned because a prior book may hold them (the optimizer can only keep or trim those).
 *
 * 1. Long rule (`eligible`; every failing part is listed in `exclusion`, joined with '; '):
 *    - Stage 2 (advancing): eligible unless the rules `signal` or the blended `enhanced_signal.signal`
 *      is SELL (exclusion `SELL signal`).
 *    - Stage 1 (basing): eligible only when the rules `signal` or the blended signal is BUY (an early
 *      breakout); otherwise `stage 1 without a BUY signal`.
 *    - Stage 3 (topping) and stage 4 (declining): never (`stage 3`, `stage 4`); no stage: `no stage`.
 *    - And a usable stop: `risk_parameters.suggested_stop` finite, above 0 and strictly below the price;
 *      otherwise `no stop below entry`.
 *
 * 2. Prices (rounded to cents):
 *    - entry_price = the last close (`price`).
 *    - stop_loss = `risk_parameters.suggested_stop` (the analysis already picks the tighter of the ATR
 *      and support stops, at least its minimum distance below entry). If rounding makes it reach the
 *      entry, it is set one cent below the entry.
 *    - Without a usable stop (the candidate is then ineligible) a fallback stop is derived so that
 *      `stop_loss < entry_price` still holds: entry x (1 - d) with
 *      d = min(0.5, max(min distance, 2 x ATR%)), where min distance is
 *      `risk_parameters.min_stop_distance_percent` (at least 1%) and ATR% is the ATR as a fraction of
 *      the close (indicators.atr_percent, else risk_parameters.atr_percent, else ATR / price).
 *    - stop_distance = (entry - stop) / entry.
 *
 * 3. Target (first rule that yields a price strictly above the entry, after rounding to cents):
 *    a. 'pattern': the bullish `price_targets` entry with source `pattern` of highest confidence
 *       (ties: the lower price);
 *    b. 'resistance': the nearest `support_resistance.resistance` level at least one risk distance
 *       (entry - stop) above the entry; else the highest resistance level above the entry;
 *    c. 'atr': entry + 3 x ATR (indicators.atr_14, else risk_parameters.atr) when the ATR is known;
 *    d. none: target_price and target_source null.
 *    risk_reward_ratio = (target - entry) / (entry - stop), rounded to 4 decimals; 0 without a target.
 *
 * 4. Scores:
 *    - strength_factor: VERY_STRONG 1, STRONG 0.75, MODERATE 0.5, WEAK 0.25, unknown 0.5.
 *    - confidence (conviction in a long, 0..1): (1 + enhanced_signal.score) / 2, the blended score
 *      mapped to 0..1; without a blended signal, 0.5 + 0.5 x the rules confidence signed by the rules
 *      signal (BUY +, SELL -, HOLD 0); else 0.5. Not the signal's own confidence: a confident HOLD is
 *      confidently neutral, and must not outrank a BUY (that one is the row's signal_confidence).
 *    - win_probability (Kelly's p): null here. It is not a property of one document but of the history
 *      of candidates in the same state: engine/kelly-odds.ts measures it and the universe attaches it.
 *    - relative_strength = stage_detail.mansfield_rs, else indicators.mansfield_rs, else null.
 *    - sector = the snapshot's sector, else `Unclassified`.
 *    - pattern_signal = the snapshot's `pattern_signal` direction and net confidence (null without one;
 *      the optimizer does not read it, opportunity search rates holdings with it).
 *
 * 5. Row fields (repeated on each allocation row; null where the snapshot has no value):
 *    stage (label), stage_strength, entry_date = analysis_date, signal = the blended
 *    enhanced_signal.signal (else the rules signal) with signal_confidence = the confidence of that same
 *    signal, signal_reason = the rules reasons (`signal_reasons`) joined with '; ' (null when there are
 *    none), bb_width = Bollinger bandwidth, atr = indicators.atr_14 (else risk_parameters.atr),
 *    atr_percent, volatility_trend, is_high_volatility (risk_parameters', else the indicators'),
 *    volatility_stop_loss_levels (risk_parameters'), historical_volatility
 *    (risk_parameters.historical_volatility, else indicators.historical_volatility_20), support_levels and
 *    resistance_levels as {price, strength} (strength rounded to 4 decimals) from support_resistance.
 */
import type { AnalysisDocument, PriceLevel, StageLabel, StageNumber, StageStrength } from '../../analysis/engine/document.js';
import { roundCents, toCents } from './money.js';
import type { Candidate, LevelRef, SnapshotRowFields, TargetSource } from './types.js';

/** The keys of a stored snapshot the candidate builder reads (and the service loads). */
export const CANDIDATE_SOURCE_KEYS = [
  'symbol',
  'sector',
  'analysis_date',
  'price',
  'stage',
  'stage_strength',
  'signal',
  'confidence',
  'signal_reasons',
  'enhanced_signal',
  'ml_signal',
  'risk_parameters',
  'transition_probabilities',
  'price_targets',
  'support_resistance',
  'indicators',
  'stage_detail',
  'pattern_signal',
] as const satisfies readonly (keyof AnalysisDocument)[];

export type CandidateSource = Pick<AnalysisDocument, (typeof CANDIDATE_SOURCE_KEYS)[number]>;

/** Sector label of a snapshot without one. */
export const UNCLASSIFIED_SECTOR = 'Unclassified';

export const STRENGTH_FACTORS: Readonly<Record<StageStrength, number>> = Object.freeze({
  VERY_STRONG: 1,
  STRONG: 0.75,
  MODERATE: 0.5,
  WEAK: 0.25,
});
export const UNKNOWN_STRENGTH_FACTOR = 0.5;

/** Smallest fallback stop distance (fraction of entry), and the largest (keeps the fallback stop positive). */
export const MIN_FALLBACK_STOP_DISTANCE = 0.01;
export const MAX_FALLBACK_STOP_DISTANCE = 0.5;
/** Multiple of the ATR used for the fallback stop and for the ATR target. */
export const FALLBACK_STOP_ATR_MULTIPLE = 2;
export const ATR_TARGET_MULTIPLE = 3;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));
const round4 = (v: number): number => Math.round(v * 1e4) / 1e4;
/** Cent-exact difference of two cent prices (avoids 0.30000000000000004). */
const centsDiff = (a: number, b: number): number => toCents(a - b) / 100;

function stageNumberOf(label: string | null | undefined): StageNumber | null {
  const m = /^STAGE ([1-4])$/.exec(label ?? '');
  return m ? (Number(m[1]) as StageNumber) : null;
}

function levels(list: readonly PriceLevel[] | null | undefined): LevelRef[] | null {
  if (!Array.isArray(list)) return null;
  return list.filter((l) => l && isNum(l.price)).map((l) => ({ price: l.price, strength: isNum(l.strength) ? round4(l.strength) : null }));
}

/** Why the long rule rejects the document ([] when it admits it). */
function exclusionsOf(doc: CandidateSource, stage: StageNumber | null, hasStop: boolean): string[] {
  const rules = doc.signal ?? null;
  const blended = doc.enhanced_signal?.signal ?? null;
  const out: string[] = [];
  if (stage === null) out.push('no stage');
  else if (stage === 3 || stage === 4) out.push(`stage ${stage}`);
  else if (stage === 2) {
    if (rules === 'SELL' || blended === 'SELL') out.push('SELL signal');
  } else if (rules !== 'BUY' && blended !== 'BUY') out.push('stage 1 without a BUY signal');
  if (!hasStop) out.push('no stop below entry');
  return out;
}

/** ATR in price units: indicators.atr_14, else risk_parameters.atr; null unless positive. */
function atrOf(doc: CandidateSource): number | null {
  const atr = isNum(doc.indicators?.atr_14) ? doc.indicators.atr_14 : isNum(doc.risk_parameters?.atr) ? doc.risk_parameters.atr : null;
  return atr !== null && atr > 0 ? atr : null;
}

function fallbackStop(doc: CandidateSource, price: number, entry: number): number {
  const rp = doc.risk_parameters;
  const minPct = isNum(rp?.min_stop_distance_percent) ? rp.min_stop_distance_percent / 100 : 0;
  const atrPct = isNum(doc.indicators?.atr_percent)
    ? doc.indicators.atr_percent / 100
    : isNum(rp?.atr_percent)
      ? rp.atr_percent / 100
      : (atrOf(doc) ?? 0) / price;
  const d = clamp(Math.max(MIN_FALLBACK_STOP_DISTANCE, minPct, FALLBACK_STOP_ATR_MULTIPLE * atrPct), MIN_FALLBACK_STOP_DISTANCE, MAX_FALLBACK_STOP_DISTANCE);
  return roundCents(entry * (1 - d));
}

function targetOf(doc: CandidateSource, entry: number, stop: number, atr: number | null): { price: number; source: TargetSource } | null {
  const risk = entry - stop;
  const patterns = (doc.price_targets ?? [])
    .filter((t) => t && t.source === 'pattern' && t.direction === 'bullish' && isNum(t.price) && roundCents(t.price) > entry)
    .sort((a, b) => (isNum(b.confidence) ? b.confidence : 0) - (isNum(a.confidence) ? a.confidence : 0) || a.price - b.price);
  if (patterns.length > 0) return { price: roundCents(patterns[0].price), source: 'pattern' };

  const above = (doc.support_resistance?.resistance ?? [])
    .filter((l) => l && isNum(l.price) && roundCents(l.price) > entry)
    .map((l) => roundCents(l.price))
    .sort((a, b) => a - b);
  if (above.length > 0) {
    const far = above.find((p) => p - entry >= risk - 1e-9);
    return { price: far ?? above[above.length - 1], source: 'resistance' };
  }

  if (atr !== null) {
    const t = roundCents(entry + ATR_TARGET_MULTIPLE * atr);
    if (t > entry) return { price: t, source: 'atr' };
  }
  return null;
}

function rowOf(doc: CandidateSource, stageLabel: StageLabel | null): SnapshotRowFields {
  const ind = doc.indicators ?? null;
  const rp = doc.risk_parameters ?? null;
  const es = doc.enhanced_signal ?? null;
  const useBlended = es !== null && es.signal != null;
  const signalConfidence = useBlended ? es.confidence : doc.confidence;
  const reasons = (doc.signal_reasons ?? []).filter((r) => typeof r === 'string' && r.length > 0);
  const atr = isNum(ind?.atr_14) ? ind.atr_14 : isNum(rp?.atr) ? rp.atr : null;
  const vsl = rp?.volatility_stop_loss_levels;
  return {
    stage: stageLabel,
    stage_strength: doc.stage_strength ?? null,
    entry_date: doc.analysis_date ?? null,
    signal: useBlended ? es.signal : (doc.signal ?? null),
    signal_confidence: isNum(signalConfidence) ? signalConfidence : null,
    signal_reason: reasons.length > 0 ? reasons.join('; ') : null,
    bb_width: isNum(ind?.bollinger?.bandwidth) ? ind.bollinger.bandwidth : null,
    atr,
    atr_percent: isNum(ind?.atr_percent) ? ind.atr_percent : isNum(rp?.atr_percent) ? rp.atr_percent : null,
    volatility_trend: rp?.volatility_trend ?? ind?.volatility_trend ?? null,
    is_high_volatility: rp?.is_high_volatility ?? ind?.is_high_volatility ?? null,
    volatility_stop_loss_levels: vsl ? { ...vsl } : null,
    historical_volatility: isNum(rp?.historical_volatility) ? rp.historical_volatility : isNum(ind?.historical_volatility_20) ? ind.historical_volatility_20 : null,
    support_levels: levels(doc.support_resistance?.support),
    resistance_levels: levels(doc.support_resistance?.resistance),
  };
}

function patternSignalOf(doc: CandidateSource): Candidate['pattern_signal'] {
  const ps = doc.pattern_signal;
  if (!ps || (ps.direction !== 'BULLISH' && ps.direction !== 'BEARISH' && ps.direction !== 'NEUTRAL')) return null;
  return { direction: ps.direction, net_confidence: isNum(ps.net_confidence) ? ps.net_confidence : 0 };
}

/** Conviction in a long position, 0..1 (see rule 4 above). */
function longConfidence(doc: CandidateSource): number {
  const score = doc.enhanced_signal?.score;
  if (isNum(score)) return (1 + score) / 2;
  if (isNum(doc.confidence)) {
    const sign = doc.signal === 'BUY' ? 1 : doc.signal === 'SELL' ? -1 : 0;
    return 0.5 + 0.5 * sign * doc.confidence;
  }
  return 0.5;
}

/** The optimizer's candidate for one latest snapshot; null when the snapshot has no usable price. */
export function toCandidate(doc: CandidateSource): Candidate | null {
  const price = doc.price;
  if (!isNum(price)) return null;
  const entry = roundCents(price);
  if (!(entry > 0)) return null;

  const stageLabel: StageLabel | null = stageNumberOf(doc.stage) !== null ? doc.stage : (doc.stage_detail?.label ?? null);
  const stage = stageNumberOf(stageLabel);
  const label = stage === null ? null : stageLabel;

  const suggested = doc.risk_parameters?.suggested_stop;
  const hasStop = isNum(suggested) && suggested > 0 && suggested < price;
  let stop: number;
  if (hasStop) {
    stop = roundCents(suggested);
    if (stop >= entry) stop = centsDiff(entry, 0.01);
  } else {
    stop = fallbackStop(doc, price, entry);
    if (stop >= entry) stop = centsDiff(entry, 0.01);
  }
  if (stop < 0) stop = 0;

  const exclusions = exclusionsOf(doc, stage, hasStop);
  const atr = atrOf(doc);
  const target = targetOf(doc, entry, stop, atr);
  const risk = centsDiff(entry, stop);
  const confidenceRaw = longConfidence(doc);
  const rs = isNum(doc.stage_detail?.mansfield_rs) ? doc.stage_detail.mansfield_rs : isNum(doc.indicators?.mansfield_rs) ? doc.indicators.mansfield_rs : null;
  const strength = doc.stage_strength ?? null;

  return {
    symbol: doc.symbol,
    sector: typeof doc.sector === 'string' && doc.sector.trim() !== '' ? doc.sector : UNCLASSIFIED_SECTOR,
    analysis_date: doc.analysis_date,
    eligible: exclusions.length === 0,
    exclusion: exclusions.length === 0 ? null : exclusions.join('; '),
    entry_price: entry,
    stop_loss: stop,
    target_price: target?.price ?? null,
    target_source: target?.source ?? null,
    risk_reward_ratio: target ? round4(centsDiff(target.price, entry) / risk) : 0,
    stop_distance: risk / entry,
    stage_number: stage,
    strength_factor: strength !== null && strength in STRENGTH_FACTORS ? STRENGTH_FACTORS[strength] : UNKNOWN_STRENGTH_FACTOR,
    confidence: clamp(confidenceRaw, 0, 1),
    win_probability: null,
    relative_strength: rs,
    pattern_signal: patternSignalOf(doc),
    row: rowOf(doc, label),
  };
}

/** One stored snapshot (the parsed document and the security's sector) as an optimizer candidate; null without a usable price. */
export function candidateFromDocument(doc: Readonly<Record<string, unknown>>, sector: string | null): Candidate | null {
  const source = Object.fromEntries(CANDIDATE_SOURCE_KEYS.map((k) => [k, doc[k] ?? null])) as unknown as CandidateSource;
  if (source.sector === null) source.sector = sector;
  return toCandidate(source);
}

/** Stored snapshots (document text and the security's sector) as optimizer candidates. */
export function candidatesFrom(rows: ReadonlyArray<{ sector: string | null; docText: string }>): Candidate[] {
  const candidates: Candidate[] = [];
  for (const row of rows) {
    const candidate = candidateFromDocument(JSON.parse(row.docText) as Record<string, unknown>, row.sector);
    if (candidate) candidates.push(candidate);
  }
  return candidates;
}
