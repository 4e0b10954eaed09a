/**
 * The evaluation's figures as charts: Vega-Lite specifications (declarative JSON) compiled to Vega and
 * rendered to SVG strings server-side (a headless view, `renderer: 'none'`; no canvas, no browser). No I/O,
 * no clock, no randomness: the same evaluation gives the same bytes (text widths are estimated, never measured
 * with a canvas that may or may not be installed, and SVG definition ids restart for every chart).
 *
 * Charts:
 * - Forward excess return by output (stage, stage x strength, rules signal, enhanced signal), one chart per
 *   output and horizon: each level's mean forward excess return over the equal-weight universe (a point, in
 *   percent) with its 95% block-bootstrap interval over dates (a bar), from the evaluation's group summaries
 *   (evaluate.ts). Levels without rows are left out; a level with too few dates for an interval has a point
 *   and no bar. A vertical rule marks zero.
 * - Reliability diagram per probability: for each non-empty bin of predicted probability (ten equal-width
 *   bins, calibration.ts reliabilityTable), the mean predicted probability against the observed rate of the
 *   event (a point), with the Wilson 95% interval of that rate (a bar), and the diagonal of perfect calibration.
 *   `reliabilityFromRows` measures, on the evaluation rows, the probabilities the snapshots present with the
 *   events the product's calibrators use (state-evidence.ts): ML probability_up for "20-day excess > 0", and
 *   the rules confidence per signal: BUY for "20-day excess > 0", SELL for "< 0", HOLD for "|20-day excess|
 *   below the date's median |20-day excess|".
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { Signal } from '../document.js';
import { quietHalf } from './by-date.js';
import { calibrationMetrics, type CalibrationMetrics } from './calibration.js';
import type { Evaluation, OutputName } from './evaluate.js';
import type { EvaluationRow } from './rows.js';

/** A chart to render: a file-name-safe name, a title and its Vega-Lite specification. */
export interface PlotSpec {
  name: string;
  title: string;
  spec: TopLevelSpec;
}

export interface RenderedPlot {
  name: string;
  title: string;
  svg: string;
}

/** The outputs charted by forward excess return, in this order. */
export const EXCESS_PLOT_OUTPUTS = ['stage', 'stage_strength', 'signal', 'enhanced_signal'] as const satisfies readonly OutputName[];
export type ExcessPlotOutput = (typeof EXCESS_PLOT_OUTPUTS)[number];

const EXCESS_TITLES: Record<ExcessPlotOutput, string> = {
  stage: 'Stage',
  stage_strength: 'Stage x strength',
  signal: 'Rules signal',
  enhanced_signal: 'Enhanced signal',
};

export const EXCESS_AXIS_TITLE = 'Mean forward excess return (%)';
export const PREDICTED_AXIS_TITLE = 'Mean predicted probability';
export const OBSERVED_AXIS_TITLE = 'Observed rate';

const WIDTH = 420;
const ROW_HEIGHT = 22;
const POINT_COLOR = '#1f5fa8';
const BAR_COLOR = '#6b8fbf';

// ---------------------------------------------------------------------------------------------------------
// Reliability tables from evaluation rows
// ---------------------------------------------------------------------------------------------------------

export type ReliabilityKey = 'ml_probability_up' | 'confidence_BUY' | 'confidence_SELL' | 'confidence_HOLD';

/** One probability's reliability: what it predicts, and its calibration metrics with the per-bin table. */
export interface ReliabilitySeries {
  key: ReliabilityKey;
  title: string;
  /** The event the probability is the chance of, in words. */
  event: string;
  horizon: number;
  metrics: CalibrationMetrics;
}

export interface ReliabilityFromRowsOptions {
  /** Horizon of the events in trading days; default 20 (the ML model's and the calibrators'). */
  horizon?: number;
  /** Equal-width bins; default 10. */
  bins?: number;
}

function byDateSymbol(rows: readonly EvaluationRow[]): EvaluationRow[] {
  return [...rows].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0));
}

/**
 * Reliability of the probabilities the rows carry (see the file comment), in a fixed order; a probability
 * without any row whose outcome is known has n 0 (its table's bins are empty).
 */
