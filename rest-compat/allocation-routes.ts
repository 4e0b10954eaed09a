/**
 * The allocation origin's REST routes (spec "Allocation service"; DESIGN sections 5 and 8), as one Fastify plugin:
 *
 *   POST /api/v1/portfolios/optimize     PortfolioRequest -> PortfolioResponse
 *        with a partner Bearer token: the full book, persisted; `Idempotency-Key` makes retries safe
 *        (the replay carries `Idempotent-Replayed: true`);
 *        without a token: only the demo body, at most two rows, nothing stored;
 *        400 VALIDATION_FAILED (every violation listed) / DEMO_BODY_MISMATCH / IDEMPOTENCY_KEY_REUSED,
 *        401 for a bad token, 429 past the caller's expensive-operation budget, 503 when the store is down.
 *   GET  /api/v1/demo/optimize-body      the demo body, as an anonymous caller must send it
 *
 * A partner's books (DESIGN section 8 "portfolios"; the spec leaves the portfolio read service
 * unspecified). Partner token only; a partner sees and changes only its own books (404
 * PORTFOLIO_NOT_FOUND for any other id, whether or not it exists):
 *
 *   POST /api/v1/portfolios                        CreatePortfolioRequest -> 201 BookResponse
 *   POST /api/v1/portfolios/import?name=&cash=&currency=
 *                                                  text/csv (symbol,shares,cost_basis[,entry_date]) -> 201 BookResponse
 *   GET  /api/v1/portfolios/{id}                   -> BookResponse (the book now, valued at the latest closes)
 *   GET  /api/v1/portfolios/{id}/optimization      -> PortfolioResponse (the stored optimize result; optimize books only)
 *   GET  /api/v1/portfolios/{id}/trades?page=&page_size=   -> TradePage (newest first)
 *   POST /api/v1/portfolios/{id}/trades            TradeRequest -> TradeResponse (the trade and the book after it)
 *   POST /api/v1/portfolios/{id}/rebalance?apply=  RebalanceRequest -> RebalanceResponse (orders to the target;
 *                                                  apply=true records them as trades, in one transaction)
 *
 * Headers of the books: `ETag: "<version>"` (strong) on every answer that carries a book's version (create,
 * import, GET, trade, applied rebalance), `Location` on a create, `Cache-Control: private, no-cache` on the
 * GET (the value moves with every close, the version only with trades). A write to an existing book may send
 * `If-Match` (a list of tags or `*`; `W/"3"` compares as 3): on a stale version it is 412
 * PRECONDITION_FAILED and nothing is written. Every write takes `Idempotency-Key`: the same request again
 * changes nothing and answers with `Idempotent-Replayed: true`: a trade or rebalance its first response, a
 * create (or import) the book it created as that book is now; another request under a
 * used key is 400 IDEMPOTENCY_KEY_REUSED.
 *
 * Handlers are thin: they hand the raw body, headers and parameters to the services (AllocationService,
 * PortfolioService), which validate, apply every rule and answer in the product's error shape. The body
 * schemas in /openapi.json are the ones the services' request validators are compiled from
 * (subgraphs/allocation/request/), and GraphQL input goes through the same validators, so REST and
 * GraphQL refuse exactly the same inputs. Fastify's own body validation is off here; the query parameters
 * of the book routes are checked against the tables below (400 VALIDATION_FAILED naming each).
 *
 * Bodies are JSON only, except the CSV upload: its text/csv parser lives in a Fastify context of its own
 * holding that route alone, so every other route keeps refusing anything but JSON with 415.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../subgraphs/platform/auth.js';
import { AppError } from '../subgraphs/platform/errors.js';
import { JSON_TYPE } from '../subgraphs/platform/http.js';
import { encodeWhole, markEncoded, responseCoding, type ContentCoding } from '../subgraphs/platform/compression.js';
import { requirePartner } from '../subgraphs/platform/principal.js';
import { charsetRefusal } from '../subgraphs/platform/http-limits.js';
import { documentOnly, operationRules, ParamChecker, paramTable, querystringSchema } from '../subgraphs/platform/param-table.js';
import { DEMO_OPTIMIZE_BODY_BYTES, type AllocationService } from '../subgraphs/allocation/service.js';
import { callerKeyOf } from '../subgraphs/platform/rate-limit.js';
import type { IncomingMessage } from 'node:http';
import type { PortfolioService } from '../subgraphs/allocation/portfolios.js';
import { TRADES_PAGE, type BookOutcome } from '../subgraphs/allocation/book-types.js';
import { etagOf } from '../subgraphs/allocation/engine/ledger.js';
import { BOOK_REQUEST_IDS, errorResponses } from './schemas.js';

export const OPTIMIZE_PATH = '/api/v1/portfolios/optimize';
const DEMO_BODY_PATH = '/api/v1/demo/optimize-body';
export const PORTFOLIOS_PATH = '/api/v1/portfolios';
export const IMPORT_PATH = '/api/v1/portfolios/import';
const PORTFOLIO_PATH = '/api/v1/portfolios/:id';
const OPTIMIZATION_PATH = '/api/v1/portfolios/:id/optimization';
const TRADES_PATH = '/api/v1/portfolios/:id/trades';
const REBALANCE_PATH = '/api/v1/portfolios/:id/rebalance';

/** Cache-Control of a book read: private (it depends on the token), revalidated every time (closes move it). */
export const BOOK_CACHE_CONTROL = 'private, no-cache';
/** The media type of the CSV upload. */
export const CSV_TYPE = 'text/csv';

