/**
 * The book's ledger (engine/ledger.ts): trades in cents with their refusals, valuation, rebalance
 * orders and the If-Match rules, on hand-checked examples.
 */
import { MAX_TOTAL_CAPITAL } from '../../../subgraphs/allocation/dto.js';
import { toCents } from '../../../subgraphs/allocation/engine/money.js';
import {
  applyTrade,
  etagOf,
  LEDGER_MAX_CENTS,
  tradeValueRefusal,
  parseIfMatch,
  rebalanceOrders,
  valueBook,
  type LedgerBook,
} from '../../../subgraphs/allocation/engine/ledger.js';

const book = (cash: number, positions: Record<string, [number, number]> = {}): LedgerBook => ({
  cash,
  positions: new Map(Object.entries(positions).map(([s, [shares, cost]]) => [s, { shares, cost }])),
});

describe('applyTrade', () => {
  test('a buy spends cash and adds shares and their cost (average cost)', () => {
    const r = applyTrade(book(100_000, { AAA: [10, 10_000] }), { symbol: 'AAA', side: 'BUY', shares: 5, price: 1_300 });
    expect(r).toMatchObject({ ok: true, value: 6_500, realised: null, position: { shares: 15, cost: 16_500 } });
    if (r.ok) expect(r.book.cash).toBe(93_500);
  });

  test('a buy that opens a position, and one that uses the last cent', () => {
    const r = applyTrade(book(1_000), { symbol: 'BBB', side: 'BUY', shares: 4, price: 250 });
    expect(r).toMatchObject({ ok: true, position: { shares: 4, cost: 1_000 } });
    if (r.ok) expect(r.book.cash).toBe(0);
  });

  test('a sale removes the cost pro rata, rounded to the cent, and realises the difference', () => {
    // 3 of 7 shares that cost 100.00: round(10000 x 3 / 7) = 4286 cents removed.
    const r = applyTrade(book(0, { AAA: [7, 10_000] }), { symbol: 'AAA', side: 'SELL', shares: 3, price: 2_000 });
    expect(r).toMatchObject({ ok: true, value: 6_000, realised: 6_000 - 4_286, position: { shares: 4, cost: 5_714 } });
  });

  test('a full sale removes the whole cost and the holding', () => {
    const r = applyTrade(book(5, { AAA: [7, 10_001] }), { symbol: 'AAA', side: 'SELL', shares: 7, price: 1_000 });
    expect(r).toMatchObject({ ok: true, realised: 7_000 - 10_001, position: null });
    if (r.ok) {
      expect(r.book.positions.has('AAA')).toBe(false);
      expect(r.book.cash).toBe(7_005);
    }
  });

  test('refusals: no margin, no shorts; the book given is untouched', () => {
    const start = book(999, { AAA: [2, 500] });
    expect(applyTrade(start, { symbol: 'AAA', side: 'BUY', shares: 1, price: 1_000 })).toEqual({
      ok: false,
      refusal: expect.objectContaining({ code: 'INSUFFICIENT_CASH', field: 'price' }),
    });
    expect(applyTrade(start, { symbol: 'AAA', side: 'BUY', shares: 3, price: 400 })).toEqual({
      ok: false,
      refusal: expect.objectContaining({ code: 'INSUFFICIENT_CASH', field: 'shares', message: expect.stringContaining('at most 2 shares') }),
    });
    expect(applyTrade(start, { symbol: 'AAA', side: 'SELL', shares: 3, price: 1 })).toEqual({
      ok: false,
      refusal: expect.objectContaining({ code: 'INSUFFICIENT_SHARES', field: 'shares', message: 'the book holds 2 AAA; cannot sell 3' }),
    });
    expect(applyTrade(start, { symbol: 'ZZZ', side: 'SELL', shares: 1, price: 1 })).toMatchObject({ ok: false, refusal: { code: 'INSUFFICIENT_SHARES' } });
    expect(start).toEqual(book(999, { AAA: [2, 500] }));
  });
});

