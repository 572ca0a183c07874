/** Loading, empty, error and success states, the same on every page. */
import type { ReactNode } from 'react';
import { ApiError } from '../api/client.js';

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
