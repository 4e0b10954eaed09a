/**
 * The pages for people work offline, in a real browser (Debian Chromium driven by playwright-core):
 * the gateway's GraphQL IDE at /graphql renders, runs its default operation and, with a partner token
 * pasted in its Headers editor, a partners-only one; the analysis origin's API reference at /docs
 * renders its operations. Every request a page makes is routed through the test: anything not for the
 * page's own origin is aborted and recorded, and none may be. Content-Security-Policy violations and
 * page errors fail the test too (the policy allows the origin only).
 *
 * Needs /usr/bin/chromium (`.ci/run` installs it): skipped with the reason otherwise, but failed under CI
 * (CI set), where a missing browser is a broken setup rather than a reason to skip.
 */
import fs from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { testConfig, TEST_SECRET } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { eventually, scaled } from '../helpers/time.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) throw new Error(`browser IDE tests cannot run under CI: ${CHROMIUM} is not installed (apt-get install chromium)`);
if (!haveChromium) console.warn(`browser IDE tests skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);
const describeWithBrowser = haveChromium ? describe : describe.skip;

/** What a page did: every URL it asked for, those aborted (not its origin), CSP violations and errors. */
interface PageLog {
  requests: string[];
  aborted: string[];
  problems: string[];
}

describeWithBrowser('pages for people, offline', () => {
  let store: TestDb;
  let platform: RunningPlatform;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    const config = testConfig();
    store = await openTestDb('pglite');
    platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
    token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'ide-partner' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await store?.drop();
  });

  /** A page in a fresh context whose requests may reach `origin` only. */
  async function offlinePage(origin: string): Promise<{ page: Page; log: PageLog }> {
    const context = await browser.newContext();
    const log: PageLog = { requests: [], aborted: [], problems: [] };
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      log.aborted.push(url);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    page.on('request', (request) => log.requests.push(request.url()));
    page.on('pageerror', (error) => log.problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) log.problems.push(`console: ${message.text()}`);
    });
    return { page, log };
  }

  function expectOnlyOrigin(log: PageLog, origin: string): void {
    expect(log.aborted).toEqual([]);
    expect(log.problems).toEqual([]);
    expect(log.requests.length).toBeGreaterThan(0);
    expect(log.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
  }

  /** The text of a GraphiQL editor (CodeMirror 5 keeps its instance on the wrapper element). */
  function editorText(page: Page, selector: string): Promise<string> {
    return page.evaluate(`document.querySelector(${JSON.stringify(`${selector} .CodeMirror`)}).CodeMirror.getValue()`) as Promise<string>;
  }

  function setEditorText(page: Page, selector: string, text: string): Promise<unknown> {
    return page.evaluate(`document.querySelector(${JSON.stringify(`${selector} .CodeMirror`)}).CodeMirror.setValue(${JSON.stringify(text)})`);
  }

  /**
   * Runs the operation in the editor and returns the response pane once it shows `expected`. Polled
   * from here: page.waitForFunction would evaluate a string in the page, which the page's policy forbids.
   */
  async function runAndRead(page: Page, expected: string): Promise<string> {
    await page.click('.graphiql-execute-button');
    const shown = await eventually(async () => (await editorText(page, '.graphiql-response')).includes(expected), 20_000);
    const text = await editorText(page, '.graphiql-response');
    if (!shown) throw new Error(`the response pane never showed ${expected}: ${text}`);
    return text;
  }

  it('the gateway IDE renders, runs its default operation, and sends the token pasted in Headers', async () => {
    const origin = platform.urls.gateway as string;
    const { page, log } = await offlinePage(origin);
    try {
      await page.goto(`${origin}/graphql`);
      await page.waitForSelector('.graphiql-query-editor .CodeMirror', { timeout: scaled(20_000) });
      expect(await editorText(page, '.graphiql-query-editor')).toMatch(/security\(symbol: "ACME"\)/);

      const demo = JSON.parse(await runAndRead(page, '"symbol": "ACME"')) as { data?: { security: { symbol: string; analysis: unknown } }; errors?: unknown };
      expect(demo.errors).toBeUndefined();
      expect(demo.data?.security.symbol).toBe('ACME');

      // Partners only: without the header the gateway answers with an error, with it the page.
      await setEditorText(page, '.graphiql-query-editor', '{ securities(first: 2) { nodes { symbol } } }');
      // The Headers editor is the one open under the operation.
      expect(await page.getAttribute('.graphiql-editor-tool', 'aria-label')).toBe('Headers');
      await setEditorText(page, '.graphiql-editor-tool .graphiql-editor:not(.hidden)', JSON.stringify({ Authorization: `Bearer ${token}` }));
      const partner = JSON.parse(await runAndRead(page, '"nodes"')) as { data?: { securities: { nodes: Array<{ symbol: string }> } }; errors?: unknown };
      expect(partner.errors).toBeUndefined();
      expect(partner.data?.securities.nodes).toHaveLength(2);

      expectOnlyOrigin(log, origin);
      // The IDE's own files and the GraphQL calls all went to the gateway.
      expect(log.requests.filter((url) => url.includes('/graphql/ide/')).length).toBe(6);
      expect(log.requests.filter((url) => url === `${origin}/graphql`).length).toBeGreaterThanOrEqual(3);
    } finally {
      await page.context().close();
    }
  });

  it('the analysis origin\'s API reference renders its operations from /openapi.json', async () => {
    const origin = platform.urls.analysis as string;
    const document = (await (await fetch(`${origin}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const somePath = Object.keys(document.paths).find((p) => p.startsWith('/api/')) as string;
    expect(somePath).toBeDefined();
    const { page, log } = await offlinePage(origin);
    try {
      await page.goto(`${origin}/docs`);
      await page.waitForSelector('.opblock-summary-path', { timeout: scaled(20_000) });
      const shown = (await page.evaluate(`[...document.querySelectorAll('.opblock-summary-path')].map((n) => n.getAttribute('data-path'))`)) as string[];
      expect(shown).toContain(somePath);
      expect(await page.textContent('.info .title')).toContain('tradegraph-analysis');
      expectOnlyOrigin(log, origin);
      expect(log.requests).toContain(`${origin}/openapi.json`);
    } finally {
      await page.context().close();
    }
  });
});
