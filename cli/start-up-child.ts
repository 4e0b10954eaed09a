/**
 * The start-up steps in a process of their own (npm start forks it when they have bulk work to do, see
 * startPlatform's `startUpInChild`): runs cli/start-up-steps.ts's steps on the environment's config for the
 * subgraphs named in its arguments, sends its progress and then its report to the parent over IPC, and
 * exits, leaving the batch work's native memory behind. Ctrl-C (SIGINT from the terminal or the parent's
 * "abort") stops it after the current step; it exits at once when the parent is gone.
 */
import { loadConfig, SUBGRAPHS, type Subgraph } from '../subgraphs/platform/config.js';
import { isStorageFull } from '../subgraphs/platform/db.js';
import type { StartUpCommand, StartUpMessage } from './start-up-fork.js';

async function main(): Promise<void> {
  const send = (message: StartUpMessage) =>
    new Promise<void>((resolve, reject) => {
      if (!process.send) return reject(new Error('cli/start-up-child.js runs as a child of npm start (an IPC channel)'));
      process.send(message, undefined, {}, (err) => (err ? reject(err) : resolve()));
    });
  // The parent gone (killed, crashed, a forced exit): nobody waits for the steps any more.
  process.on('disconnect', () => process.exit(1));
  const progress = (message: StartUpMessage) => void send(message).catch(() => undefined);
  const stop = new AbortController();
  process.on('SIGINT', () => stop.abort());
  process.on('SIGTERM', () => stop.abort());
  process.on('message', (command: StartUpCommand) => command.type === 'abort' && stop.abort());
  try {
    // Loaded after the handlers above (it takes a second or two): a Ctrl-C or an abort meanwhile is kept.
    const { runStartUpStepsAlone } = await import('./start-up-steps.js');
    const subgraphs = process.argv.slice(2).filter((a): a is Subgraph => (SUBGRAPHS as readonly string[]).includes(a));
    const report = await runStartUpStepsAlone(loadConfig(), subgraphs, {
      signal: stop.signal,
      onDemoProgress: (done, total) => progress({ type: 'progress', step: 'demo', done, total }),
      onAnalysisProgress: (phase, done, total) => progress({ type: 'progress', step: 'analysis', phase, done, total }),
    });
    await send({ type: 'report', report });
    process.exit(0);
  } catch (err) {
    await send({ type: 'error', message: err instanceof Error ? err.message : String(err), storageFull: isStorageFull(err) }).catch(() => undefined);
    process.exit(1);
  }
}

void main();
