/**
 * The send-message API (spec 4.1/5.1, contract 3.2): authenticate a customer's server by the
 * HMAC over the exact bytes it sent, then validate, route and store the message durably.
 * Order of checks: Authorization present -> tenant and edition -> channel -> Client ID owns it
 * -> signature -> the association's rate -> expiry -> JSON -> message rules. Nothing is parsed before the signature holds.
 */
import { randomUUID } from 'node:crypto';
import {
  parseHmacAuthorization,
  validateCustomerMessage,
  verifySendMessage,
  VISITOR_STRING_FIELDS,
  type CustomerMessage,
  type ParsedHmacAuthorization,
  type SendMessageResult,
} from '@parley/protocol';
import type { Clock } from '../../kernel/clock.js';
import { AppError } from '../../kernel/errors.js';
import { inspectJson, jsonSyntaxDetail } from '../../kernel/input-checks.js';
import type { CustomerMessageAcceptor } from './accept.js';
import type { AssociationsService } from './associations.js';
import type { ChannelEventBus } from './events.js';
import type { VisitorProfile } from './ports.js';

export interface SendMessageRequest {
  tenantId: number;
  channelId: number;
  /** The request path exactly as received, without the query string. */
  path: string;
  authorization: string | undefined;
  expires: string | undefined;
  rawBody: Buffer;
  /** The two headers above as `assertAuthorizationPresent` answered them, when the caller checked them already. */
  credentials?: { auth: ParsedHmacAuthorization; expires: string };
}

/** Charges a request to its association's rate limit: 0, or the seconds until there is room. */
export type ChargeAssociation = (tenantId: number, channelId: number) => number | Promise<number>;

export class IngestService {
  constructor(
    private readonly associations: AssociationsService,
    private readonly acceptor: CustomerMessageAcceptor,
    private readonly events: ChannelEventBus,
    private readonly clock: Clock,
  ) {}

  /** Cheap header check, run before the body is read; answers the parsed Authorization and the trimmed X-Auth-Expires. */
  static assertAuthorizationPresent(authorization: string | undefined, expires: string | undefined): { auth: ParsedHmacAuthorization; expires: string } {
    const auth = parseHmacAuthorization(authorization);
    if (!auth) throw new AppError('missing_authorization');
    const trimmed = expires?.trim();
    if (trimmed === undefined || !/^-?\d{1,16}$/.test(trimmed)) {
      throw new AppError('missing_authorization', {}, { cause: new Error('X-Auth-Expires missing or not an integer') });
    }
    return { auth, expires: trimmed };
  }

  /**
   * `charge`, when given, is called once the signature holds and answers 0, or the seconds to
   * wait when the association is over its rate (then 429 `rate_limited`): unauthenticated
   * requests never use the association's budget.
   */
  async receive(request: SendMessageRequest, charge?: ChargeAssociation): Promise<SendMessageResult> {
    const { auth, expires } = request.credentials ?? IngestService.assertAuthorizationPresent(request.authorization, request.expires);

    const association = await this.associations.byClient(auth.clientId);
    if (!association || association.tenantId !== request.tenantId || association.id !== request.channelId) {
      // Tell an unknown tenant or channel (404), a standard tenant (403) and a Client ID that
      // does not own the channel (401) apart.
      await this.associations.require(request.tenantId, request.channelId);
      throw new AppError('invalid_client');
    }
    const signed = { method: 'POST', path: request.path, expires, body: request.rawBody };
    if (!verifySendMessage(association.signingKey, signed, auth.signature)) throw new AppError('invalid_signature');
    if (charge) {
      const charged = charge(request.tenantId, request.channelId);
      const wait = typeof charged === 'number' ? charged : await charged;
      if (wait > 0) throw new AppError('rate_limited', { retryAfter: wait }, { headers: { 'retry-after': String(wait) } });
    }
    const expiresAt = Number(expires);
    if (expiresAt > 0 && expiresAt < this.clock.now()) throw new AppError('signature_expired', { expires: new Date(expiresAt).toISOString() });

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
    }
    return { msg_id: accepted.msgId, conversation_id: conv.id, duplicate: accepted.duplicate };
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
