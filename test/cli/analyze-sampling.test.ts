/**
 * `tradegraph analyze --every N|week --symbols A,B` against a real on-disk PGlite store: the stored
 * snapshot dates are exactly every Nth trading day of the range (or each week's last trading day), only
 * the named symbols are documented, a sampled document equals the one a full run computes for the same
 * date (the universe context does not depend on the sample), and bad arguments exit 2 writing nothing.
 */
import { main } from '../../cli/tradegraph.js';
import { storedSnapshotTexts } from '../helpers/analysis.js';
import { captureCliOutput, equityCalendar, generateQuietly, scratchStore } from '../helpers/cli.js';

const { config, inStore } = scratchStore('tg-analyze-sampling-');
const cli = captureCliOutput();
const FROM = '2026-08-24';
const TO = '2026-10-30';

/** The stored snapshots as symbol -> date -> document without its production instants. */
async function stored(): Promise<Map<string, Map<string, unknown>>> {
  const rows = await inStore((db) => storedSnapshotTexts(db));
  const bySymbol = new Map<string, Map<string, unknown>>();
  for (const r of rows) {
    const { analysis_timestamp: _a, timestamp: _t, ...rest } = JSON.parse(r.doc) as Record<string, unknown>;
    if (!bySymbol.has(r.symbol)) bySymbol.set(r.symbol, new Map());
    bySymbol.get(r.symbol)?.set(r.date, rest);
  }
  return bySymbol;
}

const datesOf = (docs: Map<string, Map<string, unknown>>, symbol: string) => [...(docs.get(symbol)?.keys() ?? [])].sort();
const clear = () => inStore((db) => db.query('DELETE FROM analysis_snapshots'));

/** Monday of a date's week, by calendar arithmetic of its own (independent of the engine's). */
function mondayOf(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  return d.toISOString().slice(0, 10);
}

let calendar: string[];
let equities: string[];

beforeAll(async () => {
  await generateQuietly(config, ['--symbols', '12', '--years', '2', '--end-date', '2026-10-30']);
  calendar = await inStore(equityCalendar);
  equities = await inStore(async (db) => (await db.query<{ symbol: string }>("SELECT symbol FROM securities WHERE asset_type = 'EQUITY' ORDER BY symbol")).map((r) => r.symbol));
});

it('--every 5 --symbols stores every 5th trading day of the range from its first, for the named symbols only', async () => {
  const [a, b] = [equities[1], equities[4]];
  expect(await main(['analyze', '--from', FROM, '--to', TO, '--every', '5', '--symbols', `${a.toLowerCase()}, ${b}`, '--workers', '0'], config)).toBe(0);
  const range = calendar.filter((d) => d >= FROM && d <= TO);
  const expected = range.filter((_, k) => k % 5 === 0);
  expect(expected.length).toBeGreaterThan(8);
  const docs = await stored();
  expect([...docs.keys()].sort()).toEqual([a, b].sort());
  expect(datesOf(docs, a)).toEqual(expected);
  expect(datesOf(docs, b)).toEqual(expected);
  expect(cli.out.join('\n')).toContain(`Stored ${2 * expected.length} snapshots for 2 of the universe's 12 symbols, ${expected[0]}..${expected.at(-1)} (${expected.length} date(s): every 5th trading day)`);
});

it("--every week stores each week's last trading day; without a range it samples the whole history", async () => {
  await clear();
  expect(await main(['analyze', '--from', FROM, '--to', TO, '--every', 'week', '--workers', '0'], config)).toBe(0);
  const range = calendar.filter((d) => d >= FROM && d <= TO);
  const expected = range.filter((d) => {
    const next = calendar[calendar.indexOf(d) + 1];
    return next === undefined || mondayOf(next) !== mondayOf(d);
  });
  // Weeks of the range: one date each, the last of them.
  expect(expected).toHaveLength(new Set(range.map(mondayOf)).size);
  const docs = await stored();
  expect([...docs.keys()].sort()).toEqual(equities);
  for (const symbol of equities) expect(datesOf(docs, symbol)).toEqual(expected);
  expect(cli.out.join('\n')).toContain("each week's last trading day");

  await clear();
  expect(await main(['analyze', '--every', '100', '--symbols', equities[0], '--workers', '0'], config)).toBe(0);
  // From the calendar's first day every 100th; the first has too little history for a document.
  const sampled = calendar.filter((_, k) => k % 100 === 0).slice(1);
  expect(datesOf(await stored(), equities[0])).toEqual(sampled);
});

it('a sampled snapshot equals the full run\'s snapshot of the same symbol and date', async () => {
  await clear();
  const [a, b] = [equities[2], equities[6]];
  expect(await main(['analyze', '--from', FROM, '--to', TO, '--every', 'week', '--symbols', `${a},${b}`, '--workers', '0'], config)).toBe(0);
  const sampled = await stored();
  await clear();
  expect(await main(['analyze', '--from', FROM, '--to', TO, '--workers', '0'], config)).toBe(0);
  const full = await stored();
  expect(datesOf(full, a)).toEqual(calendar.filter((d) => d >= FROM && d <= TO));
  for (const symbol of [a, b]) {
    const dates = datesOf(sampled, symbol);
    expect(dates.length).toBeGreaterThan(8);
    for (const date of dates) expect(sampled.get(symbol)?.get(date)).toEqual(full.get(symbol)?.get(date));
  }
  // The comparison has something to compare: the documents carry the universe's context.
  const doc = sampled.get(a)?.get(datesOf(sampled, a).at(-1) as string) as { ml_signal: unknown; market_regime: unknown };
  expect(doc.ml_signal).not.toBeNull();
  expect(doc.market_regime).not.toBeNull();
});

it('bad --every and --symbols exit 2 with a clear message and write nothing', async () => {
  await clear();
  const cases: Array<[string[], RegExp]> = [
    [['--every', '0'], /--every must be a whole number of trading days >= 1, or "week"/],
    [['--every', 'fortnight'], /--every must be/],
    [['--every', '2.5'], /--every must be/],
    [['--every=-3'], /--every must be/],
    [['--every'], /'--every' argument is ambiguous/], // followed by --workers
    [['--symbols', ''], /--symbols must be a comma-separated list/],
    [['--symbols', 'ACME,,'], /--symbols must be a comma-separated list/],
    [['--symbols', `${equities[0]},NOPE,ZZZ`], /not an equity with bars in the store: NOPE, ZZZ/],
    [['--symbols', 'TGMI'], /not an equity with bars in the store: TGMI/],
    [['--every', '5', '--from', '2030-01-01', '--to', '2030-02-01'], /no trading days between 2030-01-01 and 2030-02-01/],
  ];
  for (const [args, message] of cases) {
    cli.err = [];
    expect([args, await main(['analyze', ...args, '--workers', '0'], config)]).toEqual([args, 2]);
    expect(cli.err.join('\n')).toMatch(message);
  }
  expect((await stored()).size).toBe(0);
});
