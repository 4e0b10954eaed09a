/** Sign-in: a development token from the page's endpoint (development only), or a pasted token. */
import { useState, type FormEvent } from 'react';
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

  if (session.token) {
    return (
      <div className="signin" aria-live="polite">
        <span>
          Signed in as <strong data-testid="subject">{session.subject ?? 'a partner'}</strong>
        </span>
        <button type="button" onClick={session.signOut}>
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
    <div className="signin">
      {session.settings.devTokenUrl && (
        <button type="button" onClick={mint} disabled={busy}>
          Sign in as the demo partner
        </button>
      )}
      <form onSubmit={paste} className="paste-token">
        <label htmlFor="token-input">Partner token</label>
        <input id="token-input" type="password" autoComplete="off" value={pasted} onChange={(e) => setPasted(e.target.value)} placeholder="eyJ…" />
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
