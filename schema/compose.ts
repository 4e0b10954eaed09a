/**
 * `npm run schema:compose [-- --out <file>]`: the supergraph of the code's subgraphs, routed to where a
 * deployment runs them: SUBGRAPH_ANALYSIS_URL, SUBGRAPH_ALLOCATION_URL and SUBGRAPH_SEARCH_URL, each
 * defaulting to the committed supergraph's URL (DEFAULT_ROUTING_URLS). Written to the file `--out`
 * names (a relative path is taken from the working directory, as SUPERGRAPH_PATH is: under npm, the
 * project root), else to stdout. The committed schema/supergraph.graphql keeps the defaults; a composed file is
 * what a gateway of that deployment loads (SUPERGRAPH_PATH, Hive Gateway, Apollo Router).
 */
import fs from 'node:fs';
import path from 'node:path';
import { subgraphUrlsFromEnv } from '../subgraphs/platform/config.js';
import { compose } from './registry.js';
import { codeSdls } from './sdl.js';

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
  const problems: string[] = [];
  const urls = subgraphUrlsFromEnv(process.env, problems);
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
  // Relative to the working directory, as SUPERGRAPH_PATH is read (under npm, the project root).
  const file = path.resolve(out);
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
