/** Calendars for synthetic test markets. */

/** `count` weekday dates (YYYY-MM-DD, oldest first) from `start` on (a weekend start moves to the Monday). */
export function weekdays(count: number, start = '2023-01-02'): string[] {
  const out: string[] = [];
  const d = new Date(`${start}T00:00:00Z`);
  while (out.length < count) {
    const day = d.getUTCDay();
    if (day !== 0 && day !== 6) out.push(d.toISOString().slice(0, 10));
    d.setUTCDate(d.getUTCDate() + 1);
  }
  return out;
}
