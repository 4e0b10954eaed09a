/**
 * A typed client can be generated from what the origins serve: openapi-typescript turns the analysis and
 * allocation origins' GET /openapi.json into TypeScript (its Node API), and the committed client
 * test/fixtures/openapi-client/client.ts.txt, which calls getLatestAnalysis and optimizePortfolio by
 * operationId and reads stage, indicators.rsi_14, pattern_signal, risk_parameters and the book, must
 * type-check against them with --strict (the TypeScript compiler API, nothing emitted). A control shows
 * the check has teeth: the same client does not compile against a document whose result has no required
 * field and an untyped `indicators` (what the document published before: `stage` came out optional and
 * `indicators` as `Record<string, never>`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { strictTypeErrors } from '../helpers/typecheck.js';

/** The client's source (a .txt: it compiles only beside the generated types, not in the project's own build). */
const CLIENT = path.join(PROJECT_ROOT, 'test', 'fixtures', 'openapi-client', 'client.ts.txt');

type Document = { components: { schemas: Record<string, { required?: string[]; properties: Record<string, unknown> }> } };

let store: TestDb;
let platform: RunningPlatform;
const documents: Record<'analysis' | 'allocation', Document> = {} as never;
const dirs: string[] = [];

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(testConfig({ DEMO_DATA: 'false', ANALYZE_ON_START: 'false' }), ['analysis', 'allocation'], { db: store.db });
  for (const origin of ['analysis', 'allocation'] as const) documents[origin] = (await (await fetch(`${platform.urls[origin]}/openapi.json`)).json()) as Document;
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Generates analysis.ts and allocation.ts from the documents beside a copy of the client; its diagnostics under --strict. */
async function typeCheck(docs: Record<'analysis' | 'allocation', object>): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tradegraph-openapi-client-'));
  dirs.push(dir);
  for (const [origin, doc] of Object.entries(docs)) {
    // A request field with a default may be left out (the server fills it in): optional, not required.
    fs.writeFileSync(path.join(dir, `${origin}.ts`), astToString(await openapiTS(doc as Parameters<typeof openapiTS>[0], { defaultNonNullable: false })));
  }
  const client = path.join(dir, 'client.ts');
  fs.copyFileSync(CLIENT, client);
  return strictTypeErrors(client, { lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: [] });
}

it('the client type-checks (--strict) against the types generated from the served documents', async () => {
  expect(await typeCheck(documents)).toEqual([]);
});

it('control: it does not against a result with no required field and an untyped indicators object', async () => {
  const loose = structuredClone(documents.analysis);
  const result = loose.components.schemas.AnalysisLatestResult;
  delete result.required;
  result.properties.indicators = { type: ['object', 'null'] };
  const errors = await typeCheck({ ...documents, analysis: loose });
  expect(errors.length).toBeGreaterThan(0);
  expect(errors.every((e) => e.startsWith('client.ts:'))).toBe(true);
});
