/**
 * Weinstein stage analysis on weekly bars (Stan Weinstein, "Secrets for Profiting in Bull and Bear Markets").
 *
 * The four stages:
 *   1 basing     the 30-week moving average (MA) flattens after a decline; price oscillates around it.
 *   2 advancing  price above a rising 30-week MA, ideally entered on a breakout above the base's resistance
 *                on volume of at least 2x its recent average, with Mansfield relative strength positive/rising.
 *   3 topping    after an advance the MA loses its rise and flattens; price chops around it.
 *   4 declining  price below a falling 30-week MA.
 *
 * Measures (week w uses weeks 0..w only; every threshold is in STAGE_RULES):
 * - MA30, MA10: simple moving averages of the weekly closes over 30 and 10 weeks.
 * - MA slope: percent change of the 30-week MA over the last 4 weeks. Inside +-1% it is "flat", above +1%
 *   "rising", below -1% "falling" (1% per 4 weeks is roughly 13% a year).
 * - Mansfield relative strength: RP = close / index close, MRP = (RP / SMA(RP, 52) - 1) x 100 on weekly bars.
 *   NaN without a benchmark, before 52 weeks, or when the index is missing anywhere in the 52-week window.
 *   Its trend is its change over 4 weeks: rising above +1 point, falling below -1 point, else flat.
 * - Volume ratio: the week's average volume per trading day / the same average over the previous 4 weeks
 *   (per trading day, so holiday weeks and a partial last week compare fairly; for full weeks it is simply
 *   the week's volume / the 4-week average volume). A breakout is volume-confirmed at a ratio >= 2.
 * - Range of a range stage (1 or 3): the highest weekly high (resistance) and lowest weekly low (support)
 *   from 8 weeks before the stage was entered (the MA lags price, so the base or top has usually begun by
 *   then) through the current week, at most the last 52 weeks.
 *
 * Classification is sequential: a week's stage depends on the previous week's. A stage needs 30 + 4 weeks
 * of history (the MA and its 4-week slope): before that it is 0 (undetermined). The first classified week
 * starts the cycle from the MA alone: rising MA -> 2 (price above it) or 3 (below); falling MA -> 4 (price
 * below) or 1 (above); flat MA -> 3 after a prior rise (the mean close of the last 10 weeks above that of
 * the first 10 of the last 34 weeks), else 1. From then on (c = close, m = MA30, s = slope):
 *   1 -> 2  breakout: c above the base's resistance, c > m, MA not falling.
 *   1 -> 4  breakdown (failed base): c below the base's support, c < m, MA not rising.
 *   2 -> 1  failed breakout (to 3 when the advance had resumed from a top): c < m, MA not rising, and either
 *           the MA has not risen at all during this advance or, within 8 weeks of the entry, c fell back
 *           below the level it broke out of.
 *   2 -> 4  collapse: c < m and the MA already falling.
 *   2 -> 3  top: the MA rose during the advance and is no longer rising, with c less than 5% above it.
 *   3 -> 2  resumed advance (failed top): c above the top's resistance, c > m, MA not falling.
 *   3 -> 4  breakdown: c < m and either the MA is falling or c broke the top's support with the MA not rising.
 *   4 -> 3  failed breakdown (to 1 when the decline came from a base): c > m, MA not falling, and either the
 *           MA has not fallen during this decline or, within 8 weeks, c rose back above the level it broke.
 *   4 -> 1  base: the MA fell during the decline and is no longer falling, with c less than 5% below it.
 * weeks_in_stage counts consecutive weeks of the current stage, the entry week being week 1 (the first
 * classified week also counts as 1: nothing before it is classified). Weekly closes are expected to be finite;
 * a week whose close, MA or slope is not a number is undetermined and the cycle restarts after it.
 * Mansfield RS and volume never change the stage: they feed the SATA score, the strength and the reasons
 * (e.g. whether a breakout was volume-confirmed).
 *
 * Sub-stages (k = weeks in stage, x = percent of the close above the MA30):
 *   2A early: k <= 6, or k <= 13 with x <= 10.   2C late: x >= 25, or k >= 13 and the MA slope has
 *   decelerated below half of its peak during this advance.   2B: otherwise.
 *   4A/4B/4C mirror them (x <= -25 is extended, the slope's trough instead of its peak).
 *   1A early base: k <= 8 or the MA still declining (slope < 0); 1B mature base: otherwise.
 *   3A early top: k <= 8 with the MA still rising (slope > 0); 3B: otherwise (the MA rolling over).
 *
 * SATA score: a 0-10 tally of ten binary attributes (SATA_ATTRIBUTES, in this order):
 *   1 breakout                close above the highest weekly high of the 13 weeks that ended 4 weeks ago
 *                             (price broke out of its prior range and holds above it; never true in a breakdown)
 *   2 above_ma_10w            close > MA10
 *   3 above_ma_30w            close > MA30
 *   4 ma_10w_rising           MA10 higher than a week earlier
 *   5 ma_30w_rising           MA30 slope above +1% over 4 weeks
 *   6 mansfield_rs_positive   Mansfield RS > 0
 *   7 mansfield_rs_rising     Mansfield RS up more than 1 point over 4 weeks
 *   8 momentum                13-week rate of change > 0
 *   9 volume                  up-week volume > down-week volume over the last 10 weeks (accumulation)
 *  10 no_overhead_resistance  close within 10% below (or above) the highest weekly high of the last 52 weeks
 *
 * Strength: a directional tally d = SATA for stages 1 and 2 (the strength of an advance, and how
 * constructive a base is), d = 10 - SATA for stages 3 and 4 (the strength of a decline, and how far a top has
 * deteriorated). d >= 9 VERY_STRONG, 7-8 STRONG, 5-6 MODERATE, 0-4 WEAK; the range stages 1 and 3 are capped
 * at STRONG (VERY_STRONG is reserved for trends).
 */
