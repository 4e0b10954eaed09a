/**
 * Identical subgraph fetches in flight share one request: a real stand-in subgraph on port 0 counts
 * the requests it gets and holds every answer until the test releases it, so the gateway's callers are
 * all waiting at once. Callers with different Authorization never share a request, a mutation is
 * never shared, an upstream failure reaches every waiting caller, and nothing is kept once the answer
 * is in (no cache). GATEWAY_DEDUPE=false sends every fetch.
 */
import http from 'node:http';
import net from 'node:net';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { testConfig } from '../helpers/config.js';
import { graphql, request } from '../helpers/http.js';
import { eventually } from '../helpers/time.js';

interface Held {
  path: string;
  authorization: string | undefined;
  traceId: string | undefined;
  body: { query: string; variables?: Record<string, unknown> };
  answer(status: number, body: unknown): void;
}

/** The analysis and allocation subgraphs' stand-in: records each request and holds its answer. */
let held: Held[] = [];
let fake: http.Server;
const on: RunningPlatform[] = [];

beforeAll(async () => {
  fake = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
      held.push({
        path: req.url ?? '',
        authorization: header('authorization'),
        traceId: header('x-trace-id'),
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Held['body'],
        answer: (status, body) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        },
      });
    });
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const p of on) await p.close();
  fake.closeAllConnections();
  await new Promise((resolve) => fake.close(resolve));
});
beforeEach(() => {
  held = [];
});

async function gateway(env: Record<string, string> = {}): Promise<string> {
  const port = (fake.address() as net.AddressInfo).port;
  const platform = await startPlatform(
    testConfig({
      DEMO_DATA: 'false',
      SUBGRAPH_ANALYSIS_URL: `http://127.0.0.1:${port}/analysis`,
      SUBGRAPH_ALLOCATION_URL: `http://127.0.0.1:${port}/allocation`,
      ...env,
    }),
    ['gateway'],
  );
  on.push(platform);
  return platform.urls.gateway as string;
}

let url: string;
beforeAll(async () => {
  url = await gateway();
});

interface Counts {
  sent: number;
  shared: number;
}
const counts = async (at = url): Promise<Counts> => (await request<{ subgraph_requests: Counts }>(`${at}/`)).body.subgraph_requests;

/**
 * Waits (bounded) until the gateway has made `fetches` more subgraph fetches than `before`, sent or
 * shared, and the stand-in holds every request sent.
 */
async function fetchesMade(before: Counts, fetches: number, at = url): Promise<Counts> {
  let now = before;
  const reached = await eventually(async () => {
    now = await counts(at);
    return now.sent + now.shared - before.sent - before.shared >= fetches && held.length >= now.sent - before.sent;
  }, 10_000, 20);
  if (!reached) throw new Error(`the gateway made ${now.sent + now.shared - before.sent - before.shared} of ${fetches} fetches; ${held.length} held`);
  return now;
}

const SECURITY = 'query Page($symbol: String!) { security(symbol: $symbol) { name } }';
const ask = (headers: Record<string, string> = {}, at = url) => graphql<{ security: { name: string } }>(`${at}/graphql`, SECURITY, { symbol: 'ACME' }, headers);
/** Answers every held analysis request with a name that says which token asked. */
const answerPerToken = () => {
  for (const h of held.splice(0)) h.answer(200, { data: { security: { name: `Corp for ${h.authorization ?? 'nobody'}` } } });
};

it('identical queries in flight at once share one subgraph request, and every caller gets the whole answer', async () => {
  const before = await counts();
  const callers = Array.from({ length: 8 }, (_, i) => ask({ authorization: 'Bearer same', 'x-trace-id': `caller-${i}` }));
  const after = await fetchesMade(before, 8);
  expect(held).toHaveLength(1);
  expect(after.sent - before.sent).toBe(1);
  expect(after.shared - before.shared).toBe(7);
  // The one upstream request carries the first caller's trace id.
  expect(held[0].traceId).toMatch(/^caller-\d$/);
  answerPerToken();
  const answers = await Promise.all(callers);
  for (const [i, a] of answers.entries()) {
    expect(a.status).toBe(200);
    expect(a.body).toEqual({ data: { security: { name: 'Corp for Bearer same' } } });
    // Each caller's own response keeps its own trace id.
    expect(a.headers.get('x-trace-id')).toBe(`caller-${i}`);
  }
});

it('callers with different Authorization never share a request: each gets the answer for its own token', async () => {
  const before = await counts();
  const tokens = ['Bearer alice', 'Bearer bob', 'Bearer alice', 'Bearer bob', undefined, undefined];
  const callers = tokens.map((t) => ask(t ? { authorization: t } : {}));
  await fetchesMade(before, tokens.length);
  expect(held.map((h) => h.authorization ?? 'nobody').sort()).toEqual(['Bearer alice', 'Bearer bob', 'nobody']);
  answerPerToken();
  const answers = await Promise.all(callers);
  expect(answers.map((a) => a.body.data?.security.name)).toEqual(tokens.map((t) => `Corp for ${t ?? 'nobody'}`));
});

it('nothing is kept once the answer is in: the same query asked again goes to the subgraph again', async () => {
  const first = ask({ authorization: 'Bearer same' });
  await eventually(async () => held.length === 1, 10_000, 10);
  answerPerToken();
  expect((await first).body.data?.security.name).toBe('Corp for Bearer same');
  const second = ask({ authorization: 'Bearer same' });
  await eventually(async () => held.length === 1, 10_000, 10);
  expect(held).toHaveLength(1);
  answerPerToken();
  expect((await second).body.data?.security.name).toBe('Corp for Bearer same');
});

it('an upstream failure reaches every caller that waited on the shared request', async () => {
  const before = await counts();
  const callers = Array.from({ length: 4 }, () => ask({ authorization: 'Bearer same' }));
  await fetchesMade(before, 4);
  expect(held).toHaveLength(1);
  held.splice(0)[0].answer(503, { error: 'down' });
  for (const a of await Promise.all(callers)) {
    expect(a.body.data).toEqual({ security: null });
    expect(a.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');
  }
});

it('a mutation is never shared, even when identical and in flight at once', async () => {
  const MUTATION = 'mutation Create($input: CreatePortfolioInput!) { createPortfolio(input: $input) { id } }';
  const input = { name: 'Core', cash: 1000, holdings: [] };
  const before = await counts();
  const callers = Array.from({ length: 3 }, () => graphql<{ createPortfolio: { id: string } }>(`${url}/graphql`, MUTATION, { input }, { authorization: 'Bearer same' }));
  const after = await fetchesMade(before, 3);
  expect(held.map((h) => h.path)).toEqual(['/allocation', '/allocation', '/allocation']);
  expect(after.shared).toBe(before.shared);
  for (const [i, h] of held.splice(0).entries()) h.answer(200, { data: { createPortfolio: { id: `book-${i}` } } });
  expect((await Promise.all(callers)).map((a) => a.body.data?.createPortfolio.id).sort()).toEqual(['book-0', 'book-1', 'book-2']);
});

it('GATEWAY_DEDUPE=false sends every fetch', async () => {
  const off = await gateway({ GATEWAY_DEDUPE: 'false' });
  const before = await counts(off);
  const callers = Array.from({ length: 4 }, () => ask({ authorization: 'Bearer same' }, off));
  const after = await fetchesMade(before, 4, off);
  expect(held).toHaveLength(4);
  expect(after.shared).toBe(before.shared);
  answerPerToken();
  for (const a of await Promise.all(callers)) expect(a.body.data?.security.name).toBe('Corp for Bearer same');
});
