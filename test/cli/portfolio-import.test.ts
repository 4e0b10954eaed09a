/**
 * `tradegraph portfolio import` as a user runs it: the built dist/cli/tradegraph.js in a child process
 * (test/helpers/child.ts: own process group, scaled deadlines) on a scratch on-disk store holding the
 * synthetic market. A good broker export becomes the partner's book, printed as JSON (exit 0); a file
 * with bad lines or an unknown symbol is refused with every problem on stderr (exit 1) and writes
 * nothing, as is a bad --cash (the service reads it as the upload's ?cash=); a malformed command line
 * is a usage error (exit 2) that writes nothing either.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BookResponse } from '../../subgraphs/allocation/book-types.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { originEnv, runToExit } from '../helpers/child.js';
import { generateQuietly, scratchStore } from '../helpers/cli.js';

const CLI_JS = path.join(PROJECT_ROOT, 'dist', 'cli', 'tradegraph.js');

const { config, dataDir, inStore } = scratchStore('tg-cli-book-');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-cli-book-files-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string): string => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};

/** Runs the built CLI on the scratch store. */
const cli = (...args: string[]) => runToExit(process.execPath, [CLI_JS, ...args], { env: originEnv({ DATA_DIR: dataDir }) });

const portfolioCount = () => inStore(async (db) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM portfolios'))[0].n);

/** Two equities of the generated market other than ACME, and the latest close of each. */
let symbols: string[];
const lastClose: Record<string, number> = {};

beforeAll(async () => {
  if (!fs.existsSync(CLI_JS)) throw new Error(`${CLI_JS} is missing: run npm run build (npm test does)`);
  await generateQuietly(config, ['--symbols', '11', '--years', '1', '--seed', '7']);
  await inStore(async (db) => {
    const rows = await db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' AND symbol <> 'ACME' ORDER BY symbol LIMIT 2");
    symbols = rows.map((r) => r.symbol);
    for (const s of ['ACME', ...symbols]) {
      const [bar] = await db.query<{ close: number }>('SELECT close FROM bars WHERE symbol = $1 ORDER BY date DESC LIMIT 1', [s]);
      lastClose[s] = Math.round(Number(bar.close) * 100) / 100;
    }
  });
});

it('imports a broker export (BOM, CRLF, quoted $ amounts, extra columns) as the partner\'s book and prints it', async () => {
  const [a, b] = symbols;
  const file = write(
    'broker.csv',
    `\uFEFFSymbol,Description,Shares,Cost_Basis,Entry_Date\r\n` +
      `ACME,"Acme Synthetic Corp",120,"$1,234.5000",2026-03-02\r\n` +
      `\r\n` +
      `${a},"Second, Inc.","1,000",12.3456,\r\n` +
      `${b},Third,7,0.5,2026-06-30\r\n`,
  );
  const before = await portfolioCount();
  const { code, stdout, stderr } = await cli('portfolio', 'import', '--sub', 'partner-cli', '--name', 'Broker export', '--cash', '2500.75', file);
  expect({ code, stderr }).toEqual({ code: 0, stderr: expect.stringMatching(/^Created book [0-9a-f-]{36} for partner-cli: 3 holdings, cash 2500\.75/) });
  const book = JSON.parse(stdout) as BookResponse;
  expect(book).toMatchObject({ name: 'Broker export', currency: 'USD', source: 'import', version: 1, cash: 2500.75, position_count: 3 });
  const bySymbol = Object.fromEntries(book.holdings.map((h) => [h.symbol, h]));
  expect(bySymbol.ACME).toMatchObject({ shares: 120, cost_basis: 1234.5, cost_total: 148140, entry_date: '2026-03-02', price: lastClose.ACME });
  expect(bySymbol[a]).toMatchObject({ shares: 1000, cost_basis: 12.3456, cost_total: 12345.6 });
  expect(bySymbol[b]).toMatchObject({ shares: 7, cost_basis: 0.5, cost_total: 3.5, entry_date: '2026-06-30' });
  expect(book.holdings_value).toBeCloseTo(120 * lastClose.ACME + 1000 * lastClose[a] + 7 * lastClose[b], 2);
  expect(book.total_value).toBeCloseTo(book.holdings_value + 2500.75, 2);

  // Stored for that partner, with exactly these holdings.
  expect(await portfolioCount()).toBe(before + 1);
  const stored = await inStore(async (db) => ({
    header: await db.query<{ partner_id: string; source: string; cash: string }>('SELECT partner_id, source, cash::text AS cash FROM portfolios WHERE id = $1::uuid', [book.portfolio_id]),
    holdings: await db.query<{ symbol: string; shares: string }>('SELECT symbol, shares::text AS shares FROM portfolio_holdings WHERE portfolio_id = $1::uuid ORDER BY symbol', [book.portfolio_id]),
  }));
  expect(stored.header).toEqual([{ partner_id: 'partner-cli', source: 'import', cash: '2500.75' }]);
  expect(stored.holdings.map((h) => [h.symbol, Number(h.shares)])).toEqual([['ACME', 120], [a, 1000], [b, 7]].sort((x, y) => String(x[0]).localeCompare(String(y[0]))));
});

it('refuses a file with bad lines, naming each line and column on stderr, and writes nothing', async () => {
  const file = write('bad.csv', ['symbol,shares,cost_basis,entry_date', `ACME,10,100,2026-01-05`, `${symbols[0]},2.5,abc,2026-02-30`, '', `${symbols[1]},0,1.234567,`].join('\n'));
  const before = await portfolioCount();
  const { code, stdout, stderr } = await cli('portfolio', 'import', '--sub', 'partner-cli', '--name', 'Bad', file);
  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr).toMatch(/^Refused \(VALIDATION_FAILED\): .*nothing was written\.$/m);
  const lines = stderr.split('\n').filter((l) => l.startsWith('  line '));
  expect(lines.map((l) => l.slice(0, l.indexOf(':', l.indexOf(':') + 1)).trim())).toEqual([
    'line 3: shares',
    'line 3: cost_basis',
    'line 3: entry_date',
    'line 5: shares',
    'line 5: cost_basis',
  ]);
  expect(stderr).toContain('  line 3: shares: "2.5" must be a whole number >= 1');
  expect(await portfolioCount()).toBe(before);
});

