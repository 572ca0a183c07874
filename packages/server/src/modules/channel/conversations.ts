/**
 * The agents' side (contract 3.3, 6.3): conversation lists (queue order for waiting ones, filters,
 * sort orders, keyset pages), the inbox's counts, accept, transfer, close, history, and replies, each reply stored together with
 * its push job. Who sees what: a tenant admin every conversation of the tenant; an agent those
 * assigned to them (a closed one: held when it closed) and those of their skill groups.
 */
import { randomUUID } from 'node:crypto';
import {
  CONVERSATION_PAGE_DEFAULT,
  type AgentReplyBody,
  type ConversationCounts,
  type ConversationCountsQuery,
  type ConversationQuery,
  type ConversationSort,
  type ConversationView,
  type MessageView,
  type SendReplyResult,
  type TransferRequest,
} from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import { AppError } from '../../kernel/errors.js';
import type { Principal } from '../accounts/service.js';
import type { JobQueue } from '../jobs/ports.js';
import type { Dispatcher } from './assignment.js';
import type { ChannelEventBus } from './events.js';
import { decodeConversationCursor, encodeConversationCursor } from './conversation-cursor.js';
import type { AgentInfo, Conversation, ConversationDetails, ConversationFilter, ConversationOrder, ConversationsRepository, RoutingDirectory, StoredMessage } from './ports.js';
import { CHANNEL_PUSH_QUEUE, pushOrderingKey, type PushJob } from './push.js';
import type { ChannelTransaction } from './transaction.js';
import type { IntegratorEvents } from './integrator-events.js';
import { buildReplyPush, profileWithNulls } from './reply-body.js';

/** The list's `sort` values and the storage orders behind them. */
const SORT_ORDERS: Record<ConversationSort, ConversationOrder> = { queue: 'queue', longest_waiting: 'waited', newest: 'newest', latest: 'recent' };

const agentRef = (a: AgentInfo | undefined) => (a ? { id: a.id, username: a.username, nickname: a.nickname, avatar: a.avatar } : null);

export function messageView(m: StoredMessage & { delivery: { id: string; status: 'pending' | 'succeeded' | 'failed'; lastError: string | null } | null }, agent: AgentInfo | undefined, customerId: string): MessageView {
  return {
    msg_id: m.msgId,
    direction: m.direction,
    from: m.direction === 'customer' ? customerId : (agent?.username ?? String(m.agentId ?? '')),
    bodies: m.bodies,
    ext: m.ext,
    timestamp: m.timestamp,
    createdAt: m.createdAt,
    agent: m.direction === 'agent' ? agentRef(agent) : null,
    delivery: m.delivery,
    receipt: m.direction === 'agent' ? (m.receipt ?? null) : null,
  };
}

export class ConversationsService {
  constructor(
    private readonly repo: ConversationsRepository,
    private readonly uow: UnitOfWork<ChannelTransaction>,
    private readonly directory: RoutingDirectory,
    private readonly dispatcher: Dispatcher,
    private readonly events: ChannelEventBus,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    private readonly integrator: IntegratorEvents,
  ) {}

  private async view(details: ConversationDetails): Promise<ConversationView> {
    const c = details.conversation;
    const last = details.lastMessage;
    const lastAgent = last?.agentId ? (last.agentId === c.agentId ? details.agent : await this.directory.agent(c.tenantId, last.agentId)) : undefined;
    return {
      id: c.id,
      state: c.state,
      queue_id: String(c.queueId),
      agent: agentRef(details.agent),
      visitor: {
        customer_id: c.customerId,
        ...profileWithNulls(details.visitor.profile),
        tags: details.visitor.tags,
      },
      vip: c.vip,
      channelId: c.channelId,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      closedAt: c.closedAt,
      lastMessage: last ? messageView(last, lastAgent, c.customerId) : null,
      rating: details.rating,
      labels: details.labels,
    };
  }

