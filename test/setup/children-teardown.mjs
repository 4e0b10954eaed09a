/**
 * jest globalTeardown: no child process may outlive the run. Every child a test started and that is
 * still recorded in this run's registry is killed now, by process group, and the run fails with one
 * line per leftover naming its pids, command and test (a test file's own afterAll normally ends its
 * children; a record still here means that failed or its jest worker died).
 */
import { describeSurvivors, reapRun, RUN_DIR_ENV } from '../helpers/child-registry.mjs';

export default async function childrenTeardown() {
  const dir = process.env[RUN_DIR_ENV];
  if (!dir) return;
  const survivors = await reapRun(dir);
  if (survivors.length === 0) return;
  const message = `LEFTOVER CHILD PROCESSES: ${survivors.length} process group(s) still running at the end of the test run (killed now):\n${describeSurvivors(survivors)}`;
  console.error(`\n${message}\n`);
  throw new Error(message);
}
