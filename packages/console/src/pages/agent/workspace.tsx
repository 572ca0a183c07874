import { useState } from 'react';
import type { AgentStatus, ConversationView } from '@parley/protocol';
import { EmptyState, ErrorMessage, Loading } from '../../components/feedback.js';
import { Page, Panel } from '../../components/page.js';
import { STATUS_LABELS, StatusBadge } from '../../components/status.js';
import { useConsole, useTenantId } from '../../context.js';
import { useResource, useSubmit } from '../../hooks.js';
import { ConversationPanel } from './conversation.js';
import { useEventStream, useNow, waitingFor } from './events.js';

const STATUSES: AgentStatus[] = ['online', 'busy', 'offline'];

const STATUS_HELP: Record<AgentStatus, string> = {
  online: 'New conversations are assigned to you.',
  busy: 'You keep your conversations; no new ones are assigned.',
  offline: 'You are signed off from the queues.',
};

const STREAM_TEXT = { connecting: 'Connecting to live updates…', live: 'Live', reconnecting: 'Reconnecting to live updates…' } as const;

/** Agent workspace: status, the waiting queue, my conversations and the open conversation, all live. */
export function WorkspacePage() {
  const { api, session } = useConsole();
  const tenantId = useTenantId();
  const stream = useEventStream(api.eventsUrl(tenantId));
  const now = useNow();
  const me = useResource(
    async (signal) => {
      const agents = await api.listAgents(tenantId, signal);
      const self = agents.find((a) => a.id === session.user.id);
      if (!self) throw new Error('Your agent record was not found in this tenant.');
      return self;
    },
    [api, tenantId, session.user.id],
  );
  const lists = useResource(
    (signal) => Promise.all([api.listConversations(tenantId, { state: 'waiting' }, signal), api.listConversations(tenantId, { state: 'processing', mine: true }, signal)]),
    [api, tenantId, stream.version],
  );
  const [openId, setOpenId] = useState<number | undefined>(undefined);
  const submit = useSubmit((status: AgentStatus) => api.setAgentStatus(tenantId, session.user.id, status));

  const choose = async (status: AgentStatus) => {
    if (await submit.run(status)) me.reload();
  };

  const current = me.data?.status;
  const [waiting, mine] = lists.data ?? [undefined, undefined];

  const item = (c: ConversationView, showWait: boolean) => (
    <li key={c.id}>
      <button type="button" className="conversation-item" aria-current={openId === c.id ? 'true' : undefined} onClick={() => setOpenId(c.id)}>
        <span className="conversation-name">
          {c.vip && <span className="badge badge-vip">VIP</span>}
          {c.visitor.user_nickname ?? c.visitor.customer_id}
        </span>
        <span className="conversation-preview">{preview(c)}</span>
        {showWait && <span className="muted small-text">Waiting {waitingFor(now - c.createdAt)}</span>}
      </button>
    </li>
  );

  return (
    <Page title="Workspace" intro={`Signed in as ${session.user.nickname}.`}>
      <Panel title="My status">
        {me.error && <ErrorMessage error={me.error} title="Could not load your status" />}
        {me.state === 'loading' && !me.data && <Loading what="your status" />}
        {current && (
          <>
            <p aria-live="polite" className="current-status">
              You are <StatusBadge status={current} />. {STATUS_HELP[current]}
            </p>
            <div className="segmented" role="group" aria-label="Set my status">
              {STATUSES.map((s) => (
                <button key={s} type="button" aria-pressed={current === s} disabled={submit.busy} onClick={() => void choose(s)}>
                  {STATUS_LABELS[s]}
                </button>
              ))}
            </div>
          </>
        )}
        {submit.error && <ErrorMessage error={submit.error} title="Your status was not changed" />}
        <p className="muted small-text stream-state" role="status">
          {STREAM_TEXT[stream.state]}
        </p>
      </Panel>
      <div className="workspace">
        <div className="workspace-lists">
          <Panel title="Waiting queue" id="waiting-queue">
            {lists.error && <ErrorMessage error={lists.error} title="Could not load conversations" />}
            {lists.state === 'loading' && !lists.data && <Loading what="the queue" />}
            {waiting && waiting.length === 0 && <EmptyState title="Nobody is waiting">New conversations appear here by themselves.</EmptyState>}
            {waiting && waiting.length > 0 && <ol className="conversation-list" aria-label="Waiting conversations, VIP first">{waiting.map((c) => item(c, true))}</ol>}
          </Panel>
          <Panel title="My conversations" id="my-conversations">
            {mine && mine.length === 0 && <EmptyState title="No open conversations">Accept one from the queue.</EmptyState>}
            {mine && mine.length > 0 && <ul className="conversation-list">{mine.map((c) => item(c, false))}</ul>}
          </Panel>
        </div>
        <div className="workspace-main">
          {openId === undefined ? (
            <Panel title="Conversation" id="conversation">
              <EmptyState title="No conversation open">Pick one from the waiting queue or from your conversations.</EmptyState>
            </Panel>
          ) : (
            <ConversationPanel key={openId} conversationId={openId} version={stream.version} onClosed={() => setOpenId(undefined)} />
          )}
        </div>
      </div>
    </Page>
  );
}

function preview(c: ConversationView): string {
  const body = c.lastMessage?.bodies[0];
  if (!body) return '';
  if (body.type === 'txt') return body.msg ?? '';
  return `[${body.type}] ${body.filename ?? ''}`;
}
