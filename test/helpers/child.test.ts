/**
 * The child-process helper and the run's registry of children (child.ts, child-registry.mjs,
 * test/setup/children-*.mjs) with real processes: a child ended by the teardown leaves no process of
 * its group, a child that exits takes what it left in its group along, a child whose jest worker died
 * is killed by the run's teardown, which fails naming it, and a run whose jest process died is reaped
 * by the next run's setup. Plus the time scale every deadline is multiplied by.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { jest } from '@jest/globals';
import childrenTeardown from '../setup/children-teardown.mjs';
import { killChildren, spawnChild } from './child.js';
import { createRun, groupMembers, isAlive, processStartTime, reapAbandonedRuns, reapRun, register, RUN_DIR_ENV } from './child-registry.mjs';
import { scaleFromLoad, timeScale } from './time-scale.mjs';

const REGISTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'child-registry.mjs');

/** A node process that starts a grandchild in its own group (not detached), prints both pids, and idles. */
const PARENT_OF_ONE = `
  const { spawn } = require('node:child_process');
  const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  console.log('pids', process.pid, grandchild.pid);
  setInterval(() => {}, 1000);
`;

const pidsIn = (out: string): [number, number] => {
  const m = /pids (\d+) (\d+)/.exec(out);
  if (!m) throw new Error(`no pids in ${out}`);
  return [Number(m[1]), Number(m[2])];
};

/**
 * A stand-in for a jest process (a worker, or the parent of a run) that records a detached sleeper in
 * `dir` the way child.ts does, prints "child <pid>", and idles until it is killed.
 */
function fakeJestProcess(script: string) {
  return spawnChild(process.execPath, ['--input-type=module', '-e', script]);
}
const recordSleeper = (dir: string) => `
  import { spawn } from 'node:child_process';
  import { processStartTime, register } from ${JSON.stringify(REGISTRY)};
  const sleeper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
  register(${JSON.stringify(dir)}, { pid: sleeper.pid, startTime: processStartTime(sleeper.pid), command: 'the sleeper', test: 'a test whose worker died' });
  console.log('child', sleeper.pid);
  setInterval(() => {}, 1000);
`;
const childPid = (out: string) => Number(/child (\d+)/.exec(out)?.[1]);

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-children-test-'));
afterAll(async () => {
  // Whatever a failed assertion left in the scratch runs goes too.
  for (const name of fs.readdirSync(scratch)) await reapRun(path.join(scratch, name));
  fs.rmSync(scratch, { recursive: true, force: true });
});

it('a child ended by the teardown (killChildren, the afterAll of every file) leaves no process of its group', async () => {
  const child = spawnChild(process.execPath, ['-e', PARENT_OF_ONE]);
  const [pid, grandchild] = pidsIn(await child.waitFor(/pids \d+ \d+/, 'the pids'));
  expect(pid).toBe(child.pid);
  expect(isAlive(pid)).toBe(true);
  expect(isAlive(grandchild)).toBe(true);
  expect(groupMembers(pid).sort()).toEqual([pid, grandchild].sort());
  const record = path.join(process.env[RUN_DIR_ENV] as string, `${pid}.json`);
  expect(JSON.parse(fs.readFileSync(record, 'utf8'))).toMatchObject({ pid, command: expect.stringContaining('node -e'), test: expect.stringContaining('test/helpers/child.test.ts › a child ended by the teardown') });

  await killChildren();

  expect(child.exited()).toBe(true);
  expect(child.exitSignal()).toBe('SIGKILL');
  expect(isAlive(pid)).toBe(false);
  expect(isAlive(grandchild)).toBe(false);
  expect(groupMembers(pid)).toEqual([]);
  expect(fs.existsSync(record)).toBe(false);
});

