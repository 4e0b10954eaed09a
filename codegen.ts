/**
 * GraphQL Code Generator for clients: typed documents and result types for the example operations
 * (examples/operations/*.graphql), and the persisted-documents manifest the gateway's trusted-documents
 * mode loads (TRUSTED_DOCUMENTS=examples/generated/persisted-documents.json: "sha256:<hex>" -> document text);
 * and the same for the web console's operations (console/operations/*.graphql -> console/generated/), as
 * document strings, so the browser bundle carries no GraphQL parser. The build regenerates the console's
 * (scripts/build-console.mjs), so a schema change that breaks one of its operations fails the build.
 *
 * The schema is the supergraph's API schema (what clients see through the gateway: no join or
 * federation directives), computed from the committed schema/supergraph.graphql.
 *
 *   npm run codegen
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Supergraph } from '@apollo/federation-internals';
import type { CodegenConfig } from '@graphql-codegen/cli';
import { printSchema } from 'graphql';

const root = path.dirname(fileURLToPath(import.meta.url));
const supergraphSdl = fs.readFileSync(path.join(root, 'schema/supergraph.graphql'), 'utf8');
/** The client-facing schema of the committed supergraph, as SDL. */
export const apiSchemaSdl = printSchema(Supergraph.build(supergraphSdl).apiSchema().toGraphQLJSSchema());

/** How the schema's types read in TypeScript, for every client. */
const typesConfig = {
  strictScalars: true,
  useTypeImports: true,
  enumsAsTypes: true,
  scalars: {
    LocalDate: 'string',
    SafeInt: 'number',
    JSON: 'unknown',
    JSONObject: 'Record<string, unknown>',
  },
};

/** The example client's and the console's outputs, each from its own operations. */
export const CLIENT_OUTPUTS = {
  examples: 'examples/generated/',
  console: 'console/generated/',
} as const;

const config: CodegenConfig = {
  schema: apiSchemaSdl,
  ignoreNoDocuments: false,
  generates: {
    [CLIENT_OUTPUTS.examples]: {
      documents: ['examples/operations/*.graphql'],
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { hashAlgorithm: 'sha256' },
      },
      config: typesConfig,
    },
    [CLIENT_OUTPUTS.console]: {
      documents: ['console/operations/*.graphql'],
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { hashAlgorithm: 'sha256' },
      },
      config: { ...typesConfig, documentMode: 'string' },
    },
  },
};

export default config;
