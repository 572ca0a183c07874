/**
 * One callback rule: its two states named apart (the rule's own switch, "Rule: On/Off", and its
 * delivery, "Delivery: Active" or "Banned until … (n min left)"), its filters and URL, the edit
 * form, the secret, a test record, and rotate and delete behind a confirmation.
 */
import { useEffect, useState } from 'react';
import type { CallbackRuleView } from '@parley/protocol';
import { ConfirmDialog, ErrorMessage } from '../../components/feedback.js';
import { TextField } from '../../components/field.js';
import { SecretValue } from '../../components/secret.js';
import { Truncated } from '../../components/truncated.js';
import { useSubmit } from '../../hooks.js';
import { useImApp } from './app-gate.js';
import { RuleFilterFields, type RuleFilters } from './rule-filters.js';
import { RuleTest } from './rule-test.js';

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** "4 min 05 s left" until `until`, counted on the server's clock. */
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

type RuleChange = 'edit' | 'enable' | 'rotate' | 'delete';

/** Why nothing is sent for an active rule, if nothing is. */
function idleReason(rule: CallbackRuleView, serviceOn: boolean | undefined): string | undefined {
  if (serviceOn === false) return 'Nothing is sent while the callback service is off.';
  if (!rule.enabled) return 'Nothing is sent while the rule is off.';
  return undefined;
}

export function RuleCard({ rule, offsetMs, serviceOn, onChanged, onDeleted }: { rule: CallbackRuleView; offsetMs: number; serviceOn: boolean | undefined; onChanged(): void; onDeleted(): void }) {
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
  const bannedUntil = rule.status === 'banned' ? rule.banned_until : null;
  const idle = idleReason(rule, serviceOn);
  return (
    <article className="rule" aria-label={`Rule ${rule.name}`} data-rule={rule.name}>
      <h3 className="rule-name">{rule.name}</h3>
      <dl className="rule-states">
        <div data-testid="rule-switch">
          <dt>Rule</dt>
          <dd>
            <span className={`badge ${rule.enabled ? 'status-on' : 'status-off'}`}>{rule.enabled ? 'On' : 'Off'}</span>
            <button type="button" className="small" disabled={change.busy} onClick={() => void run('enable')}>
              {rule.enabled ? 'Turn off' : 'Turn on'}
              <span className="visually-hidden"> rule {rule.name}</span>
            </button>
          </dd>
        </div>
        <div data-testid="rule-delivery">
          <dt>Delivery</dt>
          <dd>
            <span className={`badge status-${rule.status}`}>{bannedUntil === null ? 'Active' : 'Banned'}</span>
            {bannedUntil !== null && (
              <>
                {' '}until {clock.format(new Date(bannedUntil - offsetMs))} · <Countdown until={bannedUntil} offsetMs={offsetMs} onEnd={onChanged} />
              </>
            )}
            <span className="muted"> · ban count {rule.ban_count}</span>
          </dd>
        </div>
      </dl>
      {idle && <p className="muted small-text">{idle}</p>}
      <p className="muted small-text">
        Events {rule.event_types.join(', ')} · chats {rule.chat_types.join(', ')} · messages {rule.message_types.join(', ')} · sources {rule.sources.join(', ')}
      </p>
      <div className="kv rule-url">
        <span className="kv-label">URL</span>
        <Truncated value={rule.url} code />
        <button type="button" className="small" aria-expanded={editing} onClick={() => setEditing(!editing)}>
          {editing ? 'Cancel' : 'Edit'}
          <span className="visually-hidden">{editing ? ' editing' : ` ${rule.name}`}</span>
        </button>
      </div>
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
      <RuleTest rule={rule.name} />
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
