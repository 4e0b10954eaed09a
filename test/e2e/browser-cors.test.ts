/**
 * A browser page on another origin reaches the platform (CORS): Debian Chromium, driven by
 * playwright-core, loads a page from a server of its own on another port; the page asks the gateway
 * for a security with a partner token (a preflighted POST: authorization and content-type) and reads
 * the public demo analysis over REST, and renders both. A page from an origin that is not allowed gets
 * nothing: the browser itself refuses to hand the response to the page.
 *
 * Needs /usr/bin/chromium (`.ci/run` installs it): skipped with the reason otherwise, but failed under CI
 * (CI set), where a missing browser is a broken setup rather than a reason to skip.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { scaled } from '../helpers/time.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) throw new Error(`browser CORS tests cannot run under CI: ${CHROMIUM} is not installed (apt-get install chromium)`);
if (!haveChromium) console.warn(`browser CORS tests skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);
const describeWithBrowser = haveChromium ? describe : describe.skip;

/** The page: two cross-origin calls, each result (or the error the browser gave) rendered into the DOM. */
const PAGE = `<!doctype html>
<html><body>
<p id="security">pending</p>
<p id="demo">pending</p>
<script>
  const params = new URLSearchParams(location.search);
  const show = (id, text) => { document.getElementById(id).textContent = text; };
  fetch(params.get('gateway') + '/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + params.get('token') },
    body: JSON.stringify({ query: '{ security(symbol: "ACME") { symbol name } }' }),
  })
    .then(async (res) => show('security', res.status + ' ' + (await res.json()).data.security.name + ' ' + res.headers.get('x-trace-id')))
    .catch((err) => show('security', 'refused: ' + err.name));
  fetch(params.get('analysis') + '/api/v1/demo/results/analysis/ACME')
    .then(async (res) => show('demo', res.status + ' ' + JSON.stringify((await res.json()).result.stage)))
    .catch((err) => show('demo', 'refused: ' + err.name));
</script>
</body></html>`;

/** A server for the page, on its own port: another origin than every platform origin. */
async function pageServer(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describeWithBrowser('a page on another origin', () => {
  let store: TestDb;
  let platform: RunningPlatform;
  let browser: Browser;
  let allowed: { origin: string; close(): Promise<void> };
  let other: { origin: string; close(): Promise<void> };
  let token: string;

  beforeAll(async () => {
    allowed = await pageServer();
    other = await pageServer();
    // Only the first page's origin is allowed (the development default would allow both).
    const config = testConfig({ CORS_ORIGINS: allowed.origin });
    store = await openTestDb('pglite');
    platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
    token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'browser-partner' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await store?.drop();
    await allowed?.close();
    await other?.close();
  });

  async function render(pageOrigin: string): Promise<{ security: string; demo: string }> {
    const page = await browser.newPage();
    try {
      const query = new URLSearchParams({ gateway: platform.urls.gateway ?? '', analysis: platform.urls.analysis ?? '', token });
      await page.goto(`${pageOrigin}/?${query}`);
      // Runs in the page (a string, so no DOM types are needed here): true once the call has settled.
      const settled = (id: string) => page.waitForFunction(`document.getElementById(${JSON.stringify(id)}).textContent !== 'pending'`, undefined, { timeout: scaled(20_000) });
      await Promise.all([settled('security'), settled('demo')]);
      return { security: (await page.textContent('#security')) ?? '', demo: (await page.textContent('#demo')) ?? '' };
    } finally {
      await page.close();
    }
  }

  it('renders the gateway answer (token, preflight) and the demo read, and may read x-trace-id', async () => {
    const shown = await render(allowed.origin);
    expect(shown.security).toMatch(/^200 Acme Synthetic Corp [0-9a-f]+$/);
    const direct = (await (await fetch(`${platform.urls.analysis}/api/v1/demo/results/analysis/ACME`)).json()) as { result: { stage: unknown } };
    expect(shown.demo).toBe(`200 ${JSON.stringify(direct.result.stage)}`);
  });

  it('from an origin that is not allowed, the browser hands the page nothing', async () => {
    const shown = await render(other.origin);
    expect(shown.security).toBe('refused: TypeError');
    expect(shown.demo).toBe('refused: TypeError');
  });
});
