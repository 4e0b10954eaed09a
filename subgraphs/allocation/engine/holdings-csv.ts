/**
 * Holdings from a broker-style CSV export: the rows a book is imported from (CLI `portfolio import`,
 * REST `POST /api/v1/portfolios/import`).
 *
 * Layout: a header row naming the columns, then one holding per line.
 * - Required columns `symbol`, `shares`, `cost_basis`; optional `entry_date`. Header names are matched
 *   case-insensitively with surrounding spaces trimmed, in any order; other columns (a broker's
 *   `description`, `market_value`, ...) are ignored. A missing required column is one problem on field
 *   `header` and no line is read.
 * - A UTF-8 byte-order mark, CRLF or LF line ends, quoted fields (`"1,234.50"`, `""` escapes) and blank
 *   lines are all fine; blank lines are skipped but still counted, so line numbers are the file's own
 *   (the header is line 1).
 * - Numbers are read as brokers export them: a thousands separator (`1,234.50`, groups of three digits)
 *   and a leading currency sign (`$1,234.50`) are accepted; exponent notation is not.
 *   `shares`: a whole number >= 1 (`10.0` is 10) and at most 1e9; `cost_basis`: the average price paid
 *   per share, >= 0 with at most 4 decimals (trailing zeros do not count); `entry_date`: a calendar date
 *   YYYY-MM-DD from 1900-01-01, the platform's date rule (empty: none given). `symbol`: non-empty, surrounding spaces trimmed and otherwise kept as
 *   written (whether the store knows it is the service's check, as for every other book).
 * - A symbol may appear on one line only (the book holds one position per symbol).
 * - At most {@link HOLDINGS_CSV_MAX_LINES} holding lines; more is a single problem on field `file` and
 *   no line is read. An empty file (nothing but blanks) is a problem on field `file`; a header with no
 *   lines is a book of cash only.
 *
 * Every bad cell is one problem on field `line N: <column>`, so a caller can show them all at once; a
 * line that CSV itself cannot read (an unclosed quote) is one problem on field `line N`. Holdings are
 * returned, in file order with the line each came from, only when there is no problem at all (a file
 * is imported whole or not at all). Pure and deterministic: the caller reads the file.
 */
import { parse } from 'csv-parse/sync';
import type { CsvError } from 'csv-parse/sync';
import type { ErrorDetail } from '../../platform/errors.js';
import { isCalendarDate, MIN_CALENDAR_YEAR } from '../../platform/validation.js';

/** One holding line: the fields of a new book's holding (book-types.ts HoldingBody) that a CSV carries. */
export interface CsvHolding {
  symbol: string;
  shares: number;
  cost_basis: number;
  entry_date?: string | null;
}

/** Most holding lines an import may have (a book holds at most 500 holdings). */
export const HOLDINGS_CSV_MAX_LINES = 500;

/** Largest share count of one holding (the request contract's limit). */
export const HOLDINGS_CSV_MAX_SHARES = 1e9;

export const HOLDINGS_CSV_REQUIRED_COLUMNS = ['symbol', 'shares', 'cost_basis'] as const;
export const HOLDINGS_CSV_OPTIONAL_COLUMNS = ['entry_date'] as const;

type Column = (typeof HOLDINGS_CSV_REQUIRED_COLUMNS)[number] | (typeof HOLDINGS_CSV_OPTIONAL_COLUMNS)[number];

export interface ParsedHoldingsCsv {
  /** The holdings read, in file order (empty as soon as there is a file-level problem). */
  holdings: CsvHolding[];
  /** The file line each holding came from: holdings[i] was read at lines[i]. */
  lines: number[];
  problems: ErrorDetail[];
}

const EXPECTED_HEADER = 'symbol,shares,cost_basis[,entry_date]';

