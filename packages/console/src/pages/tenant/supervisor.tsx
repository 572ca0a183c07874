import { useState, type FormEvent } from 'react';
import type { ChannelEvent, ConversationView, SupervisorView } from '@parley/protocol';
import { EmptyState, ErrorMessage, ListStates, Success } from '../../components/feedback.js';
import { Page, Panel } from '../../components/page.js';
import { StatusBadge } from '../../components/status.js';
import { useConsole, useTenantId } from '../../context.js';
import { useInterval, useResource, useSubmit } from '../../hooks.js';
import { Link } from '../../router.js';
import { useEventStream, useNow } from '../agent/events.js';
import { formatSeconds } from './durations.js';

/** What changes the figures: conversations arriving or moving, and agents' statuses. */
const LIVE_EVENTS: ReadonlyArray<ChannelEvent['type'] | 'ready'> = ['ready', 'new_conversation', 'assignment', 'agent_status'];
const STREAM_TEXT = { connecting: 'Connecting to live updates…', live: 'Live', reconnecting: 'Reconnecting to live updates…' } as const;
/** A slow re-read for what no event announces (agents added, their maximum changed). */
const REREAD_MS = 30_000;

interface Snapshot {
  view: SupervisorView;
  open: ConversationView[];
  /** This browser's time when the snapshot arrived: waits keep counting from there. */
  loadedAt: number;
}

const nameOf = (c: ConversationView) => c.visitor.user_nickname ?? c.visitor.customer_id;

/**
 * Tenant admin: the live supervisor view. Each skill group's waiting count and longest wait, each
 * agent's status and load, and the open conversations, which the admin can take over or transfer
 * (the same accept and transfer calls as the workspace). Re-read on every live event.
 */
export function SupervisorPage() {
  const { api } = useConsole();
  const tenantId = useTenantId();
  const stream = useEventStream(api.eventsUrl(tenantId), LIVE_EVENTS);
  const now = useNow(1000);
  const data = useResource(
    async (signal): Promise<Snapshot> => {
      const [view, waiting, processing] = await Promise.all([
        api.supervisor(tenantId, signal),
        api.conversationPage(tenantId, { state: 'waiting', limit: 100 }, signal),
        api.conversationPage(tenantId, { state: 'processing', limit: 100 }, signal),
      ]);
      return { view, open: [...waiting.entities, ...processing.entities], loadedAt: Date.now() };
    },
    [api, tenantId, stream.version],
  );
  useInterval(data.reload, REREAD_MS);
  const snapshot = data.data;

  return (
    <Page title="Supervisor view" intro="Queues and agents as they are now, updated live. Take over a conversation or hand it to another agent or skill group.">
      <p className="muted small-text stream-state" role="status">
        {STREAM_TEXT[stream.state]}
      </p>
      <ListStates resource={data} what="the supervisor view" errorTitle="Could not load the supervisor view" count={undefined} />
      {snapshot && (
        <>
          <SkillGroupsPanel snapshot={snapshot} now={now} />
          <AgentsPanel view={snapshot.view} />
          <OpenConversationsPanel snapshot={snapshot} now={now} onChanged={data.reload} />
        </>
      )}
    </Page>
  );
}

