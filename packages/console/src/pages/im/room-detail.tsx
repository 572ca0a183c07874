/**
 * One group or chat room, opened from its list: what it is, its edit (name, description, maxusers
 * and, for a group, public), its members (add, remove; the owner stays) and its deletion after a
 * confirmation.
 */
import { useState, type FormEvent } from 'react';
import type { RoomKind, RoomView } from '../../api/im.js';
import { ConfirmDialog, ErrorMessage, Loading } from '../../components/feedback.js';
import { TextField } from '../../components/field.js';
import { useResource, useSubmit } from '../../hooks.js';
import { useImApp } from './app-gate.js';

/** How each kind is named: the panel, one of them (in a sentence and at its start). */
export const KIND_TEXT: Record<RoomKind, { title: string; one: string; One: string }> = {
  chatgroups: { title: 'Groups', one: 'group', One: 'Group' },
  chatrooms: { title: 'Chat rooms', one: 'chat room', One: 'Chat room' },
};

export function RoomDetail({ kind, id, onChanged, onDeleted }: { kind: RoomKind; id: string; onChanged(message: string): void; onDeleted(message: string): void }) {
  const { api } = useImApp();
  const text = KIND_TEXT[kind];
  const room = useResource(() => api.getRoom(kind, id), [api, kind, id]);
  const [confirm, setConfirm] = useState(false);
  const [member, setMember] = useState('');
  const change = useSubmit(async (action: 'add' | 'remove' | 'delete', username: string) => {
    if (action === 'delete') return api.deleteRoom(kind, id);
    return action === 'add' ? api.addMember(kind, id, username) : api.removeMember(kind, id, username);
  });
  const act = async (action: 'add' | 'remove' | 'delete', username = '') => {
    if (!(await change.run(action, username))) return;
    if (action === 'delete') return onDeleted(`${text.One} ${room.data?.name ?? id} deleted.`);
    setMember('');
    room.reload();
    onChanged(action === 'add' ? `${username} added to ${room.data?.name ?? id}.` : `${username} removed from ${room.data?.name ?? id}.`);
  };

  if (!room.data) {
    return room.error ? <ErrorMessage error={room.error} title={`Could not read the ${text.one}`} /> : <Loading what={`the ${text.one}`} />;
  }
  const data = room.data;
  return (
    <section className="room" aria-label={`${text.One} ${data.name}`} data-testid={`${kind}-open`}>
      <h3>{`${text.One} ${data.name}`}</h3>
      <p className="muted small-text">
        id <code>{data.id}</code> · owner {data.owner} · {data.affiliations_count} of {data.maxusers} members
        {kind === 'chatgroups' && <> · {data.public ? 'public' : 'private'}</>}
      </p>
      <EditRoom
        kind={kind}
        room={data}
        onSaved={(name) => {
          room.reload();
          onChanged(`${text.One} ${name} saved.`);
        }}
      />
      <h3>Members</h3>
      <ul className="member-list">
        {data.affiliations.map((a) => {
          const name = 'owner' in a ? a.owner : a.member;
          return (
            <li key={name}>
              {name}{' '}
              {'owner' in a ? (
                <span className="badge">owner</span>
              ) : (
                <button type="button" className="small" disabled={change.busy} onClick={() => void act('remove', name)}>
                  Remove<span className="visually-hidden"> {name}</span>
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
        <TextField label="Add a member" required value={member} onChange={(e) => setMember(e.target.value)} hint="A username of this app" />
        <button type="submit" disabled={change.busy}>
          Add member
        </button>
      </form>
      <div className="actions section-end">
        <button type="button" aria-expanded={confirm} onClick={() => setConfirm(true)}>
          Delete {text.one}…
        </button>
      </div>
      {confirm && (
        <ConfirmDialog label={`Delete the ${text.one} ${data.name}`} yes="Yes, delete" busy={change.busy} onYes={() => void act('delete')} onCancel={() => setConfirm(false)}>
          Delete {data.name} with its members and messages? This cannot be undone.
        </ConfirmDialog>
      )}
      {change.error && <ErrorMessage error={change.error} title="That did not work" />}
    </section>
  );
}

/** Name, description, maxusers and (groups) public; only the fields that changed are sent. */
function EditRoom({ kind, room, onSaved }: { kind: RoomKind; room: RoomView; onSaved(name: string): void }) {
  const { api } = useImApp();
  const [form, setForm] = useState({ name: room.name, description: room.description, maxusers: String(room.maxusers), isPublic: room.public ?? true });
  const save = useSubmit(() => {
    const maxusers = Number(form.maxusers);
    return api.updateRoom(kind, room.id, {
      ...(form.name.trim() !== room.name ? { name: form.name.trim() } : {}),
      ...(form.description.trim() !== room.description ? { description: form.description.trim() } : {}),
      ...(maxusers !== room.maxusers ? { maxusers } : {}),
      ...(kind === 'chatgroups' && form.isPublic !== room.public ? { public: form.isPublic } : {}),
    });
  });
  const unchanged =
    form.name.trim() === room.name && form.description.trim() === room.description && Number(form.maxusers) === room.maxusers && (kind !== 'chatgroups' || form.isPublic === room.public);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (await save.run()) onSaved(form.name.trim());
  };
  return (
    <form className="form-grid" aria-label={`Edit ${room.name}`} onSubmit={onSubmit}>
      <TextField label="Name" required maxLength={128} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
      <TextField label="Description" maxLength={512} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} />
      <TextField
        label="Members at most"
        type="number"
        required
        min={room.affiliations_count}
        max={100_000}
        value={form.maxusers}
        onChange={(e) => setForm({ ...form, maxusers: e.target.value })}
        hint={`The owner included; not below the ${room.affiliations_count} members now`}
      />
      {kind === 'chatgroups' && (
        <label className="check">
          <input type="checkbox" checked={form.isPublic} onChange={(e) => setForm({ ...form, isPublic: e.target.checked })} />
          Public group (anyone can find it)
        </label>
      )}
      <div className="span-all actions">
        <button type="submit" className="primary" disabled={save.busy || unchanged}>
          Save changes
        </button>
      </div>
      {save.error && (
        <div className="span-all">
          <ErrorMessage error={save.error} title="The changes were not saved" />
        </div>
      )}
    </form>
  );
}
