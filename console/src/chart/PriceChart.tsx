/**
 * The security's price chart: daily candles and volume over stage bands, the 10- and 30-week moving
 * averages, the shown patterns as lines through their key points (each marked at its own price) with their levels, and support and
 * resistance as price lines. Everything drawn is computed beforehand by ./overlays (pure); this
 * component only hands it to lightweight-charts and keeps the chart in step with its props.
 */
import { useEffect, useRef } from 'react';
import {
  AreaSeries,
  CandlestickSeries,
  createChart,
  createSeriesMarkers,
  HistogramSeries,
  LineSeries,
  LineStyle,
  type IChartApi,
  type IPriceLine,
  type ISeriesApi,
  type ISeriesMarkersPluginApi,
  type Time,
} from 'lightweight-charts';
import { patternLevelSegments, STAGE_STYLE, type DailyBar, type Level, type LinePoint, type PatternGeometry, type PatternLevel, type StageBand } from './overlays';

/** The colours of the chart's own lines, shared with the legend. */
export const CHART_COLOURS = {
  up: '#1b7f3b',
  down: '#c62828',
  ma10: '#f08c00',
  ma30: '#1f5fbf',
  support: '#1b7f3b',
  resistance: '#c62828',
  snapshot: '#1c2430',
} as const;

/** A pattern as the chart draws it. */
export interface ChartPattern {
  key: string;
  colour: string;
  /** Short name for its price-line titles, e.g. "Double bottom". */
  title: string;
  geometry: PatternGeometry;
  levels: PatternLevel[];
  /** Whether its key points' labels are written beside their markers (else the markers alone). */
  labelled: boolean;
}

export interface PriceChartProps {
  bars: readonly DailyBar[];
  ma10: readonly LinePoint[];
  ma30: readonly LinePoint[];
  bands: readonly StageBand[];
  /** Only the patterns to show. */
  patterns: readonly ChartPattern[];
  levels: readonly Level[];
  /** The snapshot's date (marked on the candles, where pattern levels end) and the range the chart opens on. */
  focus: { date: string; range: { from: string; to: string } | null } | null;
  /** What the chart shows, for screen readers. */
  label: string;
}

interface BaseSeries {
  chart: IChartApi;
  bands: ISeriesApi<'Area'>;
  volume: ISeriesApi<'Histogram'>;
  candles: ISeriesApi<'Candlestick'>;
  ma10: ISeriesApi<'Line'>;
  ma30: ISeriesApi<'Line'>;
  candleMarkers: ISeriesMarkersPluginApi<Time>;
}

const LEVEL_STYLE: Record<PatternLevel['kind'], LineStyle> = {
  target: LineStyle.Dashed,
  breakout: LineStyle.Dashed,
  invalidation: LineStyle.Dotted,
};

const quiet = { priceLineVisible: false, lastValueVisible: false } as const;

