/**
 * Analysis subgraph resolvers: thin calls into AnalysisService, which owns the access policy (who sees
 * which symbol, which date, which keys). Here a snapshot the service returned is only renamed into the
 * GraphQL types: snake_case document keys to camelCase fields, domain strings to the enums that show
 * them, and a key the caller's view does not have (or whose value has another shape) to null. A typed
 * part (stageDetail, mlSignal, ...) is the object the pipeline wrote, shown as written; it is null when
 * absent or when one of its enum fields holds a value the enum lacks (see `part`).
 */
import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { Assert, Same } from '../../platform/type-checks.js';
import type { RequestContext } from '../../platform/context.js';
import { DateScalar } from '../../platform/graphql-types.js';
import { enumValue } from './enums.js';
import type { AnalysisService, JsonObject, Page, SnapshotView } from '../service.js';
import {
  AnalysisModelType,
  AnalysisRunType,
  AnalysisSnapshotConnection,
  AnalysisSnapshotType,
  BarConnection,
  CalibratedProbabilityType,
  CalibrationMetricsType,
  EvidenceEstimateType,
  EvidenceTableStateType,
  EvidenceTableType,
  EvidenceUniverseType,
  PatternConfidencePartsType,
  PatternTargetEvidenceType,
  ProbabilityCalibrationType,
  ReliabilityBinType,
  SnapshotCalibrationType,
  SnapshotEvidenceType,
  StateEvidenceType,
  type EvidenceStatusEnum,
  type CalibratorType,
  type EnhancedSignalType,
  type IndicatorsType,
  type MlSignalType,
  type RiskParametersType,
  type StageDetailType,
  type TransitionProbabilitiesType,
  PatternEntryType,
  PatternPointType,
  PatternSignalType,
  PriceTargetType,
  SecurityConnection,
  SecurityType,
  type AssetTypeEnum,
  type DataSourceEnum,
} from './types.js';
import type { SecurityRecord } from '../engine/market-types.js';
import {
  PATTERN_STATUSES,
  PATTERN_TYPES,
  SIGNALS,
  STAGE_LABELS,
  STAGE_STRENGTHS,
  type EnhancedSignal,
  type IndicatorsBlock,
  type MlSignal,
  type RiskParameters,
  type StagePayload,
  type TransitionProbabilities,
} from '../engine/document.js';
import type { Calibrator } from '../engine/evidence/calibration.js';
import { EVIDENCE_OUTPUTS, type EvidenceTable, type ProbabilityCalibration } from '../engine/evidence/state-evidence.js';

export function toSecurityType(s: SecurityRecord): SecurityType {
  return Object.assign(new SecurityType(), {
    ...s,
    assetType: s.assetType as AssetTypeEnum,
    dataSource: s.dataSource as DataSourceEnum,
  });
}

function connection<T, N>(page: Page<T>, map: (item: T) => N): { nodes: N[]; pageInfo: { hasNextPage: boolean; endCursor: string | null }; totalCount: number } {
  return { nodes: page.items.map(map), pageInfo: { hasNextPage: page.hasMore, endCursor: page.endCursor }, totalCount: page.total };
}

// ---------------------------------------------------------------------------------------------------------
// Snapshot documents -> GraphQL types
// ---------------------------------------------------------------------------------------------------------

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const obj = (v: unknown): JsonObject | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : null);
const list = <T>(v: unknown, map: (item: unknown) => T | null): T[] | null => (Array.isArray(v) ? v.map(map).filter((x): x is T => x !== null) : null);
/** A value the spec allows to be a string or an object (stage, signal): its label. */
const label = (v: unknown, key: string): string | null => str(v) ?? str(obj(v)?.[key]) ?? (typeof v === 'number' ? String(v) : null);

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
/** A document key as a GraphQL field name: snake_case to camelCase, a `STAGE n` map key to `stageN`. */
type FieldName<K extends string> = K extends `STAGE ${infer N}` ? `stage${N}` : CamelCase<K>;
/** A document part as its GraphQL output: every key renamed at every depth, an optional key null when absent. */
type Output<T> = T extends readonly (infer E)[]
  ? Output<E>[]
  : T extends object
    ? { [K in keyof T as K extends string ? FieldName<K> : never]-?: Output<Exclude<T[K], undefined>> | (undefined extends T[K] ? null : never) }
    : T;
/** An output class as a plain type, at every depth (to compare it with an Output). */
type Shape<T> = T extends readonly (infer E)[] ? Shape<E>[] : T extends object ? { [K in keyof T]: Shape<T[K]> } : T;

const fieldName = (key: string): string => (/^STAGE \d$/.test(key) ? `stage${key.slice(6)}` : key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()));

