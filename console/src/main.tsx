/**
 * The web console: one page served by the gateway at /console that reaches the platform only through
 * the gateway's /graphql, with the typed operations of console/operations.
 */
import { StrictMode, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { readSettings, SessionContext, tokenSubject, type Session } from './session';
import { SignIn } from './signin';
import { routeHash, type Route } from './route';
import { useRoute } from './location';
import { SecurityView } from './views/security';
import { OptimizerView } from './views/optimizer';
import { BooksView } from './views/books';
import './styles.css';

const TABS: Array<{ label: string; route: Route }> = [
  { label: 'Security', route: { view: 'security', symbol: null, date: null } },
  { label: 'Optimizer', route: { view: 'optimizer' } },
  { label: 'Books', route: { view: 'books', bookId: null } },
];

function App({ root }: { root: HTMLElement }) {
  const settings = useMemo(() => readSettings(root), [root]);
  const [token, setToken] = useState<string | null>(null);
  const session: Session = useMemo(
    () => ({ token, subject: token ? tokenSubject(token) : null, settings, signIn: setToken, signOut: () => setToken(null) }),
    [token, settings],
  );
  const route = useRoute();
  return (
    <SessionContext.Provider value={session}>
      <header className="top">
        <h1>tradegraph</h1>
        <nav aria-label="Views">
          <ul>
            {TABS.map((tab) => (
              <li key={tab.label}>
                <a href={routeHash(tab.route)} aria-current={tab.route.view === route.view ? 'page' : undefined}>
                  {tab.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <SignIn />
      </header>
      <main id="view">
        {route.view === 'security' && <SecurityView symbol={route.symbol ?? settings.demoSymbol} date={route.date} />}
        {route.view === 'optimizer' && <OptimizerView />}
        {route.view === 'books' && <BooksView bookId={route.bookId} />}
      </main>
    </SessionContext.Provider>
  );
}

const root = document.getElementById('console');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App root={root} />
    </StrictMode>,
  );
}
