/**
 * Market-data ingest use cases: importing CSV files and loading the synthetic demo market. Each
 * import is one transaction: every row is validated first, good rows are written together, bad rows
 * are reported with file and line, and a failure leaves the store as it was.
 */
import type { Db, Queryable } from '../platform/db.js';
import { parseBarsCsv, parseSecuritiesCsv, type BarsFormat, type RowError } from './engine/market-csv.js';
import type { Bar, BarSeries, SecurityRecord } from './engine/market-types.js';
import { generateSyntheticMarket, type SyntheticMarketOptions } from './engine/synthetic-market.js';
import * as store from './store.js';

export type Progress = (done: number, total: number) => void;

export interface CsvFile {
  /** Shown in error reports. */
  name: string;
  text: string;
}

export interface ImportReport {
  /** format null: the header matched no known format (reported in errors). */
  files: Array<{ file: string; format: BarsFormat | 'securities' | null; rows: number; errors: number }>;
  rowsWritten: number;
  symbols: number;
  errors: RowError[];
}

/**
 * Keeps the first row of each key across all files; a later row with the same key (overlapping
 * files, or one file given twice) is reported at its own file and line, pointing at the first.
 */
function firstOfEachKey<T>(
  parsed: ReadonlyArray<{ file: string; rows: readonly T[]; lines: readonly number[]; errors: RowError[] }>,
  key: (row: T) => string,
  describe: (row: T) => string,
): { rows: T[]; kept: number[] } {
  const firstAt = new Map<string, string>();
  const rows: T[] = [];
  const kept: number[] = [];
  for (const p of parsed) {
    let keptHere = 0;
    p.rows.forEach((row, i) => {
      const k = key(row);
      const first = firstAt.get(k);
      if (first !== undefined) {
        p.errors.push({ file: p.file, line: p.lines[i], message: `duplicate row for ${describe(row)} (first at ${first})` });
        return;
      }
      firstAt.set(k, `${p.file}:${p.lines[i]}`);
      rows.push(row);
      keptHere++;
    });
    kept.push(keptHere);
  }
  return { rows, kept };
}

/** Imports bar files (long, Yahoo or Stooq format). Unknown symbols get a placeholder profile. */
export async function importBarFiles(db: Db, files: readonly CsvFile[], onProgress?: Progress): Promise<ImportReport> {
  const parsed = files.map((f) => {
    const result = parseBarsCsv(f.text, { file: f.name });
    return { file: f.name, format: result.format, rows: result.bars, lines: result.lines, errors: result.errors };
  });
  const { rows: bars, kept } = firstOfEachKey(parsed, (b: Bar) => `${b.symbol}|${b.date}`, (b) => `${b.symbol} on ${b.date}`);
  const symbols = [...new Set(bars.map((b) => b.symbol))];
  await db.transaction(async (tx) => {
    await ensureSecurities(tx, symbols);
    await writeInChunks(tx, bars, onProgress);
  });
  return {
    files: parsed.map((p, i) => ({ file: p.file, format: p.format, rows: kept[i], errors: p.errors.length })),
    rowsWritten: bars.length,
    symbols: symbols.length,
    errors: parsed.flatMap((p) => p.errors),
  };
}

/** Imports security profiles (`symbol,name,sector,sub_industry`). */
export async function importSecurityFiles(db: Db, files: readonly CsvFile[]): Promise<ImportReport> {
  const parsed = files.map((f) => {
    const result = parseSecuritiesCsv(f.text, { file: f.name });
    return { file: f.name, rows: result.securities, lines: result.lines, errors: result.errors };
  });
  const { rows: securities, kept } = firstOfEachKey(parsed, (s: SecurityRecord) => s.symbol, (s) => s.symbol);
  await db.transaction((tx) => store.upsertSecurities(tx, securities));
  return {
    files: parsed.map((p, i) => ({ file: p.file, format: 'securities' as const, rows: kept[i], errors: p.errors.length })),
    rowsWritten: securities.length,
    symbols: new Set(securities.map((s) => s.symbol)).size,
    errors: parsed.flatMap((p) => p.errors),
  };
}

async function ensureSecurities(tx: Queryable, symbols: readonly string[]): Promise<void> {
  if (symbols.length === 0) return;
  await tx.query(
    `INSERT INTO securities (symbol, name, data_source)
     SELECT s, s, 'imported' FROM unnest($1::text[]) AS s ON CONFLICT (symbol) DO NOTHING`,
    [symbols],
  );
}

async function writeInChunks(tx: Queryable, bars: readonly Bar[], onProgress?: Progress): Promise<void> {
  const chunk = 50_000;
  onProgress?.(0, bars.length);
  for (let i = 0; i < bars.length; i += chunk) {
    await store.upsertBars(tx, bars.slice(i, i + chunk));
    onProgress?.(Math.min(bars.length, i + chunk), bars.length);
  }
}

export interface DemoLoadReport {
  securities: number;
  bars: number;
  firstDate: string;
  lastDate: string;
}

/**
 * Generates the deterministic synthetic market and stores it in one transaction. `intoEmptyStore`: the
 * store holds no securities (so no bars), and the bars are inserted without looking for ones to replace.
 */
export async function loadSyntheticMarket(db: Db, options: SyntheticMarketOptions, onProgress?: Progress, intoEmptyStore = false): Promise<DemoLoadReport> {
  const market = generateSyntheticMarket(options);
  let bars = 0;
  await db.transaction(async (tx) => {
    await store.upsertSecurities(tx, market.securities);
    if (intoEmptyStore) await store.bulkLoadIntoEmptyTable(tx, 'bars');
    // Many symbols per statement: one round trip per ~20,000 bars instead of one per symbol.
    let done = 0;
    let pending: BarSeries[] = [];
    let rows = 0;
    onProgress?.(0, market.securities.length);
    for (const series of market.series()) {
      pending.push(series);
      rows += series.dates.length;
      done++;
      if (rows >= 20_000 || done === market.securities.length) {
        if (intoEmptyStore) bars += await store.insertNewBarSeries(tx, pending);
        else bars += await store.upsertBars(tx, pending.flatMap(barRows));
        pending = [];
        rows = 0;
        onProgress?.(done, market.securities.length);
      }
    }
  });
  return {
    securities: market.securities.length,
    bars,
    firstDate: market.calendar[0],
    lastDate: market.calendar[market.calendar.length - 1],
  };
}

/** A series' bars as rows. */
const barRows = (s: BarSeries): Bar[] =>
  s.dates.map((date, i) => ({ symbol: s.symbol, date, open: s.open[i], high: s.high[i], low: s.low[i], close: s.close[i], volume: s.volume[i] }));

/** Loads the demo market when the store holds no securities yet; returns null when it did nothing. */
export async function ensureDemoMarket(db: Db, options: SyntheticMarketOptions, onProgress?: Progress): Promise<DemoLoadReport | null> {
  if ((await store.countSecurities(db)) > 0) return null;
  return loadSyntheticMarket(db, options, onProgress, true);
}
