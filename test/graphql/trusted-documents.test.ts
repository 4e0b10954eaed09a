/**
 * Trusted documents (TRUSTED_DOCUMENTS): with a manifest in the client preset's format, the gateway runs
 * the listed operations (by full text, APQ hash or documentId) and refuses everything else with
 * PERSISTED_QUERY_NOT_IN_LIST before any subgraph is called. Without it, the gateway is unchanged. A
 * manifest that cannot be read or is not that shape stops start-up with a config error.
 *
 * TRUSTED_DOCUMENTS may list several manifests (comma-separated, one per client): the gateway trusts
 * their union, and the web console's operations, sent as console/src/api.ts sends them, run there as
 * they do on a gateway without a list.
 *
 * The subgraphs are real; the gateway reaches them through a forwarder that counts the requests.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { execute, operationBody } from '../../console/src/api.js';
import { ConsoleOptimizerSetupDocument } from '../../console/generated/graphql.js';
import { loadTrustedDocuments } from '../../gateway/trusted-documents.js';
import { ConfigError, loadConfig } from '../../subgraphs/platform/config.js';
import { ERROR_CODES } from '../../subgraphs/platform/errors.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { request, type JsonResponse } from '../helpers/http.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

// Operations as the client preset prints them (the manifest's values are the exact texts it sends).
const STRATEGIES = 'query Strategies {\n  allocationStrategies {\n    name\n  }\n  searchPagination {\n    defaultPageSize\n  }\n}';
const SECURITY = 'query Security($symbol: String!) {\n  security(symbol: $symbol) {\n    symbol\n  }\n  searchPagination {\n    maxPageSize\n  }\n}';
/** Not in the manifest; a gateway without one runs it (from the allocation subgraph). */
const UNLISTED = 'query Limits { allocationLimits { minTotalCapital } }';
// Keys as the client preset writes them (`sha256:<hex>`); a bare hex key is taken too.
const MANIFEST = { [`sha256:${sha256(STRATEGIES)}`]: STRATEGIES, [sha256(SECURITY)]: SECURITY };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-trusted-'));
function writeManifest(name: string, content: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, content);
  return file;
}
const manifestFile = writeManifest('persisted-documents.json', JSON.stringify(MANIFEST, null, 2));

/** The manifests `npm run codegen` writes for the two clients of a deployment: the examples and the web console. */
const EXAMPLES_MANIFEST = path.join(PROJECT_ROOT, 'examples', 'generated', 'persisted-documents.json');
const CONSOLE_MANIFEST = path.join(PROJECT_ROOT, 'console', 'generated', 'persisted-documents.json');
const readManifest = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
/** An operation of the examples' client (examples/operations), as its manifest lists it. */
const EXAMPLE_SECURITY = Object.values(readManifest(EXAMPLES_MANIFEST)).find((text) => text.startsWith('query SecurityDetail('))!;

let store: TestDb;
let subgraphs: RunningPlatform;
let trusted: RunningPlatform;
let open: RunningPlatform;
/** A gateway that trusts the examples' and the console's manifests. */
let clients: RunningPlatform;
let subgraphCalls = 0;
const forwarders: http.Server[] = [];

