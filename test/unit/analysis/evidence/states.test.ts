/**
 * As-of evidence tables (engine/evidence/states.ts) on synthetic universes: a planted stage-2 drift and a
 * planted 70% pattern target are found with intervals that exclude the null; a table as of D is the same
 * whatever the bars after D are (here: extreme ones) and counts exactly the outcomes whose window ends by
 * D; short histories give n with null figures; the walk-forward calibrator of a known probability curve is
 * calibrated out of sample; the enhanced signal's confidence has its own per-signal calibrators on the
 * same events, fitted and scored walk-forward on the rows with that enhanced signal; results are
 * deterministic, a partial sweep equals the full one, and so do the states and probabilities halves of any
 * split of the dates, joined.
 */
import { quietHalf } from '../../../../subgraphs/analysis/engine/evidence/by-date.js';
import { calibrate, calibrationMetrics } from '../../../../subgraphs/analysis/engine/evidence/calibration.js';
import type { CloseSeries } from '../../../../subgraphs/analysis/engine/evidence/forward.js';
import type { EvaluationRow } from '../../../../subgraphs/analysis/engine/evidence/rows.js';
import type { EvidenceTable } from '../../../../subgraphs/analysis/engine/evidence/state-evidence.js';
import {
  evidenceAsOfDates,
  evidenceTableParts,
  evidenceTables,
  firstKnownOutcome,
  joinEvidenceTables,
  type StateRow,
} from '../../../../subgraphs/analysis/engine/evidence/states.js';
import { createPrng } from '../../../../subgraphs/analysis/engine/prng.js';
import { assemble, dayName, plantedUniverse, type PlantedSpec } from './universe.js';

const SPEC: PlantedSpec = { seed: 5, symbols: 40, days: 780, firstSnapshot: 260, step: 5, vol: 0.015, stage2Drift: 0.0015, epoch: 60, patternEvery: 20, hitShare: 0.7 };

/** The enhanced confidence of a row: |enhanced score|, missing (null) when that is below 0.1. */
const enhancedConfidence = (r: EvaluationRow): number | null => (r.enhancedScore === null || Math.abs(r.enhancedScore) < 0.1 ? null : Math.abs(r.enhancedScore));

const toStateRows = (rows: readonly EvaluationRow[]): StateRow[] =>
  rows.map((r) => ({ ...r, bestPatternType: r.bestPattern?.type ?? null, patternConfidence: r.bestPattern === null ? null : 0.5, enhancedConfidence: enhancedConfidence(r) }));

/** Every 20th calendar day from the first snapshot on. */
const asOfEvery = (calendar: readonly string[], from: number): string[] => calendar.filter((_, t) => t >= from && (t - from) % 20 === 0);

const OPTIONS = { pipelineVersion: 'test', replicates: 200, seed: 3 };

