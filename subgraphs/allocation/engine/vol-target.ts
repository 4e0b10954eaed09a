/**
 * The vol target (optimizer.ts header, step 4): the Ledoit-Wolf covariance of the book's names, and the
 * target weights brought within the target by raising the softmax temperature, then by scaling. Pure.
 */
import { type Book, bySymbol, f4, listSymbols, type Name, padded, vol, VOL_TOLERANCE } from './book-model.js';
import { targetWeights } from './water-filling.js';
import { alignedReturns, ledoitWolf, MIN_ALIGNED_RETURNS, VOL_WINDOW_DAYS } from './covariance.js';
import type { CloseSeries } from './types.js';

/** The vol target may raise the softmax temperature up to this multiple of the base. */
export const MAX_TEMPERATURE_RAISE_FACTOR = 10;

/** Bisection steps when searching the temperature that meets the vol target. */
export const TEMPERATURE_BISECTION_STEPS = 40;

export interface Measured {
  cov: Float64Array | null;
  shrinkage: number | null;
  /** Why vol is unmeasurable (null when measured or the book is empty). */
  reason: string | null;
}

/** Ledoit-Wolf covariance of the names' aligned daily returns, or why it cannot be measured. */
function measure(names: readonly Name[], closes: ReadonlyMap<string, CloseSeries>): Measured {
  if (names.length === 0) return { cov: null, shrinkage: null, reason: null };
  const missing: string[] = [];
  const series: CloseSeries[] = [];
  for (const n of names) {
    const s = closes.get(n.symbol);
    if (s === undefined) missing.push(n.symbol);
    else series.push(s);
  }
  if (missing.length > 0) {
    return { cov: null, shrinkage: null, reason: `no closes for ${listSymbols(missing.slice().sort(bySymbol))}` };
  }
  const { returns } = alignedReturns(series, VOL_WINDOW_DAYS);
  if (returns.length < MIN_ALIGNED_RETURNS) {
    return {
      cov: null,
      shrinkage: null,
      reason: `only ${returns.length} aligned daily returns, at least ${MIN_ALIGNED_RETURNS} needed`,
    };
  }
  const { covariance, shrinkage } = ledoitWolf(returns);
  return { cov: covariance, shrinkage, reason: null };
}

/** The covariance of the book's names when a vol target is set (closes are only read then). */
export function measureFor(names: readonly Name[], closes: ReadonlyMap<string, CloseSeries>, volTarget: number | null): Measured {
  return volTarget !== null ? measure(names, closes) : { cov: null, shrinkage: null, reason: null };
}

/**
 * Steps 1-4: the ranked names' target weights within the caps and the total risk, then the vol target:
 * a softmax strategy first raises its temperature (bisection), then every weight is scaled down.
 */
export function targetWithinVol(book: Book, measured: Measured, baseTemperature: number | null): { w: Float64Array; temperature: number; notes: string[] } {
  const k = book.k;
  const volTarget = book.volTarget;
  let temperature = baseTemperature ?? 1;
  let target = targetWeights(book, temperature);
  const volNotes: string[] = [];
  if (volTarget !== null && k > 0) {
    if (measured.cov === null) {
      if (measured.reason !== null) volNotes.push(`vol_target_annual: volatility unmeasurable (${measured.reason}); target not applied`);
    } else {
      const sigma0 = vol(book, padded(book, target.w));
      let sigma = sigma0;
      if (sigma0 > volTarget * (1 + VOL_TOLERANCE)) {
        if (baseTemperature !== null) {
          const tMax = baseTemperature * MAX_TEMPERATURE_RAISE_FACTOR;
          const atMax = targetWeights(book, tMax);
          const sigmaMax = vol(book, padded(book, atMax.w));
          if (sigmaMax <= volTarget * (1 + VOL_TOLERANCE)) {
            let lo = baseTemperature;
            let hi = tMax;
            let best = atMax;
            for (let step = 0; step < TEMPERATURE_BISECTION_STEPS; step++) {
              const mid = (lo + hi) / 2;
              const tw = targetWeights(book, mid);
              if (vol(book, padded(book, tw.w)) <= volTarget * (1 + VOL_TOLERANCE)) {
                hi = mid;
                best = tw;
              } else lo = mid;
            }
            temperature = hi;
            target = best;
            sigma = vol(book, padded(book, target.w));
            volNotes.push(
              `vol_target_annual: softmax temperature raised from ${f4(baseTemperature)} to ${f4(temperature)} ` +
                `(vol ${f4(sigma0)} -> ${f4(sigma)}, target ${f4(volTarget)})`,
            );
          } else if (sigmaMax < sigma0) {
            temperature = tMax;
            target = atMax;
            sigma = sigmaMax;
            volNotes.push(
              `vol_target_annual: softmax temperature raised from ${f4(baseTemperature)} to the maximum ${f4(tMax)} ` +
                `(vol ${f4(sigma0)} -> ${f4(sigma)}, still above target ${f4(volTarget)})`,
            );
          } else {
            volNotes.push(
              `vol_target_annual: raising the softmax temperature to ${f4(tMax)} does not lower vol ` +
                `(${f4(sigmaMax)} vs ${f4(sigma0)}); temperature kept at ${f4(baseTemperature)}`,
            );
          }
        }
        if (sigma > volTarget * (1 + VOL_TOLERANCE)) {
          const scale = sigma > 0 ? volTarget / sigma : 0;
          for (let i = 0; i < k; i++) target.w[i] *= scale;
          volNotes.push(
            `vol_target_annual: gross exposure scaled by ${f4(scale)} (vol ${f4(sigma)} -> ${f4(volTarget)}, target ${f4(volTarget)})`,
          );
        }
      }
    }
  }
  return { w: target.w, temperature, notes: [...target.notes, ...volNotes] };
}
