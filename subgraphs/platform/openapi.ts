/**
 * The origin's OpenAPI 3.1 document (`GET /openapi.json`), built by @fastify/swagger from the route
 * schemas that validate requests, and the error shape every route references as `Error#`.
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES } from './errors.js';

/** The error shape of every non-2xx response (DESIGN section 5), `Error#` in route schemas. */
export const ERROR_SCHEMA = {
  $id: 'Error',
  type: 'object',
  required: ['success', 'error', 'code', 'trace_id', 'details'],
  properties: {
    success: { type: 'boolean', const: false },
    error: { type: 'string', description: 'What went wrong, safe to show' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Registry code (subgraphs/platform/errors.ts)' },
    trace_id: { type: 'string', description: 'Also in the x-trace-id header' },
    details: { type: 'array', items: { type: 'object', additionalProperties: true, properties: { field: { type: 'string' }, message: { type: 'string' } } } },
  },
  additionalProperties: true,
} as const;

export interface OpenApiOptions {
  /** Product name of the origin (the document's title). */
  name: string;
  version: string;
  /** JSON Schemas with an `$id` that this origin's routes reference (components of the document). */
  schemas: readonly object[];
}

/** Registers the document's generator and its route; call before the origin's routes. */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  // The OpenAPI 3.1 document comes from the route schemas that validate requests. Responses are
  // written with JSON.stringify, not compiled from those schemas, so documenting them changes nothing.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.name, version: options.version, description: 'REST paths of this origin (spec: http-interfaces.md); GraphQL at /graphql' },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'partner access token' },
          oidc: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'OpenID Connect ID token (opportunity search)' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  for (const schema of [ERROR_SCHEMA, ...options.schemas]) app.addSchema(schema);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
