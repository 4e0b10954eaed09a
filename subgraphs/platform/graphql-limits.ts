/**
 * Limits every GraphQL endpoint (the three subgraphs and the gateway) puts on an operation before
 * running it, so one request cannot ask for unbounded work:
 *
 *   max tokens      the parser stops after GRAPHQL_MAX_TOKENS tokens (graphql-js parse option)
 *   max depth       fields on the longest path (`{ a { b } }` is 2), through fragments; every field counts,
 *                   introspection fields included (`__schema`, `__type`, `types`, `fields`, `type`, `ofType`...).
 *                   A path that enters introspection may go as deep as the standard introspection query of
 *                   graphql-js (`getIntrospectionQuery()`, 15 deep: its TypeRef fragment nests `ofType` 9 times)
 *                   or GRAPHQL_MAX_DEPTH when that is higher; any deeper `ofType` chain is refused. graphql-js's
 *                   own MaxIntrospectionDepthRule (in Apollo Server's rules) also bounds nested `fields`,
 *                   `interfaces`, `possibleTypes` and `inputFields` lists, but not `ofType`.
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
  getIntrospectionQuery,
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';
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

/** Deepest path of a selection set: one that stays outside introspection, and one through `__schema` or `__type`. */
export interface Depth {
  data: number;
  introspection: number;
}

const ZERO: Depth = { data: 0, introspection: 0 };
const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);

/**
 * Deepest paths of a selection set, following fragment spreads; every field counts, `__typename` and
 * introspection fields included. Each fragment's depth is computed once and cached: a fragment spread
 * many times (or fragments that spread each other in a doubling chain) costs no more than writing
 * them out once. A fragment met again while it is being computed (a cycle, which validation refuses
 * anyway) counts 0.
 */
function depthOf(set: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>, cache: Map<string, Depth>): Depth {
  if (!set) return ZERO;
  let data = 0;
  let introspection = 0;
  const take = (d: Depth) => {
    data = Math.max(data, d.data);
    introspection = Math.max(introspection, d.introspection);
  };
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      const below = depthOf(selection.selectionSet, fragments, cache);
      if (INTROSPECTION_ROOTS.has(selection.name.value)) {
        // Everything under an introspection root is an introspection path.
        take({ data: 0, introspection: 1 + Math.max(below.data, below.introspection) });
      } else {
        take({ data: 1 + below.data, introspection: below.introspection > 0 ? 1 + below.introspection : 0 });
      }
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      take(depthOf(selection.selectionSet, fragments, cache));
    } else {
      const name = selection.name.value;
      let depth = cache.get(name);
      if (depth === undefined) {
        const fragment = fragments.get(name);
        cache.set(name, ZERO); // in progress
        depth = fragment ? depthOf(fragment.selectionSet, fragments, cache) : ZERO;
        cache.set(name, depth);
      }
      take(depth);
    }
  }
  return { data, introspection };
}

/** The document's fragment definitions by name. */
function fragmentsOf(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  return fragments;
}

/** Depth of an operation's longest path (every field, introspection included). */
export function operationDepth(document: DocumentNode): Depth {
  const fragments = fragmentsOf(document);
  const operation = document.definitions.find((def) => def.kind === Kind.OPERATION_DEFINITION);
  return operation && operation.kind === Kind.OPERATION_DEFINITION ? depthOf(operation.selectionSet, fragments, new Map()) : ZERO;
}

/**
 * How deep a path through introspection may go whatever GRAPHQL_MAX_DEPTH says: the depth of the
 * standard introspection query GraphiQL and graphql-js clients send (15 with graphql 16), so schema
 * tools keep working while deeper `ofType` chains are refused.
 */
export const STANDARD_INTROSPECTION_DEPTH = operationDepth(
  parse(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true })),
).introspection;

/** Validation rules for depth, aliases and directives (cost needs variables: see operationCost). */
export function limitRules(limits: GraphqlLimits): Array<(context: ValidationContext) => ASTVisitor> {
  const depth = (context: ValidationContext): ASTVisitor => {
    const fragments = fragmentsOf(context.getDocument());
    return {
      OperationDefinition(node) {
        const found = depthOf(node.selectionSet, fragments, new Map());
        if (found.data > limits.maxDepth) context.reportError(limitError('depth', found.data, limits.maxDepth));
        const introspectionMax = Math.max(limits.maxDepth, STANDARD_INTROSPECTION_DEPTH);
        if (found.introspection > introspectionMax) context.reportError(limitError('introspection depth', found.introspection, introspectionMax));
      },
    };
  };
  // Counted during validation's own walk of the document, reported when it leaves the document.
  const breadth = (context: ValidationContext): ASTVisitor => {
    let aliases = 0;
    let directives = 0;
    return {
      Field(node) {
        if (node.alias) aliases++;
      },
      Directive() {
        directives++;
      },
      Document: {
        leave() {
          if (aliases > limits.maxAliases) context.reportError(limitError('aliases', aliases, limits.maxAliases));
          if (directives > limits.maxDirectives) context.reportError(limitError('directives', directives, limits.maxDirectives));
        },
      },
    };
  };
  return [depth, breadth];
}

/**
 * Connections multiply what they select by the page asked for; a federation entity fetch (`_entities`)
 * by the number of representations it is sent.
 */
const connectionEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (field.name === '_entities') return 1 + (Array.isArray(args.representations) ? args.representations.length : 1) * childComplexity;
  if (!field.args.some((a) => a.name === 'first')) return undefined;
  const first = typeof args.first === 'number' && args.first > 0 ? args.first : CONNECTION_DEFAULT_PAGE;
  return 1 + first * childComplexity;
};

/**
 * The estimated cost of the operation; throws a 400 QUERY_LIMIT_EXCEEDED when it is above the maximum,
 * or when the document is too large to estimate at all. Variables that do not fit the operation are
 * left to the executor, which refuses them with 400 BAD_USER_INPUT (the operation never runs).
 */
export function checkOperationCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown> | undefined, maxCost: number): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0; // the executor reports the missing or ambiguous operation
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return 0;
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
    // getComplexity gives up on documents with very many selections: refuse those, never let them pass.
    if (err instanceof GraphQLError) {
      const cause = new AppError('QUERY_LIMIT_EXCEEDED', 'Query has too many selections to run (its cost cannot even be estimated)', [{ field: 'cost', message: `at most ${maxCost}` }]);
      throw new GraphQLError(cause.message, { originalError: cause, extensions: { http: { status: 400 } } });
    }
    throw err;
  }
  if (cost > maxCost) throw limitError('cost', cost, maxCost);
  return cost;
}

/** In production a subgraph's `_service { sdl }` (the schema, like introspection) is refused. */
export function serviceSdlRule(context: ValidationContext): ASTVisitor {
  return {
    Field(node) {
      if (node.name.value === '_service') {
        context.reportError(
          new GraphQLError('The schema is not served in production', {
            nodes: [node],
            originalError: new AppError('FORBIDDEN', 'The schema is not served in production', [{ field: '_service', message: 'not available' }]),
          }),
        );
      }
    },
  };
}
