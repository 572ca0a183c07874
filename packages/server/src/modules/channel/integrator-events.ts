/**
 * Pushes conversation events to the integrator (contract 6.4). An event the association lists in
 * its `events` setting is stored as a delivery without a message, with a push job on the
 * customer's ordering key (push.ts): the same signing, order and retries as agent replies, and a
 * reply and the events around it reach the receiver in the order they happened. Events not listed
 * are not written at all. Callers call after the change that caused the event has committed.
 */
import { randomUUID } from 'node:crypto';
import type { ClosedBy, IntegratorEventName } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { JobQueue, NewJob } from '../jobs/ports.js';
import { buildEventPush, estimatedWaitSeconds, eventAgent, positionNoticeDue, type PendingEvent } from './conversation-events.js';
import type { ConversationEventsRepository } from './event-ports.js';
import type { AssociationsService } from './associations.js';
import type { Conversation, RoutingDirectory } from './ports.js';
import { CHANNEL_PUSH_QUEUE, pushOrderingKey, type PushJob } from './push.js';
import type { ChannelTransaction } from './transaction.js';

/** Waiting conversations told their new position after a queue moves. */
const POSITION_LINE_LIMIT = 100;

type EventConversation = Pick<Conversation, 'id' | 'tenantId' | 'channelId' | 'customerId'>;

export class IntegratorEvents {
  constructor(
    private readonly associations: Pick<AssociationsService, 'openById'>,
    private readonly repo: ConversationEventsRepository,
    private readonly directory: RoutingDirectory,
    private readonly uow: UnitOfWork<ChannelTransaction>,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
  ) {}

  /**
   * The association's `events` setting (none when it is gone), from the associations' cache: a
   * change answered on any instance is seen by the next event (associations.ts).
   */
  async listed(tenantId: number, channelId: number): Promise<readonly IntegratorEventName[]> {
    return (await this.associations.openById(tenantId, channelId))?.events ?? [];
  }

  /**
   * Pushes `events` of one conversation, in this order, those the association lists; answers the
   * names written. A `csat_invitation` written also records the invitation (a rating needs it).
   */
  async emit(conv: EventConversation, events: PendingEvent[]): Promise<IntegratorEventName[]> {
    const listed = await this.listed(conv.tenantId, conv.channelId);
    const chosen = events.filter((e) => listed.includes(e.name));
    await this.write([{ conv, events: chosen }]);
    return chosen.map((e) => e.name);
  }

  /**
   * Writes the events of one change, for one conversation or several, in one transaction (so they
   * commit together and their push jobs are woken at once), each conversation's in its order.
   */
  private async write(items: ReadonlyArray<{ conv: EventConversation; events: readonly PendingEvent[] }>): Promise<void> {
    if (!items.some((item) => item.events.length > 0)) return;
    const now = this.clock.now();
    await this.uow.run(async (tx) => {
      const jobs: NewJob[] = [];
      for (const { conv, events } of items) {
        for (const event of events) {
          const deliveryId = `dlv_${randomUUID().replace(/-/g, '')}`;
          const body = JSON.stringify(buildEventPush(conv, event, now));
          await tx.channel.storeEvent({ conversation: conv, deliveryId, event: event.name, body, now });
          jobs.push({ queue: CHANNEL_PUSH_QUEUE, payload: { deliveryId } satisfies PushJob, orderingKey: pushOrderingKey(conv.channelId, conv.customerId) });
          if (event.name === 'csat_invitation') await tx.channel.inviteRating(conv.id, now);
        }
      }
      await tx.jobs.enqueue(jobs);
    });
    this.jobs.notify(CHANNEL_PUSH_QUEUE);
  }

