/**
 * The console sends each operation as the exact text its manifest lists (console/src/api.ts
 * `operationBody`), because a gateway with TRUSTED_DOCUMENTS compares the text byte for byte and the
 * generated document's own text is printed differently from the text that was hashed.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { operationBody } from '../../../console/src/api.js';
import * as generated from '../../../console/generated/graphql.js';
import { TypedDocumentString } from '../../../console/generated/graphql.js';
import { PROJECT_ROOT } from '../../../subgraphs/platform/project.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const manifest = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'console', 'generated', 'persisted-documents.json'), 'utf8')) as Record<string, string>;

/** Every generated operation document (fragments carry no hash). */
const operations = Object.entries(generated).flatMap(([name, value]) =>
  value instanceof TypedDocumentString && typeof value.__meta__?.hash === 'string' ? [[name, value as TypedDocumentString<unknown, unknown>] as const] : [],
);

it('the console has operations and each of them is in its manifest', () => {
  expect(operations.length).toBeGreaterThan(0);
  expect(operations.length).toBe(Object.keys(manifest).length);
});

it.each(operations)('%s goes as the manifest text whose SHA-256 is its hash, not as its generated text', (_name, document) => {
  const hash = document.__meta__!.hash as string;
  const body = operationBody(document, { symbol: 'ACME' });
  expect(body).toEqual({ query: manifest[hash], variables: { symbol: 'ACME' } });
  expect(`sha256:${sha256(body.query)}`).toBe(hash);
  expect(body.query).not.toBe(document.toString());
});

it('a document without a manifest entry goes as its own text', () => {
  const fragment = generated.ConsoleIdeaFragmentDoc;
  expect(fragment.__meta__?.hash).toBeUndefined();
  expect(operationBody(fragment, {}).query).toBe(fragment.toString());
  const unknown = new TypedDocumentString<unknown, Record<string, never>>('query X { __typename }', { hash: `sha256:${'0'.repeat(64)}` });
  expect(operationBody(unknown, {})).toEqual({ query: 'query X { __typename }', variables: {} });
});
