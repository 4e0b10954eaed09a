/**
 * The evaluation (evaluate.ts) as a readable Markdown report. Pure: a function of the evaluation only (no
 * clock; the caller adds dates or provenance through the options).
 *
 * Conventions:
 * - Returns and differences of returns in percent with 2 decimals and a sign (+0.50%, -0.08%; a value that
 *   rounds to zero prints 0.00%); target and stop distances in percent with 2 decimals, unsigned; shares (hit
 *   rate, target first, placebo) in percent with 1 decimal, differences of shares in percentage points (pp)
 *   with 1 decimal and a sign; rank IC with 3 decimals and a sign; t-statistics with 2 decimals; AUC with 3
 *   decimals; counts with thousands separators.
 * - An interval prints as [low, high] in the unit of its figure.
 * - A statistic that is null (too few rows or dates for it) prints "n too small"; nothing is estimated or
 *   filled in here. Levels without rows are left out of a table and named below it.
 */
import type { GroupSummary } from './summary.js';
import type { ContrastRow, Evaluation, HorizonEvaluation, IcRow, MlChoice, MlFormulationRow, OutputName, OutputTable, PatternTargetEvaluation } from './evaluate.js';

export interface ReportOptions {
  /** First heading; default "Evidence report". */
  title?: string;
  /** One line describing the universe and its source, printed under the title. */
  universe?: string;
}

export const TOO_SMALL = 'n too small';

const OUTPUT_TITLES: Record<OutputName, string> = {
  stage: 'Stage',
  stage_strength: 'Stage x strength',
  signal: 'Rules signal',
  enhanced_signal: 'Enhanced signal',
  ml_signal: 'ML signal',
  sata_bucket: 'SATA score bucket',
  pattern_direction: 'Pattern signal direction',
  best_pattern: 'Best pattern type (open target and stop)',
  momentum_12_1: 'Baseline: 12-1 momentum (per-date quintile, Q5 highest)',
  reversal_1m: 'Baseline: 1-month reversal (per-date quintile, Q5 = biggest recent loser)',
  above_sma_200: 'Baseline: close above the 200-day SMA',
  high_52w_proximity: 'Baseline: 52-week-high proximity (per-date quintile, Q5 nearest the high)',
};

// ---------------------------------------------------------------------------------------------------------
// Number formats
// ---------------------------------------------------------------------------------------------------------

function fixed(value: number, digits: number, signed: boolean): string {
  let text = value.toFixed(digits);
  if (Number(text) === 0) text = (0).toFixed(digits);
  else if (signed && value > 0) text = `+${text}`;
  return text;
}

/** A count with thousands separators. */
export function count(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A return as a signed percentage with 2 decimals; "n too small" for null. */
export function percent(value: number | null): string {
  return value === null ? TOO_SMALL : `${fixed(value * 100, 2, true)}%`;
}

/** A distance (unsigned) as a percentage with 2 decimals; "n too small" for null. */
export function distance(value: number | null): string {
  return value === null ? TOO_SMALL : `${fixed(value * 100, 2, false)}%`;
}

/** A share as a percentage with 1 decimal; "n too small" for null. */
export function share(value: number | null): string {
  return value === null ? TOO_SMALL : `${fixed(value * 100, 1, false)}%`;
}

/** A difference of shares in percentage points with 1 decimal and a sign; "n too small" for null. */
export function points(value: number | null): string {
  return value === null ? TOO_SMALL : `${fixed(value * 100, 1, true)} pp`;
}

function signed3(value: number | null): string {
  return value === null ? TOO_SMALL : fixed(value, 3, true);
}

function plain(value: number | null, digits: number): string {
  return value === null ? TOO_SMALL : fixed(value, digits, false);
}

/** [low, high] with each end formatted by `format`; "n too small" without an interval. */
export function interval(ci: readonly [number, number] | null, format: (v: number) => string): string {
  return ci === null ? TOO_SMALL : `[${format(ci[0])}, ${format(ci[1])}]`;
}

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const rule = `|${header.map((_, k) => (k === 0 ? ' --- ' : ' ---: ')).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

// ---------------------------------------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------------------------------------

function summaryCells(s: GroupSummary): string[] {
  return [
    count(s.n),
    count(s.dates),
    percent(s.mean),
    percent(s.median),
    share(s.hitRate),
    interval(s.ci, (v) => percent(v)),
    interval(s.hitRateCi, (v) => share(v)),
  ];
}

function groupSection(group: OutputTable): string {
  const present = group.levels.filter((l) => l.summary.n > 0);
  const absent = group.levels.filter((l) => l.summary.n === 0).map((l) => l.level);
  const parts = [`#### ${OUTPUT_TITLES[group.output]}`, ''];
  if (present.length === 0) {
    parts.push('No rows.');
  } else {
    parts.push(table(['Level', 'n', 'Dates', 'Mean', 'Median', 'Hit rate', 'CI of mean', 'CI of hit rate'], present.map((l) => [l.level, ...summaryCells(l.summary)])));
    if (absent.length > 0) parts.push('', `No rows: ${absent.join(', ')}.`);
  }
  return parts.join('\n');
}

