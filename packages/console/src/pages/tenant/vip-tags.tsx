import { useEffect, useState, type FormEvent } from 'react';
import { ErrorMessage, Loading, Success } from '../../components/feedback.js';
import { SubmitButton, TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { useConsole, useTenantId } from '../../context.js';
import { useResource, useSubmit } from '../../hooks.js';

/** Splits "vip, gold  platinum" into unique, non-empty tags in the order typed. */
export function parseTags(text: string): string[] {
  return [...new Set(text.split(/[,\s]+/).map((t) => t.trim()).filter((t) => t !== ''))];
}

/** Tenant admin: visitor tags that put a conversation ahead of others in its queue. */
export function VipTagsPage() {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const tenant = useResource((signal) => api.getTenant(tenantId, signal), [api, tenantId]);
  const [text, setText] = useState('');
  const [saved, setSaved] = useState<string[] | undefined>(undefined);
  const submit = useSubmit((tags: string[]) => api.setVipTags(tenantId, tags));

  // Fill the field once the current tags arrive; later reloads leave the user's edits alone.
  const loadedTags = tenant.data?.vipTags;
  useEffect(() => {
    if (loadedTags) setText((current) => (current === '' ? loadedTags.join(', ') : current));
  }, [loadedTags]);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(undefined);
    const updated = await submit.run(parseTags(text));
    if (!updated) return;
    setSaved(updated.vipTags);
    setText(updated.vipTags.join(', '));
    tenant.reload();
  };

  return (
    <Page title="VIP tags" intro="A customer message whose ext.visitor.tags contains one of these tags is queued ahead of non-VIP conversations.">
      <Panel title="Tags that mark a VIP customer">
        {tenant.error && <ErrorMessage error={tenant.error} title="Could not load the tenant settings" />}
        {tenant.state === 'loading' && !tenant.data && <Loading what="settings" />}
        {tenant.data && (
          <form onSubmit={onSubmit} className="form-inline">
            <TextField
              label="VIP tags"
              name="vip_tags"
              value={text}
              onChange={(e) => setText(e.target.value)}
              hint="Separate tags with commas or spaces; each at most 64 characters. Leave empty for no VIP priority."
            />
            <SubmitButton busy={submit.busy} busyLabel="Saving…">
              Save VIP tags
            </SubmitButton>
          </form>
        )}
        {submit.error && <ErrorMessage error={submit.error} title="The VIP tags were not saved" />}
        {saved && (
          <Success>{saved.length ? <>Saved. VIP tags: {saved.map((t) => <span key={t} className="badge badge-vip">{t}</span>)}</> : 'Saved. No tag gives VIP priority now.'}</Success>
        )}
      </Panel>
    </Page>
  );
}
