/**
 * Live events of the agents' workspaces and the supervisor view (`GET /api/tenants/{t}/events`):
 * notifications that something changed, each naming its conversation, skill group and agent
 * (`agent_status` names only the agent).
 */
import type { AgentStatus } from './accounts.js';
import type { ConversationState, DeliveryStatus } from './channel.js';

export type ChannelEvent =
  | { type: 'new_conversation'; tenantId: number; conversationId: number; queueId: number; agentId: number | null }
  | { type: 'new_message'; tenantId: number; conversationId: number; queueId: number; agentId: number | null; msg_id: string; direction: 'customer' | 'agent' }
  | { type: 'assignment'; tenantId: number; conversationId: number; queueId: number; agentId: number | null; state: ConversationState }
  | { type: 'delivery_status'; tenantId: number; conversationId: number; queueId: number; agentId: number | null; msg_id: string; deliveryId: string; status: DeliveryStatus }
  | { type: 'customer_typing'; tenantId: number; conversationId: number; queueId: number; agentId: number | null }
  | { type: 'receipt'; tenantId: number; conversationId: number; queueId: number; agentId: number | null; msg_ids: string[]; status: 'delivered' | 'read' }
  | { type: 'rating'; tenantId: number; conversationId: number; queueId: number; agentId: number | null; score: number }
  /** An agent's status changed (the supervisor view); not about a conversation. */
  | { type: 'agent_status'; tenantId: number; conversationId: null; queueId: null; agentId: number; status: AgentStatus };
