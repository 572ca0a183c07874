import { useState, type FormEvent } from 'react';
import type { AssociationView, SkillGroupView } from '@parley/protocol';
import { ErrorMessage, Success } from '../../../components/feedback.js';
import { SelectField, SubmitButton, TextField } from '../../../components/field.js';
import { Panel } from '../../../components/page.js';
import { CopyValue, SecretValue } from '../../../components/secret.js';
import { useConsole, useTenantId } from '../../../context.js';
import { useSubmit } from '../../../hooks.js';

/** One association: credentials to copy, the edit form, secret rotation and deletion (both confirmed). */
export function AssociationDetail({
  association,
  groups,
  onChanged,
  onDeleted,
}: {
  association: AssociationView;
  groups: SkillGroupView[];
  onChanged(): void;
  onDeleted(): void;
}) {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const { channelId } = association;
  const [form, setForm] = useState({ name: association.name, callbackUrl: association.callbackUrl, queueId: association.agentQueueId ?? '' });
  const [confirm, setConfirm] = useState<'rotate' | 'delete' | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const save = useSubmit(() =>
    api.updateAssociation(tenantId, channelId, { name: form.name.trim(), callback_url: form.callbackUrl.trim(), agent_queue_id: form.queueId === '' ? null : form.queueId }),
  );
  const rotate = useSubmit(() => api.rotateAssociationSecret(tenantId, channelId));
  const remove = useSubmit(() => api.deleteAssociation(tenantId, channelId));

  const onSave = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setDone(undefined);
    if (await save.run()) {
      setDone('Changes saved.');
      onChanged();
    }
  };
  const onRotate = async () => {
    setDone(undefined);
    if (await rotate.run()) {
      setConfirm(undefined);
      setDone('New Client Secret generated. The old one keeps working for 24 hours while your server switches.');
      onChanged();
    }
  };
  const onDelete = async () => {
    if (await remove.run()) onDeleted();
  };

  const sendUrl = `${window.location.origin}${association.postMessageUrl}`;
  return (
    <Panel title={`Association “${association.name}”`} id="association-detail">
      <CopyValue label="Client ID" value={association.clientId} />
      <SecretValue label="Client Secret" value={association.clientSecret} />
      <CopyValue label="Send-message API" value={sendUrl} />
      {done && <Success>{done}</Success>}

      <h3>Edit</h3>
      <form onSubmit={onSave} className="form-grid">
        <TextField label="Name" required maxLength={64} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        <TextField label="Callback address (edit)" type="url" required maxLength={2048} value={form.callbackUrl} onChange={(e) => setForm({ ...form, callbackUrl: e.target.value })} />
        <SelectField label="Default skill group (edit)" value={form.queueId} onChange={(e) => setForm({ ...form, queueId: e.target.value })}>
          <option value="">Tenant default</option>
          {groups.map((g) => (
            <option key={g.queue_id} value={g.queue_id}>
              {g.queue_name}
            </option>
          ))}
        </SelectField>
        <div className="span-all actions">
          <SubmitButton busy={save.busy} busyLabel="Saving…">
            Save changes
          </SubmitButton>
          <button type="button" onClick={() => setConfirm('rotate')}>
            Rotate secret…
          </button>
          <button type="button" onClick={() => setConfirm('delete')}>
            Delete association…
          </button>
        </div>
      </form>
      {save.error && <ErrorMessage error={save.error} title="The changes were not saved" />}
      {confirm === 'rotate' && (
        <div className="confirm" role="alertdialog" aria-labelledby="confirm-rotate">
          <p id="confirm-rotate">Generate a new Client Secret? The current one keeps working for 24 hours, so your server can switch to the new one without refused messages.</p>
          <div className="actions">
            <button type="button" className="danger" disabled={rotate.busy} onClick={() => void onRotate()} autoFocus>
              Yes, rotate the secret
            </button>
            <button type="button" onClick={() => setConfirm(undefined)}>
              Cancel
            </button>
          </div>
          {rotate.error && <ErrorMessage error={rotate.error} title="The secret was not rotated" />}
        </div>
      )}
      {confirm === 'delete' && (
        <div className="confirm" role="alertdialog" aria-labelledby="confirm-delete">
          <p id="confirm-delete">Delete “{association.name}” with its conversations and deliveries? This cannot be undone.</p>
          <div className="actions">
            <button type="button" className="danger" disabled={remove.busy} onClick={() => void onDelete()} autoFocus>
              Yes, delete it
            </button>
            <button type="button" onClick={() => setConfirm(undefined)}>
              Cancel
            </button>
          </div>
          {remove.error && <ErrorMessage error={remove.error} title="The association was not deleted" />}
        </div>
      )}
    </Panel>
  );
}
