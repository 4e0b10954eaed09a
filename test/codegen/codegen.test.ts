/**
 * The committed client code generation (codegen.ts -> examples/generated/ and console/generated/) is what
 * GraphQL Code Generator makes of the committed supergraph and the example and console operations today,
 * byte for byte (the console's build regenerates console/generated/, so a stale copy would show up as a
 * diff after every build), and the example client
 * (examples/client.ts) type-checks against it in strict mode. A schema change that regenerates different
 * types (a typed field back to JSON, an enum back to String) therefore fails here until `npm run codegen`
 * is run and the client still compiles; the last test shows such a change failing the client.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { apiSchemaSdl, CLIENT_OUTPUTS } from '../../codegen.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { runToExit } from '../helpers/child.js';
import { strictTypeErrors } from '../helpers/typecheck.js';

type Target = keyof typeof CLIENT_OUTPUTS;
const CODEGEN_BIN = path.join(PROJECT_ROOT, 'node_modules/.bin/graphql-codegen');
/** How long one generation may take on an idle machine (before scaling). */
const CODEGEN_MS = 60_000;

interface Generation {
  code: number | null;
  output: string;
  /** Per output: file name -> content; empty when the generator failed. */
  files: Record<Target, Map<string, string>>;
}

/** What was generated in `dir` (file name -> content). */
function readFiles(dir: string): Map<string, string> {
  const names = fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  return new Map(names.map((name) => [name, fs.readFileSync(path.join(dir, name), 'utf8')]));
}

/**
 * Runs the GraphQL Code Generator CLI (a detached child) with the committed configuration of the given
 * outputs, each redirected to a temp dir and, when given, another schema; `operations` replace the
 * example operations (each output names its own documents).
 */
