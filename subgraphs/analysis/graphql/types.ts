/** Analysis subgraph types (camelCase fields; the REST layer keeps the spec's snake_case). */
import { LocalDateResolver } from 'graphql-scalars';
import { Directive, Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum AssetTypeEnum {
  EQUITY = 'EQUITY',
  INDEX = 'INDEX',
}
registerEnumType(AssetTypeEnum, { name: 'AssetType', description: 'What kind of instrument a security is' });

export enum DataSourceEnum {
  SYNTHETIC = 'synthetic',
  IMPORTED = 'imported',
}
registerEnumType(DataSourceEnum, {
  name: 'DataSource',
  description: 'Where the bars came from; SYNTHETIC marks the generated demo market',
});

@ObjectType({ description: 'One daily bar (prices split- and dividend-adjusted when imported that way)' })
export class BarType {
  @Field(() => LocalDateResolver)
  date!: string;

  @Field(() => Float)
  open!: number;

  @Field(() => Float)
  high!: number;

  @Field(() => Float)
  low!: number;

  @Field(() => Float)
  close!: number;

  @Field(() => Float, { description: 'Shares traded (Float: daily volumes can exceed 32-bit integers)' })
  volume!: number;
}

@ObjectType({ description: 'Cursor pagination state' })
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Pass as `after` to get the next page' })
  endCursor!: string | null;
}

@ObjectType({ description: 'A page of daily bars, oldest first' })
export class BarConnection {
  @Field(() => [BarType])
  nodes!: BarType[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  @Field(() => Int, { description: 'Bars in the requested date range' })
  totalCount!: number;
}

@Directive('@key(fields: "symbol")')
@ObjectType('Security', { description: 'A listed security or index; owned by the analysis subgraph' })
export class SecurityType {
  @Field(() => String)
  symbol!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true, description: 'GICS sector' })
  sector!: string | null;

  @Field(() => String, { nullable: true, description: 'GICS sub-industry' })
  subIndustry!: string | null;

  @Field(() => AssetTypeEnum)
  assetType!: AssetTypeEnum;

  @Field(() => DataSourceEnum)
  dataSource!: DataSourceEnum;
}

@ObjectType({ description: 'A page of securities in symbol order' })
export class SecurityConnection {
  @Field(() => [SecurityType])
  nodes!: SecurityType[];

  @Field(() => PageInfo)
  pageInfo!: PageInfo;

  @Field(() => Int)
  totalCount!: number;
}
