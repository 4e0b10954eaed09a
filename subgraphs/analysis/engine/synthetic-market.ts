/**
 * Deterministic synthetic market: a trading calendar, a universe of clearly labelled synthetic equities
 * across the 11 GICS sectors plus an equal-weight-like index, and daily OHLCV bars for all of them.
 * Pure: no I/O, no clock, no Math.random; every random draw comes from a seeded {@link Prng} stream.
 * This file is the simulator; its data (sector and sub-industry tables, company-name words and every model
 * parameter) is in synthetic-market-tables.ts and its trading calendar in synthetic-calendar.ts.
 *
 * Model (all returns are daily log returns):
 *
 * - Market factor m_t = mu_regime + sigma_t * z_t with GARCH(1,1) variance
 *   sigma_t^2 = omega + alpha * eps_{t-1}^2 + beta * sigma_{t-1}^2 (alpha 0.09, beta 0.89, long-run 1%/day),
 *   which gives volatility clustering and fat tails. mu switches between bull (+0.05%/day, 1-3.5 years) and
 *   bear (-0.09%/day, 3-12 months) regimes.
 * - Sector factors s_k,t = rotationDrift_k + vol_k * (sigma_t / longRun) * z: each sector's own noise, scaled
 *   by the market's current volatility so turbulence is shared, plus slow sector-rotation drift regimes.
 * - Stock i in sector k: r_i,t = beta_i * m_t + loading_i * s_k,t + alpha_i + phaseDrift_i,t + idio_i,t
 *   + gap_i,t. beta_i scatters around a sector-typical beta; alpha_i is a small per-stock drift that offsets
 *   the regime chain's upward bias; idio_i,t has its own GARCH(1,1) variance around a log-normally
 *   distributed per-stock volatility (median 1.5%/day), scaled up in topping / declining phases.
 * - Regimes: each stock runs a Markov chain over the Weinstein phases basing -> advancing -> topping ->
 *   declining -> basing (with some failed breakouts, failed tops, consolidations and V-bottoms), each phase
 *   lasting several weeks to months. Advancing and declining phases carry a trend drift; basing and topping
 *   mean-revert around the price at which they began (topping with wider swings). So at any date the universe
 *   holds stocks in all four stages.
 * - Gaps: quarterly earnings gaps (per-stock size and date offset, biased by phase), rare news gaps, and
 *   breakout / breakdown gaps when a base turns into an advance or a top into a decline.
 * - Price guards: a per-stock floor (reflecting, and ending any decline in a new base) keeps prices from
 *   collapsing to ~0; a very large advance ends in a top.
 * - Bars: open = previous close moved by the overnight gap, 30% of the day's other move and a little noise;
 *   high = max(open, close) * (1 + x) and low = min(open, close) / (1 + y), with x, y exponentially
 *   distributed and scaled by the stock's current (market + sector + idiosyncratic) volatility, so
 *   0 < low <= min(open, close) <= max(open, close) <= high always holds.
 * - Volume: log-normal base volume per stock times a factor that rises with |return| / typical volatility,
 *   with market volatility, on breakouts (first days of an advance), on breakdowns, on earnings and on gaps,
 *   and with the phase (dry in bases, heavy in advances and tops); integers >= 1.
 * - ACME (always the first equity, Information Technology) follows the random chain until about 290
 *   trading days before the end, then is forced into a ~90-day base followed by a ~200-day advance. In the
 *   last 100 days a support rule keeps its close >= 1.04 x its prior 150-day average and above its close 150
 *   days earlier, which guarantees (given >= 250 days of history) that it closes above a rising 150-day
 *   (30-week) moving average throughout the last ~3 months: a clear Weinstein stage-2 advance for every seed.
 * - Index: log return = (sector-weighted mean beta) * m_t + sector-count-weighted mean of the sector factors
 *   + a little tracking noise, i.e. the systematic part of an equal-weight portfolio of the universe; first
 *   close exactly 1000; volume ~ the sum of the equities' base volumes, scaled by activity like a stock's.
 *
 * Determinism: the market, each sector, the index, the ticker list and each equity (profile and path) have
 * their own PRNG stream. An equity's bars depend only on (seed, equity index, calendar length), never on
 * symbolCount or on the order in which series are generated.
 */