/** `$1,234.5`, `1234.50`, `-3`, `.5`: optional sign, optional `$`, digits with or without 3-digit groups. */
const AMOUNT_PATTERN = /^([+-]?)\$?(\d{1,3}(?:,\d{3})+|\d+)?(?:\.(\d+))?$/;
const MAX_COST_DECIMALS = 4;

/** A value quoted for a message, shortened so a hostile file cannot bloat the report. */
function show(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/** Reads an amount as brokers write it; null when it is not one. */
function readAmount(raw: string): { value: number; decimals: number } | null {
  const m = AMOUNT_PATTERN.exec(raw);
  if (m === null) return null;
  const [, sign, whole = '', fraction = ''] = m;
  if (whole === '' && fraction === '') return null;
  const value = Number(`${sign}${whole.replace(/,/g, '') || '0'}.${fraction || '0'}`);
  if (!Number.isFinite(value)) return null;
  return { value: value === 0 ? 0 : value, decimals: fraction.replace(/0+$/, '').length };
}

/** One cell's verdict: the value, or the message of its problem. */
type Cell<T> = { ok: true; value: T } | { ok: false; message: string };

function readShares(raw: string): Cell<number> {
  if (raw === '') return { ok: false, message: 'is empty: a whole number of shares >= 1 is required' };
  const amount = readAmount(raw);
  if (amount === null) return { ok: false, message: `${show(raw)} is not a number` };
  if (amount.decimals > 0 || amount.value < 1) {
    return { ok: false, message: `${show(raw)} must be a whole number >= 1 (no fractional or short positions)` };
  }
  if (amount.value > HOLDINGS_CSV_MAX_SHARES) {
    return { ok: false, message: `${show(raw)} must be at most ${HOLDINGS_CSV_MAX_SHARES}` };
  }
  return { ok: true, value: amount.value };
}

function readCostBasis(raw: string): Cell<number> {
  if (raw === '') return { ok: false, message: 'is empty: the average price paid per share is required' };
  const amount = readAmount(raw);
  if (amount === null) return { ok: false, message: `${show(raw)} is not a number` };
  if (amount.value < 0) return { ok: false, message: `${show(raw)} must be >= 0` };
  if (amount.decimals > MAX_COST_DECIMALS) {
    return { ok: false, message: `${show(raw)} has more than ${MAX_COST_DECIMALS} decimals` };
  }
  return { ok: true, value: amount.value };
}

function readEntryDate(raw: string): Cell<string | null> {
  if (raw === '') return { ok: true, value: null };
  if (!isCalendarDate(raw)) return { ok: false, message: `${show(raw)} is not a calendar date YYYY-MM-DD from ${MIN_CALENDAR_YEAR}-01-01` };
  return { ok: true, value: raw };
}

/** True for a record that is really a blank line (empty, or only spaces). */
function isBlank(fields: string[]): boolean {
  return fields.every((f) => f.trim() === '');
}

const LINE_BREAKS = /\r\n|\n|\r/g;

interface CsvRecord {
  fields: string[];
  line: number;
}

/**
 * The file's non-blank records with the physical line each starts on, and the lines CSV could not read.
 * Blank lines are kept as records by the parser so they can be counted; a record spans one line plus
 * the line breaks inside its quoted fields.
 */
function readRecords(text: string): { records: CsvRecord[]; unreadable: ErrorDetail[] } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const skipped: { afterRecords: number; message: string }[] = [];
  const rows: string[][] = parse(body, {
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
    skip_records_with_error: true,
    on_skip: (err: CsvError | undefined) => {
      const afterRecords = typeof err?.records === 'number' ? err.records : Number.MAX_SAFE_INTEGER;
      const message =
        err?.code === 'CSV_QUOTE_NOT_CLOSED'
          ? 'a quoted field is never closed (the rest of the file could not be read)'
          : 'this line is not readable CSV';
      skipped.push({ afterRecords, message });
    },
  });

  const records: CsvRecord[] = [];
  const unreadable: ErrorDetail[] = [];
  let line = 1;
  let nextSkip = 0;
  for (let i = 0; i <= rows.length; i++) {
    while (nextSkip < skipped.length && skipped[nextSkip].afterRecords <= i) {
      unreadable.push({ field: `line ${line}`, message: skipped[nextSkip++].message });
    }
    if (i === rows.length) break;
    const fields = rows[i];
    const start = line;
    line += 1;
    for (const field of fields) line += field.match(LINE_BREAKS)?.length ?? 0;
    if (!isBlank(fields)) records.push({ fields, line: start });
  }
  for (; nextSkip < skipped.length; nextSkip++) {
    unreadable.push({ field: `line ${line}`, message: skipped[nextSkip].message });
  }
  return { records, unreadable };
}

