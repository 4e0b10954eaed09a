/**
 * The gateway thread prepared ahead of its start (gateway/thread.ts prepareGatewayThread, as npm start
 * prepares it while the start-up steps run), on the compiled code in a child process (under the test
 * runner the sources run inline and there is no compiled worker to start):
 * - prepared and never started, it does not keep the process alive;
 * - started later, it listens and answers, and closes on close();
 * - a start that fails (no supergraph) rejects with the reason, and a second start is refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runModuleScript } from '../../helpers/child.js';
import { PROJECT_ROOT } from '../../../subgraphs/platform/project.js';

const js = (...parts: string[]) => JSON.stringify(path.join(PROJECT_ROOT, 'dist', ...parts));
const prelude = `
import { pathToFileURL } from 'node:url';
const load = (file) => import(pathToFileURL(file).href);
const { prepareGatewayThread } = await load(${js('gateway', 'thread.js')});
const { loadConfig } = await load(${js('subgraphs', 'platform', 'config.js')});
const config = loadConfig({ ...process.env, APP_ENV: 'development', GATEWAY_PORT: '0', LOG_LEVEL: 'warn' });
`;

test('a prepared gateway thread that is never started lets the process end by itself', async () => {
  const run = await runModuleScript(`${prelude}
prepareGatewayThread();
console.log('end of script');
`, { ms: 60_000 });
  expect(run.stdout.trim()).toBe('end of script');
  expect(run.code).toBe(0);
});

test('started after a pause, it listens and answers; close() ends it, and the process with it', async () => {
  const run = await runModuleScript(`${prelude}
const prepared = prepareGatewayThread();
await new Promise((resolve) => setTimeout(resolve, 200));
const gateway = await prepared.start(config, (reason) => console.log('unexpected exit: ' + reason));
const res = await fetch(gateway.url + '/', { signal: AbortSignal.timeout(30_000) });
const body = await res.json();
await gateway.close();
console.log(JSON.stringify({ status: res.status, thread: body.thread }));
`, { ms: 90_000 });
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout.trim())).toEqual({ status: 200, thread: 'own' });
});

test('a start that fails rejects with the reason, and a second start is refused', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-thread-'));
  const bad = path.join(dir, 'not-a-supergraph.graphql');
  fs.writeFileSync(bad, 'type Query { nothing: String }');
  try {
    const run = await runModuleScript(`${prelude}
const prepared = prepareGatewayThread();
const failed = await prepared.start({ ...config, gateway: { ...config.gateway, supergraphPath: ${JSON.stringify(bad)} } }, () => {}).then(() => 'started', (err) => err.message);
const again = await prepared.start(config, () => {}).then(() => 'started', (err) => err.message);
console.log(JSON.stringify({ failed, again }));
`, { ms: 90_000 });
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout.trim()) as { failed: string; again: string };
    expect(out.failed).toMatch(/supergraph/i);
    expect(out.again).toBe('the gateway thread was started already');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
