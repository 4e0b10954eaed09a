/** The security view's figures: what was not measured reads so, intervals sit beside their values. */
import { formatEstimate, formatPrice, formatProbability, humanize, NOT_MEASURED } from '../../../console/src/chart/format.js';
import { collectPages, type Page } from '../../../console/src/chart/pages.js';

describe('evidence figures', () => {
  it('writes a measured fraction with its interval', () => {
    expect(formatEstimate({ value: 0.5423, ci: [0.51, 0.5731] })).toBe('54.2% (95% CI 51.0% to 57.3%)');
    expect(formatEstimate({ value: 0.012, ci: [-0.004, 0.03] }, true)).toBe('+1.2% (95% CI -0.4% to +3.0%)');
    expect(formatEstimate({ value: 0.6, ci: null })).toBe('60.0%');
  });

  it('never invents a number the answer did not carry', () => {
    expect(formatEstimate({ value: null, ci: null })).toBe(NOT_MEASURED);
    expect(formatEstimate({ value: null, ci: [0.1, 0.2] })).toBe(NOT_MEASURED);
    expect(formatEstimate(null)).toBe(NOT_MEASURED);
    expect(formatProbability(null)).toBe(NOT_MEASURED);
    expect(formatProbability(0.615)).toBe('61.5%');
    expect(formatPrice(null)).toBe('—');
    expect(formatPrice(101.456)).toBe('101.46');
  });

  it('reads API enum values as words', () => {
    expect(humanize('STAGE_2')).toBe('Stage 2');
    expect(humanize('INVERSE_HEAD_AND_SHOULDERS')).toBe('Inverse head and shoulders');
    expect(humanize(null)).toBe('—');
  });
});

describe('reading a connection page by page', () => {
  /** A connection of `total` numbered nodes served `size` at a time, recording the cursors asked for. */
  function server(total: number, size: number) {
    const asked: Array<string | null> = [];
    const fetchPage = async (after: string | null): Promise<Page<number>> => {
      asked.push(after);
      const start = after === null ? 0 : Number(after) + 1;
      const nodes = Array.from({ length: Math.max(0, Math.min(size, total - start)) }, (_, i) => start + i);
      const last = nodes[nodes.length - 1];
      return { nodes, hasNextPage: start + size < total, endCursor: last === undefined ? null : String(last) };
    };
    return { asked, fetchPage };
  }

  it('follows endCursor until the last page', async () => {
    const s = server(7, 3);
    const result = await collectPages(s.fetchPage, 10);
    expect(result).toEqual({ nodes: [0, 1, 2, 3, 4, 5, 6], truncated: false, failed: false, aborted: false });
    expect(s.asked).toEqual([null, '2', '5']);
  });

  it('stops at the bound and says so', async () => {
    const s = server(100, 3);
    const result = await collectPages(s.fetchPage, 2);
    expect(result.nodes).toEqual([0, 1, 2, 3, 4, 5]);
    expect(result.truncated).toBe(true);
  });

  it('stops on a repeated cursor or a failed page, keeping what came before', async () => {
    const stuck = await collectPages(async () => ({ nodes: [1], hasNextPage: true, endCursor: 'same' }), 50);
    expect(stuck).toEqual({ nodes: [1, 1], truncated: false, failed: false, aborted: false });
    let calls = 0;
    const failing = await collectPages(async () => (++calls === 1 ? { nodes: [1, 2], hasNextPage: true, endCursor: 'x' } : null), 50);
    expect(failing).toEqual({ nodes: [1, 2], truncated: false, failed: true, aborted: false });
  });
});
