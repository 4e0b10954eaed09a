/**
 * `tradegraph <command>` (or `npm run tradegraph -- <command>`): market data, analysis, evidence and tokens.
 *
 *   migrate                              apply pending migrations
 *   import securities <file|dir>...      symbol,name,sector,sub_industry
 *   import bars <file|dir>...            long CSV (symbol,date,...), Yahoo or Stooq per-symbol files; .gz ok
 *   generate [--seed N] [--symbols N] [--years N] [--end-date YYYY-MM-DD]
 *                                        store the deterministic synthetic market
 *   analyze [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--every N|week] [--symbols A,B] [--workers N]
 *                                        store analysis snapshots (default: the latest trading day;
 *                                        --every: every Nth trading day of the range, or each week's
 *                                        last, over the whole history unless a range is given;
 *                                        --symbols: only those equities, the universe still the context)
 *   evaluate [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--horizons 20,60] [--seed N] [--out FILE]
 *                                        evaluate the stored snapshots against what followed them; print
 *                                        the Markdown report (or write it to FILE, with SVG plots beside
 *                                        it: FILE's name-*.svg, linked from its Plots section), store
 *                                        the evaluation, and bring the monthly evidence tables and Kelly
 *                                        odds up to date (what reads and KELLY_CRITERION use)
 *   token [--sub ID] [--audience analysis|allocation|search|AUD[,...]] [--ttl 1h]
 *                                        mint a development token for ID (default partner-1, the
 *                                        demo book's owner): HS256 partner access token, or
 *                                        with `search` an ES256 ID token (development identity key)
 *                                        that every origin accepts; several audiences: one gateway token
 *   portfolio import --sub PARTNER --name NAME [--cash AMOUNT] [--currency USD] <file.csv>
 *                                        create a book for PARTNER from a broker-style holdings CSV
 *                                        (symbol,shares,cost_basis[,entry_date]) and print it as JSON;
 *                                        any bad line refuses the whole file (each problem on stderr as
 *                                        `line N: column: message`; nothing is written)
 *
 * Exit codes: 0 done; 1 failed, or rows were rejected (the good rows were imported; a portfolio import
 * writes nothing then); 2 usage error.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { SingleBar } from 'cli-progress';
import { runAnalysis, type PipelinePhase, type Sampling } from '../subgraphs/analysis/pipeline.js';
import { AppError } from '../subgraphs/platform/errors.js';
import { PortfolioService } from '../subgraphs/allocation/portfolios.js';
import type { PartnerPrincipal } from '../subgraphs/platform/auth.js';
import { checkHorizons } from '../subgraphs/analysis/engine/evidence/forward.js';
import { runEvaluation } from '../subgraphs/analysis/evidence-run.js';
import type { Evaluation } from '../subgraphs/analysis/engine/evidence/evaluate.js';
import { evaluationPlotSpecs, plotsSection, reliabilityFromRows, renderPlots } from '../subgraphs/analysis/engine/evidence/plots.js';
import type { EvaluationRow } from '../subgraphs/analysis/engine/evidence/rows.js';
import type { EvidenceRunRecord } from '../subgraphs/analysis/store.js';
import { formatAnalyzeSummary } from './analyze-report.js';
import { refreshEvidence } from './evidence-history.js';
import { parseIsoDate } from '../subgraphs/platform/validation.js';
import { importBarFiles, importSecurityFiles, loadSyntheticMarket, type CsvFile, type ImportReport } from '../subgraphs/analysis/market-data.js';
import { ALL_MIGRATIONS } from '../app/migrations.js';
import { ConfigError, loadConfig, type Config } from '../subgraphs/platform/config.js';
import { openDb, type Db } from '../subgraphs/platform/db.js';
import { DEMO_PARTNER, DevTokenUnavailable, mintDevelopmentToken } from '../subgraphs/platform/dev-secret.js';
import { migrate } from '../subgraphs/platform/migrations.js';

class UsageError extends Error {}

const HEADER = fs.readFileSync(new URL(import.meta.url), 'utf8').split('\n');
const USAGE = HEADER.slice(1, HEADER.indexOf(' */')).map((l) => l.replace(/^ \* ?/, '')).join('\n');

