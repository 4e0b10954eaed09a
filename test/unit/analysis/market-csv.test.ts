/**
 * Market-data CSV parsing: every format, every validation rule, exact line numbers, large and hostile
 * inputs. How fast it parses is measured by `npm run bench:market-csv` (bench/market-csv.ts), not here.
 */
import {
  parseBarsCsv,
  parseSecuritiesCsv,
  symbolFromFileName,
} from '../../../subgraphs/analysis/engine/market-csv.js';
import type { RowError } from '../../../subgraphs/analysis/engine/market-csv.js';

const LONG_HEADER = 'symbol,date,open,high,low,close,volume';
const YAHOO_HEADER = 'Date,Open,High,Low,Close,Adj Close,Volume';
const STOOQ_HEADER = 'Date,Open,High,Low,Close,Volume';
const STOOQ_TICKER_HEADER = '<TICKER>,<PER>,<DATE>,<TIME>,<OPEN>,<HIGH>,<LOW>,<CLOSE>,<VOL>,<OPENINT>';
const SECURITIES_HEADER = 'symbol,name,sector,sub_industry';

/** LF-joined CSV text. */
const csv = (...rows: string[]): string => rows.join('\n');

/** Line numbers of the errors, in order. */
const lines = (errors: RowError[]): number[] => errors.map((e) => e.line);

/** Parses a long-format file made of the header and `rows`, expecting exactly one error. */
function singleLongError(...rows: string[]): RowError {
  const result = parseBarsCsv(csv(LONG_HEADER, ...rows), { file: 'prices.csv' });
  expect(result.errors).toHaveLength(1);
  return result.errors[0];
}

describe('parseBarsCsv: long format', () => {
  const text = csv(
    LONG_HEADER,
    'A,2011-04-21,32.3680,32.6789,32.2688,32.6392,3064500',
    'A,2011-04-25,32.6166,32.7099,32.2533,32.4216,2342700',
    'AAPL,2011-04-21,12.4573,12.4832,12.1882,12.3100,755486400',
  );

  it('parses real-looking rows in input order', () => {
    const result = parseBarsCsv(text, { file: 'data/prices.csv' });
    expect(result.format).toBe('long');
    expect(result.errors).toEqual([]);
    expect(result.bars).toEqual([
      { symbol: 'A', date: '2011-04-21', open: 32.368, high: 32.6789, low: 32.2688, close: 32.6392, volume: 3064500 },
      { symbol: 'A', date: '2011-04-25', open: 32.6166, high: 32.7099, low: 32.2533, close: 32.4216, volume: 2342700 },
      {
        symbol: 'AAPL',
        date: '2011-04-21',
        open: 12.4573,
        high: 12.4832,
        low: 12.1882,
        close: 12.31,
        volume: 755486400,
      },
    ]);
  });

  it('takes the symbol from each row, not from the file name or options', () => {
    const result = parseBarsCsv(text, { file: 'MSFT.csv', symbol: 'MSFT' });
    expect(result.bars.map((b) => b.symbol)).toEqual(['A', 'A', 'AAPL']);
  });

  it('matches the header case-insensitively with whitespace trimmed', () => {
    const result = parseBarsCsv(
      csv(' Symbol , DATE,Open,HIGH ,low,Close,  Volume', 'A,2011-04-21,32.3680,32.6789,32.2688,32.6392,3064500'),
      { file: 'x.csv' },
    );
    expect(result.format).toBe('long');
    expect(result.errors).toEqual([]);
    expect(result.bars).toHaveLength(1);
  });

  it('tolerates a UTF-8 byte-order mark', () => {
    const result = parseBarsCsv(`\uFEFF${text}`, { file: 'x.csv' });
    expect(result.format).toBe('long');
    expect(result.errors).toEqual([]);
    expect(result.bars).toHaveLength(3);
  });

  it('handles CRLF line endings and reports CRLF line numbers correctly', () => {
    const crlf = [LONG_HEADER, 'A,2011-04-21,32.3680,32.6789,32.2688,32.6392,3064500', 'A,2011-04-25,x,1,1,1,1', ''].join(
      '\r\n',
    );
    const result = parseBarsCsv(crlf, { file: 'x.csv' });
    expect(result.bars).toHaveLength(1);
    expect(result.bars[0].volume).toBe(3064500);
    expect(result.errors).toEqual([{ file: 'x.csv', line: 3, message: 'open "x" is not a number' }]);
  });

  it('handles mixed line endings', () => {
    const mixed = `${LONG_HEADER}\r\nA,2011-04-21,1,1,1,1,1\nA,2011-04-22,1,1,1,1,1\rA,2011-04-25,1,1,1,1,-5\r\n`;
    const result = parseBarsCsv(mixed, { file: 'x.csv' });
    expect(result.bars.map((b) => b.date)).toEqual(['2011-04-21', '2011-04-22']);
    expect(lines(result.errors)).toEqual([4]);
  });

  it('ignores trailing blank lines and whitespace-only lines, counting them for line numbers', () => {
    const result = parseBarsCsv(
      csv(LONG_HEADER, 'A,2011-04-21,1,1,1,1,1', '', '   ', 'A,2011-04-22,1,1,1,1,bad', '', ''),
      { file: 'x.csv' },
    );
    expect(result.bars).toHaveLength(1);
    expect(lines(result.errors)).toEqual([5]);
  });

  it('accepts quoted fields', () => {
    const result = parseBarsCsv(csv(LONG_HEADER, '"BRK.B","2011-04-21","80.1","81","79.5","80.9","3000"'), {
      file: 'x.csv',
    });
    expect(result.errors).toEqual([]);
    expect(result.bars[0]).toMatchObject({ symbol: 'BRK.B', close: 80.9 });
  });

  it('normalises lower-case symbols', () => {
    const result = parseBarsCsv(csv(LONG_HEADER, ' brk-b ,2011-04-21,1,1,1,1,1'), { file: 'x.csv' });
    expect(result.bars[0].symbol).toBe('BRK-B');
  });
});

