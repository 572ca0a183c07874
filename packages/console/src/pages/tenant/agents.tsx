import { ErrorMessage, ListStates, Success } from '../../components/feedback.js';
import { NewPasswordField, SelectField, SubmitButton, TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { StatusBadge } from '../../components/status.js';
import { useConsole, useTenantId } from '../../context.js';
import { useCreateForm, useResource } from '../../hooks.js';

const EMPTY_FORM = { username: '', nickname: '', password: '', role: 'agent' as 'agent' | 'admin', queueIds: [] as string[], maxSessions: '10' };
type AgentForm = typeof EMPTY_FORM;

/** Tenant admin: agents and administrators, their queues, capacity and current status. */
export function AgentsPage() {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const data = useResource((signal) => Promise.all([api.listAgents(tenantId, signal), api.listSkillGroups(tenantId, signal)]), [api, tenantId]);
  const { form, setForm, created, firstField, submit, onSubmit } = useCreateForm(
    EMPTY_FORM,
    (f: AgentForm) =>
      api.createAgent(tenantId, {
        username: f.username.trim(),
        nickname: f.nickname.trim(),
        password: f.password,
        role: f.role,
        queue_ids: f.queueIds,
        max_sessions: Number(f.maxSessions),
      }),
    () => data.reload(),
  );
  const set = (key: 'username' | 'nickname' | 'password' | 'role' | 'maxSessions') => (e: { target: { value: string } }) =>
    setForm({ ...form, [key]: e.target.value });
  const toggleQueue = (queueId: string, checked: boolean) =>
    setForm({ ...form, queueIds: checked ? [...form.queueIds, queueId] : form.queueIds.filter((q) => q !== queueId) });

  const [agents, groups] = data.data ?? [undefined, undefined];
  const queueName = (id: string) => groups?.find((g) => g.queue_id === id)?.queue_name ?? `#${id}`;

  return (
    <Page title="Agents" intro="People who answer conversations. Each agent takes conversations from the skill groups ticked here, up to their capacity.">
      <Panel title="Create an agent">
        <form onSubmit={onSubmit} className="form-grid">
          <TextField label="Login e-mail" name="username" type="email" required maxLength={128} autoComplete="off" value={form.username} onChange={set('username')} ref={firstField} />
          <TextField label="Nickname" name="nickname" required maxLength={64} value={form.nickname} onChange={set('nickname')} hint="Shown to customers with each reply" />
          <NewPasswordField label="Password" name="password" value={form.password} onChange={set('password')} />
          <SelectField label="Role" name="role" value={form.role} onChange={set('role')}>
            <option value="agent">Agent</option>
            <option value="admin">Tenant administrator</option>
          </SelectField>
          <TextField
            label="Capacity (concurrent conversations)"
            name="max_sessions"
            type="number"
            required
            min={0}
            max={1000}
            step={1}
            value={form.maxSessions}
            onChange={set('maxSessions')}
          />
          <fieldset className="span-all">
            <legend>Skill groups</legend>
            {groups && groups.length === 0 && <p className="muted">No skill groups yet: create one on the Skill groups page.</p>}
            <div className="checks">
              {groups?.map((g) => (
                <label key={g.queue_id} className="check">
                  <input type="checkbox" checked={form.queueIds.includes(g.queue_id)} onChange={(e) => toggleQueue(g.queue_id, e.target.checked)} />
                  {g.queue_name}
                </label>
              ))}
            </div>
          </fieldset>
          <div className="actions span-all">
            <SubmitButton busy={submit.busy} busyLabel="Creating…">
              Create agent
            </SubmitButton>
          </div>
        </form>
        {submit.error && <ErrorMessage error={submit.error} title="The agent was not created" />}
        {created && (
          <Success>
            {created.role === 'admin' ? 'Administrator' : 'Agent'} <strong>{created.nickname}</strong> ({created.username}) created.
          </Success>
        )}
      </Panel>
      <Panel title="Agents of this tenant">
        <ListStates resource={data} what="agents" errorTitle="Could not load agents" count={agents?.length} empty={{ title: 'No agents yet', hint: 'Create one above.' }} />
        {agents && agents.length > 0 && (
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Nickname</th>
                  <th scope="col">Login</th>
                  <th scope="col">Role</th>
                  <th scope="col">Skill groups</th>
                  <th scope="col">Capacity</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {agents.map((a) => (
                  <tr key={a.id}>
                    <td>{a.nickname}</td>
                    <td>{a.username}</td>
                    <td>{a.role === 'admin' ? 'Administrator' : 'Agent'}</td>
                    <td>{a.queue_ids.length ? a.queue_ids.map(queueName).join(', ') : <span className="muted">none</span>}</td>
                    <td>{a.max_sessions}</td>
                    <td>
                      <StatusBadge status={a.status} />
                    </td>
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
