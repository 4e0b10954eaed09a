/**
 * One share of the universe, analysed in two passes (run inside a worker thread, or inline):
 *
 * 1. `load`: prepare every symbol's series, count its weekly stage transitions and collect its ML
 *    training samples; the results of all batches are merged by the pipeline.
 * 2. `analyze`: with the merged universe state (transition table, trained model, regimes), build one
 *    document per requested symbol (default every symbol) per requested date, serialised to JSON text
 *    for storage. Every symbol of the batch is loaded in pass 1 whichever are requested, so the universe
 *    state, and with it each document, does not depend on which symbols are documented.
 *
 * Prepared series stay in the batch between the passes, so bars cross a thread boundary once, and in a
 * compact form (PackedSymbol: one Float64Array of the five bar columns and an Int32Array of calendar
 * positions, transferred, not copied; the dates are rebuilt from the calendar, sent once).
 *
 * Between the passes the batch also serves the pipeline's parallel training (`fit`: one walk-forward fold
 * on samples in shared memory) and the models' records (`recordTable`: one part of a large record's
 * date-pair table in shared memory, its sort then its rows; `record`: one part of the bootstrap replicates
 * of one out-of-sample record).
 */
import type { RegimeDetail } from './engine/document.js';
import { FEATURE_COUNT, labelledSamples, labelledSamplesInto, type SampleSet } from './engine/features.js';
import type { WalkForwardFit } from './engine/logistic.js';
import type { BarSeries, SecurityRecord } from './engine/market-types.js';
import { prepareSymbol, type PreparedSymbol, type SymbolInput } from './engine/prepared.js';
import { indexOfSorted } from './engine/sorted.js';
import {
  fillRecordTable,
  fitSignalFold,
  recordPart,
  signalModelLookup,
  sortRecordTable,
  type OosRecordPart,
  type PredictionHistory,
  type RecordTable,
  type SignalModel,
  type SignalModelPlan,
} from './engine/signal-model.js';
import { buildDocument, serializeDocument, storedNumber, type UniverseState } from './engine/snapshot.js';
import { TransitionTable, type TransitionTableJson } from './engine/transitions.js';
import { encodeSnapshotDoc } from './snapshot-codec.js';
import { isWeekComplete } from './engine/weekly.js';

/** Fewer bars than this give no document (nothing meaningful can be said about two weeks of prices). */
export const MIN_BARS = 30;

/** What the load pass reports back. */
export interface LoadResult {
  symbols: number;
  transitions: TransitionTableJson;
  /** The samples of every symbol added, in the order they were added. */
  samples: SampleSet;
  /** Samples of each symbol added, in order (0 for a symbol with too few bars). */
  sampleCounts: Int32Array;
}

/** What every batch shares: the universe calendar and the index close on each of its days. */
export interface PackedUniverse {
  calendar: string[];
  /** Index close per calendar position; NaN where the index has no bar. */
  indexClose: Float64Array;
  /**
   * Where packed symbols' samples go (shared memory): symbol by symbol from each one's `sampleAt`, with
   * room for sampleCapacity of its bars; the pipeline closes the gaps once every batch is done.
   */
  samples: SampleSet;
}

/** A symbol's bars in transferable form. */
export interface PackedSymbol {
  symbol: string;
  sector: string | null;
  dataSource: SecurityRecord['dataSource'];
  /** Calendar position of each bar. */
  time: Int32Array;
  /** First sample of the symbol in the universe's shared samples. */
  sampleAt: number;
  /** open, high, low, close and volume, each `time.length` long, one after the other. */
  columns: Float64Array;
}

export function packUniverse(calendar: readonly string[], index: { dates: readonly string[]; close: Float64Array }, samples: SampleSet): PackedUniverse {
  const indexClose = new Float64Array(calendar.length).fill(NaN);
  const time = calendarPositions(calendar, index.dates);
  for (let i = 0; i < time.length; i++) if (time[i] >= 0) indexClose[time[i]] = index.close[i];
  return { calendar: [...calendar], indexClose, samples };
}

/** Calendar position of each of `dates` (sorted, like the calendar); -1 for a date the calendar lacks. */
function calendarPositions(calendar: readonly string[], dates: readonly string[]): Int32Array {
  const time = new Int32Array(dates.length);
  let j = 0;
  for (let i = 0; i < dates.length; i++) {
    const date = dates[i];
    while (j < calendar.length && calendar[j] < date) j++;
    time[i] = calendar[j] === date ? j : -1;
  }
  return time;
}

export function packSymbol(security: Pick<SecurityRecord, 'symbol' | 'sector' | 'dataSource'>, bars: BarSeries, calendar: readonly string[], sampleAt: number): PackedSymbol {
  const n = bars.dates.length;
  const columns = new Float64Array(5 * n);
  columns.set(bars.open, 0);
  columns.set(bars.high, n);
  columns.set(bars.low, 2 * n);
  columns.set(bars.close, 3 * n);
  columns.set(bars.volume, 4 * n);
  return { symbol: security.symbol, sector: security.sector, dataSource: security.dataSource, time: calendarPositions(calendar, bars.dates), sampleAt, columns };
}

