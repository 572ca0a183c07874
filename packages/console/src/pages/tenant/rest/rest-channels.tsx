import { useMemo, useState, type FormEvent } from 'react';
import type { AssociationView } from '@parley/protocol';
import { ErrorMessage, ListStates, Success } from '../../../components/feedback.js';
import { SelectField, SubmitButton, TextField } from '../../../components/field.js';
import { Page, Panel } from '../../../components/page.js';
import { Truncated } from '../../../components/truncated.js';
import { useConsole, useTenantId } from '../../../context.js';
import { formatTime } from '../../../format.js';
import { useResource, useSubmit } from '../../../hooks.js';
import { OperatorEventsPanel } from '../../operations/operator-events.js';
import { AssociationDetail } from './association-detail.js';
import { DeliveryLog } from './delivery-log.js';
import { TryIt } from './try-it.js';

const EMPTY = { name: '', callbackUrl: '', queueId: '' };

/** Tenant admin: REST associations, their credentials, a signing walk-through and the push log. */
export function RestChannelsPage() {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const data = useResource((signal) => Promise.all([api.listAssociations(tenantId, signal), api.listSkillGroups(tenantId, signal)]), [api, tenantId]);
  const [form, setForm] = useState(EMPTY);
  const [created, setCreated] = useState<AssociationView | undefined>(undefined);
  const [selectedId, setSelectedId] = useState<number | undefined>(undefined);
  const submit = useSubmit((f: typeof EMPTY) =>
    api.createAssociation(tenantId, { name: f.name.trim(), callback_url: f.callbackUrl.trim(), ...(f.queueId ? { agent_queue_id: f.queueId } : {}) }),
  );

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setCreated(undefined);
    const association = await submit.run(form);
    if (!association) return;
    setCreated(association);
    setSelectedId(association.channelId);
    setForm(EMPTY);
    data.reload();
  };

  const operations = useMemo(() => api.tenantOperations(tenantId), [api, tenantId]);
  const [list, groups] = data.data ?? [undefined, undefined];
  const selected = list?.find((a) => a.channelId === selectedId);
  const queueName = (id: string | null) => (id === null ? '—' : (groups?.find((g) => g.queue_id === id)?.queue_name ?? `#${id}`));

  return (
    <Page title="REST associations" intro="Connect your own server: it posts customer messages to the send-message API, signed with the Client Secret, and receives agent replies at its callback address.">
      <Panel title="Create an association">
        <form onSubmit={onSubmit} className="form-grid">
          <TextField label="Association name" name="name" required maxLength={64} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
          <TextField
            label="Callback address"
            name="callback_url"
            type="url"
            required
            maxLength={2048}
            placeholder="https://bridge.example.com/parley"
            value={form.callbackUrl}
            onChange={(e) => setForm({ ...form, callbackUrl: e.target.value })}
            hint="Agent replies are pushed here (http or https)"
          />
          <SelectField label="Default skill group" name="agent_queue_id" value={form.queueId} onChange={(e) => setForm({ ...form, queueId: e.target.value })} hint="Used when a message names no queue">
            <option value="">Tenant default</option>
            {groups?.map((g) => (
              <option key={g.queue_id} value={g.queue_id}>
                {g.queue_name}
              </option>
            ))}
          </SelectField>
          <div className="span-all actions">
            <SubmitButton busy={submit.busy} busyLabel="Creating…">
              Create association
            </SubmitButton>
          </div>
        </form>
        {submit.error && <ErrorMessage error={submit.error} title="The association was not created" />}
        {created && (
          <Success>
            Association <strong>{created.name}</strong> created. Client ID <code>{created.clientId}</code>
          </Success>
        )}
      </Panel>
      <Panel title="Associations">
        <ListStates resource={data} what="associations" errorTitle="Could not load associations" count={list?.length} empty={{ title: 'No associations yet', hint: 'Create one above to get a Client ID and secret.' }} />
        {list && list.length > 0 && (
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">ID</th>
                  <th scope="col">Name</th>
                  <th scope="col">Client ID</th>
                  <th scope="col">Callback address</th>
                  <th scope="col">Default group</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((a) => (
                  <tr key={a.channelId} className={a.channelId === selectedId ? 'selected' : undefined}>
                    <td>{a.channelId}</td>
                    <td>
                      <Truncated value={a.name} chars={16} />
                    </td>
                    <td>
                      <Truncated value={a.clientId} code chars={20} />
                    </td>
                    <td>
                      <Truncated value={a.callbackUrl} chars={20} />
                    </td>
                    <td>{queueName(a.agentQueueId)}</td>
                    <td className="nowrap">{formatTime(a.createDateTime)}</td>
                    <td>
                      <button type="button" className="small" aria-pressed={a.channelId === selectedId} onClick={() => setSelectedId(a.channelId === selectedId ? undefined : a.channelId)}>
                        {a.channelId === selectedId ? 'Hide details' : 'Show details'}
                        <span className="visually-hidden"> of {a.name}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
      {selected && (
        <>
          <AssociationDetail
            key={`detail-${selected.channelId}`}
            association={selected}
            groups={groups ?? []}
            onChanged={data.reload}
            onDeleted={() => {
              setSelectedId(undefined);
              setCreated(undefined);
              data.reload();
            }}
          />
          <TryIt key={`try-${selected.channelId}`} association={selected} />
          <DeliveryLog key={`log-${selected.channelId}`} association={selected} />
        </>
      )}
      <OperatorEventsPanel api={operations} sends="Pushes that run out of retries (delivery.exhausted) are sent to the tenant's operations webhook." />
    </Page>
  );
}
