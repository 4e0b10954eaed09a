/**
 * Trusted documents (TRUSTED_DOCUMENTS): the gateway runs only the operations of a manifest, as Apollo
 * Router's safelist and Hive's persisted documents do, so a production graph answers its own clients'
 * operations and nothing a stranger writes. A deployment with several clients (the web console and
 * its own) lists one manifest per client, comma-separated, and the gateway trusts their union.
 *
 * The manifest is the one GraphQL Code Generator's client preset writes with
 * `persistedDocuments: { hashAlgorithm: 'sha256' }`: a JSON object `{ "sha256:<hex>": "<document>" }`
 * (a bare `<hex>` key is taken too), each key the SHA-256 of the exact text of its document (the
 * printed text the preset emits, byte for byte). A client sends one of:
 * - `documentId` (GraphQL-over-HTTP persisted documents, Hive): the hash as the preset's generated
 *   documents carry it (`sha256:<hex>`), or bare;
 * - `extensions.persistedQuery.sha256Hash` without a query (APQ, as Apollo clients send it);
 * - the full text, which runs only when it is exactly the text of a listed document (no reformatting:
 *   the text is compared, never parsed first, so an unlisted operation costs no parse or validation).
 * Anything else is refused with PERSISTED_QUERY_NOT_IN_LIST before anything runs, APQ registration
 * included: the APQ cache is the manifest itself and ignores writes, so no client can add to the list.
 *
 * Only client operations at the gateway are checked. The gateway's own requests to the subgraphs carry
 * documents its query planner writes, which are in no manifest; the subgraph origins do not check them
 * and should be reachable by the gateway only.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { ApolloServerPlugin, BaseContext, GraphQLRequest, HTTPGraphQLRequest, PersistedQueryOptions } from '@apollo/server';
import { GraphQLError, parse } from 'graphql';
import { ConfigError } from '../subgraphs/platform/config.js';
import { ERROR_CODES } from '../subgraphs/platform/errors.js';
import type { GraphqlMount } from '../subgraphs/platform/http.js';

/** Document text by its SHA-256 (bare lower-case hex), as read from a valid manifest. */
export type TrustedDocuments = ReadonlyMap<string, string>;

/** A manifest key: the client preset writes `sha256:<hex>`. */
const MANIFEST_KEY = /^(?:sha256:)?([0-9a-f]{64})$/;
/** Problems listed by a config error before the rest are only counted. */
const MAX_PROBLEMS = 5;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Reads and checks the manifests at `files` (TRUSTED_DOCUMENTS: one path, or several for several
 * clients) and returns the union of their documents. Anything but a non-empty object of
 * sha256-of-the-text keys to GraphQL documents throws a ConfigError naming TRUSTED_DOCUMENTS and the
 * file, so a bad manifest stops start-up. Every file is checked before the error is thrown, so one start
 * reports the problems of all of them.
 *
 * Keys are content addresses, so two manifests cannot give one hash two texts: an entry whose key is not
 * the hash of its own text is refused, and when another manifest lists that hash with its real text, the
 * problem names that file too, so a stale copy of a client's manifest is easy to tell from the current one.
 */
export function loadTrustedDocuments(files: string | readonly string[]): TrustedDocuments {
  const documents = new Map<string, string>();
  /** The file each listed hash was read from, to name it beside a stale entry of another file. */
  const sources = new Map<string, string>();
  const rejected: Array<{ file: string; key: string; hash: string | undefined; problem: string }> = [];
  const unreadable = new Map<string, string>();
  const paths = typeof files === 'string' ? [files] : files;
  for (const file of paths) {
    const read = readManifest(file);
    if (typeof read === 'string') {
      unreadable.set(file, read);
      continue;
    }
    for (const [key, document] of read) {
      const hash = MANIFEST_KEY.exec(key)?.[1];
      const problem = entryProblem(hash, document);
      if (problem) rejected.push({ file, key, hash, problem });
      else {
        documents.set(hash as string, document as string);
        if (!sources.has(hash as string)) sources.set(hash as string, file);
      }
    }
  }

  const problems: string[] = [];
  for (const file of paths) {
    const whole = unreadable.get(file);
    if (whole !== undefined) {
      problems.push(`TRUSTED_DOCUMENTS (${file}): ${whole}`);
      continue;
    }
    const own = rejected.filter((r) => r.file === file).map(({ key, hash, problem }) => {
      const listedIn = hash === undefined ? undefined : sources.get(hash);
      return `${JSON.stringify(key)}: ${problem}${listedIn === undefined ? '' : `; ${listedIn} lists this hash with the text it is the hash of`}`;
    });
    const shown = own.slice(0, MAX_PROBLEMS);
    if (own.length > MAX_PROBLEMS) shown.push(`and ${own.length - MAX_PROBLEMS} more`);
    problems.push(...shown.map((p) => `TRUSTED_DOCUMENTS (${file}): ${p}`));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return documents;
}

/** The entries of the manifest at `file`, or what keeps the whole file from being one. */
function readManifest(file: string): Array<[string, unknown]> | string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    return `cannot read the manifest (${(err as NodeJS.ErrnoException).code ?? String(err)})`;
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (err) {
    return `the manifest is not JSON (${(err as Error).message})`;
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
    return 'the manifest must be a JSON object of "sha256:<hex of the document>": "<document text>"';
  }
  const entries = Object.entries(manifest as Record<string, unknown>);
  return entries.length === 0 ? 'the manifest lists no operations' : entries;
}

