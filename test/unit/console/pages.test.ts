/** Reading a connection page by page: follow the cursor, stop at the bound, keep what came before a failure. */
import { collectPages, type Page } from '../../../console/src/chart/pages.js';

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
