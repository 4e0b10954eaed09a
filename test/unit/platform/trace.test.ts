/** Trace ids (DESIGN section 5): honour x-trace-id, then traceparent, else a fresh id. */
import { traceIdFrom } from '../../../subgraphs/platform/trace.js';

it('keeps a well-formed x-trace-id', () => {
  expect(traceIdFrom({ 'x-trace-id': 'req-123.abc_DEF' })).toBe('req-123.abc_DEF');
});

it('prefers x-trace-id over traceparent', () => {
  expect(traceIdFrom({ 'x-trace-id': 'mine', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' })).toBe('mine');
});

it('takes the trace-id of a valid traceparent', () => {
  expect(traceIdFrom({ traceparent: '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01' })).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
});

it.each([
  [{ 'x-trace-id': 'has space' }],
  [{ 'x-trace-id': 'x'.repeat(129) }],
  [{ 'x-trace-id': '<script>' }],
  [{ traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' }],
  [{ traceparent: 'garbage' }],
  [{}],
])('generates a fresh 32-hex id for %j', (headers) => {
  const id = traceIdFrom(headers);
  expect(id).toMatch(/^[0-9a-f]{32}$/);
  expect(traceIdFrom(headers)).not.toBe(id);
});
