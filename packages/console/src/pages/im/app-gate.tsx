/**
 * The IM app the system admin is managing. IM admin endpoints take an app token, not the console
 * bearer, so the console asks for one with the app's client credentials (shown once when the app
 * was created) and keeps only the token, in sessionStorage: it lasts for the tab, survives a
 * reload, and "Switch app" forgets it.
 */
import { createContext, useContext, useEffect, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { ErrorMessage } from '../../components/feedback.js';
import { SubmitButton, TextField } from '../../components/field.js';
import { Panel } from '../../components/page.js';
import { useSubmit } from '../../hooks.js';
import { ImAppApi, loadImAppSession, requestAppToken, saveImAppSession, type ImAppSession } from '../../api/im.js';

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

/** Selecting an app from anywhere (e.g. right after creating it) updates every gate on the page. */
const SELECTED = 'parley:im-app';

export function selectImApp(session: ImAppSession | undefined): void {
  saveImAppSession(session);
  window.dispatchEvent(new Event(SELECTED));
}

export function ConnectForm({ initial }: { initial?: { org?: string; app?: string } }) {
  const [form, setForm] = useState({ org: initial?.org ?? '', app: initial?.app ?? '', clientId: '', clientSecret: '' });
  const submit = useSubmit(() => requestAppToken(form.org.trim(), form.app.trim(), form.clientId.trim(), form.clientSecret));
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const session = await submit.run();
    if (session) selectImApp(session);
  };
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  return (
    <Panel title="Open an IM app" id="open-im-app">
      <p className="muted">Enter the app's client ID and secret (shown when the app was created). The console keeps only the app token, for this browser tab.</p>
      <form onSubmit={onSubmit} className="form-grid">
        <TextField label="Org of the app" required value={form.org} onChange={set('org')} />
        <TextField label="Name of the app" required value={form.app} onChange={set('app')} />
        <TextField label="Client ID" required autoComplete="off" value={form.clientId} onChange={set('clientId')} />
        <TextField label="Client secret" type="password" required autoComplete="off" value={form.clientSecret} onChange={set('clientSecret')} />
        <div className="span-all actions">
          <SubmitButton busy={submit.busy} busyLabel="Opening…">
            Open app
          </SubmitButton>
        </div>
      </form>
      {submit.error && <ErrorMessage error={submit.error} title="Could not open the app" />}
    </Panel>
  );
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

/** Renders its children for the selected app, or the form that opens one. */
export function ImAppGate({ children }: { children: ReactNode }) {
  const [session, forget] = useImAppSession();
  const value = useMemo(() => (session ? { api: new ImAppApi(session, forget), forget } : null), [session]);
  if (!value || !session) return <ConnectForm />;
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