/** What is wrong with one manifest entry (its key's hash, if it has the form of one), or null. */
function entryProblem(hash: string | undefined, document: unknown): string | null {
  if (hash === undefined) {
    return "the key is not a SHA-256 in lower-case hex, bare or sha256:-prefixed (the client preset needs persistedDocuments: { hashAlgorithm: 'sha256' })";
  }
  if (typeof document !== 'string' || document.trim() === '') return 'the value is not a GraphQL document text';
  const actual = sha256(document);
  if (actual !== hash) return `the key is not the SHA-256 of the exact document text (that is ${actual})`;
  try {
    parse(document);
  } catch (err) {
    return `the document is not GraphQL (${(err as Error).message})`;
  }
  return null;
}

/** The prefix Apollo Server puts before a hash in its APQ cache (APQ_CACHE_PREFIX of its requestPipeline). */
const APQ_CACHE_PREFIX = 'apq:';

/**
 * Apollo Server's APQ cache answered from the manifest: a hash-only request finds its listed document,
 * and a registration (Apollo Server's `set` after a request with query and hash) changes nothing.
 */
function manifestApqCache(documents: TrustedDocuments): NonNullable<PersistedQueryOptions['cache']> {
  return {
    async get(key) {
      return key.startsWith(APQ_CACHE_PREFIX) ? documents.get(key.slice(APQ_CACHE_PREFIX.length)) : undefined;
    },
    async set() {},
    async delete() {
      return false;
    },
  };
}

/** The request names a document the manifest does not list: 400, nothing executed. */
function notInList(field: string, message: string): GraphQLError {
  return new GraphQLError("This operation is not in the gateway's list of trusted documents; send the id of a listed operation", {
    extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST', details: [{ field, message }], http: { status: ERROR_CODES.PERSISTED_QUERY_NOT_IN_LIST } },
  });
}

function badRequest(field: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', details: [{ field, message }], http: { status: ERROR_CODES.BAD_REQUEST } } });
}

/** The `documentId` of a GraphQL-over-HTTP request (POST body or GET parameter), if it has one. */
function documentIdOf(http: HTTPGraphQLRequest | undefined): unknown {
  if (!http) return undefined;
  if (http.method === 'GET') return new URLSearchParams(http.search).get('documentId') ?? undefined;
  const body = http.body as { documentId?: unknown } | null | undefined;
  return body !== null && typeof body === 'object' ? body.documentId : undefined;
}

const DOCUMENT_ID = /^(?:sha256:)?([0-9a-fA-F]{64})$/;

/**
 * The refusal of a request whose document is not listed (null when it may run). A `documentId` of a
 * listed document becomes the request's query text here; full text, or an APQ hash sent alone, must be
 * listed as it is.
 */
function refusal(request: GraphQLRequest, documents: TrustedDocuments, texts: ReadonlySet<string>): GraphQLError | null {
  const documentId = documentIdOf(request.http);
  if (documentId !== undefined && documentId !== null) {
    if (typeof documentId !== 'string') return badRequest('documentId', 'documentId must be a string');
    if (request.query !== undefined) return badRequest('documentId', 'Send either documentId or query, not both');
    const hash = DOCUMENT_ID.exec(documentId)?.[1]?.toLowerCase();
    const document = hash === undefined ? undefined : documents.get(hash);
    if (document === undefined) return notInList('documentId', 'no listed document has this id (the sha256 hex of its text, optionally prefixed sha256:)');
    request.query = document;
    return null;
  }
  if (request.query !== undefined) {
    return texts.has(request.query) ? null : notInList('query', `no listed document has exactly this text (its sha256 is ${sha256(request.query)})`);
  }
  const apqHash: unknown = request.extensions?.persistedQuery?.sha256Hash;
  if (typeof apqHash === 'string' && !documents.has(apqHash)) return notInList('extensions.persistedQuery.sha256Hash', 'no listed document has this hash');
  return null;
}

/** What a refused request runs through Apollo Server's pipeline instead: parsed and validated in no time. */
const STAND_IN = '{ __typename }';

/**
 * Enforces the manifest. It decides in requestDidStart, before Apollo Server reads the request. Apollo
 * Server answers an error with its own status only from a hook it guards (didResolveOperation: an error
 * from requestDidStart is a 500), so a refused request goes on as a stand-in operation with nothing of
 * its own (text, APQ hash, operation name, variables) and is refused there, before anything executes.
 * GraphQL Hive's Apollo Server plugin refuses unknown persisted documents the same way.
 */
function trustedDocumentsPlugin(documents: TrustedDocuments): ApolloServerPlugin<BaseContext> {
  const texts = new Set(documents.values());
  return {
    async requestDidStart({ request }) {
      const refused = refusal(request, documents, texts);
      if (!refused) return;
      request.query = STAND_IN;
      request.extensions = undefined;
      request.operationName = undefined;
      request.variables = undefined;
      return {
        async didResolveOperation() {
          throw refused;
        },
      };
    },
  };
}

/**
 * The gateway's GraphQL endpoint settings for the manifests at `files` (loaded and checked now): the
 * plugin that enforces their union, and the APQ cache that serves their documents by hash.
 */
export function trustedDocumentsMount(files: string | readonly string[]): Pick<GraphqlMount<BaseContext>, 'plugins' | 'persistedQueries'> {
  const documents = loadTrustedDocuments(files);
  return { plugins: [trustedDocumentsPlugin(documents)], persistedQueries: { cache: manifestApqCache(documents) } };
}