import type { SataAttribute, StageLabel, StageNumber, StagePayload, StageStrength } from './document.js';
import { sma } from './indicators.js';
import type { WeeklyBars } from './weekly.js';

/** Every threshold of the stage engine. */
export const STAGE_RULES = {
  maWeeks: 30,
  fastMaWeeks: 10,
  /** The MA slope is its percent change over this many weeks. */
  slopeWeeks: 4,
  /** |slope| <= this (percent over slopeWeeks) is a flat MA. */
  flatSlopePercent: 1,
  /** A range stage's range starts this many weeks before its entry ... */
  rangeLookbackWeeks: 8,
  /** ... and spans at most this many weeks. */
  maxRangeWeeks: 52,
  /** 2 -> 3 needs the close less than this percent above the flattened MA; 4 -> 1 less than this below. */
  nearMaPercent: 5,
  /** A breakout / breakdown that reverses through its level within this many weeks has failed. */
  failureWeeks: 8,
  mansfieldWeeks: 52,
  /** Mansfield RS trend: change over slopeWeeks beyond +-this many points. */
  mansfieldFlatPoints: 1,
  volumeAverageWeeks: 4,
  /** A breakout is volume-confirmed at this volume ratio. */
  breakoutVolumeRatio: 2,
  /** Sub-stages. */
  earlyWeeks: 6,
  earlyNearWeeks: 13,
  earlyNearPercent: 10,
  extendedPercent: 25,
  decelerationMinWeeks: 13,
  decelerationFraction: 0.5,
  rangeEarlyWeeks: 8,
  /** SATA. */
  sataBreakoutWeeks: 13,
  sataBreakoutGapWeeks: 3,
  momentumWeeks: 13,
  upDownVolumeWeeks: 10,
  overheadWeeks: 52,
  overheadPercent: 10,
} as const;

/** Weeks of history before the first classified week: the 30-week MA plus its 4-week slope. */
export const MIN_STAGE_WEEKS = STAGE_RULES.maWeeks + STAGE_RULES.slopeWeeks;

