/** Market regime of the index: bull, bear and sideways paths, the stage vote, thresholds, short histories. */
import { sma } from '../../../subgraphs/analysis/engine/indicators.js';
import { REGIME_RULES, marketRegime } from '../../../subgraphs/analysis/engine/regime.js';

function indexFrom(closes: number[]): { symbol: string; dates: string[]; close: Float64Array; sma200: Float64Array } {
  const close = Float64Array.from(closes);
  const start = Date.parse('2020-01-01T00:00:00Z');
  return {
    symbol: 'TGMI',
    dates: closes.map((_, i) => new Date(start + i * 86_400_000).toISOString().slice(0, 10)),
    close,
    sma200: sma(close, 200),
  };
}

const path = (n: number, f: (t: number) => number): number[] => Array.from({ length: n }, (_, t) => f(t));

describe('marketRegime', () => {
  const bull = indexFrom(path(300, (t) => 1000 * 1.001 ** t));
  const bear = indexFrom(path(300, (t) => 1000 * 0.999 ** t));
  const flat = indexFrom(path(300, (t) => 1000 + 15 * Math.sin(t / 4)));

  it('bull: close above a rising 200-day SMA', () => {
    const r = marketRegime(bull, 299, null);
    expect(r?.regime).toBe('bull');
    expect(r?.index_symbol).toBe('TGMI');
    expect(r?.index_close).toBe(bull.close[299]);
    expect(r?.index_sma_200).toBe(bull.sma200[299]);
    expect(r?.index_sma_200_slope_percent).toBeCloseTo((bull.sma200[299] / bull.sma200[279] - 1) * 100, 12);
    expect(r?.index_sma_200_slope_percent).toBeGreaterThan(REGIME_RULES.flatSlopePercent);
    expect(r?.reasons.join(' ')).toMatch(/above its 200-day SMA.*rising.*Bull/);
    expect(marketRegime(bull, 299, 'STAGE 2')?.regime).toBe('bull');
    expect(marketRegime(bull, 299, 'STAGE 3')?.regime).toBe('bull');
  });

  it('bear: close below a falling 200-day SMA', () => {
    const r = marketRegime(bear, 299, 'STAGE 4');
    expect(r?.regime).toBe('bear');
    expect(r?.index_sma_200_slope_percent).toBeLessThan(-REGIME_RULES.flatSlopePercent);
    expect(r?.index_stage).toBe('STAGE 4');
    expect(r?.reasons.join(' ')).toMatch(/below its 200-day SMA.*falling.*Bear.*stage-4/);
    expect(marketRegime(bear, 299, null)?.regime).toBe('bear');
  });

  it('sideways: a flat average, or a trend contradicted by the weekly stage', () => {
    const r = marketRegime(flat, 299, null);
    expect(r?.regime).toBe('sideways');
    expect(Math.abs(r?.index_sma_200_slope_percent ?? NaN)).toBeLessThan(REGIME_RULES.flatSlopePercent);
    expect(marketRegime(flat, 299, 'STAGE 1')?.regime).toBe('sideways');
    expect(marketRegime(bull, 299, 'STAGE 4')?.regime).toBe('sideways');
    expect(marketRegime(bear, 299, 'STAGE 2')?.regime).toBe('sideways');
    expect(marketRegime(bull, 299, 'STAGE 4')?.reasons.join(' ')).toMatch(/contradicts/);
  });

  it('sideways when price and average disagree: a fresh break below a rising SMA', () => {
    const closes = path(300, (t) => 1000 * 1.001 ** t);
    closes[299] = 0.8 * bull.sma200[299];
    const r = marketRegime(indexFrom(closes), 299, null);
    expect(r?.regime).toBe('sideways');
  });

  it('a flat average is settled by the stage when the close agrees with it', () => {
    // Flat at 1000, then 1050 for the last 5 days: above the SMA, SMA slope well inside the flat band.
    const up = indexFrom(path(300, (t) => (t >= 295 ? 1050 : 1000)));
    expect(Math.abs(marketRegime(up, 299, null)?.index_sma_200_slope_percent ?? NaN)).toBeLessThan(0.25);
    expect(marketRegime(up, 299, null)?.regime).toBe('sideways');
    expect(marketRegime(up, 299, 'STAGE 2')?.regime).toBe('bull');
    expect(marketRegime(up, 299, 'STAGE 4')?.regime).toBe('sideways');
    const down = indexFrom(path(300, (t) => (t >= 295 ? 950 : 1000)));
    expect(marketRegime(down, 299, 'STAGE 4')?.regime).toBe('bear');
    expect(marketRegime(down, 299, 'STAGE 2')?.regime).toBe('sideways');
  });

  it('uses the flat band of +-0.25% over 20 days', () => {
    // A straight line whose SMA200 rises by just under / over the band over 20 days.
    const slopeFor = (dailyStep: number): { regime: string | undefined; slope: number | null | undefined } => {
      const idx = indexFrom(path(260, (t) => 1000 + dailyStep * t));
      const r = marketRegime(idx, 259, null);
      return { regime: r?.regime, slope: r?.index_sma_200_slope_percent };
    };
    // SMA200 at t is 1000 + step * (t - 99.5): over 20 days it gains 20 * step on ~1000 + 160 * step.
    const below = slopeFor(0.12); // ~0.235%
    const above = slopeFor(0.14); // ~0.274%
    expect(below.slope).toBeLessThan(0.25);
    expect(below.regime).toBe('sideways');
    expect(above.slope).toBeGreaterThan(0.25);
    expect(above.regime).toBe('bull');
  });

  it('is null under 200 bars; the slope needs 220', () => {
    expect(marketRegime(bull, 198, 'STAGE 2')).toBeNull();
    expect(marketRegime(bull, -1, null)).toBeNull();
    expect(marketRegime(bull, 300, null)).toBeNull();
    const at199 = marketRegime(bull, 199, 'STAGE 2');
    expect(at199?.index_sma_200_slope_percent).toBeNull();
    expect(at199?.regime).toBe('bull'); // settled by the stage
    expect(marketRegime(bull, 199, null)?.regime).toBe('sideways');
    expect(marketRegime(bull, 218, null)?.index_sma_200_slope_percent).toBeNull();
    expect(marketRegime(bull, 219, null)?.index_sma_200_slope_percent).not.toBeNull();
    const withNaN = indexFrom(path(300, (t) => (t === 299 ? NaN : 1000)));
    expect(marketRegime(withNaN, 299, null)).toBeNull();
  });
});
