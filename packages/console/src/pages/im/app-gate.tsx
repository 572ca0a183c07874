/**
 * The IM app an IM page works on: with an app selected (app-session.ts) its children get an
 * ImAppApi; without one, the list of apps to open (or the page's own `fallback`).
 */
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import { ImAppApi } from '../../api/im.js';
import { AppList } from './app-list.js';
import { useImAppSession } from './app-session.js';

interface ImAppContextValue {
  api: ImAppApi;
  forget(): void;
}

const ImAppContext = createContext<ImAppContextValue | null>(null);

export function useImApp(): ImAppContextValue {
  const value = useContext(ImAppContext);
  if (!value) throw new Error('useImApp() used outside an ImAppGate');
  return value;
}

/** Renders its children for the selected app, or `fallback` (by default the apps to open). */
export function ImAppGate({ children, fallback }: { children: ReactNode; fallback?: ReactNode }) {
  const [session, forget] = useImAppSession();
  const value = useMemo(() => (session ? { api: new ImAppApi(session, forget), forget } : null), [session]);
  if (!value || !session) return <>{fallback ?? <AppList title="Open an IM app" />}</>;
  return (
    <ImAppContext.Provider value={value}>
      <div className="toolbar app-bar">
        <span>
          App <strong>{`${session.org}#${session.app}`}</strong>
        </span>
        <button type="button" className="small" onClick={forget}>
          Switch app
        </button>
      </div>
      {children}
    </ImAppContext.Provider>
  );
}
