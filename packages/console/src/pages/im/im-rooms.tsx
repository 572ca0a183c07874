/**
 * The open app's groups or chat rooms: create one, the list (newest first, a page at a time,
 * searched by a part of the name or the id), and the open one (room-detail.tsx).
 */
import { useState, type FormEvent } from 'react';
import type { RoomKind } from '../../api/im.js';
import { ErrorMessage, Success } from '../../components/feedback.js';
import { TextField } from '../../components/field.js';
import { Panel } from '../../components/page.js';
import { Truncated } from '../../components/truncated.js';
import { useSubmit } from '../../hooks.js';
import { useImApp } from './app-gate.js';
import { ListFrame, PAGE_SIZE, SearchForm, usePagedList } from './paged-list.js';
import { KIND_TEXT, RoomDetail } from './room-detail.js';

const splitNames = (text: string) => text.split(/[,\s]+/).map((n) => n.trim()).filter((n) => n !== '');

export function Rooms({ kind }: { kind: RoomKind }) {
  const { api } = useImApp();
  const text = KIND_TEXT[kind];
  const list = usePagedList((q, cursor, signal) => api.listRooms(kind, q, cursor, PAGE_SIZE, signal), [api, kind]);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const changed = (message: string, openId?: string) => {
    setDone(message);
    setOpen(openId);
    list.reload();
  };
  return (
    <Panel title={text.title} id={kind}>
      <SearchForm list={list} what={text.title.toLowerCase()} hint="A part of the name, or the id" />
      <ListFrame list={list} what={text.title.toLowerCase()} empty={{ title: `No ${text.title.toLowerCase()} yet`, hint: `Create one above.` }}>
        {list.items && list.items.length > 0 && (
          <div className="table-scroll">
            <table aria-label={text.title}>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">ID</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Members</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.items.map((room) => (
                  <tr key={room.id} className={open === room.id ? 'selected' : undefined}>
                    <td>
                      <Truncated value={room.name} chars={32} />
                    </td>
                    <td>
                      <code className="nowrap">{room.id}</code>
                    </td>
                    <td>
                      <Truncated value={room.owner} chars={24} />
                    </td>
                    <td>{room.members}</td>
                    <td>
                      <button type="button" className="small" aria-pressed={open === room.id} onClick={() => setOpen(open === room.id ? undefined : room.id)}>
                        {open === room.id ? 'Hide details' : 'Show details'}
                        <span className="visually-hidden"> {`of ${text.one} ${room.name}`}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListFrame>
      {done && <Success>{done}</Success>}
      {open && <RoomDetail key={open} kind={kind} id={open} onChanged={(message) => changed(message, open)} onDeleted={(message) => changed(message)} />}
      <h3>{`Create a ${text.one}`}</h3>
      <CreateRoom kind={kind} onCreated={(name, id) => changed(`${text.One} ${name} created with id ${id}.`, id)} />
    </Panel>
  );
}

function CreateRoom({ kind, onCreated }: { kind: RoomKind; onCreated(name: string, id: string): void }) {
  const { api } = useImApp();
  const text = KIND_TEXT[kind];
  const empty = { name: '', description: '', owner: '', members: '', isPublic: true };
  const [form, setForm] = useState(empty);
  const create = useSubmit(() =>
    api.createRoom(kind, { name: form.name.trim(), description: form.description.trim(), public: form.isPublic, owner: form.owner.trim(), members: splitNames(form.members) }),
  );
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const id = await create.run();
    if (!id) return;
    setForm(empty);
    onCreated(form.name.trim(), id);
  };
  return (
    <>
      <form onSubmit={onSubmit} className="form-grid" aria-label={`Create a ${text.one}`}>
        <TextField label={`${text.One} name`} required maxLength={128} value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        <TextField label="Description" maxLength={512} value={form.description} onChange={(e) => setForm({ ...form, description: e.target.value })} hint="Optional" />
        <TextField label="Owner" required value={form.owner} onChange={(e) => setForm({ ...form, owner: e.target.value })} hint="A username of this app" />
        <TextField label="Members" value={form.members} onChange={(e) => setForm({ ...form, members: e.target.value })} hint="Usernames, comma-separated" />
        {kind === 'chatgroups' && (
          <label className="check">
            <input type="checkbox" checked={form.isPublic} onChange={(e) => setForm({ ...form, isPublic: e.target.checked })} />
            Public group (anyone can find it)
          </label>
        )}
        <div className="span-all actions">
          <button type="submit" className="primary" disabled={create.busy}>
            Create {text.one}
          </button>
        </div>
      </form>
      {create.error && <ErrorMessage error={create.error} title={`The ${text.one} was not created`} />}
    </>
  );
}