describe('parseBarsCsv: Yahoo format', () => {
  const text = csv(
    YAHOO_HEADER,
    '2024-01-02,187.150002,188.440002,183.889999,185.639999,184.532089,82488700',
    '2024-01-03,184.220001,185.880005,183.429993,184.250000,183.150391,58414500',
  );

  it('adjusts OHLC by AdjClose/Close and keeps the volume', () => {
    const result = parseBarsCsv(text, { file: 'downloads/AAPL.csv' });
    expect(result.format).toBe('yahoo');
    expect(result.errors).toEqual([]);
    const factor = 184.532089 / 185.639999;
    const [bar] = result.bars;
    expect(bar.symbol).toBe('AAPL');
    expect(bar.date).toBe('2024-01-02');
    expect(bar.open).toBeCloseTo(187.150002 * factor, 10);
    expect(bar.high).toBeCloseTo(188.440002 * factor, 10);
    expect(bar.low).toBeCloseTo(183.889999 * factor, 10);
    expect(bar.close).toBe(184.532089);
    expect(bar.volume).toBe(82488700);
    expect(result.bars[1].close).toBe(183.150391);
  });

  it('applies a split factor exactly (2:1 split => halve all prices)', () => {
    const result = parseBarsCsv(csv(YAHOO_HEADER, '2020-08-28,100,110,90,104,52,1000'), { file: 'AAPL.csv' });
    expect(result.bars[0]).toEqual({
      symbol: 'AAPL',
      date: '2020-08-28',
      open: 50,
      high: 55,
      low: 45,
      close: 52,
      volume: 1000,
    });
  });

  it('uses options.symbol over the file name', () => {
    const result = parseBarsCsv(text, { file: 'download (3).csv', symbol: 'msft' });
    expect(result.bars.map((b) => b.symbol)).toEqual(['MSFT', 'MSFT']);
  });

  it('reports one error at the header when no symbol can be determined', () => {
    const result = parseBarsCsv(text, { file: 'download (3).csv' });
    expect(result.bars).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ file: 'download (3).csv', line: 1 });
    expect(result.errors[0].message).toMatch(/symbol/);
  });

  it('reports an invalid options.symbol the same way', () => {
    const result = parseBarsCsv(text, { file: 'AAPL.csv', symbol: '../etc' });
    expect(result.bars).toEqual([]);
    expect(lines(result.errors)).toEqual([1]);
  });

  it('rejects rows of null fields (missing days)', () => {
    const result = parseBarsCsv(
      csv(YAHOO_HEADER, '2024-01-02,1,1,1,1,1,1', '2024-01-03,null,null,null,null,null,null', '2024-01-04,2,2,2,2,2,2'),
      { file: 'AAPL.csv' },
    );
    expect(result.bars.map((b) => b.date)).toEqual(['2024-01-02', '2024-01-04']);
    expect(result.errors).toEqual([{ file: 'AAPL.csv', line: 3, message: expect.stringMatching(/null/) }]);
  });

  it('rejects a non-positive Adj Close', () => {
    const result = parseBarsCsv(csv(YAHOO_HEADER, '2024-01-02,1,1,1,1,0,1'), { file: 'AAPL.csv' });
    expect(result.errors).toEqual([{ file: 'AAPL.csv', line: 2, message: 'adj close "0" must be greater than 0' }]);
  });
});