  /** One page of the list: waiting ones in queue order, others most recent first (or `sort`); `cursor` for the next page. */
  async list(tenantId: number, principal: Principal, query: ConversationQuery): Promise<{ entities: ConversationView[]; cursor: string | null }> {
    if (query.mine && query.agent_id !== undefined && query.agent_id !== principal.userId) return { entities: [], cursor: null };
    if (query.mine && query.team) return { entities: [], cursor: null };
    const order: ConversationOrder = query.sort ? SORT_ORDERS[query.sort] : query.state === 'waiting' ? 'queue' : 'recent';
    const limit = query.limit ?? CONVERSATION_PAGE_DEFAULT;
    const filter: ConversationFilter = {
      ...(await this.sharedFilter(principal, query)),
      ...(query.state ? { state: query.state } : {}),
      ...(query.agent_id !== undefined ? { agentId: query.agent_id } : {}),
      ...(query.mine ? { agentId: principal.userId } : {}),
      ...(query.team ? { notAgentId: principal.userId } : {}),
      ...(query.waiting_min !== undefined ? { queuedBefore: this.clock.now() - query.waiting_min * 60_000 } : {}),
      ...(query.from !== undefined ? { updatedFrom: query.from } : {}),
      ...(query.to !== undefined ? { updatedTo: query.to } : {}),
    };
    const after = query.cursor === undefined ? undefined : decodeConversationCursor(query.cursor, order);
    // One row more than the page says whether another page follows.
    const rows = await this.repo.list(tenantId, filter, { order, limit: limit + 1, ...(after ? { after } : {}) });
    const page = rows.slice(0, limit);
    const details = await this.repo.details(tenantId, page.map((r) => r.id));
    const entities = await Promise.all(details.map((d) => this.view(d)));
    return { entities, cursor: rows.length > limit ? encodeConversationCursor(order, page[page.length - 1]!) : null };
  }

  /** The inbox's views (waiting, mine, team) over the open conversations the caller may see, with the shared filters: one query. */
  async counts(tenantId: number, principal: Principal, query: ConversationCountsQuery): Promise<ConversationCounts> {
    return this.repo.counts(tenantId, await this.sharedFilter(principal, query), principal.userId);
  }

  /** The filters the list and the counts share, and an agent's view (their skill groups and their own). */
  private async sharedFilter(principal: Principal, query: ConversationCountsQuery): Promise<ConversationFilter> {
    return {
      ...(query.queue_id ? { queueId: Number(query.queue_id) } : {}),
      ...(query.customer !== undefined ? { customerId: query.customer } : {}),
      ...(query.q !== undefined ? { text: query.q.toLowerCase() } : {}),
      ...(query.label !== undefined ? { label: query.label } : {}),
      ...(query.vip !== undefined ? { vip: query.vip } : {}),
      ...(principal.role === 'agent' ? { visibleTo: { agentId: principal.userId, queueIds: await this.directory.queueIdsOfAgent(principal.userId) } } : {}),
    };
  }

  async require(tenantId: number, id: number): Promise<Conversation> {
    const conv = await this.repo.get(tenantId, id);
    if (!conv) throw new AppError('not_found', { resource: `Conversation ${id}` });
    return conv;
  }

  /** A conversation as `principal` may see it (403 `forbidden` for an agent outside its skill group). */
  async get(tenantId: number, id: number, principal: Principal): Promise<ConversationView> {
    await this.assertMayView(await this.require(tenantId, id), principal);
    return this.viewOf(tenantId, id);
  }

  private async viewOf(tenantId: number, id: number): Promise<ConversationView> {
    const [details] = await this.repo.details(tenantId, [id]);
    return this.view(details as ConversationDetails);
  }

