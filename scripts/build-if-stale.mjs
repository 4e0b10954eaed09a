#!/usr/bin/env node
/**
 * Runs the build only when dist/ is older than the sources, so that `npm start`,
 * `npm run tradegraph ...`, the schema and bench scripts start at once on an unchanged tree. In a
 * project with a web console (console/tsconfig.json) the build is, in this order:
 * 1. the console's codegen (scripts/build-console.mjs --only codegen: console/generated/), first because
 *    the server's tsc compiles test files that import it, so a schema change must reach it before;
 * 2. the TypeScript build (tsc -p tsconfig.json);
 * 3. the console's type-check and esbuild bundle (scripts/build-console.mjs --only bundle:
 *    dist/console-bundle/, a directory tsc never writes), and beside it, in a process of its own, the
 *    embedded store's template (dist/cli/store-template.js, in a project that compiles one: the data
 *    directory a new store starts from instead of running initdb).
 * Without a console it is step 2 alone (and the template).
 *
 * dist/.build-stamp is written after every successful build, with the time the build began as its mtime.
 * The build is stale, and it runs, when the stamp is missing, when anything of the project is newer
 * than (or as new as) the stamp — a TypeScript file or a directory (a file added, removed or renamed)
 * under tsconfig.json's "include", tsconfig.json, package.json, package-lock.json — or when a source
 * has no compiled .js in dist/. In a project with a console, also when one of the console's sources is
 * newer — a .ts, .tsx or .css file or a directory under console/src, a .graphql operation or a
 * directory under console/operations, console/tsconfig.json, codegen.ts, schema/supergraph.graphql — or
 * dist/console-bundle/console.js or console.css is missing. console/generated/ is an output (written
 * only when its content changed, during the build, so after the stamp's time): it is not a source. A
 * failed step leaves no new stamp, so the next run builds again.
 *
 *   node scripts/build-if-stale.mjs           build if stale (what the npm scripts run)
 *   node scripts/build-if-stale.mjs --force   build in any case (npm run build)
 *   node scripts/build-if-stale.mjs --check   only say whether it is stale: exit 0 fresh, 1 stale
 *   ... --root <dir>                          another project than this one (the tests use it)
 *
 * stdout is left to the command that follows: everything this script, tsc and the console build print
 * goes to stderr, so `npm run -s tradegraph -- token` still prints exactly the token. Plain JavaScript
 * with no dependency: it has to run before anything is compiled.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const STAMP = '.build-stamp';
const SOURCE = /\.(ts|mts|cts|tsx)$/;
const DECLARATION = /\.d\.(ts|mts|cts)$/;
/** Files beside tsconfig.json whose change means a rebuild. */
const PROJECT_FILES = ['tsconfig.json', 'package.json', 'package-lock.json'];
/** The console's build (its codegen before tsc, the rest after, in a project that has console/tsconfig.json). */
const CONSOLE_BUILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'build-console.mjs');
const CONSOLE_TSCONFIG = 'console/tsconfig.json';
/** The console's source directories and which of their files are sources. */
const CONSOLE_SOURCES = [
  { dir: 'console/src', files: /\.(ts|tsx|css)$/ },
  { dir: 'console/operations', files: /\.graphql$/ },
];
/** Single files the console is built from. */
const CONSOLE_FILES = [CONSOLE_TSCONFIG, 'codegen.ts', 'schema/supergraph.graphql'];
/** The bundle the console build writes (build-console.mjs's OUT_DIR): either file missing means stale. */
const CONSOLE_BUNDLE = ['dist/console-bundle/console.js', 'dist/console-bundle/console.css'];

/** Reads the options this script understands; throws on anything else. */
function parseOptions(argv) {
  const options = { force: false, check: false, root: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..') };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--force') options.force = true;
    else if (argv[i] === '--check') options.check = true;
    else if (argv[i] === '--root' && argv[i + 1]) options.root = path.resolve(argv[++i]);
    else throw new Error(`unknown option ${argv[i]}; usage: build-if-stale.mjs [--force | --check] [--root <dir>]`);
  }
  return options;
}

/** tsconfig.json's include and outDir (the project's own: plain JSON). */
function readTsconfig(root) {
  const config = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
  const options = config.compilerOptions ?? {};
  return {
    include: config.include ?? ['.'],
    outDir: path.resolve(root, options.outDir ?? 'dist'),
    rootDir: path.resolve(root, options.rootDir ?? '.'),
  };
}

/** Every directory and file matching `files` under `dir` (node_modules and dot-directories left out). */
function walk(dir, visit, files = SOURCE) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  visit(dir, true);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(full, visit, files);
    } else if (files.test(entry.name)) visit(full, false);
  }
}

/**
 * Why the build is stale (a sentence), or null when dist/ is up to date. `stampMs` is the stamp's mtime.
 */