describe('parseBarsCsv: Stooq formats', () => {
  it('parses the plain Date,Open,High,Low,Close,Volume form with the symbol from the file name', () => {
    const result = parseBarsCsv(csv(STOOQ_HEADER, '2024-01-02,185.64,188.44,183.89,185.64,82488674'), {
      file: 'd_us_txt/data/daily/us/nasdaq stocks/1/aapl.us.txt',
    });
    expect(result.format).toBe('stooq');
    expect(result.errors).toEqual([]);
    expect(result.bars).toEqual([
      { symbol: 'AAPL', date: '2024-01-02', open: 185.64, high: 188.44, low: 183.89, close: 185.64, volume: 82488674 },
    ]);
  });

  it('parses the <TICKER> form: YYYYMMDD dates, market suffix stripped from the ticker', () => {
    const result = parseBarsCsv(
      csv(
        STOOQ_TICKER_HEADER,
        'AAPL.US,D,20240102,000000,187.15,188.44,183.89,185.64,82488674,0',
        'BRK-B.US,D,20240102,000000,356.5,360.2,355.1,359.6,3963300,0',
      ),
      { file: 'whatever.txt' },
    );
    expect(result.format).toBe('stooq');
    expect(result.errors).toEqual([]);
    expect(result.bars).toEqual([
      { symbol: 'AAPL', date: '2024-01-02', open: 187.15, high: 188.44, low: 183.89, close: 185.64, volume: 82488674 },
      { symbol: 'BRK-B', date: '2024-01-02', open: 356.5, high: 360.2, low: 355.1, close: 359.6, volume: 3963300 },
    ]);
  });

  it('accepts only daily (PER D) rows and real YYYYMMDD dates in the <TICKER> form', () => {
    const result = parseBarsCsv(
      csv(
        STOOQ_TICKER_HEADER,
        'AAPL.US,W,20240105,000000,1,1,1,1,1,0',
        'AAPL.US,D,2024-01-02,000000,1,1,1,1,1,0',
        'AAPL.US,D,20240230,000000,1,1,1,1,1,0',
        'AAPL US,D,20240102,000000,1,1,1,1,1,0',
        'AAPL.US,d,20240103,000000,1,1,1,1,1,0',
      ),
      { file: 'aapl.us.txt' },
    );
    expect(result.bars.map((b) => b.date)).toEqual(['2024-01-03']);
    expect(result.errors).toEqual([
      { file: 'aapl.us.txt', line: 2, message: 'period "W" is not daily ("D")' },
      { file: 'aapl.us.txt', line: 3, message: 'date "2024-01-02" is not YYYYMMDD' },
      { file: 'aapl.us.txt', line: 4, message: 'date "20240230" is not a real calendar date' },
      { file: 'aapl.us.txt', line: 5, message: 'ticker "AAPL US" is not a valid ticker' },
    ]);
  });
});

describe('parseBarsCsv: headers and empty input', () => {
  it('reports an unknown header once at line 1, naming the expected headers, and returns no bars', () => {
    const result = parseBarsCsv(csv('ticker,day,o,h,l,c,v', 'A,2011-04-21,1,1,1,1,1', 'A,2011-04-22,1,1,1,1,1'), {
      file: 'odd.csv',
    });
    expect(result.format).toBeNull();
    expect(result.bars).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0].file).toBe('odd.csv');
    expect(result.errors[0].line).toBe(1);
    for (const expected of [LONG_HEADER, YAHOO_HEADER, STOOQ_HEADER, STOOQ_TICKER_HEADER]) {
      expect(result.errors[0].message).toContain(expected);
    }
  });

  it('treats a header with an extra column as unknown', () => {
    const result = parseBarsCsv(csv(`${LONG_HEADER},extra`, 'A,2011-04-21,1,1,1,1,1,x'), { file: 'x.csv' });
    expect(result.format).toBeNull();
    expect(lines(result.errors)).toEqual([1]);
  });

  it('reports empty text at line 1', () => {
    for (const text of ['', '\n\n', '\uFEFF']) {
      const result = parseBarsCsv(text, { file: 'empty.csv' });
      expect(result.bars).toEqual([]);
      expect(lines(result.errors)).toEqual([1]);
    }
  });

  it('accepts a header-only file', () => {
    expect(parseBarsCsv(`${LONG_HEADER}\n`, { file: 'x.csv' })).toEqual({ format: 'long', bars: [], lines: [], errors: [] });
  });
});

