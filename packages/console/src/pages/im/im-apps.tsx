import { useState, type FormEvent } from 'react';
import type { AppCreated } from '@parley/protocol';
import { ErrorMessage, Success } from '../../components/feedback.js';
import { SubmitButton, TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { CopyValue } from '../../components/secret.js';
import { useConsole } from '../../context.js';
import { useResource, useSubmit } from '../../hooks.js';
import { requestAppToken } from '../../api/im.js';
import { ImAppGate, selectImApp, useImApp } from './app-gate.js';

/** System admin: create IM apps (credentials shown once) and manage the open app's sensitive words. */
export function ImAppsPage() {
  const { api } = useConsole();
  const [form, setForm] = useState({ org: '', app: '' });
  const [created, setCreated] = useState<(AppCreated & { org: string; app: string }) | undefined>(undefined);
  const submit = useSubmit(() => api.createImApp(form.org.trim(), form.app.trim()));
  const open = useSubmit(async () => {
    if (!created) return undefined;
    const session = await requestAppToken(created.org, created.app, created.client_id, created.client_secret);
    selectImApp(session);
    return session;
  });

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setCreated(undefined);
    const result = await submit.run();
    if (!result) return;
    setCreated({ ...result, org: form.org.trim(), app: form.app.trim() });
    setForm({ org: '', app: '' });
  };

  return (
    <Page title="IM apps" intro="Each IM app has its own users, groups, chat rooms and callback rules. Its client ID and secret are shown once, when it is created.">
      <Panel title="Create an IM app">
        <form onSubmit={onSubmit} className="form-grid">
          <TextField label="Org name" name="org_name" required maxLength={64} pattern="[A-Za-z0-9][A-Za-z0-9_\-]*" value={form.org} onChange={(e) => setForm({ ...form, org: e.target.value })} hint="Letters, digits, _ and -" />
          <TextField label="App name" name="app_name" required maxLength={64} pattern="[A-Za-z0-9][A-Za-z0-9_\-]*" value={form.app} onChange={(e) => setForm({ ...form, app: e.target.value })} />
          <div className="span-all actions">
            <SubmitButton busy={submit.busy} busyLabel="Creating…">
              Create IM app
            </SubmitButton>
          </div>
        </form>
        {submit.error && <ErrorMessage error={submit.error} title="The app was not created" />}
        {created && (
          <div className="created-app">
            <Success>
              App <strong>{created.appkey}</strong> created. Copy the client secret now: it is not shown again.
            </Success>
            <CopyValue label="Appkey" value={created.appkey} />
            <CopyValue label="Client ID" value={created.client_id} />
            <CopyValue label="Client secret" value={created.client_secret} />
            <div className="actions">
              <button type="button" className="primary" disabled={open.busy} onClick={() => void open.run()}>
                Manage this app now
              </button>
            </div>
            {open.error && <ErrorMessage error={open.error} title="Could not open the app" />}
          </div>
        )}
      </Panel>
      <ImAppGate>
        <SensitiveWords />
      </ImAppGate>
    </Page>
  );
}

function SensitiveWords() {
  const { api } = useImApp();
  const words = useResource((signal) => api.sensitiveWords(signal), [api]);
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const save = useSubmit((list: string[]) => api.setSensitiveWords(list));
  const [saved, setSaved] = useState(false);
  const value = draft ?? words.data?.words.join(', ') ?? '';

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(false);
    const list = value.split(/[,\n]/).map((w) => w.trim()).filter((w) => w !== '');
    if (await save.run(list)) {
      setSaved(true);
      setDraft(undefined);
      words.reload();
    }
  };
  return (
    <Panel title="Sensitive words">
      {words.error && <ErrorMessage error={words.error} title="Could not load the sensitive words" />}
      <form onSubmit={onSubmit} className="form-inline">
        <TextField label="Words (comma-separated)" value={value} onChange={(e) => setDraft(e.target.value)} hint="Messages containing one are refused (case-insensitive)" />
        <button type="submit" disabled={save.busy}>
          Save words
        </button>
      </form>
      {save.error && <ErrorMessage error={save.error} title="The words were not saved" />}
      {saved && <Success>Sensitive words saved.</Success>}
    </Panel>
  );
}