/** Why the current stage run began (StageSeries.entryCode). */
export const STAGE_ENTRY = {
  /** The first classified week. */
  INITIAL: 1,
  /** Close above a range's resistance (1 -> 2, 3 -> 2). */
  BREAKOUT: 2,
  /** Close below a range's support (1 -> 4, 3 -> 4). */
  BREAKDOWN: 3,
  /** The trend's MA lost its slope near the price (2 -> 3, 4 -> 1). */
  MA_FLATTENED: 4,
  /** Price below a falling MA (2 -> 4, 3 -> 4). */
  MA_TURNED_DOWN: 5,
  /** 2 -> 1 or 2 -> 3. */
  FAILED_BREAKOUT: 6,
  /** 4 -> 1 or 4 -> 3. */
  FAILED_BREAKDOWN: 7,
} as const;

/** Names of the ten SATA attributes, in order. */
export const SATA_ATTRIBUTES = [
  'breakout',
  'above_ma_10w',
  'above_ma_30w',
  'ma_10w_rising',
  'ma_30w_rising',
  'mansfield_rs_positive',
  'mansfield_rs_rising',
  'momentum',
  'volume',
  'no_overhead_resistance',
] as const;

export interface StageSeries {
  /** 0 = undetermined (too little history), else 1..4. */
  stage: Int8Array;
  weeksInStage: Int32Array;
  ma30: Float64Array;
  ma10: Float64Array;
  /** NaN when no benchmark or < 52 weeks. */
  mansfield: Float64Array;
  /** Percent change of the 30-week MA over 4 weeks (NaN before week 34). */
  maSlope: Float64Array;
  /** Range stages (1, 3): the range's resistance and support through this week; NaN in stages 0, 2, 4. */
  rangeHigh: Float64Array;
  rangeLow: Float64Array;
  /** Why the current run began (a STAGE_ENTRY value; 0 when undetermined). */
  entryCode: Int8Array;
  /** The level crossed when the run began (breakout resistance, breakdown support), else NaN. */
  entryLevel: Float64Array;
}

const { abs, max } = Math;
const finite = Number.isFinite;
const R = STAGE_RULES;

export function stageLabel(stage: StageNumber): StageLabel {
  return `STAGE ${stage}`;
}

/** Mansfield relative strength: (RP / SMA(RP, 52) - 1) x 100 with RP = close / benchmark; NaN if any RP in the window is. */
export function mansfieldRs(close: Float64Array, benchmark: Float64Array, period: number = R.mansfieldWeeks): Float64Array {
  const n = close.length;
  const out = new Float64Array(n).fill(NaN);
  const rp = new Float64Array(n);
  for (let w = 0; w < n; w++) {
    const b = benchmark[w];
    rp[w] = b > 0 && finite(b) ? close[w] / b : NaN;
  }
  let sum = 0;
  let missing = 0;
  for (let w = 0; w < n; w++) {
    const x = rp[w];
    if (finite(x)) sum += x;
    else missing++;
    if (w >= period) {
      const old = rp[w - period];
      if (finite(old)) sum -= old;
      else missing--;
    }
    if (w >= period - 1 && missing === 0) out[w] = (x / (sum / period) - 1) * 100;
  }
  return out;
}

/** Percent change of `ma` over `weeks` at w (NaN if unknown). */
function slopeAt(ma: Float64Array, w: number, weeks: number): number {
  return w >= weeks ? (ma[w] / ma[w - weeks] - 1) * 100 : NaN;
}

function mean(values: Float64Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i <= to; i++) sum += values[i];
  return sum / (to - from + 1);
}

/**
 * Classifies every week sequentially (a stage depends on the previous one: 1 -> 2 -> 3 -> 4 -> 1, with the
 * documented exceptions such as failed breakouts 2 -> 1 or failed bases 1 -> 4); week w uses weeks [0..w] only.
 */
