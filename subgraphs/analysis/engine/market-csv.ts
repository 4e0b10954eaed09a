/**
 * Parsing and validation of market-data CSV text (daily bars and the securities list).
 *
 * Pure: callers read the files and pass the text in. Every row is validated; bad rows are reported as
 * RowErrors (file + 1-based physical line where the record starts) and skipped, good rows are kept in
 * input order. Everything is linear in the size of the text (no backtracking-prone patterns).
 */
import { parse } from 'csv-parse/sync';
import type { CsvError } from 'csv-parse/sync';
import { GICS_SECTORS } from './market-types.js';
import type { Bar, GicsSector, SecurityRecord } from './market-types.js';
import { normalizeSymbol } from './symbol.js';

/** One rejected row (or a file-level problem, reported at the header line). */
export interface RowError {
  file: string;
  /** 1-based physical line on which the offending record starts. */
  line: number;
  message: string;
}

/** 'long': many symbols, one column per field; 'yahoo' and 'stooq': one symbol per file. */
export type BarsFormat = 'long' | 'yahoo' | 'stooq';

export interface ParsedBars {
  /** The detected format, or null when the header was not recognised (or the text was empty). */
  format: BarsFormat | null;
  bars: Bar[];
  /** The line each kept bar came from (bars[i] was read at lines[i]). */
  lines: number[];
  errors: RowError[];
}

export interface ParsedSecurities {
  securities: SecurityRecord[];
  /** The line each kept security came from. */
  lines: number[];
  errors: RowError[];
}

// ---------------------------------------------------------------------------------------------------
// Headers

/** The concrete layouts; Stooq has two (plain and the `<TICKER>,...` form). */
type Layout = 'long' | 'yahoo' | 'stooq' | 'stooq-tickers';

const LAYOUT_HEADERS: Record<Layout, string> = {
  long: 'symbol,date,open,high,low,close,volume',
  yahoo: 'Date,Open,High,Low,Close,Adj Close,Volume',
  stooq: 'Date,Open,High,Low,Close,Volume',
  'stooq-tickers': '<TICKER>,<PER>,<DATE>,<TIME>,<OPEN>,<HIGH>,<LOW>,<CLOSE>,<VOL>,<OPENINT>',
};

const LAYOUT_FORMAT: Record<Layout, BarsFormat> = {
  long: 'long',
  yahoo: 'yahoo',
  stooq: 'stooq',
  'stooq-tickers': 'stooq',
};

const SECURITIES_HEADER = 'symbol,name,sector,sub_industry';
const SECURITIES_HEADER_SHORT = 'symbol,name,sector';

/** Header key for matching: BOM dropped, each cell trimmed and lower-cased. */
function headerKey(fields: string[]): string {
  return fields.map((f) => f.replace(/^\uFEFF/, '').trim().toLowerCase()).join(',');
}

const LAYOUT_BY_KEY = new Map<string, Layout>(
  (Object.keys(LAYOUT_HEADERS) as Layout[]).map((layout) => [LAYOUT_HEADERS[layout].toLowerCase(), layout]),
);

// ---------------------------------------------------------------------------------------------------
// CSV reading with physical line numbers

/** Any physical line break: CRLF, LF or a lone CR. */
const LINE_BREAK = /\r\n|\n|\r/;
const LINE_BREAKS = /\r\n|\n|\r/g;

/** True for a record that is really a blank line (empty, or only spaces). */
function isBlankRecord(fields: string[]): boolean {
  return fields.length === 1 && fields[0].trim() === '';
}

/**
 * Calls `visit` for every non-blank record with its fields and the 1-based physical line it starts on;
 * structural CSV errors (in practice only an unclosed quote, which swallows the rest of the text) go to
 * `onError`.
 *
 * Text without any `"` is plain delimiter-separated lines, so it is split directly (the fast path for
 * large bar files). Anything with quotes goes through csv-parse, which handles quoted commas, `""`
 * escapes and quoted line breaks. csv-parse's own `info.lines` miscounts CRLF inside quoted fields, so
 * line numbers are counted here: blank lines are kept as records and each record spans one line plus
 * the line breaks inside its fields.
 */