it('a child that exits on its own is unrecorded, and what it left running in its group is killed', async () => {
  const script = `
    const { spawn } = require('node:child_process');
    const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    grandchild.unref();
    console.log('pids', process.pid, grandchild.pid);
  `;
  const child = spawnChild(process.execPath, ['-e', script]);
  expect(await child.waitForExit(30_000)).toBe(0);
  const [pid, grandchild] = pidsIn(child.output());
  expect(isAlive(grandchild)).toBe(false);
  expect(groupMembers(pid)).toEqual([]);
  expect(fs.existsSync(path.join(process.env[RUN_DIR_ENV] as string, `${pid}.json`))).toBe(false);
});

it('a child whose jest worker was killed is killed by the run teardown, which fails naming its pid', async () => {
  const run = createRun(scratch);
  const worker = fakeJestProcess(recordSleeper(run));
  const sleeper = childPid(await worker.waitFor(/child \d+/, 'the sleeper'));
  await worker.kill(); // SIGKILL: the worker's own teardown never runs
  expect(isAlive(sleeper)).toBe(true); // its own group: the worker's death did not take it along

  const saved = process.env[RUN_DIR_ENV];
  process.env[RUN_DIR_ENV] = run;
  const printed = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  const loud = `LEFTOVER CHILD PROCESSES: 1 process group(s) still running at the end of the test run (killed now):\n  pid ${sleeper} (group members ${sleeper}): the sleeper; started by a test whose worker died`;
  try {
    await expect(childrenTeardown()).rejects.toThrow(loud);
    expect(printed).toHaveBeenCalledWith(`\n${loud}\n`);
  } finally {
    printed.mockRestore();
    process.env[RUN_DIR_ENV] = saved;
  }
  expect(isAlive(sleeper)).toBe(false);
  expect(fs.existsSync(run)).toBe(false);
});

it('the teardown of a run whose children are all gone passes', async () => {
  const run = createRun(scratch);
  const ended = spawn(process.execPath, ['-e', ''], { detached: true, stdio: 'ignore' });
  register(run, { pid: ended.pid as number, startTime: processStartTime(ended.pid as number), command: 'ended', test: 'x' });
  await new Promise((resolve) => ended.on('exit', resolve));
  const saved = process.env[RUN_DIR_ENV];
  process.env[RUN_DIR_ENV] = run;
  try {
    await expect(childrenTeardown()).resolves.toBeUndefined();
  } finally {
    process.env[RUN_DIR_ENV] = saved;
  }
  expect(fs.existsSync(run)).toBe(false);
});

it('the next run reaps the children of a run whose jest process died, and leaves runs in progress alone', async () => {
  const root = fs.mkdtempSync(path.join(scratch, 'root-'));
  const dead = fakeJestProcess(`
    import { createRun } from ${JSON.stringify(REGISTRY)};
    const run = createRun(${JSON.stringify(root)});
    ${recordSleeper('__RUN__').replace(JSON.stringify('__RUN__'), 'run')}
  `);
  const sleeper = childPid(await dead.waitFor(/child \d+/, 'the sleeper'));
  await dead.kill();
  const inProgress = createRun(root); // owned by this (living) process

  const reaped = await reapAbandonedRuns(root);
  expect(reaped.map((s) => s.pids)).toEqual([[sleeper]]);
  expect(isAlive(sleeper)).toBe(false);
  expect(fs.readdirSync(root)).toEqual([path.basename(inProgress)]);
});

describe('time scale', () => {
  it('is 1 on an idle machine and grows with the load per core, up to 20', () => {
    expect(scaleFromLoad([0, 0, 0], 2)).toBe(1);
    expect(scaleFromLoad([4, 2, 1], 2)).toBe(3);
    expect(scaleFromLoad([9, 19, 12], 2)).toBe(10.5);
    expect(scaleFromLoad([400, 400, 400], 2)).toBe(20);
  });

  it('TEST_TIME_SCALE wins, and must be a number of at least 1', () => {
    expect(timeScale({ TEST_TIME_SCALE: '2.5' })).toBe(2.5);
    expect(() => timeScale({ TEST_TIME_SCALE: '0.5' })).toThrow(/TEST_TIME_SCALE must be a number >= 1/);
    expect(() => timeScale({ TEST_TIME_SCALE: 'fast' })).toThrow(/TEST_TIME_SCALE/);
  });
});
