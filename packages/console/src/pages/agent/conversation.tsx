import { useEffect, useState, type FormEvent } from 'react';
import type { AgentReplyBody, AgentView, ConversationView, SkillGroupView } from '@parley/protocol';
import { ConfirmDialog, ErrorMessage, Loading } from '../../components/feedback.js';
import { Panel } from '../../components/page.js';
import { useConsole, useTenantId } from '../../context.js';
import { useResource, useSubmit } from '../../hooks.js';
import { MessageList } from './message-list.js';
import { ReplyBox, useResend } from './reply-box.js';

const STATE_TEXT: Record<ConversationView['state'], string> = { waiting: 'Waiting', processing: 'In progress', closed: 'Closed' };

interface ConversationPanelProps {
  conversationId: number;
  /** Bumped by the event stream: the conversation and its history are read again. */
  version: number;
  onClosed(): void;
  /** Called with each fresh read of the conversation (the workspace shows the profile and clears the unread marker). */
  onLoaded?: ((conversation: ConversationView) => void) | undefined;
  /** History view: the messages only, no actions and no reply box. */
  readOnly?: boolean;
}

/** One conversation: history with cards and delivery states, reply and actions. */
export function ConversationPanel({ conversationId, version, onClosed, onLoaded, readOnly = false }: ConversationPanelProps) {
  const { api, session } = useConsole();
  const tenantId = useTenantId();
  const data = useResource(
    (signal) => Promise.all([api.getConversation(tenantId, conversationId, signal), api.history(tenantId, conversationId, signal)]),
    [api, tenantId, conversationId, version],
  );
  const targets = useResource(
    (signal) => (readOnly ? Promise.resolve<[AgentView[], SkillGroupView[]]>([[], []]) : Promise.all([api.listAgents(tenantId, signal), api.listSkillGroups(tenantId, signal)])),
    [api, tenantId, readOnly],
  );
  const resend = useResend(conversationId, () => data.reload());
  const [target, setTarget] = useState('');
  const [confirmClose, setConfirmClose] = useState(false);
  const action = useSubmit((kind: 'accept' | 'close' | 'transfer') => {
    if (kind === 'accept') return api.accept(tenantId, conversationId);
    if (kind === 'close') return api.close(tenantId, conversationId);
    const [type, id] = target.split(':');
    return api.transfer(tenantId, conversationId, type === 'agent' ? { agent_id: Number(id) } : { queue_id: id as string });
  });

  const run = async (kind: 'accept' | 'close' | 'transfer') => {
    const result = await action.run(kind);
    setConfirmClose(false);
    if (!result) return;
    if (kind === 'close' || (kind === 'transfer' && result.agent?.id !== session.user.id)) onClosed();
    else data.reload();
  };
  const onTransfer = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (target) void run('transfer');
  };

  const [conversation, messages] = data.data ?? [undefined, undefined];
  useEffect(() => {
    if (data.data) onLoaded?.(data.data[0]);
    // Only a fresh read is reported; onLoaded is a new closure on every render of the caller.
  }, [data.data]);
  const [agents, groups] = targets.data ?? [[], []];
  const mine = !readOnly && conversation?.state === 'processing' && conversation.agent?.id === session.user.id;
  const name = conversation ? (conversation.visitor.user_nickname ?? conversation.visitor.customer_id) : '…';

  return (
    <Panel title={`Conversation with ${name}`} id="conversation">
      {data.error && <ErrorMessage error={data.error} title="Could not load the conversation" />}
      {data.state === 'loading' && !data.data && <Loading what="the conversation" />}
      {conversation && messages && (
        <>
          <div className="toolbar conversation-toolbar">
            <span className={`badge state-${conversation.state}`}>{STATE_TEXT[conversation.state]}</span>
            {conversation.vip && <span className="badge badge-vip">VIP</span>}
            {conversation.agent && <span className="muted">Agent: {conversation.agent.nickname}</span>}
            {!readOnly && conversation.state === 'waiting' && (
              <button type="button" className="primary" disabled={action.busy} onClick={() => void run('accept')}>
                Accept
              </button>
            )}
            {!readOnly && conversation.state === 'processing' && (
              <button type="button" className="small push-end" disabled={action.busy || confirmClose} onClick={() => setConfirmClose(true)}>
                Close conversation
              </button>
            )}
            {!readOnly && conversation.state !== 'closed' && (
              <form className="transfer" onSubmit={onTransfer}>
                <label className="visually-hidden" htmlFor={`transfer-${conversationId}`}>
                  Transfer to
                </label>
                <select id={`transfer-${conversationId}`} value={target} onChange={(e) => setTarget(e.target.value)}>
                  <option value="">Transfer to…</option>
                  <optgroup label="Agents">
                    {agents
                      .filter((a) => a.id !== session.user.id)
                      .map((a) => (
                        <option key={a.id} value={`agent:${a.id}`}>
                          {a.nickname} ({a.status})
                        </option>
                      ))}
                  </optgroup>
                  <optgroup label="Skill groups">
                    {groups.map((g) => (
                      <option key={g.queue_id} value={`queue:${g.queue_id}`}>
                        {g.queue_name}
                      </option>
                    ))}
                  </optgroup>
                </select>
                <button type="submit" className="small" disabled={action.busy || target === ''}>
                  Transfer
                </button>
              </form>
            )}
          </div>
          {confirmClose && (
            <ConfirmDialog label="Close the conversation" yes="Close it" busy={action.busy} onYes={() => void run('close')} onCancel={() => setConfirmClose(false)}>
              {`Close the conversation with ${name}? It leaves your list and can no longer be replied to.`}
            </ConfirmDialog>
          )}
          {action.error && <ErrorMessage error={action.error} title="That did not work" />}

          <MessageList messages={messages} customerName={name} onRetry={mine ? (bodies) => void resend.run(bodies as AgentReplyBody[]) : undefined} />
          {resend.error && <ErrorMessage error={resend.error} title="The reply was not sent again" />}
          {mine ? <ReplyBox conversationId={conversationId} onSent={data.reload} /> : <p className="muted">{notMineText(conversation.state, readOnly)}</p>}
        </>
      )}
    </Panel>
  );
}

function notMineText(state: ConversationView['state'], readOnly: boolean): string {
  if (readOnly) return state === 'closed' ? 'This conversation is closed; its history is read-only here.' : 'Read-only here: open it in the workspace to act on it.';
  if (state === 'waiting') return 'Accept the conversation to reply.';
  if (state === 'closed') return 'This conversation is closed.';
  return 'Another agent handles this conversation.';
}
