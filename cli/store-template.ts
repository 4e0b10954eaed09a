/**
 * `node dist/cli/store-template.js`: makes the embedded store's template, the data directory a new store
 * starts from instead of running initdb (subgraphs/platform/db.ts STORE_TEMPLATE_DIR). The build's last
 * step (scripts/build-if-stale.mjs); what it prints goes to stderr, as the rest of the build's output.
 */
import { STORE_TEMPLATE_DIR, writeStoreTemplate } from '../subgraphs/platform/db.js';

const started = performance.now();
// A failure is said by the build, which goes on without a template (new stores then run initdb).
await writeStoreTemplate();
process.stderr.write(`store template: ${STORE_TEMPLATE_DIR} (${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
