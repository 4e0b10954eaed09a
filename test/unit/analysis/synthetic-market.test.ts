import { createHash } from 'node:crypto';
import { GICS_SECTORS, type BarSeries } from '../../../subgraphs/analysis/engine/market-types.js';
import { createPrng } from '../../../subgraphs/analysis/engine/prng.js';
import {
  ACME_NAME,
  ACME_SYMBOL,
  SYNTHETIC_SUB_INDUSTRIES,
  generateSyntheticMarket,
  tradingCalendar,
  type SyntheticMarket,
  type SyntheticMarketOptions,
} from '../../../subgraphs/analysis/engine/synthetic-market.js';
import { pearson as correlation } from '../../reference/statistics.js';

const BASE: SyntheticMarketOptions = {
  seed: 42,
  symbolCount: 40,
  years: 2,
  endDate: '2024-12-31',
  indexSymbol: 'TGMI',
};

function market(overrides: Partial<SyntheticMarketOptions> = {}): SyntheticMarket {
  return generateSyntheticMarket({ ...BASE, ...overrides });
}

function hashSeries(series: Iterable<BarSeries>): string {
  const hash = createHash('sha256');
  for (const s of series) {
    hash.update(s.symbol);
    hash.update(s.dates.join(','));
    for (const column of [s.open, s.high, s.low, s.close, s.volume]) {
      hash.update(Buffer.from(column.buffer, column.byteOffset, column.byteLength));
    }
  }
  return hash.digest('hex');
}

/** Simple moving average of `values` over `window` days ending at day t (inclusive). */
function sma(values: Float64Array, window: number, t: number): number {
  let sum = 0;
  for (let k = t - window + 1; k <= t; k++) sum += values[k];
  return sum / window;
}

function logReturns(close: Float64Array): number[] {
  const out: number[] = [];
  for (let t = 1; t < close.length; t++) out.push(Math.log(close[t] / close[t - 1]));
  return out;
}


describe('prng', () => {
  it('is reproducible per (seed, stream), independent across streams, and in range', () => {
    const draw = (seed: number, stream: number): number[] => {
      const rng = createPrng(seed, stream);
      return Array.from({ length: 5 }, () => rng.next());
    };
    expect(draw(1, 0)).toEqual(draw(1, 0));
    expect(draw(1, 0)).not.toEqual(draw(1, 1));
    expect(draw(1, 0)).not.toEqual(draw(2, 0));
    expect(draw(-5, -7)).toEqual(draw(-5, -7));

    const rng = createPrng(9, 3);
    let sum = 0;
    let sumSq = 0;
    const n = 50_000;
    let outOfRange = 0;
    for (let i = 0; i < n; i++) {
      const u = rng.next();
      if (!(u >= 0 && u < 1)) outOfRange++;
      const z = rng.normal();
      sum += z;
      sumSq += z * z;
    }
    expect(outOfRange).toBe(0);
    expect(Math.abs(sum / n)).toBeLessThan(0.03);
    expect(Math.abs(sumSq / n - 1)).toBeLessThan(0.03);
    expect(() => createPrng(1.5)).toThrow(RangeError);
  });
});

