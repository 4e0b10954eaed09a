/**
 * GraphQL Code Generator for clients: typed documents and result types for the example operations
 * (examples/operations/*.graphql), and the persisted-documents manifest the gateway's trusted-documents
 * mode loads (TRUSTED_DOCUMENTS=examples/generated/persisted-documents.json: "sha256:<hex>" -> document text).
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

const config: CodegenConfig = {
  schema: apiSchemaSdl,
  documents: ['examples/operations/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    'examples/generated/': {
      preset: 'client',
      presetConfig: {
        fragmentMasking: false,
        persistedDocuments: { hashAlgorithm: 'sha256' },
      },
      config: {
        strictScalars: true,
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: {
          LocalDate: 'string',
          SafeInt: 'number',
          JSON: 'unknown',
          JSONObject: 'Record<string, unknown>',
        },
      },
    },
  },
};

export default config;
