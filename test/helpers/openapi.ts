/**
 * Responses checked against the origin's own OpenAPI document (GET /openapi.json): the schema of the
 * route's documented status must accept the body. Used by the contract tests on every response.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: object }> }> }>>;
  components?: { schemas?: Record<string, object> };
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