export function classifyStages(weekly: WeeklyBars): StageSeries {
  const { close, high, low } = weekly;
  const n = close.length;
  const ma30 = sma(close, R.maWeeks);
  const ma10 = sma(close, R.fastMaWeeks);
  const maSlope = new Float64Array(n).fill(NaN);
  for (let w = R.maWeeks - 1 + R.slopeWeeks; w < n; w++) maSlope[w] = slopeAt(ma30, w, R.slopeWeeks);
  const series: StageSeries = {
    stage: new Int8Array(n),
    weeksInStage: new Int32Array(n),
    ma30,
    ma10,
    mansfield: mansfieldRs(close, weekly.benchmark),
    maSlope,
    rangeHigh: new Float64Array(n).fill(NaN),
    rangeLow: new Float64Array(n).fill(NaN),
    entryCode: new Int8Array(n),
    entryLevel: new Float64Array(n).fill(NaN),
  };
  const { stage: stageOut, weeksInStage, rangeHigh, rangeLow, entryCode, entryLevel } = series;
  const flat = R.flatSlopePercent;
  const nearAbove = 1 + R.nearMaPercent / 100;
  const nearBelow = 1 - R.nearMaPercent / 100;

  // State of the current run.
  let stage = 0;
  let weeks = 0;
  let prevStage = 0;
  let code = 0;
  let level = NaN;
  /** Stage 2: the MA has been rising during the run; stage 4: falling. */
  let trendSeen = false;
  let rangeStart = 0;

  for (let w = MIN_STAGE_WEEKS - 1; w < n; w++) {
    const c = close[w];
    const m = ma30[w];
    const s = maSlope[w];
    if (!(finite(c) && finite(m) && finite(s))) {
      stage = 0; // bad data: restart the cycle from scratch
      continue;
    }
    let next = stage;
    let nextCode = 0;
    let nextLevel = NaN;
    if (stage === 0) {
      nextCode = STAGE_ENTRY.INITIAL;
      if (s > flat) next = c > m ? 2 : 3;
      else if (s < -flat) next = c < m ? 4 : 1;
      else {
        const start = max(0, w - MIN_STAGE_WEEKS + 1);
        next = mean(close, w - 9, w) > mean(close, start, start + 9) ? 3 : 1;
      }
    } else if (stage === 1) {
      const rh = rangeHigh[w - 1];
      const rl = rangeLow[w - 1];
      if (c > rh && c > m && s >= -flat) {
        next = 2;
        nextCode = STAGE_ENTRY.BREAKOUT;
        nextLevel = rh;
      } else if (c < rl && c < m && s <= flat) {
        next = 4;
        nextCode = STAGE_ENTRY.BREAKDOWN;
        nextLevel = rl;
      }
    } else if (stage === 2) {
      if (c < m && s <= flat && (!trendSeen || (weeks < R.failureWeeks && c < level))) {
        next = prevStage === 3 ? 3 : 1;
        nextCode = STAGE_ENTRY.FAILED_BREAKOUT;
      } else if (c < m && s < -flat) {
        next = 4;
        nextCode = STAGE_ENTRY.MA_TURNED_DOWN;
      } else if (trendSeen && s <= flat && c < m * nearAbove) {
        next = 3;
        nextCode = STAGE_ENTRY.MA_FLATTENED;
      }
    } else if (stage === 3) {
      const rh = rangeHigh[w - 1];
      const rl = rangeLow[w - 1];
      if (c > rh && c > m && s >= -flat) {
        next = 2;
        nextCode = STAGE_ENTRY.BREAKOUT;
        nextLevel = rh;
      } else if (c < m && c < rl && s <= flat) {
        next = 4;
        nextCode = STAGE_ENTRY.BREAKDOWN;
        nextLevel = rl;
      } else if (c < m && s < -flat) {
        next = 4;
        nextCode = STAGE_ENTRY.MA_TURNED_DOWN;
      }
    } else {
      if (c > m && s >= -flat && (!trendSeen || (weeks < R.failureWeeks && c > level))) {
        next = prevStage === 1 ? 1 : 3;
        nextCode = STAGE_ENTRY.FAILED_BREAKDOWN;
      } else if (trendSeen && s >= -flat && c > m * nearBelow) {
        next = 1;
        nextCode = STAGE_ENTRY.MA_FLATTENED;
      }
    }

    if (nextCode !== 0) {
      prevStage = stage;
      stage = next;
      weeks = 1;
      code = nextCode;
      level = nextLevel;
      trendSeen = false;
      rangeStart = max(0, w - R.rangeLookbackWeeks);
    } else {
      weeks++;
    }
    if (stage === 2 && s > flat) trendSeen = true;
    if (stage === 4 && s < -flat) trendSeen = true;

    stageOut[w] = stage;
    weeksInStage[w] = weeks;
    entryCode[w] = code;
    entryLevel[w] = level;
    if (stage === 1 || stage === 3) {
      let hi = -Infinity;
      let lo = Infinity;
      for (let k = max(rangeStart, w - R.maxRangeWeeks + 1); k <= w; k++) {
        if (high[k] > hi) hi = high[k];
        if (low[k] < lo) lo = low[k];
      }
      rangeHigh[w] = hi;
      rangeLow[w] = lo;
    }
  }
  return series;
}

