/**
 * Synthetic daily price paths for pattern and level tests.
 *
 * `pathFromWaypoints` draws a piecewise-linear close through waypoints (bar index, price), adds a small
 * deterministic noise, and derives consistent OHLC bars: open = previous close, high = max(open, close)
 * plus a wick, low = min(open, close) minus a wick, so low <= open, close <= high always. Each segment's
 * bars get the volume of the waypoint that ends the segment (the first waypoint's volume for bar 0). ATR is
 * the product's ATR(14) (indicators.ts). Dates are weekdays from 2023-01-02.
 */
import { atr } from '../../../subgraphs/analysis/engine/indicators.js';
import { createPrng } from '../../../subgraphs/analysis/engine/prng.js';
import type { PriceInput } from '../../../subgraphs/analysis/engine/pivots.js';
import { weekdays } from '../../helpers/dates.js';

export interface Waypoint {
  /** Bar index (the first waypoint must be at bar 0; bars strictly increasing). */
  bar: number;
  price: number;
  /** Volume of the bars of the segment that ends at this waypoint (default: `baseVolume`). */
  volume?: number;
}

export interface PathOptions {
  /** Close noise, as a fraction of the price (uniform in +-noise; default 0.001). */
  noise?: number;
  /** Wick size, as a fraction of the price: each wick is wick x (0.5 .. 1) (default 0.004). */
  wick?: number;
  /** Default volume (default 1,000,000). */
  baseVolume?: number;
  /** PRNG seed of the noise (default 1). */
  seed?: number;
}

/** OHLC bars around the given closes (open = previous close, wicks from the PRNG), ATR(14) attached. */
export function barsFromCloses(closes: Float64Array, volumes: Float64Array, wick: number, seed: number): PriceInput {
  const n = closes.length;
  const prng = createPrng(seed, 2);
  const open = new Float64Array(n);
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const c = closes[i];
    const o = i === 0 ? c : closes[i - 1];
    open[i] = o;
    high[i] = Math.max(o, c) * (1 + wick * (0.5 + 0.5 * prng.next()));
    low[i] = Math.min(o, c) * (1 - wick * (0.5 + 0.5 * prng.next()));
  }
  return { dates: weekdays(n), open, high, low, close: closes, volume: volumes, atr: atr(high, low, closes, 14) };
}

/** A path through `waypoints` (see the file comment); its length is the last waypoint's bar + 1. */
export function pathFromWaypoints(waypoints: readonly Waypoint[], options: PathOptions = {}): PriceInput {
  const noise = options.noise ?? 0.001;
  const wick = options.wick ?? 0.004;
  const baseVolume = options.baseVolume ?? 1_000_000;
  if (waypoints.length < 2 || waypoints[0].bar !== 0) throw new Error('need >= 2 waypoints, the first at bar 0');
  const n = waypoints[waypoints.length - 1].bar + 1;
  const closes = new Float64Array(n);
  const volumes = new Float64Array(n);
  const prng = createPrng(options.seed ?? 1, 1);
  closes[0] = waypoints[0].price;
  volumes[0] = waypoints[0].volume ?? baseVolume;
  for (let w = 1; w < waypoints.length; w++) {
    const from = waypoints[w - 1];
    const to = waypoints[w];
    if (to.bar <= from.bar) throw new Error('waypoint bars must increase');
    for (let i = from.bar + 1; i <= to.bar; i++) {
      const t = (i - from.bar) / (to.bar - from.bar);
      closes[i] = from.price + (to.price - from.price) * t;
      volumes[i] = to.volume ?? baseVolume;
    }
  }
  for (let i = 0; i < n; i++) closes[i] *= 1 + noise * (2 * prng.next() - 1);
  return barsFromCloses(closes, volumes, wick, options.seed ?? 1);
}

/** A geometric random walk (daily sigma `sigma`, default 1.5%) from 100 with volumes around 1,000,000. */
export function randomWalk(n: number, seed: number, sigma = 0.015): PriceInput {
  const prng = createPrng(seed, 3);
  const closes = new Float64Array(n);
  const volumes = new Float64Array(n);
  let price = 100;
  for (let i = 0; i < n; i++) {
    const r = sigma * prng.normal();
    price *= Math.exp(r);
    closes[i] = price;
    volumes[i] = Math.round(1_000_000 * Math.exp(0.3 * prng.normal() + 10 * Math.abs(r)));
  }
  return barsFromCloses(closes, volumes, 0.006, seed);
}

/** The first `count` bars of `input` (copies; ATR values kept as computed on the full path). */
export function truncate(input: PriceInput, count: number): PriceInput {
  return {
    dates: input.dates.slice(0, count),
    open: input.open.slice(0, count),
    high: input.high.slice(0, count),
    low: input.low.slice(0, count),
    close: input.close.slice(0, count),
    volume: input.volume.slice(0, count),
    atr: input.atr.slice(0, count),
  };
}
