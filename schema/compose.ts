/**
 * `npm run schema:compose [-- --out <file>]`: the supergraph of the code's subgraphs, routed to where a
 * deployment runs them: SUBGRAPH_ANALYSIS_URL, SUBGRAPH_ALLOCATION_URL and SUBGRAPH_SEARCH_URL, each
 * defaulting to the committed supergraph's URL (DEFAULT_ROUTING_URLS). Written to the file `--out`
 * names, else to stdout. The committed schema/supergraph.graphql keeps the defaults; a composed file is
 * what a gateway of that deployment loads (SUPERGRAPH_PATH, Hive Gateway, Apollo Router).
 */
import fs from 'node:fs';
import path from 'node:path';
import { SUBGRAPHS, type Subgraph } from '../subgraphs/platform/config.js';
import { compose } from './registry.js';
import { codeSdls } from './sdl.js';

/** The routing URLs the environment gives (`SUBGRAPH_<NAME>_URL`), checked; problems are listed by variable. */
function routingUrlsFromEnv(env: NodeJS.ProcessEnv): { urls: Partial<Record<Subgraph, string>>; problems: string[] } {
  const urls: Partial<Record<Subgraph, string>> = {};
  const problems: string[] = [];
  for (const name of SUBGRAPHS) {
    const variable = `SUBGRAPH_${name.toUpperCase()}_URL`;
    const raw = env[variable]?.trim();
    if (!raw) continue;
    if (isHttpUrl(raw)) urls[name] = raw;
    else problems.push(`${variable} must be an http(s) URL (got "${raw}")`);
  }
  return { urls, problems };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The value of `--out <file>` or `--out=<file>`, if given. */
function outPath(args: readonly string[]): string | undefined {
  const at = args.indexOf('--out');
  if (at >= 0) return args[at + 1];
  return args.find((a) => a.startsWith('--out='))?.slice('--out='.length);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const out = outPath(args);
  if (args.includes('--out') && !out) {
    console.error('schema:compose: --out needs a file path');
    return 2;
  }
  const { urls, problems } = routingUrlsFromEnv(process.env);
  for (const p of problems) console.error(`schema:compose: ${p}`);
  if (problems.length) return 2;
  const composed = compose(await codeSdls(), urls);
  if (!composed.supergraphSdl) {
    for (const e of composed.errors) console.error(`schema:compose: composition: ${e}`);
    return 1;
  }
  const text = `${composed.supergraphSdl.trim()}\n`;
  if (!out) {
    process.stdout.write(text);
    return 0;
  }
  // npm runs scripts in the project root; a relative path means the caller's directory (INIT_CWD).
  const file = path.resolve(process.env.INIT_CWD ?? process.cwd(), out);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  console.error(`schema:compose wrote ${file}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
