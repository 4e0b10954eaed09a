/**
 * Sign-in: a development token from the page's endpoint (development only), or a pasted token. Signing
 * in or out replaces the button that did it, so focus moves to the control that undoes it ("Sign out",
 * or the sign-in button / token field) instead of dropping to the page.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useSession } from './session';

interface DevTokenAnswer {
  token?: unknown;
  error?: unknown;
}

export function SignIn() {
  const session = useSession();
  const [pasted, setPasted] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signedIn = session.token !== null;
  const container = useRef<HTMLDivElement>(null);
  const signOutButton = useRef<HTMLButtonElement>(null);
  const demoButton = useRef<HTMLButtonElement>(null);
  const tokenInput = useRef<HTMLInputElement>(null);
  const wasSignedIn = useRef(signedIn);

  useEffect(() => {
    if (wasSignedIn.current === signedIn) return; // the first render, or nothing changed
    wasSignedIn.current = signedIn;
    // Only when focus was here (or dropped with the button that went): a view's own focus is left alone.
    const active = document.activeElement;
    if (active && active !== document.body && !container.current?.contains(active)) return;
    if (signedIn) signOutButton.current?.focus();
    else (demoButton.current ?? tokenInput.current)?.focus();
  }, [signedIn]);

  if (session.token) {
    return (
      <div className="signin" aria-live="polite" ref={container}>
        <span>
          Signed in as <strong data-testid="subject">{session.subject ?? 'a partner'}</strong>
        </span>
        <button type="button" ref={signOutButton} onClick={session.signOut}>
          Sign out
        </button>
      </div>
    );
  }

  async function mint() {
    if (!session.settings.devTokenUrl) return;
    setBusy(true);
    setProblem(null);
    try {
      const res = await fetch(session.settings.devTokenUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal: AbortSignal.timeout(10_000) });
      const body = (await res.json()) as DevTokenAnswer;
      if (!res.ok || typeof body.token !== 'string') throw new Error(typeof body.error === 'string' ? body.error : `HTTP ${res.status}`);
      session.signIn(body.token);
    } catch (err) {
      setProblem(`No development token: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setBusy(false);
    }
  }

  function paste(event: FormEvent) {
    event.preventDefault();
    const token = pasted.trim().replace(/^Bearer\s+/i, '');
    if (token.split('.').length !== 3) {
      setProblem('A token is a JWT: three dot-separated parts');
      return;
    }
    setPasted('');
    setProblem(null);
    session.signIn(token);
  }

  return (
    <div className="signin" ref={container}>
      {session.settings.devTokenUrl && (
        <button type="button" ref={demoButton} onClick={mint} disabled={busy}>
          Sign in as the demo partner
        </button>
      )}
      <form onSubmit={paste} className="paste-token">
        <label htmlFor="token-input">Partner token</label>
        <input id="token-input" ref={tokenInput} type="password" autoComplete="off" value={pasted} onChange={(e) => setPasted(e.target.value)} placeholder="eyJ…" />
        <button type="submit">Use token</button>
      </form>
      {problem && (
        <p role="alert" className="error">
          {problem}
        </p>
      )}
    </div>
  );
}
