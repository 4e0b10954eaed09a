/**
 * Market-data CSV parsing speed: parseBarsCsv (subgraphs/analysis/engine/market-csv.ts, every row
 * validated) against a bare loop over the same text that splits lines and fields and converts the
 * numbers with no check at all, measured side by side in the same run, so the ratio (the price of
 * validation) means the same on any machine.
 *
 *   npm run bench:market-csv
 *   BENCH_ROWS=1000000 npm run bench:market-csv
 *
 * 1. BENCH_ROWS long-format rows (default 300,000: 100 symbols x 3,000 days, date-major like a real
 *    export), unquoted (the split fast path) and with every symbol quoted (the csv-parse path).
 * 2. Linear time on hostile input: one row whose numeric field has 20,000 then 200,000 digits; the
 *    time ratio should be about 10 (linear), where a backtracking pattern would make it about 100.
 *
 * Timing: the best of 5 runs after a warm-up on 10,000 rows. Nothing is asserted: the numbers are
 * printed (the tests check what is parsed, this checks how fast).
 */
import { performance } from 'node:perf_hooks';
import { parseBarsCsv } from '../subgraphs/analysis/engine/market-csv.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 300_000);
const HEADER = 'symbol,date,open,high,low,close,volume';
const SYMBOLS = 100;

/** `rows` long-format rows, `SYMBOLS` symbols per day, days from 1990-01-01 on. */
function longFormat(rows: number, quoted: boolean): string {
  const symbols = Array.from({ length: SYMBOLS }, (_, i) => `S${String.fromCharCode(65 + (i % 26))}${Math.floor(i / 26)}`);
  const lines: string[] = [HEADER];
  const start = Date.UTC(1990, 0, 1);
  for (let day = 0; lines.length <= rows; day++) {
    const date = new Date(start + day * 86_400_000).toISOString().slice(0, 10);
    for (let s = 0; s < symbols.length && lines.length <= rows; s++) {
      const close = 50 + ((day * 7 + s) % 97) / 8;
      const symbol = quoted ? `"${symbols[s]}"` : symbols[s];
      lines.push(`${symbol},${date},${close.toFixed(4)},${(close + 1).toFixed(4)},${(close - 1).toFixed(4)},${close.toFixed(4)},${1000 + day}`);
    }
  }
  return lines.join('\n');
}

/** The floor: lines and fields split, numbers converted, nothing validated. */
function bareParse(text: string): number {
  let kept = 0;
  const lines = text.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const f = lines[i].split(',');
    const bar = { symbol: f[0], date: f[1], open: Number(f[2]), high: Number(f[3]), low: Number(f[4]), close: Number(f[5]), volume: Number(f[6]) };
    if (bar.volume >= 0) kept++;
  }
  return kept;
}

/** Best of `runs` timings of fn, in ms. */
function best(fn: () => void, runs = 5): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

function parseChecked(text: string, rows: number): void {
  const result = parseBarsCsv(text, { file: 'bench.csv' });
  if (result.errors.length !== 0 || result.bars.length !== rows) throw new Error(`parsed ${result.bars.length} bars, ${result.errors.length} errors; expected ${rows}`);
}

const rate = (rows: number, ms: number) => `${Math.round(rows / (ms / 1000)).toLocaleString('en-US').padStart(11)} rows/s`;

function main(): void {
  const plain = longFormat(ROWS, false);
  const quoted = longFormat(ROWS, true);
  const warm = longFormat(10_000, false);
  parseChecked(warm, 10_000);
  bareParse(warm);

  const bare = best(() => void bareParse(plain));
  const fast = best(() => parseChecked(plain, ROWS));
  const slow = best(() => parseChecked(quoted, ROWS));
  console.log(`long-format bars, ${ROWS.toLocaleString('en-US')} rows (${(plain.length / 1e6).toFixed(1)} MB), best of 5`);
  console.log(`  bare split + Number (baseline)        ${bare.toFixed(0).padStart(6)} ms ${rate(ROWS, bare)}`);
  console.log(`  parseBarsCsv, unquoted                ${fast.toFixed(0).padStart(6)} ms ${rate(ROWS, fast)}   ratio to baseline ${(fast / bare).toFixed(1)}x`);
  console.log(`  parseBarsCsv, quoted (csv-parse path) ${slow.toFixed(0).padStart(6)} ms ${rate(ROWS, slow)}   ratio to baseline ${(slow / bare).toFixed(1)}x`);

  const hostile = (digits: number) => `${HEADER}\nA,2011-04-21,${'1'.repeat(digits)}x,1,1,1,1`;
  const hostileTime = (digits: number) => {
    const text = hostile(digits);
    return best(() => {
      if (parseBarsCsv(text, { file: 'x.csv' }).errors.length !== 1) throw new Error('the hostile row was not rejected');
    });
  };
  hostileTime(20_000);
  const small = hostileTime(20_000);
  const large = hostileTime(200_000);
  console.log('hostile numeric field (rejected row), best of 5');
  console.log(`  20,000 digits ${small.toFixed(2)} ms, 200,000 digits ${large.toFixed(2)} ms: ratio ${(large / small).toFixed(1)} (linear about 10, quadratic about 100)`);
}

main();
