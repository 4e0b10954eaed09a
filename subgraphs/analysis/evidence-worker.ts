/**
 * Worker-thread entry of the evidence step (evidence-tasks.ts): runs each task it is sent, in order, and
 * answers `{ ok: true, value }` or `{ ok: false, message }`.
 */
import { parentPort } from 'node:worker_threads';
import { newTaskState, runEvidenceTask, type EvidenceTask } from './evidence-tasks.js';

const port = parentPort;
if (!port) throw new Error('evidence-worker must run in a worker thread');
const state = newTaskState();

port.on('message', (task: EvidenceTask) => {
  try {
    port.postMessage({ ok: true, value: runEvidenceTask(state, task) });
  } catch (err) {
    port.postMessage({ ok: false, message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
