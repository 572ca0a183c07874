import { useRef, useState, type FormEvent } from 'react';
import type { SkillGroupView } from '@parley/protocol';
import { ErrorMessage, ListStates, Success } from '../../components/feedback.js';
import { SubmitButton, TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { useConsole, useTenantId } from '../../context.js';
import { useResource, useSubmit } from '../../hooks.js';

/** Tenant admin: skill groups (queues). Customers are routed to them by `ext.queue_name`. */
export function SkillGroupsPage() {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const groups = useResource((signal) => Promise.all([api.listSkillGroups(tenantId, signal), api.getTenant(tenantId, signal)]), [api, tenantId]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<SkillGroupView | undefined>(undefined);
  const input = useRef<HTMLInputElement>(null);
  const submit = useSubmit((queueName: string) => api.createSkillGroup(tenantId, queueName));

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setCreated(undefined);
    const group = await submit.run(name.trim());
    if (!group) return;
    setCreated(group);
    setName('');
    groups.reload();
    input.current?.focus();
  };

  const [list, tenant] = groups.data ?? [undefined, undefined];
  return (
    <Page title="Skill groups" intro="Queues that conversations wait in. A customer message picks one with ext.queue_name (or ext.queue_id).">
      <Panel title="Create a skill group">
        <form onSubmit={onSubmit} className="form-inline">
          <TextField
            label="Skill group name"
            name="queue_name"
            required
            maxLength={64}
            value={name}
            onChange={(e) => setName(e.target.value)}
            ref={input}
            hint="Must match ext.queue_name exactly; Chinese or English"
          />
          <SubmitButton busy={submit.busy} busyLabel="Creating…">
            Create skill group
          </SubmitButton>
        </form>
        {submit.error && <ErrorMessage error={submit.error} title="The skill group was not created" />}
        {created && (
          <Success>
            Skill group <strong>{created.queue_name}</strong> created with queue ID {created.queue_id}.
          </Success>
        )}
      </Panel>
      <Panel title="Skill groups of this tenant">
        <ListStates resource={groups} what="skill groups" errorTitle="Could not load skill groups" count={list?.length} empty={{ title: 'No skill groups yet', hint: 'Create one above.' }} />
        {list && list.length > 0 && (
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Queue ID</th>
                  <th scope="col">Name</th>
                  <th scope="col">Note</th>
                </tr>
              </thead>
              <tbody>
                {list.map((g) => (
                  <tr key={g.queue_id}>
                    <td>{g.queue_id}</td>
                    <td>{g.queue_name}</td>
                    <td>{tenant?.defaultQueueId === g.queue_id ? <span className="badge">default queue</span> : null}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
    </Page>
  );
}
