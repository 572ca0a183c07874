import { useEffect, useState, type FormEvent } from 'react';
import type { CallbackRuleView } from '@parley/protocol';
import { ConfirmDialog, ErrorMessage, ListStates, Success } from '../../components/feedback.js';
import { TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { SecretValue } from '../../components/secret.js';
import { useInterval, useResource, useSubmit } from '../../hooks.js';
import { ImAppGate, useImApp } from './app-gate.js';
import { LiveTail } from './live-tail.js';
import { ALL_FILTERS, RuleFilterFields, type RuleFilters } from './rule-filters.js';

/** System admin: callback switches and rules of the open IM app, with live ban countdowns. */
export function CallbackRulesPage() {
  return (
    <Page title="Callback rules" intro="After each message, Parley calls the matching rules' URLs. A rule that fails 90 times within 30 s is banned for a while; its countdown shows here.">
      <ImAppGate>
        <Switches />
        <Rules />
        <LiveTail />
      </ImAppGate>
    </Page>
  );
}

function Switches() {
  const { api } = useImApp();
  const settings = useResource((signal) => api.settings(signal), [api]);
  const update = useSubmit((change: { enabled?: boolean; store_failed?: boolean }) => api.updateSettings(change));
  const toggle = async (change: { enabled?: boolean; store_failed?: boolean }) => {
    if (await update.run(change)) settings.reload();
  };
  return (
    <Panel title="Callback service">
      {settings.error && <ErrorMessage error={settings.error} title="Could not load the switches" />}
      {settings.data && (
        <div className="checks">
          <label className="check">
            <input type="checkbox" checked={settings.data.enabled} disabled={update.busy} onChange={(e) => void toggle({ enabled: e.target.checked })} />
            Callback service on
          </label>
          <label className="check">
            <input type="checkbox" checked={settings.data.store_failed} disabled={update.busy} onChange={(e) => void toggle({ store_failed: e.target.checked })} />
            Store failed callbacks (exception store)
          </label>
        </div>
      )}
      {update.error && <ErrorMessage error={update.error} title="The switch was not changed" />}
    </Panel>
  );
}

/** "4 min 05 s" until `until`, counted on the server's clock. */
function Countdown({ until, offsetMs, onEnd }: { until: number; offsetMs: number; onEnd(): void }) {
  const [now, setNow] = useState(() => Date.now() + offsetMs);
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now() + offsetMs), 1000);
    return () => window.clearInterval(timer);
  }, [offsetMs]);
  const left = Math.max(0, until - now);
  useEffect(() => {
    if (left === 0) onEnd();
  }, [left === 0]);
  const minutes = Math.floor(left / 60_000);
  const seconds = Math.floor((left % 60_000) / 1000);
  return (
    <span className="countdown" data-testid="ban-countdown">
      {minutes} min {String(seconds).padStart(2, '0')} s left
    </span>
  );
}

function Rules() {
  const { api } = useImApp();
  const rules = useResource((signal) => api.rules(signal), [api]);
  const [form, setForm] = useState({ name: '', url: '', enabled: true });
  const [filters, setFilters] = useState<RuleFilters>(ALL_FILTERS);
  const create = useSubmit(() => api.createRule({ name: form.name.trim(), url: form.url.trim(), enabled: form.enabled, ...filters }));
  const [created, setCreated] = useState<string | undefined>(undefined);
  const [deleted, setDeleted] = useState<string | undefined>(undefined);

  // Bans start on the server without an event the console could listen to: re-read every 5 s.
  useInterval(rules.reload, 5000);

  const onCreate = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setCreated(undefined);
    setDeleted(undefined);
    const rule = await create.run();
    if (!rule) return;
    setCreated(rule.name);
    setForm({ name: '', url: '', enabled: true });
    setFilters(ALL_FILTERS);
    rules.reload();
  };

  return (
    <>
      <Panel title="Create a rule">
        <form onSubmit={onCreate} className="form-grid">
          <TextField label="Rule name" required maxLength={32} pattern="[A-Za-z0-9_]{1,32}" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} hint="1–32 of A-Z a-z 0-9 _" />
          <TextField label="Callback URL" type="url" required maxLength={2048} value={form.url} onChange={(e) => setForm({ ...form, url: e.target.value })} />
          <label className="check">
            <input type="checkbox" checked={form.enabled} onChange={(e) => setForm({ ...form, enabled: e.target.checked })} />
            Enabled
          </label>
          <RuleFilterFields value={filters} onChange={setFilters} idPrefix="new-rule" />
          <div className="span-all actions">
            <button type="submit" className="primary" disabled={create.busy}>
              Create rule
            </button>
          </div>
        </form>
        {create.error && <ErrorMessage error={create.error} title="The rule was not created" />}
        {created && <Success>Rule {created} created.</Success>}
      </Panel>
      <Panel title="Rules">
        <ListStates resource={rules} what="rules" errorTitle="Could not load the rules" count={rules.data?.value.length} empty={{ title: 'No rules yet', hint: 'Create one above (at most 4 per app).' }} />
        {deleted && <Success>Rule {deleted} deleted.</Success>}
        {rules.data?.value.map((rule) => (
          <RuleCard
            key={rule.name}
            rule={rule}
            offsetMs={rules.data?.serverOffsetMs ?? 0}
            onChanged={rules.reload}
            onDeleted={() => {
              setDeleted(rule.name);
              rules.reload();
            }}
          />
        ))}
      </Panel>
    </>
  );
}

