/**
 * Accepting a customer message (spec 4.1, contract 3.2), once ingest.ts has authenticated and
 * validated it. In the message's transaction, in this order:
 *   tenant and edition -> a known customer's fast path -> de-duplication by msg_id -> the visitor
 *   (insert, or merge the profile and tags) -> the VIP flag -> the open conversation, or a new one
 *   (routed by routing.ts, its agent claimed by assignment.ts) -> the message appended.
 * The writes go through the ArrivalStore port (arrival-store.ts); how they are batched and made
 * fast is the adapter's business.
 */
import { AppError } from '../../kernel/errors.js';
import type { AcceptedMessage, ArrivalStore, ArrivalTransaction, IncomingMessage, KnownArrival } from './arrival-store.js';
import { claimAgent } from './assignment.js';
import type { TenantInfo, VisitorProfile } from './ports.js';
import { resolveRoute } from './routing.js';

/** Where a new conversation goes: routing.ts's order over the directory of the message's transaction. */
export type ResolveRoute = typeof resolveRoute;

/** A conversation is VIP when its visitor has one of the tenant's VIP tags. */
export function isVip(tags: readonly string[], vipTags: readonly string[]): boolean {
  for (const tag of tags) if (vipTags.includes(tag)) return true;
  return false;
}

/** Whether the given profile fields change the stored profile (a given field replaces the stored one). */
export function changesProfile(stored: VisitorProfile, given: VisitorProfile): boolean {
  for (const field in given) if (given[field as keyof VisitorProfile] !== stored[field as keyof VisitorProfile]) return true;
  return false;
}

export function sameTags(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class CustomerMessageAcceptor {
  /** Stores a customer message; settles once it is committed. */
  readonly accept: (input: IncomingMessage) => Promise<AcceptedMessage>;

  constructor(
    store: ArrivalStore,
    private readonly route: ResolveRoute = resolveRoute,
  ) {
    this.accept = store.inBatches((tx, input) => this.acceptIn(tx, input));
  }

  private async acceptIn(tx: ArrivalTransaction, input: IncomingMessage): Promise<AcceptedMessage> {
    const read = tx.tenant(input.tenantId);
    const tenant = read instanceof Promise ? await read : read;
    if (!tenant) throw new AppError('not_found', { resource: `Tenant ${input.tenantId}` });
    if (tenant.edition !== 'flagship') throw new AppError('edition_not_supported', { edition: tenant.edition, feature: 'the REST channel', tenantId: tenant.id });
    if (tx.remembers) {
      const known = await tx.knownArrival(input.channelId, input.customerId);
      if (known) {
        const accepted = await this.acceptKnown(tx, input, tenant.vipTags, known);
        if (accepted) return accepted;
      }
    }

    const found = await tx.arrival(input);
    if (found.seenConversationId !== null) {
      return { duplicate: true, msgId: input.msgId, conversation: await tx.conversation(found.seenConversationId), opened: false };
    }
    const stored = found.visitor;
    let visitorId: number;
    let profile: VisitorProfile;
    let tags: string[];
    if (!stored) {
      // A new visitor has no conversation (conversations are deleted with their visitor).
      profile = input.profile;
      tags = input.tags ?? [];
      visitorId = await tx.insertVisitor(input, tags);
    } else {
      visitorId = stored.id;
      const profileChanges = changesProfile(stored.profile, input.profile);
      profile = profileChanges ? { ...stored.profile, ...input.profile } : stored.profile;
      tags = input.tags ?? stored.tags;
      if (profileChanges || !sameTags(tags, stored.tags)) await tx.updateVisitor(visitorId, profile, tags, input.now);
    }
    const vip = isVip(tags, tenant.vipTags);

    let conversation = found.open;
    let opened = false;
    if (!conversation) {
      conversation = await this.open(tx, input, tenant, visitorId, vip);
      opened = true;
    }
    const appended = await tx.appendMessage(conversation.id, input, conversation.vip === vip ? undefined : vip);
    if (tx.remembers) tx.remember(input.channelId, input.customerId, { profile, tags, conversation: appended });
    return { duplicate: false, msgId: input.msgId, conversation: appended, opened };
  }

  /**
   * A message from a known customer whose profile, tags and VIP flag it leaves as they are: one
   * insert, one update. Undefined when it does not apply (the msg_id was seen before, or the
   * visitor or the VIP flag changes): the full sequence then handles the message.
   */
  private async acceptKnown(tx: ArrivalTransaction, input: IncomingMessage, vipTags: string[], known: KnownArrival): Promise<AcceptedMessage | undefined> {
    if (changesProfile(known.profile, input.profile)) return undefined;
    if (input.tags && !sameTags(input.tags, known.tags)) return undefined;
    if (isVip(known.tags, vipTags) !== known.conversation.vip) return undefined;
    const conversation = known.conversation;
    const messageId = await tx.insertMessageIfNew(conversation.id, input);
    if (messageId === undefined) return undefined;
    await tx.touchConversation(conversation.id, messageId, input.now);
    // The same entry is remembered again: a message changes only the conversation's
    // bookkeeping, which nothing reads from it (arrival-store.ts, KnownArrival).
    tx.remember(input.channelId, input.customerId, known);
    return { duplicate: false, msgId: input.msgId, conversation: { ...conversation, updatedAt: input.now }, opened: false };
  }

  /** Opens the customer's conversation: routed, and given to an agent when one is named or can be claimed. */
  private async open(tx: ArrivalTransaction, input: IncomingMessage, tenant: TenantInfo, visitorId: number, vip: boolean) {
    const route = await this.route(tx.directory, tenant, input.associationQueueId, input.hints);
    const agentId = route.agentId ?? (await claimAgent(tx, route.queueId)) ?? null;
    return tx.openConversation({
      tenantId: input.tenantId,
      channelId: input.channelId,
      visitorId,
      customerId: input.customerId,
      state: agentId === null ? 'waiting' : 'processing',
      queueId: route.queueId,
      agentId,
      vip,
      now: input.now,
    });
  }
}