describe('a planted universe', () => {
  const u = plantedUniverse(SPEC);
  const asOf = asOfEvery(u.calendar, 300);
  const tables = evidenceTables(toStateRows(u.rows), { ...OPTIONS, calendar: u.calendar, paths: u.closes, asOf });
  const last = tables[tables.length - 1];

  it('gives one table per as-of date, each naming its universe', () => {
    expect(tables.map((t) => t.as_of)).toEqual(asOf);
    expect(last.universe).toEqual({ symbols: 40, first_date: 'T00260', last_date: asOf[asOf.length - 1], benchmark: 'equal-weight' });
  });

  it('finds the stage-2 drift: every STAGE 2 record has a 20-day and 60-day interval above 0, no other stage has', () => {
    const stage2 = Object.entries(last.states.stage).filter(([label]) => label.startsWith('STAGE 2 '));
    expect(stage2).toHaveLength(4);
    for (const [label, record] of stage2) {
      process.stdout.write(`${label}: n ${record.n}, 20d ${record.mean_excess_20d.value?.toFixed(4)} [${record.mean_excess_20d.ci?.map((x) => x.toFixed(4)).join(', ')}]\n`);
      expect(record.mean_excess_20d.ci?.[0]).toBeGreaterThan(0);
      expect(record.mean_excess_60d.ci?.[0]).toBeGreaterThan(0);
      expect(record.hit_rate.value).toBeGreaterThan(0.5);
    }
    // Nothing else was planted: no other stage's interval lies above 0.
    for (const [label, record] of Object.entries(last.states.stage)) {
      if (!label.startsWith('STAGE 2 ')) expect([label, (record.mean_excess_20d.ci?.[0] ?? 0) > 0]).toEqual([label, false]);
    }
  });

  it('finds the planted pattern target: BULL_FLAG target first within 3 points of 70%, above its placebo', () => {
    const flag = last.states.best_pattern.BULL_FLAG;
    const target = flag.target_first;
    if (target === undefined) throw new Error('no target_first on a best_pattern record');
    process.stdout.write(`BULL_FLAG: target first ${target.value?.toFixed(3)} (n ${target.n}), placebo ${target.placebo?.toFixed(3)}\n`);
    expect(Math.abs((target.value as number) - 0.7)).toBeLessThan(0.03);
    expect(target.ci?.[0]).toBeGreaterThan(target.placebo as number);
    // Signals carry no target_first.
    expect(last.states.signal.BUY.target_first).toBeUndefined();
  });

  it('counts exactly the outcomes whose window ends by the as-of date', () => {
    for (const table of [tables[3], tables[10], last]) {
      const cut = u.calendar.indexOf(table.as_of);
      const known20 = u.rows.filter((r) => u.calendar.indexOf(r.date) + 20 <= cut && Number.isFinite(r.forwardExcess[20]));
      const total = Object.values(table.states.stage).reduce((s, r) => s + r.n, 0);
      expect(total).toBe(known20.length);
      const known60 = u.rows.filter((r) => r.bestPattern !== null && u.calendar.indexOf(r.date) + 60 <= cut);
      expect(table.states.best_pattern.BULL_FLAG?.target_first?.n ?? 0).toBe(known60.length);
      // The calibrators saw the same outcomes.
      const buys = known20.filter((r) => r.signal === 'BUY').length;
      expect(table.probabilities.confidence.BUY.n).toBe(buys);
    }
  });

  it("fits the enhanced confidence per enhanced signal on the rows with that signal whose outcome is known, scored walk-forward", () => {
    const stateRows = toStateRows(u.rows);
    const quiet = quietHalf(
      stateRows.map((r) => r.date),
      stateRows.map((r) => r.forwardExcess[20]),
    );
    const position = new Map(u.calendar.map((d, i) => [d, i]));
    const tableFor = (date: string): EvidenceTable | undefined => tables.filter((t) => t.as_of <= date).pop();
    for (const table of [tables[3], tables[10], last]) {
      const cut = u.calendar.indexOf(table.as_of);
      for (const signal of ['BUY', 'SELL', 'HOLD'] as const) {
        const entry = table.probabilities.enhanced_confidence?.[signal];
        if (entry === undefined) throw new Error('no enhanced_confidence in a table');
        const known = stateRows
          .map((r, k) => ({ r, k }))
          .filter(({ r }) => r.enhancedSignal === signal && r.enhancedConfidence !== null && (position.get(r.date) as number) + 20 <= cut && Number.isFinite(r.forwardExcess[20]));
        expect(entry.n).toBe(known.length);
        expect(entry.n).toBeLessThan(stateRows.filter((r) => r.enhancedSignal === signal && (position.get(r.date) as number) + 20 <= cut).length);
        const outcome = ({ r, k }: { r: StateRow; k: number }) => (signal === 'HOLD' ? quiet[k] : signal === 'SELL' ? Number(r.forwardExcess[20] < 0) : Number(r.forwardExcess[20] > 0));
        expect(entry.base_rate).toBeCloseTo(known.reduce((s, x) => s + outcome(x), 0) / known.length, 12);
        expect(entry.event).toBe(table.probabilities.confidence[signal].event);
        if (table === tables[3]) continue;
        // Walk-forward: each known row scored by the enhanced calibrator of the table its own date used.
        const p: number[] = [];
        const y: number[] = [];
        for (const x of known) {
          const c = tableFor(x.r.date)?.probabilities.enhanced_confidence?.[signal].calibrator ?? null;
          if (c === null) continue;
          p.push(calibrate(c, x.r.enhancedConfidence as number));
          y.push(outcome(x));
        }
        const expected = calibrationMetrics(p, y);
        expect(entry.calibrator).not.toBeNull();
        expect(entry.metrics?.n).toBe(p.length);
        expect(p.length).toBeGreaterThan(0);
        expect(entry.metrics?.brier).toBeCloseTo(expected.brier as number, 12);
        expect(entry.metrics?.ece).toBeCloseTo(expected.ece as number, 12);
        expect(entry.metrics?.reliability).toHaveLength(10);
      }
    }
  });

  it('is deterministic per seed, and a partial sweep gives the same tables as the full one', () => {
    const compute = new Set([asOf[5], asOf[asOf.length - 1]]);
    const again = evidenceTables(toStateRows(u.rows), { ...OPTIONS, calendar: u.calendar, paths: u.closes, asOf, compute });
    expect(again.map((t) => JSON.stringify(t))).toEqual([tables[5], last].map((t) => JSON.stringify(t)));
    const otherSeed = evidenceTables(toStateRows(u.rows), { ...OPTIONS, seed: 4, calendar: u.calendar, paths: u.closes, asOf, compute });
    expect(JSON.stringify(otherSeed[1].states.stage)).not.toBe(JSON.stringify(last.states.stage));
  });

  it('splits into halves: the states and probabilities of any dates, joined, are the full tables byte for byte', () => {
    const rows = toStateRows(u.rows);
    const options = { ...OPTIONS, calendar: u.calendar, paths: u.closes, asOf };
    const odd = asOf.filter((_, k) => k % 2 === 1);
    const even = asOf.filter((_, k) => k % 2 === 0);
    const a = evidenceTableParts(rows, options, { states: odd, probabilities: asOf });
    const b = evidenceTableParts(rows, options, { states: even });
    expect(b.probabilities).toEqual([]);
    expect(a.states.map((s) => s.as_of)).toEqual(odd);
    const states = [...a.states, ...b.states].sort((x, y) => (x.as_of < y.as_of ? -1 : 1));
    expect(joinEvidenceTables(states, a.probabilities).map((t) => JSON.stringify(t))).toEqual(tables.map((t) => JSON.stringify(t)));
    // Only the dates of `compute` are summarised; halves of different dates do not join.
    const some = evidenceTableParts(rows, { ...options, compute: new Set([asOf[3]]) }, { states: asOf, probabilities: [asOf[3], asOf[4]] });
    expect(JSON.stringify(joinEvidenceTables(some.states, some.probabilities))).toBe(JSON.stringify([tables[3]]));
    expect(() => joinEvidenceTables(a.states.slice(0, 1), a.probabilities.slice(0, 1))).toThrow(RangeError);
  });
});

