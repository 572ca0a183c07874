/**
 * Canned replies: the tenant's (written by its admins, offered to every agent) and each agent's
 * own. Create, edit and delete here; in the reply box, `/` and the shortcut insert one
 * (canned-menu.tsx).
 */
import { useState, type FormEvent } from 'react';
import type { CannedReplyView, CannedScope } from '@parley/protocol';
import { ConfirmDialog, ErrorMessage, ListStates, Success } from '../../components/feedback.js';
import { SelectField, SubmitButton, TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { useConsole, useTenantId } from '../../context.js';
import { useCreateForm, useResource, useSubmit } from '../../hooks.js';

const SCOPE_TEXT: Record<CannedScope, string> = { tenant: 'Whole team', personal: 'Only me' };
const SHORTCUT_PATTERN = '[\\p{L}\\p{N}_\\-]{1,32}';
const SHORTCUT_HINT = 'Letters, digits, _ and -; typed after / in the reply box';

function ReplyText({ id, value, onChange }: { id: string; value: string; onChange(value: string): void }) {
  return (
    <div className="field span-all">
      <label htmlFor={id}>Text</label>
      <textarea id={id} rows={3} required maxLength={4000} value={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/** One canned reply: its text, and (when the user may change it) Edit and Delete. */
function CannedItem({ reply, mayChange, onChanged }: { reply: CannedReplyView; mayChange: boolean; onChanged(): void }) {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const [editing, setEditing] = useState<{ shortcut: string; text: string } | undefined>(undefined);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const save = useSubmit((patch: { shortcut: string; text: string }) => api.updateCannedReply(tenantId, reply.id, patch));
  const remove = useSubmit(() => api.deleteCannedReply(tenantId, reply.id));
  const onSave = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (editing && (await save.run({ shortcut: editing.shortcut.trim(), text: editing.text }))) {
      setEditing(undefined);
      onChanged();
    }
  };
  const onDelete = async () => {
    if (await remove.run()) onChanged();
    setConfirmDelete(false);
  };

  return (
    <li className="canned-item" aria-label={`/${reply.shortcut}`}>
      {editing ? (
        <form className="form-grid" onSubmit={(e) => void onSave(e)} aria-label={`Edit /${reply.shortcut}`}>
          <TextField label="Shortcut" required pattern={SHORTCUT_PATTERN} maxLength={32} value={editing.shortcut} onChange={(e) => setEditing({ ...editing, shortcut: e.target.value })} hint={SHORTCUT_HINT} />
          <ReplyText id={`canned-edit-${reply.id}`} value={editing.text} onChange={(text) => setEditing({ ...editing, text })} />
          <div className="actions span-all">
            <SubmitButton busy={save.busy} busyLabel="Saving…">
              Save
            </SubmitButton>
            <button type="button" onClick={() => setEditing(undefined)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <div className="canned-head">
            <code className="canned-shortcut">/{reply.shortcut}</code>
            <span className={`badge ${reply.scope === 'tenant' ? 'badge-flagship' : ''}`}>{SCOPE_TEXT[reply.scope]}</span>
            {mayChange && (
              <span className="actions push-end">
                <button type="button" className="small" onClick={() => setEditing({ shortcut: reply.shortcut, text: reply.text })}>
                  Edit
                </button>
                <button type="button" className="small" disabled={confirmDelete} onClick={() => setConfirmDelete(true)}>
                  Delete
                </button>
              </span>
            )}
          </div>
          <p className="canned-text">{reply.text}</p>
        </>
      )}
      {confirmDelete && (
        <ConfirmDialog label={`Delete /${reply.shortcut}`} yes="Delete it" busy={remove.busy} onYes={() => void onDelete()} onCancel={() => setConfirmDelete(false)}>
          {`Delete the canned reply /${reply.shortcut}?${reply.scope === 'tenant' ? ' Nobody in the team is offered it any more.' : ''}`}
        </ConfirmDialog>
      )}
      {save.error && <ErrorMessage error={save.error} title="The canned reply was not saved" />}
      {remove.error && <ErrorMessage error={remove.error} title="The canned reply was not deleted" />}
    </li>
  );
}

export function CannedRepliesPage() {
  const { api, session } = useConsole();
  const tenantId = useTenantId();
  const isAdmin = session.user.role === 'admin';
  const replies = useResource((signal) => api.listCannedReplies(tenantId, signal), [api, tenantId]);
  const empty = { shortcut: '', text: '', scope: (isAdmin ? 'tenant' : 'personal') as CannedScope };
  const { form, setForm, created, firstField, submit, onSubmit } = useCreateForm(
    empty,
    (f: typeof empty) => api.createCannedReply(tenantId, { shortcut: f.shortcut.trim(), text: f.text, scope: f.scope }),
    () => replies.reload(),
  );
  const groups: Array<[CannedScope, string]> = [
    ['tenant', "The team's canned replies"],
    ['personal', 'My own canned replies'],
  ];

  return (
    <Page
      title="Canned replies"
      intro={`Ready answers for the reply box: type / and the shortcut, then Enter. ${isAdmin ? "The team's replies are offered to every agent; your own only to you." : "Your own are offered only to you; your administrators write the team's."}`}
    >
      <Panel title="New canned reply" id="new-canned-reply">
        <form onSubmit={onSubmit} className="form-grid" aria-label="New canned reply">
          <TextField label="Shortcut" required pattern={SHORTCUT_PATTERN} maxLength={32} value={form.shortcut} onChange={(e) => setForm({ ...form, shortcut: e.target.value })} hint={SHORTCUT_HINT} ref={firstField} />
          {isAdmin ? (
            <SelectField label="Offered to" value={form.scope} onChange={(e) => setForm({ ...form, scope: e.target.value as CannedScope })}>
              <option value="tenant">Whole team</option>
              <option value="personal">Only me</option>
            </SelectField>
          ) : (
            <p className="muted small-text">Offered to you only.</p>
          )}
          <ReplyText id="canned-new-text" value={form.text} onChange={(text) => setForm({ ...form, text })} />
          <div className="actions span-all">
            <SubmitButton busy={submit.busy} busyLabel="Saving…">
              Save canned reply
            </SubmitButton>
          </div>
        </form>
        {submit.error && <ErrorMessage error={submit.error} title="The canned reply was not saved" />}
        {created && (
          <Success>
            <code>/{created.shortcut}</code> saved.
          </Success>
        )}
      </Panel>
      {groups.map(([scope, title]) => {
        const items = replies.data?.filter((r) => r.scope === scope);
        return (
          <Panel key={scope} title={title} id={`canned-${scope}`}>
            <ListStates
              resource={replies}
              what="canned replies"
              errorTitle="Could not load the canned replies"
              count={items?.length}
              empty={{ title: 'None yet', hint: scope === 'tenant' && !isAdmin ? 'Your administrators add them.' : 'Add one above.' }}
            />
            {items && items.length > 0 && (
              <ul className="canned-list">
                {items.map((r) => (
                  <CannedItem key={r.id} reply={r} mayChange={scope === 'personal' || isAdmin} onChanged={replies.reload} />
                ))}
              </ul>
            )}
          </Panel>
        );
      })}
    </Page>
  );
}
