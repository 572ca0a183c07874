/**
 * The open app's users: register one, the list (oldest first, a page at a time, searched by a
 * part of the username or nickname), and per user: edit the nickname or set a new password, or
 * delete (after a confirmation).
 */
import { useState, type FormEvent } from 'react';
import type { ImUserView } from '@parley/protocol';
import { ConfirmDialog, ErrorMessage, Success } from '../../components/feedback.js';
import { TextField } from '../../components/field.js';
import { Panel } from '../../components/page.js';
import { Truncated } from '../../components/truncated.js';
import { formatTime } from '../../format.js';
import { useSubmit } from '../../hooks.js';
import { useImApp } from './app-gate.js';
import { ListFrame, PAGE_SIZE, SearchForm, usePagedList } from './paged-list.js';

export function Users() {
  const { api } = useImApp();
  const list = usePagedList((q, cursor, signal) => api.listUsers(q, cursor, PAGE_SIZE, signal), [api]);
  const [done, setDone] = useState<string | undefined>(undefined);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const changed = (message: string) => {
    setDone(message);
    setEditing(undefined);
    list.reload();
  };
  return (
    <Panel title="Users">
      <SearchForm list={list} what="users" hint="A part of the username or nickname" />
      <ListFrame list={list} what="users" empty={{ title: 'No users yet', hint: 'Register one above.' }}>
        {list.items && list.items.length > 0 && (
          <div className="table-scroll">
            <table aria-label="Users">
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Nickname</th>
                  <th scope="col">Registered</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.items.map((user) => (
                  <UserRow key={user.username} user={user} editing={editing === user.username} onEdit={(on) => setEditing(on ? user.username : undefined)} onChanged={changed} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListFrame>
      {done && <Success>{done}</Success>}
      <h3>Register a user</h3>
      <RegisterUser onRegistered={(name) => changed(`User ${name} registered.`)} />
    </Panel>
  );
}

function RegisterUser({ onRegistered }: { onRegistered(name: string): void }) {
  const { api } = useImApp();
  const [form, setForm] = useState({ username: '', password: '', nickname: '' });
  const create = useSubmit(() => api.createUser({ username: form.username.trim(), password: form.password, ...(form.nickname.trim() ? { nickname: form.nickname.trim() } : {}) }));
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const created = await create.run();
    if (!created?.[0]) return;
    setForm({ username: '', password: '', nickname: '' });
    onRegistered(created[0].username);
  };
  return (
    <>
      <form onSubmit={onSubmit} className="form-grid" aria-label="Register a user">
        <TextField label="Username" required maxLength={64} autoComplete="off" value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} hint="a-z 0-9 _ . - (folded to lower case)" />
        <TextField label="Password" type="password" required minLength={6} maxLength={128} autoComplete="new-password" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} hint="At least 6 characters" />
        <TextField label="Nickname" maxLength={100} value={form.nickname} onChange={(e) => setForm({ ...form, nickname: e.target.value })} hint="Optional" />
        <div className="span-all actions">
          <button type="submit" className="primary" disabled={create.busy}>
            Register user
          </button>
        </div>
      </form>
      {create.error && <ErrorMessage error={create.error} title="The user was not registered" />}
    </>
  );
}

function UserRow({ user, editing, onEdit, onChanged }: { user: ImUserView; editing: boolean; onEdit(on: boolean): void; onChanged(message: string): void }) {
  const { api } = useImApp();
  const [confirm, setConfirm] = useState(false);
  const remove = useSubmit(() => api.deleteUser(user.username));
  const onDelete = async () => {
    if (await remove.run()) onChanged(`User ${user.username} deleted.`);
  };
  return (
    <>
      <tr className={editing ? 'selected' : undefined}>
        <td>
          <Truncated value={user.username} chars={28} />
        </td>
        <td>
          <Truncated value={user.nickname ?? ''} chars={28} />
        </td>
        <td className="nowrap">{formatTime(user.created)}</td>
        <td>
          <div className="actions">
            <button type="button" className="small" aria-expanded={editing} onClick={() => onEdit(!editing)}>
              {editing ? 'Cancel' : 'Edit'}
              <span className="visually-hidden"> user {user.username}</span>
            </button>
            <button type="button" className="small" aria-expanded={confirm} onClick={() => setConfirm(true)}>
              Delete…<span className="visually-hidden"> user {user.username}</span>
            </button>
          </div>
        </td>
      </tr>
      {(editing || confirm) && (
        <tr>
          <td colSpan={4}>
            {editing && <EditUser user={user} onSaved={onChanged} />}
            {confirm && (
              <ConfirmDialog label={`Delete the user ${user.username}`} yes="Yes, delete" busy={remove.busy} onYes={() => void onDelete()} onCancel={() => setConfirm(false)}>
                Delete {user.username} with their memberships and offline messages? This cannot be undone.
              </ConfirmDialog>
            )}
            {remove.error && <ErrorMessage error={remove.error} title="The user was not deleted" />}
          </td>
        </tr>
      )}
    </>
  );
}

/** A new nickname (empty clears it) and, when given, a new password: each saved only if changed. */
function EditUser({ user, onSaved }: { user: ImUserView; onSaved(message: string): void }) {
  const { api } = useImApp();
  const [nickname, setNickname] = useState(user.nickname ?? '');
  const [password, setPassword] = useState('');
  const save = useSubmit(async () => {
    const changes: string[] = [];
    if (nickname.trim() !== (user.nickname ?? '')) {
      await api.setNickname(user.username, nickname.trim());
      changes.push('nickname');
    }
    if (password !== '') {
      await api.setPassword(user.username, password);
      changes.push('password');
    }
    return changes;
  });
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const changes = await save.run();
    if (changes) onSaved(changes.length ? `User ${user.username}: ${changes.join(' and ')} saved.` : `User ${user.username}: nothing to change.`);
  };
  return (
    <form className="form-grid" aria-label={`Edit user ${user.username}`} onSubmit={onSubmit}>
      <TextField label={`Nickname of ${user.username}`} maxLength={100} value={nickname} onChange={(e) => setNickname(e.target.value)} hint="Empty clears it" />
      <TextField label={`New password for ${user.username}`} type="password" minLength={6} maxLength={128} autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} hint="Leave empty to keep the password" />
      <div className="span-all actions">
        <button type="submit" className="primary" disabled={save.busy}>
          Save {user.username}
        </button>
      </div>
      {save.error && (
        <div className="span-all">
          <ErrorMessage error={save.error} title="The user was not saved" />
        </div>
      )}
    </form>
  );
}
