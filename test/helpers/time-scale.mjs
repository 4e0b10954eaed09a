/**
 * How much slower than an idle machine the tests should expect this one to be: the factor every test
 * and hook timeout, readiness deadline and polling deadline of the suite is multiplied by.
 *
 * TEST_TIME_SCALE (a number >= 1) when set; otherwise 1 + (the busier of the 1- and 5-minute load
 * averages) / (the number of cores), rounded up to a tenth and capped at MAX_TIME_SCALE: on 2 idle cores
 * about 1, with two other test runs going (load 4) 3, at load 19 on 2 cores 10.5.
 *
 * jest.config.js computes it once per run and exports it as TEST_TIME_SCALE, so every worker (and
 * every child it starts) uses the same factor. Plain JavaScript: the jest configuration imports it.
 */
import os from 'node:os';

export const MAX_TIME_SCALE = 20;

/** The factor from the environment, or from the load of this machine when the environment has none. */
export function timeScale(env = process.env) {
  const given = env.TEST_TIME_SCALE;
  if (given !== undefined && given !== '') {
    const value = Number(given);
    if (!Number.isFinite(value) || value < 1) throw new Error(`TEST_TIME_SCALE must be a number >= 1, got ${JSON.stringify(given)}`);
    return value;
  }
  return scaleFromLoad(os.loadavg(), os.availableParallelism());
}

/** 1 + load / cores, rounded up to a tenth, between 1 and MAX_TIME_SCALE. */
export function scaleFromLoad(loadavg, cores) {
  const load = Math.max(loadavg[0] ?? 0, loadavg[1] ?? 0);
  const scale = Math.ceil((1 + load / Math.max(1, cores)) * 10) / 10;
  return Math.min(MAX_TIME_SCALE, Math.max(1, scale));
}
