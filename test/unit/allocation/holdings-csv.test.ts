/**
 * Holdings CSV: the header (any order, any case, extra columns), broker number formats, BOM/CRLF/quotes,
 * blank lines counted in line numbers, one problem per bad cell named `line N: column`, file-level
 * problems (empty, missing columns, too many lines), and nothing returned when anything is wrong.
 */
import { HOLDINGS_CSV_MAX_LINES, parseHoldingsCsv } from '../../../subgraphs/allocation/engine/holdings-csv.js';

describe('parseHoldingsCsv: good files', () => {
  it('reads the required and optional columns in file order, with each line number', () => {
    const r = parseHoldingsCsv('symbol,shares,cost_basis,entry_date\nAAPL,10,150.25,2026-03-02\nMSFT,5,300\n');
    expect(r.problems).toEqual([]);
    expect(r.holdings).toEqual([
      { symbol: 'AAPL', shares: 10, cost_basis: 150.25, entry_date: '2026-03-02' },
      { symbol: 'MSFT', shares: 5, cost_basis: 300 },
    ]);
    expect(r.lines).toEqual([2, 3]);
  });

  it('matches header names case-insensitively and trimmed, in any order, ignoring other columns', () => {
    const r = parseHoldingsCsv(' Cost_Basis ,Description, SYMBOL,Shares,Market Value\n12.5,Acme Corp,ACME,3,40\n');
    expect(r.problems).toEqual([]);
    expect(r.holdings).toEqual([{ symbol: 'ACME', shares: 3, cost_basis: 12.5 }]);
  });

  it('accepts a BOM, CRLF line ends, quoted fields and skips blank lines while counting them', () => {
    const text = '\uFEFFsymbol,shares,cost_basis\r\n\r\n"AAPL","1,200","$1,234.5000"\r\n   \r\n"BRK.B",2,"410"\r\n';
    const r = parseHoldingsCsv(text);
    expect(r.problems).toEqual([]);
    expect(r.holdings).toEqual([
      { symbol: 'AAPL', shares: 1200, cost_basis: 1234.5 },
      { symbol: 'BRK.B', shares: 2, cost_basis: 410 },
    ]);
    expect(r.lines).toEqual([3, 5]);
  });

  it('reads broker number formats: thousands separators, a leading $, 10.0 shares, 4 decimals, 0 cost', () => {
    const r = parseHoldingsCsv('symbol,shares,cost_basis\nA,"1,000,000",$0.1234\nB,10.0,0\nC,7,.5\nD,1,"$12,345.67"\n');
    expect(r.problems).toEqual([]);
    expect(r.holdings.map((h) => [h.shares, h.cost_basis])).toEqual([[1000000, 0.1234], [10, 0], [7, 0.5], [1, 12345.67]]);
  });

  it('treats an empty entry_date as none given and trims cells', () => {
    const r = parseHoldingsCsv('symbol,shares,cost_basis,entry_date\n  AAPL , 4 , 99.5 ,  \n');
    expect(r.holdings).toEqual([{ symbol: 'AAPL', shares: 4, cost_basis: 99.5 }]);
  });

  it('reads a header without lines as a book of cash only', () => {
    expect(parseHoldingsCsv('symbol,shares,cost_basis\n')).toEqual({ holdings: [], lines: [], problems: [] });
  });

  it('counts line breaks inside quoted fields', () => {
    const r = parseHoldingsCsv('symbol,notes,shares,cost_basis\nAAPL,"two\nlines",1,2\nMSFT,x,0,2\n');
    expect(r.problems).toEqual([{ field: 'line 4: shares', message: expect.stringContaining('whole number >= 1') }]);
  });

  it('takes entry dates by the platform\'s rule: from 1900-01-01 (no year 0, which the store refuses)', () => {
    const r = parseHoldingsCsv('symbol,shares,cost_basis,entry_date\nAAPL,1,1,0000-01-01\nMSFT,1,1,1899-12-31\nNVDA,1,1,1900-01-01\n');
    expect(r.problems).toEqual([
      { field: 'line 2: entry_date', message: '"0000-01-01" is not a calendar date YYYY-MM-DD from 1900-01-01' },
      { field: 'line 3: entry_date', message: '"1899-12-31" is not a calendar date YYYY-MM-DD from 1900-01-01' },
    ]);
  });

  it('is deterministic', () => {
    const text = 'symbol,shares,cost_basis\nAAPL,1,2\nMSFT,x,-1\n';
    expect(parseHoldingsCsv(text)).toEqual(parseHoldingsCsv(text));
  });
});

