/**
 * `npm start` (the built dist/cli/start.js in a child process) on the embedded store whose disk fills
 * up, on a real small file system: a tmpfs under a temporary directory, filled with a filler file and
 * freed by deleting it.
 *
 * - At start with no room: one line on stderr naming the data directory and saying its disk is full,
 *   exit code 2, and the same on the next start (no half-initialised store, no library dump); once space
 *   is freed the start succeeds.
 * - At run time: writes (optimize) answer 503 STORAGE_FULL, never 500, while storage refuses them; the
 *   readiness probes of analysis and allocation answer 503 meanwhile (spec "Common to all three
 *   services": /health 503 unavailable); reads still answer. After the filler is deleted everything
 *   serves again without a restart, every portfolio answered 200 is there byte for byte, also after a
 *   restart, and a write after freeing works.
 *
 * Mounting needs root (CI runs the suites as root); elsewhere the suite is skipped and says why.
 */
import fs from 'node:fs';
import path from 'node:path';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { killChildren, originEnv, runToExit, START_JS, startOrigins, type Origins } from '../helpers/child.js';
import { TEST_SECRET } from '../helpers/config.js';
import { expectErrorShape, request, type JsonResponse } from '../helpers/http.js';
import { fillDisk, mountTmpfs, tmpfsUnavailable, type Tmpfs } from '../helpers/tmpfs.js';
import { scaled } from '../helpers/time.js';

const cannotMount = tmpfsUnavailable();
const onTmpfs = cannotMount ? describe.skip : describe;
const title = (what: string) => (cannotMount ? `${what} (skipped: ${cannotMount})` : what);
const ORIGINS = ['analysis', 'allocation'];

onTmpfs(title('npm start on a disk that fills up (embedded store on a tmpfs)'), () => {
  let disk: Tmpfs;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let auth: Record<string, string>;

  beforeAll(async () => {
    // A new demo store of this size takes about 40 MB.
    disk = mountTmpfs(96);
    dataDir = path.join(disk.dir, 'data');
    env = originEnv({
      DATA_DIR: dataDir,
      DEMO_SYMBOL_COUNT: '11',
      DEMO_YEARS: '1',
      ANALYZE_ON_START_DAYS: '1',
      ANALYZE_WORKERS: '0',
      AUTH_HS256_SECRET: TEST_SECRET,
      RATE_LIMIT_MAX: '1000000',
      RATE_LIMIT_EXPENSIVE_MAX: '1000000',
    });
    const token = await mintPartnerToken({ secret: TEST_SECRET, issuer: 'tradegraph-dev', audience: 'tradegraph-allocation', subject: 'disk-full-partner' });
    auth = { authorization: `Bearer ${token}` };
  });
  afterAll(async () => {
    // The origins hold the data directory: they go before the file system is unmounted.
    await killChildren();
    disk?.unmount();
  });

  const optimize = (origins: Origins, name: string) =>
    request(`${origins.urls.allocation}/api/v1/portfolios/optimize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ name, total_capital: 50000 }),
    });
  const readBook = (origins: Origins, id: string) => request(`${origins.urls.allocation}/api/v1/portfolios/${id}/optimization`, { headers: auth });
  const health = (origins: Origins, origin: string) => request(`${origins.urls[origin]}/health`);

  async function stop(origins: Origins): Promise<void> {
    origins.signal('SIGINT');
    expect(await origins.waitForExit()).toBe(0);
    expect(origins.output()).toContain('Stopped cleanly.');
  }

  it('a start without room says so in one line naming the data directory, exit code 2, also the next time; it starts once space is freed', async () => {
    const filler = fillDisk(disk.dir, 8 * 1024 * 1024);
    for (const attempt of [1, 2]) {
      const run = await runToExit(process.execPath, [START_JS, ...ORIGINS], { env });
      expect({ attempt, code: run.code }).toEqual({ attempt, code: 2 });
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(dataDir);
      expect(lines[0]).toMatch(/disk holding the data directory .* is full/);
      expect(run.output).not.toMatch(/failed to initialize properly|\[object Object\]|chunk-|wasm:\/\//);
      expect(run.output.length).toBeLessThan(1000);
    }
    fs.rmSync(filler);

    const origins = await startOrigins(ORIGINS, env);
    expect(origins.output()).toMatch(/Demo market loaded: 12 securities/);
    await stop(origins);
  });

  it('at run time writes answer 503 STORAGE_FULL and /health 503 while the disk is full, reads answer; after freeing space all recovers and nothing is lost', async () => {
    const origins = await startOrigins(ORIGINS, env);
    const answered: JsonResponse[] = [];
    const first = await optimize(origins, 'before the disk filled');
    expect(first.status).toBe(200);
    answered.push(first);

    const filler = fillDisk(disk.dir);
    // The first writes may still fit in pages the store already has; then storage refuses them.
    let refused: JsonResponse | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const res = await optimize(origins, `while full ${i}`);
      if (res.status === 200) answered.push(res);
      else refused = res;
    }
    expect(refused?.status).toBe(503);
    expectErrorShape((refused as JsonResponse).body, 'STORAGE_FULL');
    for (let i = 0; i < 3; i++) {
      const again = await optimize(origins, `still full ${i}`);
      expect(again.status).toBe(503);
      expectErrorShape(again.body, 'STORAGE_FULL');
    }
    for (const origin of ORIGINS) {
      const probe = await health(origins, origin);
      expect(probe.status).toBe(503);
      expect(probe.body.status).toBe('unavailable');
      expect(probe.body.code).toBe('STORAGE_FULL');
      expect(probe.headers.get('retry-after')).toBe('60');
    }
    // Reads still answer, byte for byte what the writes answered.
    for (const book of answered) expect((await readBook(origins, book.body.portfolio_id as string)).text).toBe(book.text);
    expect((await request(`${origins.urls.analysis}/api/v1/demo/results/analysis/ACME`)).status).toBe(200);

    fs.rmSync(filler);
    const until = Date.now() + scaled(20_000);
    const healthy = async () => (await health(origins, 'analysis')).status === 200 && (await health(origins, 'allocation')).status === 200;
    while (!(await healthy()) && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    expect(await healthy()).toBe(true);
    const after = await optimize(origins, 'after space was freed');
    expect(after.status).toBe(200);
    answered.push(after);
    for (const book of answered) expect((await readBook(origins, book.body.portfolio_id as string)).text).toBe(book.text);
    await stop(origins);

    // Nothing corrupted on disk: a restart reads every portfolio as it was answered.
    const again = await startOrigins(ORIGINS, env);
    expect(again.output()).not.toContain('Demo market loaded');
    for (const book of answered) expect((await readBook(again, book.body.portfolio_id as string)).text).toBe(book.text);
    await stop(again);
  });
});
