/** Binary search over ascending strings (YYYY-MM-DD dates sort as strings) or numbers. */

/** How many of `sorted` are <= value (the index just after the last such one). */
export function upperBound<T extends string | number>(sorted: ArrayLike<T>, value: T): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The index of `value` in `sorted`, or -1 when absent. */
export function indexOfSorted(sorted: readonly string[], value: string): number {
  const i = upperBound(sorted, value) - 1;
  return i >= 0 && sorted[i] === value ? i : -1;
}
