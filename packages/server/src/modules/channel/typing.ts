/**
 * Typing signals (contract 6.4). An agent typing in a conversation they hold is pushed to the
 * integrator as `agent_typing`, at most once per conversation every TYPING_INTERVAL_MS (a
 * keystroke-driven client may call on every key). Customer typing arrives signed (customer-calls.ts).
 */
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import type { Principal } from '../accounts/service.js';
import type { ConversationsService } from './conversations.js';
import type { IntegratorEvents } from './integrator-events.js';

export const TYPING_INTERVAL_MS = 2_000;
/** Conversations remembered for the interval; beyond it the memory starts over. */
const REMEMBERED = 10_000;

/** Whether a signal at `now` is due after the last one at `last` (pure). */
export const typingDue = (last: number | undefined, now: number): boolean => last === undefined || now - last >= TYPING_INTERVAL_MS;

export class AgentTyping {
  private readonly last = new Map<number, number>();

  constructor(
    private readonly conversations: ConversationsService,
    private readonly integrator: IntegratorEvents,
    private readonly clock: Clock,
  ) {}

  /** Answers whether an `agent_typing` event was pushed (false: not listed, or one was pushed moments ago). */
  async typing(tenantId: number, id: number, principal: Principal): Promise<{ pushed: boolean }> {
    const conv = await this.conversations.require(tenantId, id);
    this.conversations.assertMayHandle(conv, principal);
    if (conv.state !== 'processing') throw new AppError('conversation_state', { id, state: conv.state, detail: 'typing needs an accepted, open conversation' });
    const now = this.clock.now();
    if (!typingDue(this.last.get(id), now)) return { pushed: false };
    if (this.last.size >= REMEMBERED) this.last.clear();
    this.last.set(id, now);
    const written = await this.integrator.emit(conv, [{ name: 'agent_typing', fields: {} }]);
    return { pushed: written.length > 0 };
  }
}