// ---------------------------------------------------------------------------------------------------------
// Payload
// ---------------------------------------------------------------------------------------------------------

/** Trading days in week w (from the daily indices of the weeks' last bars). */
function tradingDays(weekly: WeeklyBars, w: number): number {
  return weekly.lastIndex[w] - (w > 0 ? weekly.lastIndex[w - 1] : -1);
}

/** Week w's volume per trading day / the same over the previous 4 weeks; NaN before week 4. */
export function volumeRatio(weekly: WeeklyBars, w: number): number {
  const k = R.volumeAverageWeeks;
  if (w < k) return NaN;
  let volume = 0;
  let days = 0;
  for (let i = w - k; i < w; i++) {
    volume += weekly.volume[i];
    days += tradingDays(weekly, i);
  }
  if (!(volume > 0) || days <= 0) return NaN;
  return weekly.volume[w] / tradingDays(weekly, w) / (volume / days);
}

function maxHigh(weekly: WeeklyBars, from: number, to: number): number {
  let hi = -Infinity;
  for (let k = max(0, from); k <= to; k++) if (weekly.high[k] > hi) hi = weekly.high[k];
  return hi;
}

const fmt = (x: number, digits = 2): string => x.toFixed(digits);
const signed = (x: number, digits = 1): string => `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`;

