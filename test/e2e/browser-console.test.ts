/**
 * The web console in a real browser (Debian Chromium driven by playwright-core) against a real platform
 * in development mode: the gateway serves /console and the page reaches the platform only through the
 * gateway's /graphql.
 *
 * - The demo partner signs in with the development-token button.
 * - The demo symbol's chart draws (canvas pixels that are not all one colour), with a pattern overlay
 *   per detected pattern, the stage panel and the measured evidence of the snapshot the graph answers.
 * - A historical snapshot opens from the date picker.
 * - An optimize from the form shows a book; a refused one names the field.
 * - The demo book shows its holdings, the assessment, cash-hunt ideas and a rebalance preview; a book
 *   with more ideas than a page pages through them.
 * - The views work at 1280x800 and at 390x844 without a horizontal page scroll, and by keyboard.
 *
 * Every request any page makes is routed through the test: anything not for 127.0.0.1 is aborted and
 * recorded, and none may be. Content-Security-Policy violations and page errors fail the test too.
 * Screenshots go to artifacts/console/ (ARTIFACTS_DIR overrides artifacts/), which CI keeps.
 *
 * Needs /usr/bin/chromium (`.ci/run` installs it): skipped with the reason otherwise, but failed under CI
 * (CI set), where a missing browser is a broken setup rather than a reason to skip.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { DEMO_PORTFOLIO_ID } from '../../cli/demo-book.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { runToExit } from '../helpers/child.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { eventually, scaled } from '../helpers/time.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) throw new Error(`browser console tests cannot run under CI: ${CHROMIUM} is not installed (apt-get install chromium)`);
if (!haveChromium) console.warn(`browser console tests skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);
const describeWithBrowser = haveChromium ? describe : describe.skip;

const SCREENSHOTS = path.join(process.env.ARTIFACTS_DIR ?? path.join(PROJECT_ROOT, 'artifacts'), 'console');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** How long a view may take to show its data on an idle machine (before scaling). */
const VIEW_MS = 20_000;

/** What pages did: every URL asked for, those aborted (not 127.0.0.1), CSP violations and errors. */
interface PageLog {
  requests: string[];
  aborted: string[];
  problems: string[];
}

interface SnapshotAnswer {
  analysisDate: string;
  stage: string | null;
  detectedPatterns: Array<{ type: string }> | null;
  evidence: { status: string; stage: { state: string; n: number } | null } | null;
}

