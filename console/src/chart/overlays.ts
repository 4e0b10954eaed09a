/**
 * The geometry the security chart draws, computed from what the platform answered: weekly moving
 * averages from daily bars, stage bands from the snapshot history, pattern lines from their key
 * points, and the horizontal levels. Pure functions over plain data (no DOM, no chart library), so
 * every overlay can be checked without a browser. Times are the bars' `YYYY-MM-DD` dates, which the
 * chart library reads as business days.
 *
 * The weekly grouping and the moving average are the analysis engine's own pure functions (no I/O, no
 * imports of their own), bundled into the console, so there is one home for each rule.
 */
import { sma } from '../../../subgraphs/analysis/engine/indicators.js';
import { toWeekly } from '../../../subgraphs/analysis/engine/weekly.js';

/** A daily bar as the chart needs it. */
export interface DailyBar {
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** One point of a line: a date and a price. */
export interface LinePoint {
  time: string;
  value: number;
}

/** The Weinstein stages as the API names them. */
export type StageName = 'STAGE_1' | 'STAGE_2' | 'STAGE_3' | 'STAGE_4';

export const STAGES: readonly StageName[] = ['STAGE_1', 'STAGE_2', 'STAGE_3', 'STAGE_4'];

/** How each stage reads and the colour its band is drawn in (translucent, so candles stay legible). */
export const STAGE_STYLE: Record<StageName, { label: string; meaning: string; colour: string; swatch: string }> = {
  STAGE_1: { label: 'Stage 1', meaning: 'basing', colour: 'rgba(120, 130, 145, 0.16)', swatch: '#b9c0ca' },
  STAGE_2: { label: 'Stage 2', meaning: 'advancing', colour: 'rgba(46, 160, 67, 0.16)', swatch: '#9fd5a9' },
  STAGE_3: { label: 'Stage 3', meaning: 'topping', colour: 'rgba(230, 160, 20, 0.18)', swatch: '#f2cf87' },
  STAGE_4: { label: 'Stage 4', meaning: 'declining', colour: 'rgba(210, 50, 40, 0.15)', swatch: '#eba7a2' },
};

/** Colours of the pattern overlays, in the order patterns are listed; distinct from the stage bands. */
const PATTERN_COLOURS: readonly string[] = ['#7b3fe4', '#0a7ea4', '#c2185b', '#8d6e00', '#00897b', '#5d4037'];

export function patternColour(index: number): string {
  return PATTERN_COLOURS[index % PATTERN_COLOURS.length];
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` date (UTC), or NaN when it is not one. */
export function dayNumber(date: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return NaN;
  return Math.floor(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000);
}

/** The `YYYY-MM-DD` date of a day number. */
export function dateOfDay(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The close of each week: the last bar of every ISO week (Monday to Sunday), dated on that bar, as
 * the analysis engine groups them (its `toWeekly`, imported rather than copied, so the chart and the
 * snapshot's sma10w/sma30w cannot disagree on what a week is). The current, unfinished week counts
 * with its latest close, as the engine's snapshot and a weekly chart both take it. Bars with an
 * invalid date, or not after the bar before them, are left out (the engine requires increasing dates).
 */
export function weeklyCloses(bars: readonly Pick<DailyBar, 'date' | 'close'>[]): LinePoint[] {
  const dates: string[] = [];
  const closes: number[] = [];
  for (const bar of bars) {
    const day = dayNumber(bar.date);
    if (Number.isNaN(day) || dateOfDay(day) !== bar.date) continue;
    if (dates.length > 0 && bar.date <= dates[dates.length - 1]) continue;
    dates.push(bar.date);
    closes.push(bar.close);
  }
  const close = Float64Array.from(closes);
  const weekly = toWeekly(dates, close, close, close, close, close, null, dates.length - 1);
  return weekly.dates.map((time, i) => ({ time, value: weekly.close[i] }));
}

/**
 * The `weeks`-week simple moving average of weekly closes (the 10- and 30-week averages of the stage
 * analysis), one point per week on its last trading day, from the first week with a full window. The
 * average is the engine's own `sma` over the engine's weekly closes: the one rule behind the snapshot's
 * sma10w and sma30w, so on the snapshot's week the lines end on those values.
 */
export function weeklyMovingAverage(bars: readonly Pick<DailyBar, 'date' | 'close'>[], weeks: number): LinePoint[] {
  return movingAverageOf(weeklyCloses(bars), weeks);
}

/** `weeklyMovingAverage` over weekly closes already grouped (`weeklyCloses`), so one grouping serves several averages. */
export function movingAverageOf(closes: readonly LinePoint[], weeks: number): LinePoint[] {
  if (!Number.isInteger(weeks) || weeks < 1) throw new RangeError(`weeks must be a positive integer, got ${weeks}`);
  const averages = sma(Float64Array.from(closes, (c) => c.value), weeks);
  const out: LinePoint[] = [];
  closes.forEach((c, i) => {
    if (!Number.isNaN(averages[i])) out.push({ time: c.time, value: averages[i] });
  });
  return out;
}

/** A snapshot of the history as the shading needs it. */
export interface StagePoint {
  date: string;
  stage: StageName | null;
}

/** A run of consecutive snapshots in one stage: from its first snapshot to the day before the next stage. */
export interface StageSegment {
  stage: StageName;
  from: string;
  /** The last date the stage covers (the last snapshot in it, or the shading's end for the latest run). */
  to: string;
}

/** Calendar days a snapshot's stage is drawn past its date when no later snapshot follows. */
const STAGE_CARRY_DAYS = 14;

/** Snapshots in date order, later ones winning on a repeated date, unparseable dates dropped. */
function orderedStages(snapshots: readonly StagePoint[]): StagePoint[] {
  const byDate = new Map<string, StagePoint>();
  for (const s of snapshots) if (!Number.isNaN(dayNumber(s.date))) byDate.set(s.date, s);
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/**
 * Runs of one stage over the snapshot history. A snapshot without a stage ends the run before it; the
 * latest run ends on its last snapshot (the chart carries it a little further, see `stageBands`).
 */
export function stageSegments(snapshots: readonly StagePoint[]): StageSegment[] {
  const segments: StageSegment[] = [];
  let open: StageSegment | null = null;
  for (const s of orderedStages(snapshots)) {
    if (open && s.stage === open.stage) {
      open.to = s.date;
      continue;
    }
    if (open) segments.push(open);
    open = s.stage ? { stage: s.stage, from: s.date, to: s.date } : null;
  }
  if (open) segments.push(open);
  return segments;
}

/** One bar's background: the stage in force on that date. */
export interface StageBand {
  time: string;
  stage: StageName;
}

/**
 * The stage in force on each bar date: that of the latest snapshot on or before it. Nothing before
 * the first snapshot, nothing after a snapshot without a stage, and nothing more than
 * `carryDays` calendar days past the last snapshot (a stale reading is not shown as current).
 */
export function stageBands(barDates: readonly string[], snapshots: readonly StagePoint[], carryDays = STAGE_CARRY_DAYS): StageBand[] {
  const ordered = orderedStages(snapshots);
  if (ordered.length === 0) return [];
  const lastDay = dayNumber(ordered[ordered.length - 1].date) + carryDays;
  const bands: StageBand[] = [];
  let next = 0;
  let inForce: StagePoint | null = null;
  for (const date of barDates) {
    while (next < ordered.length && ordered[next].date <= date) inForce = ordered[next++];
    if (!inForce?.stage) continue;
    if (next >= ordered.length && dayNumber(date) > lastDay) continue;
    bands.push({ time: date, stage: inForce.stage });
  }
  return bands;
}

/** A pattern's key point as the API answers it (date or price may be missing). */
export interface KeyPoint {
  label: string;
  date: string | null;
  price: number | null;
}

/** A key point marked at its own price on a pattern's line. */
export interface PatternMarker {
  time: string;
  /** The key point's price as the answer carried it. */
  price: number;
  /** The key point's label. */
  text: string;
}

/** What a pattern's line is drawn from. */
export interface PatternGeometry {
  /**
   * The line: the key points with a date and a price, in date order, one per date (a line series holds
   * one value per time): on a date with several, the first of them as the answer listed it.
   */
  points: LinePoint[];
  /** Every drawable key point, each at its own price (so one sharing its date with another is still where it was). */
  markers: PatternMarker[];
}

/**
 * The line connecting a pattern's key points in date order, and a marker per key point at its own
 * price. Key points lacking a date or price are left out. Several on one date: the line passes through
 * the first and each keeps its own marker; no price is made up (never a mean of two), so every drawn
 * point is a price the pattern carried.
 */
export function patternGeometry(keyPoints: readonly KeyPoint[] | null | undefined): PatternGeometry {
  const drawable: Array<{ time: string; price: number; text: string; order: number }> = [];
  (keyPoints ?? []).forEach((kp, order) => {
    if (kp.date === null || kp.price === null || !Number.isFinite(kp.price) || Number.isNaN(dayNumber(kp.date))) return;
    drawable.push({ time: kp.date, price: kp.price, text: kp.label, order });
  });
  // Date order; on one date the answer's order (Array.prototype.sort is stable, `order` makes it explicit).
  drawable.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.order - b.order));
  const points: LinePoint[] = [];
  for (const d of drawable) if (points[points.length - 1]?.time !== d.time) points.push({ time: d.time, value: d.price });
  return { points, markers: drawable.map(({ time, price, text }) => ({ time, price, text })) };
}

export type PatternLevelKind = 'target' | 'breakout' | 'invalidation';

/** A horizontal level belonging to a pattern. */
export interface PatternLevel {
  kind: PatternLevelKind;
  price: number;
}

/** The pattern's target, breakout and invalidation prices that the answer carried (nulls left out). */
export function patternLevels(pattern: { priceTarget: number | null; breakoutLevel: number | null; invalidationLevel: number | null }): PatternLevel[] {
  const levels: PatternLevel[] = [];
  const add = (kind: PatternLevelKind, price: number | null) => {
    if (price !== null && Number.isFinite(price)) levels.push({ kind, price });
  };
  add('target', pattern.priceTarget);
  add('breakout', pattern.breakoutLevel);
  add('invalidation', pattern.invalidationLevel);
  return levels;
}

/** A support or resistance level. */
export interface Level {
  kind: 'support' | 'resistance';
  price: number;
}

/** Support and resistance levels, each list sorted from nearest the price (highest support, lowest resistance) outward, repeats removed. */
export function supportResistance(support: readonly number[] | null | undefined, resistance: readonly number[] | null | undefined): Level[] {
  const clean = (xs: readonly number[] | null | undefined) => [...new Set((xs ?? []).filter((x) => Number.isFinite(x)))];
  return [
    ...clean(support).sort((a, b) => b - a).map((price) => ({ kind: 'support' as const, price })),
    ...clean(resistance).sort((a, b) => a - b).map((price) => ({ kind: 'resistance' as const, price })),
  ];
}

/**
 * The snapshot date to show for a picked calendar date: the latest stored snapshot on or before it
 * (a weekend or holiday has none of its own), else the earliest; null without any snapshot dates.
 */
export function snapshotDateFor(dates: readonly string[], picked: string): string | null {
  if (dates.length === 0) return null;
  const sorted = [...dates].sort();
  let best: string | null = null;
  for (const d of sorted) {
    if (d <= picked) best = d;
    else break;
  }
  return best ?? sorted[0];
}

/**
 * The dates to open the chart on: about `daysBefore` calendar days before `focus` up to `daysAfter`
 * after it, clamped to the bars; null without bars.
 */
export function visibleRange(barDates: readonly string[], focus: string | null, daysBefore = 180, daysAfter = 20): { from: string; to: string } | null {
  if (barDates.length === 0) return null;
  const first = barDates[0];
  const last = barDates[barDates.length - 1];
  const focusDay = focus && !Number.isNaN(dayNumber(focus)) ? dayNumber(focus) : dayNumber(last);
  const from = dateOfDay(focusDay - daysBefore);
  const to = dateOfDay(focusDay + daysAfter);
  const clamp = (d: string) => (d < first ? first : d > last ? last : d);
  const range = { from: clamp(from), to: clamp(to) };
  return range.from < range.to ? range : { from: first, to: last };
}

/** A horizontal level of a pattern drawn as a segment over the pattern's span rather than the whole chart. */
export interface LevelSegment {
  kind: PatternLevelKind;
  price: number;
  points: LinePoint[];
}

/**
 * The pattern's breakout and invalidation levels as segments from its first key point to `until`
 * (the snapshot's date: where the pattern stands), so several patterns' levels stay apart on the
 * chart; the target is left to a labelled price line. No segments without a dated key point or when
 * `until` is not after the first one.
 */
export function patternLevelSegments(geometry: PatternGeometry, levels: readonly PatternLevel[], until: string): LevelSegment[] {
  const start = geometry.points[0]?.time;
  if (!start || !(until > start) || Number.isNaN(dayNumber(until))) return [];
  return levels
    .filter((l) => l.kind !== 'target')
    .map((l) => ({ kind: l.kind, price: l.price, points: [{ time: start, value: l.price }, { time: until, value: l.price }] }));
}
