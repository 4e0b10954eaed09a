/** The two number helpers every pattern file uses: a score clamped to 0..1, and a figure rounded to 4 decimals. */

export function clamp01(x: number): number {
  return x > 1 ? 1 : x > 0 ? x : 0;
}

export function round4(x: number): number {
  return Math.round(x * 10000) / 10000;
}
