/**
 * The analysis pipeline: bars in, snapshots out (DESIGN section 3).
 *
 *   load universe (bars of every equity + the market index)
 *   -> pass 1 in parallel: prepare series, count stage transitions, collect ML samples
 *   -> merge: transition table, walk-forward ML training (with the out-of-sample record, and its AUC
 *      interval, of each model that serves a requested date), market regime per requested date
 *   -> pass 2 in parallel: one document per requested symbol (default all) per requested date (every
 *      trading day of the range, or a sample of them: every Nth, or each week's last)
 *   -> store: one transaction, idempotent upsert into analysis_snapshots, plus an analysis_runs row
 *
 * Parallelism: symbols are dealt round-robin to worker threads (one per core by default). Under a
 * TypeScript test runner (sources not compiled) the same batches run inline.
 *
 * The market index: the security of type INDEX named by MARKET_INDEX_SYMBOL when it has bars (the
 * synthetic demo market has one); otherwise an equal-weight index of the universe is computed on the
 * fly: level 1000 on the first day, then each day's mean simple return of the equities that traded on
 * that day and the previous one.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  MIN_BARS,
  batchServer,
  packSymbol,
  packUniverse,
  unpackSymbol,
  type AnalyzeContext,
  type BatchRequest,
  type LoadResult,
  type PackedSymbol,
  type SnapshotText,
} from './analyze-batch.js';
import { PIPELINE_VERSION, type RegimeDetail, type StageLabel } from './engine/document.js';
import { sma } from './engine/indicators.js';
import { indexOfSorted, upperBound } from './engine/sorted.js';
import { parseBarsCsv, parseSecuritiesCsv } from './engine/market-csv.js';
import { toSeries, type BarSeries, type SecurityRecord } from './engine/market-types.js';
import type { SymbolInput } from './engine/prepared.js';
import { unionCalendar } from './engine/evidence/forward.js';
import { marketRegime } from './engine/regime.js';
import { FEATURE_COUNT, sampleCapacity, type SampleSet } from './engine/features.js';
import type { WalkForwardFit } from './engine/logistic.js';
import {
  assembleSignalModel,
  planSignalModel,
  recordOfParts,
  recordPartsWorth,
  recordTable,
  signalModelFolds,
  signalModelRecords,
  type OosRecordPart,
  type PredictionHistory,
  type SignalModel,
  type SignalModelPlan,
} from './engine/signal-model.js';
import { classifyStages, stagePayload } from './engine/stage.js';
import { TransitionTable } from './engine/transitions.js';
import { isoWeekKey, toWeekly } from './engine/weekly.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import * as store from './store.js';

export interface Universe {
  /** Sorted union of every trading date. */
  calendar: string[];
  index: { symbol: string; computed: boolean; bars: BarSeries };
  equities: Array<{ security: SecurityRecord; bars: BarSeries }>;
}

export type PipelinePhase = 'prepare' | 'analyze' | 'store';
export type PipelineProgress = (phase: PipelinePhase, done: number, total: number) => void;

/** Which trading days of the range to document: every Nth (from the range's first), or each ISO week's last. */
export type Sampling = number | 'week';

export interface AnalyzeOptions {
  /**
   * Requested dates (YYYY-MM-DD, inclusive); default: the latest trading day only, or with `every` the
   * whole calendar.
   */
  from?: string;
  to?: string;
  /** Sample the range instead of documenting every trading day of it (see sampleDates). */
  every?: Sampling;
  /**
   * These days instead of a range: what the start-up documents in one run, the recent days and the
   * sampled history days still missing (cli/start-up-steps.ts). A day that is not one of the equities'
   * trading days (a day only the index traded) is left out, as a range leaves it out.
   */
  dates?: readonly string[];
  /**
   * Equities to document; default every equity. The universe state (equal-weight index, transition
   * table, ML model, regimes) is computed from the whole universe either way, so a document does not
   * depend on which symbols or dates a run asked for.
   */
  symbols?: readonly string[];
  /** Worker threads; default one per core; 0 runs inline. */
  workers?: number;
  producedAt?: string;
  onProgress?: PipelineProgress;
  /** Documents in their stored form (SnapshotText.packed, encoded in the workers) instead of their text. */
  packed?: boolean;
  /** Aborting stops the run at the next chunk of documents (runAnalysis then stores nothing). */
  signal?: AbortSignal;
}

