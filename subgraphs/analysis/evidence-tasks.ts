/**
 * The work of the evidence step (cli/evidence-history.ts refreshEvidence) that needs no store, as tasks that
 * run on the calling thread or on a worker thread (evidence-worker.ts) alike: pure functions of plain data,
 * so a task gives the same answer, bit for bit, on either.
 *
 * - `reduce`: stored documents (evidence-load.ts storedDocsOn) decoded, parsed and reduced to what each
 *   measurement needs: the state outputs of a document on a date of the evidence tables, the trade of one on
 *   a date of the candidate odds (after a `setup` giving those dates).
 * - `measure`: halves of the missing evidence tables (evidence-states.ts computeEvidenceTableParts) and the
 *   missing candidate-odds tables (kelly-odds-store.ts).
 *
 * `evidenceThreads` runs them on one worker thread beside the calling thread where the code is compiled
 * JavaScript (TypeScript sources under a test runner run every task inline), and shares the work out
 * between the two: each batch of documents' answer is kept at the batch's place, and the tables' halves are
 * joined by as-of date, so the answer is the same whichever thread did which part.
 */
import { Worker } from 'node:worker_threads';
import type { AnalysisDocument } from './engine/document.js';
import { joinEvidenceTables, type EvidenceTableParts } from './engine/evidence/states.js';
import type { EvidenceTable } from './engine/evidence/state-evidence.js';
import { storedDocText, sliceStoredDocs, type StoredDocs, type StoreUniverse } from './evidence-load.js';
import { computeEvidenceTableParts, stateOutputs, type StateOutputs, type TablesPlan } from './evidence-states.js';
import { computeCandidateOdds, tradeCandidate, type OddsPlan } from '../allocation/kelly-odds-store.js';
import type { CandidateOddsTable } from '../allocation/engine/kelly-odds.js';
import type { Candidate } from '../allocation/engine/types.js';

/** The reduced documents of a batch, in the batch's order. */
export interface Reduced {
  outputs: StateOutputs[];
  candidates: Candidate[];
}

/** What the evidence step measures once the documents are reduced (see `measure`). */
export interface Measure {
  tables: TablesPlan;
  universe: StoreUniverse;
  outputs: StateOutputs[];
  /** Missing as-of dates whose states half is computed here. */
  states: string[];
  /** Missing as-of dates whose probabilities half is computed here. */
  probabilities: string[];
  /** The candidate odds to compute here, with the trades of the documents; null for none. */
  odds: { plan: OddsPlan; candidates: Candidate[] } | null;
  replicates?: number;
}

/** A measure's answer; an odds failure is reported apart (the tables are stored before the odds). */
export interface Measured {
  parts: EvidenceTableParts;
  odds: CandidateOddsTable[] | null;
  oddsError: string | null;
}

export type EvidenceTask =
  | { type: 'setup'; forTables: string[]; forOdds: string[] }
  | { type: 'reduce'; docs: StoredDocs }
  | { type: 'measure'; measure: Measure };

/** A thread's state: the dates of each measurement (from `setup`). */
export interface TaskState {
  forTables: ReadonlySet<string>;
  forOdds: ReadonlySet<string>;
}

export function newTaskState(): TaskState {
  return { forTables: new Set(), forOdds: new Set() };
}

/** Runs one task (see the file comment). */
export function runEvidenceTask(state: TaskState, task: EvidenceTask): unknown {
  switch (task.type) {
    case 'setup':
      state.forTables = new Set(task.forTables);
      state.forOdds = new Set(task.forOdds);
      return null;
    case 'reduce':
      return reduceDocs(state, task.docs);
    case 'measure':
      return measure(task.measure);
  }
}

/** Each document decoded, parsed and reduced (see the file comment). */
export function reduceDocs(state: TaskState, docs: StoredDocs): Reduced {
  const out: Reduced = { outputs: [], candidates: [] };
  for (let i = 0; i < docs.symbols.length; i++) {
    const doc = JSON.parse(storedDocText(docs, i)) as AnalysisDocument;
    if (state.forTables.has(doc.analysis_date)) out.outputs.push(stateOutputs(doc));
    if (state.forOdds.has(doc.analysis_date)) {
      const c = tradeCandidate(doc as unknown as Record<string, unknown>);
      if (c !== null) out.candidates.push(c);
    }
  }
  return out;
}

