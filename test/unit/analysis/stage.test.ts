/**
 * Weinstein stage engine: hand-built weekly paths (base -> breakout, top -> breakdown, failed breakout),
 * Mansfield RS numerically, each SATA attribute, the strength mapping, sub-stages, look-ahead freedom,
 * short histories, and a realism check on the synthetic market.
 */
import {
  MIN_STAGE_WEEKS,
  SATA_ATTRIBUTES,
  STAGE_ENTRY,
  classifyStages,
  mansfieldRs,
  sataAttributes,
  stagePayload,
  stageStrength,
  volumeRatio,
  type StageSeries,
} from '../../../subgraphs/analysis/engine/stage.js';
import { generateSyntheticMarket } from '../../../subgraphs/analysis/engine/synthetic-market.js';
import { isoWeekKey, toWeekly, type WeeklyBars } from '../../../subgraphs/analysis/engine/weekly.js';
import type { StagePayload } from '../../../subgraphs/analysis/engine/document.js';

const DAY = 86_400_000;
const FIRST_FRIDAY = Date.parse('2019-01-04T00:00:00Z');

interface PathOptions {
  volume?: number[];
  /** Benchmark closes; default a flat 100. */
  benchmark?: number[] | null;
  /** High / low reach beyond max/min(open, close) by this fraction. */
  spread?: number;
}

/** Weekly bars from weekly closes: Friday dates, 5 trading days a week, open = previous close. */
function weeklyFrom(closes: number[], options: PathOptions = {}): WeeklyBars {
  const n = closes.length;
  const spread = options.spread ?? 0.01;
  const dates = closes.map((_, w) => new Date(FIRST_FRIDAY + w * 7 * DAY).toISOString().slice(0, 10));
  const open = closes.map((c, w) => (w === 0 ? c : closes[w - 1]));
  const bench = options.benchmark === undefined ? closes.map(() => 100) : options.benchmark;
  return {
    dates,
    weekKeys: dates.map(isoWeekKey),
    lastIndex: Int32Array.from(closes.map((_, w) => 5 * w + 4)),
    open: Float64Array.from(open),
    high: Float64Array.from(closes.map((c, w) => Math.max(c, open[w]) * (1 + spread))),
    low: Float64Array.from(closes.map((c, w) => Math.min(c, open[w]) * (1 - spread))),
    close: Float64Array.from(closes),
    volume: Float64Array.from(options.volume ?? closes.map(() => 1000)),
    benchmark: bench === null ? new Float64Array(n).fill(NaN) : Float64Array.from(bench),
  };
}

/** [stage, first week, length] runs of determined stages. */
function runs(series: StageSeries): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let w = 0; w < series.stage.length; w++) {
    const s = series.stage[w];
    if (s === 0) continue;
    const last = out[out.length - 1];
    if (last && last[0] === s && last[1] + last[2] === w) last[2]++;
    else out.push([s, w, 1]);
  }
  return out;
}

/** Decline 100 -> 61 (weeks 0-39), a 59/61 base (40-79), a breakout to 66 on 3x volume (80), then +2%/week. */
function baseThenBreakout(advanceWeeks: number, weeklyGain = 0.02): { closes: number[]; volume: number[] } {
  const closes: number[] = [];
  for (let w = 0; w < 40; w++) closes.push(100 - w);
  for (let w = 40; w < 80; w++) closes.push(w % 2 === 0 ? 59 : 61);
  closes.push(66);
  for (let k = 1; k <= advanceWeeks; k++) closes.push(66 * (1 + weeklyGain) ** k);
  const volume = closes.map((_, w) => (w === 80 ? 3000 : 1000));
  return { closes, volume };
}

