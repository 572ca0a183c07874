/** The signed-in user's session and API client, shared by every page. */
import { createContext, useContext } from 'react';
import type { ParleyApi } from './api/client.js';
import type { Session } from './session.js';

export interface ConsoleContextValue {
  session: Session;
  api: ParleyApi;
  signOut(): void;
}

export const ConsoleContext = createContext<ConsoleContextValue | null>(null);

export function useConsole(): ConsoleContextValue {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole() used outside a signed-in console');
  return value;
}

/** The tenant of a tenant admin or agent; pages of those roles are only routed when it is set. */
export function useTenantId(): number {
  const { session } = useConsole();
  const tenantId = session.user.tenantId;
  if (tenantId === null) throw new Error('this page needs a user that belongs to a tenant');
  return tenantId;
}
