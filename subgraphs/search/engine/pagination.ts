/** Hunt modes and pagination (spec "Opportunity-search service", "Limits"; DESIGN section 5). */

export const HUNT_MODES = [
  { mode: 'general', parameter: null, description: 'Assessment of every holding: strong and weak positions, recommendations, concerns' },
  { mode: 'replace', parameter: 'symbol_replace', description: 'Ranked replacement candidates for one holding' },
  { mode: 'interest', parameter: 'symbol_interest', description: 'Suitability of a ticker of interest for the portfolio' },
] as const;
export type HuntMode = (typeof HUNT_MODES)[number]['mode'];

/**
 * page is 1-based (default 1); page_size defaults to 6, at most 50. A page past the end is valid and
 * empty. `maxPage` is GraphQL's largest Int, so REST and GraphQL accept the same pages.
 */
export const PAGINATION = { defaultPage: 1, defaultPageSize: 6, maxPageSize: 50, maxPage: 2_147_483_647 } as const;

export interface PageSlice<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
  has_more: boolean;
}

/** One page of a ranked list: items (page - 1) x size to page x size - 1. */
export function paginate<T>(list: readonly T[], page: number, pageSize: number): PageSlice<T> {
  const start = (page - 1) * pageSize;
  return { items: list.slice(start, start + pageSize), page, page_size: pageSize, total: list.length, has_more: start + pageSize < list.length };
}
