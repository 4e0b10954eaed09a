/**
 * `npm run schema:check`  - fails on SDL drift, composition errors or unrecorded breaking changes.
 * `npm run schema:update` - rewrites schema/*.graphql from code; refuses while a breaking change is
 *                           not recorded (with reason and approver) in schema/breaking-changes.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../subgraphs/platform/project.js';
import { checkSchemas, SUBGRAPH_NAMES, type AllowedChange, type CheckInput } from './registry.js';
import { codeSdls } from './sdl.js';

const dir = path.join(PROJECT_ROOT, 'schema');
const file = (name: string) => path.join(dir, `${name}.graphql`);
const read = (p: string) => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : undefined);

function readAllowlist(): AllowedChange[] {
  const text = read(path.join(dir, 'breaking-changes.json'));
  return text ? (JSON.parse(text) as { allowed: AllowedChange[] }).allowed : [];
}

async function main(): Promise<number> {
  const update = process.argv.includes('--update');
  const code = await codeSdls();
  const committed: CheckInput['committed'] = { supergraph: read(file('supergraph')) };
  for (const name of SUBGRAPH_NAMES) committed[name] = read(file(name));
  const result = checkSchemas({ code, committed, allowlist: readAllowlist() });

  for (const c of result.dangerous) console.warn(`warning: dangerous change (${c.schema}) ${c.type}: ${c.description}`);
  if (update) {
    const blocking = result.problems.filter((p) => p.startsWith('composition:') || p.startsWith('breaking change') || p.startsWith('breaking-changes.json'));
    if (blocking.length || !result.supergraphSdl) {
      for (const p of blocking) console.error(`schema:update refused: ${p}`);
      if (result.unallowed.length) console.error('Record each breaking change in schema/breaking-changes.json ({schema, type, description, reason, approved_by}) after review.');
      return 1;
    }
    for (const name of SUBGRAPH_NAMES) fs.writeFileSync(file(name), `${code[name].trim()}\n`);
    fs.writeFileSync(file('supergraph'), `${result.supergraphSdl.trim()}\n`);
    console.log(`schema:update wrote ${[...SUBGRAPH_NAMES, 'supergraph'].map((n) => `schema/${n}.graphql`).join(', ')}`);
    return 0;
  }
  if (!result.ok) {
    for (const p of result.problems) console.error(`schema:check: ${p}`);
    return 1;
  }
  console.log(`schema:check: ${SUBGRAPH_NAMES.length} subgraphs match the committed SDL, compose, and break no client (${result.breaking.length} recorded breaking changes)`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