/** The ML model's figures a run reports and records in analysis_runs.model. */
export interface RunModelSummary {
  folds: number;
  oosAccuracy: number | null;
  oosAuc: number | null;
  oosSamples: number;
  trainSamplesLastFold: number;
}

export interface AnalyzeSummary {
  fromDate: string;
  toDate: string;
  dates: number;
  /** The sampling asked for; null when every trading day of the range, or the days given (`chosen`), were documented. */
  every: Sampling | null;
  /** Whether the days were given one by one (AnalyzeOptions.dates) rather than as a range. */
  chosen: boolean;
  /** Equities documented (with enough bars), and how many the universe holds (with enough bars). */
  symbols: number;
  universeSymbols: number;
  snapshots: number;
  workers: number;
  index: { symbol: string; computed: boolean };
  model: RunModelSummary | null;
  transitions: number;
  /** Wall time of each phase: prepare (pass 1), train (model and universe state), analyse (pass 2 and the writes). */
  timings: { prepareMs: number; trainMs: number; analyzeMs: number };
  /** CPU time of each phase over every thread of the process (cpu / wall is the number of cores busy). */
  cpu: { prepareMs: number; trainMs: number; analyzeMs: number };
}

/** Symbols per worker in each packed message of the load pass. */
const PACK_CHUNK = 50;

export const defaultWorkers = (): number => Math.max(1, os.availableParallelism());

/** Universe from stored securities and bars. */
export async function loadUniverse(db: Db, indexSymbol: string): Promise<Universe> {
  const securities = await store.listAllSecurities(db);
  const series = await store.listAllBarSeries(db);
  return buildUniverse(securities, series, indexSymbol);
}

/** Assembles a universe: equities with bars, and the index (stored, or computed equal-weight). */
export function buildUniverse(securities: readonly SecurityRecord[], series: ReadonlyMap<string, BarSeries>, indexSymbol: string): Universe {
  const { equities, calendar } = equitiesWithBars(securities, series);
  const stored = securities.find((s) => s.assetType === 'INDEX' && s.symbol === indexSymbol) ?? securities.find((s) => s.assetType === 'INDEX');
  const storedBars = stored ? series.get(stored.symbol) : undefined;
  const index = storedBars && storedBars.dates.length > 0
    ? { symbol: storedBars.symbol, computed: false, bars: storedBars }
    : { symbol: indexSymbol, computed: true, bars: equalWeightIndex(indexSymbol, calendar, equities.map((e) => e.bars)) };
  return { calendar, index, equities };
}

/** The equities that have bars, and their calendar: the union of their dates (the evaluation's universe too). */
export function equitiesWithBars(
  securities: readonly SecurityRecord[],
  series: ReadonlyMap<string, BarSeries>,
): { equities: Universe['equities']; calendar: string[] } {
  const equities = securities
    .filter((s) => s.assetType === 'EQUITY' && (series.get(s.symbol)?.dates.length ?? 0) > 0)
    .map((security) => ({ security, bars: series.get(security.symbol) as BarSeries }));
  return { equities, calendar: unionCalendar(equities.map((e) => e.bars)) };
}

/** A universe straight from CSV text (securities list and long-format bars), without a store. */
export function universeFromCsv(securitiesCsv: string, barsCsv: string, indexSymbol: string): Universe {
  const securities = parseSecuritiesCsv(securitiesCsv, { file: 'securities' }).securities;
  return buildUniverse(securities, toSeries(parseBarsCsv(barsCsv, { file: 'bars' }).bars), indexSymbol);
}