export function reliabilityFromRows(rows: readonly EvaluationRow[], options: ReliabilityFromRowsOptions = {}): ReliabilitySeries[] {
  const horizon = options.horizon ?? 20;
  const bins = options.bins ?? 10;
  const sorted = byDateSymbol(rows);
  const excess = Float64Array.from(sorted, (r) => {
    const v = r.forwardExcess[horizon];
    return typeof v === 'number' && Number.isFinite(v) ? v : NaN;
  });
  const quiet = quietHalf(sorted.map((r) => r.date), excess);
  const collect = (score: (r: EvaluationRow) => number | null, label: (i: number) => number): CalibrationMetrics => {
    const p: number[] = [];
    const y: number[] = [];
    sorted.forEach((r, i) => {
      const s = score(r);
      const l = label(i);
      if (s === null || !Number.isFinite(s) || !Number.isFinite(l)) return;
      p.push(Math.min(1, Math.max(0, s)));
      y.push(l);
    });
    return calibrationMetrics(p, y, { bins, strategy: 'uniform' });
  };
  const up = (i: number): number => (Number.isFinite(excess[i]) ? (excess[i] > 0 ? 1 : 0) : NaN);
  const down = (i: number): number => (Number.isFinite(excess[i]) ? (excess[i] < 0 ? 1 : 0) : NaN);
  const confidenceOf = (signal: Signal) => (r: EvaluationRow) => (r.signal === signal ? r.confidence : null);
  const days = `${horizon}-day`;
  return [
    {
      key: 'ml_probability_up',
      title: 'ML probability_up',
      event: `the ${days} return beats the equal-weight universe`,
      horizon,
      metrics: collect((r) => r.mlProbability, up),
    },
    {
      key: 'confidence_BUY',
      title: 'Rules confidence of a BUY',
      event: `the ${days} return beats the equal-weight universe`,
      horizon,
      metrics: collect(confidenceOf('BUY'), up),
    },
    {
      key: 'confidence_SELL',
      title: 'Rules confidence of a SELL',
      event: `the ${days} return trails the equal-weight universe`,
      horizon,
      metrics: collect(confidenceOf('SELL'), down),
    },
    {
      key: 'confidence_HOLD',
      title: 'Rules confidence of a HOLD',
      event: `the size of the ${days} excess return is below the date's median`,
      horizon,
      metrics: collect(confidenceOf('HOLD'), (i) => quiet[i]),
    },
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Specifications
// ---------------------------------------------------------------------------------------------------------

const fixed = (v: number, digits: number): string => (Number(v.toFixed(digits)) === 0 ? (0).toFixed(digits) : v.toFixed(digits));
const count = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const BASE_CONFIG = {
  background: 'white',
  font: 'sans-serif',
  title: { anchor: 'start', fontSize: 13, subtitleFontSize: 11, subtitleColor: '#555' },
  axis: { labelFontSize: 11, titleFontSize: 11, gridColor: '#eee' },
  view: { stroke: '#ccc' },
} as const;

/** The forward excess return chart of one output at one horizon. */
export function excessSpec(evaluation: Evaluation, output: ExcessPlotOutput, horizon: number): PlotSpec {
  const h = evaluation.byHorizon.find((x) => x.horizon === horizon);
  if (h === undefined) throw new RangeError(`the evaluation has no ${horizon}-day horizon`);
  const table = h.groups.find((g) => g.output === output);
  if (table === undefined) throw new RangeError(`the evaluation has no ${output} table`);
  const values = table.levels
    .filter((l) => l.summary.n > 0 && l.summary.mean !== null)
    .map((l) => ({
      label: `${l.level} (n ${count(l.summary.n)})`,
      mean: Number(((l.summary.mean as number) * 100).toFixed(6)),
      low: l.summary.ci === null ? null : Number((l.summary.ci[0] * 100).toFixed(6)),
      high: l.summary.ci === null ? null : Number((l.summary.ci[1] * 100).toFixed(6)),
    }));
  const withCi = values.filter((v) => v.low !== null);
  const yAxis = { field: 'label', type: 'nominal', sort: null, title: EXCESS_TITLES[output], axis: { labelLimit: 0 } } as const;
  const title = `${EXCESS_TITLES[output]}: ${horizon}-day forward excess return`;
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: [
        `Mean excess over the equal-weight universe, snapshots ${evaluation.from ?? '?'} to ${evaluation.to ?? '?'}.`,
        `Bars: ${Math.round(evaluation.level * 100)}% block-bootstrap interval over dates (none: too few dates).`,
      ],
    },
    width: WIDTH,
    height: Math.max(1, values.length) * ROW_HEIGHT,
    config: BASE_CONFIG,
    layer: [
      { data: { values: [{ zero: 0 }] }, mark: { type: 'rule', color: '#999', strokeDash: [4, 3] }, encoding: { x: { field: 'zero', type: 'quantitative' } } },
      {
        data: { values: withCi },
        mark: { type: 'rule', color: BAR_COLOR, strokeWidth: 2 },
        encoding: { y: yAxis, x: { field: 'low', type: 'quantitative', title: EXCESS_AXIS_TITLE }, x2: { field: 'high' } },
      },
      {
        data: { values },
        mark: { type: 'point', filled: true, size: 60, color: POINT_COLOR, opacity: 1 },
        encoding: { y: yAxis, x: { field: 'mean', type: 'quantitative', title: EXCESS_AXIS_TITLE } },
      },
    ],
    resolve: { scale: { x: 'shared', y: 'shared' } },
  };
  return { name: `excess-${output.replace(/_/g, '-')}-${horizon}d`, title, spec };
}

