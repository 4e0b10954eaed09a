/**
 * The books view's paging: numbered pages of the cash hunt (page x of y, buttons at the ends, a page
 * size change keeping the first item in view) and the cursor trail of the book list.
 */
import {
  currentAfter,
  FIRST_PAGE,
  itemRange,
  nextTrail,
  pageAfterResize,
  pageCount,
  pageLabel,
  pageSizeChoices,
  pageState,
  parsePageSize,
  previousTrail,
  trailPage,
} from '../../../console/src/books/paging.js';

describe('numbered pages', () => {
  it('counts pages, one for an empty list', () => {
    expect(pageCount(0, 5)).toBe(1);
    expect(pageCount(5, 5)).toBe(1);
    expect(pageCount(6, 5)).toBe(2);
    expect(pageCount(12, 5)).toBe(3);
    expect(pageCount(12, 0)).toBe(1);
  });

  it('disables Previous on the first page and Next on the last', () => {
    expect(pageState(1, 5, 12)).toEqual({ page: 1, pageCount: 3, hasPrevious: false, hasNext: true });
    expect(pageState(2, 5, 12)).toEqual({ page: 2, pageCount: 3, hasPrevious: true, hasNext: true });
    expect(pageState(3, 5, 12)).toEqual({ page: 3, pageCount: 3, hasPrevious: true, hasNext: false });
    expect(pageState(1, 5, 3)).toEqual({ page: 1, pageCount: 1, hasPrevious: false, hasNext: false });
  });

  it('trusts the platform saying there is more over a stale count', () => {
    expect(pageState(1, 5, 5, true)).toEqual({ page: 1, pageCount: 2, hasPrevious: false, hasNext: true });
  });

  it('clamps a page past the end (the list shrank) to the last one', () => {
    expect(pageState(4, 5, 6)).toEqual({ page: 2, pageCount: 2, hasPrevious: true, hasNext: false });
  });

  it('writes the page label and the items shown', () => {
    expect(pageLabel(pageState(2, 5, 12))).toBe('Page 2 of 3');
    expect(itemRange(1, 5, 12)).toEqual({ from: 1, to: 5 });
    expect(itemRange(3, 5, 12)).toEqual({ from: 11, to: 12 });
    expect(itemRange(4, 5, 12)).toBeNull();
    expect(itemRange(1, 5, 0)).toBeNull();
  });

  it('keeps the first item shown in view when the page size changes', () => {
    // items 11-15 on page 3 of 5; at 10 a page, item 11 is on page 2; at 20, on page 1
    expect(pageAfterResize(3, 5, 10)).toBe(2);
    expect(pageAfterResize(3, 5, 20)).toBe(1);
    // items 11-20 on page 2 of 10; at 5 a page, item 11 is on page 3
    expect(pageAfterResize(2, 10, 5)).toBe(3);
    expect(pageAfterResize(1, 20, 5)).toBe(1);
  });

  it("offers the view's sizes and the search's default, none above the search's largest page", () => {
    expect(pageSizeChoices({ defaultPageSize: 6, maxPageSize: 50 })).toEqual([5, 6, 10, 20]);
    expect(pageSizeChoices({ defaultPageSize: 10, maxPageSize: 50 })).toEqual([5, 10, 20]);
    // A smaller cap than the view's sizes: nothing above it is offered.
    expect(pageSizeChoices({ defaultPageSize: 6, maxPageSize: 8 })).toEqual([5, 6]);
    expect(pageSizeChoices({ defaultPageSize: 3, maxPageSize: 3 })).toEqual([3]);
    // A cap below every size still leaves one page size: the cap.
    expect(pageSizeChoices({ defaultPageSize: 4, maxPageSize: 2 })).toEqual([2]);
  });

  it('reads only a size it offers', () => {
    const choices = pageSizeChoices({ defaultPageSize: 6, maxPageSize: 50 });
    expect(parsePageSize('10', choices)).toBe(10);
    expect(parsePageSize('6', choices)).toBe(6);
    expect(parsePageSize('7', choices)).toBe(5);
    expect(parsePageSize('', choices)).toBe(5);
    expect(parsePageSize('20', pageSizeChoices({ defaultPageSize: 6, maxPageSize: 8 }))).toBe(5);
  });
});

describe('the book list cursor trail', () => {
  it('starts on page 1 with no cursor, moves on with endCursor and back to the cursor before', () => {
    expect(trailPage(FIRST_PAGE)).toBe(1);
    expect(currentAfter(FIRST_PAGE)).toBeNull();
    const second = nextTrail(FIRST_PAGE, 'c1');
    const third = nextTrail(second, 'c2');
    expect(trailPage(third)).toBe(3);
    expect(currentAfter(third)).toBe('c2');
    const back = previousTrail(third);
    expect(trailPage(back)).toBe(2);
    expect(currentAfter(back)).toBe('c1');
    expect(currentAfter(previousTrail(back))).toBeNull();
  });

  it('stays put at the ends: no endCursor, or already on the first page', () => {
    expect(nextTrail(FIRST_PAGE, null)).toBe(FIRST_PAGE);
    expect(previousTrail(FIRST_PAGE)).toBe(FIRST_PAGE);
  });

  it('never changes a trail in place (React state)', () => {
    const second = nextTrail(FIRST_PAGE, 'c1');
    nextTrail(second, 'c2');
    expect(second.afters).toEqual([null, 'c1']);
    expect(FIRST_PAGE.afters).toEqual([null]);
  });
});