describe('parseBarsCsv: row validation (each failure reported at its line, row skipped)', () => {
  it('rejects invalid symbols', () => {
    for (const symbol of ['', '../x', "A'--", 'ÄPPLE', 'TOOLONGSYM', 'A B']) {
      const error = singleLongError('A,2011-04-21,1,1,1,1,1', `${symbol},2011-04-22,1,1,1,1,1`);
      expect(error.line).toBe(3);
      expect(error.message).toMatch(/^symbol .* is not a valid ticker$/);
    }
  });

  it.each([
    ['2021-02-30', 'is not a real calendar date'],
    ['2021-13-01', 'is not a real calendar date'],
    ['2021-00-10', 'is not a real calendar date'],
    ['2021-04-31', 'is not a real calendar date'],
    ['2021-02-29', 'is not a real calendar date'],
    ['1900-02-29', 'is not a real calendar date'],
    ['1899-12-31', 'is outside 1900-01-01..2100-12-31'],
    ['2101-01-01', 'is outside 1900-01-01..2100-12-31'],
    ['2021-1-5', 'is not YYYY-MM-DD'],
    ['20210105', 'is not YYYY-MM-DD'],
    ['2021/01/05', 'is not YYYY-MM-DD'],
    ['', 'is not YYYY-MM-DD'],
    ['not a date', 'is not YYYY-MM-DD'],
  ])('rejects the date %j', (date, message) => {
    const error = singleLongError(`A,${date},1,1,1,1,1`);
    expect(error.line).toBe(2);
    expect(error.message).toContain(message);
  });

  it('accepts leap days and the range limits', () => {
    const result = parseBarsCsv(
      csv(
        LONG_HEADER,
        'A,2020-02-29,1,1,1,1,1',
        'A,2000-02-29,1,1,1,1,1',
        'A,1900-01-01,1,1,1,1,1',
        'A,2100-12-31,1,1,1,1,1',
      ),
      { file: 'x.csv' },
    );
    expect(result.errors).toEqual([]);
    expect(result.bars).toHaveLength(4);
  });

  it.each([
    ['', 'open is empty'],
    ['NaN', 'open "NaN" is not a number'],
    ['Infinity', 'open "Infinity" is not a number'],
    ['-Infinity', 'open "-Infinity" is not a number'],
    ['1e999', 'open "1e999" is not a finite number'],
    ['-1', 'open "-1" must be greater than 0'],
    ['0', 'open "0" must be greater than 0'],
    ['12abc', 'open "12abc" is not a number'],
    ['0x10', 'open "0x10" is not a number'],
    ['1.2.3', 'open "1.2.3" is not a number'],
  ])('rejects the open price %j', (open, message) => {
    const error = singleLongError('A,2011-04-21,1,1,1,1,1', `A,2011-04-22,${open},1,1,1,1`);
    expect(error).toEqual({ file: 'prices.csv', line: 3, message });
  });

  it('validates every price column, not just open', () => {
    const result = parseBarsCsv(
      csv(LONG_HEADER, 'A,2011-04-21,1,NaN,1,1,1', 'A,2011-04-22,1,1,-2,1,1', 'A,2011-04-25,1,1,1,abc,1'),
      { file: 'x.csv' },
    );
    expect(result.errors.map((e) => [e.line, e.message])).toEqual([
      [2, 'high "NaN" is not a number'],
      [3, 'low "-2" must be greater than 0'],
      [4, 'close "abc" is not a number'],
    ]);
  });

  it('accepts numbers with exponents and surrounding spaces', () => {
    const result = parseBarsCsv(csv(LONG_HEADER, 'A,2011-04-21, 3.2368e1 ,32.6789,32.2688,32.6392, 3064500 '), {
      file: 'x.csv',
    });
    expect(result.errors).toEqual([]);
    expect(result.bars[0].open).toBeCloseTo(32.368, 12);
  });

  it('requires high >= max(open, close, low) and low <= min(open, close)', () => {
    const result = parseBarsCsv(
      csv(
        LONG_HEADER,
        'A,2011-04-21,10,9.5,9,9.2,1', // high below open
        'A,2011-04-22,9,9.5,9,9.8,1', // high below close
        'A,2011-04-25,9.5,10,9.6,9.8,1', // low above open
        'A,2011-04-26,9.8,10,9.6,9.5,1', // low above close
        'A,2011-04-27,9.5,10,9,9.8,1', // fine
        'A,2011-04-28,10,10,10,10,0', // flat bar, fine
      ),
      { file: 'x.csv' },
    );
    expect(result.errors).toEqual([
      { file: 'x.csv', line: 2, message: 'high 9.5 is below max(open, close, low) 10' },
      { file: 'x.csv', line: 3, message: 'high 9.5 is below max(open, close, low) 9.8' },
      { file: 'x.csv', line: 4, message: 'low 9.6 is above min(open, close) 9.5' },
      { file: 'x.csv', line: 5, message: 'low 9.6 is above min(open, close) 9.5' },
    ]);
    expect(result.bars.map((b) => b.date)).toEqual(['2011-04-27', '2011-04-28']);
  });

  it('allows a relative rounding tolerance of 1e-9 on high/low, but not more', () => {
    const ok = parseBarsCsv(csv(LONG_HEADER, 'A,2011-04-21,100.00000000005,100,99.99999999995,100,1'), {
      file: 'x.csv',
    });
    expect(ok.errors).toEqual([]);
    const bad = parseBarsCsv(csv(LONG_HEADER, 'A,2011-04-21,100.000001,100,99,100,1'), { file: 'x.csv' });
    expect(lines(bad.errors)).toEqual([2]);
  });

  it('accepts whole-number volumes, including the "3064500.0" spelling', () => {
    const result = parseBarsCsv(csv(LONG_HEADER, 'A,2011-04-21,1,1,1,1,3064500', 'A,2011-04-22,1,1,1,1,3064500.0'), {
      file: 'x.csv',
    });
    expect(result.errors).toEqual([]);
    expect(result.bars.map((b) => b.volume)).toEqual([3064500, 3064500]);
  });

  it.each([
    ['-1', 'volume "-1" must not be negative'],
    ['1.5', 'volume "1.5" is not a whole number'],
    ['', 'volume is empty'],
    ['1e999', 'volume "1e999" is not a finite number'],
    ['1e300', 'volume "1e300" is not a whole number'],
    ['many', 'volume "many" is not a number'],
  ])('rejects the volume %j', (volume, message) => {
    expect(singleLongError(`A,2011-04-21,1,1,1,1,${volume}`)).toEqual({ file: 'prices.csv', line: 2, message });
  });

  it('rejects rows with the wrong number of columns', () => {
    const result = parseBarsCsv(
      csv(LONG_HEADER, 'A,2011-04-21,1,1,1,1', 'A,2011-04-22,1,1,1,1,1,1', 'A', 'A,2011-04-25,1,1,1,1,1'),
      { file: 'x.csv' },
    );
    expect(result.errors.map((e) => [e.line, e.message])).toEqual([
      [2, 'expected 7 columns (symbol,date,open,high,low,close,volume), got 6'],
      [3, 'expected 7 columns (symbol,date,open,high,low,close,volume), got 8'],
      [4, 'expected 7 columns (symbol,date,open,high,low,close,volume), got 1'],
    ]);
    expect(result.bars).toHaveLength(1);
  });

  it('reports duplicate (symbol, date) rows on the later row and keeps the first', () => {
    const result = parseBarsCsv(
      csv(
        LONG_HEADER,
        'A,2011-04-21,1,1,1,1,1',
        'AAPL,2011-04-21,2,2,2,2,2',
        'a,2011-04-21,3,3,3,3,3',
        'A,2011-04-22,1,1,1,1,1',
        'A,2011-04-21,4,4,4,4,4',
      ),
      { file: 'x.csv' },
    );
    expect(result.errors).toEqual([
      { file: 'x.csv', line: 4, message: 'duplicate row for A on 2011-04-21 (first at line 2)' },
      { file: 'x.csv', line: 6, message: 'duplicate row for A on 2011-04-21 (first at line 2)' },
    ]);
    expect(result.bars.map((b) => `${b.symbol}@${b.date}:${b.open}`)).toEqual([
      'A@2011-04-21:1',
      'AAPL@2011-04-21:2',
      'A@2011-04-22:1',
    ]);
  });

  it('does not let an invalid row shadow a later valid row for the same day', () => {
    const result = parseBarsCsv(csv(LONG_HEADER, 'A,2011-04-21,-1,1,1,1,1', 'A,2011-04-21,1,1,1,1,1'), {
      file: 'x.csv',
    });
    expect(lines(result.errors)).toEqual([2]);
    expect(result.bars).toHaveLength(1);
  });

  it('reports several bad rows in one file, each at its own line', () => {
    const result = parseBarsCsv(
      csv(
        LONG_HEADER,
        'A,2011-04-21,1,1,1,1,1',
        'A,2021-02-30,1,1,1,1,1',
        'A,2011-04-22,1,1,1,1,1',
        '../x,2011-04-25,1,1,1,1,1',
        'A,2011-04-25,1,1,1,1,1.5',
      ),
      { file: 'x.csv' },
    );
    expect(lines(result.errors)).toEqual([3, 5, 6]);
    expect(result.bars).toHaveLength(2);
  });
});

