/**
 * The headers Hive Gateway (gateway/hive/gateway.config.ts) sends a subgraph for a caller, as its Node
 * server hands them over: a Fetch Request and a context holding the Node request. A real HTTP server
 * on port 0 receives the call, so the address is a real connection's.
 */
import http from 'node:http';
import type net from 'node:net';
import { subgraphHeaders } from '../../../gateway/hive/gateway.config.js';

async function headersFor(callerHeaders: Record<string, string>): Promise<Record<string, string | null>> {
  let seen: Record<string, string | null> = {};
  const server = http.createServer((req, res) => {
    const request = new Request(`http://127.0.0.1${req.url ?? '/'}`, { headers: req.headers as Record<string, string> });
    seen = subgraphHeaders({ request, context: { req } });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await fetch(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}/graphql`, { headers: callerHeaders });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  return seen;
}

it("passes on the caller's token and trace headers and the connection's address, nothing else of theirs", async () => {
  const headers = await headersFor({ authorization: 'Bearer t', 'x-trace-id': 'abc', cookie: 'session=secret', 'x-forwarded-for': '203.0.113.9' });
  expect(headers).toEqual({ authorization: 'Bearer t', traceparent: null, 'x-trace-id': 'abc', 'x-forwarded-for': '127.0.0.1' });
});
