/**
 * Auto-assignment of waiting conversations: whenever capacity may have appeared (an agent goes
 * online, closes or hands over a conversation, a conversation joins a queue), each affected
 * queue hands its head - VIP first, then the longest waiting - to its least-loaded online
 * agent with a free slot, until it runs out of either.
 */
import type { Clock } from '../../kernel/clock.js';
import type { ChannelEventBus } from './events.js';
import type { ConversationsRepository, RoutingDirectory } from './ports.js';

export class Dispatcher {
  /** Runs are chained so that two runs of one process never hand out the same slot. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly directory: RoutingDirectory,
    private readonly events: ChannelEventBus,
    private readonly clock: Clock,
  ) {}

  dispatchQueues(tenantId: number, queueIds: number[]): Promise<void> {
    const run = this.chain.then(() => this.run(tenantId, [...new Set(queueIds)]));
    this.chain = run.catch(() => undefined);
    return run;
  }

  async agentAvailable(tenantId: number, agentId: number): Promise<void> {
    await this.dispatchQueues(tenantId, await this.directory.queueIdsOfAgent(agentId));
  }

  private async run(tenantId: number, queueIds: number[]): Promise<void> {
    for (const queueId of queueIds) {
      for (;;) {
        const next = await this.conversations.nextWaiting(queueId);
        if (next === undefined) break;
        const agentId = await this.conversations.leastLoadedAgent(queueId);
        if (agentId === undefined) break;
        const moved = await this.conversations.assign(next, ['waiting'], { state: 'processing', agentId, withinCapacity: true }, this.clock.now());
        if (moved) {
          this.events.publish({ type: 'assignment', tenantId, conversationId: next, queueId, agentId, state: 'processing' });
        }
      }
    }
  }
}
