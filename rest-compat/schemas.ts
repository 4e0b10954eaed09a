/**
 * JSON Schemas of the REST routes: the same objects validate requests (Fastify) and generate each
 * origin's OpenAPI 3.1 document (`GET /openapi.json`, @fastify/swagger). Field names and types follow
 * `../shared/spec/http-interfaces.md`; `schema/spec-fields.json` lists the spec's fields, and a test
 * checks that every one of them is in these schemas.
 */
const nullable = (type: string | string[]) => ({ type: [...(Array.isArray(type) ? type : [type]), 'null'] });

/** spec "PatternEntry"; additional keys are allowed. */
export const patternEntrySchema = {
  $id: 'PatternEntry',
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', description: 'pattern classifier name' },
    status: { ...nullable('string'), description: 'forming, active, completed or failed' },
    start_date: { ...nullable('string'), description: 'ISO date of pattern start' },
    end_date: { ...nullable('string'), description: 'ISO date of pattern end' },
    confidence: { ...nullable('number'), description: 'detector confidence, 0..1' },
    price_target: { ...nullable('number'), description: 'pattern-implied price level (measured move)' },
  },
  additionalProperties: true,
} as const;

const patternRef = { $ref: 'PatternEntry#' };
const patternSignal = { ...nullable('object'), description: 'PatternSignalModel: direction, net_confidence, bullish_confidence, bearish_confidence' };

/** spec "AnalysisLatestResult" (presence varies by symbol; auth-only fields are omitted in demo responses). */
export const analysisLatestResultSchema = {
  $id: 'AnalysisLatestResult',
  type: 'object',
  properties: {
    stage: { ...nullable(['string', 'object']), description: 'market stage label, e.g. STAGE 2 (null before 34 weeks of history)' },
    stage_strength: { ...nullable(['string', 'number']), description: 'VERY_STRONG, STRONG, MODERATE or WEAK' },
    price: { ...nullable('number'), description: 'last close used' },
    volume: { ...nullable('integer'), description: 'volume of the analysis bar' },
    indicators: { ...nullable('object'), description: 'nested indicator structure (includes rsi_14 and sata_score)' },
    detected_patterns: { type: ['array', 'null'], items: patternRef },
    best_pattern: { oneOf: [patternRef, { type: 'null' }] },
    pattern_signal: patternSignal,
    price_targets: { type: ['array', 'null'], items: { type: 'object', additionalProperties: true } },
    support_levels: { type: ['array', 'null'], items: { type: 'number' } },
    resistance_levels: { type: ['array', 'null'], items: { type: 'number' } },
    recent_patterns: { type: ['array', 'null'], items: patternRef },
    best_recent_pattern: { oneOf: [patternRef, { type: 'null' }] },
    recent_pattern_signal: patternSignal,
    market_regime: { ...nullable('string'), description: 'bull, bear or sideways' },
    sector: nullable('string'),
    signal: { ...nullable(['string', 'object']), description: 'BUY, SELL or HOLD' },
    confidence: { ...nullable('number'), description: '0..1' },
    ml_signal: nullable(['string', 'object']),
    enhanced_signal: nullable(['string', 'object']),
    analysis_date: { ...nullable('string'), description: 'YYYY-MM-DD' },
    analysis_timestamp: nullable('string'),
    timestamp: nullable('string'),
    risk_parameters: { ...nullable('object'), description: 'authenticated responses only' },
    transition_probabilities: { ...nullable('object'), description: 'authenticated responses only' },
  },
  additionalProperties: true,
} as const;

/** spec "AnalysisResultResponse" (envelope). */
export const analysisEnvelopeSchema = {
  $id: 'AnalysisResultResponse',
  type: 'object',
  required: ['success', 'timestamp', 'result', 'error'],
  properties: {
    success: { type: 'boolean' },
    timestamp: { type: 'string', format: 'date-time', description: 'server time when the response was built' },
    result: { oneOf: [{ $ref: 'AnalysisLatestResult#' }, { type: 'null' }] },
    error: nullable('string'),
  },
  additionalProperties: true,
} as const;

/** Errors of the analysis read routes: the platform error shape plus the envelope's fields. */
export const analysisErrorSchema = {
  $id: 'AnalysisError',
  allOf: [
    { $ref: 'Error#' },
    {
      type: 'object',
      required: ['timestamp', 'result'],
      properties: { timestamp: { type: 'string', format: 'date-time' }, result: { type: 'null' } },
    },
  ],
} as const;

/** The schemas the analysis origin registers (`$id`s its routes reference); `Error#` is the platform's. */
export const ANALYSIS_SCHEMAS = [patternEntrySchema, analysisLatestResultSchema, analysisEnvelopeSchema, analysisErrorSchema];

/** Error responses of a route, by status, in the given shape. */
export function errorResponses(ref: 'Error#' | 'AnalysisError#', ...statuses: number[]): Record<number, unknown> {
  return Object.fromEntries(statuses.map((s) => [s, { $ref: ref }]));
}
