/**
 * Child processes in tests (`npm start`'s dist/cli/start.js above all), started so that none outlives
 * its test file, whatever happens to the test:
 *
 * - spawnChild() starts the process with `detached: true`: it leads its own process group, and so does
 *   everything it starts, so one `kill(-pid, 'SIGKILL')` ends all of it;
 * - it records the child in the run directory (child-registry.mjs: one `<pid>.json` per child, on disk,
 *   so the record survives a jest worker that is killed) and removes the record once the process and its
 *   output are done;
 * - waitFor() / waitForExit() / withDeadline() wait with deadlines given for an idle machine and
 *   multiplied by the run's time scale (time.ts), and a failed wait shows what the child printed;
 * - importing this module adds an afterAll hook to the test file that kills the group of every child
 *   still running (jest runs afterAll hooks after a failed or timed-out test or hook too), and the run's
 *   globalTeardown (test/setup/children-teardown.mjs) kills whatever is still recorded then and fails
 *   the run, naming the leftover pids.
 *
 * A test stops a child the way a user would (child.signal('SIGINT') is Ctrl-C) and checks its exit;
 * child.kill() is the teardown's SIGKILL to the whole group. The automatic afterAll belongs to the file's
 * top level and runs after the afterAll hooks of its describe blocks: a describe-level afterAll that
 * frees something a child holds (a database to drop, a file system to unmount) calls killChildren() first.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { createRun, killRecordedGroup, processStartTime, register, RUN_DIR_ENV, signalGroup, unregister, type ChildRecord } from './child-registry.mjs';
import { scaled } from './time.js';

/** `npm start`'s entry point, built by `npm run build` (npm test builds first). */
export const START_JS = path.join(PROJECT_ROOT, 'dist', 'cli', 'start.js');

/** How long start.js may take to print its ready line on an idle machine (before scaling). */
export const START_READY_MS = 60_000;

export interface ChildOptions {
  env?: NodeJS.ProcessEnv;
  /** Default: the project root. */
  cwd?: string;
}

export interface Child {
  readonly pid: number;
  /** The command line, for messages. */
  readonly command: string;
  /** Resolves once the process has exited and its output is complete: its exit code, null when a signal ended it. */
  readonly exit: Promise<number | null>;
  /** stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  stdout(): string;
  stderr(): string;
  exited(): boolean;
  /** The signal that ended it, if one did. */
  exitSignal(): NodeJS.Signals | null;
  /**
   * Resolves with the output so far once it contains `pattern`; rejects, with the output, when the child
   * exits first or after `ms` (an idle-machine deadline, scaled).
   */
  waitFor(pattern: string | RegExp, what?: string, ms?: number): Promise<string>;
  /** The exit code, or a rejection with the output when the child is still running after `ms` (scaled). */
  waitForExit(ms?: number): Promise<number | null>;
  /** Sends a signal to the child process itself (SIGINT: what Ctrl-C does to `npm start`). */
  signal(sig: NodeJS.Signals): void;
  /** SIGKILL to the child's whole process group; resolves once it has exited and is unrecorded. */
  kill(): Promise<void>;
}

const live = new Set<Child>();
let ownRunDir: string | undefined;

/** The run directory of this jest run (or, outside one, of this process). */
function runDir(): string {
  const fromRun = process.env[RUN_DIR_ENV];
  if (fromRun) return fromRun;
  ownRunDir ??= createRun();
  return ownRunDir;
}

/** The test file and test running now, for the record (empty outside a test). */
function currentTest(): string {
  const state = typeof expect === 'function' ? expect.getState() : undefined;
  const file = state?.testPath ? path.relative(PROJECT_ROOT, state.testPath) : '(no test file)';
  return state?.currentTestName ? `${file} › ${state.currentTestName}` : file;
}

