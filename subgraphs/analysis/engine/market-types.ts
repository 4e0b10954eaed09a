/** Market data as the engines see it. Pure types and constants; no I/O. */

/** The 11 GICS sectors, spelled as in GICS (and in the securities CSV). */
export const GICS_SECTORS = [
  'Communication Services',
  'Consumer Discretionary',
  'Consumer Staples',
  'Energy',
  'Financials',
  'Health Care',
  'Industrials',
  'Information Technology',
  'Materials',
  'Real Estate',
  'Utilities',
] as const;
export type GicsSector = (typeof GICS_SECTORS)[number];

export function isGicsSector(value: string): value is GicsSector {
  return (GICS_SECTORS as readonly string[]).includes(value);
}

export type AssetType = 'EQUITY' | 'INDEX';
/** Where a security's bars came from; synthetic data is labelled as such wherever it is shown. */
export type DataSource = 'synthetic' | 'imported';

export interface SecurityRecord {
  symbol: string;
  name: string;
  /** GICS sector, or null for an index or an unclassified security. */
  sector: GicsSector | null;
  subIndustry: string | null;
  assetType: AssetType;
  dataSource: DataSource;
}

/** One daily bar (row form: imports, API responses). */
export interface Bar {
  symbol: string;
  /** Trading date, YYYY-MM-DD. */
  date: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** A symbol's daily bars in column form, oldest first (engines, generators, bulk loads). */
export interface BarSeries {
  symbol: string;
  dates: string[];
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

/** Row-form bars of any number of symbols -> one BarSeries per symbol, each sorted by date. */
export function toSeries(bars: readonly Bar[]): Map<string, BarSeries> {
  const bySymbol = new Map<string, Bar[]>();
  for (const bar of bars) {
    const list = bySymbol.get(bar.symbol);
    if (list) list.push(bar);
    else bySymbol.set(bar.symbol, [bar]);
  }
  const out = new Map<string, BarSeries>();
  for (const [symbol, list] of bySymbol) {
    list.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    const col = (field: 'open' | 'high' | 'low' | 'close' | 'volume') => Float64Array.from(list, (b) => b[field]);
    out.set(symbol, { symbol, dates: list.map((b) => b.date), open: col('open'), high: col('high'), low: col('low'), close: col('close'), volume: col('volume') });
  }
  return out;
}