import { GICS_SECTORS, type BarSeries, type SecurityRecord } from './market-types.js';
import { createPrng, type Prng } from './prng.js';
import { parseDayNumber, tradingCalendar } from './synthetic-calendar.js';
// Model data: the published constants first, then the model parameters.
import {
  ACME_NAME,
  ACME_SYMBOL,
  INDEX_START_LEVEL,
  MAX_SYMBOL_COUNT,
  SYNTHETIC_INDEX_NAME,
  SYNTHETIC_SUB_INDUSTRIES,
  TRADING_DAYS_PER_YEAR,
  ACME_ADVANCE_DAYS,
  ACME_ADVANCE_DRIFT,
  ACME_BASE_DAYS,
  ACME_SUPPORT_DAYS,
  ACME_SUPPORT_OVER_MA,
  ADVANCING,
  ALPHA_MEAN,
  ALPHA_SD,
  BASE_REVERSION,
  BASING,
  BEAR_DRIFT,
  BREAKOUT_GAP_PROBABILITY,
  BULL_DRIFT,
  CEILING_MULTIPLE,
  DECLINING,
  EARNINGS_CYCLE,
  FLOOR_FRACTION,
  IDIO_ALPHA,
  IDIO_BETA,
  IDIO_VOL_MEDIAN,
  MARKET_ALPHA,
  MARKET_BETA,
  MARKET_LONG_RUN_VOL,
  MARKET_OMEGA,
  MA_DAYS,
  NAME_HEADS,
  NAME_MIDDLES,
  NAME_SUFFIXES,
  NAME_TAILS,
  NEWS_GAP_PROBABILITY,
  NEWS_GAP_VOL,
  OPEN_NOISE,
  OPEN_SHARE,
  PHASE_DAYS,
  PHASE_START_SHARE,
  PHASE_VOLUME_MULT,
  PHASE_VOL_MULT,
  PRICE_FLOOR,
  RANGE_SCALE,
  SECTOR_SPECS,
  TOPPING,
  TOP_DRIFT,
  TOP_REVERSION,
  TREND_MAX,
  TREND_MIN,
  VOLUME_NOISE,
} from './synthetic-market-tables.js';

export {
  ACME_NAME,
  ACME_SYMBOL,
  INDEX_START_LEVEL,
  MAX_SYMBOL_COUNT,
  SYNTHETIC_INDEX_NAME,
  SYNTHETIC_SUB_INDUSTRIES,
  TRADING_DAYS_PER_YEAR,
} from './synthetic-market-tables.js';
export { tradingCalendar } from './synthetic-calendar.js';

/** Options of {@link generateSyntheticMarket}. */
export interface SyntheticMarketOptions {
  /** Integer seed; equal options give byte-identical markets. */
  seed: number;
  /** Number of equities (>= 11); the index comes in addition. */
  symbolCount: number;
  /** History length: trading days = round(years * 252). */
  years: number;
  /** YYYY-MM-DD, the last calendar day allowed; the last trading day is the last trading day <= endDate. */
  endDate: string;
  /** Symbol of the index, e.g. 'TGMI'. */
  indexSymbol: string;
}

/** A generated market. Bars are produced lazily, one security at a time. */
export interface SyntheticMarket {
  /** Trading dates, oldest first, YYYY-MM-DD. Shared by every BarSeries' `dates`: do not mutate. */
  calendar: string[];
  /** The index first (assetType 'INDEX'), then the equities; all dataSource 'synthetic'. */
  securities: SecurityRecord[];
  /** One BarSeries per security in `securities` order; iterating again yields identical bars. */
  series(): Generator<BarSeries>;
  /** The BarSeries of `securities[position]`, identical to the one series() yields for it. */
  seriesAt(position: number): BarSeries;
}

/**
 * Math functions bound once: under a vm context (e.g. jest) every global `Math` lookup is slow, and these
 * sit in the hottest loops.
 */
const { abs, exp, log, max, min, round, sqrt } = Math;

/** PRNG stream ids (equities use non-negative ids, everything shared uses negative ones). */
const STREAM_MARKET = -1;
const STREAM_INDEX = -2;
const STREAM_TICKERS = -3;
const sectorStream = (sector: number): number => -100 - sector;
const profileStream = (equity: number): number => 2 * equity;
const pathStream = (equity: number): number => 2 * equity + 1;