/** Equal-weight index over `calendar` (see the module comment). */
export function equalWeightIndex(symbol: string, calendar: readonly string[], members: readonly BarSeries[]): BarSeries {
  const n = calendar.length;
  const sum = new Float64Array(n);
  const count = new Float64Array(n);
  const position = new Map(calendar.map((d, i) => [d, i] as const));
  for (const s of members) {
    for (let i = 1; i < s.dates.length; i++) {
      const t = position.get(s.dates[i]) as number;
      if (position.get(s.dates[i - 1]) !== t - 1) continue;
      sum[t] += s.close[i] / s.close[i - 1] - 1;
      count[t]++;
    }
  }
  const close = new Float64Array(n);
  let level = 1000;
  for (let t = 0; t < n; t++) {
    if (t > 0 && count[t] > 0) level *= 1 + sum[t] / count[t];
    close[t] = level;
  }
  return { symbol, dates: [...calendar], open: close.slice(), high: close.slice(), low: close.slice(), close, volume: new Float64Array(n) };
}

/** Symbol inputs: each equity with the index aligned to its dates (forward-filled) and its calendar times. */
export function symbolInputs(u: Universe): SymbolInput[] {
  const universe = packUniverse(u.calendar, u.index.bars, { n: 0, x: new Float64Array(0), y: new Uint8Array(0), time: new Int32Array(0) });
  return u.equities.map(({ security, bars }) => unpackSymbol(packSymbol(security, bars, u.calendar, 0), universe));
}

/**
 * The requested dates: trading days of the calendar in [from, to], sampled by `every`; without a range,
 * the latest trading day, or with `every` the whole calendar.
 */
export function requestedDates(calendar: readonly string[], from?: string, to?: string, every?: Sampling): string[] {
  if (calendar.length === 0) throw new AppError('VALIDATION_FAILED', 'there are no bars to analyse: import bars or load the demo market first');
  if (!from && !to && every === undefined) return [calendar[calendar.length - 1]];
  const lo = from ?? calendar[0];
  const hi = to ?? calendar[calendar.length - 1];
  if (lo > hi) throw new AppError('VALIDATION_FAILED', '--from must not be after --to', [{ field: 'from', message: 'after to' }]);
  const dates = calendar.filter((d) => d >= lo && d <= hi);
  if (dates.length === 0) {
    throw new AppError('VALIDATION_FAILED', `no trading days between ${lo} and ${hi} (bars cover ${calendar[0]} to ${calendar[calendar.length - 1]})`);
  }
  return every === undefined ? dates : sampleDates(calendar, dates, every);
}

/** The given days that are trading days of the calendar, sorted and without repeats; VALIDATION_FAILED when none is. */
export function calendarDates(calendar: readonly string[], dates: readonly string[]): string[] {
  const kept = [...new Set(dates)].filter((d) => indexOfSorted(calendar, d) >= 0).sort();
  if (kept.length === 0) {
    throw new AppError('VALIDATION_FAILED', `none of the ${dates.length} date(s) asked for is a trading day of the stored bars`, [{ field: 'dates', message: 'no trading day' }]);
  }
  return kept;
}

/**
 * Samples trading days of a range (`dates`, a run of `calendar`): `every` N keeps the range's first
 * trading day and every Nth after it; 'week' keeps each ISO week's last trading day in the calendar (the
 * calendar's latest day counts as its week's last), so a range that ends mid-week keeps no day of that week
 * unless the calendar ends there too.
 */
export function sampleDates(calendar: readonly string[], dates: readonly string[], every: Sampling): string[] {
  if (every === 'week') {
    const position = indexOfSorted(calendar, dates[0]);
    return dates.filter((d, k) => {
      const next = calendar[position + k + 1];
      return next === undefined || isoWeekKey(next) !== isoWeekKey(d);
    });
  }
  if (!Number.isSafeInteger(every) || every < 1) throw new AppError('VALIDATION_FAILED', 'every must be a whole number of trading days >= 1 or "week"');
  return dates.filter((_, k) => k % every === 0);
}