  /** An agent takes a waiting conversation of one of their skill groups (a tenant admin any). */
  async accept(tenantId: number, id: number, principal: Principal): Promise<ConversationView> {
    const conv = await this.require(tenantId, id);
    await this.assertMayView(conv, principal);
    if (conv.state !== 'waiting') throw new AppError('conversation_state', { id, state: conv.state, detail: 'only a waiting conversation can be accepted' });
    const moved = await this.repo.assign(id, ['waiting'], { state: 'processing', agentId: principal.userId }, this.clock.now());
    if (!moved) throw new AppError('conversation_state', { id, state: 'taken', detail: 'another agent accepted it first' });
    this.events.publish({ type: 'assignment', tenantId, conversationId: id, queueId: conv.queueId, agentId: principal.userId, state: 'processing' });
    await this.integrator.assigned(await this.require(tenantId, id));
    await this.integrator.positionsChanged(conv.queueId, conv);
    return this.viewOf(tenantId, id);
  }

  /** Hands an open conversation to another agent, or back to a queue (where it waits its turn). */
  async transfer(tenantId: number, id: number, principal: Principal, input: TransferRequest): Promise<ConversationView> {
    const conv = await this.require(tenantId, id);
    this.assertMayHandle(conv, principal);
    if (conv.state === 'closed') throw new AppError('conversation_state', { id, state: conv.state, detail: 'a closed conversation cannot be transferred' });
    if ((input.agent_id === undefined) === (input.queue_id === undefined)) {
      throw new AppError('invalid_request', { detail: 'body: give exactly one of agent_id or queue_id' });
    }
    const now = this.clock.now();
    let target: { state: 'waiting' | 'processing'; agentId: number | null; queueId?: number; requeueAt?: number };
    if (input.agent_id !== undefined) {
      const agent = await this.directory.agent(tenantId, input.agent_id);
      if (!agent) throw new AppError('invalid_request', { detail: `agent_id: no agent ${input.agent_id} in this tenant` });
      target = { state: 'processing', agentId: agent.id };
    } else {
      const queue = await this.directory.queue(tenantId, Number(input.queue_id));
      if (!queue) throw new AppError('invalid_request', { detail: `queue_id: unknown skill group ${input.queue_id}` });
      target = { state: 'waiting', agentId: null, queueId: queue.id, requeueAt: now };
    }
    const moved = await this.repo.assign(id, ['waiting', 'processing'], target, now);
    if (!moved) throw new AppError('conversation_state', { id, state: 'closed', detail: 'it was closed meanwhile' });
    const queueId = target.queueId ?? conv.queueId;
    this.events.publish({ type: 'assignment', tenantId, conversationId: id, queueId, agentId: target.agentId, state: target.state });
    const after = await this.require(tenantId, id);
    await this.integrator.assigned(after, 'transferred');
    if (conv.state === 'waiting') await this.integrator.positionsChanged(conv.queueId, conv);
    if (after.state === 'waiting') await this.integrator.queued(after);
    const freed = conv.agentId !== null && conv.agentId !== target.agentId ? await this.directory.queueIdsOfAgent(conv.agentId) : [];
    await this.dispatcher.dispatchQueues(tenantId, [...freed, ...(target.state === 'waiting' ? [queueId] : [])]);
    return this.viewOf(tenantId, id);
  }

  async close(tenantId: number, id: number, principal: Principal): Promise<ConversationView> {
    const conv = await this.require(tenantId, id);
    this.assertMayHandle(conv, principal);
    const moved = await this.repo.assign(id, ['waiting', 'processing'], { state: 'closed', agentId: conv.agentId }, this.clock.now());
    if (!moved) throw new AppError('conversation_state', { id, state: 'closed', detail: 'it is already closed' });
    this.events.publish({ type: 'assignment', tenantId, conversationId: id, queueId: conv.queueId, agentId: conv.agentId, state: 'closed' });
    await this.integrator.closed(conv, 'agent', 'closed_by_agent');
    if (conv.state === 'waiting') await this.integrator.positionsChanged(conv.queueId, conv);
    if (conv.agentId !== null) await this.dispatcher.agentAvailable(tenantId, conv.agentId);
    return this.viewOf(tenantId, id);
  }

