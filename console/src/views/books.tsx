/**
 * The books view: a partner's books (`portfolios`, cursor-paged) and one book at a time with its
 * holdings, the general assessment, replacement and suitability look-ups (`hunt`), the cash hunt's
 * ideas (numbered pages) and a rebalance preview. Books belong to a partner, so nothing is asked for
 * without a token. The console previews rebalances only: recording them as trades is left to the API,
 * where a write carries the version it was decided on.
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import { ErrorList } from '../errors';
import { useSession } from '../session';
import { routeHash } from '../route';
import { useAction, useOperation } from '../operation';
import {
  ConsoleBookAssessmentDocument,
  ConsoleBookDocument,
  ConsoleBookReplacementDocument,
  ConsoleBooksDocument,
  ConsoleBookSuitabilityDocument,
  ConsoleCashHuntDocument,
  ConsoleRebalancePreviewDocument,
  ConsoleSearchPaginationDocument,
  type ConsoleBookQuery,
  type ConsoleIdeaFragment,
} from '../../generated/graphql';
import {
  formatInstant,
  formatMoney,
  formatPercent,
  formatScore,
  formatShareChange,
  formatShares,
  formatSignedMoney,
  formatSignedPercent,
  humanize,
  MISSING,
  tone,
} from '../format';
import { verdictTone } from '../books/verdict';
import {
  currentAfter,
  FIRST_PAGE,
  itemRange,
  nextTrail,
  pageAfterResize,
  pageLabel,
  pageSizeChoices,
  pageState,
  parsePageSize,
  previousTrail,
  trailPage,
  type CursorTrail,
  type PageState,
  type SearchPageLimits,
} from '../books/paging';
import './books.css';

/** Books per page of the list: what the view shows, well within what `portfolios(first:)` allows. */
const BOOKS_PER_PAGE = 10;

type Book = ConsoleBookQuery['portfolio'];

export function BooksView({ bookId }: { bookId: string | null }) {
  const { token, settings } = useSession();
  if (!token) {
    return (
      <section aria-labelledby="books-title" className="books">
        <h2 id="books-title">Books</h2>
        <p className="books-signin" role="status">
          The books need signing in: a partner sees only their own books.
        </p>
        <p className="hint">
          Sign in at the top of the page:{' '}
          {settings.devTokenUrl ? '“Sign in as the demo partner”, or paste' : 'paste'} a partner token (audiences analysis, allocation and search) into
          “Partner token” and choose “Use token”.
        </p>
      </section>
    );
  }
  return bookId ? <BookDetail key={bookId} bookId={bookId} /> : <BookList />;
}

// ---------------------------------------------------------------------------------------------
// The list