/** The ten SATA attributes of week w (w >= MIN_STAGE_WEEKS - 1). */
export function sataAttributes(weekly: WeeklyBars, series: StageSeries, w: number): SataAttribute[] {
  const { close, dates } = weekly;
  const c = close[w];
  const { ma10, ma30, mansfield, maSlope } = series;
  const attrs: SataAttribute[] = [];
  const add = (name: (typeof SATA_ATTRIBUTES)[number], met: boolean, detail: string): void => {
    attrs.push({ name, met, detail });
  };

  // 1 breakout
  const to = w - R.sataBreakoutGapWeeks - 1;
  const from = to - R.sataBreakoutWeeks + 1;
  const resistance = maxHigh(weekly, from, to);
  add(
    'breakout',
    c > resistance,
    `close ${fmt(c)} ${c > resistance ? 'above' : 'not above'} resistance ${fmt(resistance)} (highest weekly high of the ` +
      `${R.sataBreakoutWeeks} weeks ending ${dates[to]})`,
  );
  // 2, 3 price vs MAs
  add('above_ma_10w', c > ma10[w], `close ${fmt(c)} ${c > ma10[w] ? 'above' : 'not above'} the 10-week MA ${fmt(ma10[w])}`);
  add('above_ma_30w', c > ma30[w], `close ${fmt(c)} ${c > ma30[w] ? 'above' : 'not above'} the 30-week MA ${fmt(ma30[w])}`);
  // 4, 5 MA directions
  const ma10Up = ma10[w] > ma10[w - 1];
  add('ma_10w_rising', ma10Up, `10-week MA ${fmt(ma10[w])} vs ${fmt(ma10[w - 1])} a week earlier`);
  const slope = maSlope[w];
  add(
    'ma_30w_rising',
    slope > R.flatSlopePercent,
    `30-week MA ${signed(slope, 2)}% over ${R.slopeWeeks} weeks (rising above +${R.flatSlopePercent}%)`,
  );
  // 6, 7 Mansfield RS
  const rs = mansfield[w];
  const rsChange = w >= R.slopeWeeks ? rs - mansfield[w - R.slopeWeeks] : NaN;
  if (finite(rs)) add('mansfield_rs_positive', rs > 0, `Mansfield RS ${signed(rs, 2)}`);
  else add('mansfield_rs_positive', false, 'Mansfield RS unavailable (no index or under 52 weeks of history)');
  if (finite(rsChange)) {
    add(
      'mansfield_rs_rising',
      rsChange > R.mansfieldFlatPoints,
      `Mansfield RS ${signed(rsChange, 2)} points over ${R.slopeWeeks} weeks (rising above +${R.mansfieldFlatPoints})`,
    );
  } else {
    add('mansfield_rs_rising', false, `Mansfield RS trend unavailable (needs ${R.slopeWeeks} more weeks of RS)`);
  }
  // 8 momentum
  const base = close[w - R.momentumWeeks];
  const roc = (c / base - 1) * 100;
  add('momentum', roc > 0, `${R.momentumWeeks}-week rate of change ${signed(roc)}%`);
  // 9 volume
  let up = 0;
  let down = 0;
  for (let k = max(1, w - R.upDownVolumeWeeks + 1); k <= w; k++) {
    if (close[k] > close[k - 1]) up += weekly.volume[k];
    else if (close[k] < close[k - 1]) down += weekly.volume[k];
  }
  add(
    'volume',
    up > down,
    `up-week volume ${up > down ? 'exceeds' : 'does not exceed'} down-week volume over ${R.upDownVolumeWeeks} weeks ` +
      `(ratio ${down > 0 ? fmt(up / down) : up > 0 ? 'inf' : 'n/a'})`,
  );
  // 10 overhead resistance
  const yearHigh = maxHigh(weekly, w - R.overheadWeeks + 1, w);
  const below = (1 - c / yearHigh) * 100;
  add(
    'no_overhead_resistance',
    below <= R.overheadPercent,
    `close ${fmt(max(below, 0), 1)}% below the 52-week high ${fmt(yearHigh)} (at most ${R.overheadPercent}% allowed)`,
  );
  return attrs;
}

/** The strength of a stage from its SATA score (see the header). */
export function stageStrength(stage: StageNumber, sataScore: number): StageStrength {
  const d = stage <= 2 ? sataScore : 10 - sataScore;
  let strength: StageStrength = d >= 9 ? 'VERY_STRONG' : d >= 7 ? 'STRONG' : d >= 5 ? 'MODERATE' : 'WEAK';
  if ((stage === 1 || stage === 3) && strength === 'VERY_STRONG') strength = 'STRONG';
  return strength;
}

