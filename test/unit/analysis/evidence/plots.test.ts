/**
 * The evaluation's charts (subgraphs/analysis/engine/evidence/plots.ts), rendered by Vega for a synthetic
 * evaluation: every SVG is well-formed XML with one point per level (or non-empty bin), one interval bar per
 * level with an interval, and the axis titles; rendering is byte-for-byte deterministic; and the reliability
 * tables measured on evaluation rows recover a probability that is calibrated by construction.
 */
import { evaluate } from '../../../../subgraphs/analysis/engine/evidence/evaluate.js';
import {
  EXCESS_AXIS_TITLE,
  OBSERVED_AXIS_TITLE,
  PREDICTED_AXIS_TITLE,
  evaluationPlotSpecs,
  excessSpec,
  plotsSection,
  reliabilityFromRows,
  reliabilitySpec,
  renderPlots,
  renderSvg,
} from '../../../../subgraphs/analysis/engine/evidence/plots.js';
import type { EvaluationRow } from '../../../../subgraphs/analysis/engine/evidence/rows.js';
import { createPrng } from '../../../../subgraphs/analysis/engine/prng.js';
import { checkWellFormed } from '../../../helpers/xml.js';
import { plantedUniverse } from './universe.js';

/** The items (child elements) of each mark group of a type, in document order. */
function markItems(svg: string, type: 'symbol' | 'rule' | 'line'): number[] {
  const groups = [...svg.matchAll(new RegExp(`<g class="mark-${type} role-mark[^"]*"[^>]*?(?:/>|>(.*?)</g>)`, 'g'))];
  return groups.map((g) => ((g[1] ?? '').match(/<(path|line)\b/g) ?? []).length);
}

