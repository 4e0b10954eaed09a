/**
 * The GraphQL IDE of an origin: GraphiQL at `GET /graphql` for a browser (Accept prefers text/html, no
 * `query`, `extensions` or `documentId` parameter), every file it needs served by the origin itself
 * under IDE_ASSET_PREFIX. Nothing is loaded from anywhere else: GraphiQL, React and ReactDOM come from the
 * pinned npm packages (read once per process), GraphiQL's stylesheet embeds its fonts and icons as
 * data: URLs, and the page's Content-Security-Policy (PAGE_CSP) allows this origin only.
 *
 * The page sends its operations to this origin's /graphql as JSON POSTs (past Apollo's CSRF check); a
 * token pasted in the Headers editor goes with them and is not stored by the browser.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CSS_TYPE, escapeHtml, htmlPage, JS_TYPE, once, packageFile, pageAsset, sendPage, servePageAssets } from './page-assets.js';

export interface GraphqlIdeOptions {
  /** Serve the IDE (config GRAPHQL_IDE); when false, /graphql answers browsers as any GraphQL GET. */
  enabled: boolean;
  /** The operation a new IDE opens with: one that runs on this origin without a token. */
  defaultQuery?: string;
}

/** Where the IDE's files are served (platform/page-assets.ts: hashed URLs, cached for good). */
const IDE_ASSET_PREFIX = '/graphql/ide';

/** Lays the IDE over the whole window. */
const IDE_CSS = 'html, body, #graphiql { height: 100%; margin: 0; }\n';

/** Starts GraphiQL in #graphiql with the endpoint and default operation the page carries as data attributes. */
const IDE_JS = `'use strict';
(function () {
  var root = document.getElementById('graphiql');
  var fetcher = GraphiQL.createFetcher({ url: root.dataset.endpoint });
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: root.dataset.defaultQuery,
      defaultEditorToolsVisibility: 'headers',
      shouldPersistHeaders: false,
    }),
  );
})();
`;

/** Shown above the origin's default operation in a new IDE. */
const HEADERS_HINT = '# A partner token goes in Headers (below), e.g. {"Authorization": "Bearer <token>"}.\n# Run with Ctrl-Enter.\n';

/** The IDE's files, read once per process. */
const ideAssets = once(() => ({
  stylesheets: [
    pageAsset(IDE_ASSET_PREFIX, 'graphiql.min.css', CSS_TYPE, packageFile('graphiql', 'graphiql.min.css')),
    pageAsset(IDE_ASSET_PREFIX, 'ide.css', CSS_TYPE, IDE_CSS),
  ],
  scripts: [
    pageAsset(IDE_ASSET_PREFIX, 'react.production.min.js', JS_TYPE, packageFile('react', 'umd/react.production.min.js')),
    pageAsset(IDE_ASSET_PREFIX, 'react-dom.production.min.js', JS_TYPE, packageFile('react-dom', 'umd/react-dom.production.min.js')),
    pageAsset(IDE_ASSET_PREFIX, 'graphiql.min.js', JS_TYPE, packageFile('graphiql', 'graphiql.min.js')),
    pageAsset(IDE_ASSET_PREFIX, 'ide.js', JS_TYPE, IDE_JS),
  ],
}));

/** One media range of an Accept header. */
interface AcceptRange {
  type: string;
  subtype: string;
  q: number;
  /** Position in the header (earlier wins a tie). */
  order: number;
}

function parseAccept(header: string): AcceptRange[] {
  return header.split(',').flatMap((part, order) => {
    const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const [type, subtype] = range.split('/');
    if (!type || !subtype) return [];
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    return Number.isFinite(q) ? [{ type, subtype, q, order }] : [];
  });
}

/** How an Accept header takes a media type: its most specific matching range (negotiator's rules). */
function acceptance(ranges: readonly AcceptRange[], mediaType: string): { q: number; specificity: number; order: number } | null {
  const [type, subtype] = mediaType.split('/');
  let best: { q: number; specificity: number; order: number } | null = null;
  for (const r of ranges) {
    if ((r.type !== type && r.type !== '*') || (r.subtype !== subtype && r.subtype !== '*')) continue;
    const specificity = (r.type === type ? 2 : 0) + (r.subtype === subtype ? 1 : 0);
    if (!best || specificity > best.specificity) best = { q: r.q, specificity, order: r.order };
  }
  return best;
}

/** What a GraphQL client asks for (Apollo Server's own list, text/html aside). */
const GRAPHQL_RESPONSE_TYPES = ['application/json', 'application/graphql-response+json', 'multipart/mixed'];

/**
 * Whether Accept prefers text/html to every GraphQL response type, the way Apollo Server decided to
 * show its landing page: higher q, then the more specific range, then the range listed first; a full
 * tie goes to GraphQL (so a bare wildcard Accept, and no Accept at all, get GraphQL).
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const html = acceptance(ranges, 'text/html');
  if (!html || html.q <= 0) return false;
  return GRAPHQL_RESPONSE_TYPES.every((mediaType) => {
    const other = acceptance(ranges, mediaType);
    if (!other || other.q <= 0) return true;
    return html.q !== other.q ? html.q > other.q : html.specificity !== other.specificity ? html.specificity > other.specificity : html.order < other.order;
  });
}

/** Parameters by which a GET names an operation: its text, a persisted query's hash, a trusted document's id. */
const OPERATION_PARAMETERS = ['query', 'extensions', 'documentId'] as const;

/** A browser opening the endpoint: a GET preferring HTML that carries no GraphQL operation. */
export function wantsIde(request: FastifyRequest, search: URLSearchParams): boolean {
  return request.method === 'GET' && !OPERATION_PARAMETERS.some((name) => search.has(name)) && prefersHtml(request.headers.accept);
}

/**
 * Registers the IDE's files and returns what answers a browser at `endpoint` with the page. The
 * routes are hidden from the OpenAPI document.
 */
export function registerIde(app: FastifyInstance, options: { title: string; endpoint: string; defaultQuery?: string }): (reply: FastifyReply) => FastifyReply {
  const assets = ideAssets();
  servePageAssets(app, [...assets.stylesheets, ...assets.scripts]);
  const defaultQuery = HEADERS_HINT + (options.defaultQuery ?? '{ __typename }\n');
  const page = htmlPage({
    title: options.title,
    stylesheets: assets.stylesheets,
    body: `<div id="graphiql" data-endpoint="${escapeHtml(options.endpoint)}" data-default-query="${escapeHtml(defaultQuery)}">Loading the GraphQL IDE…</div>`,
    scripts: assets.scripts,
  });
  return (reply) => sendPage(reply, page);
}
