import { useState } from 'react';
import type { ConversationView } from '@parley/protocol';
import { EmptyState, ErrorMessage, Loading } from '../../components/feedback.js';
import { Page, Panel } from '../../components/page.js';
import { useConsole, useTenantId } from '../../context.js';
import { useResource } from '../../hooks.js';
import { ConversationPanel } from './conversation.js';
import { ConversationItem } from './conversation-list.js';
import { ConversationLabels, ConversationNotes } from './conversation-tools.js';
import { CustomerProfile } from './customer-profile.js';
import { useEventStream, useNow } from './events.js';
import { countsQuery, EMPTY_FORM, InboxFilterFields, listQuery, SearchBox, VIEW_TITLES, ViewTabs, type InboxForm, type InboxView } from './inbox-filters.js';
import { NotifyControls, useNewConversationAlerts } from './notify.js';
import { useReadMarks } from './read-marks.js';

const STREAM_TEXT = { connecting: 'Connecting to live updates…', live: 'Live', reconnecting: 'Reconnecting to live updates…' } as const;

const EMPTY_TEXT: Record<InboxView, [string, string]> = {
  waiting: ['Nobody is waiting', 'New conversations appear here by themselves.'],
  mine: ['No conversations here', 'Accept one from the Waiting view.'],
  team: ['No conversations here', 'Conversations your colleagues hold appear here.'],
};

/**
 * The inbox of an agent or a tenant admin, live: the views (Waiting, Mine, Team) with their counts,
 * search, filters and sort; the open conversation; and the customer's profile with the
 * conversation's labels and private notes, in three columns that fill the window (one column on a
 * phone). The status switch is in the header (my-status.tsx).
 */
export function WorkspacePage() {
  const { api, session } = useConsole();
  const tenantId = useTenantId();
  const stream = useEventStream(api.eventsUrl(tenantId));
  const alerts = useNewConversationAlerts(stream.arrival);
  const now = useNow();
  const marks = useReadMarks(tenantId, session.user.id);
  const [view, setView] = useState<InboxView>('waiting');
  const [form, setForm] = useState<InboxForm>(EMPTY_FORM);
  const query = listQuery(view, form);
  const shared = countsQuery(form);
  const list = useResource((signal) => api.conversationPage(tenantId, query, signal), [api, tenantId, JSON.stringify(query), stream.version]);
  const counts = useResource((signal) => api.conversationCounts(tenantId, shared, signal), [api, tenantId, JSON.stringify(shared), stream.version]);
  const groups = useResource((signal) => api.listSkillGroups(tenantId, signal), [api, tenantId]);
  const [openId, setOpenId] = useState<number | undefined>(undefined);
  const [opened, setOpened] = useState<ConversationView | undefined>(undefined);

  const open = (id: number | undefined) => {
    setOpenId(id);
    setOpened(undefined);
  };
  const onLoaded = (conversation: ConversationView) => {
    setOpened(conversation);
    marks.markRead(conversation);
  };

  const conversations = list.data?.entities;
  const waitingView = view === 'waiting';
  const [emptyTitle, emptyHint] = EMPTY_TEXT[view];

  return (
    <Page title="Workspace">
      <div className={`inbox${openId === undefined ? '' : ' has-open'}`}>
        <div className="inbox-column inbox-lists">
          <div className="inbox-top">
            <p className="muted small-text stream-state" role="status">
              {STREAM_TEXT[stream.state]}
            </p>
            <NotifyControls alerts={alerts} />
          </div>
          <ViewTabs view={view} counts={counts.data} onView={setView} />
          <SearchBox value={form.q} onSearch={(q) => setForm((f) => ({ ...f, q }))} />
          <InboxFilterFields view={view} form={form} groups={groups.data ?? []} onChange={setForm} />
          <Panel title={VIEW_TITLES[view]} id="inbox-view">
            {list.error && <ErrorMessage error={list.error} title="Could not load conversations" />}
            {counts.error && <ErrorMessage error={counts.error} title="Could not count conversations" />}
            {list.state === 'loading' && !list.data && <Loading what="conversations" />}
            {conversations && conversations.length === 0 && <EmptyState title={form.q || activeQuery(form) ? 'Nothing matches' : emptyTitle}>{form.q || activeQuery(form) ? 'Try fewer filters or other words.' : emptyHint}</EmptyState>}
            {conversations && conversations.length > 0 && (
              <ol className="conversation-list" aria-label={waitingView && !form.sort ? 'Waiting conversations, VIP first' : `${VIEW_TITLES[view]} list`}>
                {conversations.map((c) => (
                  <ConversationItem
                    key={c.id}
                    conversation={c}
                    current={openId === c.id}
                    unread={openId !== c.id && marks.isUnread(c)}
                    onOpen={open}
                    waitingSince={c.state === 'waiting' ? now : undefined}
                    showAgent={view === 'team'}
                    showLabels
                  />
                ))}
              </ol>
            )}
            {list.data?.cursor && <p className="muted small-text">The first 100 are shown: narrow the list with the search or the filters.</p>}
          </Panel>
        </div>
        <div className="inbox-column inbox-main">
          {openId === undefined ? (
            <Panel title="Conversation" id="conversation">
              <EmptyState title="No conversation open">Pick one from the list.</EmptyState>
            </Panel>
          ) : (
            <>
              <button type="button" className="inbox-back" onClick={() => open(undefined)}>
                ← Back to the lists
              </button>
              <ConversationPanel key={openId} conversationId={openId} version={stream.version} onClosed={() => open(undefined)} onLoaded={onLoaded} />
            </>
          )}
        </div>
        <div className="inbox-column inbox-profile">
          <CustomerProfile conversation={opened} />
          {opened && openId === opened.id && (
            <>
              <ConversationLabels key={`labels-${opened.id}`} conversation={opened} onChanged={list.reload} />
              <ConversationNotes key={`notes-${opened.id}`} conversationId={opened.id} />
            </>
          )}
        </div>
      </div>
    </Page>
  );
}

const activeQuery = (form: InboxForm) => form.queueId !== '' || form.label.trim() !== '' || form.vip !== '' || form.waitingMin !== '' || form.status !== 'open';
