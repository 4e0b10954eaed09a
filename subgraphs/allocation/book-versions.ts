/**
 * The current version and owner of books, known in memory, per store: what lets hunt and cash hunt
 * follow a book without asking the store for its version on every call.
 *
 * Only on the embedded store (PGlite). It runs inside this process and belongs to it alone, so every
 * write to a book happens here: the book service notes a book's new version once the transaction that
 * changed it has committed (a trade, an applied rebalance), and readers note what they read from the
 * store. On PostgreSQL other processes and replicas write too, so there is no registry
 * (`bookVersionsOf` answers null) and readers ask the store every time.
 *
 * Rules:
 *   - one registry per Db object (a module-level WeakMap), so every service of the process on that
 *     store shares it, whichever origin or command made it;
 *   - versions only grow: a note keeps the larger of the known and the noted version, so a reader that
 *     read an older version and notes it late never hides a newer one. A book's owner never changes;
 *   - a write whose outcome is unknown (its transaction failed, possibly after committing) forgets the
 *     book, and so does running out of room (the oldest books noted are forgotten first): the next reader
 *     asks the store again. A reader takes a `mark()` before it reads and passes it to `note()`: a note
 *     made across a forget is ignored, so what it read before the forget cannot come back as current.
 */
import type { Db } from '../platform/db.js';

/** What the registry knows of one book. */
export interface BookVersion {
  /** The partner whose book it is (`sub`); it never changes. */
  owner: string;
  /** The newest committed version noted. */
  version: number;
}

/** Books kept per store by default: about 100 bytes each. */
export const MAX_BOOK_VERSIONS = 100_000;

export class BookVersions {
  private readonly books = new Map<string, BookVersion>();
  /** Moves on every forget: notes marked before it are ignored. */
  private forgets = 0;

  constructor(private readonly maxBooks: number = MAX_BOOK_VERSIONS) {
    if (!(maxBooks >= 1)) throw new RangeError(`maxBooks must be at least 1 (got ${maxBooks})`);
  }

  get size(): number {
    return this.books.size;
  }

  /** The book's owner and newest noted version, or undefined when it is not known (ask the store). */
  get(id: string): BookVersion | undefined {
    return this.books.get(id);
  }

  /** A mark to take before reading a book from the store, for `note()`. */
  mark(): number {
    return this.forgets;
  }

  /**
   * Notes that the book is at `version` (committed). Keeps the larger version. With a mark (a reader):
   * ignored when anything was forgotten since the mark was taken.
   */
  note(id: string, owner: string, version: number, mark?: number): void {
    if (mark !== undefined && mark !== this.forgets) return;
    const known = this.books.get(id);
    if (known) {
      if (version > known.version) known.version = version;
      return;
    }
    this.books.set(id, { owner, version });
    if (this.books.size > this.maxBooks) {
      const oldest = this.books.keys().next();
      if (!oldest.done) this.forget(oldest.value);
    }
  }

  /** Forgets the book: its next reader asks the store. */
  forget(id: string): void {
    this.forgets++;
    this.books.delete(id);
  }
}

const registries = new WeakMap<Db, BookVersions>();

/** The registry of the store's books: one per Db object on the embedded store; null on PostgreSQL. */
export function bookVersionsOf(db: Db): BookVersions | null {
  if (db.kind !== 'pglite') return null;
  let registry = registries.get(db);
  if (!registry) registries.set(db, (registry = new BookVersions()));
  return registry;
}
