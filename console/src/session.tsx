/**
 * Who is signed in: a partner token held in memory only (never in storage or a cookie), so reloading
 * the page signs out. In development the page names an endpoint that mints a development token for
 * the demo partner; otherwise a token is pasted.
 */
import { createContext, useContext } from 'react';

export interface PageSettings {
  /** The gateway's GraphQL endpoint on this origin. */
  endpoint: string;
  /** The symbol the security view opens with: the platform's demo symbol (DEMO_SYMBOL), which the gateway writes on the page. */
  demoSymbol: string;
  /** POST here for a development token; absent outside development. */
  devTokenUrl: string | null;
}

export interface Session {
  token: string | null;
  /** The partner the token names (its `sub`), for display. */
  subject: string | null;
  settings: PageSettings;
  signIn(token: string): void;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionContext');
  return session;
}

/** The `sub` claim of a JWT, read without verifying it (the servers verify; this is for display only). */
export function tokenSubject(token: string): string | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const json = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { sub?: unknown };
    return typeof json.sub === 'string' ? json.sub : null;
  } catch {
    return null;
  }
}

/** The page's settings, from the data attributes the gateway writes on the root element. */
export function readSettings(root: HTMLElement): PageSettings {
  return {
    endpoint: root.dataset.endpoint ?? '/graphql',
    // The gateway always writes it; without it the view opens on its symbol form rather than on a guess.
    demoSymbol: root.dataset.demoSymbol ?? '',
    devTokenUrl: root.dataset.devToken || null,
  };
}
