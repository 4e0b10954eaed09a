/**
 * The security view's history window: bars and snapshots come oldest first and a reading is bounded,
 * so the view asks for a window that ends at the latest data and holds no more than the bound; only
 * the oldest data is ever left out. And a reading stops when the view moves on (its signal aborts).
 */
import { collectPages, historyFrom, type Page } from '../../../console/src/chart/pages.js';
import { dateOfDay, dayNumber } from '../../../console/src/chart/overlays.js';

describe('the history window', () => {
  const options = { lookbackDays: 3 * 365, capacity: 6000 };

  it('starts a few years before the shown snapshot, on a 1 January, and runs to the latest', () => {
    expect(historyFrom('2026-05-14', '2026-11-20', options)).toBe('2023-01-01');
    // Another date of the same years asks for the same window (nothing read again).
    expect(historyFrom('2026-02-02', '2026-11-20', options)).toBe('2023-01-01');
    // The latest snapshot is the anchor when no date is picked.
    expect(historyFrom(null, '2026-11-20', options)).toBe('2023-01-01');
    // Nothing known to anchor on: from the oldest.
    expect(historyFrom(null, null, options)).toBeNull();
    expect(historyFrom('not a date', null, options)).toBeNull();
  });

  it('never holds more days than the bound can read, so the newest data is always in it', () => {
    const latest = '2026-11-20';
    const from = historyFrom('1990-03-01', latest, options)!;
    // At most one node per date: the window from `from` to `latest` has at most `capacity` dates.
    expect(dayNumber(latest) - dayNumber(from) + 1).toBe(options.capacity);
    const bars = historyFrom('1960-03-01', latest, { lookbackDays: 1000, capacity: 20000, afterLatestDays: 366 })!;
    expect(dayNumber(latest) + 366 - dayNumber(bars) + 1).toBe(20000);
  });

  it('reads a window of daily data to its end within the bound', async () => {
    const latest = '2026-11-20';
    const all = Array.from({ length: 12000 }, (_, i) => dateOfDay(dayNumber(latest) - 11999 + i));
    const from = historyFrom('1995-06-01', latest, { lookbackDays: 1000, capacity: 100 * 60 })!;
    const inWindow = all.filter((d) => d >= from);
    const result = await collectPages(async (after): Promise<Page<string>> => {
      const start = after === null ? 0 : inWindow.indexOf(after) + 1;
      const nodes = inWindow.slice(start, start + 100);
      return { nodes, hasNextPage: start + 100 < inWindow.length, endCursor: nodes[nodes.length - 1] ?? null };
    }, 60);
    expect(result.truncated).toBe(false);
    expect(result.nodes[result.nodes.length - 1]).toBe(latest);
  });
});

describe('a reading that is cancelled', () => {
  it('asks for no page after its signal aborts, and says it was aborted', async () => {
    const controller = new AbortController();
    const asked: Array<string | null> = [];
    const result = await collectPages(
      async (after): Promise<Page<number>> => {
        asked.push(after);
        if (asked.length === 2) controller.abort();
        return { nodes: [asked.length], hasNextPage: true, endCursor: String(asked.length) };
      },
      10,
      controller.signal,
    );
    expect(asked).toEqual([null, '1']);
    expect(result.aborted).toBe(true);
    expect(result.truncated).toBe(false);
  });

  it('does not start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    const result = await collectPages(async () => ({ nodes: [++calls], hasNextPage: false, endCursor: null }), 10, controller.signal);
    expect(calls).toBe(0);
    expect(result).toEqual({ nodes: [], truncated: false, failed: false, aborted: true });
  });
});
