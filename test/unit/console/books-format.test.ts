/** How the books view writes money, shares, percentages, P&L, instants and enum values. */
import {
  formatInstant,
  formatMoney,
  formatPercent,
  formatScore,
  formatShareChange,
  formatShares,
  formatSignedMoney,
  formatSignedPercent,
  humanize,
  MISSING,
  tone,
  verdictTone,
} from '../../../console/src/books/format.js';

describe('books formatting', () => {
  it('writes money in cents with thousands separators, a dash for unknown', () => {
    expect(formatMoney(29861)).toBe('29,861.00');
    expect(formatMoney(99537.77)).toBe('99,537.77');
    expect(formatMoney(0.005)).toBe('0.01');
    expect(formatMoney(null)).toBe(MISSING);
    expect(formatMoney(undefined)).toBe(MISSING);
    expect(formatMoney(Number.NaN)).toBe(MISSING);
  });

  it('writes P&L with its sign, and no sign for what rounds to zero', () => {
    expect(formatSignedMoney(-6714.4)).toBe('-6,714.40');
    expect(formatSignedMoney(1234.5)).toBe('+1,234.50');
    expect(formatSignedMoney(0)).toBe('0.00');
    expect(formatSignedMoney(-0.001)).toBe('0.00');
    expect(formatSignedMoney(null)).toBe(MISSING);
  });

  it('writes shares and share changes whole', () => {
    expect(formatShares(1200)).toBe('1,200');
    expect(formatShares(null)).toBe(MISSING);
    expect(formatShareChange(-88)).toBe('-88');
    expect(formatShareChange(1500)).toBe('+1,500');
    expect(formatShareChange(0)).toBe('0');
  });

  it('writes fractions as percentages, signed for returns', () => {
    expect(formatPercent(0.1412)).toBe('14.1%');
    expect(formatPercent(0.249977, 2)).toBe('25.00%');
    expect(formatPercent(null)).toBe(MISSING);
    expect(formatSignedPercent(-0.3245)).toBe('-32.5%');
    expect(formatSignedPercent(0.04)).toBe('+4.0%');
    expect(formatSignedPercent(-0.0001)).toBe('0.0%');
    expect(formatSignedPercent(null)).toBe(MISSING);
  });

  it('writes scores with fixed decimals', () => {
    expect(formatScore(0.61234)).toBe('0.61');
    expect(formatScore(0.8, 3)).toBe('0.800');
    expect(formatScore(null)).toBe(MISSING);
  });

  it('tones signed figures and verdicts', () => {
    expect(tone(5)).toBe('good');
    expect(tone(-5)).toBe('bad');
    expect(tone(0)).toBe('neutral');
    expect(tone(null)).toBe('neutral');
    expect(verdictTone('SUITABLE')).toBe('good');
    expect(verdictTone('STRONG')).toBe('good');
    expect(verdictTone('CAUTION')).toBe('neutral');
    expect(verdictTone('NEUTRAL')).toBe('neutral');
    expect(verdictTone('UNSUITABLE')).toBe('bad');
    expect(verdictTone('weak')).toBe('bad');
  });

  it('writes instants in UTC to the minute, and leaves what is not one as it came', () => {
    expect(formatInstant('2026-11-26T10:22:24.512Z')).toBe('2026-11-26 10:22 UTC');
    expect(formatInstant('2026-11-26T12:22:24+02:00')).toBe('2026-11-26 10:22 UTC');
    expect(formatInstant('yesterday')).toBe('yesterday');
    expect(formatInstant(null)).toBe(MISSING);
  });

  it('writes enum values as words', () => {
    expect(humanize('SECTOR_CONCENTRATION')).toBe('Sector concentration');
    expect(humanize('STAGE_2')).toBe('Stage 2');
    expect(humanize(null)).toBe(MISSING);
  });
});
