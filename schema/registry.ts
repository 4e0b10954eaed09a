/**
 * Schema-registry checks, as a registry would run them before a deploy:
 *  1. drift: each subgraph's SDL from code must equal its committed file (schema/<name>.graphql);
 *  2. composition: the three subgraphs must compose into a supergraph (@apollo/composition);
 *  3. compatibility: neither a subgraph nor the composed API schema may break clients of the
 *     *published* schema (schema/published/: what clients were last promised; graphql's
 *     findBreakingChanges) unless the change is recorded in schema/breaking-changes.json with a
 *     reason and an approver (the reviewed allowlist). The working files follow the code; the
 *     published ones move only with `schema:publish`, so a recorded break stays visible until then.
 * Pure: strings in, a verdict out. schema/check.ts does the file I/O.
 */
import { composeServices } from '@apollo/composition';
import { Supergraph } from '@apollo/federation-internals';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { findBreakingChanges, findDangerousChanges, parse, type GraphQLSchema } from 'graphql';
import { SUBGRAPHS, type Subgraph } from '../subgraphs/platform/config.js';


/**
 * Routing URLs written into the committed supergraph: where `npm start` puts the subgraphs. A deployment
 * composes its own supergraph with its URLs (`npm run schema:compose`), or overrides them per gateway.
 */
export const DEFAULT_ROUTING_URLS: Record<Subgraph, string> = {
  analysis: 'http://127.0.0.1:8081/graphql',
  allocation: 'http://127.0.0.1:8082/graphql',
  search: 'http://127.0.0.1:8083/graphql',
};

export type SubgraphSdls = Record<Subgraph, string>;

export interface AllowedChange {
  /** `supergraph` or a subgraph name. */
  schema: string;
  /** graphql BreakingChangeType, e.g. FIELD_REMOVED. */
  type: string;
  /** The change's description exactly as the check prints it. */
  description: string;
  reason: string;
  approved_by: string;
}

export interface SchemaChange {
  schema: string;
  type: string;
  description: string;
}

export type SchemaFiles = Partial<SubgraphSdls> & { supergraph?: string };

export interface CheckInput {
  code: SubgraphSdls;
  /** The working files, schema/<name>.graphql: must equal the code. */
  committed: SchemaFiles;
  /** The published baseline, schema/published/<name>.graphql; the committed files when absent. */
  published?: SchemaFiles;
  allowlist: AllowedChange[];
}

export interface CheckResult {
  ok: boolean;
  problems: string[];
  /** The problems that are only drift between code and the working files (schema:update fixes them). */
  drift: string[];
  /** The supergraph composed from code (undefined when composition failed). */
  supergraphSdl?: string;
  breaking: SchemaChange[];
  /** Breaking changes not recorded in the allowlist. */
  unallowed: SchemaChange[];
  dangerous: SchemaChange[];
}

const normalise = (sdl: string) => sdl.replace(/\r\n/g, '\n').trim();

/** The supergraph of the subgraphs, each routed to its URL in `urls` (DEFAULT_ROUTING_URLS when omitted). */
export function compose(code: SubgraphSdls, urls: Partial<Record<Subgraph, string>> = {}): { supergraphSdl?: string; api?: GraphQLSchema; errors: string[] } {
  const result = composeServices(
    SUBGRAPHS.map((name) => ({ name, url: urls[name] ?? DEFAULT_ROUTING_URLS[name], typeDefs: parse(code[name]) })),
  );
  if (result.errors) return { errors: result.errors.map((e) => e.message) };
  return { supergraphSdl: result.supergraphSdl, api: result.schema.toAPISchema().toGraphQLJSSchema(), errors: [] };
}

export function apiSchemaOfSupergraph(supergraphSdl: string): GraphQLSchema {
  return Supergraph.build(supergraphSdl).apiSchema().toGraphQLJSSchema();
}

const subgraphSchema = (sdl: string) => buildSubgraphSchema(parse(sdl));

function diff(schema: string, before: GraphQLSchema, after: GraphQLSchema) {
  return {
    breaking: findBreakingChanges(before, after).map((c) => ({ schema, type: c.type, description: c.description })),
    dangerous: findDangerousChanges(before, after).map((c) => ({ schema, type: c.type, description: c.description })),
  };
}

/** Breaking and dangerous changes of the code against a baseline (the published schema). */
export function compatibility(input: { code: SubgraphSdls; baseline: SchemaFiles }, api?: GraphQLSchema): { breaking: SchemaChange[]; dangerous: SchemaChange[]; problems: string[] } {
  const breaking: SchemaChange[] = [];
  const dangerous: SchemaChange[] = [];
  const problems: string[] = [];
  const add = (d: ReturnType<typeof diff>) => {
    breaking.push(...d.breaking);
    dangerous.push(...d.dangerous);
  };
  for (const name of SUBGRAPHS) {
    const before = input.baseline[name];
    if (!before) continue;
    try {
      add(diff(name, subgraphSchema(before), subgraphSchema(input.code[name])));
    } catch (err) {
      problems.push(`${name}: cannot build the baseline subgraph schema: ${(err as Error).message}`);
    }
  }
  if (api && input.baseline.supergraph) {
    try {
      add(diff('supergraph', apiSchemaOfSupergraph(input.baseline.supergraph), api));
    } catch (err) {
      problems.push(`supergraph: cannot build the baseline supergraph: ${(err as Error).message}`);
    }
  }
  return { breaking, dangerous, problems };
}

export function isAllowed(change: SchemaChange, allowlist: readonly AllowedChange[]): boolean {
  return allowlist.some(
    (a) => a.schema === change.schema && a.type === change.type && a.description === change.description && a.reason.trim() !== '' && a.approved_by.trim() !== '',
  );
}

export function checkSchemas(input: CheckInput): CheckResult {
  const drift: string[] = [];
  const problems: string[] = [];
  for (const name of SUBGRAPHS) {
    const committed = input.committed[name];
    if (committed === undefined) drift.push(`schema/${name}.graphql is missing: run npm run schema:update`);
    else if (normalise(committed) !== normalise(input.code[name])) {
      drift.push(`schema/${name}.graphql differs from the ${name} subgraph's SDL in code: run npm run schema:update and commit the result`);
    }
  }
  for (const entry of input.allowlist) {
    if (!entry.reason?.trim() || !entry.approved_by?.trim()) problems.push(`breaking-changes.json: "${entry.description}" needs a reason and approved_by`);
  }

  const composed = compose(input.code);
  for (const e of composed.errors) problems.push(`composition: ${e}`);
  if (composed.supergraphSdl) {
    if (input.committed.supergraph === undefined) drift.push('schema/supergraph.graphql is missing: run npm run schema:update');
    else if (normalise(input.committed.supergraph) !== normalise(composed.supergraphSdl)) {
      drift.push('schema/supergraph.graphql differs from the composition of the code: run npm run schema:update and commit the result');
    }
  }

  const compat = compatibility({ code: input.code, baseline: input.published ?? input.committed }, composed.api);
  problems.push(...compat.problems);
  const unallowed = compat.breaking.filter((c) => !isAllowed(c, input.allowlist));
  for (const c of unallowed) problems.push(`breaking change (${c.schema}) ${c.type}: ${c.description}`);

  return {
    ok: drift.length === 0 && problems.length === 0,
    problems: [...drift, ...problems],
    drift,
    supergraphSdl: composed.supergraphSdl,
    breaking: compat.breaking,
    unallowed,
    dangerous: compat.dangerous,
  };
}
