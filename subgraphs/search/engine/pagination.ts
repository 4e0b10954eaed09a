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

/** Which part of a ranked list to write out: `offset` items skipped, at most `limit` kept. */
export interface Window {
  offset: number;
  limit: number;
}

export const WHOLE_LIST: Window = { offset: 0, limit: Infinity };

/** The items page `page` (1-based) of `pageSize` holds. */
export function pageWindow(page: number, pageSize: number): Window {
  return { offset: (page - 1) * pageSize, limit: pageSize };
}

/** The pagination fields of a hunt or cash-hunt response, for a ranked list of `total` items. */
export interface PageFields {
  page: number;
  page_size: number;
  total_recommendations: number;
  has_more: boolean;
}

export function pageFields(page: number, pageSize: number, total: number): PageFields {
  const { offset, limit } = pageWindow(page, pageSize);
  return { page, page_size: pageSize, total_recommendations: total, has_more: offset + limit < total };
}

export interface PageSlice<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
  has_more: boolean;
}

/** One page of a ranked list: items (page - 1) x size to page x size - 1. */
export function paginate<T>(list: readonly T[], page: number, pageSize: number): PageSlice<T> {
  const { offset, limit } = pageWindow(page, pageSize);
  return { items: list.slice(offset, offset + limit), page, page_size: pageSize, total: list.length, has_more: offset + limit < list.length };
}
