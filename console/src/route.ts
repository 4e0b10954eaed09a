/**
 * The console's address is its hash, so every view has a link that can be bookmarked and the gateway
 * serves one page: `#/security/ACME`, `#/security/ACME?date=2026-10-01`, `#/optimizer`, `#/books`,
 * `#/books/<id>`. Pure (no DOM), so it is unit-tested; the browser side is location.ts.
 */
export type Route =
  | { view: 'security'; symbol: string | null; date: string | null }
  | { view: 'optimizer' }
  | { view: 'books'; bookId: string | null };

/** A path segment decoded, or as it is when it is not valid percent-encoding (a hand-edited address). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter((p) => p.length > 0).map(decodeSegment);
  const params = new URLSearchParams(query);
  switch (parts[0]) {
    case 'optimizer':
      return { view: 'optimizer' };
    case 'books':
      return { view: 'books', bookId: parts[1] ?? null };
    default:
      return { view: 'security', symbol: parts[0] === 'security' ? (parts[1]?.toUpperCase() ?? null) : null, date: params.get('date') };
  }
}

export function routeHash(route: Route): string {
  switch (route.view) {
    case 'optimizer':
      return '#/optimizer';
    case 'books':
      return route.bookId ? `#/books/${encodeURIComponent(route.bookId)}` : '#/books';
    case 'security': {
      const base = route.symbol ? `#/security/${encodeURIComponent(route.symbol)}` : '#/security';
      return route.date ? `${base}?date=${encodeURIComponent(route.date)}` : base;
    }
  }
}
