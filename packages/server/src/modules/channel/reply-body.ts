/**
 * The exact body of an agent-reply push (spec 2.3, contract 3.4). Visitor profile fields the
 * customer's server never sent are null, so a receiver can rely on every key being present.
 */
import { VISITOR_STRING_FIELDS, type AgentReplyBody, type AgentReplyPush } from '@parley/protocol';
import type { AgentInfo, VisitorField, VisitorProfile } from './ports.js';

/** Every profile field, null where the customer's server never sent it. */
export function profileWithNulls(profile: VisitorProfile): Record<VisitorField, string | null> {
  const out = {} as Record<VisitorField, string | null>;
  for (const field of VISITOR_STRING_FIELDS) out[field] = profile[field] ?? null;
  return out;
}

export interface ReplyContext {
  tenantId: number;
  channelId: number;
  msgId: string;
  bodies: AgentReplyBody[];
  customerId: string;
  visitor: { profile: VisitorProfile; tags: string[] };
  agent: Pick<AgentInfo, 'username' | 'nickname' | 'avatar'>;
  queue: { id: number; name: string } | undefined;
}

export function buildReplyPush(ctx: ReplyContext): AgentReplyPush {
  return {
    bodies: ctx.bodies,
    ext: {
      msg_id: ctx.msgId,
      visitor: {
        ...profileWithNulls(ctx.visitor.profile),
        weixin: null,
        tags: ctx.visitor.tags.length ? ctx.visitor.tags : null,
        callback_user: ctx.customerId,
      },
      agent: { avatar: ctx.agent.avatar, user_nickname: ctx.agent.nickname },
      queue_id: ctx.queue ? String(ctx.queue.id) : null,
      queue_name: ctx.queue?.name ?? '',
      agent_username: ctx.agent.username,
    },
    to: ctx.customerId,
    channel_type: 'rest',
    tenant_id: ctx.tenantId,
    origin_type: 'rest',
    channel_id: ctx.channelId,
  };
}
