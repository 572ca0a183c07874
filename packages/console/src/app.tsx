import { useCallback, useEffect, useMemo, useState } from 'react';
import { logout, ParleyApi } from './api/client.js';
import { ConsoleContext, type ConsoleContextValue } from './context.js';
import { SignIn } from './pages/sign-in.js';
import { HOME, routesFor } from './routes.js';
import { currentPath, navigate } from './router.js';
import { clearSession, loadSession, saveSession, type Session } from './session.js';
import { Shell } from './shell.js';

// setTimeout holds at most a signed 32-bit delay; longer sessions are re-checked on reload.
const MAX_TIMER_MS = 2_147_483_647;

export function App() {
  const [session, setSession] = useState<Session | undefined>(() => loadSession());
  const [notice, setNotice] = useState<string | undefined>(undefined);

  const endSession = useCallback((reason: string) => {
    clearSession();
    setSession(undefined);
    setNotice(reason);
  }, []);

  // The token's lifetime is known: end the session when it runs out instead of failing calls.
  useEffect(() => {
    if (!session) return;
    const timer = window.setTimeout(() => endSession('Your session expired. Sign in again.'), Math.min(MAX_TIMER_MS, Math.max(0, session.expiresAt - Date.now())));
    return () => window.clearTimeout(timer);
  }, [session, endSession]);

  // Signing out in one tab signs out the others.
  useEffect(() => {
    const onStorage = () => {
      if (session && !loadSession()) endSession('You signed out in another tab.');
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [session, endSession]);

  const context = useMemo<ConsoleContextValue | undefined>(() => {
    if (!session) return undefined;
    const api = new ParleyApi((error) => endSession(`Your session has ended: ${error.description}. Sign in again.`));
    const signOut = () => {
      endSession('You signed out.');
      void logout();
    };
    return { session, api, signOut };
  }, [session, endSession]);

  if (!context) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(next) => {
          saveSession(next);
          // A deep link of this role is kept; anything else (e.g. the previous user's page) goes home.
          const path = currentPath();
          if (!routesFor(next.user.role).some((r) => r.path === path)) navigate(HOME[next.user.role], { replace: true });
          setNotice(undefined);
          setSession(next);
        }}
      />
    );
  }
  return (
    <ConsoleContext.Provider value={context}>
      <Shell />
    </ConsoleContext.Provider>
  );
}