describe('valueBook', () => {
  test('values at the prices given, at cost without one, largest value first then symbol', () => {
    const v = valueBook(book(1_000, { AAA: [10, 5_000], BBB: [1, 7_000], CCC: [5, 100] }), new Map([['AAA', 600], ['BBB', 6_000]]));
    expect(v).toMatchObject({ cash: 1_000, holdingsValue: 6_000 + 6_000 + 100, total: 13_100, cost: 12_100, unrealised: 0 });
    expect(v.positions.map((p) => [p.symbol, p.value, p.price, p.unrealised])).toEqual([
      ['AAA', 6_000, 600, 1_000],
      ['BBB', 6_000, 6_000, -1_000],
      ['CCC', 100, null, 0],
    ]);
    expect(v.positions[0].weight).toBeCloseTo(6_000 / 13_100, 12);
  });

  test('an empty book is worth its cash, and nothing has a weight in a book worth nothing', () => {
    expect(valueBook(book(0), new Map())).toMatchObject({ total: 0, positions: [] });
    expect(valueBook(book(0, { AAA: [1, 0] }), new Map()).positions[0].weight).toBe(0);
  });
});

describe('rebalanceOrders', () => {
  const prices = new Map([['AAA', 1_000], ['BBB', 2_000], ['CCC', 500], ['DDD', 300]]);

  test('sells (including names the target drops) before buys, each in symbol order', () => {
    const plan = rebalanceOrders(new Map([['CCC', 10], ['AAA', 5], ['BBB', 2]]), new Map([['BBB', 1], ['DDD', 10], ['AAA', 8]]), prices, 0);
    expect(plan.orders.map((o) => [o.side, o.symbol, o.shares])).toEqual([
      ['SELL', 'BBB', 1],
      ['SELL', 'CCC', 10],
      ['BUY', 'AAA', 3],
      ['BUY', 'DDD', 10],
    ]);
    expect(plan).toMatchObject({ sellValue: 2_000 + 5_000, buyValue: 3_000 + 3_000, cashAfter: 1_000, trimmed: [] });
    expect(Object.fromEntries(plan.target)).toEqual({ AAA: 8, BBB: 1, DDD: 10 });
  });

  test('buys the cash cannot pay are trimmed from the last, by whole shares', () => {
    // 10.00 of cash and nothing to sell: AAA 5 x 10.00 is wanted, and CCC 4 x 5.00 after it.
    const plan = rebalanceOrders(new Map(), new Map([['AAA', 1], ['CCC', 4]]), prices, 2_100);
    // 10.00 + 20.00 > 21.00: CCC trimmed by 2 shares (10.00) -> 20.00 spent, 1.00 left.
    expect(plan.orders.map((o) => [o.symbol, o.shares])).toEqual([['AAA', 1], ['CCC', 2]]);
    expect(plan.trimmed).toEqual([{ symbol: 'CCC', wanted: 4, kept: 2 }]);
    expect(plan.cashAfter).toBe(100);
    // 9.00: AAA (10.00) cannot be paid at all; trimming CCC away first, then AAA, leaves 9.00 for one CCC.
    const gone = rebalanceOrders(new Map(), new Map([['AAA', 1], ['CCC', 4]]), prices, 900);
    expect(gone.orders.map((o) => [o.symbol, o.shares])).toEqual([['CCC', 1]]);
    expect(gone.trimmed).toEqual([{ symbol: 'AAA', wanted: 1, kept: 0 }, { symbol: 'CCC', wanted: 4, kept: 1 }]);
    expect(Object.fromEntries(gone.target)).toEqual({ CCC: 1 });
  });

  test('a book already at its target needs no order; a symbol without a price is a programming error', () => {
    expect(rebalanceOrders(new Map([['AAA', 3]]), new Map([['AAA', 3]]), prices, 7)).toMatchObject({ orders: [], cashAfter: 7 });
    expect(() => rebalanceOrders(new Map(), new Map([['ZZZ', 1]]), prices, 0)).toThrow(/ZZZ/);
  });
});