/** The equities to document (null for all), or VALIDATION_FAILED naming the symbols the universe lacks. */
function selectedSymbols(u: Universe, symbols: readonly string[] | undefined): string[] | null {
  if (symbols === undefined) return null;
  const known = new Set(u.equities.map((e) => e.security.symbol));
  const unknown = symbols.filter((s) => !known.has(s));
  if (symbols.length === 0 || unknown.length > 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      symbols.length === 0 ? 'no symbols named' : `not an equity with bars in the store: ${unknown.join(', ')}`,
      unknown.map((s) => ({ field: 'symbols', message: `${s} is not an equity with bars` })),
    );
  }
  return [...new Set(symbols)];
}

/** Market regime of the index at each requested date. */
export function regimesFor(u: Universe, dates: readonly string[]): Record<string, RegimeDetail | null> {
  const b = u.index.bars;
  const sma200 = sma(b.close, 200);
  const out: Record<string, RegimeDetail | null> = {};
  for (const date of dates) {
    const end = indexOfSorted(b.dates, date);
    if (end < 0) {
      out[date] = null;
      continue;
    }
    const weekly = toWeekly(b.dates, b.open, b.high, b.low, b.close, b.volume, null, end);
    const stage = stagePayload(weekly, classifyStages(weekly), weekly.close.length - 1);
    out[date] = marketRegime({ symbol: u.index.symbol, dates: b.dates, close: b.close, sma200 }, end, (stage?.label as StageLabel | undefined) ?? null);
  }
  return out;
}

/** A batch that lives in a worker thread, or inline (the same messages either way). */
interface BatchRunner {
  /** A notice (no answer); `transfer` moves buffers to the worker instead of copying them. */
  post(message: BatchRequest, transfer?: ArrayBuffer[]): void;
  request<T>(message: BatchRequest, onRows?: (rows: SnapshotText[]) => void): Promise<T>;
  close(): Promise<void>;
}

function inlineRunner(): BatchRunner {
  const serve = batchServer();
  return {
    post: (message) => void serve(message, () => undefined),
    request: async <T>(message: BatchRequest, onRows?: (rows: SnapshotText[]) => void) => serve(message, onRows ?? (() => undefined)) as T,
    close: async () => undefined,
  };
}

function workerRunner(url: URL): BatchRunner {
  const worker = new Worker(url);
  let pending: { resolve: (v: unknown) => void; reject: (e: Error) => void; onRows?: (rows: SnapshotText[]) => void } | null = null;
  const fail = (err: Error) => {
    pending?.reject(err);
    pending = null;
  };
  worker.on('error', fail);
  let closing = false;
  worker.on('exit', (code) => fail(new Error(closing ? 'analysis stopped' : `analysis worker exited with code ${code}`)));
  worker.on('message', (m: { type: 'done'; value: unknown } | { type: 'rows'; rows: SnapshotText[] } | { type: 'error'; message: string }) => {
    if (!pending) return;
    if (m.type === 'rows') pending.onRows?.(m.rows);
    else if (m.type === 'error') fail(new Error(m.message));
    else {
      const p = pending;
      pending = null;
      p.resolve(m.value);
    }
  });
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    request: <T>(message: BatchRequest, onRows?: (rows: SnapshotText[]) => void) =>
      new Promise<T>((resolve, reject) => {
        pending = { resolve: resolve as (v: unknown) => void, reject, onRows };
        worker.postMessage(message);
      }),
    close: async () => {
      closing = true;
      await worker.terminate();
    },
  };
}

