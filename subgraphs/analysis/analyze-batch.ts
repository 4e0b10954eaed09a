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
 * Prepared series stay in the batch between the passes, so bars cross a thread boundary once.
 */
import type { RegimeDetail } from './engine/document.js';
import { FEATURE_COUNT, labelledSamples, type SampleSet } from './engine/features.js';
import { prepareSymbol, type PreparedSymbol, type SymbolInput } from './engine/prepared.js';
import { indexOfSorted } from './engine/sorted.js';
import { signalModelLookup, type SignalModel } from './engine/signal-model.js';
import { buildDocument, serializeDocument, type UniverseState } from './engine/snapshot.js';
import { TransitionTable, type TransitionTableJson } from './engine/transitions.js';
import { isWeekComplete } from './engine/weekly.js';

/** Fewer bars than this give no document (nothing meaningful can be said about two weeks of prices). */
export const MIN_BARS = 30;

/** What the load pass reports back. */
export interface LoadResult {
  symbols: number;
  transitions: TransitionTableJson;
  samples: SampleSet;
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
}

/** A stored document as JSON text (serialised where it was computed). */
export interface SnapshotText {
  symbol: string;
  analysisDate: string;
  doc: string;
}

export class AnalysisBatch {
  private prepared: PreparedSymbol[] = [];

  load(inputs: readonly SymbolInput[]): LoadResult {
    const table = new TransitionTable();
    const parts: SampleSet[] = [];
    for (const input of inputs) {
      if (input.bars.close.length < MIN_BARS) continue;
      const p = prepareSymbol(input);
      this.prepared.push(p);
      const lastDate = p.input.bars.dates[p.input.bars.dates.length - 1];
      table.add(p.weekly, p.stages, { lastWeekComplete: isWeekComplete(lastDate, null) });
      parts.push(labelledSamples(p));
    }
    return { symbols: this.prepared.length, transitions: table.toJSON(), samples: concatSamples(parts) };
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
        pending.push({ symbol: p.input.symbol, analysisDate: date, doc: serializeDocument(doc) });
        count++;
      }
      if (pending.length >= chunk) {
        emit(pending);
        pending = [];
      }
    }
    if (pending.length > 0) emit(pending);
    return count;
  }
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
