/**
 * `npm run schema:compose` (the built dist/schema/compose.js, as the script runs it): the supergraph of
 * the code's subgraphs routed to SUBGRAPH_<NAME>_URL, to a file (--out) or stdout; with no variable set
 * it is the committed schema/supergraph.graphql; a variable that is no http(s) URL is refused by name.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runToExit } from '../helpers/child.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';

const COMPOSE_JS = path.join(PROJECT_ROOT, 'dist', 'schema', 'compose.js');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-compose-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The compose script with only these routing variables set (none of the surrounding run's). */
function compose(args: string[], urls: Record<string, string> = {}, options: { cwd?: string; env?: Record<string, string> } = {}) {
  if (!fs.existsSync(COMPOSE_JS)) throw new Error(`${COMPOSE_JS} is missing: run npm run build (npm test does)`);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^SUBGRAPH_\w+_URL$/.test(name)));
  return runToExit(process.execPath, [COMPOSE_JS, ...args], { env: { ...env, ...options.env, ...urls }, cwd: options.cwd });
}

it('routes each subgraph to its SUBGRAPH_<NAME>_URL and writes the file --out names', async () => {
  const out = path.join(dir, 'deploy', 'supergraph.graphql');
  const run = await compose(['--out', out], { SUBGRAPH_ANALYSIS_URL: 'https://analysis.internal/graphql', SUBGRAPH_SEARCH_URL: 'http://10.0.0.7:9000/graphql' });
  expect(run.code).toBe(0);
  const sdl = fs.readFileSync(out, 'utf8');
  expect(sdl).toContain('ANALYSIS @join__graph(name: "analysis", url: "https://analysis.internal/graphql")');
  expect(sdl).toContain('ALLOCATION @join__graph(name: "allocation", url: "http://127.0.0.1:8082/graphql")');
  expect(sdl).toContain('SEARCH @join__graph(name: "search", url: "http://10.0.0.7:9000/graphql")');
});

it('without routing variables prints the committed supergraph', async () => {
  const run = await compose([]);
  expect(run.code).toBe(0);
  expect(run.stdout).toBe(fs.readFileSync(path.join(PROJECT_ROOT, 'schema', 'supergraph.graphql'), 'utf8'));
});

it('refuses a routing URL that is not http(s), naming the variable', async () => {
  const run = await compose([], { SUBGRAPH_ALLOCATION_URL: 'allocation:8082' });
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.stderr).toContain('SUBGRAPH_ALLOCATION_URL must be an http(s) URL (got "allocation:8082")');
});

it('writes a relative --out under the working directory, as SUPERGRAPH_PATH is read (not npm\'s INIT_CWD)', async () => {
  const elsewhere = path.join(dir, 'elsewhere');
  const run = await compose(['--out', 'relative/supergraph.graphql'], {}, { cwd: dir, env: { INIT_CWD: elsewhere } });
  expect(run.code).toBe(0);
  expect(fs.readFileSync(path.join(dir, 'relative', 'supergraph.graphql'), 'utf8')).toBe(fs.readFileSync(path.join(PROJECT_ROOT, 'schema', 'supergraph.graphql'), 'utf8'));
  expect(fs.existsSync(elsewhere)).toBe(false);
});