function BookList() {
  const [trail, setTrail] = useState<CursorTrail>(FIRST_PAGE);
  const books = useOperation(ConsoleBooksDocument, { first: BOOKS_PER_PAGE, after: currentAfter(trail) });
  const connection = books.data?.portfolios ?? null;
  const page = trailPage(trail);
  const state: PageState | null = connection ? pageState(page, BOOKS_PER_PAGE, connection.totalCount, connection.pageInfo.hasNextPage) : null;
  return (
    <section aria-labelledby="books-title" aria-busy={books.loading} className="books">
      <h2 id="books-title">Books</h2>
      <ErrorList errors={books.errors} />
      {books.loading && !connection && <p role="status">Loading your books…</p>}
      {connection && connection.nodes.length === 0 && <p>You have no books yet: optimize one, or create one from holdings over the API.</p>}
      {connection && connection.nodes.length > 0 && (
        <div className="table-scroll" data-testid="book-list">
          <table className="books-table">
            <caption className="sr-only">Your books, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Book</th>
                <th scope="col">Source</th>
                <th scope="col" className="num">Value</th>
                <th scope="col" className="num">Cash</th>
                <th scope="col" className="num">Positions</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {connection.nodes.map((book) => (
                <tr key={book.id}>
                  <th scope="row">
                    <a href={routeHash({ view: 'books', bookId: book.id })}>{book.name}</a>
                  </th>
                  <td>{book.source ?? MISSING}</td>
                  <td className="num">
                    {formatMoney(book.totalValue)} <span className="unit">{book.currency}</span>
                  </td>
                  <td className="num">{formatMoney(book.cash)}</td>
                  <td className="num">{book.positionCount}</td>
                  <td>{formatInstant(book.updatedAt ?? book.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {connection && state && state.pageCount > 1 && (
        <Pager
          label="Pages of books"
          state={state}
          busy={books.loading}
          onPrevious={() => setTrail(previousTrail)}
          onNext={() => setTrail((t) => nextTrail(t, connection.pageInfo.endCursor))}
        >
          <span className="muted">{connection.totalCount} books</span>
        </Pager>
      )}
    </section>
  );
}

/** Previous/next buttons with "Page x of y"; buttons are disabled at the ends and while a page loads. */
function Pager({ label, state, busy, onPrevious, onNext, children }: { label: string; state: PageState; busy: boolean; onPrevious(): void; onNext(): void; children?: ReactNode }) {
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" onClick={onPrevious} disabled={busy || !state.hasPrevious}>
        Previous page
      </button>
      <span className="page-label" aria-live="polite">
        {pageLabel(state)}
      </span>
      <button type="button" onClick={onNext} disabled={busy || !state.hasNext}>
        Next page
      </button>
      {children}
    </nav>
  );
}

// ---------------------------------------------------------------------------------------------
// One book

function BookDetail({ bookId }: { bookId: string }) {
  const book = useOperation(ConsoleBookDocument, { id: bookId });
  const pagination = useOperation(ConsoleSearchPaginationDocument, {});
  const portfolio = book.data?.portfolio ?? null;
  // The search's page limits, once answered; without them (an error) the hunts use the server's default page.
  const limits: PageLimits = pagination.data ? pagination.data.searchPagination : pagination.errors.length > 0 ? 'unknown' : 'loading';
  return (
    <section aria-labelledby="book-title" aria-busy={book.loading} className="books" data-testid="book-detail">
      <p className="back">
        <a href={routeHash({ view: 'books', bookId: null })}>← All books</a>
      </p>
      <h2 id="book-title">{portfolio?.name ?? 'Book'}</h2>
      <ErrorList errors={[...book.errors, ...pagination.errors]} />
      {book.loading && !portfolio && <p role="status">Loading the book…</p>}
      {portfolio && (
        <>
          <BookFigures book={portfolio} />
          <Holdings book={portfolio} />
          <Assessment bookId={bookId} limits={limits} />
          <Replacement bookId={bookId} holdings={portfolio.holdings.map((h) => h.symbol)} limits={limits} />
          <Suitability bookId={bookId} limits={limits} />
          <CashHunt bookId={bookId} limits={limits} />
          <RebalancePreview bookId={bookId} />
        </>
      )}
    </section>
  );
}

/** The search's page limits: answered, still loading, or unknown (the look-up failed). */
type PageLimits = SearchPageLimits | 'loading' | 'unknown';

/**
 * The page size that returns a whole list in one answer: the search's largest page. Unknown limits
 * leave it to the server's default page (the section then says how many more there are).
 */
function wholeList(limits: SearchPageLimits | 'unknown'): number | undefined {
  return limits === 'unknown' ? undefined : limits.maxPageSize;
}

/** A labelled figure of a <dl>; `signed` writes the sign and colours it. */
function Figure({ label, value, signed, className }: { label: string; value: ReactNode; signed?: number | null; className?: string }) {
  return (
    <div className={className}>
      <dt>{label}</dt>
      <dd className={signed !== undefined ? tone(signed) : undefined}>{value}</dd>
    </div>
  );
}

function BookFigures({ book }: { book: Book }) {
  return (
    <>
      {book.description && <p className="muted">{book.description}</p>}
      <dl className="figures" aria-label="The book now">
        <Figure label={`Total value (${book.currency})`} value={formatMoney(book.totalValue)} />
        <Figure label="Cash" value={formatMoney(book.cash)} />
        <Figure label="Holdings value" value={formatMoney(book.holdingsValue)} />
        <Figure label="Cost" value={formatMoney(book.costTotal)} />
        <Figure label="Unrealised P&L" value={formatSignedMoney(book.unrealisedPnl)} signed={book.unrealisedPnl} />
        <Figure label="Realised P&L" value={formatSignedMoney(book.realisedPnl)} signed={book.realisedPnl} />
        <Figure label="Version" value={book.version ?? MISSING} />
        <Figure label="Valuation date" value={book.valuationDate ?? MISSING} />
        <Figure label="Source" value={book.source ?? MISSING} />
        <Figure label="Updated" value={formatInstant(book.updatedAt)} />
      </dl>
    </>
  );
}

function Holdings({ book }: { book: Book }) {
  return (
    <section aria-labelledby="holdings-title" className="panel">
      <h3 id="holdings-title">Holdings</h3>
      {book.holdings.length === 0 ? (
        <p>No holdings: the book is all cash.</p>
      ) : (
        <div className="table-scroll">
          <table data-testid="holdings">
            <thead>
              <tr>
                <th scope="col">Symbol</th>
                <th scope="col">Sector</th>
                <th scope="col" className="num">Shares</th>
                <th scope="col" className="num">Cost</th>
                <th scope="col" className="num">Price</th>
                <th scope="col" className="num">Value</th>
                <th scope="col" className="num">Weight</th>
                <th scope="col" className="num">P&L</th>
                <th scope="col" className="num">Days held</th>
                <th scope="col" className="num">Stop</th>
                <th scope="col" className="num">Target</th>
              </tr>
            </thead>
            <tbody>
              {book.holdings.map((h) => (
                <tr key={h.symbol}>
                  <th scope="row">
                    <a href={routeHash({ view: 'security', symbol: h.symbol, date: null })} title={h.security.name}>
                      {h.symbol}
                    </a>
                    <span className="sub">{h.security.name}</span>
                  </th>
                  <td>{h.sector ?? MISSING}</td>
                  <td className="num">{formatShares(h.shares)}</td>
                  <td className="num">{formatMoney(h.costBasis)}</td>
                  <td className="num">
                    {formatMoney(h.price)}
                    {h.price == null && <span className="sub">at cost</span>}
                  </td>
                  <td className="num">{formatMoney(h.marketValue)}</td>
                  <td className="num">{formatPercent(h.weight)}</td>
                  <td className={`num ${tone(h.unrealisedPnl)}`}>
                    {formatSignedMoney(h.unrealisedPnl)}
                    <span className="sub">{formatSignedPercent(h.unrealisedPnlPct)}</span>
                  </td>
                  <td className="num">{h.daysHeld}</td>
                  <td className="num">{formatMoney(h.stopLoss)}</td>
                  <td className="num">{formatMoney(h.targetPrice)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** A list of reasons or notes, or nothing when there are none. */
function Lines({ items, label }: { items: readonly string[]; label: string }) {
  if (items.length === 0) return null;
  return (
    <ul className="lines" aria-label={label}>
      {items.map((line, i) => (
        <li key={i}>{line}</li>
      ))}
    </ul>
  );
}

// ---------------------------------------------------------------------------------------------
// General assessment

function Assessment({ bookId, limits }: { bookId: string; limits: PageLimits }) {
  const hunt = useOperation(ConsoleBookAssessmentDocument, limits === 'loading' ? null : { id: bookId, page: 1, pageSize: wholeList(limits) });
  const answer = hunt.data?.portfolio.hunt ?? null;
  const general = answer?.generalAssessment ?? null;
  return (
    <section aria-labelledby="assessment-title" aria-busy={hunt.loading || limits === 'loading'} className="panel" data-testid="assessment">
      <h3 id="assessment-title">General assessment</h3>
      <ErrorList errors={hunt.errors} />
      {(hunt.loading || limits === 'loading') && !general && <p role="status">Assessing the holdings…</p>}
      {general && (
        <>
          <dl className="figures">
            <Figure label="Positions" value={general.totalPositions} />
            <Figure label="Strong" value={general.strongPositions} className="good" />
            <Figure label="Weak" value={general.weakPositions} className="bad" />
            <Figure label="Book value" value={formatMoney(general.portfolioValue)} />
            <Figure label="Cash" value={formatMoney(general.availableCash)} />
            <Figure label="Volatility (annual)" value={formatPercent(general.portfolioVolatility)} />
            <Figure label="Analysis date" value={answer?.analysisDate ?? MISSING} />
          </dl>
          <h4>Recommendations</h4>
          {general.recommendations.length === 0 ? (
            <p>No holdings to assess.</p>
          ) : (
            <div className="table-scroll">
              <table className="recommendations">
                <thead>
                  <tr>
                    <th scope="col">Action</th>
                    <th scope="col">Symbol</th>
                    <th scope="col">Rating</th>
                    <th scope="col" className="num">Score</th>
                    <th scope="col">Stage / signal</th>
                    <th scope="col" className="num">Weight</th>
                    <th scope="col" className="num">Return</th>
                    <th scope="col" className="num">Share change</th>
                    <th scope="col">Why</th>
                  </tr>
                </thead>
                <tbody>
                  {general.recommendations.map((r) => (
                    <tr key={r.symbol}>
                      <td>
                        <span className={`badge action-${r.type.toLowerCase()}`}>{r.type}</span>
                      </td>
                      <th scope="row">
                        <a href={routeHash({ view: 'security', symbol: r.symbol, date: null })}>{r.symbol}</a>
                        <span className="sub">{r.sector}</span>
                      </th>
                      <td className={verdictTone(r.rating)}>{r.rating}</td>
                      <td className="num">{formatScore(r.score)}</td>
                      <td>
                        {humanize(r.stage)} / {r.signal ?? MISSING}
                      </td>
                      <td className="num">{formatPercent(r.currentWeight)}</td>
                      <td className={`num ${tone(r.unrealizedReturn)}`}>{formatSignedPercent(r.unrealizedReturn)}</td>
                      <td className="num">{formatShareChange(r.suggestedShareChange)}</td>
                      <td className="reasons">
                        <Lines items={r.reasons} label={`Reasons for ${r.symbol}`} />
                        {r.replacementCandidates.length > 0 && (
                          <p className="sub">
                            Replace with: {r.replacementCandidates.map((c) => `${c.symbol} (fit ${formatScore(c.fitScore)})`).join(', ')}
                          </p>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {answer && answer.hasMore && <p className="muted">The first {answer.pageSize} of {answer.totalRecommendations} recommendations.</p>}
          <h4>Concerns</h4>
          {general.concerns.length === 0 ? (
            <p>No concerns.</p>
          ) : (
            <ul className="concerns">
              {general.concerns.map((c, i) => (
                <li key={i}>
                  <p>
                    <strong>{humanize(c.type)}</strong>
                    {c.symbols.length > 0 ? ` (${c.symbols.join(', ')})` : ' (the whole book)'}: severity {formatScore(c.score)}, measured {formatScore(c.value, 3)} against{' '}
                    {formatScore(c.threshold, 3)}
                  </p>
                  <Lines items={c.reasons} label={`Reasons for ${humanize(c.type)}`} />
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

// ---------------------------------------------------------------------------------------------
// Replacement and suitability

/** Ideas (candidates, alternatives) as a table; `testId` names each row for the page's tests. */
function IdeaTable({ ideas, caption, testId }: { ideas: readonly ConsoleIdeaFragment[]; caption: string; testId: string }) {
  return (
    <div className="table-scroll">
      <table className="ideas">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Symbol</th>
            <th scope="col">Sector</th>
            <th scope="col">Stage</th>
            <th scope="col">Signal</th>
            <th scope="col" className="num">Shares</th>
            <th scope="col" className="num">Entry</th>
            <th scope="col" className="num">Stop</th>
            <th scope="col" className="num">Target</th>
            <th scope="col" className="num">Value</th>
            <th scope="col" className="num">Risk</th>
            <th scope="col" className="num">% of book</th>
            <th scope="col" className="num">Fit score</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {ideas.map((idea) => (
            <tr key={idea.symbol} data-testid={testId}>
              <th scope="row">
                <a href={routeHash({ view: 'security', symbol: idea.symbol, date: null })}>{idea.symbol}</a>
              </th>
              <td>{idea.sector}</td>
              <td>{humanize(idea.stage)}</td>
              <td>{idea.signal ?? MISSING}</td>
              <td className="num">{formatShares(idea.shares)}</td>
              <td className="num">{formatMoney(idea.entryPrice)}</td>
              <td className="num">{formatMoney(idea.stopLoss)}</td>
              <td className="num">{formatMoney(idea.targetPrice)}</td>
              <td className="num">{formatMoney(idea.positionValue)}</td>
              <td className="num">{formatMoney(idea.riskAmount)}</td>
              <td className="num">{formatPercent(idea.percentOfPortfolio)}</td>
              <td className="num">{formatScore(idea.fitScore)}</td>
              <td className="reasons">
                <details>
                  <summary>{idea.reasons.length} reasons</summary>
                  <Lines items={idea.reasons} label={`Reasons for ${idea.symbol}`} />
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Replacement({ bookId, holdings, limits }: { bookId: string; holdings: string[]; limits: PageLimits }) {
  const [symbol, setSymbol] = useState(holdings[0] ?? '');
  const [hunt, start] = useAction(ConsoleBookReplacementDocument);
  const analysis = hunt.data?.portfolio.hunt.replacementAnalysis ?? null;
  function submit(event: FormEvent) {
    event.preventDefault();
    if (symbol && limits !== 'loading') start({ id: bookId, symbol, pageSize: wholeList(limits) });
  }
  return (
    <section aria-labelledby="replace-title" aria-busy={hunt.loading} className="panel">
      <h3 id="replace-title">Replace a holding</h3>
      {holdings.length === 0 ? (
        <p>The book holds nothing to replace.</p>
      ) : (
        <form aria-label="Replace holding" className="inline-form" onSubmit={submit}>
          <label htmlFor="replace-symbol">Holding</label>
          <select id="replace-symbol" value={symbol} onChange={(e) => setSymbol(e.target.value)}>
            {holdings.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          <button type="submit" disabled={hunt.loading || limits === 'loading'}>
            Find replacements
          </button>
        </form>
      )}
      <ErrorList errors={hunt.errors} />
      {analysis && (
        <div data-testid="replacement" className="result">
          <dl className="figures">
            <Figure label="Holding" value={analysis.symbol} />
            <Figure label="Rating" value={analysis.rating} className={verdictTone(analysis.rating)} />
            <Figure label="Shares" value={formatShares(analysis.shares)} />
            <Figure label="Price" value={formatMoney(analysis.currentPrice)} />
            <Figure label="Freed capital" value={formatMoney(analysis.freedCapital)} />
            <Figure label="Sector" value={analysis.sector} />
          </dl>
          <Lines items={analysis.reasons} label={`Reasons for ${analysis.symbol}`} />
          {analysis.candidates.length === 0 ? (
            <p>No candidate takes a share with the freed capital.</p>
          ) : (
            <IdeaTable ideas={analysis.candidates} caption={`Replacements for ${analysis.symbol}, best fit first`} testId="candidate" />
          )}
          <Lines items={analysis.notes} label="Notes" />
        </div>
      )}
    </section>
  );
}

function Suitability({ bookId, limits }: { bookId: string; limits: PageLimits }) {
  const [symbol, setSymbol] = useState('');
  const [hunt, start] = useAction(ConsoleBookSuitabilityDocument);
  const analysis = hunt.data?.portfolio.hunt.suitabilityAnalysis ?? null;
  function submit(event: FormEvent) {
    event.preventDefault();
    const ticker = symbol.trim().toUpperCase();
    if (ticker && limits !== 'loading') start({ id: bookId, symbol: ticker, pageSize: wholeList(limits) });
  }
  return (
    <section aria-labelledby="interest-title" aria-busy={hunt.loading} className="panel">
      <h3 id="interest-title">Check a symbol against the book</h3>
      <form aria-label="Check a symbol" className="inline-form" onSubmit={submit}>
        <label htmlFor="interest-symbol">Ticker</label>
        <input id="interest-symbol" type="text" value={symbol} onChange={(e) => setSymbol(e.target.value)} autoComplete="off" spellCheck={false} placeholder="e.g. ACME" required />
        <button type="submit" disabled={hunt.loading || limits === 'loading'}>
          Check
        </button>
      </form>
      <ErrorList errors={hunt.errors} />
      {analysis && (
        <div data-testid="suitability" className="result">
          <p className="verdict">
            <a href={routeHash({ view: 'security', symbol: analysis.symbol, date: null })}>{analysis.symbol}</a> {analysis.security.name}:{' '}
            <strong className={verdictTone(analysis.verdict)}>{analysis.verdict}</strong>
            {analysis.alreadyHeld && <span className="muted"> (held: judged against the rest of the book)</span>}
          </p>
          <dl className="figures">
            <Figure label="Fit score" value={formatScore(analysis.fitScore)} />
            <Figure label="Signal quality" value={formatScore(analysis.signalQuality)} />
            <Figure label="Stage / signal" value={`${humanize(analysis.stage)} / ${analysis.signal ?? MISSING}`} />
            <Figure label="Suggested shares" value={formatShares(analysis.suggestedShares)} />
            <Figure label="Suggested value" value={formatMoney(analysis.suggestedValue)} />
            <Figure label="Fundable from cash" value={analysis.fundableFromCash ? 'yes' : 'no'} className={analysis.fundableFromCash ? 'good' : 'bad'} />
            <Figure label="Entry" value={formatMoney(analysis.entryPrice)} />
            <Figure label="Stop" value={formatMoney(analysis.stopLoss)} />
            <Figure label="Target" value={formatMoney(analysis.targetPrice)} />
            <Figure label="Risk" value={formatMoney(analysis.riskAmount)} />
            <Figure
              label={`Sector ${analysis.sectorEffect.sector}`}
              value={`${formatPercent(analysis.sectorEffect.weightBefore)} → ${formatPercent(analysis.sectorEffect.weightAfter)}${analysis.sectorEffect.cap != null ? ` (cap ${formatPercent(analysis.sectorEffect.cap)})` : ''}`}
            />
            <Figure
              label="Correlation with the book"
              value={`${formatScore(analysis.correlationToPortfolio)}${analysis.mostCorrelatedHolding ? ` (most with ${analysis.mostCorrelatedHolding.symbol}: ${formatScore(analysis.mostCorrelatedHolding.correlation)})` : ''}`}
            />
            <Figure
              label="Book volatility"
              value={`${formatPercent(analysis.portfolioVolatilityBefore)} → ${formatPercent(analysis.portfolioVolatilityAfter)}${analysis.volTargetAnnual != null ? ` (target ${formatPercent(analysis.volTargetAnnual)})` : ''}`}
            />
            <Figure label="Analysis date" value={analysis.analysisDate} />
          </dl>
          <Lines items={analysis.reasons} label={`Reasons for ${analysis.symbol}`} />
          {analysis.alternatives.length === 0 ? (
            <p className="muted">No same-sector name fits the book better.</p>
          ) : (
            <IdeaTable ideas={analysis.alternatives} caption={`Better-fitting ${analysis.sectorEffect.sector} names`} testId="alternative" />
          )}
        </div>
      )}
    </section>
  );
}

// ---------------------------------------------------------------------------------------------
// Cash hunt

function CashHunt({ bookId, limits }: { bookId: string; limits: PageLimits }) {
  const [page, setPage] = useState(1);
  // The reader's choice; until then the search's default page size.
  const [chosenSize, setChosenSize] = useState<number | null>(null);
  const known = typeof limits === 'object' ? limits : null;
  const choices = known ? pageSizeChoices(known) : null;
  const pageSize = chosenSize ?? known?.defaultPageSize;
  // Unknown limits: the server's default page, and no size to choose.
  const hunt = useOperation(ConsoleCashHuntDocument, limits === 'loading' ? null : { id: bookId, page, pageSize });
  const answer = hunt.data?.portfolio.cashHunt ?? null;
  const state = answer ? pageState(answer.page, answer.pageSize, answer.totalRecommendations, answer.hasMore) : null;
  const range = answer ? itemRange(answer.page, answer.pageSize, answer.totalRecommendations) : null;
  return (
    <section aria-labelledby="cash-title" aria-busy={hunt.loading || limits === 'loading'} className="panel" data-testid="cash-hunt">
      <h3 id="cash-title">Cash hunt: new positions for the cash</h3>
      <ErrorList errors={hunt.errors} />
      {(hunt.loading || limits === 'loading') && !answer && <p role="status">Sizing ideas for the cash…</p>}
      {answer && state && (
        <>
          <dl className="figures">
            <Figure label="Available cash" value={formatMoney(answer.availableCash)} />
            <Figure label="Cash after all ideas" value={formatMoney(answer.cashAfter)} />
            <Figure label="Book value" value={formatMoney(answer.totalCapital)} />
            <Figure label="Ideas" value={answer.totalRecommendations} />
            <Figure label="Analysis date" value={answer.analysisDate ?? MISSING} />
          </dl>
          <Lines items={answer.notes} label="Notes" />
          {answer.recommendations.length > 0 ? (
            <IdeaTable
              ideas={answer.recommendations}
              caption={range ? `Ideas ${range.from}–${range.to} of ${answer.totalRecommendations}, in buying order` : 'Ideas'}
              testId="idea"
            />
          ) : (
            <p>No ideas on this page.</p>
          )}
          <Pager label="Pages of ideas" state={state} busy={hunt.loading} onPrevious={() => setPage(state.page - 1)} onNext={() => setPage(state.page + 1)}>
            {choices && (
              <>
                <label htmlFor="idea-page-size">Ideas per page</label>
                <select
                  id="idea-page-size"
                  value={pageSize ?? answer.pageSize}
                  onChange={(e) => {
                    const size = parsePageSize(e.target.value, choices);
                    setPage(pageAfterResize(state.page, answer.pageSize, size));
                    setChosenSize(size);
                  }}
                >
                  {choices.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </select>
              </>
            )}
          </Pager>
        </>
      )}
    </section>
  );
}

// ---------------------------------------------------------------------------------------------
// Rebalance preview

function RebalancePreview({ bookId }: { bookId: string }) {
  const [preview, start] = useAction(ConsoleRebalancePreviewDocument);
  const rebalance = preview.data?.rebalancePortfolio ?? null;
  return (
    <section aria-labelledby="rebalance-title" aria-busy={preview.loading} className="panel">
      <h3 id="rebalance-title">Rebalance</h3>
      <p className="note">
        A preview only: the console never applies a rebalance. To trade the orders, send them through the API with <code>apply: true</code> and the book's
        version.
      </p>
      <button type="button" onClick={() => start({ id: bookId })} disabled={preview.loading}>
        Preview rebalance
      </button>
      <ErrorList errors={preview.errors} />
      {rebalance && (
        <div className="result">
          <dl className="figures">
            <Figure label="Cash before" value={formatMoney(rebalance.cashBefore)} />
            <Figure label="Cash after" value={formatMoney(rebalance.cashAfter)} />
            <Figure label="Sells" value={formatMoney(rebalance.sellValue)} />
            <Figure label="Buys" value={formatMoney(rebalance.buyValue)} />
            <Figure label="Turnover (one-way)" value={formatPercent(rebalance.turnover, 2)} />
            <Figure label="On version" value={rebalance.version} />
          </dl>
          {rebalance.orders.length === 0 ? (
            <p>No orders: the book is at its target.</p>
          ) : (
            <div className="table-scroll">
              <table data-testid="rebalance-orders">
                <caption>Orders, sells first</caption>
                <thead>
                  <tr>
                    <th scope="col">Side</th>
                    <th scope="col">Symbol</th>
                    <th scope="col" className="num">Shares</th>
                    <th scope="col" className="num">Price</th>
                    <th scope="col" className="num">Value</th>
                    <th scope="col">Price source</th>
                  </tr>
                </thead>
                <tbody>
                  {rebalance.orders.map((o, i) => (
                    <tr key={`${o.side}-${o.symbol}-${i}`}>
                      <td>
                        <span className={`badge side-${o.side.toLowerCase()}`}>{o.side}</span>
                      </td>
                      <th scope="row">{o.symbol}</th>
                      <td className="num">{formatShares(o.shares)}</td>
                      <td className="num">{formatMoney(o.price)}</td>
                      <td className="num">{formatMoney(o.value)}</td>
                      <td>{o.priceSource}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <Lines items={rebalance.notes} label="Notes" />
          <Lines items={rebalance.optimizerDiagnostics.bindingNotes} label="What bound the optimizer" />
        </div>
      )}
    </section>
  );
}