type RuleChange = 'edit' | 'enable' | 'rotate' | 'delete';

function RuleCard({ rule, offsetMs, onChanged, onDeleted }: { rule: CallbackRuleView; offsetMs: number; onChanged(): void; onDeleted(): void }) {
  const { api } = useImApp();
  const [url, setUrl] = useState(rule.url);
  const [filters, setFilters] = useState<RuleFilters>({ event_types: rule.event_types, chat_types: rule.chat_types, message_types: rule.message_types, sources: rule.sources });
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | undefined>(undefined);
  const change = useSubmit((kind: RuleChange) => {
    if (kind === 'rotate') return api.rotateRuleSecret(rule.name);
    if (kind === 'delete') return api.deleteRule(rule.name);
    return api.updateRule(rule.name, kind === 'edit' ? { url: url.trim(), ...filters } : { enabled: !rule.enabled });
  });
  const run = async (kind: RuleChange) => {
    if (!(await change.run(kind))) return;
    setConfirm(undefined);
    if (kind === 'delete') return onDeleted();
    if (kind === 'edit') setEditing(false);
    onChanged();
  };
  const banned = rule.status === 'banned' && rule.banned_until !== null;
  return (
    <article className="rule" aria-label={`Rule ${rule.name}`} data-rule={rule.name}>
      <div className="toolbar">
        <strong>{rule.name}</strong>
        <span className={`badge status-${rule.status}`}>{rule.status === 'banned' ? 'Banned' : 'Active'}</span>
        {banned && <Countdown until={rule.banned_until as number} offsetMs={offsetMs} onEnd={onChanged} />}
        <span className="muted">Ban count {rule.ban_count}</span>
        <span className="muted">{rule.enabled ? 'Enabled' : 'Disabled'}</span>
        <button type="button" className="small" aria-pressed={rule.enabled} disabled={change.busy} onClick={() => void run('enable')}>
          {rule.enabled ? 'Disable' : 'Enable'}
        </button>
      </div>
      <p className="muted small-text">
        Events {rule.event_types.join(', ')} · chats {rule.chat_types.join(', ')} · messages {rule.message_types.join(', ')} · sources {rule.sources.join(', ')}
      </p>
      <p className="small-text break">
        URL <code>{rule.url}</code>{' '}
        <button type="button" className="small" aria-expanded={editing} onClick={() => setEditing(!editing)}>
          {editing ? 'Cancel editing' : `Edit ${rule.name}`}
        </button>
      </p>
      {editing && (
        <form
          className="form-grid"
          onSubmit={(e) => {
            e.preventDefault();
            void run('edit');
          }}
        >
          <TextField label={`URL of ${rule.name}`} type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
          <RuleFilterFields value={filters} onChange={setFilters} idPrefix={`rule-${rule.name}`} />
          <div className="span-all actions">
            <button type="submit" className="primary" disabled={change.busy}>
              Save {rule.name}
            </button>
          </div>
        </form>
      )}
      <SecretValue label={`Secret of ${rule.name}`} value={rule.secret} />
      <div className="actions">
        <button type="button" className="small" aria-expanded={confirm === 'rotate'} onClick={() => setConfirm('rotate')}>
          Rotate secret…
        </button>
        <button type="button" className="small" aria-expanded={confirm === 'delete'} onClick={() => setConfirm('delete')}>
          Delete {rule.name}…
        </button>
      </div>
      {confirm && <ConfirmChange rule={rule.name} kind={confirm} busy={change.busy} onYes={() => void run(confirm)} onCancel={() => setConfirm(undefined)} />}
      {change.error && <ErrorMessage error={change.error} title="The rule was not changed" />}
    </article>
  );
}

const CONFIRM = {
  rotate: { label: 'Rotate the secret of', question: 'The current secret stops signing at once. Rotate?', yes: 'Yes, rotate' },
  delete: { label: 'Delete the rule', question: 'Its callbacks stop at once; stored records of it can no longer be re-sent. Delete?', yes: 'Yes, delete' },
} as const;

function ConfirmChange({ rule, kind, busy, onYes, onCancel }: { rule: string; kind: 'rotate' | 'delete'; busy: boolean; onYes(): void; onCancel(): void }) {
  const text = CONFIRM[kind];
  return (
    <ConfirmDialog label={`${text.label} ${rule}`} yes={text.yes} busy={busy} onYes={onYes} onCancel={onCancel}>
      {text.question}
    </ConfirmDialog>
  );
}