/** The reliability diagram of one probability. */
export function reliabilitySpec(series: ReliabilitySeries): PlotSpec {
  const m = series.metrics;
  const bins = m.reliability
    .filter((r) => r.n > 0)
    .map((r) => ({
      predicted: Number((r.meanPredicted as number).toFixed(6)),
      observed: Number((r.observedRate as number).toFixed(6)),
      low: Number((r.observedLow as number).toFixed(6)),
      high: Number((r.observedHigh as number).toFixed(6)),
      n: r.n,
    }));
  const scores =
    m.n === 0
      ? 'no outcomes'
      : `${count(m.n)} outcomes, ECE ${fixed(m.ece as number, 3)}, Brier ${fixed(m.brier as number, 4)} (base rate alone ${fixed(m.brierReference as number, 4)})`;
  const title = `${series.title}: reliability`;
  const x = { field: 'predicted', type: 'quantitative' as const, title: PREDICTED_AXIS_TITLE, scale: { domain: [0, 1] } };
  const y = (field: string) => ({ field, type: 'quantitative' as const, title: OBSERVED_AXIS_TITLE, scale: { domain: [0, 1] } });
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: title,
      subtitle: [`Event: ${series.event}.`, `${scores}.`, 'Ten equal-width bins; bars: Wilson 95% interval; dashed: perfect calibration.'],
    },
    width: 360,
    height: 360,
    config: BASE_CONFIG,
    layer: [
      {
        data: { values: [{ predicted: 0, observed: 0 }, { predicted: 1, observed: 1 }] },
        mark: { type: 'line', color: '#999', strokeDash: [4, 3] },
        encoding: { x, y: y('observed') },
      },
      {
        data: { values: bins },
        mark: { type: 'rule', color: BAR_COLOR, strokeWidth: 2 },
        encoding: { x, y: y('low'), y2: { field: 'high' } },
      },
      {
        data: { values: bins },
        mark: { type: 'point', filled: true, size: 60, color: POINT_COLOR, opacity: 1 },
        encoding: { x, y: y('observed') },
      },
    ],
  };
  return { name: `reliability-${series.key.replace(/_/g, '-').toLowerCase()}`, title, spec };
}

/**
 * Every chart of an evaluation: forward excess return by output and horizon, then a reliability diagram per
 * probability that has outcomes.
 */
export function evaluationPlotSpecs(evaluation: Evaluation, reliability: readonly ReliabilitySeries[] = []): PlotSpec[] {
  const excess = evaluation.byHorizon.flatMap((h) => EXCESS_PLOT_OUTPUTS.map((output) => excessSpec(evaluation, output, h.horizon)));
  return [...excess, ...reliability.filter((s) => s.metrics.n > 0).map(reliabilitySpec)];
}

// ---------------------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------------------

/** The text-measurement switch of the scene graph (re-exported by vega, absent from its type declarations). */
interface TextMetrics {
  canvas(use: boolean): void;
}

/** Silences Vega-Lite's compile warnings; an error still throws. */
const quietLogger = {
  level(): number {
    return 0;
  },
  error(...args: readonly unknown[]): never {
    throw new Error(args.map(String).join(' '));
  },
  warn() {
    return this;
  },
  info() {
    return this;
  },
  debug() {
    return this;
  },
};

/** Renders one Vega-Lite specification to an SVG document (see the file comment on determinism). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  (vega as unknown as { textMetrics: TextMetrics }).textMetrics.canvas(false);
  const compiled = compile(spec, { logger: quietLogger }).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logLevel: vega.Error });
  try {
    vega.resetSVGDefIds();
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Renders the charts in order. */
export async function renderPlots(specs: readonly PlotSpec[]): Promise<RenderedPlot[]> {
  const out: RenderedPlot[] = [];
  for (const p of specs) out.push({ name: p.name, title: p.title, svg: await renderSvg(p.spec) });
  return out;
}

/** A Markdown "Plots" section linking each chart by its path relative to the report. */
export function plotsSection(links: ReadonlyArray<{ title: string; path: string }>, notes: readonly string[] = []): string {
  const lines = ['## Plots', '', 'SVG charts of the tables above, written beside this report.', ''];
  for (const link of links) lines.push(`- [${link.title}](${encodeURI(link.path)})`);
  if (notes.length > 0) lines.push('', ...notes);
  return `${lines.join('\n')}\n`;
}
