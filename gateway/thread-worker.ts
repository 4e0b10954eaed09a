/**
 * The gateway thread's entry (thread.ts starts it): loads the gateway's modules at once, builds the
 * gateway origin from the configuration the `start` message gives (which may come much later: npm start
 * prepares the thread while its first start's steps run), listens, posts its URL, and on `close` drains
 * and closes the origin, then says so.
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import type { Config } from '../subgraphs/platform/config.js';
import type { FromGatewayThread, ToGatewayThread } from './thread.js';

if (!parentPort) throw new Error('thread-worker.ts runs as the gateway thread (gateway/thread.ts starts it)');
const port: MessagePort = parentPort;
const say = (message: FromGatewayThread) => port.postMessage(message);
const loading = import('./gateway.js');
loading.catch(() => undefined); // reported by run() once started

async function run(config: Config): Promise<void> {
  const { buildGatewayOrigin } = await loading;
  const app = await buildGatewayOrigin(config);
  const url = await app.listen({ host: config.host, port: config.ports.gateway });
  port.on('message', (message: ToGatewayThread) => {
    if (message.type !== 'close') return;
    app.close().then(
      () => say({ type: 'closed' }),
      (err: unknown) => {
        say({ type: 'failed', message: `closing the gateway: ${err instanceof Error ? err.message : String(err)}` });
        process.exit(1);
      },
    );
  });
  say({ type: 'listening', url });
}

port.once('message', (message: ToGatewayThread) => {
  if (message.type !== 'start') return;
  run(message.config).catch((err: unknown) => {
    say({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  });
});
