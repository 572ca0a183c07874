/**
 * Automation per skill group (contract 6.4). At a conversation's opening: the welcome or the
 * out-of-hours message (business hours in the group's time zone, holidays), and the queue notice
 * when it waits. Then timers, run as durable jobs (CHANNEL_AUTOMATION_QUEUE) at the time they are
 * due, so any instance runs them, on the injected clock: the re-offer of a conversation left
 * waiting, the idle warning, and the auto-close after minutes without a customer message.
 * Automatic messages are pushed as spec 2.3 replies with `ext.system: true`, through the same
 * delivery as agents' replies. The decisions are automation-rules.ts's.
 */
import { randomUUID } from 'node:crypto';
import type { AutomationSettings } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { Job, JobQueue, JobResult } from '../jobs/ports.js';
import type { Dispatcher } from './assignment.js';
import { automationProblem, hasTimers, isOpen, nextTimerStep, queueNoticeText, type TimerStep } from './automation-rules.js';
import type { AutomationRepository } from './automation-ports.js';
import type { ChannelEventBus } from './events.js';
import type { ConversationEventsRepository } from './event-ports.js';
import type { IntegratorEvents } from './integrator-events.js';
import type { Conversation, ConversationsRepository, RoutingDirectory } from './ports.js';
import { CHANNEL_PUSH_QUEUE, pushOrderingKey, type PushJob } from './push.js';
import { buildReplyPush } from './reply-body.js';
import type { ChannelTransaction } from './transaction.js';

export const CHANNEL_AUTOMATION_QUEUE = 'channel.automation';

export interface AutomationJob {
  tenantId: number;
  conversationId: number;
  /** When the conversation was last re-offered (null: never). */
  reofferedAt: number | null;
}

export const DEFAULT_IDLE_WARNING = 'Are you still there? This conversation will be closed soon if we do not hear from you.';

export class Automation {
  constructor(
    private readonly repo: AutomationRepository,
    private readonly conversations: ConversationsRepository,
    private readonly lines: ConversationEventsRepository,
    private readonly directory: RoutingDirectory,
    private readonly uow: UnitOfWork<ChannelTransaction>,
    private readonly jobs: JobQueue,
    private readonly dispatcher: Dispatcher,
    private readonly integrator: IntegratorEvents,
    private readonly events: ChannelEventBus,
    private readonly clock: Clock,
  ) {}

  private async requireQueue(tenantId: number, queueId: number): Promise<void> {
    if (!(await this.directory.queue(tenantId, queueId))) throw new AppError('not_found', { resource: `Skill group ${queueId}` });
  }

  /** The group's settings; null when never set (everything off). */
  async get(tenantId: number, queueId: number): Promise<AutomationSettings | null> {
    await this.requireQueue(tenantId, queueId);
    return (await this.repo.get(queueId)) ?? null;
  }

  /** Replaces the group's settings (400 `invalid_request` naming the field; timers apply to conversations opened from now on). */
  async save(tenantId: number, queueId: number, settings: AutomationSettings): Promise<AutomationSettings> {
    await this.requireQueue(tenantId, queueId);
    const problem = automationProblem(settings);
    if (problem) throw new AppError('invalid_request', { detail: problem });
    await this.repo.put(tenantId, queueId, settings, this.clock.now());
    return settings;
  }

  /** A new conversation (after its commit): the opening messages, then its timers. */
  async opened(conv: Conversation): Promise<void> {
    const settings = await this.repo.get(conv.queueId);
    if (!settings) return;
    const now = this.clock.now();
    const texts: string[] = [];
    const open = isOpen(settings, now);
    if (open && settings.welcome.enabled && settings.welcome.text) texts.push(settings.welcome.text);
    if (!open && settings.out_of_hours.enabled && settings.out_of_hours.text) texts.push(settings.out_of_hours.text);
    if (conv.state === 'waiting' && settings.queue_notice?.enabled && settings.queue_notice.text) {
      texts.push(queueNoticeText(settings.queue_notice.text, await this.lines.placeInLine(conv)));
    }
    if (texts.length) await this.systemMessages(conv, texts);
    if (hasTimers(settings)) await this.schedule(conv, settings, null);
  }

