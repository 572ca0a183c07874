import type { Edition } from '@parley/protocol';
import { ErrorMessage, ListStates, Success } from '../../components/feedback.js';
import { NewPasswordField, SelectField, SubmitButton, TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { useConsole } from '../../context.js';
import { useCreateForm, useResource } from '../../hooks.js';
import { formatTime } from '../../format.js';

const EMPTY_FORM = { name: '', edition: 'flagship' as Edition, username: '', password: '', nickname: '' };

/** System admin: every tenant, and a form that creates one with its first administrator. */
export function TenantsPage() {
  const { api } = useConsole();
  const tenants = useResource((signal) => api.listTenants(signal), [api]);
  const { form, setForm, created, firstField, submit, onSubmit } = useCreateForm(
    EMPTY_FORM,
    (f: typeof EMPTY_FORM) =>
      api.createTenant({ name: f.name.trim(), edition: f.edition, admin: { username: f.username.trim(), password: f.password, nickname: f.nickname.trim() } }),
    () => tenants.reload(),
  );
  const set = (key: keyof typeof EMPTY_FORM) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  return (
    <Page title="Tenants" intro="Customer-service tenants. The REST channel needs the flagship edition.">
      <Panel title="Create a tenant">
        <form onSubmit={onSubmit} className="form-grid" aria-describedby="tenant-form-note">
          <p id="tenant-form-note" className="hint span-all">
            The tenant's first administrator signs in with the username and password given here.
          </p>
          <TextField label="Tenant name" name="name" required maxLength={64} value={form.name} onChange={set('name')} ref={firstField} />
          <SelectField label="Edition" name="edition" value={form.edition} onChange={set('edition')}>
            <option value="flagship">Flagship (REST channel included)</option>
            <option value="standard">Standard</option>
          </SelectField>
          <TextField label="Administrator username" name="adminUsername" required maxLength={128} autoComplete="off" value={form.username} onChange={set('username')} />
          <TextField label="Administrator nickname" name="adminNickname" required maxLength={64} value={form.nickname} onChange={set('nickname')} />
          <NewPasswordField label="Administrator password" name="adminPassword" value={form.password} onChange={set('password')} />
          <div className="actions span-all">
            <SubmitButton busy={submit.busy} busyLabel="Creating…">
              Create tenant
            </SubmitButton>
          </div>
        </form>
        {submit.error && <ErrorMessage error={submit.error} title="The tenant was not created" />}
        {created && (
          <Success>
            Tenant <strong>{created.name}</strong> created with ID {created.tenantId} ({created.edition}).
          </Success>
        )}
      </Panel>
      <Panel title="All tenants">
        <ListStates resource={tenants} what="tenants" errorTitle="Could not load tenants" count={tenants.data?.length} empty={{ title: 'No tenants yet', hint: 'Create the first one above.' }} />
        {tenants.data && tenants.data.length > 0 && (
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">ID</th>
                  <th scope="col">Name</th>
                  <th scope="col">Edition</th>
                  <th scope="col">Default queue</th>
                  <th scope="col">VIP tags</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {tenants.data.map((t) => (
                  <tr key={t.tenantId}>
                    <td>{t.tenantId}</td>
                    <td>{t.name}</td>
                    <td>
                      <span className={`badge badge-${t.edition}`}>{t.edition}</span>
                    </td>
                    <td>{t.defaultQueueId}</td>
                    <td>{t.vipTags.length ? t.vipTags.join(', ') : <span className="muted">none</span>}</td>
                    <td className="nowrap">{formatTime(t.createDateTime)}</td>
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
