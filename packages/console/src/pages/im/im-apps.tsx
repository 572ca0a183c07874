import { useState, type FormEvent } from 'react';
import type { AppCreated } from '@parley/protocol';
import { ErrorMessage, Success } from '../../components/feedback.js';
import { SubmitButton, TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { CopyValue } from '../../components/secret.js';
import { useConsole } from '../../context.js';
import { useResource, useSubmit } from '../../hooks.js';
import { ImAppGate, useImApp } from './app-gate.js';
import { AppList } from './app-list.js';
import { CallbackServiceNotice } from './callback-service.js';
import { openImApp } from './app-session.js';

/**
 * System admin: create IM apps (credentials shown once), list them with their client IDs, open
 * one (no secret needed) or rotate its secret, and manage the open app's sensitive words.
 */
export function ImAppsPage() {
  const { api } = useConsole();
  const [form, setForm] = useState({ org: '', app: '' });
  const [created, setCreated] = useState<(AppCreated & { org: string; app: string }) | undefined>(undefined);
  const submit = useSubmit(() => api.createImApp(form.org.trim(), form.app.trim()));
  const [listed, setListed] = useState(0);
  const open = useSubmit(async () => (created ? openImApp(api, created.org, created.app) : undefined));

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setCreated(undefined);
    const result = await submit.run();
    if (!result) return;
    setCreated({ ...result, org: form.org.trim(), app: form.app.trim() });
    setForm({ org: '', app: '' });
    setListed((n) => n + 1);
  };

  return (
    <Page title="IM apps" intro="Each IM app has its own users, groups, chat rooms and callback rules. Its client secret is shown once, when it is created or rotated; opening an app here needs no secret.">
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
      <AppList title="Apps" manage reloadKey={listed} />
      <ImAppGate fallback={<p className="muted">Open an app above to edit its sensitive words, users, groups and callbacks.</p>}>
        <CallbackServiceNotice />
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
