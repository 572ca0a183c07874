/**
 * The open conversation's labels (add and remove; the list shows them and filters by them) and its
 * private notes (list and add; they stay in Parley and are never sent to the customer).
 */
import { useId, useState, type FormEvent } from 'react';
import type { ConversationView } from '@parley/protocol';
import { EmptyState, ErrorMessage, Loading } from '../../components/feedback.js';
import { Panel } from '../../components/page.js';
import { useConsole, useTenantId } from '../../context.js';
import { useResource, useSubmit } from '../../hooks.js';
import { formatTime } from '../../format.js';

const MAX_LABELS = 20;

export function ConversationLabels({ conversation, onChanged }: { conversation: ConversationView; onChanged(): void }) {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const id = useId();
  const [labels, setLabels] = useState(conversation.labels);
  const [text, setText] = useState('');
  const save = useSubmit((next: string[]) => api.setLabels(tenantId, conversation.id, next));
  const apply = async (next: string[]) => {
    const result = await save.run(next);
    if (!result) return false;
    setLabels(result.labels);
    onChanged();
    return true;
  };
  const onAdd = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const label = text.trim();
    if (label === '' || labels.includes(label)) return setText('');
    if (await apply([...labels, label])) setText('');
  };

  return (
    <Panel title="Labels" id="conversation-labels">
      {labels.length === 0 ? (
        <p className="muted small-text">No labels yet.</p>
      ) : (
        <ul className="label-list" aria-label="Labels of this conversation">
          {labels.map((l) => (
            <li key={l} className="badge badge-label">
              {l}
              <button type="button" className="label-remove" aria-label={`Remove label ${l}`} disabled={save.busy} onClick={() => void apply(labels.filter((x) => x !== l))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {labels.length < MAX_LABELS && (
        <form className="label-add" onSubmit={(e) => void onAdd(e)}>
          <label htmlFor={`${id}-label`} className="visually-hidden">
            New label
          </label>
          <input id={`${id}-label`} value={text} maxLength={64} placeholder="Add a label" onChange={(e) => setText(e.target.value)} />
          <button type="submit" className="small" disabled={save.busy || text.trim() === ''}>
            Add
          </button>
        </form>
      )}
      {save.error && <ErrorMessage error={save.error} title="The labels were not saved" />}
    </Panel>
  );
}

export function ConversationNotes({ conversationId }: { conversationId: number }) {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const id = useId();
  const notes = useResource((signal) => api.notes(tenantId, conversationId, signal), [api, tenantId, conversationId]);
  const [text, setText] = useState('');
  const add = useSubmit((note: string) => api.addNote(tenantId, conversationId, note));
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (text.trim() === '') return;
    if (await add.run(text.trim())) {
      setText('');
      notes.reload();
    }
  };

  return (
    <Panel title="Private notes" id="conversation-notes">
      <p className="private-marker">Only your team sees these notes: they are never sent to the customer.</p>
      {notes.error && <ErrorMessage error={notes.error} title="Could not load the notes" />}
      {notes.state === 'loading' && !notes.data && <Loading what="the notes" />}
      {notes.data && notes.data.length === 0 && <EmptyState title="No notes yet" />}
      {notes.data && notes.data.length > 0 && (
        <ol className="note-list" aria-label="Private notes">
          {notes.data.map((n) => (
            <li key={n.id} className="note">
              <p className="note-text">{n.text}</p>
              <p className="muted small-text">
                {n.author?.nickname ?? 'A deleted user'} · {formatTime(n.createdAt)}
              </p>
            </li>
          ))}
        </ol>
      )}
      <form className="note-add" onSubmit={(e) => void onSubmit(e)}>
        <label htmlFor={`${id}-note`}>Add a private note</label>
        <textarea id={`${id}-note`} rows={2} value={text} maxLength={4000} onChange={(e) => setText(e.target.value)} />
        <button type="submit" className="small" disabled={add.busy || text.trim() === ''}>
          {add.busy ? 'Saving…' : 'Save note'}
        </button>
      </form>
      {add.error && <ErrorMessage error={add.error} title="The note was not saved" />}
    </Panel>
  );
}