/** Sub-stage of week w and the rule that chose it. */
export function subStage(series: StageSeries, weekly: WeeklyBars, w: number): { sub: string; why: string } {
  const stage = series.stage[w];
  const k = series.weeksInStage[w];
  const x = (weekly.close[w] / series.ma30[w] - 1) * 100;
  const slope = series.maSlope[w];
  if (stage === 1) {
    if (k <= R.rangeEarlyWeeks) return { sub: '1A', why: `early base (first ${R.rangeEarlyWeeks} weeks)` };
    if (slope < 0) return { sub: '1A', why: 'early base (the 30-week MA is still edging down)' };
    return { sub: '1B', why: 'mature base (30-week MA flat or turning up)' };
  }
  if (stage === 3) {
    if (k <= R.rangeEarlyWeeks && slope > 0) return { sub: '3A', why: 'early top (30-week MA still edging up)' };
    return { sub: '3B', why: 'late top (30-week MA rolling over or the top is mature)' };
  }
  const sign = stage === 2 ? 1 : -1;
  const p = `${stage}`;
  const trend = stage === 2 ? 'advance' : 'decline';
  if (k <= R.earlyWeeks) return { sub: `${p}A`, why: `early ${trend} (first ${R.earlyWeeks} weeks)` };
  if (k <= R.earlyNearWeeks && sign * x <= R.earlyNearPercent) {
    return { sub: `${p}A`, why: `early ${trend} (price within ${R.earlyNearPercent}% of the 30-week MA)` };
  }
  if (sign * x >= R.extendedPercent) {
    return { sub: `${p}C`, why: `late ${trend}: extended ${fmt(abs(x), 1)}% ${sign > 0 ? 'above' : 'below'} the 30-week MA` };
  }
  if (k >= R.decelerationMinWeeks) {
    let peak = 0;
    for (let i = w - k + 1; i <= w; i++) peak = max(peak, sign * series.maSlope[i]);
    if (peak > R.flatSlopePercent && sign * slope < R.decelerationFraction * peak) {
      return { sub: `${p}C`, why: `late ${trend}: the 30-week MA slope slowed to ${signed(slope, 2)}% from ${signed(sign * peak, 2)}%` };
    }
  }
  return { sub: `${p}B`, why: `mid ${trend}` };
}

const STAGE_NAMES = ['', 'basing', 'advancing', 'topping', 'declining'] as const;

function slopeWord(slope: number): string {
  return slope > R.flatSlopePercent ? 'rising' : slope < -R.flatSlopePercent ? 'falling' : 'flat';
}

function entrySentence(weekly: WeeklyBars, series: StageSeries, w: number): string {
  const entry = w - series.weeksInStage[w] + 1;
  const code = series.entryCode[w];
  const stage = series.stage[w];
  const from = entry > 0 ? series.stage[entry - 1] : 0;
  const when = `the week ending ${weekly.dates[entry]}`;
  const lvl = series.entryLevel[w];
  switch (code) {
    case STAGE_ENTRY.BREAKOUT: {
      const ratio = volumeRatio(weekly, entry);
      const vol = finite(ratio)
        ? ` on ${fmt(ratio, 1)}x average volume (${ratio >= R.breakoutVolumeRatio ? 'confirmed' : `unconfirmed: under ${R.breakoutVolumeRatio}x`})`
        : '';
      return `Entered stage ${stage} from stage ${from} in ${when} on a breakout above ${from === 1 ? 'base' : 'top'} resistance ${fmt(lvl)}${vol}.`;
    }
    case STAGE_ENTRY.BREAKDOWN:
      return `Entered stage 4 from stage ${from} in ${when} on a breakdown below ${from === 1 ? 'base' : 'top'} support ${fmt(lvl)}.`;
    case STAGE_ENTRY.MA_FLATTENED:
      return `Entered stage ${stage} from stage ${from} in ${when} as the 30-week MA lost its ${from === 2 ? 'rise' : 'decline'}.`;
    case STAGE_ENTRY.MA_TURNED_DOWN:
      return `Entered stage 4 from stage ${from} in ${when} with the close below a falling 30-week MA.`;
    case STAGE_ENTRY.FAILED_BREAKOUT:
      return `Returned to stage ${stage} in ${when}: the stage-2 breakout failed (close back below the 30-week MA).`;
    case STAGE_ENTRY.FAILED_BREAKDOWN:
      return `Returned to stage ${stage} in ${when}: the stage-4 breakdown failed (close back above the 30-week MA).`;
    default:
      return `Stage ${stage} since the first classified week (${when}).`;
  }
}