/** Runs `task` on every item, each on the next free runner; answers in item order. */
async function spread<I, T>(runners: readonly BatchRunner[], items: readonly I[], task: (runner: BatchRunner, item: I) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(items.length);
  let next = 0;
  await Promise.all(
    runners.map(async (runner) => {
      while (next < items.length) {
        const k = next++;
        out[k] = await task(runner, items[k]);
      }
    }),
  );
  return out;
}

/** A typed array of `length` elements in memory every worker thread can read (no copy when posted). */
function shared<A extends Float64Array | Int32Array | Uint8Array>(Kind: { new (buffer: SharedArrayBuffer): A; BYTES_PER_ELEMENT: number }, length: number): A {
  return new Kind(new SharedArrayBuffer(Math.max(1, length) * Kind.BYTES_PER_ELEMENT)).subarray(0, length) as A;
}

/**
 * Room for every equity's samples in shared memory, in universe order: equity k's from `at[k]` on, as many
 * as its bars can give (so the batches write them where they belong, whichever batch prepares it).
 */
function sampleRoom(u: Universe): { at: number[]; samples: SampleSet } {
  const at: number[] = [];
  let n = 0;
  for (const { bars } of u.equities) {
    at.push(n);
    if (bars.dates.length >= MIN_BARS) n += sampleCapacity(bars.dates.length);
  }
  return { at, samples: { n, x: shared(Float64Array, n * FEATURE_COUNT), y: shared(Uint8Array, n), time: shared(Int32Array, n) } };
}

/**
 * The samples in universe order without the gaps a symbol leaves when it gives fewer samples than its
 * room (so the trained model does not depend on the number of batches): equity k went to batch k % batches.
 */
function closeGaps(room: { at: number[]; samples: SampleSet }, loaded: readonly LoadResult[]): SampleSet {
  const { x, y, time } = room.samples;
  const batches = loaded.length;
  let n = 0;
  room.at.forEach((from, k) => {
    const count = loaded[k % batches].sampleCounts[Math.floor(k / batches)];
    if (from !== n && count > 0) {
      x.copyWithin(n * FEATURE_COUNT, from * FEATURE_COUNT, (from + count) * FEATURE_COUNT);
      y.copyWithin(n, from, from + count);
      time.copyWithin(n, from, from + count);
    }
    n += count;
  });
  return { n, x: x.subarray(0, n * FEATURE_COUNT), y: y.subarray(0, n), time: time.subarray(0, n) };
}

/**
 * Walk-forward training spread over the batches: each fold's fit, and each part of each served window's
 * record, is an independent pure computation on shared memory, so they run on whichever batch is free and the model is
 * the same as trainSignalModel's, bit for bit, with any number of batches.
 */
