/**
 * OpenAPI 3.1 documents of the origins (GET /openapi.json), generated from the route schemas that
 * validate requests: every origin documents its REST paths, the documents compile as JSON Schema, and
 * they name every field the spec defines (schema/spec-fields.json, itself checked against the spec
 * when ../shared/spec is beside the project).
 *
 * What a generated client relies on (spec "Endpoints", "Authentication", "Errors"): an operationId on
 * every operation, `servers`, the security of every operation (`[]` on public ones), and the headers of
 * every response, documented and actually sent: x-trace-id, the RateLimit-* fields where the rate limit
 * counts, Retry-After on 429 and 503, WWW-Authenticate on 401, ETag and Cache-Control on the analysis reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { startPlatform, type RunningPlatform } from '../../cli/platform.js';
import { PROJECT_ROOT } from '../../subgraphs/platform/project.js';
import { testConfig } from '../helpers/config.js';
import { openTestDb, type TestDb } from '../helpers/db.js';
import { mintPartnerToken } from '../../subgraphs/platform/auth.js';
import { checkResponse, documentedHeaders, fetchOpenApi, operationsOf, templateFor, type OpenApiDocument } from '../helpers/openapi.js';
import { TEST_SECRET } from '../helpers/config.js';

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
  // DESIGN section 8 "evidence": the partner route of the as-of evidence tables
  expect(Object.keys(paths['/api/v1/analysis/evidence'].get.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '404', '500', '503']));
  // The read's result documents the presented keys (evidence, calibration, a pattern's raw_confidence).
  const schemas = docs.analysis.components?.schemas as Record<string, { properties?: Record<string, { description?: string }> }>;
  const result = Object.values(schemas).find((s) => s.properties?.analysis_timestamp && s.properties?.evidence);
  expect(result?.properties?.calibration).toBeDefined();
  expect(result?.properties?.confidence?.description).toMatch(/calibrated/);
  expect(Object.values(schemas).some((s) => s.properties?.raw_confidence?.description)).toBe(true);
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

it('the allocation document has its routes with every documented status (spec "Allocation service"; DESIGN section 8 "portfolios")', () => {
  const paths = docs.allocation.paths;
  expect(Object.keys(paths['/api/v1/portfolios/optimize'].post.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '503']));
  expect(Object.keys(paths['/api/v1/demo/optimize-body'].get.responses ?? {})).toEqual(expect.arrayContaining(['200']));
  expect(Object.keys(paths['/api/v1/portfolios/{id}'].get.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '404']));
  expect(Object.keys(paths['/api/v1/portfolios/{id}/optimization'].get.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '404']));
  expect(Object.keys(paths['/api/v1/portfolios'].post.responses ?? {})).toEqual(expect.arrayContaining(['201', '400', '401', '413', '415', '503']));
  expect(Object.keys(paths['/api/v1/portfolios/import'].post.responses ?? {})).toEqual(expect.arrayContaining(['201', '400', '401', '413', '415', '503']));
  expect(Object.keys(paths['/api/v1/portfolios/{id}/trades'].get.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '404']));
  for (const write of ['/api/v1/portfolios/{id}/trades', '/api/v1/portfolios/{id}/rebalance']) {
    expect(Object.keys(paths[write].post.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '404', '412', '415', '503']));
  }
});

it('the search document has hunt and cash-hunt with every documented status (spec "Opportunity-search service")', () => {
  const paths = docs.search.paths;
  for (const route of ['/api/v1/portfolios/hunt', '/api/v1/portfolios/cash-hunt']) {
    expect(Object.keys(paths[route].get.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '401', '500', '503']));
  }
});

it('the allocation request schemas state the validation rules and refuse unknown fields; responses allow extra keys', async () => {
  const doc = docs.allocation;
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: false });
  const request = ajv.compile({ $ref: '#/components/schemas/PortfolioRequest', components: doc.components });
  const demoBody = (await (await fetch(`${platform.urls.allocation}/api/v1/demo/optimize-body`)).json()) as Record<string, unknown>;
  expect(request(demoBody)).toBe(true);
  expect(() => checkResponse(doc, 'GET', '/api/v1/demo/optimize-body', 200, demoBody)).not.toThrow();
  expect(request({ ...demoBody, totalCapital: 5000 })).toBe(false);
  expect(request({ ...demoBody, risk_settings: { max_positions: 10, extra: 1 } })).toBe(false);
  expect(request({ ...demoBody, total_capital: 999.99 })).toBe(false);
  expect(request({ ...demoBody, risk_settings: { max_risk_per_trade: 1.5 } })).toBe(false);
  expect(request({ ...demoBody, risk_settings: { max_positions: 501 } })).toBe(false);
  expect(request({ ...demoBody, risk_settings: { allocation_strategy: 'MEAN_VARIANCE' } })).toBe(false);
  expect(request({ ...demoBody, name: 'x'.repeat(201) })).toBe(false);
  expect(request({ ...demoBody, constraint_pack: { max_portfolio_turnover_annual: 1 } })).toBe(false); // schema_version is required
  expect(request({ ...demoBody, constraint_pack: { schema_version: '1', sector_caps: { Energy: 1.2 } } })).toBe(false);
  expect(request({ ...demoBody, policy_explanation: { bullets: Array.from({ length: 51 }, () => 'line') } })).toBe(false);
  expect(
    request({
      ...demoBody,
      currency: 'EUR',
      risk_settings: { allocation_strategy: 'STAGE_WEIGHTED', stage_weights: { 'STAGE 2': 1, stage_1: 0.3 }, half_kelly: null },
      investor_profile: { schema_version: '1', recorded_at: '2024-05-01T00:00:00Z', risk_quiz_answers: { goal: 'growth' }, suggested_preset: null },
      constraint_pack: { schema_version: '1', vol_target_annual: 0.18, sector_caps: { DEFAULT: 0.1, Energy: 0.3 }, covariance_model: null },
      prior_book_weights: { ACME: 0.4 },
      policy_explanation: null,
    }),
  ).toBe(true);

  const row = {
    symbol: 'ACME', shares: 10, position_type: 'LONG', entry_price: 50, position_value: 500, risk_amount: 25, percent_of_account: 0.005,
    stop_loss: 47.5, target_price: null, risk_reward_ratio: 0, confidence: null, stage: 'STAGE 2', entry_date: '2024-05-01', signal: 'BUY',
    stage_strength: null, signal_confidence: null, signal_reason: null, bb_width: null, atr: null, atr_percent: null, volatility_trend: null,
    is_high_volatility: null, volatility_stop_loss_levels: null, historical_volatility: null, support_levels: [{ price: 45, strength: null }],
    resistance_levels: null, extra_key: 'allowed',
  };
  const response = {
    portfolio_id: 'p1', name: 'Demo portfolio', description: null, total_capital: 100000, allocated_capital: 500, remaining_capital: 99500,
    position_count: 1, allocations: [row], created_at: '2024-05-02T00:00:00.000Z', currency: 'USD', risk_settings: demoBody.risk_settings,
    trace_id: 't1', optimizer_diagnostics: null, policy_explanation: { schema_version: '1', mapper_version: '1.0.0', preset_key: null, bullets: [] },
    constraint_pack: null, investor_profile: null, analysis_date: '2024-05-01', extra_key: 'allowed',
  };
  expect(() => checkResponse(doc, 'POST', '/api/v1/portfolios/optimize', 200, response)).not.toThrow();
  expect(() => checkResponse(doc, 'GET', '/api/v1/portfolios/p1/optimization', 200, response)).not.toThrow();
  expect(() => checkResponse(doc, 'POST', '/api/v1/portfolios/optimize', 200, { ...response, allocations: [{ ...row, shares: 'ten' }] })).toThrow(/shares/);
  expect(() => checkResponse(doc, 'POST', '/api/v1/portfolios/optimize', 200, { ...response, trace_id: undefined })).toThrow(/trace_id/);
});

it('names every field of the spec\'s resources (schema/spec-fields.json)', () => {
  // Each resource is a component of the origin serving it (analysis, allocation or search).
  const schemas = { ...docs.analysis.components?.schemas, ...docs.allocation.components?.schemas, ...docs.search.components?.schemas } as Record<
    string,
    { properties?: Record<string, unknown> }
  >;
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
  const sectionUnder = (heading: RegExp): string[] => {
    const start = spec.search(heading);
    expect(start).toBeGreaterThanOrEqual(0);
    const rest = spec.slice(start).split('\n').slice(1);
    const end = rest.findIndex((line) => line.startsWith('#'));
    return end < 0 ? rest : rest.slice(0, end);
  };
  /** The field column of each table under the heading, table by table. */
  const tablesUnder = (heading: RegExp): string[][] => {
    const tables: string[][] = [];
    let current: string[] | null = null;
    for (const line of sectionUnder(heading)) {
      if (!line.startsWith('|')) current = null;
      else if (/^\| [a-z_]+ \|/.test(line)) {
        if (!current) tables.push((current = []));
        current.push(line.split('|')[1].trim());
      } else if (!current) tables.push((current = []));
    }
    return tables;
  };
  const fieldsUnder = (heading: RegExp): string[] => tablesUnder(heading).flat();
  /** Fields of a one-line definition `Name: field (type...), field (type...), ...` in the section. */
  const fieldsOfLine = (heading: RegExp, name: string): string[] => {
    const line = sectionUnder(heading).find((l) => l.startsWith(`${name}: `));
    expect(line).toBeDefined();
    const fields: string[] = [];
    let depth = 0;
    let item = '';
    for (const ch of `${line!.slice(name.length + 2)},`) {
      if (ch === '(') depth += 1;
      if (ch === ')') depth -= 1;
      if (ch === ',' && depth === 0) {
        if (item.trim()) fields.push(/^[a-z_]+/.exec(item.trim())?.[0] ?? item.trim());
        item = '';
      } else item += ch;
    }
    return fields;
  };
  expect(fieldsUnder(/^### Analysis service: AnalysisResultResponse/m)).toEqual(SPEC_FIELDS.AnalysisResultResponse);
  expect(fieldsUnder(/^### AnalysisLatestResult/m)).toEqual(SPEC_FIELDS.AnalysisLatestResult);
  expect(fieldsUnder(/^### PatternEntry/m)).toEqual(SPEC_FIELDS.PatternEntry);

  const request = /^### Allocation service: PortfolioRequest/m;
  expect(tablesUnder(request)).toEqual([SPEC_FIELDS.PortfolioRequest, SPEC_FIELDS.RiskSettings]);
  expect(fieldsOfLine(request, 'InvestorProfileV1')).toEqual(SPEC_FIELDS.InvestorProfileV1);
  expect(fieldsOfLine(request, 'ConstraintPackV1')).toEqual(SPEC_FIELDS.ConstraintPackV1);
  expect(fieldsOfLine(request, 'PolicyExplanationV1')).toEqual(SPEC_FIELDS.PolicyExplanationV1);
  expect(tablesUnder(/^### Allocation service: PortfolioResponse/m)).toEqual([
    SPEC_FIELDS.PortfolioResponse,
    SPEC_FIELDS.PortfolioAllocation,
    SPEC_FIELDS.OptimizerDiagnosticsV1,
  ]);

  const search = /^### Opportunity-search service responses/m;
  expect(tablesUnder(search)).toEqual([SPEC_FIELDS.HuntResponse]);
  expect(fieldsOfLine(search, 'CashHuntResponse')).toEqual(SPEC_FIELDS.CashHuntResponse);
});

// spec "Endpoints" (each operation of each service) and "Common to all three services" (GET /, /health)
const OPERATION_IDS: Record<string, Record<string, string>> = {
  analysis: {
    'GET /api/v1/results/analysis/{symbol}': 'getLatestAnalysis',
    'GET /api/v1/demo/results/analysis/{symbol}': 'getDemoAnalysis',
    'GET /api/v1/analysis/evidence': 'getEvidenceTable',
  },
  allocation: {
    'POST /api/v1/portfolios/optimize': 'optimizePortfolio',
    'GET /api/v1/demo/optimize-body': 'getDemoOptimizeBody',
    'GET /api/v1/portfolios/{id}': 'getPortfolio',
    'GET /api/v1/portfolios/{id}/optimization': 'getPortfolioOptimization',
    'POST /api/v1/portfolios': 'createPortfolio',
    'POST /api/v1/portfolios/import': 'importPortfolio',
    'GET /api/v1/portfolios/{id}/trades': 'listPortfolioTrades',
    'POST /api/v1/portfolios/{id}/trades': 'recordTrade',
    'POST /api/v1/portfolios/{id}/rebalance': 'rebalancePortfolio',
  },
  search: { 'GET /api/v1/portfolios/hunt': 'huntPortfolio', 'GET /api/v1/portfolios/cash-hunt': 'cashHuntPortfolio' },
  gateway: {},
};

it.each(Object.keys(OPERATION_IDS))('%s: every operation has its stable camelCase operationId (spec "Endpoints")', (origin) => {
  const ids = Object.fromEntries(operationsOf(docs[origin]).map(({ path, method, operation }) => [`${method.toUpperCase()} ${path}`, operation.operationId]));
  expect(ids).toEqual({ 'GET /': 'getServiceInfo', 'GET /health': 'getHealth', ...OPERATION_IDS[origin] });
  for (const id of Object.values(ids)) expect(id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
});

it.each(Object.keys(OPERATION_IDS))('%s: servers is the serving origin, relative (spec "Versioning" 1: each service on its own origin)', (origin) => {
  expect(docs[origin].servers).toEqual([{ url: '/', description: expect.any(String) }]);
});

// spec "Authentication": partner bearer tokens on the analysis read and optimize (optional there: the
// demo body needs none), OIDC ID tokens on hunt and cash-hunt; `/`, `/health` and the demo routes public.
it('security: [] on public operations, the bearer or OIDC scheme on protected ones (spec "Authentication")', () => {
  const security = (origin: string) =>
    Object.fromEntries(operationsOf(docs[origin]).map(({ path, method, operation }) => [`${method.toUpperCase()} ${path}`, operation.security]));
  const publicShell = { 'GET /': [], 'GET /health': [] };
  expect(security('analysis')).toEqual({
    ...publicShell,
    'GET /api/v1/results/analysis/{symbol}': [{ bearer: [] }],
    'GET /api/v1/analysis/evidence': [{ bearer: [] }],
    'GET /api/v1/demo/results/analysis/{symbol}': [],
  });
  expect(security('allocation')).toEqual({
    ...publicShell,
    'POST /api/v1/portfolios/optimize': [{ bearer: [] }, {}],
    'GET /api/v1/demo/optimize-body': [],
    'GET /api/v1/portfolios/{id}': [{ bearer: [] }],
    'GET /api/v1/portfolios/{id}/optimization': [{ bearer: [] }],
    'POST /api/v1/portfolios': [{ bearer: [] }],
    'POST /api/v1/portfolios/import': [{ bearer: [] }],
    'GET /api/v1/portfolios/{id}/trades': [{ bearer: [] }],
    'POST /api/v1/portfolios/{id}/trades': [{ bearer: [] }],
    'POST /api/v1/portfolios/{id}/rebalance': [{ bearer: [] }],
  });
  expect(security('search')).toEqual({ ...publicShell, 'GET /api/v1/portfolios/hunt': [{ oidc: [] }], 'GET /api/v1/portfolios/cash-hunt': [{ oidc: [] }] });
  expect(security('gateway')).toEqual(publicShell);
  // Only the schemes in use are declared (the gateway's REST paths use none).
  expect(Object.keys(docs.analysis.components?.securitySchemes ?? {})).toEqual(['bearer']);
  expect(Object.keys(docs.search.components?.securitySchemes ?? {})).toEqual(['oidc']);
  expect(docs.gateway.components?.securitySchemes).toBeUndefined();
});

// spec "Errors" (each status where it applies; 429 "not listed per endpoint", so every limited one has it)
it('every response documents its headers, and the refusals each operation can meet reference Error (spec "Errors")', () => {
  for (const [origin, doc] of Object.entries(docs)) {
    for (const { path, method, operation } of operationsOf(doc)) {
      const limited = path !== '/' && path !== '/health';
      const statuses = Object.keys(operation.responses ?? {});
      expect({ origin, path, statuses }).toEqual({ origin, path, statuses: expect.arrayContaining(['400', '503', 'default', ...(limited ? ['429'] : [])]) });
      for (const status of statuses) {
        const response = operation.responses![status];
        expect({ path, status, description: response.description }).toEqual({ path, status, description: expect.not.stringMatching(/^(Default Response)?$/) });
        const headers = documentedHeaders(doc, method, path.replace(/\{[^}]+\}/g, 'X'), status);
        const expected = ['x-trace-id'];
        if (limited) expected.push('ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset');
        if (status === '429' || status === '503') expected.push('retry-after');
        if (status === '401') expected.push('www-authenticate');
        expect({ path, status, headers: [...headers.keys()] }).toEqual({ path, status, headers: expect.arrayContaining(expected) });
        expect(headers.get('x-trace-id')?.required).toBe(true);
        if (status.startsWith('4') || status.startsWith('5') || status === 'default') {
          expect(JSON.stringify(response.content)).toMatch(/#\/components\/schemas\/(Error|AnalysisError)"/);
        }
      }
    }
  }
  // The analysis reads: ETag and Cache-Control on every 200 and 304, always sent.
  for (const path of ['/api/v1/results/analysis/X', '/api/v1/demo/results/analysis/X', '/api/v1/analysis/evidence']) {
    for (const status of [200, 304]) {
      const headers = documentedHeaders(docs.analysis, 'GET', path, status);
      expect({ path, status, etag: headers.get('etag')?.required, cache: headers.get('cache-control')?.required }).toEqual({ path, status, etag: true, cache: true });
    }
  }
});

/** Headers of the product's that a response may carry; each one present must be documented for its status. */
const PRODUCT_HEADERS = ['x-trace-id', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'www-authenticate', 'etag', 'cache-control', 'idempotent-replayed'];

describe('the documented headers are the ones real responses carry (a small rate limit, to meet a 429)', () => {
  const config = testConfig({ DEMO_DATA: 'false', ANALYZE_ON_START: 'false', RATE_LIMIT_ANALYSIS_MAX: '3', RATE_LIMIT_WINDOW_MS: '3600000' }); // one window for the whole test, however slow the machine
  let limited: RunningPlatform;
  let limitedStore: TestDb;
  const own: Record<string, OpenApiDocument> = {};
  beforeAll(async () => {
    limitedStore = await openTestDb('pglite');
    limited = await startPlatform(config, ['analysis', 'allocation', 'search'], { db: limitedStore.db });
    for (const origin of ['analysis', 'allocation', 'search'] as const) own[origin] = await fetchOpenApi(limited.urls[origin] as string);
  });
  afterAll(async () => {
    await limited?.close();
    await limitedStore?.drop();
  });

  /** Sends the request and checks its status, body and headers against the origin's own document. */
  const call = async (origin: string, method: string, path: string, init: RequestInit = {}): Promise<number> => {
    const res = await fetch(`${limited.urls[origin as 'analysis']}${path}`, { method, ...init });
    const text = await res.text();
    expect(templateFor(own[origin], path)).toBeDefined();
    if (text) checkResponse(own[origin], method, path, res.status, JSON.parse(text));
    const documented = documentedHeaders(own[origin], method, path, res.status);
    for (const [name, header] of documented) if (header.required) expect({ path, status: res.status, name, sent: res.headers.has(name) }).toEqual({ path, status: res.status, name, sent: true });
    for (const name of PRODUCT_HEADERS) if (res.headers.has(name)) expect({ path, status: res.status, name, documented: documented.has(name) }).toEqual({ path, status: res.status, name, documented: true });
    return res.status;
  };

  it('on every origin: the shell routes, 200s, 400s, 401s, 404s and a 429', async () => {
    const token = await mintPartnerToken({ secret: TEST_SECRET, issuer: config.auth.issuer, audience: config.auth.audiences.analysis, subject: 'headers' });
    const partner = { headers: { authorization: `Bearer ${token}` } };
    const statuses: number[] = [];
    statuses.push(await call('analysis', 'GET', '/'), await call('analysis', 'GET', '/health'));
    statuses.push(await call('analysis', 'GET', '/api/v1/results/analysis/ACME')); // 401: no token
    statuses.push(await call('analysis', 'GET', '/api/v1/results/analysis/ACME?date=2024-02-30', partner)); // 400
    statuses.push(await call('analysis', 'GET', '/api/v1/demo/results/analysis/ZZZZ')); // 403: not the demo symbol
    statuses.push(await call('analysis', 'GET', '/api/v1/demo/results/analysis/ACME')); // the fourth anonymous analysis request (with /openapi.json; a budget of 3): 429
    statuses.push(await call('allocation', 'GET', '/api/v1/demo/optimize-body'));
    statuses.push(await call('allocation', 'POST', '/api/v1/portfolios/optimize', { headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' })); // 400
    statuses.push(await call('allocation', 'GET', '/api/v1/portfolios/nope')); // 401
    statuses.push(await call('search', 'GET', '/api/v1/portfolios/hunt?portfolio_id=p1')); // 401, 503 without audiences, 400 where tokens are not checked
    expect(statuses).toEqual([200, 200, 401, 400, 403, 429, 200, 400, 401, expect.any(Number)]);
    expect([400, 401, 503]).toContain(statuses[9]);
  });
});