function SkillGroupsPanel({ snapshot, now }: { snapshot: Snapshot; now: number }) {
  const groups = snapshot.view.skill_groups;
  const elapsed = Math.max(0, now - snapshot.loadedAt) / 1000;
  return (
    <Panel title="Skill groups" id="supervisor-groups">
      {groups.length === 0 && <EmptyState title="No skill groups yet">Create one on the Skill groups page.</EmptyState>}
      {groups.length > 0 && (
        <div className="table-scroll">
          <table className="figures-table" aria-label="Skill groups, live">
            <thead>
              <tr>
                <th scope="col">Skill group</th>
                <th scope="col">Waiting</th>
                <th scope="col">Longest wait</th>
                <th scope="col">Being handled</th>
                <th scope="col">Agents online</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((g) => (
                <tr key={g.queue_id} data-queue-id={g.queue_id}>
                  <th scope="row">{g.queue_name}</th>
                  <td data-figure="waiting">
                    <strong>{g.waiting}</strong>
                    {g.vip_waiting > 0 && <span className="badge badge-vip supervisor-vip">{g.vip_waiting} VIP</span>}
                  </td>
                  <td data-figure="longest-wait" className={g.longest_wait_seconds !== null && g.longest_wait_seconds + elapsed >= 300 ? 'nowrap error-text' : 'nowrap'}>
                    {g.longest_wait_seconds === null ? '–' : formatSeconds(g.longest_wait_seconds + elapsed)}
                  </td>
                  <td data-figure="processing">{g.processing}</td>
                  <td data-figure="online">{g.agents_online}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}

function AgentsPanel({ view }: { view: SupervisorView }) {
  const groupName = new Map(view.skill_groups.map((g) => [g.queue_id, g.queue_name]));
  return (
    <Panel title="Agents" id="supervisor-agents">
      {view.agents.length === 0 && <EmptyState title="No agents yet">Add agents on the Agents page.</EmptyState>}
      {view.agents.length > 0 && (
        <div className="table-scroll">
          <table className="figures-table" aria-label="Agents, live">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Status</th>
                <th scope="col">Load</th>
                <th scope="col">Skill groups</th>
              </tr>
            </thead>
            <tbody>
              {view.agents.map((a) => (
                <tr key={a.id} data-agent-id={a.id}>
                  <th scope="row">
                    {a.nickname}
                    {a.role === 'admin' && <span className="badge supervisor-role">admin</span>}
                  </th>
                  <td data-figure="status">
                    <StatusBadge status={a.status} />
                  </td>
                  <td data-figure="load" className="nowrap">
                    <meter className="load-meter" min={0} max={Math.max(1, a.max_sessions)} value={a.load} aria-label={`${a.nickname}'s load`} /> {a.load} / {a.max_sessions}
                  </td>
                  <td>{a.queue_ids.map((q) => groupName.get(q) ?? q).join(', ') || <span className="muted">none</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}

function OpenConversationsPanel({ snapshot, now, onChanged }: { snapshot: Snapshot; now: number; onChanged(): void }) {
  const [done, setDone] = useState<string | undefined>(undefined);
  const groupName = new Map(snapshot.view.skill_groups.map((g) => [g.queue_id, g.queue_name]));
  return (
    <Panel title="Open conversations" id="supervisor-conversations">
      {done && (
        <Success>
          {done} <Link to="/workspace">Open the workspace</Link> to reply.
        </Success>
      )}
      {snapshot.open.length === 0 && <EmptyState title="No open conversations">Waiting and handled conversations appear here as they arrive.</EmptyState>}
      {snapshot.open.length > 0 && (
        <ul className="supervised-list" aria-label="Open conversations, waiting ones first">
          {snapshot.open.map((c) => (
            <SupervisedConversation
              key={c.id}
              conversation={c}
              view={snapshot.view}
              groupName={groupName.get(c.queue_id) ?? c.queue_id}
              waitedSeconds={Math.max(0, now - snapshot.loadedAt) / 1000 + Math.max(0, snapshot.view.as_of - c.createdAt) / 1000}
              onDone={(text) => {
                setDone(text);
                onChanged();
              }}
            />
          ))}
        </ul>
      )}
    </Panel>
  );
}

interface SupervisedProps {
  conversation: ConversationView;
  view: SupervisorView;
  groupName: string;
  waitedSeconds: number;
  onDone(text: string): void;
}

/** One open conversation with its take-over and transfer controls. */
function SupervisedConversation({ conversation: c, view, groupName, waitedSeconds, onDone }: SupervisedProps) {
  const { api, session } = useConsole();
  const tenantId = useTenantId();
  const [target, setTarget] = useState('');
  const action = useSubmit((kind: 'take' | 'transfer') => {
    if (kind === 'take') return c.state === 'waiting' ? api.accept(tenantId, c.id) : api.transfer(tenantId, c.id, { agent_id: session.user.id });
    const [type, id] = target.split(':');
    return api.transfer(tenantId, c.id, type === 'agent' ? { agent_id: Number(id) } : { queue_id: id as string });
  });
  const name = nameOf(c);
  const mine = c.agent?.id === session.user.id;

  const takeOver = async () => {
    if (await action.run('take')) onDone(`You now hold the conversation with ${name}.`);
  };
  const transfer = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!target) return;
    const result = await action.run('transfer');
    if (!result) return;
    setTarget('');
    onDone(result.agent ? `The conversation with ${name} is now with ${result.agent.nickname}.` : `The conversation with ${name} waits in ${view.skill_groups.find((g) => g.queue_id === result.queue_id)?.queue_name ?? 'its skill group'}.`);
  };

  return (
    <li className="supervised" aria-label={`Conversation with ${name}`} data-conversation-id={c.id}>
      <div className="supervised-head">
        <span className="conversation-name">
          {c.vip && <span className="badge badge-vip">VIP</span>}
          {name}
        </span>
        <span className={`badge state-${c.state}`}>{c.state === 'waiting' ? 'Waiting' : mine ? 'With you' : `With ${c.agent?.nickname ?? 'an agent'}`}</span>
        <span className="muted small-text">
          {groupName} · open {formatSeconds(waitedSeconds)}
        </span>
      </div>
      <div className="supervised-actions">
        {!mine && (
          <button type="button" className="primary" disabled={action.busy} onClick={() => void takeOver()}>
            Take over
          </button>
        )}
        <form className="supervised-transfer" onSubmit={(e) => void transfer(e)}>
          <select aria-label={`Transfer the conversation with ${name} to`} value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="">Transfer to…</option>
            <optgroup label="Agents">
              {view.agents
                .filter((a) => a.id !== c.agent?.id)
                .map((a) => (
                  <option key={a.id} value={`agent:${a.id}`}>
                    {a.nickname} ({a.status}, {a.load}/{a.max_sessions})
                  </option>
                ))}
            </optgroup>
            <optgroup label="Skill groups">
              {view.skill_groups.map((g) => (
                <option key={g.queue_id} value={`queue:${g.queue_id}`}>
                  {g.queue_name} ({g.waiting} waiting)
                </option>
              ))}
            </optgroup>
          </select>
          <button type="submit" disabled={action.busy || !target}>
            Transfer
          </button>
        </form>
      </div>
      {action.error && <ErrorMessage error={action.error} title={`The conversation with ${name} did not move`} />}
    </li>
  );
}