function toOutput<T>(value: T): Output<T> {
  if (Array.isArray(value)) return value.map(toOutput) as Output<T>;
  if (value === null || typeof value !== 'object') return value as Output<T>;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [fieldName(k), v === undefined ? null : toOutput(v)])) as Output<T>;
}

/** The enum fields of a part of type T: document key -> the values its GraphQL enum shows. */
type EnumFields<T> = { [K in keyof T]?: readonly T[K][] };

/**
 * A typed part of the document (an object the pipeline wrote with type T) as its output. Null when
 * absent, and null when one of its `enums` fields holds another value (a document written by another
 * pipeline version): GraphQL cannot show such a value in a non-null enum field, and would answer the
 * whole part as null with an internal error instead.
 */
function part<T>(v: unknown, enums: EnumFields<T> = {}): Output<T> | null {
  const o = obj(v);
  if (!o) return null;
  for (const [key, values] of Object.entries(enums) as Array<[string, readonly string[]]>) if (enumValue(values, o[key]) === null) return null;
  return toOutput(o as T);
}

/** ml_signal as the read presents it (engine/evidence/present.ts): calibrated or null, the stored confidence kept. */
type PresentedMlSignal = Omit<MlSignal, 'probability_up' | 'confidence'> & { probability_up: number | null; confidence: number | null; raw_confidence: number | null };
/** enhanced_signal as the read presents it: confidence calibrated or null, the stored one kept. */
type PresentedEnhancedSignal = Omit<EnhancedSignal, 'confidence'> & { confidence: number | null; raw_confidence: number | null };

// The typed snapshot parts against the document's domain types: the same fields (renamed as Output
// renames them) with the same value types, so a key added to the document or a class alone fails `tsc`.
export type SnapshotPartsMatchDomain = [
  Assert<Same<Output<IndicatorsBlock>, Shape<IndicatorsType>>>,
  Assert<Same<Output<StagePayload>, Shape<StageDetailType>>>,
  Assert<Same<Output<PresentedMlSignal>, Shape<MlSignalType>>>,
  Assert<Same<Output<PresentedEnhancedSignal>, Shape<EnhancedSignalType>>>,
  Assert<Same<Output<RiskParameters>, Shape<RiskParametersType>>>,
  Assert<Same<Output<TransitionProbabilities>, Shape<TransitionProbabilitiesType>>>,
];

function toPattern(value: unknown): PatternEntryType | null {
  const p = obj(value);
  if (!p) return null;
  const parts = obj(p.confidence_parts);
  const type = enumValue(PATTERN_TYPES, p.type);
  if (!type) return null;
  return Object.assign(new PatternEntryType(), {
    type,
    status: enumValue(PATTERN_STATUSES, p.status),
    startDate: str(p.start_date),
    endDate: str(p.end_date),
    confidence: num(p.confidence),
    rawConfidence: num(p.raw_confidence),
    priceTarget: num(p.price_target),
    direction: str(p.direction),
    breakoutLevel: num(p.breakout_level),
    invalidationLevel: num(p.invalidation_level),
    keyPoints: list(p.key_points, (k) => {
      const point = obj(k);
      return point && Object.assign(new PatternPointType(), { label: str(point.label) ?? '', date: str(point.date), price: num(point.price) });
    }),
    confidenceParts: parts && Object.assign(new PatternConfidencePartsType(), { geometry: num(parts.geometry), volume: num(parts.volume), trend: num(parts.trend) }),
  });
}

function toPatternSignal(value: unknown): PatternSignalType | null {
  const s = obj(value);
  return (
    s &&
    Object.assign(new PatternSignalType(), {
      direction: str(s.direction),
      netConfidence: num(s.net_confidence),
      bullishConfidence: num(s.bullish_confidence),
      bearishConfidence: num(s.bearish_confidence),
      patternCount: num(s.pattern_count),
    })
  );
}

function toPriceTarget(value: unknown): PriceTargetType | null {
  const t = obj(value);
  return (
    t &&
    Object.assign(new PriceTargetType(), {
      source: str(t.source),
      basis: str(t.basis),
      direction: str(t.direction),
      price: num(t.price),
      distancePercent: num(t.distance_percent),
      confidence: num(t.confidence),
      rawConfidence: num(t.raw_confidence),
    })
  );
}

// ---------------------------------------------------------------------------------------------------------
// Evidence and calibration -> GraphQL types
// ---------------------------------------------------------------------------------------------------------

function toInterval(v: unknown): number[] | null {
  return Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number') ? (v as number[]) : null;
}

