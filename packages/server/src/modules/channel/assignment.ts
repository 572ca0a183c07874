/**
 * Agent assignment: which agent a conversation goes to, and when.
 *   - The choice: among a queue's online agents, the least loaded one that has room (fewer
 *     conversations in processing than its max_sessions); ties go to the lowest id.
 *   - At open (accept.ts): the chosen agent is claimed under its row lock in the message's
 *     transaction; if another claim filled it meanwhile, the choice is made again (3 tries), and
 *     the conversation waits if none holds.
 *   - Later (the dispatcher): whenever capacity may have appeared (an agent goes online, closes or
 *     hands over a conversation, a conversation joins a queue), each affected queue hands its head
 *     - VIP first, then the longest waiting - to the chosen agent, until it runs out of either.
 * Storage only answers loads and locks or moves rows (AgentClaims, ports.ts).
 */
import type { Clock } from '../../kernel/clock.js';
import type { UnitOfWork } from '../../kernel/unit-of-work.js';
import type { ChannelEventBus } from './events.js';
import type { AgentClaims, AgentLoad, ConversationsRepository, RoutingDirectory } from './ports.js';
import type { ChannelTransaction } from './transaction.js';
import type { IntegratorEvents } from './integrator-events.js';

/** Tries of the claim at open before the conversation is left waiting. */
const CLAIM_TRIES = 3;

export const hasRoom = (agent: AgentLoad | undefined): boolean => agent !== undefined && agent.load < agent.max;

/** The least-loaded agent with room (ties: lowest id), or undefined. */
export function chooseAgent(agents: readonly AgentLoad[]): number | undefined {
  let best: AgentLoad | undefined;
  for (const agent of agents) {
    if (!hasRoom(agent)) continue;
    if (!best || agent.load < best.load || (agent.load === best.load && agent.id < best.id)) best = agent;
  }
  return best?.id;
}

/** The agent a new conversation of `queueId` goes to, claimed in `claims`' transaction; undefined: it waits. */
export async function claimAgent(claims: AgentClaims, queueId: number): Promise<number | undefined> {
  for (let tries = 0; tries < CLAIM_TRIES; tries++) {
    const agentId = chooseAgent(await claims.agentLoads(queueId));
    if (agentId === undefined || hasRoom(await claims.lockAgent(agentId))) return agentId;
  }
  return undefined;
}

/** Hands waiting conversations to agents when capacity may have appeared. */
export class Dispatcher {
  /** Runs are chained so that two runs of one process never hand out the same slot. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly uow: UnitOfWork<ChannelTransaction>,
    private readonly directory: RoutingDirectory,
    private readonly events: ChannelEventBus,
    private readonly clock: Clock,
    /** Tells the integrator of each hand-out (contract 6.4); none in unit tests. */
    private readonly integrator?: IntegratorEvents,
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
        const next = await this.conversations.nextWaiting(tenantId, queueId);
        if (next === undefined) break;
        const agentId = chooseAgent(await this.conversations.agentLoads(queueId));
        if (agentId === undefined) break;
        if (await this.assignWithinCapacity(next, agentId, this.clock.now())) {
          this.events.publish({ type: 'assignment', tenantId, conversationId: next, queueId, agentId, state: 'processing' });
          await this.toldIntegrator(tenantId, next);
        }
      }
    }
  }

  /**
   * Offers a waiting conversation to the least-loaded of `agents` with room (the re-offer of
   * automation: any skill group's agents); false when none has room or it no longer waits.
   */
  offerTo(tenantId: number, conversationId: number, queueId: number, agents: readonly AgentLoad[]): Promise<boolean> {
    const run = this.chain.then(async () => {
      const agentId = chooseAgent(agents);
      if (agentId === undefined || !(await this.assignWithinCapacity(conversationId, agentId, this.clock.now()))) return false;
      this.events.publish({ type: 'assignment', tenantId, conversationId, queueId, agentId, state: 'processing' });
      await this.toldIntegrator(tenantId, conversationId);
      return true;
    });
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async toldIntegrator(tenantId: number, conversationId: number): Promise<void> {
    if (!this.integrator) return;
    const conv = await this.conversations.get(tenantId, conversationId);
    if (!conv) return;
    await this.integrator.assigned(conv);
    await this.integrator.positionsChanged(conv.queueId, conv);
  }

  /**
   * Moves a waiting conversation to the agent if the agent still has room under its row lock:
   * another instance may have filled it since the choice, and then nothing moves.
   */
  private assignWithinCapacity(conversationId: number, agentId: number, now: number): Promise<boolean> {
    return this.uow.run(async ({ channel: { assignment } }) => {
      if (!hasRoom(await assignment.lockAgent(agentId))) return false;
      return assignment.move(conversationId, ['waiting'], { state: 'processing', agentId }, now);
    });
  }
}