  /** `assigned` (or `transferred`) to the conversation's agent, with its queue's name. */
  async assigned(conv: Conversation, name: 'assigned' | 'transferred' = 'assigned'): Promise<void> {
    const listed = await this.listed(conv.tenantId, conv.channelId);
    if (!listed.includes(name)) return;
    const [agent, queue] = await Promise.all([conv.agentId === null ? undefined : this.directory.agent(conv.tenantId, conv.agentId), this.directory.queue(conv.tenantId, conv.queueId)]);
    const fields = { agent: agent ? eventAgent(agent) : null, queue_name: queue?.name ?? '' };
    if (name === 'assigned' && fields.agent) await this.emit(conv, [{ name, fields: { ...fields, agent: fields.agent } }]);
    if (name === 'transferred') await this.emit(conv, [{ name, fields }]);
  }

  /** `closed` and then `csat_invitation` (contract 6.4: every close invites a rating). */
  async closed(conv: EventConversation, by: ClosedBy, reason: string): Promise<void> {
    await this.emit(conv, [
      { name: 'closed', fields: { by, reason } },
      { name: 'csat_invitation', fields: {} },
    ]);
  }

  /** `queued` for a conversation that just entered its queue. */
  async queued(conv: Conversation): Promise<void> {
    const listed = await this.listed(conv.tenantId, conv.channelId);
    if (!listed.includes('queued')) return;
    const position = await this.repo.placeInLine(conv);
    const stats = await this.repo.queueStats(conv.queueId);
    await this.emit(conv, [{ name: 'queued', fields: { position, estimated_wait_seconds: estimatedWaitSeconds(position, stats.meanHandleMs, stats.onlineAgents) } }]);
  }

  /**
   * `position_changed` for the waiting conversations of a queue behind `pivot`: the one that left
   * the line (accepted, moved, closed) or that entered it ahead of others (a VIP). Those ahead of
   * it keep their position and hear nothing; of those behind it, the ones `positionNoticeDue`
   * names (the head of the line, and further back one notice per block of places crossed). One
   * transaction writes them all: a queue moving up is one commit, not one per conversation.
   */
  async positionsChanged(queueId: number, pivot: Pick<Conversation, 'id' | 'tenantId' | 'vip' | 'queuedAt'>): Promise<void> {
    const line = await this.repo.waitingLine(pivot.tenantId, queueId, POSITION_LINE_LIMIT);
    // The pivot still in its place joined the line ahead of the others (they moved back a place);
    // gone, or queued again at the back, it left its place (those behind it moved up one).
    const shift = line.some((conv) => conv.id === pivot.id && conv.queuedAt === pivot.queuedAt) ? -1 : 1;
    const behind = line
      .map((conv, index) => ({ conv, position: index + 1 }))
      .filter(({ conv, position }) => conv.id !== pivot.id && isBehind(conv, pivot) && positionNoticeDue(position + shift, position));
    if (behind.length === 0) return;
    const stats = await this.repo.queueStats(queueId);
    const settings = new Map<number, Promise<readonly IntegratorEventName[]>>();
    const items: Array<{ conv: EventConversation; events: PendingEvent[] }> = [];
    for (const { conv, position } of behind) {
      if (!settings.has(conv.channelId)) settings.set(conv.channelId, this.listed(conv.tenantId, conv.channelId));
      if (!(await settings.get(conv.channelId))!.includes('position_changed')) continue;
      items.push({ conv, events: [{ name: 'position_changed', fields: { position, estimated_wait_seconds: estimatedWaitSeconds(position, stats.meanHandleMs, stats.onlineAgents) } }] });
    }
    await this.write(items);
  }
}

/** Whether `conv` comes after `pivot` in queue order (VIP first, then queue time, then id). */
export function isBehind(conv: Pick<Conversation, 'id' | 'vip' | 'queuedAt'>, pivot: Pick<Conversation, 'id' | 'vip' | 'queuedAt'>): boolean {
  if (conv.vip !== pivot.vip) return pivot.vip;
  if (conv.queuedAt !== pivot.queuedAt) return conv.queuedAt > pivot.queuedAt;
  return conv.id > pivot.id;
}