describe('line numbers around quoted fields', () => {
  it('counts a quoted field containing commas as one row', () => {
    const result = parseBarsCsv(
      csv(LONG_HEADER, '"A","2011-04-21","1","1","1","1","1"', 'A,2011-04-22,"1,0",1,1,1,1', 'A,2011-04-25,1,1,1,1,x'),
      { file: 'x.csv' },
    );
    expect(result.errors.map((e) => [e.line, e.message])).toEqual([
      [3, 'open "1,0" is not a number'],
      [4, 'volume "x" is not a number'],
    ]);
  });

  it('reports the start line of a record whose quoted field spans lines, and the right line after it (LF)', () => {
    const result = parseBarsCsv(
      csv(LONG_HEADER, 'A,2011-04-21,1,1,1,1,1', '"A\nB",2011-04-22,1,1,1,1,1', 'A,2011-04-25,1,1,1,1,bad'),
      { file: 'x.csv' },
    );
    expect(lines(result.errors)).toEqual([3, 5]);
  });

  it('reports the right lines after a quoted field containing CRLF (CRLF file)', () => {
    const text = [LONG_HEADER, '"A\r\n\r\nB",2011-04-22,1,1,1,1,1', '', 'A,2011-04-25,1,1,1,1,bad'].join('\r\n');
    const result = parseBarsCsv(text, { file: 'x.csv' });
    expect(lines(result.errors)).toEqual([2, 6]);
  });

  it('counts lines correctly after non-ASCII text', () => {
    const result = parseSecuritiesCsv(
      csv(SECURITIES_HEADER, 'NSRGY,Nestlé S.A. — ADR ✓,Consumer Staples,', 'X,Bad,Nowhere,'),
      { file: 'sec.csv' },
    );
    expect(result.securities[0].name).toBe('Nestlé S.A. — ADR ✓');
    expect(lines(result.errors)).toEqual([3]);
  });

  it('gives the same rows and line numbers whether or not the text contains quotes', () => {
    const rows = [
      '',
      LONG_HEADER,
      'A,2011-04-21,1,1,1,1,1',
      '  ',
      'A,2011-04-22,1,1,1,1,1.5',
      '',
      'A,2011-04-25,1,1,1,1,1',
      'A,2011-04-25,1,1,1,1,1',
      '',
    ];
    const plain = parseBarsCsv(rows.join('\r\n'), { file: 'x.csv' });
    const quoted = parseBarsCsv(rows.join('\r\n').replace('A,2011-04-21', '"A",2011-04-21'), { file: 'x.csv' });
    expect(plain.bars).toHaveLength(2);
    expect(lines(plain.errors)).toEqual([5, 8]);
    expect(quoted).toEqual(plain);
  });

  it('reports an unclosed quote as malformed CSV at the line where the record starts', () => {
    const result = parseBarsCsv(csv(LONG_HEADER, 'A,2011-04-21,1,1,1,1,1', '', 'A,"2011-04-22,1,1,1,1,1', 'A,2011-04-25,1,1,1,1,1'), {
      file: 'x.csv',
    });
    expect(result.bars).toHaveLength(1);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0].line).toBe(4);
    expect(result.errors[0].message).toBe('malformed CSV: a quoted field is never closed (the rest of the text was skipped)');
  });

  it('treats a stray quote inside a field as field content, failing validation on that row only', () => {
    const result = parseBarsCsv(csv(LONG_HEADER, 'A,2011-04-21,"1"x,1,1,1,1', 'A,2011-04-22,1,1,1,1,1'), {
      file: 'x.csv',
    });
    expect(lines(result.errors)).toEqual([2]);
    expect(result.bars).toHaveLength(1);
  });
});

