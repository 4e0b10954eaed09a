/**
 * The gateway origin as an operator runs it (`npm start -- gateway`, the built dist/cli/start.js in a
 * child process) on a supergraph file of its own (SUPERGRAPH_PATH): it routes to the URLs the file
 * names, takes a new version of the file without a restart, and refuses a bad one with a log line
 * saying why while the previous supergraph keeps serving. The subgraph is another team's (a real
 * @apollo/subgraph server on port 0 in this process); every wait is bounded and scaled.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { originEnv, startOrigins, type Origins } from '../helpers/child.js';
import { graphql } from '../helpers/http.js';
import { eventually, scaled } from '../helpers/time.js';
import { composeSupergraph, INVENTORY_V1_SDL, INVENTORY_V2_SDL, startInventorySubgraph, type ForeignSubgraph } from '../gateway/foreign-subgraph.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-supergraph-'));
const file = path.join(dir, 'supergraph.graphql');
let inventory: ForeignSubgraph;
let gateway: Origins;

beforeAll(async () => {
  inventory = await startInventorySubgraph();
  fs.writeFileSync(file, composeSupergraph([{ name: 'inventory', url: inventory.url, sdl: INVENTORY_V1_SDL }]));
  gateway = await startOrigins(['gateway'], originEnv({ SUPERGRAPH_PATH: file }));
});
afterAll(async () => {
  await gateway?.kill();
  await inventory?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ask = (query: string) => graphql<Record<string, unknown>>(`${gateway.urls.gateway}/graphql`, query);
const answers = async (query: string, data: Record<string, unknown>) => JSON.stringify((await ask(query)).body.data) === JSON.stringify(data);

it('serves the file SUPERGRAPH_PATH names, routed to the URLs written in it', async () => {
  expect(gateway.output()).toContain(`supergraph ${file} (reloaded when it changes)`);
  const res = await ask('{ inventoryNote }');
  expect(res.body).toEqual({ data: { inventoryNote: 'inventory answers' } });
  const root = await graphql(`${gateway.urls.gateway}/graphql`, '{ warehouse }');
  expect(root.body.errors?.[0].extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
});

it('takes a new supergraph written to the file, without a restart', async () => {
  fs.writeFileSync(file, composeSupergraph([{ name: 'inventory', url: inventory.url, sdl: INVENTORY_V2_SDL }]));
  expect(await eventually(() => answers('{ warehouse inventoryNote }', { warehouse: 'north', inventoryNote: 'inventory answers' }), 10_000)).toBe(true);
});

it('sees a file replaced by a rename too (as an editor saves it)', async () => {
  const replace = (sdl: string) => {
    fs.writeFileSync(`${file}.new`, composeSupergraph([{ name: 'inventory', url: inventory.url, sdl }]));
    fs.renameSync(`${file}.new`, file);
  };
  const knowsWarehouse = async () => (await ask('{ warehouse }')).body.data?.warehouse === 'north';
  replace(INVENTORY_V1_SDL);
  expect(await eventually(async () => !(await knowsWarehouse()), 10_000)).toBe(true);
  replace(INVENTORY_V2_SDL);
  expect(await eventually(knowsWarehouse, 10_000)).toBe(true);
});

it.each([
  ['text that does not parse', 'type Query {', /Syntax Error/],
  ['SDL that is not a supergraph', 'type Query { warehouse: String }', /supergraph|join|link/i],
])('refuses %s with a log line saying why, and keeps serving the previous supergraph', async (_kind, text, reason) => {
  const before = gateway.output().length;
  const refusal = () => gateway.output().slice(before).split('\n').find((l) => l.includes('supergraph refused; the previous one is still served'));
  fs.writeFileSync(file, text);
  expect(await eventually(async () => refusal() !== undefined, 10_000)).toBe(true);
  expect(refusal()).toContain(file);
  expect(refusal()).toMatch(reason);
  expect(await answers('{ warehouse inventoryNote }', { warehouse: 'north', inventoryNote: 'inventory answers' })).toBe(true);
});

it('logs a refused supergraph once, not again at every other change in its directory', async () => {
  const before = gateway.output().length;
  const refusals = () => gateway.output().slice(before).split('\n').filter((l) => l.includes('supergraph refused')).length;
  fs.writeFileSync(file, 'type Query { stock: Int }');
  expect(await eventually(async () => refusals() === 1, 10_000)).toBe(true);
  // Other files of the directory change, each well after the reload debounce: the file is reread each time.
  for (const n of [1, 2]) {
    fs.writeFileSync(path.join(dir, `neighbour-${n}.txt`), String(n));
    await new Promise((resolve) => setTimeout(resolve, scaled(500)));
  }
  fs.writeFileSync(file, composeSupergraph([{ name: 'inventory', url: inventory.url, sdl: INVENTORY_V2_SDL }]));
  expect(await eventually(() => answers('{ warehouse inventoryNote }', { warehouse: 'north', inventoryNote: 'inventory answers' }), 10_000)).toBe(true);
  expect(refusals()).toBe(1);
});
