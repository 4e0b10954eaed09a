/**
 * The origin's API reference at `/docs`: Swagger UI rendering this origin's OpenAPI document, the one
 * of `/openapi.json` (platform/openapi.ts). It stays on in production, unlike the GraphQL IDE: the
 * document it renders is public already.
 *
 * Swagger UI is the build that @fastify/swagger-ui ships (swagger-ui-dist), served by the origin the
 * way the IDE is (platform/page-assets.ts). The plugin itself is not registered: it serves its files
 * through @fastify/static, whose content-disposition 3 is an ES module that Node 20 loads but Jest's
 * module loader cannot, so every suite that builds an origin would fail. Nothing is loaded from
 * anywhere else: no validator badge (validatorUrl null), no example document, no top bar to open
 * another URL, and the page's Content-Security-Policy allows this origin only.
 */
import type { FastifyInstance } from 'fastify';
import { CSS_TYPE, escapeHtml, HTML_TYPE, JS_TYPE, packageFile, PAGE_CSP, pageAsset, servePageAssets, type PageAsset } from './page-assets.js';

export const REFERENCE_PATH = '/docs';
/** The document the page renders. */
export const OPENAPI_PATH = '/openapi.json';

/** Renders the document named by #swagger-ui's data-url, without Swagger UI's top bar or validator. */
const REFERENCE_JS = `'use strict';
(function () {
  var root = document.getElementById('swagger-ui');
  SwaggerUIBundle({
    domNode: root,
    url: root.dataset.url,
    validatorUrl: null,
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
})();
`;

interface ReferenceAssets {
  css: PageAsset;
  bundle: PageAsset;
  start: PageAsset;
}

let assets: ReferenceAssets | undefined;

/** Swagger UI's files, read once per process. */
function referenceAssets(): ReferenceAssets {
  const prefix = `${REFERENCE_PATH}/static`;
  assets ??= {
    css: pageAsset(prefix, 'swagger-ui.css', CSS_TYPE, packageFile('@fastify/swagger-ui', 'static/swagger-ui.css')),
    bundle: pageAsset(prefix, 'swagger-ui-bundle.js', JS_TYPE, packageFile('@fastify/swagger-ui', 'static/swagger-ui-bundle.js')),
    start: pageAsset(prefix, 'reference.js', JS_TYPE, REFERENCE_JS),
  };
  return assets;
}

function referencePage(title: string): string {
  const a = referenceAssets();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${a.css.url}">
</head>
<body>
<div id="swagger-ui" data-url="${OPENAPI_PATH}">Loading the API reference…</div>
<script src="${a.bundle.url}"></script>
<script src="${a.start.url}"></script>
</body>
</html>
`;
}

/** Registers /docs and its files, all hidden from the OpenAPI document. */
export function registerReferencePage(app: FastifyInstance, options: { name: string }): void {
  const page = referencePage(`${options.name} API reference`);
  servePageAssets(app, Object.values(referenceAssets()));
  app.get(REFERENCE_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'no-cache').header('content-security-policy', PAGE_CSP).type(HTML_TYPE).send(page),
  );
}
