/**
 * A second router for real: Hive Gateway (@graphql-hive/gateway, CLI `hive-gateway supergraph`, with
 * gateway/hive/gateway.config.ts) over a supergraph composed with the URLs where the three subgraphs
 * listen (port 0), next to the gateway origin over the same supergraph. Every example operation
 * (examples/operations/<name>.graphql with its <name>.variables.json) must answer exactly the same,
 * status, data and errors, through both: for a partner with a real token (one ID token for all three
 * audiences, signed by a test issuer whose JWKS the origins fetch; Hive Gateway passes it on through
 * the config's header propagation, or the partner's data would differ), for an anonymous caller, and
 * for an expired token (the subgraphs' refusals, relayed with their code and serviceName by both).
 * The caller's X-Trace-Id and traceparent reach the subgraphs through Hive Gateway too.
 * Hive Gateway runs as a child process in its own process group, killed with it at the end.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parse, OperationTypeNode, type OperationDefinitionNode } from 'graphql';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { compose, type SubgraphSdls } from '../../schema/registry.js';
import { SUBGRAPHS } from '../../subgraphs/platform/config.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { spawnChild, type Child } from '../helpers/child.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request } from '../helpers/http.js';
import { startTestIssuer, TEST_OIDC_AUDIENCE, type TestIssuer } from '../helpers/oidc.js';

const OPERATIONS_DIR = path.join(PROJECT_ROOT, 'examples', 'operations');
const HIVE_BIN = path.join(PROJECT_ROOT, 'node_modules', '@graphql-hive', 'gateway', 'dist', 'bin.js');
const HIVE_CONFIG = path.join(PROJECT_ROOT, 'gateway', 'hive', 'gateway.config.ts');
/** How long Hive Gateway may take to listen on an idle machine (before scaling). */
const HIVE_READY_MS = 30_000;

interface Operation {
  name: string;
  query: string;
  variables: Record<string, unknown>;
  mutation: boolean;
}

/** The example operations, mutations first (the queries then read what they made: a portfolio). */
function exampleOperations(): Operation[] {
  const names = fs.readdirSync(OPERATIONS_DIR).filter((f) => f.endsWith('.graphql')).map((f) => f.slice(0, -'.graphql'.length)).sort();
  const operations = names.map((name) => {
    const query = fs.readFileSync(path.join(OPERATIONS_DIR, `${name}.graphql`), 'utf8');
    const variablesFile = path.join(OPERATIONS_DIR, `${name}.variables.json`);
    const variables = fs.existsSync(variablesFile) ? (JSON.parse(fs.readFileSync(variablesFile, 'utf8')) as Record<string, unknown>) : {};
    const mutation = parse(query).definitions.some((d) => d.kind === 'OperationDefinition' && (d as OperationDefinitionNode).operation === OperationTypeNode.MUTATION);
    return { name, query, variables, mutation };
  });
  return [...operations.filter((o) => o.mutation), ...operations.filter((o) => !o.mutation)];
}

/** The subgraphs' SDL as committed (schema:check keeps it equal to the code's). */
function committedSdls(): SubgraphSdls {
  return Object.fromEntries(SUBGRAPHS.map((name) => [name, fs.readFileSync(path.join(PROJECT_ROOT, 'schema', `${name}.graphql`), 'utf8')])) as SubgraphSdls;
}

/**
 * A port free right now (Hive Gateway prints the port it was given, so port 0 would not tell us where
 * it is); it may be taken again before Hive Gateway binds it, so the start retries on EADDRINUSE.
 */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const operations = exampleOperations();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-hive-'));
let issuer: TestIssuer;
let store: TestDb;
let subgraphs: RunningPlatform;
let origin: RunningPlatform;
let hive: Child;
let hiveUrl: string;
let token: string;
/** The same partner's token, expired an hour ago: every subgraph refuses it. */
let expired: string;

