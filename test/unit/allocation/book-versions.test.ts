/**
 * The registry of book versions (allocation/book-versions.ts): versions only grow whatever order the
 * notes come in, a note taken across a forget is ignored, the oldest books are forgotten beyond the
 * bound, and there is one registry per embedded store (Db object), none on PostgreSQL.
 */
import { BookVersions, bookVersionsOf } from '../../../subgraphs/allocation/book-versions.js';
import { offlineDb, openPglite, type Db } from '../../../subgraphs/platform/db.js';

const A = '6f1c1c7e-0000-4000-8000-000000000001';
const B = '6f1c1c7e-0000-4000-8000-000000000002';
const C = '6f1c1c7e-0000-4000-8000-000000000003';

describe('BookVersions', () => {
  it('knows nothing until told', () => {
    const v = new BookVersions();
    expect(v.get(A)).toBeUndefined();
    expect(v.size).toBe(0);
  });

  it('keeps the largest version noted: a late note of an older version never hides a newer one', () => {
    const v = new BookVersions();
    v.note(A, 'partner-1', 3);
    v.note(A, 'partner-1', 5);
    v.note(A, 'partner-1', 4); // a reader that read version 4 before the writer noted 5
    expect(v.get(A)).toEqual({ owner: 'partner-1', version: 5 });
    v.note(A, 'partner-1', 6);
    expect(v.get(A)?.version).toBe(6);
  });

  it('a reader note marked before a forget is ignored; one marked after it counts', () => {
    const v = new BookVersions();
    v.note(A, 'partner-1', 2);
    const before = v.mark();
    v.forget(A); // a write whose outcome is unknown
    v.note(A, 'partner-1', 2, before); // what the reader read before the forget
    expect(v.get(A)).toBeUndefined();
    const after = v.mark();
    v.note(A, 'partner-1', 3, after);
    expect(v.get(A)).toEqual({ owner: 'partner-1', version: 3 });
    // A writer's note (no mark) always counts.
    v.forget(B);
    v.note(A, 'partner-1', 4);
    expect(v.get(A)?.version).toBe(4);
  });

  it('beyond its bound it forgets the oldest book noted, and notes in flight are ignored', () => {
    const v = new BookVersions(2);
    v.note(A, 'p', 1);
    v.note(B, 'p', 1);
    const mark = v.mark();
    v.note(C, 'p', 7);
    expect(v.size).toBe(2);
    expect(v.get(A)).toBeUndefined();
    expect(v.get(C)?.version).toBe(7);
    v.note(A, 'p', 1, mark);
    expect(v.get(A)).toBeUndefined();
  });

  it('refuses a bound below one', () => {
    expect(() => new BookVersions(0)).toThrow(RangeError);
  });
});

describe('bookVersionsOf', () => {
  const opened: Db[] = [];
  afterAll(async () => {
    for (const db of opened) await db.close();
  });

  it('one registry per embedded store, shared by every caller on the same Db object', async () => {
    const one = await openPglite(undefined);
    const two = await openPglite(undefined);
    opened.push(one, two);
    const r1 = bookVersionsOf(one);
    expect(r1).not.toBeNull();
    expect(bookVersionsOf(one)).toBe(r1);
    const r2 = bookVersionsOf(two);
    expect(r2).not.toBeNull();
    expect(r2).not.toBe(r1);
    r1?.note(A, 'partner-1', 9);
    expect(bookVersionsOf(one)?.get(A)?.version).toBe(9);
    expect(r2?.get(A)).toBeUndefined();
  });

  it('none on PostgreSQL: other processes write books there', () => {
    expect(bookVersionsOf(offlineDb())).toBeNull();
  });
});