export interface AllocationRoutesOptions {
  allocation: AllocationService;
  portfolios: PortfolioService;
  /** The origin's partner-token authenticator: anonymous without a header, 401 for a bad token (its challenge is the origin's `authChallenge`). */
  authenticate(request: FastifyRequest): Promise<Principal>;
}

// ---------------------------------------------------------------------------------------------------------
// Query parameters of the book routes (documented from these tables; checked with them)
// ---------------------------------------------------------------------------------------------------------

/** Decimal digits, at most 10: how REST writes page and page_size. */
const DIGITS = '^[0-9]{1,10}$';
/** The last page a request may ask for: the service's limit, published as it enforces it. */
const MAX_PAGE = TRADES_PAGE.maxPage;

export const TRADES_QUERY = paramTable({
  unknown: 'refused',
  params: [
    {
      key: 'page',
      name: 'page',
      description: '1-based page of the trade log, newest first; past the end: an empty page',
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1, 'x-query-pattern': DIGITS },
      invalid: (field: string) => `${field} must be an integer from 1 to ${MAX_PAGE}`,
    },
    {
      key: 'pageSize',
      name: 'page_size',
      description: `trades per page, 1..${TRADES_PAGE.max}`,
      schema: { type: 'integer', minimum: 1, maximum: TRADES_PAGE.max, default: TRADES_PAGE.default, 'x-query-pattern': DIGITS },
      invalid: (field: string) => `${field} must be an integer from 1 to ${TRADES_PAGE.max}`,
    },
  ],
});

export const IMPORT_QUERY = paramTable({
  unknown: 'refused',
  params: [
    { key: 'name', name: 'name', description: 'name of the new book (the rules of CreatePortfolioRequest.name)', schema: { type: 'string' } },
    // Read by the service like the CLI's --cash (the rules of CreatePortfolioRequest.cash).
    { key: 'cash', name: 'cash', description: 'cash of the new book: an amount >= 0 in whole cents, e.g. 25000 or 1234.56; default 0', schema: { type: 'string' } },
    { key: 'currency', name: 'currency', description: 'ISO 4217 currency code; default USD', schema: { type: 'string' } },
  ],
});

export const REBALANCE_QUERY = paramTable({
  unknown: 'refused',
  params: [
    {
      key: 'apply',
      name: 'apply',
      description: 'true: record the orders as trades (one transaction, the version +1); false: only compute them',
      schema: { type: 'string', enum: ['true', 'false'], default: 'false' },
      invalid: (field: string) => `${field} must be true or false`,
    },
  ],
});

