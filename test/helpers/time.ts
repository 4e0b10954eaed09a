/**
 * Waits that scale with the machine. TIME_SCALE is the run's factor (TEST_TIME_SCALE, which
 * jest.config.js sets from the load average when it is not given; see time-scale.mjs), and every
 * deadline a test waits on is written as its idle-machine value passed through scaled(): readiness of
 * a child server, polling loops, explicit test and hook timeouts. Speed itself is never asserted in a
 * test: that belongs in bench/.
 */
import { timeScale } from './time-scale.mjs';

export const TIME_SCALE: number = timeScale();

/** `ms` (a deadline on an idle machine) multiplied by the run's time scale. */
export function scaled(ms: number): number {
  return Math.round(ms * TIME_SCALE);
}

/** Polls `check` every `pollMs` until it holds (true) or `ms`, scaled, has passed (false). */
export async function eventually(check: () => Promise<boolean>, ms: number, pollMs = 100): Promise<boolean> {
  const until = Date.now() + scaled(ms);
  while (!(await check())) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return true;
}
