#!/usr/bin/env node
/**
 * Builds the web console the gateway serves at /console, in three steps that each fail the build:
 *
 * 1. codegen: console/generated/ is regenerated from the committed supergraph and console/operations/
 *    with codegen.ts's own configuration for that output (GraphQL Code Generator's programmatic API), so
 *    a schema change that breaks a console operation fails here with the generator's message. A
 *    generated file is written only when its content changed: an unchanged file keeps its mtime.
 * 2. type-check: tsc --noEmit -p console/tsconfig.json (the DOM library, strict), against those types.
 * 3. bundle: esbuild bundles console/src/main.tsx into dist/console-bundle/console.js (iife, minified,
 *    es2020, React's production build) and the CSS it imports into dist/console-bundle/console.css. No
 *    source maps are served; the licence notices of the bundled packages (lightweight-charts' Apache-2.0
 *    notice, React's MIT one) are kept at the end of console.js. The bundle has a directory of its own:
 *    the server's tsc writes dist/console/ (the console modules the server's tests import).
 *
 *   node scripts/build-console.mjs [--root <dir>]                  all three steps
 *   node scripts/build-console.mjs [--root <dir>] --only codegen   step 1
 *   node scripts/build-console.mjs [--root <dir>] --only bundle    steps 2 and 3
 *
 * scripts/build-if-stale.mjs runs step 1 before the server's tsc (which compiles test files that import
 * console/generated/, so they must see the current schema's types) and steps 2 and 3 after it, when
 * the console's sources changed (npm run build always). Everything goes to stderr, the bundle step
 * ending with one line: the bundle's sizes and the time taken. Plain JavaScript: it runs before
 * anything is compiled (codegen.ts is loaded the way the codegen CLI loads it).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The codegen output this build regenerates (a key of codegen.ts's `generates`, CLIENT_OUTPUTS.console). */
const GENERATED = 'console/generated/';
const ENTRY = 'console/src/main.tsx';
const TSCONFIG = 'console/tsconfig.json';
/** Where the bundle goes: the gateway serves console.js and console.css from here (gateway/console.ts's CONSOLE_BUNDLE_DIR). */
const OUT_DIR = 'dist/console-bundle';
/** What `--only` may name. */
const STEPS = ['codegen', 'bundle'];

/** A failed step: its message is what the user sees (no stack). */
class BuildFailed extends Error {}

function parseOptions(argv) {
  const options = { root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'), only: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root' && argv[i + 1]) options.root = path.resolve(argv[++i]);
    else if (argv[i] === '--only' && STEPS.includes(argv[i + 1])) options.only = argv[++i];
    else throw new BuildFailed(`unknown option ${argv[i]}; usage: build-console.mjs [--root <dir>] [--only codegen|bundle]`);
  }
  return options;
}

/** Writes `content` to `file` unless the file already holds exactly that; says whether it wrote. */
function writeIfChanged(file, content) {
  try {
    if (fs.readFileSync(file, 'utf8') === content) return false;
  } catch {
    // missing: written below
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return true;
}

/** The messages of a codegen failure (an AggregateError of validation errors, or one error). */
function codegenMessages(error) {
  const errors = Array.isArray(error?.errors) && error.errors.length > 0 ? error.errors : [error];
  return errors.map((e) => (e instanceof Error ? e.message : String(e))).join('\n');
}

/** Step 1: console/generated/ from codegen.ts's configuration for that output; the names of the files it changed. */
async function generate(root) {
  const { generate: runCodegen, loadCodegenConfig } = await import('@graphql-codegen/cli');
  const configFile = path.join(root, 'codegen.ts');
  if (!fs.existsSync(configFile)) throw new BuildFailed(`${configFile} is missing: the console's operations are generated with its configuration`);
  const loaded = await loadCodegenConfig({ configFilePath: configFile });
  const output = loaded?.config?.generates?.[GENERATED];
  if (!output) throw new BuildFailed(`codegen.ts has no output for ${GENERATED}`);
  let files;
  try {
    files = await runCodegen({ ...loaded.config, cwd: root, silent: true, generates: { [GENERATED]: output } }, false);
  } catch (error) {
    throw new BuildFailed(`codegen (${GENERATED}) failed:\n${codegenMessages(error)}`);
  }
  return files.filter((f) => writeIfChanged(path.resolve(root, f.filename), f.content)).map((f) => f.filename);
}

/** Step 2: the console's strict type-check; tsc's diagnostics go to stderr. */
function typeCheck(root) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '--noEmit', '-p', TSCONFIG], { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) throw new BuildFailed(`type-check (tsc --noEmit -p ${TSCONFIG}) failed`);
}

/** Step 3: the bundle; returns the sizes of the files written. */
async function bundle(root) {
  const esbuild = await import('esbuild');
  const outdir = path.join(root, OUT_DIR);
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: [ENTRY],
      // console.js, and console.css for the CSS the sources import.
      entryNames: 'console',
      outdir,
      bundle: true,
      minify: true,
      format: 'iife',
      target: 'es2020',
      platform: 'browser',
      jsx: 'automatic',
      define: { 'process.env.NODE_ENV': '"production"' },
      sourcemap: false,
      legalComments: 'eof',
      logLevel: 'silent',
      metafile: true,
      write: true,
    });
  } catch (error) {
    const messages = (error?.errors ?? []).map((m) => `${m.location ? `${m.location.file}:${m.location.line}:${m.location.column}: ` : ''}${m.text}`);
    throw new BuildFailed(`bundle (esbuild ${ENTRY}) failed:\n${messages.join('\n') || String(error)}`);
  }
  const sizes = {};
  for (const [file, info] of Object.entries(result.metafile.outputs)) sizes[path.extname(file).slice(1)] = info.bytes;
  return sizes;
}

async function main() {
  const began = Date.now();
  const { root, only } = parseOptions(process.argv.slice(2));
  // stdout belongs to the command after the build: whatever a library logs goes to stderr.
  console.log = console.info = console.warn = console.error;
  if (only !== 'bundle') {
    const changed = await generate(root);
    if (changed.length > 0) process.stderr.write(`console: regenerated ${changed.join(', ')}\n`);
  }
  if (only === 'codegen') return;
  typeCheck(root);
  const sizes = await bundle(root);
  process.stderr.write(`console: ${OUT_DIR}/console.js ${sizes.js ?? 0} bytes, console.css ${sizes.css ?? 0} bytes, ${Date.now() - began} ms\n`);
}

try {
  await main();
} catch (error) {
  process.stderr.write(`console build failed: ${error instanceof BuildFailed ? error.message : (error?.stack ?? String(error))}\n`);
  process.exitCode = 1;
}