describe('parseHoldingsCsv: problems', () => {
  it('names every bad cell with its line and column, and returns no holdings', () => {
    const text = [
      'symbol,shares,cost_basis,entry_date',
      'AAPL,10,150,2026-01-05', // line 2: fine
      '',
      ',2.5,abc,2026-02-30', // line 4: four problems
      'MSFT,0,-1,26-01-01', // line 5: three problems
      'NVDA,1e3,1.23456,2026-13-01', // line 6: three problems
    ].join('\n');
    const r = parseHoldingsCsv(text);
    expect(r.holdings).toEqual([]);
    expect(r.lines).toEqual([]);
    expect(r.problems.map((p) => p.field)).toEqual([
      'line 4: symbol', 'line 4: shares', 'line 4: cost_basis', 'line 4: entry_date',
      'line 5: shares', 'line 5: cost_basis', 'line 5: entry_date',
      'line 6: shares', 'line 6: cost_basis', 'line 6: entry_date',
    ]);
    const byField = Object.fromEntries(r.problems.map((p) => [p.field, p.message]));
    expect(byField['line 4: symbol']).toBe('is empty');
    expect(byField['line 4: shares']).toMatch(/"2\.5" must be a whole number >= 1/);
    expect(byField['line 4: cost_basis']).toMatch(/"abc" is not a number/);
    expect(byField['line 4: entry_date']).toMatch(/"2026-02-30" is not a calendar date YYYY-MM-DD/);
    expect(byField['line 5: shares']).toMatch(/"0" must be a whole number >= 1/);
    expect(byField['line 5: cost_basis']).toMatch(/"-1" must be >= 0/);
    expect(byField['line 6: shares']).toMatch(/"1e3" is not a number/);
    expect(byField['line 6: cost_basis']).toMatch(/more than 4 decimals/);
  });

  it('refuses a missing or empty required cell (a short row)', () => {
    const r = parseHoldingsCsv('symbol,shares,cost_basis\nAAPL,3\n');
    expect(r.problems).toEqual([{ field: 'line 2: cost_basis', message: 'is empty: the average price paid per share is required' }]);
  });

  it('refuses malformed thousands groups and more than 1e9 shares', () => {
    const r = parseHoldingsCsv('symbol,shares,cost_basis\nA,"1,00",1\nB,1000000001,1\nC,1,"12,34.5"\n');
    expect(r.problems.map((p) => p.field)).toEqual(['line 2: shares', 'line 3: shares', 'line 4: cost_basis']);
    expect(r.problems[1].message).toMatch(/at most 1000000000/);
  });

  it('refuses a symbol on a second line', () => {
    const r = parseHoldingsCsv('symbol,shares,cost_basis\nAAPL,1,1\nMSFT,1,1\nAAPL,2,2\n');
    expect(r.problems).toEqual([{ field: 'line 4: symbol', message: '"AAPL" is already held at line 2 (one line per symbol)' }]);
  });

  it('names each missing required column once on field header', () => {
    const r = parseHoldingsCsv('Ticker,Quantity,cost_basis\nAAPL,1,1\n');
    expect(r.holdings).toEqual([]);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0].field).toBe('header');
    expect(r.problems[0].message).toMatch(/missing: symbol, shares/);
  });

  it('refuses an empty file (or only blank lines, or only a BOM)', () => {
    for (const text of ['', '\n\n  \r\n', '\uFEFF']) {
      const r = parseHoldingsCsv(text);
      expect(r.holdings).toEqual([]);
      expect(r.problems).toEqual([{ field: 'file', message: expect.stringContaining('the file is empty') }]);
    }
  });

  it(`refuses more than ${HOLDINGS_CSV_MAX_LINES} lines with one problem, and accepts exactly that many`, () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => `S${i},1,1`);
    const ok = parseHoldingsCsv(['symbol,shares,cost_basis', ...rows(HOLDINGS_CSV_MAX_LINES)].join('\n'));
    expect(ok.problems).toEqual([]);
    expect(ok.holdings).toHaveLength(HOLDINGS_CSV_MAX_LINES);
    const over = parseHoldingsCsv(['symbol,shares,cost_basis', ...rows(HOLDINGS_CSV_MAX_LINES + 1)].join('\n'));
    expect(over.holdings).toEqual([]);
    expect(over.problems).toEqual([{ field: 'file', message: `the file has 501 holding lines; at most 500 are accepted` }]);
  });

  it('reports an unclosed quote at the line it starts on', () => {
    const r = parseHoldingsCsv('symbol,shares,cost_basis\nAAPL,1,1\n"MSFT,2,2\n');
    expect(r.holdings).toEqual([]);
    expect(r.problems).toEqual([{ field: 'line 3', message: expect.stringContaining('quoted field is never closed') }]);
  });

  it('shortens a long bad value in the message', () => {
    const r = parseHoldingsCsv(`symbol,shares,cost_basis\nA,${'9'.repeat(300)}x,1\n`);
    expect(r.problems[0].message.length).toBeLessThan(120);
  });
});