describe('parseSecuritiesCsv', () => {
  it('parses rows, including a quoted sub-industry containing commas', () => {
    const result = parseSecuritiesCsv(
      csv(
        SECURITIES_HEADER,
        'AAPL,Apple Inc.,Information Technology,"Technology Hardware, Storage & Peripherals"',
        'A,Agilent Technologies,Health Care,Life Sciences Tools & Services',
        'BRK.B,Berkshire Hathaway,Financials,Multi-Sector Holdings',
      ),
      { file: 'securities.csv' },
    );
    expect(result.errors).toEqual([]);
    expect(result.securities).toEqual([
      {
        symbol: 'AAPL',
        name: 'Apple Inc.',
        sector: 'Information Technology',
        subIndustry: 'Technology Hardware, Storage & Peripherals',
        assetType: 'EQUITY',
        dataSource: 'imported',
      },
      {
        symbol: 'A',
        name: 'Agilent Technologies',
        sector: 'Health Care',
        subIndustry: 'Life Sciences Tools & Services',
        assetType: 'EQUITY',
        dataSource: 'imported',
      },
      {
        symbol: 'BRK.B',
        name: 'Berkshire Hathaway',
        sector: 'Financials',
        subIndustry: 'Multi-Sector Holdings',
        assetType: 'EQUITY',
        dataSource: 'imported',
      },
    ]);
  });

  it('reports the exact line of a bad row after the quoted-comma row', () => {
    const result = parseSecuritiesCsv(
      csv(
        SECURITIES_HEADER,
        'AAPL,Apple Inc.,Information Technology,"Technology Hardware, Storage & Peripherals"',
        'MSFT,Microsoft,Tech,Systems Software',
      ),
      { file: 'securities.csv' },
    );
    expect(result.securities).toHaveLength(1);
    expect(result.errors).toEqual([
      { file: 'securities.csv', line: 3, message: 'sector "Tech" is not one of the 11 GICS sectors' },
    ]);
  });

  it('normalises sector case to the GICS spelling', () => {
    const result = parseSecuritiesCsv(
      csv(SECURITIES_HEADER, 'XOM,Exxon Mobil,ENERGY,Integrated Oil & Gas', 'O,Realty Income, real estate ,Retail REITs'),
      { file: 's.csv' },
    );
    expect(result.securities.map((s) => s.sector)).toEqual(['Energy', 'Real Estate']);
  });

  it('treats sub_industry as optional (empty value or no column)', () => {
    const withEmpty = parseSecuritiesCsv(csv(SECURITIES_HEADER, 'XOM,Exxon Mobil,Energy,'), { file: 's.csv' });
    expect(withEmpty.securities[0].subIndustry).toBeNull();
    const withoutColumn = parseSecuritiesCsv(csv('Symbol,Name,Sector', 'XOM,Exxon Mobil,Energy'), { file: 's.csv' });
    expect(withoutColumn.errors).toEqual([]);
    expect(withoutColumn.securities[0].subIndustry).toBeNull();
  });

  it('validates symbol, name, sector and column count, each at its line', () => {
    const result = parseSecuritiesCsv(
      csv(
        `\uFEFF${SECURITIES_HEADER}`,
        '../x,Evil,Energy,',
        'EMPTY,  ,Energy,',
        `LONG,${'N'.repeat(201)},Energy,`,
        'NOSEC,No Sector,,',
        'BAD,Bad Sector,Technology,',
        'FEW,Too Few,Energy',
        'OK,Fine Corp,Utilities,Electric Utilities',
        'ok,Duplicate,Utilities,',
      ),
      { file: 's.csv' },
    );
    expect(result.errors.map((e) => [e.line, e.message])).toEqual([
      [2, 'symbol "../x" is not a valid ticker'],
      [3, 'name is empty'],
      [4, 'name is longer than 200 characters'],
      [5, 'sector "" is not one of the 11 GICS sectors'],
      [6, 'sector "Technology" is not one of the 11 GICS sectors'],
      [7, 'expected 4 columns, got 3'],
      [9, 'duplicate row for OK (first at line 8)'],
    ]);
    expect(result.securities.map((s) => s.symbol)).toEqual(['OK']);
  });

  it('accepts a 200-character name', () => {
    const result = parseSecuritiesCsv(csv(SECURITIES_HEADER, `LONG,${'N'.repeat(200)},Energy,`), { file: 's.csv' });
    expect(result.errors).toEqual([]);
  });

  it('reports an unknown header once at line 1', () => {
    const result = parseSecuritiesCsv(csv('ticker,company', 'AAPL,Apple'), { file: 's.csv' });
    expect(result.securities).toEqual([]);
    expect(result.errors).toEqual([{ file: 's.csv', line: 1, message: expect.stringContaining(SECURITIES_HEADER) }]);
  });

  it('handles CRLF endings and trailing blank lines', () => {
    const result = parseSecuritiesCsv(
      [SECURITIES_HEADER, 'AAPL,Apple Inc.,Information Technology,"Technology Hardware, Storage & Peripherals"', '', ''].join(
        '\r\n',
      ),
      { file: 's.csv' },
    );
    expect(result.errors).toEqual([]);
    expect(result.securities[0].subIndustry).toBe('Technology Hardware, Storage & Peripherals');
  });
});