function contrastSection(contrasts: readonly ContrastRow[]): string {
  const rows = contrasts.map((c) => [
    `${OUTPUT_TITLES[c.output].replace(/ \(.*\)$/, '')}: ${c.a} - ${c.b}`,
    `${count(c.result.nA)} / ${count(c.result.nB)}`,
    count(c.result.sharedDates),
    percent(c.result.difference),
    interval(c.result.ci, (v) => percent(v)),
  ]);
  return ['### Contrasts (difference of mean excess returns, dates resampled jointly)', '', table(['Contrast', 'n (A / B)', 'Shared dates', 'Difference', 'CI'], rows)].join('\n');
}

function icSection(rows: readonly IcRow[]): string {
  const cells = rows.map((r) => [
    `${r.score}${r.kind === 'baseline' ? ' (baseline)' : ''}`,
    count(r.ic.dates),
    signed3(r.ic.mean),
    plain(r.ic.t, 2),
    share(r.ic.positiveShare),
    r.controlled === null ? '-' : signed3(r.controlled.mean),
    r.controlled === null ? '-' : plain(r.controlled.t, 2),
  ]);
  return [
    '### Rank IC (per-date Spearman with the forward excess return; mean over dates, Newey-West t)',
    '',
    table(['Score', 'Dates', 'Mean IC', 't', 'Dates with IC > 0', 'IC given baselines', 't given baselines'], cells),
  ].join('\n');
}

function aucSection(h: HorizonEvaluation): string {
  const a = h.mlAuc;
  return [
    '### ML probability: AUC for "forward excess > 0"',
    '',
    table(['n', 'Positives', 'Dates', 'AUC', 'CI'], [[count(a.n), count(a.positives), count(a.dates), plain(a.auc, 3), a.ci === null ? TOO_SMALL : interval([a.ci.low, a.ci.high], (v) => plain(v, 3))]]),
  ].join('\n');
}

const FORMULATION_TITLES: Record<MlFormulationRow['formulation'], string> = {
  per_symbol: 'per-symbol (stored ml_probability)',
  cross_sectional: 'cross-sectional (ranked per date)',
};

function weightsLine(weights: Record<string, number> | null): string {
  if (weights === null) return 'no model was fitted';
  return Object.entries(weights)
    .map(([name, w]) => `${name} ${fixed(w, 3, true)}`)
    .join(', ');
}

function formulationSection(h: HorizonEvaluation, choice: MlChoice): string {
  const rows = h.mlFormulations.map((r) => [
    FORMULATION_TITLES[r.formulation],
    r.rows === 'own' ? 'its own' : 'both scored',
    count(r.auc.n),
    count(r.auc.dates),
    plain(r.auc.auc, 3),
    r.auc.ci === null ? TOO_SMALL : interval([r.auc.ci.low, r.auc.ci.high], (v) => plain(v, 3)),
    signed3(r.ic.mean),
    plain(r.ic.t, 2),
  ]);
  const x = h.crossSectional;
  const lines = [
    '### ML formulations',
    '',
    table(['Formulation', 'Rows', 'n', 'Dates', 'AUC', 'CI', 'Mean IC', 't'], rows),
    '',
    `Cross-sectional: ${x.features.join(', ')} ranked among each date's rows; logistic regression (ridge ${x.l2}) refitted walk-forward on the rows ` +
      `whose ${h.horizon}-day outcome was known ${x.embargo} trading days before the date scored, from ${x.minTrainDates} such dates on; ` +
      `${count(x.scored)} rows on ${count(x.scoredDates)} dates scored${x.firstDate === null ? '' : ` from ${x.firstDate}`}, ${count(x.fits)} fits. ` +
      `Last model's weights (per standard deviation of the ranked feature): ${weightsLine(x.lastWeights)}.`,
  ];
  if (choice.horizon === h.horizon) lines.push('', choice.reason);
  return lines.join('\n');
}