  async history(tenantId: number, id: number, principal: Principal): Promise<MessageView[]> {
    const conv = await this.require(tenantId, id);
    await this.assertMayView(conv, principal);
    const messages = await this.repo.history(id);
    const agentIds = [...new Set(messages.map((m) => m.agentId).filter((a): a is number => a !== null))];
    const agents = new Map<number, AgentInfo | undefined>();
    for (const agentId of agentIds) agents.set(agentId, await this.directory.agent(tenantId, agentId));
    return messages.map((m) => messageView(m, m.agentId === null ? undefined : agents.get(m.agentId), conv.customerId));
  }

  /** Stores the reply and its push job in one transaction, then wakes the push worker. */
  async reply(tenantId: number, id: number, principal: Principal, bodies: AgentReplyBody[]): Promise<SendReplyResult> {
    const conv = await this.require(tenantId, id);
    if (conv.state === 'waiting' && conv.agentId === null) {
      await this.assertMayView(conv, principal);
      throw new AppError('conversation_state', { id, state: conv.state, detail: 'nobody has accepted it yet; accept it first' });
    }
    this.assertMayHandle(conv, principal);
    if (conv.state !== 'processing') throw new AppError('conversation_state', { id, state: conv.state, detail: 'replies need an accepted, open conversation' });
    const agent = await this.directory.agent(tenantId, principal.userId);
    if (!agent) throw new AppError('forbidden', { detail: 'only agents of this tenant reply' });
    const [visitor, queue] = await Promise.all([this.repo.visitorOf(id), this.directory.queue(tenantId, conv.queueId)]);
    const msgId = randomUUID();
    const deliveryId = `dlv_${randomUUID().replace(/-/g, '')}`;
    const push = buildReplyPush({
      tenantId,
      channelId: conv.channelId,
      msgId,
      bodies,
      customerId: conv.customerId,
      visitor: visitor ?? { profile: {}, tags: [] },
      agent,
      queue,
    });
    const now = this.clock.now();
    await this.uow.run(async (tx) => {
      await tx.channel.storeAgentReply({ conversation: conv, agentId: agent.id, msgId, bodies, deliveryId, pushBody: JSON.stringify(push), now });
      await tx.jobs.enqueue({ queue: CHANNEL_PUSH_QUEUE, payload: { deliveryId } satisfies PushJob, orderingKey: pushOrderingKey(conv.channelId, conv.customerId) });
    });
    this.jobs.notify(CHANNEL_PUSH_QUEUE);
    this.events.publish({ type: 'new_message', tenantId, conversationId: id, queueId: conv.queueId, agentId: conv.agentId, msg_id: msgId, direction: 'agent' });
    return { msg_id: msgId, delivery: { id: deliveryId, status: 'pending' } };
  }

  /** Admins see every conversation of the tenant; agents those assigned to them and those of their skill groups. */
  async assertMayView(conv: Conversation, principal: Principal): Promise<void> {
    if (principal.role !== 'agent' || conv.agentId === principal.userId) return;
    const queues = await this.directory.queueIdsOfAgent(principal.userId);
    if (!queues.includes(conv.queueId)) throw new AppError('forbidden', { detail: 'this conversation is in a skill group you are not in' });
  }

  /**
   * Inside an agent's deletion (its transaction `tx`): their processing conversations wait in
   * their queues again; `afterCommit` tells the workspaces and hands them out.
   */
  async requeueAgent(tx: ChannelTransaction, tenantId: number, agentId: number) {
    const moved = await tx.channel.requeueAgent(agentId, this.clock.now());
    return {
      requeued: moved.length,
      afterCommit: async () => {
        for (const c of moved) this.events.publish({ type: 'assignment', tenantId, conversationId: c.id, queueId: c.queueId, agentId: null, state: 'waiting' });
        await this.dispatcher.dispatchQueues(tenantId, moved.map((c) => c.queueId));
      },
    };
  }

  /** Agents handle their own conversations (and take waiting ones by accept); admins any. */
  assertMayHandle(conv: Conversation, principal: Principal): void {
    if (principal.role === 'admin' || principal.role === 'system_admin') return;
    if (conv.agentId !== principal.userId) throw new AppError('forbidden', { detail: 'this conversation is assigned to another agent' });
  }
}