export function PriceChart({ bars, ma10, ma30, bands, patterns, levels, focus, label }: PriceChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const base = useRef<BaseSeries | null>(null);

  // The chart and its fixed series live as long as the component; autoSize follows the container.
  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const chart = createChart(el, {
      autoSize: true,
      // attributionLogo off: the library's logo injects a <style> element, which the page's CSP refuses; the legend credits it instead.
      layout: { background: { color: '#ffffff' }, textColor: '#1c2430', fontFamily: 'system-ui, sans-serif', attributionLogo: false },
      grid: { vertLines: { color: '#eef1f5' }, horzLines: { color: '#eef1f5' } },
      rightPriceScale: { scaleMargins: { top: 0.06, bottom: 0.24 } },
      timeScale: { borderColor: '#d8dee6' },
    });
    // Added first so it is drawn behind everything: a full-height area coloured per day by stage.
    const bandSeries = chart.addSeries(AreaSeries, {
      ...quiet,
      priceScaleId: 'stage',
      lineVisible: false,
      lineWidth: 1,
      lineColor: 'rgba(0, 0, 0, 0)',
      crosshairMarkerVisible: false,
      autoscaleInfoProvider: () => ({ priceRange: { minValue: 0, maxValue: 1 } }),
    });
    chart.priceScale('stage').applyOptions({ visible: false, scaleMargins: { top: 0, bottom: 0 } });
    const volume = chart.addSeries(HistogramSeries, { ...quiet, priceScaleId: 'volume', priceFormat: { type: 'volume' } });
    chart.priceScale('volume').applyOptions({ visible: false, scaleMargins: { top: 0.8, bottom: 0 } });
    const candles = chart.addSeries(CandlestickSeries, {
      upColor: CHART_COLOURS.up,
      downColor: CHART_COLOURS.down,
      borderVisible: false,
      wickUpColor: CHART_COLOURS.up,
      wickDownColor: CHART_COLOURS.down,
    });
    const line = (color: string) => chart.addSeries(LineSeries, { ...quiet, color, lineWidth: 2, crosshairMarkerVisible: false });
    base.current = { chart, bands: bandSeries, volume, candles, ma10: line(CHART_COLOURS.ma10), ma30: line(CHART_COLOURS.ma30), candleMarkers: createSeriesMarkers(candles, []) };
    return () => {
      base.current = null;
      chart.remove();
    };
  }, []);

  // Bars, averages, bands and the snapshot's marker; then the range around the snapshot.
  useEffect(() => {
    const b = base.current;
    if (!b) return;
    // Days without a stage are whitespace, so the area breaks there instead of bridging the gap.
    const stageOf = new Map(bands.map((band) => [band.time, band.stage]));
    b.bands.setData(
      bars.map((bar) => {
        const stage = stageOf.get(bar.date);
        if (!stage) return { time: bar.date };
        const colour = STAGE_STYLE[stage].colour;
        return { time: bar.date, value: 1, topColor: colour, bottomColor: colour, lineColor: 'rgba(0, 0, 0, 0)' };
      }),
    );
    b.volume.setData(bars.map((bar) => ({ time: bar.date, value: bar.volume, color: bar.close >= bar.open ? 'rgba(27, 127, 59, 0.35)' : 'rgba(198, 40, 40, 0.35)' })));
    b.candles.setData(bars.map((bar) => ({ time: bar.date, open: bar.open, high: bar.high, low: bar.low, close: bar.close })));
    b.ma10.setData(ma10.map((p) => ({ time: p.time, value: p.value })));
    b.ma30.setData(ma30.map((p) => ({ time: p.time, value: p.value })));
    const marked = focus && bars.some((bar) => bar.date === focus.date);
    b.candleMarkers.setMarkers(marked ? [{ time: focus.date, position: 'belowBar', shape: 'arrowUp', color: CHART_COLOURS.snapshot, text: 'snapshot' }] : []);
    if (focus?.range) b.chart.timeScale().setVisibleRange({ from: focus.range.from, to: focus.range.to });
    else b.chart.timeScale().fitContent();
  }, [bars, ma10, ma30, bands, focus]);

  // Support and resistance on the candles' scale.
  useEffect(() => {
    const b = base.current;
    if (!b) return;
    const counts = { support: 0, resistance: 0 };
    const lines: IPriceLine[] = levels.map((level) => {
      counts[level.kind] += 1;
      return b.candles.createPriceLine({
        price: level.price,
        color: CHART_COLOURS[level.kind],
        lineWidth: 1,
        lineStyle: LineStyle.LargeDashed,
        axisLabelVisible: true,
        title: `${level.kind === 'support' ? 'S' : 'R'}${counts[level.kind]}`,
      });
    });
    return () => {
      // On unmount the chart may already be gone (its effect cleans up first), taking its lines with it.
      if (base.current === b) lines.forEach((l) => b.candles.removePriceLine(l));
    };
  }, [levels]);

  // One line series per shown pattern, with its key point labels and its levels.
  useEffect(() => {
    const b = base.current;
    if (!b) return;
    // On a phone-wide chart the pattern's name would cover the candles: its colour names it there.
    const narrow = (container.current?.clientWidth ?? Infinity) < 560;
    const added = patterns.map((pattern) => {
      const target = pattern.levels.find((l) => l.kind === 'target')?.price;
      const series = b.chart.addSeries(LineSeries, {
        ...quiet,
        color: pattern.colour,
        lineWidth: 2,
        pointMarkersVisible: true,
        crosshairMarkerVisible: false,
        // Keep the target in view while the pattern is on screen.
        autoscaleInfoProvider: (original: () => { priceRange: { minValue: number; maxValue: number } | null } | null) => {
          const res = original();
          if (!res?.priceRange || target === undefined) return res;
          return { ...res, priceRange: { minValue: Math.min(res.priceRange.minValue, target), maxValue: Math.max(res.priceRange.maxValue, target) } };
        },
      });
      series.setData(pattern.geometry.points.map((p) => ({ time: p.time, value: p.value })));
      createSeriesMarkers(
        series,
        // Each key point at its own price (not above the line's value): two on one date stay apart.
        pattern.geometry.markers.map((m) => ({ time: m.time, position: 'atPriceMiddle' as const, price: m.price, shape: 'circle' as const, size: 0.6, color: pattern.colour, text: pattern.labelled ? m.text : undefined })),
      );
      if (target !== undefined) {
        series.createPriceLine({ price: target, color: pattern.colour, lineWidth: 1, lineStyle: LEVEL_STYLE.target, axisLabelVisible: true, title: narrow ? 'target' : `${pattern.title} target` });
      }
      // Breakout and invalidation span the pattern only, up to the snapshot's date.
      const segments = focus ? patternLevelSegments(pattern.geometry, pattern.levels, focus.date) : [];
      const segmentSeries = segments.map((segment) => {
        const line = b.chart.addSeries(LineSeries, { ...quiet, color: pattern.colour, lineWidth: 1, lineStyle: LEVEL_STYLE[segment.kind], crosshairMarkerVisible: false });
        line.setData(segment.points.map((p) => ({ time: p.time, value: p.value })));
        return line;
      });
      return [series, ...segmentSeries];
    });
    return () => {
      if (base.current === b) added.flat().forEach((s) => b.chart.removeSeries(s));
    };
  }, [patterns, focus]);

  return <div ref={container} className="price-chart" data-testid="price-chart" role="img" aria-label={label} />;
}
