/**
 * `tradegraph evaluate` against a real on-disk PGlite store holding a small synthetic market analysed
 * weekly: it prints the Markdown report (stage, signal, IC and pattern-target sections), records one
 * evidence_runs row per run whose as-of date is the last snapshot date with a known 60-day outcome,
 * `--out` writes the same report with SVG plots beside it (linked from its Plots section; a plot that cannot be
 * written fails the run and records nothing), and bad arguments exit 2 while an empty store exits 1, recording
 * nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../../cli/tradegraph.js';
import { PIPELINE_VERSION } from '../../subgraphs/analysis/engine/document.js';
import { latestEvidenceRun } from '../../subgraphs/analysis/store.js';
import { captureCliOutput, equityCalendar, generateQuietly, scratchStore } from '../helpers/cli.js';
import { checkWellFormed } from '../helpers/xml.js';

const { config, dataDir, inStore } = scratchStore('tg-evaluate-');
const cli = captureCliOutput({ stdout: true });

const evidenceRows = () => inStore(async (db) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM evidence_runs'))[0].n);

let calendar: string[];
let snapshotDates: string[];

beforeAll(async () => {
  await generateQuietly(config, ['--symbols', '12', '--years', '2', '--end-date', '2026-10-30']);
  calendar = await inStore(equityCalendar);
});

it('on a store without snapshots exits 1 saying what to run, and records nothing', async () => {
  expect(await main(['evaluate'], config)).toBe(1);
  expect(cli.err.join('\n')).toMatch(/no stored snapshots .*run `tradegraph analyze` first/);
  expect(await evidenceRows()).toBe(0);
});

it('prints the report of the weekly snapshots and records one evaluation as of the last date with a known 60-day outcome', async () => {
  expect(await main(['analyze', '--every', 'week', '--workers', '0'], config)).toBe(0);
  snapshotDates = await inStore(async (db) => (await db.query<{ date: string }>('SELECT DISTINCT analysis_date::text AS date FROM analysis_snapshots ORDER BY 1')).map((r) => r.date));
  expect(snapshotDates.length).toBeGreaterThan(90);

  expect(await main(['evaluate', '--seed', '7'], config)).toBe(0);
  const report = cli.stdout.join('');
  for (const heading of [
    '# Evidence report',
    '## 20-day forward excess return',
    '## 60-day forward excess return',
    '#### Stage\n',
    '#### Stage x strength',
    '#### Rules signal',
    '#### Enhanced signal',
    '#### ML signal',
    '#### SATA score bucket',
    '### Rank IC',
    '## Pattern targets against a placebo',
  ]) {
    expect(report).toContain(heading);
  }
  expect(report).toMatch(/\| STAGE 2 \| [\d,]+ \| \d+ \| [+-]?\d+\.\d\d% \|/);
  expect(report).toMatch(/\| sata_score \| \d+ \| [+-]?\d\.\d{3} \|/);
  expect(report).toContain(`Snapshots of pipeline version ${PIPELINE_VERSION}`);
  expect(report).toContain('seed 7');
  expect(report).not.toMatch(/NaN|undefined|Infinity/);

  // The last snapshot date whose 60th trading day after it is in the bars, worked out here from the calendar.
  const asOf = snapshotDates.filter((d) => calendar.indexOf(d) + 60 < calendar.length).at(-1) as string;
  // Later snapshots exist, with no 60-day outcome yet.
  const next = snapshotDates[snapshotDates.indexOf(asOf) + 1];
  expect(calendar.indexOf(next) + 60).toBeGreaterThanOrEqual(calendar.length);
  expect(await evidenceRows()).toBe(1);
  const stored = await inStore((db) => latestEvidenceRun(db));
  expect(stored).toMatchObject({
    pipelineVersion: PIPELINE_VERSION,
    asOfDate: asOf,
    fromDate: snapshotDates[0],
    toDate: snapshotDates.at(-1),
    horizons: [20, 60],
    seed: 7,
    snapshots: 12 * snapshotDates.length,
    symbols: 12,
  });
  expect(stored?.evaluation).toMatchObject({ seed: 7, horizons: [20, 60], rows: 12 * snapshotDates.length, samplingStep: 5 });
  expect(report).toContain(`as of ${asOf}, the last snapshot date with a known 60-day outcome`);
  expect(cli.err.join('\n')).toContain(`Stored evaluation ${stored?.id}`);
});

const svgFiles = (): string[] => fs.readdirSync(dataDir).filter((f) => f.endsWith('.svg')).sort();

/** The relative paths the report's Plots section links, in order. */
function plotLinks(report: string): string[] {
  const section = report.slice(report.indexOf('\n## Plots\n'));
  return [...section.matchAll(/^- \[[^\]]+\]\(([^)]+)\)$/gm)].map((m) => m[1]);
}