describe('tradingCalendar', () => {
  it('has exactly the requested number of strictly increasing weekdays ending on or before endDate', () => {
    const calendar = tradingCalendar('2024-12-31', 2520);
    expect(calendar).toHaveLength(2520);
    expect(calendar[calendar.length - 1]).toBe('2024-12-31');
    for (let i = 0; i < calendar.length; i++) {
      expect(calendar[i]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const weekday = new Date(`${calendar[i]}T00:00:00Z`).getUTCDay();
      expect(weekday).toBeGreaterThanOrEqual(1);
      expect(weekday).toBeLessThanOrEqual(5);
      if (i > 0) expect(calendar[i] > calendar[i - 1]).toBe(true);
    }
  });

  it('skips New Year, Independence Day, Christmas (observed) and Thanksgiving, and nothing else', () => {
    const calendar = new Set(tradingCalendar('2024-12-31', 1000));
    const expectedHolidays = [
      '2021-07-05', // Independence Day on a Sunday, observed Monday
      '2021-11-25',
      '2021-12-24', // Christmas on a Saturday, observed Friday
      '2021-12-31', // New Year 2022 on a Saturday, observed Friday
      '2022-07-04',
      '2022-11-24',
      '2022-12-26', // Christmas on a Sunday, observed Monday
      '2023-01-02', // New Year on a Sunday, observed Monday
      '2023-07-04',
      '2023-11-23',
      '2023-12-25',
      '2024-01-01',
      '2024-07-04',
      '2024-11-28',
      '2024-12-25',
    ];
    const missingWeekdays: string[] = [];
    for (let d = Date.UTC(2021, 5, 1); d <= Date.UTC(2024, 11, 31); d += 86_400_000) {
      const date = new Date(d);
      const weekday = date.getUTCDay();
      const iso = date.toISOString().slice(0, 10);
      if (weekday !== 0 && weekday !== 6 && !calendar.has(iso)) missingWeekdays.push(iso);
    }
    expect(missingWeekdays).toEqual(expectedHolidays);
    expect(calendar.has('2021-06-01')).toBe(true); // the window checked lies inside the calendar
    expect(calendar.has('2022-12-30')).toBe(true); // New Year 2023 is a Sunday: observed Monday, not Friday
  });

  it('ends on the last trading day on or before a weekend or holiday endDate', () => {
    expect(tradingCalendar('2024-12-29', 3)).toEqual(['2024-12-24', '2024-12-26', '2024-12-27']);
    expect(tradingCalendar('2024-12-25', 1)).toEqual(['2024-12-24']);
  });

  it('rejects bad input', () => {
    expect(() => tradingCalendar('2024-02-30', 10)).toThrow(RangeError);
    expect(() => tradingCalendar('20241231', 10)).toThrow(RangeError);
    expect(() => tradingCalendar('2024-12-31', 0)).toThrow(RangeError);
  });
});

describe('generateSyntheticMarket options', () => {
  it.each<[string, Partial<SyntheticMarketOptions>, RegExp]>([
    ['symbolCount < 11', { symbolCount: 10 }, /symbolCount/],
    ['non-integer symbolCount', { symbolCount: 20.5 }, /symbolCount/],
    ['years <= 0', { years: 0 }, /years/],
    ['negative years', { years: -1 }, /years/],
    ['NaN years', { years: Number.NaN }, /years/],
    ['bad date', { endDate: '2024-13-01' }, /endDate/],
    ['malformed date', { endDate: 'yesterday' }, /endDate/],
    ['non-integer seed', { seed: 1.5 }, /seed/],
    ['bad index symbol', { indexSymbol: 'tg mi' }, /indexSymbol/],
  ])('throws RangeError for %s', (_label, overrides, message) => {
    expect(() => market(overrides)).toThrow(RangeError);
    expect(() => market(overrides)).toThrow(message);
  });

  it('sizes the calendar as round(years * 252) days ending on or before endDate', () => {
    const m = market({ years: 1.5, endDate: '2023-06-18' });
    expect(m.calendar).toHaveLength(378);
    expect(m.calendar[m.calendar.length - 1]).toBe('2023-06-16');
    for (const s of m.series()) expect(s.dates).toBe(m.calendar);
  });
});

describe('determinism', () => {
  it('gives byte-identical output for equal options and different data for another seed', () => {
    const a = hashSeries(market().series());
    const b = hashSeries(market().series());
    const c = hashSeries(market({ seed: 43 }).series());
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(market().securities).toEqual(market().securities);
  });

  it('yields identical series when iterated more than once', () => {
    const m = market();
    expect(hashSeries(m.series())).toBe(hashSeries(m.series()));
  });

  it("makes each symbol's series depend only on (seed, symbol index), not on order or universe size", () => {
    const m = market();
    const forward = [...m.series()];
    for (let position = m.securities.length - 1; position >= 0; position--) {
      expect(hashSeries([m.seriesAt(position)])).toBe(hashSeries([forward[position]]));
    }
    const small = market({ symbolCount: 11 });
    for (let position = 1; position < small.securities.length; position++) {
      expect(small.securities[position]).toEqual(m.securities[position]);
      expect(hashSeries([small.seriesAt(position)])).toBe(hashSeries([forward[position]]));
    }
  });
});

describe('universe', () => {
  it('puts the index first, then symbolCount equities round-robin across all 11 sectors', () => {
    const m = market({ symbolCount: 50 });
    expect(m.securities).toHaveLength(51);
    const [index, ...equities] = m.securities;
    expect(index).toEqual({
      symbol: 'TGMI',
      name: 'TradeGraph Synthetic Market Index',
      sector: null,
      subIndustry: null,
      assetType: 'INDEX',
      dataSource: 'synthetic',
    });
    const counts = new Map<string, number>();
    for (const e of equities) {
      expect(e.assetType).toBe('EQUITY');
      expect(e.dataSource).toBe('synthetic');
      expect(e.sector).not.toBeNull();
      counts.set(e.sector!, (counts.get(e.sector!) ?? 0) + 1);
      expect(SYNTHETIC_SUB_INDUSTRIES[e.sector!]).toContain(e.subIndustry);
      expect(e.name).toMatch(/synthetic/i);
    }
    expect(counts.size).toBe(GICS_SECTORS.length);
    for (const sector of GICS_SECTORS) expect(counts.get(sector)).toBeGreaterThanOrEqual(Math.floor(50 / 11));
  });

  it('makes ACME the first equity, in Information Technology', () => {
    for (const seed of [1, 2, 3]) {
      const acme = market({ seed }).securities[1];
      expect(acme.symbol).toBe(ACME_SYMBOL);
      expect(acme.name).toBe(ACME_NAME);
      expect(acme.name).toBe('Acme Synthetic Corp');
      expect(acme.sector).toBe('Information Technology');
    }
  });

  it('draws unique 3-4 letter tickers, deterministic from the seed, never equal to the index symbol', () => {
    const m = market({ symbolCount: 3000, years: 0.1 });
    const symbols = m.securities.slice(1).map((s) => s.symbol);
    expect(new Set(symbols).size).toBe(symbols.length);
    for (const symbol of symbols) expect(symbol).toMatch(/^[A-Z]{3,4}$/);
    expect(symbols).not.toContain('TGMI');
    expect(market({ symbolCount: 3000, years: 0.1 }).securities).toEqual(m.securities);
    expect(market({ seed: 7, symbolCount: 3000, years: 0.1 }).securities.map((s) => s.symbol)).not.toEqual(
      m.securities.map((s) => s.symbol),
    );

    // Using one of the would-be tickers as the index symbol pushes it out of the equity list.
    const taken = m.securities[5].symbol;
    const other = market({ symbolCount: 3000, years: 0.1, indexSymbol: taken });
    const otherSymbols = other.securities.slice(1).map((s) => s.symbol);
    expect(otherSymbols).not.toContain(taken);
    expect(new Set(otherSymbols).size).toBe(otherSymbols.length);
  });
});

describe('dynamics', () => {
  it('keeps OHLC consistent and volumes positive integers across the whole universe', () => {
    const m = market({ symbolCount: 300, years: 5 });
    let count = 0;
    for (const s of m.series()) {
      count++;
      expect(s.close).toHaveLength(m.calendar.length);
      for (let t = 0; t < s.close.length; t++) {
        const o = s.open[t];
        const h = s.high[t];
        const l = s.low[t];
        const c = s.close[t];
        const ok =
          l > 0 && l <= Math.min(o, c) && Math.max(o, c) <= h && Number.isFinite(h) &&
          Number.isInteger(s.volume[t]) && s.volume[t] >= 1 && l >= 0.5;
        if (!ok) throw new Error(`bad bar ${s.symbol} ${s.dates[t]}: ${o} ${h} ${l} ${c} ${s.volume[t]}`);
        if (t > 0 && Math.abs(Math.log(o / s.close[t - 1])) > 0.5) {
          throw new Error(`open far from previous close: ${s.symbol} ${s.dates[t]}`);
        }
      }
    }
    expect(count).toBe(301);
  });

  it('draws starting prices roughly between $5 and $500 and starts the index at 1000', () => {
    const m = market({ symbolCount: 200 });
    const [index, ...equities] = [...m.series()];
    expect(index.close[0]).toBeCloseTo(1000, 6);
    const starts = equities.map((s) => s.open[0]);
    expect(Math.min(...starts)).toBeGreaterThan(3);
    expect(Math.max(...starts)).toBeLessThan(700);
    expect(new Set(starts.map((p) => Math.floor(Math.log10(p)))).size).toBeGreaterThanOrEqual(3);
  });

  it("correlates the index's daily returns with the cross-sectional average equity return (> 0.5)", () => {
    for (const seed of [1, 2]) {
      const [index, ...equities] = [...market({ seed, symbolCount: 200, years: 3 }).series()];
      const indexReturns = logReturns(index.close);
      const average = new Array<number>(indexReturns.length).fill(0);
      for (const e of equities) {
        logReturns(e.close).forEach((r, t) => (average[t] += r / equities.length));
      }
      expect(correlation(indexReturns, average)).toBeGreaterThan(0.5);
    }
  });

  it('shows volatility clustering: squared index returns are autocorrelated at lag 1', () => {
    for (const seed of [1, 2, 3, 4]) {
      const index = market({ seed, symbolCount: 11, years: 10 }).seriesAt(0);
      const squared = logReturns(index.close).map((r) => r * r);
      expect(correlation(squared.slice(1), squared.slice(0, -1))).toBeGreaterThan(0.08);
    }
  });

  it('raises volume on big moves', () => {
    const [, ...equities] = [...market({ symbolCount: 60, years: 3 }).series()];
    let higher = 0;
    for (const e of equities) {
      const returns = logReturns(e.close).map(Math.abs);
      const sorted = [...returns].sort((a, b) => a - b);
      const cut = sorted[Math.floor(sorted.length * 0.9)];
      let big = 0;
      let bigN = 0;
      let quiet = 0;
      let quietN = 0;
      returns.forEach((r, t) => {
        if (r >= cut) (big += e.volume[t + 1]), bigN++;
        else (quiet += e.volume[t + 1]), quietN++;
      });
      if (big / bigN > quiet / quietN) higher++;
    }
    expect(higher).toBeGreaterThan(equities.length * 0.9);
  });

  it('ends a 500-symbol universe with stocks well above and well below their 150-day average, in all stages', () => {
    const m = market({ seed: 11, symbolCount: 500, years: 3 });
    const last = m.calendar.length - 1;
    let wellAbove = 0;
    let wellBelow = 0;
    let aboveRising = 0;
    let belowFalling = 0;
    let flat = 0;
    let first = true;
    for (const s of m.series()) {
      if (first) {
        first = false; // skip the index
        continue;
      }
      const ma = sma(s.close, 150, last);
      const maBefore = sma(s.close, 150, last - 20);
      const ratio = s.close[last] / ma;
      const slope = ma / maBefore - 1;
      if (ratio > 1.15) wellAbove++;
      if (ratio < 0.85) wellBelow++;
      if (ratio > 1 && slope > 0.02) aboveRising++;
      if (ratio < 1 && slope < -0.02) belowFalling++;
      if (Math.abs(slope) < 0.01) flat++;
    }
    expect(wellAbove).toBeGreaterThanOrEqual(20);
    expect(wellBelow).toBeGreaterThanOrEqual(20);
    expect(aboveRising).toBeGreaterThanOrEqual(20); // stage-2 like
    expect(belowFalling).toBeGreaterThanOrEqual(20); // stage-4 like
    expect(flat).toBeGreaterThanOrEqual(20); // stage-1 / stage-3 like
  });
});

describe('ACME', () => {
  it.each([1, 2, 3, 42, 1234, -99, 2 ** 40])(
    'ends in a Weinstein stage-2 advance above a rising 150-day average (seed %p)',
    (seed) => {
      for (const years of [2, 10]) {
        const acme = market({ seed, years }).seriesAt(1);
        expect(acme.symbol).toBe('ACME');
        const last = acme.close.length - 1;
        for (let t = last - 63; t <= last; t++) {
          const ma = sma(acme.close, 150, t);
          expect(acme.close[t]).toBeGreaterThan(ma);
          expect(ma).toBeGreaterThan(sma(acme.close, 150, t - 1));
        }
        // A clear advance, not a drift: above the average, which itself rose over the last ~3 months,
        // and above where it traded 30 weeks ago.
        expect(acme.close[last] / sma(acme.close, 150, last)).toBeGreaterThan(1.03);
        expect(sma(acme.close, 150, last)).toBeGreaterThan(sma(acme.close, 150, last - 63) * 1.03);
        expect(acme.close[last]).toBeGreaterThan(acme.close[last - 150]);
      }
    },
  );
});

describe('index', () => {
  it('is derived from the market factor with large, sum-like volume', () => {
    const m = market({ symbolCount: 100 });
    const [index, ...equities] = [...m.series()];
    expect(index.symbol).toBe('TGMI');
    let indexVolume = 0;
    let equityVolume = 0;
    for (let t = 0; t < index.volume.length; t++) {
      indexVolume += index.volume[t];
      for (const e of equities) equityVolume += e.volume[t];
    }
    const ratio = indexVolume / equityVolume;
    expect(ratio).toBeGreaterThan(0.4);
    expect(ratio).toBeLessThan(2.5);
    const indexReturns = logReturns(index.close);
    const sd = Math.sqrt(indexReturns.reduce((a, r) => a + r * r, 0) / indexReturns.length);
    expect(sd).toBeGreaterThan(0.004);
    expect(sd).toBeLessThan(0.03);
  });
});

describe('the demo size', () => {
  // Its speed is measured by bench:pipeline, not asserted here.
  it('generates 500 symbols x 756 days', () => {
    const m = generateSyntheticMarket({ ...BASE, symbolCount: 500, years: 3 });
    let bars = 0;
    for (const s of m.series()) bars += s.close.length;
    expect(bars).toBe(501 * 756);
  });
});