it('refuses a symbol the store does not know, and writes nothing', async () => {
  const file = write('unknown.csv', 'symbol,shares,cost_basis\nACME,10,100\nZZZQ,5,20\n');
  const before = await portfolioCount();
  const { code, stdout, stderr } = await cli('portfolio', 'import', '--sub', 'partner-cli', '--name', 'Unknown', file);
  expect(code).toBe(1);
  expect(stdout).toBe('');
  expect(stderr).toMatch(/ZZZQ/);
  expect(stderr).toContain('nothing was written');
  expect(await portfolioCount()).toBe(before);
});

it('a bad --cash is the service\'s refusal, as for the REST upload\'s ?cash= (exit 1), and an entry date before 1900 is a bad line; nothing is written', async () => {
  const file = write('cash.csv', 'symbol,shares,cost_basis,entry_date\nACME,1,1,0000-01-01\n');
  const before = await portfolioCount();
  for (const [cash, message] of [
    ['lots', 'cash: must be a number (got "lots")'],
    ['1.005', 'cash: '],
  ] as const) {
    const { code, stdout, stderr } = await cli('portfolio', 'import', '--sub', 'partner-cli', '--name', 'Cash', '--cash', cash, file);
    const seen = { cash, code, stdout, refused: /^Refused \(VALIDATION_FAILED\): .*nothing was written\.$/m.test(stderr), message: stderr.includes(`  ${message}`), stderr };
    expect(seen).toEqual({ cash, code: 1, stdout: '', refused: true, message: true, stderr });
    expect(stderr).toContain('  line 2: entry_date: "0000-01-01" is not a calendar date YYYY-MM-DD from 1900-01-01');
  }
  expect(await portfolioCount()).toBe(before);
});

it('a malformed command line is a usage error (exit 2, the usage shown) that writes nothing', async () => {
  const file = write('good.csv', 'symbol,shares,cost_basis\nACME,1,1\n');
  const cases: Array<[string[], string]> = [
    [['--name', 'X', file], '--sub PARTNER'],
    [['--sub', 'p', file], '--name NAME'],
    [['--sub', 'p', '--name', 'X'], 'exactly one holdings CSV file'],
    [['--sub', 'p', '--name', 'X', '/nonexistent/holdings.csv'], 'No such file: /nonexistent/holdings.csv'],
    [['--sub', 'p', '--name', 'X', '--margin', file], '--margin'],
  ];
  const before = await portfolioCount();
  const results = await Promise.all(cases.map(([args]) => cli('portfolio', 'import', ...args)));
  results.forEach(({ code, stdout, stderr }, i) => {
    const [args, message] = cases[i];
    // The usage follows the message.
    const seen = { args, code, stdout, message: stderr.includes(message), usage: stderr.includes('portfolio import --sub PARTNER'), stderr };
    expect(seen).toEqual({ args, code: 2, stdout: '', message: true, usage: true, stderr });
  });
  expect(await portfolioCount()).toBe(before);
});