function forEachRecord(
  text: string,
  visit: (fields: string[], line: number) => void,
  onError: (line: number, message: string) => void,
): void {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;

  if (!body.includes('"')) {
    const physicalLines = body.split(LINE_BREAK);
    for (let i = 0; i < physicalLines.length; i++) {
      const fields = physicalLines[i].split(',');
      if (!isBlankRecord(fields)) visit(fields, i + 1);
    }
    return;
  }

  const skipped: { afterRecords: number; message: string }[] = [];
  const records = parse(body, {
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    relax_quotes: true, // a stray quote inside a field is content; the row then fails validation
    skip_empty_lines: false, // blank lines must be seen to count them
    skip_records_with_error: true,
    on_skip: (err: CsvError | undefined) => {
      const afterRecords = typeof err?.records === 'number' ? err.records : Number.MAX_SAFE_INTEGER;
      const detail =
        err?.code === 'CSV_QUOTE_NOT_CLOSED'
          ? 'a quoted field is never closed (the rest of the text was skipped)'
          : (err?.message ?? 'unreadable record');
      skipped.push({ afterRecords, message: `malformed CSV: ${detail}` });
    },
  });

  let line = 1;
  let nextSkip = 0;
  for (let i = 0; i <= records.length; i++) {
    while (nextSkip < skipped.length && skipped[nextSkip].afterRecords <= i) {
      onError(line, skipped[nextSkip++].message);
    }
    if (i === records.length) break;
    const fields = records[i];
    const start = line;
    line += 1;
    for (const field of fields) {
      if (field.includes('\n') || field.includes('\r')) line += field.match(LINE_BREAKS)?.length ?? 0;
    }
    if (!isBlankRecord(fields)) visit(fields, start);
  }
  for (; nextSkip < skipped.length; nextSkip++) onError(line, skipped[nextSkip].message);
}

// ---------------------------------------------------------------------------------------------------
// Field validation

/** Plain decimal or exponent notation; unambiguous, so a long run of digits cannot cause backtracking. */
const NUMBER_PATTERN = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const ISO_DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const COMPACT_DATE_PATTERN = /^(\d{4})(\d{2})(\d{2})$/;
const MIN_DATE = '1900-01-01';
const MAX_DATE = '2100-12-31';
/** Relative tolerance for the high/low consistency checks (rounding in the source data). */
const PRICE_TOLERANCE = 1e-9;
const MAX_NAME_LENGTH = 200;

// Per-field hot path: these globals are aliased once because global lookups are slow inside vm
// contexts (as under jest), and conversions below use unary `+` for the same reason.
const { isFinite: isFiniteNumber, isSafeInteger } = Number;
const { max, min } = Math;

