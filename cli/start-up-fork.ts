/**
 * The start-up child's process (cli/start-up-child.ts), seen from npm start: forking it, relaying its
 * progress, forwarding an abort, and its report once it has exited. Kept apart from cli/platform.ts, whose
 * imports (every origin, the gateway, the pipelines; this module loads none of them) take npm start a
 * second or two to load: on a store that does not exist yet the child is forked before they are
 * (cli/start.ts), and it creates the store meanwhile.
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config, Subgraph } from '../subgraphs/platform/config.js';
import { StorageFullError } from '../subgraphs/platform/db.js';
import type { DemoLoadReport, Progress } from '../subgraphs/analysis/market-data.js';
import type { AnalyzeSummary, PipelinePhase, PipelineProgress } from '../subgraphs/analysis/pipeline.js';
import type { DemoBookReport } from './demo-book.js';
import type { EvidenceRefresh } from './evidence-history.js';

/** What the start-up steps did (cli/platform.ts runs them), here or in the start-up child. */
export interface StartUpReport {
  demo: DemoLoadReport | null;
  /** The demo book created on this start (DEMO_DATA, allocation origin), or null when it existed or there is no demo market. */
  demoBook: DemoBookReport | null;
  /**
   * The start-up analysis: one run over the recent trading days still missing (ANALYZE_ON_START_DAYS) and
   * the sampled history days still missing (ANALYZE_HISTORY_EVERY); null when none was.
   */
  analysis: AnalyzeSummary | null;
  /** The sampled history days that run took in, or null when none was missing or the history is off. */
  history: SampledHistory | null;
  /** The evidence measured on start, or null when ANALYZE_HISTORY_EVERY is 0. */
  evidence: EvidenceRefresh | null;
  /** How long each start-up step took, in the order they ran (steps that did not run are absent). */
  timings: StartUpTiming[];
}

/** The sampled history days (every Nth trading day of the whole calendar) a start-up analysis took in. */
export interface SampledHistory {
  every: number;
  dates: number;
  fromDate: string;
  toDate: string;
}

export interface StartUpTiming {
  step: 'migrations' | 'demo market' | 'demo book' | 'analysis' | 'evidence' | 'store settled';
  ms: number;
}

/** The report of start-up steps that did nothing (none were due, or they were stopped before any ran). */
export const emptyStartUpReport = (): StartUpReport => ({ demo: null, demoBook: null, analysis: null, history: null, evidence: null, timings: [] });

/** How a caller follows the start-up steps: their progress, and a signal that stops them. */
export interface StartUpFollow {
  onDemoProgress?: Progress;
  onAnalysisProgress?: PipelineProgress;
  /**
   * Aborting stops the start between steps (after the demo load, or during the start-up analysis,
   * which then rolls back): the platform comes back with nothing listening, ready to be closed.
   */
  signal?: AbortSignal;
}

/**
 * Whether the configured store is an embedded one that does not exist yet: it has everything to do, and
 * the start-up child creates it alone.
 */
export function embeddedStoreIsNew(config: Config): boolean {
  return !config.databaseUrl && Boolean(config.dataDir) && !fs.existsSync(path.join(config.dataDir, 'pglite', 'PG_VERSION'));
}

/** What the start-up child tells its parent over IPC. */
export type StartUpMessage =
  | { type: 'progress'; step: 'demo'; done: number; total: number }
  | { type: 'progress'; step: 'analysis'; phase: PipelinePhase; done: number; total: number }
  | { type: 'report'; report: StartUpReport }
  | { type: 'error'; message: string; storageFull: boolean };

/** What the parent tells the start-up child: stop after the current step (Ctrl-C, SIGTERM). */
export type StartUpCommand = { type: 'abort' };

const START_UP_CHILD_JS = fileURLToPath(new URL('./start-up-child.js', import.meta.url));

/**
 * Runs the start-up steps in a child process (cli/start-up-child.ts, on the environment's config) and
 * resolves with its report once it has exited (the store is then free). Progress is relayed to the
 * callbacks; aborting `signal` tells the child to stop after its current step; the child is killed if
 * this process exits first, and exits itself if this one dies (its IPC channel closes). A child that
 * ends without a report fails the start, saying how it ended.
 */
export function startUpStepsInChild(config: Config, subgraphs: readonly Subgraph[], options: StartUpFollow): Promise<StartUpReport> {
  return new Promise((resolve, reject) => {
    const child = fork(START_UP_CHILD_JS, [...subgraphs], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    const killChild = () => child.kill('SIGKILL');
    process.once('exit', killChild);
    const abort = () => {
      if (child.connected) child.send({ type: 'abort' } satisfies StartUpCommand);
    };
    options.signal?.addEventListener('abort', abort, { once: true });
    if (options.signal?.aborted) abort();
    let report: StartUpReport | undefined;
    let failure: Error | undefined;
    child.on('message', (message: StartUpMessage) => {
      if (message.type === 'progress') {
        if (message.step === 'demo') options.onDemoProgress?.(message.done, message.total);
        else options.onAnalysisProgress?.(message.phase, message.done, message.total);
      } else if (message.type === 'report') report = message.report;
      else failure = message.storageFull ? StorageFullError.of({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }) : new Error(message.message);
    });
    child.on('error', (err) => {
      failure ??= new Error(`the start-up steps could not run in a process of their own: ${err.message}`);
    });
    child.on('exit', (code, signal) => {
      process.off('exit', killChild);
      options.signal?.removeEventListener('abort', abort);
      if (report && code === 0) resolve(report);
      // Stopped on purpose (Ctrl-C reaches the child too): whatever it committed stays, as after an abort.
      else if (options.signal?.aborted && failure === undefined) resolve(emptyStartUpReport());
      else
        reject(
          failure ??
            new Error(`the start-up steps' process (pid ${child.pid}) ${signal ? `was killed by ${signal}` : `exited with code ${code}`} before it finished; the store keeps what it committed, run npm start again`),
        );
    });
  });
}