/** The full payload for week `w` (usually the last), or null when the stage is undetermined there (or w is out of range). */
export function stagePayload(weekly: WeeklyBars, series: StageSeries, w: number): StagePayload | null {
  if (!Number.isInteger(w) || w < 0 || w >= series.stage.length) return null;
  const stage = series.stage[w];
  if (stage === 0) return null;
  const s = stage as StageNumber;
  const c = weekly.close[w];
  const ma30 = series.ma30[w];
  const slope = series.maSlope[w];
  const ma10 = series.ma10[w];
  const pct = (c / ma30 - 1) * 100;
  const rs = series.mansfield[w];
  const rsChange = w >= R.slopeWeeks ? rs - series.mansfield[w - R.slopeWeeks] : NaN;
  const rsTrend = finite(rsChange)
    ? rsChange > R.mansfieldFlatPoints
      ? 'rising'
      : rsChange < -R.mansfieldFlatPoints
        ? 'falling'
        : 'flat'
    : null;
  const ratio = volumeRatio(weekly, w);
  const sata = sataAttributes(weekly, series, w);
  let score = 0;
  for (const a of sata) if (a.met) score++;
  const strength = stageStrength(s, score);
  const { sub, why } = subStage(series, weekly, w);

  const reasons: string[] = [
    `Stage ${s} (${STAGE_NAMES[s]}): close ${fmt(abs(pct), 1)}% ${pct >= 0 ? 'above' : 'below'} the 30-week MA ${fmt(ma30)}, ` +
      `which is ${slopeWord(slope)} (${signed(slope, 2)}% over ${R.slopeWeeks} weeks).`,
    entrySentence(weekly, series, w),
    `${series.weeksInStage[w]} week${series.weeksInStage[w] === 1 ? '' : 's'} in stage ${s}; sub-stage ${sub}: ${why}.`,
  ];
  if (s === 1 || s === 3) {
    reasons.push(
      `${s === 1 ? 'Base' : 'Top'} range: resistance ${fmt(series.rangeHigh[w])}, support ${fmt(series.rangeLow[w])}; ` +
        `a close above resistance with the MA not falling would signal stage 2, below support stage 4.`,
    );
  }
  if (s === 2 && pct < 0) reasons.push('Warning: the close is below the 30-week MA (a pullback within the advance).');
  if (s === 4 && pct > 0) reasons.push('Note: the close is above the 30-week MA (a rally within the decline).');
  if (finite(rs)) {
    reasons.push(`Mansfield RS ${signed(rs, 2)}${rsTrend ? ` and ${rsTrend}` : ''} versus the index.`);
  } else {
    reasons.push('Mansfield RS unavailable (no index or under 52 weeks of history).');
  }
  const met = sata.filter((a) => a.met).map((a) => a.name);
  reasons.push(
    `SATA ${score}/10 (${met.length > 0 ? met.join(', ') : 'no attribute met'}) -> ${strength} ` +
      `(${s <= 2 ? 'strength of the ' + (s === 2 ? 'advance' : 'base') : 'strength of the ' + (s === 4 ? 'decline' : 'top')}).`,
  );

  return {
    stage: s,
    label: stageLabel(s),
    sub_stage: sub,
    weeks_in_stage: series.weeksInStage[w],
    strength,
    week_ending: weekly.dates[w],
    ma_30w: ma30,
    ma_30w_slope_percent: slope,
    ma_10w: finite(ma10) ? ma10 : null,
    price_vs_ma_30w_percent: pct,
    mansfield_rs: finite(rs) ? rs : null,
    mansfield_rs_trend: rsTrend,
    breakout_volume_ratio: finite(ratio) ? ratio : null,
    sata_score: score,
    sata,
    reasons,
  };
}