/** Reads CSV files (plain or .gz), expanding directories to their .csv/.txt(.gz) files. */
export function readCsvFiles(paths: readonly string[]): CsvFile[] {
  const files: string[] = [];
  for (const p of paths) {
    if (!fs.existsSync(p)) throw new UsageError(`No such file or directory: ${p}`);
    if (fs.statSync(p).isDirectory()) {
      for (const f of fs.readdirSync(p).sort()) if (/\.(csv|txt)(\.gz)?$/i.test(f)) files.push(path.join(p, f));
    } else files.push(p);
  }
  return files.map((f) => {
    const raw = fs.readFileSync(f);
    return { name: f, text: (f.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8') };
  });
}

function progressBar(unit: string): (done: number, total: number) => void {
  let bar: SingleBar | undefined;
  return (done, total) => {
    if (!bar) {
      bar = new SingleBar({ format: `  [{bar}] {percentage}% {value}/{total} ${unit} eta {eta_formatted}`, etaBuffer: 20 });
      bar.start(total, 0);
    }
    bar.update(done);
    if (done >= total) bar.stop();
  };
}

function printReport(what: string, report: ImportReport): number {
  for (const f of report.files) console.log(`  ${f.file}: ${f.format ?? 'unknown format'}, ${f.rows} rows kept, ${f.errors} rejected`);
  const shown = report.errors.slice(0, 50);
  for (const e of shown) console.error(`  ${e.file}:${e.line}: ${e.message}`);
  if (report.errors.length > shown.length) console.error(`  ... and ${report.errors.length - shown.length} more rejected rows`);
  console.log(`Imported ${report.rowsWritten} ${what} for ${report.symbols} symbols; ${report.errors.length} rows rejected.`);
  return report.errors.length ? 1 : 0;
}

async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(db, ALL_MIGRATIONS);
    return await fn(db);
  } finally {
    await db.close();
  }
}

const dateArg = (value: string, name: string): string => {
  try {
    return parseIsoDate(value, name);
  } catch {
    throw new UsageError(`--${name} must be a date YYYY-MM-DD`);
  }
};

/** One progress bar per pipeline phase (the store phase is reported in the summary). */
function phaseProgress(): (phase: PipelinePhase, done: number, total: number) => void {
  const bars = new Map<PipelinePhase, (done: number, total: number) => void>();
  return (phase, done, total) => {
    if (phase === 'store') return;
    if (!bars.has(phase)) {
      console.log(phase === 'prepare' ? 'Preparing series, stage history and ML samples...' : 'Computing snapshots...');
      bars.set(phase, progressBar(phase === 'prepare' ? 'symbols' : 'snapshots'));
    }
    bars.get(phase)?.(done, total);
  };
}

const int = (value: string | undefined, name: string, fallback: number): number => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be an integer`);
  return n;
};

/** `--every N` (a whole number of trading days >= 1) or `--every week`. */
function everyArg(value: string): Sampling {
  if (value.trim().toLowerCase() === 'week') return 'week';
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new UsageError('--every must be a whole number of trading days >= 1, or "week"');
  return n;
}

/** `--symbols A,B,C`: trimmed, upper-cased, at least one. */
function symbolsArg(value: string): string[] {
  const symbols = value.split(',').map((s) => s.trim().toUpperCase());
  if (symbols.some((s) => s.length === 0)) throw new UsageError('--symbols must be a comma-separated list of symbols, e.g. --symbols AAPL,MSFT');
  return [...new Set(symbols)];
}

/** `--horizons 20,60`: distinct whole numbers of trading days >= 1. */
function horizonsArg(value: string): number[] {
  const parts = value.split(',').map((h) => h.trim());
  if (parts.some((h) => !/^\d+$/.test(h))) throw new UsageError('--horizons must be comma-separated whole numbers of trading days, e.g. --horizons 20,60');
  try {
    return checkHorizons(parts.map(Number));
  } catch (err) {
    throw new UsageError(`--horizons: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `--out FILE`: its directory must exist (checked before any work). */
function outArg(value: string): string {
  const dir = path.dirname(path.resolve(value));
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UsageError(`--out: no such directory: ${dir}`);
  if (fs.existsSync(value) && fs.statSync(value).isDirectory()) throw new UsageError(`--out: ${value} is a directory`);
  return value;
}

/**
 * Writes the evaluation's charts beside the report, named after it (report.md: report-excess-stage-20d.svg,
 * ...), then the report with a Plots section linking them by relative path. Any failed write throws (the
 * evaluation is then not recorded). Returns the number of charts.
 */
async function writeReportWithPlots(file: string, report: string, evaluation: Evaluation, rows: readonly EvaluationRow[] | undefined): Promise<number> {
  const reliability = rows === undefined ? [] : reliabilityFromRows(rows);
  const plots = await renderPlots(evaluationPlotSpecs(evaluation, reliability));
  const { dir, name } = path.parse(file);
  const links = plots.map((p) => ({ title: p.title, path: `${name}-${p.name}.svg` }));
  plots.forEach((p, k) => fs.writeFileSync(path.join(dir, links[k].path), p.svg));
  const notes =
    rows === undefined
      ? ['No reliability diagrams: this evaluation did not pass its rows to the report writer.']
      : reliability.filter((s) => s.metrics.n === 0).map((s) => `No reliability diagram of the ${s.title}: no row with both it and a known ${s.horizon}-day outcome.`);
  fs.writeFileSync(file, `${report}\n${plotsSection(links, notes)}`);
  return plots.length;
}

