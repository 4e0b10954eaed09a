/**
 * The hooks a view runs its operations with: one run whenever its variables change, one run on demand.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { execute, type ConsoleError } from './api';
import { useSession } from './session';
import type { TypedDocumentString } from '../generated/graphql';

/** An operation's state as a section shows it: the last data, its errors, and whether one is running. */
export interface Loaded<R> {
  data: R | null;
  errors: ConsoleError[];
  loading: boolean;
}

const IDLE = { data: null, errors: [], loading: false };

/**
 * Runs `document` whenever `variables` change (by value), with the session's token; null variables
 * run nothing. A request the view no longer needs (new variables, a new token, the section gone) is
 * aborted, so a page turned quickly does not leave earlier pages loading, and its cancelled answer is
 * ignored. The last data stays while the next loads, so a page turn does not blank the section.
 */
export function useOperation<R, V>(document: TypedDocumentString<R, V>, variables: V | null): Loaded<R> {
  const { token, settings } = useSession();
  const [state, setState] = useState<Loaded<R>>(IDLE);
  const key = variables === null ? null : JSON.stringify(variables);
  useEffect(() => {
    if (key === null) return;
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    void execute(document, JSON.parse(key) as V, token, { endpoint: settings.endpoint, signal: controller.signal }).then((answer) => {
      if (controller.signal.aborted) return;
      setState({ data: answer.data, errors: answer.errors, loading: false });
    });
    return () => controller.abort();
  }, [document, key, token, settings.endpoint]);
  return state;
}

/**
 * An operation run on demand (a form's submit, a button): its state and the function that starts it.
 * Starting again aborts the request still running, and so does leaving the section.
 */
export function useAction<R, V>(document: TypedDocumentString<R, V>): [Loaded<R>, (variables: V) => void] {
  const { token, settings } = useSession();
  const [state, setState] = useState<Loaded<R>>(IDLE);
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []);
  const start = useCallback(
    (variables: V) => {
      running.current?.abort();
      const controller = new AbortController();
      running.current = controller;
      setState((s) => ({ ...s, loading: true }));
      void execute(document, variables, token, { endpoint: settings.endpoint, signal: controller.signal }).then((answer) => {
        if (controller.signal.aborted) return;
        setState({ data: answer.data, errors: answer.errors, loading: false });
      });
    },
    [document, token, settings.endpoint],
  );
  return [state, start];
}