function toEstimate(value: unknown): EvidenceEstimateType {
  const e = obj(value);
  return Object.assign(new EvidenceEstimateType(), { value: num(e?.value), ci: toInterval(e?.ci) });
}

function toStateEvidence(value: unknown, state?: string): StateEvidenceType | null {
  const r = obj(value);
  if (!r) return null;
  const target = obj(r.target_first);
  return Object.assign(new StateEvidenceType(), {
    state: str(r.state) ?? state ?? '',
    n: num(r.n) ?? 0,
    dates: num(r.dates) ?? 0,
    hitRate: toEstimate(r.hit_rate),
    meanExcess20d: toEstimate(r.mean_excess_20d),
    meanExcess60d: toEstimate(r.mean_excess_60d),
    targetFirst: target && Object.assign(new PatternTargetEvidenceType(), { value: num(target.value), ci: toInterval(target.ci), n: num(target.n) ?? 0, placebo: num(target.placebo) }),
  });
}

function toUniverse(value: unknown): EvidenceUniverseType | null {
  const u = obj(value);
  return u && Object.assign(new EvidenceUniverseType(), { symbols: num(u.symbols) ?? 0, firstDate: str(u.first_date) ?? '', lastDate: str(u.last_date) ?? '', benchmark: str(u.benchmark) ?? '' });
}

function toEvidence(value: unknown): SnapshotEvidenceType | null {
  const e = obj(value);
  return (
    e &&
    Object.assign(new SnapshotEvidenceType(), {
      asOf: str(e.as_of),
      status: (e.status === 'measured' ? 'measured' : 'not_measured') as EvidenceStatusEnum,
      reason: str(e.reason),
      pipelineVersion: str(e.pipeline_version),
      universe: toUniverse(e.universe),
      stage: toStateEvidence(e.stage),
      signal: toStateEvidence(e.signal),
      sataBucket: toStateEvidence(e.sata_bucket),
      bestPattern: toStateEvidence(e.best_pattern),
    })
  );
}

function toCalibratedProbability(value: unknown): CalibratedProbabilityType {
  const p = obj(value);
  return Object.assign(new CalibratedProbabilityType(), {
    raw: num(p?.raw),
    probability: num(p?.probability),
    event: str(p?.event),
    method: str(p?.method),
    n: num(p?.n) ?? 0,
    brier: num(p?.brier),
    ece: num(p?.ece),
    reason: str(p?.reason),
  });
}

function toCalibration(value: unknown): SnapshotCalibrationType | null {
  const c = obj(value);
  return (
    c &&
    Object.assign(new SnapshotCalibrationType(), {
      asOf: str(c.as_of),
      confidence: toCalibratedProbability(c.confidence),
      enhancedConfidence: toCalibratedProbability(c.enhanced_confidence),
      mlProbabilityUp: toCalibratedProbability(c.ml_probability_up),
      patternTarget: toCalibratedProbability(c.pattern_target),
    })
  );
}

function toProbabilityCalibration(name: string, signal: string | null, c: ProbabilityCalibration): ProbabilityCalibrationType {
  const m = c.metrics;
  const metrics =
    m &&
    Object.assign(new CalibrationMetricsType(), {
      n: m.n,
      brier: num(m.brier),
      ece: num(m.ece),
      reliability: m.reliability.map((r) => Object.assign(new ReliabilityBinType(), { ...r, meanPredicted: num(r.meanPredicted), observedRate: num(r.observedRate), observedLow: num(r.observedLow), observedHigh: num(r.observedHigh) })),
    });
  return Object.assign(new ProbabilityCalibrationType(), { name, signal, event: c.event, n: c.n, baseRate: num(c.base_rate), method: c.method, calibrator: toCalibrator(c.calibrator), metrics });
}

/** Both calibrator kinds in one object type: the other kind's fields null. */
function toCalibrator(c: Calibrator | null): CalibratorType | null {
  if (!c) return null;
  const { method, n, positives, baseRate, priorStrength } = c;
  return c.method === 'isotonic'
    ? { method, n, positives, baseRate, priorStrength, blocks: c.blocks, a: null, b: null }
    : { method, n, positives, baseRate, priorStrength, blocks: null, a: c.a, b: c.b };
}

