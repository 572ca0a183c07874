import { useState, type FormEvent } from 'react';
import type { ImUserView } from '@parley/protocol';
import { ErrorMessage, Success } from '../../components/feedback.js';
import { TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { formatTime } from '../../format.js';
import { useSubmit } from '../../hooks.js';
import type { RoomKind, RoomView } from '../../api/im.js';
import { ImAppGate, useImApp } from './app-gate.js';

/** System admin: users, groups and chat rooms of the open IM app (the IM API has no lists: look up by name or id). */
export function ImDirectoryPage() {
  return (
    <Page title="IM users and groups" intro="Register users, create groups and chat rooms, and look them up by username or id.">
      <ImAppGate>
        <Users />
        <Rooms kind="chatgroups" />
        <Rooms kind="chatrooms" />
      </ImAppGate>
    </Page>
  );
}

const splitNames = (text: string) => text.split(/[,\s]+/).map((n) => n.trim()).filter((n) => n !== '');

function Users() {
  const { api } = useImApp();
  const [form, setForm] = useState({ username: '', password: '', nickname: '' });
  const [lookup, setLookup] = useState('');
  const [user, setUser] = useState<ImUserView | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const create = useSubmit(() => api.createUser({ username: form.username.trim(), password: form.password, ...(form.nickname.trim() ? { nickname: form.nickname.trim() } : {}) }));
  const find = useSubmit((name: string) => api.getUser(name));
  const remove = useSubmit((name: string) => api.deleteUser(name));

  const onCreate = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setDone(undefined);
    const created = await create.run();
    if (created?.[0]) {
      setDone(`User ${created[0].username} registered.`);
      setForm({ username: '', password: '', nickname: '' });
    }
  };
  const onFind = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setUser(undefined);
    setUser(await find.run(lookup.trim().toLowerCase()));
  };
  const onDelete = async (name: string) => {
    if (await remove.run(name)) {
      setUser(undefined);
      setDone(`User ${name} deleted.`);
    }
  };

  return (
    <Panel title="Users">
      <form onSubmit={onCreate} className="form-grid">
        <TextField label="Username" required maxLength={64} autoComplete="off" value={form.username} onChange={(e) => setForm({ ...form, username: e.target.value })} hint="a-z 0-9 _ . - (folded to lower case)" />
        <TextField label="User password" type="password" required maxLength={128} autoComplete="new-password" value={form.password} onChange={(e) => setForm({ ...form, password: e.target.value })} />
        <TextField label="User nickname" maxLength={100} value={form.nickname} onChange={(e) => setForm({ ...form, nickname: e.target.value })} />
        <div className="span-all actions">
          <button type="submit" className="primary" disabled={create.busy}>
            Register user
          </button>
        </div>
      </form>
      {create.error && <ErrorMessage error={create.error} title="The user was not registered" />}
      {done && <Success>{done}</Success>}
      <form onSubmit={onFind} className="form-inline">
        <TextField label="Find a user" required value={lookup} onChange={(e) => setLookup(e.target.value)} />
        <button type="submit" disabled={find.busy}>
          Find user
        </button>
      </form>
      {find.error && <ErrorMessage error={find.error} title="No such user" />}
      {user && (
        <div className="kv" data-testid="found-user">
          <strong>{user.username}</strong>
          <span>{user.nickname ?? ''}</span>
          <span className="muted">registered {formatTime(user.created)}</span>
          <button type="button" className="small" disabled={remove.busy} onClick={() => void onDelete(user.username)}>
            Delete user {user.username}
          </button>
        </div>
      )}
      {remove.error && <ErrorMessage error={remove.error} title="The user was not deleted" />}
    </Panel>
  );
}

const KIND_TEXT: Record<RoomKind, { title: string; one: string }> = { chatgroups: { title: 'Groups', one: 'group' }, chatrooms: { title: 'Chat rooms', one: 'chat room' } };