/** Resolves with the promise, or rejects after `ms` (scaled) saying which step hung and what the child printed. */
export function withDeadline<T>(promise: Promise<T>, ms: number, step: string, output: () => string = () => ''): Promise<T> {
  const limit = scaled(ms);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step}: nothing after ${limit} ms; child output:\n${output()}`)), limit);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Starts `command args` in its own process group and records it until it is gone. */
export function spawnChild(command: string, args: string[], options: ChildOptions = {}): Child {
  const dir = runDir();
  const proc: ChildProcessByStdio<null, Readable, Readable> = spawn(command, args, {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = proc.pid;
  const commandLine = [command === process.execPath ? 'node' : command, ...args].map((a) => (a.startsWith(`${PROJECT_ROOT}${path.sep}`) ? path.relative(PROJECT_ROOT, a) : a)).join(' ');
  if (pid === undefined) throw new Error(`could not start ${commandLine}`);
  const record: ChildRecord = { pid, startTime: processStartTime(pid), command: commandLine, test: currentTest() };
  register(dir, record);

  let out = '';
  let stdout = '';
  let stderr = '';
  let done = false;
  let signalled: NodeJS.Signals | null = null;
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((l) => l());
  proc.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    out += d.toString();
    changed();
  });
  proc.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    out += d.toString();
    changed();
  });
  // Whatever the child left running in its group goes with it (also when it holds the child's pipes).
  proc.on('exit', () => void signalGroup(pid));
  const exit = new Promise<number | null>((resolve) => {
    proc.on('close', (code, signal) => {
      void killRecordedGroup(record, scaled(5_000)).then(() => {
        done = true;
        signalled = signal;
        unregister(dir, pid);
        live.delete(handle);
        resolve(code);
        changed();
      });
    });
  });

  const handle: Child = {
    pid,
    command: commandLine,
    exit,
    output: () => out,
    stdout: () => stdout,
    stderr: () => stderr,
    exited: () => done,
    exitSignal: () => signalled,
    waitFor(pattern, what = `output matching ${String(pattern)}`, ms = START_READY_MS) {
      const matches = () => (typeof pattern === 'string' ? out.includes(pattern) : pattern.test(out));
      const waiting = new Promise<string>((resolve, reject) => {
        const check = () => {
          if (matches()) {
            listeners.delete(check);
            resolve(out);
          } else if (done) {
            listeners.delete(check);
            reject(new Error(`${commandLine} exited (${signalled ?? `code ${String(proc.exitCode)}`}) before ${what}; output:\n${out}`));
          }
        };
        listeners.add(check);
        check();
      });
      return withDeadline(waiting, ms, `${commandLine}: waiting for ${what}`, () => out);
    },
    waitForExit(ms = START_READY_MS) {
      return withDeadline(exit, ms, `${commandLine}: waiting for the exit`, () => out);
    },
    signal(sig) {
      if (!done) proc.kill(sig);
    },
    async kill() {
      if (!done) await killRecordedGroup(record, scaled(5_000));
      await withDeadline(exit, 10_000, `${commandLine}: exit after SIGKILL`, () => out);
    },
  };
  live.add(handle);
  return handle;
}

/** Kills the group of every child of this test file that is still running. */
export async function killChildren(): Promise<void> {
  await Promise.all([...live].map((c) => c.kill()));
}

// Every test file that starts children ends them, even when a test or hook failed or timed out.
if (typeof afterAll === 'function') afterAll(killChildren);

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  output: string;
}

/** Runs a command to its exit (deadline `ms`, scaled); the process group is killed if the deadline passes. */
export async function runToExit(command: string, args: string[], options: ChildOptions & { ms?: number } = {}): Promise<Finished> {
  const child = spawnChild(command, args, options);
  try {
    const code = await child.waitForExit(options.ms ?? START_READY_MS);
    return { code, stdout: child.stdout(), stderr: child.stderr(), output: child.output() };
  } finally {
    await child.kill();
  }
}

/**
 * Runs an ES module's source (which imports the compiled code from dist/) in a node child process, from a
 * scratch directory removed afterwards: how a test reaches the worker threads that only compiled code
 * starts.
 */
export async function runModuleScript(source: string, options: ChildOptions & { ms?: number } = {}): Promise<Finished> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'module-script-'));
  const script = path.join(dir, 'run.mjs');
  fs.writeFileSync(script, source);
  return runToExit(process.execPath, [script], options).finally(() => fs.rmSync(dir, { recursive: true, force: true }));
}

/**
 * The environment of an `npm start` child: this process's environment without the surrounding run's
 * store settings, development mode, every origin on port 0, the small demo market, warnings only.
 */
export function originEnv(overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _db, TEST_DATABASE_URL: _testDb, ...inherited } = process.env;
  return {
    ...inherited,
    APP_ENV: 'development',
    ANALYSIS_PORT: '0',
    ALLOCATION_PORT: '0',
    SEARCH_PORT: '0',
    GATEWAY_PORT: '0',
    DEMO_SYMBOL_COUNT: '22',
    DEMO_YEARS: '1',
    // The sampled history behind evidence costs seconds per start; the start test turns it on.
    ANALYZE_HISTORY_EVERY: '0',
    LOG_LEVEL: 'warn',
    ...overrides,
  };
}

export interface Origins extends Child {
  /** The URL of each origin started, by name (analysis, allocation, search, gateway). */
  urls: Record<string, string>;
}

/** Starts dist/cli/start.js with `args` (origin names) and waits for its ready line ("Press Ctrl-C to stop."). */
export async function startOrigins(args: string[], env: NodeJS.ProcessEnv, readyMs = START_READY_MS): Promise<Origins> {
  const child = spawnOrigins(args, env);
  const out = await child.waitFor('Press Ctrl-C to stop.', 'the ready line', readyMs);
  const urls = Object.fromEntries([...out.matchAll(/^ {2}(\w+)\s+(http:\/\/\S+)\s+\(GraphQL/gm)].map((m) => [m[1], m[2]]));
  return Object.assign(child, { urls });
}

/** dist/cli/start.js with `args`, started and not waited for. */
export function spawnOrigins(args: string[], env: NodeJS.ProcessEnv): Child {
  if (!fs.existsSync(START_JS)) throw new Error(`${START_JS} is missing: run npm run build (npm test does)`);
  return spawnChild(process.execPath, [START_JS, ...args], { env });
}