export function toEvidenceTableType(table: EvidenceTable): EvidenceTableType {
  const states = EVIDENCE_OUTPUTS.flatMap((output) =>
    Object.entries(table.states[output] ?? {}).map(([state, record]) =>
      Object.assign(new EvidenceTableStateType(), { output, record: toStateEvidence(record, state) as StateEvidenceType }),
    ),
  );
  const p = table.probabilities;
  const enhanced = p.enhanced_confidence;
  const probabilities = [
    ...SIGNALS.map((signal) => toProbabilityCalibration('confidence', signal, p.confidence[signal])),
    ...(enhanced === undefined ? [] : SIGNALS.map((signal) => toProbabilityCalibration('enhanced_confidence', signal, enhanced[signal]))),
    toProbabilityCalibration('ml_probability_up', null, p.ml_probability_up),
    toProbabilityCalibration('pattern_target', null, p.pattern_target),
  ];
  return Object.assign(new EvidenceTableType(), {
    asOf: table.as_of,
    pipelineVersion: table.pipeline_version,
    universe: toUniverse(table.universe) as EvidenceUniverseType,
    states,
    probabilities,
  });
}

/**
 * GraphQL forms of documents the service keeps in its latest-snapshot cache. A cached entry hands out
 * the same parsed document object (its full or its public subset) for as long as it is cached, and the
 * form depends only on that document and the entry's stored fields, so it is made once per document
 * instead of on every read; documents read for one request (dated, history) are simply collected.
 */
const snapshotTypes = new WeakMap<JsonObject, { view: SnapshotView; type: AnalysisSnapshotType }>();

export function toSnapshotType(view: SnapshotView): AnalysisSnapshotType {
  const known = snapshotTypes.get(view.document);
  if (known && sameStoredFields(known.view, view)) return known.type;
  const type = snapshotTypeOf(view);
  snapshotTypes.set(view.document, { view, type });
  return type;
}

const sameStoredFields = (a: SnapshotView, b: SnapshotView): boolean =>
  a.symbol === b.symbol && a.analysisDate === b.analysisDate && a.producedAt === b.producedAt && a.pipelineVersion === b.pipelineVersion && a.dataSource === b.dataSource && a.scope === b.scope;

function snapshotTypeOf(view: SnapshotView): AnalysisSnapshotType {
  const d = view.document;
  return Object.assign(new AnalysisSnapshotType(), {
    symbol: view.symbol,
    analysisDate: view.analysisDate,
    analysisTimestamp: str(d.analysis_timestamp),
    producedAt: view.producedAt,
    pipelineVersion: view.pipelineVersion,
    dataSource: view.dataSource,
    stage: enumValue(STAGE_LABELS, label(d.stage, 'label')),
    stageStrength: enumValue(STAGE_STRENGTHS, label(d.stage_strength, 'strength')),
    stageDetail: part<StagePayload>(d.stage_detail, { label: STAGE_LABELS, strength: STAGE_STRENGTHS }),
    price: num(d.price),
    volume: num(d.volume),
    indicators: part<IndicatorsBlock>(d.indicators),
    detectedPatterns: list(d.detected_patterns, toPattern),
    bestPattern: toPattern(d.best_pattern),
    patternSignal: toPatternSignal(d.pattern_signal),
    recentPatterns: list(d.recent_patterns, toPattern),
    bestRecentPattern: toPattern(d.best_recent_pattern),
    recentPatternSignal: toPatternSignal(d.recent_pattern_signal),
    priceTargets: list(d.price_targets, toPriceTarget),
    supportLevels: list(d.support_levels, num),
    resistanceLevels: list(d.resistance_levels, num),
    marketRegime: str(d.market_regime),
    sector: str(d.sector),
    signal: enumValue(SIGNALS, label(d.signal, 'signal')),
    signalReasons: list(d.signal_reasons, str),
    confidence: num(d.confidence),
    mlSignal: part<PresentedMlSignal>(d.ml_signal, { signal: SIGNALS }),
    enhancedSignal: part<PresentedEnhancedSignal>(d.enhanced_signal, { signal: SIGNALS }),
    riskParameters: part<RiskParameters>(d.risk_parameters),
    transitionProbabilities: part<TransitionProbabilities>(d.transition_probabilities, { current_stage: STAGE_LABELS }),
    evidence: toEvidence(d.evidence),
    calibration: toCalibration(d.calibration),
    document: d,
  });
}

@Resolver(() => AnalysisSnapshotType)
export class AnalysisSnapshotResolver {
  constructor(private readonly service: AnalysisService) {}

  @Query(() => AnalysisSnapshotType, {
    nullable: true,
    description:
      'A symbol\'s analysis snapshot: the latest, or (partners) the one of `date` (YYYY-MM-DD); null when none is stored. Without a partner token: the demo symbol only, latest, public fields',
  })
  async analysis(
    @Arg('symbol', () => String) symbol: string,
    @Ctx() ctx: RequestContext,
    @Arg('date', () => String, { nullable: true, description: 'YYYY-MM-DD; partners only (ignored without a token, as the REST demo read ignores it: a String the service checks, not the date scalar)' }) date?: string,
  ): Promise<AnalysisSnapshotType | null> {
    const view = await this.service.snapshot(await ctx.principal(), symbol, date);
    return view && toSnapshotType(view);
  }

