/**
 * A typed client of the gateway: it sends the generated documents (./generated, `npm run codegen`) and
 * gets results of their own types, so a field's type in the schema is a type the compiler checks here
 * (test/codegen type-checks this file in strict mode).
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { SecurityDetailDocument, type SecurityDetailQuery, type Stage } from './generated/graphql';

/**
 * Runs one typed operation on a GraphQL endpoint (the gateway's /graphql); throws on a GraphQL error.
 * `byId` sends only the document's hash as `documentId` (the gateway with TRUSTED_DOCUMENTS, whose
 * manifest `npm run codegen` wrote from the same documents); otherwise the document's text.
 */
export async function execute<Result, Variables>(
  url: string,
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
  options: { token?: string; byId?: boolean } = {},
): Promise<Result> {
  const hash = (document as { __meta__?: { hash?: string } }).__meta__?.hash;
  const operation = options.byId && hash ? { documentId: hash } : { query: print(document) };
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
    body: JSON.stringify({ ...operation, variables }),
  });
  const body = (await res.json()) as { data?: Result | null; errors?: Array<{ message: string }> };
  if (body.errors?.length || !body.data) throw new Error(body.errors?.map((e) => e.message).join('; ') ?? `HTTP ${res.status}`);
  return body.data;
}

/** Stage 2 (advancing) is the stage a long-only book buys. */
export const isAdvancing = (stage: Stage | null): boolean => stage === 'STAGE_2';

/** One line about a security's latest analysis: its stage (an enum), its date and typed indicators. */
export function summary(detail: SecurityDetailQuery): string {
  const analysis = detail.security?.analysis;
  if (!analysis) return 'no analysis';
  const date: string = analysis.analysisDate;
  const stage: Stage | null = analysis.stage;
  const rsi: number | null = analysis.indicators?.rsi14 ?? null;
  const band = analysis.indicators?.bollinger;
  const width = band ? ((band.upper - band.lower) / band.middle).toFixed(3) : 'n/a';
  const stop = analysis.riskParameters?.suggestedStop ?? null;
  return `${date} ${stage ?? 'no stage'}${isAdvancing(stage) ? ' (advancing)' : ''}, RSI ${rsi ?? 'n/a'}, band width ${width}, stop ${stop ?? 'n/a'}`;
}

/** The summary of one security (default: the demo symbol) read through a gateway. */
export async function demoSummary(gatewayUrl: string, symbol = 'ACME', options: { token?: string; byId?: boolean } = {}): Promise<string> {
  return summary(await execute(gatewayUrl, SecurityDetailDocument, { symbol }, options));
}
