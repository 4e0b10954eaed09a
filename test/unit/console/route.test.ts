/** The console's hash routes: every view has an address, and a malformed one still opens a view. */
import { parseRoute, routeHash, type Route } from '../../../console/src/route.js';

describe('console routes', () => {
  it('reads each view from its hash and writes the same hash back', () => {
    const routes: Array<[string, Route]> = [
      ['#/security/ACME', { view: 'security', symbol: 'ACME', date: null }],
      ['#/security/ACME?date=2026-10-01', { view: 'security', symbol: 'ACME', date: '2026-10-01' }],
      ['#/optimizer', { view: 'optimizer' }],
      ['#/books', { view: 'books', bookId: null }],
      ['#/books/00000000-0000-4000-8000-00000000d3e0', { view: 'books', bookId: '00000000-0000-4000-8000-00000000d3e0' }],
    ];
    for (const [hash, route] of routes) {
      expect(parseRoute(hash)).toEqual(route);
      expect(routeHash(route)).toBe(hash);
    }
  });

  it('opens the security view on the default symbol for an empty or unknown hash, and upper-cases a symbol', () => {
    expect(parseRoute('')).toEqual({ view: 'security', symbol: null, date: null });
    expect(parseRoute('#/nowhere')).toEqual({ view: 'security', symbol: null, date: null });
    expect(parseRoute('#/security/acme')).toEqual({ view: 'security', symbol: 'ACME', date: null });
  });

  it('keeps a segment that is not valid percent-encoding as it is instead of failing the page', () => {
    expect(parseRoute('#/security/%E0')).toEqual({ view: 'security', symbol: '%E0', date: null });
    expect(parseRoute('#/books/%ZZ')).toEqual({ view: 'books', bookId: '%ZZ' });
  });
});
