/**
 * The gateway origin in a worker thread of its own (npm start's default, GATEWAY_THREAD): the gateway
 * plans, calls the subgraphs and merges their answers on one core while the subgraphs execute GraphQL
 * and read the store on the main thread's. The worker (thread-worker.ts) builds the same origin as
 * buildGatewayOrigin in-process, from the configuration it is given, listens, and says where.
 */
import { Worker } from 'node:worker_threads';
import type { Config, Subgraph } from '../subgraphs/platform/config.js';

/** What the worker says to the thread that started it. */
export type FromGatewayThread = { type: 'listening'; url: string } | { type: 'failed'; message: string } | { type: 'closed' };
/** What the starting thread says to the worker: start with this configuration (once), or close. */
export type ToGatewayThread = { type: 'start'; config: Config } | { type: 'close' };

export interface GatewayThread {
  url: string;
  threadId: number;
  /** Stops accepting requests, drains in-flight ones, then ends the thread. */
  close(): Promise<void>;
}

/**
 * The configuration a gateway gets when subgraphs of the same `npm start` run beside it: each of those
 * is reached where it actually listens (ports may be 0 or differ from the supergraph's URLs), the
 * others where SUBGRAPH_<NAME>_URL or the supergraph says.
 */
export function withLocalSubgraphs(config: Config, urls: Partial<Record<Subgraph, string>>): Config {
  const local = Object.fromEntries(Object.entries(urls).map(([s, url]) => [s, `${url}/graphql`]));
  return { ...config, gateway: { ...config.gateway, subgraphUrls: { ...config.gateway.subgraphUrls, ...local } } };
}

/** A gateway thread loading its modules, not started yet (prepareGatewayThread). */
export interface PreparedGatewayThread {
  /**
   * Starts the gateway origin on `config` and resolves once it listens. `onUnexpectedExit` is called if
   * the thread ends later without close() (an error nothing caught, say), with the reason. A start that
   * fails (a bad supergraph or manifest, a port in use, modules that failed to load) rejects with the
   * worker's message. At most once.
   */
  start(config: Config, onUnexpectedExit: (reason: string) => void): Promise<GatewayThread>;
}

/**
 * A worker thread for the gateway origin that starts loading the gateway's modules now, to be started
 * later (npm start prepares it while the start-up steps run). Until it is started it does not keep the
 * process alive: a start that fails or is stopped before exits without it.
 */
export function prepareGatewayThread(): PreparedGatewayThread {
  const worker = new Worker(new URL('./thread-worker.js', import.meta.url));
  let failure: string | undefined;
  let exitCode: number | undefined;
  let closing = false;
  let listening = false;
  let onMessage: (message: FromGatewayThread) => void = () => {};
  let onExit: (code: number) => void = () => {};
  worker.on('message', (message: FromGatewayThread) => onMessage(message));
  worker.on('error', (err) => {
    failure ??= err.stack ?? err.message;
  });
  worker.on('exit', (code) => {
    exitCode = code;
    onExit(code);
  });
  // After the listeners: adding a 'message' listener refs the thread again.
  worker.unref();
  let started = false;
  return {
    start(config, onUnexpectedExit) {
      if (started) return Promise.reject(new Error('the gateway thread was started already'));
      started = true;
      let closed: (failure?: string) => void = () => {};
      const whenClosed = new Promise<void>((resolve, reject) => (closed = (reason) => (reason === undefined ? resolve() : reject(new Error(reason)))));
      whenClosed.catch(() => undefined); // observed by close(); unobserved when the thread never listened
      return new Promise<GatewayThread>((resolve, reject) => {
        onMessage = (message) => {
          if (message.type === 'listening') {
            listening = true;
            resolve({
              url: message.url,
              threadId: worker.threadId,
              close: async () => {
                if (closing) return whenClosed;
                closing = true;
                worker.postMessage({ type: 'close' } satisfies ToGatewayThread);
                await whenClosed;
              },
            });
          } else if (message.type === 'failed') {
            failure = message.message;
          } else if (message.type === 'closed') {
            void worker.terminate();
          }
        };
        onExit = (code) => {
          closed(closing && failure !== undefined ? failure : undefined);
          const reason = failure ?? `the gateway thread exited with code ${code}`;
          if (!listening) reject(new Error(reason));
          else if (!closing) onUnexpectedExit(reason);
        };
        if (exitCode !== undefined) return onExit(exitCode);
        worker.ref();
        worker.postMessage({ type: 'start', config } satisfies ToGatewayThread);
      });
    },
  };
}