describe('no look-ahead', () => {
  it('a table as of D is identical whether the bars after D are the real ones, extreme ones or absent', () => {
    const u = plantedUniverse(SPEC);
    const asOf = asOfEvery(u.calendar, 300);
    const cutDay = 560;
    const D = u.calendar[cutDay];
    const early = asOf.filter((a) => a <= D);
    expect(early.length).toBeGreaterThan(8);
    const run = (closes: CloseSeries[], calendar: string[], rows: EvaluationRow[]): EvidenceTable[] =>
      evidenceTables(toStateRows(rows), { ...OPTIONS, calendar, paths: closes, asOf: early });
    const outputs = u.rows.map(({ forwardExcess: _f, baselines: _b, ...out }) => out);

    const full = run(u.closes, u.calendar, u.rows);

    // Bars after D: every stage-2 name of the last snapshot crashes 60% a day and the others triple.
    const extreme = u.closes.map((s) => {
      const close = Float64Array.from(s.close as Float64Array);
      const rng = createPrng(99, s.symbol.charCodeAt(3));
      for (let t = cutDay + 1; t < close.length; t++) close[t] = close[t - 1] * (rng.next() < 0.5 ? 0.4 : 3);
      return { ...s, close };
    });
    const wild = assemble(extreme, outputs, u.calendar, u.snapshotDays);
    const withExtreme = run(extreme, u.calendar, wild.rows);

    // Without any bar (or snapshot) after D.
    const calendar = u.calendar.slice(0, cutDay + 1);
    const cut = u.closes.map((s) => ({ ...s, dates: calendar, close: (s.close as Float64Array).slice(0, cutDay + 1) }));
    const truncated = assemble(cut, outputs.filter((o) => o.date <= D), calendar, u.snapshotDays.filter((t) => t <= cutDay));
    const withoutFuture = run(cut, calendar, truncated.rows);

    const text = (tables: EvidenceTable[]) => tables.map((t) => JSON.stringify(t));
    expect(text(withExtreme)).toEqual(text(full));
    expect(text(withoutFuture)).toEqual(text(full));
    // The future did change the figures of a later table, so a leak would have shown.
    const later = [u.calendar[700]];
    const a = evidenceTables(toStateRows(u.rows), { ...OPTIONS, calendar: u.calendar, paths: u.closes, asOf: later });
    const b = evidenceTables(toStateRows(wild.rows), { ...OPTIONS, calendar: u.calendar, paths: extreme, asOf: later });
    expect(JSON.stringify(b[0].states)).not.toBe(JSON.stringify(a[0].states));
  });
});

