/** Loading, empty, error and success states, and the confirmation before a change, the same on every page. */
import type { ReactNode } from 'react';
import { ApiError } from '../api/client.js';
import type { Resource } from '../hooks.js';

/** Shows the API's errorDescription, with its code and request id for support. */
export function ErrorMessage({ error, title = 'Something went wrong' }: { error: Error; title?: string }) {
  const api = error instanceof ApiError ? error : undefined;
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">{title}</p>
      <p>{api ? api.description : error.message}</p>
      {api && api.status !== 0 && (
        <p className="notice-meta">
          <code>{api.code}</code> · HTTP {api.status}
          {api.requestId && <> · request {api.requestId}</>}
        </p>
      )}
    </div>
  );
}

export function Success({ children }: { children: ReactNode }) {
  return (
    <div className="notice notice-success" role="status">
      {children}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children && <p className="muted">{children}</p>}
    </div>
  );
}

/**
 * The states of a loaded list before its content: the load error, "Loading…" the first time, and
 * the empty state once it has loaded with nothing (`count` 0). The caller renders the items.
 */
export function ListStates({
  resource,
  what,
  errorTitle,
  count,
  empty,
}: {
  resource: Pick<Resource<unknown>, 'state' | 'data' | 'error'>;
  what: string;
  errorTitle: string;
  count: number | undefined;
  empty?: { title: string; hint?: ReactNode };
}) {
  return (
    <>
      {resource.error && <ErrorMessage error={resource.error} title={errorTitle} />}
      {resource.state === 'loading' && resource.data === undefined && <Loading what={what} />}
      {empty && count === 0 && <EmptyState title={empty.title}>{empty.hint}</EmptyState>}
    </>
  );
}

/** An inline confirmation before a change that cannot be undone: the question, a danger "yes" and Cancel. */
export function ConfirmDialog({ label, yes, busy, onYes, onCancel, children }: { label: string; yes: string; busy: boolean; onYes(): void; onCancel(): void; children: ReactNode }) {
  return (
    <div className="confirm" role="alertdialog" aria-label={label}>
      <p>{children}</p>
      <div className="actions">
        <button type="button" className="danger" autoFocus disabled={busy} onClick={onYes}>
          {yes}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
