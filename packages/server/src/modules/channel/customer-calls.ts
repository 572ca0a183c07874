/**
 * The customer's server's signed calls beside the send-message API (contract 6.4): receipts of
 * agent messages, customer typing, and the satisfaction rating. Each is signed exactly as the
 * send-message API (send-message-signature.ts: the same HMAC over the raw bytes, the same rate
 * and expiry), then parsed and checked against its schema. Agents see them live on the workspace's
 * event stream (`receipt`, `customer_typing`, `rating`); a rating is also a `csat_submitted` event.
 */
import { checkSchema, CustomerTypingRequest, faultField, RatingRequest, ReceiptsRequest, type ReceiptsResult, type RatingView } from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { inspectJson, jsonSyntaxDetail } from '../../kernel/input-checks.js';
import type { ChannelEventBus } from './events.js';
import type { ConversationEventsRepository } from './event-ports.js';
import type { IntegratorEvents } from './integrator-events.js';
import type { Association, ConversationsRepository } from './ports.js';
import type { ChargeAssociation, SendMessageSignature, SignedSendMessage } from './send-message-signature.js';

/** The signed body, parsed and checked against `schema` (400 `invalid_request` naming the field). */
function parseSigned<T>(request: SignedSendMessage, schema: unknown): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.rawBody.toString('utf8'));
  } catch (error) {
    throw new AppError('invalid_json', { detail: jsonSyntaxDetail(error) });
  }
  const unsafe = inspectJson(parsed, '');
  if (unsafe) throw new AppError('invalid_request', { detail: `${unsafe.field} ${unsafe.problem}` });
  const fault = checkSchema(schema, parsed);
  if (fault) throw new AppError('invalid_request', { detail: `${faultField(fault.path) || 'body'} ${fault.rule}` });
  return parsed as T;
}

export class CustomerCalls {
  constructor(
    private readonly signature: SendMessageSignature,
    private readonly repo: ConversationEventsRepository,
    private readonly conversations: ConversationsRepository,
    private readonly integrator: IntegratorEvents,
    private readonly events: ChannelEventBus,
    private readonly clock: Clock,
  ) {}

  private verify(request: SignedSendMessage, charge?: ChargeAssociation): Promise<Association> {
    return this.signature.verify(request, charge);
  }

  /** `delivered` or `read` of agent messages; answers how many changed. */
  async receipts(request: SignedSendMessage, charge?: ChargeAssociation): Promise<ReceiptsResult> {
    const association = await this.verify(request, charge);
    const body = parseSigned<ReceiptsRequest>(request, ReceiptsRequest);
    const changed = await this.repo.markReceipts(association.id, body.to, [...new Set(body.msg_ids)], body.status);
    const byConversation = new Map<number, string[]>();
    for (const c of changed) byConversation.set(c.conversationId, [...(byConversation.get(c.conversationId) ?? []), c.msgId]);
    for (const [conversationId, msgIds] of byConversation) {
      const conv = await this.conversations.get(association.tenantId, conversationId);
      if (conv) this.events.publish({ type: 'receipt', tenantId: conv.tenantId, conversationId, queueId: conv.queueId, agentId: conv.agentId, msg_ids: msgIds, status: body.status });
    }
    return { updated: changed.length };
  }

  /** The customer is typing in their open conversation (404 `not_found` without one). */
  async typing(request: SignedSendMessage, charge?: ChargeAssociation): Promise<{ conversation_id: number }> {
    const association = await this.verify(request, charge);
    const body = parseSigned<CustomerTypingRequest>(request, CustomerTypingRequest);
    const conv = await this.repo.openConversationOf(association.id, body.from);
    if (!conv) throw new AppError('not_found', { resource: `Open conversation of customer ${body.from}` });
    this.events.publish({ type: 'customer_typing', tenantId: conv.tenantId, conversationId: conv.id, queueId: conv.queueId, agentId: conv.agentId });
    return { conversation_id: conv.id };
  }

  /** One rating per closed, invited conversation: 409 `conversation_state` otherwise. */
  async rate(request: SignedSendMessage, charge?: ChargeAssociation): Promise<RatingView> {
    const association = await this.verify(request, charge);
    const body = parseSigned<RatingRequest>(request, RatingRequest);
    const rating = { score: body.score, comment: body.comment ?? null, createdAt: this.clock.now() };
    if (!(await this.repo.rate(body.conversation_id, association.id, body.from, rating))) {
      throw new AppError('conversation_state', {
        id: body.conversation_id,
        state: 'not ratable',
        detail: 'a rating needs a closed conversation of this customer that was invited to be rated and has no rating yet',
      });
    }
    const conv = await this.conversations.get(association.tenantId, body.conversation_id);
    if (conv) {
      this.events.publish({ type: 'rating', tenantId: conv.tenantId, conversationId: conv.id, queueId: conv.queueId, agentId: conv.agentId, score: rating.score });
      await this.integrator.emit(conv, [{ name: 'csat_submitted', fields: { score: rating.score, comment: rating.comment } }]);
    }
    return rating;
  }
}