/** An HTTP forwarder to `target` that counts every request it passes on. */
async function countingForwarder(target: string): Promise<string> {
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    subgraphCalls += 1;
    const upstream = http.request({ hostname: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  forwarders.push(server);
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/graphql`;
}

beforeAll(async () => {
  store = await openTestDb('pglite');
  subgraphs = await startPlatform(testConfig({ DEMO_DATA: 'false' }), ['analysis', 'allocation', 'search'], { db: store.db });
  const urls = {
    SUBGRAPH_ANALYSIS_URL: await countingForwarder(subgraphs.urls.analysis!),
    SUBGRAPH_ALLOCATION_URL: await countingForwarder(subgraphs.urls.allocation!),
    SUBGRAPH_SEARCH_URL: await countingForwarder(subgraphs.urls.search!),
  };
  trusted = await startPlatform(testConfig({ ...urls, TRUSTED_DOCUMENTS: manifestFile }), ['gateway']);
  open = await startPlatform(testConfig(urls), ['gateway']);
  clients = await startPlatform(testConfig({ ...urls, TRUSTED_DOCUMENTS: `${EXAMPLES_MANIFEST},${CONSOLE_MANIFEST}` }), ['gateway']);
});
afterAll(async () => {
  await trusted?.close();
  await open?.close();
  await clients?.close();
  for (const server of forwarders) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await subgraphs?.close();
  await store?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  subgraphCalls = 0;
});

type Body = { data?: Record<string, unknown>; errors?: Array<{ message: string; extensions?: { code?: string; details?: Array<{ field?: string; message: string }> } }> };
const post = (platform: RunningPlatform, body: unknown): Promise<JsonResponse<Body>> =>
  request<Body>(`${platform.urls.gateway}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

const STRATEGIES_DATA = {
  allocationStrategies: ['EQUAL_WEIGHT', 'STAGE_WEIGHTED', 'CONFIDENCE_WEIGHTED', 'KELLY_CRITERION', 'HYBRID_WEIGHTED'].map((name) => ({ name })),
  searchPagination: { defaultPageSize: 6 },
};

function expectAnswered(res: JsonResponse<Body>): void {
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data).toEqual(STRATEGIES_DATA);
  expect(subgraphCalls).toBeGreaterThan(0);
}

/** Refused as not listed, the field that named the document in the details, and no subgraph called. */
function expectNotInList(res: JsonResponse<Body>, field: string): void {
  expect(res.status).toBe(ERROR_CODES.PERSISTED_QUERY_NOT_IN_LIST);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toHaveLength(1);
  const [error] = res.body.errors!;
  expect(error.extensions?.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
  expect(error.message).toMatch(/not in the gateway's list of trusted documents/);
  expect(error.extensions?.details?.[0]?.field).toBe(field);
  expect(res.text).not.toMatch(/\bat .+\.(ts|js):\d+|stack/i);
  expect(subgraphCalls).toBe(0);
}

describe('with TRUSTED_DOCUMENTS', () => {
  it('runs a listed operation sent as its exact full text', async () => {
    expectAnswered(await post(trusted, { query: STRATEGIES }));
  });

  it('runs a listed operation sent as an APQ hash alone, never registered before', async () => {
    expectAnswered(await post(trusted, { extensions: apq(sha256(STRATEGIES)) }));
  });

  it('runs a listed operation sent as a documentId (bare hash, sha256: prefix, GET), with its variables', async () => {
    expectAnswered(await post(trusted, { documentId: sha256(STRATEGIES) }));
    expectAnswered(await post(trusted, { documentId: `sha256:${sha256(STRATEGIES)}` }));
    const search = new URLSearchParams({ documentId: sha256(STRATEGIES) });
    const get = await request<Body>(`${trusted.urls.gateway}/graphql?${search}`, { headers: { 'apollo-require-preflight': 'true' } });
    expectAnswered(get);

    const withVariables = await post(trusted, { documentId: sha256(SECURITY), variables: { symbol: 'ACME' } });
    expect(withVariables.body.errors).toBeUndefined();
    // No market data is stored: the security is null.
    expect(withVariables.body.data).toEqual({ security: null, searchPagination: { maxPageSize: 50 } });
  });

  it('refuses an unlisted operation with PERSISTED_QUERY_NOT_IN_LIST and calls no subgraph', async () => {
    const res = await post(trusted, { query: UNLISTED });
    expectNotInList(res, 'query');
    expect(res.body.errors![0].extensions?.details?.[0]?.message).toContain(sha256(UNLISTED));
  });

  it('refuses an unlisted text before parsing or validating it (no syntax or schema errors answer)', async () => {
    expectNotInList(await post(trusted, { query: 'query {' }), 'query');
    expectNotInList(await post(trusted, { query: '{ noSuchField }' }), 'query');
    expectNotInList(await post(trusted, { query: 'mutation { optimizePortfolio { id } }', operationName: 'Other', variables: { a: 1 } }), 'query');
  });

  it('compares the exact text: a listed operation reformatted is not listed', async () => {
    expectNotInList(await post(trusted, { query: STRATEGIES.replace(/\s+/g, ' ') }), 'query');
  });

  it('refuses an unknown hash and an unknown documentId', async () => {
    expectNotInList(await post(trusted, { extensions: apq(sha256(UNLISTED)) }), 'extensions.persistedQuery.sha256Hash');
    expectNotInList(await post(trusted, { documentId: sha256(UNLISTED) }), 'documentId');
    expectNotInList(await post(trusted, { documentId: 'not-a-hash' }), 'documentId');
  });

  it('refuses to register an unlisted operation by APQ: its hash stays unknown', async () => {
    const hash = sha256(UNLISTED);
    expectNotInList(await post(trusted, { query: UNLISTED, extensions: apq(hash) }), 'query');
    expectNotInList(await post(trusted, { extensions: apq(hash) }), 'extensions.persistedQuery.sha256Hash');
  });

  it('refuses a documentId sent with a query, or one that is not a string, as a bad request', async () => {
    for (const body of [{ documentId: sha256(STRATEGIES), query: STRATEGIES }, { documentId: 42 }]) {
      const res = await post(trusted, body);
      expect(res.status).toBe(400);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
      expect(subgraphCalls).toBe(0);
    }
  });
});

/** What the console's optimizer set-up answers without market data: the five strategies and the limits. */
function expectOptimizerSetup(answer: Awaited<ReturnType<typeof execute>>): void {
  expect(answer.errors).toEqual([]);
  const data = answer.data as { allocationStrategies: Array<{ name: string }>; allocationLimits: { minTotalCapital: number } };
  expect(data.allocationStrategies.map((s) => s.name)).toEqual(STRATEGIES_DATA.allocationStrategies.map((s) => s.name));
  expect(data.allocationLimits.minTotalCapital).toEqual(expect.any(Number));
  expect(subgraphCalls).toBeGreaterThan(0);
}

describe('with TRUSTED_DOCUMENTS listing the examples\' and the console\'s manifests', () => {
  it('runs a console operation sent the way the console sends it (console/src/api.ts execute)', async () => {
    expectOptimizerSetup(await execute(ConsoleOptimizerSetupDocument, {}, null, { endpoint: `${clients.urls.gateway}/graphql` }));
  });

  it('would refuse the console operation sent as its generated text, which is not the listed one', async () => {
    expect(operationBody(ConsoleOptimizerSetupDocument, {}).query).not.toBe(ConsoleOptimizerSetupDocument.toString());
    expectNotInList(await post(clients, { query: ConsoleOptimizerSetupDocument.toString() }), 'query');
  });

  it('runs an example operation, by its text and by its documentId', async () => {
    for (const body of [{ query: EXAMPLE_SECURITY }, { documentId: `sha256:${sha256(EXAMPLE_SECURITY)}` }]) {
      const res = await post(clients, { ...body, variables: { symbol: 'ACME' } });
      expect(res.status).toBe(200);
      expect(res.body.errors).toBeUndefined();
      // No market data is stored: the security is null.
      expect(res.body.data).toEqual({ security: null });
      expect(subgraphCalls).toBeGreaterThan(0);
      subgraphCalls = 0;
    }
  });

  it('refuses an operation neither manifest lists', async () => {
    expectNotInList(await post(clients, { query: UNLISTED }), 'query');
    expectNotInList(await post(clients, { query: STRATEGIES }), 'query');
  });
});

describe('without TRUSTED_DOCUMENTS', () => {
  it('runs a console operation sent the way the console sends it', async () => {
    expectOptimizerSetup(await execute(ConsoleOptimizerSetupDocument, {}, null, { endpoint: `${open.urls.gateway}/graphql` }));
  });

  it('runs any operation, and APQ registers unknown hashes as before', async () => {
    const res = await post(open, { query: UNLISTED });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ allocationLimits: { minTotalCapital: expect.any(Number) } });

    const query = `${UNLISTED} # ${Date.now()}`;
    const miss = await post(open, { extensions: apq(sha256(query)) });
    expect(miss.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect((await post(open, { query, extensions: apq(sha256(query)) })).body.data).toEqual(res.body.data);
    expect((await post(open, { extensions: apq(sha256(query)) })).body.data).toEqual(res.body.data);
  });
});

describe('a manifest that is not usable stops start-up with a config error', () => {
  const bad: Array<[string, () => string, RegExp]> = [
    ['missing', () => path.join(dir, 'absent.json'), /cannot read the manifest \(ENOENT\)/],
    ['a directory', () => dir, /cannot read the manifest \(EISDIR\)/],
    ['not JSON', () => writeManifest('text.json', 'query A { b }'), /not JSON/],
    ['an array', () => writeManifest('array.json', JSON.stringify([STRATEGIES])), /must be a JSON object of "sha256:<hex of the document>": "<document text>"/],
    ['empty', () => writeManifest('empty.json', '{}'), /lists no operations/],
    ['SHA-1 keys', () => writeManifest('sha1.json', JSON.stringify({ [createHash('sha1').update(STRATEGIES).digest('hex')]: STRATEGIES })), /hashAlgorithm: 'sha256'/],
    ['a key that is not the hash of its text', () => writeManifest('mismatch.json', JSON.stringify({ [sha256(STRATEGIES)]: SECURITY })), new RegExp(`not the SHA-256 of the exact document text \\(that is ${sha256(SECURITY)}\\)`)],
    ['a value that is not a string', () => writeManifest('number.json', JSON.stringify({ [sha256('1')]: 1 })), /not a GraphQL document text/],
    ['a value that is not GraphQL', () => writeManifest('prose.json', JSON.stringify({ [sha256('hello there')]: 'hello there' })), /not GraphQL \(Syntax Error/],
  ];

  it.each(bad)('%s', (_name, file, problem) => {
    const manifest = file();
    let error: unknown;
    try {
      loadTrustedDocuments(manifest);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(problem);
    expect((error as ConfigError).message).toContain(`TRUSTED_DOCUMENTS (${manifest})`);
  });

  it('the committed example manifest (npm run codegen) is usable', () => {
    const file = path.join(PROJECT_ROOT, 'examples', 'generated', 'persisted-documents.json');
    const documents = loadTrustedDocuments(file);
    const generated = Object.values(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>);
    expect(documents.size).toBe(generated.length);
    expect([...documents.values()]).toEqual(generated);
  });

  it('several manifests are read as their union; the same document in two of them is fine', () => {
    const other = writeManifest('other.json', JSON.stringify({ [`sha256:${sha256(SECURITY)}`]: SECURITY, [sha256(UNLISTED)]: UNLISTED }));
    const documents = loadTrustedDocuments([manifestFile, other]);
    expect([...documents.keys()].sort()).toEqual([sha256(STRATEGIES), sha256(SECURITY), sha256(UNLISTED)].sort());
    expect(documents.get(sha256(UNLISTED))).toBe(UNLISTED);
    expect(loadTrustedDocuments([EXAMPLES_MANIFEST, CONSOLE_MANIFEST]).size).toBe(Object.keys(readManifest(EXAMPLES_MANIFEST)).length + Object.keys(readManifest(CONSOLE_MANIFEST)).length);
  });

  it('a hash that a second manifest lists with another text stops the start, naming both files', async () => {
    const stale = writeManifest('stale.json', JSON.stringify({ [`sha256:${sha256(STRATEGIES)}`]: SECURITY }));
    const started = startPlatform(testConfig({ TRUSTED_DOCUMENTS: `${manifestFile},${stale}` }), ['gateway']);
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(
      `TRUSTED_DOCUMENTS (${stale}): "sha256:${sha256(STRATEGIES)}": the key is not the SHA-256 of the exact document text (that is ${sha256(SECURITY)}); ${manifestFile} lists this hash with the text it is the hash of`,
    );
  });

  it('the problems of every listed manifest are reported at once, each with its file', () => {
    const absent = path.join(dir, 'absent.json');
    const empty = writeManifest('empty-too.json', '{}');
    expect(() => loadTrustedDocuments([manifestFile, absent, empty])).toThrow(
      new ConfigError([`TRUSTED_DOCUMENTS (${absent}): cannot read the manifest (ENOENT)`, `TRUSTED_DOCUMENTS (${empty}): the manifest lists no operations`]),
    );
  });

  it('TRUSTED_DOCUMENTS takes comma-separated paths; a value that names no file is a config error', () => {
    expect(loadConfig({ TRUSTED_DOCUMENTS: 'deploy/a.json' }).gateway.trustedDocumentsPaths).toEqual([path.resolve('deploy/a.json')]);
    expect(loadConfig({ TRUSTED_DOCUMENTS: 'deploy/a.json, deploy/b.json,deploy/a.json,' }).gateway.trustedDocumentsPaths).toEqual([path.resolve('deploy/a.json'), path.resolve('deploy/b.json')]);
    expect(() => loadConfig({ TRUSTED_DOCUMENTS: ' , ' })).toThrow(/TRUSTED_DOCUMENTS must be a manifest path or comma-separated paths/);
  });

  it('the platform start fails with it, the way the CLI prints it', async () => {
    const manifest = writeManifest('sha1-start.json', JSON.stringify({ [createHash('sha1').update(STRATEGIES).digest('hex')]: STRATEGIES }));
    const started = startPlatform(testConfig({ TRUSTED_DOCUMENTS: manifest }), ['gateway']);
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(`Invalid configuration:\n  - TRUSTED_DOCUMENTS (${manifest}): "${createHash('sha1').update(STRATEGIES).digest('hex')}": the key is not a SHA-256`);
  });
});
