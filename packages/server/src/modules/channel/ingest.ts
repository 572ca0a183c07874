/**
 * The send-message API (spec 4.1/5.1, contract 3.2): once the signature holds
 * (send-message-signature.ts), parse and validate the message, hand it to the acceptor (accept.ts)
 * and publish what happened. Order after the signature: JSON -> message rules -> accept.
 */
import { randomUUID } from 'node:crypto';
import { validateCustomerMessage, VISITOR_STRING_FIELDS, type CustomerMessage, type IntegratorEventName, type SendMessageResult } from '@parley/protocol';
import { AppError } from '../../kernel/errors.js';
import type { Clock } from '../../kernel/clock.js';
import { inspectJson, jsonSyntaxDetail } from '../../kernel/input-checks.js';
import type { CustomerMessageAcceptor } from './accept.js';
import type { ChannelEventBus } from './events.js';
import type { IntegratorEvents } from './integrator-events.js';
import type { Automation } from './automation.js';
import type { Conversation, VisitorProfile } from './ports.js';
import type { ChargeAssociation, SendMessageSignature, SignedSendMessage } from './send-message-signature.js';

/** A send-message request as the HTTP layer hands it over: what the signature covers. */
export type SendMessageRequest = SignedSendMessage;

export class IngestService {
  constructor(
    private readonly signature: SendMessageSignature,
    private readonly acceptor: CustomerMessageAcceptor,
    private readonly events: ChannelEventBus,
    private readonly clock: Clock,
    private readonly integrator: IntegratorEvents,
    private readonly automation?: Automation,
  ) {}

  /** `charge` is the association's rate, charged once the signature holds (send-message-signature.ts). */
  async receive(request: SendMessageRequest, charge?: ChargeAssociation): Promise<SendMessageResult> {
    const association = await this.signature.verify(request, charge);

    let parsed: unknown;
    try {
      parsed = JSON.parse(request.rawBody.toString('utf8'));
    } catch (error) {
      throw new AppError('invalid_json', { detail: jsonSyntaxDetail(error) });
    }
    // U+0000, unpaired surrogates, unsafe numbers and deep nesting, before anything reads the
    // message (the group commit serialises ext recursively).
    const fault = inspectJson(parsed, '');
    if (fault) throw new AppError('invalid_message', { detail: `${fault.field} ${fault.problem}` });
    const checked = validateCustomerMessage(parsed);
    if (!checked.ok) throw new AppError('invalid_message', { detail: checked.detail });
    const message = checked.message;

    const ext = message.ext ?? {};
    // The tenant is read and the route decided inside the (group-committed) write (accept.ts),
    // so that the hot path makes no database round trip of its own before it.
    const accepted = await this.acceptor.accept({
      tenantId: association.tenantId,
      channelId: association.id,
      customerId: message.from,
      msgId: message.msg_id ?? randomUUID(),
      bodies: message.bodies,
      ext: ext as Record<string, unknown>,
      timestamp: message.timestamp,
      profile: profileOf(message),
      tags: Array.isArray(ext.visitor?.tags) ? ext.visitor.tags : undefined,
      associationQueueId: association.agentQueueId,
      hints: ext,
      now: this.clock.now(),
    });

    const conv = accepted.conversation;
    if (!accepted.duplicate) {
      const base = { tenantId: conv.tenantId, conversationId: conv.id, queueId: conv.queueId, agentId: conv.agentId };
      if (accepted.opened) {
        this.events.publish({ type: 'new_conversation', ...base });
        if (conv.agentId !== null) this.events.publish({ type: 'assignment', ...base, state: conv.state });
      }
      this.events.publish({ type: 'new_message', ...base, msg_id: accepted.msgId, direction: 'customer' });
      if (accepted.opened) {
        await this.toldIntegrator(conv, association.events);
        await this.automation?.opened(conv);
      }
    }
    return { msg_id: accepted.msgId, conversation_id: conv.id, duplicate: accepted.duplicate };
  }

  /** A new conversation: `assigned` when an agent took it at once, else `queued` (and those it overtook move). */
  private async toldIntegrator(conv: Conversation, listed: readonly IntegratorEventName[]): Promise<void> {
    if (listed.length === 0) return;
    if (conv.state === 'processing') return this.integrator.assigned(conv);
    await this.integrator.queued(conv);
    if (conv.vip) await this.integrator.positionsChanged(conv.queueId, conv);
  }
}

function profileOf(message: CustomerMessage): VisitorProfile {
  const visitor = message.ext?.visitor;
  const profile: VisitorProfile = {};
  if (!visitor) return profile;
  for (const field of VISITOR_STRING_FIELDS) {
    const value = visitor[field];
    if (typeof value === 'string') profile[field] = value;
  }
  return profile;
}