/** A request the store cannot serve as asked (an empty range, an unknown symbol) is a usage error. */
async function asUsage<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof AppError && err.code === 'VALIDATION_FAILED') throw new UsageError(err.message);
    throw err;
  }
}

/** The holdings file's text. */
function readHoldingsFile(file: string): string {
  if (!fs.existsSync(file) || fs.statSync(file).isDirectory()) throw new UsageError(`No such file: ${file}`);
  return fs.readFileSync(file, 'utf8');
}

/**
 * `portfolio import`: one book from a holdings CSV, through the same service (and so the same rules) as
 * the REST upload. A refusal prints every problem and writes nothing (exit 1).
 */
async function portfolioCommand(config: Config, rest: string[]): Promise<number> {
  const [sub, ...args] = rest;
  if (sub !== 'import') throw new UsageError('portfolio needs "import"');
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { sub: { type: 'string' }, name: { type: 'string' }, cash: { type: 'string' }, currency: { type: 'string' } },
  });
  const partnerId = values.sub?.trim();
  if (!partnerId) throw new UsageError('portfolio import needs --sub PARTNER (the partner the book belongs to, as in its tokens\' sub)');
  if (values.name === undefined) throw new UsageError('portfolio import needs --name NAME');
  if (positionals.length !== 1) throw new UsageError('portfolio import needs exactly one holdings CSV file');
  // The service reads --cash as the REST upload's ?cash= (a bad amount is its refusal, exit 1).
  const cash = values.cash ?? null;
  const csv = readHoldingsFile(positionals[0]);
  const principal: PartnerPrincipal = { kind: 'partner', partnerId, claims: { sub: partnerId } };
  const traceId = `cli-${randomUUID()}`;
  try {
    const { response: book } = await withDb(config, (db) =>
      new PortfolioService(db).importCsv(principal, csv, { name: values.name, currency: values.currency ?? null, cash }, { traceId, naming: 'rest' }),
    );
    process.stdout.write(`${JSON.stringify(book, null, 2)}\n`);
    console.error(`Created book ${book.portfolio_id} for ${partnerId}: ${book.position_count} holdings, cash ${book.cash}, total ${book.total_value} ${book.currency}.`);
    return 0;
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    const what = err.details.length > 0 ? `${err.details.length} problem(s)` : err.message;
    console.error(`Refused (${err.code}): ${what}; nothing was written.`);
    for (const d of err.details) console.error(`  ${d.field === undefined ? '' : `${d.field}: `}${d.message}`);
    return 1;
  }
}

