/**
 * OpenAPI 3.1 documents of the origins (GET /openapi.json), generated from the route schemas that
 * validate requests: every origin documents its REST paths, the documents compile as JSON Schema, and
 * they name every field the spec defines (schema/spec-fields.json, itself checked against the spec
 * when ../shared/spec is beside the project). Issue "Production hardening" item 6.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { checkResponse, fetchOpenApi, type OpenApiDocument } from '../helpers/openapi.js';

const SPEC_FIELDS = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'schema', 'spec-fields.json'), 'utf8')) as Record<string, string[] | string>;
const SPEC_FILE = path.resolve(PROJECT_ROOT, '../shared/spec/http-interfaces.md');

let store: TestDb;
let platform: RunningPlatform;
const docs: Record<string, OpenApiDocument> = {};

beforeAll(async () => {
  store = await openTestDb('pglite');
  platform = await startPlatform(testConfig({ DEMO_DATA: 'false', ANALYZE_ON_START: 'false' }), ['analysis', 'allocation', 'search', 'gateway'], { db: store.db });
  for (const [origin, url] of Object.entries(platform.urls)) docs[origin] = await fetchOpenApi(url as string);
});
afterAll(async () => {
  await platform?.close();
  await store?.drop();
});

it.each(['analysis', 'allocation', 'search', 'gateway'])('%s serves an OpenAPI 3.1 document of its REST paths (not /graphql)', (origin) => {
  const doc = docs[origin];
  expect(doc.openapi).toBe('3.1.0');
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/', '/health']));
  expect(Object.keys(doc.paths)).not.toContain('/graphql');
  expect(Object.keys(doc.paths['/health'].get.responses ?? {})).toEqual(expect.arrayContaining(['200']));
});

it('the analysis document has both read routes with every documented status (spec "Analysis service")', () => {
  const paths = docs.analysis.paths;
  expect(Object.keys(paths['/api/v1/results/analysis/{symbol}'].get.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '404', '500', '503']));
  expect(Object.keys(paths['/api/v1/demo/results/analysis/{symbol}'].get.responses ?? {})).toEqual(expect.arrayContaining(['200', '403', '404']));
});

it('every document compiles as JSON Schema 2020-12', () => {
  for (const doc of Object.values(docs)) {
    const ajv = new Ajv2020.default({ strict: false });
    expect(() => ajv.compile({ type: 'object', components: doc.components })).not.toThrow();
    for (const route of Object.values(doc.paths)) {
      for (const operation of Object.values(route)) {
        for (const response of Object.values(operation.responses ?? {})) {
          const schema = response.content?.['application/json']?.schema;
          if (schema) expect(() => new Ajv2020.default({ strict: false }).compile({ ...schema, components: doc.components })).not.toThrow();
        }
      }
    }
  }
});

it('names every field of the spec\'s resources (schema/spec-fields.json)', () => {
  const schemas = docs.analysis.components?.schemas as Record<string, { properties?: Record<string, unknown> }>;
  for (const [resource, fields] of Object.entries(SPEC_FIELDS)) {
    if (!Array.isArray(fields)) continue;
    expect({ resource, missing: fields.filter((f) => !(f in (schemas[resource]?.properties ?? {}))) }).toEqual({ resource, missing: [] });
  }
});

it('checkResponse refuses a body that breaks the documented shape (the contract tests rely on it)', () => {
  expect(() => checkResponse(docs.analysis, 'GET', '/api/v1/results/analysis/ACME', 200, { success: true, timestamp: 'x', result: { price: 'ten' }, error: null })).toThrow(/price/);
  expect(() => checkResponse(docs.analysis, 'GET', '/api/v1/results/analysis/ACME', 404, { success: false, code: 'NOPE' })).toThrow();
  expect(() => checkResponse(docs.analysis, 'GET', '/health', 200, { status: 'ok' })).not.toThrow();
});

(fs.existsSync(SPEC_FILE) ? it : it.skip)('schema/spec-fields.json lists exactly the fields of the spec\'s tables', () => {
  const spec = fs.readFileSync(SPEC_FILE, 'utf8');
  const fieldsUnder = (heading: RegExp): string[] => {
    const start = spec.search(heading);
    const rest = spec.slice(start).split('\n').slice(1);
    const end = rest.findIndex((line) => line.startsWith('#'));
    return (end < 0 ? rest : rest.slice(0, end)).filter((l) => /^\| [a-z_]+ \|/.test(l)).map((l) => l.split('|')[1].trim());
  };
  expect(fieldsUnder(/^### Analysis service: AnalysisResultResponse/m)).toEqual(SPEC_FIELDS.AnalysisResultResponse);
  expect(fieldsUnder(/^### AnalysisLatestResult/m)).toEqual(SPEC_FIELDS.AnalysisLatestResult);
  expect(fieldsUnder(/^### PatternEntry/m)).toEqual(SPEC_FIELDS.PatternEntry);
});
