import { useState, type FormEvent } from 'react';
import type { AgentReplyBody, ConversationView, VisitorView } from '@parley/protocol';
import { ErrorMessage, Loading } from '../../components/feedback.js';
import { SelectField } from '../../components/field.js';
import { Panel } from '../../components/page.js';
import { useConsole, useTenantId } from '../../context.js';
import { useResource, useSubmit } from '../../hooks.js';
import { MessageList } from './message-list.js';
import { ReplyBox, useResend } from './reply-box.js';

const STATE_TEXT: Record<ConversationView['state'], string> = { waiting: 'Waiting', processing: 'In progress', closed: 'Closed' };

const PROFILE_FIELDS: Array<[keyof Omit<VisitorView, 'tags'>, string]> = [
  ['customer_id', 'Customer ID'],
  ['user_nickname', 'Nickname'],
  ['true_name', 'Real name'],
  ['qq', 'QQ'],
  ['email', 'E-mail'],
  ['phone', 'Phone'],
  ['company_name', 'Company'],
  ['description', 'Description'],
];

/** One conversation: history with cards and delivery states, the profile tab, reply and actions. */
export function ConversationPanel({ conversationId, version, onClosed }: { conversationId: number; version: number; onClosed(): void }) {
  const { api, session } = useConsole();
  const tenantId = useTenantId();
  const data = useResource(
    (signal) => Promise.all([api.getConversation(tenantId, conversationId, signal), api.history(tenantId, conversationId, signal)]),
    [api, tenantId, conversationId, version],
  );
  const targets = useResource((signal) => Promise.all([api.listAgents(tenantId, signal), api.listSkillGroups(tenantId, signal)]), [api, tenantId]);
  const resend = useResend(conversationId, () => data.reload());
  const [tab, setTab] = useState<'messages' | 'profile'>('messages');
  const [target, setTarget] = useState('');
  const action = useSubmit((kind: 'accept' | 'close' | 'transfer') => {
    if (kind === 'accept') return api.accept(tenantId, conversationId);
    if (kind === 'close') return api.close(tenantId, conversationId);
    const [type, id] = target.split(':');
    return api.transfer(tenantId, conversationId, type === 'agent' ? { agent_id: Number(id) } : { queue_id: id as string });
  });

  const run = async (kind: 'accept' | 'close' | 'transfer') => {
    const result = await action.run(kind);
    if (!result) return;
    if (kind === 'close' || (kind === 'transfer' && result.agent?.id !== session.user.id)) onClosed();
    else data.reload();
  };
  const onTransfer = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (target) void run('transfer');
  };

  const [conversation, messages] = data.data ?? [undefined, undefined];
  const [agents, groups] = targets.data ?? [[], []];
  const mine = conversation?.state === 'processing' && conversation.agent?.id === session.user.id;
  const name = conversation ? (conversation.visitor.user_nickname ?? conversation.visitor.customer_id) : '…';

  return (
    <Panel title={`Conversation with ${name}`} id="conversation">
      {data.error && <ErrorMessage error={data.error} title="Could not load the conversation" />}
      {data.state === 'loading' && !data.data && <Loading what="the conversation" />}
      {conversation && messages && (
        <>
          <div className="toolbar">
            <span className={`badge state-${conversation.state}`}>{STATE_TEXT[conversation.state]}</span>
            {conversation.vip && <span className="badge badge-vip">VIP</span>}
            {conversation.agent && <span className="muted">Agent: {conversation.agent.nickname}</span>}
            {conversation.state === 'waiting' && (
              <button type="button" className="primary" disabled={action.busy} onClick={() => void run('accept')}>
                Accept
              </button>
            )}
            {conversation.state === 'processing' && (
              <button type="button" disabled={action.busy} onClick={() => void run('close')}>
                Close conversation
              </button>
            )}
          </div>
          {conversation.state !== 'closed' && (
            <form className="form-inline" onSubmit={onTransfer}>
              <SelectField label="Transfer to" value={target} onChange={(e) => setTarget(e.target.value)}>
                <option value="">Choose an agent or a skill group</option>
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
              </SelectField>
              <button type="submit" disabled={action.busy || target === ''}>
                Transfer
              </button>
            </form>
          )}
          {action.error && <ErrorMessage error={action.error} title="That did not work" />}

          <div className="tabs" role="tablist" aria-label="Conversation">
            <button type="button" role="tab" id="tab-messages" aria-controls="tabpanel-messages" aria-selected={tab === 'messages'} onClick={() => setTab('messages')}>
              Messages
            </button>
            <button type="button" role="tab" id="tab-profile" aria-controls="tabpanel-profile" aria-selected={tab === 'profile'} onClick={() => setTab('profile')}>
              Profile
            </button>
          </div>
          {tab === 'messages' ? (
            <div role="tabpanel" id="tabpanel-messages" aria-labelledby="tab-messages">
              <MessageList messages={messages} onRetry={mine ? (bodies) => void resend.run(bodies as AgentReplyBody[]) : undefined} />
              {resend.error && <ErrorMessage error={resend.error} title="The reply was not sent again" />}
              {mine ? (
                <ReplyBox conversationId={conversationId} onSent={data.reload} />
              ) : (
                <p className="muted">{conversation.state === 'waiting' ? 'Accept the conversation to reply.' : conversation.state === 'closed' ? 'This conversation is closed.' : 'Another agent handles this conversation.'}</p>
              )}
            </div>
          ) : (
            <div role="tabpanel" id="tabpanel-profile" aria-labelledby="tab-profile" className="profile">
              <dl>
                {PROFILE_FIELDS.map(([key, label]) => (
                  <div key={key} style={{ display: 'contents' }}>
                    <dt>{label}</dt>
                    <dd>{conversation.visitor[key] ?? <span className="muted">not given</span>}</dd>
                  </div>
                ))}
                <dt>Tags</dt>
                <dd>
                  {conversation.visitor.tags.length === 0 ? (
                    <span className="muted">none</span>
                  ) : (
                    conversation.visitor.tags.map((t) => (
                      <span key={t} className="badge">
                        {t}
                      </span>
                    ))
                  )}
                </dd>
              </dl>
            </div>
          )}
        </>
      )}
    </Panel>
  );
}
