/**
 * Reference statistics for tests, written straight from their definitions (two passes, no shortcuts),
 * to check the engines' one-pass and incremental versions against.
 */

/** Pearson correlation from the population means and deviations. */
export function pearson(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

/** Average ranks by counting (rank = 1 + #smaller + (#equal - 1) / 2), O(n^2). */
export function averageRanksByCounting(values: readonly number[]): number[] {
  return values.map((v) => {
    let smaller = 0;
    let equal = 0;
    for (const w of values) {
      if (w < v) smaller++;
      else if (w === v) equal++;
    }
    return 1 + smaller + (equal - 1) / 2;
  });
}

/** Spearman's rho as the Pearson correlation of counted average ranks (ties handled by averaging). */
export function spearmanReference(x: readonly number[], y: readonly number[]): number {
  return pearson(averageRanksByCounting(x), averageRanksByCounting(y));
}

/**
 * Newey-West standard error of the mean as the kernel-weighted double sum over all pairs of deviations,
 * Var(mean) = (1/T^2) sum_s sum_t k(|s - t|) d_s d_t with Bartlett weights k(l) = max(0, 1 - l/(L+1))
 * (the same quantity as the autocovariance form, summed the other way).
 */
export function neweyWestReference(x: readonly number[], lag: number): { mean: number; se: number; t: number } {
  const n = x.length;
  const mean = x.reduce((a, b) => a + b, 0) / n;
  let variance = 0;
  for (let s = 0; s < n; s++) {
    for (let t = 0; t < n; t++) {
      const weight = Math.max(0, 1 - Math.abs(s - t) / (lag + 1));
      variance += weight * (x[s] - mean) * (x[t] - mean);
    }
  }
  const se = Math.sqrt(variance / (n * n));
  return { mean, se, t: mean / se };
}

/** ROC AUC by brute force: the share of (positive, negative) pairs ordered correctly, ties counting 1/2. */
export function aucByPairs(scores: readonly number[], labels: readonly number[]): number {
  let pairs = 0;
  let correct = 0;
  for (let i = 0; i < scores.length; i++) {
    if (labels[i] === 0) continue;
    for (let j = 0; j < scores.length; j++) {
      if (labels[j] !== 0) continue;
      pairs++;
      if (scores[i] > scores[j]) correct++;
      else if (scores[i] === scores[j]) correct += 0.5;
    }
  }
  return correct / pairs;
}

/**
 * Isotonic (non-decreasing) least-squares fit of y in the given order by the min-max formula
 * f_i = max_{j <= i} min_{k >= i} mean(y_j .. y_k) (Barlow et al. 1972), O(n^3).
 */
export function isotonicByMinMax(y: readonly number[]): number[] {
  const n = y.length;
  return y.map((_, i) => {
    let best = -Infinity;
    for (let j = 0; j <= i; j++) {
      let lowest = Infinity;
      for (let k = i; k < n; k++) {
        let sum = 0;
        for (let m = j; m <= k; m++) sum += y[m];
        lowest = Math.min(lowest, sum / (k - j + 1));
      }
      best = Math.max(best, lowest);
    }
    return best;
  });
}