async function trainInParallel(runners: readonly BatchRunner[], samples: SampleSet, calendar: readonly string[], servedTimes: readonly number[]): Promise<SignalModel | null> {
  const planned = planSignalModel(samples, calendar);
  if (planned === null) return null;
  const order = shared(Int32Array, planned.walk.order.length);
  order.set(planned.walk.order);
  const plan: SignalModelPlan = { ...planned, walk: { ...planned.walk, order } };
  const fitted = await spread(runners, plan.fitCounts, (r, count) => r.request<WalkForwardFit>({ type: 'fit', samples, plan, count }));
  const fits = new Map(plan.fitCounts.map((count, k) => [count, fitted[k]] as const));
  const wanted = signalModelRecords(samples, plan, fits, servedTimes);
  const h = wanted.history;
  const history: PredictionHistory = { time: shared(Int32Array, h.time.length), probability: shared(Float64Array, h.probability.length), label: shared(Uint8Array, h.label.length) };
  history.time.set(h.time);
  history.probability.set(h.probability);
  history.label.set(h.label);
  // A large record (many predictions on few dates: the latest date's, in a large universe) is built in one
  // part per batch, so that it keeps every core busy: its date-pair table, in shared memory, is sorted by
  // every part (each its range of the predictions), then filled by every part (each the rows of its range of
  // dates), and its replicates' parts read the whole table. A record without a table splits its replicates
  // only when they outweigh the sorting each part repeats. The replicates' ranges are joined in order, as
  // one thread computes them; the table is the one a single thread builds, bit for bit.
  const arrays = { int32: (length: number) => shared(Int32Array, length), float64: (length: number) => shared(Float64Array, length) };
  const records = wanted.recordThroughs.map((through) => {
    const table = recordTable(history, through, calendar, runners.length, arrays);
    return { through, table, parts: table === null ? recordPartsWorth(history, through, runners.length) : table.parts };
  });
  const tables = records.flatMap((r) => (r.table === null ? [] : [r.table]));
  const tableStep = (step: 'sort' | 'rows') =>
    spread(
      runners,
      tables.flatMap((table) => Array.from({ length: table.parts }, (_, part) => ({ table, part }))),
      (r, { table, part }) => r.request<null>({ type: 'recordTable', history, table, step, part }),
    );
  await tableStep('sort');
  // The folds are scored here while the batches fill the tables (the longest step); should scoring throw,
  // a failed fill is not left unhandled.
  const filling = tableStep('rows');
  filling.catch(() => undefined);
  const scored = signalModelFolds(samples, plan, fits, servedTimes, wanted);
  await filling;
  const items = records.flatMap(({ through, table, parts }) => Array.from({ length: parts }, (_, part) => ({ through, part, parts, table })));
  const done = await spread(runners, items, (r, { through, part, parts, table }) =>
    r.request<OosRecordPart>({ type: 'record', history, through, part, parts, table }),
  );
  const joined = new Map(
    wanted.recordThroughs.map((through) => [through, recordOfParts(done.filter((_, k) => items[k].through === through))] as const),
  );
  return assembleSignalModel(scored, calendar, joined);
}

/** How many of the selected symbols have enough bars for a document (what the batches will document). */
function documentedSymbols(u: Universe, selected: readonly string[]): number {
  const wanted = new Set(selected);
  return u.equities.filter((e) => wanted.has(e.security.symbol) && e.bars.dates.length >= MIN_BARS).length;
}

/** Compiled JavaScript can start workers; TypeScript sources under a test runner run inline. */
function workerUrl(): URL | null {
  const url = new URL('./analyze-worker.js', import.meta.url);
  return import.meta.url.endsWith('.js') ? url : null;
}

/**
 * Computes the documents for the requested dates and hands them to `write` in chunks (awaited in
 * order). Pure computation apart from the worker threads; storage is the caller's.
 */
