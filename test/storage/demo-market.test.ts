/**
 * The demo market's first load (plain inserts into an empty store) stores exactly the generated bars,
 * and loading it again over them (the upsert path of `tradegraph demo`) changes nothing; on both backends.
 */
import { generateSyntheticMarket } from '../../subgraphs/analysis/engine/synthetic-market.js';
import { ensureDemoMarket, loadSyntheticMarket } from '../../subgraphs/analysis/market-data.js';
import { listAllBarSeries } from '../../subgraphs/analysis/store.js';
import { BACKENDS, openTestDb } from '../helpers/db.js';

const OPTIONS = { seed: 11, symbolCount: 12, years: 1, endDate: '2026-10-30', indexSymbol: 'TGMI' };

describe.each(BACKENDS)('demo market on %s', (backend) => {
  test('the first load stores the generated bars exactly, and a second load over them changes nothing', async () => {
    const t = await openTestDb(backend);
    try {
      const expected = [...generateSyntheticMarket(OPTIONS).series()].sort((a, b) => (a.symbol < b.symbol ? -1 : 1));
      const report = await ensureDemoMarket(t.db, OPTIONS);
      expect(report?.bars).toBe(expected.reduce((n, s) => n + s.dates.length, 0));
      const stored = async () => [...(await listAllBarSeries(t.db)).values()];
      const round = (s: (typeof expected)[number]) => ({ ...s, volume: s.volume.map(Math.round) });
      expect(await stored()).toEqual(expected.map(round));

      expect(await ensureDemoMarket(t.db, OPTIONS)).toBeNull();
      await loadSyntheticMarket(t.db, OPTIONS);
      expect(await stored()).toEqual(expected.map(round));
    } finally {
      await t.drop();
    }
  });
});