/** The engine's input of a packed symbol: its bars, and the index aligned to its dates (forward-filled). */
export function unpackSymbol(p: PackedSymbol, u: PackedUniverse): SymbolInput {
  const n = p.time.length;
  const c = p.columns;
  const dates = new Array<string>(n);
  const benchmark = new Float64Array(n);
  let last = NaN;
  for (let i = 0; i < n; i++) {
    const t = p.time[i];
    dates[i] = u.calendar[t];
    const close = u.indexClose[t];
    if (close === close) last = close;
    benchmark[i] = last;
  }
  // Before the index's first bar the ratio is undefined; start the line at the first known level.
  const first = benchmark.findIndex((x) => Number.isFinite(x));
  if (first > 0) benchmark.fill(benchmark[first], 0, first);
  const bars: BarSeries = {
    symbol: p.symbol,
    dates,
    open: c.subarray(0, n),
    high: c.subarray(n, 2 * n),
    low: c.subarray(2 * n, 3 * n),
    close: c.subarray(3 * n, 4 * n),
    volume: c.subarray(4 * n, 5 * n),
  };
  return { symbol: p.symbol, sector: p.sector, dataSource: p.dataSource, bars, benchmark: first >= 0 ? benchmark : null, time: p.time };
}

/** Everything the analyze pass needs besides the batch's own series. */
export interface AnalyzeContext {
  dates: string[];
  producedAt: string;
  model: SignalModel | null;
  transitions: TransitionTableJson;
  regimes: Record<string, RegimeDetail | null>;
  /** Symbols to document; null documents every symbol of the batch (all of them shape the context either way). */
  symbols?: string[] | null;
  /**
   * Hand over each document in its stored form (encodeSnapshotDoc of its text), encoded here, in the
   * batch's thread, instead of its text: `doc` is then empty and `packed` holds the bytes.
   */
  packed?: boolean;
}

/** A stored document as JSON text (serialised where it was computed). */
export interface SnapshotText {
  symbol: string;
  analysisDate: string;
  doc: string;
  /** The stored form, when the run asked for it (AnalyzeContext.packed); a chunk's rows share one buffer. */
  packed?: Uint8Array;
}

export class AnalysisBatch {
  private prepared: PreparedSymbol[] = [];
  private table = new TransitionTable();
  private parts: SampleSet[] = [];
  private counts: number[] = [];
  private universe: PackedUniverse | null = null;

  /** The calendar and index that packed symbols refer to (before addPacked and record). */
  setUniverse(u: PackedUniverse): void {
    this.universe = u;
  }

  /** Prepares packed symbols; their samples go to the universe's shared samples. */
  addPacked(symbols: readonly PackedSymbol[]): void {
    const u = this.universe;
    if (u === null) throw new Error('the universe is not set');
    for (const packed of symbols) {
      const p = this.prepare(unpackSymbol(packed, u));
      this.counts.push(p === null ? 0 : labelledSamplesInto(p, u.samples, packed.sampleAt));
    }
  }

  /** Prepares symbols, counts their stage transitions and collects their samples (pass 1, in parts). */
  add(inputs: readonly SymbolInput[]): void {
    for (const input of inputs) {
      const p = this.prepare(input);
      const samples = p === null ? null : labelledSamples(p);
      if (samples !== null) this.parts.push(samples);
      this.counts.push(samples?.n ?? 0);
    }
  }

  /** The prepared series of a symbol with enough bars (kept for pass 2), its transitions counted; else null. */
  private prepare(input: SymbolInput): PreparedSymbol | null {
    if (input.bars.close.length < MIN_BARS) return null;
    const p = prepareSymbol(input);
    this.prepared.push(p);
    const lastDate = p.input.bars.dates[p.input.bars.dates.length - 1];
    this.table.add(p.weekly, p.stages, { lastWeekComplete: isWeekComplete(lastDate, null) });
    return p;
  }

  /** The load pass's result over every symbol added (the samples of packed symbols are in the universe's). */
  finish(): LoadResult {
    const samples = concatSamples(this.parts);
    this.parts = [];
    return { symbols: this.prepared.length, transitions: this.table.toJSON(), samples, sampleCounts: Int32Array.from(this.counts) };
  }

  load(inputs: readonly SymbolInput[]): LoadResult {
    this.add(inputs);
    return this.finish();
  }

  /** One walk-forward fold's fit (the samples may live in shared memory). */
  fit(samples: SampleSet, plan: SignalModelPlan, count: number): WalkForwardFit {
    return fitSignalFold(samples, plan, count);
  }

  /**
   * Part `part` of `parts` of one model's out-of-sample record (the history may live in shared memory),
   * from its date-pair table when it has one (built by every part of `recordTable`).
   */
  record(history: PredictionHistory, through: number, part: number, parts: number, table: RecordTable | null = null): OosRecordPart {
    if (this.universe === null) throw new Error('the universe is not set');
    return recordPart(history, through, this.universe.calendar, part, parts, table);
  }

