/**
 * scripts/build-if-stale.mjs, which `npm start`, `npm run tradegraph` and the schema and bench scripts
 * run before starting: on a small TypeScript project of its own (real tsc, real files), it compiles a
 * tree never built, leaves an up-to-date tree alone (tsc not run: a marker written into dist/ stays),
 * and compiles again after a source, tsconfig.json or package-lock.json changed, a source was removed,
 * or a compiled file went missing; a failed compile writes no stamp; stdout stays empty throughout.
 *
 * A second project has a web console (the real codegen.ts and supergraph, the real console tsconfig, a
 * small console of its own, a server file that imports the generated operations as the project's tests
 * do, the project's node_modules linked in): the build regenerates its typed operations before the
 * server's tsc (so a schema change reaches the server's files first), then type-checks and bundles it
 * into a directory tsc never writes (lightweight-charts' licence kept); a console source, operation,
 * codegen.ts or the supergraph changing, or either bundle file missing, makes it stale and one rebuild
 * fresh; an operation the schema no longer validates or a type error in console code fails the build
 * with its message and no new stamp. The console's cases share one project, built in order, so each
 * case builds only what it changed.
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
  return runIn(root, ...args);
}

/** Runs the script on the project at `dir`; expects nothing on stdout. */
async function runIn(dir: string, ...args: string[]): Promise<{ code: number | null; stderr: string }> {
  const { code, stdout, stderr } = await runToExit(process.execPath, [SCRIPT, '--root', dir, ...args]);
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

it("runs the project's store template script after tsc, and a failing one leaves a warning, not a failed build", async () => {
  write('dist/cli/store-template.js', "import fs from 'node:fs';\nfs.writeFileSync(new URL('../template-made', import.meta.url), 'yes');\n");
  expect((await run('--force')).code).toBe(0);
  expect(fs.readFileSync(at('dist', 'template-made'), 'utf8')).toBe('yes');

  const stamp = stampTime();
  write('dist/cli/store-template.js', 'process.exit(3);\n');
  touch('src/lib/b.ts');
  const failed = await run();
  expect(failed).toEqual({ code: 0, stderr: 'build: src/lib/b.ts changed; compiling (tsc)...\nbuild: the store template was not made (exit status 3); new stores will run initdb\n' });
  expect(stampTime()).toBeGreaterThan(stamp);
  expect((await run('--check')).code).toBe(0);
  fs.rmSync(at('dist', 'cli'), { recursive: true });
});

it('--force always compiles (npm run build)', async () => {
  expect(await buildAndSeeIfCompiled()).toMatchObject({ compiled: false });
  fs.appendFileSync(at('dist', 'src', 'a.js'), MARKER);
  expect((await run('--force')).code).toBe(0);
  expect(fs.readFileSync(at('dist', 'src', 'a.js'), 'utf8')).not.toContain(MARKER);
});

describe('a project with a web console', () => {
  const app = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-build-console-'));
  const file = (...parts: string[]) => path.join(app, ...parts);
  const put = (name: string, text: string) => {
    fs.mkdirSync(path.dirname(file(name)), { recursive: true });
    fs.writeFileSync(file(name), text);
  };
  const mtime = (name: string) => fs.statSync(file(name)).mtimeMs;
  const consoleStamp = () => mtime('dist/.build-stamp');
  /** Sets a file's mtime to a second before the stamp: as it was when the last build ran. */
  const age = (name: string) => {
    const before = new Date(consoleStamp() - 1000);
    fs.utimesSync(file(name), before, before);
  };
  const build = (...args: string[]) => runIn(app, ...args);
  const OPERATION = 'query FixtureSecurity($symbol: String!) {\n  security(symbol: $symbol) {\n    symbol\n    name\n    assetType\n  }\n}\n';
  const BUNDLE = 'dist/console-bundle';

  beforeAll(() => {
    put('tsconfig.json', JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: [], outDir: 'dist', rootDir: '.' }, include: ['src'] }));
    put('package.json', JSON.stringify({ name: 'console-build-fixture', type: 'module' }));
    put('src/server.ts', 'export const port: number = 0;\n');
    // As the project's tests import console/generated/: tsc compiles it into dist/console/.
    put('src/operations.ts', "import { FixtureSecurityDocument } from '../console/generated/graphql.js';\nexport const securityQuery: string = FixtureSecurityDocument.toString();\n");
    // The console is built with the project's own configuration and schema.
    fs.copyFileSync(path.join(PROJECT_ROOT, 'codegen.ts'), file('codegen.ts'));
    put('schema/supergraph.graphql', fs.readFileSync(path.join(PROJECT_ROOT, 'schema/supergraph.graphql'), 'utf8'));
    put('console/tsconfig.json', fs.readFileSync(path.join(PROJECT_ROOT, 'console/tsconfig.json'), 'utf8'));
    fs.symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), file('node_modules'), 'dir');
    put('console/operations/security.graphql', OPERATION);
    put('console/src/main.css', '.fixture-symbol { font-weight: 600; }\n');
    put(
      'console/src/main.tsx',
      [
        "import { createChart } from 'lightweight-charts';",
        "import { createRoot } from 'react-dom/client';",
        "import { FixtureSecurityDocument, type FixtureSecurityQuery } from '../generated/graphql';",
        "import './main.css';",
        '',
        'function App({ data }: { data: FixtureSecurityQuery | null }) {',
        '  return <p className="fixture-symbol">{data?.security?.name ?? FixtureSecurityDocument.toString()}</p>;',
        '}',
        "const root = document.getElementById('console');",
        'if (root) {',
        '  createRoot(root).render(<App data={null} />);',
        '  createChart(root);',
        '}',
        '',
      ].join('\n'),
    );
  });
  afterAll(() => fs.rmSync(app, { recursive: true, force: true }));

  it('builds the typed operations, the server, then the console: one minified bundle and its CSS, licences kept', async () => {
    expect(await build('--check')).toEqual({ code: 1, stderr: 'build: stale: no dist/.build-stamp (never built here)\n' });
    const { code, stderr } = await build();
    expect({ code, stderr }).toMatchObject({ code: 0 });
    expect(stderr).toContain('build: no dist/.build-stamp (never built here); compiling (console codegen, tsc, then the console)...\n');
    expect(stderr).toMatch(/^console: dist\/console-bundle\/console\.js \d+ bytes, console\.css \d+ bytes, \d+ ms$/m);
    expect(fs.existsSync(file('dist/src/server.js'))).toBe(true);
    expect(fs.readFileSync(file('console/generated/graphql.ts'), 'utf8')).toContain('export const FixtureSecurityDocument = new TypedDocumentString(');
    // The server's tsc compiled the generated module (which did not exist before the build) into
    // dist/console/; the bundle is in a directory of its own.
    expect(fs.readFileSync(file('dist/src/operations.js'), 'utf8')).toContain('../console/generated/graphql.js');
    expect(fs.existsSync(file('dist/console/generated/graphql.js'))).toBe(true);
    expect(fs.readdirSync(file(BUNDLE)).sort()).toEqual(['console.css', 'console.js']);
    const js = fs.readFileSync(file(BUNDLE, 'console.js'), 'utf8');
    // The operation travels as its text; lightweight-charts' Apache-2.0 notice ships with the bundle.
    expect(js).toContain('query FixtureSecurity');
    expect(js).toContain('Licensed under Apache License 2.0');
    expect(js).not.toContain('sourceMappingURL');
    expect(js).not.toContain('process.env.NODE_ENV');
    expect(fs.readFileSync(file(BUNDLE, 'console.css'), 'utf8')).toContain('.fixture-symbol{font-weight:600}');
    expect(await build('--check')).toEqual({ code: 0, stderr: 'build: up to date\n' });
  });

  it.each(['console/src/main.tsx', 'console/src/main.css', 'console/operations/security.graphql', 'console/tsconfig.json', 'codegen.ts', 'schema/supergraph.graphql'])(
    'a changed %s makes the build stale',
    async (name) => {
      const now = new Date();
      fs.utimesSync(file(name), now, now);
      expect(await build('--check')).toEqual({ code: 1, stderr: `build: stale: ${name} changed\n` });
      age(name);
      expect(await build('--check')).toEqual({ code: 0, stderr: 'build: up to date\n' });
    },
  );

  it('a missing console.css or console.js makes the build stale; with a console source change, one build brings both back, unchanged generated files not rewritten', async () => {
    fs.rmSync(file(BUNDLE, 'console.css'));
    expect(await build('--check')).toEqual({ code: 1, stderr: `build: stale: ${BUNDLE}/console.css is missing\n` });
    fs.rmSync(file(BUNDLE, 'console.js'));
    expect(await build('--check')).toEqual({ code: 1, stderr: `build: stale: ${BUNDLE}/console.js is missing\n` });

    const generated = mtime('console/generated/graphql.ts');
    put('console/src/main.css', '.fixture-symbol { font-weight: 700; }\n');
    const { code, stderr } = await build();
    expect({ code, stderr }).toMatchObject({ code: 0, stderr: expect.stringContaining('build: console/src/main.css changed; compiling (console codegen, tsc, then the console)...') });
    expect(stderr).not.toContain('console: regenerated');
    expect(fs.readdirSync(file(BUNDLE)).sort()).toEqual(['console.css', 'console.js']);
    expect(fs.readFileSync(file(BUNDLE, 'console.css'), 'utf8')).toContain('.fixture-symbol{font-weight:700}');
    expect(mtime('console/generated/graphql.ts')).toBe(generated);
    expect(await build('--check')).toEqual({ code: 0, stderr: 'build: up to date\n' });
  });

  it('a schema change regenerates the typed operations before the server\'s tsc compiles the files that import them', async () => {
    // A new AssetType value, and a server file that uses it in the same change: compiled against the
    // previous console/generated/, the server's tsc would refuse 'FIXTURE_FUND'.
    const supergraph = fs.readFileSync(file('schema/supergraph.graphql'), 'utf8');
    const value = '  INDEX @join__enumValue(graph: ANALYSIS)\n';
    expect(supergraph).toContain(value);
    put('schema/supergraph.graphql', supergraph.replace(value, `${value}  FIXTURE_FUND @join__enumValue(graph: ANALYSIS)\n`));
    put('src/fund.ts', "import type { AssetType } from '../console/generated/graphql.js';\nexport const fund: AssetType = 'FIXTURE_FUND';\n");
    const { code, stderr } = await build();
    expect({ code, stderr }).toMatchObject({ code: 0, stderr: expect.stringContaining('console: regenerated console/generated/graphql.ts') });
    expect(fs.readFileSync(file('console/generated/graphql.ts'), 'utf8')).toContain("'FIXTURE_FUND'");
    expect(fs.readFileSync(file('dist/src/fund.js'), 'utf8')).toContain("'FIXTURE_FUND'");
    expect(await build('--check')).toEqual({ code: 0, stderr: 'build: up to date\n' });
  });

  it('an operation the schema does not validate fails the build with codegen\'s message, no new stamp', async () => {
    const stamp = consoleStamp();
    const generated = fs.readFileSync(file('console/generated/graphql.ts'), 'utf8');
    put('console/operations/broken.graphql', 'query FixtureBroken($symbol: String!) {\n  security(symbol: $symbol) {\n    noSuchField\n  }\n}\n');
    const failed = await build();
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toContain('console build failed: codegen (console/generated/) failed:');
    expect(failed.stderr).toContain('Cannot query field "noSuchField" on type "Security".');
    expect(failed.stderr).toContain('console/operations/broken.graphql:3:5');
    expect(consoleStamp()).toBe(stamp);
    expect(fs.readFileSync(file('console/generated/graphql.ts'), 'utf8')).toBe(generated);
    // The codegen runs first: nothing else ran.
    expect(failed.stderr).not.toContain('console: dist/console-bundle/');
    expect((await build('--check')).code).toBe(1);
    // Left stale: the next case's build, past the codegen this time, stands for the rebuild.
    fs.rmSync(file('console/operations/broken.graphql'));
    expect((await build('--check')).code).toBe(1);
  });

  it('a type error in console code fails the build with tsc\'s message, no new stamp', async () => {
    const stamp = consoleStamp();
    put('console/src/units.ts', "export const pixels: number = 'twelve';\n");
    const failed = await build();
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).not.toContain('console build failed: codegen');
    expect(failed.stderr).toMatch(/console\/src\/units\.ts\(1,14\): error TS2322/);
    expect(failed.stderr).toContain('console build failed: type-check (tsc --noEmit -p console/tsconfig.json) failed');
    expect(consoleStamp()).toBe(stamp);
    expect((await build('--check')).code).toBe(1);

    put('console/src/units.ts', 'export const pixels: number = 12;\n');
    expect((await build()).code).toBe(0);
    expect((await build('--check')).code).toBe(0);
  });
});