describe('too little history', () => {
  it('gives n with null estimates, and no calibrator below the minimum number of outcomes', () => {
    const u = plantedUniverse({ ...SPEC, symbols: 6, days: 400 });
    // 20 trading days after the first snapshot: only the first snapshot date's outcomes are known.
    const [table] = evidenceTables(toStateRows(u.rows), { ...OPTIONS, calendar: u.calendar, paths: u.closes, asOf: [u.calendar[280]] });
    const records = Object.values(table.states.stage);
    expect(records.reduce((s, r) => s + r.n, 0)).toBe(6);
    for (const record of records) {
      expect(record.dates).toBe(1);
      expect(record.mean_excess_20d).toEqual({ value: null, ci: null });
      expect(record.hit_rate).toEqual({ value: null, ci: null });
      expect(record.mean_excess_60d).toEqual({ value: null, ci: null });
    }
    for (const p of [table.probabilities.ml_probability_up, table.probabilities.confidence.BUY, table.probabilities.pattern_target]) {
      expect(p).toMatchObject({ calibrator: null, method: null, metrics: null });
    }
    expect(table.probabilities.ml_probability_up.n).toBe(6);
  });

  it('has no table before any outcome is known, and as-of dates are the ends of months the calendar has passed', () => {
    const calendar = ['2024-01-30', '2024-01-31', '2024-02-01', '2024-02-28', '2024-02-29', '2024-03-01', '2024-03-04'];
    expect(firstKnownOutcome(calendar, ['2024-03-04'])).toBeNull();
    expect(evidenceAsOfDates(calendar, null)).toEqual([]);
    expect(evidenceAsOfDates(calendar, '2024-01-02')).toEqual(['2024-01-31', '2024-02-29']);
    expect(evidenceAsOfDates(calendar, '2024-02-01')).toEqual(['2024-02-29']);
  });
});

describe('walk-forward calibration', () => {
  it('recovers a known probability curve: out-of-sample ECE below 0.02 on 50,000 rows', () => {
    // 100 names x 520 daily snapshots; a BUY with confidence c beats the universe with probability 0.1 + 0.8 c^2.
    const days = 560;
    const calendar = Array.from({ length: days }, (_, t) => dayName(t));
    const rng = createPrng(11, 0);
    const truth = (c: number) => 0.1 + 0.8 * c * c;
    const rows: StateRow[] = [];
    for (let t = 0; t < 520; t++) {
      for (let s = 0; s < 100; s++) {
        const c = rng.next();
        const up = rng.next() < truth(c);
        rows.push({
          symbol: `S${s}`,
          date: calendar[t],
          stage: null,
          stageStrength: null,
          signal: 'BUY',
          confidence: c,
          mlProbability: null,
          sataScore: null,
          bestPattern: null,
          bestPatternType: null,
          patternConfidence: null,
          forwardExcess: { 20: up ? 0.01 : -0.01, 60: NaN },
        });
      }
    }
    const asOf = calendar.filter((_, t) => t >= 40 && t % 20 === 0);
    const tables = evidenceTables(rows, { ...OPTIONS, replicates: 20, calendar, paths: [], asOf, compute: new Set([asOf[asOf.length - 1]]) });
    const buy = tables[0].probabilities.confidence.BUY;
    const metrics = buy.metrics;
    if (metrics === null || buy.calibrator === null) throw new Error('no calibrator');
    process.stdout.write(`walk-forward BUY: n ${buy.n}, out of sample ${metrics.n}, Brier ${metrics.brier.toFixed(4)}, ECE ${metrics.ece.toFixed(4)}\n`);
    expect(metrics.n).toBeGreaterThan(45_000);
    expect(metrics.ece).toBeLessThan(0.02);
    expect(metrics.reliability).toHaveLength(10);
    for (const c of [0.2, 0.5, 0.8]) expect(Math.abs(calibrate(buy.calibrator, c) - truth(c))).toBeLessThan(0.05);
    expect(buy.event).toMatch(/beats the equal-weight universe/);
  });
});

describe('the HOLD event', () => {
  it("is 1 below the date's median |excess| among rows with a known excess, 0 at or above it, NaN when unknown", () => {
    const dates = ['D2', 'D1', 'D1', 'D2', 'D1', 'D2', 'D1'];
    const excess = [0.03, -0.01, 0.04, -0.02, NaN, 0.01, -0.02];
    // D1: sizes 0.01, 0.02, 0.04 (median 0.02); D2: 0.01, 0.02, 0.03 (median 0.02).
    expect(Array.from(quietHalf(dates, excess))).toEqual([0, 1, 0, 0, NaN, 1, 0]);
    expect(Array.from(quietHalf(['D', 'D'], [0.01, -0.03]))).toEqual([1, 0]);
  });
});
