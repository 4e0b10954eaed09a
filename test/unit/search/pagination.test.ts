/**
 * pagination.ts: pages of a ranked list (1-based page, page_size items), has_more, a page past the end.
 */
import fc from 'fast-check';
import { HUNT_MODES, PAGINATION, paginate } from '../../../subgraphs/search/engine/pagination.js';

describe('paginate', () => {
  const list = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];

  it('slices items (page - 1) x size to page x size - 1', () => {
    expect(paginate(list, 1, 3)).toEqual({ items: ['a', 'b', 'c'], page: 1, page_size: 3, total: 7, has_more: true });
    expect(paginate(list, 2, 3)).toEqual({ items: ['d', 'e', 'f'], page: 2, page_size: 3, total: 7, has_more: true });
    expect(paginate(list, 3, 3)).toEqual({ items: ['g'], page: 3, page_size: 3, total: 7, has_more: false });
  });

  it('has no more on a page that ends exactly at the end', () => {
    expect(paginate(list.slice(0, 6), 2, 3).has_more).toBe(false);
    expect(paginate(list.slice(0, 6), 1, 3).has_more).toBe(true);
  });

  it('gives an empty page past the end, and for an empty list', () => {
    expect(paginate(list, 4, 3)).toEqual({ items: [], page: 4, page_size: 3, total: 7, has_more: false });
    expect(paginate(list, PAGINATION.maxPage, PAGINATION.maxPageSize).items).toEqual([]);
    expect(paginate([], 1, 6)).toEqual({ items: [], page: 1, page_size: 6, total: 0, has_more: false });
  });

  it('documents its defaults and the three hunt modes', () => {
    expect(PAGINATION).toEqual({ defaultPage: 1, defaultPageSize: 6, maxPageSize: 50, maxPage: 2 ** 31 - 1 });
    expect(HUNT_MODES.map((m) => m.mode)).toEqual(['general', 'replace', 'interest']);
  });

  it('pages partition the list in order: their concatenation is the list (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 200 }), fc.integer({ min: 1, max: PAGINATION.maxPageSize }), (xs, size) => {
        const pages = Math.ceil(xs.length / size);
        const out: number[] = [];
        for (let page = 1; page <= pages + 1; page++) {
          const slice = paginate(xs, page, size);
          if (slice.total !== xs.length) throw new Error('total');
          if (slice.items.length > size) throw new Error('page too long');
          if (page <= pages && slice.items.length === 0) throw new Error(`page ${page} of ${pages} empty`);
          if (page > pages && slice.items.length !== 0) throw new Error('page past the end not empty');
          if (slice.has_more !== page < pages) throw new Error(`has_more on page ${page} of ${pages}`);
          out.push(...slice.items);
        }
        expect(out).toEqual(xs);
      }),
      { numRuns: 300 },
    );
  });
});