const tradesQuery = new ParamChecker(TRADES_QUERY);
const importQuery = new ParamChecker(IMPORT_QUERY);
const rebalanceQuery = new ParamChecker(REBALANCE_QUERY);

// ---------------------------------------------------------------------------------------------------------
// Documented headers
// ---------------------------------------------------------------------------------------------------------

const ID_PARAMS = { type: 'object', required: ['id'], properties: { id: { type: 'string', description: 'portfolio_id of one of your books' } } } as const;
const REPLAYED_HEADER = { 'idempotent-replayed': { type: 'string', enum: ['true'], description: 'Present on the replay of an earlier request with the same Idempotency-Key' } } as const;
const ETAG_HEADER = { etag: { type: 'string', required: true, description: 'The book\'s version as a strong entity tag, e.g. "3"; send it back in If-Match to write only over that version' } } as const;
const LOCATION_HEADER = { location: { type: 'string', required: true, description: 'Where the new book is read: /api/v1/portfolios/{id}' } } as const;
const WRITE_HEADERS = {
  type: 'object',
  properties: { 'idempotency-key': { type: 'string', description: 'A retried request with the same key returns the first answer (1-255 visible ASCII characters)' } },
} as const;
/** A new book's headers: a retry answers the book it created as that book is now, not as it was first answered. */
const CREATE_HEADERS = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      description:
        'A retried create with the same key creates nothing and answers the book it created as it is now (its version, cash and holdings after any trades since), with Idempotent-Replayed: true (1-255 visible ASCII characters)',
    },
  },
} as const;
const UPDATE_HEADERS = {
  type: 'object',
  properties: {
    ...WRITE_HEADERS.properties,
    'if-match': { type: 'string', description: 'Write only over this version: the ETag of the book (a list of tags or *; W/"3" compares as "3"); 412 when the book has moved on' },
  },
} as const;
const PRECONDITION_FAILED = { $ref: 'Error#', description: 'Precondition failed (PRECONDITION_FAILED): If-Match names a version the book is no longer at; nothing was written' } as const;
const NOT_FOUND = { $ref: 'Error#', description: 'Not found (PORTFOLIO_NOT_FOUND): no book of yours has this id' } as const;
const BAD_BOOK_WRITE = {
  $ref: 'Error#',
  description:
    'Refused, nothing written: VALIDATION_FAILED (every bad field named), INSUFFICIENT_CASH (a buy beyond the cash: no margin), INSUFFICIENT_SHARES (a sale beyond the shares held: no shorts), IDEMPOTENCY_KEY_REUSED',
} as const;

/** The fast lane's demo optimize: the demo body's length as Content-Length sends it, and the JSON types Fastify's parser takes as UTF-8. */
const DEMO_BODY_LENGTH = String(DEMO_OPTIMIZE_BODY_BYTES.length);
const DEMO_BODY_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json; charset=utf-8']);

/**
 * The next `length` bytes of a request body, taken whole (read(n) returns all of them or nothing), or
 * null when the request ends, fails or closes first; whoever gets them may put them back with unshift().
 */
function readExactly(raw: IncomingMessage, length: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const finish = (value: Buffer | null) => {
      raw.removeListener('readable', onReadable);
      raw.removeListener('end', onStop);
      raw.removeListener('error', onStop);
      raw.removeListener('close', onStop);
      resolve(value);
    };
    const onReadable = () => {
      const chunk = raw.read(length) as Buffer | null;
      if (chunk !== null) finish(chunk);
    };
    const onStop = () => finish(null);
    raw.on('readable', onReadable);
    raw.on('end', onStop);
    raw.on('error', onStop);
    raw.on('close', onStop);
  });
}

/**
 * An optimize answer as a request with these headers gets it: its coding (cors.ts responseCoding;
 * undefined: the compression plugin decides, on the text's bytes) and its bytes. The fast lane and the
 * Fastify route send these same bytes. Each answer carries its own id, time and trace id, so it is
 * compressed whole, per response.
 */
