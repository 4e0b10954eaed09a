/**
 * The federated gateway: @apollo/gateway over the committed supergraph (schema/supergraph.graphql),
 * the same file Apollo Router would load. It forwards the caller's Authorization and trace headers
 * to each subgraph and bounds every subgraph call by a timeout.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { ApolloGateway, RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { FastifyInstance } from 'fastify';
import { GraphQLError } from 'graphql';
import type { Config, Subgraph } from '../subgraphs/platform/config.js';
import { ERROR_CODES } from '../subgraphs/platform/errors.js';
import { createOrigin } from '../subgraphs/platform/http.js';
import { addressKey, originRateLimit } from '../subgraphs/platform/rate-limit.js';
import { PROJECT_ROOT, VERSION } from '../subgraphs/platform/project.js';

export interface GatewayContext {
  traceId: string;
  /** The caller's address, passed on as X-Forwarded-For (subgraphs that trust the gateway count by it). */
  clientIp?: string;
  authorization?: string;
  traceparent?: string;
}

export const SUPERGRAPH_FILE = path.join(PROJECT_ROOT, 'schema', 'supergraph.graphql');

type Fetcher = NonNullable<NonNullable<ConstructorParameters<typeof RemoteGraphQLDataSource>[0]>['fetcher']>;
type FetcherResponse = Awaited<ReturnType<Fetcher>>;

/** A subgraph's whole answer, read into memory (what RemoteGraphQLDataSource needs of a fetch Response). */
class SubgraphResponse implements FetcherResponse {
  readonly redirected = false;
  bodyUsed = false;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly statusText: string,
    readonly headers: Headers,
    private readonly body: Buffer,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  async text(): Promise<string> {
    this.bodyUsed = true;
    return this.body.toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    this.bodyUsed = true;
    return this.body.buffer.slice(this.body.byteOffset, this.body.byteOffset + this.body.byteLength) as ArrayBuffer;
  }

  clone(): SubgraphResponse {
    return new SubgraphResponse(this.url, this.status, this.statusText, this.headers, this.body);
  }
}

/**
 * Subgraph calls over node:http with keep-alive connections, each bounded by a deadline for the whole
 * answer (headers and body): a slow or hung subgraph fails its part of the plan instead of the whole
 * request hanging. The WHATWG fetch this replaced spent more CPU per call on streams and abort
 * signals than the gateway spent on everything else (bench:gateway).
 */
function keepAliveFetcher(timeoutMs: number): Fetcher {
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  return ((url: string, init?: { method?: string; headers?: Record<string, string>; body?: string | Buffer }) =>
    new Promise<SubgraphResponse>((resolve, reject) => {
      const target = new URL(url);
      const client = target.protocol === 'https:' ? https : http;
      const req = client.request(target, { method: init?.method ?? 'GET', headers: init?.headers, agent: agents[target.protocol as 'http:' | 'https:'] }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          clearTimeout(deadline);
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (Array.isArray(value)) for (const v of value) headers.append(name, v);
            else if (value !== undefined) headers.set(name, value);
          }
          resolve(new SubgraphResponse(url, res.statusCode ?? 0, res.statusMessage ?? '', headers, Buffer.concat(chunks)));
        });
        res.on('error', fail);
      });
      function fail(err: Error) {
        clearTimeout(deadline);
        reject(err);
      }
      const deadline = setTimeout(() => {
        const err = new Error(`subgraph timeout after ${timeoutMs} ms`);
        err.name = 'TimeoutError';
        req.destroy(err);
      }, timeoutMs);
      req.on('error', fail);
      req.end(init?.body);
    })) as unknown as Fetcher;
}

class ForwardingDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  constructor(
    private readonly subgraph: string,
    options: ConstructorParameters<typeof RemoteGraphQLDataSource<GatewayContext>>[0],
  ) {
    super(options);
  }

  /**
   * A subgraph that cannot be reached, does not answer (or finish its answer) within the timeout, or
   * answers 5xx: its part of the plan fails with SERVICE_UNAVAILABLE naming the subgraph, never its
   * address or the socket error; the other subgraphs' data is still returned.
   */
  override didEncounterError(error: Error, _request: unknown, response?: { status?: number }): void {
    if (error instanceof GraphQLError && typeof error.extensions.code === 'string' && error.extensions.code in ERROR_CODES) throw error;
    if (response === undefined || (response.status ?? 0) >= 500 || /abort|timeout/i.test(`${error.name} ${error.message}`)) {
      throw new GraphQLError(`The ${this.subgraph} service is unavailable; try again shortly`, {
        extensions: { code: 'SERVICE_UNAVAILABLE', details: [{ field: this.subgraph, message: 'no usable answer from the subgraph' }] },
      });
    }
    throw error;
  }

  /**
   * A subgraph that refuses a fetch (4xx) explains why, in a GraphQL errors body or (a rate limit, which
   * acts before GraphQL) in the REST error shape; relay that error with its registry code (made safe by
   * the subgraph) instead of a bare HTTP status.
   */
  override async errorFromResponse(response: Parameters<RemoteGraphQLDataSource['errorFromResponse']>[0]): Promise<GraphQLError> {
    const error = await super.errorFromResponse(response);
    if (response.status >= 500) return error; // didEncounterError turns it into SERVICE_UNAVAILABLE
    const body = (error.extensions.response as { body?: unknown } | undefined)?.body as
      | { errors?: Array<{ message?: unknown; extensions?: { code?: unknown; details?: unknown } }>; error?: unknown; code?: unknown; details?: unknown }
      | undefined;
    const first = body?.errors?.[0];
    if (first && typeof first.message === 'string') {
      return new GraphQLError(first.message, { extensions: { code: first.extensions?.code, details: first.extensions?.details ?? [] } });
    }
    if (body && typeof body.error === 'string' && typeof body.code === 'string' && body.code in ERROR_CODES) {
      const retryAfter = response.headers.get('retry-after');
      const details = [...(Array.isArray(body.details) ? body.details : []), ...(retryAfter ? [{ field: 'retry_after_seconds', message: retryAfter }] : [])];
      return new GraphQLError(body.error, { extensions: { code: body.code, details } });
    }
    return error;
  }

  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    const headers = request.http?.headers;
    if (!headers || !context) return;
    if ('traceId' in context && context.traceId) headers.set('x-trace-id', context.traceId);
    if ('authorization' in context && context.authorization) headers.set('authorization', context.authorization);
    if ('traceparent' in context && context.traceparent) headers.set('traceparent', context.traceparent);
    if ('clientIp' in context && context.clientIp) headers.set('x-forwarded-for', context.clientIp);
  }
}

export function createGateway(options: { supergraphSdl: string; subgraphUrls: Record<Subgraph, string>; subgraphTimeoutMs: number }): ApolloGateway {
  const urls: Record<string, string> = options.subgraphUrls;
  const fetcher = keepAliveFetcher(options.subgraphTimeoutMs);
  return new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    buildService: ({ name, url }) =>
      new ForwardingDataSource(name, { url: urls[name] ?? url, fetcher }),
  });
}

export async function buildGatewayOrigin(config: Config, supergraphSdl = fs.readFileSync(SUPERGRAPH_FILE, 'utf8')): Promise<FastifyInstance> {
  const gateway = createGateway({
    supergraphSdl,
    subgraphUrls: config.gateway.subgraphUrls,
    subgraphTimeoutMs: config.gateway.subgraphTimeoutMs,
  });
  return createOrigin<GatewayContext>({
    name: 'tradegraph-gateway',
    version: VERSION,
    env: config.env,
    logLevel: config.logLevel,
    bodyLimitBytes: config.bodyLimitBytes,
    dbHealthTimeoutMs: config.dbHealthTimeoutMs,
    health: { failWhenDbDown: false, body: () => ({ version: VERSION }) },
    root: () => ({ subgraphs: Object.keys(config.gateway.subgraphUrls) }),
    // The gateway does not verify tokens: it counts callers by address (the subgraphs count partners).
    rateLimit: originRateLimit(config, 'gateway', async (request) => addressKey(request.ip)),
    trustProxy: config.trustProxy,
    graphql: {
      gateway,
      limits: config.graphqlLimits,
      context: async (request) => ({
        traceId: request.traceId,
        clientIp: request.ip,
        authorization: request.headers.authorization,
        traceparent: typeof request.headers.traceparent === 'string' ? request.headers.traceparent : undefined,
      }),
    },
  });
}
