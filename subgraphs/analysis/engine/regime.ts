/**
 * Market regime (bull / bear / sideways) of the universe index at one daily bar.
 *
 * Inputs at bar `end`: the index close, its 200-day simple moving average (SMA200) and the SMA200's slope,
 * i.e. its percent change over the last 20 trading days (REGIME_RULES), plus optionally the index's own
 * weekly Weinstein stage.
 *
 * Rules:
 * 1. Daily trend vote:
 *      up    close > SMA200 and the SMA200 rises more than +0.25% over 20 days (about +3% a year),
 *      down  close < SMA200 and the SMA200 falls more than 0.25% over 20 days,
 *      mixed otherwise (price and average disagree, or the average is flat). Between 200 and 219 bars the
 *      slope is unknown and the vote is mixed.
 * 2. Stage vote: STAGE 2 votes up, STAGE 4 votes down, STAGE 1 / 3 (or no stage) abstain.
 * 3. Regime: bull when the trend votes up and the stage does not vote down; bear when the trend votes down and
 *    the stage does not vote up. A mixed trend is settled by the stage when the close agrees with it (STAGE 2
 *    with the close above the SMA200 -> bull, STAGE 4 with the close below -> bear). Everything else,
 *    including a trend vote contradicted by the stage, is sideways.
 * Null when there are fewer than 200 bars through `end` or the close / SMA200 is not a number.
 */
import type { MarketRegime, RegimeDetail, StageLabel } from './document.js';

export const REGIME_RULES = {
  smaDays: 200,
  slopeDays: 20,
  /** SMA200 slope (percent over slopeDays) beyond +-this is rising / falling. */
  flatSlopePercent: 0.25,
} as const;

const fmt = (x: number, digits = 2): string => x.toFixed(digits);

/**
 * Regime of the universe index at daily bar `end`: bull / bear / sideways from the index vs its 200-day SMA
 * and that SMA's slope (and the index's own weekly stage when given). Null when < 200 bars.
 */
export function marketRegime(
  index: { symbol: string; dates: string[]; close: Float64Array; sma200: Float64Array },
  end: number,
  indexStage: StageLabel | null,
): RegimeDetail | null {
  const { smaDays, slopeDays, flatSlopePercent: flat } = REGIME_RULES;
  if (!Number.isInteger(end) || end < smaDays - 1 || end >= index.close.length || end >= index.sma200.length) return null;
  const close = index.close[end];
  const sma = index.sma200[end];
  if (!Number.isFinite(close) || !Number.isFinite(sma)) return null;
  const earlier = end - slopeDays >= smaDays - 1 ? index.sma200[end - slopeDays] : NaN;
  const slope = Number.isFinite(earlier) && earlier !== 0 ? (sma / earlier - 1) * 100 : null;

  const reasons: string[] = [];
  const gap = (close / sma - 1) * 100;
  reasons.push(`${index.symbol} closed at ${fmt(close)}, ${fmt(Math.abs(gap))}% ${gap >= 0 ? 'above' : 'below'} its 200-day SMA ${fmt(sma)}.`);
  let trend: 'up' | 'down' | 'mixed' = 'mixed';
  if (slope === null) {
    reasons.push(`The 200-day SMA slope needs ${smaDays + slopeDays} bars; the trend vote is mixed.`);
  } else {
    const dir = slope > flat ? 'rising' : slope < -flat ? 'falling' : 'flat';
    reasons.push(`The 200-day SMA is ${dir} (${slope >= 0 ? '+' : ''}${fmt(slope)}% over ${slopeDays} days; flat within +-${flat}%).`);
    if (close > sma && slope > flat) trend = 'up';
    else if (close < sma && slope < -flat) trend = 'down';
  }
  const stageVote = indexStage === 'STAGE 2' ? 'up' : indexStage === 'STAGE 4' ? 'down' : 'none';
  if (indexStage) reasons.push(`The index's weekly stage is ${indexStage}.`);

  let regime: MarketRegime = 'sideways';
  if (trend === 'up' && stageVote !== 'down') {
    regime = 'bull';
    reasons.push('Bull: the index is above a rising 200-day SMA' + (stageVote === 'up' ? ' and in a stage-2 advance.' : '.'));
  } else if (trend === 'down' && stageVote !== 'up') {
    regime = 'bear';
    reasons.push('Bear: the index is below a falling 200-day SMA' + (stageVote === 'down' ? ' and in a stage-4 decline.' : '.'));
  } else if (trend === 'mixed' && stageVote === 'up' && close > sma) {
    regime = 'bull';
    reasons.push('Bull: the 200-day trend is not yet confirmed, but the index is above it in a stage-2 advance.');
  } else if (trend === 'mixed' && stageVote === 'down' && close < sma) {
    regime = 'bear';
    reasons.push('Bear: the 200-day trend is not yet confirmed, but the index is below it in a stage-4 decline.');
  } else if (trend !== 'mixed') {
    reasons.push(`Sideways: the 200-day trend points ${trend} but the weekly stage (${indexStage}) contradicts it.`);
  } else {
    reasons.push('Sideways: the close and the 200-day SMA give no clear direction.');
  }

  return {
    regime,
    index_symbol: index.symbol,
    index_close: close,
    index_sma_200: sma,
    index_sma_200_slope_percent: slope,
    index_stage: indexStage,
    reasons,
  };
}
