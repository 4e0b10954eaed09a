/**
 * Errors of a subgraph the platform does not own, through the gateway origin: relayed as the federation
 * convention relays them (their message, `serviceName`, their code when the error registry has it,
 * else DOWNSTREAM_SERVICE_ERROR with the subgraph's own code as `downstreamCode`), not masked as the
 * gateway's own INTERNAL_ERROR; the rest of the answer is kept. The subgraph is a real @apollo/subgraph
 * server on port 0, routed to by the URL its supergraph names.
 */
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { composeSupergraph, INVENTORY_V1_SDL, startInventorySubgraph, type ForeignSubgraph } from '../gateway/foreign-subgraph.js';
import { testConfig } from '../helpers/config.js';
import { graphql } from '../helpers/http.js';

let inventory: ForeignSubgraph;
let platform: RunningPlatform;

beforeAll(async () => {
  inventory = await startInventorySubgraph();
  const supergraphSdl = composeSupergraph([{ name: 'inventory', url: inventory.url, sdl: INVENTORY_V1_SDL }]);
  platform = await startPlatform(testConfig(), ['gateway'], { supergraphSdl });
});
afterAll(async () => {
  await platform?.close();
  await inventory?.stop();
});

const ask = (query: string) => graphql<Record<string, unknown>>(`${platform.urls.gateway}/graphql`, query);

it('a subgraph code outside the registry: its message, DOWNSTREAM_SERVICE_ERROR, serviceName and its own code', async () => {
  const res = await ask('{ inventoryNote stock(sku: "A-1") }');
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ inventoryNote: 'inventory answers', stock: null });
  expect(res.body.errors).toEqual([
    { message: 'inventory offline', path: ['stock'], extensions: { code: 'DOWNSTREAM_SERVICE_ERROR', downstreamCode: 'INVENTORY_DOWN', serviceName: 'inventory', details: [] } },
  ]);
});

it('a plain Error (Apollo Server says INTERNAL_SERVER_ERROR): its message, not the stack trace', async () => {
  // The subgraph's own answer has the stack trace: the gateway is what drops it.
  const raw = await graphql(inventory.url, '{ restock }');
  expect(raw.text).toMatch(/stacktrace/);
  expect(raw.text).toMatch(/\.(ts|js):\d+/);
  const res = await ask('{ restock }');
  expect(res.body.errors).toEqual([
    { message: 'restock queue jammed', path: ['restock'], extensions: { code: 'DOWNSTREAM_SERVICE_ERROR', downstreamCode: 'INTERNAL_SERVER_ERROR', serviceName: 'inventory', details: [] } },
  ]);
  expect(res.text).not.toMatch(/stacktrace|\.(ts|js):\d+/);
});

it('an error with no code: DOWNSTREAM_SERVICE_ERROR and nothing else invented', async () => {
  const res = await ask('{ legacyCount }');
  expect(res.body.errors).toEqual([
    { message: 'legacy backend said no', path: ['legacyCount'], extensions: { code: 'DOWNSTREAM_SERVICE_ERROR', serviceName: 'inventory', details: [] } },
  ]);
});

it('a code the registry has is kept as it is', async () => {
  const res = await ask('{ reserved inventoryNote }');
  expect(res.body.data).toEqual({ reserved: null, inventoryNote: 'inventory answers' });
  expect(res.body.errors).toEqual([{ message: 'reservations are for staff only', path: ['reserved'], extensions: { code: 'FORBIDDEN', serviceName: 'inventory', details: [] } }]);
});

it("the gateway's own failures are still its own: a subgraph it cannot reach is SERVICE_UNAVAILABLE without the address", async () => {
  const unreachable = composeSupergraph([{ name: 'inventory', url: 'http://127.0.0.1:1/graphql', sdl: INVENTORY_V1_SDL }]);
  const other = await startPlatform(testConfig(), ['gateway'], { supergraphSdl: unreachable });
  try {
    const res = await graphql(`${other.urls.gateway}/graphql`, '{ inventoryNote }');
    expect(res.body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/inventory service is unavailable/), extensions: { code: 'SERVICE_UNAVAILABLE' } });
    expect(res.text).not.toMatch(/127\.0\.0\.1:1\b|ECONNREFUSED/);
  } finally {
    await other.close();
  }
});