function Rooms({ kind }: { kind: RoomKind }) {
  const { api } = useImApp();
  const text = KIND_TEXT[kind];
  const [form, setForm] = useState({ name: '', description: '', owner: '', members: '', isPublic: true });
  const [lookup, setLookup] = useState('');
  const [room, setRoom] = useState<RoomView | undefined>(undefined);
  const [member, setMember] = useState('');
  const [done, setDone] = useState<string | undefined>(undefined);
  const create = useSubmit(() =>
    api.createRoom(kind, { name: form.name.trim(), description: form.description.trim(), public: form.isPublic, owner: form.owner.trim(), members: splitNames(form.members) }),
  );
  const find = useSubmit((id: string) => api.getRoom(kind, id));
  const change = useSubmit(async (action: 'add' | 'remove' | 'delete', id: string, username: string) => {
    if (action === 'delete') return api.deleteRoom(kind, id);
    return action === 'add' ? api.addMember(kind, id, username) : api.removeMember(kind, id, username);
  });

  const show = async (id: string) => {
    setRoom(await find.run(id));
  };
  const onCreate = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setDone(undefined);
    const id = await create.run();
    if (!id) return;
    setDone(`${text.one[0]?.toUpperCase()}${text.one.slice(1)} ${form.name.trim()} created with id ${id}.`);
    setForm({ name: '', description: '', owner: '', members: '', isPublic: true });
    setLookup(id);
    await show(id);
  };
  const act = async (action: 'add' | 'remove' | 'delete', username = '') => {
    if (!room) return;
    if (!(await change.run(action, room.id, username))) return;
    if (action === 'delete') {
      setDone(`${text.one} ${room.id} deleted.`);
      setRoom(undefined);
    } else {
      setMember('');
      await show(room.id);
    }
  };

  return (
    <Panel title={text.title}>
      <form onSubmit={onCreate} className="form-grid">
        <TextField label={`${text.title} name`} required maxLength={128} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        <TextField label={`${text.title} description`} maxLength={512} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} />
        <TextField label={`${text.title} owner`} required value={form.owner} onChange={(e) => setForm({ ...form, owner: e.target.value })} hint="A username of this app" />
        <TextField label={`${text.title} members`} value={form.members} onChange={(e) => setForm({ ...form, members: e.target.value })} hint="Usernames, comma-separated" />
        {kind === 'chatgroups' && (
          <label className="check">
            <input type="checkbox" checked={form.isPublic} onChange={(e) => setForm({ ...form, isPublic: e.target.checked })} />
            Public group
          </label>
        )}
        <div className="span-all actions">
          <button type="submit" className="primary" disabled={create.busy}>
            Create {text.one}
          </button>
        </div>
      </form>
      {create.error && <ErrorMessage error={create.error} title={`The ${text.one} was not created`} />}
      {done && <Success>{done}</Success>}
      <form
        className="form-inline"
        onSubmit={(e) => {
          e.preventDefault();
          void show(lookup.trim());
        }}
      >
        <TextField label={`Find a ${text.one} by id`} required inputMode="numeric" value={lookup} onChange={(e) => setLookup(e.target.value)} />
        <button type="submit" disabled={find.busy}>
          Find {text.one}
        </button>
      </form>
      {find.error && <ErrorMessage error={find.error} title={`Could not read the ${text.one}`} />}
      {room && (
        <div className="room" data-testid={`${kind}-found`}>
          <p>
            <strong>{room.name}</strong> (id {room.id}) · owner {room.owner} · {room.affiliations_count} of {room.maxusers} members
            {room.description && <> · {room.description}</>}
          </p>
          <ul className="member-list">
            {room.affiliations.map((a) => {
              const name = 'owner' in a ? a.owner : a.member;
              return (
                <li key={name}>
                  {name} {'owner' in a ? <span className="badge">owner</span> : (
                    <button type="button" className="small" disabled={change.busy} onClick={() => void act('remove', name)}>
                      Remove {name}
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
          <form
            className="form-inline"
            onSubmit={(e) => {
              e.preventDefault();
              void act('add', member.trim());
            }}
          >
            <TextField label={`Add a member to ${room.name}`} required value={member} onChange={(e) => setMember(e.target.value)} />
            <button type="submit" disabled={change.busy}>
              Add member
            </button>
            <button type="button" disabled={change.busy} onClick={() => void act('delete')}>
              Delete {text.one}
            </button>
          </form>
        </div>
      )}
      {change.error && <ErrorMessage error={change.error} title="That did not work" />}
    </Panel>
  );
}