function staleReason(root) {
  const { include, outDir, rootDir } = readTsconfig(root);
  let stampMs;
  try {
    stampMs = fs.statSync(path.join(outDir, STAMP)).mtimeMs;
  } catch {
    return `no ${path.relative(root, path.join(outDir, STAMP))} (never built here)`;
  }
  for (const name of PROJECT_FILES) {
    const file = path.join(root, name);
    if (fs.existsSync(file) && fs.statSync(file).mtimeMs >= stampMs) return `${name} changed`;
  }
  let reason = null;
  for (const pattern of include) {
    // "subgraphs", "test/**/*": the directory part before any wildcard.
    const base = path.join(root, pattern.split(/[*?]/)[0]);
    walk(base, (file, isDir) => {
      if (reason !== null) return;
      if (fs.statSync(file).mtimeMs >= stampMs) {
        reason = `${path.relative(root, file) || '.'}${isDir ? '/ (a file added, removed or renamed)' : ''} changed`;
        return;
      }
      if (!isDir && !DECLARATION.test(file)) {
        const js = path.join(outDir, path.relative(rootDir, file)).replace(/\.(m|c)?tsx?$/, (ext) => (ext.startsWith('.m') ? '.mjs' : ext.startsWith('.c') ? '.cjs' : '.js'));
        if (!fs.existsSync(js)) reason = `${path.relative(root, js)} is missing`;
      }
    });
    if (reason !== null) return reason;
  }
  return hasConsole(root) ? consoleStaleReason(root, stampMs) : null;
}

/** Whether the project has a web console to build. */
function hasConsole(root) {
  return fs.existsSync(path.join(root, CONSOLE_TSCONFIG));
}

/** Why the console's bundle is older than its sources (a sentence), or null. */
function consoleStaleReason(root, stampMs) {
  for (const name of CONSOLE_FILES) {
    const file = path.join(root, name);
    if (fs.existsSync(file) && fs.statSync(file).mtimeMs >= stampMs) return `${name} changed`;
  }
  let reason = null;
  for (const { dir, files } of CONSOLE_SOURCES) {
    walk(
      path.join(root, dir),
      (file, isDir) => {
        if (reason === null && fs.statSync(file).mtimeMs >= stampMs) {
          reason = `${path.relative(root, file)}${isDir ? '/ (a file added, removed or renamed)' : ''} changed`;
        }
      },
      files,
    );
    if (reason !== null) return reason;
  }
  const missing = CONSOLE_BUNDLE.find((name) => !fs.existsSync(path.join(root, name)));
  return missing === undefined ? null : `${missing} is missing`;
}

/** Runs node on `script` with `args` in `root`, its output on stderr; its exit status. */
function runNode(root, script, args) {
  // stdout belongs to the command after this one.
  const result = spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 2, 2] });
  return result.status ?? 1;
}

/** runNode, without waiting: its exit status once it has exited. */
function startNode(root, script, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 2, 2] });
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/**
 * Runs the console's codegen (if the project has a console), tsc, then the console's type-check and
 * bundle beside the store template (if tsc compiled its script); writes the stamp (mtime: when the build
 * began, so that a source saved during the build makes the next run build again) if every step succeeded.
 */
async function build(root) {
  const { outDir } = readTsconfig(root);
  const began = new Date();
  const withConsole = hasConsole(root);
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const steps = [
    ...(withConsole ? [[CONSOLE_BUILD, ['--root', root, '--only', 'codegen']]] : []),
    [tsc, ['-p', path.join(root, 'tsconfig.json')]],
  ];
  for (const [script, args] of steps) {
    const status = runNode(root, script, args);
    if (status !== 0) return status;
  }
  const template = path.join(outDir, 'cli', 'store-template.js');
  const [bundled, templated] = await Promise.all([
    withConsole ? startNode(root, CONSOLE_BUILD, ['--root', root, '--only', 'bundle']) : 0,
    fs.existsSync(template) ? startNode(root, template, []) : 0,
  ]);
  if (bundled !== 0) return bundled;
  // The template only saves new stores their initdb: without it they run initdb, so the build stands.
  if (templated !== 0) process.stderr.write(`build: the store template was not made (exit status ${templated}); new stores will run initdb\n`);
  fs.mkdirSync(outDir, { recursive: true });
  const stamp = path.join(outDir, STAMP);
  const done = withConsole ? 'console codegen, tsc -p tsconfig.json and the console bundle' : 'tsc -p tsconfig.json';
  fs.writeFileSync(stamp, `${done} succeeded; build began ${began.toISOString()}\n`);
  fs.utimesSync(stamp, began, began);
  return 0;
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const reason = options.force ? 'a build was asked for (--force)' : staleReason(options.root);
  if (options.check) {
    process.stderr.write(reason === null ? 'build: up to date\n' : `build: stale: ${reason}\n`);
    return reason === null ? 0 : 1;
  }
  if (reason === null) return 0;
  if (!options.force) process.stderr.write(`build: ${reason}; compiling (${hasConsole(options.root) ? 'console codegen, tsc, then the console' : 'tsc'})...\n`);
  return build(options.root);
}

process.exitCode = await main();
