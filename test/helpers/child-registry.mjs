/**
 * The record of every process group the tests start, kept on disk so that it outlives the jest worker
 * that started it: a run directory per jest run (TEST_CHILDREN_DIR, made by test/setup/children-setup.mjs),
 * holding `owner.json` (the jest process of the run) and one `<pid>.json` per child still to be reaped.
 *
 * Children are started with `detached: true`, so each one leads its own process group (pgid = pid) and
 * everything it starts is in that group: killing the group (`kill(-pid, SIGKILL)`) leaves nothing.
 * test/helpers/child.ts writes and removes the records; test/setup/children-teardown.mjs reaps whatever
 * is left at the end of the run and fails it. A run whose jest process died before its teardown is
 * reaped by the next run's setup.
 *
 * On Linux the members of a group are read from /proc (zombies do not count, and a process that started
 * before the recorded child, i.e. a pid reused by someone else, is never touched); elsewhere a group
 * that still answers `kill(-pgid, 0)` counts as alive. Plain JavaScript: the jest setup files import it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const RUN_DIR_ENV = 'TEST_CHILDREN_DIR';
const RUN_PREFIX = 'tradegraph-test-children-';
const OWNER_FILE = 'owner.json';
const HAS_PROC = fs.existsSync('/proc/self/stat');

/** The fields of /proc/<pid>/stat after the command name, or null when there is no such process. */
function statFields(pid) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** When the process started (clock ticks since boot, as text), or null if it is gone or unknowable. */
export function processStartTime(pid) {
  const fields = statFields(pid);
  return fields && fields[0] !== 'Z' ? fields[19] : null;
}

/** Whether a process is alive (not a zombie) and, when a start time is given, still the same process. */
export function isAlive(pid, startTime) {
  if (HAS_PROC) {
    const now = processStartTime(pid);
    return now !== null && (startTime == null || now === startTime);
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Live processes of the group, leaving out any that started before `notBefore` (clock ticks). */
export function groupMembers(pgid, notBefore) {
  if (!HAS_PROC) {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  const members = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const fields = statFields(name);
    if (!fields || fields[0] === 'Z' || Number(fields[2]) !== pgid) continue;
    if (notBefore != null && Number(fields[19]) < Number(notBefore)) continue;
    members.push(Number(name));
  }
  return members;
}

/** SIGKILL to the whole group; false when the group is already gone. */
export function signalGroup(pgid, signal = 'SIGKILL') {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Kills the group of a recorded child if anything of it is alive, and waits (up to waitMs) until
 * nothing is. Returns the pids that were alive before the kill (empty: nothing was left).
 */
export async function killRecordedGroup(record, waitMs = 5000) {
  const alive = groupMembers(record.pid, record.startTime);
  if (alive.length === 0) return [];
  // The leader must still be the recorded process, or it is someone else's group by now.
  if (alive.includes(record.pid) && !isAlive(record.pid, record.startTime)) return [];
  signalGroup(record.pid);
  const deadline = Date.now() + waitMs;
  while (groupMembers(record.pid, record.startTime).length > 0 && Date.now() < deadline) await sleep(20);
  return alive;
}

/** A new run directory owned by this process (the jest parent), under `root` (default: the temp directory). */
export function createRun(root = os.tmpdir()) {
  const dir = fs.mkdtempSync(path.join(root, RUN_PREFIX));
  fs.writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify({ pid: process.pid, startTime: processStartTime(process.pid) }));
  return dir;
}

/** Records a started child: { pid, startTime, command, test }. */
export function register(dir, record) {
  fs.writeFileSync(path.join(dir, `${record.pid}.json`), `${JSON.stringify(record)}\n`);
}

export function unregister(dir, pid) {
  fs.rmSync(path.join(dir, `${pid}.json`), { force: true });
}

/** The children recorded in a run directory (records that cannot be read are skipped). */
export function recordedChildren(dir) {
  let names = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const records = [];
  for (const name of names) {
    if (!/^\d+\.json$/.test(name)) continue;
    try {
      records.push(JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')));
    } catch {
      // written half-way by a worker that was killed at that moment: its pid is the file name
      records.push({ pid: Number(name.slice(0, -5)), startTime: null, command: '(unknown)', test: '(unknown)' });
    }
  }
  return records;
}

/**
 * Kills every recorded child still alive (by group), removes the run directory, and returns the
 * survivors: [{ record, pids }], pids being the processes that were still alive.
 */
export async function reapRun(dir) {
  const survivors = [];
  for (const record of recordedChildren(dir)) {
    const pids = await killRecordedGroup(record);
    if (pids.length > 0) survivors.push({ record, pids });
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return survivors;
}

/** One line per survivor, naming its pids, command and test. */
export function describeSurvivors(survivors) {
  return survivors.map(({ record, pids }) => `  pid ${record.pid} (group members ${pids.join(', ')}): ${record.command}; started by ${record.test}`).join('\n');
}

/** Reaps the run directories (under `root`) of earlier runs whose jest process is gone. Returns their survivors. */
export async function reapAbandonedRuns(root = os.tmpdir()) {
  const survivors = [];
  for (const name of fs.readdirSync(root)) {
    if (!name.startsWith(RUN_PREFIX)) continue;
    const dir = path.join(root, name);
    let owner;
    try {
      owner = JSON.parse(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
    } catch {
      continue; // being created right now, or not ours to judge
    }
    if (isAlive(owner.pid, owner.startTime)) continue; // another run in progress
    survivors.push(...(await reapRun(dir)));
  }
  return survivors;
}
