/**
 * Paging of the books view. Two kinds: the book list pages with cursors (`portfolios(first, after)`:
 * the way back is the cursors already followed), the hunts with page numbers (`cashHunt(page,
 * pageSize)`: pages are stable, a page past the end answers empty). Pure, so both are tested alone.
 */

/** The page sizes the view offers for the cash hunt, before the search's own limits are applied. */
const IDEA_PAGE_SIZES = [5, 10, 20] as const;

/** The search's page limits as the graph answers them (`searchPagination`). */
export interface SearchPageLimits {
  defaultPageSize: number;
  maxPageSize: number;
}

/**
 * The page sizes the cash hunt offers: the view's sizes and the search's default, none above the
 * search's largest page (then that largest page is the only choice), smallest first.
 */
export function pageSizeChoices(limits: SearchPageLimits): number[] {
  const max = Math.max(1, Math.floor(limits.maxPageSize));
  const sizes = new Set<number>([...IDEA_PAGE_SIZES, limits.defaultPageSize].filter((s) => Number.isInteger(s) && s >= 1 && s <= max));
  return sizes.size > 0 ? [...sizes].sort((a, b) => a - b) : [max];
}

/** Where a numbered list stands: for the pager's text and whether each button can move. */
export interface PageState {
  page: number;
  pageCount: number;
  hasPrevious: boolean;
  hasNext: boolean;
}

/** Pages needed for `total` items, at least one (an empty list is one empty page). */
export function pageCount(total: number, pageSize: number): number {
  if (!(pageSize > 0) || !(total > 0)) return 1;
  return Math.ceil(total / pageSize);
}

/**
 * The pager's state for `page` of `total` items. `hasMore` is the platform's own word on a further
 * page, trusted over the count when they disagree (the list changed between two answers).
 */
export function pageState(page: number, pageSize: number, total: number, hasMore = false): PageState {
  const count = Math.max(pageCount(total, pageSize), hasMore ? page + 1 : 1);
  const current = Math.min(Math.max(1, Math.floor(page)), count);
  return { page: current, pageCount: count, hasPrevious: current > 1, hasNext: hasMore || current < count };
}

/** "Page 2 of 3". */
export function pageLabel(state: PageState): string {
  return `Page ${state.page} of ${state.pageCount}`;
}

/** The 1-based numbers of the items a page shows ("Ideas 6-10 of 12"), or null for an empty page. */
export function itemRange(page: number, pageSize: number, total: number): { from: number; to: number } | null {
  const from = (page - 1) * pageSize + 1;
  const to = Math.min(total, page * pageSize);
  return from > to ? null : { from, to };
}

/** The page that keeps the first item now shown in view when the page size changes. */
export function pageAfterResize(page: number, oldSize: number, newSize: number): number {
  const firstItem = (Math.max(1, page) - 1) * oldSize;
  return Math.floor(firstItem / newSize) + 1;
}

/** Reads a page size from `choices`; anything else falls back to the first choice. */
export function parsePageSize(value: string, choices: readonly number[]): number {
  const size = Number(value);
  return choices.includes(size) ? size : (choices[0] ?? 1);
}

/**
 * Cursor paging: `after` of each page visited, the first page's being null. Moving on pushes the
 * page's endCursor; moving back pops. Immutable, for React state.
 */
export interface CursorTrail {
  /** `after` for each page visited so far; the last one is the page shown. */
  readonly afters: readonly (string | null)[];
}

export const FIRST_PAGE: CursorTrail = { afters: [null] };

/** The `after` that fetches the page shown. */
export function currentAfter(trail: CursorTrail): string | null {
  return trail.afters[trail.afters.length - 1] ?? null;
}

/** 1-based number of the page shown. */
export function trailPage(trail: CursorTrail): number {
  return trail.afters.length;
}

/** The trail one page on, from the shown page's endCursor (unchanged without one). */
export function nextTrail(trail: CursorTrail, endCursor: string | null): CursorTrail {
  return endCursor ? { afters: [...trail.afters, endCursor] } : trail;
}

/** The trail one page back (unchanged on the first page). */
export function previousTrail(trail: CursorTrail): CursorTrail {
  return trail.afters.length > 1 ? { afters: trail.afters.slice(0, -1) } : trail;
}
