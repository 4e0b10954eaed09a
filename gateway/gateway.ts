/**
 * The federated gateway: @apollo/gateway over a supergraph file (SUPERGRAPH_PATH, by default the
 * committed schema/supergraph.graphql), the same file Hive Gateway or Apollo Router would load. It
 * reloads the file when it changes, routes each subgraph to the URL the supergraph names unless
 * SUBGRAPH_<NAME>_URL overrides it, forwards the caller's Authorization and trace headers to each
 * subgraph, and bounds every subgraph call by a timeout. Identical query fetches in flight at the same
 * time share one subgraph request (SubgraphDataSource).
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { ApolloGateway, type GraphQLDataSource, type GraphQLDataSourceProcessOptions, type SupergraphSdlHook } from '@apollo/gateway';
import { Supergraph } from '@apollo/federation-internals';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { GraphQLError, Kind, type DefinitionNode } from 'graphql';
import { ideQuery } from '../app/ide-queries.js';
import type { Config, Subgraph } from '../subgraphs/platform/config.js';
import { ERROR_CODES } from '../subgraphs/platform/errors.js';
import { createOrigin } from '../subgraphs/platform/http.js';
import { addressKey, originRateLimit } from '../subgraphs/platform/rate-limit.js';
import { PROJECT_ROOT, VERSION } from '../subgraphs/platform/project.js';
import { registerConsole } from './console.js';
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
 * Identical fetches in flight share one request (GATEWAY_DEDUPE, on by default): a query fetch for
 * the same subgraph, operation text and name, variables (compared as canonical JSON), extensions, plan
 * headers, Authorization and caller address as one still waiting for its answer does not send a second
 * request; it waits for that one's answer. The entry goes when the answer arrives (nothing is kept
 * after), and each caller parses the answer's bytes itself, since @apollo/gateway merges subgraph
 * results into its response in place. The upstream request carries the first caller's trace id and
 * traceparent; every caller's own response keeps its own trace id. Mutations, and every fetch of an
 * operation that is a mutation, are never shared. The address is in the key because a subgraph that
 * counts anonymous callers by it (its rate limit) may answer two addresses differently.
 *
 * Failures, so that the rest of the plan still answers:
 * - unreachable, no whole answer within the timeout, a 5xx, or a 2xx that is not a JSON object:
 *   SERVICE_UNAVAILABLE naming the subgraph, never its address, the socket error or the body;
 * - a refusal (4xx): the subgraph's own error, from a GraphQL errors body or (a rate limit, which acts
 *   before GraphQL) the REST error shape with its registry code and Retry-After.
 */
class SubgraphDataSource implements GraphQLDataSource<GatewayContext> {
  private readonly target: SubgraphTarget;
  /** Requests still waiting for their answer, by what makes two of them the same; undefined: no sharing. */
  private readonly inFlight: Map<string, Promise<SubgraphAnswer>> | undefined;

