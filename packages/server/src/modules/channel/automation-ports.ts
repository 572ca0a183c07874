/**
 * Storage ports of skill-group automation (contract 6.4); implemented in
 * src/storage/repositories/channel-automation.ts.
 */
import type { AutomationSettings } from '@parley/protocol';

export interface AutomationRepository {
  get(queueId: number): Promise<AutomationSettings | undefined>;
  put(tenantId: number, queueId: number, settings: AutomationSettings, now: number): Promise<void>;
  /** The customer's last message time (the conversation's opening when none) and the last idle warning. */
  timerState(conversationId: number): Promise<{ lastCustomerAt: number; idleWarnedAt: number | null } | undefined>;
  markIdleWarned(conversationId: number, now: number): Promise<void>;
}