export async function analyzeUniverse(u: Universe, options: AnalyzeOptions, write: (rows: SnapshotText[]) => Promise<void>): Promise<AnalyzeSummary> {
  if (options.dates && (options.from !== undefined || options.to !== undefined || options.every !== undefined)) {
    throw new AppError('VALIDATION_FAILED', 'give either the days to analyse or a range (from, to, every), not both', [{ field: 'dates', message: 'with a range' }]);
  }
  const dates = options.dates ? calendarDates(u.calendar, options.dates) : requestedDates(u.calendar, options.from, options.to, options.every);
  const selected = selectedSymbols(u, options.symbols);
  const url = workerUrl();
  const workerCount = url ? Math.max(0, Math.min(options.workers ?? defaultWorkers(), u.equities.length)) : 0;
  const runners = workerCount > 0 ? Array.from({ length: workerCount }, () => workerRunner(url as URL)) : [inlineRunner()];
  const progress = options.onProgress;
  // Stopping terminates the workers: their pending passes reject and the run unwinds.
  const stop = () => void Promise.all(runners.map((r) => r.close()));
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const total = u.equities.length;
    progress?.('prepare', 0, total);
    // Symbols are dealt round-robin (symbol k to batch k % batches) in packed chunks, transferred: the
    // batches prepare one chunk while this thread packs the next.
    const room = sampleRoom(u);
    const universe = packUniverse(u.calendar, u.index.bars, room.samples);
    for (const r of runners) r.post({ type: 'universe', universe });
    const step = PACK_CHUNK * runners.length;
    for (let start = 0; start < total; start += step) {
      runners.forEach((r, k) => {
        const symbols: PackedSymbol[] = [];
        for (let i = start + k; i < Math.min(start + step, total); i += runners.length) {
          symbols.push(packSymbol(u.equities[i].security, u.equities[i].bars, u.calendar, room.at[i]));
        }
        if (symbols.length > 0) r.post({ type: 'add', symbols }, symbols.flatMap((p) => [p.time.buffer as ArrayBuffer, p.columns.buffer as ArrayBuffer]));
      });
    }
    let prepared = 0;
    const loaded = await Promise.all(
      runners.map(async (r) => {
        const result = await r.request<LoadResult>({ type: 'load' });
        prepared += result.sampleCounts.length;
        progress?.('prepare', prepared, total);
        return result;
      }),
    );
    options.signal?.throwIfAborted();
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    // Records (with their bootstrap) only for the windows that serve a requested date.
    const servedTimes = dates.map((d) => indexOfSorted(u.calendar, d));
    const training = trainInParallel(runners, closeGaps(room, loaded), u.calendar, servedTimes);
    // The rest of the universe state is this thread's while the batches train.
    const table = new TransitionTable();
    for (const l of loaded) table.merge(l.transitions);
    const regimes = regimesFor(u, dates);
    const model = await training;
    const context: AnalyzeContext = {
      dates,
      producedAt: options.producedAt ?? new Date().toISOString(),
      model,
      transitions: table.toJSON(),
      regimes,
      symbols: selected,
      packed: options.packed,
    };
    const t2 = performance.now();
    const c2 = process.cpuUsage();
    const documented = selected === null ? loaded.reduce((s, l) => s + l.symbols, 0) : documentedSymbols(u, selected);
    const expected = documented * dates.length;
    let done = 0;
    let writing = Promise.resolve();
    let failed = false;
    progress?.('analyze', 0, expected);
    // On any failure no further write is queued, and the ones queued are waited for before the error
    // propagates: a caller's transaction must not end while a write on it is still pending.
    const counts = await Promise.all(
      runners.map((r) =>
        r.request<number>({ type: 'analyze', context }, (rows) => {
          if (failed || options.signal?.aborted) return;
          done += rows.length;
          progress?.('analyze', Math.min(done, expected), expected);
          writing = writing.then(() => write(rows));
          // Awaited below; marked handled now, or a failed write (a full disk) ends the process as an
          // unhandled rejection before the batch can report it. No further writes follow it.
          writing.catch(() => (failed = true));
        }),
      ),
    ).catch(async (err: unknown) => {
      failed = true;
      await writing.catch(() => undefined);
      throw err;
    });
    await writing;
    options.signal?.throwIfAborted();
    const t3 = performance.now();
    const c3 = process.cpuUsage();
    const cpuMs = (from: NodeJS.CpuUsage, to: NodeJS.CpuUsage) => Math.round((to.user - from.user + to.system - from.system) / 1000);
    const last = model?.folds[model.folds.length - 1];
    return {
      fromDate: dates[0],
      toDate: dates[dates.length - 1],
      dates: dates.length,
      every: options.every ?? null,
      chosen: options.dates !== undefined,
      symbols: documented,
      universeSymbols: loaded.reduce((s, l) => s + l.symbols, 0),
      snapshots: counts.reduce((s, c) => s + c, 0),
      workers: workerCount,
      index: { symbol: u.index.symbol, computed: u.index.computed },
      model: model && last ? { folds: model.folds.length, oosAccuracy: model.oos.accuracy, oosAuc: model.oos.auc, oosSamples: model.oos.samples, trainSamplesLastFold: last.trainSamples } : null,
      transitions: table.totalTransitions,
      timings: { prepareMs: Math.round(t1 - t0), trainMs: Math.round(t2 - t1), analyzeMs: Math.round(t3 - t2) },
      cpu: { prepareMs: cpuMs(c0, c1), trainMs: cpuMs(c1, c2), analyzeMs: cpuMs(c2, c3) },
    };
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await Promise.all(runners.map((r) => r.close()));
  }
}