/** A value quoted for an error message, shortened so hostile input cannot bloat the report. */
function show(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/** Thrown inside row validation; caught per row and turned into a RowError. */
class RowProblem extends Error {}

function fail(message: string): never {
  throw new RowProblem(message);
}

/** A finite number written in plain decimal or exponent notation. */
function parseNumber(name: string, raw: string): number {
  const value = raw.trim();
  if (value === '') fail(`${name} is empty`);
  if (!NUMBER_PATTERN.test(value)) fail(`${name} ${show(raw)} is not a number`);
  const n = +value;
  if (!isFiniteNumber(n)) fail(`${name} ${show(raw)} is not a finite number`);
  return n;
}

function parsePrice(name: string, raw: string): number {
  const n = parseNumber(name, raw);
  if (!(n > 0)) fail(`${name} ${show(raw)} must be greater than 0`);
  return n;
}

/** Whole shares; '3064500.0' is accepted. */
function parseVolume(raw: string): number {
  const n = parseNumber('volume', raw);
  if (n < 0) fail(`volume ${show(raw)} must not be negative`);
  if (!isSafeInteger(n)) fail(`volume ${show(raw)} is not a whole number`);
  return n;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** A real calendar date YYYY-MM-DD within [1900-01-01, 2100-12-31]. */
function parseIsoDate(raw: string): string {
  const value = raw.trim();
  const m = ISO_DATE_PATTERN.exec(value);
  if (!m) fail(`date ${show(raw)} is not YYYY-MM-DD`);
  return checkCalendarDate(raw, value, m[1], m[2], m[3]);
}

/** Stooq's YYYYMMDD, returned as YYYY-MM-DD. */
function parseCompactDate(raw: string): string {
  const m = COMPACT_DATE_PATTERN.exec(raw.trim());
  if (!m) fail(`date ${show(raw)} is not YYYYMMDD`);
  return checkCalendarDate(raw, `${m[1]}-${m[2]}-${m[3]}`, m[1], m[2], m[3]);
}

/** Checks that year `y`, month `mo`, day `d` form a real date in range; returns `iso` (their YYYY-MM-DD). */
function checkCalendarDate(raw: string, iso: string, y: string, mo: string, d: string): string {
  const month = +mo;
  const day = +d;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(+y, month)) {
    fail(`date ${show(raw)} is not a real calendar date`);
  }
  if (iso < MIN_DATE || iso > MAX_DATE) fail(`date ${iso} is outside ${MIN_DATE}..${MAX_DATE}`);
  return iso;
}

function parseRowSymbol(raw: string): string {
  const symbol = normalizeSymbol(raw);
  if (symbol === null) fail(`symbol ${show(raw)} is not a valid ticker`);
  return symbol;
}

/** Validates prices and volume and checks that high/low bracket the other prices. */
function makeBar(
  symbol: string,
  date: string,
  raw: { open: string; high: string; low: string; close: string; volume: string },
): Bar {
  const open = parsePrice('open', raw.open);
  const high = parsePrice('high', raw.high);
  const low = parsePrice('low', raw.low);
  const close = parsePrice('close', raw.close);
  const volume = parseVolume(raw.volume);
  const top = max(open, close, low);
  if (high < top * (1 - PRICE_TOLERANCE)) fail(`high ${high} is below max(open, close, low) ${top}`);
  const bottom = min(open, close);
  if (low > bottom * (1 + PRICE_TOLERANCE)) fail(`low ${low} is above min(open, close) ${bottom}`);
  return { symbol, date, open, high, low, close, volume };
}

// ---------------------------------------------------------------------------------------------------
// Symbols from file names and Stooq tickers

/** Stooq's market suffixes (`aapl.us.txt`, `AAPL.US`). */
const STOOQ_MARKET_SUFFIX = /\.(?:us|uk|de|jp|hk|hu)$/i;
const DATA_FILE_EXTENSION = /\.(?:csv|txt)$/i;

/**
 * The symbol a per-symbol data file is named after, or null when the name is not a valid ticker:
 * 'data/AAPL.csv' -> 'AAPL', 'aapl.us.txt' -> 'AAPL', 'brk-b.us.csv' -> 'BRK-B'.
 */
export function symbolFromFileName(file: string): string | null {
  const base = file.split(/[\\/]/).pop() ?? '';
  return normalizeSymbol(base.replace(DATA_FILE_EXTENSION, '').replace(STOOQ_MARKET_SUFFIX, ''));
}

// ---------------------------------------------------------------------------------------------------
// Bars

/** Turns one data row of a given layout into a bar (throws RowProblem). */
type RowReader = (fields: string[]) => Bar;

function rowReader(layout: Layout, fileSymbol: string): RowReader {
  switch (layout) {
    case 'long':
      return ([symbol, date, open, high, low, close, volume]) =>
        makeBar(parseRowSymbol(symbol), parseIsoDate(date), { open, high, low, close, volume });
    case 'stooq':
      return ([date, open, high, low, close, volume]) =>
        makeBar(fileSymbol, parseIsoDate(date), { open, high, low, close, volume });
    case 'yahoo':
      return (fields) => {
        const [date, open, high, low, close, adjClose, volume] = fields;
        if (fields.some((f) => f.trim() === 'null')) fail('Yahoo wrote null fields (no data for this day)');
        const isoDate = parseIsoDate(date);
        const bar = makeBar(fileSymbol, isoDate, { open, high, low, close, volume });
        // Split/dividend adjustment: scale OHLC by AdjClose/Close (volume stays as reported).
        const adjustedClose = parsePrice('adj close', adjClose);
        const factor = adjustedClose / bar.close;
        return {
          ...bar,
          open: bar.open * factor,
          high: bar.high * factor,
          low: bar.low * factor,
          close: adjustedClose,
        };
      };
    case 'stooq-tickers':
      return ([ticker, per, date, , open, high, low, close, volume]) => {
        const symbol = normalizeSymbol(ticker.trim().replace(STOOQ_MARKET_SUFFIX, ''));
        if (symbol === null) fail(`ticker ${show(ticker)} is not a valid ticker`);
        if (per.trim().toUpperCase() !== 'D') fail(`period ${show(per)} is not daily ("D")`);
        return makeBar(symbol, parseCompactDate(date), { open, high, low, close, volume });
      };
  }
}

/**
 * Parses daily bars in any supported format, detected from the header row (case-insensitive, trimmed,
 * BOM tolerated). For the per-symbol formats (Yahoo, plain Stooq) the symbol is `options.symbol` or,
 * if absent, derived from `options.file` with {@link symbolFromFileName}; the long and Stooq
 * `<TICKER>` forms take it from each row. Duplicate (symbol, date) rows are errors on the later row.
 */
export function parseBarsCsv(text: string, options: { file: string; symbol?: string }): ParsedBars {
  const { file } = options;
  const bars: Bar[] = [];
  const lines: number[] = [];
  const errors: RowError[] = [];
  const report = (line: number, message: string): void => {
    errors.push({ file, line, message });
  };

  // Set from the header row (inside the callback, hence an object rather than narrowed `let`s).
  const header: { seen: boolean; layout: Layout | null; read: RowReader | null; columns: number } = {
    seen: false,
    layout: null,
    read: null,
    columns: 0,
  };
  const firstLineOf = new Map<string, Map<string, number>>(); // symbol -> date -> line first seen

  forEachRecord(
    text,
    (fields, line) => {
      if (!header.seen) {
        header.seen = true;
        const layout = LAYOUT_BY_KEY.get(headerKey(fields)) ?? null;
        header.layout = layout;
        if (layout === null) {
          report(line, `unrecognised header ${show(fields.join(','))}; expected one of: ${expectedHeaders()}`);
          return;
        }
        const fileSymbol = perFileSymbol(layout, options);
        if (fileSymbol === null) {
          report(
            line,
            `cannot tell which symbol ${show(file)} holds: the file name is not a ticker and no symbol was given`,
          );
          return;
        }
        header.read = rowReader(layout, fileSymbol);
        header.columns = LAYOUT_HEADERS[layout].split(',').length;
        return;
      }
      const { layout, read, columns } = header;
      if (read === null || layout === null) return; // header problem already reported
      if (fields.length !== columns) {
        report(line, `expected ${columns} columns (${LAYOUT_HEADERS[layout]}), got ${fields.length}`);
        return;
      }
      let bar: Bar;
      try {
        bar = read(fields);
      } catch (err) {
        if (err instanceof RowProblem) return report(line, err.message);
        throw err;
      }
      let linesByDate = firstLineOf.get(bar.symbol);
      if (linesByDate === undefined) firstLineOf.set(bar.symbol, (linesByDate = new Map()));
      const first = linesByDate.get(bar.date);
      if (first !== undefined) {
        report(line, `duplicate row for ${bar.symbol} on ${bar.date} (first at line ${first})`);
        return;
      }
      linesByDate.set(bar.date, line);
      bars.push(bar);
      lines.push(line);
    },
    report,
  );

  if (!header.seen) report(1, `empty file: expected a header, one of: ${expectedHeaders()}`);
  return { format: header.layout === null ? null : LAYOUT_FORMAT[header.layout], bars, lines, errors };
}

/** For per-symbol layouts, the symbol of the whole file ('' when rows carry their own); null if unknown. */
function perFileSymbol(layout: Layout, options: { file: string; symbol?: string }): string | null {
  if (layout === 'long' || layout === 'stooq-tickers') return '';
  return options.symbol !== undefined ? normalizeSymbol(options.symbol) : symbolFromFileName(options.file);
}

function expectedHeaders(): string {
  return Object.values(LAYOUT_HEADERS).join(' | ');
}

// ---------------------------------------------------------------------------------------------------
// Securities

const SECTOR_BY_LOWER = new Map<string, GicsSector>(GICS_SECTORS.map((s) => [s.toLowerCase(), s]));

/**
 * Parses the securities list `symbol,name,sector,sub_industry` (sub_industry column optional). Sectors
 * must be GICS sectors (any case; returned in GICS spelling). Results are imported equities.
 */
export function parseSecuritiesCsv(text: string, options: { file: string }): ParsedSecurities {
  const { file } = options;
  const securities: SecurityRecord[] = [];
  const lines: number[] = [];
  const errors: RowError[] = [];
  const report = (line: number, message: string): void => {
    errors.push({ file, line, message });
  };

  const header = { seen: false, columns: 0 }; // columns 0: header not recognised
  const firstLineOf = new Map<string, number>();

  forEachRecord(
    text,
    (fields, line) => {
      if (!header.seen) {
        header.seen = true;
        const key = headerKey(fields);
        if (key === SECURITIES_HEADER) header.columns = 4;
        else if (key === SECURITIES_HEADER_SHORT) header.columns = 3;
        else report(line, `unrecognised header ${show(fields.join(','))}; expected: ${SECURITIES_HEADER}`);
        return;
      }
      if (header.columns === 0) return;
      if (fields.length !== header.columns) {
        report(line, `expected ${header.columns} columns, got ${fields.length}`);
        return;
      }
      let record: SecurityRecord;
      try {
        record = readSecurity(fields);
      } catch (err) {
        if (err instanceof RowProblem) return report(line, err.message);
        throw err;
      }
      const first = firstLineOf.get(record.symbol);
      if (first !== undefined) {
        report(line, `duplicate row for ${record.symbol} (first at line ${first})`);
        return;
      }
      firstLineOf.set(record.symbol, line);
      securities.push(record);
      lines.push(line);
    },
    report,
  );

  if (!header.seen) report(1, `empty file: expected the header ${SECURITIES_HEADER}`);
  return { securities, lines, errors };
}

function readSecurity([rawSymbol, rawName, rawSector, rawSubIndustry = '']: string[]): SecurityRecord {
  const symbol = parseRowSymbol(rawSymbol);
  const name = rawName.trim();
  if (name === '') fail('name is empty');
  if (name.length > MAX_NAME_LENGTH) fail(`name is longer than ${MAX_NAME_LENGTH} characters`);
  const sector = SECTOR_BY_LOWER.get(rawSector.trim().toLowerCase());
  if (sector === undefined) fail(`sector ${show(rawSector)} is not one of the 11 GICS sectors`);
  const subIndustry = rawSubIndustry.trim();
  if (subIndustry.length > MAX_NAME_LENGTH) fail(`sub_industry is longer than ${MAX_NAME_LENGTH} characters`);
  return {
    symbol,
    name,
    sector,
    subIndustry: subIndustry === '' ? null : subIndustry,
    assetType: 'EQUITY',
    dataSource: 'imported',
  };
}
