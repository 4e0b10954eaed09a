/**
 * A real small file system for disk-full tests: a tmpfs mounted under a temporary directory (needs
 * root, or CAP_SYS_ADMIN; the CI machine runs the suites as root), filled with a filler file and
 * freed again by deleting it.
 *
 * tmpfsUnavailable() says why mounting is not possible here (null when it is), so a suite can skip
 * with that reason in its title.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Tmpfs {
  /** The mount point. */
  dir: string;
  /** Changes the size of the file system (`mount -o remount,size=...`). */
  resize(sizeMb: number): void;
  /** Unmounts (lazily if something still holds it) and removes the mount point. */
  unmount(): void;
}

function run(command: string, args: string[]): string | null {
  const res = spawnSync(command, args, { encoding: 'utf8' });
  if (res.error) return res.error.message;
  return res.status === 0 ? null : (res.stderr || res.stdout || `${command} exited with ${res.status}`).trim();
}

/** Why a tmpfs cannot be mounted here, or null when it can (tried once, with a 1 MB one). */
export function tmpfsUnavailable(): string | null {
  if (process.platform !== 'linux') return `tmpfs mounts need Linux (this is ${process.platform})`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-tmpfs-probe-'));
  try {
    const failed = run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    if (failed) return `cannot mount a tmpfs (run the tests as root): ${failed}`;
    run('umount', [dir]);
    return null;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Mounts a tmpfs of sizeMb megabytes under a new temporary directory. */
export function mountTmpfs(sizeMb: number): Tmpfs {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-tmpfs-'));
  const failed = run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', dir]);
  if (failed) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`mount -t tmpfs failed: ${failed}`);
  }
  return {
    dir,
    resize(size) {
      const error = run('mount', ['-o', `remount,size=${size}m`, dir]);
      if (error) throw new Error(`remount failed: ${error}`);
    },
    unmount() {
      if (run('umount', [dir])) run('umount', ['-l', dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Bytes free on the file system holding dir. */
export function freeBytes(dir: string): number {
  const s = fs.statfsSync(dir);
  return s.bavail * s.bsize;
}

/**
 * Fills the file system holding dir with a filler file, leaving about leaveBytes free (0: nothing,
 * written until ENOSPC). Returns the filler's path; deleting it frees the space.
 */
export function fillDisk(dir: string, leaveBytes = 0): string {
  const filler = path.join(dir, `filler-${process.pid}-${Date.now()}`);
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(1 << 20, 0x5a);
  try {
    if (leaveBytes === 0) for (;;) fs.writeSync(fd, chunk); // ends with ENOSPC
    for (let room = freeBytes(dir) - leaveBytes; room > 0; room -= chunk.length) {
      fs.writeSync(fd, chunk, 0, Math.min(chunk.length, room));
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}