describeWithBrowser('the web console in a browser', () => {
  let store: TestDb;
  let platform: RunningPlatform;
  let browser: Browser;
  let origin: string;
  let demoSymbol: string;

  beforeAll(async () => {
    // The console's bundle comes from the build (npm test builds first; a lone run of this file may not have).
    const build = await runToExit(process.execPath, [path.join(PROJECT_ROOT, 'scripts/build-if-stale.mjs')], { ms: 240_000 });
    if (build.code !== 0) throw new Error(`the build failed:\n${build.output}`);
    // Development mode (the dev-token button), two years of a small demo market with a sampled history,
    // so the demo symbol has stage history, detected patterns and measured evidence.
    const config = testConfig({ APP_ENV: 'development', DEMO_SYMBOL_COUNT: '16', DEMO_YEARS: '2', ANALYZE_HISTORY_EVERY: '10' });
    demoSymbol = config.demo.symbol;
    store = await openTestDb('pglite');
    platform = await startPlatform(config, ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
    origin = platform.urls.gateway as string;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
  }, scaled(600_000));
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await store?.drop();
  });

  /** A context whose pages may reach 127.0.0.1 only, at `viewport`. */
  async function offlineContext(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; log: PageLog }> {
    const context = await browser.newContext({ viewport });
    const log: PageLog = { requests: [], aborted: [], problems: [] };
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === 'data:' || url.hostname === '127.0.0.1') return route.continue();
      log.aborted.push(url.href);
      return route.abort('blockedbyclient');
    });
    const page = await context.newPage();
    page.on('request', (request) => log.requests.push(request.url()));
    page.on('pageerror', (error) => log.problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) log.problems.push(`console: ${message.text()}`);
    });
    return { context, page, log };
  }

  function expectOffline(log: PageLog): void {
    expect(log.aborted).toEqual([]);
    expect(log.problems).toEqual([]);
    expect(log.requests.length).toBeGreaterThan(0);
    expect(log.requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:'))).toEqual([]);
  }

  async function signIn(page: Page): Promise<string> {
    await page.getByRole('button', { name: 'Sign in as the demo partner' }).click();
    await page.waitForSelector('[data-testid=subject]', { timeout: scaled(VIEW_MS) });
    return (await page.textContent('[data-testid=subject]')) ?? '';
  }

  /** The token the page holds is not readable from outside; the test mints its own the same way. */
  async function devToken(): Promise<string> {
    const res = await fetch(`${origin}/console/dev-token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
    return ((await res.json()) as { token: string }).token;
  }

  async function graphql<T>(query: string, variables: Record<string, unknown>, token: string): Promise<T> {
    const res = await fetch(`${origin}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) });
    const body = (await res.json()) as { data: T; errors?: unknown };
    expect(body.errors).toBeUndefined();
    return body.data;
  }

  /**
   * Page-side checks are expressions evaluated in the page (the project compiles without the DOM
   * library) and polled from here: page.waitForFunction would compile a string in the page, which the
   * page's policy forbids.
   */
  const inPage = <T>(page: Page, expression: string): Promise<T> => page.evaluate(expression) as Promise<T>;

  /** Waits until `expression` is true in the page; fails with `what` otherwise. */
  async function waitInPage(page: Page, expression: string, what: string): Promise<void> {
    if (!(await eventually(async () => (await inPage<boolean>(page, expression)) === true, VIEW_MS))) throw new Error(`the page never showed ${what}`);
  }

  /** No section is loading. */
  const SETTLED = `!document.querySelector('[aria-busy="true"]')`;

  /** How many distinct colours the chart's canvases hold, sampled on a grid (a blank chart has one or two). */
  const CANVAS_COLOURS = `(() => {
    const colours = new Set();
    for (const canvas of document.querySelectorAll('[data-testid=price-chart] canvas')) {
      const context = canvas.getContext('2d');
      if (!context || canvas.width === 0 || canvas.height === 0) continue;
      const { data, width, height } = context.getImageData(0, 0, canvas.width, canvas.height);
      for (let y = 0; y < height; y += 3) {
        for (let x = 0; x < width; x += 3) {
          const i = (y * width + x) * 4;
          if (data[i + 3] > 0) colours.add(data[i] + ',' + data[i + 1] + ',' + data[i + 2]);
        }
      }
    }
    return colours.size;
  })()`;

  /** The page does not scroll sideways: its content fits the viewport's width. */
  const FITS_WIDTH = 'document.documentElement.scrollWidth <= window.innerWidth';

  /** Controls with no name a screen reader can say (no label, aria-label or aria-labelledby; a button without text). */
  const UNLABELLED = `[...document.querySelectorAll('input, select, textarea, button')]
    .filter((el) => el.type !== 'hidden')
    .filter((el) => !(el.labels && el.labels.length > 0) && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby') && !(el.tagName === 'BUTTON' && el.textContent.trim()))
    .map((el) => el.outerHTML.slice(0, 120))`;

  it('draws the demo symbol: candles and overlays, a pattern per detection, the stage and the measured evidence', async () => {
    const token = await devToken();
    const { analysis } = (
      await graphql<{ security: { analysis: SnapshotAnswer } }>(
        'query($s: String!) { security(symbol: $s) { analysis { analysisDate stage detectedPatterns { type } evidence { status stage { state n } } } } }',
        { s: demoSymbol },
        token,
      )
    ).security;
    expect(analysis.detectedPatterns?.length).toBeGreaterThan(0);
    expect(analysis.evidence?.status).toBe('MEASURED');

    const { context, page, log } = await offlineContext(DESKTOP);
    try {
      await page.goto(`${origin}/console`);
      expect(await signIn(page)).toBe('partner-1');
      await page.waitForSelector('[data-testid=price-chart] canvas', { timeout: scaled(VIEW_MS) });
      await page.waitForSelector('[data-testid=pattern-overlay]', { timeout: scaled(VIEW_MS) });
      await page.waitForSelector('[data-testid=evidence-panel]', { timeout: scaled(VIEW_MS) });
      await waitInPage(page, SETTLED, 'every view loaded');
      expect(await inPage<number>(page, CANVAS_COLOURS)).toBeGreaterThan(20);

      expect(await page.locator('[data-testid=pattern-overlay]').count()).toBe(analysis.detectedPatterns?.length);
      const stagePanel = (await page.textContent('[data-testid=stage-panel]')) ?? '';
      expect(stagePanel).toContain(analysis.analysisDate);
      // The graph's STAGE_2 as the panel writes it: "Stage 2".
      expect(stagePanel).toContain(`Stage ${analysis.stage?.replace('STAGE_', '')}`);
      const evidence = (await page.textContent('[data-testid=evidence-panel]')) ?? '';
      expect(evidence).toContain(analysis.evidence?.stage?.state);
      expect(evidence).toContain(String(analysis.evidence?.stage?.n));
      expect(await page.locator('[data-testid=levels] li').count()).toBeGreaterThan(0);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'security-1280x800.png'), fullPage: true });
      expectOffline(log);
    } finally {
      await context.close();
    }
  });

  it('opens a historical snapshot from the date picker', async () => {
    const token = await devToken();
    const { snapshots } = (
      await graphql<{ security: { snapshots: { nodes: Array<{ analysisDate: string }> } } }>(
        'query($s: String!) { security(symbol: $s) { snapshots(first: 20) { nodes { analysisDate } } } }',
        { s: demoSymbol },
        token,
      )
    ).security;
    const older = snapshots.nodes[Math.floor(snapshots.nodes.length / 2)]?.analysisDate as string;
    expect(older).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const { context, page, log } = await offlineContext(DESKTOP);
    try {
      await page.goto(`${origin}/console`);
      await signIn(page);
      await page.waitForSelector('[data-testid=stage-panel]', { timeout: scaled(VIEW_MS) });
      await page.getByLabel('Snapshot date').fill(older);
      await page.getByLabel('Snapshot date').press('Enter');
      await waitInPage(page, `document.querySelector('[data-testid=stage-panel]')?.textContent?.includes(${JSON.stringify(older)}) ?? false`, `the snapshot of ${older}`);
      expect(page.url()).toContain(`date=${older}`);
      expectOffline(log);
    } finally {
      await context.close();
    }
  });

  it('optimizes from the form and shows the book; a refused request names its field', async () => {
    const { context, page, log } = await offlineContext(DESKTOP);
    try {
      await page.goto(`${origin}/console#/optimizer`);
      await signIn(page);
      const form = page.getByRole('form', { name: 'Portfolio request' });
      await form.getByLabel('Name', { exact: true }).fill('Console book');
      await form.getByLabel('Total capital').fill('100000');
      // The form opens with the demo input, whose Kelly strategy buys nothing in this small market.
      await form.getByLabel('Allocation strategy').selectOption('EQUAL_WEIGHT');
      await form.getByRole('button', { name: 'Optimize' }).click();
      await page.waitForSelector('[data-testid=optimizer-result] tbody tr', { timeout: scaled(VIEW_MS) });
      expect(await page.locator('[data-testid=optimizer-result] tbody tr').count()).toBeGreaterThan(0);
      expect(await page.locator('[data-testid=binding-notes]').count()).toBe(1);
      expect(await page.locator('[data-testid=policy-explanation]').count()).toBe(1);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'optimizer-1280x800.png'), fullPage: true });

      await form.getByLabel('Total capital').fill('-5');
      await form.getByRole('button', { name: 'Optimize' }).click();
      const alert = page.getByRole('alert').first();
      await alert.waitFor({ timeout: scaled(VIEW_MS) });
      expect(await alert.textContent()).toMatch(/total_?capital/i);
      // The control the server named is marked, and says why.
      const capital = form.getByLabel('Total capital');
      expect(await capital.getAttribute('aria-invalid')).toBe('true');
      const describedBy = (await capital.getAttribute('aria-describedby')) ?? '';
      expect(describedBy).not.toBe('');
      expect(await page.locator(`[id="${describedBy.split(' ')[0]}"]`).textContent()).toMatch(/total_?capital|capital/i);
      // Focus goes to the first field to fix, and the previous book is gone.
      await waitInPage(page, `document.activeElement?.getAttribute('aria-invalid') === 'true'`, 'focus on the refused field');
      expect(await capital.evaluate((el, id) => el.id === id, await inPage<string>(page, 'document.activeElement.id'))).toBe(true);
      expect(await page.locator('[data-testid=optimizer-result] tbody tr').count()).toBe(0);
      expectOffline(log);
    } finally {
      await context.close();
    }
  });

  it('shows the demo book: holdings, the assessment, cash-hunt ideas and a rebalance preview', async () => {
    const { context, page, log } = await offlineContext(DESKTOP);
    try {
      await page.goto(`${origin}/console#/books`);
      await signIn(page);
      const link = page.locator(`[data-testid=book-list] a[href="#/books/${DEMO_PORTFOLIO_ID}"]`);
      await link.waitFor({ timeout: scaled(VIEW_MS) });
      await link.click();
      await page.waitForSelector('[data-testid=holdings] tbody tr', { timeout: scaled(VIEW_MS) });
      expect(await page.locator('[data-testid=holdings] tbody tr').count()).toBe(5);

      await page.waitForSelector('[data-testid=cash-hunt] [data-testid=idea]', { timeout: scaled(VIEW_MS) });
      expect(await page.locator('[data-testid=cash-hunt] [data-testid=idea]').count()).toBeGreaterThan(0);
      await page.waitForSelector('[data-testid=assessment]', { timeout: scaled(VIEW_MS) });

      await page.getByRole('button', { name: 'Preview rebalance' }).click();
      await page.waitForSelector('[data-testid=rebalance-orders] tbody tr', { timeout: scaled(VIEW_MS) });
      expect(await page.locator('[data-testid=rebalance-orders] tbody tr').count()).toBeGreaterThan(0);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'books-1280x800.png'), fullPage: true });
      expectOffline(log);
    } finally {
      await context.close();
    }
  });

  it('pages the cash hunt of a book with more ideas than one page', async () => {
    // A book of cash only: on this market its cash hunt has more ideas than the smallest page holds.
    const token = await devToken();
    const { createPortfolio } = await graphql<{ createPortfolio: { id: string; cashHunt: { totalRecommendations: number } } }>(
      'mutation { createPortfolio(input: {name: "Cash only", cash: 1000000, holdings: []}) { id cashHunt(pageSize: 5) { totalRecommendations } } }',
      {},
      token,
    );
    expect(createPortfolio.cashHunt.totalRecommendations).toBeGreaterThan(5);

    const { context, page, log } = await offlineContext(DESKTOP);
    try {
      await page.goto(`${origin}/console#/books/${createPortfolio.id}`);
      await signIn(page);
      const hunt = page.locator('[data-testid=cash-hunt]');
      await hunt.getByLabel('Ideas per page').selectOption('5');
      await page.waitForSelector('[data-testid=cash-hunt] [data-testid=idea]', { timeout: scaled(VIEW_MS) });
      const ideas = `[...document.querySelectorAll('[data-testid=cash-hunt] [data-testid=idea]')].map((r) => r.textContent)`;
      await waitInPage(page, `(${ideas}).length === 5`, 'a page of five ideas');
      const firstPage = await hunt.locator('[data-testid=idea]').allTextContents();
      const next = hunt.getByRole('button', { name: 'Next page' });
      expect(await next.isEnabled()).toBe(true);
      expect(await hunt.getByRole('button', { name: 'Previous page' }).isEnabled()).toBe(false);
      await next.click();
      const rest = createPortfolio.cashHunt.totalRecommendations - 5;
      await waitInPage(page, `(${ideas}).length === ${Math.min(rest, 5)} && (${ideas}).join('|') !== ${JSON.stringify(firstPage.join('|'))}`, 'the next page of ideas');
      expect(await hunt.getByRole('button', { name: 'Previous page' }).isEnabled()).toBe(true);
      expectOffline(log);
    } finally {
      await context.close();
    }
  });

  it('fits a 390x844 phone screen and works by keyboard', async () => {
    const { context, page, log } = await offlineContext(PHONE);
    try {
      await page.goto(`${origin}/console`);
      // Keyboard only: Tab to the sign-in button and press Enter.
      const button = page.getByRole('button', { name: 'Sign in as the demo partner' });
      const focused = () => inPage<string>(page, 'document.activeElement ? document.activeElement.textContent : ""');
      for (let i = 0; i < 20 && (await focused()) !== 'Sign in as the demo partner'; i++) await page.keyboard.press('Tab');
      expect(await focused()).toBe('Sign in as the demo partner');
      expect(await button.count()).toBe(1);
      await page.keyboard.press('Enter');
      await page.waitForSelector('[data-testid=subject]', { timeout: scaled(VIEW_MS) });
      // Focus moves to the control that undoes it, not to the page.
      await waitInPage(page, `document.activeElement?.textContent === 'Sign out'`, 'focus on Sign out');
      await page.waitForSelector('[data-testid=pattern-overlay]', { timeout: scaled(VIEW_MS) });
      await waitInPage(page, SETTLED, 'every view loaded');
      expect(await inPage<number>(page, CANVAS_COLOURS)).toBeGreaterThan(20);
      expect(await inPage<boolean>(page, FITS_WIDTH)).toBe(true);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'security-390x844.png'), fullPage: true });
      // Every control on the page has a name a screen reader can say.
      expect(await inPage<string[]>(page, UNLABELLED)).toEqual([]);

      for (const [view, ready] of [
        ['#/optimizer', 'form[aria-label="Portfolio request"]'],
        [`#/books/${DEMO_PORTFOLIO_ID}`, '[data-testid=holdings] tbody tr'],
      ] as const) {
        await page.goto(`${origin}/console${view}`);
        // A new hash alone does not load the page again; a reload does, and signs out: the token lives in memory only.
        await page.reload();
        expect(await page.locator('[data-testid=subject]').count()).toBe(0);
        await signIn(page);
        await page.waitForSelector(ready, { timeout: scaled(VIEW_MS) });
        expect(await inPage<boolean>(page, FITS_WIDTH)).toBe(true);
        await page.screenshot({ path: path.join(SCREENSHOTS, `${view.split('/')[1]}-390x844.png`), fullPage: true });
        expect(await inPage<string[]>(page, UNLABELLED)).toEqual([]);
      }

      expectOffline(log);
    } finally {
      await context.close();
    }
  });
});
