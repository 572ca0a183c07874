/**
 * Operator events (contract 6.7) on an IM app's callback page and a tenant's REST associations
 * page: the operations webhook (its secret shown once, when saved) and the latest events as
 * notices, newest first, each with its reason and how sending it went.
 */
import { useState, type FormEvent } from 'react';
import type { OperationsWebhookView, OperatorEventView } from '@parley/protocol';
import type { OperationsApi } from '../../api/operations.js';
import { ConfirmDialog, ErrorMessage, ListStates, Loading, Success } from '../../components/feedback.js';
import { SubmitButton, TextField } from '../../components/field.js';
import { Panel } from '../../components/page.js';
import { CopyValue } from '../../components/secret.js';
import { Truncated } from '../../components/truncated.js';
import { formatTime } from '../../format.js';
import { useInterval, useResource, useSubmit } from '../../hooks.js';
import { describeEvent, deliveryText } from './notice-text.js';

const NOTICES = 10;
const POLL_MS = 5000;

export function OperatorEventsPanel({ api, sends }: { api: OperationsApi; sends: string }) {
  const events = useResource((signal) => api.events(NOTICES, signal), [api]);
  useInterval(events.reload, POLL_MS);
  return (
    <Panel title="Operator events" id="operator-events">
      <p className="muted">{sends} The latest are listed here as notices, whether or not a webhook is set.</p>
      <WebhookForm api={api} />
      <h3>Notices</h3>
      <ListStates resource={events} what="notices" errorTitle="Could not load the notices" count={events.data?.length} empty={{ title: 'No operator events yet', hint: 'They appear here as they happen (refreshed every 5 s).' }} />
      {events.data && events.data.length > 0 && (
        <ol className="notices" aria-label="Operator events, newest first">
          {events.data.map((e) => (
            <Notice key={e.id} event={e} />
          ))}
        </ol>
      )}
    </Panel>
  );
}

function Notice({ event }: { event: OperatorEventView }) {
  const { title, reason, tone, deliveryId } = describeEvent(event);
  const delivery = deliveryText(event.delivery);
  return (
    <li className={`notice notice-${tone}`} data-event={event.type}>
      <p className="notice-title">{title}</p>
      <p>{reason}</p>
      {deliveryId && (
        <p>
          Delivery <Truncated value={deliveryId} code chars={16} />
        </p>
      )}
      <p className="notice-meta">
        {formatTime(event.timestamp)} · <code>{event.type}</code> · <span className={delivery.failed ? 'error-text' : undefined}>{delivery.text}</span>
      </p>
    </li>
  );
}

function WebhookForm({ api }: { api: OperationsApi }) {
  const current = useResource((signal) => api.webhook(signal), [api]);
  const [form, setForm] = useState({ url: '', secret: '' });
  const [saved, setSaved] = useState<OperationsWebhookView | undefined>(undefined);
  const [confirming, setConfirming] = useState(false);
  const save = useSubmit(() => api.save({ url: form.url.trim(), ...(form.secret ? { secret: form.secret } : {}) }));
  const remove = useSubmit(() => api.remove());

  const onSave = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(undefined);
    const result = await save.run();
    if (!result) return;
    setSaved(result);
    setForm({ url: '', secret: '' });
    current.reload();
  };
  const onRemove = async () => {
    if (await remove.run()) {
      setConfirming(false);
      setSaved(undefined);
      current.reload();
    }
  };

  const webhook = current.data;
  return (
    <>
      {current.error && <ErrorMessage error={current.error} title="Could not load the operations webhook" />}
      {webhook === null && <p>No operations webhook is set: events are only listed here.</p>}
      {webhook && (
        <div>
          <CopyValue label="Operations webhook" value={webhook.url} />
          <p className="muted">Set {formatTime(webhook.updated_at)}. Its secret was shown once, when it was saved; saving again sets a new one.</p>
          {confirming ? (
            <ConfirmDialog label="Remove the operations webhook" yes="Yes, remove it" busy={remove.busy} onYes={() => void onRemove()} onCancel={() => setConfirming(false)}>
              Remove the operations webhook? Events will no longer be sent; they stay listed here.
            </ConfirmDialog>
          ) : (
            <div className="actions">
              <button type="button" className="small" onClick={() => setConfirming(true)}>
                Remove webhook…
              </button>
            </div>
          )}
        </div>
      )}
      {remove.error && <ErrorMessage error={remove.error} title="The webhook was not removed" />}
      <form onSubmit={onSave} className="form-grid">
        <TextField label="Webhook URL" type="url" required maxLength={2048} value={form.url} onChange={(e) => setForm({ ...form, url: e.target.value })} hint="http or https; events are POSTed here, Standard Webhooks signed" />
        <TextField label="Secret (optional)" minLength={16} maxLength={128} autoComplete="off" value={form.secret} onChange={(e) => setForm({ ...form, secret: e.target.value })} hint="16–128 characters; leave empty to have one generated" />
        <div className="span-all actions">
          <SubmitButton busy={save.busy} busyLabel="Saving…">
            {webhook ? 'Replace webhook' : 'Save webhook'}
          </SubmitButton>
        </div>
      </form>
      {save.error && <ErrorMessage error={save.error} title="The webhook was not saved" />}
      {saved?.secret && (
        <Success>
          <p>Operations webhook saved. Copy its secret now: it is not shown again.</p>
          <CopyValue label="Operations secret" value={saved.secret} />
        </Success>
      )}
      {webhook === undefined && !current.error && <Loading what="the operations webhook" />}
    </>
  );
}
