/**
 * How the security view writes a measured figure of the evidence: its value beside its 95% interval,
 * with the console's percentage rule (../format). A figure the answer did not carry reads "not measured".
 */
import { formatPercent, formatSignedPercent, NOT_MEASURED } from '../format.js';

/** A measured figure with its interval, as the evidence answers it. */
export interface Estimate {
  value: number | null;
  ci: readonly number[] | null;
}

/**
 * A fraction with its 95% interval, e.g. "54.2% (95% CI 51.0% to 57.3%)"; `signed` writes the signs of
 * an excess return ("+1.2% (95% CI -0.4% to +3.0%)"). "not measured" when the answer carried no value;
 * the interval is written only when it came with the value.
 */
export function formatEstimate(estimate: Estimate | null | undefined, signed = false): string {
  if (!estimate || estimate.value === null || !Number.isFinite(estimate.value)) return NOT_MEASURED;
  const write = signed ? formatSignedPercent : formatPercent;
  const value = write(estimate.value);
  const ci = estimate.ci;
  if (!ci || ci.length !== 2 || !ci.every((x) => Number.isFinite(x))) return value;
  return `${value} (95% CI ${write(ci[0])} to ${write(ci[1])})`;
}
