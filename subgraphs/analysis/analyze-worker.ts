/**
 * Worker-thread entry of the analysis pipeline: holds one AnalysisBatch and answers the pipeline's
 * `load` and `analyze` messages (see pipeline.ts for the protocol).
 */
import { parentPort } from 'node:worker_threads';
import { AnalysisBatch, type AnalyzeContext } from './analyze-batch.js';
import type { SymbolInput } from './engine/prepared.js';

export type WorkerRequest = { type: 'load'; inputs: SymbolInput[] } | { type: 'analyze'; context: AnalyzeContext };

const port = parentPort;
if (!port) throw new Error('analyze-worker must run in a worker thread');
const batch = new AnalysisBatch();

port.on('message', (message: WorkerRequest) => {
  try {
    if (message.type === 'load') {
      const result = batch.load(message.inputs);
      const { x, y, time } = result.samples;
      port.postMessage({ type: 'loaded', result }, [x.buffer as ArrayBuffer, y.buffer as ArrayBuffer, time.buffer as ArrayBuffer]);
    } else {
      const count = batch.analyze(message.context, (rows) => port.postMessage({ type: 'rows', rows }));
      port.postMessage({ type: 'analyzed', count });
    }
  } catch (err) {
    port.postMessage({ type: 'error', message: err instanceof Error ? err.stack ?? err.message : String(err) });
  }
});
