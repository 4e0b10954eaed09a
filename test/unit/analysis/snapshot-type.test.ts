/**
 * The GraphQL form of a snapshot (subgraphs/analysis/graphql/resolvers.ts toSnapshotType): made once
 * per cached document and handed out again while the service hands out that document, never across
 * documents or stored fields.
 */
import { toSnapshotType } from '../../../subgraphs/analysis/graphql/resolvers.js';
import type { JsonObject, SnapshotView } from '../../../subgraphs/analysis/service.js';

const doc = (price: number): JsonObject => ({
  stage: 'STAGE 2',
  stage_strength: 'STRONG',
  price,
  signal: { signal: 'BUY' },
  detected_patterns: [{ type: 'CUP_AND_HANDLE', confidence: 0.7, key_points: [{ label: 'lip', date: '2026-10-01', price: 10 }] }],
  support_levels: [9.5, 'not a level', 8],
});

const viewOf = (document: JsonObject, over: Partial<SnapshotView> = {}): SnapshotView => ({
  symbol: 'ACME',
  analysisDate: '2026-10-30',
  producedAt: '2026-10-30T22:00:00.000Z',
  pipelineVersion: '1',
  scope: 'full',
  document,
  dataSource: 'synthetic',
  ...over,
});

it('converts the document: camelCase fields, labels, and values of the wrong shape dropped', () => {
  const t = toSnapshotType(viewOf(doc(12.5)));
  expect(t).toMatchObject({ symbol: 'ACME', stage: 'STAGE 2', stageStrength: 'STRONG', signal: 'BUY', price: 12.5, supportLevels: [9.5, 8] });
  expect(t.detectedPatterns?.[0]).toMatchObject({ type: 'CUP_AND_HANDLE', confidence: 0.7, keyPoints: [{ label: 'lip', date: '2026-10-01', price: 10 }] });
});

it('the same cached document gives the same form, without converting it again', () => {
  const d = doc(12.5);
  const first = toSnapshotType(viewOf(d));
  expect(toSnapshotType(viewOf(d))).toBe(first);
});

it('another document, or the same document under other stored fields, gives its own form', () => {
  const d = doc(12.5);
  const first = toSnapshotType(viewOf(d));
  const other = toSnapshotType(viewOf(doc(13)));
  expect(other).not.toBe(first);
  expect(other.price).toBe(13);
  const republished = toSnapshotType(viewOf(d, { producedAt: '2026-10-31T01:00:00.000Z' }));
  expect(republished).not.toBe(first);
  expect(republished.producedAt).toBe('2026-10-31T01:00:00.000Z');
  const publicForm = toSnapshotType(viewOf(d, { scope: 'public' }));
  expect(publicForm).not.toBe(republished);
});