/**
 * The `analyze` command and the start-up step: load, analyse, and store everything in one transaction
 * (readers see the whole run or none of it), then record the run.
 */
export async function runAnalysis(db: Db, indexSymbol: string, options: AnalyzeOptions): Promise<AnalyzeSummary> {
  const startedAt = new Date().toISOString();
  const universe = await loadUniverse(db, indexSymbol);
  const producedAt = options.producedAt ?? startedAt;
  let summary: AnalyzeSummary | undefined;
  await db.transaction(async (tx) => {
    let stored = 0;
    const writer = store.snapshotWriter(tx);
    // The workers encode the documents' stored form: this thread only sends them.
    summary = await analyzeUniverse(universe, { ...options, producedAt, packed: true }, async (rows) => {
      await writer.write(
        rows.map((r) => ({ symbol: r.symbol, analysisDate: r.analysisDate, doc: r.packed ? Buffer.from(r.packed.buffer, r.packed.byteOffset, r.packed.byteLength) : r.doc, producedAt, pipelineVersion: PIPELINE_VERSION })),
      );
      stored += rows.length;
      options.onProgress?.('store', stored, stored);
    });
    await writer.finish();
    const s = summary;
    await store.recordRun(tx, {
      startedAt,
      finishedAt: new Date().toISOString(),
      pipelineVersion: PIPELINE_VERSION,
      fromDate: s.fromDate,
      toDate: s.toDate,
      symbols: s.symbols,
      snapshots: s.snapshots,
      model: s.model,
      transitions: { total: s.transitions },
    });
  });
  return summary as AnalyzeSummary;
}

/**
 * Makes sure each of the last `days` trading days has a snapshot of every equity
 * that traded that day with enough history (MIN_BARS); analyses from the earliest day that falls short
 * through the latest (missingRecentDates). Returns null when nothing was missing. (The start-up takes these
 * days together with the sampled history's in one run: cli/start-up-steps.ts.)
 */
export async function ensureRecentAnalysis(db: Db, indexSymbol: string, days: number, options: Omit<AnalyzeOptions, 'from' | 'to' | 'dates'>): Promise<AnalyzeSummary | null> {
  const missing = await missingRecentDates(db, days);
  if (missing.length === 0) return null;
  return runAnalysis(db, indexSymbol, { ...options, from: missing[0], to: missing[missing.length - 1] });
}

/**
 * The recent trading days to analyse, oldest first: of the last `days`, those from the earliest one on which
 * some equity that traded with enough history (MIN_BARS) has no snapshot, through the latest; none when
 * every one is covered. (An equity counts as having enough history when its first bar is at least
 * MIN_BARS - 1 trading days of the store's calendar back.)
 */
export async function missingRecentDates(db: Db, days: number): Promise<string[]> {
  const calendar = await store.recentTradingDates(db, days + MIN_BARS - 1); // newest first
  const recent = calendar.slice(0, days);
  if (recent.length === 0) return [];
  const coverage = await store.snapshotCoverage(db, recent);
  const firsts = (await store.firstBarDates(db)).sort();
  const short = recent.findLastIndex((date, k) => {
    const cutoff = calendar[k + MIN_BARS - 1];
    // Equities whose first bar is after the cutoff are too young for a document on this date.
    const young = cutoff === undefined ? firsts.length : firsts.length - upperBound(firsts, cutoff);
    const { bars, snapshots } = coverage.get(date) ?? { bars: 0, snapshots: 0 };
    return snapshots < bars - young;
  });
  return short < 0 ? [] : recent.slice(0, short + 1).reverse();
}
