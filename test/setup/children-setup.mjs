/**
 * jest globalSetup: reaps the child processes of earlier runs that died before their teardown, then
 * opens this run's registry of children (TEST_CHILDREN_DIR, see test/helpers/child-registry.mjs); the
 * workers inherit it with the environment. Also says which time scale the run uses.
 */
import { createRun, describeSurvivors, reapAbandonedRuns, RUN_DIR_ENV } from '../helpers/child-registry.mjs';

export default async function childrenSetup() {
  const abandoned = await reapAbandonedRuns();
  if (abandoned.length > 0) {
    console.warn(`\nKilled ${abandoned.length} process group(s) left by an earlier test run that ended before its teardown:\n${describeSurvivors(abandoned)}`);
  }
  process.env[RUN_DIR_ENV] = createRun();
  console.log(`\ntest time scale ${process.env.TEST_TIME_SCALE} (timeouts and deadlines x that; TEST_TIME_SCALE overrides)`);
}