  constructor(
    private readonly subgraph: string,
    url: string,
    private readonly timeoutMs: number,
    agents: { http: http.Agent; https: https.Agent },
    private readonly counts: SubgraphRequestCounts,
    dedupe: boolean,
  ) {
    this.inFlight = dedupe ? new Map() : undefined;
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
      answer = await this.send(options, headers, body);
    } catch {
      throw this.unavailable();
    }
    if (answer.status >= 500) throw this.unavailable();
    const parsed: unknown = isJson(answer.contentType) ? parseJson(answer.body) : answer.body;
    if (answer.status < 200 || answer.status >= 300) throw keepRateLimitStatus(refusal(this.subgraph, answer, parsed), answer);
    // An answer that is not a GraphQL response (a proxy's page, say) is no usable answer either.
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw this.unavailable();
    return parsed as SubgraphResponse;
  }

  /** Posts the request, or joins an identical one in flight (see the class comment). */
  private send(options: GraphQLDataSourceProcessOptions<GatewayContext>, headers: Record<string, string>, body: string): Promise<SubgraphAnswer> {
    if (!this.inFlight || !isQueryFetch(options)) {
      this.counts.sent++;
      return post(this.target, headers, body, this.timeoutMs);
    }
    const { request } = options;
    const planHeaders = [...(request.http?.headers ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const key = JSON.stringify([
      request.query,
      request.operationName ?? null,
      canonicalJson(request.variables ?? null),
      canonicalJson(request.extensions ?? null),
      planHeaders,
      headers.authorization ?? null,
      headers['x-forwarded-for'] ?? null,
    ]);
    const pending = this.inFlight.get(key);
    if (pending) {
      this.counts.shared++;
      return pending;
    }
    this.counts.sent++;
    const sent = post(this.target, headers, body, this.timeoutMs);
    this.inFlight.set(key, sent);
    const done = () => {
      if (this.inFlight?.get(key) === sent) this.inFlight.delete(key);
    };
    sent.then(done, done);
    return sent;
  }

  private unavailable(): GraphQLError {
    return new GraphQLError(`The ${this.subgraph} service is unavailable; try again shortly`, {
      extensions: { code: 'SERVICE_UNAVAILABLE', details: [{ field: this.subgraph, message: 'no usable answer from the subgraph' }] },
    });
  }
}

/**
 * A fetch that may share a request: part of an incoming operation that is a query, and itself a
 * query (a plan's fetches for a mutation start with the mutation and read what it wrote after it).
 */
const QUERY_TEXT = /^\s*(query\b|\{)/;

function isQueryFetch(options: GraphQLDataSourceProcessOptions<GatewayContext>): boolean {
  // Only an incoming operation's options carry its request context (not a health check's).
  if (!('incomingRequestContext' in options) || options.incomingRequestContext.operation?.operation !== 'query') return false;
  const definitions = options.document?.definitions;
  if (definitions) return definitions.every((d: DefinitionNode) => d.kind !== Kind.OPERATION_DEFINITION || d.operation === 'query');
  // The plan's fetch carries its parsed operation only when the planner is asked to: its text then
  // (the planner writes `query Name...`, `mutation ...` or a bare selection set).
  return QUERY_TEXT.test(options.request.query ?? '');
}

/** JSON with every object's keys in order, so the same values written in another order are the same text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * A subgraph's 4xx as the caller's error: its first GraphQL error, its REST error, or the bare status.
 * It names the subgraph (serviceName) as @apollo/gateway names the errors of a 200 answer, so the
 * caller gets it as that subgraph's error (formatGraphqlError): a registry code such as UNAUTHENTICATED
 * or RATE_LIMITED as it is, any other code as DOWNSTREAM_SERVICE_ERROR.
 */
function refusal(serviceName: string, answer: SubgraphAnswer, parsed: unknown): GraphQLError {
  const body = (parsed !== null && typeof parsed === 'object' ? parsed : {}) as RelayedBody;
  const first = body.errors?.[0];
  if (first && typeof first.message === 'string') {
    return new GraphQLError(first.message, { extensions: { code: first.extensions?.code, details: first.extensions?.details ?? [], serviceName } });
  }
  if (typeof body.error === 'string' && typeof body.code === 'string' && body.code in ERROR_CODES) {
    const details = [...(Array.isArray(body.details) ? body.details : []), ...(answer.retryAfter ? [{ field: 'retry_after_seconds', message: answer.retryAfter }] : [])];
    return new GraphQLError(body.error, { extensions: { code: body.code, details, serviceName } });
  }
  const code = answer.status === 401 ? 'UNAUTHENTICATED' : answer.status === 403 ? 'FORBIDDEN' : undefined;
  return new GraphQLError(`${answer.status}: ${answer.statusText}`, { extensions: { code, serviceName } });
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

/** How long the file must stay unchanged before it is read (a copy or an editor's save is several events). */
const RELOAD_DEBOUNCE_MS = 100;

/**
 * Checks a supergraph before the gateway takes it: the SDL must parse and be a valid Federation 2
 * supergraph. Returns the names of its subgraphs; throws with the reason otherwise.
 */
function checkSupergraph(sdl: string): string[] {
  return [...Supergraph.build(sdl).subgraphs().names()];
}

/** The supergraph being served, for `GET /` and the reload log lines. */
interface ServedSupergraph {
  subgraphs: string[];
  /** Where reloads and refusals are logged: the origin's logger, once it exists (attachLog). */
  log?: FastifyBaseLogger;
  /** Lines written before the logger exists (a change while the origin starts), logged when it does. */
  pending: Array<(log: FastifyBaseLogger) => void>;
}

function logLine(served: ServedSupergraph, write: (log: FastifyBaseLogger) => void): void {
  if (served.log) write(served.log);
  else served.pending.push(write);
}

function attachLog(served: ServedSupergraph, log: FastifyBaseLogger): void {
  served.log = log;
  for (const write of served.pending.splice(0)) write(log);
}

/**
 * @apollo/gateway's supergraph hook for a file: the file as it is at start (a bad one stops the start),
 * then, whenever the file changes, its new text if it is a valid supergraph. A file that cannot be
 * read, parsed or built as a supergraph is refused with an error log line (once per text) and the
 * gateway keeps serving the previous one. The directory is watched, not the file, and any change in
 * it rereads the file (an unchanged text is ignored): a file replaced by a rename (an editor's save,
 * `mv`) or behind a swapped symlink (a Kubernetes ConfigMap volume) is seen too. The watch starts
 * before the first read, so a change made while the gateway starts is not missed.
 */
function supergraphFile(file: string, served: ServedSupergraph): SupergraphSdlHook {
  return async ({ update }) => {
    let current = '';
    /** The last text checkSupergraph refused: refused once, logged once (other files of the directory may change meanwhile). */
    let refused: string | undefined;
    /** Set by cleanup (the gateway stopping): a pending reload then does nothing. */
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const reload = () => {
      if (stopped) return;
      let sdl: string | undefined;
      let subgraphs: string[];
      try {
        sdl = fs.readFileSync(file, 'utf8');
        if (sdl === current || sdl === refused) return;
        subgraphs = checkSupergraph(sdl);
      } catch (err) {
        refused = sdl;
        logLine(served, (log) => log.error({ supergraph: file, reason: (err as Error).message }, 'supergraph refused; the previous one is still served'));
        return;
      }
      try {
        update(sdl);
      } catch (err) {
        // The gateway did not take a valid supergraph (it is stopping, say): not remembered, so the
        // next change tries it again.
        if (!stopped) logLine(served, (log) => log.error({ supergraph: file, reason: (err as Error).message }, 'supergraph not taken; the previous one is still served'));
        return;
      }
      current = sdl;
      refused = undefined;
      served.subgraphs = subgraphs;
      logLine(served, (log) => log.info({ supergraph: file, subgraphs }, 'supergraph reloaded'));
    };
    const watcher = fs.watch(path.dirname(file), () => {
      clearTimeout(timer);
      if (!stopped) timer = setTimeout(reload, RELOAD_DEBOUNCE_MS);
    });
    watcher.on('error', (err) => logLine(served, (log) => log.error({ supergraph: file, reason: err.message }, 'supergraph watch failed; changes to the file are no longer seen')));
    try {
      current = fs.readFileSync(file, 'utf8');
      served.subgraphs = checkSupergraph(current);
    } catch (err) {
      watcher.close();
      throw err;
    }
    return {
      supergraphSdl: current,
      cleanup: async () => {
        stopped = true;
        clearTimeout(timer);
        watcher.close();
      },
    };
  };
}

/** The gateway's subgraph requests since it started, over all subgraphs. */
export interface SubgraphRequestCounts {
  /** Requests sent to a subgraph. */
  sent: number;
  /** Fetches answered by an identical request already in flight instead of one of their own. */
  shared: number;
}

export function createGateway(options: {
  /** The supergraph's SDL, or a hook that supplies it and its updates (supergraphFile). */
  supergraphSdl: string | SupergraphSdlHook;
  /** Per-subgraph URLs used instead of the supergraph's (SUBGRAPH_<NAME>_URL, subgraphs started in this process). */
  subgraphUrls: Partial<Record<Subgraph, string>>;
  subgraphTimeoutMs: number;
  /** Answer a request carrying `Apollo-Query-Plan-Experimental` with its query plan (a debugging aid). */
  exposeQueryPlans: boolean;
  /** Identical query fetches in flight share one subgraph request (GATEWAY_DEDUPE; default true). */
  dedupe?: boolean;
  /** Counted into when given (the origin's root document shows it). */
  counts?: SubgraphRequestCounts;
}): ApolloGateway {
  const counts = options.counts ?? { sent: 0, shared: 0 };
  const urls: Partial<Record<string, string>> = options.subgraphUrls;
  // @apollo/gateway reports anonymous usage data to Apollo, probing cloud-metadata addresses first,
  // unless APOLLO_TELEMETRY_DISABLED is set (its only switch): the gateway sends nothing to a place its
  // operator did not configure. An explicit APOLLO_TELEMETRY_DISABLED=false turns it back on.
  process.env.APOLLO_TELEMETRY_DISABLED ??= 'true';
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  return new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    // @apollo/gateway decides this from NODE_ENV, which a production deployment may not set; the plan
    // names the subgraphs and how a query is split between them, so it follows APP_ENV like introspection.
    __exposeQueryPlanExperimental: options.exposeQueryPlans,
    buildService: ({ name, url }) => {
      const target = urls[name] ?? url;
      if (!target) throw new Error(`No URL for the ${name} subgraph`);
      return new SubgraphDataSource(name, target, options.subgraphTimeoutMs, agents, counts, options.dedupe ?? true);
    },
  });
}

export interface GatewayOriginOptions {
  /** The web console's bundle directory (default dist/console-bundle under the project root). */
  consoleBundleDir?: string;
}

/**
 * The gateway origin over `supergraphSdl` when given (fixed), else over the supergraph file
 * (SUPERGRAPH_PATH or the committed one), reloaded when it changes; with the web console at /console
 * when CONSOLE is on (gateway/console.ts).
 */
export async function buildGatewayOrigin(config: Config, supergraphSdl?: string, options: GatewayOriginOptions = {}): Promise<FastifyInstance> {
  const served: ServedSupergraph = { subgraphs: supergraphSdl === undefined ? [] : checkSupergraph(supergraphSdl), pending: [] };
  // TRUSTED_DOCUMENTS: only the manifest's operations run. Read first, so a bad manifest stops the start
  // before anything else is built.
  const trusted = config.gateway.trustedDocumentsPaths ? trustedDocumentsMount(config.gateway.trustedDocumentsPaths) : {};
  const counts: SubgraphRequestCounts = { sent: 0, shared: 0 };
  const gateway = createGateway({
    supergraphSdl: supergraphSdl ?? supergraphFile(config.gateway.supergraphPath ?? SUPERGRAPH_FILE, served),
    subgraphUrls: config.gateway.subgraphUrls,
    subgraphTimeoutMs: config.gateway.subgraphTimeoutMs,
    exposeQueryPlans: config.env !== 'production',
    dedupe: config.gateway.dedupe,
    counts,
  });
  const app = await createOrigin<GatewayContext>({
    name: 'tradegraph-gateway',
    version: VERSION,
    env: config.env,
    logLevel: config.logLevel,
    bodyLimitBytes: config.bodyLimitBytes,
    maxJsonDepth: config.maxJsonDepth,
    dbHealthTimeoutMs: config.dbHealthTimeoutMs,
    health: { failWhenDbDown: false, body: () => ({ version: VERSION }) },
    // thread: "own" when the origin runs in a worker thread of its own (npm start's default), else "main".
    root: () => ({ subgraphs: served.subgraphs, thread: isMainThread ? 'main' : 'own', subgraph_requests: { ...counts } }),
    // The gateway does not verify tokens: it counts callers by address (the subgraphs count partners).
    rateLimit: originRateLimit(config, 'gateway', async (request) => addressKey(request.ip)),
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    graphqlIde: { enabled: config.graphqlIde, defaultQuery: ideQuery('gateway', config.demo.symbol) },
    graphql: {
      gateway,
      limits: config.graphqlLimits,
      context: async (request) => ({
        traceId: request.traceId,
        clientIp: request.ip,
        authorization: request.headers.authorization,
        traceparent: typeof request.headers.traceparent === 'string' ? request.headers.traceparent : undefined,
      }),
      ...trusted,
    },
  });
  attachLog(served, app.log);
  // After createOrigin: the routes are under the origin's rate limit (by address) like every other.
  if (config.gateway.console) registerConsole(app, config, { bundleDir: options.consoleBundleDir });
  return app;
}
