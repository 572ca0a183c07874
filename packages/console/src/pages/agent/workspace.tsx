import { useState } from 'react';
import type { ConversationView } from '@parley/protocol';
import { EmptyState, ErrorMessage, Loading } from '../../components/feedback.js';
import { Page, Panel } from '../../components/page.js';
import { useConsole, useTenantId } from '../../context.js';
import { useResource } from '../../hooks.js';
import { ConversationPanel } from './conversation.js';
import { ConversationItem } from './conversation-list.js';
import { CustomerProfile } from './customer-profile.js';
import { useEventStream, useNow } from './events.js';
import { useReadMarks } from './read-marks.js';

const STREAM_TEXT = { connecting: 'Connecting to live updates…', live: 'Live', reconnecting: 'Reconnecting to live updates…' } as const;

/**
 * The inbox of an agent or a tenant admin, live: the lists (waiting queue, my conversations and,
 * for an admin, the team's), the open conversation, and the customer's profile, in three columns
 * that fill the window (one column on a phone). The status switch is in the header (my-status.tsx).
 */
export function WorkspacePage() {
  const { api, session } = useConsole();
  const tenantId = useTenantId();
  const isAdmin = session.user.role === 'admin';
  const stream = useEventStream(api.eventsUrl(tenantId));
  const now = useNow();
  const marks = useReadMarks(tenantId, session.user.id);
  const lists = useResource(
    (signal) =>
      Promise.all([
        api.listConversations(tenantId, { state: 'waiting' }, signal),
        api.listConversations(tenantId, { state: 'processing', mine: true }, signal),
        isAdmin ? api.listConversations(tenantId, { state: 'processing' }, signal) : Promise.resolve([]),
      ]),
    [api, tenantId, isAdmin, stream.version],
  );
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

  const [waiting, mine, all] = lists.data ?? [undefined, undefined, undefined];
  const team = all?.filter((c) => c.agent?.id !== session.user.id);
  const item = (c: ConversationView, extra: { waiting?: boolean; agent?: boolean }) => (
    <ConversationItem
      key={c.id}
      conversation={c}
      current={openId === c.id}
      unread={openId !== c.id && marks.isUnread(c)}
      onOpen={open}
      waitingSince={extra.waiting ? now : undefined}
      showAgent={extra.agent === true}
    />
  );

  return (
    <Page title="Workspace">
      <div className={`inbox${openId === undefined ? '' : ' has-open'}`}>
        <div className="inbox-column inbox-lists">
          <p className="muted small-text stream-state" role="status">
            {STREAM_TEXT[stream.state]}
          </p>
          <Panel title="Waiting queue" id="waiting-queue">
            {lists.error && <ErrorMessage error={lists.error} title="Could not load conversations" />}
            {lists.state === 'loading' && !lists.data && <Loading what="the queue" />}
            {waiting && waiting.length === 0 && <EmptyState title="Nobody is waiting">New conversations appear here by themselves.</EmptyState>}
            {waiting && waiting.length > 0 && <ol className="conversation-list" aria-label="Waiting conversations, VIP first">{waiting.map((c) => item(c, { waiting: true }))}</ol>}
          </Panel>
          <Panel title="My conversations" id="my-conversations">
            {mine && mine.length === 0 && <EmptyState title="No open conversations">Accept one from the queue.</EmptyState>}
            {mine && mine.length > 0 && <ul className="conversation-list">{mine.map((c) => item(c, {}))}</ul>}
          </Panel>
          {isAdmin && (
            <Panel title="Team conversations" id="team-conversations">
              {team && team.length === 0 && <EmptyState title="No other open conversations">Conversations agents hold appear here.</EmptyState>}
              {team && team.length > 0 && <ul className="conversation-list">{team.map((c) => item(c, { agent: true }))}</ul>}
            </Panel>
          )}
        </div>
        <div className="inbox-column inbox-main">
          {openId === undefined ? (
            <Panel title="Conversation" id="conversation">
              <EmptyState title="No conversation open">Pick one from the waiting queue or from your conversations.</EmptyState>
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
        </div>
      </div>
    </Page>
  );
}