/** The halves of the evidence tables and the candidate odds a measure asks for. */
export function measure(m: Measure): Measured {
  const parts = computeEvidenceTableParts(m.tables, m.universe, m.outputs, { states: m.states, probabilities: m.probabilities }, m.replicates);
  if (m.odds === null) return { parts, odds: null, oddsError: null };
  try {
    return { parts, odds: computeCandidateOdds(m.odds.plan, m.universe.equities, m.odds.candidates).tables, oddsError: null };
  } catch (err) {
    return { parts, odds: null, oddsError: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
}

/** Documents per batch shared out between the threads (a few tens of milliseconds of work). */
const BATCH = 400;
/** Batches handed to the worker ahead of its answers (it never waits for the calling thread). */
const AHEAD = 3;
/** The evidence step's threads (see the file comment). */
export interface EvidenceThreads {
  /** Queues stored documents to be reduced (in the order given). */
  add(docs: StoredDocs): void;
  /**
   * Lets the worker take up to `ahead` batches (default AHEAD), and reduces on this thread the queued
   * batches beyond those; `ahead` Infinity hands the worker everything queued (before this thread does
   * other work).
   */
  share(ahead?: number): Promise<void>;
  /** Every queued document reduced (shared out to the end), in the order added. */
  reduced(): Promise<Reduced>;
  /**
   * The missing evidence tables of `tables` and the missing candidate odds of `odds` (null: none), the
   * worker computing the probabilities halves of the tables and the odds while this thread computes the
   * states halves. `odds` is null when none was asked for; `oddsError` says why the odds failed.
   */
  measure(
    tables: TablesPlan,
    universe: StoreUniverse,
    outputs: StateOutputs[],
    odds: { plan: OddsPlan; candidates: Candidate[] } | null,
    replicates?: number,
  ): Promise<{ tables: EvidenceTable[]; odds: CandidateOddsTable[] | null; oddsError: Error | null }>;
  close(): Promise<void>;
}

/** A worker thread of evidence-worker.ts, answering tasks in order. */
interface TaskWorker {
  run(task: EvidenceTask, transfer?: ArrayBuffer[]): Promise<unknown>;
  /** Tasks sent and not answered yet. */
  pending(): number;
  close(): Promise<void>;
}

/** Compiled JavaScript can start the worker; TypeScript sources under a test runner run inline. */
function workerUrl(): URL | null {
  const url = new URL('./evidence-worker.js', import.meta.url);
  return import.meta.url.endsWith('.js') ? url : null;
}

function startWorker(url: URL): TaskWorker {
  const worker = new Worker(url);
  const waiting: Array<{ resolve: (v: unknown) => void; reject: (e: Error) => void }> = [];
  let closing = false;
  /** Why the worker can answer no more: every task then fails at once instead of waiting for it. */
  let dead: Error | null = null;
  const failAll = (err: Error) => {
    dead ??= err;
    for (const w of waiting.splice(0)) w.reject(err);
  };
  worker.on('error', failAll);
  worker.on('messageerror', failAll);
  worker.on('exit', (code) => failAll(new Error(closing ? 'evidence worker stopped' : `evidence worker exited with code ${code}`)));
  worker.on('message', (m: { ok: true; value: unknown } | { ok: false; message: string }) => {
    const w = waiting.shift();
    if (!w) return;
    if (m.ok) w.resolve(m.value);
    else w.reject(new Error(m.message));
  });
  return {
    run(task, transfer = []) {
      return new Promise((resolve, reject) => {
        if (dead) return reject(dead);
        waiting.push({ resolve, reject });
        worker.postMessage(task, transfer);
      });
    },
    pending: () => waiting.length,
    async close() {
      closing = true;
      await worker.terminate();
    },
  };
}

/**
 * The threads for one evidence step with the dates of each measurement; `workers` 0 runs everything on the
 * calling thread (default: one worker where the code is compiled).
 */
export function evidenceThreads(forTables: readonly string[], forOdds: readonly string[], options: { workers?: 0 | 1 } = {}): EvidenceThreads {
  const url = workerUrl();
  const worker = url !== null && options.workers !== 0 ? startWorker(url) : null;
  const state = newTaskState();
  const setup: EvidenceTask = { type: 'setup', forTables: [...forTables], forOdds: [...forOdds] };
  runEvidenceTask(state, setup);
  worker?.run(setup).catch(() => {}); // a failed setup fails every later task

  const queue: Array<{ at: number; docs: StoredDocs }> = [];
  const answers: Array<Reduced | Promise<Reduced> | undefined> = [];
  let added = 0;

  const toWorker = (w: TaskWorker, ahead: number) => {
    while (queue.length > 0 && w.pending() < ahead) {
      const { at, docs } = queue.shift() as { at: number; docs: StoredDocs };
      const answer = w.run({ type: 'reduce', docs }, [docs.bytes.buffer as ArrayBuffer, docs.ends.buffer as ArrayBuffer]) as Promise<Reduced>;
      answer.catch(() => {}); // awaited in reduced(), which reports the failure
      answers[at] = answer;
    }
  };
  /** Hands the worker what it may take, then reduces the last queued batch here; false when none was left. */
  const step = (ahead: number): boolean => {
    if (worker) toWorker(worker, ahead);
    const next = queue.pop();
    if (!next) return false;
    answers[next.at] = reduceDocs(state, next.docs);
    return true;
  };
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  return {
    add(docs) {
      for (let from = 0; from < docs.symbols.length; from += BATCH) {
        queue.push({ at: added++, docs: sliceStoredDocs(docs, from, Math.min(from + BATCH, docs.symbols.length)) });
      }
    },
    async share(ahead = AHEAD) {
      if (worker) toWorker(worker, ahead);
      // This thread takes the batches the worker would not start on soon.
      while (queue.length > (worker ? ahead : 0) && step(ahead)) await turn();
    },
    async reduced() {
      while (step(AHEAD)) await turn();
      const parts = await Promise.all(answers);
      const out: Reduced = { outputs: [], candidates: [] };
      for (const part of parts) {
        if (!part) continue;
        for (const o of part.outputs) out.outputs.push(o);
        for (const c of part.candidates) out.candidates.push(c);
      }
      return out;
    },
    async measure(tables, universe, outputs, odds, replicates) {
      // The states halves take this thread about as long as the probabilities halves and the odds take the
      // worker (which starts on them first).
      const task: EvidenceTask = { type: 'measure', measure: { tables, universe, outputs, states: [], probabilities: tables.missing, odds, replicates } };
      const answer = worker ? (worker.run(task) as Promise<Measured>) : null;
      answer?.catch(() => {}); // awaited below
      const here = computeEvidenceTableParts(tables, universe, outputs, { states: tables.missing }, replicates);
      const there = answer ? await answer : measure(task.measure);
      return {
        tables: joinEvidenceTables(here.states, there.parts.probabilities),
        odds: there.odds,
        oddsError: there.oddsError === null ? null : new Error(there.oddsError),
      };
    },
    async close() {
      await worker?.close();
    },
  };
}