beforeAll(async () => {
  issuer = await startTestIssuer();
  const config = testConfig({
    AUTH_ISSUER: issuer.url,
    AUTH_JWKS_URL: `${issuer.url}/jwks.json`,
    AUTH_ALGORITHMS: 'RS256',
    OIDC_ISSUER: issuer.url,
    OIDC_AUDIENCES: TEST_OIDC_AUDIENCE,
  });
  const audience = [config.auth.audiences.analysis, config.auth.audiences.allocation, TEST_OIDC_AUDIENCE];
  token = await issuer.idToken({ subject: 'partner-hive', audience });
  expired = await issuer.idToken({ subject: 'partner-hive', audience, expiresIn: -3600 });
  store = await openTestDb('pglite');
  subgraphs = await startPlatform(config, SUBGRAPHS, { db: store.db });
  const composed = compose(committedSdls(), Object.fromEntries(SUBGRAPHS.map((s) => [s, `${subgraphs.urls[s]}/graphql`])));
  if (!composed.supergraphSdl) throw new Error(`composition failed: ${composed.errors.join('; ')}`);
  const file = path.join(dir, 'supergraph.graphql');
  fs.writeFileSync(file, composed.supergraphSdl);
  // Both routers read the same file: neither is told the subgraphs' URLs any other way.
  origin = await startPlatform(testConfig({ SUPERGRAPH_PATH: file }), ['gateway']);
  // The free port may be taken by someone else before Hive Gateway binds it: then try another.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    hive = spawnChild(process.execPath, [HIVE_BIN, 'supergraph', file, '--host', '127.0.0.1', '--port', String(port), '--config-path', HIVE_CONFIG]);
    try {
      await hive.waitFor(`Listening on http://127.0.0.1:${port}`, 'Hive Gateway listening', HIVE_READY_MS);
      hiveUrl = `http://127.0.0.1:${port}/graphql`;
      break;
    } catch (err) {
      if (attempt === 3 || !hive.output().includes('EADDRINUSE')) throw err;
      await hive.kill();
    }
  }
});
afterAll(async () => {
  await hive?.kill();
  await origin?.close();
  await subgraphs?.close();
  await store?.drop();
  await issuer?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Where Hive Gateway 2.15.1 answers a refusal differently: when one subgraph's part of the plan comes
 * back as `data: null` (a refused non-null root field, here `portfolios`, fetched with a sibling from
 * the same subgraph, `allocationStrategies`), it reports "Cannot return null for non-nullable field"
 * on the sibling, masked as "Unexpected error.", instead of the subgraph's own errors. Status and data
 * (null) agree; @apollo/gateway relays the subgraph's UNAUTHENTICATED.
 */
const HIVE_NULLS_SIBLING = new Set(['dashboard']);

const post = (url: string, op: Operation, bearer: string | undefined = token) =>
  request<{ data?: unknown; errors?: unknown[] }>(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify({ query: op.query, variables: op.variables, operationName: null }),
  });

it('finds the example operations', () => {
  expect(operations.map((o) => o.name).sort()).toEqual(expect.arrayContaining(['cash-hunt', 'dashboard', 'hunt', 'optimize', 'security-detail']));
});

describe.each(operations.map((o) => [o.name, o] as const))('%s', (_name, op) => {
  it('answers the same through Hive Gateway as through the gateway origin', async () => {
    const viaOrigin = await post(`${origin.urls.gateway}/graphql`, op);
    const viaHive = await post(hiveUrl, op);
    // The operation runs (a failing one would compare two refusals).
    expect({ status: viaOrigin.status, errors: viaOrigin.body.errors?.filter((e) => !(e as { path?: unknown }).path) }).toEqual({ status: 200, errors: undefined });
    expect(viaOrigin.body.data).toBeTruthy();
    expect({ status: viaHive.status, data: viaHive.body.data, errors: viaHive.body.errors }).toEqual({ status: viaOrigin.status, data: viaOrigin.body.data, errors: viaOrigin.body.errors });
  });

  it('answers an anonymous caller the same too', async () => {
    const viaOrigin = await post(`${origin.urls.gateway}/graphql`, op, undefined);
    const viaHive = await post(hiveUrl, op, undefined);
    expect({ status: viaHive.status, data: viaHive.body.data, errors: viaHive.body.errors }).toEqual({ status: viaOrigin.status, data: viaOrigin.body.data, errors: viaOrigin.body.errors });
  });

  it("relays the subgraphs' refusals the same (an expired token)", async () => {
    const viaOrigin = await post(`${origin.urls.gateway}/graphql`, op, expired);
    const viaHive = await post(hiveUrl, op, expired);
    expect(viaOrigin.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }) })]));
    expect({ status: viaHive.status, data: viaHive.body.data }).toEqual({ status: viaOrigin.status, data: viaOrigin.body.data });
    if (!HIVE_NULLS_SIBLING.has(op.name)) {
      expect(viaHive.body.errors).toEqual(viaOrigin.body.errors);
      return;
    }
    // The masked sibling error stands in for the refused subgraph's; the other subgraphs' are the same.
    const isMasked = (e: unknown) => (e as { message?: string }).message === 'Unexpected error.';
    const hiveErrors = viaHive.body.errors ?? [];
    expect(hiveErrors.filter(isMasked)).toEqual([expect.objectContaining({ extensions: { code: 'INTERNAL_SERVER_ERROR' } })]);
    expect(viaOrigin.body.errors).toEqual(expect.arrayContaining(hiveErrors.filter((e) => !isMasked(e))));
  });
});

it.each([
  ['X-Trace-Id', { 'x-trace-id': '0af7651916cd43dd8448eb211c80319c' }, '0af7651916cd43dd8448eb211c80319c'],
  ['traceparent', { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }, '4bf92f3577b34da6a3ce929d0e0e4736'],
])("passes the caller's %s on to the subgraphs (the stored portfolio carries the trace id)", async (_header, headers, traceId) => {
  const optimize = operations.find((o) => o.name === 'optimize')!;
  const res = await request<{ data?: { optimizePortfolio?: { traceId: string } } }>(hiveUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ query: 'mutation ($input: PortfolioRequestInput!) { optimizePortfolio(input: $input) { traceId } }', variables: optimize.variables }),
  });
  expect(res.body.data?.optimizePortfolio?.traceId).toBe(traceId);
});
