/**
 * The signed-in session. The token itself lives only in the server's HttpOnly session cookie,
 * out of reach of any script; what is kept in localStorage (who signed in, and until when) only
 * lets the console show the right pages after a reload and sign out every tab at once. The
 * expiry is computed from `expires_in` at sign-in; an expired session is dropped when read.
 */
import type { LoginResult, UserView } from '@parley/protocol';

export interface Session {
  /** Epoch ms after which the token is no longer accepted. */
  expiresAt: number;
  user: UserView;
}

const KEY = 'parley.console.session';

/** The login result without its token: the cookie the server set carries that. */
export function sessionFromLogin(result: LoginResult, now = Date.now()): Session {
  return { expiresAt: now + result.expires_in * 1000, user: result.user };
}

function isSession(value: unknown): value is Session {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Partial<Session> & { token?: unknown };
  // An entry that still holds a token was written by an earlier console: it is dropped.
  if ('token' in s) return false;
  return typeof s.expiresAt === 'number' && typeof s.user === 'object' && s.user !== null && typeof s.user.role === 'string';
}

export function loadSession(now = Date.now()): Session | undefined {
  let raw: string | null;
  try {
    raw = window.localStorage.getItem(KEY);
  } catch {
    return undefined; // storage disabled: the session lasts until the tab closes
  }
  if (!raw) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isSession(parsed) && parsed.expiresAt > now) return parsed;
  } catch {
    // a corrupt entry is treated as no session
  }
  clearSession();
  return undefined;
}

export function saveSession(session: Session): void {
  try {
    window.localStorage.setItem(KEY, JSON.stringify({ expiresAt: session.expiresAt, user: session.user }));
  } catch {
    // storage disabled or full: the session still works until reload
  }
}

export function clearSession(): void {
  try {
    window.localStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}
