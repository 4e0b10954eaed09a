/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** Weinstein stage: STAGE_1 basing, STAGE_2 advancing, STAGE_3 topping, STAGE_4 declining (REST: 'STAGE 1' .. 'STAGE 4') */
export type Stage =
  | 'STAGE_1'
  | 'STAGE_2'
  | 'STAGE_3'
  | 'STAGE_4';

/** How clearly the bars show the stage */
export type StageStrength =
  | 'MODERATE'
  | 'STRONG'
  | 'VERY_STRONG'
  | 'WEAK';

export type ConsoleSecurityQueryVariables = Exact<{
  symbol: string;
  date?: string | null | undefined;
}>;


export type ConsoleSecurityQuery = { security: { symbol: string, name: string, sector: string | null, analysis: { analysisDate: string, stage: Stage | null, stageStrength: StageStrength | null } | null } | null };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const ConsoleSecurityDocument = new TypedDocumentString(`
    query ConsoleSecurity($symbol: String!, $date: String) {
  security(symbol: $symbol) {
    symbol
    name
    sector
    analysis(date: $date) {
      analysisDate
      stage
      stageStrength
    }
  }
}
    `, {"hash":"sha256:eed4a46db11b4b1920b3d234d6bba76a85417d538c2a68f6e57474692ca05f1c"}) as unknown as TypedDocumentString<ConsoleSecurityQuery, ConsoleSecurityQueryVariables>;