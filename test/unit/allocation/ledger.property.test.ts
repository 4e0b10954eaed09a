/**
 * Properties of the book's ledger (engine/ledger.ts), over random books and trade sequences:
 *   - cash + sum over trades of (shares x trade price, signed: sales in, buys out) is conserved:
 *     cash_after = cash_before - buys + sales, exactly in cents, whatever the sequence;
 *   - shares held = shares bought - shares sold per symbol; cost never negative; a holding at 0 is gone;
 *   - a refused trade changes nothing (the book is the same object, unchanged);
 *   - rebalance orders applied to the book one by one are all accepted, keep cash >= 0 after each
 *     order, and end exactly at the reported target shares and cash_after.
 */
import fc from 'fast-check';
import { applyTrade, rebalanceOrders, type LedgerBook, type LedgerTrade } from '../../../subgraphs/allocation/engine/ledger.js';

const SYMBOLS = ['AAA', 'BBB', 'CCC', 'DDD', 'EEE'];

const startBook = fc
  .record({
    cash: fc.integer({ min: 0, max: 10_000_000 }),
    positions: fc.dictionary(fc.constantFrom(...SYMBOLS), fc.record({ shares: fc.integer({ min: 1, max: 1_000 }), cost: fc.integer({ min: 0, max: 5_000_000 }) })),
  })
  .map(({ cash, positions }): LedgerBook => ({ cash, positions: new Map(Object.entries(positions)) }));

const trade = fc.record({
  symbol: fc.constantFrom(...SYMBOLS),
  side: fc.constantFrom('BUY' as const, 'SELL' as const),
  shares: fc.integer({ min: 1, max: 400 }),
  price: fc.integer({ min: 1, max: 50_000 }),
});

const snapshot = (b: LedgerBook) => ({ cash: b.cash, positions: [...b.positions].sort(([a], [c]) => (a < c ? -1 : 1)) });

describe('ledger properties', () => {
  test('cash + sum(shares x trade price) is conserved through any trade sequence; refusals change nothing', () => {
    fc.assert(
      fc.property(startBook, fc.array(trade, { maxLength: 60 }), (start, trades: LedgerTrade[]) => {
        let b = start;
        let flow = 0;
        const shares = new Map([...start.positions].map(([s, p]) => [s, p.shares]));
        for (const t of trades) {
          const before = snapshot(b);
          const r = applyTrade(b, t);
          if (!r.ok) {
            expect(snapshot(b)).toEqual(before);
            if (r.refusal.code === 'INSUFFICIENT_CASH') expect(t.shares * t.price).toBeGreaterThan(b.cash);
            else expect(t.shares).toBeGreaterThan(shares.get(t.symbol) ?? 0);
            continue;
          }
          flow += (t.side === 'SELL' ? 1 : -1) * t.shares * t.price;
          shares.set(t.symbol, (shares.get(t.symbol) ?? 0) + (t.side === 'BUY' ? t.shares : -t.shares));
          b = r.book;
          expect(b.cash).toBeGreaterThanOrEqual(0);
          expect(b.cash).toBe(start.cash + flow);
          for (const p of b.positions.values()) {
            expect(p.shares).toBeGreaterThan(0);
            expect(p.cost).toBeGreaterThanOrEqual(0);
          }
        }
        for (const s of SYMBOLS) expect(b.positions.get(s)?.shares ?? 0).toBe(shares.get(s) ?? 0);
      }),
      { numRuns: 300 },
    );
  });

  test('rebalance orders applied in order end exactly at the target and cash_after, cash never negative', () => {
    const target = fc.dictionary(fc.constantFrom(...SYMBOLS), fc.integer({ min: 0, max: 2_000 }));
    const prices = fc.tuple(...SYMBOLS.map(() => fc.integer({ min: 1, max: 100_000 })));
    fc.assert(
      fc.property(startBook, target, prices, (start, wanted, priceList) => {
        const priceOf = new Map(SYMBOLS.map((s, i) => [s, priceList[i]]));
        const current = new Map([...start.positions].map(([s, p]) => [s, p.shares]));
        const plan = rebalanceOrders(current, new Map(Object.entries(wanted)), priceOf, start.cash);
        let b = start;
        let seenBuy = false;
        for (const o of plan.orders) {
          if (o.side === 'BUY') seenBuy = true;
          else expect(seenBuy).toBe(false);
          expect(o.shares).toBeGreaterThan(0);
          expect(o.value).toBe(o.shares * o.price);
          const r = applyTrade(b, o);
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          b = r.book;
          expect(b.cash).toBeGreaterThanOrEqual(0);
        }
        expect(b.cash).toBe(plan.cashAfter);
        expect(Object.fromEntries([...b.positions].map(([s, p]) => [s, p.shares]))).toEqual(Object.fromEntries(plan.target));
        // Without a trim the target is what was asked for; a trim only ever cuts buys.
        for (const s of SYMBOLS) {
          const asked = wanted[s] ?? 0;
          const ends = plan.target.get(s) ?? 0;
          const cut = plan.trimmed.find((t) => t.symbol === s);
          if (!cut) expect(ends).toBe(asked);
          else expect(ends).toBe((current.get(s) ?? 0) + cut.kept);
        }
        expect(plan.sellValue - plan.buyValue).toBe(plan.cashAfter - start.cash);
      }),
      { numRuns: 300 },
    );
  });
});