it('--out writes the same report with a Plots section linking the SVG plots written beside it; --from/--to/--horizons narrow the run, and each run records one row', async () => {
  const file = path.join(dataDir, 'report.md');
  expect(svgFiles()).toEqual([]);
  expect(await main(['evaluate', '--seed', '7', '--out', file], config)).toBe(0);
  expect(cli.stdout.join('')).toBe('');
  expect(cli.out.join('\n')).toMatch(new RegExp(`Wrote the report to ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} and \\d+ SVG plots beside it\\. Stored evaluation \\d+`));
  cli.stdout = [];
  expect(await main(['evaluate', '--seed', '7'], config)).toBe(0);
  const printed = cli.stdout.join('');
  expect(printed).not.toContain('## Plots');
  const written = fs.readFileSync(file, 'utf8');
  expect(written.startsWith(`${printed}\n## Plots\n`)).toBe(true);
  const names = ['stage', 'stage-strength', 'signal', 'enhanced-signal'];
  const excess = [20, 60].flatMap((h) => names.map((n) => `report-excess-${n}-${h}d.svg`));
  const links = plotLinks(written);
  expect(links.slice(0, 8)).toEqual(excess);
  expect(links.slice(8).every((l) => /^report-reliability-[a-z-]+\.svg$/.test(l))).toBe(true);
  // Every linked file is beside the report, and the stdout run wrote none.
  expect(svgFiles()).toEqual([...links].sort());
  for (const link of links) {
    const svg = fs.readFileSync(path.join(dataDir, link), 'utf8');
    checkWellFormed(svg);
    expect(svg).toContain(link.includes('-excess-') ? '>Mean forward excess return (%)</text>' : '>Mean predicted probability</text>');
  }
  expect(fs.readFileSync(path.join(dataDir, 'report-excess-stage-60d.svg'), 'utf8')).toMatch(/>STAGE 2 \(n [\d,]+\)<\/text>/);
  expect(await evidenceRows()).toBe(3);

  const [from, to] = [snapshotDates[20], snapshotDates[60]];
  expect(await main(['evaluate', '--from', from, '--to', to, '--horizons', '10', '--out', file], config)).toBe(0);
  expect(await evidenceRows()).toBe(4);
  expect(await inStore((db) => latestEvidenceRun(db))).toMatchObject({ fromDate: from, toDate: to, asOfDate: to, horizons: [10], seed: 0, snapshots: 12 * 41 });
  const narrowed = fs.readFileSync(file, 'utf8');
  expect(narrowed).toContain('## 10-day forward excess return');
  expect(narrowed).not.toContain('## 60-day');
  expect(plotLinks(narrowed).slice(0, 4)).toEqual(names.map((n) => `report-excess-${n}-10d.svg`));
  for (const link of plotLinks(narrowed)) expect(fs.existsSync(path.join(dataDir, link))).toBe(true);
});

it('a plot that cannot be written fails the run: exit 1, no report written, nothing recorded', async () => {
  const before = await evidenceRows();
  const file = path.join(dataDir, 'blocked.md');
  // A directory where a plot file goes.
  fs.mkdirSync(path.join(dataDir, 'blocked-excess-signal-20d.svg'));
  cli.err = [];
  expect(await main(['evaluate', '--out', file], config)).toBe(1);
  expect(cli.err.join('\n')).toMatch(/Failed: .*blocked-excess-signal-20d\.svg/);
  expect(fs.existsSync(file)).toBe(false);
  expect(await evidenceRows()).toBe(before);
});

it('bad arguments exit 2 with a clear message, and record nothing', async () => {
  const before = await evidenceRows();
  const cases: Array<[string[], RegExp]> = [
    [['--horizons', '20,x'], /--horizons must be comma-separated whole numbers/],
    [['--horizons', ''], /--horizons must be comma-separated whole numbers/],
    [['--horizons', '20,,60'], /--horizons must be comma-separated whole numbers/],
    [['--horizons', '2.5'], /--horizons must be comma-separated whole numbers/],
    [['--horizons', '0'], /--horizons: a horizon must be an integer >= 1/],
    [['--horizons', '20,20'], /--horizons: horizons must be distinct/],
    [['--seed', 'abc'], /--seed must be an integer/],
    [['--from', '2026-02-30'], /--from must be a date/],
    [['--from', '2026-10-01', '--to', '2026-09-01'], /--from must not be after --to/],
    [['--out', path.join(dataDir, 'missing', 'report.md')], /--out: no such directory/],
    [['--frobnicate'], /Unknown option '--frobnicate'/],
  ];
  for (const [args, message] of cases) {
    cli.err = [];
    expect([args, await main(['evaluate', ...args], config)]).toEqual([args, 2]);
    expect(cli.err.join('\n')).toMatch(message);
  }
  expect(await evidenceRows()).toBe(before);
});
