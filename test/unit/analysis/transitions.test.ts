/** Stage transition table: counts, partial last weeks, merge, JSON round-trip, the no-look-ahead cut-off, speed. */
import type { StageLabel } from '../../../subgraphs/analysis/engine/document.js';
import { classifyStages, type StageSeries } from '../../../subgraphs/analysis/engine/stage.js';
import { generateSyntheticMarket } from '../../../subgraphs/analysis/engine/synthetic-market.js';
import { TransitionTable, type TransitionTableJson } from '../../../subgraphs/analysis/engine/transitions.js';
import { isoWeekKey, toWeekly, type WeeklyBars } from '../../../subgraphs/analysis/engine/weekly.js';

const LABELS: StageLabel[] = ['STAGE 1', 'STAGE 2', 'STAGE 3', 'STAGE 4'];

/** Weekly bars (Fridays from 2024-01-05) and a stage series with the given stages; other fields are filler. */
function symbolWith(stages: number[], firstFriday = '2024-01-05'): { weekly: WeeklyBars; series: StageSeries } {
  const n = stages.length;
  const start = Date.parse(`${firstFriday}T00:00:00Z`);
  const dates = stages.map((_, w) => new Date(start + w * 7 * 86_400_000).toISOString().slice(0, 10));
  const nums = (): Float64Array => new Float64Array(n).fill(1);
  const weekly: WeeklyBars = {
    dates,
    weekKeys: dates.map(isoWeekKey),
    lastIndex: Int32Array.from(dates.map((_, w) => 5 * w + 4)),
    open: nums(),
    high: nums(),
    low: nums(),
    close: nums(),
    volume: nums(),
    benchmark: nums(),
  };
  const series: StageSeries = {
    stage: Int8Array.from(stages),
    weeksInStage: new Int32Array(n),
    ma30: nums(),
    ma10: nums(),
    mansfield: nums(),
    maSlope: nums(),
    rangeHigh: nums(),
    rangeLow: nums(),
    entryCode: new Int8Array(n),
    entryLevel: nums(),
  };
  return { weekly, series };
}

function rowSum(row: Record<StageLabel, number>): number {
  return LABELS.reduce((s, l) => s + row[l], 0);
}

