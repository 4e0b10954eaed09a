/**
 * Slow clients are cut at the shell's deadlines (platform/http-limits.ts, ServerTimeouts): partial
 * headers, a slow upload and a silent connection get 408 REQUEST_TIMEOUT in the error shape (with an
 * x-trace-id and `connection: close`) and lose their connection within the deadline plus Node's 1 s
 * check interval; an idle keep-alive connection is closed after KEEP_ALIVE. Over raw sockets (node:net),
 * against the real HTTP shell with the deadlines shortened to 2 s (createOrigin's `timeouts`), so the
 * test waits seconds instead of the documented 30 s; the documented defaults are checked on a real origin.
 *
 * DESIGN section 5 ("non-2xx body": the error shape on every origin; "trace id": every response);
 * README "Configuration" (requests must arrive within 30 s).
 */
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildGatewayOrigin } from '../../gateway/gateway.js';
import { DEFAULT_SERVER_TIMEOUTS } from '../../subgraphs/platform/http-limits.js';
import { testConfig } from '../helpers/config.js';
import { expectErrorShape } from '../helpers/http.js';
import { bareOrigin } from '../helpers/origin.js';
import { scaled } from '../helpers/time.js';

const BOUND_MS = 2000;
const KEEP_ALIVE_MS = 1000;
/** Node closes an idle keep-alive connection this long after the advertised timeout (its own margin). */
const NODE_KEEP_ALIVE_MARGIN_MS = 1000;
/** How late past its deadline a connection may still be open (the brief's bound + 2 s, scaled for a busy machine). */
const SLACK_MS = scaled(2000);

let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  app = await bareOrigin('slow-clients', { timeouts: { requestMs: BOUND_MS, keepAliveMs: KEEP_ALIVE_MS } });
  app.post('/upload', async (request) => ({ received: JSON.stringify(request.body).length }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  port = Number(new URL(url).port);
});
afterAll(async () => app?.close());

interface Outcome {
  /** Milliseconds from the connection until the server closed it. */
  closedAfterMs: number;
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
}

/**
 * Connects, writes `first`, then every 200 ms the next piece of `drip` (a string: the same one forever)
 * until the server closes the connection; gives up after the bound plus generous slack, failing the test.
 */
function slowClient(first: string, drip: string | readonly string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const pieces = typeof drip === 'string' ? [] : [...drip];
    let dripper: NodeJS.Timeout | undefined;
    const socket = net.connect(port, '127.0.0.1', () => {
      if (first) socket.write(first);
      if (drip.length === 0) return;
      dripper = setInterval(() => {
        const piece = typeof drip === 'string' ? drip : pieces.shift();
        if (piece === undefined) clearInterval(dripper);
        else if (socket.writable) socket.write(piece);
      }, 200);
    });
    const giveUp = setTimeout(() => {
      clearInterval(dripper);
      socket.destroy();
      reject(new Error(`still open after ${Date.now() - started} ms`));
    }, BOUND_MS + KEEP_ALIVE_MS + NODE_KEEP_ALIVE_MARGIN_MS + SLACK_MS + scaled(5000));
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(dripper);
      clearTimeout(giveUp);
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = (split === -1 ? '' : text.slice(0, split)).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const rest = split === -1 ? '' : text.slice(split + 4);
      resolve({ closedAfterMs: Date.now() - started, status: Number(statusLine.split(' ')[1] ?? 0), headers, body: rest ? (JSON.parse(rest) as Record<string, unknown>) : undefined });
    });
  });
}

function expectCutAtDeadline(outcome: Outcome): void {
  expect(outcome.status).toBe(408);
  expectErrorShape(outcome.body ?? {}, 'REQUEST_TIMEOUT');
  expect(outcome.headers['x-trace-id']).toBe(outcome.body?.trace_id);
  expect(outcome.headers.connection).toBe('close');
  // Not before the deadline (it is the deadline that cut it), and not long after it.
  expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(BOUND_MS - 50);
  expect(outcome.closedAfterMs).toBeLessThanOrEqual(BOUND_MS + SLACK_MS);
}

it('partial headers, one byte at a time, are cut at the deadline with 408 REQUEST_TIMEOUT', async () => {
  expectCutAtDeadline(await slowClient('GET /health HTTP/1.1\r\nhost: localhost\r\nx-slow: ', 'a'));
});

it('a connection that never sends a byte is closed at the deadline', async () => {
  expectCutAtDeadline(await slowClient('', ''));
});

it('a slow upload (headers in full, the body dribbled) is cut at the deadline with 408; one that arrives in full before it is served', async () => {
  // The body in five pieces over about a second: inside the 2 s bound, so it is served.
  const body = '[1,22,333,4444,55555]';
  const served = await slowClient(
    `POST /upload HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`,
    ['[1,', '22,', '333,', '4444,', '55555]'],
  );
  expect(served.status).toBe(200);
  expect(served.body).toEqual({ received: body.length });
  // One that never ends is cut.
  expectCutAtDeadline(await slowClient('POST /upload HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n[', ' '));
});

it('an idle keep-alive connection is closed after KEEP_ALIVE (plus Node\'s own 1 s margin)', async () => {
  const outcome = await slowClient('GET /health HTTP/1.1\r\nhost: localhost\r\n\r\n', '');
  expect(outcome.status).toBe(200);
  expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50);
  expect(outcome.closedAfterMs).toBeLessThanOrEqual(KEEP_ALIVE_MS + NODE_KEEP_ALIVE_MARGIN_MS + SLACK_MS);
});

it('the origins run with the documented deadlines: 30 s for a request and its headers, checked every second, 72 s keep-alive', async () => {
  expect(DEFAULT_SERVER_TIMEOUTS).toEqual({ requestMs: 30_000, headersMs: 30_000, keepAliveMs: 72_000, checkIntervalMs: 1_000 });
  const gateway = await buildGatewayOrigin(testConfig());
  try {
    const server = gateway.server as typeof gateway.server & { connectionsCheckingInterval: number };
    expect({ request: server.requestTimeout, headers: server.headersTimeout, keepAlive: server.keepAliveTimeout, checkEvery: server.connectionsCheckingInterval }).toEqual({
      request: 30_000,
      headers: 30_000,
      keepAlive: 72_000,
      checkEvery: 1_000,
    });
  } finally {
    await gateway.close();
  }
});
