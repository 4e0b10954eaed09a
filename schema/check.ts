/**
 * `npm run schema:check`   - fails on SDL drift, composition errors, or breaking changes against the
 *                            published schema that are not recorded in schema/breaking-changes.json.
 * `npm run schema:update`  - rewrites schema/*.graphql from code; refuses while a breaking change is
 *                            not recorded (with reason and approver).
 * `npm run schema:publish` - after a release: the working files become the published baseline
 *                            (schema/published/) and the allowlist entries they satisfy are cleared.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../subgraphs/platform/project.js';
import { SUBGRAPHS } from '../subgraphs/platform/config.js';
import { checkSchemas, type AllowedChange, type SchemaFiles } from './registry.js';
import { codeSdls } from './sdl.js';

const dir = path.join(PROJECT_ROOT, 'schema');
const file = (name: string) => path.join(dir, `${name}.graphql`);
const publishedFile = (name: string) => path.join(dir, 'published', `${name}.graphql`);
const ALL_FILES = [...SUBGRAPHS, 'supergraph'] as const;
const read = (p: string) => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : undefined);

function readAllowlist(): AllowedChange[] {
  const text = read(path.join(dir, 'breaking-changes.json'));
  return text ? (JSON.parse(text) as { allowed: AllowedChange[] }).allowed : [];
}

async function main(): Promise<number> {
  const update = process.argv.includes('--update');
  const publish = process.argv.includes('--publish');
  const code = await codeSdls();
  const committed: SchemaFiles = {};
  const published: SchemaFiles = {};
  for (const name of ALL_FILES) {
    committed[name] = read(file(name));
    published[name] = read(publishedFile(name));
  }
  const hasPublished = ALL_FILES.some((name) => published[name] !== undefined);
  const result = checkSchemas({ code, committed, published: hasPublished ? published : undefined, allowlist: readAllowlist() });

  for (const c of result.dangerous) console.warn(`warning: dangerous change (${c.schema}) ${c.type}: ${c.description}`);
  if (update) {
    const blocking = result.problems.filter((p) => !result.drift.includes(p)); // drift is what update fixes
    if (blocking.length || !result.supergraphSdl) {
      for (const p of blocking) console.error(`schema:update refused: ${p}`);
      if (result.unallowed.length) console.error('Record each breaking change in schema/breaking-changes.json ({schema, type, description, reason, approved_by}) after review.');
      return 1;
    }
    for (const name of SUBGRAPHS) fs.writeFileSync(file(name), `${code[name].trim()}\n`);
    fs.writeFileSync(file('supergraph'), `${result.supergraphSdl.trim()}\n`);
    console.log(`schema:update wrote ${[...SUBGRAPHS, 'supergraph'].map((n) => `schema/${n}.graphql`).join(', ')}`);
    return 0;
  }
  if (!result.ok) {
    for (const p of result.problems) console.error(`schema:check: ${p}`);
    return 1;
  }
  if (publish) {
    fs.mkdirSync(path.join(dir, 'published'), { recursive: true });
    for (const name of ALL_FILES) fs.copyFileSync(file(name), publishedFile(name));
    fs.writeFileSync(path.join(dir, 'breaking-changes.json'), `${JSON.stringify({ allowed: [] }, null, 2)}\n`);
    console.log('schema:publish: schema/published/ now holds the current schema; the allowlist is cleared (its entries stay in git history)');
    return 0;
  }
  console.log(
    `schema:check: ${SUBGRAPHS.length} subgraphs match the committed SDL, compose, and break no client of the ${hasPublished ? 'published' : 'committed'} schema (${result.breaking.length} recorded breaking changes)`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
