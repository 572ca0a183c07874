import { useEffect, useState, type FormEvent } from 'react';
import type { ConversationState, ConversationView } from '@parley/protocol';
import type { ConversationFilters } from '../../api/client.js';
import { EmptyState, ErrorMessage, Loading } from '../../components/feedback.js';
import { SelectField, SubmitButton, TextField } from '../../components/field.js';
import { Page, Panel } from '../../components/page.js';
import { useConsole, useTenantId } from '../../context.js';
import { useResource, useSubmit } from '../../hooks.js';
import { ConversationPanel } from './conversation.js';
import { ConversationItem } from './conversation-list.js';

/** Conversations per page (the API's default page size). */
const PAGE_SIZE = 20;

interface FilterForm {
  state: ConversationState | '';
  queueId: string;
  agentId: string;
  customer: string;
  q: string;
  /** `datetime-local` values, in the browser's time zone. */
  from: string;
  to: string;
}

const EMPTY: FilterForm = { state: 'closed', queueId: '', agentId: '', customer: '', q: '', from: '', to: '' };

/** A `datetime-local` value as epoch ms; `to` covers its whole minute. */
function minuteBound(value: string, end: boolean): number | undefined {
  if (value === '') return undefined;
  const ms = new Date(value).getTime();
  if (Number.isNaN(ms)) return undefined;
  return end ? ms + 59_999 : ms;
}

function toQuery(form: FilterForm): ConversationFilters {
  return {
    state: form.state === '' ? undefined : form.state,
    queue_id: form.queueId || undefined,
    agent_id: form.agentId === '' ? undefined : Number(form.agentId),
    customer: form.customer.trim() || undefined,
    q: form.q.trim() || undefined,
    from: minuteBound(form.from, false),
    to: minuteBound(form.to, true),
    limit: PAGE_SIZE,
  };
}

/** `?customer=…&open=…` of a link to this page: that customer's conversations in any state, one of them open. */
function linkedSearch(): { form: FilterForm; open: number | undefined } | undefined {
  const params = new URLSearchParams(window.location.search);
  const customer = params.get('customer');
  if (!customer) return undefined;
  const open = Number(params.get('open'));
  return { form: { ...EMPTY, state: '', customer }, open: Number.isSafeInteger(open) && open > 0 ? open : undefined };
}

/**
 * Conversation history: closed conversations (or any state) filtered by skill group, agent,
 * customer id and time, searched by message text, read a page at a time with the API's cursor;
 * one opens read-only beside the list.
 */
export function HistoryPage() {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const options = useResource((signal) => Promise.all([api.listSkillGroups(tenantId, signal), api.listAgents(tenantId, signal)]), [api, tenantId]);
  const [linked] = useState(linkedSearch);
  const [form, setForm] = useState<FilterForm>(linked?.form ?? EMPTY);
  const [results, setResults] = useState<{ query: ConversationFilters; entities: ConversationView[]; cursor: string | null } | undefined>(undefined);
  const [openId, setOpenId] = useState<number | undefined>(linked?.open);
  const search = useSubmit(async (query: ConversationFilters, cursor?: string) => {
    const page = await api.conversationPage(tenantId, { ...query, cursor });
    setResults((previous) => ({ query, entities: cursor && previous ? [...previous.entities, ...page.entities] : page.entities, cursor: page.cursor }));
    return page;
  });
  // A link from the workspace's profile (a customer's earlier conversations) searches at once.
  useEffect(() => {
    if (linked) void search.run(toQuery(linked.form));
  }, [linked]);
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setOpenId(undefined);
    void search.run(toQuery(form));
  };
  const set = (key: keyof FilterForm) => (event: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: event.target.value }));
  const [groups, agents] = options.data ?? [[], []];

  return (
    <Page title="Conversation history">
      <div className={`inbox inbox-history${openId === undefined ? '' : ' has-open'}`}>
        <div className="inbox-filters">
          <Panel title="Find conversations" id="history-filters">
            <form className="filters" onSubmit={onSubmit} aria-label="Find conversations">
              <SelectField label="State" value={form.state} onChange={set('state')}>
                <option value="closed">Closed</option>
                <option value="">Any state</option>
                <option value="waiting">Waiting</option>
                <option value="processing">In progress</option>
              </SelectField>
              <SelectField label="Skill group" value={form.queueId} onChange={set('queueId')}>
                <option value="">Any skill group</option>
                {groups.map((g) => (
                  <option key={g.queue_id} value={g.queue_id}>
                    {g.queue_name}
                  </option>
                ))}
              </SelectField>
              <SelectField label="Agent" value={form.agentId} onChange={set('agentId')}>
                <option value="">Any agent</option>
                {agents.map((a) => (
                  <option key={a.id} value={String(a.id)}>
                    {a.nickname}
                  </option>
                ))}
              </SelectField>
              <TextField label="Customer ID" value={form.customer} onChange={set('customer')} maxLength={256} />
              <TextField label="Message text" value={form.q} onChange={set('q')} maxLength={200} hint="Words in a text message, any case" />
              <TextField label="Active from" type="datetime-local" value={form.from} onChange={set('from')} />
              <TextField label="Active until" type="datetime-local" value={form.to} onChange={set('to')} hint="By the last activity, in your time zone" />
              <div className="actions">
                <SubmitButton busy={search.busy} busyLabel="Searching…">
                  Search
                </SubmitButton>
                <button type="button" onClick={() => setForm(EMPTY)}>
                  Clear filters
                </button>
              </div>
            </form>
            {options.error && <ErrorMessage error={options.error} title="Could not load the skill groups and agents" />}
          </Panel>
        </div>
        <div className="inbox-column inbox-lists">
          <Panel title="Results" id="history-results">
            {search.error && <ErrorMessage error={search.error} title="The search did not work" />}
            {!results && !search.busy && <p className="muted">Choose filters and search; closed conversations are listed most recent first.</p>}
            {!results && search.busy && <Loading what="conversations" />}
            {results && results.entities.length === 0 && <EmptyState title="No conversations found">Try fewer filters or a wider time range.</EmptyState>}
            {results && results.entities.length > 0 && (
              <>
                <p className="muted small-text" role="status">
                  {results.entities.length} shown{results.cursor ? ', more to load' : ''}
                </p>
                <ul className="conversation-list" aria-label="Conversations found">
                  {results.entities.map((c) => (
                    <ConversationItem key={c.id} conversation={c} current={openId === c.id} unread={false} onOpen={setOpenId} showAgent showClosed />
                  ))}
                </ul>
              </>
            )}
            {results?.cursor && (
              <button type="button" className="load-more" disabled={search.busy} onClick={() => void search.run(results.query, results.cursor ?? undefined)}>
                {search.busy ? 'Loading…' : 'Load more'}
              </button>
            )}
          </Panel>
        </div>
        <div className="inbox-column inbox-main">
          {openId === undefined ? (
            <Panel title="Conversation" id="conversation">
              <EmptyState title="No conversation open">Pick one from the results to read it.</EmptyState>
            </Panel>
          ) : (
            <>
              <button type="button" className="inbox-back" onClick={() => setOpenId(undefined)}>
                ← Back to the results
              </button>
              <ConversationPanel key={openId} conversationId={openId} version={0} onClosed={() => setOpenId(undefined)} readOnly />
            </>
          )}
        </div>
      </div>
    </Page>
  );
}