  @Query(() => EvidenceTableType, {
    nullable: true,
    description:
      'The as-of evidence table a snapshot dated `date` (YYYY-MM-DD) uses: the greatest as-of <= date, or the latest table without a date; null when none is measured. Partners only',
  })
  async evidenceTable(
    @Ctx() ctx: RequestContext,
    @Arg('date', () => String, { nullable: true, description: 'YYYY-MM-DD; omitted: the latest table' }) date?: string,
  ): Promise<EvidenceTableType | null> {
    const table = await this.service.evidenceTableOrNull(await ctx.principal(), date);
    return table && toEvidenceTableType(table);
  }

  @Query(() => AnalysisRunType, {
    nullable: true,
    description: "The latest analysis pipeline run, with the ML model's out-of-sample figures; null before the first run",
  })
  async analysisRun(): Promise<AnalysisRunType | null> {
    const run = await this.service.latestRun();
    if (!run) return null;
    const model = run.model && Object.assign(new AnalysisModelType(), run.model);
    return Object.assign(new AnalysisRunType(), { ...run, model });
  }
}

@Resolver(() => SecurityType)
export class SecurityResolver {
  constructor(private readonly service: AnalysisService) {}

  @Query(() => SecurityType, { nullable: true, description: 'A security by ticker (case-insensitive); null when unknown' })
  async security(@Arg('symbol', () => String) symbol: string, @Ctx() ctx: RequestContext): Promise<SecurityType | null> {
    const found = await this.service.getSecurity(await ctx.principal(), symbol);
    return found && toSecurityType(found);
  }

  @Query(() => SecurityConnection, { description: 'Securities in symbol order (partners only)' })
  async securities(
    @Ctx() ctx: RequestContext,
    @Arg('sector', () => String, { nullable: true, description: 'GICS sector' }) sector?: string,
    @Arg('first', () => Int, { nullable: true, description: 'Page size, default 50, at most 500' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: 'endCursor of the previous page' }) after?: string,
  ): Promise<SecurityConnection> {
    return connection(await this.service.listSecurities(await ctx.principal(), { sector, first, after }), toSecurityType);
  }

  @FieldResolver(() => BarConnection, { description: 'Daily bars, oldest first, within [from, to] (partners only)' })
  async bars(
    @Root() security: SecurityType,
    @Ctx() ctx: RequestContext,
    @Arg('from', () => DateScalar, { nullable: true }) from?: string,
    @Arg('to', () => DateScalar, { nullable: true }) to?: string,
    @Arg('first', () => Int, { nullable: true, description: 'Page size, default 250, at most 2000' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: 'endCursor (a date) of the previous page' }) after?: string,
  ): Promise<BarConnection> {
    return connection(await this.service.getBars(await ctx.principal(), security.symbol, { from, to, first, after }), (b) => b);
  }

  @FieldResolver(() => AnalysisSnapshotType, {
    nullable: true,
    description:
      'The analysis snapshot: the latest, or (partners) the one of `date` (YYYY-MM-DD); null when none is stored. Without a partner token: latest, public fields',
  })
  async analysis(
    @Root() security: SecurityType,
    @Ctx() ctx: RequestContext,
    @Arg('date', () => String, { nullable: true, description: 'YYYY-MM-DD; partners only (ignored without a token, as the REST demo read ignores it: a String the service checks, not the date scalar)' }) date?: string,
  ): Promise<AnalysisSnapshotType | null> {
    const view = await this.service.snapshot(await ctx.principal(), security.symbol, date);
    return view && toSnapshotType(view);
  }

  @FieldResolver(() => AnalysisSnapshotConnection, { description: 'Stored analysis snapshots, oldest first, within [from, to] (partners only)' })
  async snapshots(
    @Root() security: SecurityType,
    @Ctx() ctx: RequestContext,
    @Arg('from', () => DateScalar, { nullable: true }) from?: string,
    @Arg('to', () => DateScalar, { nullable: true }) to?: string,
    @Arg('first', () => Int, { nullable: true, description: 'Page size, default 20, at most 100' }) first?: number,
    @Arg('after', () => String, { nullable: true, description: 'endCursor (a date) of the previous page' }) after?: string,
  ): Promise<AnalysisSnapshotConnection> {
    return connection(await this.service.snapshots(await ctx.principal(), security.symbol, { from, to, first, after }), toSnapshotType);
  }
}
