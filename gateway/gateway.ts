/**
 * The federated gateway: @apollo/gateway over the committed supergraph (schema/supergraph.graphql),
 * the same file Apollo Router would load. It forwards the caller's Authorization and trace headers
 * to each subgraph and bounds every subgraph call by a timeout.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { ApolloGateway, type GraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { FastifyInstance } from 'fastify';
import { GraphQLError } from 'graphql';
import type { Config, Subgraph } from '../subgraphs/platform/config.js';
import { ERROR_CODES } from '../subgraphs/platform/errors.js';
import { createOrigin } from '../subgraphs/platform/http.js';
import { addressKey, originRateLimit } from '../subgraphs/platform/rate-limit.js';
import { PROJECT_ROOT, VERSION } from '../subgraphs/platform/project.js';
import { trustedDocumentsMount } from './trusted-documents.js';

export interface GatewayContext {
  traceId: string;
  /** The caller's address, passed on as X-Forwarded-For (subgraphs that trust the gateway count by it). */
  clientIp?: string;
  authorization?: string;
  traceparent?: string;
}

export const SUPERGRAPH_FILE = path.join(PROJECT_ROOT, 'schema', 'supergraph.graphql');

type SubgraphResponse = Awaited<ReturnType<GraphQLDataSource['process']>>;

/** Where a subgraph's requests go: its URL as request options (parsed once), and a keep-alive agent. */
interface SubgraphTarget {
  client: typeof http | typeof https;
  options: http.RequestOptions;
}

/** What came back from a subgraph: status, the headers the error relay reads, and the whole body. */
interface SubgraphAnswer {
  status: number;
  statusText: string;
  contentType: string;
  retryAfter: string | undefined;
  body: string;
}

/**
 * One POST over a keep-alive connection, bounded by a deadline for the whole answer (headers and
 * body): a slow or hung subgraph fails its part of the plan instead of the whole request hanging.
 */
