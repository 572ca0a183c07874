/**
 * Which IM app the system admin is managing, shared by every IM page. IM admin endpoints take an
 * app token, not the console session, so opening an app asks the server for one
 * (`POST /management/apps/{org}/{app}/token`, the signed-in system admin's session is enough: no
 * client secret). Only the token is kept, in sessionStorage: it lasts for the tab, survives a
 * reload, and "Switch app" forgets it.
 */
import { useEffect, useState } from 'react';
import type { ParleyApi } from '../../api/client.js';
import { appSession, loadImAppSession, saveImAppSession, type ImAppSession } from '../../api/im.js';

/** Selecting an app from anywhere (e.g. right after creating it) updates every gate on the page. */
const SELECTED = 'parley:im-app';

export function selectImApp(session: ImAppSession | undefined): void {
  saveImAppSession(session);
  window.dispatchEvent(new Event(SELECTED));
}

/** Asks for an app token with the console session and makes the app the selected one. */
export async function openImApp(api: ParleyApi, org: string, app: string): Promise<ImAppSession> {
  const requestedAt = Date.now();
  const session = appSession(org, app, await api.imAppToken(org, app), requestedAt);
  selectImApp(session);
  return session;
}

export function useImAppSession(): [ImAppSession | undefined, () => void] {
  const [session, setSession] = useState(() => loadImAppSession());
  useEffect(() => {
    const update = () => setSession(loadImAppSession());
    window.addEventListener(SELECTED, update);
    return () => window.removeEventListener(SELECTED, update);
  }, []);
  return [session, () => selectImApp(undefined)];
}
