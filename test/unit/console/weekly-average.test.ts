/**
 * The security chart's 10- and 30-week averages end on the snapshot's sma10w and sma30w: the console
 * draws them with the analysis engine's own weekly grouping and moving average, and this checks it on
 * every day of a few hundred daily bars across week and year boundaries, holidays and a week without
 * any trading day, against what the engine's snapshot computes for that day.
 */
import { weeklyMovingAverage, dayNumber, dateOfDay, type DailyBar } from '../../../console/src/chart/overlays.js';
import { prepareSymbol } from '../../../subgraphs/analysis/engine/prepared.js';
import { stageAt } from '../../../subgraphs/analysis/engine/snapshot.js';
import { sma } from '../../../subgraphs/analysis/engine/indicators.js';

const HOLIDAYS = new Set(['2024-12-25', '2025-01-01', '2025-04-18', '2025-07-04', '2025-11-27', '2025-12-25', '2026-01-01']);
/** A whole week without trading (its Monday to Friday). */
const CLOSED_WEEK = { from: '2025-08-11', to: '2025-08-15' };

function generatedBars(): DailyBar[] {
  const bars: DailyBar[] = [];
  let price = 100;
  for (let d = dayNumber('2024-11-06'); bars.length < 420; d++) {
    const date = dateOfDay(d);
    const dow = new Date(d * 86_400_000).getUTCDay();
    if (dow === 0 || dow === 6 || HOLIDAYS.has(date) || (date >= CLOSED_WEEK.from && date <= CLOSED_WEEK.to)) continue;
    // A deterministic wander with fractional prices (so the sums' rounding matters).
    price = Math.max(5, price * (1 + 0.013 * Math.sin(bars.length * 0.37) + 0.004 * Math.cos(bars.length * 1.91)));
    const close = Math.round(price * 1000) / 1000;
    bars.push({ date, open: close * 0.995, high: close * 1.01, low: close * 0.99, close, volume: 1000 + bars.length });
  }
  return bars;
}

describe("the chart's weekly averages and the snapshot's", () => {
  const bars = generatedBars();
  const series = {
    symbol: 'TEST',
    dates: bars.map((b) => b.date),
    open: Float64Array.from(bars, (b) => b.open),
    high: Float64Array.from(bars, (b) => b.high),
    low: Float64Array.from(bars, (b) => b.low),
    close: Float64Array.from(bars, (b) => b.close),
    volume: Float64Array.from(bars, (b) => b.volume),
  };
  const prepared = prepareSymbol({ symbol: 'TEST', sector: null, dataSource: 'synthetic', bars: series, benchmark: null, time: Int32Array.from(bars, (_, i) => i) });

  it('spans year boundaries, holidays and a closed week', () => {
    expect(bars[0].date < '2025-01-01' && bars[bars.length - 1].date > '2026-01-01').toBe(true);
    expect(bars.some((b) => b.date >= CLOSED_WEEK.from && b.date <= CLOSED_WEEK.to)).toBe(false);
  });

  it.each([10, 30])('the %i-week line ends on the snapshot value on every day', (weeks) => {
    let compared = 0;
    for (let i = 0; i < bars.length; i++) {
      const { weeklyClose } = stageAt(prepared, i);
      const averages = sma(weeklyClose, weeks);
      const engine = averages.length > 0 ? averages[averages.length - 1] : NaN;
      const line = weeklyMovingAverage(bars.slice(0, i + 1), weeks);
      const last = line[line.length - 1];
      if (Number.isNaN(engine)) {
        // No full window yet: the chart draws nothing for this week either.
        expect(last === undefined || last.time < bars[i].date).toBe(true);
        continue;
      }
      expect(last.time).toBe(bars[i].date);
      expect(last.value).toBe(engine);
      compared++;
    }
    expect(compared).toBeGreaterThan(200);
  });

  it('the whole line holds one value per week, equal to the engine on that week', () => {
    const line = weeklyMovingAverage(bars, 10);
    for (const point of line) {
      const i = bars.findIndex((b) => b.date === point.time);
      const averages = sma(stageAt(prepared, i).weeklyClose, 10);
      expect(point.value).toBe(averages[averages.length - 1]);
    }
  });
});
