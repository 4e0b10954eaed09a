/**
 * Reading a whole connection (bars, snapshots) page by page, with a bound: the API caps a page's
 * size, and a history longer than `maxPages` pages is cut rather than read without end.
 */

/** One page as the view's fetcher returns it. */
export interface Page<T> {
  nodes: readonly T[];
  hasNextPage: boolean;
  endCursor: string | null;
}

/** What was read: every node in order, and whether the bound stopped the reading early. */
export interface Collected<T> {
  nodes: T[];
  truncated: boolean;
}

/**
 * Calls `fetchPage` with `null` then each page's `endCursor` until a page says there is no next one,
 * has no cursor, repeats a cursor, or `maxPages` pages were read. A fetcher that returns null (it
 * failed, and reports its own errors) stops the reading: `failed` is true and what came before is kept.
 */
export async function collectPages<T>(fetchPage: (after: string | null) => Promise<Page<T> | null>, maxPages: number): Promise<Collected<T> & { failed: boolean }> {
  const nodes: T[] = [];
  const seen = new Set<string>();
  let after: string | null = null;
  for (let i = 0; i < maxPages; i++) {
    const page: Page<T> | null = await fetchPage(after);
    if (!page) return { nodes, truncated: false, failed: true };
    nodes.push(...page.nodes);
    if (!page.hasNextPage || !page.endCursor || seen.has(page.endCursor)) return { nodes, truncated: false, failed: false };
    seen.add(page.endCursor);
    after = page.endCursor;
  }
  return { nodes, truncated: true, failed: false };
}