describe('classifyStages: base then breakout', () => {
  const { closes, volume } = baseThenBreakout(8);
  const weekly = weeklyFrom(closes, { volume });
  const series = classifyStages(weekly);

  it('goes 4 (decline) -> 1 (base) -> 2 (breakout week 80)', () => {
    const r = runs(series);
    expect(r.map(([s]) => s)).toEqual([4, 1, 2]);
    expect(r[0][1]).toBe(MIN_STAGE_WEEKS - 1);
    expect(r[2][1]).toBe(80);
    expect(series.stage[79]).toBe(1);
  });

  it('records the breakout: entry code, base resistance and 3x volume', () => {
    expect(series.entryCode[80]).toBe(STAGE_ENTRY.BREAKOUT);
    expect(series.entryLevel[80]).toBeCloseTo(61 * 1.01, 10); // the base's highest weekly high
    expect(series.rangeHigh[79]).toBeCloseTo(61 * 1.01, 10);
    expect(series.rangeLow[79]).toBeCloseTo(59 * 0.99, 10);
    expect(volumeRatio(weekly, 80)).toBeCloseTo(3, 12);
    const p = stagePayload(weekly, series, 80) as StagePayload;
    expect(p.stage).toBe(2);
    expect(p.label).toBe('STAGE 2');
    expect(p.sub_stage).toBe('2A');
    expect(p.weeks_in_stage).toBe(1);
    expect(p.breakout_volume_ratio).toBeCloseTo(3, 12);
    expect(p.week_ending).toBe(weekly.dates[80]);
    expect(p.reasons.join(' ')).toMatch(/breakout above base resistance 61\.61 on 3\.0x average volume \(confirmed\)/);
  });

  it('counts weeks in stage and keeps 2A for the first 6 weeks', () => {
    expect(Array.from(series.weeksInStage.slice(80, 89))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (let w = 80; w <= 85; w++) expect(stagePayload(weekly, series, w)?.sub_stage).toBe('2A');
    // Week 9 of the advance, 20%+ above the MA: mid advance.
    expect(stagePayload(weekly, series, 88)?.sub_stage).toBe('2B');
    // The base: 1B once mature with a flat MA.
    const base = stagePayload(weekly, series, 79) as StagePayload;
    expect(base.stage).toBe(1);
    expect(base.sub_stage).toBe('1B');
    expect(base.reasons.join(' ')).toMatch(/Base range: resistance 61\.61, support 58\.41/);
    // The base began when the MA stopped falling (4 -> 1).
    const baseStart = runs(series)[1][1];
    expect(series.entryCode[baseStart]).toBe(STAGE_ENTRY.MA_FLATTENED);
    expect(series.maSlope[baseStart]).toBeGreaterThanOrEqual(-1);
    expect(series.maSlope[baseStart - 1]).toBeLessThan(-1);
  });

  it('labels an extended advance 2C', () => {
    const long = baseThenBreakout(30, 0.03);
    const w = weeklyFrom(long.closes, { volume: long.volume });
    const s = classifyStages(w);
    const last = stagePayload(w, s, long.closes.length - 1) as StagePayload;
    expect(last.stage).toBe(2);
    expect(last.price_vs_ma_30w_percent).toBeGreaterThan(25);
    expect(last.sub_stage).toBe('2C');
    expect(last.weeks_in_stage).toBe(31);
  });
});

describe('classifyStages: failed breakout', () => {
  it('returns to stage 1 when the breakout falls back below the base and the MA within 8 weeks', () => {
    const { closes, volume } = baseThenBreakout(0);
    closes.push(63, 58, 60, 59);
    const weekly = weeklyFrom(closes, { volume: [...volume, 1000, 1000, 1000, 1000] });
    const series = classifyStages(weekly);
    expect(Array.from(series.stage.slice(79, 85))).toEqual([1, 2, 2, 1, 1, 1]);
    expect(series.entryCode[82]).toBe(STAGE_ENTRY.FAILED_BREAKOUT);
    expect(series.weeksInStage[84]).toBe(3);
    expect(stagePayload(weekly, series, 82)?.reasons.join(' ')).toMatch(/breakout failed/);
  });
});

describe('classifyStages: top then breakdown', () => {
  // Advance +1.5%/week (weeks 0-49), a 102/106 top (50-94), then -3%/week.
  const closes: number[] = [];
  for (let w = 0; w < 50; w++) closes.push(50 * 1.015 ** w);
  for (let w = 50; w < 95; w++) closes.push(w % 2 === 0 ? 102 : 106);
  for (let k = 1; k <= 20; k++) closes.push(104 * 0.97 ** k);
  const weekly = weeklyFrom(closes);
  const series = classifyStages(weekly);

  it('goes 2 -> 3 -> 4', () => {
    const r = runs(series);
    expect(r.map(([s]) => s)).toEqual([2, 3, 4]);
    const top = r[1];
    expect(top[1]).toBeGreaterThan(50);
    expect(series.entryCode[top[1]]).toBe(STAGE_ENTRY.MA_FLATTENED);
    const decline = r[2];
    expect(decline[1]).toBeGreaterThanOrEqual(95);
    expect(decline[1]).toBeLessThanOrEqual(97);
    expect(series.entryCode[decline[1]]).toBe(STAGE_ENTRY.BREAKDOWN);
    expect(series.entryLevel[decline[1]]).toBeCloseTo(series.rangeLow[decline[1] - 1], 12);
    expect(closes[decline[1]]).toBeLessThan(series.rangeLow[decline[1] - 1]);
    expect(series.weeksInStage[closes.length - 1]).toBe(decline[2]);
  });

  it('describes the top and the decline', () => {
    const r = runs(series);
    const lastTopWeek = r[1][1] + r[1][2] - 1;
    const top = stagePayload(weekly, series, lastTopWeek) as StagePayload;
    expect(top.stage).toBe(3);
    expect(top.sub_stage).toBe('3B');
    const last = stagePayload(weekly, series, closes.length - 1) as StagePayload;
    expect(last.stage).toBe(4);
    expect(last.ma_30w_slope_percent).toBeLessThan(-1);
    expect(last.price_vs_ma_30w_percent).toBeLessThan(0);
    // A clean decline against a flat index: nothing bullish is met, and a strong decline is VERY_STRONG.
    expect(last.sata_score).toBe(0);
    expect(last.strength).toBe('VERY_STRONG');
    expect(last.mansfield_rs_trend).toBe('falling');
    expect(last.reasons[1]).toMatch(/^Entered stage 4 from stage 3 .* breakdown below top support/);
  });
});

describe('Mansfield relative strength', () => {
  it('equals (RP / SMA(RP, 52) - 1) x 100 on a tiny constructed case', () => {
    // close = 10 + w against a flat index of 100: RP = (10 + w) / 100; SMA of weeks 0..51 = 35.5 / 100.
    const closes = Array.from({ length: 54 }, (_, w) => 10 + w);
    const rs = mansfieldRs(Float64Array.from(closes), new Float64Array(54).fill(100));
    expect(rs[50]).toBeNaN();
    expect(rs[51]).toBeCloseTo((61 / 35.5 - 1) * 100, 12);
    expect(rs[51]).toBeCloseTo(71.830985915493, 10);
    expect(rs[52]).toBeCloseTo((62 / 36.5 - 1) * 100, 12);
    // An index that doubles while the stock doubles leaves RP, hence RS, unchanged.
    const scaled = mansfieldRs(Float64Array.from(closes.map((c, w) => (w === 53 ? 2 * c : c))), Float64Array.from(closes.map((_, w) => (w === 53 ? 200 : 100))));
    expect(scaled[53]).toBeCloseTo(rs[53], 12);
  });

  it('checks a non-trivial index path against a direct computation', () => {
    const closes = Array.from({ length: 60 }, (_, w) => 20 + 3 * Math.sin(w / 3) + w / 10);
    const bench = Array.from({ length: 60 }, (_, w) => 1000 * (1 + 0.01 * Math.cos(w / 5)) + w);
    const rs = mansfieldRs(Float64Array.from(closes), Float64Array.from(bench));
    for (const w of [51, 55, 59]) {
      let sum = 0;
      for (let k = w - 51; k <= w; k++) sum += closes[k] / bench[k];
      expect(rs[w]).toBeCloseTo((closes[w] / bench[w] / (sum / 52) - 1) * 100, 10);
    }
  });

  it('is NaN without a benchmark or with a gap in the 52-week window, and comes back after it', () => {
    const closes = Float64Array.from(Array.from({ length: 120 }, (_, w) => 10 + w));
    expect(Array.from(mansfieldRs(closes, new Float64Array(120).fill(NaN))).every(Number.isNaN)).toBe(true);
    const bench = new Float64Array(120).fill(100);
    bench[60] = NaN;
    const rs = mansfieldRs(closes, bench);
    expect(rs[59]).not.toBeNaN();
    expect(rs[60]).toBeNaN();
    expect(rs[111]).toBeNaN();
    expect(rs[112]).not.toBeNaN();
    const series = classifyStages(weeklyFrom(Array.from(closes), { benchmark: null }));
    expect(Array.from(series.mansfield).every(Number.isNaN)).toBe(true);
  });
});

describe('SATA attributes', () => {
  // A flat 50 for 40 weeks, then +2%/week for 20 weeks against a flat index: every attribute met.
  const closes: number[] = [];
  for (let w = 0; w < 40; w++) closes.push(w % 2 === 0 ? 49.5 : 50.5);
  for (let k = 1; k <= 20; k++) closes.push(50.5 * 1.02 ** k);
  const w = closes.length - 1;
  const fresh = (): { weekly: WeeklyBars; series: StageSeries } => {
    const weekly = weeklyFrom(closes);
    return { weekly, series: classifyStages(weekly) };
  };
  const metNames = (weekly: WeeklyBars, series: StageSeries): string[] =>
    sataAttributes(weekly, series, w)
      .filter((a) => a.met)
      .map((a) => a.name);

  it('names the ten attributes in order, all met in a healthy young advance', () => {
    const { weekly, series } = fresh();
    const attrs = sataAttributes(weekly, series, w);
    expect(attrs.map((a) => a.name)).toEqual([...SATA_ATTRIBUTES]);
    expect(attrs.filter((a) => !a.met)).toEqual([]);
    for (const a of attrs) expect(a.detail.length).toBeGreaterThan(10);
    const p = stagePayload(weekly, series, w) as StagePayload;
    expect(p.stage).toBe(2);
    expect(p.sata_score).toBe(10);
    expect(p.strength).toBe('VERY_STRONG');
  });

  type Mutation = (weekly: WeeklyBars, series: StageSeries) => void;
  const flips: [string, Mutation][] = [
    ['breakout', (weekly) => void (weekly.high[w - 10] = weekly.close[w] * 1.05)],
    ['above_ma_10w', (weekly, series) => void (series.ma10[w] = weekly.close[w] * 1.01)],
    ['above_ma_30w', (weekly, series) => void (series.ma30[w] = weekly.close[w] * 1.01)],
    ['ma_10w_rising', (_, series) => void (series.ma10[w - 1] = series.ma10[w] + 0.01)],
    ['ma_30w_rising', (_, series) => void (series.maSlope[w] = 1)],
    [
      'mansfield_rs_positive',
      (_, series) => {
        series.mansfield[w] = -1;
        series.mansfield[w - 4] = -5;
      },
    ],
    ['mansfield_rs_rising', (_, series) => void (series.mansfield[w - 4] = series.mansfield[w] - 1)],
    ['momentum', (weekly) => void (weekly.close[w - 13] = weekly.close[w] * 1.001)],
    [
      'volume',
      (weekly) => {
        weekly.close[w - 5] = weekly.close[w - 6] * 0.999; // one down week ...
        weekly.volume[w - 5] = 1e9; // ... on heavy volume: distribution outweighs accumulation
      },
    ],
    ['no_overhead_resistance', (weekly) => void (weekly.high[w - 40] = weekly.close[w] * 1.12)],
  ];

  it.each(flips)('%s flips alone when its condition flips, and the score counts the met ones', (name, mutate) => {
    const { weekly, series } = fresh();
    mutate(weekly, series);
    const met = metNames(weekly, series);
    expect(SATA_ATTRIBUTES.filter((n) => !met.includes(n))).toEqual([name]);
    const p = stagePayload(weekly, series, w) as StagePayload;
    expect(p.sata_score).toBe(9);
    expect(p.sata.find((a) => a.name === name)?.met).toBe(false);
    expect(p.strength).toBe('VERY_STRONG');
  });

  it('uses the documented boundaries', () => {
    const { weekly, series } = fresh();
    series.maSlope[w] = 1.0001;
    weekly.high[w - 40] = weekly.close[w] / 0.9001; // 9.99% below the 52-week high: still met
    expect(metNames(weekly, series)).toEqual([...SATA_ATTRIBUTES]);
    weekly.high[w - 40] = weekly.close[w] / 0.8999;
    series.mansfield[w] = NaN;
    const names = metNames(weekly, series);
    expect(names).not.toContain('no_overhead_resistance');
    expect(names).not.toContain('mansfield_rs_positive');
    expect(names).not.toContain('mansfield_rs_rising');
    expect(sataAttributes(weekly, series, w)[5].detail).toMatch(/unavailable/);
    const p = stagePayload(weekly, series, w) as StagePayload;
    expect(p.sata_score).toBe(7);
    expect(p.strength).toBe('STRONG');
    expect(p.mansfield_rs).toBeNull();
  });

  it('several flips lower the strength step by step', () => {
    const { weekly, series } = fresh();
    for (const [, mutate] of flips.slice(0, 5)) mutate(weekly, series);
    const p = stagePayload(weekly, series, w) as StagePayload;
    expect(p.sata_score).toBe(5);
    expect(p.strength).toBe('MODERATE');
    expect(p.reasons.join(' ')).toMatch(/SATA 5\/10 .* MODERATE/);
  });
});

describe('stageStrength', () => {
  it.each([
    [2, 10, 'VERY_STRONG'],
    [2, 9, 'VERY_STRONG'],
    [2, 8, 'STRONG'],
    [2, 7, 'STRONG'],
    [2, 6, 'MODERATE'],
    [2, 5, 'MODERATE'],
    [2, 4, 'WEAK'],
    [2, 0, 'WEAK'],
    [4, 0, 'VERY_STRONG'],
    [4, 1, 'VERY_STRONG'],
    [4, 2, 'STRONG'],
    [4, 3, 'STRONG'],
    [4, 5, 'MODERATE'],
    [4, 6, 'WEAK'],
    [4, 10, 'WEAK'],
    [1, 10, 'STRONG'],
    [1, 7, 'STRONG'],
    [1, 5, 'MODERATE'],
    [1, 2, 'WEAK'],
    [3, 0, 'STRONG'],
    [3, 5, 'MODERATE'],
    [3, 9, 'WEAK'],
  ] as const)('stage %i with SATA %i -> %s', (stage, score, strength) => {
    expect(stageStrength(stage, score)).toBe(strength);
  });
});

describe('history and look-ahead', () => {
  it('is undetermined below 30 + 4 weeks and determined from then on', () => {
    const closes = Array.from({ length: MIN_STAGE_WEEKS }, (_, w) => 50 + w);
    const short = weeklyFrom(closes.slice(0, MIN_STAGE_WEEKS - 1));
    const s1 = classifyStages(short);
    expect(Array.from(s1.stage).every((s) => s === 0)).toBe(true);
    expect(stagePayload(short, s1, MIN_STAGE_WEEKS - 2)).toBeNull();
    const enough = weeklyFrom(closes);
    const s2 = classifyStages(enough);
    expect(s2.stage[MIN_STAGE_WEEKS - 1]).toBe(2);
    expect(s2.weeksInStage[MIN_STAGE_WEEKS - 1]).toBe(1);
    expect(s2.entryCode[MIN_STAGE_WEEKS - 1]).toBe(STAGE_ENTRY.INITIAL);
    const p = stagePayload(enough, s2, MIN_STAGE_WEEKS - 1) as StagePayload;
    expect(p.mansfield_rs).toBeNull(); // under 52 weeks
    expect(p.ma_30w).toBeCloseTo(50 + 18.5, 12);
    expect(stagePayload(enough, s2, MIN_STAGE_WEEKS)).toBeNull(); // out of range
    const none = classifyStages(weeklyFrom([]));
    expect(none.stage.length).toBe(0);
  });

  const market = generateSyntheticMarket({ seed: 7, symbolCount: 12, years: 3, endDate: '2025-06-30', indexSymbol: 'TGMI' });
  const index = market.seriesAt(0);

  it('week w is the same whether computed on the full history or on data truncated at week w', () => {
    for (const position of [1, 2, 5, 9]) {
      const bars = market.seriesAt(position);
      const args = [bars.dates, bars.open, bars.high, bars.low, bars.close, bars.volume, index.close] as const;
      const full = toWeekly(...args, bars.dates.length - 1);
      const fullSeries = classifyStages(full);
      for (let w = MIN_STAGE_WEEKS - 3; w < full.close.length; w += 5) {
        // Truncated at the week's last day, and mid-week (the week partial, the earlier ones complete).
        for (const [end, weeks] of [
          [full.lastIndex[w], w + 1],
          [full.lastIndex[w] - 2, w],
        ] as const) {
          const cut = toWeekly(...args, end);
          const cutSeries = classifyStages(cut);
          for (const key of ['stage', 'weeksInStage', 'ma30', 'ma10', 'mansfield', 'maSlope', 'rangeHigh', 'rangeLow', 'entryCode', 'entryLevel'] as const) {
            expect(Array.from(cutSeries[key].slice(0, weeks))).toEqual(Array.from(fullSeries[key].slice(0, weeks)));
          }
          if (weeks === w + 1) expect(stagePayload(cut, cutSeries, w)).toEqual(stagePayload(full, fullSeries, w));
        }
      }
    }
  });
});

describe('realism on the synthetic market', () => {
  const market = generateSyntheticMarket({ seed: 20240614, symbolCount: 60, years: 3, endDate: '2026-10-30', indexSymbol: 'TGMI' });
  const index = market.seriesAt(0);
  const results = market.securities.slice(1).map((security, i) => {
    const bars = market.seriesAt(i + 1);
    const weekly = toWeekly(bars.dates, bars.open, bars.high, bars.low, bars.close, bars.volume, index.close, bars.dates.length - 1);
    return { symbol: security.symbol, weekly, series: classifyStages(weekly) };
  });

  it("ACME's last week is a stage-2 advance", () => {
    const acme = results.find((r) => r.symbol === 'ACME');
    if (!acme) throw new Error('ACME missing');
    const last = acme.weekly.close.length - 1;
    const p = stagePayload(acme.weekly, acme.series, last) as StagePayload;
    expect(p.stage).toBe(2);
    expect(p.price_vs_ma_30w_percent).toBeGreaterThan(0);
    expect(p.ma_30w_slope_percent).toBeGreaterThan(1);
    expect(p.week_ending).toBe('2026-10-30');
  });

  it('all four stages occur across the universe at the last week, each with a valid payload', () => {
    const seen = new Set<number>();
    for (const { weekly, series } of results) {
      const last = weekly.close.length - 1;
      const p = stagePayload(weekly, series, last) as StagePayload;
      seen.add(p.stage);
      expect(p.sata_score).toBe(p.sata.filter((a) => a.met).length);
      expect(p.strength).toBe(stageStrength(p.stage, p.sata_score));
      expect(p.sub_stage.startsWith(String(p.stage))).toBe(true);
      expect(p.reasons.length).toBeGreaterThanOrEqual(4);
      expect(p.mansfield_rs).not.toBeNull();
    }
    expect([...seen].sort()).toEqual([1, 2, 3, 4]);
  });

  it('stage-2 weeks have a higher average forward 13-week return than stage-4 weeks', () => {
    const sum = [0, 0, 0, 0, 0];
    const count = [0, 0, 0, 0, 0];
    for (const { weekly, series } of results) {
      for (let w = 0; w + 13 < weekly.close.length; w++) {
        const s = series.stage[w];
        if (s === 0) continue;
        sum[s] += weekly.close[w + 13] / weekly.close[w] - 1;
        count[s]++;
      }
    }
    for (const s of [1, 2, 3, 4]) expect(count[s]).toBeGreaterThan(100);
    expect(sum[2] / count[2]).toBeGreaterThan(sum[4] / count[4]);
  });
});