export async function run(argv: string[], config: Config = loadConfig()): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'migrate': {
      await withDb(config, async () => undefined); // withDb applies pending migrations
      console.log(`Migrations applied; schema version ${ALL_MIGRATIONS[ALL_MIGRATIONS.length - 1].version}.`);
      return 0;
    }
    case 'import': {
      const [kind, ...paths] = rest;
      if ((kind !== 'bars' && kind !== 'securities') || paths.length === 0) throw new UsageError('import needs "bars" or "securities" and at least one file or directory');
      const files = readCsvFiles(paths);
      return withDb(config, async (db) =>
        kind === 'bars' ? printReport('bars', await importBarFiles(db, files, progressBar('rows'))) : printReport('securities', await importSecurityFiles(db, files)),
      );
    }
    case 'generate': {
      const { values } = parseArgs({ args: rest, options: { seed: { type: 'string' }, symbols: { type: 'string' }, years: { type: 'string' }, 'end-date': { type: 'string' } } });
      const options = {
        seed: int(values.seed, 'seed', config.demo.seed),
        symbolCount: int(values.symbols, 'symbols', config.demo.symbolCount),
        years: int(values.years, 'years', config.demo.years),
        endDate: values['end-date'] ?? config.demo.endDate,
        indexSymbol: config.marketIndexSymbol,
      };
      const report = await withDb(config, (db) => loadSyntheticMarket(db, options, progressBar('symbols')));
      console.log(`Stored the synthetic market: ${report.securities} securities, ${report.bars} bars, ${report.firstDate}..${report.lastDate}.`);
      return 0;
    }
    case 'analyze': {
      const { values } = parseArgs({
        args: rest,
        options: { from: { type: 'string' }, to: { type: 'string' }, workers: { type: 'string' }, every: { type: 'string' }, symbols: { type: 'string' } },
      });
      const from = values.from === undefined ? undefined : dateArg(values.from, 'from');
      const to = values.to === undefined ? undefined : dateArg(values.to, 'to');
      const workers = int(values.workers, 'workers', config.analysis.workers);
      if (workers < 0) throw new UsageError('--workers must be 0 (inline) or more');
      const every = values.every === undefined ? undefined : everyArg(values.every);
      const symbols = values.symbols === undefined ? undefined : symbolsArg(values.symbols);
      const summary = await withDb(config, (db) =>
        asUsage(runAnalysis(db, config.marketIndexSymbol, { from, to, every, symbols, workers, onProgress: phaseProgress() })),
      );
      console.log(formatAnalyzeSummary(summary));
      return 0;
    }
    case 'evaluate': {
      const { values } = parseArgs({
        args: rest,
        options: { from: { type: 'string' }, to: { type: 'string' }, horizons: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } },
      });
      const from = values.from === undefined ? undefined : dateArg(values.from, 'from');
      const to = values.to === undefined ? undefined : dateArg(values.to, 'to');
      if (from !== undefined && to !== undefined && from > to) throw new UsageError('--from must not be after --to');
      const horizons = values.horizons === undefined ? undefined : horizonsArg(values.horizons);
      const seed = int(values.seed, 'seed', 0);
      if (!Number.isSafeInteger(seed)) throw new UsageError('--seed must be a safe integer');
      const out = values.out === undefined ? undefined : outArg(values.out);
      let plots = 0;
      // runEvaluation records the Evaluation it rendered (the record types it `unknown`, its stored JSON form);
      // the rows, when the run hands them over, give the reliability diagrams.
      const deliver =
        out === undefined
          ? undefined
          : async (report: string, run: EvidenceRunRecord, rows: readonly EvaluationRow[]) => {
              plots = await writeReportWithPlots(out, report, run.evaluation as Evaluation, rows);
            };
      const { result, refreshed } = await withDb(config, async (db) => {
        const evaluated = await runEvaluation(db, { from, to, horizons, seed, deliver });
        return { result: evaluated, refreshed: await refreshEvidence(db, undefined, { workers: config.analysis.workers }) };
      });
      if (out === undefined) process.stdout.write(result.report);
      const r = result.run;
      const where = out === undefined ? '' : `Wrote the report to ${out} and ${plots} SVG plots beside it. `;
      const say = out === undefined ? console.error : console.log;
      say(`${where}Stored evaluation ${result.id}: ${r.snapshots} snapshots of ${r.symbols} symbols, ${r.fromDate}..${r.toDate}, pipeline ${r.pipelineVersion}, as of ${r.asOfDate}.`);
      say(`Evidence tables: ${refreshed.tables} new monthly tables, ${refreshed.odds} new Kelly odds tables (${(refreshed.ms / 1000).toFixed(1)} s).`);
      return 0;
    }
    case 'token': {
      const { values } = parseArgs({ args: rest, options: { sub: { type: 'string' }, audience: { type: 'string' }, ttl: { type: 'string' } } });
      // `analysis`, `allocation`, `search`, any other audience string, or several joined by commas (a
      // gateway caller whose query reaches several origins).
      const audiences = (values.audience ?? 'analysis').split(',').map((a) => a.trim()).filter((a) => a.length > 0);
      try {
        const minted = await mintDevelopmentToken(config, { subject: values.sub ?? DEMO_PARTNER, audiences, ttl: values.ttl });
        console.log(minted.token);
      } catch (err) {
        if (err instanceof DevTokenUnavailable) throw new UsageError(err.message);
        throw err;
      }
      return 0;
    }
    case 'portfolio':
      return portfolioCommand(config, rest);
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return command === undefined ? 2 : 0;
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

/** node:util parseArgs rejects unknown options and missing values with these codes: usage errors. */
const isParseArgsError = (err: unknown): err is { code: string; message: string } =>
  typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' && err.code.startsWith('ERR_PARSE_ARGS') && 'message' in err && typeof err.message === 'string';

/** Runs a command and returns its exit code, printing a failure's message (with the usage for a usage error). */
export async function main(argv: string[], config?: Config): Promise<number> {
  try {
    return await run(argv, config ?? loadConfig());
  } catch (caught: unknown) {
    const err = isParseArgsError(caught) ? new UsageError(caught.message) : caught;
    if (err instanceof UsageError) console.error(`${err.message}\n\n${USAGE}`);
    else if (err instanceof ConfigError) console.error(err.message);
    else console.error(`Failed: ${err instanceof Error ? err.message : String(err)}`);
    return err instanceof UsageError ? 2 : 1;
  }
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname;
if (invokedDirectly) main(process.argv.slice(2)).then((code) => process.exit(code));