/** Parses a holdings CSV (see the module header for the rules). */
export function parseHoldingsCsv(text: string): ParsedHoldingsCsv {
  const none = (problems: ErrorDetail[]): ParsedHoldingsCsv => ({ holdings: [], lines: [], problems });
  const { records, unreadable } = readRecords(text);

  if (records.length === 0) {
    if (unreadable.length > 0) return none(unreadable);
    return none([{ field: 'file', message: `the file is empty: expected a header row ${EXPECTED_HEADER} and one line per holding` }]);
  }

  const [header, ...data] = records;
  const index = new Map<string, number>();
  header.fields.forEach((name, i) => {
    const key = name.trim().toLowerCase();
    if (!index.has(key)) index.set(key, i);
  });
  const missing = HOLDINGS_CSV_REQUIRED_COLUMNS.filter((c) => !index.has(c));
  if (missing.length > 0) {
    return none([
      {
        field: 'header',
        message:
          `line ${header.line} must name the columns ${EXPECTED_HEADER}; missing: ${missing.join(', ')}` +
          ` (found ${show(header.fields.map((f) => f.trim()).join(','))})`,
      },
    ]);
  }
  if (data.length > HOLDINGS_CSV_MAX_LINES) {
    return none([
      { field: 'file', message: `the file has ${data.length} holding lines; at most ${HOLDINGS_CSV_MAX_LINES} are accepted` },
    ]);
  }

  const cellOf = (fields: string[], column: Column): string => {
    const i = index.get(column);
    return i === undefined ? '' : (fields[i] ?? '').trim();
  };

  const holdings: CsvHolding[] = [];
  const lines: number[] = [];
  const problems: ErrorDetail[] = [...unreadable];
  const firstLineOf = new Map<string, number>();

  for (const { fields, line } of data) {
    const at = (column: Column) => `line ${line}: ${column}`;
    const before = problems.length;

    const symbol = cellOf(fields, 'symbol');
    if (symbol === '') {
      problems.push({ field: at('symbol'), message: 'is empty' });
    } else {
      const first = firstLineOf.get(symbol);
      if (first !== undefined) {
        problems.push({ field: at('symbol'), message: `${show(symbol)} is already held at line ${first} (one line per symbol)` });
      } else {
        firstLineOf.set(symbol, line);
      }
    }
    const shares = readShares(cellOf(fields, 'shares'));
    if (!shares.ok) problems.push({ field: at('shares'), message: shares.message });
    const cost = readCostBasis(cellOf(fields, 'cost_basis'));
    if (!cost.ok) problems.push({ field: at('cost_basis'), message: cost.message });
    const entry = readEntryDate(cellOf(fields, 'entry_date'));
    if (!entry.ok) problems.push({ field: at('entry_date'), message: entry.message });

    if (problems.length === before && shares.ok && cost.ok && entry.ok) {
      const holding: CsvHolding = { symbol, shares: shares.value, cost_basis: cost.value };
      if (entry.value !== null) holding.entry_date = entry.value;
      holdings.push(holding);
      lines.push(line);
    }
  }

  if (problems.length > 0) return { holdings: [], lines: [], problems };
  return { holdings, lines, problems };
}