describe('TransitionTable', () => {
  // Weeks: 2024-01-05, -12, -19, -26, 2024-02-02, -09, -16.
  const a = symbolWith([0, 1, 1, 2, 2, 2, 3]);
  const b = symbolWith([0, 0, 1, 1, 1, 2, 2]);

  it('counts week-to-week transitions with both stages determined, skipping the last (partial) week by default', () => {
    const t = new TransitionTable();
    t.add(a.weekly, a.series);
    expect(t.symbols).toBe(1);
    expect(t.totalTransitions).toBe(4); // 1-1, 1-2, 2-2, 2-2 (0-1 undetermined, 2-3 in the last week)
    const p = t.probabilities(2, '2030-01-01');
    expect(p?.counts['STAGE 2']).toEqual({ 'STAGE 1': 0, 'STAGE 2': 2, 'STAGE 3': 0, 'STAGE 4': 0 });
    expect(p?.next_week['STAGE 2']).toBe(1);
    expect(p?.estimated_through).toBe('2024-02-09');
    // Adding after a query invalidates the cached prefix sums.
    t.add(b.weekly, b.series);
    expect(t.probabilities(1, '2030-01-01')?.sample_size).toBe(2 + 3);

    const complete = new TransitionTable();
    complete.add(a.weekly, a.series, { lastWeekComplete: true });
    expect(complete.totalTransitions).toBe(5);
    const q = complete.probabilities(2, '2030-01-01');
    expect(q?.counts['STAGE 2']['STAGE 3']).toBe(1);
    expect(q?.next_week).toEqual({ 'STAGE 1': 0, 'STAGE 2': 2 / 3, 'STAGE 3': 1 / 3, 'STAGE 4': 0 });
    expect(q?.sample_size).toBe(3);
    expect(q?.estimated_through).toBe('2024-02-16');
  });

  it('gives row-normalised probabilities with sample sizes and the full matrix', () => {
    const t = new TransitionTable();
    t.add(a.weekly, a.series, { lastWeekComplete: true });
    t.add(b.weekly, b.series, { lastWeekComplete: true });
    const p = t.probabilities(1, '2030-01-01');
    if (!p) throw new Error('expected a row');
    // Stage-1 row: a: 1-1, 1-2; b: 1-1, 1-1, 1-2 -> 3 x (1->1), 2 x (1->2).
    expect(p.current_stage).toBe('STAGE 1');
    expect(p.sample_size).toBe(5);
    expect(p.next_week).toEqual({ 'STAGE 1': 0.6, 'STAGE 2': 0.4, 'STAGE 3': 0, 'STAGE 4': 0 });
    expect(p.counts['STAGE 2']).toEqual({ 'STAGE 1': 0, 'STAGE 2': 3, 'STAGE 3': 1, 'STAGE 4': 0 });
    expect(p.total_transitions).toBe(9);
    expect(p.symbols).toBe(2);
    for (const l of LABELS) {
      const total = rowSum(p.counts[l]);
      if (total > 0) expect(rowSum(p.matrix[l])).toBeCloseTo(1, 12);
      else expect(rowSum(p.matrix[l])).toBe(0);
      for (const m of LABELS) expect(p.matrix[l][m]).toBeCloseTo(total > 0 ? p.counts[l][m] / total : 0, 12);
    }
    expect(p.next_week).toEqual(p.matrix['STAGE 1']);
    expect(t.probabilities(3, '2030-01-01')).toBeNull(); // no observation from stage 3
    expect(t.probabilities(4, '2030-01-01')).toBeNull();
  });

  it('only uses weeks whose last day is on or before throughDate (no look-ahead)', () => {
    const t = new TransitionTable();
    t.add(a.weekly, a.series, { lastWeekComplete: true });
    expect(t.probabilities(1, '2024-01-11')).toBeNull(); // before any counted week closes
    // Through 2024-01-19: only the 1 -> 1 of the week ending 2024-01-19.
    expect(t.probabilities(1, '2024-01-19')?.next_week['STAGE 1']).toBe(1);
    expect(t.probabilities(1, '2024-01-19')?.total_transitions).toBe(1);
    // Mid-week (Wednesday 2024-01-24): the week ending Friday 2024-01-26 is not counted yet.
    const wednesday = t.probabilities(1, '2024-01-24');
    expect(wednesday?.sample_size).toBe(1);
    expect(wednesday?.estimated_through).toBe('2024-01-19');
    const friday = t.probabilities(1, '2024-01-26');
    expect(friday?.sample_size).toBe(2);
    expect(friday?.next_week).toEqual({ 'STAGE 1': 0.5, 'STAGE 2': 0.5, 'STAGE 3': 0, 'STAGE 4': 0 });
    expect(t.probabilities(2, '2024-02-15')?.counts['STAGE 2']['STAGE 3']).toBe(0);
    expect(t.probabilities(2, '2024-02-16')?.counts['STAGE 2']['STAGE 3']).toBe(1);
  });

  it('merges tables and JSON, order-independently, and round-trips through JSON and structuredClone', () => {
    const c = symbolWith([4, 4, 1, 1, 2], '2023-12-29'); // spans 2023-W52 .. 2024-W04
    const all = new TransitionTable();
    for (const s of [a, b, c]) all.add(s.weekly, s.series);

    const left = new TransitionTable();
    left.add(a.weekly, a.series);
    const right = new TransitionTable();
    right.add(c.weekly, c.series);
    right.add(b.weekly, b.series);
    const merged = new TransitionTable();
    merged.merge(right.toJSON());
    merged.merge(left);
    expect(merged.toJSON()).toEqual(all.toJSON());
    expect(merged.symbols).toBe(3);

    const json = all.toJSON();
    expect(json.weeks.map((w) => w.key)).toEqual([...json.weeks.map((w) => w.key)].sort());
    const cloned = TransitionTable.fromJSON(structuredClone(json));
    const parsed = TransitionTable.fromJSON(JSON.parse(JSON.stringify(json)) as TransitionTableJson);
    for (const t of [cloned, parsed]) {
      expect(t.toJSON()).toEqual(json);
      for (const stage of [1, 2, 3, 4] as const) {
        for (const date of ['2024-01-05', '2024-01-19', '2024-02-01', '2030-01-01']) {
          expect(t.probabilities(stage, date)).toEqual(all.probabilities(stage, date));
        }
      }
    }
    // Merging after a query invalidates the cached prefix sums.
    const before = merged.probabilities(1, '2030-01-01')?.sample_size ?? 0;
    merged.merge(left);
    expect(merged.probabilities(1, '2030-01-01')?.sample_size).toBe(before + 2); // a adds 1 -> 1 and 1 -> 2
  });

  it('rejects malformed JSON', () => {
    const t = new TransitionTable();
    expect(() => t.merge({ version: 2, symbols: 0, weeks: [] } as unknown as TransitionTableJson)).toThrow(TypeError);
    expect(() =>
      t.merge({ version: 1, symbols: 1, weeks: [{ key: '2024-W01', lastDate: '2024-01-05', counts: [1, 2] }] }),
    ).toThrow(TypeError);
    expect(() =>
      t.merge({ version: 1, symbols: 1, weeks: [{ key: '2024-1', lastDate: '2024-01-05', counts: new Array(16).fill(0) }] }),
    ).toThrow(TypeError);
    expect(t.symbols).toBe(0);
  });

  describe('on the synthetic market', () => {
    const market = generateSyntheticMarket({ seed: 11, symbolCount: 30, years: 3, endDate: '2025-03-19', indexSymbol: 'TGMI' });
    const index = market.seriesAt(0);
    const cutDate = '2024-10-16'; // a Wednesday
    const full = new TransitionTable();
    const cut = new TransitionTable();
    let expectedTotal = 0;
    for (let p = 1; p <= 30; p++) {
      const bars = market.seriesAt(p);
      const args = [bars.dates, bars.open, bars.high, bars.low, bars.close, bars.volume, index.close] as const;
      const weekly = toWeekly(...args, bars.dates.length - 1);
      const series = classifyStages(weekly);
      full.add(weekly, series);
      for (let w = 1; w < weekly.close.length - 1; w++) if (series.stage[w - 1] > 0 && series.stage[w] > 0) expectedTotal++;
      const end = bars.dates.indexOf(cutDate);
      const cutWeekly = toWeekly(...args, end);
      cut.add(cutWeekly, classifyStages(cutWeekly));
    }

    it('counts every determined pair except the last week', () => {
      expect(full.totalTransitions).toBe(expectedTotal);
      expect(full.symbols).toBe(30);
      const p = full.probabilities(2, '2099-01-01');
      expect(p?.next_week['STAGE 2']).toBeGreaterThan(0.8); // stages persist week to week
    });

    it('through a date equals a table built only from the data known on that date', () => {
      for (const stage of [1, 2, 3, 4] as const) {
        const p = full.probabilities(stage, cutDate);
        const q = cut.probabilities(stage, cutDate);
        expect(p).not.toBeNull();
        expect({ ...p, symbols: 0 }).toEqual({ ...q, symbols: 0 });
        expect(p?.estimated_through).toBe('2024-10-11');
      }
    });

    // Its speed belongs in bench/; this checks that 30,000 lookups answer.
    it('answers 30,000 queries', () => {
      const dates = market.calendar.slice(300);
      let checksum = 0;
      for (let i = 0; i < 30_000; i++) {
        const p = full.probabilities(((i % 4) + 1) as 1 | 2 | 3 | 4, dates[i % dates.length]);
        checksum += p ? p.sample_size : 0;
      }
      expect(checksum).toBeGreaterThan(0);
    });
  });
});
