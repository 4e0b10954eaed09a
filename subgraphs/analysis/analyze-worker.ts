/**
 * Worker-thread entry of the analysis pipeline: holds one AnalysisBatch and answers the pipeline's
 * messages (BatchRequest, see analyze-batch.ts and pipeline.ts). Notices (`universe`, `add`) get no answer;
 * a request is answered by `done` with its value (the load pass's samples transferred, not copied), after
 * `rows` messages while `analyze` runs (documents in their stored form transferred in one buffer per
 * chunk), or by `error`.
 */
import { parentPort } from 'node:worker_threads';
import { batchServer, isNotice, rowBuffers, type BatchRequest, type LoadResult } from './analyze-batch.js';

const port = parentPort;
if (!port) throw new Error('analyze-worker must run in a worker thread');
const serve = batchServer();

port.on('message', (message: BatchRequest) => {
  try {
    const value = serve(message, (rows) => port.postMessage({ type: 'rows', rows }, rowBuffers(rows)));
    if (isNotice(message)) return;
    if (message.type === 'load') {
      const { x, y, time } = (value as LoadResult).samples;
      port.postMessage({ type: 'done', value }, [x.buffer as ArrayBuffer, y.buffer as ArrayBuffer, time.buffer as ArrayBuffer]);
    } else {
      port.postMessage({ type: 'done', value });
    }
  } catch (err) {
    port.postMessage({ type: 'error', message: err instanceof Error ? err.stack ?? err.message : String(err) });
  }
});
