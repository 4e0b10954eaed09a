/**
 * The setup the CLI suites share: a scratch on-disk PGlite store (its own DATA_DIR, removed after the
 * suite) that a test opens briefly between CLI calls, the console output of each test captured line by
 * line, and the synthetic market generated into the store without its output.
 *
 * scratchStore() and captureCliOutput() register jest hooks, so call them at a test file's top level.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, jest } from '@jest/globals';
import { run } from '../../cli/tradegraph.js';
import type { Config } from '../../subgraphs/platform/config.js';
import { openPglite, type Db } from '../../subgraphs/platform/db.js';
import { testConfig } from './config.js';

export interface ScratchStore {
  dataDir: string;
  /** The test configuration with DATA_DIR set to dataDir. */
  config: Config;
  /** Opens the store, runs fn on it and closes it again (the CLI opens it itself, so it is not held open). */
  inStore<T>(fn: (db: Db) => Promise<T>): Promise<T>;
}

/** A new on-disk store under the temporary directory, named by prefix, removed once the suite is done. */
export function scratchStore(prefix: string): ScratchStore {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const config = testConfig({ DATA_DIR: dataDir });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  return {
    dataDir,
    config,
    async inStore<T>(fn: (db: Db) => Promise<T>): Promise<T> {
      const db = await openPglite(config.dataDir);
      try {
        return await fn(db);
      } finally {
        await db.close();
      }
    },
  };
}

/** What the current test printed: console.log lines, console.error lines and, when captured, raw stdout writes. */
export interface CliOutput {
  out: string[];
  err: string[];
  stdout: string[];
}

/**
 * Captures each test's console output into fresh arrays (a test may replace them to start over) and
 * silences the progress bars on stderr; with { stdout: true } also what is written to process.stdout.
 */
export function captureCliOutput(options: { stdout?: boolean } = {}): CliOutput {
  const output: CliOutput = { out: [], err: [], stdout: [] };
  beforeEach(() => {
    output.out = [];
    output.err = [];
    output.stdout = [];
    jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void output.out.push(a.join(' ')));
    jest.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void output.err.push(a.join(' ')));
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true); // progress bars
    if (options.stdout) {
      jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        output.stdout.push(String(chunk));
        return true;
      });
    }
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });
  return output;
}

/** Runs `tradegraph generate <args>` into the store with its output and progress bars silenced. */
export async function generateQuietly(config: Config, args: string[]): Promise<void> {
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await run(['generate', ...args], config);
  } finally {
    jest.restoreAllMocks();
  }
}

/** Every date on which some equity has a bar, ascending: the store's trading calendar. */
export async function equityCalendar(db: Db): Promise<string[]> {
  const rows = await db.query<{ date: string }>("SELECT DISTINCT b.date::text AS date FROM bars b JOIN securities s USING (symbol) WHERE s.asset_type = 'EQUITY' ORDER BY 1");
  return rows.map((r) => r.date);
}
