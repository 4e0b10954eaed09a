/**
 * Server processes for bench:gateway's "as documented" part: each started in its own process group
 * (killed, with whatever it started, when the bench ends however it ends), its output kept, its CPU
 * time read from /proc (every thread of the process: the gateway thread, the subgraphs, the workers).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

export interface ServerProcess {
  readonly pid: number;
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects if the process exits first or after `ms`. */
  waitFor(pattern: RegExp, what: string, ms: number): Promise<RegExpMatchArray>;
  /** User + system CPU time of the process so far, in microseconds (NaN where /proc is missing). */
  cpuUs(): number;
  /** SIGTERM to the process (a clean stop), then SIGKILL to its group after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<number>();
process.on('exit', () => {
  for (const pid of live) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

export function startServerProcess(command: string, args: string[], env: NodeJS.ProcessEnv): ServerProcess {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${command} ${args.join(' ')}`);
  live.add(pid);
  let out = '';
  let exited = false;
  const changed = new Set<() => void>();
  const append = (d: Buffer) => {
    out += d.toString();
    changed.forEach((c) => c());
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      live.delete(pid);
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // the group is gone
      }
      changed.forEach((c) => c());
      resolve();
    }),
  );
  return {
    pid,
    output: () => out,
    waitFor(pattern, what, ms) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`${what}: nothing after ${ms} ms; output:\n${out}`)), ms);
        const check = () => {
          const m = pattern.exec(out);
          if (m) done(undefined, m);
          else if (exited) done(new Error(`exited before ${what}; output:\n${out}`));
        };
        function done(err?: Error, m?: RegExpMatchArray) {
          clearTimeout(timer);
          changed.delete(check);
          if (err) reject(err);
          else resolve(m as RegExpMatchArray);
        }
        changed.add(check);
        check();
      });
    },
    cpuUs() {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        // Fields after the command name (which may hold spaces) in parentheses: utime and stime are 14 and 15.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
      } catch {
        return NaN;
      }
    },
    async stop(graceMs = 15_000) {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }, graceMs);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** The load averages, as printed beside every figure. */
export const loadAverage = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