const texts = (svg: string): string[] => [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

const u = plantedUniverse({ seed: 3, symbols: 30, days: 700, firstSnapshot: 260, step: 5, vol: 0.015, stage2Drift: 0.0015, epoch: 60, patternEvery: 20, hitShare: 0.7 });
const evaluation = evaluate(u.rows, { calendar: u.calendar, seed: 1, replicates: 200 });

describe('checkWellFormed', () => {
  it('accepts a well-formed document and refuses malformed ones', () => {
    expect(() => checkWellFormed('<svg a="1"><g><path d="M0"/></g><text>a &amp; b</text></svg>')).not.toThrow();
    for (const bad of ['<svg><g></svg>', '<svg a=1/>', '<svg>a & b</svg>', '<svg/><svg/>', '<svg a="1" a="2"/>', '<svg>']) {
      expect(() => checkWellFormed(bad)).toThrow();
    }
  });
});

describe('forward excess return charts', () => {
  it('one chart per output and horizon, then one reliability diagram per probability with outcomes', () => {
    const names = evaluationPlotSpecs(evaluation, reliabilityFromRows(u.rows)).map((p) => p.name);
    expect(names).toEqual([
      'excess-stage-20d',
      'excess-stage-strength-20d',
      'excess-signal-20d',
      'excess-enhanced-signal-20d',
      'excess-stage-60d',
      'excess-stage-strength-60d',
      'excess-signal-60d',
      'excess-enhanced-signal-60d',
      'reliability-ml-probability-up',
      'reliability-confidence-buy',
      'reliability-confidence-sell',
      'reliability-confidence-hold',
    ]);
    expect(evaluationPlotSpecs(evaluation).map((p) => p.name)).toHaveLength(8);
  });

  it.each([
    ['stage', 'Stage', 20],
    ['stage_strength', 'Stage x strength', 60],
    ['signal', 'Rules signal', 20],
    ['enhanced_signal', 'Enhanced signal', 60],
  ] as const)('%s (%s) at %i days: a point per level with rows, an interval bar per level with an interval, both axis titles', async (output, title, horizon) => {
    const plot = excessSpec(evaluation, output, horizon);
    const svg = await renderSvg(plot.spec);
    checkWellFormed(svg);
    const levels = (evaluation.byHorizon.find((h) => h.horizon === horizon)?.groups.find((g) => g.output === output)?.levels ?? []).filter((l) => l.summary.n > 0);
    expect(levels.length).toBeGreaterThan(2);
    expect(markItems(svg, 'symbol')).toEqual([levels.length]);
    // The zero rule, then the interval bars.
    expect(markItems(svg, 'rule')).toEqual([1, levels.filter((l) => l.summary.ci !== null).length]);
    const labels = texts(svg);
    expect(labels).toContain(EXCESS_AXIS_TITLE);
    expect(labels).toContain(title);
    expect(labels).toContain(`${title}: ${horizon}-day forward excess return`);
    for (const l of levels) expect(labels).toContain(`${l.level} (n ${l.summary.n.toLocaleString('en-US')})`);
  });

  it('a level with too few dates for an interval has a point and no bar', async () => {
    const few = evaluate(
      u.rows.filter((r) => r.date <= u.calendar[330]),
      { calendar: u.calendar, seed: 1, replicates: 50, minDates: 20 },
    );
    const levels = few.byHorizon[0].groups[0].levels.filter((l) => l.summary.n > 0);
    expect(levels.length).toBe(4);
    expect(levels.every((l) => l.summary.ci === null)).toBe(true);
    const svg = await renderSvg(excessSpec(few, 'stage', 20).spec);
    checkWellFormed(svg);
    expect(markItems(svg, 'symbol')).toEqual([4]);
    expect(markItems(svg, 'rule')).toEqual([1, 0]);
  });
});

describe('reliability diagrams', () => {
  /** The rows with a 20-day outcome drawn from the ML probability itself: calibrated by construction. */
  function calibratedRows(rows: readonly EvaluationRow[]): EvaluationRow[] {
    const rng = createPrng(11, 0);
    return rows.map((r) => ({ ...r, forwardExcess: { ...r.forwardExcess, 20: rng.next() < (r.mlProbability as number) ? 0.01 : -0.01 } }));
  }

  it('recovers a calibrated probability: every non-empty bin observed within its Wilson interval of the prediction, ECE small', () => {
    const rows = calibratedRows(u.rows);
    const ml = reliabilityFromRows(rows).find((s) => s.key === 'ml_probability_up');
    expect(ml?.metrics.n).toBe(rows.length);
    expect(ml?.metrics.reliability).toHaveLength(10);
    expect(ml?.metrics.ece).toBeLessThan(0.03);
    for (const bin of ml?.metrics.reliability ?? []) {
      expect(bin.n).toBeGreaterThan(0);
      expect(bin.observedLow as number).toBeLessThanOrEqual((bin.meanPredicted as number) + 0.02);
      expect(bin.observedHigh as number).toBeGreaterThanOrEqual((bin.meanPredicted as number) - 0.02);
    }
  });

  it('measures each rules confidence on its own signal rows and event (BUY up, SELL down, HOLD the quieter half of its date)', () => {
    const series = reliabilityFromRows(u.rows);
    const known = u.rows.filter((r) => Number.isFinite(r.forwardExcess[20]));
    const positives = (s: (typeof series)[number]) => s.metrics.reliability.reduce((a, b) => a + (b.n > 0 ? (b.observedRate as number) * b.n : 0), 0);
    const buy = known.filter((r) => r.signal === 'BUY');
    const sell = known.filter((r) => r.signal === 'SELL');
    const hold = known.filter((r) => r.signal === 'HOLD');
    const [, b, s, h] = series;
    expect([b.key, b.metrics.n]).toEqual(['confidence_BUY', buy.length]);
    expect(positives(b)).toBeCloseTo(buy.filter((r) => r.forwardExcess[20] > 0).length, 6);
    expect([s.key, s.metrics.n]).toEqual(['confidence_SELL', sell.length]);
    expect(positives(s)).toBeCloseTo(sell.filter((r) => r.forwardExcess[20] < 0).length, 6);
    const medianOf = (date: string): number => {
      const sizes = known.filter((r) => r.date === date).map((r) => Math.abs(r.forwardExcess[20])).sort((x, y) => x - y);
      const m = sizes.length;
      return m % 2 === 1 ? sizes[(m - 1) / 2] : (sizes[m / 2 - 1] + sizes[m / 2]) / 2;
    };
    expect([h.key, h.metrics.n]).toEqual(['confidence_HOLD', hold.length]);
    expect(positives(h)).toBeCloseTo(hold.filter((r) => Math.abs(r.forwardExcess[20]) < medianOf(r.date)).length, 6);
    // Rows without a 20-day outcome do not count; a horizon nobody has gives empty tables and no diagram.
    expect(series[0].metrics.n).toBe(known.length);
    const none = reliabilityFromRows(u.rows, { horizon: 7 });
    expect(none.map((x) => x.metrics.n)).toEqual([0, 0, 0, 0]);
    expect(evaluationPlotSpecs(evaluation, none)).toHaveLength(8);
  });

  it('a point and a Wilson bar per non-empty bin, the diagonal, and both axis titles', async () => {
    const rows = calibratedRows(u.rows).map((r, i) => (i % 3 === 0 ? { ...r, mlProbability: 0.05 + 0.85 * (r.mlProbability as number) } : r));
    const ml = reliabilityFromRows(rows.filter((r) => (r.mlProbability as number) < 0.7))[0];
    const bins = ml.metrics.reliability.filter((b) => b.n > 0).length;
    expect(bins).toBeGreaterThan(4);
    expect(bins).toBeLessThan(10);
    const svg = await renderSvg(reliabilitySpec(ml).spec);
    checkWellFormed(svg);
    expect(markItems(svg, 'symbol')).toEqual([bins]);
    expect(markItems(svg, 'rule')).toEqual([bins]);
    expect(markItems(svg, 'line')).toEqual([1]);
    const labels = texts(svg);
    expect(labels).toContain(PREDICTED_AXIS_TITLE);
    expect(labels).toContain(OBSERVED_AXIS_TITLE);
    expect(labels).toContain('ML probability_up: reliability');
  });
});

describe('rendering', () => {
  it('is deterministic: the same evaluation gives the same bytes, whatever was rendered before', async () => {
    const specs = evaluationPlotSpecs(evaluation, reliabilityFromRows(u.rows));
    const first = await renderPlots(specs);
    const again = await renderPlots([...specs].reverse());
    again.reverse();
    expect(again.map((p) => p.svg)).toEqual(first.map((p) => p.svg));
    // A second evaluation of the same rows (and seed) renders to the same bytes too.
    const twin = evaluate(u.rows, { calendar: u.calendar, seed: 1, replicates: 200 });
    expect((await renderPlots(evaluationPlotSpecs(twin, reliabilityFromRows([...u.rows].reverse())))).map((p) => p.svg)).toEqual(first.map((p) => p.svg));
    for (const p of first) {
      checkWellFormed(p.svg);
      expect(p.svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    }
  });

  it('the Plots section links each chart by its relative path', () => {
    const section = plotsSection([
      { title: 'Stage: 20-day forward excess return', path: 'report-excess-stage-20d.svg' },
      { title: 'A chart', path: 'my report-x.svg' },
    ]);
    expect(section).toBe(
      '## Plots\n\nSVG charts of the tables above, written beside this report.\n\n- [Stage: 20-day forward excess return](report-excess-stage-20d.svg)\n- [A chart](my%20report-x.svg)\n',
    );
  });
});