function horizonSection(h: HorizonEvaluation, choice: MlChoice): string {
  return [
    `## ${h.horizon}-day forward excess return`,
    '',
    `${count(h.rows)} rows on ${count(h.dates)} dates. Forward windows of consecutive snapshots overlap over ${h.overlap} date(s): ` +
      `intervals resample blocks of at least ${h.minBlockLength} date(s) and Newey-West t-statistics use at least ${h.minBlockLength - 1} lag(s).`,
    '',
    '### By output',
    '',
    h.groups.map(groupSection).join('\n\n'),
    '',
    contrastSection(h.contrasts),
    '',
    icSection(h.ic),
    '',
    aucSection(h),
    '',
    formulationSection(h, choice),
  ].join('\n');
}

function patternSection(p: PatternTargetEvaluation): string {
  const present = p.rows.filter((r) => r.detections > 0);
  const rows = present.map((r) => [
    r.type,
    count(r.detections),
    count(r.dates),
    distance(r.meanTarget),
    distance(r.meanStop),
    share(r.hit.mean),
    interval(r.hit.ci, (v) => share(v)),
    share(r.stopShare),
    share(r.timeoutShare),
    share(r.placebo.mean),
    interval(r.placebo.ci, (v) => share(v)),
    points(r.difference.difference),
    interval(r.difference.ci, (v) => points(v)),
  ]);
  const lines = [
    `## Pattern targets against a placebo`,
    '',
    `A detection counts when its best pattern has a target and a stop on opposite sides of the close and ${p.window} bars follow the snapshot date. ` +
      `"Target first": the target is reached before the stop within ${p.window} bars (a bar touching both counts as the stop). ` +
      `Placebo: the same distances from ${p.placeboDraws} random days of the same symbol per detection. Difference: target first minus placebo, in percentage points.`,
    '',
  ];
  if (present.length === 0) lines.push('No detections.');
  else {
    lines.push(
      table(
        ['Pattern', 'Detections', 'Dates', 'Target distance', 'Stop distance', 'Target first', 'CI', 'Stop first', 'Neither', 'Placebo', 'CI', 'Difference', 'CI'],
        rows,
      ),
    );
  }
  lines.push('', `Not measured: ${count(p.skipped.noBars)} without bars on the date, ${count(p.skipped.incompleteWindow)} without ${p.window} bars after it.`);
  return lines.join('\n');
}

/** The report (see the file comment). */
export function renderReport(evaluation: Evaluation, options: ReportOptions = {}): string {
  const e = evaluation;
  const level = `${fixed(e.level * 100, 0, false)}%`;
  const head = [
    `# ${options.title ?? 'Evidence report'}`,
    '',
    ...(options.universe === undefined ? [] : [options.universe, '']),
    e.rows === 0
      ? 'No snapshots to evaluate.'
      : `${count(e.rows)} snapshots of ${count(e.symbols)} symbols on ${count(e.dates)} dates (${e.from} to ${e.to}), one every ${e.samplingStep} trading day(s).`,
    '',
    `Forward excess return: the symbol's simple return over h trading days after the snapshot date minus the mean return of the equal-weight universe over the same days. ` +
      `Hit rate: share of rows with a positive excess return. Intervals: ${level}, stationary block bootstrap over dates (${count(e.replicates)} replicates, seed ${e.seed}), ` +
      `blocks at least ${e.blockFactor === 1 ? 'as long as' : `${e.blockFactor} times`} the overlap of forward windows in dates; "${TOO_SMALL}" means fewer than ${e.minDates} dates (or no rows) support the figure.`,
  ];
  const sections = [head.join('\n'), ...e.byHorizon.map((h) => horizonSection(h, e.mlChoice))];
  if (e.patternTargets !== null) sections.push(patternSection(e.patternTargets));
  return `${sections.join('\n\n')}\n`;
}