function encodedAnswer(headers: IncomingMessage['headers'], text: string): { coding: ContentCoding | undefined; body: Buffer } {
  const bytes = Buffer.from(text, 'utf8');
  const coding = responseCoding(headers, bytes.length);
  return { coding, body: encodeWhole(bytes, coding ?? 'identity') };
}

export async function allocationRoutes(app: FastifyInstance, options: AllocationRoutesOptions): Promise<void> {
  const { allocation, portfolios, authenticate } = options;

  const sendJson = (reply: FastifyReply, text: string) => reply.type(JSON_TYPE).send(text);
  /** A write's answer: its status, ETag (when it carries a version) and the replay marker. */
  const sendOutcome = <T>(reply: FastifyReply, outcome: BookOutcome<T>, version: number | null, status = 200) => {
    if (outcome.replayed) void reply.header('idempotent-replayed', 'true');
    if (version !== null) void reply.header('etag', etagOf(version));
    return sendJson(reply.code(status), JSON.stringify(outcome.response));
  };
  // A bad token is 401 before the body is even parsed (the authenticator remembers the answer).
  const guard = async (request: FastifyRequest) => {
    await authenticate(request);
  };
  const writeOptions = (request: FastifyRequest<{ Headers: { 'idempotency-key'?: string } }>) => ({
    traceId: request.traceId,
    idempotencyKey: request.headers['idempotency-key'],
    naming: 'rest' as const,
  });
  const updateOptions = (request: FastifyRequest<{ Headers: { 'idempotency-key'?: string; 'if-match'?: string } }>) => ({
    ...writeOptions(request),
    ifMatch: request.headers['if-match'],
  });

  // Bodies are JSON only: without Fastify's text/plain parser, other types are 415 UNSUPPORTED_MEDIA_TYPE.
  app.removeContentTypeParser('text/plain');

  app.post<{ Body: unknown; Headers: { 'idempotency-key'?: string } }>(
    OPTIMIZE_PATH,
    {
      // A bad token is 401 before the body is even parsed (the authenticator remembers the answer);
      // then the caller's expensive-operation budget is spent (429 past it; see rate-limit.ts).
      onRequest: guard,
      config: { expensive: true },
      // Documents the body; the service's compiled request validator checks it (see the header comment).
      validatorCompiler: documentOnly,
      schema: {
        operationId: 'optimizePortfolio',
        summary: 'Build a whole-share portfolio from capital and risk settings (spec "Allocation service")',
        tags: ['allocation'],
        security: [{ bearer: [] }, {}],
        headers: WRITE_HEADERS,
        body: { $ref: 'PortfolioRequest#' },
        response: {
          200: {
            $ref: 'PortfolioResponse#',
            description: 'The optimized book (partners: persisted as a book, readable at /api/v1/portfolios/{id}, the result itself at /api/v1/portfolios/{id}/optimization; demo: at most two rows, not stored)',
            headers: REPLAYED_HEADER,
          },
          ...errorResponses('Error#', 400, 401, 413, 415, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(request);
      const outcome = await allocation.optimizeBody(principal, request.body, writeOptions(request));
      if (outcome.replayed) void reply.header('idempotent-replayed', 'true');
      const { coding, body } = encodedAnswer(request.headers, outcome.responseText);
      return markEncoded(reply, coding ?? 'identity').type(JSON_TYPE).send(body);
    },
  );

  // The fast lane (platform/http.ts FastLane): an anonymous optimize whose body is the published demo
  // body byte for byte (JSON, no token) is answered before Fastify, from the demo answer the service
  // keeps per universe. Anything else, including the same document written another way, takes the
  // route above: the lane reads a body only when its length is the demo body's, and puts it back when
  // it is not the demo body.
  app.fastLane.add('POST', OPTIMIZE_PATH, async ({ raw, traceId, ip }) => {
    const headers = raw.headers;
    if (headers.authorization !== undefined || ip === '' || headers['transfer-encoding'] !== undefined) return null;
    if (headers['content-length'] !== DEMO_BODY_LENGTH || !DEMO_BODY_TYPES.has(headers['content-type'] ?? '')) return null;
    const body = await readExactly(raw, DEMO_OPTIMIZE_BODY_BYTES.length);
    if (body === null) return null;
    const restore = () => raw.unshift(body);
    if (!body.equals(DEMO_OPTIMIZE_BODY_BYTES)) {
      restore();
      return null;
    }
    let outcome: Awaited<ReturnType<AllocationService['publishedDemo']>>;
    try {
      outcome = await allocation.publishedDemo({ traceId, naming: 'rest' });
    } catch {
      restore();
      return null;
    }
    const { coding, body: answer } = encodedAnswer(headers, outcome.responseText);
    return { status: 200, caller: callerKeyOf(null, ip), expensive: true, headers: [], body: answer, coding, restore };
  });

  app.get(
    DEMO_BODY_PATH,
    {
      schema: {
        operationId: 'getDemoOptimizeBody',
        summary: 'The one optimize body accepted without a bearer token (DESIGN section 5)',
        tags: ['allocation'],
        response: { 200: { $ref: 'PortfolioRequest#', description: 'The demo body, to send as it is' }, ...errorResponses('Error#', 429, 500) },
      },
    },
    async (_request, reply) => sendJson(reply, JSON.stringify(allocation.demoBody())),
  );

  // ----- books (DESIGN section 8 "portfolios") -----

  const created = {
    description: 'The new book, valued at the latest closes (version 1)',
    headers: { ...ETAG_HEADER, ...LOCATION_HEADER, ...REPLAYED_HEADER },
  };

  app.post<{ Body: unknown; Headers: { 'idempotency-key'?: string } }>(
    PORTFOLIOS_PATH,
    {
      onRequest: guard,
      validatorCompiler: documentOnly,
      schema: {
        operationId: 'createPortfolio',
        summary: 'Create a book from holdings and cash (DESIGN section 8 "portfolios")',
        description: 'Every symbol must be a known security with stored bars; nothing is written on a refusal. Idempotency-Key makes a retry create nothing and answer that book as it is now.',
        tags: ['portfolios'],
        security: [{ bearer: [] }],
        headers: CREATE_HEADERS,
        body: { $ref: `${BOOK_REQUEST_IDS.create}#` },
        response: {
          201: { $ref: 'BookResponse#', ...created },
          400: { $ref: 'Error#', description: 'Refused, nothing written: VALIDATION_FAILED (every bad field named, e.g. holdings[2].symbol), IDEMPOTENCY_KEY_REUSED' },
          ...errorResponses('Error#', 401, 413, 415, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const outcome = await portfolios.create(await authenticate(request), request.body, { ...writeOptions(request), source: 'holdings' });
      void reply.header('location', `${PORTFOLIOS_PATH}/${encodeURIComponent(outcome.response.portfolio_id)}`);
      return sendOutcome(reply, outcome, outcome.response.version, 201);
    },
  );

  // The CSV upload: its own context, so its text/csv parser serves this route alone.
  await app.register(async (csv) => {
    csv.addContentTypeParser(CSV_TYPE, { parseAs: 'string' }, (request, body, done) => {
      const refusal = charsetRefusal(request.headers['content-type']);
      return refusal ? done(refusal, undefined) : done(null, body);
    });
    csv.post<{ Body: string | undefined; Headers: { 'idempotency-key'?: string }; Querystring: Record<string, string | string[] | undefined> }>(
      IMPORT_PATH,
      {
        // The token first (401 without one), then the media type: anything but text/csv is 415 before the body is read.
        onRequest: async (request) => {
          requirePartner(await authenticate(request), 'importing a book');
          const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
          if (type !== CSV_TYPE) {
            throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type; send the holdings as text/csv', [
              { field: 'content-type', message: `send ${CSV_TYPE} (header row symbol,shares,cost_basis[,entry_date]), not ${JSON.stringify(type.slice(0, 60) || 'nothing')}` },
            ]);
          }
        },
        validatorCompiler: documentOnly,
        schema: {
          operationId: 'importPortfolio',
          summary: 'Create a book from a broker-style CSV of holdings (DESIGN section 8 "portfolios")',
          description:
            'The body is CSV in UTF-8 with a header row naming symbol, shares, cost_basis and optionally entry_date (any case, in any order; other columns ignored). Every bad line is reported (details name `line N: <column>`) and nothing is written.',
          tags: ['portfolios'],
          security: [{ bearer: [] }],
          headers: CREATE_HEADERS,
          querystring: querystringSchema(IMPORT_QUERY),
          ...operationRules(IMPORT_QUERY),
          body: {
            content: {
              [CSV_TYPE]: {
                schema: { type: 'string', description: 'symbol,shares,cost_basis[,entry_date] with a header row, one holding per line', examples: ['symbol,shares,cost_basis,entry_date\nACME,40,61.25,2025-03-14\n'] },
              },
            },
          },
          response: {
            201: { $ref: 'BookResponse#', ...created, description: 'The new book (source import), valued at the latest closes' },
            400: { $ref: 'Error#', description: 'Refused, nothing written: VALIDATION_FAILED with a detail per bad line or parameter, IDEMPOTENCY_KEY_REUSED' },
            415: { $ref: 'Error#', description: 'The body is not text/csv in UTF-8 (UNSUPPORTED_MEDIA_TYPE)' },
            ...errorResponses('Error#', 401, 413, 429, 500, 503),
          },
        },
      },
      async (request, reply) => {
        const principal = await authenticate(request);
        const query = importQuery.checkQuery(request.query);
        const outcome = await portfolios.importCsv(principal, request.body ?? '', { name: query.name ?? null, currency: query.currency ?? null, cash: query.cash ?? null }, writeOptions(request));
        void reply.header('location', `${PORTFOLIOS_PATH}/${encodeURIComponent(outcome.response.portfolio_id)}`);
        return sendOutcome(reply, outcome, outcome.response.version, 201);
      },
    );
  });

  app.get<{ Params: { id: string } }>(
    PORTFOLIO_PATH,
    {
      schema: {
        operationId: 'getPortfolio',
        summary: "One of the caller's books now: holdings valued at the latest closes, cash, version and the newest trades",
        tags: ['portfolios'],
        security: [{ bearer: [] }],
        params: ID_PARAMS,
        response: {
          200: {
            $ref: 'BookResponse#',
            description: 'The book (any source: created, imported, optimized), its first page of trades',
            headers: { ...ETAG_HEADER, 'cache-control': { type: 'string', enum: [BOOK_CACHE_CONTROL], required: true, description: `Always \`${BOOK_CACHE_CONTROL}\`` } },
          },
          404: NOT_FOUND,
          ...errorResponses('Error#', 401, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const book = await portfolios.book(await authenticate(request), request.params.id);
      void reply.header('etag', etagOf(book.version)).header('cache-control', BOOK_CACHE_CONTROL);
      return sendJson(reply, JSON.stringify(book));
    },
  );

  app.get<{ Params: { id: string } }>(
    OPTIMIZATION_PATH,
    {
      schema: {
        operationId: 'getPortfolioOptimization',
        summary: "The stored optimize result a book was created from, the caller's own only",
        tags: ['allocation'],
        security: [{ bearer: [] }],
        params: ID_PARAMS,
        response: {
          200: { $ref: 'PortfolioResponse#', description: 'The stored result, as the optimize answered it' },
          404: { $ref: 'Error#', description: 'Not found (PORTFOLIO_NOT_FOUND): no optimize book of yours has this id' },
          ...errorResponses('Error#', 401, 429, 500, 503),
        },
      },
    },
    async (request, reply) => sendJson(reply, await portfolios.optimizeResultText(await authenticate(request), request.params.id)),
  );

  app.get<{ Params: { id: string }; Querystring: Record<string, string | string[] | undefined> }>(
    TRADES_PATH,
    {
      validatorCompiler: documentOnly,
      schema: {
        operationId: 'listPortfolioTrades',
        summary: "A page of a book's trade log, newest first",
        tags: ['portfolios'],
        security: [{ bearer: [] }],
        params: ID_PARAMS,
        querystring: querystringSchema(TRADES_QUERY),
        ...operationRules(TRADES_QUERY),
        response: { 200: { $ref: 'TradePage#', description: 'One page of trades' }, 404: NOT_FOUND, ...errorResponses('Error#', 400, 401, 429, 500, 503) },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(request);
      const { page, pageSize } = tradesQuery.checkQuery(request.query);
      return sendJson(reply, JSON.stringify(await portfolios.trades(principal, request.params.id, { page, pageSize, naming: 'rest' })));
    },
  );

  app.post<{ Params: { id: string }; Body: unknown; Headers: { 'idempotency-key'?: string; 'if-match'?: string } }>(
    TRADES_PATH,
    {
      onRequest: guard,
      validatorCompiler: documentOnly,
      schema: {
        operationId: 'recordTrade',
        summary: 'Record a buy or a sale: shares and cash change in one transaction (no margin, no shorts)',
        description: 'price defaults to the close on the trade date (or the last one before it); date defaults to today (UTC).',
        tags: ['portfolios'],
        security: [{ bearer: [] }],
        params: ID_PARAMS,
        headers: UPDATE_HEADERS,
        body: { $ref: `${BOOK_REQUEST_IDS.trade}#` },
        response: {
          200: { $ref: 'TradeResponse#', description: 'The trade and the book after it (version +1)', headers: { ...ETAG_HEADER, ...REPLAYED_HEADER } },
          400: BAD_BOOK_WRITE,
          404: NOT_FOUND,
          412: PRECONDITION_FAILED,
          ...errorResponses('Error#', 401, 413, 415, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const outcome = await portfolios.trade(await authenticate(request), request.params.id, request.body, updateOptions(request));
      return sendOutcome(reply, outcome, outcome.response.portfolio.version);
    },
  );

  app.post<{ Params: { id: string }; Body: unknown; Headers: { 'idempotency-key'?: string; 'if-match'?: string }; Querystring: Record<string, string | string[] | undefined> }>(
    REBALANCE_PATH,
    {
      onRequest: guard,
      // It runs the optimizer: the caller's expensive-operation budget is spent (429 past it).
      config: { expensive: true },
      validatorCompiler: documentOnly,
      schema: {
        operationId: 'rebalancePortfolio',
        summary: 'The orders that move a book to the optimizer\'s target (whole shares, sells before buys, cash never negative)',
        description:
          'The stored book is the prior weights; the body may set risk settings and a constraint pack (default: the book\'s; send {} or no body for those). max_positions is a hard limit. With apply=true the orders are recorded as trades in one transaction.',
        tags: ['portfolios'],
        security: [{ bearer: [] }],
        params: ID_PARAMS,
        headers: UPDATE_HEADERS,
        querystring: querystringSchema(REBALANCE_QUERY),
        ...operationRules(REBALANCE_QUERY),
        body: { $ref: `${BOOK_REQUEST_IDS.rebalance}#` },
        response: {
          200: {
            $ref: 'RebalanceResponse#',
            description: 'The target and its orders; applied: the trades recorded and the version after them',
            headers: { etag: { type: 'string', description: 'With apply=true: the book\'s version after the orders, e.g. "4"' }, ...REPLAYED_HEADER },
          },
          400: BAD_BOOK_WRITE,
          404: NOT_FOUND,
          412: PRECONDITION_FAILED,
          ...errorResponses('Error#', 401, 413, 415, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const principal = await authenticate(request);
      const apply = rebalanceQuery.checkQuery(request.query).apply === 'true';
      // No body at all is the empty request (the book's own settings).
      const outcome = await portfolios.rebalance(principal, request.params.id, request.body ?? {}, { ...updateOptions(request), apply });
      return sendOutcome(reply, outcome, outcome.response.applied ? outcome.response.version_after : null);
    },
  );
}