async function generate(targets: Target[], schema?: string, operations?: Map<string, string>): Promise<Generation> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codegen-'));
  const outDir = (target: Target) => path.join(dir, 'out', target);
  try {
    const configFile = path.join(dir, 'codegen.ts');
    const schemaFile = path.join(dir, 'schema.graphql');
    if (schema !== undefined) fs.writeFileSync(schemaFile, schema);
    const operationsDir = path.join(dir, 'operations');
    fs.mkdirSync(operationsDir);
    for (const [name, text] of operations ?? []) fs.writeFileSync(path.join(operationsDir, name), text);
    const documents = operations === undefined ? '' : `documents: [${JSON.stringify(path.join(operationsDir, '*.graphql'))}]`;
    const generates = targets.map((t) => `${JSON.stringify(`${outDir(t)}/`)}: { ...config.generates[CLIENT_OUTPUTS.${t}], ${t === 'examples' ? documents : ''} }`);
    fs.writeFileSync(
      configFile,
      [
        `import config, { CLIENT_OUTPUTS } from ${JSON.stringify(path.join(PROJECT_ROOT, 'codegen.ts'))};`,
        `export default { ...config, ${schema === undefined ? '' : `schema: ${JSON.stringify(schemaFile)}, `}generates: { ${generates.join(', ')} } };`,
      ].join('\n'),
    );
    const run = await runToExit(CODEGEN_BIN, ['--config', configFile], { ms: CODEGEN_MS });
    return { code: run.code, output: run.output, files: { examples: readFiles(outDir('examples')), console: readFiles(outDir('console')) } };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The committed files of an output and the fresh ones: equal, byte for byte. */
function expectSameAsCommitted(files: Map<string, string>, target: Target): void {
  const dir = path.join(PROJECT_ROOT, CLIENT_OUTPUTS[target]);
  expect([...files.keys()].sort()).toEqual(fs.readdirSync(dir).sort());
  for (const [name, content] of files) expect({ name, content }).toEqual({ name, content: fs.readFileSync(path.join(dir, name), 'utf8') });
  expect(files.size).toBeGreaterThan(0);
}

/** Each persisted-documents manifest entry: "sha256:<hex of the text>" -> the text. */
function expectSha256Manifest(files: Map<string, string>): Record<string, string> {
  const manifest = JSON.parse(files.get('persisted-documents.json')!) as Record<string, string>;
  for (const [id, text] of Object.entries(manifest)) expect(id).toBe(`sha256:${createHash('sha256').update(text).digest('hex')}`);
  return manifest;
}

/** An operation's text with every `field { ... }` selection of `field` made a leaf (`field`). */
function withoutSubSelection(text: string, field: string): string {
  const selected = new RegExp(`\\b${field}\\s*\\{`);
  let out = text;
  for (let match = selected.exec(out); match; match = selected.exec(out)) {
    let end = match.index + match[0].length - 1;
    for (let depth = 0; end < out.length; end++) {
      if (out[end] === '{') depth++;
      else if (out[end] === '}' && --depth === 0) break;
    }
    out = `${out.slice(0, match.index)}${field}${out.slice(end + 1)}`;
  }
  return out;
}

/** Strict type errors of examples/client.ts next to the given generated files (in a temp dir). */
function clientErrors(files: Map<string, string>): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codegen-client-'));
  try {
    for (const [name, content] of files) {
      fs.mkdirSync(path.dirname(path.join(dir, 'generated', name)), { recursive: true });
      fs.writeFileSync(path.join(dir, 'generated', name), content);
    }
    const client = path.join(dir, 'client.ts');
    fs.copyFileSync(path.join(PROJECT_ROOT, 'examples/client.ts'), client);
    return strictTypeErrors(client, {
      lib: ['lib.es2023.d.ts'],
      types: ['node'],
      typeRoots: [path.join(PROJECT_ROOT, 'node_modules/@types')],
      // Packages resolve from the project (the temp dir has no node_modules).
      baseUrl: PROJECT_ROOT,
      paths: { '*': [path.join(PROJECT_ROOT, 'node_modules/*')] },
      skipLibCheck: true,
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('client code generation (npm run codegen)', () => {
  let files: Map<string, string>;
  let consoleFiles: Map<string, string>;
  beforeAll(async () => {
    // Both outputs in one run of the generator, as npm run codegen does.
    const run = await generate(['examples', 'console']);
    expect(run).toMatchObject({ code: 0 });
    files = run.files.examples;
    consoleFiles = run.files.console;
  });

  it('the committed examples/generated/ is what codegen makes of the committed supergraph and operations', () => {
    expectSameAsCommitted(files, 'examples');
  });

  it('the committed console/generated/ is what codegen makes of the committed supergraph and console operations', () => {
    expectSameAsCommitted(consoleFiles, 'console');
  });

  it('the console documents are strings: the query text, no GraphQL AST for the browser bundle to carry', () => {
    const graphql = consoleFiles.get('graphql.ts')!;
    expect(graphql).toContain('export class TypedDocumentString<TResult, TVariables>');
    expect(graphql).not.toContain('"kind":"Document"');
    expect(Object.keys(expectSha256Manifest(consoleFiles)).length).toBeGreaterThan(0);
  });

  it('the persisted-documents manifest maps the sha256 of each operation to its text, one per example operation', () => {
    const manifest = expectSha256Manifest(files);
    const operations = fs.readdirSync(path.join(PROJECT_ROOT, 'examples/operations')).filter((f) => f.endsWith('.graphql'));
    expect(Object.keys(manifest)).toHaveLength(operations.length);
  });

  it('examples/client.ts type-checks in strict mode against the generated types', () => {
    expect(clientErrors(files)).toEqual([]);
  });

  it('indicators as JSON again: the example operations no longer validate, so nothing is generated', async () => {
    const untyped = apiSchemaSdl.replace(/^(\s+indicators): Indicators$/m, '$1: JSON');
    expect(untyped).not.toBe(apiSchemaSdl);
    const run = await generate(['examples'], untyped);
    // The same configuration generates from the committed schema (first test): the schema change is the cause.
    expect(run.code).not.toBe(0);
    expect(run.files.examples.size).toBe(0);
  });

  it('indicators as JSON again, the operations selecting it as a leaf: the client no longer compiles', async () => {
    const untyped = apiSchemaSdl.replace(/^(\s+indicators): Indicators$/m, '$1: JSON');
    const dir = path.join(PROJECT_ROOT, 'examples/operations');
    const operations = new Map(
      fs.readdirSync(dir).filter((f) => f.endsWith('.graphql')).map((f) => [f, withoutSubSelection(fs.readFileSync(path.join(dir, f), 'utf8'), 'indicators')]),
    );
    const run = await generate(['examples'], untyped, operations);
    expect(run).toMatchObject({ code: 0 });
    const errors = clientErrors(run.files.examples);
    expect(errors.some((e) => /rsi14|bollinger/.test(e))).toBe(true);
  });
});
