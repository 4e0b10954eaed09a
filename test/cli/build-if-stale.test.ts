/**
 * scripts/build-if-stale.mjs, which `npm start`, `npm run tradegraph` and the schema and bench scripts
 * run before starting: on a small TypeScript project of its own (real tsc, real files), it compiles a
 * tree never built, leaves an up-to-date tree alone (tsc not run: a marker written into dist/ stays),
 * and compiles again after a source, tsconfig.json or package-lock.json changed, a source was removed,
 * or a compiled file went missing; a failed compile writes no stamp; stdout stays empty throughout.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { runToExit } from '../helpers/child.js';

const SCRIPT = path.join(PROJECT_ROOT, 'scripts', 'build-if-stale.mjs');
const MARKER = '// written into dist/ by the test: tsc did not run\n';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-build-stale-'));
const at = (...parts: string[]) => path.join(root, ...parts);
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(at(file)), { recursive: true });
  fs.writeFileSync(at(file), text);
};
/** Sets a file's mtime to now (the build before it began earlier), as an editor's save does. */
const touch = (file: string) => {
  const now = new Date();
  fs.utimesSync(at(file), now, now);
};
const stampTime = () => fs.statSync(at('dist', '.build-stamp')).mtimeMs;

/** Runs the script on the project; expects nothing on stdout. */
async function run(...args: string[]): Promise<{ code: number | null; stderr: string }> {
  const { code, stdout, stderr } = await runToExit(process.execPath, [SCRIPT, '--root', root, ...args]);
  expect(stdout).toBe('');
  return { code, stderr };
}

/** Builds if stale, then says whether tsc ran: it rewrites dist/src/a.js, so the marker is gone. */
async function buildAndSeeIfCompiled(): Promise<{ code: number | null; stderr: string; compiled: boolean }> {
  if (fs.existsSync(at('dist', 'src', 'a.js'))) fs.appendFileSync(at('dist', 'src', 'a.js'), MARKER);
  const result = await run();
  return { ...result, compiled: !fs.readFileSync(at('dist', 'src', 'a.js'), 'utf8').includes(MARKER) };
}

beforeAll(() => {
  write('tsconfig.json', JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: [], outDir: 'dist', rootDir: '.' }, include: ['src'] }));
  write('package.json', JSON.stringify({ name: 'stale-check-fixture', type: 'module' }));
  write('package-lock.json', JSON.stringify({ lockfileVersion: 3 }));
  write('src/a.ts', 'export const a: number = 1;\n');
  write('src/lib/b.ts', "import { a } from '../a.js';\nexport const b = a + 1;\n");
  write('src/gone.ts', 'export const gone = true;\n');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

it('compiles a tree that was never built and writes the stamp', async () => {
  expect(await run('--check')).toEqual({ code: 1, stderr: 'build: stale: no dist/.build-stamp (never built here)\n' });
  const { code, stderr } = await run();
  expect(code).toBe(0);
  expect(stderr).toBe('build: no dist/.build-stamp (never built here); compiling (tsc)...\n');
  expect(fs.readFileSync(at('dist', 'src', 'lib', 'b.js'), 'utf8')).toContain('a + 1');
  expect(fs.existsSync(at('dist', '.build-stamp'))).toBe(true);
});

it('an up-to-date tree is left alone: tsc does not run and nothing is printed', async () => {
  expect(await run('--check')).toEqual({ code: 0, stderr: 'build: up to date\n' });
  const stamp = stampTime();
  expect(await buildAndSeeIfCompiled()).toEqual({ code: 0, stderr: '', compiled: false });
  expect(stampTime()).toBe(stamp);
});

it('a touched source file makes it compile again, once', async () => {
  touch('src/lib/b.ts');
  expect(await run('--check')).toEqual({ code: 1, stderr: 'build: stale: src/lib/b.ts changed\n' });
  expect(await buildAndSeeIfCompiled()).toEqual({ code: 0, stderr: 'build: src/lib/b.ts changed; compiling (tsc)...\n', compiled: true });
  expect(await buildAndSeeIfCompiled()).toEqual({ code: 0, stderr: '', compiled: false });
});

it.each(['tsconfig.json', 'package-lock.json'])('a changed %s makes it compile again', async (file) => {
  touch(file);
  expect(await buildAndSeeIfCompiled()).toEqual({ code: 0, stderr: `build: ${file} changed; compiling (tsc)...\n`, compiled: true });
});

it('a removed source (its directory changed) and a missing compiled file make it compile again', async () => {
  fs.rmSync(at('src', 'gone.ts'));
  expect(await buildAndSeeIfCompiled()).toEqual({ code: 0, stderr: 'build: src/ (a file added, removed or renamed) changed; compiling (tsc)...\n', compiled: true });
  fs.rmSync(at('dist', 'src', 'lib', 'b.js'));
  expect(await buildAndSeeIfCompiled()).toEqual({ code: 0, stderr: 'build: dist/src/lib/b.js is missing; compiling (tsc)...\n', compiled: true });
  expect(fs.existsSync(at('dist', 'src', 'lib', 'b.js'))).toBe(true);
});

it('a compile that fails leaves the tree stale (non-zero exit, the error on stderr, no new stamp)', async () => {
  const stamp = stampTime();
  write('src/a.ts', "export const a: number = 'one';\n");
  const failed = await run();
  expect(failed.code).not.toBe(0);
  expect(failed.stderr).toContain('build: src/a.ts changed; compiling (tsc)...');
  expect(failed.stderr).toMatch(/src\/a\.ts\(1,14\): error TS2322/);
  expect(stampTime()).toBe(stamp);
  expect((await run('--check')).code).toBe(1);

  write('src/a.ts', 'export const a: number = 2;\n');
  expect((await run()).code).toBe(0);
  expect((await run('--check')).code).toBe(0);
});

it('--force always compiles (npm run build)', async () => {
  expect(await buildAndSeeIfCompiled()).toMatchObject({ compiled: false });
  fs.appendFileSync(at('dist', 'src', 'a.js'), MARKER);
  expect((await run('--force')).code).toBe(0);
  expect(fs.readFileSync(at('dist', 'src', 'a.js'), 'utf8')).not.toContain(MARKER);
});