const SECTOR_COUNT = GICS_SECTORS.length;
const IT_SECTOR = GICS_SECTORS.indexOf('Information Technology');

// ---------------------------------------------------------------------------------------------------------
// Options and universe
// ---------------------------------------------------------------------------------------------------------

const INDEX_SYMBOL_PATTERN = /^[A-Z][A-Z0-9]{0,5}(?:[.-][A-Z0-9]{1,3})?$/;

function validateOptions(options: SyntheticMarketOptions): void {
  const { seed, symbolCount, years, endDate, indexSymbol } = options;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${String(seed)}`);
  if (!Number.isInteger(symbolCount) || symbolCount < SECTOR_COUNT || symbolCount > MAX_SYMBOL_COUNT) {
    throw new RangeError(
      `symbolCount must be an integer between ${SECTOR_COUNT} and ${MAX_SYMBOL_COUNT}, got ${String(symbolCount)}`,
    );
  }
  if (typeof years !== 'number' || !Number.isFinite(years) || years <= 0 || years > 100) {
    throw new RangeError(`years must be a number > 0 and <= 100, got ${String(years)}`);
  }
  if (round(years * TRADING_DAYS_PER_YEAR) < 1) {
    throw new RangeError(`years must give at least one trading day (years * 252 >= 0.5), got ${years}`);
  }
  if (parseDayNumber(endDate) === null) {
    throw new RangeError(`endDate must be a valid YYYY-MM-DD date, got '${String(endDate)}'`);
  }
  if (typeof indexSymbol !== 'string' || !INDEX_SYMBOL_PATTERN.test(indexSymbol)) {
    throw new RangeError(`indexSymbol must be an upper-case ticker such as 'TGMI', got '${String(indexSymbol)}'`);
  }
  if (indexSymbol === ACME_SYMBOL) throw new RangeError(`indexSymbol must not be '${ACME_SYMBOL}'`);
}

/** Per-equity parameters, drawn once from the equity's profile stream. */
interface EquityProfile {
  record: SecurityRecord;
  sectorIndex: number;
  beta: number;
  sectorLoading: number;
  idioVol: number;
  startPrice: number;
  baseVolume: number;
  earningsOffset: number;
  earningsVol: number;
  /** Constant daily drift on top of the phase drift (offsets the chain's upward bias, adds dispersion). */
  alpha: number;
}

const clamp = (x: number, lo: number, hi: number): number => (x < lo ? lo : x > hi ? hi : x);

/** Round-robin sector of equity `i`, starting with Information Technology so ACME is IT. */
function sectorOfEquity(i: number): number {
  return (IT_SECTOR + i) % SECTOR_COUNT;
}

/** Unique 3-4 letter tickers; the first is ACME, none equals the index symbol. */
function drawTickers(seed: number, count: number, indexSymbol: string): string[] {
  const rng = createPrng(seed, STREAM_TICKERS);
  const used = new Set<string>([ACME_SYMBOL, indexSymbol]);
  const tickers = [ACME_SYMBOL];
  while (tickers.length < count) {
    const length = rng.next() < 0.55 ? 4 : 3;
    let ticker = '';
    for (let k = 0; k < length; k++) ticker += String.fromCharCode(65 + rng.int(26));
    if (!used.has(ticker)) {
      used.add(ticker);
      tickers.push(ticker);
    }
  }
  return tickers;
}

function companyName(rng: Prng, sectorIndex: number): string {
  const word = rng.pick(NAME_HEADS) + rng.pick(NAME_MIDDLES) + rng.pick(NAME_TAILS);
  return `${word} ${rng.pick(SECTOR_SPECS[sectorIndex].nouns)} ${rng.pick(NAME_SUFFIXES)} (synthetic)`;
}

function buildProfile(seed: number, equity: number, symbol: string): EquityProfile {
  const rng = createPrng(seed, profileStream(equity));
  const sectorIndex = sectorOfEquity(equity);
  const sector = GICS_SECTORS[sectorIndex];
  const name = companyName(rng, sectorIndex);
  const subIndustry = rng.pick(SYNTHETIC_SUB_INDUSTRIES[sector]);
  const profile: EquityProfile = {
    record: { symbol, name, sector, subIndustry, assetType: 'EQUITY', dataSource: 'synthetic' },
    sectorIndex,
    beta: clamp(SECTOR_SPECS[sectorIndex].beta + 0.25 * rng.normal(), 0.3, 2.2),
    sectorLoading: clamp(1 + 0.3 * rng.normal(), 0.3, 1.8),
    idioVol: clamp(exp(log(IDIO_VOL_MEDIAN) + 0.35 * rng.normal()), 0.006, 0.05),
    startPrice: clamp(exp(log(45) + 0.85 * rng.normal()), 5, 500),
    baseVolume: clamp(exp(log(900_000) + 1.1 * rng.normal()), 20_000, 100_000_000),
    earningsOffset: rng.int(EARNINGS_CYCLE),
    earningsVol: rng.uniform(0.02, 0.07),
    alpha: ALPHA_MEAN + ALPHA_SD * rng.normal(),
  };
  if (equity === 0) {
    profile.record.name = ACME_NAME;
    profile.record.subIndustry = 'Application Software';
    profile.beta = 1.1;
    profile.sectorLoading = 1;
    profile.idioVol = 0.013;
    profile.alpha = 0;
    profile.startPrice = clamp(profile.startPrice, 20, 120);
    profile.baseVolume = 3_000_000;
  }
  return profile;
}

// ---------------------------------------------------------------------------------------------------------
// Common factors
// ---------------------------------------------------------------------------------------------------------

interface CommonFactors {
  days: number;
  /** Market factor log return per day. */
  marketReturn: Float64Array;
  /** Market factor GARCH volatility / its long-run level per day, and its square root. */
  volScale: Float64Array;
  sqrtVolScale: Float64Array;
  /** Sector factor log returns, sector-major: [sector * days + t]. */
  sectorReturn: Float64Array;
}

function buildCommonFactors(seed: number, days: number): CommonFactors {
  const marketReturn = new Float64Array(days);
  const volScale = new Float64Array(days);
  const sqrtVolScale = new Float64Array(days);
  const rng = createPrng(seed, STREAM_MARKET);
  let variance = MARKET_LONG_RUN_VOL ** 2;
  let shock = 0;
  let bull = rng.next() < 0.8;
  let regimeLeft = bull ? rng.intBetween(250, 900) : rng.intBetween(60, 250);
  for (let t = 0; t < days; t++) {
    if (--regimeLeft <= 0) {
      bull = !bull;
      regimeLeft = bull ? rng.intBetween(250, 900) : rng.intBetween(60, 250);
    }
    variance = MARKET_OMEGA + MARKET_ALPHA * shock * shock + MARKET_BETA * variance;
    const sigma = sqrt(variance);
    shock = sigma * rng.normal();
    volScale[t] = sigma / MARKET_LONG_RUN_VOL;
    sqrtVolScale[t] = sqrt(volScale[t]);
    marketReturn[t] = (bull ? BULL_DRIFT : BEAR_DRIFT) + shock;
  }

  const sectorReturn = new Float64Array(SECTOR_COUNT * days);
  for (let s = 0; s < SECTOR_COUNT; s++) {
    const srng = createPrng(seed, sectorStream(s));
    const vol = SECTOR_SPECS[s].vol;
    let drift = 0;
    let left = 0;
    for (let t = 0; t < days; t++) {
      if (--left <= 0) {
        drift = 0.0005 * (srng.int(3) - 1);
        left = srng.intBetween(60, 250);
      }
      sectorReturn[s * days + t] = drift + vol * volScale[t] * srng.normal();
    }
  }
  return { days, marketReturn, volScale, sqrtVolScale, sectorReturn };
}

// ---------------------------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------------------------

function emptySeries(symbol: string, dates: string[]): BarSeries {
  const n = dates.length;
  return {
    symbol,
    dates,
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    volume: new Float64Array(n),
  };
}

/** Writes bar t from its open and close: high and low reach beyond them by volatility-scaled draws. */
function writeBar(out: BarSeries, t: number, o: number, c: number, dailySd: number, rng: Prng): void {
  out.open[t] = o;
  out.close[t] = c;
  out.high[t] = (o > c ? o : c) * (1 + RANGE_SCALE * dailySd * rng.exponential());
  out.low[t] = (o > c ? c : o) / (1 + RANGE_SCALE * dailySd * rng.exponential());
}

function drawPhaseDays(rng: Prng, phase: number): number {
  const [min, max] = PHASE_DAYS[phase];
  return rng.intBetween(min, max);
}

/** Mutable state of one equity's regime chain. */
class Regime {
  phase = BASING;
  /** Trading days left in the phase (ignored while ACME's schedule is forced). */
  left = 0;
  /** Daily drift of an advancing / declining phase. */
  trend = 0;
  /** Log price the phase began at; basing and topping mean-revert towards it. */
  anchor = 0;
  daysInPhase = 1000;

  /** Switches to `next` at log price `anchor`; returns the breakout / breakdown gap (log) opening it, or 0. */
  enter(rng: Prng, next: number, anchor: number, forcedDrift = 0): number {
    const from = this.phase;
    this.phase = next;
    this.left = drawPhaseDays(rng, next);
    this.anchor = anchor;
    this.daysInPhase = 0;
    this.trend = next === ADVANCING ? forcedDrift || drawTrend(rng) : next === DECLINING ? -drawTrend(rng) : 0;
    if (from === BASING && next === ADVANCING && rng.next() < BREAKOUT_GAP_PROBABILITY) return rng.uniform(0.02, 0.07);
    if (from === TOPPING && next === DECLINING && rng.next() < BREAKOUT_GAP_PROBABILITY) return -rng.uniform(0.02, 0.07);
    return 0;
  }
}

function drawTrend(rng: Prng): number {
  return rng.uniform(TREND_MIN, TREND_MAX);
}

/** The phase after `phase` in the regime chain. */
function nextPhase(rng: Prng, phase: number): number {
  const u = rng.next();
  switch (phase) {
    case BASING:
      return u < 0.72 ? ADVANCING : DECLINING; // breakout, or a failed base breaking down
    case ADVANCING:
      return u < 0.8 ? TOPPING : BASING; // top, or a consolidation base within the uptrend
    case TOPPING:
      return u < 0.75 ? DECLINING : ADVANCING; // breakdown, or a failed top resuming the advance
    default:
      return u < 0.85 ? BASING : ADVANCING; // base, or a V-shaped reversal
  }
}

/** Bars of equity `equity` (0-based; 0 is ACME). */
function simulateEquity(
  seed: number,
  equity: number,
  p: EquityProfile,
  f: CommonFactors,
  dates: string[],
): BarSeries {
  const days = f.days;
  const out = emptySeries(p.record.symbol, dates);
  const { close, volume } = out;
  const rng = createPrng(seed, pathStream(equity));
  const { marketReturn, sectorReturn, volScale, sqrtVolScale } = f;
  const sectorOffset = p.sectorIndex * days;
  const sectorVol = SECTOR_SPECS[p.sectorIndex].vol * p.sectorLoading;
  const beta = p.beta;
  const loading = p.sectorLoading;
  const alpha = p.alpha;
  /** Systematic (market + sector) daily variance at long-run market volatility. */
  const systematicVar = (beta * MARKET_LONG_RUN_VOL) ** 2 + sectorVol ** 2;
  const typicalSd = sqrt(systematicVar + p.idioVol ** 2);
  const logStart = log(p.startPrice);
  const logFloor = log(max(PRICE_FLOOR, p.startPrice * FLOOR_FRACTION));
  const logCeiling = logStart + log(CEILING_MULTIPLE);
  const idioOmega = p.idioVol * p.idioVol * (1 - IDIO_ALPHA - IDIO_BETA);

  // ACME: forced base, then advance, with the stage-2 support rule at the end.
  const isAcme = equity === 0;
  const advanceStart = isAcme ? max(0, days - ACME_ADVANCE_DAYS) : -1;
  const baseStart = isAcme ? max(0, advanceStart - ACME_BASE_DAYS) : -1;
  const supportStart = isAcme ? days - ACME_SUPPORT_DAYS : days;
  let closeSum = 0; // sum of the last MA_DAYS closes (ACME only)

  // Regime state: a random phase part-way through, with no breakout effects on the first days.
  let logClose = logStart; // virtual close before the first bar
  const regime = new Regime();
  let startPhase = 0;
  for (let u = rng.next(), acc = 0; startPhase < 3; startPhase++) {
    acc += PHASE_START_SHARE[startPhase];
    if (u < acc) break;
  }
  regime.enter(rng, startPhase, logStart);
  regime.left = 1 + rng.int(regime.left);
  regime.daysInPhase = 1000;
  // Hot-loop copies of the regime fields, refreshed after every transition.
  let { phase, trend, anchor, daysInPhase } = regime;

  let idioVar = p.idioVol * p.idioVol;
  let idioShock = 0;

  for (let t = 0; t < days; t++) {
    // 1. Regime schedule and gaps.
    let gap = 0;
    let changed = true;
    if (isAcme && t === advanceStart) {
      if (phase !== BASING) regime.enter(rng, BASING, logClose);
      gap += regime.enter(rng, ADVANCING, logClose, ACME_ADVANCE_DRIFT);
    } else if (isAcme && t === baseStart) {
      regime.enter(rng, BASING, logClose);
    } else if (!(isAcme && t >= baseStart) && (--regime.left <= 0 || (phase === ADVANCING && logClose > logCeiling))) {
      gap += regime.enter(rng, nextPhase(rng, phase), logClose);
    } else {
      changed = false;
    }
    if (changed) ({ phase, trend, anchor, daysInPhase } = regime);
    const earnings = (t + p.earningsOffset) % EARNINGS_CYCLE === 0;
    if (earnings) {
      const bias = phase === ADVANCING ? 0.01 : phase === DECLINING ? -0.01 : 0;
      gap += bias + p.earningsVol * rng.normal();
    } else if (rng.next() < NEWS_GAP_PROBABILITY) {
      gap += NEWS_GAP_VOL * rng.normal();
    }

    // 2. Return: systematic + phase drift + idiosyncratic GARCH noise + gap.
    idioVar = idioOmega + IDIO_ALPHA * idioShock * idioShock + IDIO_BETA * idioVar;
    idioShock = sqrt(idioVar) * rng.normal();
    const phaseVol = PHASE_VOL_MULT[phase];
    let drift: number;
    if (phase === BASING) drift = BASE_REVERSION * (anchor - logClose);
    else if (phase === TOPPING) drift = TOP_DRIFT + TOP_REVERSION * (anchor - logClose);
    else drift = trend;
    drift += alpha;
    const systematic = beta * marketReturn[t] + loading * sectorReturn[sectorOffset + t];
    let nextLog = logClose + systematic + drift + phaseVol * idioShock + gap;
    const scale = volScale[t];
    const dailySd = sqrt(scale * scale * systematicVar + phaseVol * phaseVol * idioVar);

    // 3. Price guards.
    if (nextLog < logFloor) {
      nextLog = logFloor + min(logFloor - nextLog, 0.1);
      if (phase === DECLINING) {
        regime.enter(rng, BASING, nextLog); // capitulation: the decline ends in a base around the floor
        ({ phase, trend, anchor, daysInPhase } = regime);
      }
    }
    if (t >= supportStart) {
      const window = t < MA_DAYS ? t : MA_DAYS;
      if (window > 0) {
        let support = log((ACME_SUPPORT_OVER_MA * closeSum) / window);
        if (t >= MA_DAYS) support = max(support, log(close[t - MA_DAYS]) + 0.001);
        if (nextLog < support) nextLog = support + 0.3 * dailySd * rng.exponential();
      }
    }
    const ret = nextLog - logClose;

    // 4. Bar.
    const o = exp(logClose + gap + OPEN_SHARE * (ret - gap) + OPEN_NOISE * dailySd * rng.normal());
    const c = exp(nextLog);
    writeBar(out, t, o, c, dailySd, rng);

    // 5. Volume.
    let activity = (0.55 + 0.5 * (abs(ret) / typicalSd)) * PHASE_VOLUME_MULT[phase] * sqrtVolScale[t];
    if (daysInPhase < 10) {
      if (phase === ADVANCING) activity *= 1 + 1.5 * exp(-daysInPhase / 3);
      else if (phase === DECLINING) activity *= 1 + 0.8 * exp(-daysInPhase / 3);
    }
    if (earnings) activity *= 2.5;
    if (gap !== 0) activity *= 1 + 6 * abs(gap);
    const v = round(p.baseVolume * activity * exp(VOLUME_NOISE * rng.normal() - 0.045));
    volume[t] = v > 1 ? v : 1;

    if (isAcme) closeSum += c - (t >= MA_DAYS ? close[t - MA_DAYS] : 0);
    logClose = nextLog;
    daysInPhase++;
  }
  return out;
}

/** Bars of the index: an equal-weight-like path of the market and average sector factors. */
function simulateIndex(
  seed: number,
  symbol: string,
  f: CommonFactors,
  sectorWeights: Float64Array,
  baseVolumeSum: number,
  dates: string[],
): BarSeries {
  const days = f.days;
  const out = emptySeries(symbol, dates);
  const { volume } = out;
  const rng = createPrng(seed, STREAM_INDEX);
  let indexBeta = 0;
  let sectorVol = 0;
  for (let s = 0; s < SECTOR_COUNT; s++) {
    indexBeta += sectorWeights[s] * SECTOR_SPECS[s].beta;
    sectorVol += (sectorWeights[s] * SECTOR_SPECS[s].vol) ** 2;
  }
  sectorVol = sqrt(sectorVol);
  const typicalSd = sqrt((indexBeta * MARKET_LONG_RUN_VOL) ** 2 + sectorVol ** 2);
  let logClose = log(INDEX_START_LEVEL);
  for (let t = 0; t < days; t++) {
    const volScale = f.volScale[t];
    let sectorMix = 0;
    for (let s = 0; s < SECTOR_COUNT; s++) sectorMix += sectorWeights[s] * f.sectorReturn[s * days + t];
    const ret = indexBeta * f.marketReturn[t] + sectorMix + 0.001 * volScale * rng.normal();
    if (t === 0) logClose -= ret; // so the first close is INDEX_START_LEVEL
    const dailySd = typicalSd * volScale;
    const nextLog = logClose + ret;
    const o = exp(logClose + OPEN_SHARE * ret + 0.15 * dailySd * rng.normal());
    writeBar(out, t, o, t === 0 ? INDEX_START_LEVEL : exp(nextLog), dailySd, rng);
    const activity = (0.6 + 0.4 * (abs(ret) / typicalSd)) * f.sqrtVolScale[t];
    volume[t] = max(1, round(baseVolumeSum * activity * exp(0.15 * rng.normal() - 0.011)));
    logClose = nextLog;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------------------

/**
 * Generates a deterministic synthetic market (see the model in this file's header). Cheap to call: the
 * calendar, the universe and the common factors are built eagerly, bars lazily per security.
 * Throws RangeError for invalid options.
 */
export function generateSyntheticMarket(options: SyntheticMarketOptions): SyntheticMarket {
  validateOptions(options);
  const { seed, symbolCount, years, endDate, indexSymbol } = options;
  const days = round(years * TRADING_DAYS_PER_YEAR);
  const calendar = tradingCalendar(endDate, days);
  const tickers = drawTickers(seed, symbolCount, indexSymbol);
  const profiles = tickers.map((symbol, i) => buildProfile(seed, i, symbol));
  const factors = buildCommonFactors(seed, days);

  const sectorWeights = new Float64Array(SECTOR_COUNT);
  let baseVolumeSum = 0;
  for (const p of profiles) {
    sectorWeights[p.sectorIndex] += 1 / symbolCount;
    baseVolumeSum += p.baseVolume;
  }

  const indexRecord: SecurityRecord = {
    symbol: indexSymbol,
    name: SYNTHETIC_INDEX_NAME,
    sector: null,
    subIndustry: null,
    assetType: 'INDEX',
    dataSource: 'synthetic',
  };
  const securities = [indexRecord, ...profiles.map((p) => ({ ...p.record }))];

  const seriesAt = (position: number): BarSeries => {
    if (!Number.isInteger(position) || position < 0 || position > symbolCount) {
      throw new RangeError(`position must be an integer between 0 and ${symbolCount}, got ${String(position)}`);
    }
    if (position === 0) return simulateIndex(seed, indexSymbol, factors, sectorWeights, baseVolumeSum, calendar);
    return simulateEquity(seed, position - 1, profiles[position - 1], factors, calendar);
  };

  return {
    calendar,
    securities,
    *series(): Generator<BarSeries> {
      for (let position = 0; position <= symbolCount; position++) yield seriesAt(position);
    },
    seriesAt,
  };
}
