/**
 * Responses checked against the origin's own OpenAPI document (GET /openapi.json): the schema of the
 * route's documented status must accept the body. Used by the contract tests on every response.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';

/** A response header as documented: inline, or a `$ref` to components.headers. */
export interface OpenApiHeader {
  $ref?: string;
  required?: boolean;
  description?: string;
  schema?: object;
}

export interface OpenApiResponse {
  description?: string;
  headers?: Record<string, OpenApiHeader>;
  content?: Record<string, { schema?: object }>;
}

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, OpenApiResponse>;
}

export interface OpenApiDocument {
  openapi: string;
  servers?: Array<{ url: string; description?: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, object>; headers?: Record<string, OpenApiHeader>; securitySchemes?: Record<string, object> };
}

export async function fetchOpenApi(origin: string): Promise<OpenApiDocument> {
  const res = await fetch(`${origin}/openapi.json`);
  if (res.status !== 200) throw new Error(`GET ${origin}/openapi.json: ${res.status}`);
  return (await res.json()) as OpenApiDocument;
}

/** The documented path template a concrete path matches, e.g. /a/{symbol} for /a/ACME. */
export function templateFor(doc: OpenApiDocument, path: string): string | undefined {
  const bare = path.split('?')[0];
  return Object.keys(doc.paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
}

/** Compiled validators per document and (method, template, status): compiling is most of a check's cost. */
const compiled = new WeakMap<OpenApiDocument, Map<string, ValidateFunction>>();
const AJV_OPTIONS = { strict: false, allErrors: true, validateFormats: false } as const;
/** Only formats error lists (each compiled schema gets its own instance: the components carry `$id`s). */
const ajv = new Ajv2020.default(AJV_OPTIONS);

/** Throws when the body does not fit the schema documented for (method, path, status). */
export function checkResponse(doc: OpenApiDocument, method: string, path: string, status: number, body: unknown): void {
  const template = templateFor(doc, path);
  if (!template) throw new Error(`${method} ${path} is not documented`);
  const response = doc.paths[template][method.toLowerCase()]?.responses?.[String(status)];
  if (!response) throw new Error(`${method} ${template} does not document status ${status}`);
  const schema = response.content?.['application/json']?.schema;
  if (!schema) throw new Error(`${method} ${template} ${status} has no JSON schema`);
  const byKey = compiled.get(doc) ?? new Map<string, ValidateFunction>();
  compiled.set(doc, byKey);
  const key = `${method.toUpperCase()} ${template} ${status}`;
  let validate = byKey.get(key);
  if (!validate) {
    // The document's components travel with the schema, so its `#/components/schemas/...` refs resolve.
    validate = new Ajv2020.default(AJV_OPTIONS).compile({ ...schema, components: doc.components });
    byKey.set(key, validate);
  }
  if (!validate(body)) throw new Error(`${method} ${path} ${status}: ${ajv.errorsText(validate.errors)}`);
}

/** Every operation of the document: its path template, method and operation object. */
export function operationsOf(doc: OpenApiDocument): Array<{ path: string; method: string; operation: OpenApiOperation }> {
  return Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
}

/** The headers documented for (method, path, status), `$ref`s resolved, by lower-case name. */
export function documentedHeaders(doc: OpenApiDocument, method: string, path: string, status: number | string): Map<string, OpenApiHeader> {
  const template = templateFor(doc, path);
  const response = template ? doc.paths[template][method.toLowerCase()]?.responses?.[String(status)] : undefined;
  if (!response) throw new Error(`${method} ${path} does not document status ${status}`);
  const out = new Map<string, OpenApiHeader>();
  for (const [name, header] of Object.entries(response.headers ?? {})) {
    const resolved = header.$ref ? doc.components?.headers?.[header.$ref.replace('#/components/headers/', '')] : header;
    if (!resolved) throw new Error(`${method} ${path} ${status}: header ${name} refers to a missing ${header.$ref}`);
    out.set(name.toLowerCase(), resolved);
  }
  return out;
}