describe('symbolFromFileName', () => {
  it.each([
    ['data/AAPL.csv', 'AAPL'],
    ['AAPL.csv', 'AAPL'],
    ['aapl.us.txt', 'AAPL'],
    ['brk-b.us.csv', 'BRK-B'],
    ['/abs/path/brk.b.csv', 'BRK.B'],
    ['C:\\data\\msft.CSV', 'MSFT'],
    ['TGMI', 'TGMI'],
  ])('%s -> %s', (file, expected) => {
    expect(symbolFromFileName(file)).toBe(expected);
  });

  it.each(['', 'data/', 'my prices.csv', '../.csv', 'data/ÄPPLE.csv', 'toolongname.csv'])('%j -> null', (file) => {
    expect(symbolFromFileName(file)).toBeNull();
  });
});

describe('large and hostile input (speed: bench/market-csv.ts)', () => {
  it('rejects a huge hostile numeric field with a shortened value in the message', () => {
    const hostile = `${'1'.repeat(200_000)}x`;
    const result = parseBarsCsv(csv(LONG_HEADER, `A,2011-04-21,${hostile},1,1,1,1`, 'A,2011-04-22,1,1,1,1,1'), { file: 'x.csv' });
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ file: 'x.csv', line: 2 });
    expect(result.errors[0].message).toMatch(/^open ".*…" is not a number$/);
    expect(result.errors[0].message.length).toBeLessThan(200);
    expect(result.bars.map((b) => b.date)).toEqual(['2011-04-22']);
  });

  it('parses 300,000 long-format rows, every one kept in input order with its line', () => {
    // 100 symbols x 3,000 trading days (1990-2006), in date-major order like the real file.
    const symbols = Array.from({ length: 100 }, (_, i) => `S${String.fromCharCode(65 + (i % 26))}${Math.floor(i / 26)}`);
    const rows: string[] = [LONG_HEADER];
    const start = Date.UTC(1990, 0, 1);
    for (let day = 0; day < 3000; day++) {
      const date = new Date(start + day * 86_400_000).toISOString().slice(0, 10);
      for (let s = 0; s < symbols.length; s++) {
        const close = 50 + ((day * 7 + s) % 97) / 8;
        rows.push(
          `${symbols[s]},${date},${close.toFixed(4)},${(close + 1).toFixed(4)},${(close - 1).toFixed(4)},${close.toFixed(4)},${1000 + day}`,
        );
      }
    }

    const result = parseBarsCsv(rows.join('\n'), { file: 'big.csv' });

    expect(result.format).toBe('long');
    expect(result.errors).toHaveLength(0);
    expect(result.bars).toHaveLength(300_000);
    expect(result.lines).toHaveLength(300_000);
    expect(result.lines[0]).toBe(2);
    expect(result.lines[299_999]).toBe(300_001);
    expect(result.bars[0]).toEqual({ symbol: 'SA0', date: '1990-01-01', open: 50, high: 51, low: 49, close: 50, volume: 1000 });
    expect(result.bars[299_999]).toMatchObject({ symbol: 'SV3', date: '1998-03-19', volume: 3999 });
    // Every 1,000th row read back field by field.
    for (let i = 0; i < 300_000; i += 1000) {
      const [symbol, date, , , , close, volume] = rows[i + 1].split(',');
      expect(result.bars[i]).toMatchObject({ symbol, date, close: Number(close), volume: Number(volume) });
    }
  });
});

describe('lines of kept rows', () => {
  it('gives the physical line each kept bar and security came from', () => {
    const bars = parseBarsCsv('symbol,date,open,high,low,close,volume\nA,2021-01-04,1,2,1,1.5,10\nA,2021-02-30,1,2,1,1.5,10\n\nA,2021-01-05,1,2,1,1.5,10\n', { file: 'f.csv' });
    expect(bars.bars.map((b) => b.date)).toEqual(['2021-01-04', '2021-01-05']);
    expect(bars.lines).toEqual([2, 5]);
    const secs = parseSecuritiesCsv('symbol,name,sector,sub_industry\nA,"A, Inc",Energy,x\nB,B Co,Nowhere,y\nC,C Co,Utilities,z\n', { file: 's.csv' });
    expect(secs.securities.map((s) => s.symbol)).toEqual(['A', 'C']);
    expect(secs.lines).toEqual([2, 4]);
  });
});
