/** An operation's errors as the console shows them: the message, its code, and each field at fault. */
import type { ConsoleError } from './api';

export function ErrorList({ errors }: { errors: ConsoleError[] }) {
  if (errors.length === 0) return null;
  return (
    <div role="alert" className="error-list">
      {errors.map((error, i) => (
        <div key={i} className="error">
          <p>
            {error.message}
            {error.code && <code className="code"> {error.code}</code>}
          </p>
          {error.details.length > 0 && (
            <ul>
              {error.details.map((d, j) => (
                <li key={j} data-field={d.field}>
                  <strong>{d.field}</strong>: {d.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
    </div>
  );
}