  /** Stores automatic messages with their pushes (spec 2.3, `ext.system: true`), in order, in one transaction. */
  async systemMessages(conv: Conversation, texts: string[]): Promise<void> {
    const [visitor, queue] = await Promise.all([this.conversations.visitorOf(conv.id), this.directory.queue(conv.tenantId, conv.queueId)]);
    const now = this.clock.now();
    const msgIds = texts.map(() => randomUUID());
    await this.uow.run(async (tx) => {
      for (const [i, text] of texts.entries()) {
        const msgId = msgIds[i]!;
        const deliveryId = `dlv_${randomUUID().replace(/-/g, '')}`;
        const bodies = [{ type: 'txt' as const, msg: text }];
        const push = buildReplyPush({
          tenantId: conv.tenantId,
          channelId: conv.channelId,
          msgId,
          bodies,
          customerId: conv.customerId,
          visitor: visitor ?? { profile: {}, tags: [] },
          agent: { username: '', nickname: '', avatar: null },
          queue,
        });
        const body = { ...push, ext: { ...push.ext, system: true as const } };
        await tx.channel.storeAgentReply({ conversation: conv, agentId: null, msgId, bodies, ext: { system: true }, deliveryId, pushBody: JSON.stringify(body), now });
        await tx.jobs.enqueue({ queue: CHANNEL_PUSH_QUEUE, payload: { deliveryId } satisfies PushJob, orderingKey: pushOrderingKey(conv.channelId, conv.customerId) });
      }
    });
    this.jobs.notify(CHANNEL_PUSH_QUEUE);
    for (const msgId of msgIds) this.events.publish({ type: 'new_message', tenantId: conv.tenantId, conversationId: conv.id, queueId: conv.queueId, agentId: conv.agentId, msg_id: msgId, direction: 'agent' });
  }

  private async step(conv: Conversation, settings: AutomationSettings, reofferedAt: number | null): Promise<TimerStep> {
    const timer = await this.repo.timerState(conv.id);
    if (!timer) return { action: 'stop' };
    return nextTimerStep(settings, { state: conv.state, queuedAt: conv.queuedAt, lastCustomerAt: timer.lastCustomerAt, idleWarnedAt: timer.idleWarnedAt, reofferedAt });
  }

  /** Writes the conversation's next timer job, when it has one. */
  private async schedule(conv: Conversation, settings: AutomationSettings, reofferedAt: number | null): Promise<void> {
    const next = await this.step(conv, settings, reofferedAt);
    if (next.action === 'stop') return;
    const payload: AutomationJob = { tenantId: conv.tenantId, conversationId: conv.id, reofferedAt };
    await this.uow.run((tx) => tx.jobs.enqueue({ queue: CHANNEL_AUTOMATION_QUEUE, payload, runAt: next.at }));
    this.jobs.notify(CHANNEL_AUTOMATION_QUEUE);
  }

  /** The job handler of CHANNEL_AUTOMATION_QUEUE: runs the step that is due, then writes the next job. */
  readonly handle = async (job: Job<AutomationJob>): Promise<JobResult> => {
    const { tenantId, conversationId } = job.payload;
    let reofferedAt = job.payload.reofferedAt;
    const conv = await this.conversations.get(tenantId, conversationId);
    if (!conv || conv.state === 'closed') return { status: 'done' };
    const settings = await this.repo.get(conv.queueId);
    if (!settings || !hasTimers(settings)) return { status: 'done' };
    const now = this.clock.now();
    const step = await this.step(conv, settings, reofferedAt);
    if (step.action === 'stop') return { status: 'done' };
    if (step.at > now) return { status: 'retry', runAt: step.at };
    if (step.action === 'reoffer') {
      reofferedAt = now;
      await this.reoffer(conv);
    } else if (step.action === 'idle_warning') {
      await this.systemMessages(conv, [settings.idle_warning_text ?? DEFAULT_IDLE_WARNING]);
      await this.repo.markIdleWarned(conv.id, now);
    } else {
      await this.autoClose(conv);
    }
    const after = await this.conversations.get(tenantId, conversationId);
    if (after && after.state !== 'closed') await this.schedule(after, settings, reofferedAt);
    return { status: 'done' };
  };

  /** Its own group first (a hand-out may have been missed), then any online agent of the tenant with room. */
  private async reoffer(conv: Conversation): Promise<void> {
    await this.dispatcher.dispatchQueues(conv.tenantId, [conv.queueId]);
    const now = await this.conversations.get(conv.tenantId, conv.id);
    if (now?.state !== 'waiting') return;
    await this.dispatcher.offerTo(conv.tenantId, conv.id, conv.queueId, await this.lines.tenantAgentLoads(conv.tenantId));
  }

  private async autoClose(conv: Conversation): Promise<void> {
    const moved = await this.conversations.assign(conv.id, ['waiting', 'processing'], { state: 'closed', agentId: conv.agentId }, this.clock.now());
    if (!moved) return;
    this.events.publish({ type: 'assignment', tenantId: conv.tenantId, conversationId: conv.id, queueId: conv.queueId, agentId: conv.agentId, state: 'closed' });
    await this.integrator.closed(conv, 'system', 'idle_timeout');
    if (conv.agentId !== null) await this.dispatcher.agentAvailable(conv.tenantId, conv.agentId);
  }
}
