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
import { OPENAPI_PATH } from './openapi.js';
import { CSS_TYPE, htmlPage, JS_TYPE, once, packageFile, pageAsset, sendPage, servePageAssets } from './page-assets.js';

const REFERENCE_PATH = '/docs';
const ASSET_PREFIX = `${REFERENCE_PATH}/static`;

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

/** Swagger UI's files, read once per process. */
const referenceAssets = once(() => ({
  stylesheets: [pageAsset(ASSET_PREFIX, 'swagger-ui.css', CSS_TYPE, packageFile('@fastify/swagger-ui', 'static/swagger-ui.css'))],
  scripts: [
    pageAsset(ASSET_PREFIX, 'swagger-ui-bundle.js', JS_TYPE, packageFile('@fastify/swagger-ui', 'static/swagger-ui-bundle.js')),
    pageAsset(ASSET_PREFIX, 'reference.js', JS_TYPE, REFERENCE_JS),
  ],
}));

/** Registers /docs and its files, all hidden from the OpenAPI document. */
export function registerReferencePage(app: FastifyInstance, options: { name: string }): void {
  const assets = referenceAssets();
  servePageAssets(app, [...assets.stylesheets, ...assets.scripts]);
  const page = htmlPage({
    title: `${options.name} API reference`,
    stylesheets: assets.stylesheets,
    body: `<div id="swagger-ui" data-url="${OPENAPI_PATH}">Loading the API reference…</div>`,
    scripts: assets.scripts,
  });
  app.get(REFERENCE_PATH, { schema: { hide: true } }, async (_request, reply) => sendPage(reply, page));
}
