/** How the console writes figures and words: one rule per kind of figure, the same in every view. */
import {
  formatCurrency,
  formatInstant,
  formatMoney,
  formatPercent,
  formatPrice,
  formatProbability,
  formatScore,
  formatShareChange,
  formatShares,
  formatSignedMoney,
  formatSignedPercent,
  humanize,
  MISSING,
  NOT_MEASURED,
  tone,
} from '../../../console/src/format.js';
import { formatEstimate } from '../../../console/src/chart/format.js';
import { verdictTone } from '../../../console/src/books/verdict.js';

describe('money and prices', () => {
  it('writes money with two decimals and thousands separators, a dash for unknown', () => {
    expect(formatMoney(29861)).toBe('29,861.00');
    expect(formatMoney(99537.77)).toBe('99,537.77');
    expect(formatMoney(0.005)).toBe('0.01');
    expect(formatMoney(null)).toBe(MISSING);
    expect(formatMoney(undefined)).toBe(MISSING);
    expect(formatMoney(Number.NaN)).toBe(MISSING);
  });

  it('writes money in a named currency with the same two decimals', () => {
    expect(formatCurrency(199847.81, 'USD')).toBe('$199,847.81');
    expect(formatCurrency(12, 'USD')).toBe('$12.00');
    expect(formatCurrency(1234.5, 'JPY')).toBe('¥1,234.50');
    expect(formatCurrency(12.5, 'XQQ')).toMatch(/^(12\.50 XQQ|XQQ\s?12\.50)$/);
    expect(formatCurrency(null, 'USD')).toBe(MISSING);
  });

  it('writes a change in money with its sign, and no sign for what rounds to zero', () => {
    expect(formatSignedMoney(-6714.4)).toBe('-6,714.40');
    expect(formatSignedMoney(1234.5)).toBe('+1,234.50');
    expect(formatSignedMoney(0)).toBe('0.00');
    expect(formatSignedMoney(-0.001)).toBe('0.00');
    expect(formatSignedMoney(null)).toBe(MISSING);
  });

  it('writes a price per share by the money rule', () => {
    expect(formatPrice(101.456)).toBe('101.46');
    expect(formatPrice(1234.5)).toBe('1,234.50');
    expect(formatPrice(null)).toBe(MISSING);
  });
});

describe('shares', () => {
  it('writes shares and share changes whole', () => {
    expect(formatShares(1200)).toBe('1,200');
    expect(formatShares(null)).toBe(MISSING);
    expect(formatShareChange(-88)).toBe('-88');
    expect(formatShareChange(1500)).toBe('+1,500');
    expect(formatShareChange(0)).toBe('0');
    expect(formatShareChange(null)).toBe(MISSING);
  });
});

describe('percentages', () => {
  it('writes a fraction with one decimal unless asked for more', () => {
    expect(formatPercent(0.1412)).toBe('14.1%');
    expect(formatPercent(0.0999)).toBe('10.0%');
    expect(formatPercent(0.249977, 2)).toBe('25.00%');
    expect(formatPercent(null)).toBe(MISSING);
  });

  it('writes a change with its sign, and no sign for what rounds to zero', () => {
    expect(formatSignedPercent(-0.3245)).toBe('-32.5%');
    expect(formatSignedPercent(0.04)).toBe('+4.0%');
    expect(formatSignedPercent(-0.0001)).toBe('0.0%');
    expect(formatSignedPercent(0.00001)).toBe('0.0%');
    expect(formatSignedPercent(0.012345, 2)).toBe('+1.23%');
    expect(formatSignedPercent(null)).toBe(MISSING);
  });

  it('writes a probability as a percentage, and what was not measured as such', () => {
    expect(formatProbability(0.615)).toBe('61.5%');
    expect(formatProbability(null)).toBe(NOT_MEASURED);
    expect(formatProbability(Number.NaN)).toBe(NOT_MEASURED);
  });
});

describe('evidence estimates', () => {
  it('writes a measured fraction with its interval by the percentage rule', () => {
    expect(formatEstimate({ value: 0.5423, ci: [0.51, 0.5731] })).toBe('54.2% (95% CI 51.0% to 57.3%)');
    expect(formatEstimate({ value: 0.012, ci: [-0.004, 0.03] }, true)).toBe('+1.2% (95% CI -0.4% to +3.0%)');
    expect(formatEstimate({ value: 0.6, ci: null })).toBe('60.0%');
    expect(formatEstimate({ value: 0.6, ci: [0.5] })).toBe('60.0%');
  });

  it('never invents a number the answer did not carry', () => {
    expect(formatEstimate({ value: null, ci: null })).toBe(NOT_MEASURED);
    expect(formatEstimate({ value: null, ci: [0.1, 0.2] })).toBe(NOT_MEASURED);
    expect(formatEstimate(null)).toBe(NOT_MEASURED);
  });
});

describe('scores, tones, instants and words', () => {
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
    expect(humanize('INVERSE_HEAD_AND_SHOULDERS')).toBe('Inverse head and shoulders');
    expect(humanize(null)).toBe(MISSING);
    expect(humanize('')).toBe(MISSING);
  });
});
