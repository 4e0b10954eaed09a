/**
 * Limits every GraphQL endpoint (the three subgraphs and the gateway) puts on an operation before
 * running it, so one request cannot ask for unbounded work:
 *
 *   max tokens      the parser stops after GRAPHQL_MAX_TOKENS tokens (graphql-js parse option)
 *   max depth       fields on the longest path (`{ a { b } }` is 2), through fragments; introspection (__schema, __type)
 *                   subtrees are not counted (they are bounded by the schema, and off in production)
 *   max aliases     aliased fields in the document (alias flooding repeats one expensive field)
 *   max directives  directive uses in the document
 *   max cost        estimated with graphql-query-complexity once variables are known: every field
 *                   costs 1, and a paginated connection (a `first` argument) multiplies what it
 *                   selects by `first` (by CONNECTION_DEFAULT_PAGE when the caller leaves it out)
 *
 * A refused operation is a 400 with code QUERY_LIMIT_EXCEEDED and a message naming the limit, the
 * value found and the maximum. Batched HTTP requests are refused by Apollo Server's default.
 */
import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import { AppError } from './errors.js';
// The CommonJS build: it shares the one graphql instance this process loads through `import 'graphql'`
// (the ESM build imports graphql's .mjs files, a second instance whose schema types ours would not be).
import complexity from 'graphql-query-complexity/cjs';

const { getComplexity, simpleEstimator } = complexity as typeof import('graphql-query-complexity');

export interface GraphqlLimits {
  maxTokens: number;
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
  maxCost: number;
}

export const DEFAULT_GRAPHQL_LIMITS: GraphqlLimits = {
  maxTokens: 4000,
  maxDepth: 12,
  maxAliases: 30,
  maxDirectives: 20,
  maxCost: 25_000,
};

/** Page size assumed for a connection whose `first` is left out (the largest default page served). */
export const CONNECTION_DEFAULT_PAGE = 250;

export function limitError(limit: string, found: number, max: number): GraphQLError {
  const cause = new AppError('QUERY_LIMIT_EXCEEDED', `Query ${limit} ${found} exceeds the maximum of ${max}`, [{ field: limit, message: `at most ${max}` }]);
  // The AppError rides as originalError, so the registry code survives Apollo's wrapping of
  // validation errors; the status applies where the error is thrown after validation (cost).
  return new GraphQLError(cause.message, { originalError: cause, extensions: { http: { status: 400 } } });
}

/** Deepest selection-set nesting of an operation, following fragment spreads (each at most once per path). */
function depthOf(set: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>, seen: Set<string>): number {
  if (!set) return 0;
  let deepest = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value.startsWith('__') && selection.name.value !== '__typename') continue;
      deepest = Math.max(deepest, 1 + depthOf(selection.selectionSet, fragments, seen));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, depthOf(selection.selectionSet, fragments, seen));
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      if (!fragment || seen.has(name)) continue;
      seen.add(name);
      deepest = Math.max(deepest, depthOf(fragment.selectionSet, fragments, seen));
      seen.delete(name);
    }
  }
  return deepest;
}

/** Validation rules for depth, aliases and directives (cost needs variables: see operationCost). */
export function limitRules(limits: GraphqlLimits): Array<(context: ValidationContext) => ASTVisitor> {
  const depth = (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    return {
      OperationDefinition(node) {
        const found = depthOf(node.selectionSet, fragments, new Set());
        if (found > limits.maxDepth) context.reportError(limitError('depth', found, limits.maxDepth));
      },
    };
  };
  const counter = (limit: string, max: number, count: (document: DocumentNode) => number) => (context: ValidationContext): ASTVisitor => ({
    Document(node) {
      const found = count(node);
      if (found > max) context.reportError(limitError(limit, found, max));
    },
  });
  const countNodes = (document: DocumentNode, test: (node: { kind: string; alias?: unknown }) => boolean): number => {
    let n = 0;
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) {
        for (const item of value) walk(item);
      } else if (value && typeof value === 'object' && 'kind' in value) {
        const node = value as { kind: string; alias?: unknown; loc?: unknown };
        if (test(node)) n++;
        for (const [key, child] of Object.entries(node)) if (key !== 'loc') walk(child);
      }
    };
    walk(document);
    return n;
  };
  return [
    depth,
    counter('aliases', limits.maxAliases, (d) => countNodes(d, (n) => n.kind === Kind.FIELD && n.alias !== undefined)),
    counter('directives', limits.maxDirectives, (d) => countNodes(d, (n) => n.kind === Kind.DIRECTIVE)),
  ];
}

/** Connections multiply what they select by the page asked for. */
const connectionEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (!field.args.some((a) => a.name === 'first')) return undefined;
  const first = typeof args.first === 'number' && args.first > 0 ? args.first : CONNECTION_DEFAULT_PAGE;
  return 1 + first * childComplexity;
};

/** The estimated cost of the operation; throws a 400 QUERY_LIMIT_EXCEEDED when it is above the maximum. */
export function checkOperationCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown> | undefined, maxCost: number): number {
  let cost: number;
  try {
    cost = getComplexity({
      schema,
      query: document,
      operationName,
      variables,
      estimators: [connectionEstimator, simpleEstimator({ defaultComplexity: 1 })],
    });
  } catch (err) {
    // Variables that do not fit the operation: it will not run, and the executor reports them to the
    // caller (400 BAD_USER_INPUT) in its own words.
    if (err instanceof GraphQLError) return 0;
    throw err;
  }
  if (cost > maxCost) throw limitError('cost', cost, maxCost);
  return cost;
}
