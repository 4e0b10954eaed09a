/**
 * Reading a whole connection (bars, snapshots) page by page, with a bound: the API caps a page's
 * size, and a history longer than `maxPages` pages is cut rather than read without end. Both
 * connections come oldest first, so a reading cut by the bound loses its newest nodes: the view asks
 * for a window (`historyFrom`) short enough that the bound is never met, and starting early enough
 * that the chart has what it needs before the shown snapshot.
 */
import { dateOfDay, dayNumber } from './overlays.js';

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
 * An aborted `signal` (the view moved on) stops it too, before the next page is asked for: `aborted`.
 */
export async function collectPages<T>(
  fetchPage: (after: string | null) => Promise<Page<T> | null>,
  maxPages: number,
  signal?: AbortSignal,
): Promise<Collected<T> & { failed: boolean; aborted: boolean }> {
  const nodes: T[] = [];
  const seen = new Set<string>();
  let after: string | null = null;
  const end = (truncated: boolean, failed: boolean) => ({ nodes, truncated, failed, aborted: signal?.aborted ?? false });
  for (let i = 0; i < maxPages; i++) {
    if (signal?.aborted) return end(false, false);
    const page: Page<T> | null = await fetchPage(after);
    if (signal?.aborted) return end(false, false);
    if (!page) return end(false, true);
    nodes.push(...page.nodes);
    if (!page.hasNextPage || !page.endCursor || seen.has(page.endCursor)) return end(false, false);
    seen.add(page.endCursor);
    after = page.endCursor;
  }
  return end(true, false);
}

/**
 * The first date of a history window to request (`from`; the window runs to the latest, `to` left
 * open), or null to read from the oldest (nothing known to anchor on).
 *
 * - It starts `lookbackDays` before `anchor` (the shown snapshot's date, else the latest), moved back
 *   to the 1st of January of that year, so picking another date of the same years asks for nothing new.
 * - It starts no earlier than `capacity - 1 - afterLatestDays` days before `latest` (the latest
 *   snapshot's date): one node per date at most, so a window of that many days holds at most `capacity`
 *   nodes (pages x page size) even with up to `afterLatestDays` days of nodes past `latest`, and the bound
 *   is not met. Only the oldest data is ever left out: the newest bars, the current stage and the
 *   latest snapshot are always in the window.
 */
export function historyFrom(anchor: string | null, latest: string | null, options: { lookbackDays: number; capacity: number; afterLatestDays?: number }): string | null {
  const at = anchor !== null && !Number.isNaN(dayNumber(anchor)) ? anchor : latest;
  if (at === null || Number.isNaN(dayNumber(at))) return null;
  const back = dateOfDay(dayNumber(at) - options.lookbackDays);
  const from = `${back.slice(0, 4)}-01-01`;
  if (latest === null || Number.isNaN(dayNumber(latest))) return from;
  const floor = dateOfDay(dayNumber(latest) + (options.afterLatestDays ?? 0) - (options.capacity - 1));
  return from < floor ? floor : from;
}