  /** Part `part` of one step of a record's date-pair table (in shared memory): `sort` for every part, then `rows`. */
  recordTable(history: PredictionHistory, table: RecordTable, step: 'sort' | 'rows', part: number): null {
    if (this.universe === null) throw new Error('the universe is not set');
    if (step === 'sort') sortRecordTable(history, table, part);
    else fillRecordTable(history, this.universe.calendar, table, part);
    return null;
  }

  /** Builds the documents, handing them to `emit` in groups of about `chunk`. Returns the count. */
  analyze(context: AnalyzeContext, emit: (rows: SnapshotText[]) => void, chunk = 250): number {
    const universe: UniverseState = {
      regimeAt: (date) => context.regimes[date] ?? null,
      transitions: TransitionTable.fromJSON(context.transitions),
      mlModelAt: signalModelLookup(context.model),
    };
    let pending: SnapshotText[] = [];
    let count = 0;
    const selected = context.symbols == null ? null : new Set(context.symbols);
    for (const p of this.prepared) {
      if (selected !== null && !selected.has(p.input.symbol)) continue;
      const dates = p.input.bars.dates;
      for (const date of context.dates) {
        const i = indexOfSorted(dates, date);
        if (i < MIN_BARS - 1) continue;
        const doc = buildDocument(p, i, universe, context.producedAt);
        // The stored form is encoded from the document itself, with serializeDocument's rounding.
        pending.push(
          context.packed
            ? { symbol: p.input.symbol, analysisDate: date, doc: '', packed: encodeSnapshotDoc(doc, storedNumber) }
            : { symbol: p.input.symbol, analysisDate: date, doc: serializeDocument(doc) },
        );
        count++;
      }
      if (pending.length >= chunk) {
        emit(context.packed ? oneBuffer(pending) : pending);
        pending = [];
      }
    }
    if (pending.length > 0) emit(context.packed ? oneBuffer(pending) : pending);
    return count;
  }
}

/** The rows with their stored forms copied into one buffer (posted as one transfer, not one copy per row). */
function oneBuffer(rows: SnapshotText[]): SnapshotText[] {
  const all = new Uint8Array(rows.reduce((s, r) => s + (r.packed?.length ?? 0), 0));
  let at = 0;
  return rows.map((r) => {
    if (r.packed === undefined) return r;
    all.set(r.packed, at);
    at += r.packed.length;
    return { ...r, packed: all.subarray(at - r.packed.length, at) };
  });
}

/** The buffers a chunk of rows holds (to transfer them). */
export function rowBuffers(rows: readonly SnapshotText[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const r of rows) if (r.packed) buffers.add(r.packed.buffer as ArrayBuffer);
  return [...buffers];
}

/** The pipeline's messages to a batch (see analyze-worker.ts). */
export type BatchRequest =
  | { type: 'universe'; universe: PackedUniverse }
  | { type: 'add'; symbols: PackedSymbol[] }
  | { type: 'load' }
  | { type: 'fit'; samples: SampleSet; plan: SignalModelPlan; count: number }
  | { type: 'recordTable'; history: PredictionHistory; table: RecordTable; step: 'sort' | 'rows'; part: number }
  | { type: 'record'; history: PredictionHistory; through: number; part: number; parts: number; table?: RecordTable | null }
  | { type: 'analyze'; context: AnalyzeContext };

/** Messages that expect no answer: symbols are prepared as they arrive, while the pipeline packs the next. */
export const isNotice = (m: BatchRequest): m is Extract<BatchRequest, { type: 'universe' | 'add' }> => m.type === 'universe' || m.type === 'add';

/**
 * A batch's message handler, the same in a worker thread and inline: a notice returns undefined, and its
 * error is thrown by the next request instead; a request returns its answer (`analyze` hands documents
 * to `onRows` as it goes and answers their count).
 */
export function batchServer(batch = new AnalysisBatch()): (message: BatchRequest, onRows: (rows: SnapshotText[]) => void) => unknown {
  let deferred: unknown = null;
  return (message, onRows) => {
    if (isNotice(message)) {
      if (deferred !== null) return undefined;
      try {
        if (message.type === 'universe') batch.setUniverse(message.universe);
        else batch.addPacked(message.symbols);
      } catch (err) {
        deferred = err;
      }
      return undefined;
    }
    if (deferred !== null) throw deferred;
    switch (message.type) {
      case 'load':
        return batch.finish();
      case 'fit':
        return batch.fit(message.samples, message.plan, message.count);
      case 'record':
        return batch.record(message.history, message.through, message.part, message.parts, message.table ?? null);
      case 'recordTable':
        return batch.recordTable(message.history, message.table, message.step, message.part);
      case 'analyze':
        return batch.analyze(message.context, onRows);
    }
  };
}

export function concatSamples(parts: readonly SampleSet[]): SampleSet {
  const n = parts.reduce((s, p) => s + p.n, 0);
  const x = new Float64Array(n * FEATURE_COUNT);
  const y = new Uint8Array(n);
  const time = new Int32Array(n);
  let at = 0;
  for (const p of parts) {
    x.set(p.x, at * FEATURE_COUNT);
    y.set(p.y, at);
    time.set(p.time, at);
    at += p.n;
  }
  return { n, x, y, time };
}
