export function BooksView({ bookId }: { bookId: string | null }) {
  return <section aria-labelledby="books-title"><h2 id="books-title">Books</h2>{bookId}</section>;
}
