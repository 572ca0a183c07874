/**
 * Accepting a customer message (spec 4.1, contract 3.2), once ingest.ts has authenticated and
 * validated it. In the message's transaction, in this order:
 *   tenant and edition -> de-duplication by msg_id -> the visitor (insert, or merge the profile
 *   and tags) -> the VIP flag -> the open conversation, or a new one (routed by routing.ts, its
 *   agent claimed by assignment.ts) -> the message appended.
 * Concurrent messages share one transaction (the unit of work's group commit); a message that
 * meets a concurrent one's unique key (the same visitor, open conversation or msg_id) is written
 * again alone, and then finds their rows. The steps are the ArrivalTransaction's
 * (arrival-store.ts); how they are made fast is storage's business.
 */
import { AppError } from '../../kernel/errors.js';
import type { GroupWriter, UnitOfWork } from '../../kernel/unit-of-work.js';
import type { AcceptedMessage, ArrivalTransaction, IncomingMessage } from './arrival-store.js';
import { claimAgent } from './assignment.js';
import type { TenantInfo, VisitorProfile } from './ports.js';
import type { ChannelTransaction } from './transaction.js';
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
  private readonly writer: GroupWriter<IncomingMessage, AcceptedMessage>;

  constructor(
    uow: UnitOfWork<ChannelTransaction>,
    private readonly route: ResolveRoute = resolveRoute,
  ) {
    this.writer = uow.groupCommit<IncomingMessage, AcceptedMessage>(async (tx, inputs) => {
      const out: AcceptedMessage[] = [];
      for (const input of inputs) out.push(await this.acceptIn(tx.channel.arrivals, input));
      return out;
    });
  }

  /** Stores a customer message; settles once it is committed. */
  readonly accept = (input: IncomingMessage): Promise<AcceptedMessage> => this.writer.submit(input);

  private async acceptIn(tx: ArrivalTransaction, input: IncomingMessage): Promise<AcceptedMessage> {
    const tenant = await tx.tenant(input.tenantId);
    if (!tenant) throw new AppError('not_found', { resource: `Tenant ${input.tenantId}` });
    if (tenant.edition !== 'flagship') throw new AppError('edition_not_supported', { edition: tenant.edition, feature: 'the REST channel' });

    const found = await tx.arrival(input);
    if (found.seenConversationId !== null) return this.duplicate(tx, input);
    const stored = found.visitor;
    let visitorId: number;
    let tags: string[];
    if (!stored) {
      // A new visitor has no conversation (conversations are deleted with their visitor).
      tags = input.tags ?? [];
      visitorId = await tx.insertVisitor(input, tags);
    } else {
      visitorId = stored.id;
      const profileChanges = changesProfile(stored.profile, input.profile);
      const profile = profileChanges ? { ...stored.profile, ...input.profile } : stored.profile;
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
    if (!appended) return this.duplicate(tx, input);
    return { duplicate: false, msgId: input.msgId, conversation: appended, opened };
  }

  private async duplicate(tx: ArrivalTransaction, input: IncomingMessage): Promise<AcceptedMessage> {
    return { duplicate: true, msgId: input.msgId, conversation: await tx.duplicateOf(input), opened: false };
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