function post(target: SubgraphTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SubgraphAnswer> {
  return new Promise((resolve, reject) => {
    const req = target.client.request({ ...target.options, method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(deadline);
        const retryAfter = res.headers['retry-after'];
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          contentType: res.headers['content-type'] ?? '',
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      res.on('error', fail);
    });
    function fail(err: Error) {
      clearTimeout(deadline);
      reject(err);
    }
    const deadline = setTimeout(() => req.destroy(new Error(`subgraph timeout after ${timeoutMs} ms`)), timeoutMs);
    req.on('error', fail);
    req.end(body);
  });
}

const isJson = (contentType: string): boolean => /^application\/(graphql-response\+)?json/i.test(contentType);

type RelayedBody = {
  errors?: Array<{ message?: unknown; extensions?: { code?: unknown; details?: unknown } }>;
  error?: unknown;
  code?: unknown;
  details?: unknown;
};

/**
 * The gateway's client for one subgraph: the GraphQL-over-HTTP POST that @apollo/gateway's query plan
 * asks for (query, variables, operationName, extensions, and any header the plan adds, such as the
 * inline-trace request), with the caller's Authorization, trace and address headers forwarded.
 *
 * It stands in for RemoteGraphQLDataSource, whose per-call WHATWG fetch, node-fetch Request and
 * Headers objects cost more CPU than the gateway spent on everything else (bench:gateway). The plan,
 * its execution and the merging of results stay @apollo/gateway's.
 *
 * Failures, so that the rest of the plan still answers:
 * - unreachable, no whole answer within the timeout, a 5xx, or a 2xx that is not a JSON object:
 *   SERVICE_UNAVAILABLE naming the subgraph, never its address, the socket error or the body;
 * - a refusal (4xx): the subgraph's own error, from a GraphQL errors body or (a rate limit, which acts
 *   before GraphQL) the REST error shape with its registry code and Retry-After.
 */
class SubgraphDataSource implements GraphQLDataSource<GatewayContext> {
  private readonly target: SubgraphTarget;

  constructor(
    private readonly subgraph: string,
    url: string,
    private readonly timeoutMs: number,
    agents: { http: http.Agent; https: https.Agent },
  ) {
    const u = new URL(url);
    const secure = u.protocol === 'https:';
    this.target = {
      client: secure ? https : http,
      options: {
        protocol: u.protocol,
        hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'), // an IPv6 literal without its brackets
        port: u.port || undefined,
        path: `${u.pathname}${u.search}`,
        auth: u.username ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : undefined,
        agent: secure ? agents.https : agents.http,
      },
    };
  }

  async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<SubgraphResponse> {
    const { request } = options;
    if (!request.query) throw new Error('Missing query');
    const headers: Record<string, string> = {};
    for (const [name, value] of request.http?.headers ?? []) headers[name] = value;
    headers['content-type'] = 'application/json';
    const context = options.context as Partial<GatewayContext>;
    if (context.traceId) headers['x-trace-id'] = context.traceId;
    if (context.authorization) headers.authorization = context.authorization;
    if (context.traceparent) headers.traceparent = context.traceparent;
    if (context.clientIp) headers['x-forwarded-for'] = context.clientIp;
    const body = JSON.stringify({ query: request.query, variables: request.variables, operationName: request.operationName, extensions: request.extensions });
    headers['content-length'] = String(Buffer.byteLength(body));

    let answer: SubgraphAnswer;
    try {
      answer = await post(this.target, headers, body, this.timeoutMs);
    } catch {
      throw this.unavailable();
    }
    if (answer.status >= 500) throw this.unavailable();
    const parsed: unknown = isJson(answer.contentType) ? parseJson(answer.body) : answer.body;
    if (answer.status < 200 || answer.status >= 300) throw keepRateLimitStatus(refusal(answer, parsed), answer);
    // An answer that is not a GraphQL response (a proxy's page, say) is no usable answer either.
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw this.unavailable();
    return parsed as SubgraphResponse;
  }

  private unavailable(): GraphQLError {
    return new GraphQLError(`The ${this.subgraph} service is unavailable; try again shortly`, {
      extensions: { code: 'SERVICE_UNAVAILABLE', details: [{ field: this.subgraph, message: 'no usable answer from the subgraph' }] },
    });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A subgraph's 4xx as the caller's error: its first GraphQL error, its REST error, or the bare status. */
function refusal(answer: SubgraphAnswer, parsed: unknown): GraphQLError {
  const body = (parsed !== null && typeof parsed === 'object' ? parsed : {}) as RelayedBody;
  const first = body.errors?.[0];
  if (first && typeof first.message === 'string') {
    return new GraphQLError(first.message, { extensions: { code: first.extensions?.code, details: first.extensions?.details ?? [] } });
  }
  if (typeof body.error === 'string' && typeof body.code === 'string' && body.code in ERROR_CODES) {
    const details = [...(Array.isArray(body.details) ? body.details : []), ...(answer.retryAfter ? [{ field: 'retry_after_seconds', message: answer.retryAfter }] : [])];
    return new GraphQLError(body.error, { extensions: { code: body.code, details } });
  }
  const code = answer.status === 401 ? 'UNAUTHENTICATED' : answer.status === 403 ? 'FORBIDDEN' : undefined;
  return new GraphQLError(`${answer.status}: ${answer.statusText}`, { extensions: { code } });
}

/**
 * A subgraph's 429 (a rate limit) stays a 429 with its Retry-After for the caller: Apollo Server applies
 * a GraphQL error's `extensions.http` to the response (the whole response, even when other subgraphs
 * answered their part).
 */
function keepRateLimitStatus(error: GraphQLError, answer: SubgraphAnswer): GraphQLError {
  if (answer.status !== 429) return error;
  const headers = new Map<string, string>(answer.retryAfter ? [['retry-after', answer.retryAfter]] : []);
  return new GraphQLError(error.message, { extensions: { ...error.extensions, http: { status: 429, headers } } });
}

export function createGateway(options: {
  supergraphSdl: string;
  subgraphUrls: Record<Subgraph, string>;
  subgraphTimeoutMs: number;
  /** Answer a request carrying `Apollo-Query-Plan-Experimental` with its query plan (a debugging aid). */
  exposeQueryPlans: boolean;
}): ApolloGateway {
  const urls: Record<string, string> = options.subgraphUrls;
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  return new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    // @apollo/gateway decides this from NODE_ENV, which a production deployment may not set; the plan
    // names the subgraphs and how a query is split between them, so it follows APP_ENV like introspection.
    __exposeQueryPlanExperimental: options.exposeQueryPlans,
    buildService: ({ name, url }) => {
      const target = urls[name] ?? url;
      if (!target) throw new Error(`No URL for the ${name} subgraph`);
      return new SubgraphDataSource(name, target, options.subgraphTimeoutMs, agents);
    },
  });
}

export async function buildGatewayOrigin(config: Config, supergraphSdl = fs.readFileSync(SUPERGRAPH_FILE, 'utf8')): Promise<FastifyInstance> {
  const gateway = createGateway({
    supergraphSdl,
    subgraphUrls: config.gateway.subgraphUrls,
    subgraphTimeoutMs: config.gateway.subgraphTimeoutMs,
    exposeQueryPlans: config.env !== 'production',
  });
  return createOrigin<GatewayContext>({
    name: 'tradegraph-gateway',
    version: VERSION,
    env: config.env,
    logLevel: config.logLevel,
    bodyLimitBytes: config.bodyLimitBytes,
    maxJsonDepth: config.maxJsonDepth,
    dbHealthTimeoutMs: config.dbHealthTimeoutMs,
    health: { failWhenDbDown: false, body: () => ({ version: VERSION }) },
    root: () => ({ subgraphs: Object.keys(config.gateway.subgraphUrls) }),
    // The gateway does not verify tokens: it counts callers by address (the subgraphs count partners).
    rateLimit: originRateLimit(config, 'gateway', async (request) => addressKey(request.ip)),
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    graphqlIde: { enabled: config.graphqlIde, defaultQuery: `# The demo symbol's analysis (public fields without a token)\n{\n  security(symbol: "${config.demo.symbol}") {\n    symbol\n    name\n    analysis {\n      analysisDate\n      stage\n      stageStrength\n      price\n    }\n  }\n}\n` },
    graphql: {
      gateway,
      limits: config.graphqlLimits,
      context: async (request) => ({
        traceId: request.traceId,
        clientIp: request.ip,
        authorization: request.headers.authorization,
        traceparent: typeof request.headers.traceparent === 'string' ? request.headers.traceparent : undefined,
      }),
      // TRUSTED_DOCUMENTS: only the manifest's operations run (a bad manifest stops the start here).
      ...(config.gateway.trustedDocumentsPath ? trustedDocumentsMount(config.gateway.trustedDocumentsPath) : {}),
    },
  });
}