describe('the bound on amounts (MAX_TOTAL_CAPITAL)', () => {
  const MAX = LEDGER_MAX_CENTS;

  test('is MAX_TOTAL_CAPITAL in cents, an exact integer with room to add two of them', () => {
    expect(MAX).toBe(toCents(MAX_TOTAL_CAPITAL));
    expect(2 * MAX).toBeLessThan(Number.MAX_SAFE_INTEGER);
  });

  test('a trade worth more is refused whatever the book, naming shares (or price when one share alone is over)', () => {
    // 1e9 shares at 1e12 and 1e6 at 1e9: products far beyond 2^53 cents, refused, never kept.
    const rich = book(MAX, { X: [1e9, 1] });
    expect(applyTrade(rich, { symbol: 'X', side: 'SELL', shares: 1e9, price: 1e14 })).toMatchObject({ ok: false, refusal: { code: 'VALIDATION_FAILED', field: 'shares' } });
    expect(applyTrade(rich, { symbol: 'X', side: 'SELL', shares: 1e6, price: 1e11 })).toMatchObject({ ok: false, refusal: { code: 'VALIDATION_FAILED', field: 'shares' } });
    expect(applyTrade(rich, { symbol: 'X', side: 'BUY', shares: 2, price: MAX })).toMatchObject({ ok: false, refusal: { code: 'VALIDATION_FAILED', field: 'shares' } });
    expect(tradeValueRefusal({ symbol: 'X', side: 'BUY', shares: 1, price: MAX + 1 })).toMatchObject({ code: 'VALIDATION_FAILED', field: 'price' });
    expect(tradeValueRefusal({ symbol: 'X', side: 'BUY', shares: 1e9, price: 1e5 })).toBeNull(); // exactly MAX
    expect(tradeValueRefusal({ symbol: 'X', side: 'SELL', shares: 1e6, price: 1e11 })?.message).toBe(
      '1000000 x 1000000000.00 is worth more than 1000000000000.00, the most one trade may be worth',
    );
  });

  test('a sale may not take the cash past it, a buy may not make one holding cost more', () => {
    const nearly = book(MAX - 100, { X: [10, 50] });
    expect(applyTrade(nearly, { symbol: 'X', side: 'SELL', shares: 1, price: 100 })).toMatchObject({ ok: true, book: { cash: MAX } });
    expect(applyTrade(nearly, { symbol: 'X', side: 'SELL', shares: 1, price: 101 })).toMatchObject({
      ok: false,
      refusal: { code: 'VALIDATION_FAILED', field: 'price', message: expect.stringMatching(/would take the cash to 1000000000000\.01; a book may hold at most 1000000000000\.00 cash/) },
    });
    expect(applyTrade(nearly, { symbol: 'X', side: 'SELL', shares: 2, price: 51 })).toMatchObject({ ok: false, refusal: { code: 'VALIDATION_FAILED', field: 'shares' } });
    const dear = book(MAX, { X: [1, MAX - 100] });
    expect(applyTrade(dear, { symbol: 'X', side: 'BUY', shares: 1, price: 100 })).toMatchObject({ ok: true, position: { shares: 2, cost: MAX } });
    expect(applyTrade(dear, { symbol: 'X', side: 'BUY', shares: 1, price: 101 })).toMatchObject({
      ok: false,
      refusal: { code: 'VALIDATION_FAILED', message: expect.stringMatching(/one holding may cost at most 1000000000000\.00/) },
    });
  });
});

describe('ETag and If-Match', () => {
  test('a version is a strong entity tag', () => {
    expect(etagOf(3)).toBe('"3"');
  });

  test('If-Match: *, lists, weak tags compared as their version; malformed is null and matches nothing', () => {
    expect(parseIfMatch('*')).toEqual({ any: true });
    expect(parseIfMatch(' "3" , W/"4", "x" ')).toEqual({ any: false, versions: [3, 4] });
    expect(parseIfMatch('3')).toBeNull();
    expect(parseIfMatch('')).toBeNull();
    expect(parseIfMatch('"3",')).toBeNull();
    expect(parseIfMatch('W/"3"')).toEqual({ any: false, versions: [3] });
    expect(parseIfMatch('"03"')).toEqual({ any: false, versions: [] });
  });
});
